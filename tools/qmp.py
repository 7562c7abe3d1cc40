#!/usr/bin/env python3
"""qmp.py - a small QEMU Machine Protocol (QMP) client, standard library only.

QMP is newline-delimited JSON over a socket.  On connect QEMU sends a greeting
({"QMP": {...}}); the client must send "qmp_capabilities" before any other
command.  Each command ({"execute": NAME, "arguments": {...}, "id": TAG}) gets
exactly one reply, {"return": ...} or {"error": {"class": ..., "desc": ...}},
but asynchronous events ({"event": NAME, "data": {...}, "timestamp": {...}})
may arrive at any time, also between a command and its reply.  This client
keeps such events aside in QMP.events, where wait_event() finds them later.

Library use (tests/qemu uses it this way):

    from qmp import QMP, QMPError
    q = QMP().connect("/tmp/memlab/qmp.sock", timeout=10)
    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": "m1",
                           "size": 1 << 30})
    q.cmd("device_add", driver="pc-dimm", id="d1", memdev="m1")
    q.wait_event("ACPI_DEVICE_OST", timeout=30)
    print(q.hmp("info memory-devices"))
    q.close()

Command line, for a person in a second terminal while `make run` is going:

    tools/qmp.py SOCKET COMMAND [JSON-ARGS | key=value ...]
    tools/qmp.py SOCKET hmp "info memory-devices"
    tools/qmp.py SOCKET --events          # print events as they come
    tools/qmp.py SOCKET                   # interactive: one command per line

QEMU serves one QMP client at a time on a socket: while another client (for
example the test harness) is connected, a second one gets no greeting.
"""

import json
import os
import re
import select
import shlex
import socket
import sys
import time

__all__ = ["QMP", "QMPError", "QMPConnectError", "QMPTimeout", "parse_args"]


class QMPError(Exception):
    """QEMU answered a command with an error reply.

    cls is the QMP error class ("GenericError", "CommandNotFound", ...) and
    desc its human-readable description."""

    def __init__(self, cls, desc, command=None):
        self.cls = cls
        self.desc = desc
        self.command = command
        where = f"{command}: " if command else ""
        super().__init__(f"{where}{cls}: {desc}")


class QMPConnectError(ConnectionError):
    """No QMP session: no socket, nobody listening, or the connection closed."""


class QMPTimeout(TimeoutError):
    """No reply or event within the time allowed."""


def _hint(path):
    return (f"is QEMU running with -qmp unix:{path},server=on,wait=off?")


class QMP:
    """One QMP session over a unix (or TCP) stream socket.

    Attributes:
      greeting  the {"QMP": ...} object QEMU sent on connect
      events    events received and not yet consumed by wait_event(), oldest
                first (a plain list: tests may read or clear it)
      timeout   default seconds to wait for a command's reply
    """

    def __init__(self, timeout=30.0):
        self.sock = None
        self.path = None
        self.greeting = None
        self.events = []
        self.timeout = timeout
        self._rbuf = b""
        self._next_id = 1

    # -- connection --------------------------------------------------------

    def connect(self, path, timeout=10.0, retry=True):
        """Connect to the QMP socket at path and negotiate capabilities.

        path is a unix socket path, or "HOST:PORT" for a TCP monitor.  With
        retry, a missing socket or a refused connection is retried until
        timeout (QEMU may still be starting).  Returns self."""
        self.path = path
        deadline = time.monotonic() + timeout
        last_err = None
        while True:
            try:
                self.sock = self._open(path)
                break
            except (FileNotFoundError, ConnectionRefusedError) as e:
                last_err = e
            if not retry or time.monotonic() >= deadline:
                if isinstance(last_err, FileNotFoundError):
                    raise QMPConnectError(
                        f"no QMP socket at {path}: {_hint(path)}") from None
                raise QMPConnectError(
                    f"nobody is listening on {path} (connection refused; a "
                    f"stale socket from a QEMU that exited?): "
                    f"{_hint(path)}") from None
            time.sleep(0.05)

        try:
            msg = self._read_msg(deadline=time.monotonic() + max(
                1.0, deadline - time.monotonic()))
        except QMPTimeout:
            self.close()
            raise QMPConnectError(
                f"connected to {path} but QEMU sent no QMP greeting within "
                f"{timeout:g} s: is another client (a test, or another "
                f"qmp.py) already connected? QEMU serves one QMP client at a "
                f"time per socket") from None
        if not isinstance(msg, dict) or "QMP" not in msg:
            self.close()
            raise QMPConnectError(f"{path}: not a QMP greeting: {msg!r}")
        self.greeting = msg
        self.execute("qmp_capabilities")
        return self

    @staticmethod
    def _open(path):
        m = re.fullmatch(r"(?:tcp:)?([\w.-]+):(\d+)", path)
        if m and not os.path.exists(path):
            return socket.create_connection((m.group(1), int(m.group(2))))
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
        except OSError:
            s.close()
            raise
        return s

    def close(self):
        """Close the socket.  Events already received stay in self.events."""
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- wire --------------------------------------------------------------

    def _send(self, obj):
        if self.sock is None:
            raise QMPConnectError("QMP: not connected")
        data = json.dumps(obj).encode() + b"\n"
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as e:
            self.close()
            raise QMPConnectError(
                f"QMP connection to {self.path} lost: {e}") from None

    def _read_msg(self, deadline):
        """The next JSON message, waiting until deadline (time.monotonic()).
        Returns None if deadline is None and nothing is waiting."""
        while True:
            nl = self._rbuf.find(b"\n")
            if nl >= 0:
                line, self._rbuf = self._rbuf[:nl], self._rbuf[nl + 1:]
                line = line.strip()
                if not line:
                    continue
                try:
                    return json.loads(line)
                except ValueError:
                    raise QMPConnectError(
                        f"QMP: malformed line from QEMU: {line[:200]!r}")
            if self.sock is None:
                raise QMPConnectError("QMP: not connected")
            wait = 0.0 if deadline is None else deadline - time.monotonic()
            if wait < 0:
                wait = 0.0
            ready, _, _ = select.select([self.sock], [], [], wait)
            if not ready:
                if deadline is None:
                    return None
                if time.monotonic() >= deadline:
                    raise QMPTimeout("QMP: timed out waiting for QEMU")
                continue
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                self.close()
                raise QMPConnectError(
                    "QMP: QEMU closed the connection (did it exit?)")
            self._rbuf += chunk

    # -- commands ----------------------------------------------------------

    def execute(self, name, args=None, timeout=None):
        """Run command name with the argument dict args.  Returns the
        "return" value; raises QMPError for an error reply, QMPTimeout, or
        QMPConnectError.  Events that arrive meanwhile go to self.events."""
        tag = f"memlab-{self._next_id}"
        self._next_id += 1
        msg = {"execute": name, "id": tag}
        if args:
            msg["arguments"] = args
        self._send(msg)
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            try:
                reply = self._read_msg(deadline)
            except QMPTimeout:
                raise QMPTimeout(
                    f"QMP: no reply to {name} within {timeout:g} s") from None
            if not isinstance(reply, dict):
                continue
            if "event" in reply:
                self.events.append(reply)
                continue
            if reply.get("id") not in (tag, None):
                continue        # the late reply to a command that timed out
            if "error" in reply:
                err = reply["error"]
                raise QMPError(err.get("class", "?"), err.get("desc", ""),
                               command=name)
            if "return" in reply:
                return reply["return"]

    def cmd(self, name, args=None, **kwargs):
        """execute() with keyword arguments: cmd("device_add",
        driver="pc-dimm", id="d1", memdev="m1").  Names with dashes go in
        args or **{"qom-type": ...}."""
        merged = dict(args or {})
        merged.update(kwargs)
        return self.execute(name, merged or None)

    def hmp(self, command_line, timeout=None):
        """Run a human monitor command ("info memory-devices"); its text."""
        return self.execute("human-monitor-command",
                            {"command-line": command_line}, timeout=timeout)

    # -- events ------------------------------------------------------------

    def drain(self, timeout=0.0):
        """Read whatever arrives within timeout seconds into self.events.
        Returns the events read by this call."""
        got = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                msg = self._read_msg(None if timeout <= 0 else deadline)
            except QMPTimeout:
                return got
            if msg is None:
                return got
            if isinstance(msg, dict) and "event" in msg:
                self.events.append(msg)
                got.append(msg)

    def wait_event(self, name=None, timeout=30.0, match=None):
        """Wait for an event called name (any event if None) whose "data"
        contains every key/value of the dict match.  Events kept aside earlier
        are looked at first.  The event is removed from self.events and
        returned; raises QMPTimeout if none arrives within timeout."""

        def fits(ev):
            if name is not None and ev.get("event") != name:
                return False
            if match:
                data = ev.get("data", {})
                return all(data.get(k) == v for k, v in match.items())
            return True

        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for i in range(seen, len(self.events)):
                if fits(self.events[i]):
                    return self.events.pop(i)
            seen = len(self.events)
            try:
                msg = self._read_msg(deadline)
            except QMPTimeout:
                what = name or "any event"
                if match:
                    what += f" with {match}"
                raise QMPTimeout(
                    f"QMP: no {what} within {timeout:g} s; events seen: "
                    f"{[e.get('event') for e in self.events]}") from None
            if isinstance(msg, dict) and "event" in msg:
                self.events.append(msg)


# -- command line ----------------------------------------------------------

SIZE_KEYS = {"size", "requested-size", "max-size", "block-size"}
STRING_KEYS = {"id", "memdev", "driver", "bus", "path", "property", "qom-type",
               "command-line", "device", "node-name", "mem-path", "filename",
               "name", "chardev"}
_SIZE_RE = re.compile(r"(\d+)([KMGTP])i?B?", re.I)
_SHIFT = {"K": 10, "M": 20, "G": 30, "T": 40, "P": 50}


def parse_size(text):
    """"1G" -> 1073741824 (binary units); None if text is not a size."""
    m = _SIZE_RE.fullmatch(text)
    if m:
        return int(m.group(1)) << _SHIFT[m.group(2).upper()]
    return None


def _value(key, text, size_like):
    if key in STRING_KEYS:
        return text
    if size_like:
        n = parse_size(text)
        if n is not None:
            return n
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"0x[0-9a-fA-F]+", text):
        return int(text, 16)
    if text == "true":
        return True
    if text == "false":
        return False
    return text


def parse_args(words):
    """Turn CLI words into a QMP argument dict.

    Either one JSON object ('{"id": "d1"}') or key=value words.  Values become
    integers (decimal or 0x hex), true/false become booleans, sizes like 1G
    become integers for size keys (size, requested-size, ...; and "value" of
    a qom-set whose property is one of them); ids, drivers and paths stay
    strings.  key:=JSON forces a JSON value (e.g. share:=true, id:="1")."""
    if not words:
        return {}
    if len(words) == 1 and words[0].lstrip().startswith("{"):
        try:
            obj = json.loads(words[0])
        except ValueError as e:
            raise ValueError(f"bad JSON arguments: {e}") from None
        if not isinstance(obj, dict):
            raise ValueError("JSON arguments must be an object")
        return obj
    args = {}
    pending = []
    for w in words:
        eq = w.find("=")
        if eq > 0 and w[eq - 1] == ":":
            k, v = w[:eq - 1], w[eq + 1:]
            try:
                args[k] = json.loads(v)
            except ValueError as e:
                raise ValueError(f"{w}: bad JSON value: {e}") from None
        elif "=" in w:
            k, v = w.split("=", 1)
            if not k:
                raise ValueError(f"{w}: empty key")
            pending.append((k, v))
        else:
            raise ValueError(f"{w!r}: expected key=value (or one JSON object)")
    prop = dict(pending).get("property")
    for k, v in pending:
        size_like = k in SIZE_KEYS or (k == "value" and prop in SIZE_KEYS)
        args[k] = _value(k, v, size_like)
    return args


def _print_result(res):
    if isinstance(res, str):
        sys.stdout.write(res if res.endswith("\n") or not res else res + "\n")
    elif res == {}:
        print("ok")
    else:
        print(json.dumps(res, indent=2, sort_keys=False))


def _print_event(ev, out=sys.stdout):
    ts = ev.get("timestamp", {})
    stamp = ""
    if "seconds" in ts:
        stamp = time.strftime("%H:%M:%S", time.localtime(ts["seconds"]))
        stamp += f".{ts.get('microseconds', 0):06d} "
    data = ev.get("data")
    text = f"{stamp}event {ev.get('event')}"
    if data is not None:
        text += " " + json.dumps(data, sort_keys=True)
    print(text, file=out, flush=True)


def _run_words(q, words):
    """Run one command given as words (CLI arguments or one typed line)."""
    name = words[0]
    if name == "hmp":
        if len(words) < 2:
            raise ValueError('usage: hmp "HMP COMMAND LINE"')
        return q.hmp(" ".join(words[1:]))
    return q.execute(name, parse_args(words[1:]) or None)


INTERACTIVE_HELP = """\
One QMP command per line: NAME [key=value ...] or NAME {JSON}, e.g.
  query-status
  object-add qom-type=memory-backend-ram id=m1 size=1G
  device_add driver=pc-dimm id=d1 memdev=m1
  device_del id=d1
  qom-set path=vmem1 property=requested-size value=1G
  query-memory-devices
  hmp info memory-devices        (any human monitor command)
  events                         (show the events kept so far)
  wait EVENT [SECONDS]           (take the first event of that name that
                                 came after your last command, shown or
                                 not, e.g. wait DEVICE_DELETED)
  help, quit (or Ctrl-D)
Events that arrive are printed before the next prompt."""


def _wait_after(q, history, name, timeout):
    """The interactive `wait`: the first event called name that is not in
    history (the events kept when the last command was sent), so a wait
    after device_del answers with that device's events, not with an older
    one of the same name.  The older events stay kept, in front."""
    old = [e for e in q.events if any(e is h for h in history)]
    q.events[:] = [e for e in q.events if all(e is not h for h in history)]
    try:
        return q.wait_event(name, timeout=timeout)
    finally:
        q.events[:0] = old


def greeting_line(greeting, path):
    """The interactive mode's first line, from QEMU's QMP greeting."""
    ver = greeting.get("QMP", {}).get("version", {}).get("qemu", {})
    return (f"connected to QEMU {ver.get('major')}.{ver.get('minor')}.{ver.get('micro')}"
            f" at {path}; 'help' for help, Ctrl-D to quit")


def _interactive(q):
    try:
        import readline  # noqa: F401  (line editing and history for input())
    except ImportError:
        pass
    print(greeting_line(q.greeting, q.path))
    printed = 0         # q.events[:printed] have been shown
    history = []        # the events kept when the last command was sent

    def show_new():
        nonlocal printed
        q.drain(0)
        for ev in q.events[printed:]:
            _print_event(ev)
        del q.events[:-100]             # keep the last 100 for "wait"
        printed = len(q.events)

    while True:
        try:
            show_new()
            line = input("(qmp) ")
        except EOFError:
            print()
            return 0
        except KeyboardInterrupt:
            print()
            continue
        try:
            words = shlex.split(line)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            continue
        if not words:
            continue
        if words[0] in ("quit", "exit") and len(words) == 1:
            return 0
        if words[0] in ("help", "?"):
            print(INTERACTIVE_HELP)
            continue
        if words[0] == "events":
            q.drain(0.1)
            for ev in q.events:
                _print_event(ev)
            printed = len(q.events)
            continue
        try:
            if words[0] == "wait" and len(words) in (2, 3):
                tmo = float(words[2]) if len(words) == 3 else 30.0
                ev = _wait_after(q, history, words[1], tmo)
                printed = min(printed, len(q.events))
                _print_event(ev)
                continue
            q.drain(0)
            history = list(q.events)
            _print_result(_run_words(q, words))
        except QMPError as e:
            print(f"error: {e.cls}: {e.desc}", file=sys.stderr)
        except (ValueError, QMPTimeout) as e:
            print(f"error: {e}", file=sys.stderr)
        except KeyboardInterrupt:
            print("\ninterrupted", file=sys.stderr)


def _watch_events(q, names):
    print(f"waiting for events on {q.path} (Ctrl-C to stop)",
          file=sys.stderr, flush=True)
    try:
        while True:
            ev = q.wait_event(None, timeout=3600)
            if not names or ev.get("event") in names:
                _print_event(ev)
    except QMPTimeout:
        return 0
    except QMPConnectError:
        print("QEMU closed the connection", file=sys.stderr)
        return 0
    except KeyboardInterrupt:
        return 0


USAGE = """\
usage: qmp.py [--timeout SECONDS] SOCKET [COMMAND [JSON-ARGS | key=value ...]]
       qmp.py SOCKET hmp "HMP COMMAND LINE"
       qmp.py SOCKET --events [EVENT ...]

Talk to a running QEMU over its QMP socket (-qmp unix:SOCKET,server=on,wait=off;
`make run` prints the path).  Without COMMAND, read commands interactively.

  qmp.py build/qmp.sock query-status
  qmp.py build/qmp.sock object-add qom-type=memory-backend-ram id=m1 size=1G
  qmp.py build/qmp.sock device_add driver=pc-dimm id=d1 memdev=m1
  qmp.py build/qmp.sock device_del id=d1
  qmp.py build/qmp.sock qom-set path=vmem1 property=requested-size value=2G
  qmp.py build/qmp.sock query-memory-devices
  qmp.py build/qmp.sock hmp "info memory-devices"
  qmp.py build/qmp.sock --events DEVICE_DELETED ACPI_DEVICE_OST

key=value: numbers (123, 0x1000) become integers, true/false booleans, sizes
(512M, 1G) integers for size-like keys; key:=JSON gives a raw JSON value.
Exit status: 0 ok, 1 QMP error reply, 2 usage/connection error."""


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    prog = os.path.basename(sys.argv[0]) or "qmp.py"
    timeout = 30.0
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    while argv and argv[0] == "--timeout":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        timeout = float(argv[1])
        argv = argv[2:]
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    path, words = argv[0], argv[1:]
    if words and words[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    if words and words[0] not in ("--events", "hmp"):
        try:
            parse_args(words[1:])
        except ValueError as e:
            print(f"{prog}: {e}", file=sys.stderr)
            return 2

    q = QMP(timeout=timeout)
    try:
        q.connect(path, timeout=min(timeout, 5.0), retry=False)
    except QMPConnectError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except PermissionError:
        print(f"{prog}: permission denied on {path}", file=sys.stderr)
        return 2
    try:
        if not words:
            return _interactive(q)
        if words[0] == "--events":
            return _watch_events(q, set(words[1:]))
        try:
            _print_result(_run_words(q, words))
        except QMPError as e:
            print(f"{prog}: error: {e.cls}: {e.desc}", file=sys.stderr)
            return 1
        except ValueError as e:
            print(f"{prog}: {e}", file=sys.stderr)
            return 2
        try:
            for ev in q.drain(0.05):
                _print_event(ev, out=sys.stderr)
        except QMPConnectError:
            pass                # "quit": QEMU closes right after replying
        return 0
    except QMPTimeout as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except QMPConnectError as e:
        # "quit" makes QEMU close the socket right after its reply
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        q.close()


if __name__ == "__main__":
    sys.exit(main())

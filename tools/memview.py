#!/usr/bin/env python3
"""memview.py - a live view of memlab's memory in a web browser.

    tools/memview.py [--view build/view.sock] [--qmp build/qmp.sock]
                     [--port 0]

memlab speaks JSON lines on its second serial port, COM2 (the view
channel, docs/view.md); QEMU puts that port on a unix socket
(`-chardev socket,id=view,path=build/view.sock,server=on,wait=off
-serial chardev:view`, what `make view` passes).  memview.py connects to
it, asks for a snapshot, keeps the latest state as the updates come, and
serves on http://127.0.0.1:PORT/ (port 0: a free one; the URL is printed on
the first line of its output):

    /             tools/view/index.html, the page
    /view.js      tools/view/view.js, which draws it
    /state        the state as JSON (what the page draws)
    /events       the state again on every change, as Server-Sent Events
    /api/alloc    POST {"order": N, "count": C, "movable": false}: asks memlab
    /api/free     POST {"order": N, "count": C}: asks memlab
    /api/dimm/add     POST {"size_mb": M}: QMP object-add + device_add pc-dimm
    /api/dimm/remove  POST {"id": "memview-d1"}: QMP device_del

QEMU serves one QMP client at a time, so memview.py connects to QMP only
for one action and closes it again (tools/qmp.py).  When the view socket
closes (memlab powered off, QEMU gone) the state says so and memview.py
tries again every half second; a hello that answers no request means
memlab booted again, and a fresh snapshot is asked for.  A memlab that
stops answering (a crash: the machine halts but QEMU stays) is noticed
by a hello request every second that gets no answer.

Standard library only.
"""

import argparse
import collections
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from qmp import QMP, QMPError  # noqa: E402

PAGE_DIR = os.path.join(HERE, "view")
PING_EVERY = 1.0        # seconds between two hello requests
SILENT_AFTER = 3.0      # no line for this long: memlab is not answering


class State:
    """The latest state memlab sent, and who is waiting for a change."""

    def __init__(self):
        self.cond = threading.Condition()
        self.seq = 0
        self.data = {
            "connected": False, "answering": False, "why": "not connected yet",
            "hello": None, "nodes": [], "zones": [], "blocks": [],
            "devmem": [], "dimms": [], "ms": None, "updated": None,
            "log": [],
        }
        self.log = collections.deque(maxlen=40)

    def update(self, note=None, **fields):
        with self.cond:
            self.data.update(fields)
            if note:
                self.log.appendleft({"t": round(time.time(), 3), "what": note})
            self.data["log"] = list(self.log)
            self.data["updated"] = round(time.time(), 3)
            self.seq += 1
            self.data["seq"] = self.seq
            self.cond.notify_all()

    def get(self):
        with self.cond:
            return self.seq, json.dumps(self.data)

    def wait(self, seq, timeout):
        """The state once its seq is past seq (or after timeout)."""
        with self.cond:
            self.cond.wait_for(lambda: self.seq != seq, timeout)
            return self.seq, json.dumps(self.data)


class Channel:
    """The connection to memlab's view socket, in a thread of its own."""

    def __init__(self, path, state, on_layout):
        self.path = path
        self.state = state
        self.on_layout = on_layout
        self.sock = None
        self.wlock = threading.Lock()
        self.tag = 0
        self.pending_pings = set()
        self.last_rx = 0.0

    def send(self, obj):
        """One request line; False if memlab is not connected."""
        line = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
        with self.wlock:
            if self.sock is None:
                return False
            try:
                self.sock.sendall(line)
                return True
            except OSError:
                return False

    def next_tag(self):
        self.tag += 1
        return self.tag

    def run(self):
        threading.Thread(target=self._pinger, daemon=True).start()
        was_connected = False
        while True:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.path)
            except OSError as e:
                s.close()
                if was_connected or self.state.data["why"] == "not connected yet":
                    self.state.update(
                        note="memlab gone: view socket closed" if was_connected else None,
                        connected=False, answering=False,
                        why=f"no memlab on {self.path} ({e.strerror or e})")
                was_connected = False
                time.sleep(0.5)
                continue
            was_connected = True
            with self.wlock:
                self.sock = s
            self.last_rx = time.monotonic()
            self.state.update(note="connected to memlab's view socket",
                              connected=True, answering=True, why="")
            self.send({"v": 1, "req": "snapshot"})
            self._read(s)
            with self.wlock:
                self.sock = None
            s.close()
            self.state.update(note="memlab gone: view socket closed",
                              connected=False, answering=False,
                              why="memlab is gone (the view socket closed)")

    def _read(self, s):
        buf = b""
        while True:
            try:
                chunk = s.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                line = line.strip(b"\r\0")
                if line:
                    self.last_rx = time.monotonic()
                    self._message(line)

    def _message(self, line):
        try:
            msg = json.loads(line.decode("utf-8", "replace"))
            kind = msg["type"]
        except (ValueError, KeyError, TypeError):
            # a line cut by a lost byte: start again from a full picture
            self.state.update(note=f"unreadable line ({len(line)} bytes): "
                                   "asking for a snapshot")
            self.send({"v": 1, "req": "snapshot"})
            return
        st = self.state
        if not st.data["answering"]:
            st.update(note="memlab answers again", answering=True, why="")
        if kind == "hello":
            if msg.get("tag") in self.pending_pings:
                self.pending_pings.discard(msg.get("tag"))
                return
            st.update(note=f"memlab {msg.get('version')} booted "
                           f"({msg.get('mem_bytes', 0) >> 20} MiB)",
                      hello=msg, nodes=[], zones=[], blocks=[], devmem=[])
            self.send({"v": 1, "req": "snapshot"})
        elif kind == "snapshot":
            hello = {k: msg.get(k) for k in ("kernel", "version", "mem_bytes", "page_size",
                                             "block_bytes", "max_order")}
            st.update(note=f"snapshot: {len(msg.get('zones', []))} zones, "
                           f"{len(msg.get('blocks', []))} blocks",
                      hello=hello, nodes=msg.get("nodes", []), zones=msg.get("zones", []),
                      blocks=msg.get("blocks", []), devmem=msg.get("devmem", []),
                      ms=msg.get("ms"))
            self.on_layout()
        elif kind == "zones":
            st.update(zones=msg.get("zones", []), ms=msg.get("ms"))
        elif kind == "blocks":
            hello = dict(st.data["hello"] or {})
            hello["mem_bytes"] = msg.get("mem_bytes", hello.get("mem_bytes"))
            st.update(note=f"layout: {len(msg.get('blocks', []))} blocks",
                      hello=hello, nodes=msg.get("nodes", []), blocks=msg.get("blocks", []),
                      devmem=msg.get("devmem", []), ms=msg.get("ms"))
            self.on_layout()
        elif kind in ("alloc", "free"):
            why = f" ({msg['why']})" if msg.get("why") else ""
            st.update(note=f"{kind}: {msg.get('done')} of {msg.get('count')} blocks of "
                           f"order {msg.get('order')}{why}")
        elif kind == "error":
            st.update(note=f"memlab refused a request: {msg.get('why')}")
        else:
            st.update(note=f"unknown message type {kind!r}")

    def _pinger(self):
        while True:
            time.sleep(PING_EVERY)
            if self.sock is None:
                continue
            tag = self.next_tag()
            self.pending_pings.add(tag)
            if len(self.pending_pings) > 16:
                self.pending_pings = set(sorted(self.pending_pings)[-16:])
            self.send({"v": 1, "req": "hello", "tag": tag})
            silent = time.monotonic() - self.last_rx
            if silent > SILENT_AFTER and self.state.data["answering"]:
                self.state.update(note="memlab stopped answering",
                                  answering=False,
                                  why=f"memlab is not answering ({silent:.0f} s): "
                                      "crashed or stopped?")


class Dimms:
    """DIMMs through QMP: one short connection per action."""

    def __init__(self, path, state):
        self.path = path
        self.state = state
        self.lock = threading.Lock()
        self.n = 0

    def _qmp(self):
        return QMP(timeout=10).connect(self.path, timeout=3, retry=False)

    def refresh(self):
        """The pc-dimm devices QEMU has, into the state."""
        try:
            with self.lock:
                q = self._qmp()
                try:
                    devs = q.cmd("query-memory-devices")
                finally:
                    q.close()
        except (OSError, QMPError) as e:
            self.state.update(dimms_error=str(e))
            return
        dimms = []
        for d in devs:
            data = d.get("data", {})
            if d.get("type") != "dimm":
                continue
            dimms.append({"id": data.get("id"), "addr": data.get("addr"),
                          "size": data.get("size"), "node": data.get("node"),
                          "slot": data.get("slot")})
        self.state.update(dimms=dimms, dimms_error=None)

    def add(self, size_mb):
        with self.lock:
            q = self._qmp()
            try:
                used = {d["data"].get("id") for d in q.cmd("query-memory-devices")
                        if "data" in d}
                while True:
                    self.n += 1
                    dev, mem = f"memview-d{self.n}", f"memview-m{self.n}"
                    if dev not in used:
                        break
                try:
                    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": mem,
                                           "size": size_mb << 20})
                except QMPError as e:
                    if "duplicate" not in str(e).lower() and "exists" not in str(e).lower():
                        raise
                q.cmd("device_add", driver="pc-dimm", id=dev, memdev=mem)
            finally:
                q.close()
        self.state.update(note=f"QMP: added {dev} ({size_mb} MiB)")
        threading.Thread(target=self.refresh, daemon=True).start()
        return dev

    def remove(self, dev):
        with self.lock:
            q = self._qmp()
            try:
                q.cmd("device_del", id=dev)
            finally:
                q.close()
        self.state.update(note=f"QMP: device_del {dev} (memlab must offline and eject it)")
        threading.Thread(target=self._drop_backend, args=(dev,), daemon=True).start()

    def _drop_backend(self, dev):
        """The backend goes once the guest ejected the DIMM (object-del fails before)."""
        if not dev.startswith("memview-d"):
            return
        mem = "memview-m" + dev[len("memview-d"):]
        for _ in range(60):
            time.sleep(1.0)
            try:
                with self.lock:
                    q = self._qmp()
                    try:
                        q.cmd("object-del", id=mem)
                    finally:
                        q.close()
                break
            except (OSError, QMPError):
                continue
        self.refresh()


def make_handler(state, channel, dimms):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            pass

        def _send(self, code, body, ctype="application/json"):
            if isinstance(body, str):
                body = body.encode()
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if path in ("/", "/index.html"):
                return self._file("index.html", "text/html; charset=utf-8")
            if path == "/view.js":
                return self._file("view.js", "text/javascript; charset=utf-8")
            if path == "/state":
                return self._send(200, state.get()[1])
            if path == "/events":
                return self._events()
            self._send(404, json.dumps({"error": "no such page"}))

        def _file(self, name, ctype):
            with open(os.path.join(PAGE_DIR, name), "rb") as f:
                self._send(200, f.read(), ctype)

        def _events(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            state.update(note="a page is watching", watchers=state.data.get("watchers", 0) + 1)
            seq, body = state.get()
            try:
                while True:
                    self.wfile.write(f"event: state\ndata: {body}\n\n".encode())
                    self.wfile.flush()
                    while True:
                        new_seq, body = state.wait(seq, 15.0)
                        if new_seq != seq:
                            seq = new_seq
                            break
                        self.wfile.write(b": still here\n\n")
                        self.wfile.flush()
            except OSError:
                pass
            finally:
                state.update(watchers=max(0, state.data.get("watchers", 1) - 1))

        def do_POST(self):
            try:
                n = int(self.headers.get("Content-Length") or 0)
                req = json.loads(self.rfile.read(n) or b"{}")
                if not isinstance(req, dict):
                    raise ValueError("not an object")
            except ValueError as e:
                return self._send(400, json.dumps({"ok": False, "error": f"bad JSON: {e}"}))
            path = self.path.split("?", 1)[0]
            try:
                if path in ("/api/alloc", "/api/free"):
                    msg = {"v": 1, "req": path[5:], "order": int(req.get("order", 0)),
                           "count": int(req.get("count", 1))}
                    if path == "/api/alloc":
                        msg["movable"] = bool(req.get("movable", False))
                    ok = channel.send(msg)
                    return self._send(200 if ok else 503, json.dumps(
                        {"ok": ok, "error": None if ok else "memlab is not connected"}))
                if path == "/api/dimm/add":
                    dev = dimms.add(int(req.get("size_mb", 128)))
                    return self._send(200, json.dumps({"ok": True, "id": dev}))
                if path == "/api/dimm/remove":
                    dimms.remove(str(req["id"]))
                    return self._send(200, json.dumps({"ok": True}))
            except (OSError, QMPError, KeyError, ValueError) as e:
                state.update(note=f"{path}: {e}")
                return self._send(500, json.dumps({"ok": False, "error": str(e)}))
            self._send(404, json.dumps({"ok": False, "error": "no such action"}))

    return Handler


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--view", default="build/view.sock", help="memlab's view socket")
    ap.add_argument("--qmp", default="build/qmp.sock", help="QEMU's QMP socket")
    ap.add_argument("--port", type=int, default=0, help="0: a free port")
    args = ap.parse_args()

    state = State()
    dimms = Dimms(args.qmp, state)
    channel = Channel(args.view, state,
                      lambda: threading.Thread(target=dimms.refresh, daemon=True).start())
    # 127.0.0.1 only: the page can add and remove memory, so nobody else may reach it
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(state, channel, dimms))
    server.daemon_threads = True
    threading.Thread(target=channel.run, daemon=True).start()
    print(f"memview: http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

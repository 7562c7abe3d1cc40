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

    /                  tools/view/index.html, the page
    /NAME.js           tools/view/NAME.js, the modules that draw it
    /state             the state as JSON (what the page draws)
    /events            the state again on every change, Server-Sent Events
    /seen              what each open page last reported drawing (GET)
    /api/alloc         POST {"order": N, "count": C, "movable": false}
    /api/free          POST {"order": N, "count": C}
    /api/page          POST {"pfn": N}: memlab's struct page of that pfn
    /api/trace         POST {"mech": NAME, "on": true, "verbose": false}
    /api/trace/clear   POST {}: forget the recorded trace steps
    /api/timeline/clear  POST {}: forget the blocks' recorded state changes
    /api/dimm/add      POST {"size_mb": M}: QMP object-add + device_add pc-dimm
    /api/dimm/remove   POST {"id": "memview-d1"}: QMP device_del
    /api/vmem/resize   POST {"id": "vmem0", "size_mb": M}: QMP qom-set requested-size
    /api/seen          POST what a page drew (it reports after each draw)

Besides the messages memlab pushes (zones, blocks, ops, mechs, trace, log),
memview.py asks for each zone's pageblock strings after every change it
hears of (at most every PAGEBLOCKS_EVERY seconds), records the blocks'
state changes as a timeline (the eject picture: onlines and offlines from
the blocks updates, adds and removes from the log lines, pages migrated
from the blocks' migrated_pages counter), and keeps an estimate
of the guest clock against its own, from the hello pings (each answer's
"ms" was written between the ping's sending and the answer's arrival: the
lowest upper bound of the last eight is taken), so that it can say how
long after it was written in the guest each update arrived (never less
than it really took).

When the view socket closes (memlab powered off, QEMU gone) the state says
so and memview.py tries again every half second; a hello that answers no
request means memlab booted again (a reboot, a reset), and a fresh snapshot
is asked for.  A memlab that stops answering (a crash: the machine halts
but QEMU stays) is noticed by a hello request every second that gets no
answer.  A line that holds the end of another message before its own
(COM2 dropped bytes while this program did not read) means something was
lost: a snapshot is asked for.  MEMVIEW_TRACE=1 writes every line to and
from memlab on stderr, with the time.

Standard library only.
"""

import argparse
import collections
import json
import os
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from qmp import QMPError  # noqa: E402
from memview_qmp import Devices  # noqa: E402

PROTO = 2
PAGE_DIR = os.path.join(HERE, "view")
PAGE_FILE = re.compile(r"^/([a-z_]+\.js)$")
PING_EVERY = 1.0        # seconds between two hello requests
SILENT_AFTER = 3.0      # no line for this long: memlab is not answering
PAGEBLOCKS_EVERY = 0.15  # seconds between two rounds of pageblock requests
TRACE_KEEP = 2000       # trace steps kept
TIMELINE_KEEP = 400     # block state changes kept
KLOG_KEEP = 100         # kernel log lines kept
MEM_LINE = re.compile(r"^(add_memory|remove_memory): \[mem (0x[0-9a-f]+)-(0x[0-9a-f]+)\]")


TRACE_LINES = os.environ.get("MEMVIEW_TRACE") == "1"


def trace_line(way, line):
    """MEMVIEW_TRACE=1: every line to and from memlab on stderr, with the time."""
    if TRACE_LINES:
        sys.stderr.write("%.3f %s %r\n" % (time.time(), way, line))
        sys.stderr.flush()


class State:
    """The latest state memlab sent, and who is waiting for a change."""

    def __init__(self):
        self.cond = threading.Condition()
        self.seq = 0
        self.data = {
            "connected": False, "answering": False, "why": "not connected yet",
            "hello": None, "nodes": [], "zones": [], "blocks": [], "devmem": [],
            "dimms": [], "vmems": [], "ms": None, "updated": None, "log": [],
            "pageblocks": {}, "ops": [], "deferred": None, "mechs": [],
            "trace": [], "timeline": [], "klog": [], "boot": 0, "latency_ms": None,
            "clock_offset_ms": None, "clock_gap_ms": None,
        }
        self.log = collections.deque(maxlen=40)

    def update(self, note=None, **fields):
        with self.cond:
            self.data.update(fields)
            if note:
                self.log.appendleft({"t": round(time.time(), 3), "what": note})
            self.data["log"] = list(self.log)
            self.data["updated"] = round(time.time() * 1000, 1)
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
        self.tag_lock = threading.Lock()
        self.pings = {}             # tag -> host time sent (ms)
        # per ping of the last eight: (guest ms + 1 - host ms sent, guest ms - host ms
        # received), the highest and lowest guest-minus-host offset it allows
        self.offsets = collections.deque(maxlen=8)
        self.waiting = {}           # tag -> [threading.Event, reply]
        self.last_rx = 0.0
        self.last_ms = 0            # the latest guest "ms" seen
        self.migrated = None        # memlab's migrated_pages at the last layout
        self.pb_dirty = threading.Event()

    def send(self, obj):
        """One request line; False if memlab is not connected."""
        line = (json.dumps(dict(obj, v=PROTO), separators=(",", ":")) + "\n").encode()
        trace_line("tx", line)
        with self.wlock:
            if self.sock is None:
                return False
            try:
                self.sock.sendall(line)
                return True
            except OSError:
                return False

    def next_tag(self):
        with self.tag_lock:
            self.tag += 1
            return self.tag

    def request(self, obj, timeout=5.0):
        """Send a request and wait for the message that carries its tag."""
        tag = self.next_tag()
        slot = [threading.Event(), None]
        self.waiting[tag] = slot
        try:
            if not self.send(dict(obj, tag=tag)):
                return {"type": "error", "why": "memlab is not connected"}
            if not slot[0].wait(timeout):
                return {"type": "error", "why": f"no answer within {timeout:g} s"}
            return slot[1]
        finally:
            self.waiting.pop(tag, None)

    def run(self):
        threading.Thread(target=self._pinger, daemon=True).start()
        threading.Thread(target=self._pageblocks_loop, daemon=True).start()
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
            self.send({"req": "snapshot"})
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

    def _offset(self):
        """The guest clock minus the host clock, as an upper bound: a ping's
        answer was written between the request's sending and the answer's
        arrival, and its whole-ms `ms` less than 1 ms before it was written,
        so the true offset is at most `ms + 1 - sent` for every ping, and at
        least `ms - received`.  The lowest upper bound of the last eight
        pings is used, so a latency is never below the true one (and never
        negative); it is above it by at most the bounds' gap (`clock_gap_ms`
        in the state).  None before the first answer."""
        if not self.offsets:
            return None
        return min(hi for hi, _ in self.offsets)

    def _latency(self, msg):
        """Host receipt minus the guest's "ms" on the host clock, or None."""
        offset = self._offset()
        if "ms" not in msg or offset is None:
            return None
        return round(max(0.0, time.time() * 1000 - (msg["ms"] - offset)), 1)

    def _timeline(self, blocks, ms):
        """The blocks whose state changed since the last layout, as events."""
        old = {b["id"]: b for b in self.state.data.get("blocks") or []}
        new = {b["id"]: b for b in blocks}
        events = list(self.state.data.get("timeline") or [])
        for bid in sorted(set(old) | set(new)):
            a, b = old.get(bid), new.get(bid)
            was = a["state"] if a else "absent"
            now = b["state"] if b else "absent"
            if was != now and "absent" not in (was, now):   # adds and removes: the log's
                events.append({"ms": ms, "t": round(time.time() * 1000), "id": bid,
                               "from": was, "to": now,
                               "zone": (b or a).get("zone"), "group": (b or a).get("group")})
        return events[-TIMELINE_KEEP:]

    @staticmethod
    def _parse(line):
        """(the message of a line, whether something before it was lost).  A
        line cut short (memlab reset while it wrote, or COM2 dropped bytes
        while this program did not read) runs into the next message, which
        is taken from the last '{"v":' on.  (None, True) if neither reads."""
        text = line.decode("utf-8", "replace")
        for start in (0, text.rfind('{"v":')):
            if start < 0:
                continue
            try:
                msg = json.loads(text[start:])
                if isinstance(msg, dict) and isinstance(msg.get("type"), str):
                    return msg, start > 0
            except ValueError:
                pass
        return None, True

    def _message(self, line):
        msg, cut = self._parse(line)
        trace_line("rx", line)
        if msg is None:
            # a line cut by a lost byte: start again from a full picture
            self.state.update(note=f"unreadable line ({len(line)} bytes): "
                                   "asking for a snapshot")
            self.send({"req": "snapshot"})
            return
        kind = msg["type"]
        st = self.state
        if cut and kind != "snapshot" and not (kind == "hello" and "tag" not in msg):
            # the message before this one lost its end: whatever it said is
            # missing from the picture, so start again from a full one (a
            # hello or a snapshot is a new start already)
            st.update(note=f"a message was cut ({len(line)} bytes with the {kind} after it): "
                           "asking for a snapshot")
            self.send({"req": "snapshot"})
        if not st.data["answering"]:
            st.update(note="memlab answers again", answering=True, why="")
        tag = msg.get("tag")
        guest_ms = msg.get("ms")
        # (a log or trace line carries the log's time, which may be older)
        if isinstance(guest_ms, int) and kind not in ("log", "trace"):
            if guest_ms + 50 < self.last_ms:
                # the guest's clock went back: memlab booted again, and its
                # greeting was lost (cut by the reset): the same as a hello
                self.last_ms = guest_ms
                self._booted(msg)
                if kind == "hello":
                    return
            self.last_ms = max(self.last_ms, guest_ms)
        if kind == "hello" and tag in self.pings:
            sent = self.pings.pop(tag)
            now = time.time() * 1000
            self.offsets.append((msg["ms"] + 1 - sent, msg["ms"] - now))
            return
        if tag in self.waiting:
            slot = self.waiting[tag]
            slot[1] = msg
            slot[0].set()
            return
        lat = self._latency(msg)
        if kind == "hello":
            self._booted(msg)
        elif kind == "snapshot":
            hello = {k: msg.get(k) for k in ("kernel", "version", "mem_bytes", "page_size",
                                             "block_bytes", "max_order", "pageblock_pages",
                                             "section_pages", "nr_cpus", "migratetypes")}
            st.update(note=f"snapshot: {len(msg.get('zones', []))} zones, "
                           f"{len(msg.get('blocks', []))} blocks",
                      hello=hello, nodes=msg.get("nodes", []), zones=msg.get("zones", []),
                      blocks=msg.get("blocks", []), devmem=msg.get("devmem", []),
                      mechs=msg.get("mechs", []), ms=msg.get("ms"), latency_ms=lat,
                      # connected after the boot's hello went by: this is boot 1
                      boot=max(1, st.data["boot"]))
            self.migrated = msg.get("migrated_pages")
            self.on_layout()
            self.pb_dirty.set()
        elif kind == "zones":
            st.update(zones=msg.get("zones", []), ms=msg.get("ms"), latency_ms=lat)
            self.pb_dirty.set()
        elif kind == "blocks":
            hello = dict(st.data["hello"] or {})
            hello["mem_bytes"] = msg.get("mem_bytes", hello.get("mem_bytes"))
            blocks = msg.get("blocks", [])
            timeline = self._timeline(blocks, msg.get("ms"))
            migrated = msg.get("migrated_pages", 0)
            if self.migrated is not None and migrated > self.migrated:
                where = msg.get("migration") or {}
                timeline.append({"ms": msg.get("ms"), "t": round(time.time() * 1000),
                                 "migrated": migrated - self.migrated,
                                 "from": where.get("from"), "dests": where.get("to", []),
                                 "other": where.get("other", 0)})
            self.migrated = migrated
            st.update(note=f"layout: {len(blocks)} blocks", timeline=timeline[-TIMELINE_KEEP:],
                      hello=hello, nodes=msg.get("nodes", []), blocks=blocks,
                      devmem=msg.get("devmem", []), ms=msg.get("ms"), latency_ms=lat)
            self.on_layout()
            self.pb_dirty.set()
        elif kind == "log":
            self._log_line(msg)
        elif kind == "ops":
            st.update(ops=msg.get("ops", []), latency_ms=lat, deferred={
                "pending_pages": msg.get("deferred_pending_pages", 0),
                "pending_sections": msg.get("deferred_pending_sections", 0)})
        elif kind == "mechs":
            st.update(mechs=msg.get("mechs", []))
        elif kind == "trace":
            steps = list(st.data["trace"])
            n = steps[-1]["i"] + 1 if steps else 0
            if "lost_bytes" in msg:
                steps.append({"i": n, "ms": msg.get("ms"), "mech": None,
                              "text": f"({msg['lost_bytes']} bytes of log lost)"})
            else:
                steps.append({"i": n, "ms": msg.get("ms"), "mech": msg.get("mech"),
                              "text": msg.get("text", "")})
            st.update(trace=steps[-TRACE_KEEP:])
        elif kind in ("alloc", "free"):
            why = f" ({msg['why']})" if msg.get("why") else ""
            st.update(note=f"{kind}: {msg.get('done')} of {msg.get('count')} blocks of "
                           f"order {msg.get('order')}{why}")
        elif kind == "trace_set":
            st.update(note=f"trace {msg.get('mech')}: {'on' if msg.get('on') else 'off'}")
        elif kind == "error":
            st.update(note=f"memlab refused a request: {msg.get('why')}")
        else:
            st.update(note=f"unknown message type {kind!r}")

    def _log_line(self, msg):
        """A kernel log line: kept; a block added or removed joins the timeline
        at the log's own time (finer than the 100 ms of the blocks updates)."""
        st = self.state
        text = msg.get("text", "")
        klog = (st.data.get("klog") or [])[-(KLOG_KEEP - 1):] + [{"ms": msg.get("ms"), "text": text}]
        fields = {"klog": klog}
        m = MEM_LINE.match(text)
        bb = (st.data.get("hello") or {}).get("block_bytes")
        if m and bb:
            start, end = int(m.group(2), 16), int(m.group(3), 16) + 1
            events = list(st.data.get("timeline") or [])
            for bid in range(start // bb, (end + bb - 1) // bb):
                events.append({"ms": msg.get("ms"), "t": round(time.time() * 1000), "id": bid,
                               "from": "absent" if m.group(1) == "add_memory" else "offline",
                               "to": "offline" if m.group(1) == "add_memory" else "absent"})
            fields["timeline"] = events[-TIMELINE_KEEP:]
        st.update(**fields)

    def _booted(self, msg):
        """memlab booted (again): forget its state, ask for a snapshot."""
        self.offsets.clear()
        self.migrated = None
        self.last_ms = msg.get("ms") or 0
        self.state.update(note=f"memlab {msg.get('version', '')} booted "
                               f"({msg.get('mem_bytes', 0) >> 20} MiB)" if msg.get("type") == "hello"
                          else "memlab booted again (its clock went back)",
                          hello=msg if msg.get("type") == "hello" else self.state.data["hello"],
                          nodes=[], zones=[], blocks=[], devmem=[], pageblocks={},
                          ops=[], trace=[], timeline=[], boot=self.state.data["boot"] + 1)
        self.send({"req": "snapshot"})

    def _pageblocks_loop(self):
        """Each zone's pageblock strings, chunk by chunk, after a change."""
        while True:
            self.pb_dirty.wait()
            self.pb_dirty.clear()
            t0 = time.monotonic()
            maps, ms = {}, None
            for z in list(self.state.data.get("zones") or []):
                start, mt, fr, first = None, "", "", None
                while True:
                    req = {"req": "pageblocks", "node": z["node"], "zone": z["name"]}
                    if start is not None:
                        req["start_pfn"] = start
                    a = self.request(req)
                    if a.get("type") != "pageblocks":
                        break
                    first = a["start_pfn"] if first is None else first
                    mt += a["mt"]
                    fr += a["free"]
                    ms = a.get("ms")
                    start = a["next_pfn"]
                    if not start:
                        break
                if first is not None:
                    maps[f"{z['node']}:{z['name']}"] = {
                        "node": z["node"], "zone": z["name"], "start_pfn": first,
                        "mt": mt, "free": fr}
            if self.sock is not None:
                self.state.update(pageblocks=maps, pageblocks_ms=ms)
            time.sleep(max(0.0, PAGEBLOCKS_EVERY - (time.monotonic() - t0)))

    def _pinger(self):
        while True:
            time.sleep(PING_EVERY)
            if self.sock is None:
                continue
            tag = self.next_tag()
            self.pings[tag] = time.time() * 1000
            if len(self.pings) > 16:
                for old in sorted(self.pings)[:-16]:
                    self.pings.pop(old, None)
            self.send({"req": "hello", "tag": tag})
            if self.offsets:
                hi = self._offset()
                self.state.data["clock_offset_ms"] = round(hi, 1)
                self.state.data["clock_gap_ms"] = round(hi - max(lo for _, lo in self.offsets), 1)
            silent = time.monotonic() - self.last_rx
            if silent > SILENT_AFTER and self.state.data["answering"]:
                self.state.update(note="memlab stopped answering",
                                  answering=False,
                                  why=f"memlab is not answering ({silent:.0f} s): "
                                      "crashed or stopped?")


def make_handler(state, channel, devices, seen):
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
            m = PAGE_FILE.match(path)
            if m and os.path.isfile(os.path.join(PAGE_DIR, m.group(1))):
                return self._file(m.group(1), "text/javascript; charset=utf-8")
            if path == "/state":
                return self._send(200, state.get()[1])
            if path == "/seen":
                with state.cond:
                    return self._send(200, json.dumps(seen))
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
                return self._action(path, req)
            except (OSError, QMPError, KeyError, ValueError, TypeError) as e:
                state.update(note=f"{path}: {e}")
                return self._send(500, json.dumps({"ok": False, "error": str(e)}))

        def _action(self, path, req):
            if path in ("/api/alloc", "/api/free"):
                msg = {"req": path[5:], "order": int(req.get("order", 0)),
                       "count": int(req.get("count", 1))}
                if path == "/api/alloc":
                    msg["movable"] = bool(req.get("movable", False))
                ok = channel.send(msg)
                return self._send(200 if ok else 503, json.dumps(
                    {"ok": ok, "error": None if ok else "memlab is not connected"}))
            if path == "/api/page":
                a = channel.request({"req": "page", "pfn": int(req["pfn"])})
                ok = a.get("type") == "page"
                return self._send(200, json.dumps({"ok": ok, "page": a if ok else None,
                                                   "error": None if ok else a.get("why")}))
            if path == "/api/trace":
                a = channel.request({"req": "trace", "mech": str(req["mech"]),
                                     "on": bool(req.get("on", True)),
                                     "verbose": bool(req.get("verbose", False))})
                ok = a.get("type") == "trace_set"
                return self._send(200, json.dumps({"ok": ok, "error": None if ok else a.get("why")}))
            if path == "/api/trace/clear":
                state.update(trace=[])
                return self._send(200, json.dumps({"ok": True}))
            if path == "/api/timeline/clear":
                state.update(timeline=[])
                return self._send(200, json.dumps({"ok": True}))
            if path == "/api/dimm/add":
                dev = devices.add(int(req.get("size_mb", 128)))
                return self._send(200, json.dumps({"ok": True, "id": dev}))
            if path == "/api/dimm/remove":
                devices.remove(str(req["id"]))
                return self._send(200, json.dumps({"ok": True}))
            if path == "/api/vmem/resize":
                devices.resize(str(req["id"]), int(req["size_mb"]))
                return self._send(200, json.dumps({"ok": True}))
            if path == "/api/seen":
                tab = str(req.get("tab", "?"))[:40]
                with state.cond:
                    seen[tab] = dict(req, rx=round(time.time() * 1000, 1))
                    if len(seen) > 32:
                        del seen[min(seen, key=lambda k: seen[k]["rx"])]
                return self._send(200, json.dumps({"ok": True}))
            return self._send(404, json.dumps({"ok": False, "error": "no such action"}))

    return Handler


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--view", default="build/view.sock", help="memlab's view socket")
    ap.add_argument("--qmp", default="build/qmp.sock", help="QEMU's QMP socket")
    ap.add_argument("--port", type=int, default=0, help="0: a free port")
    args = ap.parse_args()

    state = State()
    devices = Devices(args.qmp, state)
    channel = Channel(args.view, state, lambda: devices.refresh_later())
    seen = {}
    # 127.0.0.1 only: the page can add and remove memory, so nobody else may reach it
    server = ThreadingHTTPServer(("127.0.0.1", args.port),
                                 make_handler(state, channel, devices, seen))
    server.daemon_threads = True
    threading.Thread(target=channel.run, daemon=True).start()
    print(f"memview: http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

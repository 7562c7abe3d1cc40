"""The memory page in a real browser (docs/view.md).

memlab boots with the view channel (its COM2 on a unix socket, the boot
fixture's extra QEMU arguments), tools/memview.py connects to it and
serves the page, and Debian's chromium loads the page headless:
`--dump-dom` gives the DOM once the page's script has drawn the state
(`?once=1`: the page reads /state and does not open the event stream,
which would keep headless chromium's virtual time from running out).

Checked: the page's zones and their free counts are those of
/proc/zoneinfo, its blocks those of /sys/devices/system/memory; a DIMM
added through memview.py's QMP action shows on the page as new online
blocks, and reaches a watcher of the event stream; the page says that
memlab is gone once it powered off.  The page is saved as
build/view-page.png, checked for its size and for not being blank; with
MEMLAB_UPDATE_DOCS=1 it also becomes docs/view-page.png, the picture of
docs/view.md (a test run leaves the tree as it found it otherwise).

Skipped, saying so, only when chromium is not installed (tools/deps.sh
test installs it).
"""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zlib

import pytest

import hotplug

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEMVIEW = os.path.join(ROOT, "tools", "memview.py")
SCREENSHOT = os.path.join(ROOT, "build", "view-page.png")
DOC_PICTURE = os.path.join(ROOT, "docs", "view-page.png")
CHROMIUM = shutil.which("chromium")
DIMM_MB = 512
BIG_TIMEOUT = 90.0          # a DIMM's add and online under TCG, with room to spare

ZONE_RE = re.compile(r'<div class="zone" data-zone="(\w+)" data-node="(\d+)" data-free="(\d+)"')
BLOCK_RE = re.compile(r'<tr class="block" data-id="(\d+)" data-state="([\w-]+)" '
                      r'data-zone="(\w*)" data-node="(\d+)">')
STATUS_RE = re.compile(r'<span id="status" data-state="(\w+)">')

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed: run tools/deps.sh test (as root it "
                             "installs it)")


class Memview:
    """tools/memview.py on a free port, for one machine."""

    def __init__(self, view_sock, qmp_sock, tmp):
        self.log = open(os.path.join(tmp, "memview.log"), "w+b")
        self.proc = subprocess.Popen(
            [sys.executable, MEMVIEW, "--view", view_sock, "--qmp", qmp_sock, "--port", "0"],
            stdout=subprocess.PIPE, stderr=self.log, start_new_session=True)
        line = self.proc.stdout.readline().decode()
        m = re.match(r"memview: (http://127\.0\.0\.1:\d+/)", line)
        assert m, f"memview.py said {line!r}"
        self.url = m.group(1)
        self.profile = os.path.join(tmp, "chromium")

    def state(self):
        with urllib.request.urlopen(self.url + "state", timeout=10) as r:
            return json.load(r)

    def post(self, path, body):
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.load(r)

    def chromium(self, *args):
        cmd = [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox",
               "--virtual-time-budget=3000", f"--user-data-dir={self.profile}", *args,
               self.url + "?once=1"]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        assert r.returncode == 0, r.stderr.decode(errors="replace")[-2000:]
        return r.stdout.decode(errors="replace")

    def dom(self):
        return self.chromium("--dump-dom")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


def page_zones(dom):
    return {(int(n), z): int(free) for z, n, free in ZONE_RE.findall(dom)}


def page_blocks(dom):
    return {int(i): (state, zone, int(node)) for i, state, zone, node in BLOCK_RE.findall(dom)}


def shell_zones(m):
    """Zones with a span, as the page lists them, from /proc/zoneinfo."""
    return {k: z["free"] for k, z in hotplug.zoneinfo(m).items() if z["spanned"]}


def shell_blocks(m):
    """{block: state} from /sys/devices/system/memory."""
    return {b: hotplug.block_attr(m, b, "state") for b in hotplug.block_ids(m)}


def until(what, fn, timeout):
    """fn() until it returns something true; fails with its last value."""
    deadline = time.monotonic() + timeout
    while True:
        got = fn()
        if got[0] or time.monotonic() > deadline:
            assert got[0], f"{what} within {timeout:g} s: {got[1]}"
            return got[1]
        time.sleep(0.3)


def check_png(path):
    """A PNG of a real page: big enough and not one colour."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert len(data) > 20000, f"{len(data)} bytes: too small for the page"
    w, h = struct.unpack(">II", data[16:24])
    assert w >= 1000 and h >= 700, (w, h)
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    pixels = zlib.decompress(idat)
    assert len(set(pixels)) > 32, "the screenshot is blank"


@pytest.fixture
def viewed(boot):
    tmp = tempfile.mkdtemp(prefix="memlab-view-")
    sock = os.path.join(tmp, "view.sock")
    m = boot(extra=["-chardev", f"socket,id=view,path={sock},server=on,wait=off",
                    "-serial", "chardev:view"])
    mv = Memview(sock, m.qmp_path, tmp)
    try:
        yield m, mv
    finally:
        mv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def test_boot_log_says_channel_off(machine):
    """Without a second -serial there is no COM2: said once, and the shell works."""
    log = machine.boot_log
    assert log.count("view: no COM2: the view channel is off") == 1, log
    assert "view: channel on COM2" not in log


@pytest.mark.slow
def test_page_shows_zones_blocks_and_a_new_dimm(viewed):
    m, mv = viewed
    assert "view: channel on COM2, protocol version 2" in m.boot_log
    until("memview connected", lambda: (mv.state()["connected"] and mv.state()["zones"],
                                        mv.state()), 30)

    # The zones and their free pages, the blocks and their states: the shell's numbers.
    def zones_match():
        want, dom = shell_zones(m), mv.dom()
        return page_zones(dom) == want, (want, page_zones(dom))
    until("the page's zones equal /proc/zoneinfo", zones_match, 30)
    want_blocks = shell_blocks(m)
    dom = mv.dom()
    got = page_blocks(dom)
    assert {b: s for b, (s, _, _) in got.items()} == want_blocks
    assert STATUS_RE.search(dom).group(1) == "live"

    # A watcher of the event stream, to see the DIMM arrive there too.
    seen = []

    def watch():
        with urllib.request.urlopen(mv.url + "events", timeout=BIG_TIMEOUT) as r:
            for raw in r:
                if raw.startswith(b"data: "):
                    s = json.loads(raw[6:])
                    seen.append((time.monotonic(), len(s["blocks"])))
                    if len(s["blocks"]) >= len(want_blocks) + DIMM_MB // 128:
                        return
    t = threading.Thread(target=watch, daemon=True)
    t.start()
    until("the event stream's first state", lambda: (seen, seen), 10)

    # A DIMM through the page's action: its blocks appear, online.
    reply = mv.post("api/dimm/add", {"size_mb": DIMM_MB})
    assert reply["ok"], reply
    new = DIMM_MB // 128

    def dimm_shown():
        got = page_blocks(mv.dom())
        online = [b for b, (s, _, _) in got.items() if b not in want_blocks and s == "online"]
        return len(online) == new, got
    got = until("the DIMM's blocks online on the page", dimm_shown, BIG_TIMEOUT)
    assert {b: s for b, (s, _, _) in got.items()} == shell_blocks(m)
    added = sorted(set(got) - set(want_blocks))
    assert all(got[b][1] in ("Normal", "Movable") for b in added), got
    t.join(10)
    assert seen[-1][1] == len(want_blocks) + new, seen
    until("the page's zones equal /proc/zoneinfo after the DIMM", zones_match, 30)

    # The picture of docs/view.md.
    mv.chromium(f"--screenshot={SCREENSHOT}", "--window-size=1280,1000",
                "--hide-scrollbars")
    check_png(SCREENSHOT)
    if os.environ.get("MEMLAB_UPDATE_DOCS") == "1":
        shutil.copyfile(SCREENSHOT, DOC_PICTURE)

    # memlab goes: the page says so.
    m.send_line("poweroff")
    m.wait_exit()
    until("the page says memlab is gone",
          lambda: (STATUS_RE.search(mv.dom()).group(1) == "gone", mv.state()["why"]), 30)

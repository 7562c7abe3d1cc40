"""The memory page's test harness (tests/qemu/test_view*.py, docs/view.md).

Memview runs tools/memview.py for one booted machine and loads its page
in Debian's chromium, headless, in two ways:
  - once: `--dump-dom` or `--screenshot` of the page with `?once=1` (the
    page reads /state and opens no event stream, so headless chromium's
    virtual time runs out and it exits);
  - as a tab that stays open (Tab): a chromium process with the page
    live on the event stream; the page reports what it drew to memview.py
    after each draw (/api/seen), which /seen returns per tab.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEMVIEW = os.path.join(ROOT, "tools", "memview.py")
BUILD = os.path.join(ROOT, "build")
DOCS = os.path.join(ROOT, "docs")
CHROMIUM = shutil.which("chromium")
UPDATE_DOCS = os.environ.get("MEMLAB_UPDATE_DOCS") == "1"

ZONE_RE = re.compile(r'<div class="zone" data-zone="(\w+)" data-node="(\d+)" data-free="(\d+)"')
BLOCK_RE = re.compile(r'<tr class="block" data-id="(\d+)" data-state="([\w-]+)" '
                      r'data-zone="(\w*)" data-node="(\d+)">')
STATUS_RE = re.compile(r'<span id="status" data-state="(\w+)">')


def view_args(sock):
    """QEMU arguments that put COM2 on the unix socket sock."""
    return ["-chardev", f"socket,id=view,path={sock},server=on,wait=off",
            "-serial", "chardev:view"]


class Tab:
    """A chromium that keeps the page open, live, until closed."""

    def __init__(self, url, profile):
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox",
             "--remote-debugging-port=0", f"--user-data-dir={profile}", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Memview:
    """tools/memview.py on a free port, for one machine."""

    def __init__(self, view_sock, qmp_sock, tmp):
        self.tmp = tmp
        self.log = open(os.path.join(tmp, "memview.log"), "w+b")
        self.proc = subprocess.Popen(
            [sys.executable, MEMVIEW, "--view", view_sock, "--qmp", qmp_sock, "--port", "0"],
            stdout=subprocess.PIPE, stderr=self.log, start_new_session=True)
        line = self.proc.stdout.readline().decode()
        m = re.match(r"memview: (http://127\.0\.0\.1:\d+/)", line)
        assert m, f"memview.py said {line!r}"
        self.url = m.group(1)
        self.profile = os.path.join(tmp, "chromium")
        self.tabs = []

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.load(r)

    def state(self):
        return self.get("state")

    def seen(self):
        return self.get("seen")

    def post(self, path, body):
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.load(r)

    def chromium(self, *args, query="once=1"):
        cmd = [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox",
               "--virtual-time-budget=3000", f"--user-data-dir={self.profile}", *args,
               self.url + "?" + query]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        assert r.returncode == 0, r.stderr.decode(errors="replace")[-2000:]
        return r.stdout.decode(errors="replace")

    def dom(self, query="once=1"):
        return self.chromium("--dump-dom", query=query)

    def screenshot(self, path, height=1000, query="once=1"):
        self.chromium(f"--screenshot={path}", f"--window-size=1280,{height}", "--hide-scrollbars",
                      query=query)
        check_png(path)

    def open_tab(self):
        tab = Tab(self.url, os.path.join(self.tmp, f"tab{len(self.tabs)}"))
        self.tabs.append(tab)
        return tab

    def stop(self):
        for t in self.tabs:
            t.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


def viewed_machine(boot, extra=(), **kw):
    """A machine booted with the view channel, and memview.py for it;
    returns (machine, memview, cleanup)."""
    tmp = tempfile.mkdtemp(prefix="memlab-view-")
    sock = os.path.join(tmp, "view.sock")
    m = boot(extra=view_args(sock) + list(extra), **kw)
    mv = Memview(sock, m.qmp_path, tmp)

    def cleanup():
        mv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return m, mv, cleanup


def page_zones(dom):
    return {(int(n), z): int(free) for z, n, free in ZONE_RE.findall(dom)}


def page_blocks(dom):
    return {int(i): (state, zone, int(node)) for i, state, zone, node in BLOCK_RE.findall(dom)}


def data_attrs(dom, element_id):
    """The data-* attributes of the element with that id, as a dict."""
    m = re.search(r'<\w+ id="%s"([^>]*)>' % re.escape(element_id), dom)
    assert m, f"no element #{element_id} in the page"
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', m.group(1)))


def until(what, fn, timeout, every=0.3):
    """fn() until its first value is true; fails with its last second value."""
    deadline = time.monotonic() + timeout
    while True:
        got = fn()
        if got[0] or time.monotonic() > deadline:
            assert got[0], f"{what} within {timeout:g} s: {got[1]}"
            return got[1]
        time.sleep(every)


def svg_still(dom, element_id, path):
    """The page's <svg id=element_id> as a standalone SVG file at path
    (the DOM's own element: drawn by the page, not by hand)."""
    m = re.search(r'<svg id="%s".*?</svg>' % re.escape(element_id), dom, re.S)
    assert m, f"no svg #{element_id} in the page"
    svg = m.group(0).replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" '
                             'style="font-family:sans-serif;background:#fff" ', 1)
    svg = re.sub(r'viewBox="0 0 (\d+) (\d+)"', r'viewBox="0 0 \1 \2" width="\1"', svg, 1)
    with open(path, "w") as f:
        f.write(svg + "\n")
    return svg


def keep_for_docs(src, name):
    """With MEMLAB_UPDATE_DOCS=1, src becomes docs/NAME (a run leaves the
    tree as it found it otherwise)."""
    if UPDATE_DOCS:
        shutil.copyfile(src, os.path.join(DOCS, name))


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

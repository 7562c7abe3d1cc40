"""The memory page in a real browser (docs/view.md): what it shows is what
the shell says.

memlab boots with the view channel (its COM2 on a unix socket), tools/
memview.py connects to it and serves the page, and Debian's chromium loads
the page headless (tests/qemu/viewpage.py).  Checked here, against the
shell's own numbers in the same run:
  - the zones and their free counts are /proc/zoneinfo's, the blocks those
    of /sys/devices/system/memory; a DIMM added through memview.py's QMP
    action shows as new online blocks, and reaches a watcher of the event
    stream; the page says memlab is gone once it powered off;
  - the pageblock map is `buddy map`'s letters, the pagetypeinfo chart is
    /proc/pagetypeinfo's rows, the pcp picture is zoneinfo's count;
  - a pfn's struct page chain is `page PFN`'s, its owner too; the trace player gets the
    steps `trace` prints; an offline block is a hole in its zone's span; a
    DIMM's eject is a timeline of its blocks leaving, highest first.
The pictures are saved under build/ (and, with MEMLAB_UPDATE_DOCS=1, into
docs/ for docs/view.md: view-page.png, view-spans.svg, view-eject.svg,
view-pcp.svg, view-trace.png).  tests/qemu/test_view_live.py has the open
tabs: two at once, a reset, the update latency, a plug in progress.

Skipped, saying so, only when chromium is not installed (tools/deps.sh
test installs it).
"""

import json
import os
import re
import threading
import time
import urllib.request

import pytest

import hotplug
from viewpage import (BUILD, CHROMIUM, STATUS_RE, data_attrs, keep_for_docs, page_blocks,
                      page_zones, svg_still, until, viewed_machine)

DIMM_MB = 512
BIG_TIMEOUT = 90.0          # a DIMM's add and online under TCG, with room to spare

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed: run tools/deps.sh test (as root it "
                             "installs it)")


@pytest.fixture
def viewed(boot):
    m, mv, cleanup = viewed_machine(boot)
    try:
        yield m, mv
    finally:
        cleanup()


def shell_zones(m):
    """Zones with a span, as the page lists them, from /proc/zoneinfo."""
    return {k: z["free"] for k, z in hotplug.zoneinfo(m).items() if z["spanned"]}


def shell_blocks(m):
    """{block: state} from /sys/devices/system/memory."""
    return {b: hotplug.block_attr(m, b, "state") for b in hotplug.block_ids(m)}


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
    shot = os.path.join(BUILD, "view-page.png")
    mv.screenshot(shot, height=1000)
    keep_for_docs(shot, "view-page.png")

    # memlab goes: the page says so.
    m.send_line("poweroff")
    m.wait_exit()
    until("the page says memlab is gone",
          lambda: (STATUS_RE.search(mv.dom()).group(1) == "gone", mv.state()["why"]), 30)


# ---- the pictures, against the shell ---------------------------------------------

BUDDY_ROW = re.compile(r"^\s+0x[0-9a-f]+\s+mt\s+(.*)\n\s+free (.*)$", re.M)


def buddy_map_letters(m):
    """(migratetype letters, free letters) of every zone's pageblocks from `buddy map`."""
    out = hotplug.sh(m, "buddy map")
    mts, frees = "", ""
    for mt, fr in BUDDY_ROW.findall(out):
        mts += mt
        frees += fr
    return mts, frees


def pagetypeinfo(m):
    """{(zone, type): [free blocks per order]} from /proc/pagetypeinfo."""
    rows = {}
    for zone, mt, counts in re.findall(r"^Node\s+\d+, zone\s+(\w+), type\s+(\w+)\s+([\d >]+)$",
                                       hotplug.cat(m, "/proc/pagetypeinfo"), re.M):
        rows[(zone, mt)] = [int(c.lstrip(">")) for c in counts.split()]
    return rows


def test_pageblocks_pagetypes_and_pcp_are_the_shells(viewed):
    m, mv = viewed
    until("pageblocks on the page", lambda: (mv.state()["pageblocks"], mv.state()), 30)
    hotplug.sh(m, "alloc 0 1")      # one page: its pcp list fills, as memory-core.md tells

    def same():
        mts, frees = buddy_map_letters(m)
        dom = mv.dom()
        pb = data_attrs(dom, "pbmap")
        want = {"order10": str(frees.count("A")), "movable": str(mts.count("M")),
                "unmovable": str(mts.count("U")),
                "cells": str(sum(1 for c in mts if c in "UMRHCI"))}
        got = {k: pb.get(k) for k in want}
        return got == want, (got, want)
    until("the pageblock map equals `buddy map`", same, 20)

    st = mv.state()
    pti = pagetypeinfo(m)
    names = st["hello"]["migratetypes"]
    for z in st["zones"]:
        for i, counts in enumerate(z["free_mt"]):
            key = (z["name"], names[i])
            if key in pti:
                assert counts == pti[key], (key, counts, pti[key])
    zi = hotplug.zoneinfo(m)
    dom = mv.dom()
    pcps = {z: (int(p), int(b)) for p, b, z in
            re.findall(r'class="pcp" data-pcp="(\d+)" data-buddy="(\d+)" data-zone="(\w+)"', dom)}
    assert pcps, "no pcp picture"
    for (nid, name), z in zi.items():
        if name in pcps and z["spanned"]:
            assert pcps[name][1] == z["free"], (name, pcps[name], z["free"])
    assert pcps["DMA32"][0] > 0, pcps          # the page allocated above came off a pcp list
    out = os.path.join(BUILD, "view-pcp.svg")
    m_svg = re.search(r'<svg[^>]*class="pcp"[^>]*data-zone="DMA32".*?</svg>', dom, re.S)
    with open(out, "w") as f:
        f.write(m_svg.group(0).replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" '
                                       'style="font-family:sans-serif;background:#fff" ', 1) + "\n")
    keep_for_docs(out, "view-pcp.svg")


def test_struct_page_chain_is_page_pfn(viewed):
    m, mv = viewed
    until("memview connected", lambda: (mv.state()["zones"], mv.state()), 30)
    pfn = 0x12345
    a = mv.post("api/page", {"pfn": pfn})
    assert a["ok"], a
    p = a["page"]
    out = hotplug.sh(m, f"page {pfn:#x}")
    addr = re.search(r"struct page at (0x[0-9a-f]+)", out).group(1)
    assert p["struct_page"] == int(addr, 16), (p, out)
    assert p["struct_page"] == p["vmemmap_base"] + pfn * p["struct_page_bytes"]
    assert f"refcount:   {p['refcount']}" in out, out
    assert re.search(r"flags:\s+%#x " % p["flags"], out), out
    assert f"zone {p['zone']}" in out and f"node {p['node']}" in out, out
    assert f"section:    {p['section']} " in out, out
    bad = mv.post("api/page", {"pfn": 1 << 40})
    assert not bad["ok"] and "no memmap" in bad["error"], bad
    # the owner: free in the buddy, then a shell handle's, on the page too
    assert p["owner_kind"] == "buddy" and p["owner"].startswith("free: in the buddy"), p
    assert "free:       inside the order-" in out or "free:       heads" in out, out
    got = re.search(r"handle (\d+): pfn (0x[0-9a-f]+) order 0", hotplug.sh(m, "alloc 0"))
    handle, pfn = int(got.group(1)), int(got.group(2), 16)
    p = mv.post("api/page", {"pfn": pfn})["page"]
    assert (p["owner_kind"], p["owner"], p["owner_index"]) == (
        "handle", f"shell handle {handle} (alloc)", handle), p
    assert f"owner:      handle {handle} (index {handle})" in hotplug.sh(m, f"page {pfn:#x}")
    dom = mv.dom(query=f"once=1&pfn={pfn}")
    chain = re.search(r'<div id="chain"([^>]*)>(.*?)</div>\s*</', dom, re.S)
    assert chain and 'data-owner="handle"' in chain.group(1), dom[-3000:]
    assert f"shell handle {handle} (alloc)" in chain.group(2), chain.group(2)


def test_trace_player_and_zone_span_holes(viewed):
    m, mv = viewed
    until("memview connected", lambda: (mv.state()["zones"], mv.state()), 30)
    hotplug.sh(m, "mech contig_check old")
    assert mv.post("api/trace", {"mech": "contig_check", "on": True})["ok"]
    out = m.run("memory offline 12")       # with its log lines: the trace is there
    walk = [w.strip() for w in re.findall(r"\[contig_check\] (.*)", out)]
    assert walk, out

    def steps():
        got = [s["text"] for s in mv.state()["trace"]]
        return all(w in got for w in walk), (walk, got)
    until("the trace steps on the page", steps, 10)
    dom = mv.dom()
    ts = data_attrs(dom, "trace-steps")
    assert int(ts["steps"]) >= len(walk), ts
    # block 12 offline: a hole inside DMA32's span on the number line
    spans = re.search(r'<g class="span" data-zone="DMA32"[^>]*data-holes="(\d+)"', dom)
    assert spans and int(spans.group(1)) >= 1, spans
    assert 'data-why="offline"' in dom
    svg = svg_still(dom, "spans", os.path.join(BUILD, "view-spans.svg"))
    assert "offline" in svg
    keep_for_docs(os.path.join(BUILD, "view-spans.svg"), "view-spans.svg")
    # the player on the walk's failing step: its range outlined on the map
    fail = next(i for i, s in enumerate(mv.state()["trace"]) if "fails" in s["text"])
    shot = os.path.join(BUILD, "view-trace.png")
    mv.screenshot(shot, height=2300, query=f"once=1&step={fail + 1}")
    keep_for_docs(shot, "view-trace.png")
    hotplug.sh(m, "memory online 12")
    assert mv.post("api/trace", {"mech": "contig_check", "on": False})["ok"]
    hotplug.sh(m, "mech contig_check new")
    bad = mv.post("api/trace", {"mech": "nope"})
    assert not bad["ok"] and "not a mechanism" in bad["error"], bad


@pytest.mark.slow
def test_eject_timeline_blocks_leave_top_down(boot):
    m, mv, cleanup = viewed_machine(boot)
    try:
        until("memview connected", lambda: (mv.state()["zones"], mv.state()), 30)
        before = {b["id"] for b in mv.state()["blocks"]}
        hotplug.plug(m, "dimm0", 512 << 20)
        until("the DIMM's blocks on the page",
              lambda: (len(mv.state()["blocks"]) == len(before) + 4, mv.state()["blocks"]), 30)
        added = sorted({b["id"] for b in mv.state()["blocks"]} - before)
        # movable pages in the DIMM, for the eject to migrate
        bb = mv.state()["hello"]["block_bytes"] // 4096
        hotplug.sh(m, "alloc 9 64 movable quiet")
        inside = [h for h in hotplug.handles(m) if h[1] >= added[0] * bb]
        assert inside, hotplug.handles(m)
        assert mv.post("api/timeline/clear", {})["ok"]
        hotplug.unplug(m, "dimm0")
        until("the DIMM's blocks gone from the page",
              lambda: (len(mv.state()["blocks"]) == len(before), mv.state()["timeline"]), 30)
        dom = mv.dom()
        leaving = data_attrs(dom, "timeline-info")["leaving"]
        order = [int(i) for i in leaving.split(",") if i]
        assert sorted(order) == added, json.dumps([order, added, mv.state()["timeline"], mv.state()["klog"][-12:]])
        # top-down: no block left after a lower one (updates 100 ms apart
        # may carry several blocks at once: ties are allowed)
        left = {}
        for e in mv.state()["timeline"]:
            if e.get("to") in ("offline", "absent") and e["id"] not in left:
                left[e["id"]] = e["ms"]
        ids = sorted(left, reverse=True)
        assert all(left[hi] <= left[lo] for hi, lo in zip(ids, ids[1:])), left
        out = os.path.join(BUILD, "view-eject.svg")
        svg_still(dom, "timeline", out)
        keep_for_docs(out, "view-eject.svg")
        mig = re.findall(r'class="migrated" data-pages="(\d+)"', dom)
        assert sum(map(int, mig)) >= len(inside) * 512, (mig, inside)
        # each arrow starts at a block of the DIMM and names where its pages
        # landed: blocks outside the DIMM, whose pages add up to the arrow's
        arrows = re.findall(r'class="migrated" data-pages="(\d+)" data-from="(\d*)" '
                            r'data-to="([\d:,]*)"', dom)
        assert arrows, dom[-3000:]
        for pages, frm, to in arrows:
            assert frm and int(frm) in added, (frm, added)
            dests = [tuple(map(int, d.split(":"))) for d in to.split(",") if d]
            assert dests and all(b not in added for b, _ in dests), (dests, added)
            assert sum(n for _, n in dests) <= int(pages), (dests, pages)
        print(f"eject order on the page: {order}, pages migrated: {mig}")
    finally:
        cleanup()

"""Mechanism 2 scenarios: template memmap init and device memory
(ZONE_DEVICE) on a hot-added DIMM left offline, driven through QMP and
the serial shell.

    echo offline > /sys/devices/system/memory/auto_online_blocks
    object-add memory-backend-ram id=mem-d1 size=1G ; device_add pc-dimm
    devmem create 0x100000000 512M 2m      blocks 32-35 -> ZONE_DEVICE
    devmem rebind 0 old|new|template-nt    memmap torn down, init timed
    echo old > /sys/kernel/mm/memlab/memmap_init ; devmem rebind 0
    devmem compare 0                       every design byte for byte
    devmem destroy 0                       blocks offline again
    devmem bench 0x100000000 1G 5          cycles/page, old vs new vs limits

The guest has 2 GiB, all below 4 GiB on q35, so the first DIMM lands at
4 GiB: memory blocks 32-39 for 1 GiB.
"""

import re
import time

import pytest

from memlab import SCALE, parse_memmap_bench

MiB = 1 << 20
GiB = 1 << 30
BLOCK = 128 * MiB
PAGES_PER_BLOCK = BLOCK // 4096
DIMM_BASE = 4 * GiB
MEMDIR = "/sys/devices/system/memory"
KNOB = "/sys/kernel/mm/memlab/memmap_init"
TRACE = "/sys/kernel/mm/memlab/trace/memmap_init"
OST_DEVICE_CHECK, OST_SUCCESS = 0x1, 0x0

LOG_LINE = re.compile(r"^\[\s*\d+\.\d+\] .*\n?", re.M)
INIT_RE = re.compile(r"initialised (\d+) pages in (\d+) cycles "
                     r"\((\d+)\.(\d+) cycles/page")


def sh(m, cmd, timeout=None):
    """A shell command's output without kernel log lines."""
    out = m.run(cmd) if timeout is None else m.run(cmd, timeout=timeout)
    return LOG_LINE.sub("", out)


def sh_log(m, cmd, timeout=None):
    """A shell command's whole output, kernel log lines included."""
    return m.run(cmd) if timeout is None else m.run(cmd, timeout=timeout)


def cat(m, path):
    out = sh(m, f"cat {path}")
    assert "No such file" not in out and "cat: " not in out, out
    return out


def write(m, path, value):
    return sh(m, f"echo {value} > {path}").strip()


def zone(m, nid, name):
    """spanned/present/managed of one zone from /proc/zoneinfo."""
    text = cat(m, "/proc/zoneinfo")
    for sect in re.split(r"(?m)^(?=Node \d+, zone)", text):
        h = re.match(r"Node (\d+), zone\s+(\w+)", sect)
        if h and int(h.group(1)) == nid and h.group(2) == name:
            return {f: int(re.search(rf"^\s+{f}\s+(\d+)$", sect, re.M).group(1))
                    for f in ("spanned", "present", "managed")}
    raise AssertionError(f"no zone {name} of node {nid} in /proc/zoneinfo:\n{text}")


def block_state(m, block):
    return cat(m, f"{MEMDIR}/memory{block}/state").strip()


def plug_offline(m, dimm, size, timeout=60.0):
    """Hot-add a DIMM with auto_online_blocks=offline; wait for memlab's
    Device Check _OST."""
    assert write(m, f"{MEMDIR}/auto_online_blocks", "offline") == ""
    q = m.qmp()
    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": f"mem-{dimm}",
                           "size": size, "reserve": False})
    q.cmd("device_add", driver="pc-dimm", id=dimm, memdev=f"mem-{dimm}")
    deadline = time.monotonic() + timeout * SCALE
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no Device Check _OST for {dimm}"
        info = q.wait_event("ACPI_DEVICE_OST", timeout=left)["data"]["info"]
        if info.get("device") == dimm and info["source"] == OST_DEVICE_CHECK:
            assert info["status"] == OST_SUCCESS, info
            break
    m.quiesce(0.3)


def unplug(m, dimm, timeout=60.0):
    q = m.qmp()
    q.cmd("device_del", id=dimm)
    q.wait_event("DEVICE_DELETED", timeout=timeout * SCALE, match={"device": dimm})
    q.cmd("object-del", id=f"mem-{dimm}")
    m.quiesce(0.3)


def init_cost(text):
    """(pages, cycles, cycles/page) of the first "initialised ..." phrase."""
    mt = INIT_RE.search(text)
    assert mt, text
    return int(mt.group(1)), int(mt.group(2)), float(f"{mt.group(3)}.{mt.group(4)}")


@pytest.fixture
def dimm_machine(boot):
    m = boot(mem="2G,slots=8,maxmem=64G")
    m.qmp()
    m.quiesce(0.3)
    plug_offline(m, "d1", 1 * GiB)
    for b in range(32, 40):
        assert block_state(m, b) == "offline"
    return m


def test_devmem_lifecycle(dimm_machine):
    m = dimm_machine
    before = zone(m, 0, "Device")
    assert before["spanned"] == 0

    out = sh(m, "devmem create 0x100000000 512M 2m")
    assert re.search(r"devmem0: created, 2 MiB compound pages: initialised 131072 pages", out), out
    dev = zone(m, 0, "Device")
    assert dev == {"spanned": 4 * PAGES_PER_BLOCK, "present": 0, "managed": 0}, dev
    for b in range(32, 36):
        assert block_state(m, b) == "offline"       # not memory, never online

    # a second range of 4 KiB pages next to it; overlaps are refused
    out = sh(m, "devmem create 0x120000000 256M 4k")
    assert "devmem1: created, 4 KiB pages" in out, out
    out = sh(m, "devmem create 0x110000000 256M 4k")
    assert "Device or resource busy" in out, out
    # online memory cannot become device memory
    assert "online" in sh(m, "memory online 38 movable")
    out = sh(m, "devmem create 0x130000000 256M 2m")
    assert "Device or resource busy" in out, out
    # nor can memory that is not there
    out = sh(m, "devmem create 0x200000000 128M 4k")
    assert "Invalid argument" in out, out
    # a range past the end is caught before anything is printed (no wrapped range)
    assert sh(m, "devmem create 0xffffffffffffffff 128M 4k") == \
        "devmem: address 0xffffffffffffffff is out of range: 0-0x3fffffffffff (MAX_PHYSMEM_BITS)\n"
    assert sh(m, "devmem create 0x3ffff0000000 512M 4k") == \
        "devmem: [0x3ffff0000000, +512 MiB) runs past the end of physical memory " \
        "(0x400000000000, MAX_PHYSMEM_BITS 46)\n"
    assert sh(m, "devmem create 0x100000000 99999999999999999999 4k") == \
        "devmem: size 99999999999999999999 is out of range: 1-70368744177664 (MAX_PHYSMEM_BITS)\n"

    listing = sh(m, "devmem list")
    assert re.search(r"^ 0 \[mem 0x0000000100000000-0x000000011fffffff\]\s+0\s+131072\s+2048 KiB",
                     listing, re.M), listing
    assert re.search(r"^ 1 \[mem 0x0000000120000000-0x000000012fffffff\]\s+0\s+65536\s+4 KiB",
                     listing, re.M), listing

    # rebind with each design, then through the run-time switch
    for design in ("old", "new", "template-nt"):
        out = sh(m, f"devmem rebind 0 {design}")
        assert f"devmem0: rebind ({design}): initialised 131072 pages" in out, out
    for design in ("old", "template-nt", "new"):
        assert write(m, KNOB, design) == ""
        assert cat(m, KNOB).strip() == design
        out = sh(m, "devmem rebind 1")
        assert f"devmem1: rebind ({design}): initialised 65536 pages" in out, out

    for rid, pages in ((0, 131072), (1, 65536)):
        out = sh(m, f"devmem compare {rid}")
        assert (f"devmem{rid}: old, head-template, new and template-nt memmaps: identical "
                f"({pages} struct pages, {pages // 512} pageblocks)") in out, out
        assert "shared        not compared: the range borrows hot-added blocks" in out, out

    # destroy: the span goes, the blocks are memory again
    assert "destroyed" in sh(m, "devmem destroy 0")
    assert zone(m, 0, "Device")["spanned"] == 2 * PAGES_PER_BLOCK
    assert "No such file" in sh(m, "devmem destroy 0")
    assert "destroyed" in sh(m, "devmem destroy 1")
    assert zone(m, 0, "Device")["spanned"] == 0
    assert "no device memory ranges" in sh(m, "devmem list")
    out = sh(m, "memory online 32-37 movable")
    assert "6 blocks onlined" in out, out
    assert zone(m, 0, "Movable")["present"] == 7 * PAGES_PER_BLOCK
    # and the DIMM can go: memlab offlines and removes it, QEMU deletes it
    unplug(m, "d1")
    assert "0x0000000100000000" not in sh(m, "lsmem")


def test_devmem_trace(dimm_machine):
    """The trace narrates one line per section: head and tail templates."""
    m = dimm_machine
    assert "devmem0: created" in sh(m, "devmem create 0x100000000 256M 2m")
    assert write(m, TRACE, "1") == ""
    out = sh_log(m, "devmem rebind 0 new")
    lines = re.findall(r"\[memmap_init\] (pfn 0x[0-9a-f]+ .*)", out)
    assert lines == [
        "pfn 0x100000 +32768 pages: device, compound order 9: template, "
        "64 heads + 32704 tails, 2 slow inits + 32766 copies",
        "pfn 0x108000 +32768 pages: device, compound order 9: template, "
        "64 heads + 32704 tails, 2 slow inits + 32766 copies",
    ], out
    out = sh_log(m, "devmem rebind 0 old")
    assert "pfn 0x100000 +32768 pages: device, compound order 9: field by field, " \
           "32768 slow inits" in out, out
    assert write(m, TRACE, "0") == ""
    assert "[memmap_init]" not in sh_log(m, "devmem rebind 0 template-nt")


def test_memmap_init_bench(dimm_machine):
    """devmem bench on the offline DIMM: every design and both limits are
    timed, the paired sign test is printed per kind, and the blocks are
    left offline and usable.  How fast each design is, is `make bench`'s
    business (tests/bench/qemu_bench.py), never a test's."""
    m = dimm_machine
    out = sh(m, "devmem bench 0x100000000 1G 5", timeout=300 * SCALE)
    print(out)
    assert "262144 struct pages (16384 KiB of memmap), cold (memmap out of the cache), " \
           "median of 5 runs" in out, out
    bench = parse_memmap_bench(out)
    assert all(v > 0 for row in bench["rows"].values() for v in row), out
    assert bench["memset"] > 0 and bench["stream"] > 0 and bench["stores"] > 0, out
    assert len(bench["signs"]) == 6, out      # 3 kinds x (template, template-nt)
    for wins, reps, p, verdict in bench["signs"].values():
        assert reps == 5, out
        # the sign test's arithmetic: P(X >= wins) for 5 fair coin tosses
        expect = {0: 1.0, 1: 0.969, 2: 0.812, 3: 0.5, 4: 0.188, 5: 0.031}[wins]
        assert abs(p - expect) < 0.001, (wins, p)
        assert (verdict == "faster") == (wins == 5), (wins, verdict)
        assert verdict != "SLOWER" or wins == 0, (wins, verdict)
    bad = sh(m, "devmem bench 0x100000000 1G 42")
    assert "devmem bench: reps 42 is out of range: 1-41 (MEMMAP_BENCH_MAX_REPS)" in bad, bad
    bad = sh(m, "devmem bench 0x100000000 warm")
    assert "devmem bench: size 'warm' is not a number" in bad, bad
    bad = sh(m, "devmem bench 0xffffffffffffffff 128M")
    assert "devmem bench: address 0xffffffffffffffff is out of range" in bad, bad
    out = sh(m, "devmem bench 0x100000000 256M 1 warm", timeout=120 * SCALE)
    assert "65536 struct pages (4096 KiB of memmap), warm (memmap in the cache), " \
           "median of 1 runs" in out, out
    # the memmap is poisoned again: the blocks online normally afterwards
    assert "8 blocks onlined" in sh(m, "memory online 32-39 movable")

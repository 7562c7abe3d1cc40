"""Mechanism 3 scenarios: batched contiguous freeing, with the CMA
area that exercises it (`cma=SIZE`), seen through Linux's CMA debugfs and
sysfs files, /proc/meminfo and /proc/zoneinfo, and the shell commands
`cma` and `contig`.

    boot cma=64M                 an area of 16384 pages in DMA32
    cma alloc N / cma release N  = echo N > /sys/kernel/debug/cma/cma0/{alloc,free}
    contig compare N [frozen]    old and new free_contig_range on the same
                                 range, compared live: "identical"
    contig alloc/free START NR   alloc_contig_range on any range
    contig bench [NR] [REPS]     cycles per page, old vs new

Every page count below is checked against the other views: debugfs used
and maxchunk, CmaTotal/CmaFree, the zone's nr_free_cma.
"""

import re

import pytest

MiB = 1 << 20
DEBUG = "/sys/kernel/debug/cma/cma0"
SYSFS = "/sys/kernel/mm/cma/cma0"
CMA_PAGES = 16384
LOG_LINE = re.compile(r"^\[\s*\d+\.\d+\] .*\n?", re.M)


def sh(m, cmd, timeout=None):
    """A command's output without kernel log lines printed meanwhile."""
    out = m.run(cmd) if timeout is None else m.run(cmd, timeout=timeout)
    return LOG_LINE.sub("", out)


def num(m, path):
    out = sh(m, f"cat {path}")
    assert re.fullmatch(r"\d+\n", out), f"{path}: {out!r}"
    return int(out)


def meminfo(m):
    return {k: int(v) for k, v in
            re.findall(r"^(\S+):\s+(\d+)", sh(m, "cat /proc/meminfo"), re.M)}


def state(m):
    """Everything a failed command must leave alone."""
    mi = meminfo(m)
    return {"used": num(m, f"{DEBUG}/used"),
            "maxchunk": num(m, f"{DEBUG}/maxchunk"),
            "CmaTotal": mi["CmaTotal"], "CmaFree": mi["CmaFree"],
            "released": num(m, f"{SYSFS}/release_pages_success")}


@pytest.fixture
def cma64(boot):
    return boot("cma=64M")


def test_cma_area_at_boot(cma64):
    m = cma64
    assert re.search(r"cma: Reserved 64 MiB at 0x[0-9a-f]+", m.boot_log)
    assert "cma: cma0: 16384 pages at pfn" in m.boot_log
    assert num(m, f"{DEBUG}/count") == CMA_PAGES
    assert num(m, f"{DEBUG}/used") == 0
    assert num(m, f"{DEBUG}/maxchunk") == CMA_PAGES
    assert num(m, f"{DEBUG}/order_per_bit") == 0
    base = num(m, f"{DEBUG}/base_pfn")
    assert base % 512 == 0
    assert num(m, f"{SYSFS}/total_pages") == CMA_PAGES
    assert num(m, f"{SYSFS}/available_pages") == CMA_PAGES
    mi = meminfo(m)
    assert mi["CmaTotal"] == 64 * 1024 and mi["CmaFree"] == 64 * 1024
    zi = sh(m, "cat /proc/zoneinfo")
    dma32 = zi[zi.index("zone    DMA32"):]
    assert re.search(r"^        cma      16384$", dma32, re.M)
    assert re.search(r"^      nr_free_cma  16384$", dma32, re.M)
    listing = sh(m, f"ls {DEBUG}").split()
    for f in ("alloc", "free", "count", "used", "maxchunk", "base_pfn", "order_per_bit",
              "bitmap"):
        assert f in listing
    status = sh(m, "cma")
    assert f"cma0: pfn [{base:#x}-{base + CMA_PAGES:#x})" in status
    assert "zone DMA32" in status


@pytest.mark.parametrize("design", ["old", "new"])
def test_cma_alloc_release_whole_area(cma64, design):
    m = cma64
    sh(m, f"mech contig_free {design}")
    out = sh(m, f"cma alloc {CMA_PAGES}")
    assert f"allocated {CMA_PAGES} pages" in out
    assert num(m, f"{DEBUG}/used") == CMA_PAGES
    assert num(m, f"{DEBUG}/maxchunk") == 0
    assert meminfo(m)["CmaFree"] == 0
    out = sh(m, f"cma release {CMA_PAGES}")
    assert f"released {CMA_PAGES} pages ({design} design)" in out
    assert num(m, f"{DEBUG}/used") == 0
    assert num(m, f"{DEBUG}/maxchunk") == CMA_PAGES
    sh(m, "drain")
    assert meminfo(m)["CmaFree"] == 64 * 1024
    assert num(m, f"{SYSFS}/alloc_pages_success") == CMA_PAGES
    assert num(m, f"{SYSFS}/release_pages_success") == CMA_PAGES


def test_cma_debugfs_files(cma64):
    """echo N > alloc / free, newest allocation first (Linux's cma_debug.c),
    and the bitmap as 32-bit words."""
    m = cma64
    for n in (64, 100, 36):
        assert sh(m, f"echo {n} > {DEBUG}/alloc") == ""
    assert num(m, f"{DEBUG}/used") == 200
    words = sh(m, f"cat {DEBUG}/bitmap").split()
    assert len(words) == CMA_PAGES // 32
    assert words[:7] == ["4294967295"] * 6 + [str((1 << 8) - 1)]
    assert all(w == "0" for w in words[7:])
    # free 50: the newest 36, then the first 14 pages of the 100
    assert sh(m, f"echo 50 > {DEBUG}/free") == ""
    assert num(m, f"{DEBUG}/used") == 150
    words = sh(m, f"cat {DEBUG}/bitmap").split()
    assert words[2] == str(0xffffffff & ~((1 << 14) - 1))   # bits 64-77 clear
    assert num(m, f"{DEBUG}/maxchunk") == CMA_PAGES - 164
    assert sh(m, f"echo 150 > {DEBUG}/free") == ""
    assert num(m, f"{DEBUG}/used") == 0
    assert num(m, f"{DEBUG}/maxchunk") == CMA_PAGES


def test_cma_bad_input_changes_nothing(cma64):
    m = cma64
    sh(m, "cma alloc 100")
    before = state(m)
    out = sh(m, f"cma alloc {CMA_PAGES + 1}")
    assert "cma alloc: 16385 pages: more than the 16384 pages of area cma0 (Invalid argument)" in out
    assert state(m) == before
    out = sh(m, "cma alloc 16384")
    assert "no free range of 16384 pages in cma0" in out
    assert "(Cannot allocate memory)" in out
    assert state(m) == before
    out = sh(m, "cma release 200")
    assert ("cma release: 200 pages: the alloc file holds 100 pages in 1 allocations "
            "(Invalid argument); nothing released") in out
    assert state(m) == before
    out = m.run(f"echo 101 > {DEBUG}/free")
    assert "write error: Invalid argument" in out
    assert state(m) == before
    out = sh(m, "cma alloc lots")
    assert "cma alloc: page count 'lots' is not a number" in out
    out = sh(m, "cma alloc 0")
    assert "cma alloc: page count 0 is out of range: 1-" in out
    assert state(m) == before
    assert "released 100 pages" in sh(m, "cma release all")
    assert "nothing to release" in sh(m, "cma release all")


def test_cma_without_area(shell):
    m = shell
    assert "no CMA area: boot with cma=SIZE" in sh(m, "cma")
    assert "no CMA area" in sh(m, "cma alloc 10")
    out = m.run(f"cat {DEBUG}/count")
    assert "No such device" in out


def test_cma_migrates_movable_tenants(boot):
    """A small machine whose free memory is mostly CMA: movable allocations
    go to the CMA area first (buddy.c), and cma_alloc of the whole area
    migrates them out with their data."""
    m = boot("cma=160M", mem="256M")
    area = 160 * MiB // 4096
    base = num(m, f"{DEBUG}/base_pfn")
    sh(m, "alloc 2 64 movable quiet")
    tenants = []
    for line in sh(m, "handles").splitlines():
        f = line.split()
        if len(f) >= 6 and f[0].isdigit() and f[1].startswith("0x"):
            pfn = int(f[1], 16)
            if base <= pfn < base + area:
                tenants.append(int(f[0]))
    assert len(tenants) >= 16, "movable allocations did not use the CMA area"
    for h in tenants[:16]:
        assert "filled" in sh(m, f"fill {h} {h * 7919}")
    out = sh(m, f"cma alloc {area}", timeout=120)
    assert f"allocated {area} pages" in out
    assert "ok: 16 handles checked" in sh(m, "check all")
    for line in sh(m, "handles").splitlines():
        f = line.split()
        if len(f) >= 6 and f[0].isdigit() and f[1].startswith("0x"):
            assert not base <= int(f[1], 16) < base + area
    assert "released" in sh(m, "cma release all", timeout=60)
    assert num(m, f"{DEBUG}/used") == 0


@pytest.mark.parametrize("args", ["4096", "4096 frozen", "16384", "1000"])
def test_contig_compare_identical(cma64, args):
    out = sh(cma64, f"contig compare {args}", timeout=120)
    assert "(CMA, zone DMA32)" in out
    assert re.search(r"old: \d+ pages freed one by one: \d+ merges", out)
    assert re.search(r"new: \d+ pages freed in \d+ chunks", out)
    assert "struct pages: identical" in out, out
    assert num(cma64, f"{DEBUG}/used") == 0


def test_contig_compare_without_cma(shell):
    out = sh(shell, "contig compare 4096", timeout=120)
    assert "(Movable, zone" in out
    assert "struct pages: identical" in out, out


def test_contig_alloc_free_and_errors(machine):
    m = machine
    before = meminfo(m)["MemFree"]
    out = sh(m, "contig alloc 0x20000 1000")
    assert "contig: allocated [0x20000-0x203e8) 1000 pages (4000 KiB)" in out
    assert meminfo(m)["MemFree"] == before - 4000
    out = sh(m, "contig free 0x20100 100")
    assert "freed [0x20100-0x20164) with the new design: 100 pages freed in" in out
    assert "[0x20000-0x20100) 256 pages" in sh(m, "contig list")
    out = sh(m, "contig free 0x20000 1000")
    assert "was not handed out by `contig alloc`" in out
    sh(m, "mech contig_free old")
    out = sh(m, "contig free 0x20000 256")
    assert "with the old design: 256 pages freed one by one" in out
    sh(m, "mech contig_free new")
    assert "freed" in sh(m, "contig free 0x20164 644")
    sh(m, "drain")
    assert meminfo(m)["MemFree"] == before
    # errors, in words, and nothing changes
    out = sh(m, "contig alloc 0x200 16")
    assert ("contig alloc: [0x200-0x210): Device or resource busy while checking the range: "
            "pfn 0x200: reserved page (boot memory or firmware)") in out
    # page 0 is not in zone DMA (Reserved, as on Linux/x86): pageblock 0 straddles its edge
    out = sh(m, "contig alloc 0x100 16")
    assert "pfn 0x100: pageblock 0x0 crosses the edge of zone DMA [0x1-0x1000)" in out, out
    out = sh(m, "contig alloc 0x40000000 10")
    assert ("contig alloc: [0x40000000-0x4000000a): Invalid argument while checking the "
            "range: pfn 0x40000000: no memmap (a hole or absent memory)") in out
    out = sh(m, "contig alloc 0x7fff0 100")
    assert "crosses the edge of zone DMA32" in out
    out = sh(m, "contig alloc 0x20000 0")
    assert "contig alloc: page count 0 is out of range: 1-" in out
    assert "0 ranges held" in sh(m, "contig list")
    sh(m, "drain")
    assert meminfo(m)["MemFree"] == before


def test_contig_alloc_refuses_unmovable_page(machine):
    m = machine
    out = sh(m, "alloc 0 1 unmovable")
    pfn = int(re.search(r"pfn (0x[0-9a-f]+)", out).group(1), 16)
    start = pfn & ~0x1ff
    out = sh(m, f"contig alloc {start:#x} 512")
    assert f"pfn {pfn:#x}: unmovable allocation (refcount 1, no movable owner)" in out
    assert "0 ranges held" in sh(m, "contig list")
    # a movable handle in the way is migrated, with its data (pick one in
    # a whole pageblock: the last one of DMA32 crosses the zone's edge)
    sh(m, "alloc 3 64 movable quiet")
    hid = hpfn = None
    for line in sh(m, "handles").splitlines():
        f = line.split()
        if len(f) >= 7 and f[0].isdigit() and f[6] == "movable":
            p = int(f[1], 16)
            if (p & ~0x1ff) not in (start, 0x7fe00):
                hid, hpfn = int(f[0]), p
                break
    assert hid is not None
    assert "filled" in sh(m, f"fill {hid} 0x1234")
    s = hpfn & ~0x1ff
    out = sh(m, f"contig alloc {s:#x} 512")
    assert re.search(r"allocated .* [1-9]\d* pages migrated away", out), out
    assert f"handle {hid}: ok" in sh(m, f"check {hid}")
    for line in sh(m, "handles").splitlines():
        f = line.split()
        if len(f) >= 7 and f[0] == str(hid):
            assert not s <= int(f[1], 16) < s + 512
    assert "freed" in sh(m, f"contig free {s:#x} 512")


def test_contig_trace(cma64):
    m = cma64
    sh(m, "trace contig_free on")
    sh(m, "cma alloc 3000")
    out = m.run("cma release 3000")
    assert re.search(r"\[contig_free\] new: pfn 0x[0-9a-f]+ order 10 \(CMA\)", out)
    sh(m, "mech contig_free old")
    sh(m, "cma alloc 3000")
    out = m.run("cma release 3000")
    lines = re.findall(r"\[contig_free\] old: pfns \[0x[0-9a-f]+-0x[0-9a-f]+\): \d+ freed", out)
    assert len(lines) == 6            # one line per 512 pfns, 3000 pages from an aligned start
    sh(m, "trace contig_free off")


def test_contig_bench(cma64):
    out = sh(cma64, "contig bench 16384 3", timeout=300)
    assert "(CMA, zone DMA32), median of 3 runs" in out
    # the numbers are `make bench`'s (tests/bench/qemu_bench.py); here:
    # every row measured, and the ratios are those of the rows above them
    cells = dict((name, float(c)) for name, c in re.findall(
        r"^  (old|new|frozen old|frozen new) .*?\s+([\d.]+)\s+[\d.]+\s+\+-[\d.]+%$", out, re.M))
    assert set(cells) == {"old", "new", "frozen old", "frozen new"}, out
    assert all(c > 0 for c in cells.values()), out
    speed = float(re.search(r"speedup new/old ([\d.]+)x", out).group(1))
    frozen = float(re.search(r"frozen new/old ([\d.]+)x", out).group(1))
    assert abs(speed - cells["old"] / cells["new"]) < 0.02 * speed, out
    assert abs(frozen - cells["frozen old"] / cells["frozen new"]) < 0.02 * frozen, out
    assert num(cma64, f"{DEBUG}/used") == 0

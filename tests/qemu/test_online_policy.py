"""Memory hotplug scenarios: which zone hot-added memory goes to.  The
online types and valid_zones, the auto-movable policy (one DIMM at a time
and DIMMs plugged back to back), and the `bench` commands that time both
designs of the policy's and the contiguity's mechanisms and leave the
switches as they were.

On QEMU's ACPI DIMM device through real QMP commands, with the helpers of
hotplug.py, as in test_hotplug.py.
"""

import re
import time

from memlab import SCALE
from hotplug import (MiB, GiB, BLOCK, PAGE, PAGES_PER_BLOCK, MEMDIR, PARAMS, OST_DEVICE_CHECK,
                     OST_SUCCESS, NUMA8, MECH, sh, settle, write, meminfo, zoneinfo, block_attr,
                     dimm_blocks, set_auto_online, block_or_file, plug, boot_hotplug)


# -- zones and policies ------------------------------------------------------

def test_online_types_and_valid_zones(boot):
    """contig-zones: an offline block above all memory defaults to Normal
    and may also go to Movable; online_movable/online_kernel force the zone;
    wrong transitions fail with Linux's EINVAL."""
    m = boot_hotplug(boot)
    set_auto_online(m, "offline")
    base = meminfo(m)["MemTotal"]
    plug(m, "d1", GiB)
    b = dimm_blocks(4 * GiB, GiB)
    assert meminfo(m)["MemTotal"] == base
    assert all(block_attr(m, x, "state") == "offline" for x in b)
    assert block_attr(m, b[0], "online") == "0"
    assert block_attr(m, b[0], "valid_zones") == "Normal Movable"
    out = sh(m, "lsmem")
    assert "0x0000000100000000-0x000000013fffffff   1G offline           32-39\n" in out, out
    assert "Total offline memory:      1G\n" in out, out

    assert write(m, f"{MEMDIR}/memory{b[0]}/state", "offline") == \
        "echo: write error: Invalid argument"
    assert write(m, f"{MEMDIR}/memory{b[0]}/state", "online_movable") == ""
    assert block_attr(m, b[0], "state") == "online"
    assert block_attr(m, b[0], "valid_zones") == "Movable"
    assert write(m, f"{MEMDIR}/memory{b[0]}/state", "online_kernel") == \
        "echo: write error: Invalid argument"
    sh(m, "meminit finish")     # managed counts the block once its memmap is written
    z = zoneinfo(m)[(0, "Movable")]
    assert z["present"] == PAGES_PER_BLOCK and z["managed"] == PAGES_PER_BLOCK, z

    # the next block does not touch the Movable span: Normal by default
    assert block_attr(m, b[1], "valid_zones") == "Normal Movable"
    assert write(m, f"{MEMDIR}/memory{b[1]}/state", "online") == ""
    assert block_attr(m, b[1], "valid_zones") == "Normal"
    assert write(m, f"{MEMDIR}/memory{b[2]}/state", "online_kernel") == ""
    assert block_attr(m, b[2], "valid_zones") == "Normal"
    # inside the Normal span now: still Normal first, Movable allowed
    assert block_attr(m, b[3], "valid_zones") == "Normal Movable"
    assert write(m, f"{MEMDIR}/memory{b[3]}/online", "1") == ""    # the online file
    assert block_attr(m, b[3], "state") == "online"
    sh(m, "meminit finish")
    z = zoneinfo(m)
    assert z[(0, "Normal")]["present"] == 3 * PAGES_PER_BLOCK, z[(0, "Normal")]
    assert meminfo(m)["MemTotal"] == base + 4 * BLOCK // 1024

    # memory offline/online by shell command, same semantics
    out = sh(m, f"memory offline {b[0]}")
    assert f"memory{b[0]}: offline" in out, out
    assert zoneinfo(m)[(0, "Movable")]["present"] == 0
    out = sh(m, f"memory offline {b[0]}")
    assert "Invalid argument" in out, out
    out = sh(m, f"memory online {b[4]} movable")
    assert f"memory{b[4]}: online (zone Movable, node 0)" in out, out
    assert write(m, f"{MEMDIR}/memory{b[4]}/online", "0") == ""
    assert block_attr(m, b[4], "state") == "offline"
    assert write(m, f"{MEMDIR}/memory{b[4]}/online", "0") == ""    # already offline: fine
    assert meminfo(m)["MemTotal"] == base + 3 * BLOCK // 1024


def kernel_early_pages(m):
    z = zoneinfo(m)
    return sum(v["present"] for (nid, name), v in z.items()
               if name in ("DMA", "DMA32", "Normal"))


def test_auto_movable_policy(boot):
    """online_policy=auto-movable, ratio 301: a DIMM goes to ZONE_MOVABLE
    while MOVABLE stays within 301% of the boot kernel memory (about 6 GiB
    for a 2 GiB guest), else to ZONE_NORMAL, whole DIMM at a time."""
    m = boot_hotplug(boot, mem="2G,slots=8,maxmem=64G")
    set_auto_online(m, "online")
    assert write(m, f"{PARAMS}/online_policy", "auto-movable") == ""
    kernel = kernel_early_pages(m)
    limit = 301 * kernel // 100
    movable = 0
    addr = 4 * GiB
    for dimm, size in [("d1", 4 * GiB), ("d2", 2 * GiB), ("d3", GiB)]:
        pages = size // PAGE
        want = "Movable" if movable + pages <= limit else "Normal"
        plug(m, dimm, size)
        got = {block_attr(m, x, "valid_zones") for x in dimm_blocks(addr, size)}
        assert got == {want}, (dimm, got, want, kernel, limit, movable)
        print(f"{dimm}: {size >> 30} GiB -> {want} (movable {movable + pages} "
              f"pages vs limit {limit})")
        if want == "Movable":
            movable += pages
        addr += size
    assert zoneinfo(m)[(0, "Movable")]["present"] == movable
    # a 2 GiB guest: 4G and 2G fit under ~6.02G, the third does not
    assert movable == 6 * GiB // PAGE


def test_auto_movable_dimms_plugged_back_to_back(boot):
    """The same three DIMMs, device_add'ed without waiting: memlab adds
    them one at a time in the order they came (the later ones say they
    wait), so each is placed with the ones before it online and the ratio
    holds: 4G and 2G movable, 1G normal, as when plugged one by one."""
    m = boot_hotplug(boot, mem="2G,slots=8,maxmem=64G")
    set_auto_online(m, "online")
    assert write(m, f"{PARAMS}/online_policy", "auto-movable") == ""
    dimms = [("d1", 4 * GiB), ("d2", 2 * GiB), ("d3", GiB)]
    for dimm, size in dimms:
        plug(m, dimm, size, wait=False)
    done = set()
    q = m.qmp()
    deadline = time.monotonic() + 120 * SCALE
    while done != {"d1", "d2", "d3"}:
        assert time.monotonic() < deadline, done
        info = q.wait_event("ACPI_DEVICE_OST", timeout=deadline - time.monotonic())["data"]["info"]
        if info["source"] == OST_DEVICE_CHECK:
            assert info["status"] == OST_SUCCESS, (info, sh(m, "hotplug"))
            done.add(info["device"])
    settle(m)
    assert "add waits for slot" in m.output, m.output[-3000:]
    addr, got = 4 * GiB, []
    for dimm, size in dimms:
        got.append({block_attr(m, x, "valid_zones") for x in dimm_blocks(addr, size)})
        addr += size
    assert got == [{"Movable"}, {"Movable"}, {"Normal"}], got
    assert zoneinfo(m)[(0, "Movable")]["present"] == 6 * GiB // PAGE


def test_bench_commands_measure_both_designs_and_restore_the_switches(boot):
    """`bench automovable` on 8 NUMA nodes and `bench contig` over a DIMM
    left offline: both designs are timed in one run, the printed ratios
    are the cells' ratios, and the mechanism switches and block states
    are as they were.  How fast each design is, is `make bench`'s
    business, never a test's."""
    m = boot_hotplug(boot, mem="2G,slots=8,maxmem=64G", extra=NUMA8)
    assert "usage: bench zone_contig [series] | memmap_init" in sh(m, "bench"), sh(m, "bench")
    assert "usage: bench zone_contig [series] | memmap_init" in sh(m, "bench nothing")

    assert write(m, f"{MECH}/auto_movable_stats", "old") == ""
    out = sh(m, "bench automovable", timeout=120 * SCALE)
    print(out)
    assert "bench automovable: 8 online node(s), 7 rounds of 20000 checks each, medians" \
        in out, out
    rows = {}
    for name, med, spread, lo, hi in re.findall(
            r"^  (walk|cached)\s+(\d+) cycles/check \(\+-(\d+\.\d)%, (\d+)-(\d+)\)$", out, re.M):
        rows[name] = med = int(med)
        # the median lies in its range, and the spread is half of it; the
        # cells are truncated per-check means (each off by up to 1), so the
        # spread recomputed from them is off by up to 100 / med for lo and
        # hi and by (hi - lo) * 50 / med^2 for the median
        assert int(lo) <= med <= int(hi), out
        tol = 0.1 + 100 / med + (int(hi) - int(lo)) * 50 / med ** 2
        assert abs(float(spread) - (int(hi) - int(lo)) * 50 / med) <= tol, out
    walk, cached = rows["walk"], rows["cached"]
    speedup = float(re.search(r"^  speedup (\d+\.\d\d)x$", out, re.M).group(1))
    assert walk > 0 and cached > 0, out
    # the ratio is of the totals, the cells are truncated per-check means
    assert abs(speedup - walk / cached) <= 0.01 + walk / cached / cached, out
    assert block_or_file(m, f"{MECH}/auto_movable_stats") == "old"
    assert write(m, f"{MECH}/auto_movable_stats", "new") == ""

    out = sh(m, "bench contig")
    assert "bench contig: needs offline hot-added blocks" in out and "found 0" in out, out
    set_auto_online(m, "offline")
    plug(m, "d1", GiB)
    blocks = dimm_blocks(4 * GiB, GiB)
    assert write(m, f"{MECH}/contig_check", "old") == ""
    out = sh(m, "bench contig", timeout=300 * SCALE)
    print(out)
    assert f"online {len(blocks)} offline blocks one after another into ZONE_MOVABLE" in out, out
    rows = {}
    for name, total, first, last, ratio, walked in re.findall(
            r"^  (old|new)\s+(\d+) cycles, first 1 blocks\s+(\d+) \+-0\.0%, last 1\s+(\d+) \+-0\.0% "
            r"cycles/block, last/first (\d+\.\d\d), (\d+) pageblocks walked$", out, re.M):
        rows[name] = [int(total), int(first), int(last), float(ratio), int(walked)]
        assert abs(float(ratio) - int(last) / int(first)) < 0.01, out
    assert set(rows) == {"old", "new"}, out
    # the walk visits pageblocks; the counter never does
    assert rows["old"][4] >= len(blocks) * BLOCK // (2 * MiB) and rows["new"][4] == 0, out
    total = float(re.search(r"^  old/new total: (\d+\.\d\d)x$", out, re.M).group(1))
    assert abs(total - rows["old"][0] / rows["new"][0]) < 0.01, out
    # the chart: both series, one column per block, and the axis
    assert "cycles/block  o = old (pageblock walk), n = new (counter), * = both " \
        "(a column: the median of 1 block)" in out, out
    assert re.search(r"^\s+\+-{%d}$" % len(blocks), out, re.M), out
    assert re.search(r"^\s+block 0\s+%d$" % (len(blocks) - 1), out, re.M), out
    # 8 blocks are too few for the walk's growth to show: the bench says so
    assert "bench contig: warning: only a few blocks to online" in out, out
    assert {block_attr(m, b, "state") for b in blocks} == {"offline"}
    assert block_or_file(m, f"{MECH}/contig_check") == "old"

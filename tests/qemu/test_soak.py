"""The short soak: tools/soak.py (`make soak`) with 100 operations on fixed
seeds, so that a regression of any soak invariant shows in `make test`.

Each seed boots its own machine (q35, 2 GiB, eight DIMM slots, a
cold-plugged virtio-mem device, cma=64M) and runs 100 random operations
(hotplug, virtio-mem resizes, alloc/fill/move/check/free, block state
writes, mech, drain, devmem, CMA, reboots), checking the invariants of
docs/testing.md ("Soak") after each one and comparing with just after
boot at the end.  Bounded by the operation count, not by time: every wait
has a generous timeout (MEMLAB_TIMEOUT_SCALE scales them).

Seeds: 1, 3 and 7.  Seed 1 found a virtio-mem bug: within 100 operations
it offlines a plugged virtio-mem block, makes it device memory (`devmem
create`) and shrinks the device, and the driver used to unplug the range
under the live devmem range (invariant I5).  The shortest sequence (found
with `tools/soak.py --shrink`): dimm-add 128 MiB, vmem-resize 468 MiB,
offline memory32, devmem create 0x100000000 128M 4k, vmem-resize 0.  The
driver now asks mm before it unplugs (memory_range_in_use()), so seed 1
stays here as that bug's regression test.
"""

import sys

import pytest

import memlab

sys.path.insert(0, str(memlab.REPO / "tools"))
import soak  # noqa: E402

OPS = 100
SEEDS = (1, 3, 7)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_short_soak(seed, kernel, capsys):
    s = soak.Soak(seed, OPS).run()
    summary = s.summary()
    with capsys.disabled():
        print("\n" + summary.splitlines()[0])
    assert len(s.ops_done) == OPS, summary
    assert s.violations == [], "\n".join(
        [summary] + [f"{text}\n  after: {ops}" for text, ops in s.violations])
    assert (s.crashes, s.hangs, s.lost_pages) == (0, 0, 0), summary
    assert summary.startswith(f"soak: seed {seed}: {OPS} operations, 0 crashes, 0 hangs, "
                              "0 lost pages, 0 invariant violations"), summary


def test_parsers_read_the_views():
    """The soak's parsers against the formats the kernel prints (as the
    other scenarios compare them), so a format change fails here first."""
    lsmem = ("RANGE                                  SIZE   STATE REMOVABLE BLOCK\n"
             "0x0000000000000000-0x0000000007ffffff  128M  online       yes     0\n"
             "0x0000000008000000-0x000000000fffffff  128M offline               1\n"
             "0x0000000010000000-0x0000000027ffffff  384M  online       yes   2-4\n")
    assert soak.parse_lsmem(lsmem) == {0: "online", 1: "offline", 2: "online",
                                       3: "online", 4: "online"}
    handles = (" handle pfn            order       KiB node zone     type      pattern\n"
               "      1 0x7ffc8            3        32    0 DMA32    movable   -\n")
    assert soak.parse_handles(handles) == {1: (0x7ffc8, 3, "DMA32")}
    devmem = (" 0 [mem 0x0000000028000000-0x000000002fffffff]    0     32768     4 KiB new\n")
    assert soak.parse_devmem(devmem) == {0: (0x28000000, 0x30000000)}
    vmem = ("  plugged:     300 MiB (device: 300 MiB)\n"
            "  memory32     Normal   kernel           64/64 " + "#" * 64 + "\n"
            "  memory34     Normal   kernel-partial   22/64 " + "#" * 22 + "." * 42 + "\n")
    assert soak.parse_vmem(vmem) == (300 << 20, {32: 64, 34: 22})
    buddy = ("MemTotal:        2058080 kB\nMemFree:         2058068 kB\n"
             "Node 0, zone      DMA\n  pages free     2554\n        managed  2554\n"
             "  pagesets\n    cpu: 0\n              count: 0\n"
             "Node 0, zone      DMA      0      1      0      1      1      1      1      1"
             "      1      0      2 \n")
    st = soak.parse_mm(buddy)
    assert st["zones"][(0, "DMA")] == {"free": 2554, "managed": 2554, "pcp": 0}
    assert st["buddy"][(0, "DMA")] == 2554
    assert soak.kind_of("I5 devmem0 [0x100000000-0x108000000) is in memory") == "I5 devmemN"


def test_free_accounting_is_one_function():
    """I3 and I6 ask zone_free_want() what a zone's free count must be:
    the buddy (Linux's NR_FREE_PAGES) plus the zone's pending free pages,
    pcp pages not counted."""
    assert soak.zone_free_want(100, 7) == (100, "buddy 100 (pcp 7 not counted)")
    assert soak.zone_free_want(100, 7, 32768) == (32868, "buddy 100 + pending 32768 "
                                                  "(pcp 7 not counted)")
    st = soak.parse_mm("MemTotal:        2058080 kB\nMemFree:         2058068 kB\n"
                       "Node 0, zone   Normal\n  contiguous:               0\n"
                       "  pages_with_online_memmap: 32768\n  nr_free_pending:          65536\n")
    assert st["pending"] == {(0, "Normal"): 65536}
    assert soak.memlab_pool_room({"pool": 143, "mm": 0, "pdpt": 2}) == 369


def test_run_survives_a_log_line_inside_the_echo():
    """Soak seed 11 (10,000 ops) met this: virtio-mem's resize round, working
    in the background, logged while the next command was echoed, splitting
    the echo; the command's output then began with the echo's tail."""
    cmd = "cat /sys/devices/system/memory/memory10/state"
    text = ("cat /sys/devices/system/memor[    8.428368] virtio-mem 01:00.0: plugged 6 -> "
            "116 MiB (requested 116 MiB) in 0 ms\r\ny/memory10/state\r\noffline\r\n")
    m = memlab.Machine.__new__(memlab.Machine)
    m.send_line = lambda line: None
    m.wait_prompt = lambda timeout=None: text
    assert m.run(cmd) == "offline\n"

"""1 TiB of virtio-mem plugged into a 2 GiB guest, onlined lazily (the
default, deferred_init_hotplug=1) with the background init held
(deferred_init_background=0), so the host never backs the 16 GiB of
memmap of the pending sections (docs/deferred-init.md, "Hot-added
memory: online before its memmap is written"):

    -m 2G,maxmem=1040G -cpu max,phys-bits=44
    -object memory-backend-ram,id=hotmem0,size=1T,share=on,reserve=off
    -device virtio-mem-pci,id=vmem1,memdev=hotmem0,bus=port1,requested-size=0
    (QMP) qom-set vmem1 requested-size 1T

At the driver's round line every block is online and MemTotal is base +
1 TiB exactly (the lazy online counts the plugged pages as managed and
free at once), while `meminit` shows most sections pending; the hot-add
table is sized from the map (8192 sections of the static table are not
enough: the region ends past 1 TiB).  An allocation of 512 MiB grows the
zone on demand.  The top 8 GiB are unplugged and plugged again: their
blocks go offline without their memmap ever being written (`meminit`
counts them), and come back pending; MemTotal and MemFree come back
exactly.  Then all of it is unplugged, pending blocks unwritten, and
MemTotal, MemFree and the page-table counts of `pagetables` are their
values before the plug (the direct map's PDPT pages past 512 GiB go too).  No timed asserts: the timeouts only bound a hang.
"""

import re
import time

import pytest

from memlab import SCALE
from test_lazy_hotplug import pending_sections, pending_free_kb, VMEM_ROUND
from hotplug import meminfo, sh
from test_hotplug_memmap import pagetables

MiB = 1 << 20
GiB = 1 << 30
TiB = 1 << 40
BLOCK_KB = 128 * MiB // 1024


def resize_and_wait(m, size, timeout=300 * SCALE):
    """qom-set requested-size, wait for the driver's round line (every
    block of the round online or removed) and for QEMU's size."""
    start = len(m.output)
    q = m.qmp()
    q.cmd("qom-set", path="vmem1", property="requested-size", value=size)
    rx = re.compile(VMEM_ROUND.format(size >> 20, size >> 20))
    deadline = time.monotonic() + timeout
    while not rx.search(m.output[start:]):
        assert time.monotonic() < deadline, sh(m, "virtio-mem")
        time.sleep(0.5)
    devs = [d["data"] for d in q.cmd("query-memory-devices") if d["type"] == "virtio-mem"]
    assert len(devs) == 1 and devs[0]["size"] == size, devs
    m.quiesce(0.5)


@pytest.mark.slow
@pytest.mark.serial
def test_tib_plug_counted_at_once_memmap_pending(boot):
    m = boot(cmdline="deferred_init_background=0", mem="2G,maxmem=1040G",
             cpu="max,phys-bits=44", settle=True,
             extra=["-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1",
                    "-object", "memory-backend-ram,id=hotmem0,size=1T,share=on,reserve=off",
                    "-device", "virtio-mem-pci,id=vmem1,memdev=hotmem0,bus=port1,"
                               "requested-size=0"])
    m.qmp()
    # the region [4 GiB, 1028 GiB) ends past the static table's 1 TiB
    assert re.search(r"deferred init: a hot-add table of \d+ sections", m.output), m.output
    sh(m, "meminit finish")             # boot memory waits too: done first
    sh(m, "drain")                      # MemFree counts the pcp lists' pages too
    base = meminfo(m)
    pt0 = pagetables(m)

    resize_and_wait(m, 1 * TiB)
    plugged = meminfo(m)
    assert plugged["MemTotal"] == base["MemTotal"] + TiB // 1024
    done, left = pending_sections(m)
    # the memmap allocations grew ZONE_NORMAL by some sections, the rest waits
    assert done == 8192 and 0 < left < 8192, (done, left)
    assert pending_free_kb(m) == left * BLOCK_KB
    assert "past the table" not in sh(m, "meminit")

    out = sh(m, "alloc 9 256 quiet")    # 512 MiB, from plugged memory
    assert "256 blocks of order 9" in out, out
    sh(m, "free all")
    sh(m, "drain")
    assert meminfo(m)["MemTotal"] == plugged["MemTotal"]
    before = meminfo(m)
    _, left = pending_sections(m)       # the allocation grew the zone by some

    # the top 8 GiB (64 blocks, pending: offlined without their memmap
    # ever written) out and in again
    resize_and_wait(m, TiB - 8 * GiB)
    assert meminfo(m)["MemTotal"] == base["MemTotal"] + (TiB - 8 * GiB) // 1024
    done, left2 = pending_sections(m)
    assert done == 8192 and left2 == left - 64, (done, left, left2)
    assert "64 of them offlined before their memmap was written" in sh(m, "meminit")
    assert pending_free_kb(m) == left2 * BLOCK_KB
    resize_and_wait(m, 1 * TiB)
    done, left3 = pending_sections(m)   # pending again
    assert done == 8192 + 64 and left2 < left3 <= left2 + 64, (done, left2, left3)
    assert pending_free_kb(m) == left3 * BLOCK_KB
    sh(m, "drain")
    after = meminfo(m)
    assert after["MemTotal"] == before["MemTotal"]
    assert after["MemFree"] == before["MemFree"], (after["MemFree"], before["MemFree"])

    # all of it out: every pending block goes unwritten, nothing is kept
    resize_and_wait(m, 0)
    done, left4 = pending_sections(m)
    assert left4 == 0 and pending_free_kb(m) == 0, (done, left4)
    assert re.search(r"hot-added: (\d+) of them offlined before their memmap", sh(m, "meminit"))
    sh(m, "drain")
    gone = meminfo(m)
    assert gone["MemTotal"] == base["MemTotal"], (gone["MemTotal"], base["MemTotal"])
    # every page table of the removed memory went, the PDPT pages of the
    # direct map past 512 GiB too (docs/hotplug.md)
    pt = pagetables(m)                  # (pool, page allocator, freed, PDPT)
    assert (pt[0], pt[1], pt[3]) == (pt0[0], pt0[1], pt0[3]), (pt0, pt)
    assert gone["MemFree"] == base["MemFree"], (gone["MemFree"], base["MemFree"])

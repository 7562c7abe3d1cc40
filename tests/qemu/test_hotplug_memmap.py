"""Memory hotplug scenarios: what hot-added memory costs and leaves
behind.  Page tables freed again when DIMMs at new addresses go, DIMMs
holding each other's memmaps ejected in any order, the memmap poison as a
boot option, and the contiguity walk traced over a hot-added block.

On QEMU's ACPI DIMM device through real QMP commands, with the helpers of
hotplug.py, as in test_hotplug.py.
"""

import re

import pytest

from memlab import SCALE
from hotplug import (MiB, GiB, BLOCK, MEMDIR, OST_DEVICE_CHECK, OST_SUCCESS, HOTPLUG_DELAY_MAX, sh,
                     settle, write, meminfo, block_attr, dimm_blocks, set_auto_online, handles,
                     plug, wait_ost, unplug, memory_devices, boot_hotplug)


def pagetables(m):
    """(pool pages in use, pages from the page allocator, tables freed,
    PDPT pages in use) from `pagetables`."""
    text = sh(m, "pagetables")
    mt = re.search(r"table pages:\s+(\d+) of \d+ used \(pool in \.bss\), (\d+) from the page "
                   r"allocator\n.*freed tables: (\d+) by unmapping; (\d+) PDPT", text, re.S)
    assert mt, text
    return tuple(int(g) for g in mt.groups())


def test_new_addresses_leave_no_page_tables(boot):
    """A 128 MiB DIMM added and removed at a new address each time, each in
    an 8 GiB window no memory had yet (a new section root) and a GiB no
    direct-map page directory covered: after each removal the page tables
    are back to their boot count (the emptied PT and PD pages were freed)
    and MemFree is the boot value exactly (the window's section root went
    back with its last block; docs/hotplug.md)."""
    m = boot_hotplug(boot)
    set_auto_online(m, "online_movable")
    sh(m, "drain")
    base, base_pt = meminfo(m), pagetables(m)
    freed = base_pt[2]
    for i, addr in enumerate(range(12 * GiB, 60 * GiB, 8 * GiB)):
        q = m.qmp()
        q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": f"mem-n{i}",
                               "size": BLOCK, "reserve": False})
        q.cmd("device_add", {"driver": "pc-dimm", "id": f"n{i}", "memdev": f"mem-n{i}",
                             "addr": addr})
        ost = wait_ost(m, f"n{i}", OST_DEVICE_CHECK, timeout=HOTPLUG_DELAY_MAX * 4)
        assert ost["status"] == OST_SUCCESS, sh(m, "hotplug")
        settle(m)
        assert memory_devices(m)[f"n{i}"]["addr"] == addr
        grown = pagetables(m)
        assert grown[0] + grown[1] > base_pt[0] + base_pt[1], grown
        unplug(m, f"n{i}")
        sh(m, "drain")
        now, pt = meminfo(m), pagetables(m)
        assert pt[:2] == base_pt[:2] and pt[3] == base_pt[3], \
            f"DIMM at {addr:#x}: page tables {pt}, boot {base_pt}"
        assert pt[2] > freed, pt
        freed = pt[2]
        assert now["MemTotal"] == base["MemTotal"]
        assert now["MemFree"] == base["MemFree"], \
            f"DIMM at {addr:#x}: MemFree {now['MemFree']} kB, boot {base['MemFree']} kB"


def memmaps_moved(m):
    """Hot-added memmaps migrated so far, from `memory`."""
    mt = re.search(r"migrated \d+ pages, (\d+) memmaps", sh(m, "memory"))
    assert mt, sh(m, "memory")
    return int(mt.group(1))


def test_dimms_holding_each_others_memmaps_eject_in_any_order(boot):
    """DIMM d2 added while DIMM d1 is the only Normal memory gets its
    memmap from d1 (in Linux, d1 cannot be ejected before d2).  memlab
    ejects d1 first: d2's memmap migrates out of it.  d1 comes back and
    takes its memmaps from d2, now online; ejecting d2 moves them again,
    d1's memory keeps working, and once both are gone MemTotal and MemFree
    are the boot values."""
    m = boot_hotplug(boot)
    set_auto_online(m, "offline")
    sh(m, "drain")
    base = meminfo(m)
    plug(m, "d1", GiB)
    b1 = dimm_blocks(memory_devices(m)["d1"]["addr"], GiB)
    assert "8 blocks onlined" in sh(m, f"memory online {b1[0]}-{b1[-1]} online_kernel")
    plug(m, "d2", 128 * MiB)
    d2 = memory_devices(m)["d2"]["addr"] // BLOCK
    moved0 = memmaps_moved(m)
    unplug(m, "d1", timeout=60 * SCALE)
    assert memmaps_moved(m) > moved0, sh(m, "memory")
    assert f"memory{d2}: online (zone Normal" in sh(m, f"memory online {d2} online_kernel")

    plug(m, "d1", GiB)
    b1 = dimm_blocks(memory_devices(m)["d1"]["addr"], GiB)
    assert "8 blocks onlined" in sh(m, f"memory online {b1[0]}-{b1[-1]} online_kernel")
    sh(m, "alloc 9 8 movable quiet")
    for h, _, _, _ in handles(m):
        assert "filled" in sh(m, f"fill {h} {h * 7919}")
    moved1 = memmaps_moved(m)
    unplug(m, "d2", timeout=60 * SCALE)
    assert memmaps_moved(m) > moved1, sh(m, "memory")
    assert all(block_attr(m, x, "state") == "online" for x in b1)
    out = sh(m, f"page {b1[-1] * BLOCK // 4096 + 77:#x}")
    assert "Normal" in out and "memmap not initialised" not in out, out
    assert "ok: 8 handles checked" in sh(m, "check all")
    unplug(m, "d1", timeout=60 * SCALE)
    assert memory_devices(m) == {}
    sh(m, "free all")
    sh(m, "drain")
    now = meminfo(m)
    assert now["MemTotal"] == base["MemTotal"], (now, base)
    assert now["MemFree"] == base["MemFree"], (now["MemFree"], base["MemFree"])


@pytest.mark.parametrize("poison", [False, True])
def test_memmap_poison_is_a_boot_option(boot, poison):
    # Off by default (production kernels poison only with CONFIG_DEBUG_VM):
    # a DIMM's blocks left offline are known as such from their sections;
    # with memmap_poison=1 their struct pages also hold the poison.
    m = boot_hotplug(boot, cmdline="memmap_poison=1" if poison else "")
    set_auto_online(m, "offline")
    plug(m, "d1", 128 * MiB)
    out = sh(m, "page 0x100000")
    assert "memmap not initialised: memory block 32 is offline (online it first)" in out, out
    assert ("its struct pages hold the poison" in out) == poison, out
    assert write(m, f"{MEMDIR}/memory32/state", "online_movable") == ""
    assert "memmap not initialised" not in sh(m, "page 0x100000")
    assert write(m, f"{MEMDIR}/memory32/state", "offline") == ""
    assert ("its struct pages hold the poison" in sh(m, "page 0x100000")) == poison


def test_trace_contig_check_verbose_shows_each_pageblock_of_the_walk(boot):
    # The old design walks every pageblock of the zone's span after an
    # online; `trace contig_check verbose` prints one line per pageblock:
    # a 128 MiB block alone in ZONE_MOVABLE is 64 pageblocks, all passing.
    m = boot_hotplug(boot)
    set_auto_online(m, "offline")
    plug(m, "d1", 128 * MiB)
    # an eager online: onlined lazily (the default) the block's section is
    # pending, and a zone with a pending section is not contiguous
    # (docs/deferred-init.md) until it is initialised
    sh(m, "mech deferred_init old")
    assert sh(m, "mech contig_check old").strip().endswith("contig_check: old")
    assert sh(m, "trace contig_check verbose") == ""
    assert re.search(r"^contig_check +verbose$", sh(m, "trace"), re.M)
    out = m.run(f"echo online_movable > {MEMDIR}/memory32/state")
    steps = re.findall(r"\[contig_check\] zone Movable: pageblock (\d+) "
                       r"\[0x([0-9a-f]+)-0x([0-9a-f]+)\): first and last page online, "
                       r"in this zone: pass", out)
    assert [int(s[0]) for s in steps] == list(range(64)), out
    assert int(steps[0][1], 16) == 0x100000 and int(steps[-1][2], 16) == 0x108000, steps
    assert "[contig_check] zone Movable: walked all 64 pageblocks: contiguous" in out, out
    bad = sh(m, "trace contig_free verbose")
    assert "trace: contig_free has no step-by-step trace" in bad, bad
    assert sh(m, "trace contig_check off") == ""
    assert "pageblock" not in m.run(f"echo offline > {MEMDIR}/memory32/state")


def test_trace_lines_never_split_a_commands_table(boot):
    # `contiguity` walks every zone to compare while it prints its table;
    # with the trace on, the walk's lines come first and the table whole.
    m = boot_hotplug(boot)
    assert sh(m, "trace contig_check on") == ""
    out = m.run("contiguity").splitlines()
    head = next(i for i, line in enumerate(out) if line.startswith("node zone"))
    traced = [i for i, line in enumerate(out) if "[contig_check]" in line]
    assert traced and max(traced) < head, out
    assert sh(m, "trace contig_check off") == ""

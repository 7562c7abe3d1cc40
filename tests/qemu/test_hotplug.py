"""Memory hotplug scenarios: QEMU's ACPI DIMM device, driven by real QMP
commands, checked through memlab's Linux-format views.  This file: the
sysfs files and `lsmem`; hot add (sizes, memmap_on_memory, /proc/iomem and
the firmware node, coldplugged DIMMs, a DIMM on node 1); hot remove
(device_del of an idle DIMM, with movable allocations to migrate, refused
with an unmovable one); the mem-on-off-test sequence; repeated add/remove
and a 128 GiB DIMM.

Online policies and zones are in test_online_policy.py, page tables and
memmaps of hot-added memory in test_hotplug_memmap.py; the QMP and guest
helpers all three use, and how they talk to QEMU, are in hotplug.py.
"""

import random
import re
import time

import pytest

from memlab import SCALE
from hotplug import (MiB, GiB, BLOCK, PAGE, PAGES_PER_BLOCK, MEMDIR, PARAMS, INJECT,
                     OST_DEVICE_CHECK, OST_EJECT_REQUEST, OST_EJECT_IN_USE, NUMA2,
                     HOTPLUG_DELAY_MAX, sh, settle,
                     cat, write, meminfo, node_memtotal_kb, zoneinfo, block_ids, block_attr,
                     dimm_blocks, set_auto_online, block_or_file, handles, plug, wait_ost, unplug,
                     memory_devices, ospm_status, boot_hotplug)


# -- the views ---------------------------------------------------------------

def test_sysfs_files_and_lsmem_format(boot):
    m = boot_hotplug(boot)
    assert block_or_file(m, f"{MEMDIR}/block_size_bytes") == "8000000"
    ids = block_ids(m)
    assert ids == list(range(16)), ids          # 2 GiB of boot memory
    files = sh(m, f"ls {MEMDIR}/memory8").split()
    assert files == ["node0", "online", "phys_device", "phys_index", "removable",
                     "state", "valid_zones"], files
    assert cat(m, f"{MEMDIR}/memory8/state") == "online\n"
    assert cat(m, f"{MEMDIR}/memory8/online") == "1\n"
    assert cat(m, f"{MEMDIR}/memory8/phys_index") == "00000008\n"
    assert cat(m, f"{MEMDIR}/memory8/removable") == "1\n"
    assert cat(m, f"{MEMDIR}/memory8/phys_device") == "0\n"
    # Linux's memoryN/nodeM symlink, and the node's memoryN link back
    assert sh(m, f"ls -l {MEMDIR}/memory8/node0") == \
        f"lrwxrwxrwx 0 {MEMDIR}/memory8/node0 -> ../../node/node0\n"
    assert cat(m, f"{MEMDIR}/memory8/node0/distance") == "10\n"
    assert cat(m, "/sys/devices/system/node/node0/memory8/state") == "online\n"
    assert cat(m, f"{MEMDIR}/memory8/valid_zones") == "DMA32\n"
    # memory0 holds DMA and DMA32: it spans two zones, as on Linux
    assert cat(m, f"{MEMDIR}/memory0/valid_zones") == "none\n"

    for path, value in [(f"{PARAMS}/online_policy", "contig-zones"),
                        (f"{PARAMS}/auto_movable_ratio", "301"),
                        (f"{PARAMS}/auto_movable_numa_aware", "Y"),
                        (f"{PARAMS}/memmap_on_memory", "N"),
                        (f"{INJECT}/MEM_GOING_ONLINE/error", "0"),
                        (f"{INJECT}/MEM_GOING_OFFLINE/error", "0")]:
        assert cat(m, path) == value + "\n", path
    assert block_or_file(m, f"{MEMDIR}/auto_online_blocks") in (
        "offline", "online", "online_kernel", "online_movable")

    # writes: good words, bad words, Linux's errors
    assert write(m, f"{MEMDIR}/auto_online_blocks", "bogus") == \
        "echo: write error: Invalid argument"
    assert write(m, f"{PARAMS}/online_policy", "auto-movable") == ""
    assert cat(m, f"{PARAMS}/online_policy") == "auto-movable\n"
    assert write(m, f"{PARAMS}/online_policy", "contig") == "echo: write error: Invalid argument"
    assert write(m, f"{PARAMS}/online_policy", "contig-zones") == ""
    assert write(m, f"{PARAMS}/auto_movable_ratio", "abc") == "echo: write error: Invalid argument"
    assert write(m, f"{PARAMS}/auto_movable_ratio", "500") == ""
    assert cat(m, f"{PARAMS}/auto_movable_ratio") == "500\n"
    assert write(m, f"{PARAMS}/auto_movable_ratio", "301") == ""
    for v, shown in [("0", "N"), ("y", "Y"), ("n", "N"), ("1", "Y")]:
        assert write(m, f"{PARAMS}/auto_movable_numa_aware", v) == ""
        assert cat(m, f"{PARAMS}/auto_movable_numa_aware") == shown + "\n"
    assert write(m, f"{PARAMS}/auto_movable_numa_aware", "x") == \
        "echo: write error: Invalid argument"
    assert write(m, f"{INJECT}/MEM_GOING_ONLINE/error", "-12") == ""
    assert cat(m, f"{INJECT}/MEM_GOING_ONLINE/error") == "-12\n"
    assert write(m, f"{INJECT}/MEM_GOING_ONLINE/error", "0") == ""
    assert write(m, f"{MEMDIR}/memory8/state", "online") == "echo: write error: Invalid argument"
    assert write(m, f"{MEMDIR}/memory8/state", "onlined") == "echo: write error: Invalid argument"
    assert write(m, f"{MEMDIR}/memory8/online", "1") == ""    # already online: fine
    assert write(m, f"{MEMDIR}/memory8/phys_index", "1") == \
        f"{MEMDIR}/memory8/phys_index: Permission denied"

    # lsmem: util-linux's default table and summary, byte for byte
    assert sh(m, "lsmem") == (
        "RANGE                                 SIZE  STATE REMOVABLE BLOCK\n"
        "0x0000000000000000-0x000000007fffffff   2G online       yes  0-15\n"
        "\n"
        "Memory block size:       128M\n"
        "Total online memory:       2G\n"
        "Total offline memory:      0B\n")
    assert sh(m, "lsmem -b").endswith(
        "Memory block size:            134217728\n"
        "Total online memory:         2147483648\n"
        "Total offline memory:                 0\n")


# -- hot add -----------------------------------------------------------------

def test_hot_add_1g_and_2g(boot):
    m = boot_hotplug(boot)
    set_auto_online(m, "online")
    base = meminfo(m)["MemTotal"]
    for dimm, size, before in [("d1", GiB, base), ("d2", 2 * GiB, base + GiB // 1024)]:
        t_ost = plug(m, dimm, size)
        t0 = time.monotonic()
        total = meminfo(m)["MemTotal"]
        t_seen = t_ost + (time.monotonic() - t0)
        print(f"{dimm} ({size >> 20} MiB): _OST after {t_ost:.3f} s, MemTotal read "
              f"after {t_seen:.3f} s")
        assert total == before + size // 1024, (total, before)
        assert t_ost < HOTPLUG_DELAY_MAX, f"hot-add took {t_ost:.2f} s"
        dev = memory_devices(m)[dimm]
        assert dev["size"] == size and dev["hotplugged"]
        for b in dimm_blocks(dev["addr"], size):
            assert block_attr(m, b, "state") == "online", b
    devs = memory_devices(m)
    assert devs["d1"]["addr"] == 4 * GiB and devs["d2"]["addr"] == 5 * GiB, devs
    out = sh(m, "lsmem")
    assert out.splitlines()[:3] == [
        "RANGE                                 SIZE  STATE REMOVABLE BLOCK",
        "0x0000000000000000-0x000000007fffffff   2G online       yes  0-15",
        "0x0000000100000000-0x00000001bfffffff   3G online       yes 32-55"], out
    assert "Total online memory:       5G\n" in out, out
    hp = sh(m, "hotplug")
    assert re.search(r"^0\s+added\s+\[0x100000000-0x13fffffff\]", hp, re.M), hp
    assert re.search(r"^1\s+added\s+\[0x140000000-0x1bfffffff\]", hp, re.M), hp


def test_hot_add_with_memmap_on_memory(boot):
    """memmap_on_memory: each block's 2 MiB of struct pages is carved from
    the block itself, so those pages are present but never managed."""
    m = boot_hotplug(boot, cmdline="memory_hotplug.memmap_on_memory=1")
    set_auto_online(m, "online")
    # a boot parameter only, as in Linux (0444): the write is refused
    assert cat(m, f"{PARAMS}/memmap_on_memory") == "Y\n"
    assert write(m, f"{PARAMS}/memmap_on_memory", "N") == \
        f"{PARAMS}/memmap_on_memory: Permission denied"
    assert cat(m, f"{PARAMS}/memmap_on_memory") == "Y\n"
    before = meminfo(m)
    plug(m, "d1", GiB)
    after = meminfo(m)
    memmap_kb = (GiB // BLOCK) * (PAGES_PER_BLOCK * 64) // 1024
    assert after["MemTotal"] == before["MemTotal"] + GiB // 1024 - memmap_kb, (before, after)
    # and the memmap did not come out of the old memory
    assert after["MemFree"] >= before["MemFree"] + GiB // 1024 - memmap_kb - 1024
    unplug(m, "d1")
    assert meminfo(m)["MemTotal"] == before["MemTotal"]


def iomem_line(start, end, name, depth=0):
    """One /proc/iomem line as Linux's r_show() prints it."""
    return f"{'  ' * depth}{start:08x}-{end:08x} : {name}"


def test_iomem_and_firmware_node_follow_the_dimm(boot):
    """Linux's add_memory() registers the DIMM's range as a top-level
    "System RAM" resource whether its blocks are online or not, and
    remove_memory() releases it; each block's firmware_node links to the
    DIMM's ACPI device (PNP0C80 under QEMU's PNP0A06 container)."""
    m = boot_hotplug(boot)
    set_auto_online(m, "offline")
    before = cat(m, "/proc/iomem")
    plug(m, "d1", GiB)
    dev = memory_devices(m)["d1"]
    start, end = dev["addr"], dev["addr"] + dev["size"] - 1
    iomem = cat(m, "/proc/iomem").splitlines()
    assert iomem_line(start, end, "System RAM") in iomem, iomem
    first = start // BLOCK
    assert cat(m, f"{MEMDIR}/memory{first}/state") == "offline\n"
    acpi = "../../../LNXSYSTM:00/LNXSYBUS:00/PNP0A06:00/PNP0C80:00"
    assert sh(m, f"ls -l {MEMDIR}/memory{first}/firmware_node") == \
        f"lrwxrwxrwx 0 {MEMDIR}/memory{first}/firmware_node -> {acpi}\n"
    assert cat(m, f"{MEMDIR}/memory{first}/firmware_node/hid") == "PNP0C80\n"
    assert cat(m, f"{MEMDIR}/memory{first}/firmware_node/path") == "\\_SB_.MHPC.MP00\n"
    assert "firmware_node" not in sh(m, f"ls {MEMDIR}/memory8")     # boot memory: none
    unplug(m, "d1")
    assert cat(m, "/proc/iomem") == before
    assert "PNP0C80" not in sh(m, "ls /sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A06:00")


def test_odd_dimms_say_what_they_use(boot):
    """Memory is added in whole 128 MiB blocks at 128 MiB boundaries.  A
    738 MiB DIMM gives its first five blocks; a DIMM that QEMU then places
    off a boundary gives the whole blocks inside it.  The console and
    `hotplug` name what is used and what is left out, and so does the
    information (Arg2) of the _OST that reports the add; MemTotal and
    /proc/iomem show exactly the used part.  A DIMM with no whole block is
    refused with _OST status 0x82 (insertion not supported) and the reason;
    all three eject."""
    def expect(addr, size):
        lo = (addr + BLOCK - 1) // BLOCK * BLOCK
        hi = (addr + size) // BLOCK * BLOCK
        return lo, hi

    m = boot_hotplug(boot)
    set_auto_online(m, "online_movable")
    base = meminfo(m)["MemTotal"]
    used = 0
    for dimm, size in (("d1", 738 * MiB), ("d2", GiB)):
        plug(m, dimm, size)
        addr = memory_devices(m)[dimm]["addr"]
        lo, hi = expect(addr, size)
        assert lo != addr or hi != addr + size, f"{dimm} at {addr:#x} is not odd"
        used += hi - lo
        log = m.tail(40)
        assert f"using [mem {lo:#x}-{hi - 1:#x}] ({(hi - lo) >> 20} MiB, {(hi - lo) // BLOCK} blocks); left out: " in log, log
        assert "not whole 128 MiB memory blocks at 128 MiB boundaries" in log, log
        if hi < addr + size:
            assert f"[{hi:#x}-{addr + size - 1:#x}] ({(addr + size - hi) >> 20} MiB)" in log, log
        if lo > addr:
            assert f"[{addr:#x}-{lo - 1:#x}] ({(lo - addr) >> 20} MiB)" in log, log
        out = sh(m, "hotplug")
        assert f"used: [{lo:#x}-{hi - 1:#x}] ({(hi - lo) // BLOCK} blocks); left out: " in out, out
        # the _OST's status information (Arg2) says it too
        assert f"_OST information: used [{lo:#x}-{hi - 1:#x}] ({(hi - lo) // BLOCK} blocks); left out: " in out, out
        assert iomem_line(lo, hi - 1, "System RAM") in cat(m, "/proc/iomem").splitlines()
        assert meminfo(m)["MemTotal"] == base + used // 1024
    assert used == 640 * MiB + 7 * BLOCK or used == 640 * MiB + 8 * BLOCK, used

    plug(m, "d3", 100 * MiB, wait=False)
    ost = wait_ost(m, "d3", OST_DEVICE_CHECK, timeout=60 * SCALE)
    assert ost["status"] == 0x82, ost
    settle(m)
    out = sh(m, "hotplug")
    assert "why: no whole 128 MiB memory block in [" in out, out
    assert "_OST information: no whole 128 MiB memory block in [" in out, out
    assert meminfo(m)["MemTotal"] == base + used // 1024
    for dimm in ("d3", "d2", "d1"):
        unplug(m, dimm, timeout=60 * SCALE)
    assert memory_devices(m) == {}
    assert meminfo(m)["MemTotal"] == base


def test_coldplugged_dimm_found_at_boot(boot):
    m = boot_hotplug(boot, extra=["-object", "memory-backend-ram,id=mem-c0,size=1G",
                                  "-device", "pc-dimm,id=c0,memdev=mem-c0"])
    assert "acpi-memhp: slot 0: DIMM [mem 0x100000000-0x13fffffff]" in m.boot_log, \
        m.boot_log[-2000:]
    dev = memory_devices(m)["c0"]
    assert dev["addr"] == 4 * GiB and not dev["hotplugged"]
    blocks = dimm_blocks(dev["addr"], dev["size"])
    assert set(blocks) <= set(block_ids(m))
    default = block_or_file(m, f"{MEMDIR}/auto_online_blocks")
    states = {block_attr(m, b, "state") for b in blocks}
    assert states == {"offline" if default == "offline" else "online"}, (default, states)
    assert re.search(r"^0\s+added\s", sh(m, "hotplug"), re.M)
    if default == "offline":
        before = meminfo(m)["MemTotal"]
        out = sh(m, f"memory online {blocks[0]}-{blocks[-1]}")
        assert "8 blocks onlined" in out, out
        assert meminfo(m)["MemTotal"] == before + GiB // 1024
    # it can be unplugged like a hot-plugged one
    unplug(m, "c0")
    assert not set(blocks) & set(block_ids(m))


def test_numa_dimm_lands_in_node1(boot):
    m = boot_hotplug(boot, extra=NUMA2)
    set_auto_online(m, "online")
    n0, n1 = node_memtotal_kb(m, 0), node_memtotal_kb(m, 1)
    plug(m, "d1", GiB, node=1)
    dev = memory_devices(m)["d1"]
    assert dev["node"] == 1
    for b in dimm_blocks(dev["addr"], GiB):
        # the block's nodeM symlink names node 1, and node1 links back
        assert sh(m, f"ls -l {MEMDIR}/memory{b}/node1").endswith(
            "node1 -> ../../node/node1\n")
        assert block_attr(m, b, "node1/distance") == "20 10"
        assert cat(m, f"/sys/devices/system/node/node1/memory{b}/phys_index").strip() == \
            "%08x" % b
    assert node_memtotal_kb(m, 1) == n1 + GiB // 1024
    assert node_memtotal_kb(m, 0) == n0
    zones = zoneinfo(m)
    assert zones[(1, "Normal")]["present"] == GiB // PAGE, zones[(1, "Normal")]


# -- hot remove ----------------------------------------------------------------

@pytest.mark.parametrize("online_type", ["online", "online_movable"])
def test_device_del_idle_dimm(boot, online_type):
    """An idle DIMM goes away whichever zone it was onlined to: with
    "online" (contig-zones: ZONE_NORMAL, where the memmap of its later
    blocks may have been allocated from its earlier blocks) and with
    "online_movable"."""
    m = boot_hotplug(boot)
    set_auto_online(m, online_type)
    base = meminfo(m)
    ids = block_ids(m)
    plug(m, "d1", GiB)
    assert meminfo(m)["MemTotal"] == base["MemTotal"] + GiB // 1024
    t = unplug(m, "d1")
    print(f"device_del -> DEVICE_DELETED: {t:.3f} s")
    assert meminfo(m)["MemTotal"] == base["MemTotal"]
    assert block_ids(m) == ids
    assert memory_devices(m) == {}
    assert sh(m, "lsmem").splitlines()[1:3] == [
        "0x0000000000000000-0x000000007fffffff   2G online       yes  0-15", ""]


def test_device_del_migrates_movable_allocations(boot):
    m = boot_hotplug(boot)
    set_auto_online(m, "offline")
    plug(m, "d1", GiB)
    b = dimm_blocks(4 * GiB, GiB)
    out = sh(m, f"memory online {b[0]}-{b[-1]} online_movable")
    assert "8 blocks onlined" in out, out
    # movable allocations try ZONE_MOVABLE first: they land in the DIMM
    out = sh(m, "alloc 10 24 movable quiet")
    assert "24 blocks of order 10" in out, out
    hs = handles(m)
    in_dimm = [h for h in hs if h[1] >= 4 * GiB // PAGE]
    assert len(in_dimm) == 24 and all(h[3] == "Movable" for h in in_dimm), hs
    for h, _, _, _ in hs:
        assert "filled" in sh(m, f"fill {h} pat{h}")
    unplug(m, "d1", timeout=60 * SCALE)
    out = sh(m, "check all")
    assert out.startswith("ok: 24 handles checked"), out
    assert all(pfn < 4 * GiB // PAGE for _, pfn, _, _ in handles(m))
    assert memory_devices(m) == {}
    assert not set(b) & set(block_ids(m))
    sh(m, "free all")


def test_device_del_refused_with_unmovable_allocation(boot):
    m = boot_hotplug(boot)
    set_auto_online(m, "offline")
    plug(m, "d1", GiB)
    b = dimm_blocks(4 * GiB, GiB)
    assert "8 blocks onlined" in sh(m, f"memory online {b[0]}-{b[-1]} online_kernel")
    sh(m, "meminit finish")     # MemTotal counts the blocks once their memmap is written
    total = meminfo(m)["MemTotal"]
    # ZONE_NORMAL is the DIMM only (2 GiB guest): kernel allocations go there
    out = sh(m, "alloc 0 1 unmovable")
    mh = re.search(r"handle (\d+): pfn 0x([0-9a-f]+) .* zone Normal unmovable", out)
    assert mh and int(mh.group(2), 16) >= 4 * GiB // PAGE, out
    handle = int(mh.group(1))

    m.qmp().cmd("device_del", id="d1")
    info = wait_ost(m, "d1", OST_EJECT_REQUEST, timeout=60 * SCALE)
    assert info["status"] == OST_EJECT_IN_USE, info
    settle(m)
    with pytest.raises(Exception):
        m.qmp().wait_event("DEVICE_DELETED", timeout=1.0)
    st = ospm_status(m, "d1")
    assert st and st["source"] == OST_EJECT_REQUEST and st["status"] == OST_EJECT_IN_USE, st
    assert "d1" in memory_devices(m)
    # memory stays online and usable
    assert all(block_attr(m, x, "state") == "online" for x in b)
    assert meminfo(m)["MemTotal"] == total
    out = sh(m, "alloc 0 1 unmovable")
    assert "zone Normal" in out, out
    hp = sh(m, "hotplug")
    assert re.search(r"^0\s+remove refused\s", hp, re.M), hp
    assert re.search(r"why: .*cannot be offlined: Device or resource busy", hp), hp

    sh(m, "free all")
    t = unplug(m, "d1", timeout=60 * SCALE)
    print(f"second device_del after free: DEVICE_DELETED in {t:.3f} s (handle {handle} freed)")
    assert memory_devices(m) == {}
    assert meminfo(m)["MemTotal"] == total - GiB // 1024


# -- the mem-on-off-test sequence --------------------------------------------

def test_mem_on_off_sequence(boot):
    """The logic of Linux's tools/testing/selftests/memory-hotplug/
    mem-on-off-test.sh, through the same sysfs files: hot-pluggable blocks
    are those whose removable is 1; online all offline ones; offline
    ratio% of the online ones (some may be busy, enough must succeed);
    online all again; then with MEM_GOING_ONLINE = -12 every online must
    fail and leave the block offline, and with MEM_GOING_OFFLINE = -12
    every offline must fail and leave it online."""
    m = boot_hotplug(boot)
    set_auto_online(m, "offline")
    plug(m, "d1", GiB)
    dimm = dimm_blocks(4 * GiB, GiB)
    rng = random.Random(4)
    ratio = 2

    def hotpluggable(state):
        return [b for b in block_ids(m)
                if block_attr(m, b, "removable") == "1" and
                state in block_attr(m, b, "state")]

    def online_expect_success(b):
        assert write(m, f"{MEMDIR}/memory{b}/state", "online") == "", b
        assert block_attr(m, b, "state") == "online", b

    # online all hot-pluggable memory in offline state
    offline = hotpluggable("offline")
    assert offline == dimm, offline
    for b in offline:
        online_expect_success(b)
    # offline ratio% of the online ones: target rounded up
    online = hotpluggable("online")
    target = -(-len(online) * ratio // 100)
    for b in online:
        if target <= 0:
            break
        if write(m, f"{MEMDIR}/memory{b}/state", "offline") == "":
            assert block_attr(m, b, "state") == "offline"
            target -= 1
    assert target == 0, "unable to offline some memory blocks, device busy?"
    # online all again
    for b in hotpluggable("offline"):
        online_expect_success(b)

    # error injection at MEM_GOING_ONLINE
    for b in dimm:
        assert write(m, f"{MEMDIR}/memory{b}/state", "offline") == ""
    assert write(m, f"{INJECT}/MEM_GOING_ONLINE/error", "-12") == ""
    for b in hotpluggable("offline"):
        assert write(m, f"{MEMDIR}/memory{b}/state", "online") == \
            "echo: write error: Cannot allocate memory", b
        assert block_attr(m, b, "state") == "offline", b
    assert write(m, f"{INJECT}/MEM_GOING_ONLINE/error", "0") == ""
    for b in hotpluggable("offline"):
        online_expect_success(b)

    # error injection at MEM_GOING_OFFLINE: every offline fails
    total = meminfo(m)["MemTotal"]
    assert write(m, f"{INJECT}/MEM_GOING_OFFLINE/error", "-12") == ""
    picked = dimm + [b for b in hotpluggable("online") if b not in dimm and
                     rng.randrange(100) < 25]
    for b in picked:
        err = write(m, f"{MEMDIR}/memory{b}/state", "offline")
        assert err.startswith("echo: write error: "), (b, err)
        assert block_attr(m, b, "state") == "online", b
    assert write(m, f"{INJECT}/MEM_GOING_OFFLINE/error", "0") == ""
    assert meminfo(m)["MemTotal"] == total


# -- endurance and size --------------------------------------------------------

def test_repeated_add_remove_same_slot(boot):
    """20 plug/unplug cycles of a 256 MiB DIMM in slot 0, onlined movable
    (as a Linux guest with memhp_default_state=online_movable does): every
    cycle ends with exactly the free and total counts of the start."""
    m = boot_hotplug(boot)
    set_auto_online(m, "online_movable")
    sh(m, "drain")
    base = meminfo(m)
    base_zones = zoneinfo(m)
    ids = block_ids(m)
    t0 = time.monotonic()
    for i in range(20):
        plug(m, "d1", 256 * MiB)
        dev = memory_devices(m)["d1"]
        assert dev["slot"] == 0 and dev["addr"] == 4 * GiB
        assert meminfo(m)["MemTotal"] == base["MemTotal"] + 256 * MiB // 1024
        unplug(m, "d1")
        sh(m, "drain")
        now = meminfo(m)
        assert (now["MemTotal"], now["MemFree"]) == (base["MemTotal"], base["MemFree"]), \
            f"cycle {i + 1}: MemTotal {now['MemTotal']} MemFree {now['MemFree']} " \
            f"(base {base['MemTotal']} / {base['MemFree']})"
    print(f"20 cycles in {time.monotonic() - t0:.1f} s")
    assert block_ids(m) == ids
    z = zoneinfo(m)
    for key, v in base_zones.items():
        assert z[key]["present"] == v["present"] and z[key]["managed"] == v["managed"], key


@pytest.mark.slow
def test_128g_dimm_into_2g_guest(boot):
    """A DIMM 64 times the guest's memory: its 2 GiB of memmap cannot come
    from the boot memory, so blocks are added and onlined one at a time and
    later blocks take their memmap from earlier ones.  The memmap comes
    from the allocator, so MemTotal grows by exactly 128 GiB."""
    m = boot_hotplug(boot, mem="2G,slots=8,maxmem=160G")
    set_auto_online(m, "online")
    base = meminfo(m)["MemTotal"]
    t = plug(m, "big", 128 * GiB, timeout=600)
    print(f"128 GiB DIMM: added and online in {t:.1f} s")
    # online at once, the memmap written after (deferred_init_hotplug=1):
    # MemTotal is final once nothing is pending
    m.run("meminit finish", timeout=600 * SCALE)
    total = meminfo(m)["MemTotal"]
    assert total == base + 128 * GiB // 1024, (total, base)
    assert memory_devices(m)["big"]["size"] == 128 * GiB
    assert "Total online memory:     130G\n" in sh(m, "lsmem")
    t = unplug(m, "big", timeout=600 * SCALE)
    print(f"128 GiB DIMM: removed in {t:.1f} s")
    assert meminfo(m)["MemTotal"] == base
    assert memory_devices(m) == {}

"""Memory hotplug scenarios: QEMU's ACPI DIMM device, driven
by real QMP commands, checked through memlab's Linux-format views.

Every test boots its own machine (hotplug changes it for good) and talks
to QEMU the way a person would with tools/qmp.py:

    object-add  memory-backend-ram id=m1 size=1G
    device_add  pc-dimm id=d1 memdev=m1 [node=1]
    device_del  d1                   -> DEVICE_DELETED once memlab ejected it
    query-memory-devices, query-acpi-ospm-status

and reads the guest side through the serial shell: /proc/meminfo,
/sys/devices/system/memory/memoryN/{state,valid_zones,...}, /proc/zoneinfo,
`lsmem`, `hotplug`, and the allocation handles (`alloc`, `fill`, `check`).

The DIMM's _OST reports (QMP event ACPI_DEVICE_OST) tell when memlab has
finished with an event: source 1 status 0 after a Device Check (the memory
is added, and onlined if auto_online_blocks says so); source 3 status 0x81
when an Eject Request is refused because the memory cannot be offlined.

Sizes: the guest has 2 GiB below 4 GiB (q35 puts all of it low), so the
device-memory window, and the first DIMM, starts at 4 GiB (block 32).
"""

import random
import re
import time

import pytest

from memlab import SCALE

MiB = 1 << 20
GiB = 1 << 30
BLOCK = 128 * MiB
PAGE = 4096
PAGES_PER_BLOCK = BLOCK // PAGE
MEMDIR = "/sys/devices/system/memory"
PARAMS = "/sys/module/memory_hotplug/parameters"
INJECT = "/sys/kernel/debug/notifier-error-inject/memory/actions"
OST_DEVICE_CHECK, OST_EJECT_REQUEST = 0x1, 0x3
OST_SUCCESS, OST_EJECT_IN_USE = 0x0, 0x81
NUMA2 = ["-object", "memory-backend-ram,id=nm0,size=1G",
         "-object", "memory-backend-ram,id=nm1,size=1G",
         "-numa", "node,nodeid=0,memdev=nm0",
         "-numa", "node,nodeid=1,memdev=nm1"]
NUMA8 = [a for n in range(8) for a in (
    "-object", f"memory-backend-ram,id=nm{n},size=256M",
    "-numa", f"node,nodeid={n},memdev=nm{n}")]
MECH = "/sys/kernel/mm/memlab"
HOTPLUG_DELAY_MAX = 5.0 * SCALE     # device_add -> memory online, under TCG
UNPLUG_DELAY_MAX = 20.0 * SCALE     # device_del -> DEVICE_DELETED, idle DIMM


# -- the guest side --------------------------------------------------------

LOG_LINE = re.compile(r"^\[\s*\d+\.\d+\] .*\n?", re.M)


def sh(m, cmd, timeout=None):
    """Run a shell command; its output without the kernel log lines that
    the command (or hotplug work) printed meanwhile."""
    out = m.run(cmd) if timeout is None else m.run(cmd, timeout=timeout)
    return LOG_LINE.sub("", out)


def settle(m):
    """Let log lines that hotplug work printed go by, so the next command's
    output is only its own."""
    m.quiesce(0.3)


def cat(m, path):
    out = sh(m, f"cat {path}")
    assert "No such file" not in out and "cat: " not in out, out
    return out


def write(m, path, value):
    """echo value > path; returns the error text ("" on success)."""
    return sh(m, f"echo {value} > {path}").strip()


def meminfo(m):
    out = {}
    for name, kb in re.findall(r"^(\w+):\s+(\d+) kB$", cat(m, "/proc/meminfo"), re.M):
        out[name] = int(kb)
    assert "MemTotal" in out and "MemFree" in out, out
    return out


def node_memtotal_kb(m, nid):
    text = cat(m, f"/sys/devices/system/node/node{nid}/meminfo")
    mt = re.search(rf"^Node {nid} MemTotal:\s+(\d+) kB$", text, re.M)
    assert mt, text
    return int(mt.group(1))


def zoneinfo(m):
    """{(nid, zone): {"spanned", "present", "managed", "free"}}."""
    text = cat(m, "/proc/zoneinfo")
    out = {}
    for sect in re.split(r"(?m)^(?=Node \d+, zone)", text):
        h = re.match(r"Node (\d+), zone\s+(\w+)", sect)
        if not h:
            continue
        z = {"free": int(re.search(r"pages free\s+(\d+)", sect).group(1))}
        for f in ("spanned", "present", "managed"):
            z[f] = int(re.search(rf"^\s+{f}\s+(\d+)$", sect, re.M).group(1))
        out[(int(h.group(1)), h.group(2))] = z
    return out


def block_ids(m):
    """The memory blocks that exist, from `ls /sys/devices/system/memory`."""
    names = sh(m, f"ls {MEMDIR}").split()
    return sorted(int(n[6:].rstrip("/")) for n in names
                  if re.fullmatch(r"memory\d+/?", n))


def block_attr(m, block, attr):
    return cat(m, f"{MEMDIR}/memory{block}/{attr}").strip()


def dimm_blocks(addr, size):
    assert addr % BLOCK == 0 and size % BLOCK == 0, (hex(addr), size)
    return list(range(addr // BLOCK, (addr + size) // BLOCK))


def set_auto_online(m, value):
    assert write(m, f"{MEMDIR}/auto_online_blocks", value) == ""
    assert block_or_file(m, f"{MEMDIR}/auto_online_blocks") == value


def block_or_file(m, path):
    return cat(m, path).strip()


def handles(m):
    """[(handle, pfn, order, zone)] from `handles`."""
    out = []
    for h, pfn, order, zone in re.findall(
            r"^\s*(\d+) 0x([0-9a-f]+)\s+(\d+)\s+\d+\s+\d+ (\S+)", sh(m, "handles"), re.M):
        out.append((int(h), int(pfn, 16), int(order), zone))
    return out


# -- the QEMU side -----------------------------------------------------------

def plug(m, dimm, size, node=None, wait=True, timeout=60.0):
    """object-add + device_add; with wait, wait for the Device Check _OST
    and return the seconds from device_add to it."""
    q = m.qmp()
    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": f"mem-{dimm}",
                           "size": size, "reserve": False})
    args = {"driver": "pc-dimm", "id": dimm, "memdev": f"mem-{dimm}"}
    if node is not None:
        args["node"] = node
    t0 = time.monotonic()
    q.cmd("device_add", args)
    if not wait:
        return None
    ost = wait_ost(m, dimm, OST_DEVICE_CHECK, timeout=timeout * SCALE)
    elapsed = time.monotonic() - t0
    assert ost["status"] == OST_SUCCESS, f"memlab refused {dimm}: {ost}\n{sh(m, 'hotplug')}"
    settle(m)
    return elapsed


def wait_ost(m, dimm, source, timeout=30.0):
    """The next ACPI_DEVICE_OST of dimm with that source event; its info."""
    q = m.qmp()
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no _OST source {source:#x} for {dimm} within {timeout:g} s"
        ev = q.wait_event("ACPI_DEVICE_OST", timeout=left)
        info = ev["data"]["info"]
        if info.get("device") == dimm and info["source"] == source and \
                (source != OST_EJECT_REQUEST or info["status"] != 0x84):
            return info


def unplug(m, dimm, timeout=UNPLUG_DELAY_MAX):
    """device_del, DEVICE_DELETED, object-del; seconds to DEVICE_DELETED.
    Fails at once, with memlab's reason, if memlab refuses the eject."""
    q = m.qmp()
    t0 = time.monotonic()
    q.cmd("device_del", id=dimm)
    while True:
        left = t0 + timeout - time.monotonic()
        assert left > 0, f"no DEVICE_DELETED for {dimm} within {timeout:g} s"
        ev = q.wait_event(None, timeout=left)
        if ev["event"] == "DEVICE_DELETED" and ev["data"].get("device") == dimm:
            break
        info = ev["data"].get("info", {}) if ev["event"] == "ACPI_DEVICE_OST" else {}
        if info.get("device") == dimm and info.get("source") == OST_EJECT_REQUEST and \
                info.get("status") not in (OST_SUCCESS, 0x84):
            settle(m)
            pytest.fail(f"memlab refused to eject {dimm}: _OST status {info['status']:#x}\n"
                        f"{sh(m, 'hotplug')}", pytrace=False)
    elapsed = time.monotonic() - t0
    q.cmd("object-del", id=f"mem-{dimm}")
    settle(m)
    return elapsed


def memory_devices(m):
    return {d["data"]["id"]: d["data"] for d in m.qmp().cmd("query-memory-devices")
            if d["type"] == "dimm"}


def ospm_status(m, dimm):
    for s in m.qmp().cmd("query-acpi-ospm-status"):
        if s.get("device") == dimm:
            return s
    return None


def boot_hotplug(boot, mem="2G", extra=(), cmdline=""):
    m = boot(cmdline=cmdline, mem=mem if "," in mem else f"{mem},slots=8,maxmem=64G",
             extra=extra)
    m.qmp()                     # connect now: events are kept from here on
    settle(m)
    return m


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
    `hotplug` name what is used and what is left out; MemTotal and
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
        assert iomem_line(lo, hi - 1, "System RAM") in cat(m, "/proc/iomem").splitlines()
        assert meminfo(m)["MemTotal"] == base + used // 1024
    assert used == 640 * MiB + 7 * BLOCK or used == 640 * MiB + 8 * BLOCK, used

    plug(m, "d3", 100 * MiB, wait=False)
    ost = wait_ost(m, "d3", OST_DEVICE_CHECK, timeout=60 * SCALE)
    assert ost["status"] == 0x82, ost
    settle(m)
    out = sh(m, "hotplug")
    assert "why: no whole 128 MiB memory block in [" in out, out
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
        # the median lies in its range, and the spread is half of it
        assert int(lo) <= med <= int(hi), out
        assert abs(float(spread) - (int(hi) - int(lo)) * 50 / med) <= 0.1 + 100 / med, out
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
    total = meminfo(m)["MemTotal"]
    assert total == base + 128 * GiB // 1024, (total, base)
    assert memory_devices(m)["big"]["size"] == 128 * GiB
    assert "Total online memory:     130G\n" in sh(m, "lsmem")
    t = unplug(m, "big", timeout=600 * SCALE)
    print(f"128 GiB DIMM: removed in {t:.1f} s")
    assert meminfo(m)["MemTotal"] == base
    assert memory_devices(m) == {}


def pagetables(m):
    """(pool pages in use, pages from the page allocator, tables freed,
    PDPT pages made after boot) from `pagetables`."""
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

"""deferred_init_hotplug=1 (the default): DIMM and virtio-mem blocks online
before their memmap is written (docs/deferred-init.md, "Hot-added memory").  MemTotal and
MemFree grow at the online, as with the eager online (the free pages of
a pending section wait in its zone's nr_free_pending, not in the buddy).
With the background work held, the pending sections stay until an
allocation grows the zone or `meminit finish`; with it on, they go by
themselves.  Then device_del gives every counter back."""

import re
import time

from memlab import SCALE
from hotplug import GiB, sh, settle, meminfo, set_auto_online, plug, unplug, memory_devices

MiB = 1 << 20


def boot_lazy(boot, cmdline):
    m = boot(cmdline=cmdline, mem="2G,slots=8,maxmem=64G", settle=True)
    m.qmp()
    settle(m)
    return m


def pending_sections(m):
    out = sh(m, "meminit")
    hot = re.search(r"hot-added: deferred_init_hotplug=1: (\d+) sections onlined with their "
                    r"memmap pending, (\d+) pending now", out)
    assert hot, out
    return int(hot.group(1)), int(hot.group(2))


def pending_free_kb(m):
    """The free pages of pending hot-added sections (`meminit`), in kB."""
    out = sh(m, "meminit")
    f = re.search(r"pending now \((\d+) pages free, counted in MemTotal and MemFree\)", out)
    return int(f.group(1)) * 4 if f else 0


def test_dimm_online_at_once_memmap_on_demand_then_eject(boot):
    m = boot_lazy(boot, "deferred_init_hotplug=1 deferred_init_background=0")
    sh(m, "meminit finish")             # boot memory waits too: done first
    set_auto_online(m, "online_movable")
    base = meminfo(m)
    plug(m, "d1", 4 * GiB)
    assert sh(m, "lsmem").count("online") >= 2
    assert pending_sections(m) == (32, 32)
    # present, MemTotal and MemFree at once: all of it pending, counted free
    plugged = meminfo(m)
    assert plugged["MemTotal"] == base["MemTotal"] + 4 * GiB // 1024
    assert pending_free_kb(m) == 4 * GiB // 1024
    assert plugged["MemFree"] >= base["MemFree"] + 4 * GiB // 1024 - 64 * MiB // 1024
    out = sh(m, "alloc 10 1024 movable quiet")      # 4 GiB: more than boot memory
    assert "1024 blocks of order 10" in out, out
    done, left = pending_sections(m)
    assert done == 32 and left < 32, (done, left)
    sh(m, "free all")
    sh(m, "drain")
    out = sh(m, "meminit finish")
    assert pending_sections(m) == (32, 0)
    assert pending_free_kb(m) == 0
    # the same counters once the memmap is written: nothing counted twice
    assert meminfo(m)["MemTotal"] == plugged["MemTotal"]
    assert meminfo(m)["MemFree"] == plugged["MemFree"]
    unplug(m, "d1", timeout=120 * SCALE)
    after = meminfo(m)
    assert after["MemTotal"] == base["MemTotal"]
    assert after["MemFree"] == base["MemFree"]
    assert memory_devices(m) == {}


def test_dimm_memmap_in_background_then_eject_pending(boot):
    m = boot_lazy(boot, "deferred_init_hotplug=1")
    set_auto_online(m, "online")
    base = meminfo(m)
    plug(m, "d1", 2 * GiB)
    assert meminfo(m)["MemTotal"] == base["MemTotal"] + 2 * GiB // 1024    # at once
    deadline = time.monotonic() + 60 * SCALE
    while pending_sections(m)[1]:
        assert time.monotonic() < deadline, sh(m, "meminit")
        time.sleep(0.2)
    assert pending_sections(m) == (16, 0)
    assert meminfo(m)["MemTotal"] == base["MemTotal"] + 2 * GiB // 1024
    # a second DIMM, ejected at once, most of it still pending
    plug(m, "d2", 2 * GiB)
    unplug(m, "d2", timeout=120 * SCALE)
    unplug(m, "d1", timeout=120 * SCALE)
    after = meminfo(m)
    assert after["MemTotal"] == base["MemTotal"]
    assert memory_devices(m) == {}


def ap_sections(meminit):
    """Sections initialised by CPUs other than CPU 0, from `meminit`."""
    return sum(int(n) for c, n in re.findall(r"cpu (\d+): (\d+) sections", meminit) if c != "0")


def test_dimm_memmap_on_four_cpus_then_eject(boot):
    """With 4 CPUs the APs' items take hot-added sections too (the claims
    of docs/deferred-init.md, "On several CPUs"); the result is the same."""
    m = boot(cmdline="deferred_init_hotplug=1", mem="2G,slots=8,maxmem=64G",
             extra=["-smp", "4"], settle=True)
    m.qmp()
    settle(m)
    set_auto_online(m, "online_movable")
    base = meminfo(m)
    ap_before = ap_sections(sh(m, "meminit"))   # the boot's share
    plug(m, "d1", 8 * GiB)
    assert meminfo(m)["MemTotal"] == base["MemTotal"] + 8 * GiB // 1024    # at once
    deadline = time.monotonic() + 120 * SCALE
    while pending_sections(m)[1]:
        assert time.monotonic() < deadline, sh(m, "meminit")
        time.sleep(0.2)
    assert pending_sections(m) == (64, 0)
    assert meminfo(m)["MemTotal"] == base["MemTotal"] + 8 * GiB // 1024
    out = sh(m, "meminit")
    assert ap_sections(out) > ap_before, out     # the APs took hot-added sections
    unplug(m, "d1", timeout=120 * SCALE)
    assert meminfo(m)["MemTotal"] == base["MemTotal"]
    assert memory_devices(m) == {}


VMEM_ROUND = r"virtio-mem 01:00\.0: (?:un)?plugged \d+ -> {} MiB \(requested {} MiB\)"


def vmem_resize(m, size, timeout=120 * SCALE):
    """qom-set requested-size and wait for the driver's round line (every
    block of the round online or removed, pending memmaps or not)."""
    start = len(m.output)
    m.qmp().cmd("qom-set", path="vmem1", property="requested-size", value=size)
    rx = re.compile(VMEM_ROUND.format(size >> 20, size >> 20))
    deadline = time.monotonic() + timeout
    while not rx.search(m.output[start:]):
        assert time.monotonic() < deadline, sh(m, "virtio-mem")
        time.sleep(0.2)
    settle(m)


def vmem_plugged(m):
    """The driver's plugged MiB and the device's, from `virtio-mem`."""
    p = re.search(r"plugged:\s+(\d+) MiB \(device: (\d+) MiB\)", sh(m, "virtio-mem"))
    assert p
    return int(p.group(1)), int(p.group(2))


def test_virtio_mem_online_at_once_plug_unplug_while_pending(boot):
    """virtio-mem onlines lazily too: its blocks are online with the
    memmap pending and MemTotal grows at once by the plugged sub-blocks
    (the driver's count op), while the sections are initialised only on
    demand (the memmap of each new block is allocated in ZONE_NORMAL,
    which holds only plugged memory, so the zone grows by a section when
    that allocation finds its buddy empty); a plug into a pending block
    initialises it first (under the old bits), an unplug of pending blocks
    too; the end is exact."""
    m = boot(cmdline="deferred_init_background=0", mem="2G,maxmem=16G", settle=True,
             extra=["-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1",
                    "-object", "memory-backend-ram,id=hotmem0,size=8G,share=on,reserve=off",
                    "-device", "virtio-mem-pci,id=vmem1,memdev=hotmem0,bus=port1,"
                               "requested-size=0"])
    m.qmp()
    sh(m, "meminit finish")             # boot memory waits too: done first
    base = meminfo(m)["MemTotal"]
    block_kb = 128 * MiB // 1024
    # 16 blocks, the last one without its top 2 MiB sub-block: online,
    # most memmaps pending; each initialised one is a full block
    vmem_resize(m, 2 * GiB - 2 * MiB)
    done, left = pending_sections(m)
    assert done == 16 and 14 <= left <= 16, (done, left)
    assert meminfo(m)["MemTotal"] == base + 16 * block_kb - 2 * MiB // 1024
    assert pending_free_kb(m) == left * block_kb - 2 * MiB // 1024
    # the missing sub-block: its pending block is initialised first (63
    # sub-blocks to the buddy), then the sub-block is fake-onlined
    vmem_resize(m, 2 * GiB)
    assert pending_sections(m) == (16, left - 1)
    left -= 1
    assert meminfo(m)["MemTotal"] == base + 16 * block_kb
    assert pending_free_kb(m) == left * block_kb
    # the top 8 blocks unplugged, pending ones initialised first, all removed
    vmem_resize(m, 1 * GiB)
    done, left = pending_sections(m)
    assert done == 16 and left <= 8, (done, left)
    assert meminfo(m)["MemTotal"] == base + 8 * block_kb
    assert pending_free_kb(m) == left * block_kb
    out = sh(m, "meminit finish")
    assert pending_sections(m) == (16, 0), out
    assert meminfo(m)["MemTotal"] == base + 1 * GiB // 1024
    vmem_resize(m, 0)
    assert meminfo(m)["MemTotal"] == base
    assert vmem_plugged(m) == (0, 0)

"""deferred_init_hotplug=1: a DIMM's blocks online before their memmap is
written (docs/deferred-init.md, "Hot-added memory").  With the background
work held, the pending sections stay until an allocation grows the zone
or `meminit finish`; with it on, they go by themselves.  Then device_del
gives every counter back."""

import re
import time

from memlab import SCALE
from hotplug import GiB, sh, settle, meminfo, set_auto_online, plug, unplug, memory_devices


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


def test_dimm_online_at_once_memmap_on_demand_then_eject(boot):
    m = boot_lazy(boot, "deferred_init_hotplug=1 deferred_init_background=0")
    sh(m, "meminit finish")             # boot memory waits too: done first
    set_auto_online(m, "online_movable")
    base = meminfo(m)
    plug(m, "d1", 4 * GiB)
    assert sh(m, "lsmem").count("online") >= 2
    assert pending_sections(m) == (32, 32)
    # present at once, MemTotal when initialised: nothing yet
    assert meminfo(m)["MemTotal"] == base["MemTotal"]
    out = sh(m, "alloc 10 1024 movable quiet")      # 4 GiB: more than boot memory
    assert "1024 blocks of order 10" in out, out
    done, left = pending_sections(m)
    assert done == 32 and left < 32, (done, left)
    sh(m, "free all")
    out = sh(m, "meminit finish")
    assert pending_sections(m) == (32, 0)
    assert meminfo(m)["MemTotal"] == base["MemTotal"] + 4 * GiB // 1024
    unplug(m, "d1", timeout=120 * SCALE)
    after = meminfo(m)
    assert after["MemTotal"] == base["MemTotal"]
    assert memory_devices(m) == {}


def test_dimm_memmap_in_background_then_eject_pending(boot):
    m = boot_lazy(boot, "deferred_init_hotplug=1")
    set_auto_online(m, "online")
    base = meminfo(m)
    plug(m, "d1", 2 * GiB)
    deadline = time.monotonic() + 60 * SCALE
    while meminfo(m)["MemTotal"] != base["MemTotal"] + 2 * GiB // 1024:
        assert time.monotonic() < deadline, sh(m, "meminit")
        time.sleep(0.2)
    assert pending_sections(m) == (16, 0)
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
    deadline = time.monotonic() + 120 * SCALE
    while meminfo(m)["MemTotal"] != base["MemTotal"] + 8 * GiB // 1024:
        assert time.monotonic() < deadline, sh(m, "meminit")
        time.sleep(0.2)
    assert pending_sections(m) == (64, 0)
    out = sh(m, "meminit")
    assert ap_sections(out) > ap_before, out     # the APs took hot-added sections
    unplug(m, "d1", timeout=120 * SCALE)
    assert meminfo(m)["MemTotal"] == base["MemTotal"]
    assert memory_devices(m) == {}

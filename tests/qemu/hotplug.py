"""Helpers of the memory hotplug scenarios (test_hotplug.py,
test_online_policy.py, test_hotplug_memmap.py): QEMU's ACPI DIMM device,
driven by real QMP commands, checked through memlab's Linux-format views.

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

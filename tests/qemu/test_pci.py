"""PCI scenarios: ECAM enumeration of q35 with pcie-root-ports, and devices
hot-added at run time through QMP device_add, which QEMU 7.2 delivers as
ACPI PCI hotplug (GPE0 bit 1; memlab runs the DSDT's _GPE._E01 and the
slots' _EJ0 in its AML interpreter).

The guest side is read through `lspci` (one line per function):

    00:01.0 0604: 1b36:000c (pcie-root-port) bus 01-01 mem fe400000-fe5fffff pref fea00000-febfffff bar0 mem32 fe600000+1000
    01:00.0 00ff: 1af4:1058 (virtio-mem) bar4 mem64p fea00000+4000 hotplugged

and checked against QEMU's own view (HMP `info pci`), so an address the
guest claims to have programmed is one the device really decodes.

Whether a virtio-mem driver binds the device does not matter here; only
enumeration, BAR assignment and the console messages are checked.
"""

import re

import pytest

from memlab import SCALE

PORTS = ["-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1",
         "-device", "pcie-root-port,id=port2,bus=pcie.0,slot=2"]
MEM = "2G,slots=4,maxmem=16G"
HOTPLUG_TIMEOUT = 10.0 * SCALE      # device_add -> "found" on the console
LOG_LINE = re.compile(r"^\[\s*\d+\.\d+\] .*\n?", re.M)
LSPCI_LINE = re.compile(
    r"^(?P<bdf>[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) (?P<cls>[0-9a-f]{4}): "
    r"(?P<ids>[0-9a-f]{4}:[0-9a-f]{4}) \((?P<name>[^)]*)\)(?P<rest>.*)$", re.M)


def lspci(m):
    """{bdf: dict(ids, cls, name, bus, mem, pref, io, bars, hot)} from `lspci`."""
    out = LOG_LINE.sub("", m.run("lspci"))
    devs = {}
    for x in LSPCI_LINE.finditer(out):
        rest = x.group("rest")
        d = {"ids": x.group("ids"), "cls": x.group("cls"),
             "name": x.group("name"), "hot": "hotplugged" in rest,
             "bars": {}, "bus": None, "mem": None, "pref": None, "io": None}
        b = re.search(r" bus ([0-9a-f]{2})-([0-9a-f]{2})", rest)
        if b:
            d["bus"] = (int(b.group(1), 16), int(b.group(2), 16))
        for kind in ("mem", "pref", "io"):
            w = re.search(rf" {kind} ([0-9a-f]+)-([0-9a-f]+)", rest)
            if w:
                d[kind] = (int(w.group(1), 16), int(w.group(2), 16))
        for bar in re.finditer(r" bar(\d) (\w+) ([0-9a-f]+|unassigned)\+([0-9a-f]+)",
                               rest):
            base = None if bar.group(3) == "unassigned" else int(bar.group(3), 16)
            d["bars"][int(bar.group(1))] = (bar.group(2), base,
                                            int(bar.group(4), 16))
        devs[x.group("bdf")] = d
    return devs


def qemu_pci(m):
    """QEMU's `info pci`, as {qdev id: text of its block}."""
    text = m.qmp().hmp("info pci")
    blocks = {}
    for blk in re.split(r"\n(?=  Bus )", text):
        ident = re.search(r'id "([^"]*)"', blk)
        if ident:
            blocks[ident.group(1)] = blk
    return blocks


def qemu_range(block, what):
    r = re.search(rf"{what} range \[0x([0-9a-f]+), 0x([0-9a-f]+)\]", block)
    return (int(r.group(1), 16), int(r.group(2), 16)) if r else None


def inside(bar, window):
    _, base, size = bar
    return (window is not None and base is not None
            and window[0] <= base and base + size - 1 <= window[1])


def add_virtio_mem(m, bus):
    q = m.qmp()
    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": "hm",
                           "size": 1 << 30, "reserve": False})
    q.cmd("device_add", driver="virtio-mem-pci", id="vm1", memdev="hm", bus=bus)


def iomem_tree(text, digits=8):
    """/proc/iomem (or, with digits=4, /proc/ioports) as [(depth, start,
    end, name)], checking Linux's format: two spaces per level, lowercase
    hex of at least `digits` digits, " : "."""
    out = []
    for line in text.splitlines():
        m = re.fullmatch(rf"((?:  )*)([0-9a-f]{{{digits},}})-([0-9a-f]{{{digits},}}) : (.+)", line)
        assert m, f"not a resource tree line: {line!r}"
        out.append((len(m.group(1)) // 2, int(m.group(2), 16), int(m.group(3), 16), m.group(4)))
    return out


def iomem_parent(tree, entry):
    """(start, end, name) of the resource entry (start, end, name) is nested in."""
    for i, (depth, start, end, name) in enumerate(tree):
        if (start, end, name) == entry:
            for pd, ps, pe, pn in reversed(tree[:i]):
                if pd == depth - 1:
                    return (ps, pe, pn)
            return None
    raise AssertionError(f"{entry} not in /proc/iomem")


@pytest.fixture
def ported(boot):
    return boot(mem=MEM, extra=PORTS)


def test_root_ports_listed_with_their_windows(ported):
    devs = lspci(ported)
    assert devs["00:00.0"]["ids"] == "8086:29c0"
    qemu = qemu_pci(ported)
    for bdf, ident, bus in (("00:01.0", "port1", 1), ("00:02.0", "port2", 2)):
        d = devs[bdf]
        assert d["ids"] == "1b36:000c" and d["cls"] == "0604", d
        assert d["bus"] == (bus, bus), d
        # SeaBIOS leaves every hotplug-capable port a window; memlab must
        # read the same ones QEMU decodes.
        assert d["mem"] == qemu_range(qemu[ident], "memory"), (d, qemu[ident])
        assert d["pref"] == qemu_range(qemu[ident], "prefetchable memory")
        assert d["bars"][0][0] == "mem32" and d["bars"][0][1]


def test_lspci_v_shows_capabilities(ported):
    out = ported.run("lspci -v 00:01.0")
    assert re.search(r"cap 10 @[0-9a-f]+ PCI Express type 4 slotcap", out), out
    assert "cap 11" in out          # MSI-X on QEMU's root port


def test_hot_added_virtio_mem_gets_bar_in_port_window(ported):
    before = lspci(ported)
    add_virtio_mem(ported, "port1")
    ported.wait_for(re.compile(r"pci 01:00\.0: found 1af4:1058"), HOTPLUG_TIMEOUT)
    ported.wait_for(re.compile(r"pci 01:00\.0: BAR4 assigned"), HOTPLUG_TIMEOUT)
    devs = lspci(ported)
    d = devs["01:00.0"]
    assert d["ids"] == "1af4:1058" and d["hot"], d
    bar = d["bars"][4]
    assert bar[0] == "mem64p" and bar[2] == 0x4000, bar
    port = devs["00:01.0"]
    assert inside(bar, port["pref"]) or inside(bar, port["mem"]), (bar, port)
    # the device decodes where memlab says it put it
    blk = qemu_pci(ported)["vm1"]
    assert re.search(rf"BAR4: 64 bit prefetchable memory at 0x{bar[1]:x} ", blk), blk
    # nothing else moved
    for bdf, old in before.items():
        assert devs[bdf]["bars"] == old["bars"], bdf


def test_hot_add_then_device_del_ejects(ported):
    q = ported.qmp()
    q.cmd("device_add", driver="virtio-rng-pci", id="rng1", bus="port2")
    ported.wait_for(re.compile(r"pci 02:00\.0: found 1af4:1044"), HOTPLUG_TIMEOUT)
    devs = lspci(ported)
    d = devs["02:00.0"]
    port = devs["00:02.0"]
    for bar in d["bars"].values():
        assert inside(bar, port["pref"]) or inside(bar, port["mem"]), (bar, port)
    # /proc/iomem: each memory BAR nested in the port's window ("PCI Bus
    # 0000:02"), the window in the root bus's, as Linux's tree
    iomem = ported.run("cat /proc/iomem")
    tree = iomem_tree(iomem)
    for kind, base, size in d["bars"].values():
        if kind.startswith("mem"):
            window = port["pref"] if inside((kind, base, size), port["pref"]) else port["mem"]
            assert iomem_parent(tree, (base, base + size - 1, "0000:02:00.0")) == \
                (window[0], window[1], "PCI Bus 0000:02"), iomem
    assert "c0000000-febfffff : PCI Bus 0000:00\n" in iomem, iomem
    assert "b0000000-bfffffff : PCI MMCONFIG 0000 [bus 00-ff]\n  b0000000-bfffffff : Reserved\n" \
        in iomem, iomem
    q.cmd("device_del", id="rng1")
    q.wait_event("DEVICE_DELETED", timeout=HOTPLUG_TIMEOUT,
                 match={"device": "rng1"})
    ported.wait_for("ejected", HOTPLUG_TIMEOUT)
    assert "02:00.0" not in lspci(ported)
    assert "0000:02:00.0" not in ported.run("cat /proc/iomem")
    # the slot can be used again
    q.cmd("device_add", driver="virtio-rng-pci", id="rng2", bus="port2")
    ported.wait_for(re.compile(r"pci 02:00\.0: found 1af4:1044"), HOTPLUG_TIMEOUT)
    assert lspci(ported)["02:00.0"]["hot"]


def test_closed_window_is_opened_for_a_hot_added_device(ported):
    # Firmware that prepared nothing leaves the port's windows closed
    # (base above limit); memlab must open one itself.
    ported.run("setpci 00:01.0 20.L=0000fff0")
    ported.run("setpci 00:01.0 24.L=0000fff0")
    port = lspci(ported)["00:01.0"]
    assert port["mem"] is None and port["pref"] is None, port
    add_virtio_mem(ported, "port1")
    ported.wait_for("opened memory window", HOTPLUG_TIMEOUT)
    ported.wait_for(re.compile(r"pci 01:00\.0: BAR4 assigned"), HOTPLUG_TIMEOUT)
    devs = lspci(ported)
    port = devs["00:01.0"]
    bar = devs["01:00.0"]["bars"][4]
    assert inside(bar, port["mem"]), (bar, port)
    blk = qemu_pci(ported)
    assert qemu_range(blk["port1"], "memory") == port["mem"]
    assert re.search(rf"BAR4: 64 bit prefetchable memory at 0x{bar[1]:x} ", blk["vm1"])


def test_bad_lspci_and_setpci_input(ported):
    for cmd in ("lspci -v", "lspci -v 0:1", "lspci -v 00:20.0", "lspci -x 00:00.0",
                "setpci 00:01.0", "setpci 00:01.0 20.Q=1", "setpci 00:01.0 zz.L=1"):
        assert "usage: " in ported.run(cmd), cmd
    assert "no device" in ported.run("lspci -v 05:00.0")
    assert "00:00.0" in ported.run("lspci")     # still alive


def test_setpci_refuses_numbers_that_do_not_fit(ported):
    # A value wider than its width used to be written truncated (3c.B=1ff
    # wrote ff, =12abc wrote bc).  Now it, a value of 9+ hex digits, an
    # offset past fff or one not aligned to its width is refused with the
    # reason; nothing is written.
    before = ported.run("setpci 00:01.0 3c.B=0b")
    assert re.search(r"^00:01\.0 \[03c\] = [0-9a-f]{6}0b$", before, re.M), before
    cases = {
        "setpci 00:01.0 3c.B=1ff": "setpci: value 1ff does not fit in a byte (B: at most ff)",
        "setpci 00:01.0 3c.B=12abc": "setpci: value 12abc does not fit in a byte (B: at most ff)",
        "setpci 00:01.0 3c.W=10000": "setpci: value 10000 does not fit in a word (W: at most ffff)",
        "setpci 00:01.0 3c.L=123456789":
            "setpci: value 123456789 has more than 8 hex digits: no register is that wide "
            "(L, a dword: at most ffffffff)",
        "setpci 00:01.0 1000.L=1":
            "setpci: offset 1000 is past the 4 KiB of configuration space (000-fff)",
        "setpci 00:01.0 3d.W=1": "setpci: offset 03d is not aligned to a word (W: a multiple of 2)",
    }
    for cmd, msg in cases.items():
        out = ported.run(cmd)
        assert msg in out, (cmd, out)
        assert "usage: " not in out, (cmd, out)
    # the interrupt line still holds 0b: read through a write to the
    # read-only interrupt pin next to it, which prints the same dword
    after = ported.run("setpci 00:01.0 3d.B=0")
    assert re.search(r"^00:01\.0 \[03c\] = [0-9a-f]{6}0b$", after, re.M), after


def test_native_pcie_hotplug_when_acpi_hotplug_is_off(boot):
    # Without ACPI PCI hotplug QEMU uses the root port's slot registers;
    # memlab polls them (100 ms), powers the slot on, and on device_del
    # (attention button) releases the device and powers the slot off.
    m = boot(mem=MEM, extra=["-global",
                             "ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off",
                             "-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1"])
    assert "native PCIe hotplug on 1 slot" in m.output
    out = m.run("pcihp")
    assert out.startswith("ACPI PCI hotplug off: the namespace has no \\_GPE._E01 or _L01"), out
    assert "native PCIe hotplug (slot registers polled every 100 ms)" in out, out
    q = m.qmp()
    q.cmd("device_add", driver="virtio-rng-pci", id="rng1", bus="port1")
    m.wait_for(re.compile(r"pci 01:00\.0: found 1af4:1044"), HOTPLUG_TIMEOUT)
    devs = lspci(m)
    for bar in devs["01:00.0"]["bars"].values():
        assert (inside(bar, devs["00:01.0"]["pref"])
                or inside(bar, devs["00:01.0"]["mem"])), bar
    q.cmd("device_del", id="rng1")
    q.wait_event("DEVICE_DELETED", timeout=HOTPLUG_TIMEOUT, match={"device": "rng1"})
    assert "01:00.0" not in lspci(m)


def test_bridge_io_window_and_root_windows(boot):
    # e1000e has an I/O BAR, so SeaBIOS gives its root port an I/O window;
    # memlab reads it as QEMU decodes it and nests the BAR inside it, the
    # window inside the root bus's 0d00-ffff window of the _CRS, as Linux.
    m = boot(mem=MEM, extra=["-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1",
                             "-device", "e1000e,bus=port1"])
    devs = lspci(m)
    port, nic = devs["00:01.0"], devs["01:00.0"]
    assert port["io"] == qemu_range(qemu_pci(m)["port1"], "IO"), port
    kind, base, size = nic["bars"][2]
    assert kind == "io" and port["io"][0] <= base and base + size - 1 <= port["io"][1]
    tree = iomem_tree(m.run("cat /proc/ioports"), digits=4)
    assert (0, 0xd00, 0xffff, "PCI Bus 0000:00") in tree, tree
    assert iomem_parent(tree, (port["io"][0], port["io"][1], "PCI Bus 0000:01")) == \
        (0xd00, 0xffff, "PCI Bus 0000:00"), tree
    assert iomem_parent(tree, (base, base + size - 1, "0000:01:00.0")) == \
        (port["io"][0], port["io"][1], "PCI Bus 0000:01"), tree
    # the legacy ports sit in the first I/O window, as in Linux
    assert iomem_parent(tree, (0x3f8, 0x3ff, "serial")) == (0, 0xcf7, "PCI Bus 0000:00")
    assert "root bus windows: 6 from the host bridge's _CRS" in m.boot_log


def test_hotplug_follows_the_aml(ported):
    # ACPI PCI hotplug runs QEMU's AML: GPE 1's method, its Notify()s, the
    # slot's _EJ0; `pcihp` says what the AML reported
    out = ported.run("pcihp")
    assert "ACPI PCI hotplug through the AML: \\_GPE._E01 (GPE 1)" in out, out
    assert re.search(r"slot \\_SB_\.PCI0\.\w+\.S00_ 02:00 .*_EJ0", out), out
    ported.run("acpi trace on")
    q = ported.qmp()
    q.cmd("device_add", driver="virtio-rng-pci", id="rng1", bus="port2")
    log = ported.wait_for(re.compile(r"pci 02:00\.0: found 1af4:1044"), HOTPLUG_TIMEOUT)
    log += ported.wait_for("rescan found", HOTPLUG_TIMEOUT)
    assert "\\_GPE._E01" in log, log
    assert re.search(r"Notify \(\\_SB_\.PCI0\.\w+\.S00_, 1\): device check", log), log
    q.cmd("device_del", id="rng1")
    q.wait_event("DEVICE_DELETED", timeout=HOTPLUG_TIMEOUT, match={"device": "rng1"})
    log = ported.wait_for("ejected (_EJ0)", HOTPLUG_TIMEOUT)
    assert "_EJ0" in log and "eject request for" in log, log
    ported.run("acpi trace off")
    assert "02:00.0" not in lspci(ported)
    out = ported.run("pcihp")
    assert "events: up 1 down 1 ejected 1" in out, out
    assert re.search(r"notify \\_SB_\.PCI0\.\w+\.S00_ 3: ejected", out), out


PXB_NUMA = ["-object", "memory-backend-ram,id=m0,size=1G",
            "-object", "memory-backend-ram,id=m1,size=1G",
            "-numa", "node,nodeid=0,memdev=m0", "-numa", "node,nodeid=1,memdev=m1",
            "-device", "pxb-pcie,id=pxb1,bus_nr=128,numa_node=1,bus=pcie.0",
            "-device", "pcie-root-port,id=rp80,bus=pxb1,chassis=9,slot=9",
            "-device", "virtio-rng-pci,id=rng80,bus=rp80"]


def test_pxb_pcie_bus_and_numa_node_from_pxm(boot):
    # A pxb-pcie expander with numa_node=1: QEMU gives its root bridge
    # (PC80) _BBN 0x80 and _PXM 1.  memlab walks that root bus (no bridge
    # leads to it) and a device behind it shows node 1; the devices of the
    # main root bus, whose PCI0 has no _PXM, show -1 as in Linux.
    m = boot(mem="2G,slots=4,maxmem=16G", extra=PXB_NUMA)
    assert "pci: 1 more root bus(es) from _BBN" in m.output, m.output
    devs = lspci(m)
    assert "80:00.0" in devs and "81:00.0" in devs, devs
    assert devs["81:00.0"]["ids"] == "1af4:1044", devs["81:00.0"]
    sysfs = "/sys/bus/pci/devices/0000:%s/numa_node"
    assert m.run("cat " + sysfs % "81:00.0").strip() == "1"
    assert m.run("cat " + sysfs % "80:00.0").strip() == "1"
    assert m.run("cat " + sysfs % "00:00.0").strip() == "-1"
    assert m.run("cat /sys/bus/pci/devices/0000:81:00.0/vendor").strip() == "0x1af4"
    listing = m.run("ls /sys/bus/pci/devices")
    assert "0000:00:00.0" in listing and "0000:81:00.0" in listing, listing


PXB_PORTS = ["-device", "pxb-pcie,id=pxb1,bus_nr=128,bus=pcie.0",
             "-device", "pcie-root-port,id=rp80,bus=pxb1,chassis=9,slot=9",
             "-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1"]


def test_expander_windows_from_its_crs_and_hot_add_inside_them(boot):
    # QEMU's pxb-pcie is a second root bridge (PC80, _BBN 0x80) whose _CRS
    # (a Name) lists the memory its devices were given, cut out of PCI0's.
    # memlab reads it: /proc/iomem shows "PCI Bus 0000:80" windows holding
    # the port's.  With the expander port's windows closed (and port1's
    # prefetchable one, the highest free block of the fixed 32-bit hole),
    # a device hot-added behind the expander gets a window opened inside
    # the expander's _CRS windows, as QEMU's `info pci` confirms.  QEMU
    # announces a device on a port behind an expander through the slot
    # registers only (its DSDT has no slots there), so ACPI PCI hotplug is
    # off and memlab polls the slots.
    m = boot(mem=MEM, extra=["-global", "ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off"]
             + PXB_PORTS)
    assert re.search(r"pci: root bus 80 windows: \d+ from \\_SB_\.PC80\._CRS", m.boot_log), \
        m.boot_log
    devs = lspci(m)
    port1 = next(b for b, d in devs.items() if b.startswith("00:") and d["name"] == "pcie-root-port")
    rp80 = devs["80:00.0"]
    tree = iomem_tree(m.run("cat /proc/iomem"))
    pxb = [(s, e) for depth, s, e, n in tree if depth == 0 and n == "PCI Bus 0000:80"]
    assert pxb, tree
    for kind in ("mem", "pref"):
        w = rp80[kind]
        assert iomem_parent(tree, (w[0], w[1], "PCI Bus 0000:81"))[2] == "PCI Bus 0000:80", tree
    m.run(f"setpci {port1} 24.L=0000fff0")
    m.run("setpci 80:00.0 20.L=0000fff0")
    m.run("setpci 80:00.0 24.L=0000fff0")
    assert lspci(m)["80:00.0"]["mem"] is None
    q = m.qmp()
    q.cmd("device_add", driver="virtio-rng-pci", id="rngx", bus="rp80")
    m.wait_for(re.compile(r"pci 81:00\.0: found 1af4:1044"), HOTPLUG_TIMEOUT)
    m.wait_for("rescan found", HOTPLUG_TIMEOUT)
    devs = lspci(m)
    win = devs["80:00.0"]["mem"]
    assert win and any(s <= win[0] and win[1] <= e for s, e in pxb), (win, pxb)
    blk = qemu_pci(m)
    assert qemu_range(blk["rp80"], "memory") == win
    bars = devs["81:00.0"]["bars"]
    assert bars, devs["81:00.0"]
    for i, bar in bars.items():
        if bar[0] == "io":
            continue
        assert inside(bar, win), (i, bar, win)
        assert re.search(rf"BAR{i}: .*memory at 0x{bar[1]:x} ", blk["rngx"]), blk["rngx"]
    tree = iomem_tree(m.run("cat /proc/iomem"))
    assert iomem_parent(tree, (win[0], win[1], "PCI Bus 0000:81"))[2] == "PCI Bus 0000:80", tree

"""The AML interpreter in a booted guest: QEMU's own DSDT loaded and
walked at boot, its methods evaluated from the shell (acpi eval, acpi ns,
acpi trace), and hostile AML passed as an extra SSDT with -acpitable: the
guest boots and names the methods it gave up on (docs/aml.md)."""

import re
import subprocess

import memlab

DIMMS = "2G,slots=4,maxmem=16G"


def test_boot_loads_and_walks_the_namespace(boot):
    m = boot(mem=DIMMS)
    line = re.search(r"aml: (\d+) tables, (\d+) objects, (\d+) methods, (\d+) devices; "
                     r"_STA (\d+), _INI (\d+), failures (\d+);", m.output)
    assert line, m.output
    tables, objects, methods, devices, sta, ini, failures = map(int, line.groups())
    assert tables >= 1 and objects > 500 and methods > 20 and devices > 10, line.group(0)
    assert failures == 0, m.output


def test_eval_s5_memory_devices_and_namespace(boot):
    m = boot(mem=DIMMS)
    out = m.run("acpi eval \\_S5")
    assert "Evaluation of \\_S5_ returned:" in out, out
    assert "[Package] Contains 4 Elements:" in out, out
    # every slot of QEMU's memory hotplug AML: an empty slot is absent
    for slot in range(4):
        dev = f"\\_SB.MHPC.MP{slot:02X}"
        out = m.run(f"acpi eval {dev}._STA")
        assert "[Integer] = 0000000000000000" in out, out
        out = m.run(f"acpi eval {dev}._HID")
        assert "[Integer] = 00000000800CD041" in out, out       # PNP0C80
        out = m.run(f"acpi eval {dev}._CRS")
        assert "[Buffer] Length 30 =" in out and "79 00" in out, out
        out = m.run(f"acpi eval {dev}._PXM")
        assert "[Integer] =" in out, out
    out = m.run("acpi ns \\_SB.MHPC")
    for name in ("MHPC Device", "MP03 Device", "MCRS Method Args 1", "MLCK Mutex",
                 "MSEL FieldUnit"):
        assert name in out, out
    out = m.run("acpi eval \\_SB.PCI0._CRS")
    assert "[Buffer] Length" in out and "79 00" in out, out
    out = m.run('acpi eval \\_OSI "Windows 2015"')
    assert "[Integer] = 00000000FFFFFFFF" in out, out
    out = m.run("acpi eval \\_SB.NOPE")
    assert "does not exist" in out, out


def test_trace_shows_methods(boot):
    m = boot(mem=DIMMS)
    assert "acpi trace: on" in m.run("acpi trace on")
    out = m.run("acpi eval \\_SB.MHPC.MP02._STA")
    assert "aml: enter \\_SB_.MHPC.MP02._STA()" in out, out
    assert 'aml: enter \\_SB_.MHPC.MRST("0x02")' in out, out
    assert "aml: leave \\_SB_.MHPC.MP02._STA = 0x0" in out, out
    m.run("acpi trace off")
    out = m.run("acpi eval \\_SB.MHPC.MP02._STA")
    assert "aml: enter" not in out, out


def test_hostile_ssdt_named_and_boot_goes_on(boot, tmp_path):
    """tests/host/aml/hostile.asl as an extra SSDT: \\DEVL._STA recurses
    without end, \\DEVL._INI and \\DEVI._INI loop without end."""
    asl = memlab.REPO / "tests/host/aml/hostile.asl"
    subprocess.run(["iasl", "-vs", "-p", str(tmp_path / "hostile"), str(asl)],
                   check=True, capture_output=True)
    m = boot(mem=DIMMS, extra=["-acpitable", f"file={tmp_path / 'hostile.aml'}"])
    log = m.output
    assert re.search(r"aml: 2 tables, .* failures 2;", log), log
    assert re.search(r"aml: \\DEVL._STA failed: \\RECU at 0x[0-9a-f]+: call depth \d+ "
                     r"reached calling \\RECU: gave up", log), log
    assert re.search(r"aml: \\DEVI._INI failed: \\LOOP at 0x[0-9a-f]+: While loop at "
                     r"0x[0-9a-f]+ ran 100000 iterations: gave up", log), log
    # the rest of the boot went on: the shell works, AML still evaluates
    out = m.run("acpi eval \\FINE")
    assert "[Integer] = 0000000000000007" in out, out
    out = m.run("acpi eval \\LOOP")
    assert "acpi eval: \\LOOP failed: \\LOOP at 0x" in out and "gave up" in out, out


def test_poweroff_through_pts_and_s5(boot):
    """poweroff: \\_PTS(5) if the firmware has one (QEMU's q35 DSDT has
    none), then \\_S5's sleep type from the interpreter; QEMU exits 0."""
    m = boot(mem=DIMMS)
    m.send_line("poweroff")
    assert m.wait_exit() == 0
    assert "power: ACPI S5 (SLP_TYP 0) through PM1a_CNT 0x604" in m.output, m.tail()


def test_dimm_add_and_eject_through_the_aml(boot):
    """A DIMM plugged and unplugged with the memory hotplug driver on the
    AML: the slots are the PNP0C80 devices, the GPE runs \\_GPE._E03, whose
    Notify reaches the driver; _CRS, _PXM, _OST and _EJ0 are called by
    method, as acpi trace shows."""
    from hotplug import boot_hotplug, plug, unplug, sh
    m = boot_hotplug(boot)
    assert "acpi-memhp: 8 DIMM slots: PNP0C80 devices of the AML" in m.output, m.output
    sh(m, "acpi trace on")
    plug(m, "dimm1", 1 << 30)
    out = m.output
    for method in ("enter \\_GPE._E03()", "enter \\_SB_.MHPC.MSCN()",
                   "enter \\_SB_.MHPC.MP00._STA()", "enter \\_SB_.MHPC.MP00._CRS()",
                   "enter \\_SB_.MHPC.MP00._PXM()", "enter \\_SB_.MHPC.MP00._OST(0x1, 0x0"):
        assert method in out, out[-3000:]
    assert "slot 0: DIMM [mem 0x100000000-0x13fffffff]" in out, out[-3000:]
    unplug(m, "dimm1")
    out = m.output
    assert "enter \\_SB_.MHPC.MP00._EJ0(0x0)" in out, out[-3000:]
    sh(m, "acpi trace off")


def test_acpi_devices_in_sysfs_as_linux_names_them(boot):
    """/sys/bus/acpi/devices/: one directory per device with a _HID, named
    _HID:NN (hex, per _HID in namespace order); hid, path, status (_STA in
    decimal), modalias and uevent in Linux's formats."""
    from hotplug import boot_hotplug, plug, sh
    m = boot_hotplug(boot)
    ls = sh(m, "ls /sys/bus/acpi/devices")
    for name in ("PNP0C80:00", "PNP0C80:07", "PNP0A08:00", "PNP0A06:00"):
        assert name in ls, ls
    d = "/sys/bus/acpi/devices/PNP0C80:00/"
    assert sh(m, "cat " + d + "hid").strip() == "PNP0C80"
    assert sh(m, "cat " + d + "path").strip() == "\\_SB_.MHPC.MP00"
    assert sh(m, "cat " + d + "modalias").strip() == "acpi:PNP0C80:"
    assert sh(m, "cat " + d + "uevent").strip() == "MODALIAS=acpi:PNP0C80:"
    assert sh(m, "cat " + d + "status").strip() == "0"      # empty slot
    plug(m, "dimm1", 1 << 30)
    assert sh(m, "cat " + d + "status").strip() == "15"     # present, enabled, ...

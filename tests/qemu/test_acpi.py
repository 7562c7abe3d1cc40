"""ACPI: tables decoded, interrupts routed through the I/O APIC, the SCI
wired."""


NUMA2 = ["-object", "memory-backend-ram,id=m0,size=1G",
         "-object", "memory-backend-ram,id=m1,size=1G",
         "-numa", "node,nodeid=0,memdev=m0", "-numa", "node,nodeid=1,memdev=m1",
         "-numa", "dist,src=0,dst=1,val=21"]


def test_acpi_tables_decoded(boot):
    m = boot(mem="2G,slots=4,maxmem=16G", extra=NUMA2)
    out = m.run("acpi tables")
    for sig in ("FACP", "APIC", "SRAT", "MCFG", "SLIT", "DSDT"):
        assert sig in out, out
    assert "bad checksum" not in out
    out = m.run("acpi fadt")
    assert "SCI interrupt:   9" in out and "GPE0 block:      0x620" in out, out
    out = m.run("acpi madt")
    assert "ISA IRQ 9 -> GSI 9, active-high, level" in out, out
    assert "ISA IRQ 0 -> GSI 2" in out, out
    out = m.run("acpi srat")
    assert "proximity 1 -> node 1" in out and "hotpluggable" in out, out
    out = m.run("acpi slit")
    assert "0:  10  21" in out and "1:  21  10" in out, out
    out = m.run("acpi mcfg")
    assert "ECAM at 0xb0000000" in out, out
    out = m.run("cat /sys/devices/system/node/node0/distance")
    assert out.split() == ["10", "21"], out


def test_interrupts_through_ioapic_and_sci(machine):
    out = machine.run("acpi irq")
    assert "I/O APIC" in out, out
    assert "GSI  2 -> vector  34, edge" in out, out      # the PIT through the override
    assert "GSI  9 -> vector  41, level, active-high" in out, out   # the SCI
    out = machine.run("acpi events")
    # q35's MADT overrides IRQ 9: GSI 9, level, active-high
    assert "SCI: IRQ 9, wired (line 9, level, active-high)" in out, out
    assert "GPE  3" in out, out                          # memory hotplug claims GPE 3
    out = machine.run("acpi nosuch")
    assert "usage:" in out, out

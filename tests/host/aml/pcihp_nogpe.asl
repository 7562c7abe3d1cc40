/*
 * pcihp_nogpe.asl - a DSDT like QEMU's with ACPI PCI hotplug switched off,
 * for tests/host/test_pci_hotplug.c: the root bridge, the two root ports
 * of pcihp_machine.h's machine() with a slot device each (_ADR, _SUN), and
 * no GPE 1 method.  ACPI PCI hotplug must be off with that reason, and the
 * native PCIe slots polled.
 */
DefinitionBlock ("", "DSDT", 2, "MEMLAB", "PCIHPOFF", 1)
{
    Scope (\_SB)
    {
        Device (PCI0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Device (S10)
            {
                Name (_ADR, 0x00020000)
                Device (S00)
                {
                    Name (_ADR, Zero)
                    Name (_SUN, Zero)
                }
            }
            Device (S18)
            {
                Name (_ADR, 0x00030000)
                Device (S00)
                {
                    Name (_ADR, Zero)
                    Name (_SUN, One)
                }
            }
        }
    }
    Scope (\_GPE)
    {
        Method (_E03, 0, NotSerialized)
        {
        }
    }
}

/*
 * pci_numa.asl - PCI root bridges and their proximity domains, for
 * tests/host/test_pci_numa.c: PCI0 (bus 0, no _PXM) with a root port
 * device that has its own _PXM, an expander's root bridge PC80 (_BBN
 * 0x80, _PXM 1, as QEMU writes it for a pxb-pcie with numa_node=1), and
 * PCA0 (_BBN 0xA0) whose _PXM method divides by zero.
 */
DefinitionBlock ("", "DSDT", 2, "MEMLAB", "PCINUMA", 1)
{
    Scope (\_SB)
    {
        Device (PCI0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (_CID, EisaId ("PNP0A03"))
            Device (S08)
            {
                Name (_ADR, 0x00010000)
                Name (_PXM, 0x02)
            }
            Device (S10)
            {
                Name (_ADR, 0x00020000)
                Name (_PXM, 0x07)
            }
        }
        Device (PC80)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (_CID, EisaId ("PNP0A03"))
            Name (_BBN, 0x80)
            Name (_PXM, One)
        }
        Device (PCA0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (_BBN, 0xA0)
            Method (_PXM, 0, NotSerialized)
            {
                Local0 = Zero
                Return ((One / Local0))
            }
        }
    }
}

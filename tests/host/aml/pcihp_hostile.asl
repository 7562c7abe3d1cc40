/*
 * pcihp_hostile.asl - a DSDT whose PCI hotplug AML misbehaves, for
 * tests/host/test_pci_hotplug_aml.c: the GPE method reads QEMU's register
 * block as the fixture's does, but the slot's _EJ0 never returns, it
 * asks to eject a slot that has no _EJ0 (not removable), and it notifies
 * a device that is not a PCI slot.
 */
DefinitionBlock ("", "DSDT", 2, "MEMLAB", "PCIHPBAD", 1)
{
    Scope (\_SB)
    {
        Device (PCI0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            OperationRegion (PCST, SystemIO, 0x0CC0, 0x08)
            Field (PCST, DWordAcc, NoLock, WriteAsZeros)
            {
                PCIU, 32,
                PCID, 32
            }
            OperationRegion (BNMR, SystemIO, 0x0CD0, 0x04)
            Field (BNMR, DWordAcc, NoLock, WriteAsZeros)
            {
                BNUM, 32
            }
            Device (S10)
            {
                Name (_ADR, 0x00020000)
                Device (S00)
                {
                    Name (_ADR, Zero)
                    Name (_SUN, Zero)
                    Method (_EJ0, 1, NotSerialized)
                    {
                        While (One)
                        {
                        }
                    }
                }
            }
            Device (S18)
            {
                Name (_ADR, 0x00030000)
                Device (S00)
                {
                    Name (_ADR, Zero)
                    Name (_SUN, Zero)
                }
            }
        }
        Device (BTN)
        {
            Name (_HID, "PNP0C0C")
        }
    }
    Scope (\_GPE)
    {
        Method (_E01, 0, NotSerialized)
        {
            \_SB.PCI0.BNUM = Zero
            Local0 = \_SB.PCI0.PCIU
            Local1 = \_SB.PCI0.PCID
            If (Local0 & One)
            {
                Notify (\_SB.PCI0.S10.S00, One)
            }
            If (Local1 & One)
            {
                Notify (\_SB.PCI0.S10.S00, 3)
            }
            Notify (\_SB.PCI0.S18.S00, 3)
            Notify (\_SB.BTN, 3)
            Notify (\_SB.BTN, One)
        }
    }
}

/*
 * pcihp_crs_method.asl - a root bridge whose _CRS is a Method that builds
 * its template at run time (as real servers' firmware does), for
 * tests/host/test_pci_hotplug_aml.c: the window's base is set by the method.
 */
DefinitionBlock ("", "DSDT", 2, "MEMLAB", "CRSMETH", 1)
{
    Scope (\_SB)
    {
        Device (PCI0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (RBUF, ResourceTemplate ()
            {
                WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode,
                    0x0000, 0x0000, 0x00FF, 0x0000, 0x0100,,, )
                DWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed, NonCacheable, ReadWrite,
                    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,,, MW32)
            })
            Method (_CRS, 0, Serialized)
            {
                CreateDWordField (RBUF, \_SB.PCI0.MW32._MIN, MIN)
                CreateDWordField (RBUF, \_SB.PCI0.MW32._MAX, MAX)
                CreateDWordField (RBUF, \_SB.PCI0.MW32._LEN, LEN)
                MIN = 0xC0000000
                MAX = 0xFEBFFFFF
                LEN = 0x3EC00000
                Return (RBUF)
            }
        }
    }
}

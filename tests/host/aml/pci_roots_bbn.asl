/*
 * pci_roots_bbn.asl - a root bridge whose _BBN (0x90) is not the start of
 * its _CRS's bus range (0x80-0x8f), for tests/host/test_pci_numa.c: the
 * _CRS's is its root bus.  PCI0 has a window of its own and no _BBN.
 */
DefinitionBlock ("", "DSDT", 2, "MEMLAB", "PCIRBBN", 1)
{
    Scope (\_SB)
    {
        Device (PCI0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (_CRS, ResourceTemplate ()
            {
                WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode,
                    0x0000, 0x0000, 0x007F, 0x0000, 0x0080,,, )
                DWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed, NonCacheable, ReadWrite,
                    0x00000000, 0xC0000000, 0xDFFFFFFF, 0x00000000, 0x20000000,,, , AddressRangeMemory, TypeStatic)
            })
        }
        Device (PC90)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (_BBN, 0x90)
            Name (_CRS, ResourceTemplate ()
            {
                WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode,
                    0x0000, 0x0080, 0x008F, 0x0000, 0x0010,,, )
                DWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed, NonCacheable, ReadWrite,
                    0x00000000, 0xE0000000, 0xE0FFFFFF, 0x00000000, 0x01000000,,, , AddressRangeMemory, TypeStatic)
            })
        }
    }
}

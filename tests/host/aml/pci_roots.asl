/*
 * pci_roots.asl - root bridges with windows of their own, for
 * tests/host/test_pci_numa.c: PCI0 (buses 00-7f) decodes c0000000-dfffffff
 * and e1000000-febfffff around the expander PC80 (_BBN 0x80, buses 80-8f),
 * whose _CRS is a Method returning e0000000-e0ffffff, as QEMU cuts a
 * pxb-pcie's windows out of PCI0's; then three _CRS memlab must refuse:
 * PCA0's window meets PCI0's, PCB0's lies above a 40-bit physical address
 * space, PCC0 lists a bus range and no window.
 */
DefinitionBlock ("", "DSDT", 2, "MEMLAB", "PCIROOTS", 1)
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
                DWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed, NonCacheable, ReadWrite,
                    0x00000000, 0xE1000000, 0xFEBFFFFF, 0x00000000, 0x1DC00000,,, , AddressRangeMemory, TypeStatic)
            })
        }
        Device (PC80)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (_BBN, 0x80)
            Name (RBUF, ResourceTemplate ()
            {
                WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode,
                    0x0000, 0x0080, 0x008F, 0x0000, 0x0010,,, )
                DWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed, NonCacheable, ReadWrite,
                    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,,, MW32, AddressRangeMemory, TypeStatic)
            })
            Method (_CRS, 0, Serialized)
            {
                CreateDWordField (RBUF, \_SB.PC80.MW32._MIN, MIN)
                CreateDWordField (RBUF, \_SB.PC80.MW32._MAX, MAX)
                CreateDWordField (RBUF, \_SB.PC80.MW32._LEN, LEN)
                MIN = 0xE0000000
                MAX = 0xE0FFFFFF
                LEN = 0x01000000
                Return (RBUF)
            }
        }
        Device (PCA0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (_BBN, 0xA0)
            Name (_CRS, ResourceTemplate ()
            {
                WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode,
                    0x0000, 0x00A0, 0x00A0, 0x0000, 0x0001,,, )
                DWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed, NonCacheable, ReadWrite,
                    0x00000000, 0xD0000000, 0xD01FFFFF, 0x00000000, 0x00200000,,, , AddressRangeMemory, TypeStatic)
            })
        }
        Device (PCB0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (_BBN, 0xB0)
            Name (_CRS, ResourceTemplate ()
            {
                WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode,
                    0x0000, 0x00B0, 0x00B0, 0x0000, 0x0001,,, )
                QWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed, Cacheable, ReadWrite,
                    0x0000000000000000, 0x0000020000000000, 0x00000200001FFFFF, 0x0000000000000000,
                    0x0000000000200000,,, , AddressRangeMemory, TypeStatic)
            })
        }
        Device (PCC0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (_BBN, 0xC0)
            Name (_CRS, ResourceTemplate ()
            {
                WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode,
                    0x0000, 0x00C0, 0x00C0, 0x0000, 0x0001,,, )
            })
        }
    }
}

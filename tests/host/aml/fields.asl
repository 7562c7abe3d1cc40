/* fields.asl - Field over SystemIO, SystemMemory and PCI_Config: access widths, update rules, Offset, AccessAs, buffer fields. */
//! eval \WRIO
//! eval \WRMM
//! eval \UPDR
//! eval \BIGF
//! eval \PCI0.DEV1.RDPC
//! eval \BFLD
DefinitionBlock ("", "DSDT", 2, "MEMLAB", "FIELDS", 1)
{
    OperationRegion (PIO, SystemIO, 0x0A00, 0x18)
    Field (PIO, ByteAcc, NoLock, Preserve) {
        PB0, 8,
        PB1, 4,
        PB2, 4,
        Offset (4),
        PD0, 32,
    }
    Field (PIO, DWordAcc, NoLock, WriteAsZeros) {
        Offset (8),
        ZLO, 8,
        ZHI, 8,
    }
    Field (PIO, WordAcc, NoLock, WriteAsOnes) {
        Offset (12),
        OLO, 4,
    }
    OperationRegion (MEM, SystemMemory, 0x100000, 0x40)
    Field (MEM, AnyAcc, Lock, Preserve) {
        MQ0, 64,
        MD1, 32,
        , 3,
        MB3, 5,
        AccessAs (ByteAcc),
        Offset (0x10),
        MBIG, 128,
    }
    Method (WRIO, 0) {
        PB0 = 0x5A
        PB1 = 0xF
        PB2 = 0x3
        PD0 = 0x11223344
        Local7 = Package (4) {}
        Store (PB0, Index (Local7, 0))
        Store (PB1, Index (Local7, 1))
        Store (PB2, Index (Local7, 2))
        Store (PD0, Index (Local7, 3))
        Return (Local7)
    }
    Method (WRMM, 0) {
        MQ0 = 0x0123456789ABCDEF
        MD1 = 0xFFFFFFFF
        MB3 = 0x1F
        Local7 = Package (3) {}
        Store (MQ0, Index (Local7, 0))
        Store (MD1, Index (Local7, 1))
        Store (MB3, Index (Local7, 2))
        Return (Local7)
    }
    Method (UPDR, 0) {
        ZHI = 0x77
        OLO = 0x1
        Local7 = Package (3) {}
        Store (ZLO, Index (Local7, 0))
        Store (ZHI, Index (Local7, 1))
        Store (OLO, Index (Local7, 2))
        Return (Local7)
    }
    Method (BIGF, 0) {
        MBIG = Buffer () { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 }
        Return (MBIG)
    }
    Device (PCI0) {
        Name (_HID, EisaId ("PNP0A08"))
        Name (_ADR, 0)
        Name (_BBN, 0)
        Device (DEV1) {
            Name (_ADR, 0x00030001)
            OperationRegion (PCFG, PCI_Config, 0, 0x100)
            Field (PCFG, DWordAcc, NoLock, Preserve) {
                VID, 16,
                DID, 16,
                Offset (0x40),
                SCR, 8,
            }
            Method (RDPC, 0) {
                SCR = 0xA5
                Local7 = Package (3) {}
                Store (VID, Index (Local7, 0))
                Store (DID, Index (Local7, 1))
                Store (SCR, Index (Local7, 2))
                Return (Local7)
            }
        }
    }
    Name (BUF0, Buffer (16) {})
    CreateBitField (BUF0, 3, BIT3)
    CreateByteField (BUF0, 1, BYT1)
    CreateWordField (BUF0, 2, WRD2)
    CreateDWordField (BUF0, 4, DWD4)
    CreateQWordField (BUF0, 8, QWD8)
    CreateField (BUF0, 12, 8, FLD1)
    Method (BFLD, 0) {
        BIT3 = 1
        BYT1 = 0xAA
        WRD2 = 0xBBCC
        DWD4 = 0x11223344
        QWD8 = 0x5566778899AABBCC
        FLD1 = 0xFF
        Local7 = Package (4) {}
        Store (BUF0, Index (Local7, 0))
        Store (BIT3, Index (Local7, 1))
        Store (FLD1, Index (Local7, 2))
        Store (QWD8, Index (Local7, 3))
        Return (Local7)
    }
}

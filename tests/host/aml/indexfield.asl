/* indexfield.asl - IndexField and BankField over SystemIO. */
//! eval \IDXW
//! eval \BNKW
DefinitionBlock ("", "DSDT", 2, "MEMLAB", "IDXFLD", 1)
{
    OperationRegion (IDIO, SystemIO, 0x0B00, 2)
    Field (IDIO, ByteAcc, NoLock, Preserve) {
        INDX, 8,
        DATA, 8,
    }
    IndexField (INDX, DATA, ByteAcc, NoLock, Preserve) {
        Offset (0x10),
        IR10, 8,
        IR11, 4,
        IR1H, 4,
        IR12, 16,
    }
    Method (IDXW, 0) {
        IR10 = 0x42
        IR11 = 0x5
        IR12 = 0xBEEF
        Local7 = Package (4) {}
        Store (IR10, Index (Local7, 0))
        Store (IR11, Index (Local7, 1))
        Store (IR12, Index (Local7, 2))
        Store (INDX, Index (Local7, 3))
        Return (Local7)
    }
    OperationRegion (BKIO, SystemIO, 0x0C00, 4)
    Field (BKIO, ByteAcc, NoLock, Preserve) {
        BSEL, 8,
    }
    BankField (BKIO, BSEL, 1, ByteAcc, NoLock, Preserve) {
        Offset (2),
        BK1, 8,
    }
    BankField (BKIO, BSEL, 2, ByteAcc, NoLock, Preserve) {
        Offset (2),
        BK2, 8,
    }
    Method (BNKW, 0) {
        BK1 = 0x11
        Local0 = BSEL
        BK2 = 0x22
        Local7 = Package (3) {}
        Store (Local0, Index (Local7, 0))
        Store (BSEL, Index (Local7, 1))
        Store (BK2, Index (Local7, 2))
        Return (Local7)
    }
}

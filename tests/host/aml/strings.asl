/* strings.asl - strings, buffers and the conversions between them. */
//! eval \CAT1
//! eval \CAT2
//! eval \CAT3
//! eval \MID1
//! eval \CONV
//! eval \HEXS
//! eval \DECS
//! eval \TOST
//! eval \SIZE
//! eval \RTPL
//! eval \STOR
DefinitionBlock ("", "SSDT", 2, "MEMLAB", "STRINGS", 1)
{
    Name (STR1, "memlab")
    Name (BUF1, Buffer (4) { 1, 2, 3, 4 })
    Name (BUF2, Buffer () { 0x41, 0x42, 0x00, 0x43 })
    Method (CAT1, 0) { Return (Concatenate (STR1, " AML")) }
    Method (CAT2, 0) { Return (Concatenate (BUF1, Buffer () { 5, 6 })) }
    Method (CAT3, 0) { Return (Concatenate (0x1122, 0x3344)) }
    Method (MID1, 0) { 
        Local7 = Package (3) {}
        Store (Mid (STR1, 1, 3), Index (Local7, 0))
        Store (Mid (BUF1, 2, 10), Index (Local7, 1))
        Store (Mid (STR1, 9, 1), Index (Local7, 2))
        Return (Local7)
     }
    Method (CONV, 0) {
        Local7 = Package (5) {}
        Store (ToInteger ("0x1F"), Index (Local7, 0))
        Store (ToInteger ("123"), Index (Local7, 1))
        Store (ToInteger (Buffer () { 1, 2 }), Index (Local7, 2))
        Store (ToBuffer (0x0102), Index (Local7, 3))
        Store (ToBuffer ("hi"), Index (Local7, 4))
        Return (Local7)
    }
    Method (HEXS, 0) { 
        Local7 = Package (2) {}
        Store (ToHexString (0x1A2B), Index (Local7, 0))
        Store (ToHexString (Buffer () { 1, 0xAB }), Index (Local7, 1))
        Return (Local7)
     }
    Method (DECS, 0) { 
        Local7 = Package (2) {}
        Store (ToDecimalString (1234), Index (Local7, 0))
        Store (ToDecimalString (Buffer () { 1, 200 }), Index (Local7, 1))
        Return (Local7)
     }
    Method (TOST, 0) { 
        Local7 = Package (2) {}
        Store (ToString (BUF2, Ones), Index (Local7, 0))
        Store (ToString (Buffer () { 0x61, 0x62, 0x63 }, 2), Index (Local7, 1))
        Return (Local7)
     }
    Method (SIZE, 0) { 
        Local7 = Package (3) {}
        Store (SizeOf (STR1), Index (Local7, 0))
        Store (SizeOf (BUF1), Index (Local7, 1))
        Local6 = Package () { 1, 2, 3 }
        Store (SizeOf (Local6), Index (Local7, 2))
        Return (Local7)
     }
    Method (RTPL, 0) {
        Local0 = ResourceTemplate () { IO (Decode16, 0x60, 0x60, 1, 1) }
        Local1 = ResourceTemplate () { IRQNoFlags () { 1 } }
        Return (ConcatenateResTemplate (Local0, Local1))
    }
    Name (INT2, 0)
    Name (STR2, "")
    Name (BUF3, Buffer (2) { 0, 0 })
    Method (STOR, 0) {
        INT2 = "0x77"
        STR2 = 0xABC
        BUF3 = 0x112233
        Local7 = Package (3) {}
        Store (INT2, Index (Local7, 0))
        Store (STR2, Index (Local7, 1))
        Store (BUF3, Index (Local7, 2))
        Return (Local7)
    }
}

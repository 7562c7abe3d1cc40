/* integers.asl - 64-bit arithmetic and logic, every integer operator. */
//! eval \ARI1
//! eval \ARI2
//! eval \SHF1
//! eval \BITS
//! eval \LOGI
//! eval \DIVI 100 7
//! eval \BCD1
//! eval \INCD
//! eval \CMPS
DefinitionBlock ("", "SSDT", 2, "MEMLAB", "INTEGERS", 1)
{
    Name (INT1, 0x123456789ABCDEF0)
    Method (ARI1, 0) { Return (Add (INT1, 0x10)) }
    Method (ARI2, 0) {
        Local0 = 5 - 7
        Local1 = Local0 * 3
        Local2 = 1000 % 7
        Local7 = Package (5) {}
        Store (Local0, Index (Local7, 0))
        Store (Local1, Index (Local7, 1))
        Store (Local2, Index (Local7, 2))
        Store (Subtract (1, 2), Index (Local7, 3))
        Store (Multiply (0xFFFFFFFF, 0xFFFFFFFF), Index (Local7, 4))
        Return (Local7)
    }
    Method (SHF1, 0) {
        Local7 = Package (4) {}
        Store (ShiftLeft (1, 63), Index (Local7, 0))
        Store (ShiftRight (0x8000000000000000, 60), Index (Local7, 1))
        Store (1 << 64, Index (Local7, 2))
        Store (0xF0 >> 4, Index (Local7, 3))
        Return (Local7)
    }
    Method (BITS, 0) {
        Local0 = 0
        Local1 = 0
        Local2 = 0
        FindSetLeftBit (0x00F0, Local0)
        FindSetRightBit (0x00F0, Local1)
        FindSetLeftBit (0, Local2)
        Local7 = Package (9) {}
        Store (And (0xFF, 0x0F), Index (Local7, 0))
        Store (Or (0xF0, 0x0F), Index (Local7, 1))
        Store (Xor (0xFF, 0x0F), Index (Local7, 2))
        Store (Nand (0xFF, 0x0F), Index (Local7, 3))
        Store (Nor (0xF0, 0x0F), Index (Local7, 4))
        Store (Not (0), Index (Local7, 5))
        Store (Local0, Index (Local7, 6))
        Store (Local1, Index (Local7, 7))
        Store (Local2, Index (Local7, 8))
        Return (Local7)
    }
    Method (LOGI, 0) {
        Local7 = Package (9) {}
        Store (LAnd (1, 2), Index (Local7, 0))
        Store (LOr (0, 0), Index (Local7, 1))
        Store (LNot (0), Index (Local7, 2))
        Store (LEqual (3, 3), Index (Local7, 3))
        Store (LNotEqual (3, 3), Index (Local7, 4))
        Store (LGreater (4, 3), Index (Local7, 5))
        Store (LLess (4, 3), Index (Local7, 6))
        Store (LGreaterEqual (3, 3), Index (Local7, 7))
        Store (LLessEqual (4, 3), Index (Local7, 8))
        Return (Local7)
    }
    Method (DIVI, 2) {
        Divide (Arg0, Arg1, Local0, Local1)
        Local7 = Package (2) {}
        Store (Local0, Index (Local7, 0))
        Store (Local1, Index (Local7, 1))
        Return (Local7)
    }
    Method (BCD1, 0) { 
        Local7 = Package (2) {}
        Store (ToBCD (1234), Index (Local7, 0))
        Store (FromBCD (0x5678), Index (Local7, 1))
        Return (Local7)
     }
    Method (INCD, 0) {
        Local0 = 10
        Local0++
        Local0++
        Local0--
        Local1 = 0
        Decrement (Local1)
        Local7 = Package (2) {}
        Store (Local0, Index (Local7, 0))
        Store (Local1, Index (Local7, 1))
        Return (Local7)
    }
    Method (CMPS, 0) {
        Local7 = Package (4) {}
        Store (LEqual ("abc", "abc"), Index (Local7, 0))
        Store (LLess ("abc", "abd"), Index (Local7, 1))
        Store (LGreater (Buffer () {2}, Buffer () {1, 5}), Index (Local7, 2))
        Store (LEqual (0x10, "10"), Index (Local7, 3))
        Return (Local7)
    }
}

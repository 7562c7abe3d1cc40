/* packages.asl - packages, references, Index, DerefOf, RefOf, CondRefOf, Match. */
//! eval \PKG1
//! eval \IDX1
//! eval \IDX2
//! eval \REF1
//! eval \CREF
//! eval \MAT1
//! eval \VARP 3
//! eval \OTYP
//! eval \NEST
//! eval \REFA
DefinitionBlock ("", "SSDT", 2, "MEMLAB", "PACKAGES", 1)
{
    Name (PKG1, Package () { 1, "two", Buffer () { 3, 3 }, Package () { 4, Package () { 5 } } })
    Name (PKG2, Package (4) { 10, 20 })
    Name (BUF1, Buffer () { 9, 8, 7 })
    Method (IDX1, 0) {
        Store (99, Index (PKG2, 3))
        Return (DerefOf (Index (PKG1, 1)))
    }
    Method (IDX2, 0) {
        BUF1[1] = 0x55
        Local0 = DerefOf (BUF1[2])
        Local7 = Package (3) {}
        Store (BUF1, Index (Local7, 0))
        Store (Local0, Index (Local7, 1))
        Store (DerefOf (PKG2[3]), Index (Local7, 2))
        Return (Local7)
    }
    Name (INT1, 42)
    Method (REF1, 0) {
        Local0 = RefOf (INT1)
        Local1 = DerefOf (Local0)
        Return (Local1 + 1)
    }
    Method (CREF, 0) {
        Local0 = 0
        Local1 = 0
        If (CondRefOf (INT1, Local2)) { Local0 = DerefOf (Local2) }
        If (CondRefOf (\NOPE)) { Local1 = 1 }
        Local7 = Package (2) {}
        Store (Local0, Index (Local7, 0))
        Store (Local1, Index (Local7, 1))
        Return (Local7)
    }
    Name (MPKG, Package () { 1, 5, 9, 12, 20 })
    Method (MAT1, 0) {
        Local7 = Package (3) {}
        Store (Match (MPKG, MGT, 8, MTR, 0, 0), Index (Local7, 0))
        Store (Match (MPKG, MEQ, 7, MTR, 0, 0), Index (Local7, 1))
        Store (Match (MPKG, MGE, 5, MLT, 12, 2), Index (Local7, 2))
        Return (Local7)
    }
    Method (VARP, 1) {
        Local0 = Package (Arg0) { 7 }
        Return (SizeOf (Local0))
    }
    Method (OTYP, 0) {
        Local0 = "s"
        Local7 = Package (6) {}
        Store (ObjectType (INT1), Index (Local7, 0))
        Store (ObjectType (Local0), Index (Local7, 1))
        Store (ObjectType (PKG1), Index (Local7, 2))
        Store (ObjectType (BUF1), Index (Local7, 3))
        Store (ObjectType (REF1), Index (Local7, 4))
        Store (ObjectType (\_SB), Index (Local7, 5))
        Return (Local7)
    }
    Method (NEST, 0) { Return (DerefOf (Index (DerefOf (Index (DerefOf (Index (PKG1, 3)), 1)), 0))) }
    Method (SETR, 1) { Arg0 = 0x77 }
    Name (INT3, 1)
    Method (REFA, 0) {
        SETR (RefOf (INT3))
        Return (INT3)
    }
}

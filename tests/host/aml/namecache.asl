/* namecache.asl - a call site's name found anew when a method creates a nearer one, a missing one appears, or both go away when it returns (the interpreter keeps each site's lookup). */
//! eval \TST1
//! eval \TST1
//! eval \TST2
//! eval \TST2
//! eval \TST3 3
//! eval \DEV0.TST4
DefinitionBlock ("", "SSDT", 2, "MEMLAB", "NAMECACH", 1)
{
    Name (VALX, 1)
    Device (DEV0) {
        Method (GETV, 0) { Return (VALX) }
        /* a VALX nearer to GETV than the root's, while MKV runs */
        Method (MKV, 0) {
            Name (\DEV0.VALX, 2)
            Return (GETV ())
        }
        Method (TST4, 0) {
            Local0 = 0
            Local1 = 0
            While (Local1 < 4) {
                Local0 += GETV ()
                If (Local1 == 1) { Local0 += MKV () * 10 }
                Local1++
            }
            Return (Local0)
        }
    }
    Method (TST1, 0) {
        Local0 = \DEV0.GETV ()
        Local1 = \DEV0.MKV ()
        Local2 = \DEV0.GETV ()
        Return (Local0 * 100 + Local1 * 10 + Local2)
    }
    /* a name missing, then made by a method, then gone */
    Method (HAS, 0) {
        If (CondRefOf (\ZZZ1)) { Return (1) }
        Return (0)
    }
    Method (MKZ, 0) {
        Name (\ZZZ1, 5)
        Return (HAS () * 10 + \ZZZ1)
    }
    Method (TST2, 0) {
        Local0 = HAS ()
        Local1 = MKZ ()
        Local2 = HAS ()
        Return (Local0 * 1000 + Local1 * 10 + Local2)
    }
    /* the same site in a loop, the name made in the loop's third round */
    Method (TST3, 1) {
        Local0 = 0
        Local1 = 0
        While (Local1 < Arg0) {
            If (Local1 == 2) { Name (\ZZZ2, 7) }
            If (CondRefOf (\ZZZ2)) { Local0 += 100 } Else { Local0 += 1 }
            Local1++
        }
        Return (Local0)
    }
}

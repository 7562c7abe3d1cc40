/* control.asl - If/Else, While with Break and Continue, Return from inside loops. */
//! eval \LOOP 10
//! eval \BRK1
//! eval \CONT
//! eval \IFEL 0
//! eval \IFEL 1
//! eval \IFEL 2
//! eval \RETL
//! eval \NORT
DefinitionBlock ("", "SSDT", 2, "MEMLAB", "CONTROL", 1)
{
    Method (LOOP, 1) {
        Local0 = 0
        Local1 = 0
        While (Local0 < Arg0) { Local1 += Local0; Local0++ }
        Return (Local1)
    }
    Method (BRK1, 0) {
        Local0 = 0
        While (One) { Local0++; If (Local0 == 5) { Break } }
        Return (Local0)
    }
    Method (CONT, 0) {
        Local0 = 0
        Local1 = 0
        While (Local0 < 10) {
            Local0++
            If (Local0 & 1) { Continue }
            Local1 += Local0
        }
        Return (Local1)
    }
    Method (IFEL, 1) {
        If (Arg0 == 0) { Return ("zero") }
        ElseIf (Arg0 == 1) { Return ("one") }
        Else { Return ("many") }
    }
    Method (RETL, 0) {
        Local0 = 0
        While (1) { While (1) { Local0++; If (Local0 > 3) { Return (Local0) } } }
    }
    Name (FLAG, 0)
    Method (NORT, 0) { FLAG = 1 }
}

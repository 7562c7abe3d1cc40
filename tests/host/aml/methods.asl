/* methods.asl - calls with arguments, recursion, named objects inside methods, serialized methods. */
//! eval \FACT 10
//! eval \FIB 12
//! eval \ARGS 1 2 3 4 5 6 7
//! eval \TMPN
//! eval \TMPN
//! eval \SERM
//! eval \MUTX
//! eval \EVNT
DefinitionBlock ("", "SSDT", 2, "MEMLAB", "METHODS", 1)
{
    Method (FACT, 1) {
        If (Arg0 <= 1) { Return (1) }
        Return (Arg0 * FACT (Arg0 - 1))
    }
    Method (FIB, 1) {
        If (Arg0 < 2) { Return (Arg0) }
        Return (FIB (Arg0 - 1) + FIB (Arg0 - 2))
    }
    Method (ARGS, 7) { Return (Arg0 + Arg1 + Arg2 + Arg3 + Arg4 + Arg5 + Arg6) }
    Method (TMPN, 0) {
        Name (TEMP, 5)
        TEMP++
        Return (TEMP)
    }
    Method (SERM, 0, Serialized) {
        Name (SBUF, Buffer (4) {})
        CreateDWordField (SBUF, 0, SDW0)
        SDW0 = 0xCAFE
        Return (SBUF)
    }
    Mutex (MTX1, 0)
    Method (MUTX, 0) {
        Local0 = Acquire (MTX1, 0xFFFF)
        Release (MTX1)
        Return (Local0)
    }
    Event (EVT1)
    Method (EVNT, 0) {
        Signal (EVT1)
        Local0 = Wait (EVT1, 10)
        Local1 = Wait (EVT1, 10)
        Local7 = Package (2) {}
        Store (Local0, Index (Local7, 0))
        Store (Local1, Index (Local7, 1))
        Return (Local7)
    }
}

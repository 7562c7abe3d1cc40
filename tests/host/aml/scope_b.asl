/* scope_b.asl - the second table of scope_a.asl: adds to \_SB and calls back into the first. */
DefinitionBlock ("", "SSDT", 2, "MEMLAB", "SCOPEB", 1)
{
    External (\_SB.DEV0, DeviceObj)
    External (\TOPV, IntObj)
    Scope (\_SB) {
        Device (DEV1) {
            Name (VAL1, 0x333)
            Method (MTHB, 1) { Return (Arg0 + TOPV) }
        }
    }
    Scope (\_SB.DEV0) {
        Name (FRMB, 1)
    }
}

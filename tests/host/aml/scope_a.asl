/* scope_a.asl - scopes, search rules up the tree, aliases, and names another table (scope_b.asl) defines through External. */
//! tables scope_a scope_b
//! eval \_SB.DEV0.UPRL
//! eval \_SB.DEV0.SUB0.UPSR
//! eval \_SB.DEV0.ALI0
//! eval \_SB.DEV0.EXT1
//! eval \_SB.DEV0.CALB
//! eval \_SB.DEV1.VAL1
DefinitionBlock ("", "DSDT", 2, "MEMLAB", "SCOPEA", 1)
{
    External (\_SB.DEV1.VAL1, IntObj)
    External (\_SB.DEV1.MTHB, MethodObj)
    Name (TOPV, 0x100)
    Scope (\_SB) {
        Device (DEV0) {
            Name (_HID, "MEML0001")
            Name (LOCV, 0x200)
            Method (UPRL, 0) { Return (TOPV + LOCV) }
            Device (SUB0) {
                Name (_ADR, 1)
                Method (UPSR, 0) { Return (^^LOCV + \TOPV) }
            }
            Alias (LOCV, ALI0)
            Method (EXT1, 0) { Return (\_SB.DEV1.VAL1) }
            Method (CALB, 0) { Return (\_SB.DEV1.MTHB (5)) }
        }
    }
}

/* hostile.asl - AML that must fail, bounded: an endless While, endless recursion, a huge Buffer, a divide by zero.  Not compared with acpiexec (which runs its own limits). */
DefinitionBlock ("", "SSDT", 2, "MEMLAB", "HOSTILE", 1)
{
    Method (LOOP, 0) { While (One) { Noop } }
    Method (RECU, 1) { Return (RECU (Arg0 + 1)) }
    Method (HUGE, 0) { Local0 = Buffer (0x10000000) {} Return (SizeOf (Local0)) }
    Method (GROW, 0) {
        Local0 = "x"
        While (One) { Local0 = Concatenate (Local0, Local0) }
    }
    Method (DIV0, 1) { Return (10 / Arg0) }
    Method (NEST, 1) {
        Return (Add (1, Add (1, Add (1, Add (1, Add (1, Add (1, Add (1, Add (1, Add (1, Add (1,
                Add (1, Add (1, Add (1, Add (1, Add (1, Add (1, Add (1, Add (1, Add (1, Arg0))))))))))))))))))))
    }
    Method (FINE, 0) { Return (7) }
    Method (STA1, 0) { Return (RECU (0)) }
    Device (DEVL) {
        Name (_HID, "MEML0002")
        Method (_STA, 0) { Return (STA1 ()) }
        Method (_INI, 0) { LOOP () }
    }
    Device (DEVI) {
        Name (_HID, "MEML0002")
        Method (_INI, 0) { LOOP () }
    }
}

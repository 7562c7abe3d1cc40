/*
 * arch/traps.h for the host: the kernel's own declarations (see
 * tests/host/arch/paging.h).  A test program that compiles a driver calling
 * irq_register_sci() or apic_dump() defines them.
 */
#include "../../../arch/x86_64/include/arch/traps.h"

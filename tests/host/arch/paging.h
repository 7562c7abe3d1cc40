/*
 * arch/paging.h for the host: the kernel's own declarations.
 *
 * Host builds search -Itests/host, not arch/x86_64/include, so a driver
 * compiled for the host (tests/host/test_acpi.c, tests/fuzz/fuzz_acpi.c)
 * finds this file.  Nothing here is redefined: ioremap() and the rest are
 * declared by the real header and defined by the test program that uses
 * them (ioremap() over a buffer that stands for physical memory).
 */
#include "../../../arch/x86_64/include/arch/paging.h"

/*
 * internal.h - what drivers/acpi/ keeps to itself, shown to its fuzz
 * harness (tests/fuzz/fuzz_acpi.c, its checks in tests/fuzz/acpi_harness.c),
 * which checks every table the driver took in, rejected ones included: the
 * public acpi_find_table() returns only the accepted ones, by signature.
 * Nothing outside drivers/acpi/ and that harness includes this header.
 */
#ifndef DRIVERS_ACPI_INTERNAL_H
#define DRIVERS_ACPI_INTERNAL_H

#include <lib/types.h>

struct acpi_sdt_header;

#define ACPI_MAX_TABLES	64	/* tables the root may list (more are ignored) */

/*
 * acpi_table_entry() - the i-th table acpi_tables_init() saw (from 0): its
 * signature (a NUL-terminated copy), where the firmware put it, the length
 * its header gives (0 if unreadable), and the mapped header, NULL if it was
 * rejected.  Returns false past the last one.  Context: main loop.
 */
bool acpi_table_entry(unsigned i, const char **sig, phys_addr_t *phys, u32 *length,
		      const struct acpi_sdt_header **hdr);

#endif

/*
 * acpi_harness.h - the platform model and the checks of the ACPI fuzz
 * target (tests/fuzz/fuzz_acpi.c), which live in acpi_harness.c.
 *
 * fuzz_acpi.c turns each input into a memory image of firmware tables
 * (raw, built, records) and calls run() on it; run() boots the ACPI code
 * on that image, the APIC and the power paths on what it accepted, and
 * checks every result (a violation is a __builtin_trap()).
 */
#ifndef ACPI_HARNESS_H
#define ACPI_HARNESS_H

#include <stddef.h>
#include <lib/types.h>

#define CHECK(cond)	do { if (!(cond)) __builtin_trap(); } while (0)

#define IMG_PHYS	0x7fe0000ULL	/* where q35 puts its tables with 128 MiB */
#define IMG_MAX		(1u << 20)

/* The memory image ioremap() serves at IMG_PHYS: exactly img_len bytes
 * (ASan-checked), malloc()ed by the caller of run(). */
extern u8 *img;
extern size_t img_len;

/*
 * run() - boot the ACPI code on img as a boot loader that copied rsdp_len
 * bytes of RSDP from its start under multiboot2 tag `tag` (14 or 15) would,
 * then check the tables, NUMA, MADT, CPUs, ports, memory hotplug, APIC,
 * power off and reset, and every view.
 */
void run(size_t rsdp_len, u32 tag);

#endif

/*
 * sections.h - where the kernel image lies, from linker.ld.
 *
 * The image is linked at KERNEL_VMA + its physical load address (GRUB loads
 * it at 1 MiB), so a symbol's physical address is its address minus
 * KERNEL_VMA.  All ranges are half-open [start, end).
 */
#ifndef ARCH_SECTIONS_H
#define ARCH_SECTIONS_H

#include <lib/types.h>

#define KERNEL_VMA	0xffffffff80000000ULL	/* -mcmodel=kernel base */

extern char _kernel_start[];	/* first byte loaded (the multiboot2 header) */
extern char _text[], _etext[];	/* code */
extern char _rodata[], _erodata[]; /* read-only data, command and test tables */
extern char _data[], _edata[];	/* initialised data */
extern char _bss[], _ebss[];	/* zeroed data, boot stack, page-table pool */
extern char _end[];		/* one past the last byte of the image */

/* kernel_pa() - physical address of a kernel-image address (not the direct map). */
static inline phys_addr_t kernel_pa(const void *p)
{
	u64 v = (u64)(uintptr_t)p;

	return v >= KERNEL_VMA ? v - KERNEL_VMA : v;
}

#endif

/*
 * mm_host.h - the host's simulated machine for mm/ tests.
 *
 * host_mm_reset(ram_bytes) gives a fresh machine: physical memory
 * [0, ram_bytes) backed by an anonymous mapping (mm_phys_to_virt), an empty
 * vmemmap reservation covering physical addresses below HOST_MAX_PHYS
 * (populated sections become readable and writable, the rest faults like an
 * unmapped vmemmap would), an empty section table and zeroed nodes.
 */
#ifndef HOST_MM_HOST_H
#define HOST_MM_HOST_H

#include <lib/types.h>

#define HOST_MAX_PHYS	(1ULL << 40)	/* vmemmap covers pfns below 1 TiB */

void host_mm_reset(u64 ram_bytes);

/* host_root_alloc() - a zeroed 4 KiB page for sparse roots (freed by reset). */
void *host_root_alloc(void *ctx);

/* host_page_table_pa - a page the host's mm_page_table_in() reports as a
 * page table (0: none); tests set it and put it back to 0. */
extern phys_addr_t host_page_table_pa;

/* host_cycles_hook - called by every mm_cycles() while set (NULL: none), on
 * the calling thread: a test's way to stop a thread at a point mm marks
 * with a clock read (test_memmap_cpus.c: a helper just after its claim).
 * Set and cleared only while no other thread runs. */
extern void (*host_cycles_hook)(void);

/* host_pt_pages - how many page-table pages mm asked the platform for. */
extern u64 host_vmemmap_populated_pages;	/* struct pages made accessible */

#endif

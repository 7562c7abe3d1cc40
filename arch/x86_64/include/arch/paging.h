/*
 * arch/paging.h - x86_64 page tables: the direct map, the kernel image,
 * and mappings of device or firmware memory.
 *
 * Virtual layout (Linux x86_64, 4-level paging, no KASLR):
 *   0xffff888000000000 + phys   direct map of RAM (and ACPI data/NVS)
 *   0xffffc90000000000 ...      ioremap area: firmware tables, MMIO
 *   0xffffea0000000000 ...      vmemmap (struct pages; mm/sparse.c)
 *   0xffffffff80000000 + phys   the kernel image
 * Nothing is mapped below the canonical hole: a NULL dereference faults.
 *
 * Page-table pages come from a static pool in .bss (PT_POOL_PAGES pages);
 * when it runs out, paging fails with -ENOMEM and says so.  The memory core
 * will later hand paging a page allocator (paging_set_pt_allocator()).
 *
 * Context: boot, then main loop (no locking).
 */
#ifndef ARCH_PAGING_H
#define ARCH_PAGING_H

#include <lib/types.h>
#include <lib/printer.h>
#include <lib/fw_memmap.h>

#define PAGE_SHIFT		12
#define PAGE_SIZE		(1ULL << PAGE_SHIFT)
#define DIRECT_MAP_BASE		0xffff888000000000ULL
#define IOREMAP_BASE		0xffffc90000000000ULL
#define IOREMAP_SIZE		(1ULL << 40)
#define VMEMMAP_BASE		0xffffea0000000000ULL
#define VMEMMAP_SIZE		(1ULL << 40)	/* 2^34 pfns * 64 bytes: 64 TiB of RAM */

static inline void *phys_to_virt(phys_addr_t pa)
{
	return (void *)(uintptr_t)(pa + DIRECT_MAP_BASE);
}

static inline phys_addr_t virt_to_phys(const void *va)
{
	return (phys_addr_t)(uintptr_t)va - DIRECT_MAP_BASE;
}

/*
 * paging_init() - build the final page tables and switch to them: the kernel
 * image with per-section permissions (text RX, rodata R+NX, data/bss RW+NX),
 * and the direct map of every RAM, ACPI and NVS range of map, with 1 GiB
 * pages where the CPU has them and the range allows, 2 MiB where it allows,
 * 4 KiB at unaligned edges.  The boot identity map is dropped.
 * Panics with the range and the reason if the tables cannot be built.
 */
void paging_init(const struct fw_memmap *map, const phys_addr_t (*avoid)[2], unsigned nr_avoid);

/*
 * The boot table area (arch/x86_64/boot_tables.c): when the direct map of
 * the firmware map needs more table pages than the .bss pool holds (no
 * 1 GiB pages, hundreds of GiB of RAM), paging_init() takes the rest from
 * one run of RAM in [BOOT_TABLES_LOW, BOOT_TABLES_LIMIT), the part the boot
 * stub's identity map reaches.
 */
#define BOOT_TABLES_LOW		0x100000ULL	/* above the first MiB (BIOS, trampoline) */
#define BOOT_TABLES_LIMIT	0x100000000ULL	/* below 4 GiB: the identity map's end */

/* boot_tables_needed() - an upper bound of the table pages the direct map
 * of map's RAM, ACPI and NVS ranges needs, with or without 1 GiB pages.
 * Pure arithmetic.  Context: any. */
u64 boot_tables_needed(const struct fw_memmap *map, bool gbpages);

/* boot_tables_area_pick() - the highest run of `pages` whole pages of RAM
 * of map inside [BOOT_TABLES_LOW, BOOT_TABLES_LIMIT) that overlaps none of
 * the nr ranges [avoid[i][0], avoid[i][1]); 0 if there is none.  Pure
 * arithmetic.  Context: any. */
phys_addr_t boot_tables_area_pick(const struct fw_memmap *map, u64 pages,
				  const phys_addr_t (*avoid)[2], unsigned nr);

/* paging_boot_area() - the run of RAM paging_init() took for table pages
 * ([*start, *end), both 0 if it took none), for memblock to reserve.
 * Context: init. */
void paging_boot_area(phys_addr_t *start, phys_addr_t *end);

/*
 * paging_map_direct() - add [phys, phys+size) to the direct map (writeback).
 * Both must be 4 KiB aligned.  allow_1g: may use 1 GiB pages (boot memory;
 * hot-added memory uses at most 2 MiB pages so each 128 MiB memory block can
 * be unmapped on its own).  Returns 0, -EINVAL, or -ENOMEM (no table pages).
 * paging_unmap_direct() removes such a range again.
 */
int paging_map_direct(phys_addr_t phys, u64 size, bool allow_1g);
int paging_unmap_direct(phys_addr_t phys, u64 size);

/* What /proc/meminfo shows of the page tables (DirectMap4k/2M/1G, PageTables). */
struct paging_stats {
	u64 direct_4k, direct_2m, direct_1g;	/* direct-map pages of each size */
	u64 table_pages;			/* page-table pages in use (pool + boot area + mm) */
	bool gbpages;				/* the CPU has 1 GiB pages */
};

/* paging_get_stats() - fill *st.  Context: main loop. */
void paging_get_stats(struct paging_stats *st);

enum ioremap_cache { IOREMAP_UC, IOREMAP_WB };

/*
 * ioremap() - map [phys, phys+size) (any alignment) in the ioremap area,
 * uncached for MMIO or writeback for firmware tables, and return the virtual
 * address of phys.  Mappings are never torn down (the area is 1 TiB).
 * Returns NULL if the area or the table pool is exhausted.
 */
void *ioremap(phys_addr_t phys, u64 size, enum ioremap_cache cache);

/*
 * paging_map_vmemmap() - map [va, va+size) of the vmemmap area to pa,
 * writable, no-execute, 2 MiB pages where aligned.  0, -EINVAL or -ENOMEM.
 */
int paging_map_vmemmap(u64 va, phys_addr_t pa, u64 size);

/*
 * paging_remap() - point the mapped range [va, va+size) at new_pa instead of
 * old_pa, page by page with the same page sizes and flags (the contents were
 * copied by the caller).  Every page must map the matching part of old_pa
 * and lie wholly inside the range, and new_pa must share each page's
 * alignment; -EFAULT (a hole) or -EINVAL otherwise, and nothing changed.
 * The local TLB is flushed page by page, and with more CPUs online every
 * CPU's through smp_flush_tlb_range() (arch/smp.h).
 */
int paging_remap(u64 va, phys_addr_t old_pa, phys_addr_t new_pa, u64 size);

/*
 * paging_unmap() - remove the mappings of [va, va+size); every page in the
 * range must lie wholly inside it (no large page is split): -EINVAL else.
 * A PT or PD page left with no entry is freed and unlinked; PDPT pages and
 * the PML4 stay.  The range leaves every online CPU's TLB.
 */
int paging_unmap(u64 va, u64 size);

/* paging_set_pt_source() - where table pages come from once the .bss pool
 * is used up (the page allocator): alloc returns a zeroed page's physical
 * address, or 0; release takes an emptied one back and returns false if it
 * cannot (the page then stays out of use). */
void paging_set_pt_source(phys_addr_t (*alloc)(void), bool (*release)(phys_addr_t pa));

/* paging_table_in() - the physical address of a table page (any level)
 * in [start, end), or 0.  Context: main loop. */
phys_addr_t paging_table_in(phys_addr_t start, phys_addr_t end);

/* paging_count_tables() - how many of the table pages table_pages counts
 * (pool and page allocator, in use in the tables now) in(pa, arg) accepts:
 * the per-node split of PageTables.  Context: main loop. */
u64 paging_count_tables(bool (*in)(phys_addr_t pa, void *arg), void *arg);

/* paging_dump() - direct-map page counts per size and pool use: the text of
 * `pagetables` without an argument.  Context: main loop. */
void paging_dump(struct printer *p);

/* Page-table entry bits: what paging_translate() returns in *flags. */
#define PTE_P		(1ULL << 0)	/* present */
#define PTE_W		(1ULL << 1)	/* writable */
#define PTE_PWT		(1ULL << 3)	/* write-through */
#define PTE_PCD		(1ULL << 4)	/* cache disable */
#define PTE_PS		(1ULL << 7)	/* large page (in PDPT/PD entries) */
#define PTE_G		(1ULL << 8)	/* global */
#define PTE_NX		(1ULL << 63)	/* no execute */
#define PTE_ADDR	0x000ffffffffff000ULL

/* paging_translate() - translate va by walking the live tables: the physical
 * address, the size of the page that maps it and its entry bits (PTE_*);
 * 0 or -EFAULT when va is not mapped.  Context: any. */
int paging_translate(u64 va, phys_addr_t *pa, u64 *page_size, u64 *flags);

#endif

/*
 * paging.c - the kernel's page tables.
 *
 * One set of tables serves the whole kernel (there are no processes).  It
 * holds three kinds of mappings, built by map_range() below:
 *  - the kernel image at KERNEL_VMA, 4 KiB pages with the permissions of
 *    each section, so a stray write to code or rodata faults;
 *  - the direct map: every RAM/ACPI/NVS byte at DIRECT_MAP_BASE + phys,
 *    with the largest pages that fit (1 GiB, 2 MiB, else 4 KiB);
 *  - ioremap mappings of firmware tables and MMIO in their own area.
 *
 * Page-table pages come from pt_pool (in .bss, so it is covered by the
 * kernel mapping and needs no allocator), then, when the boot direct map
 * needs more than the pool holds, from the boot table area (one run of RAM
 * below 4 GiB sized from the firmware map, boot_tables.c), and once the page
 * allocator runs from it.  A table page in the pool is reached through the
 * kernel image mapping, one of the area through the boot stub's identity
 * map until paging_init() switches tables, any other one through the
 * direct map (pt_virt()).
 *
 * Unmapping frees the tables it empties: a page table (PT), page
 * directory (PD) or PDPT (the level the PML4 points to, 512 GiB of virtual
 * space each) whose 512 entries are all clear afterwards goes back where
 * it came from (the pool's free list, or the page allocator) and its entry
 * in the level above is cleared.  Only the PML4 stays, the root every
 * mapping hangs from.  Linux keeps its PDPT level with 4-level paging (its
 * kernel PGD entries are copied into every process's page tables); memlab
 * has one PML4 and no copies, so it can give them back.
 */
#include <arch/paging.h>
#include <arch/cpu.h>
#include <arch/sections.h>
#include <lib/printk.h>
#include <lib/errno.h>
#include <lib/string.h>
#include <arch/smp.h>


extern char boot_stack_guard[], boot_stack[];

#define PT_POOL_PAGES	512		/* 2 MiB of page-table pages (paging_init()'s message) */

static u64 pt_pool[PT_POOL_PAGES][512] __aligned(4096);
static unsigned pt_pool_used;			/* pool pages ever handed out */
static u16 pt_pool_free[PT_POOL_PAGES];		/* freed pool pages, a stack */
static unsigned pt_pool_nr_free;
static u64 *kernel_pml4;
static u64 nx_bit;			/* PTE_NX if the CPU has NX, else 0 */
static u64 ioremap_next = IOREMAP_BASE;

/*
 * The boot table area: [pt_area_start, + pt_area_pages pages), the first
 * pt_area_used of them handed out; freed ones are chained through their
 * first word (pt_area_free, a physical address, 0 = none).  Written through
 * the identity map while pt_area_identity, through the direct map after.
 */
static phys_addr_t pt_area_start;
static u64 pt_area_pages, pt_area_used, pt_area_nr_free;
static phys_addr_t pt_area_free;
static bool pt_area_identity;

static bool in_area(u64 pa)
{
	return pt_area_pages && pa >= pt_area_start && pa < pt_area_start + pt_area_pages * PAGE_SIZE;
}

/* Direct-map pages by size, for `pagetables`. */
static u64 direct_pages_1g, direct_pages_2m, direct_pages_4k;

static bool in_image(u64 pa)
{
	return pa >= kernel_pa(_kernel_start) && pa < kernel_pa(_end);
}

static u64 *pt_virt(u64 pa)
{
	if (in_image(pa))
		return (u64 *)(uintptr_t)(pa + KERNEL_VMA);
	if (pt_area_identity && in_area(pa))
		return (u64 *)(uintptr_t)pa;
	return phys_to_virt(pa);
}

static phys_addr_t (*pt_page_source)(void);	/* after the pool: mm's allocator */
static bool (*pt_page_release)(phys_addr_t pa);	/* and back to it */
static u64 pt_pages_from_mm;			/* from mm, in use as tables now */
static u64 pt_pages_freed;			/* tables freed by unmapping, ever */
static u64 pt_upper_pages;			/* PDPT pages in use (made, less freed) */

/* Whether table page va is one of pt_pool's. */
static bool pt_in_pool(const void *va)
{
	return va >= (const void *)pt_pool[0] && va < (const void *)pt_pool[PT_POOL_PAGES];
}

static u64 pt_phys(const u64 *table);

/* A zeroed table page: a freed pool page, a new pool page, a page of the
 * boot table area (freed, then new), else mm's. */
static u64 *pt_alloc(void)
{
	u64 *page;

	if (pt_pool_nr_free) {
		page = pt_pool[pt_pool_free[--pt_pool_nr_free]];
	} else if (pt_pool_used < PT_POOL_PAGES) {
		page = pt_pool[pt_pool_used++];
	} else if (pt_area_free) {
		page = pt_virt(pt_area_free);
		pt_area_free = page[0];
		pt_area_nr_free--;
	} else if (pt_area_used < pt_area_pages) {
		page = pt_virt(pt_area_start + pt_area_used++ * PAGE_SIZE);
	} else {
		phys_addr_t pa = pt_page_source ? pt_page_source() : 0;

		if (!pa)
			return NULL;
		pt_pages_from_mm++;
		return phys_to_virt(pa);	/* zeroed by the source */
	}
	memset(page, 0, PAGE_SIZE);
	return page;
}

/*
 * Give an empty table page back where it came from.  A page mm cannot take
 * back (one memblock handed out at boot, PageReserved) stays out of use
 * and is still counted as from the page allocator.  Context: (main).
 */
static void pt_free(u64 *table)
{
	pt_pages_freed++;
	if (pt_in_pool(table)) {
		pt_pool_free[pt_pool_nr_free++] = (u16)(((u64 *)table - pt_pool[0]) / 512);
		return;
	}
	if (in_area(pt_phys(table))) {
		table[0] = pt_area_free;
		pt_area_free = pt_phys(table);
		pt_area_nr_free++;
		return;
	}
	if (pt_page_release && pt_page_release(virt_to_phys(table)))
		pt_pages_from_mm--;
}

void paging_set_pt_source(phys_addr_t (*alloc)(void), bool (*release)(phys_addr_t pa))
{
	pt_page_source = alloc;
	pt_page_release = release;
}

/* The table page's physical address, wherever it came from. */
static u64 pt_phys(const u64 *table)
{
	u64 va = (u64)(uintptr_t)table;

	if (va >= KERNEL_VMA)
		return kernel_pa(table);
	if (pt_area_identity && in_area(va))
		return va;
	return virt_to_phys(table);
}

/* Index of va in the table of `level` (4 = PML4, 3 = PDPT, 2 = PD, 1 = PT). */
static unsigned pt_index(u64 va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * (level - 1))) & 511;
}

/*
 * Return the entry that maps va at `level`, creating the tables above it.
 * Returns NULL if a table page cannot be had, or if a larger page already
 * maps va (*busy is then set).
 */
static u64 *pt_entry(u64 va, int level, bool *busy)
{
	u64 *table = kernel_pml4;

	*busy = false;
	for (int lvl = 4; lvl > level; lvl--) {
		u64 *e = &table[pt_index(va, lvl)];

		if (!(*e & PTE_P)) {
			u64 *next = pt_alloc();

			if (!next)
				return NULL;
			if (lvl == 4)
				pt_upper_pages++;
			*e = pt_phys(next) | PTE_P | PTE_W;
		} else if (*e & PTE_PS) {
			*busy = true;
			return NULL;
		}
		table = pt_virt(*e & PTE_ADDR);
	}
	return &table[pt_index(va, level)];
}

/*
 * Map [va, va+size) to [pa, pa+size) with flags, using 1 GiB pages when
 * allow_1g and the CPU has them, 2 MiB pages where alignment and size allow,
 * else 4 KiB.  Page-aligned arguments only.  A page that already maps the
 * same physical address is left alone; any other existing mapping is an
 * error.  Returns 0, -ENOMEM (pool empty) or -EEXIST.
 *
 * Consecutive entries of one table are filled without walking down from
 * the root again (a 64 GiB memmap is 32768 entries of 2 MiB in 64 page
 * directories: 64 walks, not 32768).  An entry that was not present gets
 * no invlpg: x86 caches no translation of a not-present entry (SDM 4.10.2.3),
 * and neither does QEMU's TLB.
 */
static int map_range(u64 va, u64 pa, u64 size, u64 flags, bool allow_1g,
		     u64 *count_1g, u64 *count_2m, u64 *count_4k)
{
	u64 *next = NULL;	/* the entry after the last one, same table */
	u64 next_va = 0;
	int next_level = 0;

	while (size) {
		u64 step;
		int level;
		bool busy;
		u64 *e;

		if (allow_1g && boot_cpu.has_pdpe1gb && IS_ALIGNED(va, SZ_1G) &&
		    IS_ALIGNED(pa, SZ_1G) && size >= SZ_1G) {
			step = SZ_1G;
			level = 3;
		} else if (IS_ALIGNED(va, SZ_2M) && IS_ALIGNED(pa, SZ_2M) && size >= SZ_2M) {
			step = SZ_2M;
			level = 2;
		} else {
			step = PAGE_SIZE;
			level = 1;
		}
		if (next && va == next_va && level == next_level) {
			e = next;
		} else {
			e = pt_entry(va, level, &busy);
			if (!e)
				return busy ? -EEXIST : -ENOMEM;
		}
		if (*e & PTE_P) {
			if ((*e & PTE_ADDR) != pa)
				return -EEXIST;
		} else {
			*e = pa | flags | PTE_P | (level > 1 ? PTE_PS : 0);
			if (level == 3 && count_1g)
				(*count_1g)++;
			else if (level == 2 && count_2m)
				(*count_2m)++;
			else if (level == 1 && count_4k)
				(*count_4k)++;
		}
		/* the next entry is in this table unless va crosses its end */
		if ((va + step) & (step * 512 - 1)) {
			next = e + 1;
			next_va = va + step;
			next_level = level;
		} else {
			next = NULL;
		}
		va += step;
		pa += step;
		size -= step;
	}
	return 0;
}

int paging_map_direct(phys_addr_t phys, u64 size, bool allow_1g)
{
	if (!IS_ALIGNED(phys, PAGE_SIZE) || !IS_ALIGNED(size, PAGE_SIZE) || !size)
		return -EINVAL;
	if (phys + size < phys || phys + size > (1ULL << boot_cpu.phys_bits))
		return -EINVAL;
	return map_range(DIRECT_MAP_BASE + phys, phys, size, PTE_W | nx_bit, allow_1g,
			 &direct_pages_1g, &direct_pages_2m, &direct_pages_4k);
}

int paging_unmap_direct(phys_addr_t phys, u64 size)
{
	int err = paging_unmap(DIRECT_MAP_BASE + phys, size);

	if (!err)
		direct_pages_2m -= MIN(direct_pages_2m, size / SZ_2M);	/* hot-added: 2M pages */
	return err;
}

int paging_map_vmemmap(u64 va, phys_addr_t pa, u64 size)
{
	if (!IS_ALIGNED(va, PAGE_SIZE) || !IS_ALIGNED(pa, PAGE_SIZE) || !IS_ALIGNED(size, PAGE_SIZE))
		return -EINVAL;
	if (va < VMEMMAP_BASE || va + size > VMEMMAP_BASE + VMEMMAP_SIZE)
		return -EINVAL;
	return map_range(va, pa, size, PTE_W | nx_bit, false, NULL, NULL, NULL);
}

/*
 * The leaf entry (a 4 KiB PTE, or a 2 MiB / 1 GiB entry with PS) that maps
 * va, and the size it maps in *size; NULL if va is not mapped.  The walk
 * of paging_translate() and paging_remap().  Context: any.
 */
static u64 *leaf_entry(u64 va, u64 *size)
{
	u64 *table = kernel_pml4;

	for (int lvl = 4; lvl >= 1; lvl--) {
		u64 *e = &table[pt_index(va, lvl)];

		*size = 1ULL << (PAGE_SHIFT + 9 * (lvl - 1));
		if (!(*e & PTE_P))
			return NULL;
		if (lvl == 1 || (lvl <= 3 && (*e & PTE_PS)))
			return e;
		table = pt_virt(*e & PTE_ADDR);
	}
	return NULL;
}

/*
 * paging_remap() - see paging.h.  Two passes: the first checks that every
 * page of the range maps the matching byte of [old_pa, old_pa+size) and
 * lies wholly inside the range, the second rewrites the addresses, keeping
 * each entry's flags, and flushes each page from the TLB.  So a refusal
 * changes nothing.  Context: (main).
 */
int paging_remap(u64 va, phys_addr_t old_pa, phys_addr_t new_pa, u64 size)
{
	u64 psize;

	if (!IS_ALIGNED(va, PAGE_SIZE) || !IS_ALIGNED(old_pa, PAGE_SIZE) ||
	    !IS_ALIGNED(new_pa, PAGE_SIZE) || !IS_ALIGNED(size, PAGE_SIZE) || !size)
		return -EINVAL;
	for (u64 off = 0; off < size; off += psize) {
		u64 *e = leaf_entry(va + off, &psize);

		if (!e)
			return -EFAULT;
		if (!IS_ALIGNED(va + off, psize) || off + psize > size ||
		    (*e & PTE_ADDR & ~(psize - 1)) != old_pa + off || !IS_ALIGNED(new_pa + off, psize))
			return -EINVAL;
	}
	for (u64 off = 0; off < size; off += psize) {
		u64 *e = leaf_entry(va + off, &psize);

		*e = (*e & ~(PTE_ADDR & ~(psize - 1))) | (new_pa + off);
		invlpg((void *)(uintptr_t)(va + off));
	}
	if (smp_nr_online() > 1)
		smp_flush_tlb_range(va, size);	/* the other CPUs' TLBs too */
	return 0;
}

/* Whether all 512 entries of a table are clear. */
static bool pt_empty(const u64 *table)
{
	for (unsigned i = 0; i < 512; i++)
		if (table[i])
			return false;
	return true;
}

/*
 * After an entry of the table at `level` (1 = PT, 2 = PD, 3 = PDPT) on
 * va's path was cleared: free that table if it is empty now and clear its
 * entry one level up, then look at the next level up the same way.
 * path[lvl] is the table of level lvl on va's path (path[4] the PML4,
 * which stays).  invlpg also drops this CPU's cached upper-level entries
 * of every address (the paging-structure caches); paging_unmap() then
 * flushes the other CPUs.  Context: (main).
 */
static void pt_prune(u64 *const path[5], int level, u64 va)
{
	for (int lvl = level; lvl <= 3; lvl++) {
		u64 *parent_e = &path[lvl + 1][pt_index(va, lvl + 1)];

		if (!pt_empty(path[lvl]))
			return;
		*parent_e = 0;
		invlpg((void *)(uintptr_t)va);	/* also drops cached upper entries */
		pt_free(path[lvl]);
		if (lvl == 3)
			pt_upper_pages--;
	}
}

/*
 * paging_unmap() - see paging.h.  Each entry cleared is flushed from this
 * CPU's TLB as it goes; once the range is done, with more than one CPU
 * online, smp_flush_tlb_range() drops it from every CPU's (an AP that ever
 * touched the range may hold it; one that did not loses nothing).
 */
static int unmap_range(u64 va, u64 size);

int paging_unmap(u64 va, u64 size)
{
	int err = unmap_range(va, size);

	if (smp_nr_online() > 1)
		smp_flush_tlb_range(va, size);
	return err;
}

static int unmap_range(u64 va, u64 size)
{
	u64 end = va + size;

	while (va < end) {
		u64 *path[5] = { NULL }, *table = kernel_pml4, *e = NULL, psize = 0, next;
		int lvl;

		for (lvl = 4; lvl >= 1; lvl--) {
			path[lvl] = table;
			e = &table[pt_index(va, lvl)];
			psize = 1ULL << (PAGE_SHIFT + 9 * (lvl - 1));
			if (!(*e & PTE_P))
				break;
			if (lvl == 1 || (lvl <= 3 && (*e & PTE_PS)))
				break;
			table = pt_virt(*e & PTE_ADDR);
		}
		if (!(*e & PTE_P)) {		/* already unmapped: skip this level's span */
			next = ALIGN_DOWN(va, psize) + psize;
			/* an earlier part of the range may have emptied this table */
			if (lvl <= 3 && (next >= end || !pt_index(next, lvl)))
				pt_prune(path, lvl, va);
			va = next;
			continue;
		}
		if (!IS_ALIGNED(va, psize) || va + psize > end)
			return -EINVAL;		/* would need to split a large page */
		*e = 0;
		invlpg((void *)(uintptr_t)va);
		next = va + psize;
		/* Last entry of this table in the range: is the table empty now? */
		if (lvl <= 3 && (next >= end || !pt_index(next, lvl)))
			pt_prune(path, lvl, va);
		va = next;
	}
	return 0;
}

static void map_kernel_part(const char *name, void *start, void *end, u64 flags)
{
	u64 va = ALIGN_DOWN((u64)(uintptr_t)start, PAGE_SIZE);
	u64 va_end = ALIGN_UP((u64)(uintptr_t)end, PAGE_SIZE);
	int err = map_range(va, va - KERNEL_VMA, va_end - va, flags, false, NULL, NULL, NULL);

	if (err)
		panic("paging: cannot map kernel %s [%p-%p): error %d", name, start, end, err);
}

/*
 * Size the boot tables from the map: when the direct map may need more
 * pages than the pool has (less a reserve for the ioremaps that come
 * before the page allocator), take the boot table area.  Panics with the
 * numbers if no run of RAM below 4 GiB is big enough.
 */
#define PT_POOL_LATE_RESERVE	64	/* pool pages kept for the kernel image and ioremap */

static void boot_tables_size(const struct fw_memmap *map, const phys_addr_t (*avoid)[2],
			     unsigned nr_avoid)
{
	u64 need = boot_tables_needed(map, boot_cpu.has_pdpe1gb);

	if (need + PT_POOL_LATE_RESERVE <= PT_POOL_PAGES)
		return;
	pt_area_pages = need + PT_POOL_LATE_RESERVE - PT_POOL_PAGES;
	pt_area_start = boot_tables_area_pick(map, pt_area_pages, avoid, nr_avoid);
	if (!pt_area_start)
		panic("paging: the direct map needs up to %llu table pages (%s 1 GiB pages); the "
		      "pool has %u and no run of %llu pages of RAM below 4 GiB is free for the rest",
		      (unsigned long long)need, boot_cpu.has_pdpe1gb ? "with" : "without",
		      PT_POOL_PAGES, (unsigned long long)pt_area_pages);
	pt_area_identity = true;
}

void paging_boot_area(phys_addr_t *start, phys_addr_t *end)
{
	*start = pt_area_pages ? pt_area_start : 0;
	*end = pt_area_pages ? pt_area_start + pt_area_pages * PAGE_SIZE : 0;
}

void paging_init(const struct fw_memmap *map, const phys_addr_t (*avoid)[2], unsigned nr_avoid)
{
	nx_bit = boot_cpu.has_nx ? PTE_NX : 0;
	boot_tables_size(map, avoid, nr_avoid);
	kernel_pml4 = pt_alloc();

	map_kernel_part("boot stub", _kernel_start, _text, nx_bit);
	map_kernel_part("text", _text, _etext, 0);
	map_kernel_part("rodata", _rodata, _erodata, nx_bit);
	/* data and bss, except the guard page below the stack */
	map_kernel_part("data+bss", _data, boot_stack_guard, PTE_W | nx_bit);
	map_kernel_part("stack+bss", boot_stack, _end, PTE_W | nx_bit);

	for (u32 i = 0; i < map->nr; i++) {
		const struct fw_range *r = &map->map[i];
		u64 start, end;
		int err;

		if (r->type != FW_MEM_RAM && r->type != FW_MEM_ACPI && r->type != FW_MEM_NVS)
			continue;
		start = ALIGN_DOWN(r->start, PAGE_SIZE);
		end = ALIGN_UP(r->end, PAGE_SIZE);
		err = paging_map_direct(start, end - start, true);
		if (err)
			panic("paging: cannot direct-map %s [%#llx-%#llx): error %d (%s)%s",
			      fw_mem_type_name(r->type), (unsigned long long)start,
			      (unsigned long long)end, err, err_text(err),
			      pt_pool_used == PT_POOL_PAGES && pt_area_used == pt_area_pages ?
			      "; the boot tables (pool and area) are used up" : "");
	}

	/* Make write protection apply in ring 0 (the boot stub set it too). */
	write_cr0(read_cr0() | CR0_WP);
	write_cr3(kernel_pa(kernel_pml4));
	pt_area_identity = false;	/* the identity map is gone: the direct map from here */
	pr_info("paging: direct map %llu x 1G, %llu x 2M, %llu x 4K pages; %u of %u table pages used%s",
		(unsigned long long)direct_pages_1g, (unsigned long long)direct_pages_2m,
		(unsigned long long)direct_pages_4k, pt_pool_used, PT_POOL_PAGES,
		nx_bit ? "" : "; no NX: data is executable");
	if (pt_area_pages)
		pr_info("paging: boot table area [%#llx-%#llx): %llu of %llu pages used (%s 1 GiB pages)",
			(unsigned long long)pt_area_start,
			(unsigned long long)(pt_area_start + pt_area_pages * PAGE_SIZE),
			(unsigned long long)pt_area_used, (unsigned long long)pt_area_pages,
			boot_cpu.has_pdpe1gb ? "with" : "without");
}

void *ioremap(phys_addr_t phys, u64 size, enum ioremap_cache cache)
{
	u64 start = ALIGN_DOWN(phys, PAGE_SIZE);
	u64 len = ALIGN_UP(phys + size, PAGE_SIZE) - start;
	u64 va = ioremap_next;
	u64 flags = PTE_W | nx_bit | (cache == IOREMAP_UC ? PTE_PCD | PTE_PWT : 0);

	if (!size || phys + size < phys || va + len > IOREMAP_BASE + IOREMAP_SIZE)
		return NULL;
	if (map_range(va, start, len, flags, false, NULL, NULL, NULL))
		return NULL;
	ioremap_next = va + len + PAGE_SIZE;	/* one unmapped guard page */
	return (void *)(uintptr_t)(va + (phys - start));
}

int paging_translate(u64 va, phys_addr_t *pa, u64 *page_size, u64 *flags)
{
	u64 size;
	const u64 *e = leaf_entry(va, &size);

	if (!e)
		return -EFAULT;
	*pa = (*e & PTE_ADDR & ~(size - 1)) | (va & (size - 1));
	*page_size = size;
	*flags = *e & ~PTE_ADDR;
	return 0;
}

/*
 * Every table page hangs from the PML4: walk the levels with plain loops
 * (a PDPT's entries, a PD's, down to the PTs) and ask fn about each table
 * page, the PML4 first; stop at the first one fn answers true for and
 * return its physical address (0 if none).  A few hundred pages, each read
 * once.  Context: main loop.
 */
static phys_addr_t paging_for_each_table(bool (*fn)(phys_addr_t pa, void *arg), void *arg)
{
	if (fn(pt_phys(kernel_pml4), arg))
		return pt_phys(kernel_pml4);
	for (unsigned i4 = 0; i4 < 512; i4++) {
		u64 e4 = kernel_pml4[i4], *pdpt;

		if (!(e4 & PTE_P))
			continue;
		if (fn(e4 & PTE_ADDR, arg))
			return e4 & PTE_ADDR;
		pdpt = pt_virt(e4 & PTE_ADDR);
		for (unsigned i3 = 0; i3 < 512; i3++) {
			u64 e3 = pdpt[i3], *pd;

			if (!(e3 & PTE_P) || (e3 & PTE_PS))
				continue;
			if (fn(e3 & PTE_ADDR, arg))
				return e3 & PTE_ADDR;
			pd = pt_virt(e3 & PTE_ADDR);
			for (unsigned i2 = 0; i2 < 512; i2++) {
				u64 e2 = pd[i2];

				if ((e2 & PTE_P) && !(e2 & PTE_PS) && fn(e2 & PTE_ADDR, arg))
					return e2 & PTE_ADDR;
			}
		}
	}
	return 0;
}

struct pt_range {
	phys_addr_t start, end;
};

/* Whether table page pa lies in the pt_range arg points to. */
static bool pt_page_in(phys_addr_t pa, void *arg)
{
	const struct pt_range *r = arg;

	return pa >= r->start && pa < r->end;
}

phys_addr_t paging_table_in(phys_addr_t start, phys_addr_t end)
{
	struct pt_range r = { start, end };

	return paging_for_each_table(pt_page_in, &r);
}

/* Whether table page pa is one table_pages counts: from the pool or from
 * mm (not the boot code's own tables in the image). */
static bool pt_counted(phys_addr_t pa)
{
	return !in_image(pa) || pt_in_pool(pt_virt(pa));
}

struct pt_count {
	bool (*in)(phys_addr_t pa, void *arg);
	void *arg;
	u64 n;
};

static bool pt_count_one(phys_addr_t pa, void *arg)
{
	struct pt_count *c = arg;

	if (pt_counted(pa) && c->in(pa, c->arg))
		c->n++;
	return false;
}

u64 paging_count_tables(bool (*in)(phys_addr_t pa, void *arg), void *arg)
{
	struct pt_count c = { in, arg, 0 };

	paging_for_each_table(pt_count_one, &c);
	return c.n;
}

void paging_get_stats(struct paging_stats *st)
{
	st->direct_4k = direct_pages_4k;
	st->direct_2m = direct_pages_2m;
	st->direct_1g = direct_pages_1g;
	st->table_pages = pt_pool_used - pt_pool_nr_free + pt_area_used - pt_area_nr_free +
			  pt_pages_from_mm;
	st->gbpages = boot_cpu.has_pdpe1gb;
}

void paging_dump(struct printer *p)
{
	pr_printf(p, "direct map:   %llu x 1G, %llu x 2M, %llu x 4K pages at %#llx\n",
		  (unsigned long long)direct_pages_1g, (unsigned long long)direct_pages_2m,
		  (unsigned long long)direct_pages_4k, DIRECT_MAP_BASE);
	pr_printf(p, "kernel image: %#llx-%#llx (text RX, rodata R, data RW)\n",
		  (unsigned long long)(uintptr_t)_kernel_start,
		  (unsigned long long)(uintptr_t)_end);
	pr_printf(p, "ioremap area: %llu KiB used at %#llx\n",
		  (unsigned long long)((ioremap_next - IOREMAP_BASE) >> 10), IOREMAP_BASE);
	pr_printf(p, "table pages:  %u of %u used (pool in .bss), %llu from the page allocator\n",
		  pt_pool_used - pt_pool_nr_free, PT_POOL_PAGES, (unsigned long long)pt_pages_from_mm);
	if (pt_area_pages)
		pr_printf(p, "boot area:    %llu of %llu pages used at %#llx (RAM below 4 GiB)\n",
			  (unsigned long long)(pt_area_used - pt_area_nr_free),
			  (unsigned long long)pt_area_pages, (unsigned long long)pt_area_start);
	pr_printf(p, "freed tables: %llu by unmapping; %llu PDPT pages in use\n",
		  (unsigned long long)pt_pages_freed, (unsigned long long)pt_upper_pages);
	pr_printf(p, "1 GiB pages:  %s; NX: %s\n", boot_cpu.has_pdpe1gb ? "yes" : "no",
		  boot_cpu.has_nx ? "yes" : "no");
}

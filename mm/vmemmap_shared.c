/*
 * vmemmap_shared.c - the shared-vmemmap design of device memmap init: the
 * vmemmap of a compound page maps only the head's page of struct pages and
 * the first tails' page with memory of their own, and every other page of
 * the compound's struct pages to that same tail page (Linux's compound
 * vmemmap optimisation for device-dax, vmemmap_populate_compound_pages()).
 *
 * Why it is right.  Every tail of one compound is the same 64 bytes
 * (ZONE_DEVICE, reserved, the owner, compound_head = head | 1, order 0, no
 * references: mm/memmap_init.c); only the first tail differs (it holds the
 * order) and it lies in the head's page.  So with 64 struct pages to a
 * 4 KiB page, a 2 MiB compound (512 struct pages, 8 pages of vmemmap)
 * needs pages 0 (head, first tail, tails 2-63) and 1 (tails 64-127) and
 * maps pages 2-7 to page 1: struct page 64 + k and 128 + k are the same
 * bytes, which are what every design writes there.  Read back through
 * pfn_to_page() the memmap is per page's, pfn for pfn (tests/host), while
 * memmap_init_zone_device_shared() writes 128 struct pages per compound
 * instead of 512 and the range needs a quarter of the memory.
 *
 *   compound of 2 MiB:  vmemmap page  0     1     2     3  ...  7
 *                       backing       H     T     T     T  ...  T
 *   (H, T: two pages of a per-section chunk of 2 pages per compound)
 *
 * The layout is the range's, not the section's: mm/memremap.c switches a
 * devdax range between the full layout (each section's 2 MiB memmap,
 * mapped with one 2 MiB page) and this one when `nd rebind` asks for the
 * other (vmemmap_relayout()), outside the timed init.  Each section of the
 * shared layout has one chunk from the page allocator, 2 pages per
 * compound (order 7 for 2 MiB compounds: 512 KiB instead of 2 MiB), whose
 * address is in the range's table of chunks (a kept page), and its 2 MiB of
 * vmemmap mapped with 4 KiB pages (one page-table page per section).
 * Unmapping goes through mm_vmemmap_depopulate(), which shoots the TLB
 * down on every CPU and gives the emptied page table back.
 *
 * Context: (main), mem_hotplug_lock taken per section.
 */
#include "buddy_internal.h"
#include <mm/memremap.h>
#include <mm/memory_hotplug.h>
#include <mm/sparse.h>
#include <mm/gfp.h>
#include "internal.h"
#include <lib/errno.h>
#include <lib/string.h>
#include <lib/printk.h>

/* Struct pages in one 4 KiB page of vmemmap. */
#define STRUCT_PAGES_PER_PAGE	(PAGE_SIZE / sizeof(struct page))
/* Pages of vmemmap with memory of their own per compound: the head's and
 * one of tails (Linux's VMEMMAP_RESERVE_NR). */
#define VMEMMAP_SHARED_RESERVE	2

u64 vmemmap_shared_unique(void)
{
	return VMEMMAP_SHARED_RESERVE * STRUCT_PAGES_PER_PAGE;
}

bool vmemmap_shared_order_ok(unsigned order)
{
	return order <= MAX_DEVICE_COMPOUND_ORDER && (1ULL << order) > vmemmap_shared_unique();
}

/* Sections of one unit: 1, or the sections a compound spans (1 GiB: 8). */
static u64 unit_sections(unsigned order)
{
	return order > PFN_SECTION_SHIFT ? 1ULL << (order - PFN_SECTION_SHIFT) : 1;
}

/* Pages of a chunk, and its order, for compounds of order: 2 per compound
 * whose head is in the section; a section without a head (the second to
 * eighth of a 1 GiB compound) has none and maps its compound's tail page. */
static u64 chunk_pages(unsigned order)
{
	if (order > PFN_SECTION_SHIFT)
		return VMEMMAP_SHARED_RESERVE;
	return (PAGES_PER_SECTION >> order) * VMEMMAP_SHARED_RESERVE;
}

static unsigned chunk_order(unsigned order)
{
	return (unsigned)__builtin_ctzll(chunk_pages(order));
}

void vmemmap_layout_cost(bool shared, unsigned order, u64 nr_pages, struct vmemmap_cost *c)
{
	u64 nr_secs = nr_pages / PAGES_PER_SECTION;

	MM_BUG_ON(!c || (shared && !vmemmap_shared_order_ok(order)), "shared %d order %u",
		  shared, order);
	if (!shared) {
		c->bytes_written = nr_pages * sizeof(struct page);
		c->memmap_pages = nr_pages * sizeof(struct page) / PAGE_SIZE;
		c->table_pages = 0;	/* a section's memmap is one 2 MiB mapping */
		return;
	}
	c->bytes_written = (nr_pages >> order) * vmemmap_shared_unique() * sizeof(struct page);
	c->memmap_pages = (nr_pages >> order) * VMEMMAP_SHARED_RESERVE;
	c->table_pages = nr_secs;	/* 4 KiB mappings: a page table per section */
}

/* ---- one section ---------------------------------------------------------- */

/*
 * Map section nr's struct pages for compounds of order onto chunk, the
 * chunk of its unit's first section (the section itself unless a 1 GiB
 * compound began in an earlier one).
 */
static int map_section_shared(u64 nr, unsigned order, phys_addr_t chunk, bool unit_head)
{
	u64 pfn = section_nr_to_pfn(nr), nr_c = 1ULL << order, per = STRUCT_PAGES_PER_PAGE;
	u64 end = pfn + PAGES_PER_SECTION;

	if (order > PFN_SECTION_SHIFT) {
		int err = 0;

		if (unit_head)
			err = mm_vmemmap_populate_shared(pfn, pfn + per, chunk);
		if (!err)
			err = mm_vmemmap_populate_shared(unit_head ? pfn + per : pfn, end,
							 chunk + PAGE_SIZE);
		return err;
	}
	for (u64 h = pfn, i = 0; h < end; h += nr_c, i++) {
		phys_addr_t head_pa = chunk + i * VMEMMAP_SHARED_RESERVE * PAGE_SIZE;
		phys_addr_t tail_pa = head_pa + PAGE_SIZE;
		int err = mm_vmemmap_populate_shared(h, h + per, head_pa);

		if (!err)
			err = mm_vmemmap_populate_shared(h + per, h + nr_c, tail_pa);
		if (err)
			return err;
	}
	return 0;
}

/* Section i of the range (nr) mapped in one layout: the full one over its
 * 2 MiB memmap, backing(i); the shared one over its unit's chunk. */
static int map_section(u64 nr, u64 i, bool shared, unsigned order,
		       phys_addr_t (*backing)(const void *ctx, u64 i), const void *ctx)
{
	u64 pfn = section_nr_to_pfn(nr), head_i = ALIGN_DOWN(i, unit_sections(order));

	if (shared)
		return map_section_shared(nr, order, backing(ctx, head_i), i == head_i);
	return mm_vmemmap_populate(pfn, pfn + PAGES_PER_SECTION, backing(ctx, i));
}

static void unmap_section(u64 nr)
{
	u64 pfn = section_nr_to_pfn(nr);

	mm_vmemmap_depopulate(pfn, pfn + PAGES_PER_SECTION);
}

/* Does section i carry a backing in a layout (not: a section of the
 * shared layout inside a 1 GiB compound begun before it)? */
static bool has_backing(bool shared, unsigned order, u64 i)
{
	return !shared || i % unit_sections(order) == 0;
}

/* A backing for section nr of node nid in a layout, or 0. */
static phys_addr_t backing_alloc(bool shared, unsigned order, int nid, u64 nr)
{
	struct page *page = shared ? alloc_pages_node(nid, GFP_KERNEL | __GFP_NOWARN, chunk_order(order))
				   : hotplug_memmap_alloc(nid, nr);

	return page ? page_to_phys(page) : 0;
}

static void backing_free(bool shared, unsigned order, phys_addr_t pa)
{
	if (shared)
		free_pages(pfn_to_page(PHYS_PFN(pa)), chunk_order(order));
	else
		hotplug_memmap_free(pfn_to_page(PHYS_PFN(pa)));
}

/* ---- the table of chunks -------------------------------------------------- */

static unsigned table_order(u64 nr_secs)
{
	unsigned o = 0;

	while ((PAGE_SIZE << o) < nr_secs * sizeof(u64))
		o++;
	return o;
}

static u64 *table_of(phys_addr_t pa)
{
	return mm_phys_to_virt(pa);
}

/* The backing section i of range ctx has now in its layout. */
static phys_addr_t backing_of(const void *ctx, u64 i)
{
	const struct dev_pagemap *pgmap = ctx;
	u64 nr = pfn_to_section_nr(pgmap->start_pfn) + i;

	return pgmap->shared_vmemmap ? table_of(pgmap->shared_table_pa)[i]
				     : __nr_to_section(nr)->memmap_pa;
}

/* Section i's backing in a new table ctx (its physical address). */
static phys_addr_t backing_in(const void *ctx, u64 i)
{
	return table_of(*(const phys_addr_t *)ctx)[i];
}

/* ---- the switch ----------------------------------------------------------- */

/* Free the backings of a new table filled up to n and the table. */
static void new_table_free(bool shared, unsigned order, phys_addr_t table_pa, u64 nr_secs, u64 n)
{
	u64 *t = table_of(table_pa);

	for (u64 i = 0; i < n; i++)
		if (t[i])
			backing_free(shared, order, t[i]);
	free_pages(pfn_to_page(PHYS_PFN(table_pa)), table_order(nr_secs));
}

/* Contract in include/mm/memremap.h. */
int vmemmap_relayout(struct dev_pagemap *pgmap, bool shared)
{
	u64 first = pfn_to_section_nr(pgmap->start_pfn), nr_secs = pgmap->nr_pages / PAGES_PER_SECTION;
	unsigned order = pgmap->vmemmap_shift;
	struct page *tpage;
	phys_addr_t table_pa;
	u64 *t, i, done;
	int err = 0;

	MM_BUG_ON(!pgmap->own_sections, "devmem%d: not a range of its own", pgmap->id);
	if (shared == pgmap->shared_vmemmap)
		return 0;
	if (shared && !vmemmap_shared_order_ok(order))
		return -EINVAL;
	/* every new backing first: a refusal changes nothing */
	tpage = alloc_pages_kept(__GFP_ZERO | __GFP_NOWARN, table_order(nr_secs));
	if (!tpage)
		return -ENOMEM;
	table_pa = page_to_phys(tpage);
	t = table_of(table_pa);
	for (i = 0; i < nr_secs; i++) {
		if (!has_backing(shared, order, i))
			continue;
		t[i] = backing_alloc(shared, order, pgmap->nid, first + i);
		if (!t[i]) {
			new_table_free(shared, order, table_pa, nr_secs, i);
			pr_err("devmem%d: no memory for the %s vmemmap of section %llu", pgmap->id,
			       shared ? "shared" : "full", (unsigned long long)(first + i));
			return -ENOMEM;
		}
	}
	/* then each section unmapped and mapped again over its new backing */
	for (done = 0; done < nr_secs; done++) {
		mem_hotplug_begin();
		unmap_section(first + done);
		err = map_section(first + done, done, shared, order, backing_in, &table_pa);
		if (err) {
			unmap_section(first + done);
			MM_BUG_ON(map_section(first + done, done, !shared, order, backing_of, pgmap),
				  "devmem%d: section %llu: the old vmemmap cannot be mapped back",
				  pgmap->id, (unsigned long long)(first + done));
		}
		mem_hotplug_done();
		if (err)
			break;
	}
	if (err) {
		for (u64 j = 0; j < done; j++) {
			mem_hotplug_begin();
			unmap_section(first + j);
			MM_BUG_ON(map_section(first + j, j, !shared, order, backing_of, pgmap),
				  "devmem%d: section %llu: the old vmemmap cannot be mapped back",
				  pgmap->id, (unsigned long long)(first + j));
			mem_hotplug_done();
		}
		new_table_free(shared, order, table_pa, nr_secs, nr_secs);
		pr_err("devmem%d: the %s vmemmap could not be mapped (%d); the range is as it was",
		       pgmap->id, shared ? "shared" : "full", err);
		return err;
	}
	/* the old backings go, the new ones are recorded */
	mem_hotplug_begin();
	for (i = 0; i < nr_secs; i++) {
		if (has_backing(!shared, order, i))
			backing_free(!shared, order, backing_of(pgmap, i));
		if (shared)
			sparse_clear_memmap(first + i);
		else
			sparse_set_memmap(first + i, t[i]);
	}
	if (pgmap->shared_vmemmap)
		free_pages(pfn_to_page(PHYS_PFN(pgmap->shared_table_pa)), table_order(nr_secs));
	if (shared) {
		pgmap->shared_table_pa = table_pa;
	} else {
		free_pages(tpage, table_order(nr_secs));
		pgmap->shared_table_pa = 0;
	}
	pgmap->shared_vmemmap = shared;
	mem_hotplug_done();
	pr_info("devmem%d: vmemmap %s: %llu sections", pgmap->id, shared ? "shared" : "full",
		(unsigned long long)nr_secs);
	return 0;
}

/* Contract in include/mm/memremap.h. */
void vmemmap_shared_remove_section(struct dev_pagemap *pgmap, u64 nr)
{
	u64 i = nr - pfn_to_section_nr(pgmap->start_pfn);

	mem_hotplug_assert_held();
	MM_BUG_ON(!pgmap->shared_vmemmap || i >= pgmap->nr_pages / PAGES_PER_SECTION,
		  "devmem%d: section %llu", pgmap->id, (unsigned long long)nr);
	unmap_section(nr);
	/* a unit's chunk goes with its last section: until then others map it */
	if ((i + 1) % unit_sections(pgmap->vmemmap_shift) == 0) {
		u64 head_i = ALIGN_DOWN(i, unit_sections(pgmap->vmemmap_shift));

		backing_free(true, pgmap->vmemmap_shift, table_of(pgmap->shared_table_pa)[head_i]);
		table_of(pgmap->shared_table_pa)[head_i] = 0;
	}
}

/* Contract in include/mm/memremap.h. */
void vmemmap_shared_free_table(struct dev_pagemap *pgmap)
{
	if (!pgmap->shared_vmemmap)
		return;
	free_pages(pfn_to_page(PHYS_PFN(pgmap->shared_table_pa)),
		   table_order(pgmap->nr_pages / PAGES_PER_SECTION));
	pgmap->shared_table_pa = 0;
	pgmap->shared_vmemmap = false;
}

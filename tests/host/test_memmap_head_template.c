/*
 * test_memmap_head_template.c - the head-template design of device memory
 * (memmap_init_zone_device_head_template(), mm/memmap_init.c) leaves the
 * same struct pages and pageblock migratetypes as per page
 * (memmap_init_zone_device_design(..., DESIGN_OLD)) over whole sections.
 *
 * The head template is taken once per call, from the range's first head,
 * and copied into every later head, in any section; compounds larger than
 * a section (orders 16 to 18) are a chunk each.  These cases cover what
 * the random ranges of test_memmap_template.c and test_nd_shared.c (orders
 * up to a section, often within one) reach rarely or never:
 *
 *   area: 4 sections at 64 GiB, present, vmemmap populated, no RAM
 *   one call over the area, or over a part of it that starts past its
 *   first section, with orders 9, 10, 15, 16, 17.
 *
 * Each design runs over its own pattern (struct pages and pageblocks), so a
 * word or a pageblock the head template forgets shows up as a difference.
 */
#include "htest.h"
#include "mm_host.h"
#include <stdlib.h>
#include <mm/memmap_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include "../../mm/internal.h"
#include <lib/printk.h>

#define AREA_PFN	((64ULL << 30) >> PAGE_SHIFT)	/* far above any simulated RAM */
#define AREA_PAGES	(4 * PAGES_PER_SECTION)
#define AREA_BLOCKS	(AREA_PAGES / pageblock_nr_pages)

static int owner;	/* the pgmap every device page points at */

/* The area's memmap and pageblocks with a pattern common to both designs,
 * then the range [pfn, pfn + len) with pattern and migratetype mt, the
 * design's own. */
static void area_fill(u64 pfn, u64 len, u64 pattern, int mt)
{
	memmap_fill_pattern(pfn_to_page(AREA_PFN), AREA_PAGES, 0x9999999999999999ULL);
	for (u64 i = 0; i < AREA_BLOCKS; i++)
		set_pageblock_migratetype(AREA_PFN + i * pageblock_nr_pages, MIGRATE_HIGHATOMIC);
	memmap_fill_pattern(pfn_to_page(pfn), len, pattern);
	for (u64 b = ALIGN_UP(pfn, pageblock_nr_pages); b < pfn + len; b += pageblock_nr_pages)
		set_pageblock_migratetype(b, mt);
}

/* A copy of the area's memmap and pageblock migratetypes. */
static struct page *area_snapshot(u8 *mt)
{
	struct page *copy = malloc(AREA_PAGES * sizeof(struct page));

	CHECK(copy != NULL);
	if (copy)
		memcpy(copy, pfn_to_page(AREA_PFN), AREA_PAGES * sizeof(struct page));
	for (u64 i = 0; i < AREA_BLOCKS; i++)
		mt[i] = (u8)get_pageblock_migratetype(AREA_PFN + i * pageblock_nr_pages);
	return copy;
}

HTEST(memmap_head_template_sections_as_per_page)
{
	static const struct { unsigned order; u64 start, len; } cases[] = {
		{ 9, 0, AREA_PAGES }, { 9, 512, AREA_PAGES - 1024 },
		{ 9, PAGES_PER_SECTION + 512, 2 * PAGES_PER_SECTION }, { 10, 0, AREA_PAGES },
		{ 15, 0, AREA_PAGES }, { 16, 0, AREA_PAGES }, { 17, 0, AREA_PAGES },
		{ 16, 2 * PAGES_PER_SECTION, 2 * PAGES_PER_SECTION },
	};
	static u8 mt_old[AREA_BLOCKS], mt_ht[AREA_BLOCKS];

	host_mm_reset(0);
	printk_set_level(LOG_CRIT);
	CHECK_EQ(sparse_add_present(AREA_PFN, AREA_PFN + AREA_PAGES, 0, false, host_root_alloc, NULL), 0);
	CHECK_EQ(mm_vmemmap_populate(AREA_PFN, AREA_PFN + AREA_PAGES, 0), 0);
	for (u64 nr = pfn_to_section_nr(AREA_PFN); nr < pfn_to_section_nr(AREA_PFN + AREA_PAGES); nr++)
		sparse_set_memmap(nr, 0);

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]) && !htest_failures; i++) {
		u64 pfn = AREA_PFN + cases[i].start, len = cases[i].len;
		unsigned order = cases[i].order;
		int nid = (int)(i % MAX_NUMNODES);
		struct page *old, *ht;
		struct memmap_diff diff;

		area_fill(pfn, len, 0x5a5a5a5a5a5a5a5aULL, MIGRATE_UNMOVABLE);
		CHECK_EQ(memmap_init_zone_device_design(pfn, len, nid, order, &owner, DESIGN_OLD), 0);
		old = area_snapshot(mt_old);
		CHECK(PageHead(pfn_to_page(pfn)) && pfn_to_page(pfn)[1].compound_info == order);
		area_fill(pfn, len, 0xa5a5a5a5a5a5a5a5ULL, MIGRATE_RECLAIMABLE);
		CHECK_EQ(memmap_init_zone_device_head_template(pfn, len, nid, order, &owner), 0);
		ht = area_snapshot(mt_ht);
		if (old && ht && memmap_compare(old, ht, AREA_PAGES, &diff)) {
			CHECK(!"head template's memmap as per page's");
			fprintf(stderr, "  pfn %#llx byte %u: %#x per page, %#x head template\n",
				(unsigned long long)(AREA_PFN + diff.index), diff.byte, diff.expect,
				diff.got);
		}
		CHECK(!memcmp(mt_old, mt_ht, sizeof(mt_old)));
		if (htest_failures)
			fprintf(stderr, "  (case %u: order %u, pages [%#llx +%#llx))\n", i, order,
				(unsigned long long)cases[i].start, (unsigned long long)len);
		free(old);
		free(ht);
	}
}

/*
 * memmap_init.c - initialising struct pages.
 *
 * Every struct page must be put in a known state before anyone reads it:
 * its zone and node in flags, refcount 1, no page type, an empty list head
 * and zeros elsewhere.  This file does it the way Linux did before the
 * 2026 template work: every field of every page written one by one
 * (init_single_page), plus the pageblock migratetype at each pageblock start
 * (memmap_init_range).  Pages of a present section that have no memory
 * behind them (holes) are initialised too and marked reserved
 * (init_unavailable_range), so pfn walkers can read them safely.
 *
 * The template design (one page initialised, then copied) is added next to
 * this code by the mechanisms issue, so the two can be compared line by line.
 */
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>

void init_single_page(struct page *page, u64 pfn, enum zone_type zone, int nid)
{
	(void)pfn;	/* no field depends on the pfn with a vmemmap */
	page->flags = 0;
	page->lru.next = NULL;
	page->lru.prev = NULL;
	page->owner = NULL;
	page->index = 0;
	page->private = 0;
	page->memlab_debug = 0;
	set_page_links(page, zone, nid);
	page->refcount = 1;
	page->page_type = PAGE_TYPE_NONE;
	INIT_LIST_HEAD(&page->lru);
}

void memmap_init_range(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
		       int migratetype)
{
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn++) {
		init_single_page(pfn_to_page(pfn), pfn, zone, nid);
		if (IS_ALIGNED(pfn, pageblock_nr_pages))
			set_pageblock_migratetype(pfn, migratetype);
	}
}

/*
 * init_unavailable_range() - holes: pages with a memmap but no memory.
 * They get the zone and node given (the zone that spans them, or the next
 * one, as Linux) and PG_reserved, so nothing ever frees them.
 * Returns the number of pages initialised.  Context: (boot)/(main).
 */
u64 init_unavailable_range(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid)
{
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		init_single_page(page, pfn, zone, nid);
		SetPageReserved(page);
	}
	return end_pfn > start_pfn ? end_pfn - start_pfn : 0;
}

/*
 * buddy.h - what the views, the shell and the in-kernel tests may use of
 * the page allocator beyond gfp.h: the free list a page belongs on,
 * emptying the per-CPU lists, allocating from and freeing into a given
 * zone, and the reserve the watermarks keep.  The allocator's internal
 * interface (free lists, pcp lists, watermarks, the boot hand-over) is
 * mm/buddy_internal.h, for mm/ and its host tests only.
 *
 * Context: (main); as each function says.
 */
#ifndef MM_BUDDY_H
#define MM_BUDDY_H

#include <mm/gfp.h>
#include <mm/sparse.h>

/*
 * buddy_list_mt() - the free list a free page at pfn belongs on:
 * MIGRATE_ISOLATE if its pageblock's isolate bit is set, else the
 * pageblock's migratetype.  pfn must be in a present section.
 */
static inline int buddy_list_mt(u64 pfn)
{
	return get_pageblock_isolate(pfn) ? MIGRATE_ISOLATE : get_pageblock_migratetype(pfn);
}

/*
 * pcp_drain_zone() - give every page on the zone's pcp lists back to the
 * buddy (each to the list of its pageblock's current type).  Used before
 * isolation and offlining, by the allocator's slow path, and by tests.
 * Context: zone lock.
 */
void pcp_drain_zone(struct zone *zone);

/*
 * zone_alloc_pages() - 2^order pages from zone z, ignoring watermarks:
 * through the pcp lists for order <= 3 (unless __GFP_NOPCP), else the
 * buddy; then prepared (refcount 1 on every page, flags cleared, poison
 * checked, zeroed on __GFP_ZERO).  NULL if z has no suitable block.
 * zone_free_pages() - free_pages() on an explicit zone: checks every page
 * (a bad page is reported "BUG: Bad page state" and nothing is freed:
 * returns -EINVAL), poisons if enabled, then pcp (order <= 3) or buddy.
 * Context: (main)/(boot).
 */
struct page *zone_alloc_pages(struct zone *z, gfp_t gfp, unsigned order);
int zone_free_pages(struct zone *z, struct page *page, unsigned order);

extern unsigned long totalreserve_pages; /* sum of pgdat->totalreserve_pages */

#endif

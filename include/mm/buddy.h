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

/* "No pfn": what a lookup of a pfn returns when it finds none. */
#define NO_PFN	(~0ULL)

/*
 * Which free blocks free_block_at() counts: a block in the buddy (its head
 * has PGTY_BUDDY), a block on a per-CPU list (its head has PGTY_PCP).
 */
#define FREE_BLOCK_BUDDY	0x1u
#define FREE_BLOCK_PCP		0x2u

/*
 * free_block_at() - does the page at pfn head a free block of a kind in
 * kinds (FREE_BLOCK_BUDDY, FREE_BLOCK_PCP or both)?  Then *order is the
 * block's order and the result true; else *order is left alone.  This is
 * the step of every walk over pfns that steps over free blocks: from such
 * a head the walk goes on at pfn + (1 << *order), the first pfn after the
 * block.  pfn must be pfn_valid().  Context: (boot) or (main).  Reads
 * the free lists: exact with zone->lock held, else a snapshot (exact on
 * one CPU, where nothing changes them meanwhile).
 */
static inline bool free_block_at(u64 pfn, unsigned kinds, unsigned *order)
{
	const struct page *page = pfn_to_page(pfn);

	if (!(((kinds & FREE_BLOCK_BUDDY) && PageBuddy(page)) ||
	      ((kinds & FREE_BLOCK_PCP) && PagePcp(page))))
		return false;
	*order = (unsigned)page->private;
	return true;
}

/*
 * free_block_containing() - the free buddy block that holds pfn: its head
 * pfn (pfn itself when pfn heads it) with its order in *order, or NO_PFN
 * (and *order left alone) if pfn lies in no free buddy block.  Looks at
 * the pfns pfn rounded down to 2^o for o = 0 .. MAX_PAGE_ORDER and takes
 * the first that heads a buddy block of order o or more; stops at the
 * first of them without a valid memmap.  Blocks on per-CPU lists are not
 * looked for.  Context: (main); exact with zone->lock held (a caller that
 * then takes the block off its list holds it), else a snapshot.
 */
u64 free_block_containing(u64 pfn, unsigned *order);

/*
 * zone_free_blocks() - the number of free blocks of the given order in
 * zone's buddy, all migratetypes (/proc/buddyinfo's column).
 * zone_free_list_count() - the length of the zone's free list of that
 * order and migratetype, counted along the list; the count stops at cap
 * and *overflow is then true (as /proc/pagetypeinfo's ">N").
 * Context: (main), read without zone->lock: a snapshot, exact on one CPU.
 */
unsigned long zone_free_blocks(const struct zone *zone, unsigned order);
unsigned long zone_free_list_count(const struct zone *zone, unsigned order, int mt,
				   unsigned long cap, bool *overflow);

/*
 * pcp_drain_zone() - give every page on the zone's pcp lists back to the
 * buddy (each to the list of its pageblock's current type).  Used before
 * isolation and offlining, by the allocator's slow path, and by tests.
 * Every CPU's lists: each CPU's pcp lock in turn, zone->lock inside it.
 * Context: (main), no zone or pcp lock held.
 */
void pcp_drain_zone(struct zone *zone);

/*
 * pcp_drain_each_cpu() - the same for zone (NULL: every zone), but each
 * CPU's lists drained on that CPU (mm_run_on_cpu(), as Linux's
 * drain_all_pages() queues a drain on every CPU), a CPU that runs other
 * work (or does not answer) drained from here as pcp_drain_zone() does.
 * r (may be NULL) gets, per CPU, the pages that came back and where they
 * were drained.  Used by `drain` and before isolation and offlining.
 * Context: (main), no spinlock held; waits for the other CPUs.
 */
enum pcp_drain_where { PCP_DRAIN_EMPTY, PCP_DRAIN_THERE, PCP_DRAIN_FROM_HERE };
struct pcp_drain_report {
	unsigned long pages[MM_NR_CPUS];	/* [o] pages that came back from each CPU's lists */
	u8 where[MM_NR_CPUS];			/* [o] enum pcp_drain_where */
};
void pcp_drain_each_cpu(struct zone *zone, struct pcp_drain_report *r);

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

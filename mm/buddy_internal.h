/*
 * buddy_internal.h - the page allocator's internal interface: buddy free lists
 * (mm/buddy.c), per-CPU page lists (mm/pcp.c), and the zone-level
 * allocation, watermark and boot hand-over functions of mm/page_alloc.c.
 *
 * Users outside mm/ call gfp.h (alloc_pages/free_pages) and the few
 * functions of include/mm/buddy.h.  This header is for mm/ itself (boot,
 * hotplug, isolation) and its tests only.
 *
 * Every function here takes the zone it works on explicitly and never looks
 * it up with page_zone(), so a test can build a private struct zone that is
 * in no node (zone_init_free_lists + a span + buddy_free_boot_pages) and run
 * the buddy and the pcp lists over it.  Only alloc_pages_node()/free_pages()
 * (gfp.h) find zones through node_data.
 *
 * Free-list invariants (checked by tests/host/test_buddy.c after every step):
 *   - a free block of order k starts at a pfn aligned to 2^k; its head page
 *     has PGTY_BUDDY and private = k, its other pages have no type;
 *   - it sits on zone->free_area[k].free_list[buddy_list_mt(head pfn)]: the
 *     list of its pageblock's migratetype, or MIGRATE_ISOLATE when the
 *     pageblock's isolate bit is set.  A block larger than a pageblock has
 *     the same type in all its pageblocks (merging makes them agree);
 *   - free_area[k].nr_free_mt[mt] is the length of that list, nr_free the sum;
 *   - zone->nr_free_buddy = pages of all buddy blocks, and zone_nr_free()
 *     adds zone_pcp_count(zone);
 *     zone->nr_free_cma = pages of the blocks on the MIGRATE_CMA lists;
 *   - no two free buddies of the same order are both mergeable (blocks are
 *     maximal) -- except across an isolate boundary or across pageblocks
 *     whose migratetypes may not merge (buddy.c explains the rule).
 *
 * Context: (boot) or (main), never from interrupt handlers.  A function
 * whose contract says "zone lock" is called with zone->lock held and
 * asserts it; the pcp functions take the CPU's pcp lock themselves and
 * zone->lock inside it, so they are called with neither held.
 */
#ifndef MM_BUDDY_INTERNAL_H
#define MM_BUDDY_INTERNAL_H

#include <mm/buddy.h>
#include "internal.h"

/* ---- mm/buddy.c: the free lists ---------------------------------------- */

/* How a block is put on its free list (Linux's fpi_t flags). */
typedef unsigned int fpi_t;
#define FPI_NONE	0x0u	/* head of the list, or tail if a merge is likely */
#define FPI_TO_TAIL	0x1u	/* always the tail: used last (boot, onlining) */

/* Allocation flags (Linux's ALLOC_*): which watermark, and what may be used. */
#define ALLOC_WMARK_MIN		WMARK_MIN
#define ALLOC_WMARK_LOW		WMARK_LOW
#define ALLOC_WMARK_HIGH	WMARK_HIGH
#define ALLOC_WMARK_MASK	0x03u	/* the watermark index above */
#define ALLOC_HIGH		0x20u	/* __GFP_HIGH: min watermark halved */
#define ALLOC_CMA		0x80u	/* movable: may use MIGRATE_CMA blocks */

/* migratetype_is_mergeable() - Unmovable/Movable/Reclaimable blocks may merge with each other. */
static inline bool migratetype_is_mergeable(int mt) { return mt < MIGRATE_PCPTYPES; }


/*
 * buddy_del_free() - take the free block of 2^order pages at page off
 * free_area[order].free_list[mt], keeping nr_free, nr_free_mt,
 * zone_nr_free(zone) and zone->nr_free_cma in step and clearing PGTY_BUDDY and
 * private on the head.  No merging, no checks of neighbours.
 * Context: zone lock.
 */
void buddy_del_free(struct zone *zone, struct page *page, unsigned order, int mt);

/*
 * buddy_free_one() - give the 2^order pages at pfn (refcount 0, no type,
 * aligned to 2^order, inside zone's span) to the buddy of zone: merge with
 * free buddies as far as allowed (iteratively, up to MAX_PAGE_ORDER) and put
 * the result on its list.  mt must be buddy_list_mt(pfn).  fpi: FPI_NONE or
 * FPI_TO_TAIL.  Counts zone->ev.merges.  Context: zone lock.
 */
void buddy_free_one(struct zone *zone, u64 pfn, unsigned order, int mt, fpi_t fpi);

/*
 * buddy_rmqueue_smallest() - take the smallest free block of order >= order
 * from the mt lists, split it down to order (the upper halves go back on
 * the mt lists of their orders) and return its first page, no longer
 * PageBuddy; NULL if none.  Counts zone->ev.splits.  Context: zone lock.
 */
struct page *buddy_rmqueue_smallest(struct zone *zone, unsigned order, int mt);

/*
 * buddy_rmqueue() - Linux's __rmqueue(): a block of 2^order pages for
 * migratetype mt (< MIGRATE_PCPTYPES): from mt's lists, else from CMA
 * (alloc_flags & ALLOC_CMA), else by falling back to another migratetype,
 * possibly claiming its whole pageblock (buddy.c explains the rules).
 * Watermarks are the caller's business.  Returns the page (refcount 0, not
 * prepared) or NULL.  Context: zone lock.
 */
struct page *buddy_rmqueue(struct zone *zone, unsigned order, int mt, unsigned alloc_flags);

/*
 * buddy_set_pageblock_migratetype() - change the migratetype of pfn's
 * pageblock and move its free pages to the new type's lists (if the block
 * is isolated only the bits change: its free pages stay on the isolate
 * list).  buddy_isolate_pageblock() sets or clears the isolate bit and
 * moves the free pages to or from the MIGRATE_ISOLATE lists.  Pages of the
 * pageblock sitting on pcp lists are not moved: drain them first
 * (pcp_drain_zone), as Linux's isolation does.  Return as
 * buddy_move_freepages_block().  Context: zone lock.
 */
long buddy_set_pageblock_migratetype(struct zone *zone, u64 pfn, int mt);
long buddy_isolate_pageblock(struct zone *zone, u64 pfn, bool isolate);

/* zone_isolated_free_pages() - free buddy pages on the MIGRATE_ISOLATE lists. */
unsigned long zone_isolated_free_pages(const struct zone *zone);

/* zone_buddy_free_pages() - free pages in the buddy only (NR_FREE_PAGES
 * without the pending ones, zone->nr_free_pending). */
static inline unsigned long zone_buddy_free_pages(const struct zone *zone)
{
	return MM_READ_ONCE(zone->nr_free_buddy);
}

/* ---- mm/pcp.c: per-CPU page lists ----------------------------------------- */

/* pcp_index() - the pcp list of (order, migratetype). */
static inline unsigned pcp_index(unsigned order, int mt)
{
	return order * MIGRATE_PCPTYPES + (unsigned)mt;
}

/*
 * zone_pcp_init() - (re)compute zone->pcp.batch and .high from the zone's
 * managed pages and low watermark (pcp.c gives Linux 6.1's rule).  Leaves
 * the lists alone; call it again whenever managed pages or watermarks
 * change (setup_per_zone_wmarks() does).  Context: (boot)/(main).
 */
void zone_pcp_init(struct zone *zone);

/* pcp_init_lists() - empty pcp lists, count 0, the boot values batch 1, high 0. */
void pcp_init_lists(struct zone *zone);

/*
 * pcp_alloc() - 2^order pages (order <= PAGE_ALLOC_COSTLY_ORDER) of
 * migratetype mt (< MIGRATE_PCPTYPES) from the zone's pcp list, refilled
 * with batch pages' worth from the buddy (buddy_rmqueue) when empty.
 * Returns the page, off the list and without type, or NULL when the buddy
 * has nothing either.  Context: takes this CPU's pcp lock, and zone->lock
 * inside it to refill; neither may be held.
 */
struct page *pcp_alloc(struct zone *zone, unsigned order, int mt, unsigned alloc_flags);

/*
 * pcp_free() - put 2^order freed pages (order <= 3, refcount 0, prepared)
 * on the zone's pcp list for mt = buddy_list_mt(pfn); CMA and HighAtomic
 * pages use the Movable list, pages of an isolated pageblock bypass the
 * lists and go straight to the buddy.  When the pcp count reaches high,
 * batch pages' worth go back to the buddy.  Context: takes this CPU's pcp
 * lock, and zone->lock inside it to drain; neither may be held.
 */
void pcp_free(struct zone *zone, struct page *page, unsigned order, int mt);


/* ---- mm/page_alloc.c: zones, watermarks, hand-over ---------------------- */

/*
 * buddy_free_boot_pages() - hand 2^order pages at pfn (aligned, inside
 * zone's span, PG_reserved or PageOffline or untyped, never freed before)
 * to the buddy: refcount 0, PG_reserved and the Offline type cleared,
 * zone->managed_pages += 2^order, poisoned if poison, then freed to the
 * tail of the free lists (FPI_TO_TAIL), never through the pcp lists.  Used
 * by the boot hand-over and by memory onlining (poison false).
 * Context: (boot), or (main) with mem_hotplug_lock held for writing (CMA
 * activation at boot included); takes zone->lock.
 */
void buddy_free_boot_pages(struct zone *zone, u64 pfn, unsigned order, bool poison);

/*
 * zone_watermark_ok() - may an allocation of 2^order pages be taken from z?
 * Linux's __zone_watermark_ok(): the zone's free buddy pages and pending
 * ones (nr_free_pending: the allocator grows the zone into them; not pcp, not
 * isolated, not CMA unless ALLOC_CMA) minus 2^order - 1 must stay above
 * mark (halved by ALLOC_HIGH) plus z->lowmem_reserve[highest_zoneidx], and
 * for order > 0 a free block of at least that order must exist on a list
 * the request may use.  Context: (any) read-only.
 */
bool zone_watermark_ok(const struct zone *z, unsigned order, unsigned long mark,
		       int highest_zoneidx, unsigned alloc_flags);


/* Bad-page reports so far (free or allocation checks that failed). */
extern u64 bad_page_reports;

/*
 * bad_page() - report pfn in a state it must not be in: "BUG: Bad page
 * state: pfn P (WHEN FIRST, order O): REASON", as Linux's bad_page(), and
 * count it in bad_page_reports.  first_pfn/order: the request the page was
 * part of; when: "freeing" or "allocating".  The caller then leaves the
 * page alone.  Context: any.
 */
void bad_page(u64 pfn, u64 first_pfn, unsigned order, const char *when, const char *fmt, ...)
	__printf(5, 6);

/*
 * free_page_check() - the per-page test of every free: may pfn (which has a
 * memmap, the caller checked pfn_valid()), one page of the 2^order pages
 * at head being freed into zone, go to the allocator?  It must lie in
 * zone's span with head's zone and node bits, not be PG_reserved, have no
 * page type (a free page has one), and have exactly refcount references
 * (1 for free_pages(), 0 for a frozen page).  The first test that fails
 * is reported through bad_page() ("freeing", first pfn head's, order
 * order) and -EINVAL returned; the page is left as it was.  Returns 0
 * when the page may be freed.  free_pages() and both designs of
 * free_contig_range() use it, so they refuse the same pages with the
 * same lines.  Context: the caller owns the page (no lock needed).
 */
int free_page_check(const struct zone *zone, const struct page *head, u64 pfn, unsigned order,
		    int refcount);

/*
 * free_page_clean() - what a free does to a page that passed
 * free_page_check(): refcount 0, PG_head, PG_owner_priv and PG_isolated
 * cleared, owner, index and private zeroed, and the page poisoned when
 * page_poison is on.  The page is on no list yet.  Context: the caller
 * owns the page.
 */
void free_page_clean(struct page *page);

/*
 * build_all_zonelists() - each online node's zonelist: its own populated
 * zones from the highest (Movable) down to DMA, then the other online
 * nodes' zones the same way, nodes by numa_distance from this node (ties
 * by node id).  ZONE_DEVICE is never listed.  Context: (boot), hotplug.
 */
void build_all_zonelists(void);

/*
 * setup_per_zone_wmarks() - what Linux's init_per_zone_wmark_min() does:
 * min_free_kbytes from lowmem (unless a larger value was set with
 * set_min_free_kbytes), then every zone's min/low/high watermarks,
 * lowmem_reserve[], totalreserve_pages and pcp batch/high.  page_alloc.c
 * spells out the formulas.  Call after boot hand-over and after every
 * online/offline.  Context: (boot)/(main); takes wmark_lock (the [w]
 * fields), so no pcp or zone lock may be held.
 */
void setup_per_zone_wmarks(void);

/*
 * setup_per_zone_wmarks_as_boot() - the watermarks (and pcp sizes,
 * min_free_kbytes) that a boot with today's managed pages computes, for
 * deferred init.  min_free_kbytes is derived from managed pages minus the
 * high watermarks of the previous computation, which mm_core_init() starts
 * from zero; starting from zero here too makes the last computation, once
 * nothing waits, give exactly the eager boot's numbers instead of a
 * slightly smaller drifting value.  Context: as setup_per_zone_wmarks().
 */
void setup_per_zone_wmarks_as_boot(void);

/*
 * The two watermark tunables are page_alloc.c's own: read through the
 * getters, written only through the setters, which recompute the
 * watermarks (setup_per_zone_wmarks()) with the new value.
 */

/*
 * set_min_free_kbytes() - the vm.min_free_kbytes sysctl: use kbytes (a
 * floor: a larger computed value still wins, so 0 means automatic) and
 * recompute the watermarks.  Returns 0, or -EINVAL if kbytes is outside
 * [0, INT_MAX] (negative; nothing changed).  Context: (boot) or (main);
 * takes wmark_lock, which every watermark computation runs under.
 */
int set_min_free_kbytes(int kbytes);

/* get_min_free_kbytes() - min_free_kbytes as the last computation left it,
 * as /proc/sys/vm/min_free_kbytes shows it.  Context: (boot) or (main). */
int get_min_free_kbytes(void);

/* The range of watermark_scale_factor, in units of 0.01% of a zone. */
#define WATERMARK_SCALE_FACTOR_MIN	1
#define WATERMARK_SCALE_FACTOR_MAX	3000

/*
 * set_watermark_scale_factor() - the vm.watermark_scale_factor sysctl: the
 * gap between a zone's watermarks in units of 0.01% of its managed pages
 * (default 10, 0.1%), then recompute the watermarks.  Returns 0, or
 * -EINVAL if factor is outside [WATERMARK_SCALE_FACTOR_MIN,
 * WATERMARK_SCALE_FACTOR_MAX] = [1, 3000] (nothing changed).
 * Context: (boot) or (main); takes wmark_lock.
 */
int set_watermark_scale_factor(int factor);

/* get_watermark_scale_factor() - that factor, default 10 (0.1% of a zone
 * between marks).  Context: (boot) or (main). */
int get_watermark_scale_factor(void);
extern const int sysctl_lowmem_reserve_ratio[MAX_NR_ZONES];

#endif

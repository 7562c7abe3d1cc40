/*
 * buddy.c - the buddy allocator: free lists per order and migratetype,
 * merging on free, splitting on allocation, and falling back to other
 * migratetypes with pageblock stealing.
 *
 * Buddies
 * -------
 * Free memory is kept as blocks of 2^order pages, order 0..MAX_PAGE_ORDER
 * (10: 1024 pages, 4 MiB), each starting at a pfn that is a multiple of its
 * size.  Cut an aligned block of order k+1 in two halves: each half is an
 * aligned block of order k, and each is the other's *buddy*.  The two
 * halves differ in exactly one bit of their first pfn, bit k, so
 *
 *	buddy_pfn = pfn ^ (1 << order)
 *
 * and the block they form together starts at pfn & buddy_pfn (bit k
 * cleared).  Example, order 2: the blocks at pfn 8 (0b1000) and 12 (0b1100)
 * are buddies and form the order-3 block at 8; the block at 4 (0b0100) has
 * buddy 0, forming the order-3 block at 0.  Pfns 4 and 8 are neighbours but
 * not buddies: merging them would give a block at 4 of 8 pages, which is
 * not aligned to its size.
 *
 * A free block is marked on its first page only (the head): page_type
 * PGTY_BUDDY and page->private = order.  Its other pages carry nothing, so
 * "is the buddy free, as a whole block of the same order?" is one look at
 * the buddy's head: PageBuddy and buddy_order() == order.  A page inside a
 * larger free block is not PageBuddy, and a PageBuddy page of another order
 * is a different block; neither can be merged with.
 *
 * Freeing (buddy_free_one) therefore loops: while the buddy of the block at
 * (pfn, order) is a free block of the same order in the same zone, take
 * the buddy off its list, continue with the combined block (pfn &=
 * buddy_pfn, order + 1).  The loop runs at most MAX_PAGE_ORDER times; no
 * recursion.  Allocating (buddy_rmqueue_smallest) does the reverse: take
 * the smallest free block of order >= the request and split it, putting
 * the upper half back on the free list one order lower each time (expand),
 * until the lower half has the requested order.
 *
 * Why a buddy can always be read: a max-order block (4 MiB) is smaller than
 * a section (128 MiB), so a buddy is in the same section, whose memmap
 * exists.  memlab still checks pfn_valid() and the zone span before reading
 * the buddy's struct page, because zones and hot-added subsections need not
 * be section-aligned, and it checks that the buddy's zone and node bits are
 * the same as the block's.
 *
 * Migratetypes and pageblocks
 * ---------------------------
 * Memory is also cut into pageblocks of 2^pageblock_order pages (512,
 * 2 MiB), each with a migratetype in the section's pageblock flags
 * (Unmovable, Movable, Reclaimable, HighAtomic, CMA) and an isolate bit.  A
 * free block sits on the list of its pageblock's type (buddy_list_mt():
 * MIGRATE_ISOLATE when the isolate bit is set), so that unmovable kernel
 * allocations cluster in a few pageblocks and the rest stays movable and
 * can later be compacted or offlined.  Merging below pageblock_order never
 * crosses a pageblock.  At pageblock_order and above it does, and then:
 *   - an isolated pageblock never merges with a non-isolated one (the
 *     isolation code counts on its free pages staying on the isolate list);
 *   - two pageblocks of different types merge only if both types are
 *     "mergeable" (Unmovable, Movable, Reclaimable): a CMA or HighAtomic
 *     pageblock merges only with its own kind (Linux's
 *     migratetype_is_mergeable rule);
 *   - when two mergeable but different types merge, the buddy's pageblock
 *     takes the type of the block being freed, so that every pageblock of a
 *     free block has the type of the list it sits on (Linux does this since
 *     6.10; 6.1 left the buddy's pageblock alone and let the lists drift).
 *
 * Where a freed block goes on its list: at the head (the next allocation
 * takes it: cache-warm), unless its buddy is still in use but the buddy of
 * the block they would form is free.  Then it goes to the tail, so that it
 * stays free a little longer and the buddy, when freed, can merge two
 * orders up (Linux's buddy_merge_likely()).  Boot and onlining ask for the
 * tail always (FPI_TO_TAIL).
 *
 * Falling back (buddy_rmqueue): when the lists of the requested type are
 * empty at every order, take a block from another type, in Linux's order:
 * Unmovable -> Reclaimable, Movable; Movable -> Reclaimable, Unmovable;
 * Reclaimable -> Unmovable, Movable.  Never from Isolate or HighAtomic;
 * CMA only for movable requests (ALLOC_CMA).  The rules are Linux 6.1's:
 *   - take the LARGEST free block of the first fallback type found, since
 *     a large free block roughly means a pageblock with much free memory;
 *   - it may "steal" (can_steal) if the block is at least half a pageblock
 *     (order >= pageblock_order / 2) or the request is Unmovable or
 *     Reclaimable -- unmovable pages polluting a movable pageblock should at
 *     least take the whole pageblock so they pollute fewer of them;
 *   - a movable request that may not steal takes the SMALLEST fallback
 *     block instead: it will not claim the pageblock, so it should leave
 *     the large blocks alone;
 *   - a block of pageblock_order or more is claimed outright: its
 *     pageblocks change type;
 *   - a smaller block that may steal claims its pageblock if at least half
 *     the pageblock is free or "alike" (for an unmovable or reclaimable
 *     request falling back into a Movable pageblock, the allocated pages
 *     are counted alike: memlab, like Linux with no movable pages tracked,
 *     has no LRU to say which allocated pages are movable, so it counts 0
 *     movable pages); claiming moves the pageblock's free pages to the new
 *     type's lists and sets its migratetype (zone->ev.steals);
 *   - otherwise only the block itself is used, split on its own lists.
 * The bookkeeping is Linux 6.10's: free pages are moved only when the
 * pageblock changes type, so lists always match pageblock types.  Not
 * modelled: watermark boosting and kswapd wake-ups, ALLOC_NOFRAGMENT,
 * HighAtomic reserves.
 *
 * Context: everything here runs with zone->lock held, and the entries of
 * buddy_internal.h assert it; free_block_containing() and the counts at the
 * end only read.  (boot) or (main), never from an interrupt handler.
 */
#include "buddy_internal.h"
#include <lib/printk.h>
#include <lib/errno.h>

/* Fallback types, in the order they are tried (MIGRATE_TYPES ends a row). */
static const int fallbacks[MIGRATE_PCPTYPES][3] = {
	[MIGRATE_UNMOVABLE]   = { MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE,   MIGRATE_TYPES },
	[MIGRATE_MOVABLE]     = { MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE, MIGRATE_TYPES },
	[MIGRATE_RECLAIMABLE] = { MIGRATE_UNMOVABLE,   MIGRATE_MOVABLE,   MIGRATE_TYPES },
};

/*
 * buddy_move_freepages_block() - move every free buddy block inside the
 * pageblock of pfn from the old_mt lists to the new_mt lists (a free block
 * larger than the pageblock that covers it is first split into
 * pageblock-sized blocks).  Pageblock bits are not changed: the caller sets
 * them so that buddy_list_mt() gives new_mt afterwards.  Returns the number
 * of free pages moved, or -EINVAL if the pageblock is not inside the zone
 * span.  Context: zone lock.
 */
static long buddy_move_freepages_block(struct zone *zone, u64 pfn, int old_mt, int new_mt);

/*
 * counter_add() - add delta to a [z] counter that the watermark check reads
 * without zone->lock (nr_free_mt, nr_free_buddy, nr_free_cma): one writer
 * at a time (zone->lock, held), a relaxed store so the lockless reader
 * sees a whole value.  Context: zone lock.
 */
static inline void counter_add(unsigned long *c, long delta)
{
	MM_WRITE_ONCE(*c, *c + (unsigned long)delta);
}

/*
 * buddy_add_free() / buddy_del_free() - put the free block of 2^order pages
 * at page on (take it off) free_area[order].free_list[mt], keeping
 * nr_free, nr_free_mt, zone_nr_free(zone) and zone->nr_free_cma in step and
 * setting (clearing) PGTY_BUDDY and private = order on the head.  to_tail
 * puts the block at the list's tail.  No merging, no checks of neighbours.
 * Context: zone lock.
 */
static void buddy_add_free(struct zone *zone, struct page *page, unsigned order, int mt, bool to_tail)
{
	struct free_area *area = &zone->free_area[order];
	spin_assert_held(&zone->lock);

	if (to_tail)
		list_add_tail(&page->lru, &area->free_list[mt]);
	else
		list_add(&page->lru, &area->free_list[mt]);
	page_set_type(page, PGTY_BUDDY);
	page->private = order;
	area->nr_free++;
	counter_add(&area->nr_free_mt[mt], 1);
	counter_add(&zone->nr_free_buddy, 1L << order);
	if (mt == MIGRATE_CMA)
		counter_add(&zone->nr_free_cma, 1L << order);
}

void buddy_del_free(struct zone *zone, struct page *page, unsigned order, int mt)
{
	struct free_area *area = &zone->free_area[order];
	spin_assert_held(&zone->lock);

	MM_BUG_ON(!PageBuddy(page) || buddy_order(page) != order || !area->nr_free_mt[mt],
		  "pfn %#llx: type %#x order %lu, expected a free block of order %u on list %d (%lu there)",
		  (unsigned long long)page_to_pfn(page), page->page_type, page->private, order, mt,
		  area->nr_free_mt[mt]);
	list_del(&page->lru);
	page_clear_type(page);
	page->private = 0;
	area->nr_free--;
	counter_add(&area->nr_free_mt[mt], -1);
	counter_add(&zone->nr_free_buddy, -(1L << order));
	if (mt == MIGRATE_CMA)
		counter_add(&zone->nr_free_cma, -(1L << order));
}

/* Move a free block to another list of the same order (at the tail, as
 * Linux's move_to_free_list does); zone_nr_free(zone) does not change. */
static void buddy_move_free(struct zone *zone, struct page *page, unsigned order,
			    int old_mt, int new_mt)
{
	struct free_area *area = &zone->free_area[order];

	list_move_tail(&page->lru, &area->free_list[new_mt]);
	counter_add(&area->nr_free_mt[old_mt], -1);
	counter_add(&area->nr_free_mt[new_mt], 1);
	if (old_mt == MIGRATE_CMA)
		counter_add(&zone->nr_free_cma, -(1L << order));
	if (new_mt == MIGRATE_CMA)
		counter_add(&zone->nr_free_cma, 1L << order);
}

/*
 * Is the block at buddy_pfn a free block of this order that may merge with
 * page's block: inside the zone span, with a valid memmap, PageBuddy with
 * the same order, and the same zone and node bits as page?
 */
static bool page_is_free_buddy(const struct zone *zone, const struct page *page,
			       u64 buddy_pfn, unsigned order)
{
	const struct page *buddy;

	if (!zone_spans_pfn(zone, buddy_pfn) || !pfn_valid(buddy_pfn))
		return false;
	buddy = pfn_to_page(buddy_pfn);
	if (!PageBuddy(buddy) || buddy_order(buddy) != order)
		return false;
	return page_zonenum(buddy) == page_zonenum(page) && page_to_nid(buddy) == page_to_nid(page);
}

/*
 * After merging stopped at (pfn, order) because the buddy is not free: is
 * the buddy of the order+1 block we would form with it free?  Then the
 * block goes to the tail, hoping its buddy comes back soon.
 */
static bool buddy_merge_likely(const struct zone *zone, u64 pfn, unsigned order)
{
	u64 higher_pfn, higher_buddy_pfn;

	if (order >= MAX_PAGE_ORDER - 1)
		return false;
	higher_pfn = pfn & ~(1ULL << order);
	higher_buddy_pfn = higher_pfn ^ (1ULL << (order + 1));
	return page_is_free_buddy(zone, pfn_to_page(pfn), higher_buddy_pfn, order + 1);
}

/* Set the migratetype of every pageblock in [pfn, pfn + 2^order). */
static void set_pageblock_range(u64 pfn, unsigned order, int mt)
{
	u64 end = pfn + (1ULL << order);

	for (pfn = pageblock_start_pfn(pfn); pfn < end; pfn += pageblock_nr_pages)
		set_pageblock_migratetype(pfn, mt);
}

void buddy_free_one(struct zone *zone, u64 pfn, unsigned order, int mt, fpi_t fpi)
{
	struct page *page = pfn_to_page(pfn);
	bool to_tail;

	spin_assert_held(&zone->lock);
	MM_BUG_ON(order > MAX_PAGE_ORDER || !IS_ALIGNED(pfn, 1ULL << order),
		  "pfn %#llx order %u", (unsigned long long)pfn, order);
	MM_BUG_ON(!zone_spans_pfn(zone, pfn) || !zone_spans_pfn(zone, pfn + (1ULL << order) - 1),
		  "pfn %#llx order %u outside zone %s [%#lx, %#lx)", (unsigned long long)pfn,
		  order, zone->name, zone->zone_start_pfn, zone_end_pfn(zone));
	MM_BUG_ON(page->page_type != PAGE_TYPE_NONE || page->refcount,
		  "pfn %#llx: page_type %#x refcount %d, expected an unused page",
		  (unsigned long long)pfn, page->page_type, page->refcount);

	/* Invariant: [pfn, pfn + 2^order) is free and on no list. */
	while (order < MAX_PAGE_ORDER) {
		u64 buddy_pfn = pfn ^ (1ULL << order);
		int buddy_mt = mt;

		if (!page_is_free_buddy(zone, page, buddy_pfn, order))
			break;
		if (order >= pageblock_order) {
			/* The buddy is in other pageblocks: may they merge? */
			buddy_mt = buddy_list_mt(buddy_pfn);
			if (buddy_mt != mt && (!migratetype_is_mergeable(mt) ||
					       !migratetype_is_mergeable(buddy_mt)))
				break;
		}
		buddy_del_free(zone, pfn_to_page(buddy_pfn), order, buddy_mt);
		if (buddy_mt != mt)
			set_pageblock_range(buddy_pfn, order, mt);
		zone->ev.merges++;
		pfn &= buddy_pfn;
		page = pfn_to_page(pfn);
		order++;
	}

	to_tail = (fpi & FPI_TO_TAIL) || buddy_merge_likely(zone, pfn, order);
	buddy_add_free(zone, page, order, mt, to_tail);
}

/*
 * Split the block [pfn, pfn + 2^high), already off the lists, down to
 * order low: the upper half of each split goes on the mt list one order
 * lower; the lower half of order low remains for the caller.
 */
static void expand(struct zone *zone, u64 pfn, unsigned low, unsigned high, int mt)
{
	/* Invariant: [pfn, pfn + 2^high) is ours and on no list. */
	while (high > low) {
		high--;
		buddy_add_free(zone, pfn_to_page(pfn + (1ULL << high)), high, mt, false);
		zone->ev.splits++;
	}
}

struct page *buddy_rmqueue_smallest(struct zone *zone, unsigned order, int mt)
{
	spin_assert_held(&zone->lock);
	for (unsigned current_order = order; current_order <= MAX_PAGE_ORDER; current_order++) {
		struct list_head *list = &zone->free_area[current_order].free_list[mt];
		struct page *page;

		if (list_empty(list))
			continue;
		page = list_first_entry(list, struct page, lru);
		buddy_del_free(zone, page, current_order, mt);
		expand(zone, page_to_pfn(page), order, current_order, mt);
		return page;
	}
	return NULL;
}

/* ---- falling back to other migratetypes ---------------------------------- */

/* May a fallback block of this order claim its pageblock for start_mt? */
static bool can_steal_fallback(unsigned order, int start_mt)
{
	return order >= pageblock_order / 2 || start_mt == MIGRATE_UNMOVABLE ||
	       start_mt == MIGRATE_RECLAIMABLE;
}

/* The first fallback type of start_mt with a free block of this order, or -1. */
static int find_suitable_fallback(const struct zone *zone, unsigned order, int start_mt)
{
	const struct free_area *area = &zone->free_area[order];

	if (!area->nr_free)
		return -1;
	for (int i = 0; fallbacks[start_mt][i] != MIGRATE_TYPES; i++) {
		int fallback_mt = fallbacks[start_mt][i];

		if (area->nr_free_mt[fallback_mt])
			return fallback_mt;
	}
	return -1;
}

/*
 * Count the free buddy pages in the pageblock [start_pfn, start_pfn + 512).
 * Returns -1 if the pageblock is not entirely inside the zone span.
 */
static long pageblock_free_pages(const struct zone *zone, u64 start_pfn)
{
	u64 end_pfn = start_pfn + pageblock_nr_pages;
	long free = 0;

	if (!zone_spans_pfn(zone, start_pfn) || !zone_spans_pfn(zone, end_pfn - 1))
		return -1;
	for (u64 pfn = start_pfn; pfn < end_pfn; ) {
		unsigned order;

		if (!pfn_valid(pfn)) {
			pfn++;
			continue;
		}
		if (free_block_at(pfn, FREE_BLOCK_BUDDY, &order)) {
			free += 1L << order;
			pfn += 1ULL << order;
		} else {
			pfn++;
		}
	}
	return free;
}

/*
 * Use the fallback block at page (order current_order, on the block_mt
 * list) for a request of order for start_mt, claiming what the rules at
 * the top of this file allow.  Returns the allocated page.
 */
static struct page *steal_suitable_fallback(struct zone *zone, struct page *page,
					    unsigned current_order, unsigned order,
					    int start_mt, int block_mt, bool can_steal)
{
	u64 pfn = page_to_pfn(page), block_pfn = pageblock_start_pfn(pfn);
	long free_pages, alike_pages;

	if (current_order >= pageblock_order) {
		/* A whole pageblock or more: it becomes start_mt's outright. */
		buddy_del_free(zone, page, current_order, block_mt);
		set_pageblock_range(pfn, current_order, start_mt);
		zone->ev.steals += 1UL << (current_order - pageblock_order);
		expand(zone, pfn, order, current_order, start_mt);
		return page;
	}
	if (!can_steal)
		goto single_block;
	free_pages = pageblock_free_pages(zone, block_pfn);
	if (free_pages < 0)
		goto single_block;	/* pageblock crosses the zone edge */
	if (start_mt == MIGRATE_MOVABLE)
		alike_pages = 0;	/* allocated movable pages: not tracked */
	else if (block_mt == MIGRATE_MOVABLE)
		alike_pages = (long)pageblock_nr_pages - free_pages;
	else
		alike_pages = 0;	/* unmovable vs reclaimable: can't tell */
	if (free_pages + alike_pages >= (long)(pageblock_nr_pages / 2)) {
		buddy_move_freepages_block(zone, block_pfn, block_mt, start_mt);
		set_pageblock_migratetype(block_pfn, start_mt);
		zone->ev.steals++;
		return buddy_rmqueue_smallest(zone, order, start_mt);
	}
single_block:
	buddy_del_free(zone, page, current_order, block_mt);
	expand(zone, pfn, order, current_order, block_mt);
	return page;
}

/* Linux's __rmqueue_fallback: see the top of this file. */
static struct page *rmqueue_fallback(struct zone *zone, unsigned order, int start_mt)
{
	int current_order, fallback_mt = -1;
	bool can_steal = false;

	MM_BUG_ON(start_mt >= MIGRATE_PCPTYPES, "migratetype %d has no fallbacks", start_mt);
	/* The largest free block of a fallback type. */
	for (current_order = MAX_PAGE_ORDER; current_order >= (int)order; current_order--) {
		fallback_mt = find_suitable_fallback(zone, (unsigned)current_order, start_mt);
		if (fallback_mt >= 0)
			break;
	}
	if (fallback_mt < 0)
		return NULL;
	can_steal = can_steal_fallback((unsigned)current_order, start_mt);
	if (!can_steal && start_mt == MIGRATE_MOVABLE && current_order > (int)order) {
		/* It won't claim the pageblock: take the smallest block instead. */
		for (current_order = (int)order; current_order <= MAX_PAGE_ORDER; current_order++) {
			fallback_mt = find_suitable_fallback(zone, (unsigned)current_order, start_mt);
			if (fallback_mt >= 0)
				break;
		}
		can_steal = can_steal_fallback((unsigned)current_order, start_mt);
	}
	zone->ev.fallbacks++;
	return steal_suitable_fallback(zone,
				       list_first_entry(&zone->free_area[current_order].free_list[fallback_mt],
							struct page, lru),
				       (unsigned)current_order, order, start_mt, fallback_mt, can_steal);
}

struct page *buddy_rmqueue(struct zone *zone, unsigned order, int mt, unsigned alloc_flags)
{
	struct page *page;

	spin_assert_held(&zone->lock);
	/*
	 * Balance movable allocations between CMA and the rest: when more
	 * than half of the zone's free buddy pages are CMA, use CMA first.
	 */
	if ((alloc_flags & ALLOC_CMA) && zone->nr_free_cma > zone_buddy_free_pages(zone) / 2) {
		page = buddy_rmqueue_smallest(zone, order, MIGRATE_CMA);
		if (page)
			return page;
	}
	page = buddy_rmqueue_smallest(zone, order, mt);
	if (!page && (alloc_flags & ALLOC_CMA))
		page = buddy_rmqueue_smallest(zone, order, MIGRATE_CMA);
	if (!page)
		page = rmqueue_fallback(zone, order, mt);
	return page;
}

/* ---- moving a pageblock's free pages ------------------------------------- */

/*
 * If a free block larger than a pageblock covers the pageblock at
 * block_pfn, split it into pageblock-sized free blocks, each on the list of
 * its own pageblock (old_mt for the one at block_pfn, whose bits the caller
 * may already have changed).
 */
static void split_large_free_block(struct zone *zone, u64 block_pfn, int old_mt)
{
	for (unsigned order = pageblock_order + 1; order <= MAX_PAGE_ORDER; order++) {
		u64 head_pfn = ALIGN_DOWN(block_pfn, 1ULL << order);
		struct page *head;
		int head_mt;

		if (!zone_spans_pfn(zone, head_pfn) || !pfn_valid(head_pfn))
			continue;
		head = pfn_to_page(head_pfn);
		if (!PageBuddy(head) || buddy_order(head) != order)
			continue;
		head_mt = head_pfn == block_pfn ? old_mt : buddy_list_mt(head_pfn);
		buddy_del_free(zone, head, order, head_mt);
		for (u64 pfn = head_pfn; pfn < head_pfn + (1ULL << order); pfn += pageblock_nr_pages)
			buddy_add_free(zone, pfn_to_page(pfn), pageblock_order,
				       pfn == block_pfn ? old_mt : buddy_list_mt(pfn), true);
		return;
	}
}

/* Contract at its declaration above. */
static long buddy_move_freepages_block(struct zone *zone, u64 pfn, int old_mt, int new_mt)
{
	u64 start_pfn = pageblock_start_pfn(pfn), end_pfn = start_pfn + pageblock_nr_pages;
	long moved = 0;

	spin_assert_held(&zone->lock);
	if (!zone_spans_pfn(zone, start_pfn) || !zone_spans_pfn(zone, end_pfn - 1))
		return -EINVAL;
	split_large_free_block(zone, start_pfn, old_mt);
	for (pfn = start_pfn; pfn < end_pfn; ) {
		unsigned order;

		if (!pfn_valid(pfn) || !free_block_at(pfn, FREE_BLOCK_BUDDY, &order)) {
			pfn++;
			continue;
		}
		if (old_mt != new_mt)
			buddy_move_free(zone, pfn_to_page(pfn), order, old_mt, new_mt);
		moved += 1L << order;
		pfn += 1ULL << order;
	}
	return moved;
}

/*
 * After a pageblock's type or isolation changed: if the whole pageblock is
 * one free block, free it again so that it merges with a buddy it could
 * not merge with before (an isolated neighbour, a CMA pageblock).
 */
static void remerge_pageblock(struct zone *zone, u64 block_pfn)
{
	struct page *page = pfn_to_page(block_pfn);
	unsigned order;
	int mt;

	if (!PageBuddy(page) || buddy_order(page) < pageblock_order)
		return;
	order = buddy_order(page);
	mt = buddy_list_mt(block_pfn);
	buddy_del_free(zone, page, order, mt);
	buddy_free_one(zone, block_pfn, order, mt, FPI_NONE);
}

long buddy_set_pageblock_migratetype(struct zone *zone, u64 pfn, int mt)
{
	int old_mt = get_pageblock_migratetype(pfn);
	long moved = 0;

	spin_assert_held(&zone->lock);
	MM_BUG_ON(mt < 0 || mt >= MIGRATE_ISOLATE, "migratetype %d (isolate with buddy_isolate_pageblock)", mt);
	if (!get_pageblock_isolate(pfn)) {
		moved = buddy_move_freepages_block(zone, pfn, old_mt, mt);
		if (moved < 0)
			return moved;
	}
	set_pageblock_migratetype(pfn, mt);
	if (moved > 0)
		remerge_pageblock(zone, pageblock_start_pfn(pfn));
	return moved;
}

long buddy_isolate_pageblock(struct zone *zone, u64 pfn, bool isolate)
{
	int mt = get_pageblock_migratetype(pfn);
	long moved;

	spin_assert_held(&zone->lock);
	if (get_pageblock_isolate(pfn) == isolate)
		return 0;
	moved = isolate ? buddy_move_freepages_block(zone, pfn, mt, MIGRATE_ISOLATE)
			: buddy_move_freepages_block(zone, pfn, MIGRATE_ISOLATE, mt);
	if (moved < 0)
		return moved;
	set_pageblock_isolate(pfn, isolate);
	if (!isolate && moved > 0)
		remerge_pageblock(zone, pageblock_start_pfn(pfn));
	return moved;
}

unsigned long zone_isolated_free_pages(const struct zone *zone)
{
	unsigned long pages = 0;

	for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++)
		pages += MM_READ_ONCE(zone->free_area[order].nr_free_mt[MIGRATE_ISOLATE]) << order;
	return pages;
}

/* Contract in include/mm/buddy.h. */
u64 free_block_containing(u64 pfn, unsigned *order)
{
	for (unsigned o = 0; o <= MAX_PAGE_ORDER; o++) {
		u64 head_pfn = ALIGN_DOWN(pfn, 1ULL << o);
		unsigned head_order;

		if (!pfn_valid(head_pfn))
			break;
		if (free_block_at(head_pfn, FREE_BLOCK_BUDDY, &head_order) && head_order >= o) {
			*order = head_order;
			return head_pfn;
		}
	}
	return NO_PFN;
}

/* Contract in include/mm/buddy.h. */
unsigned long zone_free_blocks(const struct zone *zone, unsigned order)
{
	return zone->free_area[order].nr_free;
}

/* Contract in include/mm/buddy.h. */
unsigned long zone_free_list_count(const struct zone *zone, unsigned order, int mt,
				   unsigned long cap, bool *overflow)
{
	const struct list_head *head = &zone->free_area[order].free_list[mt];
	unsigned long n = 0;

	*overflow = false;
	for (const struct list_head *pos = head->next; pos != head; pos = pos->next) {
		if (++n >= cap) {
			*overflow = true;
			break;
		}
	}
	return n;
}

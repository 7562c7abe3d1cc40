/*
 * page_isolation.c - fencing off a pfn range so that nothing is allocated
 * from it while it is being taken away (memory offlining, contiguous
 * allocation), and taking its free pages out of the buddy for good.
 *
 * The offline of a range [start_pfn, end_pfn), pageblock aligned, goes:
 *
 *   start_isolate_page_range()   pcp lists drained; every pageblock checked
 *                                for unmovable pages, then its isolate bit
 *                                set and its free pages moved to the zone's
 *                                MIGRATE_ISOLATE lists
 *   migrate_range()              (migrate.c) movable blocks copied elsewhere;
 *                                the old blocks are freed, and because their
 *                                pageblocks are isolated they land on the
 *                                isolate lists too
 *   test_pages_isolated()        every page is now free on an isolate list
 *                                (or offline, or the range's own memmap)
 *   offline_isolated_pages()     the free blocks leave the buddy; their pages
 *                                become PageOffline with refcount 0
 *   undo_isolate_page_range()    the isolate bits are cleared
 *
 * and on any failure before offline_isolated_pages(), undo_isolate_page_range()
 * alone puts everything back: the free pages return to their pageblock's
 * lists and merge again, so the free lists look as they did before.
 *
 * Why isolation is enough to fence a pageblock off: the allocator never
 * takes a block from a MIGRATE_ISOLATE list (buddy.c never falls back to
 * it), a page freed into an isolated pageblock bypasses the pcp lists
 * (pcp_free) and goes to the isolate list, and an isolated pageblock never
 * merges with a non-isolated one.  The pcp lists are drained first, as
 * Linux does, so no free page of the range hides there.
 *
 * Which allocated pages may stay in a pageblock being isolated for offline
 * or contiguous allocation (the ISOLATE_* check flags): only movable ones.
 * An allocated page is movable when page_movable_block() (migrate.h) finds
 * its owner's block: a movable owner on every page, the owner's block_of()
 * agreeing, and no extra reference (refcount exactly 1).  Everything else
 * allocated is unmovable: a page allocated without an owner (what Linux
 * would call a pinned or kernel page) and a PG_reserved page (boot
 * memory, firmware, holes).  Free pages (buddy or pcp) and PageOffline
 * pages are fine.  One exception for offlining: with memmap_on_memory a
 * hot-added block carries its own memmap in its first pages; the hotplug
 * code marks those pages PGTY_TABLE (they are also PG_reserved), and an
 * offline of that block may skip them, since they go away with the block.
 * For a contiguous allocation they are unmovable like any reserved page.
 *
 * Blocks that straddle the range's edges.  The range is pageblock aligned,
 * so only blocks larger than a pageblock (order 10, MAX_PAGE_ORDER) can
 * cross an edge:
 *   - a free block: isolating the pageblock inside the range splits it
 *     (buddy_isolate_pageblock -> buddy.c's split_large_free_block) into
 *     pageblock-sized blocks, each on the list of its own pageblock, so the
 *     part outside stays allocatable; undoing the isolation re-merges them.
 *     This is what Linux's isolate_single_pageblock() does for free pages.
 *   - an allocated movable block: it is migrated as a whole, and the old
 *     block is freed pageblock by pageblock (migrate.c), each part to the
 *     list of its own pageblock: isolate inside, normal outside;
 *   - an allocated unmovable block: its first page inside the range fails
 *     the isolation, like any unmovable page.
 * offline_isolated_pages() also copes with a free block on an isolate list
 * that reaches outside the range (two isolated pageblocks may merge across
 * the edge if someone else isolated the neighbour): the part outside goes
 * back to the buddy.
 *
 * Pageblocks and holes: pfn_valid() is per 2 MiB subsection, the size of a
 * pageblock, so a pageblock has a memmap entirely or not at all.  Pageblocks
 * without one are skipped by every function here.  A pageblock that is not
 * entirely inside its zone's span (a zone edge that is not pageblock
 * aligned) cannot be isolated: the buddy cannot move its free pages, so
 * start_isolate_page_range() fails there.
 *
 * Context: (main), with no zone or pcp lock held: each buddy change takes
 * zone->lock around it, and the drains take the pcp locks.  Between two
 * such changes only the range's own pageblocks are touched.
 */
#include <mm/page_isolation.h>
#include <mm/migrate.h>
#include "buddy_internal.h"
#include <mm/zone_contig.h>
#include <mm/deferred_init.h>
#include <lib/errno.h>
#include <lib/printk.h>


/* A pageblock is whole in its zone's span: the buddy can move its free pages. */
static bool pageblock_in_zone(const struct zone *zone, u64 block_pfn)
{
	return zone_spans_pfn(zone, block_pfn) &&
	       zone_spans_pfn(zone, block_pfn + pageblock_nr_pages - 1);
}

/*
 * If pfn lies inside a free buddy block whose head is at or before it,
 * the first pfn after that block; else pfn itself.  Used where a scan
 * starts, possibly in the middle of a free block.
 */
static u64 skip_free_block_at(u64 pfn)
{
	unsigned order;
	u64 head_pfn = free_block_containing(pfn, &order);

	return head_pfn == NO_PFN ? pfn : head_pfn + (1ULL << order);
}

/*
 * The first pfn of [start_pfn, end_pfn) holding an allocated page that is
 * not movable, or NO_PFN.  memmap_ok: PGTY_TABLE pages (the range's own
 * memmap, memmap_on_memory) are accepted, as for offlining.  A page with
 * refcount 0 that is neither buddy nor pcp (the inside of a free block, or
 * a page between the allocator and its owner) is not allocated and passes
 * here; test_pages_isolated() is the strict check.
 */
static u64 scan_unmovable(u64 start_pfn, u64 end_pfn, bool memmap_ok)
{
	u64 pfn = skip_free_block_at(start_pfn);

	while (pfn < end_pfn) {
		struct page *page, *head;
		unsigned order;

		if (!pfn_valid(pfn)) {
			pfn = pageblock_end_pfn(pfn);
			continue;
		}
		page = pfn_to_page(pfn);
		if (free_block_at(pfn, FREE_BLOCK_BUDDY | FREE_BLOCK_PCP, &order)) {
			pfn += 1ULL << order;
		} else if (PageOffline(page) || (memmap_ok && page_has_type(page, PGTY_TABLE))) {
			pfn++;
		} else if (PageReserved(page) || page_has_type(page, PGTY_TABLE)) {
			return pfn;
		} else if (page->refcount == 0) {
			pfn++;
		} else if (page_movable_block(page, &head, &order)) {
			/* The block may have started before pfn: resume after it. */
			pfn = MAX(pfn + 1, page_to_pfn(head) + (1ULL << order));
		} else {
			return pfn;
		}
	}
	return NO_PFN;
}

/* The offline rules: the range's own memmap pages (PGTY_TABLE) may stay. */
u64 has_unmovable_pages(u64 start_pfn, u64 end_pfn)
{
	MM_BUG_ON(start_pfn > end_pfn, "[%#llx-%#llx)", (unsigned long long)start_pfn,
		  (unsigned long long)end_pfn);

	return scan_unmovable(start_pfn, end_pfn, true);
}

/*
 * Clear the isolate bit of every isolated pageblock of the range (widened
 * to pageblock boundaries); the buddy moves their free pages back to the
 * pageblock's own lists and re-merges whole free pageblocks with their
 * buddies.  PageOffline pages stay offline.
 */
void undo_isolate_page_range(u64 start_pfn, u64 end_pfn)
{
	MM_BUG_ON(start_pfn > end_pfn, "[%#llx-%#llx)", (unsigned long long)start_pfn,
		  (unsigned long long)end_pfn);

	start_pfn = pageblock_start_pfn(start_pfn);
	end_pfn = ALIGN_UP(end_pfn, pageblock_nr_pages);
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn += pageblock_nr_pages) {
		struct zone *zone;
		long moved;

		if (!pfn_valid(pfn) || !get_pageblock_isolate(pfn))
			continue;
		zone = page_zone(pfn_to_page(pfn));
		spin_lock(&zone->lock);
		moved = buddy_isolate_pageblock(zone, pfn, false);
		spin_unlock(&zone->lock);
		/* Its memmap says this zone, but the zone's span does not cover it. */
		MM_WARN_ON(moved < 0, "pageblock 0x%llx is outside zone %s [%#lx, %#lx); it stays isolated",
			   (unsigned long long)pfn, zone->name, zone->zone_start_pfn, zone_end_pfn(zone));
	}
}

/* Contract in page_isolation.h. */
void retire_isolated_range(u64 start_pfn, u64 end_pfn)
{
	MM_BUG_ON(!IS_ALIGNED(start_pfn, pageblock_nr_pages) ||
		  !IS_ALIGNED(end_pfn, pageblock_nr_pages) || start_pfn > end_pfn,
		  "[%#llx-%#llx) is not a range of whole pageblocks", (unsigned long long)start_pfn,
		  (unsigned long long)end_pfn);
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn += pageblock_nr_pages)
		if (pfn_valid(pfn))
			set_pageblock_isolate(pfn, false);
}

/*
 * Isolating splits a free block larger than a pageblock into pageblocks
 * (buddy.c), so two neighbouring isolated pageblocks that were one free
 * block are left as two buddies on the isolate list.  Free each whole-
 * pageblock block again so it merges with an isolated buddy, keeping the
 * buddy's invariant that free blocks are maximal.  (An isolated pageblock
 * never merges with a non-isolated one, so nothing leaves the range.)
 */
static void remerge_isolated(u64 start_pfn, u64 end_pfn)
{
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn += pageblock_nr_pages) {
		struct page *page;
		struct zone *zone;
		unsigned order;

		if (!pfn_valid(pfn) || !get_pageblock_isolate(pfn))
			continue;
		page = pfn_to_page(pfn);
		if (!PageBuddy(page) || buddy_order(page) != pageblock_order)
			continue;
		order = buddy_order(page);
		zone = page_zone(page);
		spin_lock(&zone->lock);
		buddy_del_free(zone, page, order, MIGRATE_ISOLATE);
		buddy_free_one(zone, pfn, order, MIGRATE_ISOLATE, FPI_NONE);
		spin_unlock(&zone->lock);
	}
}

/*
 * Isolate pageblock by pageblock; a pageblock that holds an unmovable page
 * (with the check flags), that is already isolated (someone else is
 * offlining or allocating it), or that the buddy cannot move (zone edge)
 * ends the walk: the pageblocks this call isolated are restored.
 */
int start_isolate_page_range(u64 start_pfn, u64 end_pfn, unsigned flags, u64 *failed_pfn)
{
	bool check = flags & (ISOLATE_MEMORY_OFFLINE | ISOLATE_CONTIG_ALLOC);
	bool memmap_ok = flags & ISOLATE_MEMORY_OFFLINE;
	struct zone_contig_scan_stats before = zone_contig_scan;
	struct zone *drained = NULL, *zone = NULL;
	u64 pfn, bad_pfn = NO_PFN;
	long moved;

	MM_BUG_ON(flags & ~(ISOLATE_MEMORY_OFFLINE | ISOLATE_CONTIG_ALLOC), "[%#llx-%#llx) flags %#x",
		  (unsigned long long)start_pfn, (unsigned long long)end_pfn, flags);

	if (start_pfn >= end_pfn || !IS_ALIGNED(start_pfn, pageblock_nr_pages) ||
	    !IS_ALIGNED(end_pfn, pageblock_nr_pages))
		return -EINVAL;
	deferred_init_pfn_range(start_pfn, end_pfn);	/* pending boot memory: initialised first */

	/*
	 * Free pages of the range may sit on pcp lists: give them to the
	 * buddy.  A pageblock of the zone drained last needs nothing; in a
	 * contiguous zone it is known to be one without pfn_valid / zone
	 * checks (zone_pageblock_page()).
	 */
	for (pfn = start_pfn; pfn < end_pfn; pfn += pageblock_nr_pages) {
		struct zone *zone;

		if (drained && zone_pageblock_page(pfn, drained))
			continue;
		if (!pfn_valid(pfn))
			continue;
		zone = page_zone(pfn_to_page(pfn));
		if (zone != drained)
			pcp_drain_each_cpu(zone, NULL);	/* each CPU its own lists */
		drained = zone;
	}

	/*
	 * Invariant: the pageblocks of [start_pfn, pfn) are isolated by us.
	 * A pageblock whose zone is the previous one's is probed once; it
	 * then needs neither pfn_valid, page_zone nor the zone-edge check.
	 */
	for (pfn = start_pfn; pfn < end_pfn; pfn += pageblock_nr_pages) {
		bool in_zone = zone && zone_pageblock_page(pfn, zone);

		if (!in_zone) {
			if (!pfn_valid(pfn))
				continue;
			zone = page_zone(pfn_to_page(pfn));
		}
		/*
		 * A CMA pageblock belongs to its CMA area for good: offlining
		 * it would leave the area counting memory that is gone.  Linux
		 * refuses it the same way; only alloc_contig_range isolates it.
		 */
		if ((flags & ISOLATE_MEMORY_OFFLINE) &&
		    get_pageblock_migratetype(pfn) == MIGRATE_CMA) {
			bad_pfn = pfn;
			break;
		}
		if (check) {
			bad_pfn = scan_unmovable(pfn, pfn + pageblock_nr_pages, memmap_ok);
			if (bad_pfn != NO_PFN)
				break;
		}
		if (get_pageblock_isolate(pfn) || (!in_zone && !pageblock_in_zone(zone, pfn))) {
			bad_pfn = pfn;
			break;
		}
		spin_lock(&zone->lock);
		moved = buddy_isolate_pageblock(zone, pfn, true);
		spin_unlock(&zone->lock);
		if (moved < 0) {
			bad_pfn = pfn;
			break;
		}
	}
	zone_contig_scan_trace("start_isolate_page_range", start_pfn, end_pfn, zone, &before);
	if (bad_pfn == NO_PFN) {
		remerge_isolated(start_pfn, end_pfn);
		return 0;
	}
	undo_isolate_page_range(start_pfn, pfn);
	if (failed_pfn)
		*failed_pfn = bad_pfn;
	return -EBUSY;
}

/*
 * A range is ready to be offlined when every page is free in the buddy
 * with its pageblock isolated (so on an isolate list), or PageOffline, or
 * one of the range's own memmap pages (PGTY_TABLE).
 */
int test_pages_isolated(u64 start_pfn, u64 end_pfn, u64 *failed_pfn)
{
	u64 pfn = start_pfn;

	MM_BUG_ON(start_pfn > end_pfn, "[%#llx-%#llx)", (unsigned long long)start_pfn,
		  (unsigned long long)end_pfn);

	/* A free block that began before start_pfn: its pageblock decides. */
	if (pfn_valid(pfn) && skip_free_block_at(pfn) != pfn && get_pageblock_isolate(pfn))
		pfn = skip_free_block_at(pfn);
	while (pfn < end_pfn) {
		const struct page *page;
		unsigned order;

		if (!pfn_valid(pfn)) {
			pfn = pageblock_end_pfn(pfn);
			continue;
		}
		page = pfn_to_page(pfn);
		if (free_block_at(pfn, FREE_BLOCK_BUDDY, &order) && get_pageblock_isolate(pfn)) {
			pfn += 1ULL << order;
		} else if (PageOffline(page) || page_has_type(page, PGTY_TABLE)) {
			pfn++;
		} else {
			if (failed_pfn)
				*failed_pfn = pfn;
			return -EBUSY;
		}
	}
	return 0;
}

/*
 * Give the pages of [pfn, end) (inside a free block just taken off its
 * list, outside the range being offlined) back to the buddy, in the
 * largest aligned blocks that fit; they merge as the buddy allows.
 * Context: zone lock.
 */
static void free_outside_part(struct zone *zone, u64 pfn, u64 end)
{
	while (pfn < end) {
		unsigned order = MAX_PAGE_ORDER;

		while (order && (!IS_ALIGNED(pfn, 1ULL << order) || pfn + (1ULL << order) > end))
			order--;
		buddy_free_one(zone, pfn, order, buddy_list_mt(pfn), FPI_NONE);
		pfn += 1ULL << order;
	}
}

/*
 * Take the free block at head_pfn (order, on the isolate list) out of the
 * buddy; the part inside [start_pfn, end_pfn) becomes PageOffline, the rest
 * is freed again.  Returns the pages taken.  Without mark the pages inside
 * are left as they are (their memmap is about to be retired).
 */
static u64 take_free_block(u64 head_pfn, unsigned order, u64 start_pfn, u64 end_pfn, bool mark)
{
	u64 block_end = head_pfn + (1ULL << order);
	u64 first = MAX(head_pfn, start_pfn), last = MIN(block_end, end_pfn);
	struct page *head = pfn_to_page(head_pfn);
	struct zone *zone = page_zone(head);

	spin_lock(&zone->lock);
	buddy_del_free(zone, head, order, MIGRATE_ISOLATE);
	for (u64 pfn = first; mark && pfn < last; pfn++) {
		struct page *page = pfn_to_page(pfn);

		page_set_type(page, PGTY_OFFLINE);
		page->refcount = 0;
		page->private = 0;
		page_flag_clear(page, PG_poisoned);	/* the memory goes away */
	}
	free_outside_part(zone, head_pfn, first);
	free_outside_part(zone, last, block_end);
	spin_unlock(&zone->lock);
	return last - first;
}

/*
 * Walk the range and take every free block of an isolated pageblock out
 * of the buddy.  Pages that are not such free blocks (offline already,
 * memmap) are left as they are: test_pages_isolated() said there is
 * nothing else.  managed_pages is the caller's to lower.
 */
static unsigned long take_isolated_pages(u64 start_pfn, u64 end_pfn, bool mark)
{
	unsigned long taken = 0;
	u64 pfn = start_pfn;

	MM_BUG_ON(start_pfn > end_pfn, "[%#llx-%#llx)", (unsigned long long)start_pfn,
		  (unsigned long long)end_pfn);

	/* A free block that began before start_pfn on an isolate list. */
	if (pfn_valid(pfn) && get_pageblock_isolate(pfn)) {
		unsigned order;
		u64 head_pfn = free_block_containing(pfn, &order);

		if (head_pfn != NO_PFN) {
			taken += take_free_block(head_pfn, order, start_pfn, end_pfn, mark);
			pfn = head_pfn + (1ULL << order);
		}
	}
	while (pfn < end_pfn) {
		unsigned order;

		if (!pfn_valid(pfn)) {
			pfn = pageblock_end_pfn(pfn);
			continue;
		}
		if (!free_block_at(pfn, FREE_BLOCK_BUDDY, &order) || !get_pageblock_isolate(pfn)) {
			pfn++;	/* offline, memmap, or not ours to take */
			continue;
		}
		taken += take_free_block(pfn, order, start_pfn, end_pfn, mark);
		pfn += 1ULL << order;
	}
	return taken;
}

/* Contracts in page_isolation.h. */
unsigned long offline_isolated_pages(u64 start_pfn, u64 end_pfn)
{
	return take_isolated_pages(start_pfn, end_pfn, true);
}

unsigned long offline_isolated_pages_retire(u64 start_pfn, u64 end_pfn)
{
	return take_isolated_pages(start_pfn, end_pfn, false);
}

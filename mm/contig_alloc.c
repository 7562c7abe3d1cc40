/*
 * contig_alloc.c - contiguous ranges of any length: alloc_contig_range()
 * and alloc_contig_pages().
 *
 * Allocating a range
 * ------------------
 * The buddy allocator hands out aligned power-of-two blocks of at most 4 MiB.
 * A driver that needs 64 MiB of physically contiguous memory (a camera
 * buffer, a huge page, a virtio-mem block being unplugged) needs something
 * else: pick a range of pfns and make every page in it free, then take it.
 * Pages that are free already are just taken; pages that hold movable data
 * are emptied by migrating the data elsewhere; any other allocated page
 * makes the range impossible.  alloc_contig_range() does that in Linux's
 * steps (contig_alloc.h lists them): check, isolate the pageblocks (so the
 * allocator hands out nothing from them while we work), migrate, test that
 * every page is now free on an isolate list, pull the free buddy blocks
 * out, undo the isolation.
 *
 * Two details are worth seeing.  Isolation works on whole pageblocks, so
 * the range is rounded out to pageblocks for it, but only the pages of
 * [start_pfn, end_pfn) itself must be free or movable: an unmovable page
 * in the same pageblock just outside the range does not matter (Linux
 * checks the intersection of each pageblock with the range since 5.19).
 * memlab's start_isolate_page_range() checks whole pageblocks when asked
 * to, so the check is done here on the exact range and the isolation is
 * asked for without one.  And free buddy blocks do not respect the range:
 * a free order-10 block may start before start_pfn or end after end_pfn.
 * Such a block is taken whole and the parts outside the range are given
 * back in the largest aligned pieces, which land on the isolate list and
 * go back to their normal lists when the isolation is undone (Linux frees
 * them with free_contig_range(); here the buddy is called directly, since
 * those pages never left it as far as the counters are concerned).
 *
 * Freeing a range, the old and the new design of free_contig_range(), is
 * in contig_free.c; both use free_pfn_range_to_buddy() (page_alloc.c), which
 * gives free pages back to the buddy in the largest naturally aligned chunks.
 *
 * Context: (main).  Nothing else allocates or frees while these run (one
 * CPU, never from interrupt handlers).
 */
#include "buddy_internal.h"
#include <mm/contig_alloc.h>
#include <mm/range_claim.h>
#include <mm/page_isolation.h>
#include <mm/migrate.h>
#include "internal.h"
#include <mm/zone_contig.h>
#include <mm/deferred_init.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

/* ---- allocating: step 1, the check ----------------------------------------- */

static int acr_fail(struct contig_alloc_report *why, int err, const char *step, u64 pfn)
{
	why->err = err;
	why->step = step;
	why->pfn = pfn;
	return err;
}

/*
 * May [start_pfn, end_pfn) be allocated?  Every pageblock touched is
 * online (the struct pages of offline memory say nothing), lies whole in
 * one zone (the zone of the first) and has the right kind of migratetype;
 * every page of the range itself is free (buddy, pcp, inside a free block)
 * or part of a movable block.  *zonep = the zone.
 */
static int contig_check_range(u64 start_pfn, u64 end_pfn, int migratetype, struct zone **zonep,
			      struct contig_alloc_report *why)
{
	struct zone *zone = NULL;
	u64 pfn;

	struct zone_contig_scan_stats before = zone_contig_scan;

	for (pfn = pageblock_start_pfn(start_pfn); pfn < end_pfn; pfn += pageblock_nr_pages) {
		struct zone *z;
		int mt;

		/*
		 * From the second pageblock on, one probe: in a contiguous zone
		 * it skips the checks below (they cannot fail inside the span);
		 * a NULL answer runs them, to say why.
		 */
		if (zone && zone_pageblock_page(pfn, zone))
			goto migratetype;
		if (!pfn_to_online_page(pfn)) {
			ksnprintf(why->why, sizeof(why->why), "pfn 0x%llx: %s",
				  (unsigned long long)MAX(pfn, start_pfn), pfn_valid(pfn) ?
				  "offline memory (its struct pages are not in use)" :
				  "no memmap (a hole or absent memory)");
			return acr_fail(why, -EINVAL, "check", MAX(pfn, start_pfn));
		}
		z = page_zone(pfn_to_page(pfn));
		if (!zone)
			zone = z;
		if (z != zone) {
			ksnprintf(why->why, sizeof(why->why),
				  "pfn 0x%llx: the range crosses from zone %s to zone %s; a contiguous range lies in one zone",
				  (unsigned long long)pfn, zone->name, z->name);
			return acr_fail(why, -EINVAL, "check", pfn);
		}
		if (!zone_spans_pfn(zone, pfn) || !zone_spans_pfn(zone, pfn + pageblock_nr_pages - 1)) {
			ksnprintf(why->why, sizeof(why->why),
				  "pfn 0x%llx: pageblock 0x%llx crosses the edge of zone %s [0x%lx-0x%lx)",
				  (unsigned long long)MAX(pfn, start_pfn), (unsigned long long)pfn,
				  zone->name, zone->zone_start_pfn, zone_end_pfn(zone));
			return acr_fail(why, -EBUSY, "check", MAX(pfn, start_pfn));
		}
migratetype:
		mt = get_pageblock_migratetype(pfn);
		if (migratetype == MIGRATE_CMA && mt != MIGRATE_CMA) {
			ksnprintf(why->why, sizeof(why->why),
				  "pfn 0x%llx: pageblock 0x%llx is %s, not CMA (MIGRATE_CMA ranges lie in a CMA area)",
				  (unsigned long long)MAX(pfn, start_pfn), (unsigned long long)pfn,
				  migratetype_name(mt));
			return acr_fail(why, -EINVAL, "check", MAX(pfn, start_pfn));
		}
		if (migratetype == MIGRATE_MOVABLE && mt == MIGRATE_CMA) {
			ksnprintf(why->why, sizeof(why->why),
				  "pfn 0x%llx: pageblock 0x%llx belongs to a CMA area (allocate it with cma_alloc)",
				  (unsigned long long)MAX(pfn, start_pfn), (unsigned long long)pfn);
			return acr_fail(why, -EBUSY, "check", MAX(pfn, start_pfn));
		}
	}

	for (pfn = start_pfn; pfn < end_pfn; ) {
		struct page *page = pfn_to_page(pfn), *head;
		unsigned order;

		if (PageBuddy(page)) {
			pfn += 1ULL << buddy_order(page);
		} else if (PagePcp(page)) {
			pfn += 1ULL << page->private;
		} else if (page->page_type == PAGE_TYPE_NONE && !PageReserved(page) && !page->refcount) {
			pfn++;		/* inside a free block (or frozen: test_pages_isolated decides) */
		} else if (page->page_type == PAGE_TYPE_NONE && !PageReserved(page) &&
			   page_movable_block(page, &head, &order)) {
			pfn = MAX(pfn + 1, page_to_pfn(head) + (1ULL << order));
		} else {
			if (PageOffline(page))
				ksnprintf(why->why, sizeof(why->why), "pfn 0x%llx: offline page (no memory to give)",
					  (unsigned long long)pfn);
			else
				describe_unmovable(pfn, why->why, sizeof(why->why));
			return acr_fail(why, -EBUSY, "check", pfn);
		}
	}
	zone_contig_scan_trace("alloc_contig_range: check", start_pfn, end_pfn, zone, &before);
	*zonep = zone;
	return 0;
}

/* ---- allocating: step 5, taking the free blocks ---------------------------- */

/*
 * Linux's isolate_freepages_range() for a range test_pages_isolated()
 * accepted: every page of [start_pfn, end_pfn) is in a free block on an
 * isolate list.  Take each block off its list whole; what lies outside
 * the range goes back to the buddy (onto the isolate list, since its
 * pageblock is isolated too).  The range's pages are then off every list,
 * refcount 0, untyped.
 */
static void isolate_freepages_range(struct zone *zone, u64 start_pfn, u64 end_pfn)
{
	u64 pfn = start_pfn;

	while (pfn < end_pfn) {
		unsigned order = 0;
		u64 head_pfn, block_end;

		spin_lock(&zone->lock);
		head_pfn = free_block_containing(pfn, &order);
		MM_BUG_ON(head_pfn == NO_PFN, "pfn %#llx is not free after test_pages_isolated()",
			  (unsigned long long)pfn);
		block_end = head_pfn + (1ULL << order);
		buddy_del_free(zone, pfn_to_page(head_pfn), order, buddy_list_mt(head_pfn));
		spin_unlock(&zone->lock);
		/* The block is ours now: its two ends go back, each under the lock. */
		free_pfn_range_to_buddy(zone, head_pfn, MAX(head_pfn, start_pfn), FREE_RANGE_PREPARED, NULL);
		free_pfn_range_to_buddy(zone, MIN(block_end, end_pfn), block_end, FREE_RANGE_PREPARED, NULL);
		pfn = block_end;
	}
}

/*
 * Step 6: what prep_new_page() does for a block: the pages were free, so
 * they must look free; check poison, give each its reference (or leave it
 * frozen at 0), zero on request.
 */
static void prep_contig_pages(u64 start_pfn, u64 end_pfn, gfp_t gfp, bool frozen)
{
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn++) {
		struct page *p = pfn_to_page(pfn);

		MM_BUG_ON(p->refcount || p->page_type != PAGE_TYPE_NONE || PageReserved(p),
			  "pfn %#llx taken from the buddy: refcount %d type %#x flags %#lx",
			  (unsigned long long)pfn, p->refcount, p->page_type, p->flags);
		if (page_flag_test(p, PG_poisoned))
			page_poison_check(p);
		p->refcount = frozen ? 0 : 1;
		p->private = 0;
		INIT_LIST_HEAD(&p->lru);
		if (gfp & __GFP_ZERO)
			memset(mm_phys_to_virt(PFN_PHYS(pfn)), 0, PAGE_SIZE);
	}
}

/* ---- allocating: the whole sequence ------------------------------------------ */

int alloc_contig_range_explain(u64 start_pfn, u64 end_pfn, int migratetype, gfp_t gfp,
			       bool frozen, struct contig_alloc_report *why)
{
	u64 outer_start = pageblock_start_pfn(start_pfn);
	u64 outer_end = ALIGN_UP(end_pfn, pageblock_nr_pages);
	u64 failed = NO_PFN, moved = 0;
	struct zone *zone = NULL;
	int err;

	why->err = 0;
	why->pfn = NO_PFN;
	why->step = "";
	why->why[0] = '\0';
	why->migrated = 0;
	if (range_claim_check(start_pfn, end_pfn)) {
		/* another holder changes this memory (range_claim.h) */
		why->err = -EBUSY;
		why->step = "check";
		ksnprintf(why->why, sizeof(why->why), "%s is working on that memory",
			  range_claim_holder(start_pfn, end_pfn)->name);
		return -EBUSY;
	}
	if (start_pfn >= end_pfn || end_pfn > MAX_PFN) {
		ksnprintf(why->why, sizeof(why->why), "empty or impossible range [0x%llx, 0x%llx)",
			  (unsigned long long)start_pfn, (unsigned long long)end_pfn);
		return acr_fail(why, -EINVAL, "args", NO_PFN);
	}
	deferred_init_pfn_range(outer_start, outer_end);	/* pending boot memory: initialised first */
	if (migratetype != MIGRATE_MOVABLE && migratetype != MIGRATE_CMA) {
		ksnprintf(why->why, sizeof(why->why), "migratetype %s: only Movable or CMA ranges",
			  migratetype_name(migratetype));
		return acr_fail(why, -EINVAL, "args", NO_PFN);
	}
	if (gfp & ~(__GFP_NOWARN | __GFP_ZERO)) {
		ksnprintf(why->why, sizeof(why->why), "gfp 0x%x: only __GFP_NOWARN and __GFP_ZERO", gfp);
		return acr_fail(why, -EINVAL, "args", NO_PFN);
	}

	/* 1: the exact range must be free or movable. */
	err = contig_check_range(start_pfn, end_pfn, migratetype, &zone, why);
	if (err)
		goto out;

	/* 2: fence off the pageblocks (drains the pcp lists first). */
	err = start_isolate_page_range(outer_start, outer_end, 0, &failed);
	if (err) {
		describe_unmovable(failed, why->why, sizeof(why->why));
		acr_fail(why, err, "isolate", failed);
		goto out;
	}

	/* 3: empty the movable blocks; their old pages land on isolate lists. */
	err = migrate_range(start_pfn, end_pfn, &failed, &moved);
	why->migrated = moved;
	if (err) {
		if (err == -ENOMEM)
			ksnprintf(why->why, sizeof(why->why),
				  "pfn 0x%llx: no free block to migrate its allocation to",
				  (unsigned long long)failed);
		else
			describe_unmovable(failed, why->why, sizeof(why->why));
		acr_fail(why, err, "migrate", failed);
		goto out_undo;
	}

	/* 4: every page free in the buddy now? */
	err = test_pages_isolated(start_pfn, end_pfn, &failed);
	if (err) {
		describe_unmovable(failed, why->why, sizeof(why->why));
		acr_fail(why, err, "test", failed);
		goto out_undo;
	}

	/* 5, 6: take the free blocks, give back what sticks out, hand out. */
	isolate_freepages_range(zone, start_pfn, end_pfn);
	undo_isolate_page_range(outer_start, outer_end);
	prep_contig_pages(start_pfn, end_pfn, gfp, frozen);
	return 0;

out_undo:
	undo_isolate_page_range(outer_start, outer_end);
out:
	if (!(gfp & __GFP_NOWARN))
		pr_info("alloc_contig_range: [0x%llx, 0x%llx) PFNs busy: %s: %s",
			(unsigned long long)start_pfn, (unsigned long long)end_pfn, why->step, why->why);
	return err;
}

int alloc_contig_range(u64 start_pfn, u64 end_pfn, int migratetype, gfp_t gfp)
{
	struct contig_alloc_report why;

	return alloc_contig_range_explain(start_pfn, end_pfn, migratetype, gfp, false, &why);
}

int alloc_contig_frozen_range(u64 start_pfn, u64 end_pfn, int migratetype, gfp_t gfp)
{
	struct contig_alloc_report why;

	return alloc_contig_range_explain(start_pfn, end_pfn, migratetype, gfp, true, &why);
}

/*
 * Linux's pfn_range_valid_contig(): worth trying?  Present memmap, one
 * zone, no reserved or typed-allocated page, no CMA pageblock.  Cheap
 * filter only; alloc_contig_range() makes the real checks.
 */
static bool pfn_range_valid_contig(const struct zone *zone, u64 start_pfn, u64 nr_pages)
{
	for (u64 pfn = start_pfn; pfn < start_pfn + nr_pages; pfn++) {
		const struct page *page;

		if (IS_ALIGNED(pfn, pageblock_nr_pages) || pfn == start_pfn) {
			if (!pfn_to_online_page(pfn) || get_pageblock_migratetype(pfn) == MIGRATE_CMA)
				return false;
		}
		page = pfn_to_page(pfn);
		if (page_zone(page) != zone || PageReserved(page) || PageOffline(page) ||
		    page_has_type(page, PGTY_TABLE))
			return false;
	}
	return true;
}

struct page *alloc_contig_pages(u64 nr_pages, gfp_t gfp, int nid, bool frozen)
{
	const struct zonelist *zonelist;
	struct zone *zone;
	u64 align;

	if (!nr_pages || nr_pages > MAX_PFN)
		return NULL;
	align = 1ULL << (63 - __builtin_clzll(nr_pages));
	if (align < nr_pages)
		align <<= 1;	/* nr_pages rounded up to a power of two */
	if (nid < 0 || nid >= MAX_NUMNODES || !NODE_DATA(nid)->online)
		nid = 0;
	zonelist = &NODE_DATA(nid)->node_zonelist;
	for (int i = 0; (zone = zonelist_zone(zonelist, i)) != NULL; i++) {
		u64 pfn;

		if ((int)zone->idx > (int)gfp_zone(gfp) || !managed_zone(zone))
			continue;
		for (pfn = ALIGN_UP(zone->zone_start_pfn, align);
		     pfn + nr_pages <= zone_end_pfn(zone); pfn += align) {
			struct contig_alloc_report why;

			if (!pfn_range_valid_contig(zone, pfn, nr_pages))
				continue;
			if (!alloc_contig_range_explain(pfn, pfn + nr_pages, MIGRATE_MOVABLE,
							(gfp & (__GFP_ZERO)) | __GFP_NOWARN, frozen, &why))
				return pfn_to_page(pfn);
		}
	}
	return NULL;
}

/*
 * test_buddy.c - the buddy free lists and the per-CPU lists: splitting and
 * merging, where freed blocks go, migratetype fallback and pageblock
 * stealing, isolation, pcp refill/drain, and long random alloc/free runs
 * checked against a model after every step.
 *
 * Every test builds its zones over a fresh simulated machine (see
 * buddy_fixture.h).  Unless said otherwise, a test's zone is node 0's
 * ZONE_NORMAL and all pageblocks start MIGRATE_MOVABLE, as after boot.
 */
#include <stdlib.h>
#include "htest.h"
#include "buddy_fixture.h"
#include "platform_stub.h"
#include <mm/platform.h>

#define MiB		(1ULL << 20)

static struct zone *normal_zone(void)
{
	return &NODE_DATA(0)->node_zones[ZONE_NORMAL];
}

/* Take a reserved fixture page out of "reserved" without freeing it, so a
 * test can hand it to buddy_free_one() itself. */
static void make_free_page(struct zone *z, u64 pfn)
{
	struct page *p = pfn_to_page(pfn);

	ClearPageReserved(p);
	p->refcount = 0;
	z->managed_pages++;
}

/*
 * One order-10 block [0, 1024); take one order-0 page and give it back.
 *
 *   alloc: |0|1|2-3|4-7|...|512-1023|   page 0 to the caller, ten splits,
 *          one free block of each order 0..9
 *   free:  |0 .......... 1023|          ten merges, one order-10 block
 */
HTEST(buddy_split_and_merge)
{
	struct zone *z = normal_zone();
	struct page *page;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 1024, MIGRATE_MOVABLE);
	bf_handover(z, 0, 1024);
	CHECK_EQ(z->free_area[MAX_PAGE_ORDER].nr_free, 1);
	CHECK_EQ(z->managed_pages, 1024);
	page = bf_rmqueue_smallest(z, 0, MIGRATE_MOVABLE);
	CHECK(page == pfn_to_page(0));
	CHECK_EQ(z->ev.splits, 10);
	for (unsigned order = 0; order < MAX_PAGE_ORDER; order++) {
		CHECK_EQ(z->free_area[order].nr_free_mt[MIGRATE_MOVABLE], 1);
		CHECK(PageBuddy(pfn_to_page(1ULL << order)));
		CHECK_EQ(buddy_order(pfn_to_page(1ULL << order)), order);
	}
	CHECK_EQ(zone_nr_free(z), 1023);
	page->refcount = 1;	/* as an allocation has it, for the checker */
	CHECK_EQ(bf_check_zone(z, NULL), 0);
	page->refcount = 0;
	bf_free_one(z, 0, 0, MIGRATE_MOVABLE, FPI_NONE);
	CHECK_EQ(z->ev.merges, 10);
	CHECK_EQ(z->free_area[MAX_PAGE_ORDER].nr_free, 1);
	CHECK_EQ(zone_nr_free(z), 1024);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * Head or tail: pfn 0 is freed while its buddy, pfn 1, is still in use
 * (reserved here), but the buddy of the order-1 block {0,1}, the block
 * {2,3}, is free.  Expect pfn 0 at the TAIL of the order-0 list (it is
 * likely to merge two orders up once pfn 1 comes back).  Pfn 9 is freed
 * with no such prospect ({10,11} is in use): expect the HEAD.
 *
 *   pfn:  0   1   2-3   ...  8   9   10-11  ...  100
 *         F   R   free       R   F   R          free (order 0, first)
 */
HTEST(buddy_free_to_tail_when_merge_likely)
{
	struct zone *z = normal_zone();
	struct list_head *order0;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 1024, MIGRATE_MOVABLE);
	buddy_free_boot_pages(z, 100, 0, false);
	buddy_free_boot_pages(z, 2, 1, false);
	order0 = &z->free_area[0].free_list[MIGRATE_MOVABLE];

	make_free_page(z, 0);
	bf_free_one(z, 0, 0, MIGRATE_MOVABLE, FPI_NONE);
	CHECK(list_last_entry(order0, struct page, lru) == pfn_to_page(0));
	CHECK(list_first_entry(order0, struct page, lru) == pfn_to_page(100));

	make_free_page(z, 9);
	bf_free_one(z, 9, 0, MIGRATE_MOVABLE, FPI_NONE);
	CHECK(list_first_entry(order0, struct page, lru) == pfn_to_page(9));
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * Merging across pageblocks, at order 9 -> 10:
 *   pageblocks 0 (Movable) + 1 (Unmovable): both mergeable types, so they
 *     merge; the buddy's pageblock takes the freed block's type, and the
 *     order-10 block sits on that type's list;
 *   pageblocks 2 (CMA) + 3 (Movable): never merged; two order-9 blocks, the
 *     CMA one counted in nr_free_cma;
 *   pageblocks 4 (isolated Movable) + 5 (Movable): never merged.
 */
HTEST(buddy_merge_rules_across_pageblocks)
{
	struct zone *z = normal_zone();

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 3072, MIGRATE_MOVABLE);
	set_pageblock_migratetype(512, MIGRATE_UNMOVABLE);
	set_pageblock_migratetype(1024, MIGRATE_CMA);
	set_pageblock_isolate(2048, true);
	for (u64 pfn = 0; pfn < 3072; pfn += 512)
		buddy_free_boot_pages(z, pfn, 9, false);

	CHECK(PageBuddy(pfn_to_page(0)) && buddy_order(pfn_to_page(0)) == 10);
	CHECK_EQ(z->free_area[10].nr_free_mt[MIGRATE_UNMOVABLE], 1);
	CHECK_EQ(get_pageblock_migratetype(0), MIGRATE_UNMOVABLE);

	CHECK_EQ(buddy_order(pfn_to_page(1024)), 9);
	CHECK_EQ(buddy_order(pfn_to_page(1536)), 9);
	CHECK_EQ(z->free_area[9].nr_free_mt[MIGRATE_CMA], 1);
	CHECK_EQ(z->nr_free_cma, 512);

	CHECK_EQ(buddy_order(pfn_to_page(2048)), 9);
	CHECK_EQ(buddy_order(pfn_to_page(2560)), 9);
	CHECK_EQ(z->free_area[9].nr_free_mt[MIGRATE_ISOLATE], 1);
	CHECK_EQ(zone_isolated_free_pages(z), 512);
	CHECK_EQ(z->ev.merges, 1);
	CHECK_EQ(bf_check_zone(z, NULL), 0);

	/* Un-isolating pageblock 4 moves its block back and merges it. */
	CHECK_EQ(bf_isolate_pageblock(z, 2048, false), 512);
	CHECK_EQ(buddy_order(pfn_to_page(2048)), 10);
	CHECK_EQ(zone_isolated_free_pages(z), 0);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * Isolating one pageblock of a free order-10 block splits it: the isolated
 * half goes to the isolate list, the other stays Movable.  A page freed
 * into the isolated pageblock (even through pcp_free) lands on the isolate
 * list and does not merge out of it; the watermark check does not count it.
 */
HTEST(buddy_isolate_pageblock_splits_and_keeps_free_pages)
{
	struct zone *z = normal_zone();
	struct page *page;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 1024, MIGRATE_MOVABLE);
	bf_handover(z, 0, 1024);
	zone_pcp_init(z);
	page = zone_alloc_pages(z, GFP_MOVABLE | __GFP_NOPCP, 0);	/* pfn 0 */
	CHECK(page == pfn_to_page(0));
	CHECK_EQ(bf_isolate_pageblock(z, 0, true), 511);
	CHECK_EQ(bf_isolate_pageblock(z, 0, true), 0);		/* already */
	CHECK_EQ(zone_isolated_free_pages(z), 511);
	CHECK_EQ(z->free_area[9].nr_free_mt[MIGRATE_MOVABLE], 1);	/* [512, 1024) */
	CHECK(zone_watermark_ok(z, 0, 511, ZONE_NORMAL, 0));
	CHECK(!zone_watermark_ok(z, 0, 512, ZONE_NORMAL, 0));
	CHECK_EQ(zone_free_pages(z, page, 0), 0);
	CHECK_EQ(zone_pcp_count(z), 0);
	CHECK_EQ(zone_isolated_free_pages(z), 512);
	CHECK_EQ(buddy_order(pfn_to_page(0)), 9);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
	CHECK_EQ(bf_isolate_pageblock(z, 0, false), 512);
	CHECK_EQ(buddy_order(pfn_to_page(0)), 10);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * Unmovable request, only Movable memory free (all of it as order-10
 * blocks, as after boot).  Expect a fallback to the LARGEST Movable block,
 * which is at least a pageblock, so both its pageblocks become Unmovable
 * (two steals) and the split remainder sits on the Unmovable lists.
 */
HTEST(buddy_fallback_claims_whole_max_block)
{
	struct zone *z = normal_zone();
	struct page *page;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 4096, MIGRATE_MOVABLE);
	bf_handover(z, 0, 4096);
	page = bf_rmqueue(z, 0, MIGRATE_UNMOVABLE, 0);
	CHECK(page == pfn_to_page(0));
	CHECK_EQ(z->ev.fallbacks, 1);
	CHECK_EQ(z->ev.steals, 2);
	CHECK_EQ(get_pageblock_migratetype(0), MIGRATE_UNMOVABLE);
	CHECK_EQ(get_pageblock_migratetype(512), MIGRATE_UNMOVABLE);
	CHECK_EQ(get_pageblock_migratetype(1024), MIGRATE_MOVABLE);
	CHECK_EQ(z->free_area[9].nr_free_mt[MIGRATE_UNMOVABLE], 1);
	CHECK_EQ(z->free_area[10].nr_free_mt[MIGRATE_MOVABLE], 3);
	page->refcount = 1;
	CHECK_EQ(bf_check_zone(z, NULL), 0);
	/* The next unmovable request needs no fallback. */
	CHECK(bf_rmqueue(z, 0, MIGRATE_UNMOVABLE, 0) == pfn_to_page(1));
	CHECK_EQ(z->ev.fallbacks, 1);
}

/*
 * Movable request; the only free memory of the Unmovable pageblock 0 is
 * an order-3 block at 8 and an order-0 block at 100.  The largest fallback
 * (order 3 < pageblock_order / 2) may not steal, so a movable request
 * takes the SMALLEST fallback block instead: pfn 100, no steal, pageblock 0
 * stays Unmovable, the order-3 block is untouched.
 */
HTEST(buddy_fallback_movable_takes_smallest_when_it_cannot_steal)
{
	struct zone *z = normal_zone();

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 512, MIGRATE_UNMOVABLE);
	buddy_free_boot_pages(z, 8, 3, false);
	buddy_free_boot_pages(z, 100, 0, false);
	CHECK(bf_rmqueue(z, 0, MIGRATE_MOVABLE, 0) == pfn_to_page(100));
	CHECK_EQ(z->ev.fallbacks, 1);
	CHECK_EQ(z->ev.steals, 0);
	CHECK_EQ(get_pageblock_migratetype(0), MIGRATE_UNMOVABLE);
	CHECK_EQ(z->free_area[3].nr_free_mt[MIGRATE_UNMOVABLE], 1);
	pfn_to_page(100)->refcount = 1;
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * The half-pageblock rule for a block smaller than a pageblock.
 *  a) Movable request into Unmovable pageblock 0 holding one free order-8
 *     block (256 free pages = half the pageblock): the pageblock is claimed
 *     (Movable now, one steal), its free pages move to the Movable lists.
 *  b) Same with an order-7 block (128 free pages) in pageblock 1: not
 *     claimed; the block is split on the Unmovable lists.
 *  c) Unmovable request into Movable pageblock 2 with one free order-2
 *     block: the rest of the pageblock is in use and counts as "alike"
 *     (unmovable), so the pageblock is claimed even with 4 free pages.
 */
HTEST(buddy_fallback_half_pageblock_rule)
{
	struct zone *z = normal_zone();
	struct page *page;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 1536, MIGRATE_UNMOVABLE);
	set_pageblock_migratetype(1024, MIGRATE_MOVABLE);
	buddy_free_boot_pages(z, 256, 8, false);
	buddy_free_boot_pages(z, 512 + 384, 7, false);

	page = bf_rmqueue(z, 0, MIGRATE_MOVABLE, 0);		/* a) */
	CHECK(page == pfn_to_page(256));
	CHECK_EQ(get_pageblock_migratetype(0), MIGRATE_MOVABLE);
	CHECK_EQ(z->ev.steals, 1);
	CHECK_EQ(z->free_area[7].nr_free_mt[MIGRATE_MOVABLE], 1);
	page->refcount = 1;
	CHECK_EQ(bf_check_zone(z, NULL), 0);

	/* b): drain Movable first so the next movable request falls back */
	while ((page = bf_rmqueue_smallest(z, 0, MIGRATE_MOVABLE)))
		page->refcount = 1;
	page = bf_rmqueue(z, 0, MIGRATE_MOVABLE, 0);
	CHECK(page == pfn_to_page(512 + 384));
	CHECK_EQ(get_pageblock_migratetype(512), MIGRATE_UNMOVABLE);
	CHECK_EQ(z->ev.steals, 1);
	CHECK_EQ(z->free_area[6].nr_free_mt[MIGRATE_UNMOVABLE], 1);
	page->refcount = 1;
	CHECK_EQ(bf_check_zone(z, NULL), 0);

	/* c): use up the Unmovable pages, free 4 pages in pageblock 2, ask for one more */
	while ((page = bf_rmqueue_smallest(z, 0, MIGRATE_UNMOVABLE)))
		page->refcount = 1;
	buddy_free_boot_pages(z, 1024 + 4, 2, false);
	page = bf_rmqueue(z, 0, MIGRATE_UNMOVABLE, 0);
	CHECK(page == pfn_to_page(1024 + 4));
	CHECK_EQ(get_pageblock_migratetype(1024), MIGRATE_UNMOVABLE);
	CHECK_EQ(z->ev.steals, 2);
	page->refcount = 1;
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/* CMA pageblocks serve movable requests (ALLOC_CMA) and never unmovable ones. */
HTEST(buddy_cma_only_for_movable)
{
	struct zone *z = normal_zone();
	struct page *page;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 512, MIGRATE_CMA);
	bf_handover(z, 0, 512);
	CHECK_EQ(z->nr_free_cma, 512);
	CHECK(bf_rmqueue(z, 0, MIGRATE_UNMOVABLE, 0) == NULL);
	CHECK(bf_rmqueue(z, 0, MIGRATE_MOVABLE, 0) == NULL);
	CHECK(!zone_watermark_ok(z, 0, 0, ZONE_NORMAL, 0));
	CHECK(zone_watermark_ok(z, 0, 0, ZONE_NORMAL, ALLOC_CMA));
	page = bf_rmqueue(z, 0, MIGRATE_MOVABLE, ALLOC_CMA);
	CHECK(page == pfn_to_page(0));
	CHECK_EQ(z->nr_free_cma, 511);
	CHECK_EQ(get_pageblock_migratetype(0), MIGRATE_CMA);
	page->refcount = 1;
	CHECK_EQ(bf_check_zone(z, NULL), 0);
	page->refcount = 0;
	bf_free_one(z, 0, 0, buddy_list_mt(0), FPI_NONE);
	CHECK_EQ(z->nr_free_cma, 512);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * pcp sizes and refill: a zone of 16384 managed pages has batch
 * min(16384/1024, 256)/4 = 4 -> rounddown_pow_of_two(4 + 2) - 1 = 3, and
 * with no watermarks high = 4 * batch = 12.  An order-0 allocation on an
 * empty list pulls batch = 3 pages (one for the caller, two stay); an
 * order-2 one pulls max(3 >> 2, 2) = 2 blocks.
 */
HTEST(pcp_refill_batch_and_high)
{
	struct zone *z = normal_zone();
	struct page *a, *b;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 16384, MIGRATE_MOVABLE);
	CHECK_EQ(zone_pcp(z, 0)->batch, 1);	/* boot pageset until zone_pcp_init */
	CHECK_EQ(zone_pcp(z, 0)->high, 0);
	bf_handover(z, 0, 16384);
	zone_pcp_init(z);
	CHECK_EQ(zone_pcp(z, 0)->batch, 3);
	CHECK_EQ(zone_pcp(z, 0)->high, 12);

	a = pcp_alloc(z, 0, MIGRATE_MOVABLE, 0);
	CHECK(a != NULL);
	CHECK_EQ(zone_pcp_count(z), 2);
	CHECK_EQ(z->ev.pcp_refills, 1);
	b = pcp_alloc(z, 0, MIGRATE_MOVABLE, 0);
	CHECK_EQ(z->ev.pcp_hits, 1);
	CHECK_EQ(zone_pcp_count(z), 1);
	CHECK_EQ(zone_nr_free(z), 16384 - 2);	/* pcp pages count as free */
	a->refcount = b->refcount = 1;
	CHECK_EQ(bf_check_zone(z, NULL), 0);

	a = pcp_alloc(z, 2, MIGRATE_UNMOVABLE, 0);
	CHECK(a != NULL);
	CHECK_EQ(zone_pcp_count(z), 1 + 4);
	for (int i = 0; i < 4; i++)
		a[i].refcount = 1;
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * Freeing through the pcp lists: pages accumulate until count reaches
 * high (12), then batch (3) pages' worth go back to the buddy from the
 * cold end.  pcp_drain_zone() returns everything and the buddy merges it
 * back to the initial blocks.
 */
HTEST(pcp_free_drains_at_high)
{
	struct zone *z = normal_zone();
	struct page *pages[32];
	struct bf_block before[64], after[64];
	unsigned nr_before, nr_after;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 16384, MIGRATE_MOVABLE);
	bf_handover(z, 0, 16384);
	zone_pcp_init(z);
	nr_before = bf_free_blocks(z, before, 64);
	for (int i = 0; i < 32; i++)
		pages[i] = zone_alloc_pages(z, GFP_KERNEL, 0);
	pcp_drain_zone(z);
	CHECK_EQ(zone_pcp_count(z), 0);
	for (int i = 0; i < 11; i++)
		CHECK_EQ(zone_free_pages(z, pages[i], 0), 0);
	CHECK_EQ(zone_pcp_count(z), 11);
	CHECK_EQ(z->ev.pcp_drains, 1);		/* the explicit one */
	CHECK_EQ(zone_free_pages(z, pages[11], 0), 0);	/* count 12 >= high */
	CHECK_EQ(zone_pcp_count(z), 9);
	CHECK_EQ(z->ev.pcp_drains, 2);
	/* the coldest pages (freed first) went back */
	CHECK(PageBuddy(pages[0]) || !PagePcp(pages[0]));
	CHECK(PagePcp(pages[11]));
	CHECK_EQ(bf_check_zone(z, NULL), 0);
	for (int i = 12; i < 32; i++)
		CHECK_EQ(zone_free_pages(z, pages[i], 0), 0);
	CHECK(zone_pcp_count(z) < (unsigned long)zone_pcp(z, 0)->high);
	pcp_drain_zone(z);
	CHECK_EQ(zone_pcp_count(z), 0);
	CHECK_EQ(zone_nr_free(z), z->managed_pages);
	nr_after = bf_free_blocks(z, after, 64);
	CHECK(bf_blocks_equal(before, nr_before, after, nr_after));
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * A page waits on the Movable pcp list while its pageblock is converted
 * to Unmovable; the drain re-reads the pageblock and frees it to the
 * Unmovable list.
 */
HTEST(pcp_drain_rereads_pageblock_type)
{
	struct zone *z = normal_zone();
	struct page *page;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 1024, MIGRATE_MOVABLE);
	bf_handover(z, 0, 1024);
	zone_pcp_init(z);
	page = zone_alloc_pages(z, GFP_MOVABLE | __GFP_NOPCP, 0);
	CHECK_EQ(zone_free_pages(z, page, 0), 0);
	CHECK(PagePcp(page));
	CHECK_EQ(bf_set_pageblock_migratetype(z, page_to_pfn(page), MIGRATE_UNMOVABLE), 511);
	pcp_drain_zone(z);
	CHECK_EQ(z->free_area[9].nr_free_mt[MIGRATE_UNMOVABLE], 0);
	CHECK_EQ(z->free_area[10].nr_free_mt[MIGRATE_UNMOVABLE], 1);	/* merged with the Movable half */
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/* ---- random runs against a model ---------------------------------------- */

struct alloc_rec {
	u64 pfn;
	unsigned order;
};

struct model {
	struct zone *zone;
	u8 *owned;			/* one byte per pfn of the zone span */
	struct alloc_rec *recs;
	unsigned nr_recs, max_recs;
	u64 seed;
};

static u64 tag_of(const struct model *m, u64 pfn) { return pfn * 0x9e3779b97f4a7c15ULL ^ m->seed; }

static unsigned pick_order(u64 *rng)
{
	unsigned r = (unsigned)(bf_rand(rng) % 100);

	if (r < 40)
		return 0;
	if (r < 55)
		return 1;
	if (r < 65)
		return 2;
	if (r < 75)
		return 3;
	return 4 + (unsigned)(bf_rand(rng) % 7);
}

/* No block of order >= order on any list a request of mt may use. */
static bool no_block_for(const struct zone *z, unsigned order, int mt)
{
	for (unsigned o = order; o <= MAX_PAGE_ORDER; o++) {
		for (int t = 0; t < MIGRATE_PCPTYPES; t++)
			if (z->free_area[o].nr_free_mt[t])
				return false;
		if (mt == MIGRATE_MOVABLE && z->free_area[o].nr_free_mt[MIGRATE_CMA])
			return false;
	}
	return true;
}

static bool model_alloc(struct model *m, u64 *rng, bool use_gfp_api)
{
	struct zone *z = m->zone;
	unsigned order = pick_order(rng);
	gfp_t gfp = (bf_rand(rng) & 1 ? GFP_MOVABLE : GFP_KERNEL) | __GFP_NOWARN;
	struct page *page;
	u64 pfn;

	if (bf_rand(rng) % 8 == 0)
		gfp |= __GFP_NOPCP;
	page = use_gfp_api ? alloc_pages_node(0, gfp | __GFP_THISNODE, order) :
			     zone_alloc_pages(z, gfp, order);
	if (!page) {
		if (!use_gfp_api && !no_block_for(z, order, gfp_migratetype(gfp))) {
			fprintf(stderr, "  seed %llu: order-%u allocation failed with blocks free\n",
				(unsigned long long)m->seed, order);
			return false;
		}
		return true;
	}
	pfn = page_to_pfn(page);
	if (!IS_ALIGNED(pfn, 1ULL << order) || !zone_spans_pfn(z, pfn) ||
	    !zone_spans_pfn(z, pfn + (1ULL << order) - 1) || m->nr_recs == m->max_recs) {
		fprintf(stderr, "  seed %llu: bad block pfn %#llx order %u\n",
			(unsigned long long)m->seed, (unsigned long long)pfn, order);
		return false;
	}
	for (u64 i = 0; i < (1ULL << order); i++) {
		if (m->owned[pfn + i - z->zone_start_pfn]) {
			fprintf(stderr, "  seed %llu: pfn %#llx handed out twice\n",
				(unsigned long long)m->seed, (unsigned long long)(pfn + i));
			return false;
		}
		m->owned[pfn + i - z->zone_start_pfn] = 1;
		*(u64 *)mm_phys_to_virt(PFN_PHYS(pfn + i)) = tag_of(m, pfn + i);
	}
	m->recs[m->nr_recs++] = (struct alloc_rec){ pfn, order };
	return true;
}

/* Free one piece [pfn, pfn + 2^order) the test owns, checking its data. */
static bool model_free_piece(struct model *m, u64 pfn, unsigned order, bool use_gfp_api)
{
	struct zone *z = m->zone;

	for (u64 i = 0; i < (1ULL << order); i++) {
		if (*(u64 *)mm_phys_to_virt(PFN_PHYS(pfn + i)) != tag_of(m, pfn + i)) {
			fprintf(stderr, "  seed %llu: data of pfn %#llx changed while allocated\n",
				(unsigned long long)m->seed, (unsigned long long)(pfn + i));
			return false;
		}
		m->owned[pfn + i - z->zone_start_pfn] = 0;
	}
	if (use_gfp_api) {
		free_pages(pfn_to_page(pfn), order);
		return true;
	}
	return zone_free_pages(z, pfn_to_page(pfn), order) == 0;
}

/* Free allocation i: whole, or (sometimes) as two halves in either order. */
static bool model_free(struct model *m, unsigned i, u64 *rng, bool use_gfp_api)
{
	struct alloc_rec r = m->recs[i];
	bool ok;

	m->recs[i] = m->recs[--m->nr_recs];
	if (r.order && bf_rand(rng) % 4 == 0) {
		u64 half = 1ULL << (r.order - 1);
		bool upper_first = bf_rand(rng) & 1;

		ok = model_free_piece(m, r.pfn + (upper_first ? half : 0), r.order - 1, use_gfp_api) &&
		     model_free_piece(m, r.pfn + (upper_first ? 0 : half), r.order - 1, use_gfp_api);
	} else {
		ok = model_free_piece(m, r.pfn, r.order, use_gfp_api);
	}
	return ok;
}

/*
 * steps random operations on zone z (already handed over): allocations of
 * orders 0..10 (mostly small), movable or unmovable, sometimes bypassing
 * the pcp lists; frees of whole allocations or of halves; sometimes a pcp
 * drain.  After every step the zone is checked against the invariants and
 * the model.  At the end everything is freed and drained, and the free
 * blocks must be exactly the blocks the hand-over made.
 */
static void random_run(struct zone *z, u64 seed, int steps, bool use_gfp_api)
{
	struct model m = { .zone = z, .seed = seed, .max_recs = 8192 };
	struct bf_block *before = calloc(4096, sizeof(*before)), *after = calloc(4096, sizeof(*after));
	unsigned nr_before = bf_free_blocks(z, before, 4096), nr_after;
	u64 rng = seed;
	bool ok = true;

	m.owned = calloc(z->spanned_pages, 1);
	m.recs = calloc(m.max_recs, sizeof(*m.recs));
	for (int step = 0; step < steps && ok; step++) {
		unsigned r = (unsigned)(bf_rand(&rng) % 100);

		if (r < 2)
			pcp_drain_zone(z);
		else if (r < 57 || !m.nr_recs)
			ok = model_alloc(&m, &rng, use_gfp_api);
		else
			ok = model_free(&m, (unsigned)(bf_rand(&rng) % m.nr_recs), &rng, use_gfp_api);
		if (ok && bf_check_zone(z, m.owned)) {
			fprintf(stderr, "  seed %llu: zone inconsistent after step %d\n",
				(unsigned long long)seed, step);
			ok = false;
		}
	}
	CHECK(ok);
	while (ok && m.nr_recs)
		ok = model_free(&m, m.nr_recs - 1, &rng, use_gfp_api);
	CHECK(ok);
	pcp_drain_zone(z);
	CHECK_EQ(bf_check_zone(z, m.owned), 0);
	CHECK_EQ(zone_nr_free(z), z->managed_pages);
	nr_after = bf_free_blocks(z, after, 4096);
	CHECK_EQ(nr_after, nr_before);
	CHECK(bf_blocks_equal(before, nr_before, after, nr_after));
	CHECK(z->ev.merges > 0 && z->ev.splits > 0 && z->ev.fallbacks > 0 && z->ev.pcp_drains > 0);
	free(m.owned);
	free(m.recs);
	free(before);
	free(after);
}

/*
 * The zone for the random runs: node 0 Normal over [256, 16320) of a
 * 64 MiB machine -- neither end is max-order aligned, the last pageblock
 * is cut by the zone end -- with three reserved pages at 5000..5002 that
 * are never handed over.
 */
static struct zone *random_zone(struct zone *z)
{
	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 256, 16320, MIGRATE_MOVABLE);
	bf_handover(z, 256, 5000);
	bf_handover(z, 5003, 16320);
	zone_pcp_init(z);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
	return z;
}

HTEST(buddy_random_zone_api)
{
	static const u64 seeds[] = { 1, 42, 0xdeadbeef, 20260101 };

	for (unsigned i = 0; i < ARRAY_SIZE(seeds); i++)
		random_run(random_zone(normal_zone()), seeds[i], 3000, false);
}

/* The same through alloc_pages_node()/free_pages() (zonelist, watermarks at 0). */
HTEST(buddy_random_gfp_api)
{
	random_zone(normal_zone());
	build_all_zonelists();
	random_run(normal_zone(), 7, 3000, true);
}

/* A private zone, in no node: the buddy and pcp API works on it alone. */
HTEST(buddy_random_private_zone)
{
	static struct zone private_zone;
	struct zone *z = random_zone(&private_zone);

	z->zone_pgdat = NULL;	/* nothing in buddy.c/pcp.c may need it */
	CHECK(NODE_DATA(0)->node_zones[ZONE_NORMAL].managed_pages == 0);
	random_run(z, 99, 2000, false);
}

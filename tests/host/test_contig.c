/*
 * test_contig.c - contiguous ranges (mm/contig_alloc.c, mm/contig_free.c)
 * and CMA (mm/cma.c) over the buddy fixture, and one boot through
 * mm_core_init with cma=.
 *
 * Most tests build node 0's ZONE_NORMAL over [0, pages) of a fresh machine,
 * every pageblock Movable unless a test says otherwise.  Blocks a test
 * wants allocated at known pfns are left out of the hand-over and made
 * allocated by hand (refcount 1, counted in managed_pages); the rest goes
 * to the buddy.  Movable blocks belong to a test owner that fills them with
 * a pattern depending on the offset in the block, so a migrated block must
 * still check.
 *
 * The equivalence tests run the SAME random scenario twice from scratch
 * (the machine is rebuilt from the seed), once freeing the range with the
 * old design and once with the new, drain the pcp lists, and compare:
 *   - contig_snapshot_compare(): free blocks as a set of (pfn, order,
 *     migratetype), every state counter, a digest of every struct page
 *     and pageblock flag, the bad-page count;
 *   - independently, the free LISTS walked (each block with the list it is
 *     on), sorted, compared element by element;
 *   - the per-call counts (freed, still in use, bad);
 *   - when no page was corrupted, bf_check_zone() on both results.
 */
#include <stdlib.h>
#include "htest.h"
#include "buddy_fixture.h"
#include "test_owner.h"
#include "mm_host.h"
#include "platform_stub.h"
#include <mm/contig_alloc.h>
#include <mm/cma.h>
#include <mm/mech_bench.h>
#include <mm/migrate.h>
#include <mm/page_isolation.h>
#include <mm/zone_contig.h>
#include <mm/mm_init.h>
#include <mm/memblock.h>
#include <lib/fw_memmap.h>
#include <lib/errno.h>
#include <lib/printk.h>

#define MiB		(1ULL << 20)
#define PB		pageblock_nr_pages
#define NO_PFN		(~0ULL)

static struct zone *normal_zone(void)
{
	return &NODE_DATA(0)->node_zones[ZONE_NORMAL];
}

/* ---- fixture ------------------------------------------------------------------- */

/*
 * Zone [0, pages) with the blocks in taken[] (sorted, disjoint) allocated
 * and everything else handed to the buddy (except [hold_start, hold_end),
 * left reserved for a CMA area); watermarks, pcp sizes and zonelists set.
 */
static struct zone *cz_zone_hold(u64 pages, const struct bf_block *taken, unsigned nr_taken,
				 u64 hold_start, u64 hold_end)
{
	struct zone *z = normal_zone();
	u64 next = 0;

	bf_machine(ALIGN_UP(pages * PAGE_SIZE, PAGES_PER_SECTION * PAGE_SIZE));
	sparse_set_online(0, pages);	/* alloc_contig_range wants online memory */
	cma_reset();
	bf_zone_init(z, 0, ZONE_NORMAL, 0, pages, MIGRATE_MOVABLE);
	for (unsigned i = 0; i <= nr_taken; i++) {
		u64 pfn = i < nr_taken ? taken[i].pfn : pages;
		u64 nr = i < nr_taken ? 1ULL << taken[i].order : 0;

		/* free [next, pfn) except the held range */
		if (hold_start < hold_end && next < hold_end && hold_start < pfn) {
			bf_handover(z, next, MAX(next, hold_start));
			bf_handover(z, MIN(pfn, hold_end), pfn);
		} else {
			bf_handover(z, next, pfn);
		}
		for (u64 p = pfn; p < pfn + nr; p++) {
			ClearPageReserved(pfn_to_page(p));
			pfn_to_page(p)->refcount = 1;
		}
		z->managed_pages += nr;
		next = pfn + nr;
	}
	build_all_zonelists();
	setup_per_zone_wmarks();
	return z;
}

static struct zone *cz_zone(u64 pages, const struct bf_block *taken, unsigned nr_taken)
{
	return cz_zone_hold(pages, taken, nr_taken, 0, 0);
}

/* Pageblocks of [start, end) with the isolate bit set. */
static unsigned isolated_pageblocks_in(u64 start, u64 end)
{
	unsigned n = 0;

	for (u64 pfn = start; pfn < end; pfn += PB)
		n += get_pageblock_isolate(pfn);
	return n;
}

/* The free lists as they are: (pfn, order, the list the block is on), sorted. */
static unsigned list_blocks(struct zone *z, struct contig_block *out, unsigned max)
{
	unsigned n = 0;

	for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			struct page *page;

			list_for_each_entry(page, &z->free_area[order].free_list[mt], lru) {
				if (n < max)
					out[n] = (struct contig_block){ page_to_pfn(page), (u8)order, (u8)mt };
				n++;
			}
		}
	/* insertion sort by pfn: the lists are short enough in these tests */
	for (unsigned i = 1; i < MIN(n, max); i++) {
		struct contig_block b = out[i];
		unsigned j = i;

		while (j && out[j - 1].pfn > b.pfn) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = b;
	}
	return n;
}

#define MAX_BLOCKS	16384

struct result {
	struct contig_snapshot snap;
	struct contig_block snap_blocks[MAX_BLOCKS];
	struct contig_block lists[MAX_BLOCKS];
	unsigned nr_lists;
	struct contig_free_stats stats;
	int bf_problems;		/* -1: not checked */
};

static void record(struct result *r, struct zone *z, bool check)
{
	pcp_drain_zone(z);
	contig_snapshot_take(&r->snap, z, z->zone_start_pfn, zone_end_pfn(z), r->snap_blocks,
			     MAX_BLOCKS);
	r->nr_lists = list_blocks(z, r->lists, MAX_BLOCKS);
	r->bf_problems = check ? bf_check_zone(z, NULL) : -1;
}

/* Both results equal in every respect; prints the first difference. */
static bool results_equal(const struct result *a, const struct result *b, const char *what)
{
	char why[200];

	if (contig_snapshot_compare(&a->snap, &b->snap, why, sizeof(why))) {
		fprintf(stderr, "  %s: snapshots differ: %s\n", what, why);
		return false;
	}
	if (a->nr_lists != b->nr_lists || a->nr_lists > MAX_BLOCKS ||
	    memcmp(a->lists, b->lists, a->nr_lists * sizeof(a->lists[0]))) {
		fprintf(stderr, "  %s: free lists differ (%u and %u blocks)\n", what, a->nr_lists,
			b->nr_lists);
		return false;
	}
	if (a->stats.freed != b->stats.freed || a->stats.in_use != b->stats.in_use ||
	    a->stats.bad != b->stats.bad) {
		fprintf(stderr, "  %s: freed/in_use/bad %llu/%llu/%llu vs %llu/%llu/%llu\n", what,
			(unsigned long long)a->stats.freed, (unsigned long long)a->stats.in_use,
			(unsigned long long)a->stats.bad, (unsigned long long)b->stats.freed,
			(unsigned long long)b->stats.in_use, (unsigned long long)b->stats.bad);
		return false;
	}
	return true;
}

/* ---- alloc_contig_range ---------------------------------------------------------- */

/*
 * [1000, 5000) in a free zone of 8192 pages: neither end is aligned, so the
 * free blocks around both ends are split and their outside parts given
 * back.  Every page then has refcount 1; the zone lost exactly 4000 free
 * pages; the invariants hold with the range counted as allocated.  Freed
 * again (either design), the free lists are exactly the initial ones.
 *
 *   0      1000                            5000      8192
 *   | free |########## allocated ##########|  free   |
 */
HTEST(contig_alloc_unaligned_range_and_free_back)
{
	static struct contig_block before[64], after[64];
	static u8 map[8192];
	enum mech_design designs[] = { DESIGN_OLD, DESIGN_NEW };

	for (unsigned d = 0; d < 2; d++) {
		struct zone *z = cz_zone(8192, NULL, 0);
		unsigned nb = list_blocks(z, before, 64), na;
		unsigned long free0 = z->nr_free;
		struct contig_free_stats st;

		CHECK_EQ(alloc_contig_range(1000, 5000, MIGRATE_MOVABLE, 0), 0);
		CHECK_EQ(z->nr_free, free0 - 4000);
		memset(map, 0, sizeof(map));
		memset(map + 1000, 1, 4000);
		CHECK_EQ(bf_check_zone(z, map), 0);
		for (u64 pfn = 1000; pfn < 5000; pfn++)
			CHECK_EQ(pfn_to_page(pfn)->refcount, 1);
		CHECK_EQ(isolated_pageblocks_in(0, 8192), 0);
		CHECK_EQ(free_contig_range_design(1000, 4000, false, designs[d], &st), 0);
		CHECK_EQ(st.freed, 4000);
		CHECK_EQ(st.bad + st.in_use, 0);
		if (designs[d] == DESIGN_NEW)
			CHECK(st.inserts < 40);
		pcp_drain_zone(z);
		na = list_blocks(z, after, 64);
		CHECK_EQ(na, nb);
		CHECK(!memcmp(before, after, nb * sizeof(before[0])));
		CHECK_EQ(z->nr_free, free0);
		CHECK_EQ(bf_check_zone(z, NULL), 0);
	}
}

/*
 * Failures restore everything.  Zone of 8192 pages, an unmovable page at
 * 3000 and a reserved one at 6000:
 *   [2048, 4096)  -EBUSY at 3000 in step "check", free lists and counters
 *                 exactly as before, no pageblock left isolated;
 *   [3001, 3500)  the unmovable page is in the same pageblock but outside
 *                 the range: allowed (only the range itself must be free);
 *   [5900, 6100)  -EBUSY at 6000 (reserved);
 *   a pageblock isolated by someone else: -EBUSY in step "isolate";
 *   bad arguments: -EINVAL (empty range, a migratetype other than Movable
 *   or CMA, gfp flags, a range beyond the zone / without memmap, offline
 *   memory).
 */
HTEST(contig_alloc_failures_restore_everything)
{
	static const struct bf_block taken[] = { { 3000, 0 }, { 6000, 0 } };
	static struct result before, after;
	struct contig_alloc_report why;
	struct zone *z = cz_zone(8192, taken, 2);
	u64 failed;

	SetPageReserved(pfn_to_page(6000));
	z->managed_pages--;
	record(&before, z, true);
	CHECK_EQ(before.bf_problems, 0);

	CHECK_EQ(alloc_contig_range_explain(2048, 4096, MIGRATE_MOVABLE, __GFP_NOWARN, false, &why),
		 -EBUSY);
	CHECK_EQ(why.pfn, 3000);
	CHECK_STREQ(why.step, "check");
	CHECK_STREQ(why.why, "pfn 0xbb8: unmovable allocation (refcount 1, no movable owner)");
	record(&after, z, true);
	CHECK(results_equal(&before, &after, "after -EBUSY"));
	CHECK_EQ(isolated_pageblocks_in(0, 8192), 0);

	CHECK_EQ(alloc_contig_range(3001, 3500, MIGRATE_MOVABLE, 0), 0);
	free_contig_range(3001, 499);
	record(&after, z, true);
	CHECK(results_equal(&before, &after, "after alloc+free beside the unmovable page"));

	CHECK_EQ(alloc_contig_range_explain(5900, 6100, MIGRATE_MOVABLE, __GFP_NOWARN, false, &why),
		 -EBUSY);
	CHECK_EQ(why.pfn, 6000);
	CHECK_STREQ(why.why, "pfn 0x1770: reserved page (boot memory or firmware)");

	CHECK_EQ(start_isolate_page_range(4096, 4608, 0, &failed), 0);
	CHECK_EQ(alloc_contig_range_explain(4000, 4200, MIGRATE_MOVABLE, __GFP_NOWARN, false, &why),
		 -EBUSY);
	CHECK_STREQ(why.step, "isolate");
	CHECK_EQ(why.pfn, 4096);
	CHECK_EQ(isolated_pageblocks_in(0, 8192), 1);	/* only the other one's */
	undo_isolate_page_range(4096, 4608);
	record(&after, z, true);
	CHECK(results_equal(&before, &after, "after the isolate failure"));

	CHECK_EQ(alloc_contig_range(100, 100, MIGRATE_MOVABLE, 0), -EINVAL);
	CHECK_EQ(alloc_contig_range(100, 200, MIGRATE_UNMOVABLE, 0), -EINVAL);
	CHECK_EQ(alloc_contig_range(100, 200, MIGRATE_MOVABLE, __GFP_DMA), -EINVAL);
	CHECK_EQ(alloc_contig_range_explain(8000, 9000, MIGRATE_MOVABLE, __GFP_NOWARN, false, &why),
		 -EINVAL);	/* the pages beyond 8192 are in no zone of ours */
	CHECK_EQ(alloc_contig_range_explain(PAGES_PER_SECTION * 2, PAGES_PER_SECTION * 2 + 10,
					    MIGRATE_MOVABLE, __GFP_NOWARN, false, &why), -EINVAL);
	CHECK_STREQ(why.step, "check");
	sparse_set_offline(0, 8192);	/* offline memory: its struct pages say nothing */
	CHECK_EQ(alloc_contig_range_explain(100, 200, MIGRATE_MOVABLE, __GFP_NOWARN, false, &why),
		 -EINVAL);
	CHECK_STREQ(why.why, "pfn 0x64: offline memory (its struct pages are not in use)");
	sparse_set_online(0, 8192);
	record(&after, z, true);
	CHECK(results_equal(&before, &after, "after the argument failures"));
}

/* ---- the contiguity flag's readers -------------------------------------------------- */

#define NR_SCAN_OPS	9

struct scan_run {
	struct result r;
	int rc[NR_SCAN_OPS];
	u64 pfn[NR_SCAN_OPS];
	char why[NR_SCAN_OPS][200];
	struct zone_contig_scan_stats used;	/* what zone_contig_scan counted */
};

/*
 * The scans of alloc_contig_range (its range check), page isolation and
 * the offline zone check, on the zone of contig_alloc_failures_restore_-
 * everything (an unmovable page at 3000, a reserved one at 6000), with
 * the zone marked contiguous (true: it is) or not.
 */
static void scan_scenario(bool contiguous, struct scan_run *run)
{
	static const struct bf_block taken[] = { { 3000, 0 }, { 6000, 0 } };
	struct zone_contig_scan_stats before;
	struct contig_alloc_report why;
	struct zone *z = cz_zone(8192, taken, 2);
	int i = 0;

	SetPageReserved(pfn_to_page(6000));
	z->managed_pages--;
	CHECK(zone_contiguous_by_walk(z));
	z->contiguous = contiguous;
	before = zone_contig_scan;
#define EXPLAIN(s, e)								\
	do {									\
		memset(&why, 0, sizeof(why));					\
		run->rc[i] = alloc_contig_range_explain(s, e, MIGRATE_MOVABLE,	\
							__GFP_NOWARN, false, &why); \
		run->pfn[i] = why.pfn;						\
		memcpy(run->why[i++], why.why, sizeof(why.why));		\
	} while (0)
	EXPLAIN(2048, 4096);			/* -EBUSY at the unmovable page */
	EXPLAIN(3001, 3500);			/* fine beside it */
	free_contig_range(3001, 499);
	EXPLAIN(5900, 6100);			/* the reserved page */
	EXPLAIN(7000, 9000);			/* beyond the zone */
	EXPLAIN(3584, 8192);			/* up to the end: the reserved page again */
	EXPLAIN(512, 2900);			/* many pageblocks, all free */
	free_contig_range(512, 2388);
#undef EXPLAIN
	run->rc[i] = start_isolate_page_range(0, 8192, ISOLATE_MEMORY_OFFLINE, &run->pfn[i]);
	i++;
	run->rc[i] = start_isolate_page_range(4096, 5632, ISOLATE_CONTIG_ALLOC, &run->pfn[i]);
	if (!run->rc[i++])
		undo_isolate_page_range(4096, 5632);
	run->rc[i++] = zone_range_online_in_zone(z, 0, 8192) * 2 +
		       zone_range_online_in_zone(z, 0, 8192 + PB);
	CHECK_EQ(i, NR_SCAN_OPS);
	run->used.skipped = zone_contig_scan.skipped - before.skipped;
	run->used.checked = zone_contig_scan.checked - before.checked;
	z->contiguous = true;
	record(&run->r, z, true);
}

/*
 * Results are identical whether the zone is marked contiguous or not; only
 * the work differs: contiguous, every probe skips its checks; not, every
 * probe runs them.
 */
HTEST(contig_scans_same_with_zone_contiguous_or_not)
{
	static struct scan_run fast, slow;

	scan_scenario(true, &fast);
	scan_scenario(false, &slow);
	for (int i = 0; i < NR_SCAN_OPS; i++) {
		CHECK_EQ(fast.rc[i], slow.rc[i]);
		CHECK_EQ(fast.pfn[i], slow.pfn[i]);
		CHECK_STREQ(fast.why[i], slow.why[i]);
	}
	CHECK_EQ(fast.rc[0], -EBUSY);
	CHECK_EQ(fast.pfn[0], 3000);
	CHECK_EQ(fast.rc[1], 0);
	CHECK_EQ(fast.rc[2], -EBUSY);
	CHECK_EQ(fast.pfn[2], 6000);
	CHECK_EQ(fast.rc[3], -EINVAL);
	CHECK_EQ(fast.rc[5], 0);
	CHECK_EQ(fast.rc[6], -EBUSY);		/* offline isolation: the page at 3000 */
	CHECK_EQ(fast.pfn[6], 3000);
	CHECK_EQ(fast.rc[7], 0);
	CHECK_EQ(fast.rc[8], 2);		/* the zone, yes; beyond its end, no */
	CHECK(results_equal(&fast.r, &slow.r, "contiguous vs not"));
	CHECK(fast.used.skipped > 0);
	CHECK_EQ(fast.used.checked, 0);
	CHECK_EQ(slow.used.skipped, 0);
	CHECK_EQ(slow.used.checked, fast.used.skipped);
}

/*
 * Movable owners inside the range are migrated out, data intact; a pinned
 * one (an extra reference) makes the range -EBUSY at its first pfn and
 * stays where it is; unpinned, the range is allocated.
 *
 *   0        1024  1100(o2) 1600(o0) 2050(o3, pinned later) 2600(o1)  4096   16384
 *   |  free  | range ------------------------------------------------|  free  |
 */
HTEST(contig_alloc_migrates_movable_owners)
{
	static const struct bf_block taken[] = { { 1100, 2 }, { 1600, 0 }, { 2048, 3 }, { 2600, 1 },
						 { 5000, 4 } };
	static struct test_owner owners[5];
	static u8 map[16384];
	struct contig_alloc_report why;
	struct zone *z = cz_zone(16384, taken, 5);

	for (unsigned i = 0; i < 5; i++)
		owner_attach(&owners[i], taken[i].pfn, taken[i].order, 100 + i);
	pfn_to_page(2049)->refcount = 2;
	CHECK_EQ(alloc_contig_range_explain(1024, 4096, MIGRATE_MOVABLE, __GFP_NOWARN, false, &why),
		 -EBUSY);
	CHECK_EQ(why.pfn, 2048);
	CHECK_STREQ(why.why, "pfn 0x800: movable allocation (test owner) pinned: pfn 0x801 has refcount 2");
	CHECK_EQ(owners[2].pfn, 2048);
	CHECK_EQ(isolated_pageblocks_in(0, 16384), 0);
	pfn_to_page(2049)->refcount = 1;

	CHECK_EQ(alloc_contig_range_explain(1024, 4096, MIGRATE_MOVABLE, __GFP_ZERO, false, &why), 0);
	CHECK_EQ(why.migrated, 4 + 1 + 8 + 2);
	for (unsigned i = 0; i < 5; i++) {
		CHECK(owner_ok(&owners[i]));
		if (i < 4) {
			CHECK(owners[i].pfn + (1ULL << owners[i].order) <= 1024 || owners[i].pfn >= 4096);
			CHECK_EQ(owners[i].moves, 1);
		} else {
			CHECK_EQ(owners[i].moves, 0);
		}
	}
	memset(map, 0, sizeof(map));
	memset(map + 1024, 1, 4096 - 1024);
	for (unsigned i = 0; i < 5; i++)
		memset(map + owners[i].pfn, 1, 1ULL << owners[i].order);
	CHECK_EQ(bf_check_zone(z, map), 0);
	for (u64 pfn = 1024; pfn < 4096; pfn++) {
		const u64 *mem = mm_phys_to_virt(PFN_PHYS(pfn));

		CHECK_EQ(pfn_to_page(pfn)->refcount, 1);
		CHECK(!pfn_to_page(pfn)->owner);
		CHECK_EQ(mem[pfn % 512], 0);	/* __GFP_ZERO */
	}
	free_contig_range(1024, 4096 - 1024);
	memset(map + 1024, 0, 4096 - 1024);
	CHECK_EQ(bf_check_zone(z, map), 0);
}

/*
 * The migratetype rules: MIGRATE_CMA only over CMA pageblocks, and a
 * MIGRATE_MOVABLE range may not touch a CMA pageblock (it is cma_alloc()'s).
 * Frozen allocations leave refcount 0 and are freed with the frozen call.
 */
HTEST(contig_alloc_migratetypes_and_frozen)
{
	struct contig_alloc_report why;
	struct zone *z = cz_zone(8192, NULL, 0);
	static struct result before, after;

	buddy_set_pageblock_migratetype(z, 2048, MIGRATE_CMA);
	buddy_set_pageblock_migratetype(z, 2560, MIGRATE_CMA);
	record(&before, z, true);
	CHECK_EQ(alloc_contig_range_explain(1000, 2100, MIGRATE_MOVABLE, __GFP_NOWARN, false, &why),
		 -EBUSY);
	CHECK_STREQ(why.why, "pfn 0x800: pageblock 0x800 belongs to a CMA area (allocate it with cma_alloc)");
	CHECK_EQ(alloc_contig_range_explain(2000, 2100, MIGRATE_CMA, __GFP_NOWARN, false, &why), -EINVAL);
	CHECK_STREQ(why.why, "pfn 0x7d0: pageblock 0x600 is Movable, not CMA (MIGRATE_CMA ranges lie in a CMA area)");
	CHECK_EQ(alloc_contig_range(2100, 3000, MIGRATE_CMA, 0), 0);
	CHECK_EQ(z->nr_free_cma, 1024 - 900);
	free_contig_range(2100, 900);
	CHECK_EQ(alloc_contig_frozen_range(3100, 4000, MIGRATE_MOVABLE, 0), 0);
	for (u64 pfn = 3100; pfn < 4000; pfn++)
		CHECK_EQ(pfn_to_page(pfn)->refcount, 0);
	free_contig_frozen_range(3100, 900);
	record(&after, z, true);
	CHECK(results_equal(&before, &after, "after the CMA and frozen round trips"));
}

/*
 * alloc_contig_pages() finds a range by itself: 4096 pages in a zone whose
 * first 16 MiB hold an unmovable page at 100 come from the next candidate
 * aligned to 4096 pages.
 */
HTEST(contig_alloc_pages_finds_a_range)
{
	static const struct bf_block taken[] = { { 100, 0 } };
	struct zone *z = cz_zone(16384, taken, 1);
	struct page *page = alloc_contig_pages(4096, GFP_KERNEL, 0, false);

	CHECK(page != NULL);
	if (!page)
		return;
	CHECK_EQ(page_to_pfn(page), 4096);
	CHECK_EQ(z->nr_free, z->managed_pages - 4097);
	free_contig_range(4096, 4096);
	CHECK_EQ(alloc_contig_pages(1 << 20, GFP_KERNEL, 0, false), NULL);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/* ---- free_contig_range: the two designs -------------------------------------------- */

/*
 * Compound pages: a compound head at pfn makes free_contig_range() refuse
 * the whole call (nothing freed); the frozen variant frees a frozen
 * compound page whose size is nr_pages; a compound page met inside a
 * range is a bad page in both designs.
 */
HTEST(contig_free_compound_rules)
{
	enum mech_design designs[] = { DESIGN_OLD, DESIGN_NEW };

	printk_set_level(LOG_EMERG);	/* the warnings and bad pages are expected */
	for (unsigned d = 0; d < 2; d++) {
		struct zone *z = cz_zone(4096, NULL, 0);
		unsigned long free0 = z->nr_free;
		struct contig_free_stats st;
		struct page *head = pfn_to_page(1024);
		u64 reports = bad_page_reports;

		CHECK_EQ(alloc_contig_range(1024, 1536, MIGRATE_MOVABLE, 0), 0);
		page_flag_set(head, PG_head);
		head[1].compound_info = 9;
		for (unsigned i = 1; i < 512; i++)
			head[i].compound_head = (unsigned long)head | 1;
		CHECK_EQ(free_contig_range_design(1024, 512, false, designs[d], &st), -EINVAL);
		CHECK_EQ(st.freed, 0);
		CHECK_EQ(z->nr_free, free0 - 512);
		/* a tail met inside a range: bad page, left alone */
		CHECK_EQ(free_contig_range_design(1030, 2, false, designs[d], &st), 0);
		CHECK_EQ(st.bad, 2);
		CHECK_EQ(bad_page_reports, reports + 2);
		CHECK_EQ(z->nr_free, free0 - 512);
		/* frozen: the whole compound page of the right size */
		for (unsigned i = 0; i < 512; i++)
			head[i].refcount = 0;
		CHECK_EQ(free_contig_range_design(1024, 256, true, designs[d], &st), -EINVAL);
		CHECK_EQ(free_contig_range_design(1024, 512, true, designs[d], &st), 0);
		CHECK_EQ(st.freed, 512);
		pcp_drain_zone(z);
		CHECK_EQ(z->nr_free, free0);
		CHECK_EQ(bf_check_zone(z, NULL), 0);
	}
	printk_set_level(LOG_WARNING);
}

/* The kinds of bad pages the equivalence scenarios plant in the range. */
enum corruption {
	BAD_EXTRA_REF,		/* refcount 2: only dropped (frozen: refcount 1: bad) */
	BAD_RESERVED,		/* PG_reserved */
	BAD_REFCOUNT_ZERO,	/* refcount 0 already (frozen: a plain frozen page, fine) */
	BAD_TYPED,		/* PGTY_OFFLINE */
	BAD_TAIL,		/* looks like a compound tail */
	BAD_KINDS
};

struct scenario {
	u64 seed;
	bool frozen;
	bool poison;
	u64 start, nr;		/* the range */
	int mt;			/* MIGRATE_MOVABLE or MIGRATE_CMA */
	unsigned nr_bad;	/* pages corrupted */
};

#define SC_PAGES	(2 * PAGES_PER_SECTION)	/* 256 MiB: two sections */
#define SC_KEEP		256

/*
 * Build the scenario's machine from its seed, up to the moment before the
 * free: pageblock types per order-10 block (Movable mostly, some
 * Unmovable, Reclaimable, CMA), the range's own blocks Movable or CMA; the
 * range allocated with alloc_contig_range (refcounted or frozen); then
 * random allocations and frees around it (pcp lists and buddy in some
 * state); then, for some seeds, bad pages planted in the range.
 */
static struct zone *build_scenario(struct scenario *sc)
{
	static struct page *kept[SC_KEEP];
	static unsigned kept_order[SC_KEEP];
	u64 rnd = sc->seed * 0x9e3779b97f4a7c15ULL + 1;
	struct zone *z = normal_zone();
	u64 hull_start, hull_end;
	unsigned nr_kept = 0;
	int err;

	bf_machine(SC_PAGES * PAGE_SIZE);
	sparse_set_online(0, SC_PAGES);
	cma_reset();
	bf_zone_init(z, 0, ZONE_NORMAL, 0, SC_PAGES, MIGRATE_MOVABLE);
	for (u64 pfn = 0; pfn < SC_PAGES; pfn += MAX_ORDER_NR_PAGES) {
		static const int types[8] = { MIGRATE_MOVABLE, MIGRATE_MOVABLE, MIGRATE_MOVABLE,
					      MIGRATE_MOVABLE, MIGRATE_UNMOVABLE, MIGRATE_UNMOVABLE,
					      MIGRATE_RECLAIMABLE, MIGRATE_CMA };
		int mt = types[bf_rand(&rnd) % 8];

		set_pageblock_migratetype(pfn, mt);
		set_pageblock_migratetype(pfn + PB, mt);
	}
	switch (bf_rand(&rnd) % 8) {
	case 0:		/* across the section boundary */
		sc->nr = 1 + bf_rand(&rnd) % 20000;
		sc->start = PAGES_PER_SECTION - 1 - bf_rand(&rnd) % MIN(sc->nr, 8000ULL);
		break;
	case 1:		/* 16384 aligned pages, the CMA benchmark's size */
		sc->nr = 16384;
		sc->start = (bf_rand(&rnd) % ((SC_PAGES - 16384) / 1024)) * 1024;
		break;
	default:
		sc->nr = 1 + bf_rand(&rnd) % (bf_rand(&rnd) % 2 ? 600 : 9000);
		sc->start = bf_rand(&rnd) % (SC_PAGES - sc->nr);
		break;
	}
	sc->mt = bf_rand(&rnd) % 3 ? MIGRATE_MOVABLE : MIGRATE_CMA;
	hull_start = ALIGN_DOWN(sc->start, MAX_ORDER_NR_PAGES);
	hull_end = ALIGN_UP(sc->start + sc->nr, MAX_ORDER_NR_PAGES);
	for (u64 pfn = hull_start; pfn < hull_end; pfn += PB)
		set_pageblock_migratetype(pfn, sc->mt);
	bf_handover(z, 0, SC_PAGES);
	build_all_zonelists();
	setup_per_zone_wmarks();
	page_poison_enable(sc->poison);

	err = sc->frozen ? alloc_contig_frozen_range(sc->start, sc->start + sc->nr, sc->mt, 0) :
			   alloc_contig_range(sc->start, sc->start + sc->nr, sc->mt, 0);
	CHECK_EQ(err, 0);

	for (unsigned op = 0; op < 600; op++) {
		u64 r = bf_rand(&rnd);

		if (nr_kept < SC_KEEP && (r % 3 || !nr_kept)) {
			unsigned order = (unsigned)(r >> 8) % 4;
			gfp_t gfp = ((r >> 16) % 2 ? __GFP_MOVABLE : GFP_KERNEL) | __GFP_NOWARN;
			struct page *page = alloc_pages(gfp, order);

			if (page) {
				kept[nr_kept] = page;
				kept_order[nr_kept++] = order;
			}
		} else {
			unsigned i = (unsigned)((r >> 8) % nr_kept);

			free_pages(kept[i], kept_order[i]);
			kept[i] = kept[nr_kept - 1];
			kept_order[i] = kept_order[--nr_kept];
		}
	}

	sc->nr_bad = bf_rand(&rnd) % 2 ? 1 + (unsigned)(bf_rand(&rnd) % 12) : 0;
	for (unsigned i = 0; i < sc->nr_bad; i++) {
		u64 pfn = sc->start + bf_rand(&rnd) % sc->nr;
		struct page *page = pfn_to_page(pfn);

		switch (bf_rand(&rnd) % BAD_KINDS) {
		case BAD_EXTRA_REF:
			page->refcount++;
			break;
		case BAD_RESERVED:
			SetPageReserved(page);
			break;
		case BAD_REFCOUNT_ZERO:
			page->refcount = 0;
			break;
		case BAD_TYPED:
			page_set_type(page, PGTY_OFFLINE);
			break;
		case BAD_TAIL:
			if (pfn > sc->start)
				page->compound_head = (unsigned long)pfn_to_page(pfn - 1) | 1;
			break;
		}
	}
	return z;
}

static void run_scenario(struct scenario *sc, enum mech_design design, struct result *r)
{
	struct zone *z = build_scenario(sc);
	int err = free_contig_range_design(sc->start, sc->nr, sc->frozen, design, &r->stats);

	CHECK_EQ(err, 0);
	record(r, z, sc->nr_bad == 0);
	page_poison_enable(false);
}

/*
 * The proof by test: 64 random scenarios per variant (refcounted, frozen,
 * refcounted with poisoning), each run once per design from scratch;
 * everything the comparison defines must be identical, and the clean
 * scenarios must pass every buddy invariant.
 */
static void equivalence(bool frozen, bool poison, unsigned nr_seeds, u64 seed0)
{
	static struct result old_r, new_r;
	unsigned compared = 0, with_bad = 0, crossing = 0;

	printk_set_level(LOG_EMERG);	/* the planted bad pages are reported by design */
	for (u64 seed = seed0; seed < seed0 + nr_seeds; seed++) {
		struct scenario sc = { .seed = seed, .frozen = frozen, .poison = poison };
		char what[96];

		run_scenario(&sc, DESIGN_OLD, &old_r);
		run_scenario(&sc, DESIGN_NEW, &new_r);
		snprintf(what, sizeof(what), "seed %llu [%#llx + %llu) %s, %u bad",
			 (unsigned long long)seed, (unsigned long long)sc.start,
			 (unsigned long long)sc.nr, migratetype_name(sc.mt), sc.nr_bad);
		CHECK(results_equal(&old_r, &new_r, what));
		if (!sc.nr_bad) {
			CHECK_EQ(old_r.bf_problems, 0);
			CHECK_EQ(new_r.bf_problems, 0);
			CHECK_EQ(new_r.stats.freed, sc.nr);
		} else {
			with_bad++;
		}
		/* the new design inserts far fewer blocks than pages */
		if (!sc.nr_bad && sc.nr >= 4096)
			CHECK(new_r.stats.inserts * 64 < old_r.stats.inserts);
		crossing += sc.start < PAGES_PER_SECTION && sc.start + sc.nr > PAGES_PER_SECTION;
		compared++;
	}
	printk_set_level(LOG_WARNING);
	CHECK_EQ(compared, nr_seeds);
	CHECK(with_bad > nr_seeds / 4);
	CHECK(crossing > 0);
}

HTEST(contig_free_designs_equal_refcounted)
{
	equivalence(false, false, 64, 1);
}

HTEST(contig_free_designs_equal_frozen)
{
	equivalence(true, false, 64, 1001);
}

HTEST(contig_free_designs_equal_with_poisoning)
{
	equivalence(false, true, 12, 2001);
}

/*
 * The documented exception: an order-10 block made of an Unmovable and a
 * Movable pageblock, both freed by the range.  The pages free are the
 * same, and so are the blocks as (pfn, order); the merged block takes the
 * migratetype of the half freed last, which may differ between designs.
 */
HTEST(contig_free_designs_mixed_pageblock_types)
{
	static struct contig_block blocks[2][64];
	unsigned nr[2];
	enum mech_design designs[] = { DESIGN_OLD, DESIGN_NEW };
	int mt[2];

	for (unsigned d = 0; d < 2; d++) {
		struct zone *z = cz_zone(4096, NULL, 0);

		buddy_set_pageblock_migratetype(z, 1024, MIGRATE_UNMOVABLE);
		CHECK_EQ(alloc_contig_range(1024, 2048, MIGRATE_MOVABLE, 0), 0);
		CHECK_EQ(free_contig_range_design(1024, 1024, false, designs[d], NULL), 0);
		pcp_drain_zone(z);
		nr[d] = list_blocks(z, blocks[d], 64);
		mt[d] = buddy_list_mt(1024);
		CHECK_EQ(bf_check_zone(z, NULL), 0);
	}
	CHECK_EQ(nr[0], nr[1]);
	for (unsigned i = 0; i < MIN(nr[0], nr[1]); i++) {
		CHECK_EQ(blocks[0][i].pfn, blocks[1][i].pfn);
		CHECK_EQ(blocks[0][i].order, blocks[1][i].order);
	}
	CHECK(PageBuddy(pfn_to_page(1024)) && buddy_order(pfn_to_page(1024)) == 10);
	if (mt[0] != mt[1])
		printf("  (mixed pageblocks: old left the order-10 block %s, new %s -- the documented exception)\n",
		       migratetype_name(mt[0]), migratetype_name(mt[1]));
}

/*
 * Frees into isolated pageblocks go to the isolate list in both designs
 * (the old one's pcp_free sends them straight to the buddy), and undoing
 * the isolation leaves the same lists.
 */
HTEST(contig_free_designs_into_isolated_pageblocks)
{
	static struct result r[2];
	enum mech_design designs[] = { DESIGN_OLD, DESIGN_NEW };

	for (unsigned d = 0; d < 2; d++) {
		struct zone *z = cz_zone(8192, NULL, 0);
		u64 failed;

		CHECK_EQ(alloc_contig_range(700, 3000, MIGRATE_MOVABLE, 0), 0);
		CHECK_EQ(start_isolate_page_range(1024, 2048, 0, &failed), 0);
		CHECK_EQ(free_contig_range_design(700, 2300, false, designs[d], NULL), 0);
		CHECK_EQ(zone_isolated_free_pages(z), 1024);
		record(&r[d], z, true);
		CHECK_EQ(r[d].bf_problems, 0);
		undo_isolate_page_range(1024, 2048);
	}
	CHECK(results_equal(&r[0], &r[1], "isolated pageblocks"));
}

/* The trace narrates both designs without changing anything. */
HTEST(contig_free_trace_runs)
{
	static struct result r[2];
	enum mech_design designs[] = { DESIGN_OLD, DESIGN_NEW };

	for (unsigned d = 0; d < 2; d++) {
		struct zone *z = cz_zone(8192, NULL, 0);
		struct contig_free_stats st;
		int logs;

		CHECK_EQ(alloc_contig_range(1000, 4000, MIGRATE_MOVABLE, 0), 0);
		printk_set_level(LOG_WARNING);	/* counted, not printed */
		mech_set_trace(MECH_CONTIG_FREE, true);
		logs = host_log_count;
		CHECK_EQ(free_contig_range_design(1000, 3000, false, designs[d], &st), 0);
		mech_set_trace(MECH_CONTIG_FREE, false);
		/* old: a line per 512 pfns (ends at 0x3ff, 0x5ff, ... and 3999); new: a line per chunk */
		CHECK_EQ(host_log_count - logs, designs[d] == DESIGN_OLD ? 7 : (int)st.inserts);
		record(&r[d], z, true);
	}
	CHECK(results_equal(&r[0], &r[1], "traced"));
}

/* ---- CMA --------------------------------------------------------------------------- */

#define CMA_BASE	16384
#define CMA_PAGES	8192

/*
 * Zone [0, pages) with [base, base + count) held back from the hand-over
 * and declared and activated as a CMA area: its pageblocks become CMA, its
 * pages join the buddy (managed, cma_pages, nr_free_cma), it gets a bitmap.
 */
static struct cma *cma_fixture_at(struct zone **zp, u64 pages, u64 base, u64 count)
{
	struct zone *z = cz_zone_hold(pages, NULL, 0, base, base + count);
	unsigned long managed = z->managed_pages;
	struct cma *cma = NULL;

	CHECK_EQ(cma_init_reserved_mem(base, count, 0, "cma0", &cma), 0);
	CHECK_EQ(cma_activate_area(cma), 0);
	CHECK(cma->active);
	CHECK_EQ(z->cma_pages, count);
	CHECK_EQ(z->nr_free_cma, count);
	CHECK_EQ(z->managed_pages, managed + count);
	CHECK_EQ(get_pageblock_migratetype(base), MIGRATE_CMA);
	CHECK_EQ(get_pageblock_migratetype(base + count - 1), MIGRATE_CMA);
	CHECK_EQ(get_pageblock_migratetype(base + count), MIGRATE_MOVABLE);
	CHECK_EQ(cma_used_pages(cma), 0);
	CHECK_EQ(cma_maxchunk_pages(cma), count);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
	*zp = z;
	return cma;
}

/* The usual one: [16384, 24576) of a 65536-page zone. */
static struct cma *cma_fixture(struct zone **zp)
{
	return cma_fixture_at(zp, 65536, CMA_BASE, CMA_PAGES);
}

static bool in_cma(u64 pfn, unsigned order)
{
	for (u64 p = pfn; p < pfn + (1ULL << order); p += PB)
		if (get_pageblock_migratetype(p) == MIGRATE_CMA)
			return true;
	return get_pageblock_migratetype(pfn) == MIGRATE_CMA;
}

/*
 * Unmovable allocations never land in CMA pageblocks, even when the rest
 * of the zone is exhausted (they fail instead); movable ones do use CMA.
 */
HTEST(cma_unmovable_never_in_cma)
{
	static struct page *pages[70000];
	unsigned n = 0, in = 0;
	struct zone *z;
	struct cma *cma = cma_fixture(&z);

	(void)cma;
	for (;;) {
		struct page *p = alloc_pages(GFP_KERNEL | __GFP_NOWARN, n % 4);

		if (!p)
			break;
		CHECK(!in_cma(page_to_pfn(p), n % 4));
		pages[n++] = p;
	}
	CHECK(n > 1000);
	CHECK(z->nr_free_cma > CMA_PAGES - 64);	/* only pcp leftovers of movable lists, if any */
	for (unsigned i = 0; i < 64; i++) {
		struct page *p = alloc_pages(__GFP_MOVABLE | __GFP_NOWARN, 0);

		if (p && in_cma(page_to_pfn(p), 0))
			in++;
		if (p)
			free_pages(p, 0);
	}
	CHECK(in > 0);
	while (n) {
		n--;
		free_pages(pages[n], n % 4);
	}
	pcp_drain_zone(z);
	CHECK_EQ(z->nr_free_cma, CMA_PAGES);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * cma_alloc/cma_release cycles with movable tenants in the area: random
 * sizes and alignments, random releases; the bitmap always holds exactly
 * the live allocations, tenants keep their data wherever they moved, and
 * once everything is released the zone is back to its counts.  A pinned
 * tenant makes its candidate busy: cma_alloc goes on to the next.
 */
HTEST(cma_alloc_release_cycles_conserve_counts)
{
	static struct test_owner tenants[64];
	struct { struct page *page; u64 count; } live[32];
	unsigned nr_live = 0, nr_tenants = 0;
	u64 rnd = 12345, used = 0;
	unsigned long free0, free_cma0;
	const u64 base = 4096, count = 10240;	/* most of the zone: movable allocations use CMA first */
	struct zone *z;
	struct cma *cma = cma_fixture_at(&z, 16384, base, count);

	/* Movable tenants: allocate movable blocks until some sit in CMA. */
	for (unsigned i = 0; i < 2000 && nr_tenants < 64; i++) {
		struct page *p = alloc_pages(__GFP_MOVABLE | __GFP_NOWARN, 2);

		if (!p)
			break;
		if (in_cma(page_to_pfn(p), 2))
			owner_attach(&tenants[nr_tenants++], page_to_pfn(p), 2, 500 + i);
		else
			free_pages(p, 2);	/* nobody owns it: give it back */
	}
	CHECK(nr_tenants > 0);
	pcp_drain_zone(z);
	free0 = z->nr_free;
	free_cma0 = z->nr_free_cma;

	/* A pinned tenant: the first candidate covering it is skipped. */
	if (nr_tenants) {
		struct page *p;

		pfn_to_page(tenants[0].pfn)->refcount = 2;
		p = cma_alloc(cma, count / 2, 0, true);
		CHECK(p != NULL);
		if (p) {
			CHECK(page_to_pfn(p) > tenants[0].pfn || page_to_pfn(p) + count / 2 <= tenants[0].pfn);
			CHECK(cma->busy_retries > 0);
			CHECK(cma_release(cma, p, count / 2));
		}
		pfn_to_page(tenants[0].pfn)->refcount = 1;
	}

	for (unsigned step = 0; step < 300; step++) {
		u64 r = bf_rand(&rnd);

		if (nr_live < 32 && (r % 3 || !nr_live)) {
			u64 count = 1 + (r >> 8) % 1500;
			unsigned align = (unsigned)((r >> 24) % 6);
			struct page *p = cma_alloc(cma, count, align, true);

			if (p) {
				CHECK(IS_ALIGNED(page_to_pfn(p), 1ULL << align));
				CHECK(page_to_pfn(p) >= base && page_to_pfn(p) + count <= base + 10240);
				for (u64 i = 0; i < count; i++)
					CHECK_EQ(p[i].refcount, 1);
				live[nr_live].page = p;
				live[nr_live++].count = count;
				used += count;
			}
		} else {
			unsigned i = (unsigned)((r >> 8) % nr_live);

			if (bf_rand(&rnd) % 2)
				CHECK_EQ(mech_set(MECH_CONTIG_FREE, DESIGN_OLD), 0);
			CHECK(cma_release(cma, live[i].page, live[i].count));
			CHECK_EQ(mech_set(MECH_CONTIG_FREE, DESIGN_NEW), 0);
			used -= live[i].count;
			live[i] = live[--nr_live];
		}
		CHECK_EQ(cma_used_pages(cma), used);
	}
	CHECK(cma->alloc_pages_success > 0);
	while (nr_live) {
		nr_live--;
		CHECK(cma_release(cma, live[nr_live].page, live[nr_live].count));
	}
	CHECK_EQ(cma_used_pages(cma), 0);
	CHECK_EQ(cma->alloc_pages_success, cma->release_pages_success);
	for (unsigned i = 0; i < nr_tenants; i++)
		CHECK(owner_ok(&tenants[i]));
	pcp_drain_zone(z);
	CHECK_EQ(z->nr_free, free0);
	CHECK(z->nr_free_cma >= free_cma0);	/* tenants may have moved out of CMA */
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * The debugfs semantics and the bad inputs: alloc 100, 200, 50; free 120
 * releases the newest 50 and the FIRST 70 pages of the 200 (Linux's
 * cma_free_mem); asking more than the area, or freeing more than the alloc
 * file holds, is refused and changes no counter; releasing a range never
 * allocated is refused.
 */
HTEST(cma_debugfs_alloc_free)
{
	char why[200];
	struct zone *z;
	struct cma *cma = cma_fixture(&z);
	unsigned long free0 = z->nr_free;
	u64 pfn200;

	CHECK_EQ(cma_debug_alloc(cma, 100, why, sizeof(why)), 0);
	CHECK_EQ(cma_debug_alloc(cma, 200, why, sizeof(why)), 0);
	CHECK_EQ(cma_debug_alloc(cma, 50, why, sizeof(why)), 0);
	CHECK_EQ(cma_debug_allocated(cma), 350);
	CHECK_EQ(cma_used_pages(cma), 350);
	pfn200 = cma->mem[1].pfn;
	CHECK_EQ(cma_debug_free(cma, 120, why, sizeof(why)), 0);
	CHECK_EQ(cma->nr_mem, 2);
	CHECK_EQ(cma->mem[1].pfn, pfn200 + 70);
	CHECK_EQ(cma->mem[1].nr_pages, 130);
	CHECK_EQ(cma_used_pages(cma), 230);

	CHECK_EQ(cma_debug_alloc(cma, CMA_PAGES + 1, why, sizeof(why)), -EINVAL);
	CHECK_STREQ(why, "8193 pages: more than the 8192 pages of area cma0");
	CHECK_EQ(cma_debug_free(cma, 231, why, sizeof(why)), -EINVAL);
	CHECK_STREQ(why, "231 pages: the alloc file holds 230 pages in 2 allocations");
	CHECK_EQ(cma_debug_alloc(cma, CMA_PAGES - 100, why, sizeof(why)), -ENOMEM);
	CHECK_EQ(cma_used_pages(cma), 230);
	CHECK(!cma_release(cma, pfn_to_page(CMA_BASE + CMA_PAGES - 10), 5));
	CHECK(!cma_release(cma, pfn_to_page(CMA_BASE - 10), 20));
	CHECK_EQ(cma_used_pages(cma), 230);
	CHECK_EQ(cma_debug_free(cma, 230, why, sizeof(why)), 0);
	CHECK_EQ(cma->nr_mem, 0);
	pcp_drain_zone(z);
	CHECK_EQ(z->nr_free, free0);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

static unsigned checkpoints;
static bool checkpoint_stop;

/* The shell's checkpoint, faked: counts the calls, says "stop" if asked. */
static bool fake_checkpoint(void)
{
	checkpoints++;
	return checkpoint_stop;
}

/*
 * A large cma_alloc() takes its range in pieces of 32768 pages with a
 * checkpoint between two (the shell's job pauses there).  Asked to stop at
 * the first, it frees the piece it took and clears the bitmap: nothing is
 * lost and the area is as before.  Not asked, it takes the whole range.
 */
HTEST(cma_alloc_in_pieces_stops_at_a_checkpoint)
{
	char why[200];
	struct zone *z;
	struct cma *cma = cma_fixture_at(&z, 131072, CMA_BASE, 81920);
	unsigned long free0 = z->nr_free;

	mech_bench_set_checkpoint(fake_checkpoint);
	checkpoints = 0;
	checkpoint_stop = true;
	CHECK_EQ(cma_debug_alloc(cma, 81920, why, sizeof(why)), -EINTR);
	CHECK_STREQ(why, "interrupted after 32768 of 81920 pages");
	CHECK_EQ(checkpoints, 1);
	CHECK_EQ(cma_used_pages(cma), 0);
	CHECK_EQ(cma->nr_mem, 0);
	pcp_drain_zone(z);
	CHECK_EQ(z->nr_free, free0);
	CHECK_EQ(bf_check_zone(z, NULL), 0);

	checkpoints = 0;
	checkpoint_stop = false;
	CHECK_EQ(cma_debug_alloc(cma, 81920, why, sizeof(why)), 0);
	CHECK_EQ(checkpoints, 2);			/* three pieces */
	CHECK_EQ(cma_used_pages(cma), 81920);
	CHECK_EQ(cma_debug_free(cma, 81920, why, sizeof(why)), 0);
	mech_bench_set_checkpoint(NULL);
	pcp_drain_zone(z);
	CHECK_EQ(z->nr_free, free0);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * An area that cannot be activated gives its pages to the buddy as
 * ordinary memory and disappears: one whose last pageblock belongs to
 * another zone (-EINVAL; those pages are left alone, their zone does not
 * span them here), one with a page already in use (-EBUSY).
 */
HTEST(cma_activation_failure_gives_pages_back)
{
	struct zone *z = cz_zone_hold(8192, NULL, 0, 4096, 6144);
	unsigned long managed = z->managed_pages;
	struct cma *cma = NULL;

	for (u64 pfn = 5632; pfn < 6144; pfn++)
		set_page_links(pfn_to_page(pfn), ZONE_DMA32, 0);
	CHECK_EQ(cma_init_reserved_mem(4096, 2048, 0, "cma0", &cma), 0);
	CHECK_EQ(cma_activate_area(cma), -EINVAL);
	CHECK(!cma->active);
	CHECK_EQ(cma->count, 0);
	CHECK_EQ(z->managed_pages, managed + 1536);
	CHECK_EQ(z->cma_pages, 0);
	CHECK_EQ(get_pageblock_migratetype(4096), MIGRATE_MOVABLE);

	z = cz_zone_hold(8192, NULL, 0, 4096, 6144);
	managed = z->managed_pages;
	page_set_type(pfn_to_page(5000), PGTY_TABLE);
	CHECK_EQ(cma_init_reserved_mem(4096, 2048, 0, "cma0", &cma), 0);
	CHECK_EQ(cma_activate_area(cma), -EBUSY);
	CHECK_EQ(z->managed_pages, managed + 2047);
	CHECK_EQ(cma_init_reserved_mem(4097, 2048, 0, "x", &cma), -EINVAL);
	CHECK_EQ(cma_init_reserved_mem(4096, 2048, 0, "a-name-much-too-long", &cma), -EINVAL);
}

/* ---- the boot path: cma= through mm_core_init ---------------------------------------- */

/*
 * A 2 GiB QEMU-like machine booted with cma_size = 64 MiB: mm_core_init
 * must call cma_reserve_boot() after memblock and cma_activate() after the
 * hand-over.  One active area of 16384 pages in one zone, in CMA
 * pageblocks, all free, counted in cma_pages; a cma_alloc of the whole
 * area works and is released.
 */
HTEST(cma_boot_reserves_and_activates)
{
	static struct fw_memmap map;
	static struct mm_boot_params bp;
	struct cma *cma = &cma_areas[0];
	struct page *page;

	host_mm_reset(2 * SZ_1G);
	cma_reset();
	printk_set_level(LOG_WARNING);
	fw_memmap_init(&map);
	fw_memmap_add_raw(&map, 0, 0x9fc00, FW_MEM_RAM);
	fw_memmap_add_raw(&map, 0x100000, 2 * SZ_1G - 0x100000 - 0x20000, FW_MEM_RAM);
	fw_memmap_sanitize(&map);
	memset(&bp, 0, sizeof(bp));
	bp.memmap = &map;
	bp.cma_size = 64 * MiB;
	mm_core_init(&bp);
	if (cma_area_count != 1 || !cma->active) {
		fprintf(stderr, "  mm_core_init() did not call cma_reserve_boot()/cma_activate() (%u areas)\n",
			cma_area_count);
		CHECK(false);
		return;
	}
	CHECK_EQ(cma->count, 16384);
	CHECK(IS_ALIGNED(cma->base_pfn, PB));
	CHECK(memblock_is_reserved(&memblock, PFN_PHYS(cma->base_pfn)));
	CHECK_EQ(cma->zone->cma_pages, 16384);
	CHECK_EQ(cma->zone->nr_free_cma, 16384);
	for (u64 pfn = cma->base_pfn; pfn < cma->base_pfn + cma->count; pfn += PB)
		CHECK_EQ(get_pageblock_migratetype(pfn), MIGRATE_CMA);
	page = cma_alloc(cma, 16384, 0, false);
	CHECK(page != NULL);
	CHECK_EQ(cma->zone->nr_free_cma, 0);
	CHECK(cma_release(cma, page, 16384));
	pcp_drain_zone(cma->zone);
	CHECK_EQ(cma->zone->nr_free_cma, 16384);
	CHECK_EQ(bf_check_zone(cma->zone, NULL), 0);
}

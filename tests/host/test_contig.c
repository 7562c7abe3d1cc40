/*
 * test_contig.c - contiguous ranges taken (mm/contig_alloc.c):
 * alloc_contig_range() on unaligned ranges and its failures (which restore
 * everything), the scans that read the zone's contiguity flag (the same
 * results with the zone marked contiguous or not), movable owners migrated
 * out of the way, migratetypes and frozen pages, alloc_contig_pages().
 *
 * Over the zone of contig_fixture.h: node 0's ZONE_NORMAL over [0, pages)
 * of a fresh machine.  Movable blocks belong to a test owner that fills
 * them with a pattern depending on the offset in the block, so a migrated
 * block must still check.  free_contig_range() is test_contig_free.c's
 * subject, CMA test_cma.c's.
 */
#include <stdlib.h>
#include "htest.h"
#include "buddy_fixture.h"
#include "test_owner.h"
#include "mm_host.h"
#include "platform_stub.h"
#include <mm/contig_alloc.h>
#include "../../mm/internal.h"	/* free_contig_range_design() */
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
#include "contig_fixture.h"

/* Pageblocks of [start, end) with the isolate bit set. */
static unsigned isolated_pageblocks_in(u64 start, u64 end)
{
	unsigned n = 0;

	for (u64 pfn = start; pfn < end; pfn += PB)
		n += get_pageblock_isolate(pfn);
	return n;
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
		unsigned long free0 = zone_nr_free(z);
		struct contig_free_stats st;

		CHECK_EQ(alloc_contig_range(1000, 5000, MIGRATE_MOVABLE, 0), 0);
		CHECK_EQ(zone_nr_free(z), free0 - 4000);
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
		CHECK_EQ(zone_nr_free(z), free0);
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

	bf_set_pageblock_migratetype(z, 2048, MIGRATE_CMA);
	bf_set_pageblock_migratetype(z, 2560, MIGRATE_CMA);
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
	CHECK_EQ(zone_nr_free(z), z->managed_pages - 4097);
	free_contig_range(4096, 4096);
	CHECK_EQ(alloc_contig_pages(1 << 20, GFP_KERNEL, 0, false), NULL);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

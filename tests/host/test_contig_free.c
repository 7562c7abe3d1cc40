/*
 * test_contig_free.c - contiguous ranges given back (mm/contig_free.c):
 * the compound page rules of free_contig_range() and its frozen variant,
 * and the old and new designs shown equal.
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
 * The zone and the result records are contig_fixture.h's.
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
		unsigned long free0 = zone_nr_free(z);
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
		CHECK_EQ(zone_nr_free(z), free0 - 512);
		/* contig_free has no template-nt design: refused, nothing freed */
		CHECK_EQ(free_contig_range_design(1030, 2, false, DESIGN_NEW_NT, &st), -EINVAL);
		CHECK_EQ(zone_nr_free(z), free0 - 512);
		CHECK_EQ(bad_page_reports, reports);
		/* a tail met inside a range: bad page, left alone */
		CHECK_EQ(free_contig_range_design(1030, 2, false, designs[d], &st), 0);
		CHECK_EQ(st.bad, 2);
		CHECK_EQ(bad_page_reports, reports + 2);
		CHECK_EQ(zone_nr_free(z), free0 - 512);
		/* frozen: the whole compound page of the right size */
		for (unsigned i = 0; i < 512; i++)
			head[i].refcount = 0;
		CHECK_EQ(free_contig_range_design(1024, 256, true, designs[d], &st), -EINVAL);
		CHECK_EQ(free_contig_range_design(1024, 512, true, designs[d], &st), 0);
		CHECK_EQ(st.freed, 512);
		pcp_drain_zone(z);
		CHECK_EQ(zone_nr_free(z), free0);
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

		bf_set_pageblock_migratetype(z, 1024, MIGRATE_UNMOVABLE);
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

/*
 * test_cma.c - CMA (mm/cma.c) over the zone of contig_fixture.h: no
 * unmovable allocation in a CMA area, alloc/release cycles that conserve
 * the counts, the debugfs-like alloc and free, an allocation in pieces
 * that stops at the shell's checkpoint, a failed activation giving its
 * pages back, and one boot through mm_core_init with cma=.
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
#include "contig_fixture.h"

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
	free0 = zone_nr_free(z);
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
	CHECK_EQ(zone_nr_free(z), free0);
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
	unsigned long free0 = zone_nr_free(z);
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
	CHECK_EQ(zone_nr_free(z), free0);
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
	unsigned long free0 = zone_nr_free(z);

	mech_bench_set_checkpoint(fake_checkpoint);
	checkpoints = 0;
	checkpoint_stop = true;
	CHECK_EQ(cma_debug_alloc(cma, 81920, why, sizeof(why)), -EINTR);
	CHECK_STREQ(why, "interrupted after 32768 of 81920 pages");
	CHECK_EQ(checkpoints, 1);
	CHECK_EQ(cma_used_pages(cma), 0);
	CHECK_EQ(cma->nr_mem, 0);
	pcp_drain_zone(z);
	CHECK_EQ(zone_nr_free(z), free0);
	CHECK_EQ(bf_check_zone(z, NULL), 0);

	checkpoints = 0;
	checkpoint_stop = false;
	CHECK_EQ(cma_debug_alloc(cma, 81920, why, sizeof(why)), 0);
	CHECK_EQ(checkpoints, 2);			/* three pieces */
	CHECK_EQ(cma_used_pages(cma), 81920);
	CHECK_EQ(cma_debug_free(cma, 81920, why, sizeof(why)), 0);
	mech_bench_set_checkpoint(NULL);
	pcp_drain_zone(z);
	CHECK_EQ(zone_nr_free(z), free0);
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

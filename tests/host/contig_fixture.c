/*
 * contig_fixture.c - the zone and the result records of the contiguous
 * range tests (contig_fixture.h).
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

struct zone *normal_zone(void)
{
	return &NODE_DATA(0)->node_zones[ZONE_NORMAL];
}

/* ---- fixture ------------------------------------------------------------------- */

/*
 * Zone [0, pages) with the blocks in taken[] (sorted, disjoint) allocated
 * and everything else handed to the buddy (except [hold_start, hold_end),
 * left reserved for a CMA area); watermarks, pcp sizes and zonelists set.
 */
struct zone *cz_zone_hold(u64 pages, const struct bf_block *taken, unsigned nr_taken,
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

struct zone *cz_zone(u64 pages, const struct bf_block *taken, unsigned nr_taken)
{
	return cz_zone_hold(pages, taken, nr_taken, 0, 0);
}
/* The free lists as they are: (pfn, order, the list the block is on), sorted. */
unsigned list_blocks(struct zone *z, struct contig_block *out, unsigned max)
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
void record(struct result *r, struct zone *z, bool check)
{
	pcp_drain_zone(z);
	contig_snapshot_take(&r->snap, z, z->zone_start_pfn, zone_end_pfn(z), r->snap_blocks,
			     MAX_BLOCKS);
	r->nr_lists = list_blocks(z, r->lists, MAX_BLOCKS);
	r->bf_problems = check ? bf_check_zone(z, NULL) : -1;
}

/* Both results equal in every respect; prints the first difference. */
bool results_equal(const struct result *a, const struct result *b, const char *what)
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

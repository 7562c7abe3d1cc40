/*
 * contig_fixture.h - the zone and the result records that the contiguous
 * range tests share: test_contig.c (alloc_contig_range and the contiguity
 * flag's readers), test_contig_free.c (free_contig_range's two designs)
 * and test_cma.c (CMA).
 *
 * The zone is node 0's ZONE_NORMAL over [0, pages) of a fresh machine
 * (buddy_fixture.h), every pageblock Movable unless a test says otherwise.
 * Blocks a test wants allocated at known pfns are left out of the
 * hand-over and made allocated by hand (refcount 1, counted in
 * managed_pages); the rest goes to the buddy.
 */
#ifndef CONTIG_FIXTURE_H
#define CONTIG_FIXTURE_H

#include "buddy_fixture.h"
#include <mm/contig_alloc.h>

#define MiB		(1ULL << 20)
#define PB		pageblock_nr_pages
#define NO_PFN		(~0ULL)

struct zone *normal_zone(void);

/*
 * Zone [0, pages) with the blocks in taken[] (sorted, disjoint) allocated
 * and everything else handed to the buddy (except [hold_start, hold_end),
 * left reserved for a CMA area); watermarks, pcp sizes and zonelists set.
 */
struct zone *cz_zone_hold(u64 pages, const struct bf_block *taken, unsigned nr_taken,
			  u64 hold_start, u64 hold_end);
struct zone *cz_zone(u64 pages, const struct bf_block *taken, unsigned nr_taken);

/* The free lists as they are: (pfn, order, the list the block is on), sorted. */
unsigned list_blocks(struct zone *z, struct contig_block *out, unsigned max);

#define MAX_BLOCKS	16384

/* A zone as it was left: snapshot, free lists, the last call's counts. */
struct result {
	struct contig_snapshot snap;
	struct contig_block snap_blocks[MAX_BLOCKS];
	struct contig_block lists[MAX_BLOCKS];
	unsigned nr_lists;
	struct contig_free_stats stats;
	int bf_problems;		/* -1: not checked */
};

/* Drain the pcp lists and record z in r (and bf_check_zone() if check). */
void record(struct result *r, struct zone *z, bool check);

/* Both results equal in every respect; prints the first difference. */
bool results_equal(const struct result *a, const struct result *b, const char *what);

#endif

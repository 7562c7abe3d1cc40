/*
 * buddy_fixture.h - simulated memory with zones and a buddy allocator, and
 * an independent checker of every free-list invariant (for test_buddy.c and
 * test_page_alloc.c).
 *
 * bf_machine() gives a fresh machine: RAM [0, ram_bytes) in early sections
 * with their memmap populated, node_data[] and numa_distance[] zeroed.
 * bf_zone_init() makes a zone over [start_pfn, end_pfn) of node nid whose
 * struct pages are initialised reserved (as memmap init leaves boot memory)
 * with every pageblock of type mt; bf_handover() then gives a range to the
 * buddy in the largest aligned blocks, as the boot hand-over does.
 */
#ifndef HOST_BUDDY_FIXTURE_H
#define HOST_BUDDY_FIXTURE_H

#include "../../mm/buddy_internal.h"

void bf_machine(u64 ram_bytes);
void bf_zone_init(struct zone *z, int nid, enum zone_type idx, u64 start_pfn, u64 end_pfn, int mt);
void bf_handover(struct zone *z, u64 start_pfn, u64 end_pfn);

/*
 * bf_check_zone() - check z against the invariants of buddy.h, page by
 * page and list by list, without trusting the allocator's counters:
 * list membership vs PGTY_BUDDY/PGTY_PCP/private/alignment/pageblock type,
 * nr_free/nr_free_mt/nr_free_cma/pcp.count vs the lists, no page in two
 * free blocks, maximal blocks, and conservation (free + allocated ==
 * managed, where allocated = untyped non-reserved pages with refcount >= 1).
 * If allocated_map is given (one byte per pfn from zone_start_pfn, 1 =
 * the test allocated it), it must agree page by page.  Prints each problem
 * and returns how many there were.
 */
int bf_check_zone(struct zone *z, const u8 *allocated_map);

/* A free block as (pfn, order); bf_free_blocks() lists the buddy's, sorted by pfn. */
struct bf_block {
	u64 pfn;
	unsigned order;
};
unsigned bf_free_blocks(struct zone *z, struct bf_block *out, unsigned max);
bool bf_blocks_equal(const struct bf_block *a, unsigned nr_a, const struct bf_block *b, unsigned nr_b);

/* xorshift64* with a fixed seed: the same sequence on every run. */
static inline u64 bf_rand(u64 *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

/*
 * The buddy functions of buddy_internal.h need zone->lock (they assert
 * it); these take it around one call, as the allocator's entries do.
 */
static inline struct page *bf_rmqueue_smallest(struct zone *z, unsigned order, int mt)
{
	struct page *page;

	spin_lock(&z->lock);
	page = buddy_rmqueue_smallest(z, order, mt);
	spin_unlock(&z->lock);
	return page;
}

static inline struct page *bf_rmqueue(struct zone *z, unsigned order, int mt, unsigned flags)
{
	struct page *page;

	spin_lock(&z->lock);
	page = buddy_rmqueue(z, order, mt, flags);
	spin_unlock(&z->lock);
	return page;
}

static inline void bf_free_one(struct zone *z, u64 pfn, unsigned order, int mt, fpi_t fpi)
{
	spin_lock(&z->lock);
	buddy_free_one(z, pfn, order, mt, fpi);
	spin_unlock(&z->lock);
}

static inline long bf_isolate_pageblock(struct zone *z, u64 pfn, bool isolate)
{
	long moved;

	spin_lock(&z->lock);
	moved = buddy_isolate_pageblock(z, pfn, isolate);
	spin_unlock(&z->lock);
	return moved;
}

static inline long bf_set_pageblock_migratetype(struct zone *z, u64 pfn, int mt)
{
	long moved;

	spin_lock(&z->lock);
	moved = buddy_set_pageblock_migratetype(z, pfn, mt);
	spin_unlock(&z->lock);
	return moved;
}

#endif

/*
 * contig_alloc.h - allocating and freeing physically contiguous ranges of
 * arbitrary length: Linux's alloc_contig_range() and free_contig_range(),
 * the engine under CMA (mm/cma.c) and under `contig` in the shell.
 *
 * A contiguous range is a half-open pfn range [start_pfn, end_pfn), not a
 * buddy block: any length, any alignment, inside one zone.  It is
 * allocated page by page in the sense that every page gets its own
 * reference (refcount 1, as memlab's alloc_pages() gives every page of a
 * block), or none at all (a "frozen" range: refcount 0 on every page, for
 * callers that manage references themselves, Linux's
 * alloc_contig_frozen_range()).  It is freed the same way: any sub-range,
 * page by page as far as the contract is concerned.
 *
 * free_contig_range() exists in two designs, chosen at run time by the
 * contig_free mechanism switch (mechanisms.h, /sys/kernel/mm/memlab/contig_free):
 *   old  every page freed as an order-0 page through the normal free path
 *        (free_pages(page, 0): checks, then the per-CPU lists, which drain
 *        into the buddy when they fill up), as Linux did until 2026;
 *   new  every page prepared first (the checks and clean-up of the free
 *        path), then the range given to the buddy in the largest naturally
 *        aligned power-of-two chunks; a page that fails its checks, a zone
 *        change and a section boundary split the range into runs.
 * Both leave the same buddy free lists and counters; mm/contig_free.c says
 * exactly what "the same" means and contig_snapshot_*() below checks it.
 *
 * Invariants of an allocated range (what free_contig_range expects):
 *   - every page: refcount >= 1 (frozen: == 0), page_type none, not
 *     PG_reserved, not a compound page, in the zone the range came from;
 *   - nothing about the range is recorded anywhere else: the caller keeps
 *     start_pfn and nr_pages (CMA keeps them in its bitmap).
 *
 * Context: (main), no lock held; each buddy step takes zone->lock, and the
 * range is the caller's by claim (range_claim.h).  Never from interrupt
 * handlers.
 */
#ifndef MM_CONTIG_ALLOC_H
#define MM_CONTIG_ALLOC_H

#include <mm/buddy.h>
#include <mm/mechanisms.h>

/* What alloc_contig_range() did: pages migrated, or where and why it failed. */
struct contig_alloc_report {
	int err;		/* [o] the returned -errno, 0 on success */
	u64 pfn;		/* [o] first offending pfn, or ~0 if none applies */
	const char *step;	/* [o] "args", "check", "isolate", "migrate" or "test"; "" on success */
	char why[160];		/* [o] the reason in words (describe_unmovable() style) */
	u64 migrated;		/* [o] pages migrated out of the range (also on failure) */
};

/*
 * alloc_contig_range() - allocate [start_pfn, end_pfn) (half-open, any
 * alignment, one zone) as Linux does:
 *   1. check the range itself: every page free or movable, every pageblock
 *      of migratetype's kind (MIGRATE_CMA: CMA pageblocks only;
 *      MIGRATE_MOVABLE: no CMA pageblock, those belong to cma_alloc());
 *   2. isolate the pageblocks of the range rounded out to pageblocks (pcp
 *      lists are drained first) so nothing is allocated from it meanwhile;
 *   3. migrate the movable allocations out of [start_pfn, end_pfn);
 *   4. test_pages_isolated(): every page is now free on an isolate list;
 *   5. take the free buddy blocks out (isolate_freepages_range): whole
 *      blocks, split at the range's ends, the outside parts given back;
 *   6. undo the isolation; the pages get refcount 1 each (frozen: 0),
 *      poison checked, zeroed with __GFP_ZERO.
 * gfp may hold __GFP_NOWARN (no failure log) and __GFP_ZERO; other flags
 * are -EINVAL.  Returns 0; -EINVAL (bad arguments, holes, several zones);
 * -EBUSY when a page cannot be freed up (unmovable, pinned, isolated by
 * someone else), logged with the first offending pfn unless __GFP_NOWARN,
 * or, before anything is touched, when another holder has claimed memory
 * of the range (include/mm/range_claim.h; step "check", the holder named);
 * -ENOMEM when migration found no target.  On failure everything is
 * restored: no page of the range is allocated and the free lists are as
 * they were, except that blocks already migrated stay where they moved.
 * Context: (main).
 */
int alloc_contig_range(u64 start_pfn, u64 end_pfn, int migratetype, gfp_t gfp);
int alloc_contig_frozen_range(u64 start_pfn, u64 end_pfn, int migratetype, gfp_t gfp);

/* The same, saying what it migrated, or where and why it failed (the shell). */
int alloc_contig_range_explain(u64 start_pfn, u64 end_pfn, int migratetype, gfp_t gfp,
			       bool frozen, struct contig_alloc_report *why);

/*
 * alloc_contig_pages() - Linux's alloc_contig_pages(): find nr_pages
 * contiguous pages anywhere in node nid's zonelist (zones up to
 * gfp_zone(gfp), NUMA_NO_NODE: node 0), trying candidate ranges aligned to
 * nr_pages rounded up to a power of two (Linux aligns to nr_pages) that
 * are fully present, in one zone, not reserved and not CMA; each candidate
 * goes through alloc_contig_range(MIGRATE_MOVABLE).  Returns the first
 * page (refcounted, or frozen) or NULL.  Context: (main).
 */
struct page *alloc_contig_pages(u64 nr_pages, gfp_t gfp, int nid, bool frozen);

/* Counts of one free_contig_range call (tests, trace, the shell). */
struct contig_free_stats {
	u64 freed;		/* [o] pages given back to the allocator */
	u64 in_use;		/* [o] pages whose refcount only dropped: still referenced */
	u64 bad;		/* [o] pages refused by the checks ("Bad page state") */
	u64 inserts;		/* [o] old: order-0 frees through the free path; new: chunks to the buddy */
	unsigned max_order;	/* [o] largest chunk (new) */
};

/*
 * free_contig_range() - drop one reference to each page of [pfn, pfn +
 * nr_pages) and free the pages that reach 0, with the design the
 * contig_free switch selects (see the top of this file).  A page that
 * fails the free checks (reserved, typed, refcount 0 already, no memmap,
 * compound) is reported "BUG: Bad page state" and left alone; a page
 * still referenced after the drop is counted and warned about once ("N
 * pages are still in use!").  A compound head at pfn makes the whole call
 * a no-op with a warning (Linux's rule: compound pages are freed with
 * free_pages(), never through here).
 * free_contig_frozen_range() - the same for pages already at refcount 0
 * (no reference to drop; refcount != 0 is a bad page); a compound head at
 * pfn is accepted when nr_pages is its size and frees the compound page.
 * Context: (main).
 */
void free_contig_range(u64 pfn, u64 nr_pages);
void free_contig_frozen_range(u64 pfn, u64 nr_pages);

/*
 * free_contig_range_stats() - free_contig_range() (or, frozen,
 * free_contig_frozen_range()) with the switch's design, filling *stats
 * (may be NULL) with what it did: for callers that report the free, as the
 * shell's `contig free` and `contig compare` do (a comparison runs one
 * design with mech_override()/mech_restore() around it).  Returns 0, or
 * -EINVAL when the compound-head rule refused the call (nothing freed).
 * The explicit-design twin is mm's own (mm/internal.h).  Context: (main).
 */
int free_contig_range_stats(u64 pfn, u64 nr_pages, bool frozen, struct contig_free_stats *stats);


/* ---- proving the two designs equal ------------------------------------- */

/* A free buddy block as the comparison sees it. */
struct contig_block {
	u64 pfn;		/* [o] head */
	u8 order;		/* [o] 2^order pages */
	u8 mt;			/* [o] the list it is on: buddy_list_mt(pfn) */
};

/*
 * What the comparison looks at, after the pcp lists were drained: the free
 * blocks of a window of a zone as a set of (pfn, order, migratetype), the
 * zone's state counters, and a digest of every struct page of the window
 * (everything but the list links, whose order is not part of the state)
 * and of its pageblock flags.  The caller also compares the counts of the
 * calls (struct contig_free_stats: freed, in use, bad).  Event
 * counters (merges, pcp drains, frees per order) are NOT compared: they
 * are what differs between the designs, and are reported beside.
 */
struct contig_snapshot {
	const struct zone *zone;		/* [o] whose lists and counters */
	u64 start_pfn, end_pfn;			/* [o] the window, [start_pfn, end_pfn) */
	struct contig_block *blocks;		/* [o] caller's array, sorted by pfn */
	unsigned nr_blocks;			/* [o] blocks found (may exceed max_blocks) */
	unsigned max_blocks;			/* [o] room in blocks[] */
	u64 page_digest;			/* [o] struct pages + pageblock flags of the window */
	unsigned long nr_free, nr_free_cma;	/* [o] zone counters ... */
	unsigned long managed_pages, present_pages, cma_pages;	/* [o] */
	unsigned long area_nr_free[NR_PAGE_ORDERS];	/* [o] */
	unsigned long area_nr_free_mt[NR_PAGE_ORDERS][MIGRATE_TYPES];	/* [o] */
	int pcp_count;				/* [o] 0 after a drain */
	u64 merges, pcp_drains;			/* [o] events: reported, not compared */
};

/*
 * contig_snapshot_take() - fill s for zone over [start_pfn, end_pfn)
 * (clipped to the zone span) into blocks[0, max_blocks).  Does not drain:
 * the caller drains first (pcp_drain_zone) so both designs are compared
 * with every free page in the buddy.  Context: (main), read-only.
 */
void contig_snapshot_take(struct contig_snapshot *s, const struct zone *zone, u64 start_pfn,
			  u64 end_pfn, struct contig_block *blocks, unsigned max_blocks);

/*
 * contig_snapshot_compare() - 0 if a and b are identical in everything
 * the snapshot holds; else 1 with the first difference in words in
 * buf[0, size) ("free block (pfn 0x..., order 3, Movable) only in the
 * first").  A snapshot whose blocks[] overflowed compares as different.
 */
int contig_snapshot_compare(const struct contig_snapshot *a, const struct contig_snapshot *b,
			    char *buf, size_t size);

#endif

/*
 * cma.h - the Contiguous Memory Allocator: memory set aside at boot that
 * the buddy may lend to movable allocations, and that can be taken back as
 * large contiguous ranges at any time by migrating those allocations away.
 *
 * An area is reserved from memblock at boot (`cma=SIZE` on the command
 * line: cma_reserve_boot()), so nothing unmovable is ever placed in it.
 * After the hand-over to the buddy, cma_activate() marks its pageblocks
 * MIGRATE_CMA, frees its pages to the buddy (they count in managed_pages,
 * zone->cma_pages and zone->nr_free_cma) and gives it a bitmap.  From then
 * on the buddy hands CMA pages to movable allocations only (ALLOC_CMA,
 * buddy.c); unmovable ones never fall back to them.  cma_alloc() finds a
 * range that is clear in the bitmap, marks it, and asks alloc_contig_range()
 * for it, which migrates the movable tenants out; if a page there cannot be
 * moved, or another holder has claimed memory there (-EBUSY both;
 * include/mm/range_claim.h), the next candidate is tried.  cma_release() frees the
 * range with free_contig_range() (old or new design, per the contig_free
 * switch) and clears the bitmap.
 *
 * Invariants of an active area:
 *   - [base_pfn, base_pfn + count) lies in one zone; every pageblock of it
 *     is MIGRATE_CMA (possibly isolated for a moment during cma_alloc);
 *   - bit i of the bitmap covers pages [base_pfn + (i << order_per_bit),
 *     + 2^order_per_bit); a set bit means "handed out by cma_alloc()";
 *   - pages under clear bits are free or lent to movable allocations;
 *     pages under set bits are the caller's (refcount 1 each).
 *
 * The debugfs view mirrors Linux's linux/mm/cma_debug.c under
 * /sys/kernel/debug/cma/<name>/: alloc and free take a page count, as for
 * Usama Anjum's measurements (see docs/contig-free.md).  Linux names the
 * `cma=` area "reserved"; memlab calls it "cma0".
 *
 * Context: cma_reserve_boot() (boot), before the memmap is set up;
 * cma_activate() (boot), after the hand-over; the rest (main).
 */
#ifndef MM_CMA_H
#define MM_CMA_H

#include <mm/contig_alloc.h>

#define MAX_CMA_AREAS		4
#define CMA_MAX_NAME		16
#define CMA_DEBUG_MAX_ALLOCS	256	/* debugfs allocations remembered per area */

/* One allocation made through the debugfs alloc file (Linux's struct cma_mem). */
struct cma_mem {
	u64 pfn;		/* [m] first page */
	u64 nr_pages;		/* [m] pages */
};

struct cma {
	char name[CMA_MAX_NAME];	/* [c] "cma0": the debugfs directory */
	u64 base_pfn;			/* [c] first pfn of the area */
	u64 count;			/* [c] pages in the area (0: declaration failed) */
	unsigned order_per_bit;		/* [c] one bitmap bit per 2^order_per_bit pages */
	u64 nr_bits;			/* [c] bits in use: count >> order_per_bit */
	u64 *bitmap;			/* [c] set bit: handed out ([m]); from the buddy at activation */
	struct page *bitmap_block;	/* [c] the block holding the bitmap */
	bool active;			/* [c] pages are in the buddy as MIGRATE_CMA */
	struct zone *zone;		/* [c] the zone of the whole area (active only) */
	u64 alloc_pages_success;	/* [m] pages handed out (/sys/kernel/mm/cma/<name>/) */
	u64 alloc_pages_fail;		/* [m] pages asked for and not found */
	u64 release_pages_success;	/* [m] pages given back */
	u64 busy_retries;		/* [m] candidates skipped because alloc_contig_range said -EBUSY */
	struct cma_mem mem[CMA_DEBUG_MAX_ALLOCS]; /* [m] debugfs allocations, oldest first */
	unsigned nr_mem;		/* [m] entries in mem[] */
};

extern struct cma cma_areas[MAX_CMA_AREAS];
extern unsigned cma_area_count;

/*
 * cma_reserve_boot() - the `cma=SIZE` hook, called by mm_core_init() right
 * after memblock is set up (before the memmap): round size up to a
 * pageblock (2 MiB), reserve it in memblock -- above 4 GiB if possible,
 * else the highest free range, as Linux's cma_declare_contiguous_nid() --
 * and declare it as area "cma0" (order_per_bit 0).  size 0 does nothing.
 * Failure is logged and leaves no area.  Context: (boot).
 */
void cma_reserve_boot(u64 size);

/*
 * cma_activate() - the second hook, called by mm_core_init() after the
 * hand-over to the buddy: cma_activate_area() on every declared area.
 * Context: (boot).
 */
void cma_activate(void);

/*
 * cma_init_reserved_mem() - declare an area over [base_pfn, base_pfn +
 * count): pageblock aligned, pages reserved (PG_reserved, never given to
 * the buddy).  Returns 0 and *res, -EINVAL (alignment, empty, name), or
 * -ENOSPC (MAX_CMA_AREAS).  Context: (boot), or a test's private machine.
 */
int cma_init_reserved_mem(u64 base_pfn, u64 count, unsigned order_per_bit, const char *name,
			  struct cma **res);

/*
 * cma_activate_area() - Linux's cma_activate_area(): check that the area
 * lies in one zone and is all reserved, allocate the bitmap from the buddy
 * (GFP_KERNEL: never in CMA), mark every pageblock MIGRATE_CMA, give the
 * pages to the buddy (managed_pages, cma_pages), recompute watermarks.  On
 * failure the pages are given to the buddy as ordinary memory and the
 * area is dropped (count 0).  Returns 0 or -errno.  Context: (boot)/(main).
 */
int cma_activate_area(struct cma *cma);

/*
 * cma_alloc() - count pages from the area, the first page's pfn aligned to
 * 2^align (align <= MAX_PAGE_ORDER), refcount 1 each.  Tries each bitmap
 * candidate in turn and moves on while alloc_contig_range() says -EBUSY.
 * Returns the first page or NULL (logged unless no_warn).
 * Context: (main).
 */
struct page *cma_alloc(struct cma *cma, u64 count, unsigned align, bool no_warn);

/*
 * cma_release() - give back count pages from cma_alloc() starting at
 * pages: free_contig_range() (the contig_free switch picks the design),
 * then clear the bitmap.  Returns false, freeing nothing, if the range is
 * not inside the area or not entirely handed out.  Context: (main).
 */
bool cma_release(struct cma *cma, const struct page *pages, u64 count);

/* cma_used_pages() / cma_maxchunk_pages(): the debugfs used and maxchunk. */
u64 cma_used_pages(const struct cma *cma);
u64 cma_maxchunk_pages(const struct cma *cma);

/*
 * cma_first_free_range() - the first pfn of count pages clear in the
 * bitmap, or ~0 if none; nothing is claimed.  For measurements that
 * allocate and free one range of the area again and again with
 * alloc_contig_range(MIGRATE_CMA) while nothing else runs.
 */
u64 cma_first_free_range(const struct cma *cma, u64 count);

/*
 * cma_debug_alloc() - the debugfs alloc file: cma_alloc(count, align 0)
 * and remember the allocation.  cma_debug_free() - the free file: release
 * count pages, newest allocation first, taking only the first pages of an
 * allocation larger than what is left to release (Linux's cma_free_mem()).
 * memlab refuses (-EINVAL, nothing released) a count larger than what the
 * alloc file handed out, where Linux releases what there is and returns 0.
 * Both return 0 or -errno with the reason in why[0, size).  Context: (main).
 */
int cma_debug_alloc(struct cma *cma, u64 count, char *why, size_t size);
int cma_debug_free(struct cma *cma, u64 count, char *why, size_t size);
u64 cma_debug_allocated(const struct cma *cma);	/* pages the alloc file holds */

/* cma_dump() - the area: range, zone, counters, debugfs allocations. */
void cma_dump(const struct cma *cma, struct printer *p);

/* cma_reset() - forget every area (host tests only). */
void cma_reset(void);

#endif

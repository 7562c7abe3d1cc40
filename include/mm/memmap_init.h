/*
 * memmap_init.h - the memmap initialisation mechanism: the old design
 * (every struct page field by field), the template design (one page
 * initialised, then copied) and the template with non-temporal stores,
 * for normal zones, holes and ZONE_DEVICE ranges with compound pages.
 *
 * The boot path and the hotplug core call memmap_init_range() and
 * init_unavailable_range() (include/mm/mm_init.h), which follow the
 * run-time switch mech_design(MECH_MEMMAP_INIT).  The *_design() variants
 * below take the design as an argument, for the tests, the benchmarks and
 * `devmem rebind ID old|new|template-nt`.
 *
 * The contract every design keeps (what the tests prove): for the same
 * arguments, the memmap bytes of the range and the pageblock flags written
 * are identical, whatever the design.  The only pfn-dependent bytes of a
 * struct page in memlab are the two lru words of a page with an empty list
 * (INIT_LIST_HEAD points them at the page itself), and for compound tails
 * the head pointer (the same for all tails of one compound).
 *
 * ZONE_DEVICE pages (memmap_init_zone_device), memlab's one device type:
 *   every page    zone ZONE_DEVICE, node nid, PG_reserved, owner = pgmap,
 *                 pageblock MIGRATE_MOVABLE at pageblock-aligned pfns
 *   4 KiB page    refcount 1 (Linux's MEMORY_DEVICE_GENERIC keeps 1: the
 *   or head       device's driver holds the page; it is never free)
 *   head          also PG_head
 *   tail          compound_head = head | 1, compound_info = 0, refcount 0
 *   first tail    compound_info = compound order (the old design writes it
 *                 after initialising the first tail, Linux's
 *                 prep_compound_head order; the templates copy the first
 *                 tail from a template that already holds it)
 *
 * Context: (boot) or (main); the range's memmap must be populated
 * (vmemmap) and nobody else may use the pages while they are initialised.
 */
#ifndef MM_MEMMAP_INIT_H
#define MM_MEMMAP_INIT_H

#include <mm/page.h>
#include <mm/mechanisms.h>
#include <lib/printer.h>

/* Compound orders memmap_init_zone_device() accepts: a compound never
 * crosses a section, so the template can be rebuilt per section. */
#define MAX_DEVICE_COMPOUND_ORDER	PFN_SECTION_SHIFT

/*
 * memmap_init_range_design() - memmap_init_range() with design d instead
 * of the switch: [start_pfn, end_pfn) of zone/nid, pageblock migratetype
 * set at each pageblock-aligned pfn.  Context: (boot)/(main).
 */
void memmap_init_range_design(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
			      int migratetype, enum mech_design d);

/* init_unavailable_range_design() - init_unavailable_range() with design d. */
u64 init_unavailable_range_design(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
				  enum mech_design d);

/*
 * memmap_init_zone_device() - initialise the struct pages of the device
 * range [start_pfn, start_pfn + nr_pages) of node nid as ZONE_DEVICE pages
 * owned by pgmap, in compounds of 2^compound_order pages (0: 4 KiB pages,
 * 9: 2 MiB compounds), as the table at the top of this file says.  Uses
 * the switch; memmap_init_zone_device_design() takes the design.  The zone
 * span is the caller's business (mm/memremap.c).  Returns 0, or -EINVAL
 * if compound_order > MAX_DEVICE_COMPOUND_ORDER or start_pfn / nr_pages
 * are not multiples of the compound size (nothing written then).
 * Context: (main).
 */
int memmap_init_zone_device(u64 start_pfn, u64 nr_pages, int nid, unsigned compound_order,
			    void *pgmap);
int memmap_init_zone_device_design(u64 start_pfn, u64 nr_pages, int nid,
				   unsigned compound_order, void *pgmap, enum mech_design d);

/* Where two memmaps first differ (memmap_compare). */
struct memmap_diff {
	u64 index;		/* struct page index from the start of the range */
	unsigned byte;		/* byte offset in that struct page, 0..63 */
	u8 expect, got;		/* the two bytes */
};

/*
 * memmap_compare() - compare nr_pages struct pages at got with those at
 * expect, byte for byte (a u64 at a time).  Returns 0 if identical, else 1
 * with *diff (if not NULL) describing the first difference.  Context: (any).
 */
int memmap_compare(const struct page *expect, const struct page *got, u64 nr_pages,
		   struct memmap_diff *diff);

/*
 * memmap_fill_pattern() - write the 64-bit pattern into every word of the
 * nr_pages struct pages at page: the equivalence checks do this before
 * each design runs, so a field a design forgets to write shows up as a
 * difference instead of keeping the previous design's value.
 */
void memmap_fill_pattern(struct page *page, u64 nr_pages, u64 pattern);

/* ---- measurements (tests/bench/bench_memmap.c and `devmem bench`) -------- */

enum memmap_bench_kind {
	MEMMAP_BENCH_NORMAL,	/* memmap_init_range, ZONE_MOVABLE */
	MEMMAP_BENCH_DEV_4K,	/* memmap_init_zone_device, order 0 */
	MEMMAP_BENCH_DEV_2M,	/* memmap_init_zone_device, order 9 */
	NR_MEMMAP_BENCH_KINDS
};

#define MEMMAP_BENCH_MAX_REPS	41
#define NR_MEMMAP_DESIGNS	3	/* DESIGN_OLD, DESIGN_NEW, DESIGN_NEW_NT */

struct memmap_bench {
	u64 nr_pages;					/* struct pages per run */
	unsigned reps;					/* runs per cell; medians below */
	bool warm;					/* memmap in the cache before each run */
	u64 init[NR_MEMMAP_BENCH_KINDS][NR_MEMMAP_DESIGNS]; /* cycles per run */
	u64 memset_cycles;				/* memset() of the same bytes */
	u64 stream_cycles;				/* movnti of the same bytes + sfence */
	u64 stores_cycles;				/* 8 ordinary 8-byte stores per page */
	/*
	 * Paired: run r of old against run r of each template design
	 * (DESIGN_NEW, DESIGN_NEW_NT), per kind; the DESIGN_OLD column stays 0.
	 */
	unsigned wins[NR_MEMMAP_BENCH_KINDS][NR_MEMMAP_DESIGNS];   /* runs it was faster */
	unsigned losses[NR_MEMMAP_BENCH_KINDS][NR_MEMMAP_DESIGNS]; /* slower (ties: neither) */
	u64 ratio_permille[NR_MEMMAP_BENCH_KINDS][NR_MEMMAP_DESIGNS]; /* median old/it, x1000 */
};

/*
 * memmap_init_bench() - time every design on [start_pfn, start_pfn +
 * nr_pages) of node nid, reps times each (interleaved, the designs taking
 * turns at going first, so noise and order hit all alike), beside two
 * limits writing the same 64 bytes per page: memset() and a movnti
 * stream.  Before every timed run the range is put in the same cache
 * state: cold (written by a movnti stream: out of the cache, as memmap
 * init meets a fresh memmap) or, with warm, memset() (in the cache if it
 * fits: the CPU's cost alone).  The medians, and the paired old-against-
 * template statistics with a sign test, go to *b.  The range must have a
 * populated memmap that nobody uses (an offline block, a benchmark
 * section): its memmap and pageblock flags are overwritten, and left
 * holding a template-initialised Movable memmap (the caller puts back
 * what it needs, e.g. the offline poison).  start_pfn and nr_pages must be
 * multiples of 512 (-EINVAL); reps is clamped to 1..MEMMAP_BENCH_MAX_REPS.
 * Context: (main).
 */
int memmap_init_bench(u64 start_pfn, u64 nr_pages, int nid, unsigned reps, bool warm,
		      struct memmap_bench *b);

/*
 * What the paired runs say about template design d (DESIGN_NEW or
 * DESIGN_NEW_NT) against per-page, kind by kind: faster or slower when the
 * one-sided sign test gives p < 0.05 (at least 5 of 5, 8 of 9, 12 of 15,
 * 27 of 41 runs; never with fewer than 5), else no significant difference.
 */
enum memmap_bench_verdict {
	MEMMAP_BENCH_FASTER,
	MEMMAP_BENCH_NO_DIFFERENCE,
	MEMMAP_BENCH_SLOWER,
};

enum memmap_bench_verdict memmap_bench_verdict(const struct memmap_bench *b, int kind,
					   enum mech_design d);

/* memmap_bench_print() - the table: cycles/page per kind and design, the
 * limits, the ratios old/new, old/nt, new/memset, nt/stream, and the sign
 * test of each template design against per-page. */
void memmap_bench_print(const struct memmap_bench *b, struct printer *p);

#endif

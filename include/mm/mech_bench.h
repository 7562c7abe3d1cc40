/*
 * mech_bench.h - the measurements of the four mechanisms (mm/mech_bench.c),
 * old design against new, for `bench NAME` and tests/bench/.
 */
#ifndef MM_MECH_BENCH_H
#define MM_MECH_BENCH_H

#include <lib/types.h>
#include <lib/median.h>
#include <lib/printer.h>
#include <mm/mechanisms.h>

/*
 * mech_bench_set_checkpoint() - fn (NULL: none) is called between the runs
 * of every benchmark below (and between the 128 MiB sections of a
 * memmap_init pass, each timed on its own and summed), between the pieces
 * of a large cma_alloc(), and between the sections of devmem_compare():
 * the shell points it at shell_checkpoint(), where its job may pause for
 * the console (what is timed is timed on its own, so a pause costs no run
 * anything) and learns whether the user asked it to stop.  When fn says
 * true the benchmark stops after the runs done so far (at least one) and
 * reports them, its reps or rounds field saying how many, always leaving
 * valid state behind.  mm cannot read the console itself.  Context: (main)
 * or the shell's job.
 *
 * mech_bench_checkpoint() - call fn (false without one), for mm's long
 * loops.
 */
void mech_bench_set_checkpoint(bool (*fn)(void));
bool mech_bench_checkpoint(void);

/* ---- memmap_init (tests/bench/bench_memmap_init.c, `bench memmap_init`) --- */

enum memmap_bench_kind {
	MEMMAP_BENCH_NORMAL,	/* memmap_init_range, ZONE_MOVABLE */
	MEMMAP_BENCH_DEV_4K,	/* memmap_init_zone_device, order 0 */
	MEMMAP_BENCH_DEV_2M,	/* memmap_init_zone_device, order 9 */
	NR_MEMMAP_BENCH_KINDS
};

#define MEMMAP_BENCH_MAX_REPS	41
#define NR_MEMMAP_DESIGNS	3	/* DESIGN_OLD, DESIGN_NEW, DESIGN_NEW_NT */

struct memmap_bench {
	u64 nr_pages;					/* [o] struct pages per run */
	unsigned reps;					/* [o] runs per cell; medians below */
	bool warm;					/* [o] memmap in the cache before each run */
	u64 init[NR_MEMMAP_BENCH_KINDS][NR_MEMMAP_DESIGNS]; /* [o] cycles per run */
	u64 memset_cycles;				/* [o] memset() of the same bytes */
	u64 stream_cycles;				/* [o] movnti of the same bytes + sfence */
	u64 stores_cycles;				/* [o] 8 ordinary 8-byte stores per page */
	/*
	 * Paired: run r of old against run r of each template design
	 * (DESIGN_NEW, DESIGN_NEW_NT), per kind; the DESIGN_OLD column stays 0.
	 */
	unsigned wins[NR_MEMMAP_BENCH_KINDS][NR_MEMMAP_DESIGNS];   /* [o] runs it was faster */
	unsigned losses[NR_MEMMAP_BENCH_KINDS][NR_MEMMAP_DESIGNS]; /* [o] slower (ties: neither) */
	u64 ratio_permille[NR_MEMMAP_BENCH_KINDS][NR_MEMMAP_DESIGNS]; /* [o] median old/it, x1000 */
	/* [o] each median above with its runs' min and max (lib/median.h) */
	struct bench_stats init_st[NR_MEMMAP_BENCH_KINDS][NR_MEMMAP_DESIGNS];
	struct bench_stats memset_st, stream_st, stores_st;	/* [o] */
	/* memmap_init_bench()'s cells: every run's cycles, kept here (the
	 * caller's, about 4.6 KiB) rather than in a file-level array [o] */
	struct {
		u64 t[NR_MEMMAP_BENCH_KINDS][NR_MEMMAP_DESIGNS][MEMMAP_BENCH_MAX_REPS];
		u64 ratio[MEMMAP_BENCH_MAX_REPS];
		u64 set[MEMMAP_BENCH_MAX_REPS], stream[MEMMAP_BENCH_MAX_REPS];
		u64 stores[MEMMAP_BENCH_MAX_REPS];
	} cells;
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

/* ---- auto_movable_stats (tests/bench/bench_automovable.c, `bench automovable`) */

/*
 * auto_movable_bench() - the benchmark of `bench automovable` and of the
 * host's bench-automovable: the check as the policy makes it (all nodes, then
 * node i % ask_nodes for the i-th check), `calls` checks per round with the
 * walk and with the cache, `rounds` rounds (at most
 * AUTO_MOVABLE_BENCH_MAX_ROUNDS) taking turns at going first, so one
 * disturbed round moves nothing.  *walk and *cached: the cycles of a
 * round, median and spread over the rounds.  The switch is left as it
 * was.  Returns 0, or the error of switching auto_movable_stats to a design
 * (mech_override(); *walk and *cached are then not written).
 * Context: (main).
 */
#define AUTO_MOVABLE_BENCH_MAX_ROUNDS	15
int auto_movable_bench(int ask_nodes, unsigned rounds, unsigned calls, struct bench_stats *walk,
		       struct bench_stats *cached);

#endif

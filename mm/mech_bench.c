/*
 * mech_bench.c - the measurements of the four mechanisms, old design
 * against new in one run: the cores that the shell's `bench NAME`
 * (shell/cmd_bench.c) and the host benchmarks (tests/bench/) both run, so
 * host and QEMU numbers mean the same.  The mechanism files keep only the
 * mechanisms; a benchmark that needs one design runs it through
 * mech_override()/mech_restore() or an explicit _design() twin
 * (mm/internal.h).
 *
 *   memmap_init_bench()   memmap init, per page vs template vs template-nt,
 *                         beside memset, a movnti stream and 8-byte stores
 *   auto_movable_bench()  the auto-movable online check, walk vs cache
 *
 * (bench zone_contig and bench free_contig_range time whole hotplug and
 * allocation operations, which only the shell has; they are
 * shell/cmd_bench.c and tests/bench/bench_zone_contig.c,
 * tests/bench/bench_free_contig_range.c.)
 *
 * Context: (main).  Cycles are mm_cycles(): compare ratios.
 */
#include "buddy_internal.h"
#include "internal.h"
#include <mm/mech_bench.h>
#include <mm/memmap_init.h>
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <lib/errno.h>
#include <lib/median.h>
#include <lib/string.h>

/* ---- memmap_init: per page vs template vs template-nt -------------------- */

/*
 * A pass over a large range is cut into sections (32768 struct pages, 2
 * MiB of memmap), each timed on its own, with a checkpoint between two:
 * the shell's job may pause there, so the console answers during a pass
 * over 256 GiB, and the pass's cycles are the sum of its sections' (the
 * pauses left out).  A pass of up to BENCH_WHOLE_MAX struct pages (64
 * sections, 8 GiB of RAM described: every size `make bench` measures) is
 * one timed call, as it always was: cut, a warm pass would measure
 * something else (on the host, libc's memset() of the whole range takes
 * non-temporal stores above a cache-sized threshold, of a section not).
 * A stop request seen between sections is kept in *stop and acted on
 * after the run.
 */
#define BENCH_WHOLE_MAX	(64 * (u64)PAGES_PER_SECTION)

/* The struct pages of one timed part of a pass over nr_pages. */
static u64 bench_chunk(u64 nr_pages)
{
	return nr_pages <= BENCH_WHOLE_MAX ? nr_pages : (u64)PAGES_PER_SECTION;
}

/*
 * bench_prepare() - put the range's memmap in the same cache state before
 * every timed run, whatever ran before it.  Cold: overwritten by a movnti
 * stream, which leaves no line of it in the cache and none dirty, as a
 * freshly populated memmap meets memmap init at hotplug or boot.  Warm:
 * written with memset(), so a range smaller than the cache sits in it,
 * dirty, and the run measures the CPU's cost rather than the memory's.
 * Without this, whichever design ran right after a movnti pass started
 * with a clean cache and won by up to 10% on memory-bound sizes.
 */
static void bench_prepare(struct page *first, u64 nr_pages, bool warm, bool *stop)
{
	u64 chunk = bench_chunk(nr_pages);

	for (u64 i = 0; i < nr_pages; i += chunk) {
		u64 nr = MIN(chunk, nr_pages - i);

		if (warm)
			memset(first + i, 0x5a, (size_t)nr * sizeof(struct page));
		else
			memmap_stream_pattern(first + i, nr, 0x5a5a5a5a5a5a5a5aULL);
		*stop |= mech_bench_checkpoint();
	}
}

/* One section of a run of one kind with one design. */
static void bench_init_chunk(enum memmap_bench_kind kind, enum mech_design d, u64 pfn, u64 nr,
			     int nid, void *owner)
{
	switch (kind) {
	case MEMMAP_BENCH_NORMAL:
		memmap_init_range_design(pfn, pfn + nr, ZONE_MOVABLE, nid, MIGRATE_MOVABLE, d);
		break;
	case MEMMAP_BENCH_DEV_4K:
		memmap_init_zone_device_design(pfn, nr, nid, 0, owner, d);
		break;
	default:
		memmap_init_zone_device_design(pfn, nr, nid, pageblock_order, owner, d);
		break;
	}
}

/* One run of one kind with one design; its cycles, section by section. */
static u64 bench_run(enum memmap_bench_kind kind, enum mech_design d, u64 start_pfn,
		     u64 nr_pages, int nid, void *owner, bool warm, bool *stop)
{
	u64 cycles = 0, chunk = bench_chunk(nr_pages);

	bench_prepare(pfn_to_page(start_pfn), nr_pages, warm, stop);
	for (u64 i = 0; i < nr_pages; i += chunk) {
		u64 nr = MIN(chunk, nr_pages - i), t0 = mm_cycles();

		bench_init_chunk(kind, d, start_pfn + i, nr, nid, owner);
		cycles += mm_cycles() - t0;
		if (i + nr < nr_pages)
			*stop |= mech_bench_checkpoint();
	}
	return cycles;
}

/*
 * The three ways of writing the same 64 bytes per struct page that the
 * designs are measured against: memset() (the kernel's rep stosq, libc's on
 * the host: wide stores inside the CPU), a movnti stream + sfence, and a
 * loop of eight ordinary 8-byte stores of constant words (the template's
 * own instructions without the lru refresh: the most general-register
 * code can do).
 */
enum bench_limit_kind { LIMIT_MEMSET, LIMIT_STREAM, LIMIT_STORES };

/* One run of a limit; its cycles, section by section as bench_run(). */
static u64 bench_limit(struct page *first, u64 nr_pages, enum bench_limit_kind kind, unsigned r,
		       bool warm, bool *stop)
{
	u64 pattern = 0x0101010101010101ULL * (r + 1);
	u64 cycles = 0, chunk = bench_chunk(nr_pages);

	bench_prepare(first, nr_pages, warm, stop);
	for (u64 i = 0; i < nr_pages; i += chunk) {
		u64 nr = MIN(chunk, nr_pages - i), t0 = mm_cycles();

		if (kind == LIMIT_STREAM) {
			memmap_stream_pattern(first + i, nr, pattern);
		} else if (kind == LIMIT_STORES) {
			memmap_fill_pattern(first + i, nr, pattern);
		} else {
			memset(first + i, (int)(r + 1), (size_t)nr * sizeof(struct page));
			__asm__ volatile("" : : "r"(first) : "memory");
		}
		cycles += mm_cycles() - t0;
		if (i + nr < nr_pages)
			*stop |= mech_bench_checkpoint();
	}
	return cycles;
}

/*
 * The one-sided sign test: the probability, in 1/2^reps units summed, of
 * at least `wins` wins out of reps fair coin tosses.  Returned as a
 * per-mille value (integer: no floating point in the kernel).
 */
static unsigned sign_test_permille(unsigned wins, unsigned reps)
{
	u64 tail = 0, c = 1;	/* c = C(reps, k) as k counts up */

	for (unsigned k = 0; k <= reps; k++) {
		if (k >= wins)
			tail += c;
		c = c * (reps - k) / (k + 1);
	}
	return (unsigned)((tail * 1000 + (1ULL << reps) / 2) >> reps);
}

enum memmap_bench_verdict memmap_bench_verdict(const struct memmap_bench *b, int kind,
					   enum mech_design d)
{
	if (sign_test_permille(b->wins[kind][d], b->reps) < 50)
		return MEMMAP_BENCH_FASTER;
	if (sign_test_permille(b->losses[kind][d], b->reps) < 50)
		return MEMMAP_BENCH_SLOWER;
	return MEMMAP_BENCH_NO_DIFFERENCE;
}

static bool (*bench_checkpoint)(void);	/* [m] */

/* Contract in mech_bench.h. */
void mech_bench_set_checkpoint(bool (*fn)(void))
{
	bench_checkpoint = fn;
}

/* Contract in mech_bench.h.  Callers ask between runs, or between the
 * separately timed parts of one. */
bool mech_bench_checkpoint(void)
{
	return bench_checkpoint && bench_checkpoint();
}


/* The paired statistics of one kind: per run, old against template design d. */
static void bench_pairs(struct memmap_bench *b, int k, enum mech_design d)
{
	unsigned wins = 0, losses = 0;

	for (unsigned r = 0; r < b->reps; r++) {
		u64 old = b->cells.t[k][DESIGN_OLD][r], nw = b->cells.t[k][d][r];

		wins += nw < old;
		losses += nw > old;
		b->cells.ratio[r] = nw ? old * 1000 / nw : 0;
	}
	b->wins[k][d] = wins;
	b->losses[k][d] = losses;
	b->ratio_permille[k][d] = median_u64(b->cells.ratio, b->reps);
}

int memmap_init_bench(u64 start_pfn, u64 nr_pages, int nid, unsigned reps, bool warm,
		      struct memmap_bench *b)
{
	struct page *first = pfn_to_page(start_pfn);
	bool stop = false;	/* asked between sections: acted on after the run */

	if (!nr_pages || !IS_ALIGNED(start_pfn, pageblock_nr_pages) ||
	    !IS_ALIGNED(nr_pages, pageblock_nr_pages))
		return -EINVAL;
	reps = MIN(MAX(reps, 1u), (unsigned)MEMMAP_BENCH_MAX_REPS);
	memset(b, 0, sizeof(*b));
	b->nr_pages = nr_pages;
	b->reps = reps;
	b->warm = warm;
	for (u64 i = 0; i < nr_pages; i += bench_chunk(nr_pages)) {	/* first touch out of the way */
		memset(first + i, 0, (size_t)MIN(bench_chunk(nr_pages), nr_pages - i) * sizeof(struct page));
		stop |= mech_bench_checkpoint();
	}

	for (unsigned r = 0; r < reps; r++) {
		/* the designs take turns at going first: no fixed order effect;
		 * pauses between two sections and two passes (each timed
		 * alone), a stop only after the whole run */
		for (int k = 0; k < NR_MEMMAP_BENCH_KINDS; k++)
			for (int i = 0; i < NR_MEMMAP_DESIGNS; i++) {
				int d = (int)((i + r) % NR_MEMMAP_DESIGNS);

				b->cells.t[k][d][r] = bench_run((enum memmap_bench_kind)k,
							     (enum mech_design)d, start_pfn,
							     nr_pages, nid, b, warm, &stop);
				stop |= mech_bench_checkpoint();
			}
		b->cells.set[r] = bench_limit(first, nr_pages, LIMIT_MEMSET, r, warm, &stop);
		stop |= mech_bench_checkpoint();
		b->cells.stream[r] = bench_limit(first, nr_pages, LIMIT_STREAM, r, warm, &stop);
		stop |= mech_bench_checkpoint();
		b->cells.stores[r] = bench_limit(first, nr_pages, LIMIT_STORES, r, warm, &stop);
		if (r + 1 < reps && (mech_bench_checkpoint() || stop)) {
			reps = r + 1;	/* Ctrl-C: report the runs done */
			b->reps = reps;
		}
	}
	for (int k = 0; k < NR_MEMMAP_BENCH_KINDS; k++) {
		bench_pairs(b, k, DESIGN_NEW);
		bench_pairs(b, k, DESIGN_NEW_NT);
		for (int d = 0; d < NR_MEMMAP_DESIGNS; d++) {
			b->init_st[k][d] = bench_stats_of(b->cells.t[k][d], reps);
			b->init[k][d] = b->init_st[k][d].median;
		}
	}
	b->memset_st = bench_stats_of(b->cells.set, reps);
	b->stream_st = bench_stats_of(b->cells.stream, reps);
	b->stores_st = bench_stats_of(b->cells.stores, reps);
	b->memset_cycles = b->memset_st.median;
	b->stream_cycles = b->stream_st.median;
	b->stores_cycles = b->stores_st.median;
	/* leave a valid memmap behind, not the stream's pattern */
	memmap_init_range_design(start_pfn, start_pfn + nr_pages, ZONE_MOVABLE, nid,
				 MIGRATE_MOVABLE, DESIGN_NEW);
	return 0;
}

/* x / y with two decimals, as "12.34" (no floating point in the kernel). */
static void print_fixed2(struct printer *p, const char *fmt_width, u64 x, u64 y)
{
	u64 v = y ? (x * 100 + y / 2) / y : 0;
	char buf[32];
	struct buf_printer bp;

	buf_printer_init(&bp, buf, sizeof(buf));
	pr_printf(&bp.p, "%llu.%02llu", (unsigned long long)(v / 100), (unsigned long long)(v % 100));
	pr_printf(p, fmt_width, buf);
}

/* The spread of a median, as "+-3.1%", through fmt. */
static void print_spread(struct printer *p, const char *fmt, const struct bench_stats *s)
{
	unsigned permille = bench_spread_permille(s);
	char buf[24];
	struct buf_printer bp;

	buf_printer_init(&bp, buf, sizeof(buf));
	pr_printf(&bp.p, BENCH_SPREAD_FMT, BENCH_SPREAD_ARGS(permille));
	pr_printf(p, fmt, buf);
}

static const char *const verdict_words[] = {
	[MEMMAP_BENCH_FASTER] = "faster",
	[MEMMAP_BENCH_NO_DIFFERENCE] = "no significant difference",
	[MEMMAP_BENCH_SLOWER] = "SLOWER",
};

void memmap_bench_print(const struct memmap_bench *b, struct printer *p)
{
	static const char *const kind_names[] = {
		[MEMMAP_BENCH_NORMAL] = "normal (Movable)",
		[MEMMAP_BENCH_DEV_4K] = "device 4 KiB",
		[MEMMAP_BENCH_DEV_2M] = "device 2 MiB",
	};
	u64 n = b->nr_pages, lo, hi;

	pr_printf(p, "memmap init: %llu struct pages (%llu KiB of memmap), %s, median of %u runs\n",
		  (unsigned long long)n, (unsigned long long)(n * sizeof(struct page) >> 10),
		  b->warm ? "warm (memmap in the cache)" : "cold (memmap out of the cache)", b->reps);
	pr_printf(p, "cycles per struct page     old   template template-nt   old/new   old/nt"
		  "  new/memset  nt/stream\n");
	for (int k = 0; k < NR_MEMMAP_BENCH_KINDS; k++) {
		pr_printf(p, "  %-17s", kind_names[k]);
		for (int d = 0; d < NR_MEMMAP_DESIGNS; d++)
			print_fixed2(p, d ? " %10s" : " %7s", b->init[k][d], n);
		print_fixed2(p, " %8sx", b->ratio_permille[k][DESIGN_NEW], 1000);
		print_fixed2(p, " %7sx", b->ratio_permille[k][DESIGN_NEW_NT], 1000);
		print_fixed2(p, " %10sx", b->init[k][DESIGN_NEW], b->memset_cycles);
		print_fixed2(p, " %9sx\n", b->init[k][DESIGN_NEW_NT], b->stream_cycles);
	}
	pr_printf(p, "  limit: memset          ");
	print_fixed2(p, "%s cycles/page (64 bytes per struct page)\n", b->memset_cycles, n);
	pr_printf(p, "  limit: movnti stream   ");
	print_fixed2(p, "%s cycles/page\n", b->stream_cycles, n);
	pr_printf(p, "  limit: 8-byte stores   ");
	print_fixed2(p, "%s cycles/page (8 constant words per struct page; template ", b->stores_cycles, n);
	lo = hi = b->init[0][DESIGN_NEW];
	for (int k = 1; k < NR_MEMMAP_BENCH_KINDS; k++) {
		lo = MIN(lo, b->init[k][DESIGN_NEW]);
		hi = MAX(hi, b->init[k][DESIGN_NEW]);
	}
	print_fixed2(p, "%s-", lo, b->stores_cycles);
	print_fixed2(p, "%sx of it)\n", hi, b->stores_cycles);
	pr_printf(p, "  spread of each median, old template template-nt (half of max - min, %% of the median):\n");
	for (int k = 0; k < NR_MEMMAP_BENCH_KINDS; k++) {
		pr_printf(p, "    %-16s", kind_names[k]);
		for (int d = 0; d < NR_MEMMAP_DESIGNS; d++)
			print_spread(p, d ? " %10s" : " %6s", &b->init_st[k][d]);
		pr_printf(p, "\n");
	}
	pr_printf(p, "    %-16s", "limits");
	print_spread(p, " memset %s", &b->memset_st);
	print_spread(p, "  stream %s", &b->stream_st);
	print_spread(p, "  stores %s\n", &b->stores_st);
	pr_printf(p, "  old/new and old/nt are medians of the %u paired runs' ratios; sign tests:\n",
		  b->reps);
	for (int k = 0; k < NR_MEMMAP_BENCH_KINDS; k++)
		for (int d = DESIGN_NEW; d < NR_MEMMAP_DESIGNS; d++) {
			const char *name = d == DESIGN_NEW ? "template" : "template-nt";
			unsigned p_faster = sign_test_permille(b->wins[k][d], b->reps);
			enum memmap_bench_verdict v = memmap_bench_verdict(b, k, (enum mech_design)d);

			pr_printf(p, "  %-17s %s faster in %u of %u runs (p=%u.%03u): %s%s%s\n",
				  kind_names[k], name, b->wins[k][d], b->reps, p_faster / 1000,
				  p_faster % 1000, v == MEMMAP_BENCH_NO_DIFFERENCE ? "" : name,
				  v == MEMMAP_BENCH_NO_DIFFERENCE ? "" : " ", verdict_words[v]);
		}
}

/* ---- auto_movable_stats: zone walk vs cached sums ------------------------- */

/*
 * The cycles of `calls` checks with design d, as the policy makes them,
 * into *cycles; 0, or mech_override()'s error (nothing run).
 */
static int auto_movable_bench_round(enum mech_design d, int ask_nodes, unsigned calls, u64 *cycles)
{
	enum mech_design saved;
	volatile bool sink = false;
	int nid = 0, err;
	u64 t0;

	err = mech_override(MECH_AUTO_MOVABLE_STATS, d, &saved);
	if (err)
		return err;
	if (d == DESIGN_NEW)
		auto_movable_stats_resync();	/* from the truth, as every round */
	t0 = mm_cycles();
	for (unsigned i = 0; i < calls; i++) {
		sink ^= auto_movable_can_online_movable(NUMA_NO_NODE, NULL, 32768) &&
			auto_movable_can_online_movable(nid, NULL, 32768);
		nid = nid + 1 == ask_nodes ? 0 : nid + 1;	/* no division in the loop */
	}
	*cycles = mm_cycles() - t0;
	mech_restore(MECH_AUTO_MOVABLE_STATS, saved);
	return 0;
}

int auto_movable_bench(int ask_nodes, unsigned rounds, unsigned calls, struct bench_stats *walk,
		       struct bench_stats *cached)
{
	u64 w[AUTO_MOVABLE_BENCH_MAX_ROUNDS], c[AUTO_MOVABLE_BENCH_MAX_ROUNDS], warm;
	int err;

	rounds = MIN(MAX(rounds, 1u), (unsigned)AUTO_MOVABLE_BENCH_MAX_ROUNDS);
	ask_nodes = MAX(ask_nodes, 1);
	/* one untimed round of each first: caches, and under TCG the translation */
	err = auto_movable_bench_round(DESIGN_OLD, ask_nodes, calls, &warm);
	if (!err)
		err = auto_movable_bench_round(DESIGN_NEW, ask_nodes, calls, &warm);
	for (unsigned r = 0; !err && r < rounds; r++) {
		if (r & 1) {
			err = auto_movable_bench_round(DESIGN_NEW, ask_nodes, calls, &c[r]);
			if (!err)
				err = auto_movable_bench_round(DESIGN_OLD, ask_nodes, calls, &w[r]);
		} else {
			err = auto_movable_bench_round(DESIGN_OLD, ask_nodes, calls, &w[r]);
			if (!err)
				err = auto_movable_bench_round(DESIGN_NEW, ask_nodes, calls, &c[r]);
		}
		if (!err && r + 1 < rounds && mech_bench_checkpoint())
			rounds = r + 1;	/* Ctrl-C: the medians of the rounds done */
	}
	if (err)
		return err;
	*walk = bench_stats_of(w, rounds);
	*cached = bench_stats_of(c, rounds);
	return 0;
}

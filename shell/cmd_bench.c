/*
 * cmd_bench.c - `bench NAME`: the in-kernel measurement of each of the
 * four mechanisms, old design against new in one run, each named for what
 * it measures:
 *
 *   bench zone_contig [series]        onlining blocks into a growing zone:
 *                                     pageblock walk vs counter (alias
 *                                     `bench contig`)
 *   bench memmap_init START SIZE [REPS] [warm]
 *                                     memmap init per page vs template vs
 *                                     template-nt (alias `devmem bench`)
 *   bench free_contig_range [NR] [REPS]
 *                                     free_contig_range page by page vs
 *                                     prepared + chunks (alias `contig bench`)
 *   bench automovable                 the auto-movable online check, zone
 *                                     walk vs cached sums
 *   bench touch SIZE [ADDR]           the first touch of SIZE bytes of
 *                                     fresh memory: the floor of hot-add
 *
 * The measuring cores shared with the host benchmarks are mm/mech_bench.c;
 * designs are switched only through mech_override()/mech_restore() (the
 * explicit _design() twins are mm's own, mm/internal.h).  Under TCG,
 * cycles are the TSC's: compare ratios.  Context: (main).
 */
#include <mm/mech_bench.h>
#include <mm/deferred_init.h>
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <mm/mmzone.h>
#include <mm/memremap.h>
#include <mm/contig_alloc.h>
#include <lib/median.h>
#include <lib/asciiplot.h>
#include <shell/args.h>
#include <shell/shell.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <kernel/time.h>
#include "mm_bench.h"

#define BENCH_MAX_BLOCKS	1024
#define FREE_BENCH_MAX_REPS	31

static struct memory_block *bench_blocks[BENCH_MAX_BLOCKS];
static u64 bench_cost[BENCH_MAX_BLOCKS];
static u64 bench_cost_old[BENCH_MAX_BLOCKS];	/* the old design's, kept for the chart */

/*
 * Online the blocks in order, recording each cost; returns 0, the first
 * error (the blocks onlined so far stay online), or -EINTR when the user
 * asked to stop (after a block).  The job may pause between two blocks:
 * each online is timed on its own, so a pause costs no block anything.
 */
static int online_all(unsigned n, u64 *total, u64 *steps)
{
	*total = 0;
	for (unsigned i = 0; i < n; i++) {
		u64 t0 = cycles_now();
		int err = memory_block_online(bench_blocks[i], MMOP_ONLINE_MOVABLE);

		bench_cost[i] = cycles_now() - t0;
		*total += bench_cost[i];
		if (err)
			return err;
		shell_progress(++*steps, 4ULL * n, "block onlines/offlines");
		if (shell_checkpoint())
			return -EINTR;
	}
	return 0;
}

/*
 * Offline the blocks that are online again, last first; returns 0 or the
 * first error, after trying every block (a refused one stays online, and
 * the caller must say so).  It pauses between blocks but never stops:
 * the blocks must go back offline.  Context: the bench's job.
 */
static int offline_all(unsigned n, u64 *steps)
{
	int first_err = 0;

	for (unsigned i = n; i-- > 0;) {
		int err = bench_blocks[i]->state == MEM_ONLINE ? memory_block_offline(bench_blocks[i]) : 0;

		if (err && !first_err)
			first_err = err;
		shell_progress(++*steps, 4ULL * n, "block onlines/offlines");
		shell_checkpoint();
	}
	return first_err;
}

/* The blocks of the bench left online, by id, after an offline failed. */
static void print_left_online(struct printer *out, const char *cmd, unsigned n)
{
	pr_printf(out, "%s: offlining failed; left online:", cmd);
	for (unsigned i = 0; i < n; i++)
		if (bench_blocks[i]->state != MEM_OFFLINE)
			pr_printf(out, " memory%lu", bench_blocks[i]->block_id);
	pr_printf(out, "\n");
}

/* The median and spread of bench_cost[from, from + n). */
static struct bench_stats edge_cost(unsigned from, unsigned n)
{
	static u64 tmp[BENCH_MAX_BLOCKS];

	memcpy(tmp, bench_cost + from, n * sizeof(u64));
	return bench_stats_of(tmp, n);
}

/* One design's line; returns its last/first ratio in hundredths. */
static u64 report(struct printer *out, const char *name, unsigned n, u64 total, u64 walked)
{
	unsigned edge = n >= 16 ? n / 8 : 1;
	struct bench_stats fs = edge_cost(0, edge), ls = edge_cost(n - edge, edge);
	u64 first = fs.median, last = ls.median;
	unsigned fsp = bench_spread_permille(&fs), lsp = bench_spread_permille(&ls);

	pr_printf(out, "  %-4s %12llu cycles, first %u blocks %9llu " BENCH_SPREAD_FMT ", last %u %9llu "
		  BENCH_SPREAD_FMT " "
		  "cycles/block, last/first %llu.%02llu, %llu pageblocks walked\n", name,
		  (unsigned long long)total, edge, (unsigned long long)first, BENCH_SPREAD_ARGS(fsp),
		  edge, (unsigned long long)last, BENCH_SPREAD_ARGS(lsp),
		  (unsigned long long)(last / MAX(first, 1ULL)),
		  (unsigned long long)(last * 100 / MAX(first, 1ULL) % 100),
		  (unsigned long long)walked);
	return last * 100 / MAX(first, 1ULL);
}

/*
 * The per-block series of both designs: the chart (lib/asciiplot.c), and
 * with `series` every block's cost, one line each, for tools that plot
 * it (make bench writes it as CSV).
 */
static void print_series(struct printer *out, unsigned n, bool rows)
{
	struct asciiplot_series s[2] = {
		{ "old (pageblock walk)", 'o', bench_cost_old },
		{ "new (counter)", 'n', bench_cost },
	};

	pr_printf(out, "  cost of each online, in the order the zone grew:\n");
	asciiplot(out, "cycles/block", "block", s, 2, n, 64, 12);
	if (!rows)
		return;
	pr_printf(out, "  series: block old new (cycles to online it)\n");
	for (unsigned i = 0; i < n; i++)
		pr_printf(out, "  series %u %llu %llu\n", i, (unsigned long long)bench_cost_old[i],
			  (unsigned long long)bench_cost[i]);
}

/*
 * The lesson of bench zone_contig is the old walk's growth: each online
 * walks the whole zone, so block k costs 64 * k pageblock checks more
 * than the first.  With few blocks that growth is lost in each online's
 * fixed cost (the memmap of 32768 pages); say so rather than let a 0.9x
 * look like a result.
 */
#define ZONE_CONTIG_MIN_BLOCKS	32	/* 4 GiB */

static void warn_too_small(struct printer *out, const char *cmd, unsigned n, u64 old_growth)
{
	if (n >= ZONE_CONTIG_MIN_BLOCKS && old_growth >= 150)
		return;
	pr_printf(out, "  %s: warning: %s; the old walk's growth cannot show: hot-add a DIMM of "
		  "%u MiB or more (offline) and run it again\n", cmd,
		  n < ZONE_CONTIG_MIN_BLOCKS ? "only a few blocks to online" :
		  "the old design's last/first is below 1.5 (a noisy or small setup)",
		  ZONE_CONTIG_MIN_BLOCKS * (unsigned)(MEMORY_BLOCK_SIZE >> 20));
}

/* The rounds of `bench contig`: the offline hot-added blocks onlined and
 * offlined under contig_check old, then new.  Context: (main). */
static int zone_contig_rounds(struct printer *out, const char *cmd, bool rows)
{
	unsigned long id = 0;
	unsigned n = 0;
	u64 total_old = 0, total_new = 0, w0, walked_old, old_growth = 0, steps = 0;
	enum mech_design saved, was_old;
	struct memory_block *mem;
	char head[64];
	int err, off_err;

	for (; (mem = memory_block_next(&id)) && n < BENCH_MAX_BLOCKS; id++)
		if (mem->state == MEM_OFFLINE && !mem->early &&
		    !devmem_intersects(mem->block_id * PAGES_PER_MEMORY_BLOCK, PAGES_PER_MEMORY_BLOCK))
			bench_blocks[n++] = mem;
	if (n < 2) {
		pr_printf(out, "%s: needs offline hot-added blocks: set\n"
			  "  echo offline > /sys/devices/system/memory/auto_online_blocks\n"
			  "and hot-add a DIMM (e.g. 4 GiB) from QMP first; found %u\n", cmd, n);
		return -ENODEV;
	}
	ksnprintf(head, sizeof(head), "%s: ", cmd);
	if (shell_range_busy(out, bench_blocks[0]->block_id * MEMORY_BLOCK_SIZE,
			     (bench_blocks[n - 1]->block_id + 1) * MEMORY_BLOCK_SIZE, head,
			     "the blocks", false))
		return -EBUSY;
	/* the blocks are the bench's until it ends: state writes are refused */
	shell_claim_range(bench_blocks[0]->block_id * MEMORY_BLOCK_SIZE,
			  (bench_blocks[n - 1]->block_id + 1) * MEMORY_BLOCK_SIZE);
	pr_printf(out, "%s: online %u offline blocks one after another into ZONE_MOVABLE\n", cmd, n);
	/* each round's onlines and offlines with its design; then as it was */
	err = mech_override(MECH_CONTIG_CHECK, DESIGN_OLD, &saved);
	if (err) {
		pr_printf(out, "%s: cannot switch contig_check to old: %s; nothing onlined\n", cmd,
			  err_text(err));
		return err;
	}
	w0 = zone_contig_walk_steps;
	err = online_all(n, &total_old, &steps);
	walked_old = zone_contig_walk_steps - w0;
	off_err = offline_all(n, &steps);
	if (!err && !off_err) {
		old_growth = report(out, "old", n, total_old, walked_old);
		memcpy(bench_cost_old, bench_cost, n * sizeof(u64));
		err = mech_override(MECH_CONTIG_CHECK, DESIGN_NEW, &was_old);
		if (err) {
			mech_restore(MECH_CONTIG_CHECK, saved);
			pr_printf(out, "%s: cannot switch contig_check to new: %s; the blocks are offline again\n",
				  cmd, err_text(err));
			return err;
		}
		w0 = zone_contig_walk_steps;
		err = online_all(n, &total_new, &steps);
		off_err = offline_all(n, &steps);
		if (!err && !off_err)
			report(out, "new", n, total_new, zone_contig_walk_steps - w0);
	}
	mech_restore(MECH_CONTIG_CHECK, saved);
	if (off_err) {
		print_left_online(out, cmd, n);
		return off_err;
	}
	if (err == -EINTR) {
		pr_printf(out, "%s: interrupted: the blocks are offline again\n", cmd);
		return err;
	}
	if (err) {
		pr_printf(out, "%s: online failed: %s; blocks left offline\n", cmd, err_text(err));
		return err;
	}
	pr_printf(out, "  old/new total: %llu.%02llux\n",
		  (unsigned long long)(total_old / MAX(total_new, 1ULL)),
		  (unsigned long long)(total_old * 100 / MAX(total_new, 1ULL) % 100));
	print_series(out, n, rows);
	warn_too_small(out, cmd, n, old_growth);
	return 0;
}

/*
 * bench automovable: auto_movable_bench() over AUTOMOVABLE_ROUNDS rounds,
 * asking node 0 after all nodes; the medians per check.
 */
#define AUTOMOVABLE_ROUNDS	7
#define AUTOMOVABLE_CALLS	20000

/* One design's line of bench automovable: cycles per check, median and spread. */
static void automovable_line(struct printer *out, const char *name, const struct bench_stats *s)
{
	unsigned sp = bench_spread_permille(s);

	pr_printf(out, "  %-6s %llu cycles/check (" BENCH_SPREAD_FMT ", %llu-%llu)\n", name,
		  (unsigned long long)(s->median / AUTOMOVABLE_CALLS), BENCH_SPREAD_ARGS(sp),
		  (unsigned long long)(s->min / AUTOMOVABLE_CALLS),
		  (unsigned long long)(s->max / AUTOMOVABLE_CALLS));
}

static int bench_automovable(struct printer *out)
{
	struct bench_stats t_old, t_new;
	int nodes = 0, nid, err;

	for_each_online_node(nid)
		nodes++;
	err = auto_movable_bench(1, AUTOMOVABLE_ROUNDS, AUTOMOVABLE_CALLS, &t_old, &t_new);
	if (err) {
		pr_printf(out, "bench automovable: cannot switch auto_movable_stats: %s\n", err_text(err));
		return err;
	}
	pr_printf(out, "bench automovable: %d online node(s), %u rounds of %u checks each, medians\n",
		  nodes, t_old.n, AUTOMOVABLE_CALLS);
	automovable_line(out, "walk", &t_old);
	automovable_line(out, "cached", &t_new);
	pr_printf(out, "  speedup %llu.%02llux\n",
		  (unsigned long long)(t_old.median / MAX(t_new.median, 1ULL)),
		  (unsigned long long)(t_old.median * 100 / MAX(t_new.median, 1ULL) % 100));
	return 0;
}

/* num/den with two decimals, into buf. */
static const char *bench_fixed2(char *buf, size_t size, u64 num, u64 den)
{
	u64 hundredths = den ? (num * 100 + den / 2) / den : 0;

	ksnprintf(buf, size, "%llu.%02llu", (unsigned long long)(hundredths / 100),
		  (unsigned long long)(hundredths % 100));
	return buf;
}

/* ---- bench free_contig_range: page by page vs prepared + chunks -------------- */

static int bench_free_contig_range(struct printer *out, const char *cmd, u64 nr, unsigned reps)
{
	static u64 t[5][FREE_BENCH_MAX_REPS];
	static const char *const names[5] = {
		"old (page by page, pcp)", "new (prepare + chunks)", "frozen old", "frozen new",
		"memset 64 B/page (limit)",
	};
	bool trace = mech_tracing(MECH_CONTIG_FREE);
	u64 pfn, bytes = nr * sizeof(struct page), med[5], khz = tsc_khz();
	struct bench_stats st[5];
	unsigned scratch_order = 0;
	struct page *scratch;
	char b1[24], b2[24];
	int mt, err = 0;

	while ((PAGE_SIZE << scratch_order) < bytes && scratch_order < MAX_PAGE_ORDER)
		scratch_order++;
	scratch = alloc_pages(GFP_KERNEL | __GFP_NOWARN, scratch_order);
	if (!scratch) {
		pr_printf(out, "%s: no memory for the memset buffer\n", cmd);
		return -ENOMEM;
	}
	err = contig_pick_range(out, cmd, nr, false, &pfn, &mt);
	if (err)
		goto out_scratch;
	shell_claim_range(PFN_PHYS(pfn), PFN_PHYS(pfn + nr));	/* held by the bench */
	mech_set_trace(MECH_CONTIG_FREE, false);
	for (unsigned r = 0; r < reps && !err; r++) {
		u8 *mem = mm_phys_to_virt(page_to_phys(scratch));
		u64 left = bytes, t0;

		/* The range is allocated (refcount 1) at the top of each round. */
		err = contig_free_timed(out, cmd, pfn, nr, false, DESIGN_OLD, NULL, &t[0][r]);
		if (!err)
			err = contig_realloc_range(out, cmd, pfn, nr, mt, false);
		if (err)
			break;
		err = contig_free_timed(out, cmd, pfn, nr, false, DESIGN_NEW, NULL, &t[1][r]);
		if (!err)
			err = contig_realloc_range(out, cmd, pfn, nr, mt, true);
		if (err)
			break;
		err = contig_free_timed(out, cmd, pfn, nr, true, DESIGN_OLD, NULL, &t[2][r]);
		if (!err)
			err = contig_realloc_range(out, cmd, pfn, nr, mt, true);
		if (err)
			break;
		err = contig_free_timed(out, cmd, pfn, nr, true, DESIGN_NEW, NULL, &t[3][r]);
		if (!err)
			err = contig_realloc_range(out, cmd, pfn, nr, mt, false);
		t0 = cycles_now();
		while (left) {
			u64 n = MIN(left, (u64)(PAGE_SIZE << scratch_order));

			memset(mem, (int)r, n);
			left -= n;
		}
		t[4][r] = cycles_now() - t0;
		shell_progress(r + 1, reps, "rounds");
		/* a pause here: the range is allocated, the bench's own */
		if (!err && r + 1 < reps && shell_checkpoint()) {
			pr_printf(out, "%s: interrupted after %u of %u rounds: their medians\n", cmd,
				  r + 1, reps);
			reps = r + 1;	/* the range is allocated again: the end frees it */
		}
	}
	mech_set_trace(MECH_CONTIG_FREE, trace);
	if (err)
		goto out_scratch;	/* the range is free: realloc (or a switch) failed after a free */
	free_contig_range(pfn, nr);

	for (unsigned i = 0; i < 5; i++) {
		st[i] = bench_stats_of(t[i], reps);
		med[i] = st[i].median;
	}
	pr_printf(out, "%s: free_contig_range of %llu pages at pfn 0x%llx (%s, zone %s), median of %u runs\n",
		  cmd, (unsigned long long)nr, (unsigned long long)pfn, migratetype_name(mt),
		  page_zone(pfn_to_page(pfn))->name, reps);
	pr_printf(out, "  %-26s %12s %12s %8s\n", "", "cycles/page", "us/range", "spread");
	for (unsigned i = 0; i < 5; i++) {
		unsigned sp = bench_spread_permille(&st[i]);

		pr_printf(out, "  %-26s %12s %12s   " BENCH_SPREAD_FMT "\n", names[i],
			  bench_fixed2(b1, sizeof(b1), med[i], nr),
			  khz ? bench_fixed2(b2, sizeof(b2), med[i] * 1000, khz) : "?",
			  BENCH_SPREAD_ARGS(sp));
	}
	pr_printf(out, "  (spread: half of the rounds' max - min, %% of the median)\n");
	pr_printf(out, "  speedup new/old %sx, frozen new/old %sx",
		  bench_fixed2(b1, sizeof(b1), med[0], med[1]), bench_fixed2(b2, sizeof(b2), med[2], med[3]));
	pr_printf(out, ", new/limit %sx (published: 1406 -> 402 us, 3.50x)\n",
		  bench_fixed2(b1, sizeof(b1), med[1], med[4]));
out_scratch:
	free_pages(scratch, scratch_order);
	return err;
}

int bench_free_contig_range_cmd(struct printer *out, const char *cmd, int argc, char **argv)
{
	u64 nr = 16384, reps = 5;

	if (argc > 2)
		return shell_usage(out, shell_find("bench"));
	if (argc >= 1 && contig_parse_pages(out, cmd, argv[0], CONTIG_MAX_PAGES, &nr))
		return -EINVAL;
	if (argc == 2 && contig_parse_pages(out, cmd, argv[1], FREE_BENCH_MAX_REPS, &reps))
		return -EINVAL;
	return bench_free_contig_range(out, cmd, nr, (unsigned)reps);
}

/* ---- bench memmap_init: per page vs template vs template-nt --------------------- */

int bench_memmap_init_cmd(struct printer *out, const char *cmd, int argc, char **argv)
{
	static struct memmap_bench b;
	u64 start, size, reps = 5;
	bool warm = argc > 2 && !strcmp(argv[argc - 1], "warm");
	int nargs = argc - warm;	/* the arguments before "warm" */
	char head[64], what[64];
	int err;

	if (nargs != 2 && nargs != 3) {
		pr_printf(out, "usage: %s START SIZE [REPS] [warm]\n", cmd);
		return -EINVAL;
	}
	if (shell_arg_u64(out, cmd, "address", argv[0], 0, (1ULL << MAX_PHYSMEM_BITS) - 1,
			  "MAX_PHYSMEM_BITS", &start) ||
	    shell_arg_u64(out, cmd, "size", argv[1], 1, 1ULL << MAX_PHYSMEM_BITS,
			  "MAX_PHYSMEM_BITS", &size) ||
	    (nargs == 3 && shell_arg_u64(out, cmd, "reps", argv[2], 1, MEMMAP_BENCH_MAX_REPS,
					 "MEMMAP_BENCH_MAX_REPS", &reps)))
		return -EINVAL;
	if (size > (1ULL << MAX_PHYSMEM_BITS) - start) {
		pr_printf(out, "%s: [%#llx, +%llu MiB) runs past the end of physical memory\n", cmd,
			  (unsigned long long)start, (unsigned long long)(size >> 20));
		return -EINVAL;
	}
	ksnprintf(head, sizeof(head), "%s: ", cmd);
	ksnprintf(what, sizeof(what), "[%#llx-%#llx)", (unsigned long long)start,
		  (unsigned long long)(start + size));
	if (shell_range_busy(out, start, start + size, head, what, false))
		return -EBUSY;
	/* the blocks' memmap is the bench's until it ends: onlining them is refused */
	shell_claim_range(start, start + size);
	err = devmem_bench(start, size, (unsigned)reps, warm, &b);
	if (err) {
		pr_printf(out, "%s [%#llx-%#llx): %s (see the log line above)\n", cmd,
			  (unsigned long long)start, (unsigned long long)(start + size), err_text(err));
		return err;
	}
	memmap_bench_print(&b, out);
	pr_printf(out, "  (TSC %llu kHz; the memmap is poisoned again: the blocks stay offline)\n",
		  (unsigned long long)tsc_khz());
	return 0;
}

/* ---- bench touch: the floor of hot-add ---------------------------------------- */

#define TOUCH_CHUNK_ORDER	9			/* 2 MiB, a memory block's memmap */
#define TOUCH_MAX_CHUNKS	8192			/* 16 GiB */
static struct page *touch_chunks[TOUCH_MAX_CHUNKS];
static u64 touch_ns[TOUCH_MAX_CHUNKS];	/* each chunk's write, for the median */

/*
 * bench touch SIZE: allocate SIZE bytes in 2 MiB chunks (what add_memory
 * takes for each block's memmap) and time writing each once with
 * ordinary 8-byte stores (touch_chunk()),
 * then free them.  Right after a plug the buddy hands out memory nobody
 * has touched, so this is the first touch of as many bytes as the memmap
 * of SIZE * 64 bytes of hot-added memory: the floor a plug is measured
 * against (`make bench`).  Ctrl-C stops after the chunk being written.
 */
/*
 * Write a chunk once with ordinary 8-byte stores, as a memmap init does
 * (a struct page is 8 of them); a value that differs per word, so the
 * compiler cannot make a memset of it (under TCG rep stos runs one
 * iteration at a time, far slower than the stores).
 */
static void touch_chunk(u64 *p, u64 seed)
{
	for (u64 i = 0; i < (PAGE_SIZE << TOUCH_CHUNK_ORDER) / sizeof(u64); i++)
		p[i] = seed + i;
	__asm__ volatile("" : : "r"(p) : "memory");
}

static int bench_touch_cmd(struct printer *out, int argc, char **argv)
{
	const u64 chunk = PAGE_SIZE << TOUCH_CHUNK_ORDER;
	u64 size, addr = 0, n, got = 0, written = 0, ns, taken;
	struct contig_alloc_report r;
	struct bench_stats chunk_st;
	char what[64];
	unsigned sp;
	int err = 0;

	if (argc != 1 && argc != 2)
		return shell_usage(out, shell_find("bench"));
	if (shell_arg_u64(out, "bench touch", "size", argv[0], chunk,
			  (u64)TOUCH_MAX_CHUNKS * chunk, "16 GiB", &size) ||
	    (argc == 2 && shell_arg_u64(out, "bench touch", "address", argv[1], 0,
					(1ULL << MAX_PHYSMEM_BITS) - size, "MAX_PHYSMEM_BITS", &addr)))
		return -EINVAL;
	n = (size + chunk - 1) >> (TOUCH_CHUNK_ORDER + PAGE_SHIFT);
	if (argc == 2) {
		/* exactly this range: memory known to be fresh (the top of a plug) */
		if (addr % chunk) {
			pr_printf(out, "bench touch: address %#llx is not 2 MiB aligned\n",
				  (unsigned long long)addr);
			return -EINVAL;
		}
		ksnprintf(what, sizeof(what), "[%#llx, +%llu MiB)", (unsigned long long)addr,
			  (unsigned long long)(n * chunk >> 20));
		if (shell_range_busy(out, addr, addr + n * chunk, "bench touch: ", what, false))
			return -EBUSY;
		shell_claim_range(addr, addr + n * chunk);
		err = contig_take(PHYS_PFN(addr), n * chunk >> PAGE_SHIFT, false, &r, &taken);
		if (err) {
			pr_printf(out, "bench touch: [%#llx, +%llu MiB) cannot be taken: %s%s%s\n",
				  (unsigned long long)addr, (unsigned long long)(n * chunk >> 20),
				  err_text(err), err == -EINTR ? "" : ": ", err == -EINTR ? "" : r.why);
			return err;
		}
		for (; got < n; got++)
			touch_chunks[got] = pfn_to_page(PHYS_PFN(addr + got * chunk));
	} else {
		for (; got < n; got++) {
			touch_chunks[got] = alloc_pages(GFP_KERNEL | __GFP_NOWARN, TOUCH_CHUNK_ORDER);
			if (!touch_chunks[got])
				break;
		}
	}
	if (got < n) {
		pr_printf(out, "bench touch: only %llu of %llu chunks of 2 MiB free\n",
			  (unsigned long long)got, (unsigned long long)n);
		err = -ENOMEM;
		goto out;
	}
	/* the time is the chunks' own: a pause between two of them is not in it */
	ns = 0;
	for (; written < n; written++) {
		u64 c0 = ktime_ns();

		touch_chunk(mm_phys_to_virt(page_to_phys(touch_chunks[written])), written);
		touch_ns[written] = ktime_ns() - c0;
		ns += touch_ns[written];
		shell_progress(written + 1, n, "chunks of 2 MiB");
		if (shell_checkpoint()) {
			written++;
			break;
		}
	}
	chunk_st = bench_stats_of(touch_ns, (unsigned)written);
	pr_printf(out, "bench touch: %llu MiB written once (8-byte stores, 2 MiB chunks) in %llu.%03llu ms, %llu MiB/s%s\n",
		  (unsigned long long)(written * chunk >> 20),
		  (unsigned long long)(ns / 1000000), (unsigned long long)(ns / 1000 % 1000),
		  (unsigned long long)(ns ? written * chunk * 1000 / ns * 1000000 >> 20 : 0),
		  written < n ? " (interrupted)" : "");
	sp = bench_spread_permille(&chunk_st);
	pr_printf(out, "  per 2 MiB chunk: median %llu us " BENCH_SPREAD_FMT " (%llu-%llu us over %llu chunks)\n",
		  (unsigned long long)(chunk_st.median / 1000), BENCH_SPREAD_ARGS(sp),
		  (unsigned long long)(chunk_st.min / 1000), (unsigned long long)(chunk_st.max / 1000),
		  (unsigned long long)written);
out:
	if (argc == 2)
		free_contig_range(PHYS_PFN(addr), n * (chunk >> PAGE_SHIFT));
	else
		while (got)
			free_pages(touch_chunks[--got], TOUCH_CHUNK_ORDER);
	return err;
}

/*
 * bench_zone_contig() - the rounds of `bench contig` with every online
 * eager: a block onlined with its memmap pending (deferred_init_hotplug,
 * the default) leaves its zone not contiguous until the section is
 * initialised, so the old design's walk would stop at its first pageblock
 * and the figures would not show what the walk costs.  The knob is back
 * as it was afterwards.  Context: (main).
 */
static int bench_zone_contig(struct printer *out, const char *cmd, bool rows)
{
	bool lazy = deferred_init_hotplug_get();
	int err;

	deferred_init_hotplug_set(false);
	err = zone_contig_rounds(out, cmd, rows);
	deferred_init_hotplug_set(lazy);
	return err;
}

static int cmd_bench(struct printer *out, int argc, char **argv)
{
	if ((argc == 2 || (argc == 3 && !strcmp(argv[2], "series"))) &&
	    (!strcmp(argv[1], "zone_contig") || !strcmp(argv[1], "contig")))
		return bench_zone_contig(out, !strcmp(argv[1], "contig") ? "bench contig" :
					 "bench zone_contig", argc == 3);
	if (argc == 2 && !strcmp(argv[1], "automovable"))
		return bench_automovable(out);
	if (argc >= 2 && !strcmp(argv[1], "free_contig_range"))
		return bench_free_contig_range_cmd(out, "bench free_contig_range", argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "touch"))
		return bench_touch_cmd(out, argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "memmap_init"))
		return bench_memmap_init_cmd(out, "bench memmap_init", argc - 2, argv + 2);
	return shell_usage(out, shell_find("bench"));
}

SHELL_COMMAND(bench, .name = "bench",
	      .usage = "bench zone_contig [series] | memmap_init START SIZE [REPS] [warm] | "
		       "free_contig_range [NR] [REPS] | automovable | touch SIZE [ADDR]",
	      .summary = "measure each mechanism, old vs new design, in one run",
	      .help = "zone_contig: online every offline hot-added memory block one after\n"
		      "  another with the pageblock walk, offline them, then again with the\n"
		      "  counter; prints total cycles, the cost of the first vs the last\n"
		      "  blocks (median +- half their range) and a chart of every block's\n"
		      "  cost (the walk grows with the zone, the counter stays flat);\n"
		      "  \"series\" adds one line per block.\n"
		      "  Needs a DIMM added with auto_online_blocks=offline.  (alias: contig)\n"
		      "memmap_init: every memmap init design over offline blocks [START,\n"
		      "  START+SIZE) (normal, device 4 KiB, device 2 MiB) beside a memset and\n"
		      "  a movnti stream of the same bytes, REPS runs (default 5), the memmap\n"
		      "  cold before each run or \"warm\".  (alias: devmem bench)\n"
		      "free_contig_range: free NR pages (default 16384; the CMA area if any)\n"
		      "  page by page vs prepared + chunks, refcounted and frozen, REPS rounds\n"
		      "  (default 5): median cycles/page and ratios.  (alias: contig bench)\n"
		      "automovable: the auto-movable online check, zone walk vs cache.\n"
		      "touch: write SIZE bytes of fresh memory once (2 MiB chunks from the\n"
		      "  buddy, or exactly [ADDR, ADDR+SIZE) taken with alloc_contig_range):\n"
		      "  the floor of a hot-add whose memmap is that size.",
	      .fn = cmd_bench,
	      .runs_long = shell_always_long);

/*
 * cmd_contig.c - contiguous ranges and CMA from the shell: the commands
 * `cma` and `contig`, with the live equivalence check of the two
 * free_contig_range() designs (`contig compare`).  The CMA files are
 * views/cma.c; the benchmark (`bench free_contig_range`, alias
 * `contig bench`) is shell/cmd_bench.c.
 *
 * `cma alloc N` and `cma release N` do what writing N to the CMA area's
 * debugfs files alloc and free does (those files: views/cma.c).
 *
 * Commands:
 *   cma                      the areas: range, zone, counters, allocations
 *   cma alloc N              as `echo N > .../alloc`
 *   cma release N|all        as `echo N > .../free`
 *   contig alloc START NR [frozen]   alloc_contig_range() on any range
 *   contig free START NR     free_contig_range() of (part of) such a range
 *   contig list              the ranges `contig alloc` handed out
 *   contig compare [NR] [frozen]     old vs new design, live (see below)
 *   contig bench [NR] [REPS] alias of `bench free_contig_range` (cmd_bench.c)
 * `contig free` only accepts pages that `contig alloc` handed out: freeing
 * pages some other part of the kernel owns would corrupt it.
 *
 * contig compare.  The live version of the host tests' proof: take a range
 * of NR pages (in the CMA area when there is one, else anywhere movable),
 * free it with the old design, drain the pcp lists, snapshot the window of
 * the range rounded out to 1024 pages (free blocks as (pfn, order,
 * migratetype), zone counters, a digest of the struct pages); allocate the
 * same range again, free it with the new design, drain, snapshot; compare.
 * Nothing else runs in between (one CPU, a shell command), so both frees
 * start from the same state.
 *
 * Context: (main).
 */
#include <lib/errno.h>
#include <lib/median.h>
#include <lib/printk.h>
#include <shell/args.h>
#include <shell/shell.h>
#include "internal.h"
#include <lib/string.h>
#include <kernel/time.h>
#include <mm/cma.h>
#include <mm/contig_alloc.h>
#include "mm_bench.h"

#define NO_PFN			(~0ULL)
#define CONTIG_MAX_COMPARE	65536	/* pages: the window's blocks fit the buffers */

/* ---- numbers --------------------------------------------------------------- */

/* A page count from the shell: a number, 1 .. max; prints why not. */
int contig_parse_pages(struct printer *out, const char *cmd, const char *arg, u64 max, u64 *nr)
{
	return shell_arg_u64(out, cmd, "page count", arg, 1, max, NULL, nr) ? -EINVAL : 0;
}

/* ---- cma ------------------------------------------------------------------------ */

static struct cma *active_area(struct printer *out, const char *cmd)
{
	if (cma_area_count && cma_areas[0].active)
		return &cma_areas[0];
	pr_printf(out, "%s: no CMA area: boot with cma=SIZE (e.g. cma=64M)%s\n", cmd,
		  cma_area_count ? "; cma0 could not be activated (see the boot log)" : "");
	return NULL;
}

static int cmd_cma(struct printer *out, int argc, char **argv)
{
	struct cma *cma;
	char why[200];
	u64 count;
	int err;

	if (argc == 1) {
		if (!cma_area_count) {
			pr_printf(out, "cma: no CMA area: boot with cma=SIZE (e.g. cma=64M)\n");
			return 0;
		}
		for (unsigned i = 0; i < cma_area_count; i++)
			cma_dump(&cma_areas[i], out);
		pr_printf(out, "releases use the %s free_contig_range design (mech contig_free)\n",
			  mech_design_name(contig_free_design()));
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "alloc") && strcmp(argv[1], "release")))
		return shell_usage(out, shell_find("cma"));
	cma = active_area(out, "cma");
	if (!cma)
		return -ENODEV;
	if (!strcmp(argv[1], "release") && !strcmp(argv[2], "all")) {
		count = cma_debug_allocated(cma);
		if (!count) {
			pr_printf(out, "cma release: nothing to release: `cma alloc` holds no pages\n");
			return 0;
		}
	} else if (contig_parse_pages(out, argv[1][0] == 'a' ? "cma alloc" : "cma release", argv[2],
			       ~0ULL >> PAGE_SHIFT, &count)) {
		return -EINVAL;
	}
	if (!strcmp(argv[1], "alloc")) {
		u64 base = PFN_PHYS(cma->base_pfn), end = PFN_PHYS(cma->base_pfn + cma->count);
		char what[64];

		ksnprintf(what, sizeof(what), "memory of %s", cma->name);
		if (shell_range_busy(out, base, end, "cma alloc: ", what, false))
			return -EBUSY;
		shell_claim_range(base, end);	/* the job's while it runs */
		err = cma_debug_alloc(cma, count, why, sizeof(why));
		if (err) {
			pr_printf(out, "cma alloc: %s (%s)\n", why, err_text(err));
			return err;
		}
		pr_printf(out, "%s: allocated %llu pages (%llu KiB) at pfn 0x%llx; used %llu of %llu pages\n",
			  cma->name, (unsigned long long)count,
			  (unsigned long long)(count << (PAGE_SHIFT - 10)),
			  (unsigned long long)cma->mem[cma->nr_mem - 1].pfn,
			  (unsigned long long)cma_used_pages(cma), (unsigned long long)cma->count);
		return 0;
	}
	err = cma_debug_free(cma, count, why, sizeof(why));
	if (err) {
		pr_printf(out, "cma release: %s (%s); nothing released\n", why, err_text(err));
		return err;
	}
	pr_printf(out, "%s: released %llu pages (%s design); used %llu of %llu pages\n", cma->name,
		  (unsigned long long)count, mech_design_name(contig_free_design()),
		  (unsigned long long)cma_used_pages(cma), (unsigned long long)cma->count);
	return 0;
}

/* `cma alloc` is long (alloc_contig_range of up to the whole area). */
static bool cma_runs_long(int argc, char **argv)
{
	return argc == 3 && !strcmp(argv[1], "alloc");
}

SHELL_COMMAND(cma, .name = "cma", .usage = "cma [alloc N | release N|all]",
	      .summary = "the CMA area: status, allocate and release like Linux's CMA debugfs",
	      .help = "Boot with cma=SIZE (e.g. cma=64M) to reserve an area.  `cma alloc N`\n"
		      "is `echo N > /sys/kernel/debug/cma/cma0/alloc`: cma_alloc() of N pages\n"
		      "(movable tenants are migrated out); `cma release N` releases N pages,\n"
		      "newest allocation first, with free_contig_range() in the design that\n"
		      "`mech contig_free` selects.  See also /sys/kernel/mm/cma/cma0/.\n"
		      "`cma alloc` runs as a job (`help jobs`): it takes the range 128 MiB\n"
		      "at a time, and Ctrl-C between two pieces frees what it took.",
	      .fn = cmd_cma,
	      .runs_long = cma_runs_long);

/* ---- contig alloc / free / list ------------------------------------------------------ */

struct contig_range contig_ranges[CONTIG_MAX_RANGES];

static const char *step_words(const char *step)
{
	if (!strcmp(step, "check"))
		return "checking the range";
	if (!strcmp(step, "isolate"))
		return "isolating its pageblocks";
	if (!strcmp(step, "migrate"))
		return "migrating its movable pages away";
	if (!strcmp(step, "test"))
		return "testing that every page is free";
	return "checking the arguments";
}

static struct contig_range *range_slot(void)
{
	for (unsigned i = 0; i < CONTIG_MAX_RANGES; i++)
		if (!contig_ranges[i].nr_pages)
			return &contig_ranges[i];
	return NULL;
}

/* Pages per alloc_contig_range() call of `contig alloc` (128 MiB). */
#define CONTIG_ALLOC_PIECE	32768ull

/* Contract in mm_bench.h. */
int contig_take(u64 start, u64 nr, bool frozen, struct contig_alloc_report *r, u64 *taken)
{
	u64 migrated = 0;
	int err = 0;

	*taken = 0;
	for (u64 pfn = start; pfn < start + nr;) {
		u64 end = MIN(start + nr, ALIGN_DOWN(pfn + CONTIG_ALLOC_PIECE, MAX_ORDER_NR_PAGES));

		err = alloc_contig_range_explain(pfn, end, MIGRATE_MOVABLE, __GFP_NOWARN, frozen, r);
		if (err)
			break;
		migrated += r->migrated;
		pfn = end;
		*taken = end - start;
		shell_progress(*taken, nr, "pages");
		if (end < start + nr && shell_checkpoint()) {
			err = -EINTR;
			break;
		}
	}
	if (err && *taken)
		free_contig_range_stats(start, *taken, frozen, NULL);
	r->migrated = migrated;
	return err;
}

static int contig_alloc_cmd(struct printer *out, u64 start, u64 nr, bool frozen)
{
	struct contig_range *slot = range_slot();
	struct contig_alloc_report r;
	struct page *page;
	char head[64];
	u64 taken;
	int err;

	if (!slot) {
		pr_printf(out, "contig alloc: %d ranges are held already: free one first\n",
			  CONTIG_MAX_RANGES);
		return -ENOSPC;
	}
	ksnprintf(head, sizeof(head), "contig alloc: [0x%llx-0x%llx): ", (unsigned long long)start,
		  (unsigned long long)(start + nr));
	if (shell_range_busy(out, PFN_PHYS(start), PFN_PHYS(start + nr), head, "that memory", false))
		return -EBUSY;
	/* while it runs, the range is the job's: state writes there are refused */
	shell_claim_range(PFN_PHYS(start), PFN_PHYS(start + nr));
	err = contig_take(start, nr, frozen, &r, &taken);
	if (err == -EINTR) {
		pr_printf(out, "contig alloc: interrupted after %llu of %llu pages: they are freed again\n",
			  (unsigned long long)taken, (unsigned long long)nr);
		return err;
	}
	if (err) {
		pr_printf(out, "contig alloc: [0x%llx-0x%llx): %s while %s: %s\n",
			  (unsigned long long)start, (unsigned long long)(start + nr),
			  err_text(err), step_words(r.step), r.why);
		return err;
	}
	*slot = (struct contig_range){ start, nr, frozen };
	page = pfn_to_page(start);
	pr_printf(out, "contig: allocated [0x%llx-0x%llx) %llu pages (%llu KiB) in zone %s of node %d, %s; %llu pages migrated away\n",
		  (unsigned long long)start, (unsigned long long)(start + nr), (unsigned long long)nr,
		  (unsigned long long)(nr << (PAGE_SHIFT - 10)), page_zone(page)->name,
		  page_to_nid(page), frozen ? "frozen (refcount 0)" : "refcount 1 each",
		  (unsigned long long)r.migrated);
	return 0;
}

static int contig_free_cmd(struct printer *out, u64 start, u64 nr)
{
	struct contig_free_stats st;
	struct contig_range *r = NULL, *rest = NULL;
	enum mech_design design = contig_free_design();
	u64 end = start + nr;

	for (unsigned i = 0; i < CONTIG_MAX_RANGES; i++) {
		struct contig_range *c = &contig_ranges[i];

		if (c->nr_pages && c->pfn <= start && end <= c->pfn + c->nr_pages)
			r = c;
	}
	if (!r) {
		pr_printf(out, "contig free: [0x%llx-0x%llx) was not handed out by `contig alloc` (see `contig list`); nothing freed\n",
			  (unsigned long long)start, (unsigned long long)end);
		return -EINVAL;
	}
	if (r->pfn < start && end < r->pfn + r->nr_pages) {
		rest = range_slot();	/* the part after the hole needs its own slot */
		if (!rest) {
			pr_printf(out, "contig free: splitting the range needs a free slot (%d held)\n",
				  CONTIG_MAX_RANGES);
			return -ENOSPC;
		}
	}
	free_contig_range_stats(start, nr, r->frozen, &st);
	if (rest)
		*rest = (struct contig_range){ end, r->pfn + r->nr_pages - end, r->frozen };
	if (r->pfn == start) {
		r->pfn = end;
		r->nr_pages -= nr;
	} else {
		r->nr_pages = start - r->pfn;
	}
	pr_printf(out, "contig: freed [0x%llx-0x%llx) with the %s design: %llu pages freed",
		  (unsigned long long)start, (unsigned long long)end, mech_design_name(design),
		  (unsigned long long)st.freed);
	if (design == DESIGN_OLD)
		pr_printf(out, " one by one through the per-CPU lists");
	else
		pr_printf(out, " in %llu chunks (largest order %u)", (unsigned long long)st.inserts,
			  st.max_order);
	if (st.in_use || st.bad)
		pr_printf(out, "; %llu still in use, %llu bad (see the log)", (unsigned long long)st.in_use,
			  (unsigned long long)st.bad);
	pr_printf(out, "\n");
	return 0;
}

static void contig_list(struct printer *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < CONTIG_MAX_RANGES; i++) {
		const struct contig_range *c = &contig_ranges[i];

		if (!c->nr_pages)
			continue;
		pr_printf(out, "[0x%llx-0x%llx) %llu pages%s\n", (unsigned long long)c->pfn,
			  (unsigned long long)(c->pfn + c->nr_pages), (unsigned long long)c->nr_pages,
			  c->frozen ? " frozen" : "");
		n++;
	}
	pr_printf(out, "%u ranges held by `contig alloc`; free_contig_range design: %s\n", n,
		  mech_design_name(contig_free_design()));
}

/* ---- picking a range for compare and bench (shell/mm_bench.h) ------------------------------------------- */

/*
 * Allocate nr pages (refcounted or frozen) for a measurement: in the CMA
 * area if one has room (the bitmap is not claimed: nothing else runs until
 * the range is free again), else wherever alloc_contig_pages() finds them.
 */
int contig_pick_range(struct printer *out, const char *cmd, u64 nr, bool frozen, u64 *pfn, int *mt)
{
	struct contig_alloc_report r;
	struct page *page;

	if (cma_area_count && cma_areas[0].active) {
		u64 p = cma_first_free_range(&cma_areas[0], nr);

		if (p != NO_PFN && !alloc_contig_range_explain(p, p + nr, MIGRATE_CMA, __GFP_NOWARN,
							       frozen, &r)) {
			*pfn = p;
			*mt = MIGRATE_CMA;
			return 0;
		}
	}
	page = alloc_contig_pages(nr, __GFP_MOVABLE, NUMA_NO_NODE, frozen);
	if (!page) {
		pr_printf(out, "%s: no range of %llu free or movable pages found (CMA area or any zone)\n",
			  cmd, (unsigned long long)nr);
		return -ENOMEM;
	}
	*pfn = page_to_pfn(page);
	*mt = MIGRATE_MOVABLE;
	return 0;
}

int contig_realloc_range(struct printer *out, const char *cmd, u64 pfn, u64 nr, int mt, bool frozen)
{
	struct contig_alloc_report r;
	int err = alloc_contig_range_explain(pfn, pfn + nr, mt, __GFP_NOWARN, frozen, &r);

	if (err)
		pr_printf(out, "%s: allocating [0x%llx-0x%llx) again failed (%s while %s: %s)\n", cmd,
			  (unsigned long long)pfn, (unsigned long long)(pfn + nr), err_text(err),
			  step_words(r.step), r.why);
	return err;
}

/* Contract in shell/mm_bench.h. */
int contig_free_timed(struct printer *out, const char *cmd, u64 pfn, u64 nr, bool frozen,
		      enum mech_design d, struct contig_free_stats *st, u64 *cycles)
{
	enum mech_design saved;
	int err = mech_override(MECH_CONTIG_FREE, d, &saved);
	u64 t0;

	if (err) {
		pr_printf(out, "%s: cannot switch contig_free to %s: %s; the range is freed\n", cmd,
			  mech_design_name(d), err_text(err));
		free_contig_range_stats(pfn, nr, frozen, st);
		return err;
	}
	t0 = cycles_now();
	free_contig_range_stats(pfn, nr, frozen, st);
	*cycles = cycles_now() - t0;
	mech_restore(MECH_CONTIG_FREE, saved);
	return 0;
}

/* ---- contig compare ----------------------------------------------------------------- */

static int contig_compare(struct printer *out, u64 nr, bool frozen)
{
	const unsigned buf_order = 6;	/* 256 KiB: 16384 blocks each */
	const unsigned max_blocks = (unsigned)((PAGE_SIZE << buf_order) / sizeof(struct contig_block));
	struct contig_free_stats st_old, st_new;
	struct contig_snapshot a, b;
	struct page *buf_a, *buf_b;
	u64 pfn, ws, we, m0, d0, t_old, t_new, merges_old, drains_old;
	bool trace = mech_tracing(MECH_CONTIG_FREE);
	struct zone *zone;
	char why[200];
	int mt, err, differ;

	buf_a = alloc_pages(GFP_KERNEL | __GFP_NOWARN, buf_order);
	buf_b = alloc_pages(GFP_KERNEL | __GFP_NOWARN, buf_order);
	if (!buf_a || !buf_b) {
		pr_printf(out, "contig compare: no memory for the two snapshots (2 x %llu KiB)\n",
			  (unsigned long long)((PAGE_SIZE << buf_order) >> 10));
		err = -ENOMEM;
		goto out;
	}
	err = contig_pick_range(out, "contig compare", nr, frozen, &pfn, &mt);
	if (err)
		goto out;
	/*
	 * The last pause: from the old design's free to the second snapshot
	 * nothing else may run, or the two frees would not start from the
	 * same state.  (At most CONTIG_MAX_COMPARE pages: a bounded stretch.)
	 */
	if (shell_checkpoint()) {
		free_contig_range_stats(pfn, nr, frozen, NULL);
		pr_printf(out, "contig compare: interrupted before the frees: the %llu pages are free\n",
			  (unsigned long long)nr);
		err = -EINTR;
		goto out;
	}
	zone = page_zone(pfn_to_page(pfn));
	ws = ALIGN_DOWN(pfn, MAX_ORDER_NR_PAGES);
	we = ALIGN_UP(pfn + nr, MAX_ORDER_NR_PAGES);
	mech_set_trace(MECH_CONTIG_FREE, false);

	pcp_drain_zone(zone);
	m0 = zone->ev.merges;
	d0 = zone->ev.pcp_drains;
	err = contig_free_timed(out, "contig compare", pfn, nr, frozen, DESIGN_OLD, &st_old, &t_old);
	if (err)
		goto out_trace;
	pcp_drain_zone(zone);
	merges_old = zone->ev.merges - m0;
	drains_old = zone->ev.pcp_drains - d0;
	contig_snapshot_take(&a, zone, ws, we, mm_phys_to_virt(page_to_phys(buf_a)), max_blocks);
	if (shell_stop_requested()) {	/* asks; never pauses */
		pr_printf(out, "contig compare: interrupted after the old design's free: the %llu pages are free\n",
			  (unsigned long long)nr);
		err = -EINTR;
		goto out_trace;
	}

	err = contig_realloc_range(out, "contig compare", pfn, nr, mt, frozen);
	if (err)
		goto out_trace;
	pcp_drain_zone(zone);
	m0 = zone->ev.merges;
	d0 = zone->ev.pcp_drains;
	err = contig_free_timed(out, "contig compare", pfn, nr, frozen, DESIGN_NEW, &st_new, &t_new);
	if (err)
		goto out_trace;
	pcp_drain_zone(zone);
	contig_snapshot_take(&b, zone, ws, we, mm_phys_to_virt(page_to_phys(buf_b)), max_blocks);

	pr_printf(out, "contig compare: %llu %spages at pfn 0x%llx (%s, zone %s), window [0x%llx-0x%llx)\n",
		  (unsigned long long)nr, frozen ? "frozen " : "", (unsigned long long)pfn,
		  migratetype_name(mt), zone->name, (unsigned long long)a.start_pfn,
		  (unsigned long long)a.end_pfn);
	pr_printf(out, "  old: %llu pages freed one by one: %llu merges, %llu pcp drains, %llu cycles\n",
		  (unsigned long long)st_old.freed, (unsigned long long)merges_old,
		  (unsigned long long)drains_old, (unsigned long long)t_old);
	pr_printf(out, "  new: %llu pages freed in %llu chunks (largest order %u): %llu merges, %llu pcp drains, %llu cycles\n",
		  (unsigned long long)st_new.freed, (unsigned long long)st_new.inserts, st_new.max_order,
		  (unsigned long long)(zone->ev.merges - m0), (unsigned long long)(zone->ev.pcp_drains - d0),
		  (unsigned long long)t_new);
	differ = contig_snapshot_compare(&a, &b, why, sizeof(why));
	if (!differ && (st_old.freed != st_new.freed || st_old.bad != st_new.bad ||
			st_old.in_use != st_new.in_use)) {
		ksnprintf(why, sizeof(why), "the calls freed %llu/%llu pages", (unsigned long long)st_old.freed,
			  (unsigned long long)st_new.freed);
		differ = 1;
	}
	if (differ) {
		pr_printf(out, "  DIFFERENT: %s (first: old, second: new)\n", why);
		err = -EIO;
	} else {
		pr_printf(out, "  free lists (%u blocks in the window, as (pfn, order, migratetype)), zone counters, struct pages: identical\n",
			  a.nr_blocks);
	}
out_trace:
	mech_set_trace(MECH_CONTIG_FREE, trace);
out:
	if (buf_a)
		free_pages(buf_a, buf_order);
	if (buf_b)
		free_pages(buf_b, buf_order);
	return err;
}

/* ---- contig ------------------------------------------------------------------------- */

static int cmd_contig(struct printer *out, int argc, char **argv)
{
	const u64 max_pages = CONTIG_MAX_PAGES;
	u64 start, nr = 0;
	bool frozen = false;

	if (argc == 2 && !strcmp(argv[1], "list")) {
		contig_list(out);
		return 0;
	}
	if (argc >= 4 && (!strcmp(argv[1], "alloc") || !strcmp(argv[1], "free"))) {
		const char *cmd = argv[1][0] == 'a' ? "contig alloc" : "contig free";

		if (argc > 5 || (argc == 5 && (argv[1][0] != 'a' || strcmp(argv[4], "frozen"))))
			return shell_usage(out, shell_find("contig"));
		if (shell_arg_u64(out, cmd, "pfn", argv[2], 0, MAX_PFN - 1, "MAX_PHYSMEM_BITS",
				  &start))
			return -EINVAL;
		if (contig_parse_pages(out, cmd, argv[3], MIN(max_pages, MAX_PFN - start), &nr))
			return -EINVAL;
		if (argv[1][0] == 'a')
			return contig_alloc_cmd(out, start, nr, argc == 5);
		return contig_free_cmd(out, start, nr);
	}
	if (argc >= 2 && !strcmp(argv[1], "compare") && argc <= 4) {
		const char *nr_word = NULL;

		nr = 4096;
		for (int i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "frozen")) {
				frozen = true;
			} else if (nr_word) {
				pr_printf(out, "contig compare: NR given twice ('%s' and '%s'): give one\n",
					  nr_word, argv[i]);
				return -EINVAL;
			} else if (contig_parse_pages(out, "contig compare", argv[i], CONTIG_MAX_COMPARE, &nr)) {
				return -EINVAL;
			} else {
				nr_word = argv[i];
			}
		}
		return contig_compare(out, nr, frozen);
	}
	if (argc >= 2 && !strcmp(argv[1], "bench") && argc <= 4)	/* alias: bench free_contig_range */
		return bench_free_contig_range_cmd(out, "contig bench", argc - 2, argv + 2);
	return shell_usage(out, shell_find("contig"));
}

/* alloc, compare and bench run as jobs (`help jobs`); list and free are short. */
static bool contig_runs_long(int argc, char **argv)
{
	return argc >= 2 && (!strcmp(argv[1], "alloc") || !strcmp(argv[1], "compare") ||
			     !strcmp(argv[1], "bench"));
}

SHELL_COMMAND(contig, .name = "contig",
	      .usage = "contig alloc START NR [frozen] | free START NR | list | compare [NR] [frozen] | bench [NR] [REPS]",
	      .summary = "contiguous ranges: alloc_contig_range, free_contig_range old vs new",
	      .help = "alloc: alloc_contig_range(START, START+NR) on any pfn range of one zone:\n"
		      "  free pages are taken, movable allocations migrated away; an\n"
		      "  unmovable page, a reserved page or a hole fails, naming the pfn, the\n"
		      "  step and the reason, and changes nothing.  frozen: refcount 0.\n"
		      "free: free_contig_range() of a range (or part of one) from `contig\n"
		      "  alloc`, in the design `mech contig_free` selects (old: page by page\n"
		      "  through the pcp lists; new: prepared, then largest aligned chunks).\n"
		      "compare: free NR pages (default 4096; the CMA area if any) with the old\n"
		      "  design, then the same range with the new one; prints \"identical\" or\n"
		      "  the first difference in free lists, counters or struct pages.\n"
		      "bench: an alias of `bench free_contig_range [NR] [REPS]`.\n"
		      "`trace contig_free on` narrates the steps.\n"
		      "alloc, compare and bench run as jobs (`help jobs`): alloc takes a\n"
		      "range 128 MiB at a time and Ctrl-C between two pieces frees what it\n"
		      "took; compare pauses only before its first free.",
	      .fn = cmd_contig,
	      .runs_long = contig_runs_long);

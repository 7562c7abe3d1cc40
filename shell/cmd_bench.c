/*
 * cmd_bench.c - in-kernel measurements of the hotplug mechanisms, old vs
 * new in one run (`bench contig`, `bench automovable`).  The contiguous-free
 * and memmap-init benchmarks live with their mechanisms (`contig bench`,
 * `devmem bench`).  Under TCG, cycles are the TSC's: compare ratios.
 */
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <mm/mmzone.h>
#include <mm/memremap.h>
#include <shell/shell.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <kernel/time.h>

#define BENCH_MAX_BLOCKS	1024

static struct memory_block *bench_blocks[BENCH_MAX_BLOCKS];
static u64 bench_cost[BENCH_MAX_BLOCKS];

/* Online the blocks in order with one design, recording each cost;
 * returns 0 or the first error (the blocks onlined so far stay online). */
static int online_all(unsigned n, enum mech_design d, u64 *total)
{
	mechanisms[MECH_CONTIG_CHECK].design = d;
	*total = 0;
	for (unsigned i = 0; i < n; i++) {
		u64 t0 = cycles_now();
		int err = memory_block_online(bench_blocks[i], MMOP_ONLINE_MOVABLE);

		bench_cost[i] = cycles_now() - t0;
		*total += bench_cost[i];
		if (err)
			return err;
	}
	return 0;
}

/*
 * Offline the blocks that are online again, last first; returns 0 or the
 * first error, after trying every block (a refused one stays online, and
 * the caller must say so).  Context: (main).
 */
static int offline_all(unsigned n)
{
	int first_err = 0;

	for (unsigned i = n; i-- > 0;) {
		int err = bench_blocks[i]->state == MEM_ONLINE ? memory_block_offline(bench_blocks[i]) : 0;

		if (err && !first_err)
			first_err = err;
	}
	return first_err;
}

/* The blocks of the bench left online, by id, after an offline failed. */
static void print_left_online(struct printer *out, unsigned n)
{
	pr_printf(out, "bench contig: offlining failed; left online:");
	for (unsigned i = 0; i < n; i++)
		if (bench_blocks[i]->state != MEM_OFFLINE)
			pr_printf(out, " memory%lu", bench_blocks[i]->block_id);
	pr_printf(out, "\n");
}

static u64 mean_cost(unsigned from, unsigned n)
{
	u64 s = 0;

	for (unsigned i = from; i < from + n; i++)
		s += bench_cost[i];
	return n ? s / n : 0;
}

static void report(struct printer *out, const char *name, unsigned n, u64 total, u64 walked)
{
	unsigned edge = n >= 16 ? n / 8 : 1;
	u64 first = mean_cost(0, edge), last = mean_cost(n - edge, edge);

	pr_printf(out, "  %-4s %12llu cycles, first %u blocks %9llu, last %u %9llu cycles/block, "
		  "last/first %llu.%02llu, %llu pageblocks walked\n", name,
		  (unsigned long long)total, edge, (unsigned long long)first, edge,
		  (unsigned long long)last, (unsigned long long)(last / MAX(first, 1ULL)),
		  (unsigned long long)(last * 100 / MAX(first, 1ULL) % 100),
		  (unsigned long long)walked);
}

static int bench_contig(struct printer *out)
{
	enum mech_design saved = mech_design(MECH_CONTIG_CHECK);
	unsigned long id = 0;
	unsigned n = 0;
	u64 total_old = 0, total_new = 0, w0, walked_old;
	struct memory_block *mem;
	int err, off_err;

	for (; (mem = memory_block_next(&id)) && n < BENCH_MAX_BLOCKS; id++)
		if (mem->state == MEM_OFFLINE && !mem->early &&
		    !devmem_intersects(mem->block_id * PAGES_PER_MEMORY_BLOCK, PAGES_PER_MEMORY_BLOCK))
			bench_blocks[n++] = mem;
	if (n < 2) {
		pr_printf(out, "bench contig: needs offline hot-added blocks: set\n"
			  "  echo offline > /sys/devices/system/memory/auto_online_blocks\n"
			  "and hot-add a DIMM (e.g. 4 GiB) from QMP first; found %u\n", n);
		return -ENODEV;
	}
	pr_printf(out, "bench contig: online %u offline blocks one after another into ZONE_MOVABLE\n", n);
	w0 = zone_contig_walk_steps;
	err = online_all(n, DESIGN_OLD, &total_old);
	walked_old = zone_contig_walk_steps - w0;
	off_err = offline_all(n);
	if (!err && !off_err) {
		report(out, "old", n, total_old, walked_old);
		w0 = zone_contig_walk_steps;
		err = online_all(n, DESIGN_NEW, &total_new);
		off_err = offline_all(n);
		if (!err && !off_err)
			report(out, "new", n, total_new, zone_contig_walk_steps - w0);
	}
	mechanisms[MECH_CONTIG_CHECK].design = saved;
	if (off_err) {
		print_left_online(out, n);
		return off_err;
	}
	if (err) {
		pr_printf(out, "bench contig: online failed: %s; blocks left offline\n", err_text(err));
		return err;
	}
	pr_printf(out, "  old/new total: %llu.%02llux\n",
		  (unsigned long long)(total_old / MAX(total_new, 1ULL)),
		  (unsigned long long)(total_old * 100 / MAX(total_new, 1ULL) % 100));
	return 0;
}

/*
 * bench automovable: auto_movable_bench() over AUTOMOVABLE_ROUNDS rounds,
 * asking node 0 after all nodes; the medians per check.
 */
#define AUTOMOVABLE_ROUNDS	7
#define AUTOMOVABLE_CALLS	20000

static int bench_automovable(struct printer *out)
{
	u64 t_old, t_new;
	int nodes = 0, nid;

	for_each_online_node(nid)
		nodes++;
	auto_movable_bench(1, AUTOMOVABLE_ROUNDS, AUTOMOVABLE_CALLS, &t_old, &t_new);
	pr_printf(out, "bench automovable: %d online node(s), %u rounds of %u checks each, medians\n",
		  nodes, AUTOMOVABLE_ROUNDS, AUTOMOVABLE_CALLS);
	pr_printf(out, "  walk   %llu cycles/check\n  cached %llu cycles/check\n  speedup %llu.%02llux\n",
		  (unsigned long long)(t_old / AUTOMOVABLE_CALLS),
		  (unsigned long long)(t_new / AUTOMOVABLE_CALLS),
		  (unsigned long long)(t_old / MAX(t_new, 1ULL)),
		  (unsigned long long)(t_old * 100 / MAX(t_new, 1ULL) % 100));
	return 0;
}

static int cmd_bench(struct printer *out, int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "contig"))
		return bench_contig(out);
	if (argc == 2 && !strcmp(argv[1], "automovable"))
		return bench_automovable(out);
	return shell_usage(out, shell_find("bench"));
}

SHELL_COMMAND(bench, .name = "bench", .usage = "bench contig|automovable",
	      .summary = "measure the hotplug mechanisms, old vs new design, in one run",
	      .help = "bench contig: online every offline hot-added memory block one after\n"
		      "  another with the pageblock walk, offline them, then again with the\n"
		      "  counter; prints total cycles and the cost of the first vs the last\n"
		      "  blocks (the walk grows with the zone, the counter stays flat).\n"
		      "  Needs a DIMM added with auto_online_blocks=offline.\n"
		      "bench automovable: the auto-movable online check, zone walk vs cache.\n"
		      "See also `contig bench` and `devmem bench`.",
	      .fn = cmd_bench);

/*
 * bench_zone_contig.c - `make bench`: mechanism 1 (zone contiguity,
 * contig_check), old vs new design measured in one run on the host build
 * (TSC cycles; compare ratios, not absolute values); the kernel's
 * `bench zone_contig` is the same sweep over a hot-added DIMM.
 *
 * Contiguity: a simulated 2 GiB machine gets 64 GiB added offline at 4 GiB,
 * then its 512 blocks are onlined one after another into ZONE_NORMAL.  The
 * cost of each online is recorded, and the whole sweep made three times
 * (each from a fresh boot); a block's cost is its cheapest of the three, so
 * that a disturbance from the host (writeback, another process) in one
 * sweep does not pass for growth.  With the old design every online walks
 * every pageblock of the growing zone, so the per-block cost grows with the
 * zone; with the counter it stays flat.  Printed: total cycles, the median
 * cost of the first and the last 32 blocks (their ratio: the target
 * is <= 1.2 for the new design), and the pageblocks walked per sweep.  The
 * physical limit beside
 * it: initialising and freeing a block cannot be cheaper than writing its
 * 2 MiB of struct pages (memset of 32768 x 64 bytes).
 * (The auto-movable check is tests/bench/bench_automovable.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lib/median.h>
#include <mm/mech_bench.h>
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>
#include <lib/asciiplot.h>
#include "../host/mm_host.h"
#include "bench_out.h"

#define BOOT_RAM	(2 * SZ_1G)
#define HOT_BASE	SZ_4G
#define HOT_SIZE	(64 * SZ_1G)
#define NR_BLOCKS	(HOT_SIZE / MEMORY_BLOCK_SIZE)
#define EDGE		32
#define SWEEPS		3

static struct fw_memmap map;
static struct mm_boot_params bp;
static u64 cost[NR_BLOCKS];

static void boot(u64 ram_total)
{
	host_mm_reset(ram_total);
	printk_set_level(LOG_ERR);
	fw_memmap_init(&map);
	memset(&bp, 0, sizeof(bp));
	fw_memmap_add_raw(&map, SZ_1M, BOOT_RAM - SZ_1M, FW_MEM_RAM);
	fw_memmap_sanitize(&map);
	bp.memmap = &map;
	mm_core_init(&bp);
}

/* The median of n costs: one block disturbed by the host (a page fault in
 * the simulated RAM, another process) does not move it, as it would a mean. */
static double median(const u64 *v, int n)
{
	static u64 tmp[NR_BLOCKS];

	memcpy(tmp, v, (size_t)n * sizeof(*v));
	return (double)median_u64(tmp, (unsigned)n);
}

/*
 * sweep() - boot, add the 64 GiB offline, online its blocks in order; each
 * block's cost goes into cost[] if cheaper than what is there.  Returns the
 * pageblocks the contiguity walk visited, or -1 on a failure (printed).
 */
static long sweep(enum mech_design design)
{
	u64 walks0;
	unsigned long id;
	int err;

	boot(HOT_BASE + HOT_SIZE);
	mech_set(MECH_CONTIG_CHECK, design);
	err = add_memory(0, HOT_BASE, HOT_SIZE, -1, MHP_NO_AUTO_ONLINE);
	if (err) {
		printf("  add_memory failed: %d\n", err);
		return -1;
	}
	walks0 = zone_contig_walk_steps;
	for (id = 0; id < NR_BLOCKS; id++) {
		struct memory_block *mem = find_memory_block_by_id(phys_to_block_id(HOT_BASE) + id);
		u64 t0 = mm_cycles(), c;

		err = memory_block_online(mem, MMOP_ONLINE_KERNEL);
		c = mm_cycles() - t0;
		if (err) {
			printf("  online of block %lu failed: %d\n", id, err);
			return -1;
		}
		if (c < cost[id])
			cost[id] = c;
	}
	return (long)(zone_contig_walk_steps - walks0);
}

static void stdout_write(struct printer *p, const char *s, size_t len)
{
	fwrite(s, 1, len, stdout);
}

static struct printer out = { stdout_write };

/* The stats of cost[from, from + n): median and spread. */
static struct bench_stats edge_stats(unsigned long from, unsigned n)
{
	static u64 tmp[NR_BLOCKS];

	memcpy(tmp, cost + from, n * sizeof(u64));
	return bench_stats_of(tmp, n);
}

static void bench_contig(enum mech_design design, u64 *series, FILE *csv)
{
	u64 total = 0;
	struct bench_stats fs, ls;
	double first, last;
	long walked = 0;

	memset(cost, 0xff, sizeof(cost));
	for (int s = 0; s < SWEEPS; s++) {
		walked = sweep(design);
		if (walked < 0)
			return;
	}
	for (unsigned long id = 0; id < NR_BLOCKS; id++)
		total += cost[id];
	fs = edge_stats(0, EDGE);
	ls = edge_stats(NR_BLOCKS - EDGE, EDGE);
	first = (double)fs.median;
	last = (double)ls.median;
	bench_figure(csv, "first 32 blocks", mech_design_name(design), &fs, 1, "cycles/block");
	bench_figure(csv, "last 32 blocks", mech_design_name(design), &ls, 1, "cycles/block");
	printf("  %-4s %12.0f cycles total, first %d blocks %9.0f +-%.1f%%, last %d blocks %9.0f +-%.1f%% "
	       "cycles/block, last/first %5.2f%s, %ld pageblocks walked\n",
	       mech_design_name(design), (double)total, EDGE, first, bench_spread_pct(&fs), EDGE, last,
	       bench_spread_pct(&ls), last / first,
	       design == DESIGN_NEW ? (last / first <= 1.2 ? " (target <= 1.2: met)" :
				       " (target <= 1.2: NOT met)") : "",
	       walked);
	/* the series: total time to online 1, 4, 16, 64 GiB, and the cost of
	 * the block that brought the zone to that size */
	printf("       ");
	for (u64 gib = 1; gib <= HOT_SIZE / SZ_1G; gib *= 4) {
		u64 blocks = gib * SZ_1G / MEMORY_BLOCK_SIZE, sum = 0;

		for (u64 b = 0; b < blocks; b++)
			sum += cost[b];
		printf(" %2llu GiB: %10.0f total, %8.0f last block;", (unsigned long long)gib,
		       (double)sum, median(cost + blocks - 8, 8));
	}
	printf("\n");
	memcpy(series, cost, sizeof(cost));
}

/* Both designs' per-block costs: the chart, and build/bench's CSV. */
static void print_series(const u64 *old, const u64 *nw)
{
	struct asciiplot_series s[2] = {
		{ "old (pageblock walk)", 'o', old },
		{ "new (counter)", 'n', nw },
	};
	FILE *csv = bench_out_open("zone_contig-host-series.csv", "x,old,new");

	printf("  cost of each online, in the order the zone grew:\n");
	asciiplot(&out, "cycles/block", "block", s, 2, NR_BLOCKS, 64, 12);
	for (unsigned long i = 0; csv && i < NR_BLOCKS; i++)
		fprintf(csv, "%lu,%llu,%llu\n", i, (unsigned long long)old[i], (unsigned long long)nw[i]);
	if (csv)
		fclose(csv);
}

static void bench_contig_limit(void)
{
	static u8 buf[PAGES_PER_MEMORY_BLOCK * 64];
	u64 t0;

	memset(buf, 0xff, sizeof(buf));	/* fault the buffer in before timing */
	t0 = mm_cycles();

	for (int i = 0; i < 16; i++) {
		memset(buf, i, sizeof(buf));
		__asm__ volatile("" : : "r"(buf) : "memory");
	}
	printf("  limit: memset of one block's struct pages %9.0f cycles/block\n",
	       (double)(mm_cycles() - t0) / 16);
}

int main(void)
{
	printf("memlab host benchmark: zone contiguity, pageblock walk (old) vs counter (new) (TSC cycles; compare ratios)\n");
	printf("zone contiguity: online %llu blocks (64 GiB) one after another into one zone\n"
	       "(each block's cost: the cheapest of %d sweeps)\n", (unsigned long long)NR_BLOCKS, SWEEPS);
	static u64 old[NR_BLOCKS], nw[NR_BLOCKS];
	FILE *csv = bench_figures_open("zone_contig-host");

	bench_contig(DESIGN_OLD, old, csv);
	bench_contig(DESIGN_NEW, nw, csv);
	if (csv)
		fclose(csv);
	print_series(old, nw);
	bench_contig_limit();
	return 0;
}

/*
 * bench_automovable.c - `make bench`: mechanism 4 (auto_movable_stats),
 * the auto-movable online check "may N more pages go to ZONE_MOVABLE?"
 * on machines with 1 and 8 nodes, summing zone stats (old) or reading the
 * cache (new), per call, old vs new in one run on the host build (TSC
 * cycles; compare ratios, not absolute values).  The measuring is
 * auto_movable_bench() in mm/mech_bench.c, the same function the kernel's
 * `bench automovable` runs.  Target: walk/cached >= 5x with 8 nodes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lib/median.h>
#include "bench_out.h"
#include <mm/mech_bench.h>
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>
#include "../host/mm_host.h"

#define BOOT_RAM	(2 * SZ_1G)
#define HOT_BASE	SZ_4G

static struct fw_memmap map;
static struct mm_boot_params bp;

static void boot(int nr_nodes, u64 ram_total)
{
	host_mm_reset(ram_total);
	printk_set_level(LOG_ERR);
	fw_memmap_init(&map);
	memset(&bp, 0, sizeof(bp));
	fw_memmap_add_raw(&map, SZ_1M, BOOT_RAM - SZ_1M, FW_MEM_RAM);
	for (int n = 1; n < nr_nodes; n++)	/* 256 MiB of RAM per extra node */
		fw_memmap_add_raw(&map, HOT_BASE + (u64)(n - 1) * SZ_1G, 256 * SZ_1M, FW_MEM_RAM);
	fw_memmap_sanitize(&map);
	bp.memmap = &map;
	if (nr_nodes > 1) {
		bp.numa[bp.nr_numa++] = (struct numa_memblk){ 0, BOOT_RAM, 0, false };
		for (int n = 1; n < nr_nodes; n++)
			bp.numa[bp.nr_numa++] = (struct numa_memblk){
				HOT_BASE + (u64)(n - 1) * SZ_1G, HOT_BASE + (u64)n * SZ_1G, n, false };
	}
	mm_core_init(&bp);
}

/* 7 rounds of 40000 checks per design, taking turns at going first;
 * medians, with their spread. */
static void bench_auto_movable(int nr_nodes, FILE *csv)
{
	enum { ROUNDS = 7, CALLS = 40000 };
	struct bench_stats walk, cached;
	char figure[32];
	int err;

	boot(nr_nodes, HOT_BASE + (u64)nr_nodes * SZ_1G);
	err = auto_movable_bench(nr_nodes, ROUNDS, CALLS, &walk, &cached);
	if (err) {
		fprintf(stderr, "bench-automovable: cannot switch auto_movable_stats: %d\n", err);
		exit(1);
	}
	printf("  %d node%s: walk %7.1f (+-%.1f%%), cached %7.1f (+-%.1f%%) cycles/check, speedup %5.2fx",
	       nr_nodes, nr_nodes > 1 ? "s" : " ", (double)walk.median / CALLS, bench_spread_pct(&walk),
	       (double)cached.median / CALLS, bench_spread_pct(&cached),
	       (double)walk.median / (double)cached.median);
	if (nr_nodes == 8)
		printf(" (target >= 5x: %s)", walk.median >= 5 * cached.median ? "met" : "NOT met");
	printf("\n");
	snprintf(figure, sizeof(figure), "%d node%s", nr_nodes, nr_nodes > 1 ? "s" : "");
	bench_figure(csv, figure, "old", &walk, CALLS, "cycles/check");
	bench_figure(csv, figure, "new", &cached, CALLS, "cycles/check");
}

int main(void)
{
	printf("memlab host benchmark: auto-movable online check (auto_movable_can_online_movable),\n"
	       "zone walk (old) vs cached sums (new), medians of 7 rounds, +- half their range\n"
	       "(TSC cycles; compare ratios)\n");
	FILE *csv = bench_figures_open("automovable-host");

	bench_auto_movable(1, csv);
	bench_auto_movable(8, csv);
	if (csv)
		fclose(csv);
	return 0;
}

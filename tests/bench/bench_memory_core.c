/*
 * bench_memory_core.c - `make bench` on the host: the memory core's basic
 * costs (no mechanism: the baseline the four are measured on), each
 * beside the physical limit of the same work.
 *
 * Built without sanitizers (-O2; the kernel's sources -mgeneral-regs-only,
 * as in the kernel) from the same mm/ sources as the kernel, over a
 * simulated machine (tests/host/mm_platform_host.c).  Every number is
 * in TSC cycles, measured in this run; compare ratios, not absolute values,
 * on a shared machine.  Each measurement is repeated and the median of the
 * repetitions is printed.
 *
 *   memmap init    cycles per struct page for memmap_init_range() (field by
 *                  field), beside memset() of the same 64 bytes per page
 *   alloc+free     cycles per order-0 alloc_pages()+free_pages() pair, with
 *                  the per-CPU lists and without (__GFP_NOPCP), beside a
 *                  memset() of one struct page (the least a pair must touch)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include "../../mm/internal.h"
#include <mm/gfp.h>
#include <lib/fw_memmap.h>
#include <lib/median.h>
#include <lib/printk.h>
#include "../host/mm_host.h"
#include "bench_out.h"

#define REPS	7

static struct fw_memmap map;
static struct mm_boot_params bp;

static void boot(u64 ram)
{
	host_mm_reset(ram);
	printk_set_level(LOG_WARNING);
	fw_memmap_init(&map);
	fw_memmap_add_raw(&map, 0x100000, ram - 0x100000, FW_MEM_RAM);
	fw_memmap_sanitize(&map);
	memset(&bp, 0, sizeof(bp));
	bp.memmap = &map;
	mm_core_init(&bp);
}

/*
 * Memmap init is timed on sections that exist only for the benchmark:
 * present, with a populated vmemmap, but no RAM and no allocator state, so
 * initialising them again and again disturbs nothing (like a hot-added
 * range before it is onlined).
 */
static void bench_memmap_init(FILE *csv)
{
	u64 nr = 4 * PAGES_PER_SECTION;			/* 512 MiB worth of struct pages */
	u64 start = (64 * SZ_1G) >> PAGE_SHIFT;		/* far above the simulated RAM */
	u64 t_old[REPS], t_set[REPS];
	struct page *first;

	if (sparse_add_present(start, start + nr, 0, false, host_root_alloc, NULL) ||
	    mm_vmemmap_populate(start, start + nr, 0)) {
		printf("memmap init: cannot set up the benchmark sections\n");
		return;
	}
	for (u64 sec = pfn_to_section_nr(start); sec < pfn_to_section_nr(start + nr); sec++)
		sparse_set_memmap(sec, 0);
	first = pfn_to_page(start);
	memset(first, 0, nr * sizeof(struct page));	/* fault the memmap in once */
	for (int r = 0; r < REPS; r++) {
		u64 t0 = mm_cycles();

		memmap_init_range(start, start + nr, ZONE_NORMAL, 0, MIGRATE_MOVABLE);
		t_old[r] = mm_cycles() - t0;
		t0 = mm_cycles();
		memset(first, r, nr * sizeof(struct page));
		__asm__ volatile("" : : "r"(first) : "memory");
		t_set[r] = mm_cycles() - t0;
	}
	struct bench_stats so = bench_stats_of(t_old, REPS), ss = bench_stats_of(t_set, REPS);

	printf("memmap init (%llu struct pages, median of %d, +- half the range):\n",
	       (unsigned long long)nr, REPS);
	bench_print("field by field (old)", &so, (double)nr, "cycles/page", "");
	bench_print("memset of 64 B/page", &ss, (double)nr, "cycles/page", "   (limit)");
	printf("  ratio old/limit           %8.2f\n", (double)so.median / (double)ss.median);
	bench_figure(csv, "memmap init", "old", &so, (double)nr, "cycles/page");
	bench_figure(csv, "memmap init", "limit", &ss, (double)nr, "cycles/page");
}

static void bench_alloc_free(FILE *csv)
{
	const int pairs = 200000;
	u64 t_pcp[REPS], t_nopcp[REPS], t_set[REPS];
	static struct page scratch[1];

	for (int r = 0; r < REPS; r++) {
		u64 t0 = mm_cycles();

		for (int i = 0; i < pairs; i++)
			free_pages(alloc_pages(GFP_KERNEL, 0), 0);
		t_pcp[r] = mm_cycles() - t0;
		t0 = mm_cycles();
		for (int i = 0; i < pairs; i++)
			free_pages(alloc_pages(GFP_KERNEL | __GFP_NOPCP, 0), 0);
		t_nopcp[r] = mm_cycles() - t0;
		t0 = mm_cycles();
		for (int i = 0; i < pairs; i++) {
			memset(scratch, i, sizeof(scratch));
			__asm__ volatile("" : : "r"(scratch) : "memory");
		}
		t_set[r] = mm_cycles() - t0;
	}
	struct bench_stats sp = bench_stats_of(t_pcp, REPS), sn = bench_stats_of(t_nopcp, REPS);
	struct bench_stats ss = bench_stats_of(t_set, REPS);

	printf("order-0 alloc+free (%d pairs, median of %d, +- half the range):\n", pairs, REPS);
	bench_print("with pcp lists", &sp, pairs, "cycles/pair", "");
	bench_print("buddy only (__GFP_NOPCP)", &sn, pairs, "cycles/pair", "");
	bench_print("memset of one struct page", &ss, pairs, "cycles/pair", "   (limit)");
	bench_figure(csv, "order-0 alloc+free", "pcp", &sp, pairs, "cycles/pair");
	bench_figure(csv, "order-0 alloc+free", "buddy only", &sn, pairs, "cycles/pair");
	bench_figure(csv, "order-0 alloc+free", "limit", &ss, pairs, "cycles/pair");
}

int main(void)
{
	printf("memlab host benchmarks (TSC cycles; compare ratios)\n");
	FILE *csv = bench_figures_open("memory_core-host");

	boot(2 * SZ_1G);
	bench_alloc_free(csv);
	bench_memmap_init(csv);
	if (csv)
		fclose(csv);
	return 0;
}

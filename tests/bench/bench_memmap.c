/*
 * bench_memmap.c - `make bench` on the host: memmap init, old vs template
 * vs template-nt, beside the physical limit of the same stores.
 *
 * Built without sanitizers (-O2) from the same mm/ sources as the kernel,
 * over a simulated machine (tests/host/mm_platform_host.c).  The measuring
 * itself is memmap_init_bench() in mm/memmap_init.c, the same function the
 * kernel's `devmem bench` runs, so host and QEMU numbers mean the same:
 *
 *   normal        memmap_init_range(), ZONE_MOVABLE, Movable pageblocks
 *   device 4 KiB  memmap_init_zone_device(), order 0
 *   device 2 MiB  memmap_init_zone_device(), order 9 (head + 511 tails)
 *   limits        memset() of the same 64 bytes per struct page (libc on
 *                 the host), and a movnti stream of them + sfence
 *
 * Each cell is the median of the repetitions, in TSC cycles per struct
 * page, measured in this run; compare ratios, not absolute values, on a
 * shared machine.  Two sizes: 4 sections (8 MiB of struct pages: fits in
 * the last-level cache of most machines) and 64 sections (128 MiB: far
 * beyond it, so memory bandwidth decides).  The memmap is touched once
 * before timing: first-touch page faults are not memmap init.
 *
 * Targets (issue 5): template faster than per-page, and within 1.5x of the
 * memset limit.  Each size ends with a line saying whether they are met.
 *
 * Usage: bench-memmap [REPS]   (default 7, at most 15)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mm/memmap_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <kernel/printk.h>
#include "../host/mm_host.h"

static void stdout_write(struct printer *p, const char *s, size_t len)
{
	(void)p;
	fwrite(s, 1, len, stdout);
}

static struct printer out = { stdout_write };

/*
 * Sections that exist only for the benchmark: present, with a populated
 * vmemmap, no RAM and no allocator state (like a hot-added range before it
 * is onlined), far above the simulated RAM.
 */
static int bench_sections(u64 start_pfn, u64 nr_pages)
{
	if (sparse_add_present(start_pfn, start_pfn + nr_pages, 0, false, host_root_alloc) ||
	    mm_vmemmap_populate(start_pfn, start_pfn + nr_pages, 0))
		return -1;
	for (u64 sec = pfn_to_section_nr(start_pfn); sec < pfn_to_section_nr(start_pfn + nr_pages); sec++)
		sparse_set_memmap(sec, 0);
	return 0;
}

static void verdict(const struct memmap_bench *b)
{
	for (int k = 0; k < NR_MEMMAP_BENCH_KINDS; k++) {
		double old = (double)b->init[k][DESIGN_OLD], nw = (double)b->init[k][DESIGN_NEW];
		double nt = (double)b->init[k][DESIGN_NEW_NT];
		double best = nw < nt ? nw : nt;
		double limit = (double)b->memset_cycles;

		printf("  %-13s template %s per-page (%.2fx); best template %.2fx the memset limit: %s\n",
		       k == MEMMAP_BENCH_NORMAL ? "normal:" : k == MEMMAP_BENCH_DEV_4K ?
		       "device 4 KiB:" : "device 2 MiB:",
		       nw < old ? "faster than" : "NOT faster than", old / nw, best / limit,
		       best <= 1.5 * limit ? "within 1.5x" : "NOT within 1.5x");
	}
}

int main(int argc, char **argv)
{
	static const u64 sizes[] = { 4, 64 };	/* sections */
	unsigned reps = argc > 1 ? (unsigned)atoi(argv[1]) : 7;
	static struct memmap_bench b;

	host_mm_reset(0);
	printk_set_level(LOG_WARNING);
	printf("memlab memmap init benchmark (TSC cycles per struct page; compare ratios)\n");
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		u64 nr = sizes[i] * PAGES_PER_SECTION;
		u64 start = ((64ULL << 30) >> PAGE_SHIFT) + i * (128 * PAGES_PER_SECTION);

		if (bench_sections(start, nr)) {
			printf("cannot set up %llu benchmark sections\n", (unsigned long long)sizes[i]);
			return 1;
		}
		printf("\n%llu sections (%llu MiB of RAM described):\n", (unsigned long long)sizes[i],
		       (unsigned long long)(nr * PAGE_SIZE >> 20));
		if (memmap_init_bench(start, nr, 0, reps, &b)) {
			printf("memmap_init_bench failed\n");
			return 1;
		}
		memmap_bench_print(&b, &out);
		verdict(&b);
	}
	return 0;
}

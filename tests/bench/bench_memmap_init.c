/*
 * bench_memmap_init.c - `make bench` on the host: memmap init (mechanism 2), old vs template
 * vs template-nt, beside the physical limit of the same stores.
 *
 * Built without sanitizers (-O2; the kernel's sources -mgeneral-regs-only,
 * as in the kernel) from the same mm/ sources as the kernel,
 * over a simulated machine (tests/host/mm_platform_host.c).  The measuring
 * itself is memmap_init_bench() in mm/mech_bench.c, the same function the
 * kernel's `bench memmap_init` runs, so host and QEMU numbers mean the same:
 *
 *   normal        memmap_init_range(), ZONE_MOVABLE, Movable pageblocks
 *   device 4 KiB  memmap_init_zone_device(), order 0
 *   device 2 MiB  memmap_init_zone_device(), order 9 (head + 511 tails)
 *   limits        memset() of the same 64 bytes per struct page (libc on
 *                 the host), and a movnti stream of them + sfence
 *
 * Each cell is the median of the repetitions, in TSC cycles per struct
 * page, measured in this run; compare ratios, not absolute values, on a
 * shared machine.  Before every timed run the memmap is put in the same
 * cache state (memmap_init_bench()), and the designs take turns at going
 * first.  Three runs:
 *
 *   4 sections cold   8 MiB of struct pages, out of the cache before each
 *                     run, as memmap init meets a freshly populated memmap
 *   64 sections cold  128 MiB: far beyond any last-level cache
 *   4 sections warm   the same 8 MiB left in the cache by a memset(): no
 *                     memory traffic, so this shows the CPU's cost alone
 *                     (no bandwidth limit applies; see below)
 *
 * "Faster" is decided per kind by a sign test over the paired runs (old
 * and template of the same repetition): p < 0.05 needs at least 27 of 41
 * runs.  When memory bandwidth is the limit and both designs are at it,
 * the honest answer can be "no significant difference".
 *
 * Target: template faster than per-page, and within 1.5x of the
 * bandwidth limit: the cheaper of memset() and the movnti stream of the
 * same bytes.  The two cold runs are judged; each ends with a line per kind
 * saying whether the target is met, and the last line sums them up.  The
 * warm run gets the same lines, plus the distance from the 8-byte-store
 * limit, and does not count: with the memmap in the cache memset() is
 * limited by the width of its stores, not by bandwidth (rep stosq writes
 * whole lines inside the CPU), and the template sits at the limit of
 * general-register code, the 8-byte-store loop.
 *
 * Usage: bench-memmap_init [REPS]   (default 41, at most 41)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mm/mech_bench.h>
#include <mm/memmap_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include "../../mm/internal.h"
#include <lib/printk.h>
#include "../host/mm_host.h"
#include "bench_out.h"
#include "bench_sections.h"

static void stdout_write(struct printer *p, const char *s, size_t len)
{
	(void)p;
	fwrite(s, 1, len, stdout);
}

static struct printer out = { stdout_write };

/*
 * verdict() - the target per kind, for the better of the two
 * template designs (the lower median; each has its own paired sign test
 * against per-page): faster than per-page, and within 1.5x of the cheaper
 * limit.  Returns how many kinds met it.  A warm run's lines add the
 * template's distance from the 8-byte-store limit and count nothing.
 */
static int verdict(const struct memmap_bench *b)
{
	int met = 0;

	for (int k = 0; k < NR_MEMMAP_BENCH_KINDS; k++) {
		enum mech_design d = b->init[k][DESIGN_NEW_NT] < b->init[k][DESIGN_NEW] ?
				     DESIGN_NEW_NT : DESIGN_NEW;
		double best = (double)b->init[k][d];
		double limit = (double)(b->memset_cycles < b->stream_cycles ? b->memset_cycles :
					b->stream_cycles);
		enum memmap_bench_verdict v = memmap_bench_verdict(b, k, d);

		printf("  %-13s %s %s per-page (%.2fx, %u of %u runs); %.2fx the limit",
		       k == MEMMAP_BENCH_NORMAL ? "normal:" : k == MEMMAP_BENCH_DEV_4K ?
		       "device 4 KiB:" : "device 2 MiB:",
		       d == DESIGN_NEW ? "template" : "template-nt",
		       v == MEMMAP_BENCH_FASTER ? "faster than" :
		       v == MEMMAP_BENCH_SLOWER ? "SLOWER than" : "NOT significantly faster than",
		       (double)b->ratio_permille[k][d] / 1000, b->wins[k][d], b->reps, best / limit);
		printf(": %s", best <= 1.5 * limit ? "within 1.5x" : "NOT within 1.5x");
		if (b->warm) {
			printf("; %.2fx the 8-byte-store limit (store width, not bandwidth: not counted)\n",
			       best / (double)b->stores_cycles);
			continue;
		}
		printf("\n");
		met += v == MEMMAP_BENCH_FASTER && best <= 1.5 * limit;
	}
	return met;
}

/* One run's cells into the figures file: cycles per struct page. */
static void bench_csv(FILE *csv, const struct memmap_bench *b, u64 sections, bool warm)
{
	static const char *const kinds[] = { "normal", "device 4 KiB", "device 2 MiB" };
	static const char *const designs[] = { "old", "template", "template-nt" };
	double nr = (double)b->nr_pages;
	char fig[96];

	for (int k = 0; k < NR_MEMMAP_BENCH_KINDS; k++) {
		snprintf(fig, sizeof(fig), "%s, %llu MiB %s", kinds[k],
			 (unsigned long long)(sections * 128), warm ? "warm" : "cold");
		for (int d = 0; d < NR_MEMMAP_DESIGNS; d++)
			bench_figure(csv, fig, designs[d], &b->init_st[k][d], nr, "cycles/page");
	}
	snprintf(fig, sizeof(fig), "limits, %llu MiB %s", (unsigned long long)(sections * 128),
		 warm ? "warm" : "cold");
	bench_figure(csv, fig, "memset", &b->memset_st, nr, "cycles/page");
	bench_figure(csv, fig, "movnti stream", &b->stream_st, nr, "cycles/page");
	bench_figure(csv, fig, "8-byte stores", &b->stores_st, nr, "cycles/page");
}

int main(int argc, char **argv)
{
	static const struct { u64 sections; bool warm; } runs[] = {
		{ 4, false }, { 64, false }, { 4, true },
	};
	unsigned reps = argc > 1 ? (unsigned)atoi(argv[1]) : MEMMAP_BENCH_MAX_REPS;
	static struct memmap_bench b;
	int met = 0, judged = 0;

	FILE *csv = bench_figures_open("memmap_init-host");

	host_mm_reset(0);
	printk_set_level(LOG_WARNING);
	printf("memlab memmap init benchmark (TSC cycles per struct page; compare ratios)\n");
	for (unsigned i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		u64 nr = runs[i].sections * PAGES_PER_SECTION;
		u64 start = ((64ULL << 30) >> PAGE_SHIFT) + i * (128 * PAGES_PER_SECTION);

		if (bench_sections(start, nr)) {
			printf("cannot set up %llu benchmark sections\n",
			       (unsigned long long)runs[i].sections);
			return 1;
		}
		printf("\n%llu sections (%llu MiB of RAM described), %s:\n",
		       (unsigned long long)runs[i].sections,
		       (unsigned long long)(nr * PAGE_SIZE >> 20), runs[i].warm ? "warm" : "cold");
		if (memmap_init_bench(start, nr, 0, reps, runs[i].warm, &b)) {
			printf("memmap_init_bench failed\n");
			return 1;
		}
		memmap_bench_print(&b, &out);
		bench_csv(csv, &b, runs[i].sections, runs[i].warm);
		met += verdict(&b);
		judged += runs[i].warm ? 0 : NR_MEMMAP_BENCH_KINDS;
	}
	printf("\nmemmap init target (template faster than per-page and within 1.5x of the\n"
	       "bandwidth limit, the cold runs): met in %d of %d kind-runs: %s\n",
	       met, judged, met == judged ? "met" : "NOT met");
	if (csv)
		fclose(csv);
	return 0;
}

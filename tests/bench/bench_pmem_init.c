/*
 * bench_pmem_init.c - `make bench` on the host: the devdax memmap init's
 * five designs counted in instructions, which no load on the host changes.
 *
 * The QEMU half (tests/bench/pmem_bench.py) times `nd rebind` of a 100 GiB
 * namespace; under TCG on a shared host its runs spread by tens of %, so
 * a gain of a fraction of a % (the head template: with 2 MiB compounds 1
 * struct page in 512 is a head) cannot show there.  This program counts
 * instead: each design initialises the same device range once under
 * valgrind's callgrind, which counts the instructions executed (Ir) and
 * the data writes (Dw: stores, read-modify-writes included) inside
 * bench_init_once() alone.  The counts repeat exactly from run to run.
 *
 * Built like the other host benchmarks (-O2; the kernel's mm/ sources
 * -mgeneral-regs-only, as in the kernel), over the simulated machine of
 * tests/host/mm_platform_host.c: 4 GiB of device pfns at 64 GiB, in
 * sections of their own with a populated vmemmap, initialised by
 *
 *   old            memmap_init_zone_device_design(..., DESIGN_OLD): per page
 *   head-template  memmap_init_zone_device_head_template(): heads copied
 *                  from a template, tails field by field
 *   new            memmap_init_zone_device_design(..., DESIGN_NEW): head and
 *                  tail templates
 *   template-nt    the same with movnti (DESIGN_NEW_NT)
 *   shared         memmap_init_zone_device_shared(): only the struct pages
 *                  the shared vmemmap gives memory of their own (the first
 *                  vmemmap_shared_unique() of each compound; here without
 *                  the aliases, which change no instruction)
 *
 * for compound orders 9 (2 MiB: the namespace of pmem_bench.py), 0 (4 KiB
 * pages: every page a "head") and 18 (1 GiB).  Printed per order and
 * design: instructions and stores per struct page of the range, the ratio
 * of old's instructions to the design's, and per compound what the design
 * saves against old; then, for the compound orders, whether "new <
 * head-template < old" holds in instructions: a verdict no noise can
 * change (it says nothing of time: stores that miss the cache cost more
 * than instructions, see docs/pmem.md).  With BENCH_OUT set the counts
 * go to pmem_init-host.csv (per struct page, every order) and
 * pmem_init_compound-host.csv (per compound, order 9, the figure
 * pmem_bench.py reads), as bench_out.h writes them.
 *
 * Usage: bench-pmem_init                      every order and design, each
 *                                             a child under valgrind
 *                                             (VALGRIND: its path, default
 *                                             "valgrind")
 *        bench-pmem_init --one DESIGN ORDER   the child: one init of the
 *                                             range, nothing printed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mm/memmap_init.h>
#include <mm/memremap.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include "../../mm/internal.h"
#include <lib/printk.h>
#include "../host/mm_host.h"
#include "bench_out.h"
#include "bench_sections.h"

#define RANGE_START_PFN	((64ULL << 30) >> PAGE_SHIFT)
#define RANGE_PAGES	((4ULL << 30) >> PAGE_SHIFT)

static const int designs[] = {
	DESIGN_OLD, DEVMEM_DESIGN_HEAD_TEMPLATE, DESIGN_NEW, DESIGN_NEW_NT, DEVMEM_DESIGN_SHARED,
};
#define NR_DESIGNS	(sizeof(designs) / sizeof(designs[0]))
static const unsigned orders[] = { 9, 0, 18 };
#define TARGET_ORDER	9	/* pmem_bench.py's namespace: align 2M */
#define NR_ORDERS	(sizeof(orders) / sizeof(orders[0]))

/* The owner every device page gets: any address will do on the host. */
static struct dev_pagemap bench_pgmap;

/* Can design d initialise compounds of this order? (shared needs more
 * struct pages per compound than it writes) */
static bool design_applies(int d, unsigned order)
{
	return d != DEVMEM_DESIGN_SHARED || vmemmap_shared_order_ok(order);
}

/*
 * bench_init_once() - the one call callgrind counts (--toggle-collect):
 * the range initialised by design d, compounds of this order.  noinline so
 * that it stays a function of its own.
 */
static __attribute__((noinline)) int bench_init_once(int d, unsigned order)
{
	void *owner = &bench_pgmap;

	if (d == DEVMEM_DESIGN_SHARED)
		return memmap_init_zone_device_shared(RANGE_START_PFN, RANGE_PAGES, 0, order, owner,
						      vmemmap_shared_unique());
	if (d == DEVMEM_DESIGN_HEAD_TEMPLATE)
		return memmap_init_zone_device_head_template(RANGE_START_PFN, RANGE_PAGES, 0, order,
							     owner);
	return memmap_init_zone_device_design(RANGE_START_PFN, RANGE_PAGES, 0, order, owner,
					      (enum mech_design)d);
}

/* The child: set the range up (memmap written once with a pattern, so no
 * first touch lands in the counted call), then the counted init. */
static int child(const char *design, const char *order_word)
{
	int d = devmem_parse_design(design);
	unsigned order = (unsigned)atoi(order_word);

	if (d < 0 || order > MAX_DEVICE_COMPOUND_ORDER || !design_applies(d, order)) {
		fprintf(stderr, "bench-pmem_init: no design %s for order %s\n", design, order_word);
		return 2;
	}
	host_mm_reset(0);
	printk_set_level(LOG_WARNING);
	if (bench_sections(RANGE_START_PFN, RANGE_PAGES)) {
		fprintf(stderr, "bench-pmem_init: cannot set up the benchmark's sections\n");
		return 1;
	}
	memmap_fill_pattern(pfn_to_page(RANGE_START_PFN), RANGE_PAGES, 0x5a5a5a5a5a5a5a5aULL);
	if (bench_init_once(d, order)) {
		fprintf(stderr, "bench-pmem_init: %s, order %u: init failed\n", design, order);
		return 1;
	}
	return 0;
}

/* The simulated caches, the same on every machine (callgrind's default is
 * the host's own, with a warning when it cannot model it exactly); only
 * the data writes are read from it. */
#define CACHE_ARGS	"--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64"

/* What callgrind counted in one child. */
struct count {
	unsigned long long ir;	/* instructions executed */
	unsigned long long dw;	/* data writes */
};

/*
 * count_design() - run the child for (d, order) under callgrind, counting
 * in bench_init_once() only, and read the totals from its output file.
 * Returns 0, or -1 with the reason on stderr.
 */
static int count_design(const char *self, int d, unsigned order, struct count *c)
{
	const char *vg = getenv("VALGRIND") ? getenv("VALGRIND") : "valgrind";
	char out[64], err[80], cmd[10240], line[4096], events[4096] = "";
	unsigned long long v[16];
	FILE *f;
	int n = 0, rc;

	snprintf(out, sizeof(out), "/tmp/bench-pmem_init.%d.cg", (int)getpid());
	snprintf(err, sizeof(err), "%s.err", out);
	if ((size_t)snprintf(cmd, sizeof(cmd),
		 "%s --tool=callgrind --cache-sim=yes " CACHE_ARGS " --toggle-collect=bench_init_once "
		 "--callgrind-out-file=%s -q '%s' --one %s %u 2>%s", vg, out, self,
		 devmem_design_name(d), order, err) >= sizeof(cmd)) {
		fprintf(stderr, "bench-pmem_init: the valgrind command is too long\n");
		return -1;
	}
	fflush(stdout);
	rc = system(cmd);
	if (rc != 0) {
		/* what the child and valgrind said (nothing is shown when all went well:
		 * valgrind warns about the host's caches on every run) */
		f = fopen(err, "r");
		while (f && fgets(line, sizeof(line), f))
			fputs(line, stderr);
		if (f)
			fclose(f);
		fprintf(stderr, "bench-pmem_init: `%s` failed (status %d)%s\n", cmd, rc,
			rc == 127 << 8 ? ": no valgrind (tools/deps.sh bench installs it)" : "");
		unlink(out);
		unlink(err);
		return -1;
	}
	unlink(err);
	f = fopen(out, "r");
	if (!f) {
		perror(out);
		return -1;
	}
	c->ir = c->dw = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "events:", 7))
			snprintf(events, sizeof(events), "%s", line + 7);
		else if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7)) {
			char *p = strchr(line, ':') + 1, *end;

			for (n = 0; n < 16; n++, p = end) {
				v[n] = strtoull(p, &end, 10);
				if (end == p)
					break;
			}
		}
	}
	fclose(f);
	unlink(out);
	/* events: "Ir Dr Dw ..." in this order; find each by name */
	{
		char *tok = strtok(events, " \t\n");

		for (int i = 0; tok; i++, tok = strtok(NULL, " \t\n")) {
			if (i < n && !strcmp(tok, "Ir"))
				c->ir = v[i];
			else if (i < n && !strcmp(tok, "Dw"))
				c->dw = v[i];
		}
	}
	if (!c->ir || !c->dw) {
		fprintf(stderr, "bench-pmem_init: no Ir/Dw totals in callgrind's output for %s, order %u\n",
			devmem_design_name(d), order);
		return -1;
	}
	return 0;
}

/* Index of design d in designs[]. */
static unsigned design_index(int d)
{
	for (unsigned i = 0; i < NR_DESIGNS; i++)
		if (designs[i] == d)
			return i;
	return 0;
}

int main(int argc, char **argv)
{
	static struct count counts[NR_ORDERS][NR_DESIGNS];
	char self[4096];
	ssize_t len;
	FILE *csv, *csv_compound;
	bool target = false;

	if (argc == 4 && !strcmp(argv[1], "--one"))
		return child(argv[2], argv[3]);
	if (argc != 1) {
		fprintf(stderr, "usage: bench-pmem_init   (or: bench-pmem_init --one DESIGN ORDER)\n");
		return 2;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		perror("/proc/self/exe");
		return 1;
	}
	self[len] = 0;

	csv = bench_figures_open("pmem_init-host");
	csv_compound = bench_figures_open("pmem_init_compound-host");
	printf("memlab devdax memmap init benchmark: instructions counted by valgrind's callgrind\n"
	       "(deterministic: no host load changes them), %llu GiB of device pfns, each design once\n",
	       (unsigned long long)(RANGE_PAGES * PAGE_SIZE >> 30));
	for (unsigned o = 0; o < NR_ORDERS; o++) {
		unsigned order = orders[o];
		u64 heads = RANGE_PAGES >> order;
		double nr = (double)RANGE_PAGES, old_ir;
		char fig[96];

		for (unsigned i = 0; i < NR_DESIGNS; i++)
			if (design_applies(designs[i], order) &&
			    count_design(self, designs[i], order, &counts[o][i]))
				return 1;
		old_ir = (double)counts[o][0].ir;
		printf("\ncompound order %u (%s), %llu struct pages, %llu %s:\n", order,
		       order == 0 ? "4 KiB pages" : order == 9 ? "2 MiB, align 2M" : "1 GiB",
		       (unsigned long long)RANGE_PAGES, (unsigned long long)heads,
		       order ? "compounds" : "pages, each its own head");
		printf("  %-14s %12s %11s %8s %12s", "design", "instructions", "instr/page", "old/it",
		       "stores/page");
		printf(order ? " %15s %14s\n" : "\n", "instr/compound", "saved/compound");
		for (unsigned i = 0; i < NR_DESIGNS; i++) {
			const struct count *c = &counts[o][i];
			const char *name = devmem_design_name(designs[i]);
			struct bench_stats st = { 0 };

			if (!design_applies(designs[i], order)) {
				printf("  %-14s %12s   (needs compounds of more than %llu pages)\n", name,
				       "-", (unsigned long long)vmemmap_shared_unique());
				continue;
			}
			printf("  %-14s %12llu %11.3f %7.3fx %12.3f", name, c->ir, (double)c->ir / nr,
			       old_ir / (double)c->ir, (double)c->dw / nr);
			if (order)
				printf(" %15.1f %14.1f", (double)c->ir / (double)heads,
				       (old_ir - (double)c->ir) / (double)heads);
			printf("\n");
			st.median = st.min = st.max = c->ir;
			snprintf(fig, sizeof(fig), "order %u, instructions per page", order);
			bench_figure(csv, fig, name, &st, nr, "instructions/page");
			if (order == TARGET_ORDER) {
				snprintf(fig, sizeof(fig), "order %u, instructions per compound", order);
				bench_figure(csv_compound, fig, name, &st, (double)heads,
					     "instructions/compound");
			}
			st.median = st.min = st.max = c->dw;
			snprintf(fig, sizeof(fig), "order %u, stores per page", order);
			bench_figure(csv, fig, name, &st, nr, "stores/page");
		}
		if (order) {
			const struct count *c = counts[o];
			unsigned io = design_index(DESIGN_OLD), ih = design_index(DEVMEM_DESIGN_HEAD_TEMPLATE);
			unsigned in = design_index(DESIGN_NEW);
			bool ok = c[in].ir < c[ih].ir && c[ih].ir < c[io].ir;
			double per_head = ((double)c[io].ir - (double)c[ih].ir) / (double)heads;

			printf("  new < head-template < old in instructions: %s; the head template %.1f "
			       "instructions per head %s than old (%.3f%% of old's compound)\n",
			       ok ? "holds" : "does NOT hold", per_head < 0 ? -per_head : per_head,
			       per_head < 0 ? "MORE" : "fewer",
			       100 * (per_head < 0 ? -per_head : per_head) * (double)heads /
			       (double)c[io].ir);
			if (!ok && c[ih].ir >= c[io].ir && heads < 64)
				printf("  (%llu compounds: the head template's one-off cost, a slow first head and "
				       "its 64-byte copy, outweighs\n   what the %llu copied heads save)\n",
				       (unsigned long long)heads, (unsigned long long)heads - 1);
			if (order == TARGET_ORDER)
				target = ok;
		}
	}
	printf("\npmem init instruction target (head+tail templates < head template < per page, "
	       "compound order %u, the\nnamespace's align 2M): %s\n", TARGET_ORDER,
	       target ? "met" : "NOT met");
	if (csv)
		fclose(csv);
	if (csv_compound)
		fclose(csv_compound);
	return 0;
}

/*
 * test_deferred_init.c - mechanism 5, deferred memmap init of boot memory
 * (mm/deferred_init.c): the new design, run to completion, leaves the
 * machine the old design leaves; and while sections are pending every
 * counter and every operation on them behaves as documented.
 *
 * The machine: two nodes, node 0 with RAM [0, 768M) and [896M, 1G) (a
 * hole of one section at 768M, where a DIMM can go next to pending
 * memory), node 1 with [1G, 2G); deferred_init_early=128M.  Each node's
 * memmap sits at the top of the node (memblock allocates top-down).  The
 * sections initialised at boot are each node's first (0 and 8) and node
 * 1's last (15), which also holds the sections' root page, a reservation
 * that is not memmap; sections 1-5, 7 and 9-14 wait.  Section 7 holds node
 * 0's memmap (14 MiB, NODE0_MEMMAP_PAGES) and waits with it: its pages
 * get PG_reserved when the section is initialised, and only the rest is
 * counted as pending.
 *
 * The comparison, eager boot against deferred boot + completion:
 *   - every struct page of boot memory byte for byte, except the two lru
 *     words of pages on a buddy free list: they point at the neighbours
 *     on the list, and the sections handed over at boot (8 and 15, in one
 *     zone) put their blocks on the list ahead of the sections between
 *     them, so the list ORDER differs where the eager boot went lowest pfn
 *     first.  The lists are compared as sets instead (same heads, orders,
 *     migratetypes);
 *   - every struct mem_section (flags, pageblock flags, counts);
 *   - per zone: present, managed, free, spans, watermarks, lowmem reserve,
 *     pcp sizes, contiguity and pages_with_online_memmap; and the free
 *     counts per order and migratetype.
 */
#include <pthread.h>
#include "htest.h"
#include "platform_stub.h"
#include "mm_host.h"
#include "hotplug_check.h"
#include <stdlib.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/memblock.h>
#include <mm/mm_init.h>
#include <mm/gfp.h>
#include <mm/deferred_init.h>
#include <mm/memory_hotplug.h>
#include <mm/page_isolation.h>
#include <mm/mechanisms.h>
#include "../../mm/buddy_internal.h"
#include <lib/fw_memmap.h>
#include <lib/printk.h>
#include <lib/errno.h>

#define MiB		(1ULL << 20)
#define GiB		(1ULL << 30)
#define RAM_BYTES	(2 * GiB)
#define END_PFN		(RAM_BYTES >> PAGE_SHIFT)
#define NR_SECTIONS	(END_PFN / PAGES_PER_SECTION)
#define HOLE_PFN	((768 * MiB) >> PAGE_SHIFT)	/* section 6: no boot memory */
/* node 0's memmap, at the top of section 7: 2 MiB for each of its 7 sections */
#define NODE0_MEMMAP_PAGES	(7 * ((PAGES_PER_SECTION * sizeof(struct page)) >> PAGE_SHIFT))

/* deferred_init_early for di_boot(); a test may change it and put it back. */
static u64 di_early = 128 * MiB;

/* Boot the machine above with design d (deferred_init=old|new). */
static void di_boot(int d)
{
	static struct fw_memmap map;
	static struct mm_boot_params bp;

	host_mm_reset(RAM_BYTES);
	printk_set_level(LOG_CRIT);
	fw_memmap_init(&map);
	memset(&bp, 0, sizeof(bp));
	bp.memmap = &map;
	fw_memmap_add_raw(&map, 0, 768 * MiB, FW_MEM_RAM);
	fw_memmap_add_raw(&map, 896 * MiB, 2 * GiB - 896 * MiB, FW_MEM_RAM);	/* start, size */
	fw_memmap_sanitize(&map);
	bp.reserved[bp.nr_reserved++] = (typeof(bp.reserved[0])){ 1 * MiB, 3 * MiB, "kernel image" };
	bp.numa[bp.nr_numa++] = (struct numa_memblk){ 0, 1 * GiB, 0, false };
	bp.numa[bp.nr_numa++] = (struct numa_memblk){ 1 * GiB, 2 * GiB, 1, false };
	CHECK_EQ(deferred_init_set_design(d), 0);
	CHECK_EQ(deferred_init_set_early(di_early), 0);
	CHECK_EQ(deferred_init_get_design(), d);
	mm_core_init(&bp);
	memory_blocks_init_boot();
	hotplug_knobs_default();
}

/* Put the boot parameters back for the other tests of the suite. */
static void di_restore(void)
{
	deferred_init_set_design(DESIGN_OLD);
	deferred_init_set_early(256 * MiB);
	mech_register_leave_new(MECH_DEFERRED_INIT, NULL);
	mech_set(MECH_DEFERRED_INIT, DESIGN_OLD);
}

/* ---- a snapshot of everything the comparison looks at -------------------- */

struct free_block { u64 pfn; unsigned order; int mt; };

struct snapshot {
	struct page *memmap;			/* [0, END_PFN) */
	struct mem_section sections[NR_SECTIONS];
	struct zone zones[MAX_NUMNODES][MAX_NR_ZONES];
	struct free_block *free;		/* sorted by pfn */
	u64 nr_free_blocks;
	unsigned long totalreserve;
	int min_free;
};

static int free_block_cmp(const void *a, const void *b)
{
	const struct free_block *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/* Is pfn the head of a block on a buddy free list? */
static bool on_free_list(const struct page *p)
{
	return PageBuddy(p);
}

static void snapshot_take(struct snapshot *s)
{
	u64 n = 0, cap = 1 << 16;
	struct zone *zone;

	s->memmap = malloc(END_PFN * sizeof(struct page));
	s->free = malloc(cap * sizeof(*s->free));
	CHECK(s->memmap && s->free);
	for (u64 pfn = 0; pfn < END_PFN; pfn++) {
		const struct mem_section *ms = __pfn_to_section(pfn);

		if (valid_section(ms) && !deferred_section(ms))
			s->memmap[pfn] = *pfn_to_page(pfn);
		else
			memset(&s->memmap[pfn], 0x5a, sizeof(struct page));
	}
	for (u64 nr = 0; nr < NR_SECTIONS; nr++) {
		const struct mem_section *ms = __nr_to_section(nr);

		if (ms)
			s->sections[nr] = *ms;
		else
			memset(&s->sections[nr], 0, sizeof(s->sections[nr]));
	}
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		for (int z = 0; z < MAX_NR_ZONES; z++)
			s->zones[nid][z] = NODE_DATA(nid)->node_zones[z];
	for_each_zone(zone)
		for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
			for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
				struct page *p;

				list_for_each_entry(p, &zone->free_area[o].free_list[mt], lru) {
					if (n == cap) {
						cap *= 2;
						s->free = realloc(s->free, cap * sizeof(*s->free));
					}
					s->free[n++] = (struct free_block){ page_to_pfn(p), o, mt };
				}
			}
	qsort(s->free, n, sizeof(*s->free), free_block_cmp);
	s->nr_free_blocks = n;
	s->totalreserve = totalreserve_pages;
	s->min_free = get_min_free_kbytes();
}

static void snapshot_free(struct snapshot *s)
{
	free(s->memmap);
	free(s->free);
}

/* The zone fields that must agree (not the list heads: their pointers
 * are the list order, compared as sets). */
static void compare_zone(const struct zone *a, const struct zone *b)
{
	CHECK_EQ(a->zone_start_pfn, b->zone_start_pfn);
	CHECK_EQ(a->spanned_pages, b->spanned_pages);
	CHECK_EQ(a->present_pages, b->present_pages);
	CHECK_EQ(a->managed_pages, b->managed_pages);
	CHECK_EQ(zone_nr_free(a), zone_nr_free(b));
	CHECK_EQ(a->contiguous, b->contiguous);
	CHECK_EQ(a->pages_with_online_memmap, b->pages_with_online_memmap);
	CHECK_EQ(zone_pcp(a, 0)->batch, zone_pcp(b, 0)->batch);
	CHECK_EQ(zone_pcp(a, 0)->high, zone_pcp(b, 0)->high);
	CHECK_EQ(zone_pcp(a, 0)->count, zone_pcp(b, 0)->count);
	for (int w = 0; w < NR_WMARK; w++)
		CHECK_EQ(a->watermark[w], b->watermark[w]);
	for (int z = 0; z < MAX_NR_ZONES; z++)
		CHECK_EQ(a->lowmem_reserve[z], b->lowmem_reserve[z]);
	for (unsigned o = 0; o < NR_PAGE_ORDERS; o++) {
		CHECK_EQ(a->free_area[o].nr_free, b->free_area[o].nr_free);
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			CHECK_EQ(a->free_area[o].nr_free_mt[mt], b->free_area[o].nr_free_mt[mt]);
	}
}

/* Compare two snapshots as the top of the file says; returns the struct
 * pages that differ outside the lru words of free blocks (0 expected). */
static u64 snapshot_compare(const struct snapshot *eager, const struct snapshot *got)
{
	u64 differ = 0, lru_only = 0;

	for (u64 pfn = 0; pfn < END_PFN; pfn++) {
		struct page a = eager->memmap[pfn], b = got->memmap[pfn];

		if (!memcmp(&a, &b, sizeof(a)))
			continue;
		if (on_free_list(&a) && on_free_list(&b)) {
			a.lru = b.lru;
			if (!memcmp(&a, &b, sizeof(a))) {
				lru_only++;
				continue;
			}
		}
		if (!differ++)
			fprintf(stderr, "  first differing struct page: pfn %#llx\n",
				(unsigned long long)pfn);
	}
	for (u64 nr = 0; nr < NR_SECTIONS; nr++)
		CHECK(!memcmp(&eager->sections[nr], &got->sections[nr], sizeof(struct mem_section)));
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		for (int z = 0; z < MAX_NR_ZONES; z++)
			compare_zone(&eager->zones[nid][z], &got->zones[nid][z]);
	CHECK_EQ(eager->nr_free_blocks, got->nr_free_blocks);
	for (u64 i = 0; i < MIN(eager->nr_free_blocks, got->nr_free_blocks); i++) {
		CHECK_EQ(eager->free[i].pfn, got->free[i].pfn);
		CHECK_EQ(eager->free[i].order, got->free[i].order);
		CHECK_EQ(eager->free[i].mt, got->free[i].mt);
		if (eager->free[i].pfn != got->free[i].pfn)
			break;
	}
	CHECK_EQ(eager->totalreserve, got->totalreserve);
	CHECK_EQ(eager->min_free, got->min_free);
	/* only the junctions of the lists moved (10 of 482 blocks here) */
	CHECK(lru_only < eager->nr_free_blocks / 8);
	return differ;
}

/* The eager machine, taken once for every comparison. */
static struct snapshot eager;
static bool eager_taken;

static const struct snapshot *eager_snapshot(void)
{
	if (!eager_taken) {
		di_boot(DESIGN_OLD);
		CHECK_EQ(deferred_init_pending_sections(), 0);
		hotplug_check_invariants();
		snapshot_take(&eager);
		eager_taken = true;
	}
	return &eager;
}

/* ---- counters at every step ------------------------------------------------ */

/*
 * The counters while sections are pending: per node, present = what the
 * eager boot has; managed + pending + reserved = present, where pending
 * is the free memory of pending sections (a pending section's memmap
 * pages are reserved, as in the eager boot); free = the free lists;
 * MemTotal the sum of managed; and the deferred state agrees with the
 * section flags.
 */
static void check_pending_counters(const struct snapshot *e)
{
	u64 pending_flags = 0, pending_pages_flags = 0;

	for (u64 nr = 0; nr < NR_SECTIONS; nr++) {
		const struct mem_section *ms = __nr_to_section(nr);

		if (deferred_section(ms)) {
			pending_flags++;
			pending_pages_flags += hotplug_check_memblock_pages(section_nr_to_pfn(nr),
									     section_nr_to_pfn(nr + 1), false) -
					       hotplug_check_memblock_pages(section_nr_to_pfn(nr),
									     section_nr_to_pfn(nr + 1), true);
			CHECK(!pfn_valid(section_nr_to_pfn(nr)));
			CHECK(pfn_pending(section_nr_to_pfn(nr)));
			CHECK(pfn_to_online_page(section_nr_to_pfn(nr)) == NULL);
		}
	}
	CHECK_EQ(deferred_init_pending_sections(), pending_flags);
	CHECK_EQ(deferred_init_pending_pages(NUMA_NO_NODE), pending_pages_flags);
	CHECK_EQ(deferred_init_pending_pages(0) + deferred_init_pending_pages(1), pending_pages_flags);
	for (int nid = 0; nid < 2; nid++) {
		u64 zone_pending = 0, managed = 0, eager_managed = 0;

		CHECK_EQ(NODE_DATA(nid)->node_present_pages,
			 e->zones[nid][ZONE_DMA].present_pages + e->zones[nid][ZONE_DMA32].present_pages);
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			zone_pending += deferred_init_zone_pending_pages(&NODE_DATA(nid)->node_zones[z]);
			managed += NODE_DATA(nid)->node_zones[z].managed_pages;
			eager_managed += e->zones[nid][z].managed_pages;
		}
		CHECK_EQ(zone_pending, deferred_init_pending_pages(nid));
		/* pending memory holds no reservation: it all becomes managed */
		CHECK_EQ(managed + deferred_init_pending_pages(nid), eager_managed);
	}
	hotplug_check_invariants();
}

/* Run the steps with budgets from next_budget() until nothing waits,
 * checking the counters after each; returns the steps taken. */
static u64 run_steps(u64 (*next_budget)(void), const struct snapshot *e)
{
	u64 steps = 0, total = totalram_pages();

	while (deferred_init_pending_sections()) {
		u64 before = deferred_init_pending_sections(), budget = next_budget();
		u64 done = deferred_init_step(budget);

		CHECK(done >= 1 && done <= MAX(budget, 1ULL));
		CHECK_EQ(deferred_init_pending_sections(), before - done);
		CHECK(totalram_pages() > total);	/* MemTotal grows as pages arrive */
		total = totalram_pages();
		check_pending_counters(e);
		steps++;
		if (steps > NR_SECTIONS)
			break;
	}
	CHECK_EQ(deferred_init_step(1), 0);	/* nothing left */
	return steps;
}

static u64 budget_one(void) { return 1; }

HTEST(deferred_init_boot_leaves_sections_pending)
{
	const struct snapshot *e = eager_snapshot();

	di_boot(DESIGN_NEW);
	CHECK_EQ(mech_design(MECH_DEFERRED_INIT), DESIGN_NEW);
	CHECK_EQ(deferred_init_stats.boot_sections, 3);		/* 0, 8, 15 */
	CHECK_EQ(deferred_init_pending_sections(), 12);		/* 1-5, 7, 9-14 */
	/* section 7's memmap pages are not pending memory: they stay reserved */
	CHECK_EQ(deferred_init_pending_pages(0), 6 * PAGES_PER_SECTION - NODE0_MEMMAP_PAGES);
	CHECK_EQ(deferred_init_pending_pages(1), 6 * PAGES_PER_SECTION);
	for (u64 nr = 0; nr < NR_SECTIONS; nr++)
		CHECK_EQ(pfn_pending(section_nr_to_pfn(nr)),
			 (nr >= 1 && nr <= 5) || nr == 7 || (nr >= 9 && nr <= 14));
	CHECK(totalram_pages() < e->zones[0][ZONE_DMA32].managed_pages +
	      e->zones[1][ZONE_DMA32].managed_pages);
	check_pending_counters(e);
	/* a pending zone is not contiguous, under both designs */
	CHECK(!NODE_DATA(0)->node_zones[ZONE_DMA32].contiguous);
	CHECK(!zone_contiguous_by_walk(&NODE_DATA(1)->node_zones[ZONE_DMA32]));
	di_restore();
}

/*
 * The setters: a design other than old and new is refused; an early size
 * near 2^64 rounds up to every section (not wrapping to one), so nothing
 * waits.
 */
HTEST(deferred_init_setters_and_a_huge_early_size)
{
	enum mech_design before = deferred_init_get_design();

	CHECK_EQ(deferred_init_set_design((enum mech_design)2), -EINVAL);
	CHECK_EQ(deferred_init_get_design(), before);	/* refused: unchanged */
	di_early = ~0ULL;
	di_boot(DESIGN_NEW);
	CHECK_EQ(deferred_init_get_early(), ~0ULL);
	CHECK(deferred_init_stats.boot_new);
	CHECK_EQ(deferred_init_pending_sections(), 0);
	di_early = 128 * MiB;
	di_restore();
}

HTEST(deferred_init_complete_equals_eager)
{
	const struct snapshot *e = eager_snapshot();
	struct snapshot got;

	di_boot(DESIGN_NEW);
	CHECK_EQ(run_steps(budget_one, e), 12);
	CHECK_EQ(deferred_init_stats.step_sections, 12);
	snapshot_take(&got);
	CHECK_EQ(snapshot_compare(e, &got), 0);
	/* the comparison does see one byte changed in one struct page */
	got.memmap[5 * PAGES_PER_SECTION + 77].index ^= 0x100;
	CHECK_EQ(snapshot_compare(e, &got), 1);
	snapshot_free(&got);
	di_restore();
}

/*
 * Born free (init_section()): the pending sections' struct pages are
 * written once, in the state the hand-over leaves them in, instead of
 * initialised and then reset page by page as the eager boot does.  Under
 * every memmap_init design the result is the eager boot's, byte for byte;
 * with page_poison=on (two passes, each page poisoned) it is the eager
 * page_poison=on boot's.
 */
HTEST(deferred_init_born_free_same_bytes_every_memmap_design)
{
	const struct snapshot *e = eager_snapshot();
	static const enum mech_design designs[] = { DESIGN_OLD, DESIGN_NEW, DESIGN_NEW_NT };
	enum mech_design saved = mech_design(MECH_MEMMAP_INIT);
	struct snapshot poisoned, got;

	for (unsigned i = 0; i < ARRAY_SIZE(designs); i++) {
		CHECK_EQ(mech_set(MECH_MEMMAP_INIT, designs[i]), 0);
		di_boot(DESIGN_NEW);
		CHECK_EQ(run_steps(budget_one, e), 12);
		snapshot_take(&got);
		CHECK_EQ(snapshot_compare(e, &got), 0);
		snapshot_free(&got);
	}
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, saved), 0);
	page_poison_enable(true);
	di_boot(DESIGN_OLD);
	snapshot_take(&poisoned);
	di_boot(DESIGN_NEW);
	while (deferred_init_step(3))
		;
	snapshot_take(&got);
	CHECK_EQ(snapshot_compare(&poisoned, &got), 0);
	page_poison_enable(false);
	snapshot_free(&got);
	snapshot_free(&poisoned);
	di_restore();
}

/* Budgets from a seeded generator: 1..4 sections a step. */
static unsigned budget_seed;
static u64 budget_random(void)
{
	budget_seed = budget_seed * 1103515245u + 12345u;
	return 1 + (budget_seed >> 16) % 4;
}

HTEST(deferred_init_random_budgets_same_result)
{
	const struct snapshot *e = eager_snapshot();

	for (unsigned seed = 1; seed <= 3; seed++) {
		struct snapshot got;

		budget_seed = seed;
		di_boot(DESIGN_NEW);
		run_steps(budget_random, e);
		snapshot_take(&got);
		CHECK_EQ(snapshot_compare(e, &got), 0);
		snapshot_free(&got);
	}
	di_restore();
}

/* ---- several CPUs at once ---------------------------------------------------- */

/* A worker CPU (a pthread): its node's share, until nothing is left to claim. */
struct di_worker {
	unsigned cpu;
	int nid;
	u64 done;
};

static void *di_worker_main(void *p)
{
	struct di_worker *w = p;

	host_cpu = w->cpu;
	w->done = deferred_init_work_node(w->nid, NULL, NULL);
	return NULL;
}

/*
 * Parallel deferred init (deferred_init_work_node(), Linux's multithreaded
 * deferred init): CPUs 1 and 2 work on node 0, CPU 3 on node 1, while CPU
 * 0 (the test's thread) takes sections with its steps, as the main loop's
 * slices do, each CPU writing its sections' struct pages with no lock
 * held.  Under every memmap_init design the result is the eager boot's,
 * byte for byte; every section was initialised exactly once (the per-CPU
 * counts add up to the 12 pending sections, and a worker only ever takes
 * its node's).  Which CPU gets which section depends on the host's
 * scheduling; the result does not.
 */
HTEST(deferred_init_parallel_workers_same_result)
{
	const struct snapshot *e = eager_snapshot();
	static const enum mech_design designs[] = { DESIGN_OLD, DESIGN_NEW, DESIGN_NEW_NT };
	enum mech_design saved = mech_design(MECH_MEMMAP_INIT);

	for (unsigned i = 0; i < ARRAY_SIZE(designs) * 2; i++) {
		struct di_worker w[3] = { { 1, 0, 0 }, { 2, 0, 0 }, { 3, 1, 0 } };
		pthread_t th[3];
		struct snapshot got;
		u64 by_cpu = 0, steps = 0;

		CHECK_EQ(mech_set(MECH_MEMMAP_INIT, designs[i % ARRAY_SIZE(designs)]), 0);
		di_boot(DESIGN_NEW);
		for (unsigned t = 0; t < 3; t++)
			CHECK_EQ(pthread_create(&th[t], NULL, di_worker_main, &w[t]), 0);
		while (deferred_init_step(1))
			steps++;
		for (unsigned t = 0; t < 3; t++)
			pthread_join(th[t], NULL);
		deferred_init_finish();
		CHECK_EQ(deferred_init_pending_sections(), 0);
		CHECK_EQ(deferred_init_pending_pages(NUMA_NO_NODE), 0);
		CHECK_EQ(w[0].done + w[1].done + w[2].done + steps, 12);
		CHECK(w[2].done <= 6);	/* node 1's sections 9-14 at most */
		CHECK_EQ(deferred_init_stats.work_sections, w[0].done + w[1].done + w[2].done);
		for (unsigned c = 0; c < 4; c++)
			by_cpu += deferred_init_cpu_sections[c];
		CHECK_EQ(by_cpu, 12);
		CHECK_EQ(deferred_init_cpu_sections[3], w[2].done);
		snapshot_take(&got);
		CHECK_EQ(snapshot_compare(e, &got), 0);
		snapshot_free(&got);
		hotplug_check_invariants();
	}
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, saved), 0);
	di_restore();
}

/* A worker alone initialises its node and nothing else; a node without
 * pending sections (or no node) gives it nothing. */
HTEST(deferred_init_worker_takes_only_its_node)
{
	di_boot(DESIGN_NEW);
	CHECK_EQ(deferred_init_work_node(1, NULL, NULL), 6);
	CHECK_EQ(deferred_init_pending_pages(1), 0);
	CHECK_EQ(deferred_init_pending_sections(), 6);
	CHECK_EQ(deferred_init_work_node(1, NULL, NULL), 0);
	CHECK_EQ(deferred_init_work_node(-1, NULL, NULL), 0);
	CHECK_EQ(deferred_init_work_node(MAX_NUMNODES, NULL, NULL), 0);
	CHECK_EQ(deferred_init_step(100), 6);
	CHECK_EQ(deferred_init_stats.work_sections, 6);
	CHECK_EQ(deferred_init_stats.step_sections, 6);
	di_restore();
}

/* Switching the mechanism to old finishes the pending work (the leave
 * hook), with the same result. */
HTEST(deferred_init_switch_to_old_finishes)
{
	const struct snapshot *e = eager_snapshot();
	struct snapshot got;

	di_boot(DESIGN_NEW);
	deferred_init_step(2);
	CHECK_EQ(mech_set(MECH_DEFERRED_INIT, DESIGN_OLD), 0);
	CHECK_EQ(deferred_init_pending_sections(), 0);
	CHECK(deferred_init_stats.done_cycles != 0);
	snapshot_take(&got);
	CHECK_EQ(snapshot_compare(e, &got), 0);
	snapshot_free(&got);
	/* new again: nothing to do until the next boot */
	CHECK_EQ(mech_set(MECH_DEFERRED_INIT, DESIGN_NEW), 0);
	CHECK_EQ(deferred_init_pending_sections(), 0);
	di_restore();
}

/* ---- on demand ------------------------------------------------------------ */

HTEST(deferred_init_grow_on_demand)
{
	const struct snapshot *e = eager_snapshot();
	u64 initialised_free = zone_nr_free(&NODE_DATA(0)->node_zones[ZONE_DMA32]);
	u64 want = 4 * PAGES_PER_SECTION, got = 0, n = 0;
	struct page **blocks = malloc((want >> MAX_PAGE_ORDER) * sizeof(*blocks));

	di_boot(DESIGN_NEW);
	initialised_free = zone_nr_free(&NODE_DATA(0)->node_zones[ZONE_DMA32]);
	CHECK(initialised_free < want);
	/* 512 MiB of node 0 in 4 MiB blocks: more than its initialised part
	 * holds; each one succeeds at once, no step in between */
	while (got < want) {
		struct page *p = alloc_pages_node(0, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN,
						  MAX_PAGE_ORDER);

		CHECK(p != NULL);
		if (!p)
			break;
		CHECK_EQ(page_to_nid(p), 0);
		blocks[n++] = p;
		got += 1ULL << MAX_PAGE_ORDER;
	}
	CHECK(deferred_init_stats.grows > 0);
	CHECK(deferred_init_stats.grow_sections >= 3);
	CHECK_EQ(deferred_init_stats.steps, 0);
	CHECK(deferred_init_pending_pages(0) < 6 * PAGES_PER_SECTION - NODE0_MEMMAP_PAGES);
	CHECK_EQ(deferred_init_pending_pages(1), 6 * PAGES_PER_SECTION);	/* not node 1's */
	check_pending_counters(e);
	for (u64 i = 0; i < n; i++)
		free_pages(blocks[i], MAX_PAGE_ORDER);
	free(blocks);
	deferred_init_finish();
	CHECK_EQ(deferred_init_pending_sections(), 0);
	check_pending_counters(e);
	di_restore();
}

/* A zone whose memory is all pending still serves an allocation: node 1
 * with only its boot sections used up entirely. */
HTEST(deferred_init_grow_when_initialised_part_is_used_up)
{
	const struct snapshot *e = eager_snapshot();
	struct zone *zone;
	struct page *p;
	u64 taken = 0;

	di_boot(DESIGN_NEW);
	zone = &NODE_DATA(1)->node_zones[ZONE_DMA32];
	/* take node 1's initialised memory block by block without growing:
	 * straight from the zone, as the allocator's fast path would */
	while ((p = zone_alloc_pages(zone, GFP_KERNEL, 0)))
		taken++;
	CHECK(taken > 0);
	CHECK_EQ(deferred_init_stats.grows, 0);
	p = alloc_pages_node(1, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, 3);
	CHECK(p != NULL);
	CHECK(p && page_to_nid(p) == 1);
	CHECK_EQ(deferred_init_stats.grows, 1);
	CHECK_EQ(deferred_init_stats.grow_sections, 1);
	check_pending_counters(e);
	(void)taken;
	di_restore();
}

/* ---- operations on pending ranges ------------------------------------------ */

HTEST(deferred_init_offline_pending_block_initialises_it_first)
{
	const struct snapshot *e = eager_snapshot();
	struct memory_block *mem;
	u64 managed;

	di_boot(DESIGN_NEW);
	mem = find_memory_block_by_id(3);
	CHECK(mem && mem->state == MEM_ONLINE);
	CHECK(pfn_pending(3 * PAGES_PER_SECTION));
	managed = totalram_pages();
	CHECK_EQ(memory_block_offline(mem), 0);
	CHECK(!pfn_pending(3 * PAGES_PER_SECTION));
	CHECK_EQ(deferred_init_stats.range_sections, 1);
	CHECK_EQ(mem->state, MEM_OFFLINE);
	/* its pages came in and left again: managed is what it was */
	CHECK_EQ(totalram_pages(), managed);
	CHECK_EQ(memory_block_online(mem, MMOP_ONLINE_KERNEL), 0);
	CHECK_EQ(totalram_pages(), managed + PAGES_PER_SECTION);
	check_pending_counters(e);
	deferred_init_finish();
	hotplug_check_invariants();
	di_restore();
}

/*
 * Block 7 is pending and holds node 0's memmap: offlining it initialises
 * the section (the memmap pages get PG_reserved, the rest reaches the
 * buddy), then refuses, as the eager boot's block 7 refuses: reserved
 * pages cannot move.  Nothing is lost on the way.
 */
HTEST(deferred_init_offline_pending_block_with_memmap_refuses)
{
	const struct snapshot *e = eager_snapshot();
	struct memory_block *mem;
	u64 managed, pending;

	di_boot(DESIGN_NEW);
	mem = find_memory_block_by_id(7);
	CHECK(mem && mem->state == MEM_ONLINE);
	CHECK(pfn_pending(7 * PAGES_PER_SECTION));
	managed = totalram_pages();
	pending = deferred_init_pending_pages(0);
	CHECK(memory_block_offline(mem) < 0);
	CHECK(!pfn_pending(7 * PAGES_PER_SECTION));
	CHECK_EQ(mem->state, MEM_ONLINE);
	CHECK_EQ(totalram_pages(), managed + PAGES_PER_SECTION - NODE0_MEMMAP_PAGES);
	CHECK_EQ(deferred_init_pending_pages(0), pending - (PAGES_PER_SECTION - NODE0_MEMMAP_PAGES));
	CHECK(PageReserved(pfn_to_page(8 * PAGES_PER_SECTION - 1)));	/* the memmap's last page */
	CHECK(!PageReserved(pfn_to_page(7 * PAGES_PER_SECTION)));
	check_pending_counters(e);
	deferred_init_finish();
	hotplug_check_invariants();
	di_restore();
}

HTEST(deferred_init_isolate_pending_range_initialises_it_first)
{
	const struct snapshot *e = eager_snapshot();
	u64 start = 10 * PAGES_PER_SECTION + 4 * pageblock_nr_pages, failed = 0;

	di_boot(DESIGN_NEW);
	CHECK(pfn_pending(start));
	CHECK_EQ(start_isolate_page_range(start, start + 2 * pageblock_nr_pages, 0, &failed), 0);
	CHECK(!pfn_pending(start));
	CHECK(get_pageblock_isolate(start));
	undo_isolate_page_range(start, start + 2 * pageblock_nr_pages);
	CHECK(!get_pageblock_isolate(start));
	check_pending_counters(e);
	di_restore();
}

HTEST(deferred_init_hotplug_next_to_pending_memory)
{
	const struct snapshot *e = eager_snapshot();
	struct memory_block *mem;
	u64 managed;

	di_boot(DESIGN_NEW);
	CHECK(pfn_pending(HOLE_PFN - 1));			/* section 5 waits */
	managed = totalram_pages();
	CHECK_EQ(add_memory(0, PFN_PHYS(HOLE_PFN), PAGES_PER_SECTION << PAGE_SHIFT, -1, MHP_NONE), 0);
	mem = find_memory_block_by_id(6);
	CHECK(mem != NULL);
	CHECK(mem && memory_block_online(mem, MMOP_ONLINE_KERNEL) == 0);
	CHECK_EQ(totalram_pages(), managed + PAGES_PER_SECTION);
	CHECK(pfn_pending(HOLE_PFN - 1));			/* untouched */
	hotplug_check_invariants();
	deferred_init_finish();
	hotplug_check_invariants();
	CHECK(NODE_DATA(0)->node_zones[ZONE_DMA32].contiguous);
	CHECK_EQ(totalram_pages(), e->zones[0][ZONE_DMA].managed_pages +
		 e->zones[0][ZONE_DMA32].managed_pages + e->zones[1][ZONE_DMA32].managed_pages +
		 PAGES_PER_SECTION);
	CHECK(mem && memory_block_offline(mem) == 0);
	di_restore();
}

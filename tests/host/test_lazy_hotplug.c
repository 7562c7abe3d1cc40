/*
 * test_lazy_hotplug.c - deferred_init_hotplug=1: hot-added blocks onlined
 * with their memmap pending, initialised later by mechanism 5's steps, its
 * grows on demand and its range inits (offline of a pending block).  The
 * result after completion must be the eager online's: every struct page
 * byte-identical, every section, the zone counters, and the free lists as
 * sets of (pfn, order, migratetype); while it runs the counters follow
 * the rule of docs/deferred-init.md (present, managed, MemTotal and free
 * grow at the online as with the eager online; the free pages wait in
 * zone->nr_free_pending, not in the buddy).  Random plug sizes and
 * positions, random interleavings, seeded.
 */
#include "htest.h"
#include "mm_host.h"
#include "platform_stub.h"
#include "hotplug_check.h"
#include <stdlib.h>
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/buddy.h>
#include <mm/deferred_init.h>
#include <mm/mechanisms.h>
#include <mm/memory_hotplug.h>
#include "../../mm/buddy_internal.h"
#include "../../mm/internal.h"
#include <lib/printk.h>
#include <lib/errno.h>
#include "hotplug_fixture.h"

#define LH_RAM		(8 * GiB)
#define LH_BOOT		(512 * MiB)
#define LH_BLOCKS	24			/* the window above HOTPLUG_BASE */
#define LH_END_PFN	((HOTPLUG_BASE + LH_BLOCKS * MEMORY_BLOCK_SIZE) >> PAGE_SHIFT)

/* Boot with mechanism 5 new (all boot memory early, so only hot-added
 * memory can wait) and the knob as lazy says. */
static void lh_boot(bool lazy)
{
	deferred_init_set_design(DESIGN_NEW);
	deferred_init_set_early(~0ULL);
	boot(LH_RAM, LH_BOOT);
	deferred_init_hotplug_set(lazy);
	CHECK_EQ(deferred_init_hotplug_enabled(), lazy);
	CHECK_EQ(deferred_init_pending_sections(), 0);
}

static void lh_restore(void)
{
	deferred_init_hotplug_set(false);
	deferred_init_set_design(DESIGN_OLD);
	deferred_init_set_early(256 * MiB);
	mech_register_leave_new(MECH_DEFERRED_INIT, NULL);
	mech_set(MECH_DEFERRED_INIT, DESIGN_OLD);
}

/* ---- what the comparison looks at ------------------------------------------ */

struct lh_free { u64 pfn; unsigned order; int mt; };

struct lh_snap {
	struct page *memmap;		/* [0, LH_END_PFN), 0x5a where not readable */
	struct mem_section *sections;
	struct zone zones[MAX_NR_ZONES];
	struct lh_free *free;
	u64 nr_free;
	unsigned long totalram;
};

static int lh_free_cmp(const void *a, const void *b)
{
	const struct lh_free *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

static void lh_take(struct lh_snap *s)
{
	u64 nsec = LH_END_PFN / PAGES_PER_SECTION, n = 0, cap = 1 << 14;
	struct zone *zone;

	for_each_zone(zone)
		pcp_drain_zone(zone);
	s->memmap = malloc(LH_END_PFN * sizeof(struct page));
	s->sections = calloc(nsec, sizeof(struct mem_section));
	s->free = malloc(cap * sizeof(*s->free));
	CHECK(s->memmap && s->sections && s->free);
	for (u64 pfn = 0; pfn < LH_END_PFN; pfn++) {
		if (pfn_valid(pfn) && online_section(__pfn_to_section(pfn)))
			s->memmap[pfn] = *pfn_to_page(pfn);
		else
			memset(&s->memmap[pfn], 0x5a, sizeof(struct page));
	}
	for (u64 nr = 0; nr < nsec; nr++)
		if (__nr_to_section(nr))
			s->sections[nr] = *__nr_to_section(nr);
	for (int z = 0; z < MAX_NR_ZONES; z++)
		s->zones[z] = NODE_DATA(0)->node_zones[z];
	for_each_zone(zone)
		for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
			for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
				struct page *p;

				list_for_each_entry(p, &zone->free_area[o].free_list[mt], lru) {
					if (n == cap)
						s->free = realloc(s->free, (cap *= 2) * sizeof(*s->free));
					s->free[n++] = (struct lh_free){ page_to_pfn(p), o, mt };
				}
			}
	qsort(s->free, n, sizeof(*s->free), lh_free_cmp);
	s->nr_free = n;
	s->totalram = totalram_pages();
}

static void lh_put(struct lh_snap *s)
{
	free(s->memmap);
	free(s->sections);
	free(s->free);
}

/* The same machine?  Struct pages may differ only in the lru words of
 * free blocks (list order); returns the struct pages that differ else. */
static u64 lh_compare(const struct lh_snap *a, const struct lh_snap *b)
{
	u64 differ = 0;

	for (u64 pfn = 0; pfn < LH_END_PFN; pfn++) {
		struct page x = a->memmap[pfn], y = b->memmap[pfn];

		if (!memcmp(&x, &y, sizeof(x)))
			continue;
		if (PageBuddy(&x) && PageBuddy(&y)) {
			x.lru = y.lru;
			if (!memcmp(&x, &y, sizeof(x)))
				continue;
		}
		if (!differ++)
			fprintf(stderr, "  first differing struct page: pfn %#llx\n", (unsigned long long)pfn);
	}
	for (u64 nr = 0; nr < LH_END_PFN / PAGES_PER_SECTION; nr++)
		CHECK(!memcmp(&a->sections[nr], &b->sections[nr], sizeof(struct mem_section)));
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		const struct zone *x = &a->zones[z], *y = &b->zones[z];

		CHECK_EQ(x->zone_start_pfn, y->zone_start_pfn);
		CHECK_EQ(x->spanned_pages, y->spanned_pages);
		CHECK_EQ(x->present_pages, y->present_pages);
		CHECK_EQ(x->managed_pages, y->managed_pages);
		CHECK_EQ(x->pages_with_online_memmap, y->pages_with_online_memmap);
		CHECK_EQ(x->contiguous, y->contiguous);
		CHECK_EQ(zone_nr_free(x), zone_nr_free(y));
		for (int w = 0; w < NR_WMARK; w++)
			CHECK_EQ(x->watermark[w], y->watermark[w]);
	}
	CHECK_EQ(a->nr_free, b->nr_free);
	for (u64 i = 0; i < MIN(a->nr_free, b->nr_free); i++) {
		CHECK_EQ(a->free[i].pfn, b->free[i].pfn);
		CHECK_EQ(a->free[i].order, b->free[i].order);
		CHECK_EQ(a->free[i].mt, b->free[i].mt);
		if (a->free[i].pfn != b->free[i].pfn)
			break;
	}
	CHECK_EQ(a->totalram, b->totalram);
	return differ;
}

/* ---- one random scenario, run eagerly and lazily ---------------------------- */

/*
 * The plan of a scenario, from its seed: ranges of blocks added (random
 * positions and sizes in the window), each block onlined (online or
 * online_movable), and a list of operations between and after the
 * onlines: a step of 1-3 sections, a grow of a zone, an offline of a
 * random online block (online again at once, the same type).  The eager
 * run does the same operations; its steps and grows find nothing.
 */
enum lh_op { OP_ONLINE, OP_STEP, OP_GROW, OP_OFFLINE_ONLINE };

struct lh_event { enum lh_op op; unsigned long block; unsigned arg; };

struct lh_plan {
	u64 add_start[8], add_blocks[8];
	unsigned nr_adds;
	struct lh_event ev[256];
	unsigned nr_ev;
};

static void lh_make_plan(struct lh_plan *p, unsigned seed)
{
	bool used[LH_BLOCKS] = { false };
	unsigned long online[LH_BLOCKS];
	unsigned nr_online = 0;

	srand(seed);
	memset(p, 0, sizeof(*p));
	for (unsigned tries = 0; tries < 20 && p->nr_adds < 6; tries++) {
		unsigned at = (unsigned)rand() % LH_BLOCKS, n = 1 + (unsigned)rand() % 6;
		bool free_run = at + n <= LH_BLOCKS;

		for (unsigned i = at; free_run && i < at + n; i++)
			free_run = !used[i];
		if (!free_run)
			continue;
		for (unsigned i = at; i < at + n; i++)
			used[i] = true;
		p->add_start[p->nr_adds] = at;
		p->add_blocks[p->nr_adds++] = n;
	}
	for (unsigned a = 0; a < p->nr_adds; a++)
		for (u64 i = 0; i < p->add_blocks[a]; i++) {
			unsigned long b = BASE_BLOCK + p->add_start[a] + i;

			p->ev[p->nr_ev++] = (struct lh_event){ OP_ONLINE, b, (unsigned)rand() % 3 ?
							       MMOP_ONLINE : MMOP_ONLINE_MOVABLE };
			online[nr_online++] = b;
			if (rand() % 3 == 0)
				p->ev[p->nr_ev++] = (struct lh_event){ OP_STEP, 0, 1 + (unsigned)rand() % 3 };
		}
	for (unsigned k = 0; k < 12 && p->nr_ev < 250 && nr_online; k++) {
		int r = rand() % 3;

		if (r == 0)
			p->ev[p->nr_ev++] = (struct lh_event){ OP_STEP, 0, 1 + (unsigned)rand() % 3 };
		else if (r == 1)
			p->ev[p->nr_ev++] = (struct lh_event){ OP_GROW, 0, rand() % 2 ? ZONE_NORMAL : ZONE_MOVABLE };
		else
			p->ev[p->nr_ev++] = (struct lh_event){ OP_OFFLINE_ONLINE,
							       online[(unsigned)rand() % nr_online], 0 };
	}
}

/* Over all lazy runs: sections each path initialised (or offlined unwritten), and left to the end. */
static u64 lh_steps, lh_grows, lh_ranges, lh_discards, lh_left;

/* Run plan p on a machine booted lazy or eager; the snapshot after every
 * pending section was initialised. */
static void lh_run(const struct lh_plan *p, bool lazy, struct lh_snap *s)
{
	lh_boot(lazy);
	for (unsigned a = 0; a < p->nr_adds; a++)
		CHECK_EQ(add_memory(0, HOTPLUG_BASE + p->add_start[a] * MEMORY_BLOCK_SIZE,
				    p->add_blocks[a] * MEMORY_BLOCK_SIZE, -1, MHP_NONE), 0);
	for (unsigned i = 0; i < p->nr_ev; i++) {
		const struct lh_event *e = &p->ev[i];
		struct memory_block *mem = e->block ? block(e->block) : NULL;

		switch (e->op) {
		case OP_ONLINE: {
			unsigned long total = totalram_pages(), free = global_free_pages();
			u64 present = NODE_DATA(0)->node_present_pages;

			CHECK_EQ(memory_block_online(mem, (enum mmop)e->arg), 0);
			CHECK_EQ(pfn_pending(memory_block_start_pfn(mem)), lazy);
			/* present, managed (MemTotal) and free at once, lazy or not */
			CHECK_EQ(NODE_DATA(0)->node_present_pages, present + BLOCK_PAGES);
			CHECK_EQ(totalram_pages(), total + BLOCK_PAGES);
			CHECK_EQ(global_free_pages(), free + BLOCK_PAGES);
			CHECK_EQ(mem->zone->nr_free_pending >= BLOCK_PAGES, lazy);
			break;
		}
		case OP_STEP:
			deferred_init_step(e->arg);
			break;
		case OP_GROW:
			deferred_grow_zone(zone_of(0, (enum zone_type)e->arg), 0);
			break;
		case OP_OFFLINE_ONLINE: {
			enum mmop type = mem->online_type;

			CHECK_EQ(memory_block_offline(mem), 0);
			CHECK(!pfn_pending(memory_block_start_pfn(mem)));
			CHECK_EQ(memory_block_online(mem, type), 0);
			break;
		}
		}
		hotplug_check_invariants();
	}
	if (lazy) {
		lh_steps += deferred_init_stats.step_sections;
		lh_grows += deferred_init_stats.grow_sections;
		lh_ranges += deferred_init_stats.range_sections;
		lh_discards += deferred_init_stats.hotplug_discarded;
		lh_left += deferred_init_pending_sections();
	}
	deferred_init_finish();
	CHECK_EQ(deferred_init_pending_sections(), 0);
	CHECK_EQ(deferred_init_pending_pages(NUMA_NO_NODE), 0);
	/* the watermarks are compared as they are: the lazy online set them
	 * from the final managed pages, as the eager one */
	hotplug_check_invariants();
	lh_take(s);
}

HTEST(lazy_hotplug_random_plugs_equal_eager)
{
	static struct lh_plan plan;

	for (unsigned seed = 1; seed <= 12; seed++) {
		struct lh_snap eager, lazy;

		lh_make_plan(&plan, seed);
		lh_run(&plan, false, &eager);
		lh_run(&plan, true, &lazy);
		CHECK_EQ(lh_compare(&eager, &lazy), 0);
		lh_put(&eager);
		lh_put(&lazy);
	}
	/* every path ran on some seed */
	CHECK(lh_steps > 0 && lh_grows > 0 && lh_discards > 0 && lh_left > 0);
	lh_restore();
}

/* ---- virtio-mem's online callback: only plugged sub-blocks to the buddy ------- */

/*
 * A model of the virtio-mem driver's part (drivers/virtio/virtio_mem_plug.c):
 * per block of the window a bitmap of 32 sub-blocks of 4 MiB; the online
 * callback, set deferrable, gives plugged runs to the buddy and keeps the
 * others PageOffline; a plug into an online block initialises a pending
 * section first, then fake-onlines the sub-block; an unplug initialises
 * it first too, takes the sub-block with alloc_contig_range (frozen) and
 * fake-offlines it.  The driver itself runs against its fake device in
 * suite virtio; here the mm side is compared eager against lazy.
 */
#define VM_SB_PER_MB	32u
#define VM_SB_PAGES	(BLOCK_PAGES / VM_SB_PER_MB)

static u32 vm_plugged[LH_BLOCKS];	/* bit sb of block BASE_BLOCK + i */

static bool vm_sb_plugged(u64 pfn)
{
	u64 b = pfn / BLOCK_PAGES - BASE_BLOCK;

	return (vm_plugged[b] >> ((pfn % BLOCK_PAGES) / VM_SB_PAGES)) & 1;
}

/* The model's count op: the pages its callback would free. */
static u64 vm_online_count(u64 start_pfn, u64 end_pfn)
{
	u64 pages = 0;

	for (u64 pfn = start_pfn; pfn < end_pfn; pfn += VM_SB_PAGES)
		pages += vm_sb_plugged(pfn) ? VM_SB_PAGES : 0;
	return pages;
}

/* The model's online callback: runs of sub-blocks in the same state. */
static void vm_online_page(u64 start_pfn, u64 end_pfn)
{
	for (u64 pfn = start_pfn; pfn < end_pfn;) {
		bool plugged = vm_sb_plugged(pfn);
		u64 next = pfn + VM_SB_PAGES;

		while (next < end_pfn && vm_sb_plugged(next) == plugged)
			next += VM_SB_PAGES;
		if (plugged)
			generic_online_pages(pfn, next);
		else
			online_pages_keep_offline(pfn, next);
		pfn = next;
	}
}

enum vm_op { VM_ONLINE, VM_STEP, VM_GROW, VM_PLUG, VM_UNPLUG, VM_OFFLINE_ONLINE };

struct vm_event { enum vm_op op; unsigned block; unsigned arg; };

struct vm_plan {
	unsigned first, nr;		/* blocks [first, first + nr) of the window */
	u32 bits[LH_BLOCKS];		/* the bitmap of each block at its online */
	struct vm_event ev[256];
	unsigned nr_ev;
};

/* A random plan: one range of blocks, random bitmaps (runs of plugged and
 * unplugged sub-blocks, at least one plugged), random plugs and unplugs
 * (before and after each section's init), offlines and onlines of whole
 * blocks (a pending one goes unwritten), steps and grows.  No
 * allocations: they would take different pages in the two runs, and an
 * unplug of a page in use fails (test_lazy_hotplug_allocate_* allocates). */
static void vm_make_plan(struct vm_plan *p, unsigned seed)
{
	u32 bits[LH_BLOCKS];
	unsigned nr_online = 0;

	srand(seed);
	memset(p, 0, sizeof(*p));
	p->nr = 2 + (unsigned)rand() % 8;
	p->first = (unsigned)rand() % (LH_BLOCKS - p->nr + 1);
	for (unsigned i = p->first; i < p->first + p->nr; i++) {
		u32 b = 0;

		if (rand() % 4 == 0) {
			b = ~0u;	/* fully plugged, as a big plug adds them */
		} else {
			for (unsigned sb = 0; sb < VM_SB_PER_MB;) {
				unsigned run = 1 + (unsigned)rand() % 8;
				bool on = rand() % 2;

				for (; run-- && sb < VM_SB_PER_MB; sb++)
					b |= on ? 1u << sb : 0;
			}
			b |= 1u << ((unsigned)rand() % VM_SB_PER_MB);
		}
		p->bits[i] = bits[i] = b;
	}
	for (unsigned i = p->first; i < p->first + p->nr; i++) {
		p->ev[p->nr_ev++] = (struct vm_event){ VM_ONLINE, i, (unsigned)rand() % 3 ?
						       MMOP_ONLINE : MMOP_ONLINE_MOVABLE };
		nr_online++;
		if (rand() % 3 == 0)
			p->ev[p->nr_ev++] = (struct vm_event){ VM_STEP, 0, 1 + (unsigned)rand() % 2 };
	}
	for (unsigned k = 0; k < 40 && p->nr_ev < 250; k++) {
		unsigned i = p->first + (unsigned)rand() % p->nr, sb = (unsigned)rand() % VM_SB_PER_MB;
		int r = rand() % 6;

		if (r == 5)	/* a whole block out and in (pending: offlined unwritten) */
			p->ev[p->nr_ev++] = (struct vm_event){ VM_OFFLINE_ONLINE, i, 0 };
		else if (r == 0)
			p->ev[p->nr_ev++] = (struct vm_event){ VM_STEP, 0, 1 };
		else if (r == 1)
			p->ev[p->nr_ev++] = (struct vm_event){ VM_GROW, 0, rand() % 2 ? ZONE_NORMAL : ZONE_MOVABLE };
		else if (!((bits[i] >> sb) & 1) && r <= 3)
			p->ev[p->nr_ev++] = (struct vm_event){ VM_PLUG, i, sb }, bits[i] |= 1u << sb;
		else if ((bits[i] >> sb) & 1 && (bits[i] & ~(1u << sb)))	/* one stays plugged */
			p->ev[p->nr_ev++] = (struct vm_event){ VM_UNPLUG, i, sb }, bits[i] &= ~(1u << sb);
	}
}

/* Over all lazy runs: plugs, unplugs and offlines that met a pending section. */
static u64 vm_pending_plugs, vm_pending_unplugs, vm_pending_offlines;

/* Run plan p, lazy or eager; the snapshot after completion. */
static void vm_run(const struct vm_plan *p, bool lazy, struct lh_snap *s)
{
	lh_boot(lazy);
	memset(vm_plugged, 0, sizeof(vm_plugged));
	CHECK_EQ(set_online_page_callback_deferrable(vm_online_page, vm_online_count), 0);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE + (u64)p->first * MEMORY_BLOCK_SIZE,
			    p->nr * MEMORY_BLOCK_SIZE, -1, MHP_NONE), 0);
	for (unsigned e = 0; e < p->nr_ev; e++) {
		const struct vm_event *ev = &p->ev[e];
		bool on_block = ev->op == VM_ONLINE || ev->op == VM_PLUG || ev->op == VM_UNPLUG ||
				ev->op == VM_OFFLINE_ONLINE;
		struct memory_block *mem = on_block ? block(BASE_BLOCK + ev->block) : NULL;
		u64 mb = mem ? memory_block_start_pfn(mem) : 0, sb = mb + (u64)ev->arg * VM_SB_PAGES;
		struct contig_alloc_report rep;

		switch (ev->op) {
		case VM_ONLINE: {
			unsigned long total = totalram_pages();

			vm_plugged[ev->block] = p->bits[ev->block];
			CHECK_EQ(memory_block_online(mem, (enum mmop)ev->arg), 0);
			CHECK_EQ(pfn_pending(mb), lazy);
			CHECK_EQ(totalram_pages(),
				 total + __builtin_popcount(p->bits[ev->block]) * VM_SB_PAGES);
			break;
		}
		case VM_STEP:
			deferred_init_step(ev->arg);
			break;
		case VM_GROW:
			deferred_grow_zone(zone_of(0, (enum zone_type)ev->arg), 0);
			break;
		case VM_PLUG:
			if (lazy && pfn_pending(mb))
				vm_pending_plugs++;
			deferred_init_pfn_range(mb, mb + BLOCK_PAGES);	/* the driver's order */
			vm_plugged[ev->block] |= 1u << ev->arg;
			fake_online_pages(sb, sb + VM_SB_PAGES);
			break;
		case VM_UNPLUG:
			if (lazy && pfn_pending(mb))
				vm_pending_unplugs++;
			deferred_init_pfn_range(mb, mb + BLOCK_PAGES);
			if (alloc_contig_range_explain(sb, sb + VM_SB_PAGES, MIGRATE_MOVABLE, __GFP_NOWARN,
						       true, &rep))
				break;	/* in use (the eager run fails the same way) */
			fake_offline_pages(sb, sb + VM_SB_PAGES);
			vm_plugged[ev->block] &= ~(1u << ev->arg);
			break;
		case VM_OFFLINE_ONLINE: {
			enum mmop type = mem->online_type;
			unsigned long total = totalram_pages();
			u64 plugged = (u64)__builtin_popcount(vm_plugged[ev->block]) * VM_SB_PAGES;
			u64 discarded = deferred_init_stats.hotplug_discarded;
			bool pending = lazy && pfn_pending(mb);

			vm_pending_offlines += pending;
			CHECK_EQ(memory_block_offline(mem), 0);
			CHECK_EQ(deferred_init_stats.hotplug_discarded, discarded + pending);
			CHECK_EQ(totalram_pages(), total - plugged);
			hotplug_check_invariants();
			CHECK_EQ(memmap_unwritten_section(__pfn_to_section(mb)), pending);
			CHECK_EQ(memory_block_online(mem, type), 0);
			CHECK(!memmap_unwritten_section(__pfn_to_section(mb)));
			CHECK_EQ(pfn_pending(mb), lazy);
			CHECK_EQ(totalram_pages(), total);
			break;
		}
		}
		hotplug_check_invariants();
	}
	if (lazy)
		lh_left += deferred_init_pending_sections();
	deferred_init_finish();
	CHECK_EQ(deferred_init_pending_sections(), 0);
	hotplug_check_invariants();
	/* every sub-block as its bit says: PageOffline exactly where unplugged */
	for (unsigned i = p->first; i < p->first + p->nr; i++)
		for (u64 pfn = (BASE_BLOCK + i) * BLOCK_PAGES; pfn < (BASE_BLOCK + i + 1) * BLOCK_PAGES;
		     pfn += VM_SB_PAGES / 4)
			CHECK_EQ(PageOffline(pfn_to_page(pfn)), !vm_sb_plugged(pfn));
	lh_take(s);
	CHECK_EQ(restore_online_page_callback(vm_online_page), 0);
}

/* ---- allocation, removal, and when it stays eager ---------------------------- */

/*
 * 2 GiB added and onlined movable on a 512 MiB machine: MemTotal, free and
 * present grow by all of it at once; an allocation of 1 GiB movable succeeds by
 * growing the zone on demand; freed, then offline_and_remove_memory() of
 * all of it (its pending blocks initialised first) leaves every counter as
 * before the add: nothing lost.
 */
HTEST(lazy_hotplug_allocate_then_remove_exact_counters)
{
	static struct page *pages[1024];
	unsigned long total0, free0, free_added;
	u64 present0;
	unsigned n = 0;

	lh_boot(true);
	total0 = totalram_pages();
	free0 = global_free_pages();
	present0 = NODE_DATA(0)->node_present_pages;
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 2 * GiB, -1, MHP_NONE), 0);
	free_added = global_free_pages();	/* less the added memory's memmap */
	for (unsigned long b = BASE_BLOCK; b < BASE_BLOCK + 16; b++)
		CHECK_EQ(memory_block_online(block(b), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(deferred_init_pending_sections(), 16);
	CHECK_EQ(deferred_init_pending_pages(0), 16 * BLOCK_PAGES);
	CHECK_EQ(deferred_init_zone_pending_pages(zone_of(0, ZONE_MOVABLE)), 16 * BLOCK_PAGES);
	CHECK_EQ(zone_of(0, ZONE_MOVABLE)->nr_free_pending, 16 * BLOCK_PAGES);
	CHECK_EQ(totalram_pages(), total0 + 16 * BLOCK_PAGES);
	CHECK_EQ(global_free_pages(), free_added + 16 * BLOCK_PAGES);
	CHECK_EQ(NODE_DATA(0)->node_present_pages, present0 + 16 * BLOCK_PAGES);
	hotplug_check_invariants();
	for (; n < 1024; n++) {
		pages[n] = alloc_pages(GFP_MOVABLE, 8);	/* 1 MiB each */
		if (!pages[n])
			break;
	}
	CHECK_EQ(n, 1024);
	CHECK(deferred_init_stats.grow_sections > 0);
	CHECK(deferred_init_pending_sections() < 16);
	hotplug_check_invariants();
	for (unsigned i = 0; i < n; i++)
		CHECK_EQ(free_pages(pages[i], 8), 0);
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 2 * GiB), 0);
	CHECK_EQ(deferred_init_pending_sections(), 0);
	{
		struct zone *zone;

		for_each_zone(zone)
			pcp_drain_zone(zone);
	}
	CHECK_EQ(totalram_pages(), total0);
	CHECK_EQ(global_free_pages(), free0);
	CHECK_EQ(NODE_DATA(0)->node_present_pages, present0);
	hotplug_check_invariants();
	lh_restore();
}

/*
 * A pending block offlined before anything initialised it: it goes without
 * its memmap ever being written (deferred_init_hotplug_discard()).  1 GiB
 * added, its struct pages filled with a pattern, onlined lazily (nothing
 * written), then block by block offlined and removed: every counter
 * (MemTotal, free, present, nr_free_pending, the pending sections) comes
 * back to its value before the add, the offlines count as discarded, no
 * range init ran, and until the removal the offlined block's struct pages
 * still hold the pattern in every field the offline's poison leaves alone.
 * A block initialised in part first (an allocation from it) is offlined the
 * usual way: isolation and migration, not discarded.
 */
HTEST(lazy_hotplug_offline_of_a_pending_block_writes_no_memmap)
{
	const unsigned nr = 8;
	unsigned long total0, free0;
	u64 present0, pending_free0;
	struct zone *movable;

	lh_boot(true);
	movable = zone_of(0, ZONE_MOVABLE);
	total0 = totalram_pages();
	present0 = NODE_DATA(0)->node_present_pages;
	pending_free0 = movable->nr_free_pending;
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, (u64)nr * MEMORY_BLOCK_SIZE, -1, MHP_NONE), 0);
	free0 = global_free_pages();	/* less the added memory's memmap */
	for (unsigned b = 0; b < nr; b++) {
		struct page *first = pfn_to_page((BASE_BLOCK + b) * BLOCK_PAGES);

		memset(first, 0xa5, BLOCK_PAGES * sizeof(struct page));
		CHECK_EQ(memory_block_online(block(BASE_BLOCK + b), MMOP_ONLINE_MOVABLE), 0);
	}
	CHECK_EQ(deferred_init_pending_sections(), nr);
	CHECK_EQ(totalram_pages(), total0 + nr * BLOCK_PAGES);
	/* the first block's memmap written by an allocation from it */
	CHECK_EQ(deferred_init_pfn_range(BASE_BLOCK * BLOCK_PAGES, (BASE_BLOCK + 1) * BLOCK_PAGES), 1);
	CHECK_EQ(deferred_init_pending_sections(), nr - 1);
	for (unsigned b = nr; b-- > 0;) {
		struct memory_block *mem = block(BASE_BLOCK + b);
		u64 pfn0 = (BASE_BLOCK + b) * BLOCK_PAGES;
		u64 discarded = deferred_init_stats.hotplug_discarded;
		bool pending = pfn_pending(pfn0);

		CHECK_EQ(pending, b != 0);
		CHECK_EQ(memory_block_offline(mem), 0);
		CHECK_EQ(mem->state, MEM_OFFLINE);
		CHECK(!pfn_pending(pfn0));
		CHECK_EQ(deferred_init_stats.hotplug_discarded, discarded + pending);
		CHECK_EQ(memmap_unwritten_section(__pfn_to_section(pfn0)), pending);
		CHECK_EQ(totalram_pages(), total0 + b * BLOCK_PAGES);
		CHECK_EQ(global_free_pages(), free0 + b * BLOCK_PAGES);
		CHECK_EQ(NODE_DATA(0)->node_present_pages, present0 + (u64)b * BLOCK_PAGES);
		if (pending) {
			for (u64 pfn = pfn0; pfn < pfn0 + BLOCK_PAGES; pfn += 4099) {
				const struct page *pg = pfn_to_page(pfn);

				CHECK_EQ(pg->private, 0xa5a5a5a5a5a5a5a5UL);
				CHECK_EQ(pg->index, 0xa5a5a5a5a5a5a5a5UL);
				CHECK_EQ(pg->memlab_debug, 0xa5a5a5a5a5a5a5a5UL);
			}
		}
		hotplug_check_invariants();
	}
	CHECK_EQ(deferred_init_stats.range_sections, 1);
	CHECK_EQ(deferred_init_pending_sections(), 0);
	CHECK_EQ(deferred_init_pending_pages(NUMA_NO_NODE), 0);
	CHECK_EQ(movable->nr_free_pending, pending_free0);
	CHECK_EQ(remove_memory(HOTPLUG_BASE, (u64)nr * MEMORY_BLOCK_SIZE), 0);
	{
		struct zone *zone;

		for_each_zone(zone)
			pcp_drain_zone(zone);
	}
	CHECK_EQ(totalram_pages(), total0);
	CHECK_EQ(NODE_DATA(0)->node_present_pages, present0);
	hotplug_check_invariants();
	lh_restore();
}

/*
 * All of a pending zone: 1 GiB onlined movable, all of it pending and
 * counted free; 2 MiB movable allocations are taken until one lands
 * outside ZONE_MOVABLE.  None may fail or fall back while the zone still
 * has pending free pages (the watermark check counts them and the
 * allocator grows the zone into them), so at the first fallback nothing
 * of Movable is pending and its free pages are below its watermark; the
 * Movable allocations are then the zone's free pages less that reserve.
 * Freed and removed, every counter is back.
 */
HTEST(lazy_hotplug_allocate_all_of_a_pending_zone)
{
	static struct page *pages[1024];
	struct zone *movable;
	unsigned long total0, free0, zone_free;
	unsigned n = 0, in_movable = 0;
	u64 present0;

	lh_boot(true);
	movable = zone_of(0, ZONE_MOVABLE);
	total0 = totalram_pages();
	free0 = global_free_pages();
	present0 = NODE_DATA(0)->node_present_pages;
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, GiB, -1, MHP_NONE), 0);
	for (unsigned long b = BASE_BLOCK; b < BASE_BLOCK + 8; b++)
		CHECK_EQ(memory_block_online(block(b), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(deferred_init_pending_sections(), 8);
	zone_free = zone_nr_free_pages(movable);
	CHECK_EQ(zone_free, 8 * BLOCK_PAGES);
	CHECK_EQ(movable->nr_free_pending, 8 * BLOCK_PAGES);
	CHECK_EQ(movable->nr_free_buddy, 0);
	CHECK(zone_watermark_ok(movable, 0, zone_wmark(movable, WMARK_LOW), ZONE_MOVABLE, 0));
	hotplug_check_invariants();
	for (; n < ARRAY_SIZE(pages); n++) {
		pages[n] = alloc_pages(GFP_MOVABLE | __GFP_NOWARN, 9);
		CHECK(pages[n] != NULL);
		if (!pages[n] || page_zone(pages[n]) != movable)
			break;
		in_movable++;
	}
	CHECK(n < ARRAY_SIZE(pages));
	CHECK_EQ(movable->nr_free_pending, 0);
	CHECK_EQ(deferred_init_zone_pending_pages(movable), 0);
	CHECK_EQ(deferred_init_pending_sections(), 0);
	CHECK(zone_nr_free(movable) < zone_wmark(movable, WMARK_LOW) + 512);
	CHECK_EQ((u64)in_movable * 512 + zone_nr_free(movable), zone_free);
	hotplug_check_invariants();
	for (unsigned i = 0; i <= n && i < ARRAY_SIZE(pages); i++)
		if (pages[i])
			CHECK_EQ(free_pages(pages[i], 9), 0);
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, GiB), 0);
	{
		struct zone *zone;

		for_each_zone(zone)
			pcp_drain_zone(zone);
	}
	CHECK_EQ(totalram_pages(), total0);
	CHECK_EQ(global_free_pages(), free0);
	CHECK_EQ(NODE_DATA(0)->node_present_pages, present0);
	hotplug_check_invariants();
	lh_restore();
}

/*
 * The hot-add table: the static one covers the first 1 TiB of sections; a
 * map that reaches further gets one from the allocator, end / 128 MiB
 * entries of 16 bytes, and without that memory the static one stays
 * (logged).  A boot sizes it again and starts it empty.
 */
static u64 lh_alloc_bytes;
static void *lh_allocated;

static void *lh_alloc(u64 bytes)
{
	lh_alloc_bytes = bytes;
	free(lh_allocated);
	return lh_allocated = malloc(bytes);	/* not zeroed: the sizing clears it */
}

static void *lh_alloc_none(u64 bytes)
{
	(void)bytes;
	return NULL;
}

HTEST(lazy_hotplug_table_sized_from_the_map)
{
	lh_boot(true);
	CHECK_EQ(deferred_init_hotplug_size(512ULL << 30, lh_alloc), 0);
	CHECK_EQ(lh_alloc_bytes, 0);		/* static: 1 TiB of sections */
	CHECK_EQ(deferred_init_hotplug_size(1ULL << 40, lh_alloc), 0);
	CHECK_EQ(lh_alloc_bytes, 0);
	CHECK_EQ(deferred_init_hotplug_size((2ULL << 40) + 1, lh_alloc), 0);
	CHECK_EQ(lh_alloc_bytes, (16384 + 1) * 16);	/* 2 TiB and a bit: one section more */
	/* the sized table in use: a lazy online, its entry, the hand-over */
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 2 * MEMORY_BLOCK_SIZE, -1, MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(BASE_BLOCK), MMOP_ONLINE_MOVABLE), 0);
	CHECK(pfn_pending(memory_block_start_pfn(block(BASE_BLOCK))));
	CHECK_EQ(deferred_init_zone_pending_free(zone_of(0, ZONE_MOVABLE)), BLOCK_PAGES);
	hotplug_check_invariants();
	deferred_init_finish();
	CHECK_EQ(deferred_init_zone_pending_free(zone_of(0, ZONE_MOVABLE)), 0);
	hotplug_check_invariants();
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 2 * MEMORY_BLOCK_SIZE), 0);
	lh_alloc_bytes = 0;
	CHECK_EQ(deferred_init_hotplug_size(2ULL << 40, lh_alloc_none), -ENOMEM);	/* static kept */
	lh_boot(true);
	CHECK_EQ(deferred_init_zone_pending_free(zone_of(0, ZONE_MOVABLE)), 0);
	free(lh_allocated);
	lh_allocated = NULL;
	lh_restore();
}

/* Knob off, mechanism 5 old, memmap_on_memory or a foreign online
 * callback: the online is eager. */
static void lh_cb(u64 start_pfn, u64 end_pfn)
{
	generic_online_pages(start_pfn, end_pfn);
}

HTEST(lazy_hotplug_stays_eager_when_it_must)
{
	lh_boot(false);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, GiB, -1, MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(BASE_BLOCK), MMOP_ONLINE), 0);
	CHECK(!pfn_pending(memory_block_start_pfn(block(BASE_BLOCK))));
	deferred_init_hotplug_set(true);
	mech_set(MECH_DEFERRED_INIT, DESIGN_OLD);
	CHECK(!deferred_init_hotplug_enabled());
	CHECK_EQ(memory_block_online(block(BASE_BLOCK + 1), MMOP_ONLINE), 0);
	CHECK(!pfn_pending(memory_block_start_pfn(block(BASE_BLOCK + 1))));
	mech_set(MECH_DEFERRED_INIT, DESIGN_NEW);
	CHECK_EQ(set_online_page_callback(lh_cb), 0);
	CHECK_EQ(memory_block_online(block(BASE_BLOCK + 2), MMOP_ONLINE), 0);
	CHECK(!pfn_pending(memory_block_start_pfn(block(BASE_BLOCK + 2))));
	CHECK_EQ(restore_online_page_callback(lh_cb), 0);
	CHECK_EQ(memory_block_online(block(BASE_BLOCK + 3), MMOP_ONLINE), 0);
	CHECK(pfn_pending(memory_block_start_pfn(block(BASE_BLOCK + 3))));
	CHECK_EQ(deferred_init_pending_sections(), 1);
	hotplug_check_invariants();
	/* the mechanism's switch to old finishes the pending work */
	mech_set(MECH_DEFERRED_INIT, DESIGN_OLD);
	CHECK_EQ(deferred_init_pending_sections(), 0);
	hotplug_check_invariants();
	lh_restore();
}

/*
 * The virtio-mem model on random bitmaps and random plugs and unplugs,
 * eager against lazy: after completion every struct page (PageOffline
 * exactly in the unplugged sub-blocks), section, zone counter and free
 * list the same.  Plugs and unplugs meet pending sections on some seeds.
 */
HTEST(lazy_hotplug_virtio_mem_random_plugs_equal_eager)
{
	static struct vm_plan plan;

	vm_pending_plugs = vm_pending_unplugs = vm_pending_offlines = 0;
	for (unsigned seed = 1; seed <= 16; seed++) {
		struct lh_snap eager, lazy;

		vm_make_plan(&plan, seed);
		vm_run(&plan, false, &eager);
		vm_run(&plan, true, &lazy);
		CHECK_EQ(lh_compare(&eager, &lazy), 0);
		lh_put(&eager);
		lh_put(&lazy);
	}
	CHECK(vm_pending_plugs > 0 && vm_pending_unplugs > 0 && vm_pending_offlines > 0);
	lh_restore();
}

/*
 * test_hotplug.c - memory hotplug (mm/memory_block.c, mm/memory_hotplug.c,
 * mm/memory_online.c) on simulated machines booted with mm_core_init().
 *
 * The simulated RAM (host_mm_reset) is larger than the boot RAM the
 * firmware map describes: hot-added ranges lie in the part above it, so
 * their pages can be written (migration copies data there).
 *
 * hotplug_check_invariants() (hotplug_check.h: zone, node, block and group
 * counters recounted from the memmap and the free lists, no page lost,
 * watermarks up to date) is run after every step.
 */
#include "htest.h"
#include "mm_host.h"
#include "platform_stub.h"
#include "hotplug_check.h"
#include <stdlib.h>
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/memblock.h>
#include <mm/gfp.h>
#include "../../mm/buddy_internal.h"
#include <mm/memory_hotplug.h>
#include "../../mm/internal.h"
#include <mm/migrate.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>
#include <lib/errno.h>

#define MiB		(1ULL << 20)
#define GiB		(1ULL << 30)
#define BLOCK_PAGES	PAGES_PER_MEMORY_BLOCK
#define HOTPLUG_BASE	(4 * GiB)
#define BASE_BLOCK	(HOTPLUG_BASE / MEMORY_BLOCK_SIZE)	/* 32 */

static struct fw_memmap map;
static struct mm_boot_params bp;

static struct zone *zone_of(int nid, enum zone_type z)
{
	return &NODE_DATA(nid)->node_zones[z];
}


/*
 * A machine with ram bytes of simulated RAM; the firmware map says RAM is
 * [0, boot_end) on node 0 and, if hole_start < hole_end, not in that hole.
 */
static void boot_with_hole(u64 ram, u64 boot_end, u64 hole_start, u64 hole_end)
{
	host_mm_reset(ram);
	printk_set_level(LOG_CRIT);
	fw_memmap_init(&map);
	memset(&bp, 0, sizeof(bp));
	bp.memmap = &map;
	if (hole_start < hole_end) {
		fw_memmap_add_raw(&map, 0, hole_start, FW_MEM_RAM);
		fw_memmap_add_raw(&map, hole_end, boot_end - hole_end, FW_MEM_RAM);
	} else {
		fw_memmap_add_raw(&map, 0, boot_end, FW_MEM_RAM);
	}
	fw_memmap_sanitize(&map);
	mm_core_init(&bp);
	memory_blocks_init_boot();	/* idempotent if mm_core_init did it */
	hotplug_knobs_default();
}

static void boot(u64 ram, u64 boot_end)
{
	boot_with_hole(ram, boot_end, 0, 0);
}

static struct memory_block *block(unsigned long id)
{
	return find_memory_block_by_id(id);
}

static const char *valid_zones(unsigned long id)
{
	static char buf[128];
	struct buf_printer bpr;

	buf_printer_init(&bpr, buf, sizeof(buf));
	memory_block_valid_zones(block(id), &bpr.p);
	return buf;
}

/* Roots of the section table that exist: they are never freed. */
static unsigned long nr_section_roots(void)
{
	unsigned long n = 0;

	for (u64 nr = 0; nr < (HOST_MAX_PHYS >> (SECTION_SIZE_BITS)); nr += SECTIONS_PER_ROOT)
		if (__nr_to_section(nr))
			n++;
	return n;
}

/* ---- allocations for the tests: movable ones have an owner -------------- */

struct talloc {
	struct movable_owner mo;	/* first: page->owner of a movable block */
	struct page *head;		/* where the block is now; NULL when free */
	unsigned order;			/* 2^order pages */
	u64 seed;			/* pattern of its contents */
	bool movable;			/* has an owner (can migrate) */
	unsigned moves;			/* moved() calls */
};

static bool talloc_block_of(struct page *page, struct page **head, unsigned *order)
{
	struct talloc *a = (struct talloc *)page->owner;
	u64 pfn = page_to_pfn(page), first;

	if (!a->head)
		return false;
	first = page_to_pfn(a->head);
	if (pfn < first || pfn >= first + (1ULL << a->order))
		return false;
	*head = a->head;
	*order = a->order;
	return true;
}

static void talloc_mark(struct page *head, unsigned order, struct movable_owner *mo)
{
	for (u64 i = 0; i < (1ULL << order); i++)
		head[i].owner = mo;
}

static void talloc_moved(struct page *old_head, struct page *new_head, unsigned order)
{
	struct talloc *a = (struct talloc *)old_head->owner;

	talloc_mark(new_head, order, &a->mo);
	talloc_mark(old_head, order, NULL);
	a->head = new_head;
	a->moves++;
}

static const struct movable_operations talloc_ops = {
	.name = "hotplug test", .block_of = talloc_block_of, .moved = talloc_moved,
};

static u64 talloc_word(u64 seed, u64 i)
{
	return (seed * 0x100000001b3ULL) ^ (i * 0xc2b2ae3d27d4eb4fULL) ^ i;
}

/* Allocate into a (a free slot that stays put), fill with the pattern. */
static bool talloc_get(struct talloc *a, gfp_t gfp, unsigned order, u64 seed)
{
	struct page *page = alloc_pages(gfp | __GFP_NOWARN, order);
	u64 *mem;

	if (!page)
		return false;
	*a = (struct talloc){ .mo.ops = &talloc_ops, .head = page, .order = order, .seed = seed,
			      .movable = (gfp & __GFP_MOVABLE) != 0 };
	if (a->movable)
		talloc_mark(page, order, &a->mo);
	mem = mm_phys_to_virt(page_to_phys(page));
	for (u64 i = 0; i < (PAGE_SIZE << order) / 8; i++)
		mem[i] = talloc_word(seed, i);
	return true;
}

static bool talloc_intact(const struct talloc *a)
{
	const u64 *mem = mm_phys_to_virt(page_to_phys(a->head));

	for (u64 i = 0; i < (1ULL << a->order); i++)
		if (a->head[i].refcount != 1 || a->head[i].owner != (a->movable ? &a->mo : NULL))
			return false;
	for (u64 i = 0; i < (PAGE_SIZE << a->order) / 8; i++)
		if (mem[i] != talloc_word(a->seed, i))
			return false;
	return true;
}

static void talloc_put(struct talloc *a)
{
	if (a->movable)
		talloc_mark(a->head, a->order, NULL);
	free_pages(a->head, a->order);
	a->head = NULL;
}

static bool pfn_in_block(u64 pfn, unsigned long id)
{
	return pfn_to_block_id(pfn) == id;
}

/* ---- adding and onlining ------------------------------------------------- */

/*
 * 1 GiB at 4 GiB into a 512 MiB machine, auto-online off; then online the
 * blocks one by one with each online type:
 *
 *   block  32      33             34              35      36..39
 *          online  online_kernel  online_movable  online  online
 *          Normal  Normal         Movable         Normal  Normal
 *
 * Block 35 joins Normal (neither zone spans it yet), so Normal spans over
 * Movable's block: zones overlap, Normal is no longer contiguous.
 */
HTEST(hotplug_add_then_online_each_type)
{
	struct zone *normal, *movable;
	u64 free0, total0, vm0;

	boot(8 * GiB, 512 * MiB);
	normal = zone_of(0, ZONE_NORMAL);
	movable = zone_of(0, ZONE_MOVABLE);
	hotplug_check_invariants();
	CHECK_EQ(nr_memory_blocks_in_state[MEM_ONLINE], 4);
	free0 = global_free_pages();
	total0 = totalram_pages();
	vm0 = host_vmemmap_populated_pages;

	CHECK_EQ(add_memory(0, HOTPLUG_BASE, GiB, -1, MHP_NONE), 0);
	hotplug_check_invariants();
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 8);
	CHECK_EQ(totalram_pages(), total0);
	CHECK_EQ(host_vmemmap_populated_pages - vm0, 8 * BLOCK_PAGES);
	CHECK_EQ(free0 - global_free_pages(), 8 * 512);	/* the memmaps */
	CHECK(zone_is_empty(normal));
	CHECK(present_section(__nr_to_section(BASE_BLOCK)));
	CHECK(!online_section(__nr_to_section(BASE_BLOCK)));
	CHECK_STREQ(valid_zones(BASE_BLOCK), "Normal Movable");

	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE), 0);
	hotplug_check_invariants();
	CHECK(block(32)->zone == normal);
	CHECK_EQ(totalram_pages(), total0 + BLOCK_PAGES);
	CHECK_EQ(normal->zone_start_pfn, 32 * BLOCK_PAGES);
	CHECK_EQ(normal->spanned_pages, BLOCK_PAGES);
	CHECK_EQ(normal->present_pages, BLOCK_PAGES);
	CHECK_EQ(normal->present_early_pages, 0);
	CHECK(normal->contiguous);
	CHECK_EQ(NODE_DATA(0)->node_spanned_pages, 33 * BLOCK_PAGES);
	CHECK_STREQ(valid_zones(32), "Normal");
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE), -EINVAL);	/* already online */

	CHECK_EQ(memory_block_online(block(33), MMOP_ONLINE_KERNEL), 0);
	CHECK(block(33)->zone == normal);
	CHECK_EQ(normal->spanned_pages, 2 * BLOCK_PAGES);
	CHECK(normal->contiguous);
	CHECK_EQ(memory_block_online(block(34), MMOP_ONLINE_MOVABLE), 0);
	hotplug_check_invariants();
	CHECK(block(34)->zone == movable);
	CHECK_EQ(movable->zone_start_pfn, 34 * BLOCK_PAGES);
	CHECK_EQ(movable->spanned_pages, BLOCK_PAGES);
	CHECK(movable->contiguous);
	CHECK_EQ(block(34)->online_type, MMOP_ONLINE_MOVABLE);

	CHECK_EQ(memory_block_online(block(35), MMOP_ONLINE), 0);
	hotplug_check_invariants();
	CHECK(block(35)->zone == normal);
	CHECK_EQ(normal->spanned_pages, 4 * BLOCK_PAGES);
	CHECK(!normal->contiguous);		/* block 34 in the middle is Movable */
	CHECK(movable->contiguous);
	CHECK_EQ(totalram_pages(), total0 + 4 * BLOCK_PAGES);
	CHECK_EQ(memory_block_online(block(36), MMOP_OFFLINE), -EINVAL);

	for (unsigned long id = 36; id < 40; id++)
		CHECK_EQ(memory_block_online(block(id), MMOP_ONLINE), 0);
	hotplug_check_invariants();
	CHECK_EQ(totalram_pages(), total0 + 8 * BLOCK_PAGES);
	CHECK_EQ(normal->present_pages, 7 * BLOCK_PAGES);
	CHECK_EQ(NODE_DATA(0)->node_present_pages, (512 * MiB >> PAGE_SHIFT) + 8 * BLOCK_PAGES);
	CHECK_EQ(NODE_DATA(0)->node_spanned_pages, 40 * BLOCK_PAGES);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_ONLINE], 12);
	CHECK_EQ(memhp_stats.added_blocks, 8);
	CHECK_EQ(memhp_stats.onlined_blocks, 8);
	/* the pages reached the buddy in order-10 chunks (max order) */
	CHECK(PageBuddy(pfn_to_page(36 * BLOCK_PAGES)));
	CHECK_EQ(buddy_order(pfn_to_page(36 * BLOCK_PAGES)), MAX_PAGE_ORDER);
}

/*
 * Offlining free memory shrinks the zone span only at its ends, as
 * Linux's shrink_zone_span(): [32..39] Normal; offline 39 (end), 32
 * (start), 35 (middle: a hole, span unchanged), 38 (end: back to 37), then
 * the rest: the zone is empty and the node spans its boot memory again.
 */
HTEST(hotplug_offline_shrinks_spans)
{
	struct zone *normal;
	u64 total0, free0;

	boot(8 * GiB, 512 * MiB);
	normal = zone_of(0, ZONE_NORMAL);
	total0 = totalram_pages();
	memhp_default_online_type = MMOP_ONLINE;
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, GiB, -1, MHP_NONE), 0);
	hotplug_check_invariants();
	free0 = global_free_pages();
	CHECK_EQ(nr_memory_blocks_in_state[MEM_ONLINE], 12);
	CHECK_EQ(normal->spanned_pages, 8 * BLOCK_PAGES);

	CHECK_EQ(memory_block_offline(block(39)), 0);
	hotplug_check_invariants();
	CHECK_EQ(zone_end_pfn(normal), 39 * BLOCK_PAGES);
	CHECK_EQ(memory_block_offline(block(32)), 0);
	hotplug_check_invariants();
	CHECK_EQ(normal->zone_start_pfn, 33 * BLOCK_PAGES);
	CHECK_EQ(memory_block_offline(block(35)), 0);
	hotplug_check_invariants();
	CHECK_EQ(normal->zone_start_pfn, 33 * BLOCK_PAGES);
	CHECK_EQ(zone_end_pfn(normal), 39 * BLOCK_PAGES);
	CHECK(!normal->contiguous);		/* the hole */
	CHECK_EQ(memory_block_offline(block(38)), 0);
	CHECK_EQ(zone_end_pfn(normal), 38 * BLOCK_PAGES);
	CHECK_EQ(memory_block_offline(block(38)), -EINVAL);	/* not online */
	CHECK_EQ(global_free_pages(), free0 - 4 * BLOCK_PAGES);
	for (unsigned long id = 33; id < 38; id++)
		if (id != 35)
			CHECK_EQ(memory_block_offline(block(id)), 0);
	hotplug_check_invariants();
	CHECK(zone_is_empty(normal));
	CHECK_EQ(normal->present_pages, 0);
	CHECK_EQ(normal->managed_pages, 0);
	CHECK_EQ(NODE_DATA(0)->node_spanned_pages, 4 * BLOCK_PAGES);
	CHECK_EQ(totalram_pages(), total0);
	CHECK_EQ(memhp_stats.offlined_blocks, 8);
	/* an offline block's memmap is poisoned again */
	CHECK(page_memmap_poisoned(pfn_to_page(34 * BLOCK_PAGES + 100)));
	/* and it can come back */
	CHECK_EQ(memory_block_online(block(35), MMOP_ONLINE_MOVABLE), 0);
	hotplug_check_invariants();
	CHECK_EQ(zone_of(0, ZONE_MOVABLE)->zone_start_pfn, 35 * BLOCK_PAGES);
}

/*
 * A movable block full of movable allocations: offlining migrates them
 * out, their contents and owners follow, and the counters are exact:
 * free pages drop by exactly the block (its free pages leave, and the
 * moved pages now use as many elsewhere).
 */
HTEST(hotplug_offline_migrates_movable)
{
	static struct talloc allocs[200];
	u64 total0, free_before, allocated = 0;
	unsigned n = 0;

	boot(8 * GiB, 512 * MiB);
	total0 = totalram_pages();
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 128 * MiB, -1, MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE_MOVABLE), 0);
	for (; n < 200; n++) {
		unsigned order = n % 7 == 6 ? MAX_PAGE_ORDER : n % 5;

		if (!talloc_get(&allocs[n], GFP_MOVABLE, order, n + 1))
			break;
		CHECK(pfn_in_block(page_to_pfn(allocs[n].head), 32));	/* Movable first */
		allocated += 1ULL << order;
	}
	CHECK_EQ(n, 200);
	hotplug_check_invariants();
	free_before = global_free_pages();

	CHECK_EQ(memory_block_offline(block(32)), 0);
	hotplug_check_invariants();
	CHECK_EQ(block(32)->state, MEM_OFFLINE);
	for (unsigned i = 0; i < n; i++) {
		CHECK(talloc_intact(&allocs[i]));
		CHECK(!pfn_in_block(page_to_pfn(allocs[i].head), 32));
		CHECK_EQ(allocs[i].moves, 1);
	}
	CHECK_EQ(memhp_stats.migrated_pages, allocated);
	CHECK_EQ(totalram_pages(), total0);
	CHECK_EQ(global_free_pages(), free_before - BLOCK_PAGES);
	CHECK(zone_is_empty(zone_of(0, ZONE_MOVABLE)));
	for (unsigned i = 0; i < n; i++)
		talloc_put(&allocs[i]);
	CHECK_EQ(remove_memory(HOTPLUG_BASE, 128 * MiB), 0);
	hotplug_check_invariants();
}

/*
 * An unmovable allocation in the block: offline fails with -EBUSY, says
 * which pfn and why, and leaves block and zone exactly as they were.
 */
HTEST(hotplug_offline_unmovable_fails)
{
	struct zone *normal;
	struct talloc pinned, moving;
	unsigned long present, managed, start, spanned, nr_free;

	boot(8 * GiB, 512 * MiB);
	normal = zone_of(0, ZONE_NORMAL);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 128 * MiB, -1, MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE_KERNEL), 0);
	CHECK(talloc_get(&moving, GFP_MOVABLE, 2, 7));
	CHECK(talloc_get(&pinned, GFP_KERNEL, 0, 8));
	CHECK(pfn_in_block(page_to_pfn(pinned.head), 32));	/* Normal first for GFP_KERNEL */
	hotplug_check_invariants();
	present = normal->present_pages;
	managed = normal->managed_pages;
	start = normal->zone_start_pfn;
	spanned = normal->spanned_pages;
	nr_free = normal->nr_free;

	CHECK_EQ(memory_block_offline(block(32)), -EBUSY);
	hotplug_check_invariants();
	CHECK_EQ(block(32)->state, MEM_ONLINE);
	CHECK(block(32)->zone == normal);
	CHECK_EQ(normal->present_pages, present);
	CHECK_EQ(normal->managed_pages, managed);
	CHECK_EQ(normal->zone_start_pfn, start);
	CHECK_EQ(normal->spanned_pages, spanned);
	CHECK_EQ(normal->nr_free, nr_free);
	CHECK(strstr(host_last_log, "offline: memory block 32: pfn 0x") != NULL);
	CHECK(strstr(host_last_log, "unmovable allocation") != NULL);
	CHECK_EQ(memhp_stats.offline_failures, 1);
	CHECK(talloc_intact(&pinned));
	CHECK(talloc_intact(&moving));
	/* the allocator still uses the block */
	{
		struct talloc again;

		CHECK(talloc_get(&again, GFP_KERNEL, 0, 9));
		CHECK(pfn_in_block(page_to_pfn(again.head), 32));
		talloc_put(&again);
	}
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 128 * MiB), -EBUSY);
	CHECK_EQ(block(32)->state, MEM_ONLINE);
	talloc_put(&pinned);
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 128 * MiB), 0);
	CHECK(talloc_intact(&moving));
	CHECK(block(32) == NULL);
	hotplug_check_invariants();
	talloc_put(&moving);
}

/* remove_memory() only takes offline blocks; the argument checks. */
HTEST(hotplug_remove_only_offline)
{
	u64 free0, vm0, total0;

	boot(8 * GiB, 512 * MiB);
	free0 = global_free_pages();
	vm0 = host_vmemmap_populated_pages;
	total0 = totalram_pages();

	CHECK_EQ(add_memory(0, HOTPLUG_BASE + 1, 128 * MiB, -1, 0), -EINVAL);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 64 * MiB, -1, 0), -EINVAL);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 0, -1, 0), -EINVAL);
	CHECK_EQ(add_memory(0, 0, 128 * MiB, -1, 0), -EEXIST);		/* boot memory */
	CHECK_EQ(add_memory(MAX_NUMNODES, HOTPLUG_BASE, 128 * MiB, -1, 0), -EINVAL);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 128 * MiB, 5, 0), -EINVAL);	/* no group 5 */
	CHECK_EQ(add_memory(0, 1ULL << MAX_PHYSMEM_BITS, 128 * MiB, -1, 0), -ERANGE);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, (u64)MAX_MEMORY_BLOCKS * MEMORY_BLOCK_SIZE, -1, 0), -ENOSPC);
	CHECK_EQ(global_free_pages(), free0);

	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 256 * MiB, -1, 0), 0);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE + 128 * MiB, 256 * MiB, -1, 0), -EEXIST);
	CHECK_EQ(memory_block_online(block(33), MMOP_ONLINE), 0);
	CHECK_EQ(remove_memory(HOTPLUG_BASE, 256 * MiB), -EBUSY);
	CHECK(block(32) && block(33));
	CHECK_EQ(remove_memory(0, 128 * MiB), -EINVAL);			/* boot memory */
	CHECK_EQ(remove_memory(HOTPLUG_BASE, 512 * MiB), -EINVAL);	/* blocks 34, 35 absent */
	CHECK_EQ(remove_memory(HOTPLUG_BASE + 4096, 128 * MiB), -EINVAL);
	hotplug_check_invariants();
	CHECK_EQ(memory_block_offline(block(33)), 0);
	CHECK_EQ(remove_memory(HOTPLUG_BASE, 256 * MiB), 0);
	hotplug_check_invariants();
	CHECK(block(32) == NULL && block(33) == NULL);
	CHECK(!present_section(__nr_to_section(32)));
	CHECK(!present_section(__nr_to_section(33)));
	CHECK_EQ(global_free_pages(), free0);
	CHECK_EQ(host_vmemmap_populated_pages, vm0);
	CHECK_EQ(totalram_pages(), total0);
	CHECK_EQ(memhp_stats.removed_blocks, 2);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 0);
}

/*
 * Add, online (every type), fill with movable allocations, offline and
 * remove the same GiB 20 times, with and without memmap_on_memory: free
 * pages, managed pages, vmemmap and spans come back exactly each time
 * (after one warm-up round, which may leave a section-table root).
 */
static void add_remove_cycles(bool mom)
{
	static const enum mmop types[] = { MMOP_ONLINE, MMOP_ONLINE_KERNEL, MMOP_ONLINE_MOVABLE };
	static struct talloc allocs[16];
	u64 free0 = 0, total0 = 0, vm0 = 0, span0 = 0;

	boot(8 * GiB, 512 * MiB);
	memmap_on_memory = mom;
	for (int round = 0; round <= 20; round++) {
		unsigned long nvm = 0;

		CHECK_EQ(add_memory(0, HOTPLUG_BASE, GiB, -1, MHP_MEMMAP_ON_MEMORY), 0);
		for (unsigned long id = 32; id < 40; id++) {
			CHECK_EQ(memory_block_online(block(id), types[(id + round) % 3]), 0);
			nvm += block(id)->nr_vmemmap_pages;
		}
		CHECK_EQ(nvm, mom ? 8 * 512 : 0);
		for (unsigned i = 0; i < 16; i++)
			CHECK(talloc_get(&allocs[i], GFP_MOVABLE, i % 4, round * 100 + i));
		if (round == 0 || round == 20)
			hotplug_check_invariants();
		CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, GiB), 0);
		for (unsigned i = 0; i < 16; i++) {
			CHECK(talloc_intact(&allocs[i]));
			CHECK(page_to_pfn(allocs[i].head) < (HOTPLUG_BASE >> PAGE_SHIFT));
			talloc_put(&allocs[i]);
		}
		if (round == 0) {
			free0 = global_free_pages();
			total0 = totalram_pages();
			vm0 = host_vmemmap_populated_pages;
			span0 = NODE_DATA(0)->node_spanned_pages;
			continue;
		}
		CHECK_EQ(global_free_pages(), free0);
		CHECK_EQ(totalram_pages(), total0);
		CHECK_EQ(host_vmemmap_populated_pages, vm0);
		CHECK_EQ(NODE_DATA(0)->node_spanned_pages, span0);
		CHECK_EQ(nr_memory_blocks_in_state[MEM_ONLINE], 4);
		CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 0);
	}
	hotplug_check_invariants();
	CHECK(zone_is_empty(zone_of(0, ZONE_NORMAL)));
	CHECK(zone_is_empty(zone_of(0, ZONE_MOVABLE)));
}

HTEST(hotplug_add_remove_20_times)
{
	add_remove_cycles(false);
}

HTEST(hotplug_add_remove_20_times_memmap_on_memory)
{
	add_remove_cycles(true);
}

/*
 * memmap_on_memory: used only when the knob is set AND the caller passes
 * MHP_MEMMAP_ON_MEMORY.  The first 512 pages of each block hold its
 * memmap: no allocation at add; at online they join the zone as reserved
 * PGTY_TABLE pages in an Unmovable pageblock, present but not managed,
 * never in the buddy.
 */
HTEST(hotplug_memmap_on_memory)
{
	struct zone *normal, *movable;
	u64 free0, total0, start = 32 * BLOCK_PAGES;

	boot(8 * GiB, 512 * MiB);
	normal = zone_of(0, ZONE_NORMAL);
	movable = zone_of(0, ZONE_MOVABLE);
	free0 = global_free_pages();
	total0 = totalram_pages();

	/* flag without knob, knob without flag: memmap from the allocator */
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 256 * MiB, -1, MHP_MEMMAP_ON_MEMORY), 0);
	CHECK_EQ(block(32)->nr_vmemmap_pages, 0);
	CHECK_EQ(free0 - global_free_pages(), 2 * 512);
	CHECK_EQ(remove_memory(HOTPLUG_BASE, 256 * MiB), 0);
	memmap_on_memory = true;
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 256 * MiB, -1, MHP_NONE), 0);
	CHECK_EQ(block(32)->nr_vmemmap_pages, 0);
	CHECK_EQ(remove_memory(HOTPLUG_BASE, 256 * MiB), 0);
	CHECK_EQ(global_free_pages(), free0);

	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 256 * MiB, -1, MHP_MEMMAP_ON_MEMORY), 0);
	CHECK_EQ(global_free_pages(), free0);		/* nothing allocated */
	CHECK_EQ(block(32)->nr_vmemmap_pages, 512);
	CHECK_EQ(__nr_to_section(32)->memmap_pa, HOTPLUG_BASE);
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE), 0);
	hotplug_check_invariants();
	CHECK_EQ(totalram_pages(), total0 + BLOCK_PAGES - 512);
	CHECK_EQ(normal->present_pages, BLOCK_PAGES);
	CHECK_EQ(normal->managed_pages, BLOCK_PAGES - 512);
	CHECK_EQ(normal->zone_start_pfn, start);	/* the memmap pages are in the span */
	CHECK(normal->contiguous);
	for (u64 pfn = start; pfn < start + 512; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (!PageReserved(page) || !page_has_type(page, PGTY_TABLE) || page_zone(page) != normal) {
			CHECK(!"memmap page not reserved PGTY_TABLE in Normal");
			break;
		}
	}
	CHECK_EQ(get_pageblock_migratetype(start), MIGRATE_UNMOVABLE);
	CHECK_EQ(get_pageblock_migratetype(start + 512), MIGRATE_MOVABLE);
	/* the first chunk is order 9 and cannot merge with the memmap pageblock */
	CHECK(PageBuddy(pfn_to_page(start + 512)));
	CHECK_EQ(buddy_order(pfn_to_page(start + 512)), pageblock_order);

	CHECK_EQ(memory_block_online(block(33), MMOP_ONLINE_MOVABLE), 0);
	hotplug_check_invariants();
	CHECK(page_zone(pfn_to_page(33 * BLOCK_PAGES)) == movable);
	CHECK(PageReserved(pfn_to_page(33 * BLOCK_PAGES)));
	CHECK_EQ(movable->managed_pages, BLOCK_PAGES - 512);
	{
		static struct talloc allocs[8];

		for (unsigned i = 0; i < 8; i++) {
			CHECK(talloc_get(&allocs[i], GFP_MOVABLE, 3, i + 40));
			CHECK(pfn_in_block(page_to_pfn(allocs[i].head), 33));
		}
		CHECK_EQ(memory_block_offline(block(33)), 0);
		hotplug_check_invariants();
		for (unsigned i = 0; i < 8; i++) {
			CHECK(talloc_intact(&allocs[i]));
			talloc_put(&allocs[i]);
		}
	}
	CHECK(zone_is_empty(movable));
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 256 * MiB), 0);
	hotplug_check_invariants();
	CHECK_EQ(global_free_pages(), free0);
	CHECK_EQ(totalram_pages(), total0);
}

/*
 * 16 GiB into a 128 MiB machine: 256 MiB of memmap, twice the boot RAM.
 * Auto-online off: fails with -ENOMEM, the log names the block, and
 * nothing stays, not even the section-table roots it took.  Auto-
 * online on: when boot memory runs out, the blocks added so far come
 * online and the later blocks take their memmap from them; all 128 blocks
 * come online.  The block holding a later block's memmap can still go
 * offline alone (the memmap moves); the whole range is removed top-down
 * (each block's memmap lives in the block below it, so nothing needs to
 * move), and a refusal half-way puts the removed blocks back.
 * memmap_on_memory with auto-online off works too.
 */
HTEST(hotplug_huge_range_block_by_block)
{
	u64 free0, total0, vm0, span0, roots0;
	const u64 size = 16 * GiB;

	boot(HOTPLUG_BASE + size, 128 * MiB);
	hotplug_check_invariants();
	CHECK(block(0)->zones_mixed);
	free0 = global_free_pages();
	total0 = totalram_pages();
	vm0 = host_vmemmap_populated_pages;
	span0 = NODE_DATA(0)->node_spanned_pages;
	roots0 = nr_section_roots();

	CHECK_EQ(add_memory(0, HOTPLUG_BASE, size, -1, MHP_NONE), -ENOMEM);
	CHECK(strstr(host_last_log, "no memory for its 2 MiB memmap (enable memmap_on_memory or online blocks as they are added)") != NULL);
	CHECK(strstr(host_last_log, "add_memory: block ") != NULL);
	hotplug_check_invariants();
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 0);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_ONLINE], 1);
	for (u64 nr = 32; nr < 32 + size / MEMORY_BLOCK_SIZE; nr++)
		if (present_section(__nr_to_section(nr))) {
			CHECK(!"a section of the failed add stayed present");
			break;
		}
	CHECK_EQ(free0 - global_free_pages(), nr_section_roots() - roots0);
	CHECK_EQ(nr_section_roots(), roots0);	/* the roots it took went back */
	CHECK_EQ(host_vmemmap_populated_pages, vm0);
	CHECK_EQ(NODE_DATA(0)->node_spanned_pages, span0);
	CHECK_EQ(totalram_pages(), total0);
	free0 = global_free_pages();
	roots0 = nr_section_roots();

	memhp_default_online_type = MMOP_ONLINE;
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, size, -1, MHP_NONE), 0);
	hotplug_check_invariants();
	CHECK_EQ(nr_memory_blocks_in_state[MEM_ONLINE], 1 + 128);
	CHECK_EQ(totalram_pages(), total0 + 128 * BLOCK_PAGES);
	CHECK_EQ(zone_of(0, ZONE_NORMAL)->spanned_pages, 128 * BLOCK_PAGES);
	CHECK(zone_of(0, ZONE_NORMAL)->contiguous);
	/*
	 * The first blocks' memmaps came from boot memory, the last one's from
	 * a block of the range.  That block can still go offline: the memmap
	 * it holds is migrated out (hotplug_memmap.c) and the vmemmap points
	 * at the copy; then it comes back online.
	 */
	{
		u64 last = 32 + 127, moved0 = memhp_stats.memmaps_moved;
		unsigned long holder = pfn_to_block_id(PHYS_PFN(__nr_to_section(last)->memmap_pa));
		u64 sec;

		CHECK(__nr_to_section(32)->memmap_pa < 128 * MiB);
		CHECK(holder >= 32 && holder < last);
		CHECK(hotplug_memmap_page(pfn_to_page(PHYS_PFN(__nr_to_section(last)->memmap_pa)), &sec));
		CHECK_EQ(sec, last);
		CHECK_EQ(memory_block_offline(block(holder)), 0);
		hotplug_check_invariants();
		CHECK(memhp_stats.memmaps_moved > moved0);
		CHECK(pfn_to_block_id(PHYS_PFN(__nr_to_section(last)->memmap_pa)) != holder);
		CHECK(hotplug_memmap_page(pfn_to_page(PHYS_PFN(__nr_to_section(last)->memmap_pa)), &sec));
		CHECK_EQ(sec, last);
		CHECK_EQ(memory_block_online(block(holder), MMOP_ONLINE), 0);
		hotplug_check_invariants();
	}
	/*
	 * The whole range at once, as the ACPI driver asks on eject.  First
	 * with an unmovable page inside: the top-down removal stops at its
	 * block and puts every block it had removed back online, so the range
	 * is whole again.  Then, with the page freed, all of it goes.
	 */
	{
		struct page *pinned = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0);

		CHECK(pinned != NULL);
		if (pinned) {
			CHECK(page_to_phys(pinned) >= HOTPLUG_BASE);
			CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, size), -EBUSY);
			hotplug_check_invariants();
			CHECK_EQ(nr_memory_blocks_in_state[MEM_ONLINE], 1 + 128);
			CHECK_EQ(totalram_pages(), total0 + 128 * BLOCK_PAGES);
			free_pages(pinned, 0);
		}
	}
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, size), 0);
	hotplug_check_invariants();
	CHECK_EQ(totalram_pages(), total0);
	CHECK_EQ(global_free_pages(), free0 - (nr_section_roots() - roots0));
	CHECK_EQ(nr_section_roots(), roots0);
	CHECK_EQ(host_vmemmap_populated_pages, vm0);

	memhp_default_online_type = MMOP_OFFLINE;
	memmap_on_memory = true;
	free0 = global_free_pages();
	roots0 = nr_section_roots();
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, size, -1, MHP_MEMMAP_ON_MEMORY), 0);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 128);
	/* nothing but the section roots of the two 8 GiB windows (the last
	 * removal gave them back) */
	CHECK_EQ(nr_section_roots() - roots0, 2);
	CHECK_EQ(global_free_pages(), free0 - 2);
	CHECK_EQ(remove_memory(HOTPLUG_BASE, size), 0);
	hotplug_check_invariants();
	CHECK_EQ(nr_section_roots(), roots0);
	CHECK_EQ(global_free_pages(), free0);
}

/* ---- online policies ----------------------------------------------------- */

/*
 * auto-movable, ratio 301, 1 GiB of early kernel memory: at most 3.01 GiB
 * may be Movable.  Four 1 GiB DIMMs (static groups) onlined with "online":
 * the first three are Movable, the fourth would make 4 GiB, so all of it is
 * Normal.  With ratio 299 the third DIMM is Normal already.
 */
static int add_dimm(int nid, unsigned d, const char *name)
{
	int mgid = memory_group_register_static(nid, GiB >> PAGE_SHIFT, name);

	CHECK(mgid >= 0);
	CHECK_EQ(add_memory(nid, HOTPLUG_BASE + d * GiB, GiB, mgid, MHP_NONE), 0);
	return mgid;
}

static enum zone_type dimm_zone(unsigned d)
{
	unsigned long first = BASE_BLOCK + d * 8;
	enum zone_type z = block(first)->zone ? block(first)->zone->idx : MAX_NR_ZONES;

	for (unsigned long id = first; id < first + 8; id++)
		if (!block(id)->zone || block(id)->zone->idx != z)
			return MAX_NR_ZONES;	/* not one zone for the whole DIMM */
	return z;
}

HTEST(hotplug_auto_movable_static_groups)
{
	struct auto_movable_stats stats;
	int mgid[4];

	boot(8 * GiB, GiB);
	memhp_online_policy = ONLINE_POLICY_AUTO_MOVABLE;
	memhp_default_online_type = MMOP_ONLINE;
	auto_movable_stats_walk(NUMA_NO_NODE, &stats);
	CHECK_EQ(stats.kernel_early_pages, GiB >> PAGE_SHIFT);
	CHECK_EQ(stats.movable_pages, 0);
	for (unsigned d = 0; d < 4; d++)
		mgid[d] = add_dimm(0, d, "dimm");
	hotplug_check_invariants();
	CHECK_EQ(dimm_zone(0), ZONE_MOVABLE);
	CHECK_EQ(dimm_zone(1), ZONE_MOVABLE);
	CHECK_EQ(dimm_zone(2), ZONE_MOVABLE);
	CHECK_EQ(dimm_zone(3), ZONE_NORMAL);
	auto_movable_stats_walk(NUMA_NO_NODE, &stats);
	CHECK_EQ(stats.kernel_early_pages, GiB >> PAGE_SHIFT);
	CHECK_EQ(stats.movable_pages, 3 * (GiB >> PAGE_SHIFT));
	CHECK_EQ(memory_group_find_by_id(mgid[0])->present_movable_pages, GiB >> PAGE_SHIFT);
	CHECK_EQ(memory_group_find_by_id(mgid[3])->present_kernel_pages, GiB >> PAGE_SHIFT);
	CHECK_EQ(memory_group_unregister(mgid[3]), -EBUSY);
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE + 3 * GiB, GiB), 0);
	CHECK_EQ(memory_group_unregister(mgid[3]), 0);
	CHECK(memory_group_find_by_id(mgid[3]) == NULL);
	hotplug_check_invariants();

	boot(8 * GiB, GiB);
	memhp_online_policy = ONLINE_POLICY_AUTO_MOVABLE;
	memhp_default_online_type = MMOP_ONLINE;
	auto_movable_ratio = 299;
	for (unsigned d = 0; d < 3; d++)
		add_dimm(0, d, "dimm");
	CHECK_EQ(dimm_zone(0), ZONE_MOVABLE);
	CHECK_EQ(dimm_zone(1), ZONE_MOVABLE);
	CHECK_EQ(dimm_zone(2), ZONE_NORMAL);

	/* ratio 0: never movable */
	boot(8 * GiB, GiB);
	memhp_online_policy = ONLINE_POLICY_AUTO_MOVABLE;
	memhp_default_online_type = MMOP_ONLINE;
	auto_movable_ratio = 0;
	add_dimm(0, 0, "dimm");
	CHECK_EQ(dimm_zone(0), ZONE_NORMAL);
	hotplug_check_invariants();
}

/*
 * A dynamic group (virtio-mem, unit = one block), blocks added one by one:
 * 24 blocks fit 3.01 GiB of Movable; the 25th goes to Normal, and those
 * kernel pages of the group allow 301% more Movable within the group:
 *   movable <= 3.01 * (262144 + 32768) = 887685 pages -> 27 blocks;
 * so blocks 25..27 are Movable again and block 28 Normal.
 */
HTEST(hotplug_auto_movable_dynamic_group)
{
	int mgid;

	boot(8 * GiB, GiB);
	memhp_online_policy = ONLINE_POLICY_AUTO_MOVABLE;
	memhp_default_online_type = MMOP_ONLINE;
	mgid = memory_group_register_dynamic(0, BLOCK_PAGES, "virtio-mem vmem0");
	CHECK(mgid >= 0);
	for (unsigned i = 0; i < 29; i++) {
		enum zone_type want = i < 24 ? ZONE_MOVABLE : i == 24 || i == 28 ? ZONE_NORMAL :
			ZONE_MOVABLE;

		CHECK_EQ(add_memory(0, HOTPLUG_BASE + i * 128 * MiB, 128 * MiB, mgid, MHP_NONE), 0);
		CHECK(block(BASE_BLOCK + i)->zone != NULL);
		if (block(BASE_BLOCK + i)->zone && block(BASE_BLOCK + i)->zone->idx != want) {
			CHECK_EQ(block(BASE_BLOCK + i)->zone->idx, want);
			fprintf(stderr, "  (block %u of the group)\n", i);
		}
	}
	hotplug_check_invariants();
	CHECK_EQ(memory_group_find_by_id(mgid)->present_kernel_pages, 2 * BLOCK_PAGES);
	CHECK_EQ(memory_group_find_by_id(mgid)->present_movable_pages, 27 * BLOCK_PAGES);

	/* unit of 4 blocks: a kernel block in the unit pulls the rest to kernel */
	boot(8 * GiB, GiB);
	memhp_online_policy = ONLINE_POLICY_AUTO_MOVABLE;
	mgid = memory_group_register_dynamic(0, 4 * BLOCK_PAGES, "virtio-mem vmem1");
	CHECK_EQ(memory_group_register_dynamic(0, 3 * BLOCK_PAGES, "bad"), -EINVAL);
	CHECK_EQ(memory_group_register_dynamic(0, BLOCK_PAGES / 2, "bad"), -EINVAL);
	CHECK_EQ(memory_group_register_static(0, 0, "bad"), -EINVAL);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 1024 * MiB, mgid, MHP_NONE), 0);
	CHECK_STREQ(valid_zones(32), "Movable Normal");
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE_KERNEL), 0);
	CHECK_STREQ(valid_zones(33), "Normal Movable");
	CHECK_EQ(memory_block_online(block(33), MMOP_ONLINE), 0);
	CHECK(block(33)->zone == zone_of(0, ZONE_NORMAL));
	/* the next unit is free to go Movable */
	CHECK_STREQ(valid_zones(36), "Movable Normal");
	CHECK_EQ(memory_block_online(block(36), MMOP_ONLINE), 0);
	CHECK(block(36)->zone == zone_of(0, ZONE_MOVABLE));
	hotplug_check_invariants();
}

/*
 * NUMA awareness: node 1 has no early kernel memory, so with
 * auto_movable_numa_aware a block added there cannot be Movable; without
 * it, the global ratio allows it.  Node 1 comes online with its first
 * block and goes offline with its last.
 */
HTEST(hotplug_auto_movable_numa_aware)
{
	boot(8 * GiB, GiB);
	memhp_online_policy = ONLINE_POLICY_AUTO_MOVABLE;
	memhp_default_online_type = MMOP_ONLINE;
	CHECK(!NODE_DATA(1)->online);
	CHECK(auto_movable_can_online_movable(NUMA_NO_NODE, NULL, BLOCK_PAGES));

	CHECK_EQ(add_memory(1, HOTPLUG_BASE, 128 * MiB, -1, MHP_NONE), 0);
	CHECK(NODE_DATA(1)->online);
	CHECK(block(32)->zone == zone_of(1, ZONE_NORMAL));
	CHECK(!auto_movable_can_online_movable(1, NULL, BLOCK_PAGES));
	hotplug_check_invariants();
	CHECK_EQ(NODE_DATA(1)->node_start_pfn, 32 * BLOCK_PAGES);
	CHECK_EQ(NODE_DATA(1)->node_present_pages, BLOCK_PAGES);
	/* node 0's allocations may fall back to node 1 */
	CHECK(NODE_DATA(0)->node_zonelist.zones[2] == zone_of(1, ZONE_NORMAL));
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 128 * MiB), 0);
	CHECK(!NODE_DATA(1)->online);
	hotplug_check_invariants();

	auto_movable_numa_aware = false;
	CHECK_EQ(add_memory(1, HOTPLUG_BASE, 128 * MiB, -1, MHP_NONE), 0);
	CHECK(block(32)->zone == zone_of(1, ZONE_MOVABLE));
	hotplug_check_invariants();
	/* a group must be on the node of the memory */
	CHECK_EQ(add_memory(0, HOTPLUG_BASE + GiB, 128 * MiB,
			    memory_group_register_static(1, BLOCK_PAGES, "n1"), MHP_NONE), -EINVAL);
}

/*
 * contig-zones: the zone already spanning the range wins, else the kernel
 * zone; online_kernel picks DMA32 for a hole that DMA32 spans.
 *
 *   RAM [0, 128M) + [256M, 512M): the hole [128M, 256M) lies in DMA32's span
 *   4G + 0..: Movable [32, 35) around 33; Normal [40, 44) and Movable [32, 43)
 *   overlapping at 41: both -> kernel.
 */
HTEST(hotplug_contig_zones)
{
	struct zone *dma32, *normal, *movable;

	boot_with_hole(8 * GiB, 512 * MiB, 128 * MiB, 256 * MiB);
	dma32 = zone_of(0, ZONE_DMA32);
	normal = zone_of(0, ZONE_NORMAL);
	movable = zone_of(0, ZONE_MOVABLE);
	CHECK(!dma32->contiguous);			/* the hole has no memmap */
	CHECK_EQ(add_memory(0, 128 * MiB, 128 * MiB, -1, MHP_NONE), 0);
	CHECK_STREQ(valid_zones(1), "DMA32 Movable");
	CHECK(zone_for_pfn_range(MMOP_ONLINE_KERNEL, 0, NULL, BLOCK_PAGES, BLOCK_PAGES) == dma32);
	CHECK_EQ(memory_block_online(block(1), MMOP_ONLINE), 0);
	CHECK(block(1)->zone == dma32);
	CHECK(dma32->contiguous);			/* hole filled */
	CHECK_EQ(dma32->present_early_pages, (512 * MiB - 128 * MiB - 16 * MiB) >> PAGE_SHIFT);
	hotplug_check_invariants();

	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 1536 * MiB, -1, MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(memory_block_online(block(34), MMOP_ONLINE_MOVABLE), 0);
	CHECK_STREQ(valid_zones(33), "Movable Normal");
	CHECK_EQ(memory_block_online(block(33), MMOP_ONLINE), 0);
	CHECK(block(33)->zone == movable);
	CHECK(movable->contiguous);
	CHECK_STREQ(valid_zones(35), "Normal Movable");	/* spans end at 35: kernel */

	CHECK_EQ(memory_block_online(block(40), MMOP_ONLINE_KERNEL), 0);
	CHECK_EQ(memory_block_online(block(43), MMOP_ONLINE_KERNEL), 0);
	CHECK_EQ(memory_block_online(block(42), MMOP_ONLINE_MOVABLE), 0);
	CHECK_STREQ(valid_zones(41), "Normal Movable");	/* both span it */
	CHECK_EQ(memory_block_online(block(41), MMOP_ONLINE), 0);
	CHECK(block(41)->zone == normal);
	CHECK(!normal->contiguous && !movable->contiguous);
	hotplug_check_invariants();
}

/*
 * valid_zones texts, and boot blocks: block 0 spans DMA and DMA32
 * ("none", cannot be offlined); a boot block of DMA32 without allocations
 * can be offlined and onlined again, with present_early_pages following.
 */
HTEST(hotplug_valid_zones_and_boot_blocks)
{
	struct zone *dma32;
	unsigned long early0, done = 0;

	boot(8 * GiB, 1024 * MiB);
	dma32 = zone_of(0, ZONE_DMA32);
	CHECK_STREQ(valid_zones(0), "none");
	CHECK(block(0)->zones_mixed && block(0)->early);
	CHECK(block(0)->zone == dma32);			/* most of its pages */
	CHECK_STREQ(valid_zones(1), "DMA32");
	CHECK_EQ(memory_block_offline(block(0)), -EINVAL);
	CHECK(strstr(host_last_log, "more than one zone") != NULL);
	CHECK_EQ(remove_memory(0, 128 * MiB), -EINVAL);
	CHECK_EQ(offline_and_remove_memory(MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE), -EINVAL);

	early0 = dma32->present_early_pages;
	for (unsigned long id = 2; id < 6; id++) {
		int err = memory_block_offline(block(id));

		CHECK(err == 0 || err == -EBUSY);
		if (err)
			continue;
		done++;
		hotplug_check_invariants();
		CHECK_EQ(dma32->present_early_pages, early0 - BLOCK_PAGES);
		CHECK_STREQ(valid_zones(id), "DMA32 Movable");
		CHECK_EQ(memory_block_online(block(id), MMOP_ONLINE_KERNEL), 0);
		CHECK(block(id)->zone == dma32);
		CHECK_EQ(dma32->present_early_pages, early0);
		hotplug_check_invariants();
	}
	CHECK(done > 0);
}

/* notifier-error-inject: every online and offline fails, nothing changes. */
HTEST(hotplug_error_injection)
{
	struct zone *normal;
	u64 total0;

	boot(8 * GiB, 512 * MiB);
	normal = zone_of(0, ZONE_NORMAL);
	memhp_default_online_type = MMOP_ONLINE;
	memhp_inject_going_online_error = -ENOMEM;
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 512 * MiB, -1, MHP_NONE), 0);	/* left offline */
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 4);
	total0 = totalram_pages();
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE_MOVABLE), -ENOMEM);
	CHECK_EQ(block(32)->state, MEM_OFFLINE);
	CHECK(zone_is_empty(normal) && zone_is_empty(zone_of(0, ZONE_MOVABLE)));
	CHECK_EQ(totalram_pages(), total0);
	CHECK(page_memmap_poisoned(pfn_to_page(32 * BLOCK_PAGES)));
	CHECK_EQ(memhp_stats.online_failures, 5);
	hotplug_check_invariants();

	memhp_inject_going_online_error = 0;
	for (unsigned long id = 32; id < 36; id++)
		CHECK_EQ(memory_block_online(block(id), MMOP_ONLINE), 0);
	total0 = totalram_pages();
	memhp_inject_going_offline_error = -EBUSY;
	for (unsigned long id = 32; id < 36; id++) {
		CHECK_EQ(memory_block_offline(block(id)), -EBUSY);
		CHECK_EQ(block(id)->state, MEM_ONLINE);
	}
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 512 * MiB), -EBUSY);
	CHECK_EQ(totalram_pages(), total0);
	CHECK_EQ(normal->spanned_pages, 4 * BLOCK_PAGES);
	hotplug_check_invariants();
	memhp_inject_going_offline_error = 0;
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 512 * MiB), 0);
	hotplug_check_invariants();
}

/*
 * offline_and_remove_memory() undoes what it did when a later block fails:
 * blocks 32..35, an unmovable page in 34: 32 and 33 are offlined, 34
 * fails, 32 and 33 come back online with their old online types.
 */
HTEST(hotplug_offline_and_remove_rollback)
{
	struct talloc pinned;

	boot(8 * GiB, 512 * MiB);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 512 * MiB, -1, MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(memory_block_online(block(34), MMOP_ONLINE_KERNEL), 0);
	CHECK_EQ(memory_block_online(block(33), MMOP_ONLINE_MOVABLE), 0);
	CHECK(talloc_get(&pinned, GFP_KERNEL, 0, 3));
	CHECK(pfn_in_block(page_to_pfn(pinned.head), 34));
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 512 * MiB), -EBUSY);
	CHECK_EQ(block(32)->state, MEM_ONLINE);
	CHECK_EQ(block(33)->state, MEM_ONLINE);
	CHECK_EQ(block(34)->state, MEM_ONLINE);
	CHECK_EQ(block(35)->state, MEM_OFFLINE);
	CHECK(block(32)->zone == zone_of(0, ZONE_MOVABLE));
	CHECK(block(33)->zone == zone_of(0, ZONE_MOVABLE));
	hotplug_check_invariants();
	talloc_put(&pinned);
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 512 * MiB), 0);
	hotplug_check_invariants();
}

/* ---- the block pool, groups, words ---------------------------------------- */

HTEST(hotplug_block_pool_and_groups)
{
	static unsigned long ids[3000];
	struct memory_block *mem;
	unsigned long id, prev;
	unsigned n = 0;
	int g;

	boot(1 * GiB, 512 * MiB);
	srand(42);
	/* fake blocks far from memory: the pool and its index only */
	while (n < 3000) {
		unsigned long want = 1000 + (unsigned long)rand() % 100000;

		if (find_memory_block_by_id(want))
			continue;
		CHECK_EQ(memory_block_create(want, n % 2, NULL, false, &mem), 0);
		CHECK_EQ(mem->block_id, want);
		ids[n++] = want;
	}
	CHECK_EQ(memory_block_create(ids[5], 0, NULL, false, &mem), -EEXIST);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 3000);
	for (unsigned i = 0; i < n; i++)
		CHECK(find_memory_block_by_id(ids[i]) && find_memory_block_by_id(ids[i])->block_id == ids[i]);
	prev = 0;
	n = 0;
	for (id = 0; (mem = memory_block_next(&id)); id++) {
		CHECK(n == 0 || id > prev);
		prev = id;
		n++;
	}
	CHECK_EQ(n, 3000 + 4);
	for (unsigned i = 0; i < 3000; i += 2)
		memory_block_delete(find_memory_block_by_id(ids[i]));
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 1500);
	for (unsigned i = 0; i < 3000; i++)
		CHECK((find_memory_block_by_id(ids[i]) != NULL) == (i % 2 == 1));
	CHECK_EQ(memory_blocks_on_node(1), 1500);
	CHECK_EQ(memory_blocks_free_slots(), MAX_MEMORY_BLOCKS - 1504);
	id = ids[1];
	CHECK(memory_block_next(&id) == find_memory_block_by_id(ids[1]));

	for (g = 0; g < MAX_MEMORY_GROUPS; g++)
		CHECK_EQ(memory_group_register_static(0, 1, "a long name that gets cut somewhere"), g);
	CHECK_EQ(memory_group_register_static(0, 1, "x"), -ENOSPC);
	CHECK_EQ(memory_group_unregister(7), 0);
	CHECK_EQ(memory_group_unregister(7), -EINVAL);
	CHECK_EQ(memory_group_register_dynamic(0, BLOCK_PAGES, "dyn"), 7);
	CHECK_STREQ(memory_group_find_by_id(7)->name, "dyn");
	CHECK_EQ(strlen(memory_group_find_by_id(8)->name), 31);
	CHECK_EQ(memory_group_register_static(MAX_NUMNODES, 1, "x"), -EINVAL);
	memory_blocks_init_boot();		/* back to the boot blocks, no groups */
	CHECK(memory_group_find_by_id(7) == NULL);
	hotplug_check_invariants();
}

HTEST(hotplug_mmop_words_and_dump)
{
	char buf[4096];
	struct buf_printer bpr;

	CHECK_EQ(mmop_from_string("online", 6), MMOP_ONLINE);
	CHECK_EQ(mmop_from_string("online\n", 7), MMOP_ONLINE);
	CHECK_EQ(mmop_from_string("offline", 7), MMOP_OFFLINE);
	CHECK_EQ(mmop_from_string("online_kernel\n", 14), MMOP_ONLINE_KERNEL);
	CHECK_EQ(mmop_from_string("online_movable", 14), MMOP_ONLINE_MOVABLE);
	CHECK_EQ(mmop_from_string("online_movable", 13), -EINVAL);
	CHECK_EQ(mmop_from_string("onlinex", 7), -EINVAL);
	CHECK_EQ(mmop_from_string("online\n\n", 8), -EINVAL);
	CHECK_EQ(mmop_from_string("", 0), -EINVAL);
	CHECK_STREQ(mmop_name(MMOP_ONLINE_MOVABLE), "online_movable");
	CHECK_STREQ(mmop_name(MMOP_OFFLINE), "offline");

	boot(8 * GiB, 512 * MiB);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 512 * MiB, memory_group_register_static(0, 131072, "dimm0"),
			    MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(33), MMOP_ONLINE_MOVABLE), 0);
	buf_printer_init(&bpr, buf, sizeof(buf));
	memory_hotplug_dump(&bpr.p);
	CHECK(!bpr.overflow);
	CHECK(strstr(buf, "0x000000000000-0x000007ffffff    128 MiB     0-0     online           0 (mixed)  boot") != NULL);
	CHECK(strstr(buf, "0x000008000000-0x00001fffffff    384 MiB     1-3     online           0 DMA32    boot") != NULL);
	CHECK(strstr(buf, "0x000108000000-0x00010fffffff    128 MiB    33-33    online           0 Movable  dimm0") != NULL);
	CHECK(strstr(buf, "   34-35    offline") != NULL);
	CHECK(strstr(buf, "blocks: 8 of 8192 (5 online, 0 going-offline, 3 offline)") != NULL);
	CHECK(strstr(buf, "group 0 dimm0: node 0, static, max 131072 pages, 4 blocks, online 0 kernel + 32768 movable pages") != NULL);
	CHECK(strstr(buf, "auto_online_blocks: offline  online_policy: contig-zones  auto_movable_ratio: 301") != NULL);
	if (htest_failures)
		fprintf(stderr, "%s", buf);
}

/* ---- random sequences ---------------------------------------------------- */

/*
 * Four DIMM slots of 512 MiB (4 blocks) at 4 GiB, on node 0 or 1 (node 1
 * has no boot memory), added and removed with random knobs; random
 * online/offline of every block, boot ones included; movable and
 * unmovable allocations coming and going; one step in ten with the
 * notifier errors injected.  After every step: the
 * invariants, every allocation intact, and a failed operation changed
 * nothing it should not have.
 */
#define R_SLOTS		4
#define R_SLOT_SIZE	(512 * MiB)
#define R_ALLOCS	48

struct r_slot {
	bool added;
	int mgid;
	int nid;
};

static u64 r_slot_start(unsigned s) { return HOTPLUG_BASE + s * R_SLOT_SIZE; }
static unsigned long r_slot_block(unsigned s) { return BASE_BLOCK + s * (R_SLOT_SIZE / MEMORY_BLOCK_SIZE); }

static void r_slot_gone(const struct r_slot *slot, unsigned s)
{
	for (unsigned long id = r_slot_block(s); id < r_slot_block(s) + 4; id++)
		CHECK(block(id) == NULL && !present_section(__nr_to_section(id)));
}

static void random_sequence(unsigned seed, unsigned steps)
{
	static struct talloc allocs[R_ALLOCS];
	static const gfp_t gfps[] = { GFP_MOVABLE, GFP_MOVABLE, GFP_KERNEL };
	struct r_slot slots[R_SLOTS];
	u64 free0;

	boot(HOTPLUG_BASE + R_SLOTS * R_SLOT_SIZE, 512 * MiB);
	srand(seed);
	memset(slots, 0, sizeof(slots));
	memset(allocs, 0, sizeof(allocs));
	free0 = global_free_pages();
	for (unsigned step = 0; step < steps; step++) {
		unsigned op = (unsigned)rand() % 10, s = (unsigned)rand() % R_SLOTS;
		struct r_slot *slot = &slots[s];
		unsigned long id = (unsigned long)rand() % (R_SLOTS * 4 + 4);
		struct memory_block *mem;
		bool inject = rand() % 10 == 0;
		int err;

		if (id >= 4)
			id += BASE_BLOCK - 4;
		mem = block(id);
		if (inject) {
			memhp_inject_going_online_error = -ENOMEM;
			memhp_inject_going_offline_error = -EBUSY;
		}
		switch (op) {
		case 0:		/* add a DIMM */
			if (slot->added)
				break;
			slot->nid = rand() % 2;
			memmap_on_memory = rand() % 2;
			memhp_default_online_type = (enum mmop)(rand() % 4);
			memhp_online_policy = rand() % 2 ? ONLINE_POLICY_AUTO_MOVABLE : ONLINE_POLICY_CONTIG_ZONES;
			auto_movable_numa_aware = rand() % 2;
			slot->mgid = rand() % 3 == 0 ? -1 : rand() % 2 ?
				memory_group_register_static(slot->nid, R_SLOT_SIZE >> PAGE_SHIFT, "dimm") :
				memory_group_register_dynamic(slot->nid, BLOCK_PAGES * (rand() % 2 ? 1 : 2), "vmem");
			err = add_memory(slot->nid, r_slot_start(s), R_SLOT_SIZE, slot->mgid,
					 rand() % 2 ? MHP_MEMMAP_ON_MEMORY : MHP_NONE);
			if (err) {
				CHECK_EQ(err, -ENOMEM);
				r_slot_gone(slot, s);
				if (slot->mgid >= 0)
					CHECK_EQ(memory_group_unregister(slot->mgid), 0);
			} else {
				slot->added = true;
			}
			break;
		case 1:
		case 2:		/* online a block */
			if (!mem || mem->state != MEM_OFFLINE)
				break;
			err = memory_block_online(mem, (enum mmop)(1 + rand() % 3));
			CHECK_EQ(err, inject ? -ENOMEM : 0);
			CHECK_EQ(mem->state, inject ? MEM_OFFLINE : MEM_ONLINE);
			break;
		case 3:		/* offline a block */
			if (!mem || mem->state != MEM_ONLINE)
				break;
			{
				struct zone *zone = mem->zone;
				unsigned long present = zone->present_pages, managed = zone->managed_pages;

				err = memory_block_offline(mem);
				CHECK(err == 0 || err == -EBUSY || (err == -EINVAL && mem->early));
				if (err) {
					CHECK_EQ(mem->state, MEM_ONLINE);
					CHECK(mem->zone == zone);
					CHECK_EQ(zone->present_pages, present);
					CHECK_EQ(zone->managed_pages, managed);
				}
			}
			break;
		case 4:		/* remove a DIMM */
		case 5:
			if (!slot->added)
				break;
			{
				unsigned long online = nr_memory_blocks_in_state[MEM_ONLINE];

				err = op == 4 ? remove_memory(r_slot_start(s), R_SLOT_SIZE) :
						offline_and_remove_memory(r_slot_start(s), R_SLOT_SIZE);
				CHECK(err == 0 || err == -EBUSY);
				if (err) {
					CHECK_EQ(nr_memory_blocks_in_state[MEM_ONLINE], online);
					break;
				}
				r_slot_gone(slot, s);
				slot->added = false;
				if (slot->mgid >= 0)
					CHECK_EQ(memory_group_unregister(slot->mgid), 0);
			}
			break;
		case 6:
		case 7:
		case 8:		/* allocate */
			{
				unsigned a = (unsigned)rand() % R_ALLOCS;
				gfp_t gfp = gfps[rand() % 3];

				if (allocs[a].head)
					break;
				talloc_get(&allocs[a], gfp, (unsigned)rand() % (gfp == GFP_KERNEL ? 2 : 6),
					   (u64)step * 1000 + a);
			}
			break;
		case 9:		/* free */
			{
				unsigned a = (unsigned)rand() % R_ALLOCS;

				if (allocs[a].head)
					talloc_put(&allocs[a]);
			}
			break;
		}
		memhp_inject_going_online_error = 0;
		memhp_inject_going_offline_error = 0;
		hotplug_check_invariants();
		for (unsigned a = 0; a < R_ALLOCS; a++)
			if (allocs[a].head && !talloc_intact(&allocs[a])) {
				CHECK(!"an allocation lost its contents or owner");
				break;
			}
		if (htest_failures) {
			fprintf(stderr, "  seed %u, step %u, op %u, slot %u, block %lu\n", seed, step, op, s, id);
			return;
		}
	}
	/* Everything back: free all, remove what can go, round after round. */
	for (unsigned a = 0; a < R_ALLOCS; a++)
		if (allocs[a].head)
			talloc_put(&allocs[a]);
	memhp_inject_going_offline_error = 0;
	for (int round = 0; round < R_SLOTS; round++)
		for (unsigned s = 0; s < R_SLOTS; s++)
			if (slots[s].added && !offline_and_remove_memory(r_slot_start(s), R_SLOT_SIZE)) {
				slots[s].added = false;
				if (slots[s].mgid >= 0)
					memory_group_unregister(slots[s].mgid);
			}
	for (unsigned s = 0; s < R_SLOTS; s++)
		CHECK(!slots[s].added);
	for (unsigned long id = 1; id < 4; id++)
		if (block(id)->state == MEM_OFFLINE)
			CHECK_EQ(memory_block_online(block(id), MMOP_ONLINE_KERNEL), 0);
	hotplug_check_invariants();
	CHECK(!NODE_DATA(1)->online);
	CHECK_EQ(global_free_pages(), free0);
}

HTEST(hotplug_random_sequences)
{
	for (unsigned seed = 1; seed <= 4 && !htest_failures; seed++)
		random_sequence(seed, 150);
}

/*
 * memory_blocks_generation() moves with every add, online, offline and
 * removal, and not with a failed request or a read (virtio-mem re-reads
 * its blocks only when it moved).
 */
HTEST(hotplug_blocks_generation_moves_with_every_change)
{
	u64 g;

	boot(8 * GiB, 512 * MiB);
	g = memory_blocks_generation();
	CHECK_EQ(add_memory(0, HOTPLUG_BASE + 1, 128 * MiB, -1, 0), -EINVAL);
	CHECK(block(32) == NULL);
	CHECK_EQ(memory_blocks_generation(), g);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 128 * MiB, -1, MHP_NO_AUTO_ONLINE), 0);
	CHECK(memory_blocks_generation() != g);
	g = memory_blocks_generation();
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE), 0);
	CHECK(memory_blocks_generation() != g);
	g = memory_blocks_generation();
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE), -EINVAL);	/* online already */
	CHECK_EQ(memory_blocks_generation(), g);
	CHECK_EQ(memory_block_offline(block(32)), 0);
	CHECK(memory_blocks_generation() != g);
	g = memory_blocks_generation();
	CHECK_EQ(remove_memory(HOTPLUG_BASE, 128 * MiB), 0);
	CHECK(memory_blocks_generation() != g);
	hotplug_check_invariants();
}

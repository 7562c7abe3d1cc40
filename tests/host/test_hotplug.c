/*
 * test_hotplug.c - memory hotplug (mm/memory_block.c, mm/memory_hotplug.c,
 * mm/memory_online.c) on simulated machines booted with mm_core_init():
 * adding and onlining with each online type, offlining (spans shrink,
 * movable pages migrate, unmovable ones make it fail), removing, repeated
 * add/remove cycles, the memmap on the hot-added memory, and huge ranges
 * taken block by block.
 *
 * The machine and the test allocations are hotplug_fixture.h's.
 * hotplug_check_invariants() (hotplug_check.h: zone, node, block and group
 * counters recounted from the memmap and the free lists, no page lost,
 * watermarks up to date) is run after every step.  Online policies and
 * zones are in test_online_policy.c, the block pool, the words and the
 * random sequences in test_hotplug_random.c.
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
#include "hotplug_fixture.h"

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
	memhp_set_default_online_type(MMOP_ONLINE);
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
	nr_free = zone_nr_free(normal);

	CHECK_EQ(memory_block_offline(block(32)), -EBUSY);
	hotplug_check_invariants();
	CHECK_EQ(block(32)->state, MEM_ONLINE);
	CHECK(block(32)->zone == normal);
	CHECK_EQ(normal->present_pages, present);
	CHECK_EQ(normal->managed_pages, managed);
	CHECK_EQ(normal->zone_start_pfn, start);
	CHECK_EQ(normal->spanned_pages, spanned);
	CHECK_EQ(zone_nr_free(normal), nr_free);
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
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, (u64)MEMORY_BLOCKS_STATIC * MEMORY_BLOCK_SIZE, -1, 0), -ENOSPC);
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
	memhp_set_memmap_on_memory(mom);
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
	memhp_set_memmap_on_memory(true);
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

	memhp_set_default_online_type(MMOP_ONLINE);
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

	memhp_set_default_online_type(MMOP_OFFLINE);
	memhp_set_memmap_on_memory(true);
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

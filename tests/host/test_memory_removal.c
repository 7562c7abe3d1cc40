/*
 * test_memory_removal.c - struct memory_removal (include/mm/memory_hotplug.h):
 * a range offlined and removed block by block from the top, and put back
 * whole when a block refuses.  A removal that meets an unmovable page
 * half-way rolls back to exactly the state before (blocks, their online
 * types and zones, the zones' present and managed pages, free pages); one
 * that succeeds leaves nothing of the range.
 *
 * On the simulated machines of hotplug_fixture.h; hotplug_check_invariants()
 * (hotplug_check.h) after every step.
 */
#include "htest.h"
#include "mm_host.h"
#include "hotplug_check.h"
#include <mm/mmzone.h>
#include <mm/gfp.h>
#include <mm/memory_hotplug.h>
#include <lib/errno.h>
#include "hotplug_fixture.h"

#define NR_TEST_BLOCKS	4

/* What a rollback must restore: blocks 32..35 and the zones they join. */
struct removal_snapshot {
	bool exists[NR_TEST_BLOCKS];
	enum memory_block_state state[NR_TEST_BLOCKS];
	enum mmop online_type[NR_TEST_BLOCKS];
	struct zone *zone[NR_TEST_BLOCKS];
	unsigned long nr_vmemmap_pages[NR_TEST_BLOCKS];
	unsigned long present[MAX_NR_ZONES], managed[MAX_NR_ZONES];
	unsigned long in_state[NR_MEM_STATES];
	u64 free_pages, totalram;
};

/* The state of blocks 32..35 and of node 0's zones now. */
static struct removal_snapshot snapshot_now(void)
{
	struct removal_snapshot s = { 0 };

	for (unsigned i = 0; i < NR_TEST_BLOCKS; i++) {
		struct memory_block *mem = find_memory_block_by_id(BASE_BLOCK + i);

		s.exists[i] = mem != NULL;
		if (!mem)
			continue;
		s.state[i] = mem->state;
		s.online_type[i] = mem->online_type;
		s.zone[i] = mem->zone;
		s.nr_vmemmap_pages[i] = mem->nr_vmemmap_pages;
	}
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		s.present[z] = zone_of(0, (enum zone_type)z)->present_pages;
		s.managed[z] = zone_of(0, (enum zone_type)z)->managed_pages;
	}
	for (int st = 0; st < NR_MEM_STATES; st++)
		s.in_state[st] = nr_memory_blocks_in_state[st];
	s.free_pages = global_free_pages();
	s.totalram = totalram_pages();
	return s;
}

/* Is the machine as in a, field by field (each difference a failed CHECK)? */
static void check_snapshot(const struct removal_snapshot *a)
{
	struct removal_snapshot b = snapshot_now();

	for (unsigned i = 0; i < NR_TEST_BLOCKS; i++) {
		CHECK_EQ(b.exists[i], a->exists[i]);
		CHECK_EQ(b.state[i], a->state[i]);
		CHECK_EQ(b.online_type[i], a->online_type[i]);
		CHECK(b.zone[i] == a->zone[i]);
		CHECK_EQ(b.nr_vmemmap_pages[i], a->nr_vmemmap_pages[i]);
	}
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		CHECK_EQ(b.present[z], a->present[z]);
		CHECK_EQ(b.managed[z], a->managed[z]);
	}
	for (int st = 0; st < NR_MEM_STATES; st++)
		CHECK_EQ(b.in_state[st], a->in_state[st]);
	CHECK_EQ(b.free_pages, a->free_pages);
	CHECK_EQ(b.totalram, a->totalram);
}

/*
 * Blocks 32..35: 32 in ZONE_NORMAL holding an unmovable page, 33 offline,
 * 34 and 35 in ZONE_MOVABLE.  The removal takes 35, 34 and 33 (two runs:
 * movable, offline), stops at 32 with -EBUSY, and the rollback brings the
 * three back as they were.  With the page freed the removal goes to the
 * end, leaves no block, no zone page and no free page of the range, and a
 * further step says there is nothing left.
 */
HTEST(memory_removal_rolls_back_exactly_then_removes_all)
{
	struct removal_snapshot before_add, before;
	struct memory_removal r;
	struct talloc pinned;
	int err;

	boot(8 * GiB, 512 * MiB);
	before_add = snapshot_now();
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, NR_TEST_BLOCKS * MEMORY_BLOCK_SIZE, -1, MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE_KERNEL), 0);
	CHECK_EQ(memory_block_online(block(34), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(memory_block_online(block(35), MMOP_ONLINE_MOVABLE), 0);
	CHECK(talloc_get(&pinned, GFP_KERNEL, 0, 7));
	CHECK(pfn_in_block(page_to_pfn(pinned.head), 32));
	hotplug_check_invariants();
	before = snapshot_now();

	CHECK_EQ(memory_removal_begin(&r, "test", HOTPLUG_BASE, NR_TEST_BLOCKS * MEMORY_BLOCK_SIZE,
				      0, -1, MHP_NONE), 0);
	CHECK_EQ(memory_removal_step(&r), 0);
	CHECK(find_memory_block_by_id(35) == NULL);
	hotplug_check_invariants();
	CHECK_EQ(memory_removal_step(&r), 0);
	CHECK_EQ(memory_removal_step(&r), 0);
	CHECK(find_memory_block_by_id(33) == NULL);
	hotplug_check_invariants();
	CHECK_EQ(memory_removal_step(&r), -EBUSY);
	CHECK_EQ(block(32)->state, MEM_ONLINE);
	CHECK_EQ(r.removed, 3);
	CHECK_EQ(r.nr_runs, 2);
	CHECK_EQ(r.runs[0].nr_blocks, 2);
	CHECK_EQ(r.runs[0].online_type, MMOP_ONLINE_MOVABLE);
	CHECK_EQ(r.runs[1].online_type, MMOP_OFFLINE);
	CHECK_EQ(memory_removal_rollback(&r), 0);
	CHECK_EQ(r.removed, 0);
	hotplug_check_invariants();
	check_snapshot(&before);
	CHECK(talloc_intact(&pinned));

	talloc_put(&pinned);
	CHECK_EQ(memory_removal_begin(&r, "test", HOTPLUG_BASE, NR_TEST_BLOCKS * MEMORY_BLOCK_SIZE,
				      0, -1, MHP_NONE), 0);
	while ((err = memory_removal_step(&r)) == 0)
		hotplug_check_invariants();
	CHECK_EQ(err, 1);
	CHECK_EQ(r.removed, NR_TEST_BLOCKS);
	CHECK_EQ(memory_removal_step(&r), 1);
	hotplug_check_invariants();
	check_snapshot(&before_add);
}

/*
 * A block of the range that does not exist counts as removed and is not
 * created by the rollback; a block that carried its own memmap
 * (memmap_on_memory, still set) comes back carrying it, so its zone manages the same
 * pages as before.  And a range that is not whole blocks is refused.
 */
HTEST(memory_removal_absent_block_and_memmap_on_memory)
{
	struct removal_snapshot before;
	struct memory_removal r;
	struct talloc pinned;

	boot(8 * GiB, 512 * MiB);
	memhp_set_memmap_on_memory(true);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 3 * MEMORY_BLOCK_SIZE, -1, MHP_MEMMAP_ON_MEMORY), 0);
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE_KERNEL), 0);
	CHECK_EQ(memory_block_online(block(33), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(memory_block_online(block(34), MMOP_ONLINE_MOVABLE), 0);
	CHECK(talloc_get(&pinned, GFP_KERNEL, 0, 9));
	CHECK(pfn_in_block(page_to_pfn(pinned.head), 32));
	hotplug_check_invariants();
	before = snapshot_now();
	CHECK(before.nr_vmemmap_pages[2] != 0);

	CHECK_EQ(memory_removal_begin(&r, "test", HOTPLUG_BASE, NR_TEST_BLOCKS * MEMORY_BLOCK_SIZE,
				      0, -1, MHP_NONE), 0);
	CHECK_EQ(memory_removal_step(&r), 0);	/* 35: absent */
	CHECK_EQ(memory_removal_step(&r), 0);
	CHECK_EQ(memory_removal_step(&r), 0);
	CHECK_EQ(memory_removal_step(&r), -EBUSY);
	CHECK_EQ(memory_removal_rollback(&r), 0);
	hotplug_check_invariants();
	CHECK(find_memory_block_by_id(35) == NULL);
	check_snapshot(&before);
	memhp_set_memmap_on_memory(false);
	talloc_put(&pinned);
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 3 * MEMORY_BLOCK_SIZE), 0);
	hotplug_check_invariants();

	CHECK_EQ(memory_removal_begin(&r, "test", HOTPLUG_BASE + 4096, MEMORY_BLOCK_SIZE, 0, -1,
				      MHP_NONE), -EINVAL);
	CHECK_EQ(memory_removal_begin(&r, "test", HOTPLUG_BASE, 0, 0, -1, MHP_NONE), -EINVAL);
}

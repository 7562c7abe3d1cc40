/*
 * test_hotplug_random.c - memory hotplug's bookkeeping and random
 * sequences: the pool of memory blocks and the memory groups, the online
 * type words and the dump, random add/online/offline/remove sequences
 * with allocations coming and going, and the blocks generation counter.
 *
 * On the simulated machines of hotplug_fixture.h, as in test_hotplug.c;
 * hotplug_check_invariants() (hotplug_check.h) is run after every step.
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
	CHECK_EQ(memory_blocks_free_slots(), MEMORY_BLOCKS_STATIC - 1504);
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
			memhp_set_inject_going_online_error(-ENOMEM);
			memhp_set_inject_going_offline_error(-EBUSY);
		}
		switch (op) {
		case 0:		/* add a DIMM */
			if (slot->added)
				break;
			slot->nid = rand() % 2;
			memhp_set_memmap_on_memory(rand() % 2);
			memhp_set_default_online_type((enum mmop)(rand() % 4));
			memhp_set_online_policy(rand() % 2 ? ONLINE_POLICY_AUTO_MOVABLE : ONLINE_POLICY_CONTIG_ZONES);
			memhp_set_auto_movable_numa_aware(rand() % 2);
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
		memhp_set_inject_going_online_error(0);
		memhp_set_inject_going_offline_error(0);
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
	memhp_set_inject_going_offline_error(0);
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

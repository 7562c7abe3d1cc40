/*
 * test_online_policy.c - which zone hot-added memory goes to, and what a
 * failure leaves behind: the auto-movable online policy (static groups, a
 * dynamic group, per node), the zone spans and their contiguity, the
 * valid_zones of boot and hot-added blocks, injected notifier errors, and
 * the rollback of offline_and_remove_memory().
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
	memhp_set_online_policy(ONLINE_POLICY_AUTO_MOVABLE);
	memhp_set_default_online_type(MMOP_ONLINE);
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
	memhp_set_online_policy(ONLINE_POLICY_AUTO_MOVABLE);
	memhp_set_default_online_type(MMOP_ONLINE);
	memhp_set_auto_movable_ratio(299);
	for (unsigned d = 0; d < 3; d++)
		add_dimm(0, d, "dimm");
	CHECK_EQ(dimm_zone(0), ZONE_MOVABLE);
	CHECK_EQ(dimm_zone(1), ZONE_MOVABLE);
	CHECK_EQ(dimm_zone(2), ZONE_NORMAL);

	/* ratio 0: never movable */
	boot(8 * GiB, GiB);
	memhp_set_online_policy(ONLINE_POLICY_AUTO_MOVABLE);
	memhp_set_default_online_type(MMOP_ONLINE);
	memhp_set_auto_movable_ratio(0);
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
	memhp_set_online_policy(ONLINE_POLICY_AUTO_MOVABLE);
	memhp_set_default_online_type(MMOP_ONLINE);
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
	memhp_set_online_policy(ONLINE_POLICY_AUTO_MOVABLE);
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
	memhp_set_online_policy(ONLINE_POLICY_AUTO_MOVABLE);
	memhp_set_default_online_type(MMOP_ONLINE);
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

	memhp_set_auto_movable_numa_aware(false);
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

/* The knobs' setters refuse what is out of range and then change nothing. */
HTEST(hotplug_knob_setters_check_their_range)
{
	hotplug_knobs_default();
	CHECK_EQ(memhp_set_online_policy((enum online_policy)2), -EINVAL);
	CHECK_EQ(memhp_get_online_policy(), ONLINE_POLICY_CONTIG_ZONES);
	CHECK_EQ(memhp_set_auto_movable_ratio(1ULL << 32), -EINVAL);
	CHECK_EQ(memhp_set_auto_movable_ratio(0xffffffffULL), 0);
	CHECK_EQ(memhp_get_auto_movable_ratio(), 0xffffffffU);
	CHECK_EQ(memhp_set_inject_going_online_error(1), -EINVAL);
	CHECK_EQ(memhp_set_inject_going_offline_error(MEMHP_INJECT_ERROR_MIN - 1), -EINVAL);
	CHECK_EQ(memhp_set_inject_going_offline_error(MEMHP_INJECT_ERROR_MIN), 0);
	CHECK_EQ(memhp_get_inject_going_online_error(), 0);
	CHECK_EQ(memhp_get_inject_going_offline_error(), MEMHP_INJECT_ERROR_MIN);
	CHECK_EQ(memhp_set_default_online_type((enum mmop)NR_MMOP), -EINVAL);
	CHECK_EQ(memhp_get_default_online_type(), MMOP_OFFLINE);
	hotplug_knobs_default();
	CHECK_EQ(memhp_get_auto_movable_ratio(), 301);
	CHECK_EQ(memhp_get_inject_going_offline_error(), 0);
}

/* notifier-error-inject: every online and offline fails, nothing changes. */
HTEST(hotplug_error_injection)
{
	struct zone *normal;
	u64 total0;

	boot(8 * GiB, 512 * MiB);
	normal = zone_of(0, ZONE_NORMAL);
	memhp_set_default_online_type(MMOP_ONLINE);
	memhp_set_inject_going_online_error(-ENOMEM);
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

	memhp_set_inject_going_online_error(0);
	for (unsigned long id = 32; id < 36; id++)
		CHECK_EQ(memory_block_online(block(id), MMOP_ONLINE), 0);
	total0 = totalram_pages();
	memhp_set_inject_going_offline_error(-EBUSY);
	for (unsigned long id = 32; id < 36; id++) {
		CHECK_EQ(memory_block_offline(block(id)), -EBUSY);
		CHECK_EQ(block(id)->state, MEM_ONLINE);
	}
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, 512 * MiB), -EBUSY);
	CHECK_EQ(totalram_pages(), total0);
	CHECK_EQ(normal->spanned_pages, 4 * BLOCK_PAGES);
	hotplug_check_invariants();
	memhp_set_inject_going_offline_error(0);
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

/*
 * test_range_in_use.c - what the kernel still uses in memory a driver
 * wants to give back: memory_range_in_use() for memory that is not
 * online (a block's own memmap while the block is added, a page-table
 * page, device memory), and describe_unmovable() naming what the offline
 * and isolation steps refuse in online memory (a pinned memmap of another
 * block, a page-table page; an unpinned memmap moves away).  Each refusal
 * ends once the user released the thing.
 */
#include "htest.h"
#include "mm_host.h"
#include "platform_stub.h"
#include "hotplug_check.h"
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/gfp.h>
#include <mm/memory_hotplug.h>
#include <mm/memremap.h>
#include <mm/migrate.h>
#include "../../mm/internal.h"
#include <lib/printk.h>
#include <lib/errno.h>
#include <lib/string.h>

#define MiB		(1ULL << 20)
#define GiB		(1ULL << 30)
#define BLOCK_PAGES	PAGES_PER_MEMORY_BLOCK
#define HOTPLUG_BASE	(4 * GiB)

/* 8 GiB of simulated memory, 512 MiB of it boot RAM. */
static void boot_machine(void)
{
	hotplug_boot(8 * GiB, 512 * MiB);
}

static struct memory_block *block(unsigned long id)
{
	return find_memory_block_by_id(id);
}

/*
 * Block 32 online (Normal), then block 33 added: its memmap comes from
 * the allocator, from block 32, as a movable allocation that names section
 * 33.  The range check of an offline block 33 is clean (its memmap is
 * elsewhere).  Offlining block 32 migrates that memmap out of it (Linux
 * would refuse here), block 33's struct pages keep their contents through
 * the move, and both blocks can then be removed in either order.
 */
HTEST(range_in_use_another_blocks_memmap_moves_away)
{
	char why[160];
	u64 nr, pfn, moved0;

	boot_machine();
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 128 * MiB, -1, MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE), 0);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE + 128 * MiB, 128 * MiB, -1, MHP_NONE), 0);
	pfn = __nr_to_section(33)->memmap_pa >> PAGE_SHIFT;
	CHECK_EQ(pfn_to_block_id(pfn), 32);
	CHECK(sparse_memmap_at(pfn, pfn + 1, &nr));
	CHECK_EQ(nr, 33);
	CHECK(hotplug_memmap_page(pfn_to_page(pfn + 100), &nr));
	CHECK_EQ(nr, 33);
	CHECK(!sparse_memmap_at(33 * BLOCK_PAGES, 34 * BLOCK_PAGES, &nr));
	CHECK_EQ(memory_range_in_use(33 * BLOCK_PAGES, BLOCK_PAGES, why, sizeof(why)), 0);

	/* a pinned memmap page is named, and stops the offline */
	pfn_to_page(pfn + 7)->refcount++;
	describe_unmovable(pfn + 7, why, sizeof(why));
	CHECK(strstr(why, "(memmap of a hot-added block) pinned") != NULL);
	CHECK_EQ(memory_block_offline(block(32)), -EBUSY);
	pfn_to_page(pfn + 7)->refcount--;

	moved0 = memhp_stats.memmaps_moved;
	CHECK(page_memmap_poisoned(pfn_to_page(33 * BLOCK_PAGES + 5)));
	CHECK_EQ(memory_block_offline(block(32)), 0);
	CHECK_EQ(memhp_stats.memmaps_moved, moved0 + 1);
	CHECK(pfn_to_block_id(__nr_to_section(33)->memmap_pa >> PAGE_SHIFT) != 32);
	CHECK(page_memmap_poisoned(pfn_to_page(33 * BLOCK_PAGES + 5)));
	CHECK(strstr(host_last_log, "memmap of memory33 moved from pfn ") != NULL);
	CHECK_EQ(memory_range_in_use(32 * BLOCK_PAGES, BLOCK_PAGES, why, sizeof(why)), 0);
	CHECK_EQ(remove_memory(HOTPLUG_BASE, 128 * MiB), 0);
	CHECK_EQ(memory_block_online(block(33), MMOP_ONLINE), 0);
	hotplug_check_invariants();
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE + 128 * MiB, 128 * MiB), 0);
	hotplug_check_invariants();
}

/*
 * memmap_on_memory: an offline block's first 2 MiB hold its struct pages
 * as long as it is added, so neither they nor the whole block may go back
 * to the host before the block is removed.
 */
HTEST(range_in_use_own_memmap_until_removed)
{
	char why[160];

	boot_machine();
	memhp_set_memmap_on_memory(true);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 128 * MiB, -1, MHP_MEMMAP_ON_MEMORY), 0);
	CHECK_EQ(block(32)->nr_vmemmap_pages, 512);
	CHECK_EQ(memory_range_in_use(32 * BLOCK_PAGES, 512, why, sizeof(why)), -EBUSY);
	CHECK_STREQ(why, "holding the memmap of memory32 (its struct pages go only when that block is removed)");
	CHECK_EQ(memory_range_in_use(32 * BLOCK_PAGES, BLOCK_PAGES, why, sizeof(why)), -EBUSY);
	/* the rest of the block holds nothing */
	CHECK_EQ(memory_range_in_use(32 * BLOCK_PAGES + 512, BLOCK_PAGES - 512, why, sizeof(why)), 0);
	CHECK_EQ(remove_memory(HOTPLUG_BASE, 128 * MiB), 0);
	CHECK_EQ(memory_range_in_use(32 * BLOCK_PAGES, BLOCK_PAGES, why, sizeof(why)), 0);
	memhp_set_memmap_on_memory(false);
}

/*
 * A page-table page: in an offline range memory_range_in_use() refuses it;
 * in online memory the offline step's reason names it.  (The host's
 * mm_page_table_in() reports the one page a test names.)
 */
HTEST(range_in_use_page_table_page)
{
	char why[160];
	struct page *page;
	u64 pfn;

	boot_machine();
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 256 * MiB, -1, MHP_NONE), 0);
	host_page_table_pa = HOTPLUG_BASE + 128 * MiB + 5 * PAGE_SIZE;	/* block 33, offline */
	CHECK_EQ(memory_range_in_use(33 * BLOCK_PAGES, BLOCK_PAGES, why, sizeof(why)), -EBUSY);
	CHECK(strstr(why, "page-table page at 0x108005000") != NULL);
	CHECK_EQ(memory_range_in_use(32 * BLOCK_PAGES, BLOCK_PAGES, why, sizeof(why)), 0);

	CHECK_EQ(memory_block_online(block(32), MMOP_ONLINE), 0);
	page = alloc_pages(GFP_KERNEL, 0);
	CHECK(page != NULL);
	pfn = page_to_pfn(page);
	CHECK_EQ(pfn_to_block_id(pfn), 32);
	host_page_table_pa = PFN_PHYS(pfn);
	describe_unmovable(pfn, why, sizeof(why));
	CHECK(strstr(why, "page-table page") != NULL);
	/* online memory: the offline step is the check, and it refuses */
	CHECK_EQ(memory_range_in_use(32 * BLOCK_PAGES, BLOCK_PAGES, why, sizeof(why)), 0);
	CHECK_EQ(memory_block_offline(block(32)), -EBUSY);
	host_page_table_pa = 0;
	free_pages(page, 0);
	CHECK_EQ(memory_block_offline(block(32)), 0);
	CHECK_EQ(remove_memory(HOTPLUG_BASE, 256 * MiB), 0);
}

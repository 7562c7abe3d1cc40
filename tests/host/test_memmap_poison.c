/*
 * test_memmap_poison.c - memmap_poison= (memmap_poison_enable()): with it
 * on, add_memory() and offlining write the poison into every struct page
 * of the block; with it off (the kernel's default) they write nothing, and
 * onlining still builds a memmap byte-identical to the one built over the
 * poison, so the option changes cost and debugging, never results.
 */
#include "htest.h"
#include "mm_host.h"
#include "hotplug_check.h"
#include <stdlib.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/memory_hotplug.h>
#include <lib/printk.h>
#include <lib/errno.h>

#define MiB		(1ULL << 20)
#define GiB		(1ULL << 30)
#define BASE		(4 * GiB)
#define NR_BLOCKS	2
#define NR_PAGES	(NR_BLOCKS * PAGES_PER_MEMORY_BLOCK)

/* How many struct pages of [pfn, pfn + n) hold the poison. */
static u64 nr_poisoned(u64 pfn, u64 n)
{
	u64 count = 0;

	for (u64 i = 0; i < n; i++)
		count += page_memmap_poisoned(pfn_to_page(pfn + i));
	return count;
}

/*
 * Add two blocks, online them movable, copy their memmap into *copy,
 * offline them; with poisoning `on` or off.
 */
static void add_online_offline(bool on, struct page **copy)
{
	const u64 pfn = BASE >> PAGE_SHIFT;

	hotplug_boot(8 * GiB, 512 * MiB);	/* 512 MiB of boot RAM */
	memmap_poison_enable(on);
	CHECK_EQ(memmap_poison_enabled(), on);
	CHECK_EQ(add_memory(0, BASE, NR_BLOCKS * MEMORY_BLOCK_SIZE, -1, MHP_NONE), 0);
	CHECK_EQ(nr_poisoned(pfn, NR_PAGES), on ? NR_PAGES : 0);
	for (unsigned long id = BASE / MEMORY_BLOCK_SIZE; id < BASE / MEMORY_BLOCK_SIZE + NR_BLOCKS;
	     id++)
		CHECK_EQ(memory_block_online(find_memory_block_by_id(id), MMOP_ONLINE_MOVABLE), 0);
	hotplug_check_invariants();
	CHECK_EQ(nr_poisoned(pfn, NR_PAGES), 0);
	*copy = malloc(NR_PAGES * sizeof(struct page));
	memcpy(*copy, pfn_to_page(pfn), NR_PAGES * sizeof(struct page));

	CHECK_EQ(memory_block_offline(find_memory_block_by_id(BASE / MEMORY_BLOCK_SIZE)), 0);
	CHECK(!online_section(__pfn_to_section(pfn)));	/* what tells, either way */
	CHECK_EQ(nr_poisoned(pfn, PAGES_PER_MEMORY_BLOCK), on ? PAGES_PER_MEMORY_BLOCK : 0);
	CHECK_EQ(offline_and_remove_memory(BASE, NR_BLOCKS * MEMORY_BLOCK_SIZE), 0);
	hotplug_check_invariants();
	memmap_poison_enable(true);
}

HTEST(memmap_poison_option_changes_cost_not_results)
{
	struct page *with = NULL, *without = NULL;

	add_online_offline(true, &with);
	add_online_offline(false, &without);
	CHECK(with && without);
	if (with && without)
		CHECK(memcmp(with, without, NR_PAGES * sizeof(struct page)) == 0);
	free(with);
	free(without);
}

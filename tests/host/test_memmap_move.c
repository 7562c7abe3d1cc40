/*
 * test_memmap_move.c - hot-added memmaps are movable (mm/hotplug_memmap.c):
 * no hot-added block pins another, so every unplug finishes.
 *
 * The cases that Linux cannot finish: two DIMMs holding each other's
 * memmaps (B's in A, then A re-added with its memmaps in B), a range
 * added block by block and removed bottom-up as virtio-mem unplugs, and
 * DIMMs removed in random order.  After each step the hotplug invariants
 * hold, and at the end free memory, totalram, the populated vmemmap and
 * the section-table roots are what they were before anything was added.
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
#include <mm/migrate.h>
#include "../../mm/internal.h"
#include <lib/errno.h>

#define MiB		(1ULL << 20)
#define GiB		(1ULL << 30)
#define BLOCK		MEMORY_BLOCK_SIZE

struct baseline {
	u64 free, total, vmemmap, roots;
};

static struct baseline baseline_now(void)
{
	struct baseline b = {
		.free = global_free_pages(),
		.total = totalram_pages(),
		.vmemmap = host_vmemmap_populated_pages,
		.roots = nr_section_roots(),
	};
	return b;
}

/* Everything added is gone again: nothing lost, nothing left mapped. */
static void check_back_to(const struct baseline *b)
{
	hotplug_check_invariants();
	CHECK_EQ(totalram_pages(), b->total);
	CHECK_EQ(nr_section_roots(), b->roots);		/* hot-added roots went back */
	CHECK_EQ(global_free_pages(), b->free);
	CHECK_EQ(host_vmemmap_populated_pages, b->vmemmap);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 0);
}

/* Which block backs the memmap of block nr (as the section records it). */
static unsigned long memmap_holder(u64 nr)
{
	return pfn_to_block_id(PHYS_PFN(__nr_to_section(nr)->memmap_pa));
}

/* Every memmap page of block nr says it is that block's, wherever it is. */
static bool memmap_marked(u64 nr)
{
	u64 pfn = PHYS_PFN(__nr_to_section(nr)->memmap_pa), sec;

	for (u64 i = 0; i < (1ULL << HOTPLUG_MEMMAP_ORDER); i++)
		if (!hotplug_memmap_page(pfn_to_page(pfn + i), &sec) || sec != nr)
			return false;
	return true;
}

/*
 * DIMM A (3 blocks at 4 GiB) and DIMM B (3 blocks at 5 GiB), both onlined
 * as added.  B's memmaps come from A (Normal memory is preferred to the
 * DMA32 boot memory), so in Linux A is unremovable until B goes.  Here A
 * goes first: B's memmaps migrate.  A comes back (its memmaps now in B),
 * B goes, then A: every order works.
 */
HTEST(memmap_move_dimms_hold_each_others_memmaps)
{
	const u64 a = 4 * GiB, b = 5 * GiB, size = 3 * BLOCK;
	struct baseline base;
	u64 moved0;

	hotplug_boot(8 * GiB, 512 * MiB);
	memhp_set_default_online_type(MMOP_ONLINE);
	base = baseline_now();

	CHECK_EQ(add_memory(0, a, size, -1, MHP_NONE), 0);
	CHECK_EQ(add_memory(0, b, size, -1, MHP_NONE), 0);
	hotplug_check_invariants();
	for (u64 nr = 40; nr < 43; nr++) {
		CHECK(memmap_holder(nr) >= 32 && memmap_holder(nr) < 35);	/* in A */
		CHECK(memmap_marked(nr));
	}

	moved0 = memhp_stats.memmaps_moved;
	CHECK_EQ(offline_and_remove_memory(a, size), 0);
	hotplug_check_invariants();
	/* at least once each; a memmap may hop into the next block of A first,
	 * as A goes block by block (so may any movable page) */
	CHECK(memhp_stats.memmaps_moved >= moved0 + 3);
	for (u64 nr = 40; nr < 43; nr++) {
		CHECK(memmap_holder(nr) < 32 || memmap_holder(nr) >= 35);
		CHECK(memmap_marked(nr));
	}

	CHECK_EQ(add_memory(0, a, size, -1, MHP_NONE), 0);
	hotplug_check_invariants();
	for (u64 nr = 32; nr < 35; nr++)
		CHECK(memmap_marked(nr));
	CHECK_EQ(offline_and_remove_memory(b, size), 0);
	hotplug_check_invariants();
	for (u64 nr = 32; nr < 35; nr++) {
		CHECK(memmap_holder(nr) < 40 || memmap_holder(nr) >= 43);
		CHECK(memmap_marked(nr));
	}
	CHECK_EQ(offline_and_remove_memory(a, size), 0);
	check_back_to(&base);
}

/*
 * 16 GiB added to a 128 MiB machine, block by block with auto-online (as
 * virtio-mem plugs): the later blocks' memmaps lie in earlier blocks of the
 * range.  Removed bottom-up, a block at a time: each removal moves the
 * memmaps it holds (into the blocks they describe, so each moves at most
 * twice), and the last block goes too.  Linux stops at the first block.
 */
HTEST(memmap_move_range_removed_bottom_up)
{
	const u64 start = 4 * GiB, size = 16 * GiB, nr_blocks = size / BLOCK;
	struct baseline base;
	u64 first = PHYS_PFN(start) / PAGES_PER_MEMORY_BLOCK, nested = 0, moved0;

	hotplug_boot(start + size, 128 * MiB);
	memhp_set_default_online_type(MMOP_ONLINE);
	base = baseline_now();
	CHECK_EQ(add_memory(0, start, size, -1, MHP_NONE), 0);
	hotplug_check_invariants();
	for (u64 nr = first; nr < first + nr_blocks; nr++)
		nested += memmap_holder(nr) >= first;
	CHECK(nested > 0);

	moved0 = memhp_stats.memmaps_moved;
	for (u64 i = 0; i < nr_blocks; i++) {
		int err = offline_and_remove_memory(start + i * BLOCK, BLOCK);

		CHECK_EQ(err, 0);
		if (err)
			break;
	}
	hotplug_check_invariants();
	/* each memmap moves at most twice: into its own block, and out of it
	 * when that block goes (no hopping from block to block) */
	CHECK(memhp_stats.memmaps_moved - moved0 <= 2 * nr_blocks);
	CHECK(memhp_stats.memmaps_moved > moved0);
	check_back_to(&base);
}

/* xorshift64: the same sequence for the same seed. */
static u64 next_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Six DIMMs of 1 to 4 blocks, each added and onlined after the last, so
 * later DIMMs' memmaps lie in earlier ones; a movable allocation in each;
 * then removed in a random order (several seeds), each removal at the
 * first try.  Then everything is back.
 */
HTEST(memmap_move_dimms_removed_in_random_order)
{
	enum { NR_DIMMS = 6 };

	for (u64 seed = 1; seed <= 8; seed++) {
		u64 rnd = seed * 0x9e3779b97f4a7c15ULL, start[NR_DIMMS], size[NR_DIMMS];
		unsigned order[NR_DIMMS];
		struct baseline base;
		u64 at = 4 * GiB;

		hotplug_boot(16 * GiB, 256 * MiB);
		memhp_set_default_online_type((seed & 1) ? MMOP_ONLINE_MOVABLE : MMOP_ONLINE);
		base = baseline_now();
		for (unsigned i = 0; i < NR_DIMMS; i++) {
			start[i] = at;
			size[i] = (1 + next_rand(&rnd) % 4) * BLOCK;
			at += size[i] + BLOCK;		/* a hole between DIMMs */
			CHECK_EQ(add_memory(0, start[i], size[i], -1, MHP_NONE), 0);
			order[i] = i;
		}
		hotplug_check_invariants();
		for (unsigned i = NR_DIMMS - 1; i > 0; i--) {
			unsigned j = (unsigned)(next_rand(&rnd) % (i + 1)), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (unsigned k = 0; k < NR_DIMMS; k++) {
			unsigned i = order[k];

			CHECK_EQ(offline_and_remove_memory(start[i], size[i]), 0);
			hotplug_check_invariants();
		}
		check_back_to(&base);
	}
}

/*
 * A memmap page with an extra reference (a pin) is not moved: offlining
 * the block under it fails and names it; unpinned, the offline works.
 * A forged mark (page->index naming a section backed elsewhere) makes the
 * page unmovable rather than moving the wrong memory.
 */
HTEST(memmap_move_pinned_or_forged_is_refused)
{
	char why[200];
	u64 pfn;
	unsigned long idx;

	hotplug_boot(8 * GiB, 512 * MiB);
	memhp_set_default_online_type(MMOP_ONLINE);
	CHECK_EQ(add_memory(0, 4 * GiB, BLOCK, -1, MHP_NONE), 0);
	CHECK_EQ(add_memory(0, 5 * GiB, BLOCK, -1, MHP_NONE), 0);
	CHECK_EQ(memmap_holder(40), 32);
	pfn = PHYS_PFN(__nr_to_section(40)->memmap_pa);

	pfn_to_page(pfn + 3)->refcount++;
	CHECK_EQ(offline_and_remove_memory(4 * GiB, BLOCK), -EBUSY);
	describe_unmovable(pfn + 3, why, sizeof(why));
	CHECK(strstr(why, "pinned: pfn ") != NULL);
	pfn_to_page(pfn + 3)->refcount--;
	hotplug_check_invariants();
	CHECK_EQ(memmap_holder(40), 32);

	idx = pfn_to_page(pfn)->index;
	pfn_to_page(pfn)->index = 41;		/* a section with no memmap */
	CHECK_EQ(offline_and_remove_memory(4 * GiB, BLOCK), -EBUSY);
	pfn_to_page(pfn)->index = idx;
	CHECK_EQ(memmap_holder(40), 32);

	CHECK_EQ(offline_and_remove_memory(4 * GiB, BLOCK), 0);
	CHECK_EQ(offline_and_remove_memory(5 * GiB, BLOCK), 0);
	hotplug_check_invariants();
}

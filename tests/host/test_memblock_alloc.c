/*
 * test_memblock_alloc.c - mm/memblock.c on private struct memblock
 * instances: using the lists.  Allocation (top down, alignment, limits,
 * nodes, exhaustion), the free ranges and the lookups, zero sizes and
 * ranges that wrap, and the text dump.
 *
 * As in test_memblock.c, each case draws its ranges in its comment (half
 * open: [==) is a range, with its end one past its last byte) and compares
 * the whole lists with the expected ones (memblock_check.h).
 */
#include "htest.h"
#include "memblock_check.h"
#include <mm/memblock.h>
#include <mm/page.h>
#include <lib/errno.h>
#include <lib/printer.h>

/* ------------------------------------------------------------------------ */
/* Allocation                                                                  */

/*
 * The boot layout used by the allocation cases:
 *
 *   memory   [======================================)   [0, 64) MiB node 0
 *   reserved [=====)                                    [0, 1) MiB
 */
static void boot_layout(void)
{
	reset();
	CHECK_EQ(memblock_add_node(&mb, 0, 64 * SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_reserve(&mb, 0, SZ_1M), 0);
}

/*
 * Allocations come from the top, each below the previous one, and are
 * reserved (the reservations merge):
 *
 *   memory   [======================================)
 *   reserved [=====)                          [=)[=)    a1, then a2 below it
 *
 * Expect a1 = 64 MiB - 4 KiB, a2 = 64 MiB - 12 KiB (8 KiB), two reserved
 * regions.
 */
HTEST(memblock_alloc_top_down)
{
	phys_addr_t a1, a2;

	boot_layout();
	a1 = memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 0, TOP, NO);
	a2 = memblock_phys_alloc_range(&mb, 2 * SZ_4K, SZ_4K, 0, TOP, NO);
	CHECK_EQ(a1, 64 * SZ_1M - SZ_4K);
	CHECK_EQ(a2, 64 * SZ_1M - 3 * SZ_4K);
	EXPECT_RESERVED(RSV(0, SZ_1M), RSV(64 * SZ_1M - 3 * SZ_4K, 3 * SZ_4K));
	CHECK(memblock_is_reserved(&mb, a1));
	CHECK(memblock_is_reserved(&mb, a2 + SZ_4K));
	CHECK_EQ(memblock_reserved_size(&mb), SZ_1M + 3 * SZ_4K);
}

/*
 * Alignment: memory ends at an address that is not even 16-byte aligned;
 * each allocation takes the highest aligned base it fits above.
 *
 *   memory   [==============================)    [1 MiB, end = 64 MiB - 0x1234)
 *   4 KiB, align 2 MiB               [)          62 MiB
 *   16 bytes, align 16                    [)     ALIGN_DOWN(end - 16, 16)
 *   3 bytes, align 1                       [)   in the 12 bytes above that
 *
 * Expect those three bases; then zero sizes, alignments that are not a
 * power of two, an empty [start, end) and a size larger than memory give
 * 0 and change nothing.
 */
HTEST(memblock_alloc_alignment)
{
	phys_addr_t end = 64 * SZ_1M - 0x1234;

	reset();
	CHECK_EQ(memblock_add(&mb, SZ_1M, end - SZ_1M), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_2M, 0, TOP, NO), 62 * SZ_1M);
	CHECK_EQ(memblock_phys_alloc_range(&mb, 16, 16, 0, TOP, NO),
		 ALIGN_DOWN(end - 16, 16));
	CHECK_EQ(memblock_phys_alloc_range(&mb, 3, 1, 0, TOP, NO), end - 3);
	/* Bad sizes and alignments hand out nothing and change nothing. */
	saved = mb;
	CHECK_EQ(memblock_phys_alloc_range(&mb, 0, SZ_4K, 0, TOP, NO), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, 0, 0, TOP, NO), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, 3 * SZ_4K, 0, TOP, NO), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 8 * SZ_1M, 8 * SZ_1M, NO), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, TOP, 1, 0, TOP, NO), 0);
	EXPECT_UNCHANGED();
}

/*
 * Allocations skip reserved ranges and holes that are too small:
 *
 *   memory   [======================================)   [0, 64) MiB
 *   reserved                          [=)   [=)   [=)   [52,54) [56,58) [60,64) MiB
 *   holes                               2MiB  2MiB
 *
 * Expect a 3 MiB allocation at 49 MiB (below [52, 54)), and a 2 MiB one
 * in the hole [58, 60) MiB.
 */
HTEST(memblock_alloc_skips_reserved)
{
	boot_layout();
	CHECK_EQ(memblock_reserve(&mb, 52 * SZ_1M, 2 * SZ_1M), 0);
	CHECK_EQ(memblock_reserve(&mb, 56 * SZ_1M, 2 * SZ_1M), 0);
	CHECK_EQ(memblock_reserve(&mb, 60 * SZ_1M, 4 * SZ_1M), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, 3 * SZ_1M, SZ_4K, 0, TOP, NO), 49 * SZ_1M);
	CHECK_EQ(memblock_phys_alloc_range(&mb, 2 * SZ_1M, SZ_4K, 0, TOP, NO), 58 * SZ_1M);
	EXPECT_RESERVED(RSV(0, SZ_1M), RSV(49 * SZ_1M, 5 * SZ_1M),
			RSV(56 * SZ_1M, 8 * SZ_1M));
}

/*
 * current_limit and [start, end): the allocation ends at or below the
 * lower of end and the limit, and starts at or above start.
 *
 *   memory   [======================================)   [0, 64) MiB
 *   limit                  |                            16 MiB
 *   range            [=========)                        [8, 24) MiB
 *
 * Expect 16 MiB - 4 KiB; with the limit lifted, 24 MiB - 4 KiB; a range
 * holding less than the size gives 0.
 */
HTEST(memblock_alloc_limit_and_range)
{
	boot_layout();
	mb.current_limit = 16 * SZ_1M;
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 0, TOP, NO),
		 16 * SZ_1M - SZ_4K);
	CHECK_EQ(memblock_phys_alloc_try_nid(&mb, SZ_4K, SZ_4K, 0), 16 * SZ_1M - 2 * SZ_4K);
	mb.current_limit = MEMBLOCK_ALLOC_ANYWHERE;
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 8 * SZ_1M, 24 * SZ_1M, NO),
		 24 * SZ_1M - SZ_4K);
	CHECK_EQ(memblock_phys_alloc_range(&mb, 2 * SZ_4K, SZ_4K, 8 * SZ_1M,
					   8 * SZ_1M + SZ_4K, NO), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 8 * SZ_1M,
					   8 * SZ_1M + SZ_4K, NO), 8 * SZ_1M);
	/* [0, 1 MiB) is reserved: nothing below it. */
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 0, SZ_1M, NO), 0);
}

/*
 * Nodes: two nodes of 32 MiB each.
 *
 *   memory   [==== node 0 ====)[==== node 1 ====)      [0, 32) [32, 64) MiB
 *
 * Expect nid 0 -> 32 MiB - 4 KiB, nid 1 -> 64 MiB - 4 KiB, nid 2 -> 0;
 * try_nid(2) falls back to the top.  Once node 1 is all reserved,
 * try_nid(1) falls back to node 0.
 */
HTEST(memblock_alloc_nid)
{
	reset();
	CHECK_EQ(memblock_add_node(&mb, 0, 32 * SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 32 * SZ_1M, 32 * SZ_1M, 1, 0), 0);
	CHECK_EQ(memblock_reserve(&mb, 0, SZ_1M), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 0, TOP, 0), 32 * SZ_1M - SZ_4K);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 0, TOP, 1), 64 * SZ_1M - SZ_4K);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 0, TOP, 2), 0);
	CHECK_EQ(memblock_phys_alloc_try_nid(&mb, SZ_4K, SZ_4K, 2), 64 * SZ_1M - 2 * SZ_4K);
	CHECK_EQ(memblock_phys_alloc_try_nid(&mb, SZ_4K, SZ_4K, NO), 64 * SZ_1M - 3 * SZ_4K);

	/* Left free: [31 MiB, 32 MiB - 4 KiB) on node 0, [32, 33) MiB on node 1. */
	CHECK_EQ(memblock_reserve(&mb, 0, 31 * SZ_1M), 0);
	CHECK_EQ(memblock_reserve(&mb, 33 * SZ_1M, 31 * SZ_1M), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_1M + SZ_4K, SZ_4K, 0, TOP, NO), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_1M, SZ_4K, 0, TOP, NO), 32 * SZ_1M);
	CHECK_EQ(memblock_phys_alloc_try_nid(&mb, SZ_1M - SZ_4K, SZ_4K, 1), 31 * SZ_1M);
	CHECK_EQ(memblock_phys_alloc_try_nid(&mb, SZ_4K, SZ_4K, 1), 0);
	CHECK_EQ(memblock_reserved_size(&mb), 64 * SZ_1M);
}

/*
 * An allocation lies inside one memory region, even where touching regions
 * on different nodes or with different flags are both free:
 *
 *   memory   [== n0 ==)[== n1 ==)  [== n0 ==)[n0 HOTPLUG)   [1,2) [2,3) [4,5) [5,6) MiB
 *   1.5 MiB       [=====)               [=====)             does not fit
 *
 * Expect 0 for 1.5 MiB while the regions differ; once [1, 3) MiB is all
 * node 1 (one region), expect 3 MiB - 1.5 MiB.
 */
HTEST(memblock_alloc_one_region)
{
	phys_addr_t size = SZ_1M + SZ_1M / 2;

	reset();
	CHECK_EQ(memblock_add_node(&mb, SZ_1M, SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 2 * SZ_1M, SZ_1M, 1, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 4 * SZ_1M, SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 5 * SZ_1M, SZ_1M, 0, HP), 0);
	saved = mb;
	CHECK_EQ(memblock_phys_alloc_range(&mb, size, SZ_4K, 0, TOP, NO), 0);
	CHECK_EQ(memblock_phys_alloc_try_nid(&mb, size, SZ_4K, 0), 0);
	EXPECT_UNCHANGED();
	CHECK_EQ(memblock_set_node(&mb, SZ_1M, SZ_1M, 1), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, size, SZ_4K, 0, TOP, NO), 3 * SZ_1M - size);
}

/*
 * Exhaustion: 64 KiB of memory at 1 MiB, allocated 4 KiB at a time, gives
 * 16 distinct pages from the top down, then 0.
 */
HTEST(memblock_alloc_exhaustion)
{
	reset();
	CHECK_EQ(memblock_add(&mb, SZ_1M, 16 * SZ_4K), 0);
	for (int i = 1; i <= 16; i++)
		CHECK_EQ(memblock_phys_alloc_try_nid(&mb, SZ_4K, SZ_4K, 0),
			 SZ_1M + (16 - i) * SZ_4K);
	saved = mb;
	CHECK_EQ(memblock_phys_alloc_try_nid(&mb, SZ_4K, SZ_4K, NO), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, 1, 1, 0, TOP, NO), 0);
	EXPECT_UNCHANGED();
	EXPECT_RESERVED(RSV(SZ_1M, 16 * SZ_4K));
}

/*
 * Address 0 is never handed out, even when it is free memory:
 *
 *   memory   [===)               [0, 8 KiB), nothing reserved
 *
 * Expect 4 KiB; then 0 for another 4 KiB (only [0, 4 KiB) is left); then
 * 1 for 4 KiB - 1 bytes with alignment 1; then 0 for 1 byte ([0, 1) is
 * all that is free).
 */
HTEST(memblock_alloc_never_zero)
{
	reset();
	CHECK_EQ(memblock_add(&mb, 0, 2 * SZ_4K), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 0, TOP, NO), SZ_4K);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 0, TOP, NO), 0);
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K - 1, 1, 0, TOP, NO), 1);
	CHECK_EQ(memblock_phys_alloc_range(&mb, 1, 1, 0, TOP, NO), 0);
	EXPECT_RESERVED(RSV(1, 2 * SZ_4K - 1));
}

/* ------------------------------------------------------------------------ */
/* Free ranges, lookups, sizes                                                 */

struct frange {
	phys_addr_t start, end;
	int nid;
};

/* Compare the free ranges of mb on node nid with want[0, n). */
static void expect_free_at(int nid, const struct frange *want, u32 n, int line)
{
	u64 idx = 0;
	phys_addr_t s, e;
	int rnid;
	u32 i = 0;
	bool same = true;

	while (memblock_next_free_range(&mb, &idx, nid, &s, &e, &rnid)) {
		if (i >= n || s != want[i].start || e != want[i].end || rnid != want[i].nid) {
			same = false;
			fprintf(stderr, "    free range %u: got [0x%llx-0x%llx) nid %d\n", i,
				(unsigned long long)s, (unsigned long long)e, rnid);
		}
		i++;
	}
	CHECK(!memblock_next_free_range(&mb, &idx, nid, &s, &e, &rnid));
	if (same && i == n)
		return;
	htest_failures++;
	fprintf(stderr, "  %s:%d: free ranges on nid %d differ (%u given, %u expected)\n",
		__FILE__, line, nid, i, n);
}
#define EXPECT_FREE(nid, ...)						\
	do {								\
		const struct frange want_[] = { __VA_ARGS__ };	\
		expect_free_at(nid, want_, ARRAY_SIZE(want_), __LINE__); \
	} while (0)

/*
 * Free ranges are memory minus reserved, in address order, split at
 * region boundaries:
 *
 *   memory   [=)  [===== n0 =====)[== n1 ==)        [4K,0x9f000) n0, [1M,48M) n0, [48M,64M) n1
 *   reserved [=========)    [=)          [=)   [=)  [0,3M) [40M,41M) [60M,61M) [100M,101M)
 *   free               [===)  [==)[==)    [)
 *
 * Expect [3M,40M) n0, [41M,48M) n0, [48M,60M) n1, [61M,64M) n1; only the
 * last two for nid 1, none for nid 2.
 */
HTEST(memblock_free_ranges)
{
	reset();
	CHECK_EQ(memblock_add_node(&mb, SZ_4K, 0x9e000, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, SZ_1M, 47 * SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 48 * SZ_1M, 16 * SZ_1M, 1, 0), 0);
	CHECK_EQ(memblock_reserve(&mb, 0, 3 * SZ_1M), 0);
	CHECK_EQ(memblock_reserve(&mb, 40 * SZ_1M, SZ_1M), 0);
	CHECK_EQ(memblock_reserve(&mb, 60 * SZ_1M, SZ_1M), 0);
	CHECK_EQ(memblock_reserve(&mb, 100 * SZ_1M, SZ_1M), 0);
	EXPECT_FREE(NO, { 3 * SZ_1M, 40 * SZ_1M, 0 }, { 41 * SZ_1M, 48 * SZ_1M, 0 },
		    { 48 * SZ_1M, 60 * SZ_1M, 1 }, { 61 * SZ_1M, 64 * SZ_1M, 1 });
	EXPECT_FREE(1, { 48 * SZ_1M, 60 * SZ_1M, 1 }, { 61 * SZ_1M, 64 * SZ_1M, 1 });
	EXPECT_FREE(0, { 3 * SZ_1M, 40 * SZ_1M, 0 }, { 41 * SZ_1M, 48 * SZ_1M, 0 });

	u64 idx = 0;
	CHECK(!memblock_next_free_range(&mb, &idx, 2, NULL, NULL, NULL));
	idx = 0;
	CHECK(memblock_next_free_range(&mb, &idx, NO, NULL, NULL, NULL));

	/* Everything reserved: no free range; nothing reserved: all memory. */
	CHECK_EQ(memblock_reserve(&mb, 0, 64 * SZ_1M), 0);
	idx = 0;
	CHECK(!memblock_next_free_range(&mb, &idx, NO, NULL, NULL, NULL));
	CHECK_EQ(memblock_phys_free(&mb, 0, TOP), 0);
	EXPECT_FREE(NO, { SZ_4K, 0x9f000, 0 }, { SZ_1M, 48 * SZ_1M, 0 },
		    { 48 * SZ_1M, 64 * SZ_1M, 1 });
	reset();
	idx = 0;
	CHECK(!memblock_next_free_range(&mb, &idx, NO, NULL, NULL, NULL));
}

/*
 * Lookups at the edges of regions, sizes and the extent of DRAM:
 *
 *   memory   [=====)   [=====)      [1M, 2M) n0, [4M, 8M) n1
 *   reserved    [===)               [1.5M, 2.5M)
 */
HTEST(memblock_lookups)
{
	reset();
	CHECK_EQ(memblock_start_of_DRAM(&mb), 0);
	CHECK_EQ(memblock_end_of_DRAM(&mb), 0);
	CHECK(!memblock_is_memory(&mb, 0));
	CHECK_EQ(memblock_nid_of(&mb, 0), NO);
	CHECK_EQ(memblock_add_node(&mb, SZ_1M, SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 4 * SZ_1M, 4 * SZ_1M, 1, 0), 0);
	CHECK_EQ(memblock_reserve(&mb, SZ_1M + SZ_1M / 2, SZ_1M), 0);
	CHECK(!memblock_is_memory(&mb, SZ_1M - 1));
	CHECK(memblock_is_memory(&mb, SZ_1M));
	CHECK(memblock_is_memory(&mb, 2 * SZ_1M - 1));
	CHECK(!memblock_is_memory(&mb, 2 * SZ_1M));
	CHECK(memblock_is_memory(&mb, 8 * SZ_1M - 1));
	CHECK(!memblock_is_memory(&mb, 8 * SZ_1M));
	CHECK(!memblock_is_memory(&mb, TOP));
	CHECK(!memblock_is_reserved(&mb, SZ_1M + SZ_1M / 2 - 1));
	CHECK(memblock_is_reserved(&mb, SZ_1M + SZ_1M / 2));
	CHECK(memblock_is_reserved(&mb, 2 * SZ_1M + SZ_1M / 2 - 1));
	CHECK(!memblock_is_reserved(&mb, 2 * SZ_1M + SZ_1M / 2));
	CHECK_EQ(memblock_nid_of(&mb, SZ_1M), 0);
	CHECK_EQ(memblock_nid_of(&mb, 5 * SZ_1M), 1);
	CHECK_EQ(memblock_nid_of(&mb, 3 * SZ_1M), NO);
	CHECK_EQ(memblock_phys_mem_size(&mb), 5 * SZ_1M);
	CHECK_EQ(memblock_reserved_size(&mb), SZ_1M);
	CHECK_EQ(memblock_start_of_DRAM(&mb), SZ_1M);
	CHECK_EQ(memblock_end_of_DRAM(&mb), 8 * SZ_1M);
}

/* ------------------------------------------------------------------------ */
/* Zero sizes and ranges that wrap                                             */

/* Size 0 is a no-op that succeeds, whatever the base. */
HTEST(memblock_zero_size)
{
	reset();
	CHECK_EQ(memblock_add(&mb, SZ_1M, SZ_1M), 0);
	CHECK_EQ(memblock_reserve(&mb, SZ_1M, SZ_4K), 0);
	saved = mb;
	CHECK_EQ(memblock_add(&mb, 5 * SZ_1M, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, TOP, 0, 1, HP), 0);
	CHECK_EQ(memblock_remove(&mb, SZ_1M, 0), 0);
	CHECK_EQ(memblock_set_node(&mb, SZ_1M, 0, 1), 0);
	CHECK_EQ(memblock_reserve(&mb, 0, 0), 0);
	CHECK_EQ(memblock_phys_free(&mb, SZ_1M, 0), 0);
	EXPECT_UNCHANGED();
}

/*
 * A range whose end would pass 2^64 is -EINVAL and changes nothing; a range
 * ending at 2^64 - 1 (the highest end there is) works everywhere:
 *
 *   memory   [=========)      [TOP - 0x1fff, TOP) node 1, TOP = 2^64 - 1
 *   wraps          [=========)   -EINVAL
 *
 * Expect the free range to reach TOP, a 4 KiB allocation at the bottom of
 * the region (the only 4 KiB-aligned fit) and a 1-byte one at TOP - 1.
 */
HTEST(memblock_wrap)
{
	phys_addr_t base = TOP - 0x1fff;	/* 0xffffffffffffe000 */

	reset();
	CHECK_EQ(memblock_add_node(&mb, base, 0x1fff, 1, 0), 0);
	EXPECT_MEMORY({ base, 0x1fff, 1, 0 });
	saved = mb;
	CHECK_EQ(memblock_add(&mb, TOP - SZ_4K, 2 * SZ_4K), -EINVAL);
	CHECK_EQ(memblock_add(&mb, TOP - SZ_4K + 1, SZ_4K), -EINVAL);	/* end 2^64 */
	CHECK_EQ(memblock_add(&mb, 1, TOP), -EINVAL);
	CHECK_EQ(memblock_remove(&mb, base, TOP), -EINVAL);
	CHECK_EQ(memblock_set_node(&mb, base, TOP, 0), -EINVAL);
	CHECK_EQ(memblock_reserve(&mb, TOP, 1), -EINVAL);
	CHECK_EQ(memblock_phys_free(&mb, TOP, TOP), -EINVAL);
	EXPECT_UNCHANGED();

	CHECK(memblock_is_memory(&mb, TOP - 1));
	CHECK(!memblock_is_memory(&mb, TOP));
	CHECK_EQ(memblock_end_of_DRAM(&mb), TOP);
	EXPECT_FREE(NO, { base, TOP, 1 });
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 0, TOP, NO), base);
	CHECK_EQ(memblock_phys_alloc_range(&mb, 1, 1, 0, TOP, 1), TOP - 1);
	EXPECT_RESERVED(RSV(base, SZ_4K), RSV(TOP - 1, 1));
	EXPECT_FREE(1, { base + SZ_4K, TOP - 1, 1 });
	CHECK_EQ(memblock_reserve(&mb, base + SZ_4K, TOP - 1 - (base + SZ_4K)), 0);
	EXPECT_RESERVED(RSV(base, 0x1fff));
	CHECK_EQ(memblock_phys_free(&mb, 0, TOP), 0);
	CHECK_EQ(mb.reserved.cnt, 0);
}

/* ------------------------------------------------------------------------ */
/* memblock_dump()                                                             */

/*
 * The dump of a small boot layout, in Linux's memblock=debug form:
 *
 *   memory   [=)  [=================)[== HOTPLUG, no node ==)
 *   reserved [=========)
 */
HTEST(memblock_dump_text)
{
	static char text[4096];
	struct buf_printer bp;

	reset();
	CHECK_EQ(memblock_add_node(&mb, SZ_4K, 0x9e000, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, SZ_1M, 127 * SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 128 * SZ_1M, 128 * SZ_1M, NO, HP), 0);
	CHECK_EQ(memblock_reserve(&mb, 0, 4 * SZ_1M), 0);
	buf_printer_init(&bp, text, sizeof(text));
	memblock_dump(&mb, &bp.p);
	CHECK(!bp.overflow);
	CHECK_STREQ(text,
		"MEMBLOCK configuration:\n"
		" memory size = 0x000000000ff9e000 reserved size = 0x0000000000400000\n"
		" memory.cnt  = 0x3\n"
		" memory[0x0]\t[0x0000000000001000-0x000000000009efff], 0x000000000009e000 bytes on node 0 flags: 0x0\n"
		" memory[0x1]\t[0x0000000000100000-0x0000000007ffffff], 0x0000000007f00000 bytes on node 0 flags: 0x0\n"
		" memory[0x2]\t[0x0000000008000000-0x000000000fffffff], 0x0000000008000000 bytes flags: 0x1\n"
		" reserved.cnt  = 0x1\n"
		" reserved[0x0]\t[0x0000000000000000-0x00000000003fffff], 0x0000000000400000 bytes flags: 0x0\n");
}

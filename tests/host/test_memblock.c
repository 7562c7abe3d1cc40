/*
 * test_memblock.c - mm/memblock.c on private struct memblock instances:
 * building the lists.  memblock_add() and memblock_add_node() in every
 * overlap shape, memblock_reserve() and memblock_phys_free(),
 * memblock_remove(), memblock_set_node(), and a full region array.
 *
 * In the manner of Linux's memblock simulator (tools/testing/memblock),
 * each case builds a few ranges, draws them in its comment and says what it
 * expects; the whole list is then compared with the expected one
 * (memblock_check.h, which also checks the invariants of both lists).
 * Drawings are half-open: [==) is a range, with its end one past its last
 * byte.  Allocation and lookups are in test_memblock_alloc.c, the
 * randomized cases in test_memblock_random.c.
 */
#include "htest.h"
#include "memblock_check.h"
#include <mm/memblock.h>
#include <mm/page.h>
#include <lib/errno.h>
#include <lib/printer.h>

/* ------------------------------------------------------------------------ */
/* memblock_add(), memblock_add_node(): every overlap shape                  */

/*
 * Adding one range to an empty list:
 *
 *   [=========)      r1 = [1 MiB, 16 MiB) on node 0, flags HOTPLUG
 *
 * Expect exactly that region, and memblock_add() to give no node.
 */
HTEST(memblock_add_simple)
{
	reset();
	CHECK_EQ(memblock_add_node(&mb, SZ_1M, 15 * SZ_1M, 0, HP), 0);
	EXPECT_MEMORY({ SZ_1M, 15 * SZ_1M, 0, HP });
	CHECK_EQ(mb.reserved.cnt, 0);

	reset();
	CHECK_EQ(memblock_add(&mb, SZ_4K, 0x9e000), 0);
	EXPECT_MEMORY({ SZ_4K, 0x9e000, NO, 0 });
}

/*
 * Two disjoint ranges, the second below the first:
 *
 *                 [=====)    r1 = [64 MiB, 128 MiB)
 *   [=====)                  r2 = [16 MiB, 32 MiB)
 *
 * Expect two regions, r2 first.
 */
HTEST(memblock_add_disjoint)
{
	reset();
	CHECK_EQ(memblock_add(&mb, 64 * SZ_1M, 64 * SZ_1M), 0);
	CHECK_EQ(memblock_add(&mb, 16 * SZ_1M, 16 * SZ_1M), 0);
	EXPECT_MEMORY({ 16 * SZ_1M, 16 * SZ_1M, NO, 0 },
		      { 64 * SZ_1M, 64 * SZ_1M, NO, 0 });
}

/*
 * A new range that overlaps the bottom of an existing one:
 *
 *         [=========)     r1 = [32 MiB, 64 MiB)
 *   [=========)           r2 = [16 MiB, 48 MiB)
 *   [===============)
 *
 * Expect one region [16 MiB, 64 MiB).
 */
HTEST(memblock_add_overlap_bottom)
{
	reset();
	CHECK_EQ(memblock_add(&mb, 32 * SZ_1M, 32 * SZ_1M), 0);
	CHECK_EQ(memblock_add(&mb, 16 * SZ_1M, 32 * SZ_1M), 0);
	EXPECT_MEMORY({ 16 * SZ_1M, 48 * SZ_1M, NO, 0 });
}

/*
 * A new range that overlaps the top of an existing one:
 *
 *   [=========)           r1 = [16 MiB, 48 MiB)
 *         [=========)     r2 = [32 MiB, 64 MiB)
 *   [===============)
 *
 * Expect one region [16 MiB, 64 MiB).
 */
HTEST(memblock_add_overlap_top)
{
	reset();
	CHECK_EQ(memblock_add(&mb, 16 * SZ_1M, 32 * SZ_1M), 0);
	CHECK_EQ(memblock_add(&mb, 32 * SZ_1M, 32 * SZ_1M), 0);
	EXPECT_MEMORY({ 16 * SZ_1M, 48 * SZ_1M, NO, 0 });
}

/*
 * A new range inside an existing one, and the same range twice:
 *
 *   [===============)     r1 = [16 MiB, 64 MiB) node 1
 *       [=====)           r2 = [32 MiB, 40 MiB) node 2
 *
 * Expect r1 unchanged: bytes that exist keep their node.
 */
HTEST(memblock_add_within)
{
	reset();
	CHECK_EQ(memblock_add_node(&mb, 16 * SZ_1M, 48 * SZ_1M, 1, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 32 * SZ_1M, 8 * SZ_1M, 2, HP), 0);
	CHECK_EQ(memblock_add_node(&mb, 16 * SZ_1M, 48 * SZ_1M, 1, 0), 0);
	EXPECT_MEMORY({ 16 * SZ_1M, 48 * SZ_1M, 1, 0 });
}

/*
 * A new range that covers several regions and the holes between them:
 *
 *     [==)   [==)   [==)        r1, r2, r3 = [2,3), [4,5), [6,7) MiB
 *   [====================)      r4 = [1 MiB, 8 MiB)
 *
 * Expect one region [1 MiB, 8 MiB).
 */
HTEST(memblock_add_covers_several)
{
	reset();
	for (int i = 2; i <= 6; i += 2)
		CHECK_EQ(memblock_add(&mb, i * SZ_1M, SZ_1M), 0);
	EXPECT_MEMORY({ 2 * SZ_1M, SZ_1M, NO, 0 }, { 4 * SZ_1M, SZ_1M, NO, 0 },
		      { 6 * SZ_1M, SZ_1M, NO, 0 });
	CHECK_EQ(memblock_add(&mb, SZ_1M, 7 * SZ_1M), 0);
	EXPECT_MEMORY({ SZ_1M, 7 * SZ_1M, NO, 0 });
}

/*
 * Ranges that touch an existing one, above, below, and one that exactly
 * fills the hole between two:
 *
 *          [====)              r1 = [4 MiB, 8 MiB)
 *               [====)         r2 = [8 MiB, 12 MiB)   touches above
 *     [====)                   r3 = [1 MiB, 4 MiB)    touches below
 *                       [==)   r4 = [16 MiB, 20 MiB)
 *                    [==)      r5 = [12 MiB, 16 MiB)  fills the hole
 *
 * Expect one region [1 MiB, 20 MiB) after r5, two before it.
 */
HTEST(memblock_add_touching)
{
	reset();
	CHECK_EQ(memblock_add(&mb, 4 * SZ_1M, 4 * SZ_1M), 0);
	CHECK_EQ(memblock_add(&mb, 8 * SZ_1M, 4 * SZ_1M), 0);
	CHECK_EQ(memblock_add(&mb, SZ_1M, 3 * SZ_1M), 0);
	EXPECT_MEMORY({ SZ_1M, 11 * SZ_1M, NO, 0 });
	CHECK_EQ(memblock_add(&mb, 16 * SZ_1M, 4 * SZ_1M), 0);
	EXPECT_MEMORY({ SZ_1M, 11 * SZ_1M, NO, 0 }, { 16 * SZ_1M, 4 * SZ_1M, NO, 0 });
	CHECK_EQ(memblock_add(&mb, 12 * SZ_1M, 4 * SZ_1M), 0);
	EXPECT_MEMORY({ SZ_1M, 19 * SZ_1M, NO, 0 });
}

/*
 * Touching ranges that differ in node or flags stay apart:
 *
 *   [====)               r1 = [0, 4 MiB) node 0
 *        [====)          r2 = [4, 8 MiB) node 1
 *             [====)     r3 = [8, 12 MiB) node 1, HOTPLUG
 *
 * Expect three regions.
 */
HTEST(memblock_add_touching_incompatible)
{
	reset();
	CHECK_EQ(memblock_add_node(&mb, 0, 4 * SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 4 * SZ_1M, 4 * SZ_1M, 1, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 8 * SZ_1M, 4 * SZ_1M, 1, HP), 0);
	EXPECT_MEMORY({ 0, 4 * SZ_1M, 0, 0 }, { 4 * SZ_1M, 4 * SZ_1M, 1, 0 },
		      { 8 * SZ_1M, 4 * SZ_1M, 1, HP });
}

/*
 * A range on another node over existing memory: only the new bytes take
 * the new node.
 *
 *     [==)    [==)          r1 = [2, 4) MiB node 0, r2 = [6, 8) MiB node 1
 *   [==============)        r3 = [1, 10) MiB node 2
 *
 * Expect [1,2) n2, [2,4) n0, [4,6) n2, [6,8) n1, [8,10) n2.  Then adding
 * [4, 6) MiB on node 0 over the middle piece changes nothing, and adding
 * [0, 1) MiB on node 2 merges with the first piece.
 */
HTEST(memblock_add_over_other_nodes)
{
	reset();
	CHECK_EQ(memblock_add_node(&mb, 2 * SZ_1M, 2 * SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 6 * SZ_1M, 2 * SZ_1M, 1, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, SZ_1M, 9 * SZ_1M, 2, 0), 0);
	EXPECT_MEMORY({ 1 * SZ_1M, SZ_1M, 2, 0 }, { 2 * SZ_1M, 2 * SZ_1M, 0, 0 },
		      { 4 * SZ_1M, 2 * SZ_1M, 2, 0 }, { 6 * SZ_1M, 2 * SZ_1M, 1, 0 },
		      { 8 * SZ_1M, 2 * SZ_1M, 2, 0 });
	CHECK_EQ(memblock_add_node(&mb, 4 * SZ_1M, 2 * SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 0, SZ_1M, 2, 0), 0);
	EXPECT_MEMORY({ 0, 2 * SZ_1M, 2, 0 }, { 2 * SZ_1M, 2 * SZ_1M, 0, 0 },
		      { 4 * SZ_1M, 2 * SZ_1M, 2, 0 }, { 6 * SZ_1M, 2 * SZ_1M, 1, 0 },
		      { 8 * SZ_1M, 2 * SZ_1M, 2, 0 });
}

/* A node outside NUMA_NO_NODE, 0 .. MAX_NUMNODES - 1 is -EINVAL. */
HTEST(memblock_add_bad_nid)
{
	reset();
	saved = mb;
	CHECK_EQ(memblock_add_node(&mb, SZ_1M, SZ_1M, MAX_NUMNODES, 0), -EINVAL);
	CHECK_EQ(memblock_add_node(&mb, SZ_1M, SZ_1M, -2, 0), -EINVAL);
	CHECK_EQ(memblock_set_node(&mb, SZ_1M, SZ_1M, MAX_NUMNODES), -EINVAL);
	EXPECT_UNCHANGED();
}

/* ------------------------------------------------------------------------ */
/* memblock_reserve(), memblock_phys_free()                                  */

/*
 * Reservations in every overlap shape; they need not be memory, and they
 * always merge:
 *
 *          [====)              r1 = [4, 8) MiB
 *      [====)                  r2 = [2, 6) MiB   overlaps the bottom
 *                [==)          r3 = [10, 12) MiB
 *                 [)           r4 = [10.5, 11) MiB inside
 *                   [====)     r5 = [11, 16) MiB overlaps the top
 *              [)              r6 = [8, 10) MiB  fills the hole
 *
 * Expect [2, 8) and [10, 16) MiB before r6, then [2, 16) MiB.
 */
HTEST(memblock_reserve_shapes)
{
	reset();
	CHECK_EQ(memblock_reserve(&mb, 4 * SZ_1M, 4 * SZ_1M), 0);
	CHECK_EQ(memblock_reserve(&mb, 2 * SZ_1M, 4 * SZ_1M), 0);
	EXPECT_RESERVED(RSV(2 * SZ_1M, 6 * SZ_1M));
	CHECK_EQ(memblock_reserve(&mb, 10 * SZ_1M, 2 * SZ_1M), 0);
	CHECK_EQ(memblock_reserve(&mb, 10 * SZ_1M + SZ_1M / 2, SZ_1M / 2), 0);
	CHECK_EQ(memblock_reserve(&mb, 11 * SZ_1M, 5 * SZ_1M), 0);
	EXPECT_RESERVED(RSV(2 * SZ_1M, 6 * SZ_1M), RSV(10 * SZ_1M, 6 * SZ_1M));
	CHECK_EQ(memblock_reserve(&mb, 8 * SZ_1M, 2 * SZ_1M), 0);
	EXPECT_RESERVED(RSV(2 * SZ_1M, 14 * SZ_1M));
	CHECK_EQ(mb.memory.cnt, 0);
	CHECK_EQ(memblock_reserved_size(&mb), 14 * SZ_1M);
}

/*
 * Reservations covering several others, and touching below:
 *
 *     [)  [)  [)            r1..r3 = [2,3) [4,5) [6,7) MiB
 *   [==========)            r4 = [1, 7) MiB
 * [)                        r5 = [0, 1) MiB
 *
 * Expect one reservation [0, 7) MiB.
 */
HTEST(memblock_reserve_covers_several)
{
	reset();
	for (int i = 2; i <= 6; i += 2)
		CHECK_EQ(memblock_reserve(&mb, i * SZ_1M, SZ_1M), 0);
	CHECK_EQ(memblock_reserve(&mb, SZ_1M, 6 * SZ_1M), 0);
	EXPECT_RESERVED(RSV(SZ_1M, 6 * SZ_1M));
	CHECK_EQ(memblock_reserve(&mb, 0, SZ_1M), 0);
	EXPECT_RESERVED(RSV(0, 7 * SZ_1M));
}

/*
 * Freeing parts of a reservation:
 *
 *   [================)        r1 = [0, 16) MiB
 *       [==)                  free [4, 6) MiB: splits r1
 *   [===)   [========)
 *   [=)                       free [0, 2) MiB: trims the bottom
 *               [======)      free [12, 20) MiB: trims the top
 *     [=)   [====)
 *
 * Expect [0, 4) and [6, 16) MiB after the split, [2, 4) and [6, 12) MiB
 * after the trims; freeing [0, 64) MiB then leaves nothing.
 */
HTEST(memblock_phys_free_shapes)
{
	reset();
	CHECK_EQ(memblock_reserve(&mb, 0, 16 * SZ_1M), 0);
	CHECK_EQ(memblock_phys_free(&mb, 4 * SZ_1M, 2 * SZ_1M), 0);
	EXPECT_RESERVED(RSV(0, 4 * SZ_1M), RSV(6 * SZ_1M, 10 * SZ_1M));
	CHECK_EQ(memblock_phys_free(&mb, 0, 2 * SZ_1M), 0);
	CHECK_EQ(memblock_phys_free(&mb, 12 * SZ_1M, 8 * SZ_1M), 0);
	EXPECT_RESERVED(RSV(2 * SZ_1M, 2 * SZ_1M), RSV(6 * SZ_1M, 6 * SZ_1M));
	CHECK_EQ(memblock_phys_free(&mb, 0, 64 * SZ_1M), 0);
	CHECK_EQ(mb.reserved.cnt, 0);
}

/* ------------------------------------------------------------------------ */
/* memblock_remove()                                                          */

/*
 * Removing the middle of a region splits it; both halves keep node and
 * flags:
 *
 *   [================)      r1 = [0, 16) MiB node 3 HOTPLUG
 *        [====)             remove [4, 8) MiB
 *   [===)     [======)
 *
 * Expect [0, 4) and [8, 16) MiB, both node 3 HOTPLUG.
 */
HTEST(memblock_remove_split)
{
	reset();
	CHECK_EQ(memblock_add_node(&mb, 0, 16 * SZ_1M, 3, HP), 0);
	CHECK_EQ(memblock_remove(&mb, 4 * SZ_1M, 4 * SZ_1M), 0);
	EXPECT_MEMORY({ 0, 4 * SZ_1M, 3, HP }, { 8 * SZ_1M, 8 * SZ_1M, 3, HP });
}

/*
 * Removing across several regions trims the outer ones and drops the
 * inner ones; removing a hole or a whole region is exact:
 *
 *   [==)  [==)  [==)  [==)      [0,4) [6,10) [12,16) [18,22) MiB
 *     [===========)             remove [2, 14) MiB
 *   [)          [)    [==)
 *
 * Expect [0,2) [14,16) [18,22) MiB; then removing the hole [16,18) MiB
 * changes nothing, and removing exactly [18, 22) MiB drops that region.
 */
HTEST(memblock_remove_across)
{
	reset();
	for (int i = 0; i < 4; i++)
		CHECK_EQ(memblock_add_node(&mb, i * 6 * SZ_1M, 4 * SZ_1M, i, 0), 0);
	CHECK_EQ(memblock_remove(&mb, 2 * SZ_1M, 12 * SZ_1M), 0);
	EXPECT_MEMORY({ 0, 2 * SZ_1M, 0, 0 }, { 14 * SZ_1M, 2 * SZ_1M, 2, 0 },
		      { 18 * SZ_1M, 4 * SZ_1M, 3, 0 });
	saved = mb;
	CHECK_EQ(memblock_remove(&mb, 16 * SZ_1M, 2 * SZ_1M), 0);
	EXPECT_UNCHANGED();
	CHECK_EQ(memblock_remove(&mb, 18 * SZ_1M, 4 * SZ_1M), 0);
	EXPECT_MEMORY({ 0, 2 * SZ_1M, 0, 0 }, { 14 * SZ_1M, 2 * SZ_1M, 2, 0 });
	CHECK_EQ(memblock_remove(&mb, 0, TOP), 0);
	CHECK_EQ(mb.memory.cnt, 0);
}

/* ------------------------------------------------------------------------ */
/* memblock_set_node()                                                        */

/*
 * Setting the node of the middle of a region splits it in three:
 *
 *   [================)      r1 = [0, 16) MiB no node
 *        [====)             set [4, 8) MiB to node 1
 *   [===][====][=====)
 *
 * Expect [0,4) none, [4,8) node 1, [8,16) none.  Setting [8, 16) MiB to
 * node 1 too then merges it with the middle piece, and setting [0, 16) to
 * node 1 leaves one region.
 */
HTEST(memblock_set_node_split)
{
	reset();
	CHECK_EQ(memblock_add(&mb, 0, 16 * SZ_1M), 0);
	CHECK_EQ(memblock_set_node(&mb, 4 * SZ_1M, 4 * SZ_1M, 1), 0);
	EXPECT_MEMORY({ 0, 4 * SZ_1M, NO, 0 }, { 4 * SZ_1M, 4 * SZ_1M, 1, 0 },
		      { 8 * SZ_1M, 8 * SZ_1M, NO, 0 });
	CHECK_EQ(memblock_set_node(&mb, 8 * SZ_1M, 8 * SZ_1M, 1), 0);
	EXPECT_MEMORY({ 0, 4 * SZ_1M, NO, 0 }, { 4 * SZ_1M, 12 * SZ_1M, 1, 0 });
	CHECK_EQ(memblock_set_node(&mb, 0, 16 * SZ_1M, 1), 0);
	EXPECT_MEMORY({ 0, 16 * SZ_1M, 1, 0 });
}

/*
 * Setting the node of a range that spans holes and regions with other
 * flags: holes stay holes, flags are kept, the edges split.
 *
 *   [====)  [====)  [====)     [0,4) n0, [6,10) n0 HOTPLUG, [12,16) n0
 *     [==============)         set [2, 14) MiB to node 2
 *
 * Expect [0,2) n0, [2,4) n2, [6,10) n2 HOTPLUG, [12,14) n2, [14,16) n0.
 */
HTEST(memblock_set_node_across)
{
	reset();
	CHECK_EQ(memblock_add_node(&mb, 0, 4 * SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 6 * SZ_1M, 4 * SZ_1M, 0, HP), 0);
	CHECK_EQ(memblock_add_node(&mb, 12 * SZ_1M, 4 * SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_set_node(&mb, 2 * SZ_1M, 12 * SZ_1M, 2), 0);
	EXPECT_MEMORY({ 0, 2 * SZ_1M, 0, 0 }, { 2 * SZ_1M, 2 * SZ_1M, 2, 0 },
		      { 6 * SZ_1M, 4 * SZ_1M, 2, HP }, { 12 * SZ_1M, 2 * SZ_1M, 2, 0 },
		      { 14 * SZ_1M, 2 * SZ_1M, 0, 0 });
	CHECK_EQ(memblock_phys_mem_size(&mb), 12 * SZ_1M);
	CHECK_EQ(memblock_nid_of(&mb, 13 * SZ_1M), 2);
	CHECK_EQ(memblock_nid_of(&mb, 14 * SZ_1M), 0);
	CHECK_EQ(memblock_nid_of(&mb, 5 * SZ_1M), NO);
}

/*
 * Setting the node of touching regions to the same node merges them:
 *
 *   [====)[====)             [0,4) n0, [4,8) n1
 *   [==========)             set [0, 8) MiB to node 1
 *
 * Expect one region [0, 8) MiB node 1.
 */
HTEST(memblock_set_node_merges)
{
	reset();
	CHECK_EQ(memblock_add_node(&mb, 0, 4 * SZ_1M, 0, 0), 0);
	CHECK_EQ(memblock_add_node(&mb, 4 * SZ_1M, 4 * SZ_1M, 1, 0), 0);
	CHECK_EQ(memblock_set_node(&mb, 0, 4 * SZ_1M, 1), 0);
	EXPECT_MEMORY({ 0, 8 * SZ_1M, 1, 0 });
}

/* ------------------------------------------------------------------------ */
/* A full region array                                                         */

/*
 * Fill type with MEMBLOCK_MAX_REGIONS 1 MiB regions, one every 2 MiB from
 * 0, alternating nodes 0 and 1 on the memory list.
 */
static void fill_regions(bool reserved)
{
	reset();
	for (u32 i = 0; i < MEMBLOCK_MAX_REGIONS; i++) {
		phys_addr_t base = (phys_addr_t)i * 2 * SZ_1M;

		if (reserved)
			CHECK_EQ(memblock_reserve(&mb, base, SZ_1M), 0);
		else
			CHECK_EQ(memblock_add_node(&mb, base, SZ_1M, i % 2, 0), 0);
	}
	CHECK_EQ(reserved ? mb.reserved.cnt : mb.memory.cnt, MEMBLOCK_MAX_REGIONS);
	CHECK(mb_ok(&mb));
}

/*
 * A full memory list:
 *
 *   [)  [)  [)  ...  [)       256 regions [2i, 2i+1) MiB, nodes 0,1,0,...
 *                        [)   a new disjoint range above: -ENOSPC
 *    [)                       the middle of region 0 removed: -ENOSPC
 *    [)                       region 0's middle set to node 1: -ENOSPC
 *      [==)                   [1.5, 3) MiB on node 0: -ENOSPC
 *
 * Expect each of those to fail and change nothing.  Changes that need no
 * new slot still work: a range inside a region, growing a region, and an
 * insertion whose pieces all merge with a neighbour of their node.
 */
HTEST(memblock_full_memory)
{
	fill_regions(false);
	saved = mb;
	CHECK_EQ(memblock_add(&mb, 600 * SZ_1M, SZ_1M), -ENOSPC);
	EXPECT_UNCHANGED();
	CHECK_EQ(memblock_remove(&mb, SZ_4K, SZ_4K), -ENOSPC);
	EXPECT_UNCHANGED();
	CHECK_EQ(memblock_set_node(&mb, SZ_4K, SZ_4K, 1), -ENOSPC);
	EXPECT_UNCHANGED();
	/*
	 * [1.5, 3) MiB on node 0: the new piece [1.5, 2) MiB touches region 1,
	 * but that is node 1, so the piece would need a slot.
	 */
	CHECK_EQ(memblock_add_node(&mb, SZ_1M + SZ_1M / 2, SZ_1M + SZ_1M / 2, 0, 0),
		 -ENOSPC);
	EXPECT_UNCHANGED();

	CHECK_EQ(memblock_add_node(&mb, SZ_4K, SZ_4K, 1, 0), 0);
	EXPECT_UNCHANGED();
	CHECK_EQ(memblock_remove(&mb, 0, SZ_4K), 0);		/* trims: no new slot */
	CHECK_EQ(mb.memory.cnt, MEMBLOCK_MAX_REGIONS);
	CHECK_EQ(mb.memory.regions[0].base, SZ_4K);
	/* [1, 3) MiB on node 0: the piece [1, 2) joins region 0, [2, 3) exists. */
	CHECK_EQ(memblock_add_node(&mb, SZ_1M, 2 * SZ_1M, 0, 0), 0);
	CHECK_EQ(mb.memory.cnt, MEMBLOCK_MAX_REGIONS);
	CHECK_EQ(mb.memory.regions[0].size, 2 * SZ_1M - SZ_4K);
	/* Region 1 to node 0 merges regions 0, 1 and frees a slot... */
	CHECK_EQ(memblock_set_node(&mb, 2 * SZ_1M, SZ_1M, 0), 0);
	CHECK_EQ(mb.memory.cnt, MEMBLOCK_MAX_REGIONS - 1);
	/* ...which a disjoint range may now take. */
	CHECK_EQ(memblock_add(&mb, 600 * SZ_1M, SZ_1M), 0);
	CHECK_EQ(mb.memory.cnt, MEMBLOCK_MAX_REGIONS);
	CHECK(mb_ok(&mb));
}

/*
 * A full reserved list: a reservation in a gap fails, freeing the middle
 * of a reservation fails, and a reservation that bridges gaps succeeds.
 *
 *   [)  [)  [)  [)  ...  [)     256 reservations [2i, 2i+1) MiB
 *     [=====)                   [1, 4) MiB touches [0,1) and [4,5), covers [2,3)
 *   [=========) [)  ...  [)
 *
 * Expect [0, 5) MiB and 254 regions.
 */
HTEST(memblock_full_reserved)
{
	fill_regions(true);
	saved = mb;
	CHECK_EQ(memblock_reserve(&mb, 600 * SZ_1M, SZ_1M), -ENOSPC);
	EXPECT_UNCHANGED();
	CHECK_EQ(memblock_phys_free(&mb, SZ_4K, SZ_4K), -ENOSPC);
	EXPECT_UNCHANGED();
	CHECK_EQ(memblock_reserve(&mb, SZ_1M, 3 * SZ_1M), 0);
	CHECK_EQ(mb.reserved.cnt, MEMBLOCK_MAX_REGIONS - 2);
	CHECK_EQ(mb.reserved.regions[0].base, 0);
	CHECK_EQ(mb.reserved.regions[0].size, 5 * SZ_1M);
	CHECK_EQ(mb.reserved.regions[1].base, 6 * SZ_1M);
	CHECK(mb_ok(&mb));
}

/*
 * Allocation with a full reserved list: the reservation of what it finds
 * must merge with an existing one, or the allocation fails.
 *
 *   memory   [===============================)   [0, 512) MiB
 *   reserved [)  [)  [)  ...  [)  [)              256 of [2i, 2i+1) MiB
 *   first fit                          [)         [512 MiB - 4 KiB, 512 MiB)
 *
 * Expect 0: the first fit touches no reservation and there is no slot.
 * With current_limit at 511 MiB + 4 KiB the first fit is [511 MiB,
 * + 4 KiB), which extends [510, 511) MiB: expect 511 MiB.
 */
HTEST(memblock_full_reserved_alloc)
{
	fill_regions(true);
	CHECK_EQ(memblock_add(&mb, 0, 512 * SZ_1M), 0);
	saved = mb;
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 0, TOP, NO), 0);
	EXPECT_UNCHANGED();
	mb.current_limit = 511 * SZ_1M + SZ_4K;
	CHECK_EQ(memblock_phys_alloc_range(&mb, SZ_4K, SZ_4K, 0, TOP, NO), 511 * SZ_1M);
	CHECK_EQ(mb.reserved.cnt, MEMBLOCK_MAX_REGIONS);
	CHECK(memblock_is_reserved(&mb, 511 * SZ_1M));
	CHECK(mb_ok(&mb));
}

/*
 * test_memblock.c - mm/memblock.c on private struct memblock instances.
 *
 * In the manner of Linux's memblock simulator (tools/testing/memblock),
 * each case builds a few ranges, draws them in its comment and says what it
 * expects; the whole list is then compared with the expected one.  Drawings
 * are half-open: [==) is a range, with its end one past its last byte.
 * Every comparison also checks the invariants of both lists (sorted,
 * non-overlapping, non-empty, no wrap, compatible neighbours merged).
 *
 * The last cases are randomized (fixed seeds, a few thousand operations
 * each) and compare memblock after every operation with a model that keeps
 * one state per unit of a small address window: 4 KiB units over 64 MiB,
 * and 1-byte units for unaligned ranges, at the bottom of the address space
 * and at its very top.
 */
#include "htest.h"
#include <mm/memblock.h>
#include <mm/page.h>
#include <lib/errno.h>
#include <lib/printer.h>

#define NO	NUMA_NO_NODE
#define HP	MEMBLOCK_HOTPLUG
#define TOP	(~(phys_addr_t)0)	/* 2^64 - 1: no range can contain it */

static struct memblock mb;		/* 12 KiB each: static, not on the stack */
static struct memblock saved;

static void reset(void)
{
	memblock_init(&mb);
}

/* Are the invariants of mm/memblock.c true of t? Says why not on stderr. */
static bool type_ok(const struct memblock_type *t, bool reserved)
{
	if (t->cnt > MEMBLOCK_MAX_REGIONS) {
		fprintf(stderr, "    %s.cnt %u too large\n", t->name, t->cnt);
		return false;
	}
	for (u32 i = 0; i < t->cnt; i++) {
		const struct memblock_region *r = &t->regions[i];
		const struct memblock_region *n = &t->regions[i + 1];

		if (r->size == 0 || r->base + r->size < r->base) {
			fprintf(stderr, "    %s[%u] empty or wraps\n", t->name, i);
			return false;
		}
		if (reserved && (r->nid != NO || r->flags)) {
			fprintf(stderr, "    %s[%u] has nid %d flags %u\n", t->name, i,
				r->nid, r->flags);
			return false;
		}
		if (!reserved && r->nid != NO && (r->nid < 0 || r->nid >= MAX_NUMNODES)) {
			fprintf(stderr, "    %s[%u] has nid %d\n", t->name, i, r->nid);
			return false;
		}
		if (i + 1 == t->cnt)
			continue;
		if (r->base + r->size > n->base) {
			fprintf(stderr, "    %s[%u] and [%u] overlap or are unsorted\n",
				t->name, i, i + 1);
			return false;
		}
		if (r->base + r->size == n->base && r->nid == n->nid &&
		    r->flags == n->flags) {
			fprintf(stderr, "    %s[%u] and [%u] touch and are not merged\n",
				t->name, i, i + 1);
			return false;
		}
	}
	return true;
}

static bool mb_ok(const struct memblock *m)
{
	return type_ok(&m->memory, false) && type_ok(&m->reserved, true);
}

static void print_regions(const struct memblock_region *r, u32 n)
{
	for (u32 i = 0; i < n; i++)
		fprintf(stderr, "      [0x%llx-0x%llx) nid %d flags %u\n",
			(unsigned long long)r[i].base,
			(unsigned long long)(r[i].base + r[i].size), r[i].nid,
			r[i].flags);
}

/* Compare t with want[0, n); on a difference print both lists. */
static void expect_type_at(const struct memblock_type *t,
			   const struct memblock_region *want, u32 n, int line)
{
	bool same = t->cnt == n;

	for (u32 i = 0; same && i < n; i++)
		same = t->regions[i].base == want[i].base &&
		       t->regions[i].size == want[i].size &&
		       t->regions[i].nid == want[i].nid &&
		       t->regions[i].flags == want[i].flags;
	if (!mb_ok(&mb)) {
		htest_failures++;
		fprintf(stderr, "  %s:%d: invariants broken\n", __FILE__, line);
	}
	if (same)
		return;
	htest_failures++;
	fprintf(stderr, "  %s:%d: %s list differs\n    got:\n", __FILE__, line, t->name);
	print_regions(t->regions, t->cnt);
	fprintf(stderr, "    expected:\n");
	print_regions(want, n);
}

/* Regions as (base, size, nid, flags); reserved ones are (base, size, NO, 0). */
#define EXPECT_TYPE(type, ...)						\
	do {								\
		const struct memblock_region want_[] = { __VA_ARGS__ }; \
		expect_type_at(&mb.type, want_, ARRAY_SIZE(want_), __LINE__); \
	} while (0)
#define EXPECT_MEMORY(...)	EXPECT_TYPE(memory, __VA_ARGS__)
#define EXPECT_RESERVED(...)	EXPECT_TYPE(reserved, __VA_ARGS__)
#define RSV(base, size)		{ (base), (size), NO, 0 }

/* Did the last call leave mb exactly as it was saved? */
#define EXPECT_UNCHANGED()	CHECK(memcmp(&mb, &saved, sizeof(mb)) == 0)

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

/* ------------------------------------------------------------------------ */
/* Randomized operations against a model                                       */

/*
 * The model: a window of n units of gran bytes from origin.  Each unit is
 * either not memory (nid == MODEL_ABSENT) or memory with a node and flags,
 * and reserved or not.  Every range the test uses is a whole number of
 * units inside the window, so memblock's lists must be exactly the runs of
 * equal units.
 */
#define MODEL_MAX_UNITS	16384
#define MODEL_ABSENT	(-2)

struct model {
	phys_addr_t origin, gran;	/* unit u is [origin + u*gran, + gran) */
	u32 n;				/* units in the window */
	s8 nid[MODEL_MAX_UNITS];	/* MODEL_ABSENT, NUMA_NO_NODE or a node */
	u8 flags[MODEL_MAX_UNITS];	/* memory flags */
	u8 rsv[MODEL_MAX_UNITS];	/* reserved */
};

static struct model M, M_saved;
static u32 model_run[MODEL_MAX_UNITS + 1];

static phys_addr_t unit_addr(u32 u)
{
	return M.origin + (phys_addr_t)u * M.gran;
}

static bool unit_free(u32 u)
{
	return M.nid[u] != MODEL_ABSENT && !M.rsv[u];
}

/* Do units u and u + 1 belong to one memory region (both memory, same nid and flags)? */
static bool same_mem(u32 u)
{
	return M.nid[u] == M.nid[u + 1] && M.flags[u] == M.flags[u + 1];
}

/* Regions the model's memory (or reserved) list has: runs of equal units. */
static u32 model_count(bool reserved)
{
	u32 cnt = 0;

	for (u32 u = 0; u < M.n; u++) {
		bool in = reserved ? M.rsv[u] : M.nid[u] != MODEL_ABSENT;
		bool cont = u > 0 && (reserved ? M.rsv[u - 1] : same_mem(u - 1));

		if (in && !cont)
			cnt++;
	}
	return cnt;
}

/* Compare one list of mb with the model's runs; print the first difference. */
static bool model_compare_type(const struct memblock_type *t, bool reserved)
{
	u32 i = 0;

	for (u32 u = 0; u < M.n; ) {
		bool in = reserved ? M.rsv[u] : M.nid[u] != MODEL_ABSENT;
		u32 v = u + 1;

		if (!in) {
			u++;
			continue;
		}
		while (v < M.n && (reserved ? M.rsv[v] : same_mem(v - 1)))
			v++;
		if (i >= t->cnt) {
			fprintf(stderr, "    %s: model run [0x%llx-0x%llx) missing\n", t->name,
				(unsigned long long)unit_addr(u), (unsigned long long)unit_addr(v));
			return false;
		}
		const struct memblock_region *r = &t->regions[i++];
		int nid = reserved ? NO : M.nid[u];
		u32 flags = reserved ? 0 : M.flags[u];

		if (r->base != unit_addr(u) || r->size != unit_addr(v) - unit_addr(u) ||
		    r->nid != nid || r->flags != flags) {
			fprintf(stderr, "    %s[%u] = [0x%llx-0x%llx) nid %d flags %u, model [0x%llx-0x%llx) nid %d flags %u\n",
				t->name, i - 1, (unsigned long long)r->base,
				(unsigned long long)(r->base + r->size), r->nid, r->flags,
				(unsigned long long)unit_addr(u), (unsigned long long)unit_addr(v),
				nid, flags);
			return false;
		}
		u = v;
	}
	if (i != t->cnt) {
		fprintf(stderr, "    %s has %u regions, model %u\n", t->name, t->cnt, i);
		return false;
	}
	return true;
}

/* Compare the free-range iteration on node nid with the model. */
static bool model_compare_free(int nid)
{
	u64 idx = 0;
	phys_addr_t s, e;
	int rnid;

	for (u32 u = 0; u < M.n; ) {
		u32 v = u + 1;

		if (!unit_free(u) || (nid != NO && M.nid[u] != nid)) {
			u++;
			continue;
		}
		while (v < M.n && unit_free(v) && same_mem(v - 1))
			v++;
		if (!memblock_next_free_range(&mb, &idx, nid, &s, &e, &rnid) ||
		    s != unit_addr(u) || e != unit_addr(v) || rnid != M.nid[u]) {
			fprintf(stderr, "    free range on nid %d: model [0x%llx-0x%llx) nid %d\n",
				nid, (unsigned long long)unit_addr(u),
				(unsigned long long)unit_addr(v), M.nid[u]);
			return false;
		}
		u = v;
	}
	if (memblock_next_free_range(&mb, &idx, nid, &s, &e, &rnid)) {
		fprintf(stderr, "    extra free range [0x%llx-0x%llx) on nid %d\n",
			(unsigned long long)s, (unsigned long long)e, nid);
		return false;
	}
	return true;
}

/*
 * What memblock_phys_alloc_range() must return, found the slow way: the
 * highest unit u such that its address is aligned, at least max(start, 1),
 * and u .. u + k - 1 are free units of one memory region on a matching node
 * ending at or below min(end, current_limit).
 */
static phys_addr_t model_alloc(u32 k, phys_addr_t align, phys_addr_t start,
			       phys_addr_t end, int nid)
{
	end = MIN(end, mb.current_limit);
	model_run[M.n] = 0;
	for (u32 u = M.n; u-- > 0; )
		model_run[u] = !unit_free(u) ? 0 :
			(u + 1 < M.n && unit_free(u + 1) && same_mem(u)) ? model_run[u + 1] + 1 : 1;
	for (u32 u = M.n; u-- > 0; ) {
		phys_addr_t a = unit_addr(u);

		if (model_run[u] < k || (a & (align - 1)) || a < MAX(start, 1) ||
		    unit_addr(u + k - 1) + M.gran > end)
			continue;
		if (nid != NO && M.nid[u] != nid)
			continue;
		return a;
	}
	return 0;
}

/* xorshift64*: the test's own generator, so runs repeat everywhere. */
static u64 rng_state;

static u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static u32 rnd_below(u32 n)
{
	return (u32)(rnd() % n);
}

/*
 * A random range of units: mostly short, so that the lists grow long and
 * fill up; now and then long, so that they merge and empty again.  While
 * fragmenting, always short.
 */
static void rnd_units(u32 *u0, u32 *len, bool fragment)
{
	u32 r = fragment ? 0 : rnd_below(100);
	u32 max = r < 90 ? 4 : r < 98 ? M.n / 64 : M.n;

	*len = 1 + rnd_below(max);
	if (*len > M.n)
		*len = M.n;
	*u0 = rnd_below(M.n - *len + 1);
}

/* Statistics of a run, to check the random walk reached every outcome. */
struct model_stats {
	u32 ops;		/* operations done */
	u32 enospc_memory;	/* changes of the memory list refused with -ENOSPC */
	u32 enospc_reserved;	/* same for the reserved list */
	u32 allocs;		/* allocations that succeeded */
	u32 alloc_fails;	/* allocations that found nothing */
	u32 alloc_full;		/* allocations that found room but no reserved slot */
};

/*
 * One random operation on mb and on the model; compares return values and
 * then the whole state.  While fragmenting, ranges are short and removals
 * become additions, so that both lists run into MEMBLOCK_MAX_REGIONS.
 * Returns false (after printing why) on a mismatch.
 */
static bool model_step(struct model_stats *st, bool fragment)
{
	u32 op = rnd_below(100), u0, len;
	int nid = (int)rnd_below(5) - 1;	/* NO, 0 .. 3 */
	u32 flags = rnd_below(4) == 0 ? HP : 0;
	int want = 0, got;
	bool reserved_list = false;
	phys_addr_t base, size;

	rnd_units(&u0, &len, fragment);
	if (fragment && op >= 22 && op < 32)
		op = 4;				/* remove -> add_node */
	if (fragment && op >= 58 && op < 70)
		op = 40;			/* phys_free -> reserve */
	base = unit_addr(u0);
	size = (phys_addr_t)len * M.gran;
	M_saved = M;
	st->ops++;

	if (op < 4) {
		/* Invalid or empty inputs: nothing changes. */
		saved = mb;
		if (op == 0)
			CHECK_EQ(memblock_add(&mb, base, 0), 0);
		else if (op == 1)
			CHECK_EQ(memblock_reserve(&mb, TOP - rnd_below(100), 100 + rnd_below(100)), -EINVAL);
		else if (op == 2)
			CHECK_EQ(memblock_remove(&mb, TOP - rnd_below(100), 100 + rnd_below(100)), -EINVAL);
		else
			CHECK_EQ(memblock_set_node(&mb, base, size, 9), -EINVAL);
		if (memcmp(&mb, &saved, sizeof(mb)) != 0) {
			fprintf(stderr, "    invalid op %u changed memblock\n", op);
			return false;
		}
		return true;
	}
	if (op < 70) {
		const char *what;

		if (op < 22) {
			what = "add_node";
			for (u32 u = u0; u < u0 + len; u++)
				if (M.nid[u] == MODEL_ABSENT) {
					M.nid[u] = (s8)nid;
					M.flags[u] = (u8)flags;
				}
			got = memblock_add_node(&mb, base, size, nid, flags);
		} else if (op < 32) {
			what = "remove";
			for (u32 u = u0; u < u0 + len; u++)
				M.nid[u] = MODEL_ABSENT;
			got = memblock_remove(&mb, base, size);
		} else if (op < 40) {
			what = "set_node";
			for (u32 u = u0; u < u0 + len; u++)
				if (M.nid[u] != MODEL_ABSENT)
					M.nid[u] = (s8)nid;
			got = memblock_set_node(&mb, base, size, nid);
		} else if (op < 58) {
			what = "reserve";
			reserved_list = true;
			memset(&M.rsv[u0], 1, len);
			got = memblock_reserve(&mb, base, size);
		} else {
			what = "phys_free";
			reserved_list = true;
			memset(&M.rsv[u0], 0, len);
			got = memblock_phys_free(&mb, base, size);
		}
		if (model_count(reserved_list) > MEMBLOCK_MAX_REGIONS) {
			want = -ENOSPC;
			M = M_saved;
			if (reserved_list)
				st->enospc_reserved++;
			else
				st->enospc_memory++;
		}
		if (got != want) {
			fprintf(stderr, "    %s [0x%llx-0x%llx) nid %d: got %d, want %d\n", what,
				(unsigned long long)base, (unsigned long long)(base + size),
				nid, got, want);
			return false;
		}
	} else if (op < 95) {
		/* Allocation: random size, alignment, range, node, limit. */
		u32 k = 1 + rnd_below(rnd_below(4) ? 8 : M.n / 8);
		u32 align_shift = rnd_below(M.gran == 1 ? 9 : 10);
		phys_addr_t align = M.gran << (M.gran == 1 ? align_shift : align_shift % 4 * 3);
		phys_addr_t start = 0, end = TOP, pa, want_pa;
		bool try_nid = op >= 88;

		if (rnd_below(3) == 0) {
			u32 a = rnd_below(M.n + 1), b = rnd_below(M.n + 1);

			start = unit_addr(MIN(a, b));
			end = unit_addr(MAX(a, b));
		}
		if (rnd_below(8) == 0)
			mb.current_limit = rnd_below(2) ? TOP : unit_addr(rnd_below(M.n + 1));
		if (try_nid) {
			start = 0;
			end = TOP;
			want_pa = model_alloc(k, align, start, end, nid);
			if (!want_pa && nid != NO)
				want_pa = model_alloc(k, align, start, end, NO);
			pa = memblock_phys_alloc_try_nid(&mb, (phys_addr_t)k * M.gran, align, nid);
		} else {
			want_pa = model_alloc(k, align, start, end, nid);
			pa = memblock_phys_alloc_range(&mb, (phys_addr_t)k * M.gran, align,
						       start, end, nid);
		}
		if (want_pa) {
			u32 u = (u32)((want_pa - M.origin) / M.gran);

			memset(&M.rsv[u], 1, k);
			if (model_count(true) > MEMBLOCK_MAX_REGIONS) {
				want_pa = 0;
				M = M_saved;
				st->alloc_full++;
			}
		}
		if (want_pa)
			st->allocs++;
		else
			st->alloc_fails++;
		if (pa != want_pa) {
			fprintf(stderr, "    alloc%s %u units align 0x%llx [0x%llx-0x%llx) nid %d limit 0x%llx: got 0x%llx, want 0x%llx\n",
				try_nid ? " try_nid" : "", k, (unsigned long long)align,
				(unsigned long long)start, (unsigned long long)end, nid,
				(unsigned long long)mb.current_limit,
				(unsigned long long)pa, (unsigned long long)want_pa);
			return false;
		}
	} else {
		/* Lookups at random units. */
		for (int i = 0; i < 8; i++) {
			u32 u = rnd_below(M.n);
			phys_addr_t a = unit_addr(u) + rnd() % M.gran;

			if (memblock_is_memory(&mb, a) != (M.nid[u] != MODEL_ABSENT) ||
			    memblock_is_reserved(&mb, a) != !!M.rsv[u] ||
			    memblock_nid_of(&mb, a) != (M.nid[u] == MODEL_ABSENT ? NO : M.nid[u])) {
				fprintf(stderr, "    lookup of 0x%llx differs\n", (unsigned long long)a);
				return false;
			}
		}
	}

	if (!mb_ok(&mb) || !model_compare_type(&mb.memory, false) ||
	    !model_compare_type(&mb.reserved, true) || !model_compare_free(NO) ||
	    !model_compare_free((int)rnd_below(4)))
		return false;
	return true;
}

/* Run nr_ops random operations over a window; fold the statistics into st. */
static void model_run_ops(u64 seed, phys_addr_t origin, phys_addr_t gran, u32 n,
			  u32 nr_ops, struct model_stats *st)
{
	reset();
	memset(&M, 0, sizeof(M));
	M.origin = origin;
	M.gran = gran;
	M.n = n;
	memset(M.nid, MODEL_ABSENT, sizeof(M.nid));
	rng_state = seed;
	for (u32 i = 0; i < nr_ops; i++) {
		if (!model_step(st, i / 500 % 2 == 1)) {
			htest_failures++;
			fprintf(stderr, "  %s: seed %llu window 0x%llx gran 0x%llx: mismatch at op %u\n",
				__FILE__, (unsigned long long)seed, (unsigned long long)origin,
				(unsigned long long)gran, i);
			return;
		}
	}
}

/*
 * 4 KiB units over [0, 64 MiB) (address 0 inside the window) and over
 * [4 GiB, 4 GiB + 64 MiB): page-granular ranges as at boot.  Expect every
 * operation to agree with the model, and the walks to have met -ENOSPC on
 * both lists, allocations that succeed, that find nothing, and that find
 * room but no reserved slot.
 */
HTEST(memblock_random_pages)
{
	struct model_stats st = { 0 };

	model_run_ops(1, 0, SZ_4K, 16384, 2500, &st);
	model_run_ops(2, 0, SZ_4K, 16384, 2500, &st);
	model_run_ops(3, 4 * SZ_1G, SZ_4K, 16384, 1000, &st);
	CHECK(st.enospc_memory > 0);
	CHECK(st.enospc_reserved > 0);
	CHECK(st.allocs > 0);
	CHECK(st.alloc_fails > 0);
	CHECK(st.alloc_full > 0);
}

/*
 * 1-byte units: unaligned bases and sizes, over [0x1001, 0x2001), over the
 * very top of the address space, [2^64 - 1 - 4096, 2^64 - 1), and over
 * [0, 2048).  Expect the same as for pages.
 */
HTEST(memblock_random_bytes)
{
	struct model_stats st = { 0 };

	model_run_ops(4, 0x1001, 1, 4096, 3000, &st);
	model_run_ops(5, TOP - 4096, 1, 4096, 3000, &st);
	model_run_ops(6, 0, 1, 2048, 3000, &st);
	CHECK(st.enospc_memory > 0);
	CHECK(st.enospc_reserved > 0);
	CHECK(st.allocs > 0);
	CHECK(st.alloc_fails > 0);
	CHECK(st.alloc_full > 0);
}

/*
 * memblock_check.h - what the memblock tests share: the memblock under
 * test, a copy to compare against, and the checks of its lists.
 *
 * test_memblock.c (add, reserve, remove, set_node, a full array),
 * test_memblock_alloc.c (allocation, free ranges, lookups, edges, the dump)
 * and test_memblock_random.c (randomized operations against a model) all
 * work on the one `mb` below.  Every comparison of a list also checks the
 * invariants of both lists (sorted, non-overlapping, non-empty, no wrap,
 * compatible neighbours merged).  Drawings in the tests are half-open:
 * [==) is a range, with its end one past its last byte.
 */
#ifndef MEMBLOCK_CHECK_H
#define MEMBLOCK_CHECK_H

#include "htest.h"
#include <mm/memblock.h>
#include <mm/page.h>

#define NO	NUMA_NO_NODE
#define HP	MEMBLOCK_HOTPLUG
#define TOP	(~(phys_addr_t)0)	/* 2^64 - 1: no range can contain it */

extern struct memblock mb;		/* 12 KiB each: static, not on the stack */
extern struct memblock saved;

void reset(void);

/* Are the invariants of mm/memblock.c true of m? Says why not on stderr. */
bool mb_ok(const struct memblock *m);

/*
 * Compare t with want[0, n) and check mb's invariants; on a difference
 * print both lists, naming file:line of the caller.
 */
void expect_type_at(const struct memblock_type *t, const struct memblock_region *want,
		    u32 n, const char *file, int line);

/* Regions as (base, size, nid, flags); reserved ones are (base, size, NO, 0). */
#define EXPECT_TYPE(type, ...)						\
	do {								\
		const struct memblock_region want_[] = { __VA_ARGS__ }; \
		expect_type_at(&mb.type, want_, ARRAY_SIZE(want_), __FILE__, __LINE__); \
	} while (0)
#define EXPECT_MEMORY(...)	EXPECT_TYPE(memory, __VA_ARGS__)
#define EXPECT_RESERVED(...)	EXPECT_TYPE(reserved, __VA_ARGS__)
#define RSV(base, size)		{ (base), (size), NO, 0 }

/* Did the last call leave mb exactly as it was saved? */
#define EXPECT_UNCHANGED()	CHECK(memcmp(&mb, &saved, sizeof(mb)) == 0)

#endif

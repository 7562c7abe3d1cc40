/*
 * hotplug_fixture.h - the simulated machine and the test allocations that
 * the memory hotplug tests share: test_hotplug.c (adding, onlining,
 * offlining, removing), test_online_policy.c (online policies, zones,
 * failures and rollback) and test_hotplug_random.c (the block pool and
 * groups, the words, random sequences).
 *
 * The simulated RAM (host_mm_reset) is larger than the boot RAM the
 * firmware map describes: hot-added ranges lie in the part above it, so
 * their pages can be written (migration copies data there).
 */
#ifndef HOTPLUG_FIXTURE_H
#define HOTPLUG_FIXTURE_H

#include <mm/mmzone.h>
#include <mm/gfp.h>
#include <mm/memory_hotplug.h>
#include <mm/migrate.h>

#define MiB		(1ULL << 20)
#define GiB		(1ULL << 30)
#define BLOCK_PAGES	PAGES_PER_MEMORY_BLOCK
#define HOTPLUG_BASE	(4 * GiB)
#define BASE_BLOCK	(HOTPLUG_BASE / MEMORY_BLOCK_SIZE)	/* 32 */

struct zone *zone_of(int nid, enum zone_type z);

/*
 * A machine with ram bytes of simulated RAM; the firmware map says RAM is
 * [0, boot_end) on node 0 and, if hole_start < hole_end, not in that hole.
 */
void boot_with_hole(u64 ram, u64 boot_end, u64 hole_start, u64 hole_end);
void boot(u64 ram, u64 boot_end);

struct memory_block *block(unsigned long id);

/* The block's valid_zones line, in a static buffer. */
const char *valid_zones(unsigned long id);

/* ---- allocations for the tests: movable ones have an owner -------------- */

struct talloc {
	struct movable_owner mo;	/* first: page->owner of a movable block */
	struct page *head;		/* where the block is now; NULL when free */
	unsigned order;			/* 2^order pages */
	u64 seed;			/* pattern of its contents */
	bool movable;			/* has an owner (can migrate) */
	unsigned moves;			/* moved() calls */
};

/* Allocate into a (a free slot that stays put), fill with the pattern. */
bool talloc_get(struct talloc *a, gfp_t gfp, unsigned order, u64 seed);
/* Still where a says, referenced once, owned as allocated, pattern intact? */
bool talloc_intact(const struct talloc *a);
void talloc_put(struct talloc *a);

bool pfn_in_block(u64 pfn, unsigned long id);

#endif

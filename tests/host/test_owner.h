/*
 * test_owner.h - a movable owner for host tests (include/mm/migrate.h).
 *
 * A test_owner holds one allocated block of 2^order pages: every page's
 * owner points at it, the block is filled with a pattern derived from a
 * seed, and the migration code tells it through movable_operations when the
 * block moves.  owner_ok() then proves the data and the owner marks moved
 * along.  Used by the isolation/migration and contiguous-allocation tests.
 */
#ifndef HOST_TEST_OWNER_H
#define HOST_TEST_OWNER_H

#include <mm/migrate.h>

struct test_owner {
	struct movable_owner mo;	/* first: page->owner points here */
	u64 pfn;			/* head of the block, where it is now */
	unsigned order;			/* the block is 2^order pages */
	u64 seed;			/* pattern of the contents */
	unsigned moves;			/* moved() calls */
	bool live;			/* the block is allocated */
};

/* set_owner() - mark (o) or unmark (NULL) every page of the block at pfn. */
void set_owner(u64 pfn, unsigned order, struct test_owner *o);

/* owner_attach() - make the allocated block at pfn o's: owner on every page,
 * pattern written. */
void owner_attach(struct test_owner *o, u64 pfn, unsigned order, u64 seed);

/* owner_ok() - the block's contents and owner marks are intact where it is now. */
bool owner_ok(const struct test_owner *o);

/* owner_free() - unmark the block and give it back with free_pages(). */
void owner_free(struct test_owner *o);

#endif

/*
 * migrate.h - moving allocated pages: what makes memory offlinable.
 *
 * An allocation is movable when its owner can be told that its data moved.
 * The owner embeds a struct movable_owner as the FIRST member of its own
 * structure and sets page->owner to it on every page of the block; its
 * movable_operations say where the block starts and take the news of a
 * move.  The shell's `alloc ... movable` handles are such owners; a page
 * allocated with __GFP_MOVABLE but without an owner is unmovable in
 * practice and makes offlining fail, as a pinned page does in Linux.
 *
 * Context: (main).
 */
#ifndef MM_MIGRATE_H
#define MM_MIGRATE_H

#include <mm/page.h>

struct movable_operations {
	const char *name;	/* [c] "shell handle", for messages */
	/*
	 * [c] block_of() - the allocated block holding page: its head and order.
	 * Returns false if the page cannot be moved right now.
	 */
	bool (*block_of)(struct page *page, struct page **head, unsigned *order);
	/*
	 * [c] moved() - the block's contents were copied from old_head to
	 * new_head (same order): update every reference, set page->owner on
	 * the new pages and clear it on the old ones.  Cannot fail.
	 */
	void (*moved)(struct page *old_head, struct page *new_head, unsigned order);
	/*
	 * [c] alloc_target() - optional: a free block of 2^order pages the owner
	 * would rather move to, outside [avoid_start_pfn, avoid_end_pfn),
	 * allocated as alloc_pages() would (refcount 1 on every page); NULL
	 * lets migration take one from the zonelist of nid as for any block.
	 */
	struct page *(*alloc_target)(struct page *head, unsigned order, int nid,
				     u64 avoid_start_pfn, u64 avoid_end_pfn);
};

struct movable_owner {
	const struct movable_operations *ops;	/* [c] never NULL */
};

/* page_movable_owner() - the owner of an allocated movable page, or NULL. */
static inline struct movable_owner *page_movable_owner(const struct page *page)
{
	return page->refcount > 0 ? (struct movable_owner *)page->owner : NULL;
}

/*
 * set_block_owner() - mark every page of the allocated block of 2^order
 * pages at head as owned: page->owner = owner (a movable owner, or NULL
 * for an owner that cannot move the block) and page->index = index (the
 * owner's word for the block, such as an id).  owner NULL and index 0
 * clear the marks, which the block must lose before it is freed.  The
 * shell's handles and the memmaps of hot-added blocks (mm/hotplug_memmap.c)
 * mark their blocks with it, and their moved() marks the new block and
 * clears the old one.  Context: (main).
 */
void set_block_owner(struct page *head, unsigned order, struct movable_owner *owner,
		     unsigned long index);

/*
 * page_movable_block() - if the allocated page can be moved right now, its
 * owner, with the owner's block in *head and *order: page_movable_owner()
 * is set, ops->block_of() succeeds and names an aligned block of at most
 * MAX_PAGE_ORDER containing page, and every page of that block is a plain
 * allocated page of that owner with refcount exactly 1 (an extra
 * reference is a pin, as in Linux, and makes the block unmovable).  NULL
 * otherwise.  Used by the isolation checks and by migration, so both agree
 * on what is movable.  Context: (main).
 */
struct movable_owner *page_movable_block(struct page *page, struct page **head, unsigned *order);

/*
 * migrate_block() - move the allocated block containing page to a new block
 * of the same order outside [avoid_start_pfn, avoid_end_pfn) (preferring
 * node nid, NUMA_NO_NODE: any), copy the data, tell the owner, free the old
 * block.  Returns 0, -EBUSY (not movable), or -ENOMEM (no target).
 */
int migrate_block(struct page *page, u64 avoid_start_pfn, u64 avoid_end_pfn, int nid);

/* Linux's vmstat pgmigrate_success / pgmigrate_fail: pages migrate_block()
 * moved, and pages of movable blocks it found no target for (Linux counts
 * base pages as well).  Written by migrate.c only.  Context: (main). */
extern u64 pgmigrate_success, pgmigrate_fail;

/*
 * migrate_range() - migrate every movable allocated block with a page in
 * [start_pfn, end_pfn).  Stops at the first page that is allocated but not
 * movable: returns -EBUSY with *failed_pfn set; -ENOMEM if no target.
 * *nr_migrated gets the pages moved.  Free, reserved-for-memmap and offline
 * pages are skipped.
 */
int migrate_range(u64 start_pfn, u64 end_pfn, u64 *failed_pfn, u64 *nr_migrated);

/*
 * Where a walk's migrated pages landed, by memory block: the first
 * MIGRATE_DESTS_MAX blocks pages went to, each with its pages in the order
 * first met, and the pages that went to any further block counted
 * together.  The caller zeroes it; migrate_range_to() adds to it.
 */
#define MIGRATE_DESTS_MAX	8
struct migrate_dests {
	u32 nr;					/* [o] entries of to[] in use */
	struct { u64 block_id, pages; } to[MIGRATE_DESTS_MAX];	/* [o] */
	u64 other_pages;			/* [o] to blocks past to[] */
};

/* migrate_range_to() - migrate_range(), and each moved block's new place
 * added to *dests (NULL: not recorded).  Context: as migrate_range(). */
int migrate_range_to(u64 start_pfn, u64 end_pfn, u64 *failed_pfn, u64 *nr_migrated,
		     struct migrate_dests *dests);

/* describe_unmovable() - why pfn cannot be moved, in words, into buf. */
void describe_unmovable(u64 pfn, char *buf, size_t size);

#endif

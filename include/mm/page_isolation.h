/*
 * page_isolation.h - fencing off a pfn range so nothing allocates from it
 * while it is being taken away (offlining, contiguous allocation).
 *
 * Isolating a pageblock sets its isolate bit and moves its free pages to the
 * zone's MIGRATE_ISOLATE lists, from which nothing is ever allocated; pages
 * freed into it later go there too (never to a pcp list).  The pageblock
 * keeps its migratetype for when the isolation is undone.
 *
 * Context: (main).
 */
#ifndef MM_PAGE_ISOLATION_H
#define MM_PAGE_ISOLATION_H

#include <mm/mmzone.h>

#define ISOLATE_MEMORY_OFFLINE	0x1u	/* offline: fail early on unmovable pages */
#define ISOLATE_CONTIG_ALLOC	0x2u	/* alloc_contig_range: fail on unmovable pages */

/*
 * start_isolate_page_range() - isolate every pageblock of [start_pfn,
 * end_pfn) (pageblock aligned).  With ISOLATE_MEMORY_OFFLINE or
 * ISOLATE_CONTIG_ALLOC, a pageblock holding an allocated page that is not
 * movable fails the call: -EBUSY, *failed_pfn = that pfn, and every
 * pageblock isolated so far is restored.  pcp lists of the zones involved
 * are drained first.  Movable means page_movable_block() (migrate.h) finds
 * the block, so a pinned block fails at its first pfn in the range.  With
 * ISOLATE_MEMORY_OFFLINE the range's own memmap pages (PGTY_TABLE) may
 * stay; with ISOLATE_CONTIG_ALLOC they fail like reserved pages.  A
 * pageblock already isolated, or not entirely inside its zone's span, also
 * fails with -EBUSY at its first pfn (describe_unmovable() says which).
 * -EINVAL if the range is empty or not pageblock aligned.  Returns 0 or
 * -errno.
 */
int start_isolate_page_range(u64 start_pfn, u64 end_pfn, unsigned flags, u64 *failed_pfn);

/* undo_isolate_page_range() - clear the isolation; free pages go back to
 * their pageblock's lists and merge again. */
void undo_isolate_page_range(u64 start_pfn, u64 end_pfn);

/*
 * test_pages_isolated() - 0 if every page of the range is free in the buddy
 * of an isolated pageblock, PageOffline, or a memmap page of the range
 * itself; else -EBUSY and *failed_pfn.
 */
int test_pages_isolated(u64 start_pfn, u64 end_pfn, u64 *failed_pfn);

/*
 * offline_isolated_pages() - take the free pages of the isolated range out
 * of the buddy for good (they become PageOffline with refcount 0) and
 * return how many were taken; zone free counts drop accordingly.
 * managed_pages is left to the caller (the hotplug code lowers it by the
 * returned count, as Linux's offline_pages() does after
 * __offline_isolated_pages()).  A free block reaching outside the range
 * gives its outside part back to the buddy.
 */
unsigned long offline_isolated_pages(u64 start_pfn, u64 end_pfn);

/*
 * offline_isolated_pages_retire() - the same, for a range whose memmap is
 * retired right after (memory_block_offline(): the section goes offline,
 * nothing reads its struct pages until an online initialises them again):
 * the free blocks leave the buddy and their struct pages are left as they
 * are, as Linux's __offline_isolated_pages() leaves them, instead of
 * being written once more each (a quarter of a block's offline under TCG).
 * Context: (main), the range isolated and test_pages_isolated() passed.
 */
unsigned long offline_isolated_pages_retire(u64 start_pfn, u64 end_pfn);

/*
 * retire_isolated_range() - after offline_isolated_pages_retire() took
 * every free page of [start_pfn, end_pfn) (pageblock aligned), clear the
 * pageblocks' isolate bits without the free-list walk of
 * undo_isolate_page_range(): nothing is left on their isolate lists, so
 * there is nothing to move back.  Context: (main), the range's memmap
 * about to be retired.
 */
void retire_isolated_range(u64 start_pfn, u64 end_pfn);

/* has_unmovable_pages() - the first unmovable allocated pfn in the range, or ~0
 * (offline rules: PGTY_TABLE memmap pages are accepted). */
u64 has_unmovable_pages(u64 start_pfn, u64 end_pfn);

#endif

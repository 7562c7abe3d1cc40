/*
 * pageblock_map.h - the buddy allocator drawn one character per pageblock,
 * twice: its migratetype and the largest free block that covers it.  What
 * `buddy map` prints row by row and the view channel sends as strings
 * (docs/view.md), from one walk (views/pageblock_map.c).
 *
 * Letters: migratetype U unmovable, M movable, R reclaimable, H
 * highatomic, C CMA, I isolated; free 0-9, A (order 10), '.' none
 * (allocated, or free on a pcp list).  A pageblock outside the zone's
 * pages is ' ' in both (before the zone's first page or past its end), '-'
 * (a hole, or a block that is not online) or '~' (in the span, but
 * another zone's).
 *
 * Context: (main): reads the free lists without zone->lock, a snapshot.
 */
#ifndef VIEWS_PAGEBLOCK_MAP_H
#define VIEWS_PAGEBLOCK_MAP_H

#include <lib/types.h>
#include <mm/mmzone.h>

/*
 * pageblock_map() - the letters of the n pageblocks of zone z from pfn
 * start into mt[0, n) and fr[0, n) (no terminating NUL).  start is
 * aligned to a section (PAGES_PER_SECTION), so no free block starts before
 * it and covers it; n is at most PAGEBLOCK_MAP_MAX.  Walks the zone's pfns
 * once: a free head of order o skips 2^o pages, other pages step one by
 * one, a hole or offline section is skipped whole.  Context: (main).
 */
#define PAGEBLOCK_MAP_MAX	1024
void pageblock_map(const struct zone *z, u64 start, unsigned n, char *mt, char *fr);

#endif

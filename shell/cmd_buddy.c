/*
 * cmd_buddy.c - `buddy map`: the buddy allocator's state as a picture, one
 * column per pageblock (512 pages, 2 MiB), one row per 128 MiB memory
 * block, zone by zone:
 *
 *   node 0 zone DMA32  pfn [0x1000-0x80000)
 *     0x0000001000  mt   UUUUUUUMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM
 *                   free ...2.5AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
 *
 * The first line of a row is each pageblock's migratetype (U unmovable,
 * M movable, R reclaimable, H highatomic, C CMA, I isolated), the second
 * the largest free block that covers any of its pages (0-9, A for order
 * 10, '.' none: fully allocated or on pcp lists).  A column outside the
 * zone's pages is ' ' (before the zone or past it), '-' (a hole or a
 * block that is not online) or '~' (in the span, but another zone's).
 * Rows are aligned to memory blocks, so `buddy map` and `lsmem` line up.
 *
 * Each row is one walk of pageblock_map() (views/pageblock_map.c, which
 * the view channel's pageblock strings share).  The map stops at
 * BUDDY_MAP_MAX_PAGEBLOCKS in all (16 GiB), and says so.
 * Context: main loop (reads the free lists; nothing is changed).
 */
#include <shell/shell.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <mm/buddy.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/page.h>
#include <views/pageblock_map.h>

#define BUDDY_MAP_PER_ROW		(PAGES_PER_SECTION / pageblock_nr_pages)	/* 64 */
#define BUDDY_MAP_MAX_PAGEBLOCKS	8192

/* One row: the 64 pageblocks from row_pfn (a memory block's first pfn). */
static void print_row(struct printer *p, const struct zone *z, u64 row_pfn)
{
	char mt[BUDDY_MAP_PER_ROW + 1], fr[BUDDY_MAP_PER_ROW + 1];

	pageblock_map(z, row_pfn, BUDDY_MAP_PER_ROW, mt, fr);
	mt[BUDDY_MAP_PER_ROW] = fr[BUDDY_MAP_PER_ROW] = '\0';
	for (int i = BUDDY_MAP_PER_ROW - 1; i >= 0 && mt[i] == ' '; i--)
		mt[i] = fr[i] = '\0';	/* no trailing blanks past the zone's end */
	pr_printf(p, "  0x%010llx  mt   %s\n", (unsigned long long)row_pfn, mt);
	pr_printf(p, "                free %s\n", fr);
}

/* Draw zone z; *budget is the pageblocks still allowed.  False when it ran out. */
static bool map_zone(struct printer *p, struct zone *z, unsigned long *budget)
{
	u64 end = zone_end_pfn(z);
	u64 row = ALIGN_DOWN(z->zone_start_pfn, PAGES_PER_SECTION);

	pr_printf(p, "node %d zone %s  pfn [%#llx-%#llx)\n", z->zone_pgdat->node_id, z->name,
		  (unsigned long long)z->zone_start_pfn, (unsigned long long)end);
	for (; row < end; row += PAGES_PER_SECTION) {
		if (*budget < BUDDY_MAP_PER_ROW)
			return false;
		*budget -= BUDDY_MAP_PER_ROW;
		print_row(p, z, row);
	}
	return true;
}

static int cmd_buddy(struct printer *out, int argc, char **argv)
{
	unsigned long budget = BUDDY_MAP_MAX_PAGEBLOCKS;
	const char *only = argc == 3 ? argv[2] : NULL;
	struct zone *z;
	bool any = false;

	if ((argc != 2 && argc != 3) || strcmp(argv[1], "map"))
		return shell_usage(out, shell_find("buddy"));
	for_each_populated_zone(z) {
		if (only && strcmp(only, z->name))
			continue;
		any = true;
		if (!map_zone(out, z, &budget)) {
			pr_printf(out, "... the map stops at %d pageblocks (%d GiB): "
				  "`buddy map ZONE` draws one zone\n", BUDDY_MAP_MAX_PAGEBLOCKS,
				  BUDDY_MAP_MAX_PAGEBLOCKS * 2 / 1024);
			break;
		}
	}
	if (!any) {
		pr_printf(out, "buddy map: %s\n", only ? "no populated zone of that name "
			  "(DMA, DMA32, Normal, Movable)" : "no populated zone");
		return only ? -ENOENT : 0;
	}
	pr_printf(out, "one column per pageblock (%lu pages, %lu MiB), one row per %llu MiB block\n"
		  "  mt:   U unmovable  M movable  R reclaimable  H highatomic  C CMA  I isolated\n"
		  "  free: the largest free block touching the pageblock: 0-9, A = order 10;\n"
		  "        . none (allocated, or free on a pcp list)\n"
		  "  ' ' outside the zone  - hole or block not online  ~ another zone's\n",
		  (unsigned long)pageblock_nr_pages, (unsigned long)(pageblock_nr_pages * PAGE_SIZE >> 20),
		  (unsigned long long)(PAGES_PER_SECTION * PAGE_SIZE >> 20));
	return 0;
}

SHELL_COMMAND(buddy, .name = "buddy", .usage = "buddy map [ZONE]",
	      .summary = "draw the buddy allocator: migratetype and largest free block per pageblock",
	      .help = "One column per 2 MiB pageblock, one row per 128 MiB memory block,\n"
		      "zone by zone (or only ZONE: DMA, DMA32, Normal, Movable).  The\n"
		      "first line of a row is the pageblock's migratetype, the second the\n"
		      "largest free block that covers it; the legend is printed below.\n"
		      "See also: cat /proc/buddyinfo, cat /proc/pagetypeinfo",
	      .fn = cmd_buddy);

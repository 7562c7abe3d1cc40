/*
 * mm_views.h - the Linux-format text views of the memory core and the
 * shell's hand-allocation handles.
 *
 * Views (views/proc_mm.c): /proc/meminfo, /proc/buddyinfo,
 * /proc/pagetypeinfo and /proc/zoneinfo are static files; the per-node
 * files /sys/devices/system/node/nodeN/{meminfo,distance} exist only for
 * online nodes, which are known after mm_core_init(), so mm_views_init()
 * creates them.  Every view only reads zone and node counters; none of them
 * changes the allocator.
 *
 * Handles (shell/cmd_handles.c): `alloc` keeps each block it allocated in a
 * handle, so that `free`, `fill` and `check` can name it.  Every page of a
 * handle's block has page->index = its id; the pages of a movable handle
 * also have page->owner = the handle's struct movable_owner, so memory
 * offlining and contiguous allocation can migrate the block and tell the
 * handle (include/mm/migrate.h).  Nothing outside the shell calls into the
 * handles.
 *
 * Context: (main) only.
 */
#ifndef VIEWS_MM_VIEWS_H
#define VIEWS_MM_VIEWS_H

#include <lib/types.h>
#include <lib/printer.h>

struct page;

/*
 * mm_views_init() - create /sys/devices/system/node/nodeN/meminfo and
 * .../distance for every online node.  Call once after vfs_init() and
 * mm_core_init().  A file that cannot be created is logged and skipped.
 */
void mm_views_init(void);

#endif

/*
 * mm_views.h - the Linux-format text views of the memory core and the
 * shell's hand-allocation handles.
 *
 * Views (kernel/proc_mm.c): /proc/meminfo, /proc/buddyinfo,
 * /proc/pagetypeinfo and /proc/zoneinfo are static files; the per-node
 * files /sys/devices/system/node/nodeN/{meminfo,distance} exist only for
 * online nodes, which are known after mm_core_init(), so mm_views_init()
 * creates them.  Every view only reads zone and node counters; none of them
 * changes the allocator.
 *
 * Handles (kernel/cmd_mm.c): `alloc` keeps each block it allocated in a
 * handle, so that `free`, `fill` and `check` can name it.  Every page of a
 * handle's block has page->owner = the handle and page->index = its id.
 * A movable block may be moved by memory offlining (migration): whoever
 * moves it calls mm_handles_page_moved() so the handle follows its data.
 * The handle functions are defined in kernel/cmd_mm.c: a host build of mm/
 * code that calls them needs stubs (no handle ever exists there).
 *
 * Context: (main) only.
 */
#ifndef MM_MM_VIEWS_H
#define MM_MM_VIEWS_H

#include <kernel/types.h>
#include <kernel/printer.h>

struct page;

/*
 * mm_views_init() - create /sys/devices/system/node/nodeN/meminfo and
 * .../distance for every online node.  Call once after vfs_init() and
 * mm_core_init().  A file that cannot be created is logged and skipped.
 */
void mm_views_init(void);

/*
 * mm_views_add_node() - create the sysfs files of node nid (for a node that
 * comes online later, by memory hotplug).  Returns 0, or 0 if they already
 * exist, or vfs_create()'s error.
 */
int mm_views_add_node(int nid);

/*
 * memmap_map_show() - the `memmap map` picture of the physical address
 * space, one character per 128 MiB section (legend printed with it).
 * Returns 0.  kernel/cmd_memmap.c calls it for `memmap map`.
 */
int memmap_map_show(struct printer *p);

/*
 * mm_handles_page_moved() - the block that old_head started has been copied
 * to new_head (same order); make its handle point at the new block: owner
 * and index are set on every new page and cleared on every old one.  Call
 * after the copy and before the old block is freed.  Pages whose owner is
 * not a live `alloc` handle are ignored (logged once as a warning).
 * Context: (main), from the migration code of memory offlining.
 */
void mm_handles_page_moved(struct page *old_head, struct page *new_head);

/* mm_handle_of() - the id of the live handle owning page, or 0 if none. */
unsigned long mm_handle_of(const struct page *page);

/*
 * mm_handle_block() - if page belongs to a live handle's block, the block's
 * head page (and *order); else NULL.  The migration code uses it to move a
 * whole block when it meets any of its pages.
 */
struct page *mm_handle_block(const struct page *page, unsigned *order);

#endif

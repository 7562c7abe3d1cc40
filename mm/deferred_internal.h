/*
 * deferred_internal.h - between mechanism 5's two files: mm/deferred_init.c
 * (the pending sections, their claims and counters, the steps, workers,
 * grows and range inits) and mm/deferred_hotplug.c (hot-added sections:
 * the table of their zones and counted pages, their memmap and hand-over).
 * Only these two files include it.
 */
#ifndef MM_DEFERRED_INTERNAL_H
#define MM_DEFERRED_INTERNAL_H

#include <mm/mmzone.h>
#include <lib/printer.h>

/* ---- mm/deferred_init.c, for the hot-add half ------------------------------ */

/*
 * deferred_pending_add_locked() - section nr of node nid (pages present
 * pages) became pending: the node's and the global pending counters, and
 * the cursors moved down to it so that the steps and the node's workers
 * find it.  Context: mem_resize_lock held.
 */
void deferred_pending_add_locked(u64 nr, int nid, u64 pages);

/*
 * deferred_section_claimed_locked() - does a CPU initialise section nr
 * now (hold its claim)?  deferred_pending_drop_locked() - pending section
 * nr of node nid (pages present pages), which nobody claims, leaves the
 * pending counters without being initialised: its block goes offline
 * first (deferred_init_hotplug_discard()).  Context: mem_resize_lock held.
 */
bool deferred_section_claimed_locked(u64 nr);
void deferred_pending_drop_locked(u64 nr, int nid, u64 pages);

/* ---- mm/deferred_hotplug.c, for the machinery -------------------------------- */

/* deferred_hotplug_reset() - an empty table, for a new boot's plan.
 * Context: (boot). */
void deferred_hotplug_reset(void);

/* deferred_hotplug_unready() - is nr a hot-added section whose online has
 * not finished (pending, not claimable yet)?  deferred_hotplug_nr_unready():
 * how many are.  Context: mem_resize_lock held. */
bool deferred_hotplug_unready(u64 nr);
unsigned deferred_hotplug_nr_unready(void);

/* deferred_hotplug_zone_of() - the zone (enum zone_type) of pending
 * hot-added section nr, or -1.  Context: mem_resize_lock, or a snapshot
 * for the views. */
int deferred_hotplug_zone_of(u64 nr);

/* deferred_hotplug_claimed_zone() - the zone of claimed hot-added section
 * nr.  Context: no lock held, holding the claim on nr. */
struct zone *deferred_hotplug_claimed_zone(u64 nr);

/* deferred_hotplug_memmap_init() - the struct pages of claimed hot-added
 * section nr, as the eager online writes them (born free unless
 * page_poison); returns the pages written.  Context: no lock held,
 * holding the claim on nr. */
u64 deferred_hotplug_memmap_init(u64 nr, struct zone *zone, bool born_free);

/* deferred_hotplug_handover_locked() - the rest of the eager online for
 * claimed section nr (memmap counter, pfn_valid(), its pages to the buddy
 * through its online callback, from nr_free_pending), its entry dropped;
 * returns the pages given to the buddy, *counted those its online counted
 * (they must be equal).  Context: mem_resize_lock held. */
u64 deferred_hotplug_handover_locked(u64 nr, struct zone *zone, bool born_free, u64 *counted);

/* deferred_hotplug_dump() - `meminit`'s hot-added lines.  Context: (main). */
void deferred_hotplug_dump(struct printer *p);

#endif

/*
 * memory_online.c - onlining and offlining a memory block: the zone and
 * node spans, the present and managed counters, the memmap initialised
 * (or poisoned again), and the pages handed to the buddy (or taken back
 * from it, migrating what is movable).  Adding and removing memory, the
 * nodes, and the life of a block from start to end are in
 * memory_hotplug.c, whose header comment this file follows.
 *
 * Context: (main), one hotplug operation at a time.
 */
#include <mm/memory_hotplug.h>
#include <mm/range_claim.h>
#include <mm/zone_contig.h>
#include <mm/memremap.h>
#include <mm/sparse.h>
#include "buddy_internal.h"
#include <mm/mm_init.h>
#include <mm/page_isolation.h>
#include <mm/migrate.h>
#include "internal.h"
#include <mm/deferred_init.h>
#include <mm/memmap_cpus.h>
#include <lib/errno.h>
#include <lib/string.h>
#include <lib/printk.h>

/* Rounds of migrate + test when offlining (Linux retries until a signal). */
#define OFFLINE_MIGRATE_TRIES	5

static online_page_callback_t online_page_callback = generic_online_pages;	/* [m] */
static bool online_page_deferrable = true;	/* [m] the callback may run at a pending section's hand-over */
static online_page_count_t online_page_count;	/* [m] a deferrable callback's count op, NULL for the default */

/* ---- spans --------------------------------------------------------------- */

/*
 * Grow the zone span to cover [start_pfn, start_pfn + nr_pages) (Linux's
 * resize_zone_range): an empty zone starts there, otherwise the start can
 * only move down and the end only up.  resize_pgdat_range() does the same
 * for the node.  Holes between the old span and the range become part of
 * the span.  Also used by memremap.c for ZONE_DEVICE.  Context: (main),
 * mem_hotplug_lock held for writing and mem_resize_lock: spans are written
 * with both, so a reader holding either sees them whole.
 */
void resize_zone_range(struct zone *zone, u64 start_pfn, u64 nr_pages)
{
	u64 old_end_pfn = zone_is_empty(zone) ? 0 : zone_end_pfn(zone);

	mem_hotplug_assert_held();
	mem_resize_assert_held();

	u64 start = zone_is_empty(zone) || start_pfn < zone->zone_start_pfn ? start_pfn : zone->zone_start_pfn;

	zone_span_write_begin(zone);
	zone_span_set(zone, start, MAX(start_pfn + nr_pages, old_end_pfn) - start);
	zone_span_write_end(zone);
}

void resize_pgdat_range(struct pglist_data *pgdat, u64 start_pfn, u64 nr_pages)
{
	u64 old_end_pfn = pgdat->node_spanned_pages ? pgdat_end_pfn(pgdat) : 0;

	mem_hotplug_assert_held();
	mem_resize_assert_held();
	if (!pgdat->node_spanned_pages || start_pfn < pgdat->node_start_pfn)
		pgdat->node_start_pfn = start_pfn;
	pgdat->node_spanned_pages = MAX(start_pfn + nr_pages, old_end_pfn) - pgdat->node_start_pfn;
}

#define NO_PFN	(~0ULL)

/* Is pfn online memory of zone (and so of its node)?  The probe of the scans
 * below; memory onlined with its memmap pending (deferred_init_hotplug=1) is
 * its zone's too.  Context: mem_resize_lock held. */
static bool pfn_online_in_zone(u64 pfn, const struct zone *zone)
{
	struct page *page = pfn_to_online_page(pfn);

	if (!page)
		return deferred_init_hotplug_zone(pfn) == (int)zone->idx &&
		       __pfn_to_section(pfn)->nid == zone->zone_pgdat->node_id;

	return page && page_to_nid(page) == zone->zone_pgdat->node_id && page_zone(page) == zone;
}

/*
 * block_in_zone() - is [start_pfn, end_pfn), pageblock aligned, online
 * memory of zone only?  The memmap says so (zone_range_online_in_zone()),
 * or, for sections still pending after a lazy online, the table of
 * deferred init (pfn_online_in_zone()): their memmap is not written.
 * Context: (main), mem_hotplug_lock held.
 */
static bool block_in_zone(struct zone *zone, u64 start_pfn, u64 end_pfn)
{
	bool ok = true;

	if (deferred_init_hotplug_zone(start_pfn) < 0)
		return zone_range_online_in_zone(zone, start_pfn, end_pfn);
	mem_resize_lock();
	for (u64 pfn = start_pfn, next; pfn < end_pfn && ok; pfn = next) {
		next = MIN(end_pfn, section_nr_to_pfn(pfn_to_section_nr(pfn) + 1));
		ok = deferred_init_hotplug_zone(pfn) >= 0 ? pfn_online_in_zone(pfn, zone) :
		     zone_range_online_in_zone(zone, pfn, next);
	}
	mem_resize_unlock();
	return ok;
}

/*
 * shrink_zone_span() - after [start_pfn, end_pfn) left zone: if it was at
 * the start of the span, the span now starts at the first online pfn of the
 * zone after it; if at the end, it ends after the last one before it.
 * Probes go one subsection (2 MiB) at a time, as Linux's
 * find_smallest_section_pfn()/find_biggest_section_pfn().  A range in the
 * middle leaves the span alone: a hole.  Nothing found: the zone is empty
 * (start 0, spanned 0).  The range must already be offline.  Context: (main).
 */
static void shrink_zone_span(struct zone *zone, u64 start_pfn, u64 end_pfn)
{
	u64 found = NO_PFN;

	if (start_pfn == zone->zone_start_pfn) {
		u64 zone_end = zone_end_pfn(zone);

		for (u64 pfn = end_pfn; pfn < zone_end; pfn += PAGES_PER_SUBSECTION)
			if (pfn_online_in_zone(pfn, zone)) {
				found = pfn;
				break;
			}
		if (found != NO_PFN) {
			zone_span_write_begin(zone);
			zone_span_set(zone, found, zone_end - found);
			zone_span_write_end(zone);
		}
	} else if (end_pfn == zone_end_pfn(zone)) {
		/* probe the last pfn of each subsection, going down */
		for (u64 probe_end = start_pfn; probe_end > zone->zone_start_pfn;
		     probe_end -= MIN(probe_end - zone->zone_start_pfn, (u64)PAGES_PER_SUBSECTION))
			if (pfn_online_in_zone(probe_end - 1, zone)) {
				found = probe_end - 1;
				break;
			}
		if (found != NO_PFN) {
			zone_span_write_begin(zone);
			zone_span_set(zone, zone->zone_start_pfn, found - zone->zone_start_pfn + 1);
			zone_span_write_end(zone);
		}
	} else {
		return;		/* a hole in the middle */
	}
	if (found == NO_PFN) {
		zone_span_write_begin(zone);
		zone_span_set(zone, 0, 0);
		zone_span_write_end(zone);
	}
}

/* update_pgdat_span() - the node spans its non-empty zones, min start to
 * max end.  Also used by memremap.c.  Context: (main). */
void update_pgdat_span(struct pglist_data *pgdat)
{
	u64 start = NO_PFN, end = 0;

	mem_resize_assert_held();

	for (int z = 0; z < MAX_NR_ZONES; z++) {
		const struct zone *zone = &pgdat->node_zones[z];

		if (zone_is_empty(zone))
			continue;
		start = MIN(start, (u64)zone->zone_start_pfn);
		end = MAX(end, (u64)zone_end_pfn(zone));
	}
	pgdat->node_start_pfn = end ? start : 0;
	pgdat->node_spanned_pages = end ? end - start : 0;
}

/* ---- counters ------------------------------------------------------------ */

/*
 * adjust_present_page_count() - nr_pages (negative: fewer) of the block at
 * start_pfn became present in zone: zone present (and present_early for an
 * early section), node present, and the group's kernel or movable pages
 * move together, as in Linux.  Context: (main), mem_hotplug_lock held for
 * writing.
 */
static void adjust_present_page_count(struct zone *zone, struct memory_group *group,
				      u64 start_pfn, long nr_pages)
{
	unsigned long delta = (unsigned long)nr_pages;

	mem_hotplug_assert_held();

	MM_BUG_ON(nr_pages < 0 && zone->present_pages < (unsigned long)-nr_pages,
		  "zone %s: %lu present pages, removing %ld", zone->name, zone->present_pages, -nr_pages);
	bool early = early_section(__pfn_to_section(start_pfn));

	if (early)
		zone->present_early_pages += delta;
	zone->present_pages += delta;
	zone->zone_pgdat->node_present_pages += delta;
	auto_movable_stats_zone_changed(zone, nr_pages, early ? nr_pages : 0, 0);
	if (group && zone->idx == ZONE_MOVABLE)
		group->present_movable_pages += delta;
	else if (group)
		group->present_kernel_pages += delta;
}

/*
 * Linux's adjust_managed_page_count() for offlining: pages taken out of the
 * buddy for good are no longer managed.  (Onlining counts them in
 * buddy_free_boot_pages().)  managed_pages changes under zone->lock, as
 * the buddy's hand-over changes it.  Context: (main); takes zone->lock.
 */
static void zone_managed_pages_sub(struct zone *zone, unsigned long nr_pages)
{
	spin_lock(&zone->lock);
	MM_BUG_ON(zone->managed_pages < nr_pages, "zone %s: %lu managed pages, removing %lu",
		  zone->name, zone->managed_pages, nr_pages);
	MM_WRITE_ONCE(zone->managed_pages, zone->managed_pages - nr_pages);	/* read unlocked */
	spin_unlock(&zone->lock);
}

/* ---- the memmap ---------------------------------------------------------- */

static bool memmap_poisoning = true;	/* [m] memmap_poison_enable() */

void memmap_poison_enable(bool on) { memmap_poisoning = on; }
bool memmap_poison_enabled(void) { return memmap_poisoning; }

/* Contract in internal.h. */
void memmap_poison(u64 start_pfn, u64 end_pfn)
{
	if (!memmap_poisoning)
		return;
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		page->flags = MEMMAP_POISON_FLAGS;
		page->page_type = 0xffffffffu;
		page->refcount = -1;
	}
}

/*
 * move_spans_to_zone() + init_block_memmap() - make the block [start_pfn, start_pfn +
 * nr_pages) part of zone: spans grown first (pageblock flags of the range
 * are set against a span that covers it), then the memmap initialised:
 * the first nr_vmemmap pages as the block's own memmap (memmap_on_memory:
 * reserved, PGTY_TABLE, pageblock Unmovable), the rest as ordinary pages of
 * the zone with Movable pageblocks.  Every page is then refcount 1 and
 * owned by nobody until the online_page_callback frees it.  Context: (main),
 * mem_hotplug_lock held for writing.
 */
static void move_spans_to_zone(struct zone *zone, u64 start_pfn, u64 nr_pages)
{
	mem_hotplug_assert_held();
	mem_resize_lock();
	clear_zone_contiguous(zone);
	resize_zone_range(zone, start_pfn, nr_pages);
	resize_pgdat_range(zone->zone_pgdat, start_pfn, nr_pages);
	mem_resize_unlock();
}

/* init_block_memmap(): the memmap, after move_spans_to_zone(); the block's
 * own memmap pages here, the rest split over the CPUs by
 * memmap_init_range_cpus() (memory_hotplug.memmap_init_cpus=0: this CPU
 * alone). */
static void init_block_memmap(struct zone *zone, u64 start_pfn, u64 nr_pages, u64 nr_vmemmap)
{
	int nid = zone->zone_pgdat->node_id;

	mem_hotplug_assert_held();
	for (u64 pfn = start_pfn; pfn < start_pfn + nr_vmemmap; pfn++) {
		struct page *page = pfn_to_page(pfn);

		init_single_page(page, pfn, zone->idx, nid);
		SetPageReserved(page);
		page_set_type(page, PGTY_TABLE);
		if (IS_ALIGNED(pfn, pageblock_nr_pages))
			set_pageblock_migratetype(pfn, MIGRATE_UNMOVABLE);
	}
	memmap_init_range_cpus(start_pfn + nr_vmemmap, start_pfn + nr_pages, zone->idx, nid,
			       MIGRATE_MOVABLE);
}

/* ---- handing pages to the buddy ------------------------------------------ */

/* Pages generic_online_pages() gave to the buddy, per CPU: each entry
 * written only by its CPU (deferred init's hand-over reads its own). */
static u64 online_pages_freed[MM_NR_CPUS];	/* [c] per CPU, that CPU only */
/* Per CPU: the pages being onlined were initialised born free
 * (online_pages_born_free()): the hand-over only links them. */
static bool online_born_free[MM_NR_CPUS];	/* [c] per CPU, that CPU only */
/* Per CPU: the pages being onlined were counted as managed and free at a
 * lazy online (online_pages_counted()): from nr_free_pending to the buddy. */
static bool online_counted[MM_NR_CPUS];	/* [c] per CPU, that CPU only */

/* Contract in memory_hotplug.h. */
void generic_online_pages(u64 start_pfn, u64 end_pfn)
{
	unsigned cpu = mm_this_cpu();

	if (start_pfn < end_pfn) {
		free_pfn_range_to_buddy(page_zone(pfn_to_page(start_pfn)), start_pfn, end_pfn,
					FREE_RANGE_NEW | (online_born_free[cpu] ? FREE_RANGE_BORN_FREE : 0) |
					(online_counted[cpu] ? FREE_RANGE_PENDING : 0), NULL);
		online_pages_freed[cpu] += end_pfn - start_pfn;
	}
}

/* Contract in mm/internal.h. */
online_page_callback_t online_page_callback_get(void)
{
	return online_page_callback;
}

/* Contract in mm/internal.h. */
void online_pages_born_free(bool on)
{
	online_born_free[mm_this_cpu()] = on;
}

/* Contract in mm/internal.h. */
void online_pages_counted(bool on)
{
	online_counted[mm_this_cpu()] = on;
}

/* Contract in mm/internal.h. */
u64 online_pages_freed_here(void)
{
	return online_pages_freed[mm_this_cpu()];
}

/* Contract in memory_hotplug.h. */
void online_pages_keep_offline(u64 start_pfn, u64 end_pfn)
{
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		page_set_type(page, PGTY_OFFLINE);
		page->refcount = 0;
	}
}

/* Contract in memory_hotplug.h. */
void fake_online_pages(u64 start_pfn, u64 end_pfn)
{
	MM_BUG_ON(start_pfn >= end_pfn || !PageOffline(pfn_to_page(start_pfn)),
		  "[%#llx, %#llx): not a range of PageOffline pages", (unsigned long long)start_pfn,
		  (unsigned long long)end_pfn);
	generic_online_pages(start_pfn, end_pfn);
	setup_per_zone_wmarks();
}

/* Contract in memory_hotplug.h. */
void fake_offline_pages(u64 start_pfn, u64 end_pfn)
{
	MM_BUG_ON(start_pfn >= end_pfn, "[%#llx, %#llx): an empty range",
		  (unsigned long long)start_pfn, (unsigned long long)end_pfn);
	online_pages_keep_offline(start_pfn, end_pfn);
	zone_managed_pages_sub(page_zone(pfn_to_page(start_pfn)), (unsigned long)(end_pfn - start_pfn));
	setup_per_zone_wmarks();
}

/* Contract in memory_hotplug.h. */
int set_online_page_callback(online_page_callback_t cb)
{
	if (!cb || online_page_callback != generic_online_pages)
		return -EINVAL;
	online_page_callback = cb;
	online_page_deferrable = false;
	online_page_count = NULL;
	return 0;
}

/* Contract in memory_hotplug.h. */
int set_online_page_callback_deferrable(online_page_callback_t cb, online_page_count_t count)
{
	int err = count ? set_online_page_callback(cb) : -EINVAL;

	if (!err) {
		online_page_deferrable = true;
		online_page_count = count;
	}
	return err;
}

int restore_online_page_callback(online_page_callback_t cb)
{
	if (!cb || online_page_callback != cb)
		return -EINVAL;
	online_page_callback = generic_online_pages;
	online_page_deferrable = true;
	online_page_count = NULL;
	return 0;
}

/* ---- online and offline -------------------------------------------------- */

/*
 * memory_block_online() - Linux's memory_block_online() + online_pages():
 * zone chosen, then (after the MEM_GOING_ONLINE point) the block moved into
 * it, its pages freed to the buddy, counters, section state, zonelists
 * (when the zone had no memory before), watermarks and pcp sizes, and the
 * zone's contiguity updated by zone_update_contiguous() (the walk or the
 * counter, whichever design contig_check selects).  Errors: -EINVAL (not
 * offline, or online_type is not an online type), an injected error; in
 * both cases nothing changed.  Context: (main), with mem->lock and
 * mem_hotplug_lock (for writing) held: memory_block_online() takes them.
 */
static int block_online_locked(struct memory_block *mem, enum mmop online_type)
{
	u64 start_pfn = memory_block_start_pfn(mem), nr_pages = PAGES_PER_MEMORY_BLOCK;
	u64 nr_vmemmap = mem->nr_vmemmap_pages, t0 = mm_cycles();
	struct zone *zone;
	bool was_populated;
	int err;

	if (range_claim_check(start_pfn, start_pfn + nr_pages))
		return -EBUSY;	/* another holder changes this memory: range_claim.h */
	if (devmem_intersects(start_pfn, nr_pages)) {
		pr_info("online: memory block %lu is in use as device memory (devmem); not onlined",
			mem->block_id);
		return -EBUSY;
	}
	if (mem->state != MEM_OFFLINE || online_type < MMOP_ONLINE ||
	    online_type > MMOP_ONLINE_MOVABLE || !NODE_DATA(mem->nid)->online)
		return -EINVAL;
	zone = zone_for_pfn_range(online_type, mem->nid, mem->group, start_pfn, nr_pages);
	err = memhp_get_inject_going_online_error();
	if (err) {
		pr_info("online: memory block %lu: MEM_GOING_ONLINE refused: error %d (injected)",
			mem->block_id, err);
		memhp_stats.online_failures++;
		return err;
	}

	was_populated = populated_zone(zone);
	move_spans_to_zone(zone, start_pfn, nr_pages);
	/* lazy (deferred_init_hotplug=1): the memmap and the hand-over later,
	 * managed and free counted now (what the callback will give the buddy) */
	if (nr_vmemmap || !online_page_deferrable ||
	    !deferred_init_hotplug_defer(start_pfn, nr_pages, zone, online_page_callback,
					 online_page_count)) {
		init_block_memmap(zone, start_pfn, nr_pages, nr_vmemmap);
		mem_resize_lock();
		zone_online_memmap_add(zone, start_pfn, start_pfn + nr_pages);	/* memmap is initialised */
		mem_resize_unlock();
		online_page_callback(start_pfn + nr_vmemmap, start_pfn + nr_pages);
	}
	adjust_present_page_count(zone, mem->group, start_pfn, (long)nr_pages);
	sparse_set_online(start_pfn, start_pfn + nr_pages);
	if (!was_populated)
		build_all_zonelists();
	setup_per_zone_wmarks();
	mem_resize_lock();
	zone_update_contiguous(zone);		/* walk or counter: contig_check */
	mem_resize_unlock();

	mem->zone = zone;
	mem->online_type = online_type;
	memory_block_set_state(mem, MEM_ONLINE);
	deferred_init_hotplug_publish(start_pfn);	/* a pending memmap may go now */
	memhp_stats.onlined_blocks++;
	memhp_stats.last_online_cycles = mm_cycles() - t0;
	return 0;
}

/* Log why the offline of mem stopped at failed_pfn, in the shell's words. */
static void offline_report(const struct memory_block *mem, u64 failed_pfn, const char *what)
{
	char why[160];

	describe_unmovable(failed_pfn, why, sizeof(why));
	pr_warn("offline: memory block %lu: %s%s", mem->block_id, why, what);
}

/*
 * memory_block_offline() - Linux's offline_pages() for one block:
 * MEM_GOING_OFFLINE first; the block must lie in one zone and have no
 * holes (-EINVAL); the MEM_GOING_OFFLINE point; its pageblocks isolated
 * (-EBUSY on an unmovable page, logged as "offline: memory block N: pfn
 * 0x...: why"); movable blocks migrated and the range checked, a bounded
 * number of rounds (-EBUSY with the reason logged); then the free pages
 * taken from the buddy, counters down, section offline, spans shrunk,
 * memmap poisoned, contiguity, zonelists and watermarks recomputed.  With
 * memmap_on_memory the first 512 pages (the block's own memmap) are not
 * isolated or migrated: they leave with the block.  On failure the
 * isolation is undone and the block is MEM_ONLINE again, as it was;
 * pages already migrated stay where they went.  Context: (main), with
 * mem->lock and mem_hotplug_lock (for writing) held: memory_block_offline()
 * takes them.
 */
static int block_offline_locked(struct memory_block *mem)
{
	u64 start_pfn = memory_block_start_pfn(mem), nr_pages = PAGES_PER_MEMORY_BLOCK;
	u64 end_pfn = start_pfn + nr_pages, range_start = start_pfn + mem->nr_vmemmap_pages;
	u64 failed_pfn = 0, t0 = mm_cycles();
	struct zone *zone = mem->zone;
	struct migrate_dests dests;	/* where this offline's migrated pages went */
	bool counted = false;		/* in memhp_stats.offlines_migrated */
	unsigned long taken;
	u64 pending;			/* pages a pending block's online counted */
	bool lazy;			/* the block's memmap was pending: never written */
	int err, tries;

	if (range_claim_check(start_pfn, end_pfn))
		return -EBUSY;	/* another holder changes this memory: range_claim.h */

	/* boot memory still waiting for its memmap: initialised first (a
	 * hot-added block's pending memmap may never need it, below) */
	if (deferred_init_hotplug_zone(start_pfn) < 0)
		deferred_init_pfn_range(start_pfn, end_pfn);

	if (mem->state != MEM_ONLINE)
		return -EINVAL;
	if (mem->zones_mixed || !zone || !block_in_zone(zone, range_start, end_pfn)) {
		pr_warn("offline: memory block %lu: failed due to spanning more than one zone",
			mem->block_id);
		return -EINVAL;
	}
	if (__pfn_to_section(start_pfn)->nr_present_pages != nr_pages) {
		pr_warn("offline: memory block %lu: failed due to memory holes", mem->block_id);
		return -EINVAL;
	}

	memory_block_set_state(mem, MEM_GOING_OFFLINE);
	err = memhp_get_inject_going_offline_error();
	if (err) {
		pr_info("offline: memory block %lu: MEM_GOING_OFFLINE refused: error %d (injected)",
			mem->block_id, err);
		goto failed;
	}
	/* a hot-added block whose memmap is still pending: nothing in it is
	 * used, so it goes without its memmap ever being written */
	lazy = range_start == start_pfn &&
	       deferred_init_hotplug_discard(start_pfn, end_pfn, zone, &pending);
	if (lazy)
		goto offline_pending;	/* pending pages uncounted: managed is down */
	/* a hot-added section another CPU initialises now: waited for */
	deferred_init_pfn_range(start_pfn, end_pfn);
	err = start_isolate_page_range(range_start, end_pfn, ISOLATE_MEMORY_OFFLINE, &failed_pfn);
	if (err) {
		offline_report(mem, failed_pfn, "");
		goto failed;
	}
	memset(&dests, 0, sizeof(dests));
	for (tries = 1; ; tries++) {
		u64 moved = 0;

		err = migrate_range_to(range_start, end_pfn, &failed_pfn, &moved, &dests);
		memhp_stats.migrated_pages += moved;
		if (moved) {	/* the view channel's eject timeline draws where they went */
			if (!counted)
				memhp_stats.offlines_migrated++;
			counted = true;
			memhp_stats.last_offline_block = mem->block_id;
			memhp_stats.last_offline_dests = dests;
		}
		if (!err)
			err = test_pages_isolated(range_start, end_pfn, &failed_pfn);
		if (!err)
			break;
		if (tries == OFFLINE_MIGRATE_TRIES) {
			offline_report(mem, failed_pfn, err == -ENOMEM ?
				       " (no free memory elsewhere to migrate it to)" :
				       " (still there after migration)");
			err = -EBUSY;
			goto failed_isolated;
		}
	}

	/* Nothing can fail from here on. */
	taken = offline_isolated_pages_retire(range_start, end_pfn);	/* memmap retired below */
	retire_isolated_range(range_start, end_pfn);	/* clean pageblock flags for next time */
	zone_managed_pages_sub(zone, taken);
offline_pending:
	adjust_present_page_count(zone, mem->group, start_pfn, -(long)nr_pages);
	sparse_set_offline(start_pfn, end_pfn);
	mem_resize_lock();
	if (!lazy)	/* a pending section never joined the memmap counter */
		zone_online_memmap_sub(zone, start_pfn, end_pfn);	/* before the memmap is retired */
	clear_zone_contiguous(zone);
	mem_resize_unlock();
	if (!lazy)	/* a never-written memmap stays as it was while pending */
		memmap_poison(start_pfn, end_pfn);
	mem_resize_lock();
	shrink_zone_span(zone, start_pfn, end_pfn);
	update_pgdat_span(zone->zone_pgdat);
	zone_update_contiguous(zone);		/* walk or counter: contig_check */
	mem_resize_unlock();
	if (!populated_zone(zone))
		build_all_zonelists();
	setup_per_zone_wmarks();

	mem->zone = NULL;
	memory_block_set_state(mem, MEM_OFFLINE);
	memhp_stats.offlined_blocks++;
	memhp_stats.last_offline_cycles = mm_cycles() - t0;
	return 0;

failed_isolated:
	undo_isolate_page_range(range_start, end_pfn);
failed:
	memory_block_set_state(mem, MEM_ONLINE);
	memhp_stats.offline_failures++;
	return err;
}

/* Contracts above block_online_locked() and in memory_hotplug.h. */
int memory_block_online(struct memory_block *mem, enum mmop online_type)
{
	int err;

	mutex_lock(&mem->lock);
	mem_hotplug_begin();
	err = block_online_locked(mem, online_type);
	mem_hotplug_done();
	mutex_unlock(&mem->lock);
	return err;
}

/* Contracts above block_offline_locked() and in memory_hotplug.h. */
int memory_block_offline(struct memory_block *mem)
{
	int err;

	mutex_lock(&mem->lock);
	mem_hotplug_begin();
	err = block_offline_locked(mem);
	mem_hotplug_done();
	mutex_unlock(&mem->lock);
	return err;
}

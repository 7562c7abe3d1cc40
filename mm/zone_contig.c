/*
 * zone_contig.c - is a zone "contiguous"?
 *
 * A zone is contiguous when every pageblock of its span has a valid memmap
 * and belongs to the zone: then pfn_to_page() may be used on any pfn of the
 * span without checks.  Walkers that go pageblock by pageblock (compaction,
 * contiguous allocation, offlining) ask pageblock_pfn_to_page(): one
 * pointer computation for a contiguous zone, several checks otherwise.
 *
 * Two designs decide the flag after every span change (boot, online,
 * offline), chosen by /sys/kernel/mm/memlab/contig_check:
 *
 *   old  set_zone_contiguous(): walk every pageblock of the span and check
 *        it; O(spanned / 512) per call, so onlining N blocks one after
 *        another into a growing zone costs O(N^2) pageblock checks.
 *   new  the counter pages_with_online_memmap: pfns inside the span whose
 *        memmap is initialised and belongs to the zone (present pages, plus
 *        boot holes that got a reserved memmap of this zone).  It is kept in
 *        step where memmaps are initialised or retired (boot memmap init,
 *        online, offline) and the zone is contiguous iff it equals
 *        spanned_pages: O(1), no walk.  (Linux 2026, "mm/memory_hotplug:
 *        optimize zone contiguous check when changing pfn range".)
 *
 * The counter is maintained under both designs, so switching needs no
 * resync and the two answers can be compared at any time (`contig check`).
 *
 * Holes.  In Linux, a zone with a 2 MiB boot hole can get different answers
 * from the old and the new design.  In memlab a boot hole inside a present
 * section gets a memmap of the zone that spans it (init_unavailable_range,
 * PG_reserved): pfn_to_page() is safe there, the walk accepts the pageblock
 * and the counter counts the pages, so BOTH designs call such a zone
 * contiguous: contiguity means "pfn_to_page() is valid on the whole span",
 * not "every page is memory".  A hole WITHOUT an online memmap (an offline
 * or removed block inside the span) makes both say "not contiguous".  The
 * one way the designs can disagree is an undercount, which only errs
 * towards "not contiguous": the span grows over pfns whose memmap was
 * initialised while outside it (memlab never does that; Linux documents
 * it).  tests/host/test_online_policy.c (hotplug_contig_zones and the zone
 * tests before it) exercises these cases; `contiguity` compares both
 * answers live.
 *
 * The readers.  The flag pays off in the pfn scans that go pageblock by
 * pageblock over a zone: alloc_contig_range's range check
 * (mm/contig_alloc.c), start_isolate_page_range (mm/page_isolation.c) and
 * the offline check that a block lies in its zone (mm/memory_online.c).
 * Each asks zone_pageblock_page() (include/mm/zone_contig.h): for a
 * contiguous zone the pfn_valid / online / zone / node checks of every
 * pageblock are skipped; for a non-contiguous one they run.  Results are
 * the same either way (tests/host/test_contig.c runs the scans with the
 * zone marked contiguous and not); zone_contig_scan counts the saving and
 * `trace contig_check on` prints it per scan (docs/zone-contiguity.md).
 */
#include <mm/mmzone.h>
#include <mm/zone_contig.h>
#include <mm/sparse.h>
#include <mm/mechanisms.h>

/*
 * __pageblock_pfn_to_page() - the first page of [start_pfn, end_pfn) (one
 * pageblock, clipped to the zone) if the whole range is backed by memmap of
 * this zone, else NULL.  Checks: end-1 valid, start online, start page in
 * zone, start and end pages in the same zone and node.  Context: (any).
 */
static struct page *__pageblock_pfn_to_page(u64 start_pfn, u64 end_pfn, struct zone *zone)
{
	struct page *start_page, *end_page;

	end_pfn--;
	if (!pfn_valid(end_pfn))
		return NULL;
	start_page = pfn_to_online_page(start_pfn);
	if (!start_page)
		return NULL;
	if (page_zone(start_page) != zone)
		return NULL;
	end_page = pfn_to_page(end_pfn);
	if (page_zonenum(start_page) != page_zonenum(end_page) ||
	    page_to_nid(start_page) != page_to_nid(end_page))
		return NULL;
	return start_page;
}

/* pageblock_pfn_to_page() - the fast path for contiguous zones. */
static struct page *pageblock_pfn_to_page(u64 start_pfn, u64 end_pfn, struct zone *zone)
{
	if (zone->contiguous)
		return pfn_to_page(start_pfn);
	return __pageblock_pfn_to_page(start_pfn, end_pfn, zone);
}

/* ---- the readers: pfn scans that profit from the flag -------------------- */

struct zone_contig_scan_stats zone_contig_scan;	/* [m] */

struct page *zone_pageblock_page(u64 block_pfn, struct zone *zone)
{
	u64 end_pfn = block_pfn + pageblock_nr_pages;

	if (!zone_spans_pfn(zone, block_pfn) || !zone_spans_pfn(zone, end_pfn - 1))
		return NULL;
	if (zone->contiguous)
		zone_contig_scan.skipped++;
	else
		zone_contig_scan.checked++;
	return pageblock_pfn_to_page(block_pfn, end_pfn, zone);
}

bool zone_range_online_in_zone(struct zone *zone, u64 start_pfn, u64 end_pfn)
{
	struct zone_contig_scan_stats before = zone_contig_scan;
	u64 pfn;

	MM_BUG_ON(!IS_ALIGNED(start_pfn, pageblock_nr_pages) || !IS_ALIGNED(end_pfn, pageblock_nr_pages),
		  "zone_range_online_in_zone: [%#llx-%#llx) not pageblock aligned",
		  (unsigned long long)start_pfn, (unsigned long long)end_pfn);
	for (pfn = start_pfn; pfn < end_pfn; pfn += pageblock_nr_pages)
		if (!zone_pageblock_page(pfn, zone))
			break;
	zone_contig_scan_trace("offline: block in zone", start_pfn, end_pfn, zone, &before);
	return pfn >= end_pfn;
}

void zone_contig_scan_trace(const char *who, u64 start_pfn, u64 end_pfn, const struct zone *zone,
			    const struct zone_contig_scan_stats *before)
{
	mech_trace(MECH_CONTIG_CHECK,
		   "%s [%#llx-%#llx) zone %s (%s): %lu pageblocks without checks, %lu checked",
		   who, (unsigned long long)start_pfn, (unsigned long long)end_pfn,
		   zone ? zone->name : "-", zone && zone->contiguous ? "contiguous" : "not contiguous",
		   zone_contig_scan.skipped - before->skipped,
		   zone_contig_scan.checked - before->checked);
}

/* `trace contig_check verbose`: at most this many pageblock lines a walk. */
#define CONTIG_VERBOSE_MAX_LINES	4096

/* Pageblocks examined by set_zone_contiguous() since boot (for `zoneinfo`). */
unsigned long zone_contig_walk_steps;	/* [m] */

/*
 * set_zone_contiguous() - the old design: walk every pageblock of the span
 * and set zone->contiguous only if all of them pass.  Costs one
 * __pageblock_pfn_to_page() per pageblock: 512 for each GiB of span.
 * Context: (boot) or (main), with the zone's span stable.
 */
static void set_zone_contiguous(struct zone *zone)
{
	u64 block_start = pageblock_start_pfn(zone->zone_start_pfn);
	u64 block_end = pageblock_end_pfn(zone->zone_start_pfn);
	u64 steps = 0;

	zone->contiguous = false;
	if (zone_is_empty(zone))
		return;
	for (; block_start < zone_end_pfn(zone);
	     block_start = block_end, block_end += pageblock_nr_pages) {
		u64 start = MAX(block_start, (u64)zone->zone_start_pfn);
		u64 end = MIN(block_end, (u64)zone_end_pfn(zone));
		bool pass = __pageblock_pfn_to_page(start, end, zone) != NULL;

		steps++;
		if (mech_tracing_verbose(MECH_CONTIG_CHECK)) {
			if (steps <= CONTIG_VERBOSE_MAX_LINES)
				mech_trace(MECH_CONTIG_CHECK,
					   "zone %s: pageblock %llu [%#llx-%#llx): first and last page %s",
					   zone->name, (unsigned long long)(steps - 1),
					   (unsigned long long)start, (unsigned long long)end,
					   pass ? "online, in this zone: pass" :
					   "not both online in this zone: FAIL");
			else if (steps == CONTIG_VERBOSE_MAX_LINES + 1)
				mech_trace(MECH_CONTIG_CHECK, "zone %s: ... (one line per pageblock "
					   "stops at %d; the walk goes on)", zone->name,
					   CONTIG_VERBOSE_MAX_LINES);
		}
		if (!pass) {
			zone_contig_walk_steps += steps;
			mech_trace(MECH_CONTIG_CHECK,
				   "zone %s: walked %llu pageblocks; [%#llx-%#llx) fails: not contiguous",
				   zone->name, (unsigned long long)steps, (unsigned long long)start,
				   (unsigned long long)end);
			return;
		}
	}
	zone_contig_walk_steps += steps;
	zone->contiguous = true;
	mech_trace(MECH_CONTIG_CHECK, "zone %s: walked all %llu pageblocks: contiguous",
		   zone->name, (unsigned long long)steps);
}

/* Contiguity's lock: mmzone.h says what it protects. */
static struct spinlock resize_lock = SPINLOCK_INIT("mem_resize_lock");	/* [c] the lock itself */

void mem_resize_lock(void)
{
	spin_lock(&resize_lock);
}

void mem_resize_unlock(void)
{
	spin_unlock(&resize_lock);
}

const struct spinlock *mem_resize_lock_stats(void)
{
	return &resize_lock;
}

void mem_resize_assert_held_at(const char *file, int line, const char *fn)
{
	if (!spin_held_here(&resize_lock))
		lock_not_held(file, line, fn, resize_lock.name, "held");
}

/* The new design: one comparison. */
static bool zone_counter_contiguous(const struct zone *zone)
{
	return !zone_is_empty(zone) && zone->pages_with_online_memmap == zone->spanned_pages;
}

unsigned long zone_contig_counter_checks;	/* [m] */

void zone_update_contiguous(struct zone *zone)
{
	mem_resize_assert_held();
	if (!mech_new(MECH_CONTIG_CHECK)) {
		set_zone_contiguous(zone);
		return;
	}
	zone_contig_counter_checks++;
	zone->contiguous = zone_counter_contiguous(zone);
	mech_trace(MECH_CONTIG_CHECK, "zone %s: pages_with_online_memmap %lu %s spanned %lu: %s",
		   zone->name, zone->pages_with_online_memmap,
		   zone->contiguous ? "==" : "!=", zone->spanned_pages,
		   zone->contiguous ? "contiguous" : "not contiguous");
}

bool zone_contiguous_by_walk(struct zone *zone)
{
	bool saved = zone->contiguous, answer;
	unsigned long steps = zone_contig_walk_steps;

	set_zone_contiguous(zone);
	answer = zone->contiguous;
	zone->contiguous = saved;
	zone_contig_walk_steps = steps;	/* a comparison is not a hotplug step */
	return answer;
}

bool zone_contiguous_by_counter(const struct zone *zone)
{
	return zone_counter_contiguous(zone);
}

void zone_online_memmap_add(struct zone *zone, u64 start_pfn, u64 end_pfn)
{
	u64 s = MAX(start_pfn, (u64)zone->zone_start_pfn);
	u64 e = MIN(end_pfn, (u64)zone_end_pfn(zone));

	mem_resize_assert_held();
	if (s < e)
		zone->pages_with_online_memmap += e - s;
}

void zone_online_memmap_sub(struct zone *zone, u64 start_pfn, u64 end_pfn)
{
	u64 s = MAX(start_pfn, (u64)zone->zone_start_pfn);
	u64 e = MIN(end_pfn, (u64)zone_end_pfn(zone));

	mem_resize_assert_held();
	if (s >= e)
		return;
	MM_BUG_ON(zone->pages_with_online_memmap < e - s,
		  "zone %s: counter %lu, retiring %llu pages", zone->name,
		  zone->pages_with_online_memmap, (unsigned long long)(e - s));
	zone->pages_with_online_memmap -= e - s;
}

void clear_zone_contiguous(struct zone *zone)
{
	mem_resize_assert_held();
	zone->contiguous = false;
}

/*
 * zone_contig.c - is a zone "contiguous"?
 *
 * A zone is contiguous when every pageblock of its span has a valid memmap
 * and belongs to the zone: then pfn_to_page() may be used on any pfn of the
 * span without checks.  Walkers that go pageblock by pageblock (compaction,
 * contiguous allocation, offlining) ask pageblock_pfn_to_page(): one
 * pointer computation for a contiguous zone, several checks otherwise.
 *
 * The old design, kept here, recomputes the flag by walking every pageblock
 * of the span (set_zone_contiguous) at the end of boot and after every span
 * change.  The counter-based design that replaced it in Linux (2026) is
 * added next to it by the mechanisms issue.
 */
#include <mm/mmzone.h>
#include <mm/sparse.h>

/*
 * __pageblock_pfn_to_page() - the first page of [start_pfn, end_pfn) (one
 * pageblock, clipped to the zone) if the whole range is backed by memmap of
 * this zone, else NULL.  Checks: end-1 valid, start online, start page in
 * zone, start and end pages in the same zone and node.  Context: (any).
 */
struct page *__pageblock_pfn_to_page(u64 start_pfn, u64 end_pfn, struct zone *zone)
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
struct page *pageblock_pfn_to_page(u64 start_pfn, u64 end_pfn, struct zone *zone)
{
	if (zone->contiguous)
		return pfn_to_page(start_pfn);
	return __pageblock_pfn_to_page(start_pfn, end_pfn, zone);
}

/* Pageblocks examined by set_zone_contiguous() since boot (for `zoneinfo`). */
unsigned long zone_contig_walk_steps;

/*
 * set_zone_contiguous() - the old design: walk every pageblock of the span
 * and set zone->contiguous only if all of them pass.  Costs one
 * __pageblock_pfn_to_page() per pageblock: 512 for each GiB of span.
 * Context: (boot) or (main), with the zone's span stable.
 */
void set_zone_contiguous(struct zone *zone)
{
	u64 block_start = pageblock_start_pfn(zone->zone_start_pfn);
	u64 block_end = pageblock_end_pfn(zone->zone_start_pfn);

	zone->contiguous = false;
	if (zone_is_empty(zone))
		return;
	for (; block_start < zone_end_pfn(zone);
	     block_start = block_end, block_end += pageblock_nr_pages) {
		u64 start = MAX(block_start, (u64)zone->zone_start_pfn);
		u64 end = MIN(block_end, (u64)zone_end_pfn(zone));

		zone_contig_walk_steps++;
		if (!__pageblock_pfn_to_page(start, end, zone))
			return;
	}
	zone->contiguous = true;
}

void clear_zone_contiguous(struct zone *zone)
{
	zone->contiguous = false;
}

/*
 * zone_contig.h - the readers' side of zone contiguity (mm/zone_contig.c):
 * the pageblock probe the pfn scans of alloc_contig_range
 * (mm/contig_alloc.c), page isolation (mm/page_isolation.c) and offlining
 * (mm/memory_online.c) use, and what it has saved.  The flag itself and
 * the two designs that decide it are declared in include/mm/mmzone.h.
 */
#ifndef MM_ZONE_CONTIG_H
#define MM_ZONE_CONTIG_H

#include <mm/mmzone.h>

/*
 * zone_pageblock_page() - the first page of the pageblock at block_pfn
 * (pageblock aligned) if the whole pageblock lies in zone's span and has
 * an online memmap of zone, else NULL.  The span check is two compares;
 * then pageblock_pfn_to_page(): for a contiguous zone one pointer
 * computation (the per-pageblock checks are skipped and counted in
 * zone_contig_scan.skipped), otherwise __pageblock_pfn_to_page()'s checks
 * (counted in zone_contig_scan.checked).  A NULL answer says nothing more:
 * the caller runs its own detailed checks to say why.  Context: (any).
 */
struct page *zone_pageblock_page(u64 block_pfn, struct zone *zone);

/*
 * zone_range_online_in_zone() - does every pageblock of [start_pfn,
 * end_pfn) (half-open, pageblock aligned) lie in zone's span with an
 * online memmap of zone?  The offline path's check that a block is in one
 * zone (Linux's test_pages_in_a_zone()): free for a contiguous zone.
 * Context: (main).
 */
bool zone_range_online_in_zone(struct zone *zone, u64 start_pfn, u64 end_pfn);

/* Pageblocks probed by zone_pageblock_page() since boot, by outcome. */
struct zone_contig_scan_stats {
	unsigned long skipped;	/* [m] zone contiguous: no pfn_valid / zone checks */
	unsigned long checked;	/* [m] zone not contiguous: __pageblock_pfn_to_page() ran */
};
extern struct zone_contig_scan_stats zone_contig_scan;

/*
 * zone_contig_scan_trace() - one `trace contig_check` line for a scan that
 * started when zone_contig_scan was *before: who, the range, the zone, and
 * how many pageblocks skipped their checks.  Context: (main).
 */
void zone_contig_scan_trace(const char *who, u64 start_pfn, u64 end_pfn, const struct zone *zone,
			    const struct zone_contig_scan_stats *before);

#endif

/*
 * gfp.h - how to ask for pages: the page allocator's interface.
 *
 * An allocation names an order (2^order contiguous pages, aligned to their
 * size), flags (gfp_t) and optionally a preferred node.  The flags decide:
 *   - the highest zone allowed (gfp_zone): __GFP_DMA -> DMA, __GFP_DMA32 ->
 *     DMA32, __GFP_MOVABLE -> Movable, otherwise Normal;
 *   - the migratetype (gfp_migratetype): __GFP_MOVABLE -> MIGRATE_MOVABLE,
 *     otherwise MIGRATE_UNMOVABLE;
 *   - whether other nodes may be used (__GFP_THISNODE forbids it);
 *   - whether the pages are zeroed (__GFP_ZERO) and whether a failure is
 *     logged (__GFP_NOWARN suppresses it).
 * The allocator walks the preferred node's zonelist (its zones from the
 * highest allowed down, then the other nodes' by distance) and takes the
 * first zone whose free pages stay above the low watermark plus the
 * lowmem reserve for this request.
 *
 * Context: (main) or (boot, after mm_core_init).
 */
#ifndef MM_GFP_H
#define MM_GFP_H

#include <mm/mmzone.h>

typedef unsigned int gfp_t;

#define __GFP_DMA	0x01u	/* only ZONE_DMA */
#define __GFP_DMA32	0x02u	/* ZONE_DMA32 and below */
#define __GFP_MOVABLE	0x08u	/* movable: may use ZONE_MOVABLE and CMA */
#define __GFP_HIGH	0x20u	/* may dip below the min watermark (half of it) */
#define __GFP_THISNODE	0x40u	/* only the preferred node */
#define __GFP_ZERO	0x100u	/* zero the pages */
#define __GFP_NOWARN	0x200u	/* do not log a failure */
#define __GFP_NOPCP	0x400u	/* bypass the per-CPU lists (tests, measurements) */

#define GFP_KERNEL	0u
#define GFP_DMA32	__GFP_DMA32
#define GFP_MOVABLE	__GFP_MOVABLE

/* gfp_zone() - the highest zone an allocation with these flags may use. */
enum zone_type gfp_zone(gfp_t gfp);
/* gfp_migratetype() - MIGRATE_MOVABLE or MIGRATE_UNMOVABLE. */
int gfp_migratetype(gfp_t gfp);

/*
 * alloc_pages_node() - 2^order pages, refcount 1, from node nid's zonelist
 * (NUMA_NO_NODE: node 0).  Returns the first page, or NULL when no allowed
 * zone has a free block of that order above its watermark (logged unless
 * __GFP_NOWARN) or when order > MAX_PAGE_ORDER.
 */
struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned order);
struct page *alloc_pages(gfp_t gfp, unsigned order);

/*
 * alloc_pages_kept() - 2^order pages for unmovable kernel metadata that
 * lives as long as what it describes or for good (page tables, section
 * roots, file-tree chunks): from below 4 GiB first (DMA32: boot memory on
 * every machine memlab runs on; hotplug never adds memory there), else
 * from anywhere GFP_KERNEL may allocate, so such a page lands in hot-added
 * memory, which it would keep from ever being unplugged, only when low
 * memory has none.  gfp may add __GFP_ZERO and __GFP_NOWARN; zone flags
 * are its own.  Context: (main).
 */
struct page *alloc_pages_kept(gfp_t gfp, unsigned order);

/*
 * free_pages() - give back 2^order pages from alloc_pages*().  The pages are
 * checked (free_pages_prepare: memmap, refcount, type, reserved flag, zone,
 * order and alignment); if one fails, it is reported with its pfn and what
 * was wrong ("BUG: Bad page state", counted in bad_page_reports), none of
 * the pages is freed and -EINVAL is returned.  Returns 0 when the pages
 * were freed.  A caller that frees what it allocated may ignore the
 * result: the report is the diagnosis.  Context: (main)/(boot).
 */
int free_pages(struct page *page, unsigned order);

/* free_pages_nopcp() - the same straight to the buddy under zone->lock,
 * never through the pcp lists: with __GFP_NOPCP allocations, the
 * zone-lock-only design that pcp lists exist to avoid (`cpus alloc zone`
 * measures it).  Context: as free_pages(). */
int free_pages_nopcp(struct page *page, unsigned order);

/* Page poisoning: fill freed pages with a pattern, check it on allocation.
 * Off by default; hot-added memory is never poisoned. */
void page_poison_enable(bool on);
bool page_poison_enabled(void);
extern u64 page_poison_errors;	/* corrupted free pages found */
/* page_poison_check() - a poisoned free page is being handed out: clear
 * PG_poisoned and report (page_poison_errors++) the first changed byte. */
void page_poison_check(struct page *page);

/*
 * max_aligned_order() - the largest order of a naturally aligned block at
 * pfn that ends at or before end_pfn (pfn 0 counts as aligned to any
 * order), at most MAX_PAGE_ORDER.  pfn < end_pfn.  How free ranges are cut
 * into buddy blocks (boot hand-over, online, contiguous freeing).
 */
static inline unsigned max_aligned_order(u64 pfn, u64 end_pfn)
{
	unsigned order = pfn ? MIN((unsigned)__builtin_ctzll(pfn), (unsigned)MAX_PAGE_ORDER) :
			       MAX_PAGE_ORDER;

	while (pfn + (1ULL << order) > end_pfn)
		order--;
	return order;
}

#define PAGE_POISON_BYTE	0xaa

#endif

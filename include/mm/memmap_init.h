/*
 * memmap_init.h - the memmap initialisation mechanism: the old design
 * (every struct page field by field), the template design (one page
 * initialised, then copied) and the template with non-temporal stores,
 * for normal zones, holes and ZONE_DEVICE ranges with compound pages.
 *
 * The boot path and the hotplug core call memmap_init_range() and
 * init_unavailable_range() (mm/internal.h), which follow the
 * run-time switch mech_design(MECH_MEMMAP_INIT).  The *_design() variants
 * below take the design as an argument, for the tests, the benchmarks and
 * `devmem rebind ID old|new|template-nt`.
 *
 * The contract every design keeps (what the tests prove): for the same
 * arguments, the memmap bytes of the range and the pageblock flags written
 * are identical, whatever the design.  The only pfn-dependent bytes of a
 * struct page in memlab are the two lru words of a page with an empty list
 * (INIT_LIST_HEAD points them at the page itself), and for compound tails
 * the head pointer (the same for all tails of one compound).
 *
 * ZONE_DEVICE pages (memmap_init_zone_device), memlab's one device type:
 *   every page    zone ZONE_DEVICE, node nid, PG_reserved, owner = pgmap,
 *                 pageblock MIGRATE_MOVABLE at pageblock-aligned pfns
 *   4 KiB page    refcount 1 (Linux's MEMORY_DEVICE_GENERIC keeps 1: the
 *   or head       device's driver holds the page; it is never free)
 *   head          also PG_head
 *   tail          compound_head = head | 1, compound_info = 0, refcount 0
 *   first tail    compound_info = compound order (the old design writes it
 *                 after initialising the first tail, Linux's
 *                 prep_compound_head order; the templates copy the first
 *                 tail from a template that already holds it)
 *
 * Context: (boot) or (main); the range's memmap must be populated
 * (vmemmap) and nobody else may use the pages while they are initialised.
 */
#ifndef MM_MEMMAP_INIT_H
#define MM_MEMMAP_INIT_H

#include <mm/page.h>
#include <mm/mechanisms.h>
#include <lib/printer.h>

/* Compound orders memmap_init_zone_device() accepts: up to 1 GiB (PUD
 * size, devdax align=1G).  A compound larger than a section spans
 * several; the templates are rebuilt per section or per such compound. */
#define MAX_DEVICE_COMPOUND_ORDER	(30 - PAGE_SHIFT)

/*
 * memmap_init_free_range() - memmap_init_range() (the switch's design),
 * but every page is left as the boot hand-over would leave it just before
 * linking its block into a free list: refcount 0 instead of 1, the rest
 * the same.  For pages given to the buddy right after, by
 * free_pfn_range_to_buddy(FREE_RANGE_NEW | FREE_RANGE_BORN_FREE), which
 * then skips its pass over every page: each struct page is written once
 * (deferred init's sections, mm/deferred_init.c).  Context: (boot)/(main).
 */
void memmap_init_free_range(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
			    int migratetype);

/*
 * memmap_init_zone_device() - initialise the struct pages of the device
 * range [start_pfn, start_pfn + nr_pages) of node nid as ZONE_DEVICE pages
 * owned by pgmap, in compounds of 2^compound_order pages (0: 4 KiB pages,
 * 9: 2 MiB compounds, 18: 1 GiB compounds over 8 sections), as the table
 * at the top of this file says.  Uses
 * the switch (its explicit-design twin is mm's own, mm/internal.h).  The zone
 * span is the caller's business (mm/memremap.c).  Returns 0, or -EINVAL
 * if compound_order > MAX_DEVICE_COMPOUND_ORDER or start_pfn / nr_pages
 * are not multiples of the compound size (nothing written then).
 * Context: (main).
 */
int memmap_init_zone_device(u64 start_pfn, u64 nr_pages, int nid, unsigned compound_order,
			    void *pgmap);

/* Where two memmaps first differ (memmap_compare). */
struct memmap_diff {
	u64 index;		/* [o] struct page index from the start of the range */
	unsigned byte;		/* [o] byte offset in that struct page, 0..63 */
	u8 expect, got;		/* [o] the two bytes */
};

/*
 * memmap_compare() - compare nr_pages struct pages at got with those at
 * expect, byte for byte (a u64 at a time).  Returns 0 if identical, else 1
 * with *diff (if not NULL) describing the first difference.  Context: (any).
 */
int memmap_compare(const struct page *expect, const struct page *got, u64 nr_pages,
		   struct memmap_diff *diff);

/*
 * memmap_fill_pattern() - write the 64-bit pattern into every word of the
 * nr_pages struct pages at page: the equivalence checks do this before
 * each design runs, so a field a design forgets to write shows up as a
 * difference instead of keeping the previous design's value.
 */
void memmap_fill_pattern(struct page *page, u64 nr_pages, u64 pattern);

/*
 * memmap_stream_pattern() - the same with non-temporal stores (movnti),
 * then one sfence: the streaming limit the benchmarks measure against,
 * and a way to push a memmap out of the cache.  Context: (main).
 */
void memmap_stream_pattern(struct page *page, u64 nr_pages, u64 pattern);

#endif

/*
 * page_alloc.c - the zoned page allocator: which zone an allocation comes
 * from, the checks around every allocation and free, watermarks, zonelists,
 * page poisoning and the boot hand-over.  The free lists themselves are in
 * buddy.c, the per-CPU lists in pcp.c.
 *
 * An allocation, alloc_pages_node(nid, gfp, order):
 *   1. gfp gives the highest zone allowed (gfp_zone) and the migratetype
 *      (gfp_migratetype); movable requests may also use CMA pageblocks;
 *   2. walk node nid's zonelist (its zones from the highest down, then the
 *      other nodes' by distance), skipping zones above the highest allowed
 *      and, with __GFP_THISNODE, other nodes' zones;
 *   3. take the first zone whose free pages stay above its LOW watermark
 *      plus its lowmem_reserve for this request (zone_watermark_ok) and that
 *      has a block: from the pcp lists for order <= 3, else the buddy; a
 *      zone that fails while boot memory of it still waits for its memmap
 *      (deferred_init=new) is grown from it first and tried again
 *      (deferred_grow_zone(), Linux's order);
 *   4. if none, walk again against the MIN watermark (halved for
 *      __GFP_HIGH) -- Linux's slow path without reclaim or compaction --
 *      and once more after draining the pcp lists of those zones (what
 *      direct reclaim does before giving up);
 *   5. prepare the pages (prep_new_page) or log the failure.
 * A free, free_pages(page, order), checks every page (free_pages_prepare)
 * and refuses the whole free if one is wrong (-EINVAL), then gives the
 * pages to the pcp lists (order <= 3) or the buddy.
 *
 * Reference counts: every page of an allocation gets refcount 1 (Linux sets
 * it on the first page only, unless the caller uses split_page()).  So the
 * pages of one allocation may later be freed in any aligned pieces, and
 * "allocated pages have refcount >= 1" (page.h) holds page by page.
 *
 * Context: (main), or (boot) after mm_core_init's hand-over.  The buddy
 * is changed with zone->lock held, the pcp lists with their CPU's pcp
 * lock (mmzone.h, "Locks").
 */
#include "buddy_internal.h"
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <mm/deferred_init.h>
#include <mm/mm_init.h>
#include "internal.h"
#include <lib/string.h>
#include <lib/errno.h>
#include <lib/printk.h>

struct pglist_data node_data[MAX_NUMNODES];	/* [c] the array; struct pglist_data's fields say */
u8 numa_distance[MAX_NUMNODES][MAX_NUMNODES];	/* [c] */

const char *const zone_names[MAX_NR_ZONES] = {
	[ZONE_DMA] = "DMA",
	[ZONE_DMA32] = "DMA32",
	[ZONE_NORMAL] = "Normal",
	[ZONE_MOVABLE] = "Movable",
	[ZONE_DEVICE] = "Device",
};

u64 bad_page_reports;	/* [m] */
u64 page_poison_errors;	/* [m] */
static bool page_poisoning;	/* [c] */

const char *migratetype_name(int mt)
{
	static const char *const names[MIGRATE_TYPES] = {
		[MIGRATE_UNMOVABLE] = "Unmovable",
		[MIGRATE_MOVABLE] = "Movable",
		[MIGRATE_RECLAIMABLE] = "Reclaimable",
		[MIGRATE_HIGHATOMIC] = "HighAtomic",
		[MIGRATE_CMA] = "CMA",
		[MIGRATE_ISOLATE] = "Isolate",
	};

	return mt >= 0 && mt < MIGRATE_TYPES ? names[mt] : "Unknown";
}

const char *page_flag_name(enum pageflags f)
{
	static const char *const names[__NR_PAGEFLAGS] = {
		[PG_reserved] = "reserved",
		[PG_head] = "head",
		[PG_poisoned] = "poisoned",
		[PG_owner_priv] = "owner_priv",
		[PG_isolated] = "isolated",
	};

	return (unsigned)f < __NR_PAGEFLAGS ? names[f] : "unknown";
}

const char *page_type_name(const struct page *p)
{
	if (p->page_type == PAGE_TYPE_NONE)
		return "none";
	switch (p->page_type >> 24) {
	case PGTY_BUDDY: return "buddy";
	case PGTY_PCP: return "pcp";
	case PGTY_OFFLINE: return "offline";
	case PGTY_TABLE: return "table";
	default: return "unknown";
	}
}

unsigned long totalram_pages(void)
{
	struct zone *zone;
	unsigned long pages = 0;

	for_each_zone(zone)
		pages += MM_READ_ONCE(zone->managed_pages);
	return pages;
}

unsigned long global_free_pages(void)
{
	struct zone *zone;
	unsigned long pages = 0;

	for_each_zone(zone)
		pages += zone_nr_free(zone);
	return pages;
}

void zone_init_free_lists(struct zone *z)
{
	for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++) {
		struct free_area *area = &z->free_area[order];

		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			INIT_LIST_HEAD(&area->free_list[mt]);
			area->nr_free_mt[mt] = 0;
		}
		area->nr_free = 0;
	}
	spin_lock_init(&z->lock, "zone->lock");
	z->nr_free_buddy = 0;
	z->nr_free_cma = 0;
	z->nr_free_pending = 0;
	z->managed_pages = 0;	/* grows with buddy_free_boot_pages() */
	memset(&z->ev, 0, sizeof(z->ev));
	pcp_init_lists(z);
}

enum zone_type gfp_zone(gfp_t gfp)
{
	if (gfp & __GFP_DMA)
		return ZONE_DMA;
	if (gfp & __GFP_DMA32)
		return ZONE_DMA32;
	if (gfp & __GFP_MOVABLE)
		return ZONE_MOVABLE;
	return ZONE_NORMAL;
}

int gfp_migratetype(gfp_t gfp)
{
	return gfp & __GFP_MOVABLE ? MIGRATE_MOVABLE : MIGRATE_UNMOVABLE;
}

/* ---- page poisoning ------------------------------------------------------ */

void page_poison_enable(bool on) { page_poisoning = on; }
bool page_poison_enabled(void) { return page_poisoning; }

/* Fill a free page with PAGE_POISON_BYTE and remember that it was filled. */
static void poison_page(struct page *page)
{
	memset(mm_phys_to_virt(page_to_phys(page)), PAGE_POISON_BYTE, PAGE_SIZE);
	page_flag_set(page, PG_poisoned);
}

/* On allocation: is the poison of a poisoned page intact?  Report the first
 * byte that changed: someone wrote to the page while it was free. */
void page_poison_check(struct page *page)
{
	const u8 *mem = mm_phys_to_virt(page_to_phys(page));

	page_flag_clear(page, PG_poisoned);
	for (unsigned offset = 0; offset < PAGE_SIZE; offset++) {
		if (mem[offset] == PAGE_POISON_BYTE)
			continue;
		page_poison_errors++;
		pr_err("page_poison: memory corruption in free page pfn 0x%llx at offset 0x%x: byte 0x%02x, expected 0x%02x",
		       (unsigned long long)page_to_pfn(page), offset, mem[offset], PAGE_POISON_BYTE);
		return;
	}
}

/* ---- checks around allocation and free ------------------------------------ */

/* Contract in buddy.h. */
void bad_page(u64 pfn, u64 first_pfn, unsigned order, const char *when, const char *fmt, ...)
{
	char reason[128];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	bad_page_reports++;
	pr_err("BUG: Bad page state: pfn 0x%llx (%s 0x%llx, order %u): %s",
	       (unsigned long long)pfn, when, (unsigned long long)first_pfn, order, reason);
}

/* The report of a pfn that is not a page of the zone it is freed into. */
static void bad_page_not_in_zone(const struct zone *zone, u64 pfn, u64 first_pfn, unsigned order)
{
	bad_page(pfn, first_pfn, order, "freeing", "not a page of zone %s [0x%lx, 0x%lx)",
		 zone->name, zone->zone_start_pfn, zone_end_pfn(zone));
}

/* Contract in buddy_internal.h. */
int free_page_check(const struct zone *zone, const struct page *head, u64 pfn, unsigned order,
		    int refcount)
{
	const struct page *p = pfn_to_page(pfn);
	u64 first = page_to_pfn(head);

	if (!zone_spans_pfn(zone, pfn) || page_zonenum(p) != page_zonenum(head) ||
	    page_to_nid(p) != page_to_nid(head)) {
		bad_page_not_in_zone(zone, pfn, first, order);
		return -EINVAL;
	}
	if (PageReserved(p)) {
		bad_page(pfn, first, order, "freeing", "PG_reserved: never given to the allocator");
		return -EINVAL;
	}
	if (p->page_type != PAGE_TYPE_NONE) {
		bad_page(pfn, first, order, "freeing", "page_type 0x%x (%s): already free or not ours",
			 p->page_type, page_type_name(p));
		return -EINVAL;
	}
	if (p->refcount != refcount) {
		bad_page(pfn, first, order, "freeing", "refcount %d, expected %d%s", p->refcount,
			 refcount, p->refcount ? "" : " (already free?)");
		return -EINVAL;
	}
	return 0;
}

/* Contract in buddy_internal.h. */
void free_page_clean(struct page *page)
{
	page->refcount = 0;
	page->flags &= ~((1UL << PG_head) | (1UL << PG_owner_priv) | (1UL << PG_isolated));
	page->owner = NULL;
	page->index = 0;
	page->private = 0;
	if (page_poisoning)
		poison_page(page);
}

/*
 * Linux's free_pages_prepare(): may the 2^order pages at page be freed into
 * zone?  The request must be of a valid order and aligned to it; every page
 * must have a memmap and pass free_page_check() with refcount 1.  If one
 * does not, it is reported and nothing changes.  Otherwise every page is
 * cleaned (free_page_clean()).
 */
static int free_pages_prepare(struct zone *zone, struct page *page, unsigned order)
{
	u64 first = page_to_pfn(page), nr = 1ULL << order;

	if (order > MAX_PAGE_ORDER) {
		bad_page(first, first, order, "freeing", "order %u > MAX_PAGE_ORDER", order);
		return -EINVAL;
	}
	if (!IS_ALIGNED(first, nr)) {
		bad_page(first, first, order, "freeing", "pfn not aligned to order %u", order);
		return -EINVAL;
	}
	for (u64 pfn = first; pfn < first + nr; pfn++) {
		if (!pfn_valid(pfn)) {
			bad_page_not_in_zone(zone, pfn, first, order);
			return -EINVAL;
		}
		if (free_page_check(zone, page, pfn, order, 1))
			return -EINVAL;
	}
	for (u64 pfn = first; pfn < first + nr; pfn++)
		free_page_clean(pfn_to_page(pfn));
	return 0;
}

/*
 * Linux's check_new_pages() + post_alloc_hook(): the 2^order pages just
 * taken from the free lists must be unused (refcount 0, untyped, not
 * reserved); a bad one is reported and the block is dropped (leaked, as
 * Linux does).  Then check poison, give every page refcount 1, and zero
 * the memory for __GFP_ZERO.
 */
static int prep_new_page(struct page *page, unsigned order, gfp_t gfp)
{
	u64 first = page_to_pfn(page), nr = 1ULL << order;

	for (u64 pfn = first; pfn < first + nr; pfn++) {
		const struct page *p = pfn_to_page(pfn);

		if (p->refcount || p->page_type != PAGE_TYPE_NONE || PageReserved(p)) {
			bad_page(pfn, first, order, "allocating",
				 "free page in use: refcount %d, page_type 0x%x, flags 0x%lx",
				 p->refcount, p->page_type, p->flags);
			return -EINVAL;
		}
	}
	for (u64 pfn = first; pfn < first + nr; pfn++) {
		struct page *p = pfn_to_page(pfn);

		if (page_flag_test(p, PG_poisoned))
			page_poison_check(p);
		p->refcount = 1;
		p->private = 0;
		INIT_LIST_HEAD(&p->lru);
		if (gfp & __GFP_ZERO)
			memset(mm_phys_to_virt(page_to_phys(p)), 0, PAGE_SIZE);
	}
	return 0;
}

struct page *zone_alloc_pages(struct zone *z, gfp_t gfp, unsigned order)
{
	int mt = gfp_migratetype(gfp);
	unsigned alloc_flags = mt == MIGRATE_MOVABLE ? ALLOC_CMA : 0;
	struct page *page;

	if (order > MAX_PAGE_ORDER)
		return NULL;
	do {
		if (order <= PAGE_ALLOC_COSTLY_ORDER && !(gfp & __GFP_NOPCP)) {
			page = pcp_alloc(z, order, mt, alloc_flags);
		} else {
			spin_lock(&z->lock);
			page = buddy_rmqueue(z, order, mt, alloc_flags);
			spin_unlock(&z->lock);
		}
	} while (page && prep_new_page(page, order, gfp));
	if (page)
		MM_STAT_ADD(z->ev.alloc_pages[order], 1);
	return page;
}

/* zone_free_pages() with or without the pcp lists (orders up to 3). */
static int zone_free_pages_via(struct zone *z, struct page *page, unsigned order, bool via_pcp)
{
	u64 pfn = page_to_pfn(page);

	if (free_pages_prepare(z, page, order))
		return -EINVAL;
	MM_STAT_ADD(z->ev.free_pages[order], 1);
	if (order <= PAGE_ALLOC_COSTLY_ORDER && via_pcp) {
		pcp_free(z, page, order, buddy_list_mt(pfn));
	} else {
		spin_lock(&z->lock);
		buddy_free_one(z, pfn, order, buddy_list_mt(pfn), FPI_NONE);
		spin_unlock(&z->lock);
	}
	return 0;
}

int zone_free_pages(struct zone *z, struct page *page, unsigned order)
{
	return zone_free_pages_via(z, page, order, true);
}

/* free_pages() and free_pages_nopcp(): the pfn checked, then its zone's free. */
static int free_pages_via(struct page *page, unsigned order, bool via_pcp)
{
	u64 pfn = page_to_pfn(page);

	if (!pfn_valid(pfn)) {
		bad_page(pfn, pfn, order, "freeing", "no memmap for this pfn");
		return -EINVAL;
	}
	return zone_free_pages_via(page_zone(page), page, order, via_pcp);
}

/* Contract in gfp.h. */
int free_pages(struct page *page, unsigned order)
{
	return free_pages_via(page, order, true);
}

/* Contract in gfp.h. */
int free_pages_nopcp(struct page *page, unsigned order)
{
	return free_pages_via(page, order, false);
}

/* Contract in mmzone.h. */
void zone_nr_free_pending_add(struct zone *zone, long delta)
{
	spin_assert_held(&zone->lock);
	MM_BUG_ON(delta < 0 && zone->nr_free_pending < (unsigned long)-delta,
		  "zone %s: %lu pending free pages, removing %ld", zone->name,
		  zone->nr_free_pending, -delta);
	MM_WRITE_ONCE(zone->nr_free_pending, zone->nr_free_pending + (unsigned long)delta);
}

/* A boot block whose pages are already reset: counted as managed, to the
 * tail of its free list.  The one place boot hand-over grows managed_pages;
 * pending (FREE_RANGE_PENDING): counted at a lazy online already, so it
 * leaves nr_free_pending instead.  Context: zone lock, and (boot) or
 * mem_hotplug_lock or mem_resize_lock (managed_pages). */
static void link_boot_block(struct zone *zone, u64 pfn, unsigned order, bool pending)
{
	spin_assert_held(&zone->lock);
	if (pending)
		zone_nr_free_pending_add(zone, -(long)(1UL << order));
	else
		MM_WRITE_ONCE(zone->managed_pages, zone->managed_pages + (1ULL << order));	/* read unlocked */
	buddy_free_one(zone, pfn, order, buddy_list_mt(pfn), FPI_TO_TAIL);
}

/* buddy_free_boot_pages() with zone->lock held (its contract is in
 * buddy_internal.h). */
static void free_boot_pages_locked(struct zone *zone, u64 pfn, unsigned order, bool poison,
				   bool pending)
{
	u64 nr = 1ULL << order;

	MM_BUG_ON(order > MAX_PAGE_ORDER || !IS_ALIGNED(pfn, nr) || !zone_spans_pfn(zone, pfn) ||
		  !zone_spans_pfn(zone, pfn + nr - 1),
		  "pfn %#llx order %u, zone %s spans [%#lx, %#lx)", (unsigned long long)pfn, order,
		  zone->name, zone->zone_start_pfn, zone_end_pfn(zone));
	for (u64 i = 0; i < nr; i++) {
		struct page *p = pfn_to_page(pfn + i);

		MM_BUG_ON(p->page_type != PAGE_TYPE_NONE && !PageOffline(p),
			  "pfn %#llx is already %s", (unsigned long long)(pfn + i), page_type_name(p));
		page_clear_type(p);
		ClearPageReserved(p);
		p->refcount = 0;
		p->private = 0;
		if (poison)
			poison_page(p);
	}
	link_boot_block(zone, pfn, order, pending);
}

void buddy_free_boot_pages(struct zone *zone, u64 pfn, unsigned order, bool poison)
{
	spin_lock(&zone->lock);
	free_boot_pages_locked(zone, pfn, order, poison, false);
	spin_unlock(&zone->lock);
}

/* Contract in internal.h. */
void free_pfn_range_to_buddy(struct zone *zone, u64 start_pfn, u64 end_pfn, unsigned flags,
			     struct contig_free_stats *st)
{
	u64 pfn = start_pfn;

	MM_BUG_ON(start_pfn > end_pfn || (start_pfn < end_pfn && (!zone_spans_pfn(zone, start_pfn) ||
		  !zone_spans_pfn(zone, end_pfn - 1))),
		  "[%#llx, %#llx) is not a range of zone %s [%#lx, %#lx)",
		  (unsigned long long)start_pfn, (unsigned long long)end_pfn, zone->name,
		  zone->zone_start_pfn, zone_end_pfn(zone));
	MM_BUG_ON((flags & FREE_RANGE_PENDING) && !(flags & FREE_RANGE_NEW),
		  "[%#llx, %#llx): pending needs FREE_RANGE_NEW, flags %#x",
		  (unsigned long long)start_pfn, (unsigned long long)end_pfn, flags);
	MM_BUG_ON((flags & FREE_RANGE_BORN_FREE) && (flags & (FREE_RANGE_POISON | FREE_RANGE_NEW)) !=
		  FREE_RANGE_NEW, "[%#llx, %#llx): born free needs FREE_RANGE_NEW without poison, flags %#x",
		  (unsigned long long)start_pfn, (unsigned long long)end_pfn, flags);
	spin_lock(&zone->lock);
	while (pfn < end_pfn) {
		unsigned order = max_aligned_order(pfn, end_pfn);
		int mt = buddy_list_mt(pfn);

		for (u64 pb = pfn + pageblock_nr_pages; order > pageblock_order &&
		     pb < pfn + (1ULL << order); pb += pageblock_nr_pages)
			if (buddy_list_mt(pb) != mt)
				order = pageblock_order;
		if (flags & FREE_RANGE_BORN_FREE) {	/* with NEW (checked above) */
			link_boot_block(zone, pfn, order, flags & FREE_RANGE_PENDING);
		} else if (flags & FREE_RANGE_NEW) {
			free_boot_pages_locked(zone, pfn, order, flags & FREE_RANGE_POISON,
					       flags & FREE_RANGE_PENDING);
		} else {
			buddy_free_one(zone, pfn, order, mt, FPI_NONE);
		}
		if (st) {
			MM_STAT_ADD(zone->ev.free_pages[order], 1);
			st->inserts++;
			st->max_order = MAX(st->max_order, order);
			mech_trace(MECH_CONTIG_FREE, "new: pfn 0x%llx order %u (%s)",
				   (unsigned long long)pfn, order, migratetype_name(mt));
		}
		pfn += 1ULL << order;
	}
	spin_unlock(&zone->lock);
}

/* ---- watermarks ---------------------------------------------------------- */

bool zone_watermark_ok(const struct zone *z, unsigned order, unsigned long mark,
		       int highest_zoneidx, unsigned alloc_flags)
{
	/* pending free pages count: the allocator grows the zone into them
	 * (get_page_from_freelist(): deferred_grow_zone() before it falls back) */
	long free_pages = (long)zone_buddy_free_pages(z) + (long)MM_READ_ONCE(z->nr_free_pending) -
			  (long)zone_isolated_free_pages(z);
	long min = (long)mark;

	if (!(alloc_flags & ALLOC_CMA))
		free_pages -= (long)MM_READ_ONCE(z->nr_free_cma);
	free_pages -= (1L << order) - 1;	/* the request, but its first page */
	if (alloc_flags & ALLOC_HIGH)
		min -= min / 2;
	if (free_pages <= min + (long)MM_READ_ONCE(z->lowmem_reserve[highest_zoneidx]))
		return false;
	if (!order)
		return true;
	/* Enough pages; is there also a block large enough? */
	for (unsigned o = order; o <= MAX_PAGE_ORDER; o++) {
		const struct free_area *area = &z->free_area[o];

		for (int mt = 0; mt < MIGRATE_PCPTYPES; mt++)
			if (MM_READ_ONCE(area->nr_free_mt[mt]))
				return true;
		if ((alloc_flags & ALLOC_CMA) && MM_READ_ONCE(area->nr_free_mt[MIGRATE_CMA]))
			return true;
	}
	return false;
}

/*
 * The watermarks, as Linux 6.1 sets them (init_per_zone_wmark_min and the
 * functions it calls; the numbers of a real 6.1 boot are reproduced in
 * tests/host/test_buddy.c):
 *
 *   lowmem_kbytes   = 4 * sum over zones up to Normal (not Movable) of
 *                     max(managed - high watermark, 0)   (nr_free_buffer_pages)
 *   min_free_kbytes = int_sqrt(16 * lowmem_kbytes), clamped to [128, 262144],
 *                     unless a larger value was set by hand (the sysctl; on
 *                     Linux also THP's khugepaged raises it)
 *   pages_min       = min_free_kbytes / 4
 *   lowmem_pages    = managed pages of every zone (x86_64 has no highmem;
 *                     6.1 counts ZONE_MOVABLE as lowmem too)
 *   per zone:  min  = pages_min * managed / lowmem_pages
 *              gap  = max(min / 4, managed * watermark_scale_factor / 10000)
 *              low  = min + gap,  high = low + gap
 *   lowmem_reserve[j] of zone i < j = (managed of zones i+1..j) /
 *                     sysctl_lowmem_reserve_ratio[i], 0 if the ratio is 0 or
 *                     zone i has no managed pages
 *   totalreserve    = sum over zones of min(max(lowmem_reserve[]) + high, managed)
 *
 * The lowmem reserve keeps DMA/DMA32 memory from being eaten by allocations
 * that could have used a higher zone: an allocation allowed up to zone j
 * that lands in zone i must leave lowmem_reserve[j] more pages free there.
 */
/*
 * wmark_lock: every computation of the watermarks runs under it, so the
 * tunables and what is derived from them (min_free_kbytes, each zone's
 * watermark[], lowmem_reserve[], pcp batch and high, totalreserve_pages:
 * the [w] fields) are written by one computation at a time.  Readers (the
 * watermark check, the views) read without it.  Taken inside
 * mem_hotplug_lock and mem_resize_lock, outside the pcp and zone locks.
 */
static struct spinlock wmark_lock = SPINLOCK_INIT("wmark_lock");

/* The two tunables: read through get_*(), written only by set_*() below. */
static int min_free_kbytes = 1024;	/* [w] */
static int user_min_free_kbytes = -1;	/* [w] */
static int watermark_scale_factor = 10;	/* [w] */
const int sysctl_lowmem_reserve_ratio[MAX_NR_ZONES] = {
	[ZONE_DMA] = 256, [ZONE_DMA32] = 256, [ZONE_NORMAL] = 32,
	[ZONE_MOVABLE] = 0, [ZONE_DEVICE] = 0,
};
unsigned long totalreserve_pages;	/* [w] */

/* floor(sqrt(x)), digit by digit in base 4. */
static unsigned long int_sqrt(unsigned long x)
{
	unsigned long root = 0, bit = 1UL << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= root + bit) {
			x -= root + bit;
			root = (root >> 1) + bit;
		} else {
			root >>= 1;
		}
		bit >>= 2;
	}
	return root;
}

static void calculate_min_free_kbytes(void)
{
	unsigned long lowmem_pages = 0;
	struct zone *zone;
	long new_min;
	int nid;

	for_each_online_node(nid)
		for (int z = 0; z <= ZONE_NORMAL; z++) {
			zone = &NODE_DATA(nid)->node_zones[z];
			if (MM_READ_ONCE(zone->managed_pages) > zone->watermark[WMARK_HIGH])
				lowmem_pages += MM_READ_ONCE(zone->managed_pages) - zone->watermark[WMARK_HIGH];
		}
	new_min = (long)int_sqrt(lowmem_pages * (PAGE_SIZE >> 10) * 16);
	if (new_min > user_min_free_kbytes)
		min_free_kbytes = (int)MIN(MAX(new_min, 128L), 262144L);
}

static void setup_zone_wmarks(void)
{
	unsigned long pages_min = (unsigned long)min_free_kbytes >> (PAGE_SHIFT - 10);
	unsigned long lowmem_pages = 0;
	struct zone *zone;

	for_each_zone(zone)
		lowmem_pages += MM_READ_ONCE(zone->managed_pages);
	for_each_zone(zone) {
		u64 managed = MM_READ_ONCE(zone->managed_pages);
		u64 min = lowmem_pages ? (u64)pages_min * managed / lowmem_pages : 0;
		u64 gap = MAX(min / 4, managed * (u64)watermark_scale_factor / 10000);

		/* the allocator reads them without wmark_lock (zone_wmark()) */
		MM_WRITE_ONCE(zone->watermark[WMARK_MIN], min);
		MM_WRITE_ONCE(zone->watermark[WMARK_LOW], min + gap);
		MM_WRITE_ONCE(zone->watermark[WMARK_HIGH], min + 2 * gap);
	}
}

static void setup_lowmem_reserve(void)
{
	int nid;

	for_each_online_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		for (int i = 0; i < MAX_NR_ZONES; i++) {
			struct zone *zone = &pgdat->node_zones[i];
			int ratio = sysctl_lowmem_reserve_ratio[i];
			unsigned long upper_managed = 0;

			MM_WRITE_ONCE(zone->lowmem_reserve[i], 0);
			for (int j = i + 1; j < MAX_NR_ZONES; j++) {
				upper_managed += MM_READ_ONCE(pgdat->node_zones[j].managed_pages);
				MM_WRITE_ONCE(zone->lowmem_reserve[j],
					      ratio && MM_READ_ONCE(zone->managed_pages) ?
					      upper_managed / (unsigned long)ratio : 0);
			}
		}
	}
}

static void calculate_totalreserve_pages(void)
{
	int nid;

	totalreserve_pages = 0;
	for_each_online_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		pgdat->totalreserve_pages = 0;
		for (int i = 0; i < MAX_NR_ZONES; i++) {
			struct zone *zone = &pgdat->node_zones[i];
			unsigned long max = 0;

			for (int j = i; j < MAX_NR_ZONES; j++)
				max = MAX(max, zone->lowmem_reserve[j]);
			max = MIN(max + zone->watermark[WMARK_HIGH], MM_READ_ONCE(zone->managed_pages));
			pgdat->totalreserve_pages += max;
		}
		totalreserve_pages += pgdat->totalreserve_pages;
	}
}

/* Contract in mmzone.h. */
const struct spinlock *wmark_lock_stats(void)
{
	return &wmark_lock;
}

/* setup_per_zone_wmarks() with wmark_lock held. */
static void wmarks_locked(void)
{
	struct zone *zone;

	spin_assert_held(&wmark_lock);
	calculate_min_free_kbytes();
	setup_zone_wmarks();
	setup_lowmem_reserve();
	calculate_totalreserve_pages();
	for_each_zone(zone)
		if (zone->zone_pgdat && zone->zone_pgdat->online)
			zone_pcp_init(zone);
}

void setup_per_zone_wmarks(void)
{
	spin_lock(&wmark_lock);
	wmarks_locked();
	spin_unlock(&wmark_lock);
}

void mm_cpus_online_changed(void)
{
	setup_per_zone_wmarks();	/* the same watermarks; pcp sizes for the new CPU count */
}

/* Contract in buddy_internal.h. */
void setup_per_zone_wmarks_as_boot(void)
{
	struct zone *zone;

	spin_lock(&wmark_lock);
	for_each_zone(zone)
		memset(zone->watermark, 0, sizeof(zone->watermark));
	wmarks_locked();
	spin_unlock(&wmark_lock);
}

/* Contract in buddy_internal.h. */
int set_min_free_kbytes(int kbytes)
{
	if (kbytes < 0)
		return -EINVAL;
	spin_lock(&wmark_lock);
	user_min_free_kbytes = kbytes;
	min_free_kbytes = kbytes;
	wmarks_locked();
	spin_unlock(&wmark_lock);
	return 0;
}

/* Contract in buddy_internal.h. */
int get_min_free_kbytes(void)
{
	return min_free_kbytes;
}

/* Contract in buddy_internal.h. */
int set_watermark_scale_factor(int factor)
{
	if (factor < WATERMARK_SCALE_FACTOR_MIN || factor > WATERMARK_SCALE_FACTOR_MAX)
		return -EINVAL;
	spin_lock(&wmark_lock);
	watermark_scale_factor = factor;
	wmarks_locked();
	spin_unlock(&wmark_lock);
	return 0;
}

/* Contract in buddy_internal.h. */
int get_watermark_scale_factor(void)
{
	return watermark_scale_factor;
}

/* ---- zonelists ----------------------------------------------------------- */

/* Node nid's zonelist: see build_all_zonelists() in buddy.h. */
static void build_zonelist(struct pglist_data *pgdat)
{
	int order[MAX_NUMNODES], nr_nodes = 0, nid, n = 0;
	const int local = pgdat->node_id;

	/* Other online nodes by (distance, id): insertion sort, local first. */
	for_each_online_node(nid) {
		int i;

		if (nid == local)
			continue;
		for (i = nr_nodes; i > 0; i--) {
			int prev = order[i - 1];

			if (numa_distance[local][prev] <= numa_distance[local][nid])
				break;
			order[i] = prev;
		}
		order[i] = nid;
		nr_nodes++;
	}
	memmove(order + 1, order, (size_t)nr_nodes * sizeof(order[0]));
	order[0] = local;
	nr_nodes++;

	for (int i = 0; i < nr_nodes; i++)
		for (int z = MAX_NR_ZONES - 1; z >= 0; z--) {
			struct zone *zone = &NODE_DATA(order[i])->node_zones[z];

			if (z != ZONE_DEVICE && populated_zone(zone))
				MM_WRITE_ONCE(pgdat->node_zonelist.zones[n++], zone);
		}
	MM_WRITE_ONCE(pgdat->node_zonelist.zones[n], NULL);
}

/*
 * Each list rebuilt in place between two bumps of its sequence count
 * (mmzone.h, struct zonelist): walkers on other CPUs see whole entries,
 * and retry a failed walk that overlapped a rebuild.
 */
void build_all_zonelists(void)
{
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct zonelist *zl = &NODE_DATA(nid)->node_zonelist;

		/* odd: rebuilding (acquire: the entries' stores stay after it) */
		__atomic_fetch_add(&zl->seq, 1, __ATOMIC_ACQ_REL);
		if (NODE_DATA(nid)->online)
			build_zonelist(NODE_DATA(nid));
		else
			MM_WRITE_ONCE(zl->zones[0], NULL);
		__atomic_fetch_add(&zl->seq, 1, __ATOMIC_RELEASE);	/* even: done */
	}
}

/* ---- the allocator ------------------------------------------------------- */

/* The node of the CPU memlab runs on: the first online node (nodeN/cpulist). */
static int local_node(void)
{
	int nid;

	for_each_online_node(nid)
		return nid;
	return 0;
}

/*
 * zone_statistics() - count one allocation from z that preferred zone
 * `preferred` (the first eligible zone of the preferred node's zonelist),
 * as Linux's zone_statistics(): hit or miss on z, foreign on preferred,
 * local or other on z by the allocating CPU's node.  Context: any CPU, no
 * lock held (after zone_alloc_pages() returned): the counters are [a].
 */
static void zone_statistics(struct zone *preferred, struct zone *z)
{
	int nid = z->zone_pgdat->node_id;

	if (!preferred || preferred->zone_pgdat->node_id == nid) {
		MM_STAT_ADD(z->numa.hit, 1);
	} else {
		MM_STAT_ADD(z->numa.miss, 1);
		MM_STAT_ADD(preferred->numa.foreign, 1);
	}
	if (nid == local_node())
		MM_STAT_ADD(z->numa.local, 1);
	else
		MM_STAT_ADD(z->numa.other, 1);
}

/* One walk of nid's zonelist against the watermark named in alloc_flags. */
static struct page *get_page_from_freelist(int nid, gfp_t gfp, unsigned order,
					   unsigned alloc_flags)
{
	const struct zonelist *zonelist = &NODE_DATA(nid)->node_zonelist;
	int highest = (int)gfp_zone(gfp);
	struct zone *zone, *preferred = NULL;

	for (int i = 0; (zone = zonelist_zone(zonelist, i)) != NULL; i++) {
		bool other_node = zone->zone_pgdat->node_id != nid;
		struct page *page;

		if ((int)zone->idx > highest)
			continue;
		/* a zone whose boot memory all waits (deferred_init=new) */
		if (!managed_zone(zone) &&
		    ((gfp & __GFP_THISNODE && other_node) || !deferred_grow_zone(zone, order)))
			continue;
		if (!preferred)
			preferred = zone;
		if ((gfp & __GFP_THISNODE) && other_node)
			continue;
		/*
		 * Linux's order: before falling back to the next zone, grow this
		 * one from its pending boot memory (deferred_grow_zone(): false
		 * at once when nothing waits) and try it again.
		 */
		do {
			if (!zone_watermark_ok(zone, order,
					       zone_wmark(zone, alloc_flags & ALLOC_WMARK_MASK),
					       highest, alloc_flags))
				continue;
			page = zone_alloc_pages(zone, gfp, order);
			if (page) {
				zone_statistics(preferred, zone);
				return page;
			}
		} while (deferred_grow_zone(zone, order));
	}
	return NULL;
}

/* Drain the pcp lists of nid's zonelist; true if any page came back. */
static bool drain_zonelist_pcp(int nid)
{
	struct zone *zone;
	bool drained = false;

	for (int i = 0; (zone = zonelist_zone(&NODE_DATA(nid)->node_zonelist, i)) != NULL; i++) {
		if (zone_pcp_count(zone)) {
			pcp_drain_zone(zone);
			drained = true;
		}
	}
	return drained;
}

/* "GFP_KERNEL|__GFP_ZERO"-style names of the flags, for failure messages. */
static void gfp_names(gfp_t gfp, char *buf, size_t size)
{
	static const struct { gfp_t flag; const char *name; } names[] = {
		{ __GFP_DMA, "__GFP_DMA" }, { __GFP_DMA32, "__GFP_DMA32" },
		{ __GFP_MOVABLE, "__GFP_MOVABLE" }, { __GFP_HIGH, "__GFP_HIGH" },
		{ __GFP_THISNODE, "__GFP_THISNODE" }, { __GFP_ZERO, "__GFP_ZERO" },
		{ __GFP_NOWARN, "__GFP_NOWARN" }, { __GFP_NOPCP, "__GFP_NOPCP" },
	};
	size_t len = (size_t)ksnprintf(buf, size, "GFP_KERNEL");

	for (unsigned i = 0; i < ARRAY_SIZE(names) && len < size; i++)
		if (gfp & names[i].flag)
			len += (size_t)ksnprintf(buf + len, size - len, "|%s", names[i].name);
}

struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned order)
{
	unsigned cma = gfp_migratetype(gfp) == MIGRATE_MOVABLE ? ALLOC_CMA : 0;
	unsigned slow_flags = ALLOC_WMARK_MIN | cma | (gfp & __GFP_HIGH ? ALLOC_HIGH : 0);
	struct page *page = NULL;
	char names[160];

	if (nid == NUMA_NO_NODE)
		nid = 0;
	if (order <= MAX_PAGE_ORDER && nid >= 0 && nid < MAX_NUMNODES) {
		const struct zonelist *zl = &NODE_DATA(nid)->node_zonelist;
		u32 seq;

		do {	/* again if a rebuild of the zonelist overlapped the walks */
			seq = zonelist_read_begin(zl);
			page = get_page_from_freelist(nid, gfp, order, ALLOC_WMARK_LOW | cma);
			if (!page)
				page = get_page_from_freelist(nid, gfp, order, slow_flags);
			if (!page && drain_zonelist_pcp(nid))
				page = get_page_from_freelist(nid, gfp, order, slow_flags);
		} while (!page && zonelist_read_retry(zl, seq));
	}
	if (!page && !(gfp & __GFP_NOWARN)) {
		gfp_names(gfp, names, sizeof(names));
		pr_warn("page allocation failure: order:%u, mode:0x%x(%s), node:%d%s", order, gfp, names,
			nid, order > MAX_PAGE_ORDER ? " (order > MAX_PAGE_ORDER)" :
			nid < 0 || nid >= MAX_NUMNODES || !NODE_DATA(nid)->online ? " (no such node)" : "");
	}
	return page;
}

struct page *alloc_pages(gfp_t gfp, unsigned order)
{
	return alloc_pages_node(NUMA_NO_NODE, gfp, order);
}

/* Contract in include/mm/gfp.h. */
struct page *alloc_pages_kept(gfp_t gfp, unsigned order)
{
	struct page *page = alloc_pages(GFP_DMA32 | gfp, order);

	return page ? page : alloc_pages(GFP_KERNEL | gfp, order);
}

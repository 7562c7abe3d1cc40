/*
 * contig_free.c - free_contig_range() in the design Linux used until 2026
 * next to the design that replaced it, and the snapshots that prove the
 * two leave the same allocator state.  Allocating a range is in
 * contig_alloc.c.
 *
 * Freeing a range: the old design
 * -------------------------------
 * Until 2026 Linux freed a contiguous range one page at a time:
 *
 *	for each pfn: drop the reference; if it reached 0, free_pages(page, 0)
 *
 * Each order-0 free runs the whole free path: the checks of
 * free_pages_prepare(), then the per-CPU list of the page's migratetype
 * (pcp.c).  After a few hundred pages the list exceeds pcp->high and a
 * batch goes back to the buddy, where every page merges with its buddies,
 * up to ten merge steps each.  A 16384-page CMA release thus costs 16384
 * trips through the free path, about 16384 merges and 16384 / batch drains;
 * on Linux the lock round-trips of the pcp dominate the profile.
 *
 * Freeing a range: the new design ("mm/page_alloc: optimize
 * free_contig_range()", Ryan Roberts / Muhammad Usama Anjum, 2026)
 * ------------------------------------------------------------------
 * Do the per-page work once per page and the allocator work once per
 * chunk.  First every page is prepared: the checks the free path makes
 * (memmap present, page in its zone's span, not reserved, no page type,
 * not compound, refcount dropping to exactly 0) and the clean-up it does
 * (refcount 0, owner fields cleared, poison if enabled).  Pages that pass
 * form runs; a page that fails (reported as a bad page, or still
 * referenced) ends the current run and is left alone.  Then each run goes
 * to the buddy in the largest naturally aligned power-of-two chunks:
 *
 *	order = min(MAX_PAGE_ORDER, trailing zeros of pfn, floor(log2(pages left)))
 *
 * so a run [0x4003, 0x5000) becomes orders 0, 1, 2, 3, ... 9 up to the
 * first 1024-aligned pfn, then order-10 chunks, then shrinking chunks at
 * the end.  A 16384-page aligned range is 16 buddy insertions instead of
 * 16384 pcp insertions and ~16384 merges.  The chunks go straight to the
 * buddy (buddy_free_one), each on the list of its pageblock's migratetype,
 * or the isolate list when its pageblock is isolated, exactly where the
 * old path's pages end up (pcp_free sends isolated pages straight to the
 * buddy too).  A chunk larger than a pageblock whose pageblocks are on
 * different lists (a CMA pageblock beside a Movable one, an isolated one
 * beside a normal one) is freed pageblock by pageblock, as Linux's
 * split_large_buddy() does, so a free block never spans two lists.
 *
 * Runs also end where the zone changes and at every section boundary.  The
 * zone rule is needed here (a buddy is per zone).  The section rule is
 * Linux's, kept for fidelity: with classic SPARSEMEM (no vmemmap) the
 * struct pages of two sections are separate arrays, so "page + 1" is only
 * valid inside a section and a run walked by pointer must stop at the
 * boundary.  With vmemmap, as in memlab, pfn_to_page() is plain arithmetic
 * everywhere; and since a chunk is aligned and at most 1024 pages, no
 * chunk could cross a 32768-page section anyway: the rule never changes
 * which chunks are freed, it only splits the walk.
 *
 * Linux gives the chunks to __free_frozen_pages(FPI_PREPARED), which may
 * still put chunks of order <= 3 on a pcp list; memlab gives every chunk
 * to the buddy, which changes nothing in the state compared below because
 * the comparison is made after draining the pcp lists.
 *
 * The frozen variants (free_contig_frozen_range(), Linux's
 * __free_contig_frozen_range(), rewritten the same way in patch 3/3 of the
 * series) take pages whose refcount is already 0: no reference is dropped,
 * and a page with a reference is a bad page.
 *
 * Why both designs leave the same free lists
 * ------------------------------------------
 * Compare after pcp_drain_zone(): the free lists as a SET of (pfn, order,
 * migratetype) -- list order is not compared, the old path puts pages at
 * the head or tail depending on timing -- and every state counter of the
 * zone: nr_free, nr_free_cma, managed, present, cma_pages, nr_free and
 * nr_free_mt of every order, pcp.count; the struct pages of the window
 * (all fields but the list links) and its pageblock flags; and the counts
 * of the call itself (pages freed, still in use, reported bad).  Event
 * counters (merges, drains, frees per order) are not compared: they are
 * what the new design changes.
 *  1. The same pages become free.  Both designs apply the same checks to
 *     each page in the same order (no memmap, compound, extra reference
 *     -> drop only, then zone, reserved, type, refcount: free_page_check(),
 *     the function free_pages() uses), so the same pages are freed,
 *     dropped or reported, with the same struct page changes
 *     (free_page_clean(), free_pages_prepare's clean-up).
 *  2. Where each free page lands depends only on its pageblock: both
 *     designs use buddy_list_mt() of the page (old: at pcp_free and again
 *     at drain; new: per chunk, and per pageblock for large chunks).
 *  3. The buddy's final shape does not depend on the order of frees: a
 *     block of order k+1 exists iff both halves are free and may merge
 *     (same zone; across pageblocks, types that may merge), and merging
 *     is eager, so after all frees the free lists are the unique maximal
 *     decomposition of the free pages.  Freeing a 2^k chunk at once is
 *     the same as freeing its pages one by one and letting them merge.
 *  Exception, documented and tested: when two pageblocks of DIFFERENT but
 *  mergeable types (Unmovable and Movable) merge into an order-10 block,
 *  the buddy gives the whole block the type of the half freed last
 *  (buddy.c, as Linux since 6.10).  Which half is last differs between
 *  the designs, so the migratetype of such a block may differ; the set of
 *  (pfn, order) does not.  Ranges inside one pageblock type (a CMA area,
 *  a movable area) are never affected.
 *
 * The trace (`trace contig_free on`) narrates: the old design one line per
 * 512 pages (a line per page would drown the console), the new design one
 * line per chunk.
 *
 * Context: (main).  Nothing else allocates or frees while these run (one
 * CPU, never from interrupt handlers).
 */
#include "buddy_internal.h"
#include <mm/contig_alloc.h>
#include "internal.h"
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

/* ---- helpers ------------------------------------------------------------- */

/*
 * A bad page is reported as page_alloc.c's free checks report it (an
 * order-0 free of that pfn), so both designs leave the same lines in the
 * log and the same count.
 */
#define contig_bad_page(pfn, ...)	bad_page((pfn), (pfn), 0, "freeing", __VA_ARGS__)

/* The order of the compound page at head: its first tail keeps it (page.h). */
static unsigned compound_order_of(const struct page *head)
{
	return (unsigned)(head[1].compound_info & 0xff);
}

/* ---- freeing: the checks both designs make, page by page ----------------------- */

enum contig_verdict {
	CONTIG_FREE,	/* prepared (new) or freed (old): refcount 0 */
	CONTIG_IN_USE,	/* reference dropped, still referenced: left alone */
	CONTIG_BAD,	/* reported as a bad page: left alone */
};

/*
 * Before the free path proper, in both designs: a compound page is never
 * freed page by page (memlab's free path would not notice a tail, whose
 * list link is its compound_head); a page with more than one reference
 * only loses one (Linux's put_page_testzero()); a frozen page must have
 * none.  Returns CONTIG_FREE when the free path should look at the page.
 */
static enum contig_verdict contig_put_page(struct page *page, u64 pfn, bool frozen)
{
	if (PageHead(page) || PageTail(page)) {
		contig_bad_page(pfn, "compound %s: freed with free_pages() of its order, not page by page",
				PageHead(page) ? "head" : "tail");
		return CONTIG_BAD;
	}
	if (frozen) {
		if (page->refcount) {
			contig_bad_page(pfn, "refcount %d: a frozen page has none", page->refcount);
			return CONTIG_BAD;
		}
		return CONTIG_FREE;
	}
	if (page->refcount > 1) {
		page->refcount--;
		return CONTIG_IN_USE;
	}
	return CONTIG_FREE;
}

/* ---- freeing: the OLD design -------------------------------------------------- */

/*
 * Linux before 2026: every page through the whole order-0 free path.
 * free_pages() makes the zone/reserved/type/refcount checks, clears the
 * page, and puts it on the pcp list of its migratetype (or, isolated,
 * straight into the buddy); pcp_free() drains a batch into the buddy
 * whenever the lists reach pcp->high.  A frozen page gets the reference
 * the normal path expects just before (what free_frozen_pages() saves).
 * A free the path refuses (-EINVAL: it reported a bad page) counts as bad.
 */
static void free_contig_old(u64 pfn, u64 end_pfn, bool frozen, struct contig_free_stats *st)
{
	u64 seg_start = pfn, seg_freed = 0;

	for (; pfn < end_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);
		int err;

		if (!pfn_valid(pfn)) {
			free_pages(page, 0);	/* reports "no memmap", touches nothing */
			st->bad++;
		} else {
			switch (contig_put_page(page, pfn, frozen)) {
			case CONTIG_BAD:
				st->bad++;
				break;
			case CONTIG_IN_USE:
				st->in_use++;
				break;
			case CONTIG_FREE:
				if (frozen) {
					page->refcount = 1;
					err = zone_free_pages(page_zone(page), page, 0);
					if (err)
						page->refcount = 0;	/* refused: stays frozen */
				} else {
					err = free_pages(page, 0);
				}
				if (err) {
					st->bad++;
				} else {
					st->freed++;
					st->inserts++;
					seg_freed++;
				}
				break;
			}
		}
		/* The trace: one line per 512 pfns, not per page. */
		if (mech_tracing(MECH_CONTIG_FREE) &&
		    (IS_ALIGNED(pfn + 1, pageblock_nr_pages) || pfn + 1 == end_pfn)) {
			struct zone *zone = pfn_valid(pfn) ? page_zone(page) : NULL;

			mech_trace(MECH_CONTIG_FREE,
				   "old: pfns [0x%llx-0x%llx): %llu freed one by one at order 0 via the pcp lists (pcp holds %lu pages, %llu drains so far)",
				   (unsigned long long)seg_start, (unsigned long long)(pfn + 1),
				   (unsigned long long)seg_freed, zone ? zone_pcp_count(zone) : 0UL,
				   (unsigned long long)(zone ? zone->ev.pcp_drains : 0));
			seg_start = pfn + 1;
			seg_freed = 0;
		}
	}
}

/* ---- freeing: the NEW design -------------------------------------------------- */

/*
 * Prepare one page as free_pages_prepare() would: the same checks
 * (free_page_check(), with the reference the free path expects: 1, or 0
 * for a frozen page) and the same clean-up (free_page_clean()).  *zonep
 * gets the page's zone.
 */
static enum contig_verdict contig_prepare_page(struct page *page, u64 pfn, bool frozen,
					       struct zone **zonep)
{
	enum contig_verdict v = contig_put_page(page, pfn, frozen);
	struct zone *zone;

	if (v != CONTIG_FREE)
		return v;
	zone = page_zone(page);
	if (free_page_check(zone, page, pfn, 0, frozen ? 0 : 1))
		return CONTIG_BAD;
	free_page_clean(page);
	*zonep = zone;
	return CONTIG_FREE;
}

/*
 * Ryan Roberts' design: prepare every page, collect the prepared pages
 * into runs, give each run to the buddy in aligned chunks.  A run ends at
 * a page that was not prepared, where the zone changes, and at a section
 * boundary (see the essay: classic sparsemem).  pfn_valid() has subsection
 * (pageblock) granularity, so it is asked once per 512 pfns.
 */
static void free_contig_new(u64 pfn, u64 end_pfn, bool frozen, struct contig_free_stats *st)
{
	struct zone *run_zone = NULL;
	u64 run_start = pfn;
	bool valid = false;

	for (u64 first = pfn; pfn < end_pfn; pfn++) {
		struct zone *zone = NULL;

		if (pfn == first || IS_ALIGNED(pfn, PAGES_PER_SUBSECTION))
			valid = pfn_valid(pfn);
		if (IS_ALIGNED(pfn, PAGES_PER_SECTION) && run_start < pfn) {
			free_pfn_range_to_buddy(run_zone, run_start, pfn, FREE_RANGE_PREPARED, st);
			mech_trace(MECH_CONTIG_FREE, "new: section boundary at pfn 0x%llx ends the run",
				   (unsigned long long)pfn);
			run_start = pfn;
		}
		if (!valid) {
			contig_bad_page(pfn, "no memmap for this pfn");
			st->bad++;
		} else {
			switch (contig_prepare_page(pfn_to_page(pfn), pfn, frozen, &zone)) {
			case CONTIG_FREE:
				st->freed++;
				if (zone != run_zone && run_start < pfn) {
					free_pfn_range_to_buddy(run_zone, run_start, pfn, FREE_RANGE_PREPARED, st);
					run_start = pfn;
				}
				run_zone = zone;
				continue;
			case CONTIG_IN_USE:
				st->in_use++;
				break;
			case CONTIG_BAD:
				st->bad++;
				break;
			}
		}
		/* pfn is not freed: the run before it is complete. */
		if (run_start < pfn)
			free_pfn_range_to_buddy(run_zone, run_start, pfn, FREE_RANGE_PREPARED, st);
		mech_trace(MECH_CONTIG_FREE, "new: pfn 0x%llx not freed, the run is split there",
			   (unsigned long long)pfn);
		run_start = pfn + 1;
	}
	if (run_start < end_pfn)
		free_pfn_range_to_buddy(run_zone, run_start, end_pfn, FREE_RANGE_PREPARED, st);
}

/* ---- freeing: entry points ------------------------------------------------------ */

/*
 * A frozen compound page freed through the range interface: make its
 * pages plain again, so the range walk sees order-0 frozen pages.
 */
static void unmake_compound(struct page *head, unsigned order)
{
	page_flag_clear(head, PG_head);
	for (u64 i = 1; i < (1ULL << order); i++)
		INIT_LIST_HEAD(&head[i].lru);	/* clears compound_head and compound_info */
}

/* Contract in mm/internal.h. */
int free_contig_range_design(u64 pfn, u64 nr_pages, bool frozen, enum mech_design design,
			     struct contig_free_stats *stats)
{
	struct contig_free_stats local;
	struct contig_free_stats *st = stats ? stats : &local;
	const char *fn = frozen ? "free_contig_frozen_range" : "free_contig_range";

	MM_BUG_ON(pfn + nr_pages < pfn, "pfn %#llx nr_pages %llu design %d",
		  (unsigned long long)pfn, (unsigned long long)nr_pages, (int)design);

	memset(st, 0, sizeof(*st));
	if (design != DESIGN_OLD && design != DESIGN_NEW)
		return -EINVAL;
	if (!nr_pages)
		return 0;
	if (pfn_valid(pfn) && PageHead(pfn_to_page(pfn))) {
		struct page *head = pfn_to_page(pfn);
		unsigned order = compound_order_of(head);

		if (!frozen || nr_pages != 1ULL << order) {
			pr_warn("%s: pfn 0x%llx is the head of an order-%u compound page: %s; nothing freed",
				fn, (unsigned long long)pfn, order,
				frozen ? "nr_pages must be its size" : "free it with free_pages()");
			return -EINVAL;
		}
		unmake_compound(head, order);
	}
	if (design == DESIGN_OLD)
		free_contig_old(pfn, pfn + nr_pages, frozen, st);
	else
		free_contig_new(pfn, pfn + nr_pages, frozen, st);
	if (st->in_use)
		pr_warn("%s: %llu pages are still in use!", fn, (unsigned long long)st->in_use);
	return 0;
}

/* Contract in include/mm/contig_alloc.h. */
int free_contig_range_stats(u64 pfn, u64 nr_pages, bool frozen, struct contig_free_stats *stats)
{
	return free_contig_range_design(pfn, nr_pages, frozen, mech_design(MECH_CONTIG_FREE), stats);
}

void free_contig_range(u64 pfn, u64 nr_pages)
{
	free_contig_range_design(pfn, nr_pages, false, mech_design(MECH_CONTIG_FREE), NULL);
}

void free_contig_frozen_range(u64 pfn, u64 nr_pages)
{
	free_contig_range_design(pfn, nr_pages, true, mech_design(MECH_CONTIG_FREE), NULL);
}

/* ---- proving the designs equal ---------------------------------------------------- */

static u64 digest_mix(u64 h, u64 v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

void contig_snapshot_take(struct contig_snapshot *s, const struct zone *zone, u64 start_pfn,
			  u64 end_pfn, struct contig_block *blocks, unsigned max_blocks)
{
	u64 h = 0;

	MM_BUG_ON(!s || !zone || start_pfn > end_pfn, "zone %s [%#llx-%#llx)", zone ? zone->name : "-",
		  (unsigned long long)start_pfn, (unsigned long long)end_pfn);

	memset(s, 0, sizeof(*s));
	s->zone = zone;
	s->start_pfn = MAX(start_pfn, (u64)zone->zone_start_pfn);
	s->end_pfn = MIN(end_pfn, (u64)zone_end_pfn(zone));
	s->blocks = blocks;
	s->max_blocks = max_blocks;
	for (u64 pfn = s->start_pfn; pfn < s->end_pfn; pfn++) {
		const struct page *p;

		if (IS_ALIGNED(pfn, pageblock_nr_pages) || pfn == s->start_pfn) {
			if (!pfn_valid(pfn)) {
				pfn = pageblock_end_pfn(pfn) - 1;
				continue;
			}
			h = digest_mix(h, pfn);
			h = digest_mix(h, (u64)get_pageblock_migratetype(pfn) |
					  (u64)get_pageblock_isolate(pfn) << 8);
		}
		p = pfn_to_page(pfn);
		h = digest_mix(h, p->flags);
		h = digest_mix(h, (u64)p->page_type << 32 | (u32)p->refcount);
		h = digest_mix(h, p->private);
		h = digest_mix(h, (u64)(uintptr_t)p->owner);
		h = digest_mix(h, p->index);
		if (PageBuddy(p)) {
			if (s->nr_blocks < max_blocks)
				blocks[s->nr_blocks] = (struct contig_block){
					pfn, (u8)buddy_order(p), (u8)buddy_list_mt(pfn) };
			s->nr_blocks++;
		}
	}
	s->page_digest = h;
	s->nr_free = zone_nr_free(zone);
	s->nr_free_cma = zone->nr_free_cma;
	s->managed_pages = zone->managed_pages;
	s->present_pages = zone->present_pages;
	s->cma_pages = zone->cma_pages;
	for (unsigned o = 0; o < NR_PAGE_ORDERS; o++) {
		s->area_nr_free[o] = zone->free_area[o].nr_free;
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			s->area_nr_free_mt[o][mt] = zone->free_area[o].nr_free_mt[mt];
	}
	s->pcp_count = zone_pcp_count(zone);
	s->merges = zone->ev.merges;
	s->pcp_drains = zone->ev.pcp_drains;
}

static bool block_before(const struct contig_block *a, const struct contig_block *b)
{
	if (a->pfn != b->pfn)
		return a->pfn < b->pfn;
	if (a->order != b->order)
		return a->order < b->order;
	return a->mt < b->mt;
}

static bool block_equal(const struct contig_block *a, const struct contig_block *b)
{
	return a->pfn == b->pfn && a->order == b->order && a->mt == b->mt;
}

#define SNAP_COUNTER(field, name)							\
	do {										\
		if (a->field != b->field) {						\
			ksnprintf(buf, size, "%s: %lld in the first, %lld in the second", \
				  name, (long long)a->field, (long long)b->field);	\
			return 1;							\
		}									\
	} while (0)

int contig_snapshot_compare(const struct contig_snapshot *a, const struct contig_snapshot *b,
			    char *buf, size_t size)
{
	unsigned i = 0, j = 0, na = MIN(a->nr_blocks, a->max_blocks), nb = MIN(b->nr_blocks, b->max_blocks);

	buf[0] = '\0';
	if (a->zone != b->zone || a->start_pfn != b->start_pfn || a->end_pfn != b->end_pfn) {
		ksnprintf(buf, size, "the snapshots are of different windows");
		return 1;
	}
	if (a->nr_blocks > a->max_blocks || b->nr_blocks > b->max_blocks) {
		ksnprintf(buf, size, "too many free blocks to compare (%u and %u, room for %u and %u)",
			  a->nr_blocks, b->nr_blocks, a->max_blocks, b->max_blocks);
		return 1;
	}
	/* Both lists are sorted by pfn: walk them together; the first mismatch wins. */
	while (i < na || j < nb) {
		const struct contig_block *x = i < na ? &a->blocks[i] : NULL;
		const struct contig_block *y = j < nb ? &b->blocks[j] : NULL;

		if (x && y && block_equal(x, y)) {
			i++;
			j++;
			continue;
		}
		if (x && (!y || block_before(x, y))) {
			ksnprintf(buf, size, "free block (pfn 0x%llx, order %u, %s) only in the first",
				  (unsigned long long)x->pfn, x->order, migratetype_name(x->mt));
		} else {
			ksnprintf(buf, size, "free block (pfn 0x%llx, order %u, %s) only in the second",
				  (unsigned long long)y->pfn, y->order, migratetype_name(y->mt));
		}
		return 1;
	}
	SNAP_COUNTER(nr_blocks, "free blocks in the window");
	SNAP_COUNTER(nr_free, "zone nr_free");
	SNAP_COUNTER(nr_free_cma, "zone nr_free_cma");
	SNAP_COUNTER(managed_pages, "zone managed_pages");
	SNAP_COUNTER(present_pages, "zone present_pages");
	SNAP_COUNTER(cma_pages, "zone cma_pages");
	SNAP_COUNTER(pcp_count, "pcp count");
	for (unsigned o = 0; o < NR_PAGE_ORDERS; o++) {
		if (a->area_nr_free[o] != b->area_nr_free[o]) {
			ksnprintf(buf, size, "free_area[%u].nr_free: %lu in the first, %lu in the second",
				  o, a->area_nr_free[o], b->area_nr_free[o]);
			return 1;
		}
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			if (a->area_nr_free_mt[o][mt] != b->area_nr_free_mt[o][mt]) {
				ksnprintf(buf, size, "free_area[%u] %s list: %lu blocks in the first, %lu in the second",
					  o, migratetype_name(mt), a->area_nr_free_mt[o][mt],
					  b->area_nr_free_mt[o][mt]);
				return 1;
			}
	}
	if (a->page_digest != b->page_digest) {
		ksnprintf(buf, size, "struct page fields or pageblock flags differ in the window (digest 0x%llx vs 0x%llx)",
			  (unsigned long long)a->page_digest, (unsigned long long)b->page_digest);
		return 1;
	}
	return 0;
}

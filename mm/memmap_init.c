/*
 * memmap_init.c - initialising struct pages, the old way and the template
 * way, side by side.
 *
 * Every struct page must be put in a known state before anyone reads it:
 * its zone and node in flags, refcount 1, no page type, an empty list head
 * and zeros elsewhere.  Pages of a present section that have no memory
 * behind them (holes) are initialised too and marked reserved, so pfn
 * walkers can read them safely; device memory (ZONE_DEVICE) gets its own
 * variant with an owner and compound pages.
 *
 * The old design (Linux before 2026, and memlab's first one): every field
 * of every page written one by one, init_single_page(), plus the pageblock
 * migratetype at each pageblock start.  After the compiler has merged
 * what it may, nine stores per page (the refcount and the page type are
 * two volatile 32-bit stores, as Linux's atomic_set()s), a test of the
 * pfn for a pageblock start, a reload of the memmap base, and for holes
 * and device pages read-modify-writes (SetPageReserved, the owner).
 *
 * The template design (Li Zhe's 2026 series, "mm: speed up ZONE_DEVICE
 * memmap initialization" and "extend the template fast path to zone-device
 * compound tails"; memlab applies it to normal zones and holes as well):
 * initialise ONE page the old way, then copy its 64 bytes into every
 * following page and refresh only what depends on the pfn.  With a
 * vmemmap nothing in flags depends on the pfn (no section bits, no
 * page->virtual on x86_64), so what is left is:
 *   - the lru words of a page whose list is empty: INIT_LIST_HEAD points
 *     them at the page itself, so the copy stamps &page->lru into the
 *     template before each store;
 *   - for compound tails, the head pointer: the same for every tail of one
 *     compound, so ONE tail template serves a whole compound and its head
 *     word is refreshed once per compound;
 *   - the pageblock migratetype, which is not in struct page at all: it is
 *     written separately at each pageblock-aligned pfn, as before.
 * The copy is eight 64-bit stores per page, one cache line, no reads.
 * The template is rebuilt by the slow path at the start of each section,
 * which costs 1 page in 32768 and keeps every section self-contained.
 *
 * template-nt: the same copy with non-temporal stores (movnti): the line
 * goes to memory without being read into the cache first (no
 * read-for-ownership) and without evicting the cache's working set, which
 * is what Linux's memcpy_nontemporal() later did for the same copies.
 * Non-temporal stores are weakly ordered, so an sfence drains them before
 * anything reads or overwrites those pages with ordinary stores: before the
 * first tail's order is written (prep_compound_head), and before returning.
 * The slow-path pages (one per section) are written with ordinary stores.
 *
 * Equivalence: for the same arguments all three designs leave the same
 * bytes in every struct page and the same pageblock flags
 * (tests/host/test_memmap_template.c proves it over random ranges, holes
 * and device ranges; `devmem compare` proves it in the running kernel).
 *
 * Context: (boot) and (main).  One CPU: the fences order the stores
 * against later ordinary stores and make them visible to devices and
 * other observers (a debugger), not against other CPUs.
 */
#include <mm/mm_init.h>
#include <mm/memmap_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include "internal.h"
#include <lib/errno.h>
#include <lib/median.h>
#include <lib/string.h>

/* ---- a struct page as eight words --------------------------------------- */

/*
 * The copy sees a struct page as eight u64 words.  may_alias: the stores
 * go through a u64 type while the rest of mm/ reads the struct's own
 * fields, which strict aliasing would otherwise let the compiler reorder.
 */
typedef u64 __attribute__((may_alias)) page_word_t;

#define PAGE_WORDS		8
#define LRU_NEXT_WORD		(offsetof(struct page, lru.next) / sizeof(u64))
#define LRU_PREV_WORD		(offsetof(struct page, lru.prev) / sizeof(u64))
#define COMPOUND_HEAD_WORD	(offsetof(struct page, compound_head) / sizeof(u64))
#define COMPOUND_INFO_WORD	(offsetof(struct page, compound_info) / sizeof(u64))

_Static_assert(sizeof(struct page) == PAGE_WORDS * sizeof(u64),
	       "the template copy needs struct page to be whole u64 words");
_Static_assert(offsetof(struct page, lru.next) % sizeof(u64) == 0 &&
	       offsetof(struct page, lru.prev) % sizeof(u64) == 0,
	       "lru words must be word-aligned for the refresh");
_Static_assert(offsetof(struct page, compound_head) == offsetof(struct page, lru.next),
	       "compound_head overlays lru.next");
_Static_assert(offsetof(struct page, compound_info) % sizeof(u64) == 0 &&
	       sizeof(((struct page *)0)->compound_info) == sizeof(u64),
	       "the first tail's template sets compound_info as one word");

/* The 64 bytes that are copied into each page. */
struct page_template {
	u64 w[PAGE_WORDS];	/* [o] the words of a page initialised by the slow path */
};

static void template_from_page(struct page_template *t, const struct page *page)
{
	const page_word_t *s = (const page_word_t *)page;

	for (int i = 0; i < PAGE_WORDS; i++)
		t->w[i] = s[i];
}

/*
 * Eight ordinary stores, written out so the compiler keeps them as stores
 * and never turns a page copy into a call to memcpy().  The words come in
 * as values: kept in registers for the whole loop, the template is never
 * read back from memory.
 */
static inline void page_store(struct page *page, u64 w0, u64 w1, u64 w2, u64 w3, u64 w4, u64 w5,
			      u64 w6, u64 w7)
{
	page_word_t *d = (page_word_t *)page;

	d[0] = w0; d[1] = w1; d[2] = w2; d[3] = w3;
	d[4] = w4; d[5] = w5; d[6] = w6; d[7] = w7;
}

/* A 64-bit non-temporal store, from the platform header (movnti on x86). */
static inline void store_nt(page_word_t *dst, u64 v)
{
	mm_store_nt64((u64 *)dst, v);
}

static inline void page_store_nt(struct page *page, u64 w0, u64 w1, u64 w2, u64 w3, u64 w4,
				 u64 w5, u64 w6, u64 w7)
{
	page_word_t *d = (page_word_t *)page;

	store_nt(&d[0], w0); store_nt(&d[1], w1); store_nt(&d[2], w2); store_nt(&d[3], w3);
	store_nt(&d[4], w4); store_nt(&d[5], w5); store_nt(&d[6], w6); store_nt(&d[7], w7);
}

/* nt_drain() - make every earlier non-temporal store globally visible and
 * ordered before every later store (the platform's store fence). */
static inline void nt_drain(void)
{
	mm_store_fence();
}

_Static_assert(LRU_NEXT_WORD == 1 && LRU_PREV_WORD == 2,
	       "template_copy() refreshes words 1 and 2 as the lru self-pointers");

/*
 * template_copy() - t into every page of [page, end).  self_lru: the
 * template's list is empty, so each copy's lru words (1 and 2) point at
 * the destination itself instead.  The four loops are the same loop,
 * unswitched by hand so the hot path has no test in it.
 */
static void template_copy(struct page *page, struct page *end, const struct page_template *t,
			  bool self_lru, bool nt)
{
	u64 w0 = t->w[0], w1 = t->w[1], w2 = t->w[2], w3 = t->w[3];
	u64 w4 = t->w[4], w5 = t->w[5], w6 = t->w[6], w7 = t->w[7];

	if (self_lru && nt) {
		for (; page < end; page++) {
			u64 self = (u64)(uintptr_t)&page->lru;

			page_store_nt(page, w0, self, self, w3, w4, w5, w6, w7);
		}
	} else if (self_lru) {
		for (; page < end; page++) {
			u64 self = (u64)(uintptr_t)&page->lru;

			page_store(page, w0, self, self, w3, w4, w5, w6, w7);
		}
	} else if (nt) {
		for (; page < end; page++)
			page_store_nt(page, w0, w1, w2, w3, w4, w5, w6, w7);
	} else {
		for (; page < end; page++)
			page_store(page, w0, w1, w2, w3, w4, w5, w6, w7);
	}
}

/*
 * template_fill() - copy t into [start_pfn, end_pfn), a pageblock at a
 * time, setting the pageblock migratetype at each pageblock-aligned pfn
 * when migratetype >= 0 (holes: -1, none).
 */
static void template_fill(u64 start_pfn, u64 end_pfn, const struct page_template *t, bool self_lru,
			  bool nt, int migratetype)
{
	u64 pfn = start_pfn;

	while (pfn < end_pfn) {
		u64 chunk_end = MIN((u64)pageblock_end_pfn(pfn), end_pfn);

		if (migratetype >= 0 && IS_ALIGNED(pfn, pageblock_nr_pages))
			set_pageblock_migratetype(pfn, migratetype);
		template_copy(pfn_to_page(pfn), pfn_to_page(chunk_end), t, self_lru, nt);
		pfn = chunk_end;
	}
}

/* The end of the section chunk that starts at pfn, clipped to end_pfn. */
static inline u64 section_chunk_end(u64 pfn, u64 end_pfn)
{
	return MIN(ALIGN_DOWN(pfn, PAGES_PER_SECTION) + PAGES_PER_SECTION, end_pfn);
}

static const char *const design_words[] = {
	[DESIGN_OLD] = "field by field",
	[DESIGN_NEW] = "template",
	[DESIGN_NEW_NT] = "template-nt",
};

/*
 * What a range's pages are initialised as: the state the code after the
 * init expects.  IN_USE is Linux's init_single_page() (refcount 1: nobody
 * may free it by accident); HOLE adds PG_reserved (a memmap without
 * memory); FREE is the state the boot hand-over leaves a page in before it
 * links the page's block into a free list (refcount 0, see
 * memmap_init_free_range()), so that hand-over need not visit every page.
 */
enum init_state { INIT_IN_USE, INIT_HOLE, INIT_FREE };

static const char *const init_state_words[] = {
	[INIT_IN_USE] = "", [INIT_HOLE] = " (hole)", [INIT_FREE] = " (free)",
};

/* ---- the old design: field by field ------------------------------------- */

/*
 * store_once() - one store the compiler must emit as written: Linux sets
 * _refcount and _mapcount with atomic_set() and the list head with
 * WRITE_ONCE(), volatile stores, because other CPUs may read those words
 * at any time.  memlab's old design writes the same fields the same way,
 * so it keeps Linux's store stream: gcc may still drop the zero stores
 * that later stores overwrite and merge the flags, but no longer fuses
 * the refcount and the page type into one constant word.
 */
#define store_once(field, value)	(*(volatile __typeof__(field) *)&(field) = (value))

void init_single_page(struct page *page, u64 pfn, enum zone_type zone, int nid)
{
	MM_BUG_ON(zone >= MAX_NR_ZONES || (unsigned)nid >= MAX_NUMNODES, "pfn %#llx zone %d nid %d",
		  (unsigned long long)pfn, (int)zone, nid);

	(void)pfn;	/* no field depends on the pfn with a vmemmap */
	page->flags = 0;
	page->lru.next = NULL;
	page->lru.prev = NULL;
	page->owner = NULL;
	page->index = 0;
	page->private = 0;
	page->memlab_debug = 0;
	set_page_links(page, zone, nid);
	store_once(page->refcount, 1);
	store_once(page->page_type, PAGE_TYPE_NONE);
	store_once(page->lru.next, &page->lru);		/* INIT_LIST_HEAD */
	store_once(page->lru.prev, &page->lru);
}

/* ---- `trace memmap_init verbose`: the words of one page ------------------ */

static const char *const page_word_names[PAGE_WORDS] = {
	"flags", "lru.next", "lru.prev", "owner", "index", "private",
	"page_type|refcount", "memlab_debug",
};

/*
 * trace_page_words() - with the verbose trace on, the eight words of pfn's
 * struct page, one line each, after a line saying what they are.  `fixed`
 * is a mask of the words the template copy does not take from the template.
 */
static void trace_page_words(u64 pfn, const char *what, unsigned fixed)
{
	const page_word_t *w = (const page_word_t *)pfn_to_page(pfn);

	if (!mech_tracing_verbose(MECH_MEMMAP_INIT))
		return;
	mech_trace(MECH_MEMMAP_INIT, "pfn %#llx: %s", (unsigned long long)pfn, what);
	for (int i = 0; i < PAGE_WORDS; i++)
		mech_trace(MECH_MEMMAP_INIT, "  w%d %-18s 0x%016llx%s", i, page_word_names[i],
			   (unsigned long long)w[i],
			   fixed & (1u << i) ? "  (fix-up: the page's own &lru, an empty list)" : "");
}

/* The state's fix-ups on a page init_single_page() has just written. */
static inline void init_state_fixup(struct page *page, enum init_state state)
{
	if (state == INIT_HOLE)
		SetPageReserved(page);
	else if (state == INIT_FREE)
		store_once(page->refcount, 0);
}

/*
 * The old memmap_init_range()/init_unavailable_range() loop: every page
 * through init_single_page() and the state's fix-up; the pageblock
 * migratetype at aligned pfns unless migratetype < 0.  Section by section
 * only so that the trace can narrate it.
 */
static void init_range_old(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
			   int migratetype, enum init_state state)
{
	for (u64 s = start_pfn, e; s < end_pfn; s = e) {
		e = section_chunk_end(s, end_pfn);
		for (u64 pfn = s; pfn < e; pfn++) {
			struct page *page = pfn_to_page(pfn);

			init_single_page(page, pfn, zone, nid);
			init_state_fixup(page, state);
			if (migratetype >= 0 && IS_ALIGNED(pfn, pageblock_nr_pages))
				set_pageblock_migratetype(pfn, migratetype);
		}
		if (s == start_pfn && e - s > 1) {
			trace_page_words(s, "init_single_page(), field by field, as every page", 0);
			trace_page_words(s + 1, "the next page: the same but for lru, its own", 0);
		}
		mech_trace(MECH_MEMMAP_INIT, "pfn %#llx +%llu pages%s: %s, %llu slow inits",
			   (unsigned long long)s, (unsigned long long)(e - s),
			   init_state_words[state], design_words[DESIGN_OLD],
			   (unsigned long long)(e - s));
	}
}

/* ---- the template design ------------------------------------------------- */

/*
 * Per section: the first page by the slow path (which also sets its
 * pageblock), then the copy.  The slow page is written with ordinary
 * stores; with nt the copies are drained once at the end.
 */
static void init_range_template(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
				int migratetype, enum init_state state, bool nt)
{
	struct page_template t;

	for (u64 s = start_pfn, e; s < end_pfn; s = e) {
		struct page *first = pfn_to_page(s);

		e = section_chunk_end(s, end_pfn);
		init_single_page(first, s, zone, nid);
		init_state_fixup(first, state);
		if (migratetype >= 0 && IS_ALIGNED(s, pageblock_nr_pages))
			set_pageblock_migratetype(s, migratetype);
		template_from_page(&t, first);
		template_fill(s + 1, e, &t, true, nt, migratetype);
		if (s == start_pfn && e - s > 1) {
			trace_page_words(s, "init_single_page() once: the 64-byte template", 0);
			trace_page_words(s + 1, "a copy: 8 stores of the template's words",
					 (1u << LRU_NEXT_WORD) | (1u << LRU_PREV_WORD));
		}
		mech_trace(MECH_MEMMAP_INIT, "pfn %#llx +%llu pages%s: %s, 1 slow init + %llu copies",
			   (unsigned long long)s, (unsigned long long)(e - s),
			   init_state_words[state], design_words[nt ? DESIGN_NEW_NT : DESIGN_NEW],
			   (unsigned long long)(e - s - 1));
	}
	if (nt)
		nt_drain();
}

/* ---- the entry points (switch in mm/mechanisms.c) ------------------------ */

/* Is d a design of memmap_init (old, template, template-nt)? */
static bool memmap_design_valid(enum mech_design d)
{
	return (unsigned)d <= DESIGN_NEW_NT;
}

/* A normal range in the given state, by design d (one memmap_design_valid() passed). */
static void init_range_design(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
			      int migratetype, enum init_state state, enum mech_design d)
{
	MM_BUG_ON(start_pfn > end_pfn || zone >= MAX_NR_ZONES || (unsigned)nid >= MAX_NUMNODES ||
		  !memmap_design_valid(d), "[%#llx-%#llx) zone %d nid %d design %d",
		  (unsigned long long)start_pfn, (unsigned long long)end_pfn, (int)zone, nid, (int)d);

	if (d == DESIGN_OLD)
		init_range_old(start_pfn, end_pfn, zone, nid, migratetype, state);
	else
		init_range_template(start_pfn, end_pfn, zone, nid, migratetype, state,
				    d == DESIGN_NEW_NT);
}

/* Contract in mm/internal.h. */
int memmap_init_range_design(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
			     int migratetype, enum mech_design d)
{
	if (!memmap_design_valid(d))
		return -EINVAL;
	init_range_design(start_pfn, end_pfn, zone, nid, migratetype, INIT_IN_USE, d);
	return 0;
}

void memmap_init_free_range(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
			    int migratetype)
{
	init_range_design(start_pfn, end_pfn, zone, nid, migratetype, INIT_FREE,
			  mech_design(MECH_MEMMAP_INIT));
}

void memmap_init_range(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
		       int migratetype)
{
	init_range_design(start_pfn, end_pfn, zone, nid, migratetype, INIT_IN_USE,
			  mech_design(MECH_MEMMAP_INIT));
}

/* Contract in mm/internal.h. */
int init_unavailable_range_design(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
				  enum mech_design d)
{
	if (!memmap_design_valid(d))
		return -EINVAL;
	MM_BUG_ON(zone >= MAX_NR_ZONES || (unsigned)nid >= MAX_NUMNODES,
		  "[%#llx-%#llx) zone %d nid %d design %d", (unsigned long long)start_pfn,
		  (unsigned long long)end_pfn, (int)zone, nid, (int)d);

	if (end_pfn <= start_pfn)
		return 0;
	if (d == DESIGN_OLD)
		init_range_old(start_pfn, end_pfn, zone, nid, -1, INIT_HOLE);
	else
		init_range_template(start_pfn, end_pfn, zone, nid, -1, INIT_HOLE, d == DESIGN_NEW_NT);
	return 0;
}

/*
 * init_unavailable_range() - holes: pages with a memmap but no memory.
 * They get the zone and node given (the zone that spans them, or the next
 * one, as Linux) and PG_reserved, so nothing ever frees them; no pageblock
 * flags.  Returns the number of pages initialised.  Context: (boot)/(main).
 */
u64 init_unavailable_range(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid)
{
	int err = init_unavailable_range_design(start_pfn, end_pfn, zone, nid,
						mech_design(MECH_MEMMAP_INIT));

	MM_BUG_ON(err, "the switch's design %d: %d", (int)mech_design(MECH_MEMMAP_INIT), err);
	return end_pfn > start_pfn ? end_pfn - start_pfn : 0;
}

/* ---- ZONE_DEVICE: the old design ---------------------------------------- */

/*
 * Device memory is initialised a chunk at a time, each with its own
 * templates: a section, or a compound when a compound is larger than a
 * section (1 GiB: 8 sections; the vmemmap is virtually contiguous, so the
 * tails of the next sections are reached as any other tail).
 */
static inline u64 device_chunk_end(u64 pfn, u64 end_pfn, unsigned order)
{
	if (order > PFN_SECTION_SHIFT)
		return MIN(pfn + (1ULL << order), end_pfn);
	return section_chunk_end(pfn, end_pfn);
}

/*
 * init_zone_device_page() - Linux's __init_zone_device_page for memlab's
 * one device type: the normal init in ZONE_DEVICE, reserved, owned by the
 * pgmap, refcount left at 1 (see memmap_init.h), and the pageblock
 * Movable at aligned pfns, as Linux does so that pfn walkers that look at
 * pageblocks skip device memory the usual way.
 */
static void init_zone_device_page(struct page *page, u64 pfn, int nid, void *pgmap)
{
	init_single_page(page, pfn, ZONE_DEVICE, nid);
	SetPageReserved(page);
	page->owner = pgmap;
	if (IS_ALIGNED(pfn, pageblock_nr_pages))
		set_pageblock_migratetype(pfn, MIGRATE_MOVABLE);
}

/* A tail points at its head (bit 0 says "tail"), holds no order of its
 * own, and has no references: only the head is counted. */
static void prep_compound_tail(struct page *head, struct page *tail)
{
	store_once(tail->compound_head, (unsigned long)head | 1);
	tail->compound_info = 0;
	store_once(tail->refcount, 0);
}

/* The order lives in the first tail (page.h), so this must run after that
 * tail was initialised, or the tail's init would wipe it. */
static void prep_compound_head(struct page *head, unsigned order)
{
	head[1].compound_info = order;
}

/* The tails of Linux's memmap_init_compound: each tail in order, the
 * compound's order written right after the first tail.  Context: (main). */
static void init_compound_tails_old(struct page *head, u64 head_pfn, int nid, void *pgmap,
				    unsigned order)
{
	u64 end_pfn = head_pfn + (1ULL << order);

	for (u64 pfn = head_pfn + 1; pfn < end_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		init_zone_device_page(page, pfn, nid, pgmap);
		prep_compound_tail(head, page);
		if (pfn == head_pfn + 1)
			prep_compound_head(head, order);
	}
}

/* Linux's memmap_init_compound: the head's flag, then the tails. */
static void init_compound_old(struct page *head, u64 head_pfn, int nid, void *pgmap,
			      unsigned order)
{
	page_flag_set(head, PG_head);
	init_compound_tails_old(head, head_pfn, nid, pgmap, order);
}

static void init_zone_device_old(u64 start_pfn, u64 end_pfn, int nid, unsigned order,
				 void *pgmap)
{
	u64 nr = 1ULL << order;

	for (u64 s = start_pfn, e; s < end_pfn; s = e) {
		e = device_chunk_end(s, end_pfn, order);
		for (u64 pfn = s; pfn < e; pfn += nr) {
			struct page *page = pfn_to_page(pfn);

			init_zone_device_page(page, pfn, nid, pgmap);
			if (order)
				init_compound_old(page, pfn, nid, pgmap, order);
		}
		mech_trace(MECH_MEMMAP_INIT,
			   "pfn %#llx +%llu pages: device, compound order %u: %s, %llu slow inits",
			   (unsigned long long)s, (unsigned long long)(e - s), order,
			   design_words[DESIGN_OLD], (unsigned long long)(e - s));
	}
}

/* ---- ZONE_DEVICE: the template design ----------------------------------- */

/* The pageblocks that start in [pfn, end) Movable, with no struct page
 * written: the part of a compound whose struct pages the shared-vmemmap
 * design leaves to the vmemmap's aliases (the flags are not in the memmap). */
static void pageblocks_movable(u64 pfn, u64 end)
{
	for (pfn = ALIGN_UP(pfn, pageblock_nr_pages); pfn < end; pfn += pageblock_nr_pages)
		set_pageblock_migratetype(pfn, MIGRATE_MOVABLE);
}

/*
 * Per section: the first head by the slow path, which becomes the head
 * template (4 KiB pages: the only template); for compounds also the first
 * tail by the slow path, which becomes the tail template, and gets its
 * order right after.  Each following compound: the head copied (lru
 * refreshed), then the first tail and the other tails copied from two
 * tail templates stamped with this head, the first one also holding the
 * order.  So each page is written once, start to end: no tail line is
 * visited again for the order, and the movnti variant needs no sfence per
 * compound (the order is no longer an ordinary store over movnti data),
 * only the one at the end.  nr_write is the struct pages written of each
 * compound: all of them, but for the shared-vmemmap design, whose other
 * struct pages are aliases (memmap_init_zone_device_shared()).
 */
static void init_zone_device_template(u64 start_pfn, u64 end_pfn, int nid, unsigned order,
				      void *pgmap, bool nt, u64 nr_write)
{
	u64 nr = 1ULL << order;
	struct page_template head_t, tail_t, first_tail_t;

	for (u64 s = start_pfn, e; s < end_pfn; s = e) {
		struct page *head = pfn_to_page(s);

		e = device_chunk_end(s, end_pfn, order);
		init_zone_device_page(head, s, nid, pgmap);
		if (order)
			page_flag_set(head, PG_head);
		template_from_page(&head_t, head);
		if (!order) {
			template_fill(s + 1, e, &head_t, true, nt, MIGRATE_MOVABLE);
			mech_trace(MECH_MEMMAP_INIT,
				   "pfn %#llx +%llu pages: device 4 KiB: %s, 1 slow init + %llu copies",
				   (unsigned long long)s, (unsigned long long)(e - s),
				   design_words[nt ? DESIGN_NEW_NT : DESIGN_NEW],
				   (unsigned long long)(e - s - 1));
			continue;
		}

		/* the first compound: its first tail is the tail template */
		init_zone_device_page(head + 1, s + 1, nid, pgmap);
		prep_compound_tail(head, head + 1);
		template_from_page(&tail_t, head + 1);
		prep_compound_head(head, order);
		first_tail_t = tail_t;
		first_tail_t.w[COMPOUND_INFO_WORD] = order;
		template_fill(s + 2, s + nr_write, &tail_t, false, nt, MIGRATE_MOVABLE);
		pageblocks_movable(s + nr_write, s + nr);

		for (u64 h = s + nr; h < e; h += nr) {
			u64 head_word = (u64)(uintptr_t)pfn_to_page(h) | 1;

			template_fill(h, h + 1, &head_t, true, nt, MIGRATE_MOVABLE);
			first_tail_t.w[COMPOUND_HEAD_WORD] = head_word;
			tail_t.w[COMPOUND_HEAD_WORD] = head_word;
			template_fill(h + 1, h + 2, &first_tail_t, false, nt, MIGRATE_MOVABLE);
			template_fill(h + 2, h + nr_write, &tail_t, false, nt, MIGRATE_MOVABLE);
			pageblocks_movable(h + nr_write, h + nr);
		}
		mech_trace(MECH_MEMMAP_INIT,
			   "pfn %#llx +%llu pages: device, compound order %u: %s, %llu heads + %llu tails, 2 slow inits + %llu copies",
			   (unsigned long long)s, (unsigned long long)(e - s), order,
			   design_words[nt ? DESIGN_NEW_NT : DESIGN_NEW],
			   (unsigned long long)((e - s) >> order),
			   (unsigned long long)((e - s) - ((e - s) >> order)),
			   (unsigned long long)(e - s - 2));
	}
	if (nt)
		nt_drain();
}

/* Contract in mm/internal.h. */
int memmap_init_zone_device_design(u64 start_pfn, u64 nr_pages, int nid,
				   unsigned compound_order, void *pgmap, enum mech_design d)
{
	MM_BUG_ON((unsigned)nid >= MAX_NUMNODES, "pfn %#llx +%llu nid %d design %d",
		  (unsigned long long)start_pfn, (unsigned long long)nr_pages, nid, (int)d);

	if (!memmap_design_valid(d))
		return -EINVAL;
	if (compound_order > MAX_DEVICE_COMPOUND_ORDER ||
	    !IS_ALIGNED(start_pfn, 1ULL << compound_order) ||
	    !IS_ALIGNED(nr_pages, 1ULL << compound_order))
		return -EINVAL;
	if (d == DESIGN_OLD)
		init_zone_device_old(start_pfn, start_pfn + nr_pages, nid, compound_order, pgmap);
	else
		init_zone_device_template(start_pfn, start_pfn + nr_pages, nid, compound_order,
					  pgmap, d == DESIGN_NEW_NT, 1ULL << compound_order);
	return 0;
}

/*
 * head_copy() - one compound head from the head template t: the pageblock
 * Movable first if the head starts one (so no pointer lives across that
 * call), then the template's eight words straight to the page, the lru
 * pointed at the page itself (an empty list).  Eight stores of registers
 * against the old design's eleven stores and a read-modify-write
 * (init_zone_device_page() and page_flag_set()), and no per-call set-up
 * (template_fill()'s pageblock chunking and loop).  Returns the head.
 * Context: the caller's, (main).
 */
static inline struct page *head_copy(u64 head_pfn, const struct page_template *t)
{
	struct page *head;
	u64 self;

	if (IS_ALIGNED(head_pfn, pageblock_nr_pages))
		set_pageblock_migratetype(head_pfn, MIGRATE_MOVABLE);
	head = pfn_to_page(head_pfn);
	self = (u64)(uintptr_t)&head->lru;
	page_store(head, t->w[0], self, self, t->w[3], t->w[4], t->w[5], t->w[6], t->w[7]);
	return head;
}

/*
 * The seed's first step alone ("speed up ZONE_DEVICE memmap
 * initialization"): heads and 4 KiB pages copied from a template, every
 * tail still initialised the old way (the tails of Linux's
 * memmap_init_compound(); the template already holds PG_head).  4 KiB
 * pages: per section, the first page by the slow path, the rest
 * template_fill(), as the template design.  Compounds: the first head of
 * the range by the slow path becomes the head template, and every later
 * head, in any section, is head_copy()'d from it (nothing in a head's
 * words depends on its section with a vmemmap; with 1 GiB compounds each
 * section chunk is one compound, so a template per chunk would cost a
 * slow head plus the template's copy for every head).  Context: (main).
 */
static void init_zone_device_head_template(u64 start_pfn, u64 end_pfn, int nid, unsigned order,
					   void *pgmap)
{
	u64 nr = 1ULL << order;
	struct page_template head_t;

	for (u64 s = start_pfn, e; s < end_pfn; s = e) {
		u64 h = s;

		e = device_chunk_end(s, end_pfn, order);
		if (!order || s == start_pfn) {
			struct page *head = pfn_to_page(s);

			init_zone_device_page(head, s, nid, pgmap);
			if (order)
				page_flag_set(head, PG_head);
			template_from_page(&head_t, head);
		}
		if (!order) {
			template_fill(s + 1, e, &head_t, true, false, MIGRATE_MOVABLE);
			continue;
		}
		if (s == start_pfn) {
			init_compound_tails_old(pfn_to_page(s), s, nid, pgmap, order);
			h += nr;
		}
		for (; h < e; h += nr)
			init_compound_tails_old(head_copy(h, &head_t), h, nid, pgmap, order);
		mech_trace(MECH_MEMMAP_INIT,
			   "pfn %#llx +%llu pages: device, compound order %u: head template, %llu heads copied, %llu tails field by field",
			   (unsigned long long)s, (unsigned long long)(e - s), order,
			   (unsigned long long)((e - s) >> order),
			   (unsigned long long)((e - s) - ((e - s) >> order)));
	}
}

/* Contract in mm/internal.h. */
int memmap_init_zone_device_head_template(u64 start_pfn, u64 nr_pages, int nid,
					  unsigned compound_order, void *pgmap)
{
	MM_BUG_ON((unsigned)nid >= MAX_NUMNODES, "pfn %#llx +%llu nid %d",
		  (unsigned long long)start_pfn, (unsigned long long)nr_pages, nid);

	if (compound_order > MAX_DEVICE_COMPOUND_ORDER ||
	    !IS_ALIGNED(start_pfn, 1ULL << compound_order) ||
	    !IS_ALIGNED(nr_pages, 1ULL << compound_order))
		return -EINVAL;
	init_zone_device_head_template(start_pfn, start_pfn + nr_pages, nid, compound_order, pgmap);
	return 0;
}

/* Contract in mm/internal.h. */
int memmap_init_zone_device_shared(u64 start_pfn, u64 nr_pages, int nid, unsigned compound_order,
				   void *pgmap, u64 nr_unique)
{
	MM_BUG_ON((unsigned)nid >= MAX_NUMNODES, "pfn %#llx +%llu nid %d",
		  (unsigned long long)start_pfn, (unsigned long long)nr_pages, nid);

	if (compound_order > MAX_DEVICE_COMPOUND_ORDER || nr_unique < 2 ||
	    nr_unique > (1ULL << compound_order) ||
	    !IS_ALIGNED(start_pfn, 1ULL << compound_order) ||
	    !IS_ALIGNED(nr_pages, 1ULL << compound_order))
		return -EINVAL;
	init_zone_device_template(start_pfn, start_pfn + nr_pages, nid, compound_order, pgmap,
				  false, nr_unique);
	return 0;
}

int memmap_init_zone_device(u64 start_pfn, u64 nr_pages, int nid, unsigned compound_order,
			    void *pgmap)
{
	return memmap_init_zone_device_design(start_pfn, nr_pages, nid, compound_order, pgmap,
					      mech_design(MECH_MEMMAP_INIT));
}

/* ---- equivalence --------------------------------------------------------- */

int memmap_compare(const struct page *expect, const struct page *got, u64 nr_pages,
		   struct memmap_diff *diff)
{
	const page_word_t *a = (const page_word_t *)expect, *b = (const page_word_t *)got;
	u64 nr_words = nr_pages * PAGE_WORDS;

	for (u64 i = 0; i < nr_words; i++) {
		unsigned byte = 0;

		if (a[i] == b[i])
			continue;
		while (((a[i] ^ b[i]) >> (8 * byte)) % 256 == 0)
			byte++;
		if (diff) {
			diff->index = i / PAGE_WORDS;
			diff->byte = (unsigned)(i % PAGE_WORDS) * 8 + byte;
			diff->expect = (u8)(a[i] >> (8 * byte));
			diff->got = (u8)(b[i] >> (8 * byte));
		}
		return 1;
	}
	return 0;
}

void memmap_fill_pattern(struct page *page, u64 nr_pages, u64 pattern)
{
	struct page_template t;

	MM_BUG_ON(!page && nr_pages, "page NULL, %llu pages", (unsigned long long)nr_pages);

	for (int i = 0; i < PAGE_WORDS; i++)
		t.w[i] = pattern;
	template_copy(page, page + nr_pages, &t, false, false);
}

void memmap_stream_pattern(struct page *page, u64 nr_pages, u64 pattern)
{
	struct page_template t;

	MM_BUG_ON(!page && nr_pages, "page NULL, %llu pages", (unsigned long long)nr_pages);

	for (int i = 0; i < PAGE_WORDS; i++)
		t.w[i] = pattern;
	template_copy(page, page + nr_pages, &t, false, true);
	nt_drain();
}

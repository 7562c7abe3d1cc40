/*
 * ktest_mm.c - in-kernel self-tests of the memory core (`selftest mm`).
 *
 * Two kinds of cases:
 *  - read-only checks of the live state: the memmap's pfn <-> page
 *    arithmetic, pfn_valid() on holes, zone spans inside node spans, and
 *    the buddy free lists (every listed block is a PageBuddy head of the
 *    list's order, aligned, in the zone, on the list of its pageblock's
 *    type; counters equal list lengths);
 *  - cases that use the live allocator and leave it as they found it: each
 *    order allocated and freed with the free counts checked around it,
 *    __GFP_ZERO, and a private zone built over one borrowed order-9 block
 *    (buddy.h's "private zone" seam), in which the buddy and the pcp lists
 *    run without touching any live zone; the block is given back at the
 *    end.  memlab's zone_nr_free(zone) counts pcp pages too (mmzone.h), so the
 *    global free count comes back exactly after a free, whatever the pcp
 *    lists did.
 *
 * Reports are capped (EXPECT_FEW) so a broken invariant over a million pages
 * prints a few lines, not a million.  Context: (main), nothing else
 * allocating meanwhile.
 */
#include <kernel/ktest.h>
#include <lib/string.h>
#include "../../mm/buddy_internal.h"
#include <mm/memblock.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>

/* ---- the live allocator, used and left as it was --------------------------- */

static void alloc_one_order(struct ktest *t, gfp_t gfp, unsigned order)
{
	unsigned long before = global_free_pages(), zone_mid;
	u64 nr = 1ULL << order, pfn;
	struct page *page = alloc_pages(gfp | __GFP_NOWARN, order);
	struct zone *zone;
	int bad = 0;

	if (!page) {
		ktest_fail(t, __FILE__, __LINE__, "order %u (gfp %#x): no block", order, gfp);
		return;
	}
	pfn = page_to_pfn(page);
	zone = page_zone(page);
	KTEST_EXPECT(t, IS_ALIGNED(pfn, nr));
	KTEST_EXPECT(t, zone_spans_pfn(zone, pfn) && zone_spans_pfn(zone, pfn + nr - 1));
	KTEST_EXPECT(t, (int)page_zonenum(page) <= (int)gfp_zone(gfp));
	KTEST_EXPECT_EQ(t, global_free_pages(), before - nr);
	for (u64 i = 0; i < nr; i++)
		KTEST_EXPECT_FEW(t, bad, page[i].refcount == 1 && page[i].page_type == PAGE_TYPE_NONE &&
			   !PageReserved(&page[i]), "pfn %#llx order %u",
			   (unsigned long long)(pfn + i), order);
	zone_mid = zone_nr_free(zone);
	free_pages(page, order);
	KTEST_EXPECT_EQ(t, zone_nr_free(zone), zone_mid + nr);
	KTEST_EXPECT_EQ(t, global_free_pages(), before);
}

/* Every order, unmovable and movable: the free count drops by 2^order and comes back. */
static void alloc_free_each_order(struct ktest *t)
{
	for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++) {
		alloc_one_order(t, GFP_KERNEL, order);
		alloc_one_order(t, GFP_MOVABLE, order);
	}
	KTEST_EXPECT(t, alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_PAGE_ORDER + 1) == NULL);
}

/*
 * Dirty a block, free it, then ask for the same order with __GFP_ZERO: the
 * allocator hands the most recently freed block out first, so this usually
 * gets the dirty block back; either way every byte must be zero.
 */
static void gfp_zero_zeroes(struct ktest *t)
{
	const unsigned order = 2;
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
	const u64 *word;
	int bad = 0;

	KTEST_ASSERT(t, page != NULL);
	memset(mm_phys_to_virt(page_to_phys(page)), 0x5a, PAGE_SIZE << order);
	free_pages(page, order);
	page = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN, order);
	KTEST_ASSERT(t, page != NULL);
	word = mm_phys_to_virt(page_to_phys(page));
	for (u64 i = 0; i < (PAGE_SIZE << order) / 8; i++)
		KTEST_EXPECT_FEW(t, bad, word[i] == 0, "word %llu of pfn %#llx is %#llx",
			   (unsigned long long)i, (unsigned long long)page_to_pfn(page),
			   (unsigned long long)word[i]);
	free_pages(page, order);
}

/* ---- the memmap ------------------------------------------------------------- */

/* pfn -> page -> pfn, and the page's node and zone, at a few pfns of every section. */
static void pfn_page_round_trip(struct ktest *t)
{
	u64 nr = 0, checked = 0;
	int bad = 0;

	for (; sparse_next_present(&nr); nr++) {
		u64 start = section_nr_to_pfn(nr);
		const u64 probes[] = { start, start + 1, start + 12345, start + PAGES_PER_SECTION - 1 };

		for (unsigned i = 0; i < ARRAY_SIZE(probes); i++) {
			u64 pfn = probes[i];
			struct page *page;
			int nid;

			if (!pfn_valid(pfn))
				continue;
			page = pfn_to_page(pfn);
			checked++;
			KTEST_EXPECT_FEW(t, bad, page_to_pfn(page) == pfn, "pfn %#llx", (unsigned long long)pfn);
			KTEST_EXPECT_FEW(t, bad, page_to_phys(page) == PFN_PHYS(pfn), "pfn %#llx",
				   (unsigned long long)pfn);
			if (!memblock_is_memory(&memblock, PFN_PHYS(pfn)))
				continue;	/* a hole: its zone and node are a convention */
			nid = memblock_nid_of(&memblock, PFN_PHYS(pfn));
			KTEST_EXPECT_FEW(t, bad, page_to_nid(page) == nid, "pfn %#llx: node %d, memblock says %d",
				   (unsigned long long)pfn, page_to_nid(page), nid);
			KTEST_EXPECT_FEW(t, bad, zone_spans_pfn(page_zone(page), pfn),
				   "pfn %#llx: zone %s [%#lx-%#lx)", (unsigned long long)pfn,
				   zone_names[page_zonenum(page)], page_zone(page)->zone_start_pfn,
				   zone_end_pfn(page_zone(page)));
		}
	}
	KTEST_EXPECT(t, checked > 0);
}

/*
 * pfn_valid() follows sections: false beyond the address space and in
 * absent sections, true in the holes of early sections (which have struct
 * pages, initialised as reserved).
 */
static void pfn_valid_holes(struct ktest *t)
{
	u64 nr = 0, highest = 0, hole_pfn = 0;
	bool found_absent = false, found_hole = false;

	KTEST_EXPECT(t, !pfn_valid(MAX_PFN));
	KTEST_EXPECT(t, !pfn_valid(~0ULL));
	KTEST_EXPECT(t, pfn_to_online_page(MAX_PFN) == NULL);
	for (; sparse_next_present(&nr); nr++)
		highest = nr;
	KTEST_EXPECT(t, !pfn_valid(section_nr_to_pfn(highest + 1)));
	for (nr = 0; nr < highest && !found_absent; nr++) {
		if (present_section(__nr_to_section(nr)))
			continue;
		found_absent = true;
		KTEST_EXPECT(t, !pfn_valid(section_nr_to_pfn(nr)));
		KTEST_EXPECT(t, !pfn_valid(section_nr_to_pfn(nr + 1) - 1));
		KTEST_EXPECT(t, pfn_to_online_page(section_nr_to_pfn(nr)) == NULL);
	}
	/*
	 * A hole in boot memory inside an early section: between two memblock
	 * memory regions (the 640 KiB - 1 MiB legacy hole on a PC) or after
	 * the last one, up to the end of its section.
	 */
	for (u32 i = 0; i < memblock.memory.cnt && !found_hole; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		u64 gap = PFN_UP(r->base + r->size);
		u64 next = i + 1 < memblock.memory.cnt ? PFN_DOWN(memblock.memory.regions[i + 1].base) :
			   ALIGN_UP(gap, PAGES_PER_SECTION);

		if (gap < next && early_section(__pfn_to_section(gap))) {
			found_hole = true;
			hole_pfn = gap;
		}
	}
	if (found_hole) {
		KTEST_EXPECT(t, pfn_valid(hole_pfn));
		KTEST_EXPECT(t, PageReserved(pfn_to_page(hole_pfn)));
	}
	if (!found_absent && !found_hole)
		ktest_skip(t, "no absent section and no hole below the top of memory");
}

/* ---- nodes and zones -------------------------------------------------------- */

static void zone_spans_inside_nodes(struct ktest *t)
{
	int nid, nodes = 0;

	for_each_online_node(nid) {
		const struct pglist_data *pgdat = NODE_DATA(nid);
		unsigned long present = 0;
		int prev = -1;

		nodes++;
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			const struct zone *zone = &pgdat->node_zones[z];

			present += zone->present_pages;
			KTEST_EXPECT(t, zone->managed_pages <= zone->present_pages);
			KTEST_EXPECT(t, zone->present_pages <= zone->spanned_pages);
			KTEST_EXPECT(t, zone_nr_free(zone) <= zone->managed_pages);
			if (zone_is_empty(zone))
				continue;
			KTEST_EXPECT(t, zone->zone_pgdat == pgdat);
			KTEST_EXPECT(t, zone->zone_start_pfn >= pgdat->node_start_pfn);
			KTEST_EXPECT(t, zone_end_pfn(zone) <= pgdat_end_pfn(pgdat));
			/* zones follow each other in address order, without overlap */
			if (prev >= 0)
				KTEST_EXPECT(t, zone_end_pfn(&pgdat->node_zones[prev]) <= zone->zone_start_pfn);
			prev = z;
		}
		KTEST_EXPECT_EQ(t, present, pgdat->node_present_pages);
		KTEST_EXPECT(t, pgdat->node_present_pages <= pgdat->node_spanned_pages);
	}
	KTEST_EXPECT(t, nodes >= 1);
}

/* ---- the free lists ------------------------------------------------------- */

/* Check one zone's free and pcp lists; returns the free pages found. */
static unsigned long check_zone_lists(struct ktest *t, struct zone *zone)
{
	unsigned long pages = 0, pcp_pages = 0, cap = zone->managed_pages + 1;
	int bad = 0;

	for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++) {
		const struct free_area *area = &zone->free_area[order];
		unsigned long blocks = 0;

		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			const struct list_head *head = &area->free_list[mt];
			unsigned long n = 0;

			for (const struct list_head *pos = head->next; pos != head && n < cap;
			     pos = pos->next, n++) {
				struct page *page = list_entry(pos, struct page, lru);
				u64 pfn = page_to_pfn(page);

				KTEST_EXPECT_FEW(t, bad, PageBuddy(page) && buddy_order(page) == order,
					   "zone %s order %u: pfn %#llx type %#x private %lu", zone->name,
					   order, (unsigned long long)pfn, page->page_type, page->private);
				KTEST_EXPECT_FEW(t, bad, IS_ALIGNED(pfn, 1ULL << order), "zone %s order %u: pfn %#llx",
					   zone->name, order, (unsigned long long)pfn);
				KTEST_EXPECT_FEW(t, bad, zone_spans_pfn(zone, pfn) &&
					   zone_spans_pfn(zone, pfn + (1ULL << order) - 1),
					   "zone %s: block at pfn %#llx order %u", zone->name,
					   (unsigned long long)pfn, order);
				KTEST_EXPECT_FEW(t, bad, page_zone(page) == zone, "pfn %#llx: zone bits say %s/%d",
					   (unsigned long long)pfn, zone_names[page_zonenum(page)],
					   page_to_nid(page));
				KTEST_EXPECT_FEW(t, bad, buddy_list_mt(pfn) == mt,
					   "zone %s order %u: pfn %#llx on the %s list, pageblock says %s",
					   zone->name, order, (unsigned long long)pfn, migratetype_name(mt),
					   migratetype_name(buddy_list_mt(pfn)));
			}
			KTEST_EXPECT_FEW(t, bad, n == area->nr_free_mt[mt],
				   "zone %s order %u %s: %lu on the list, counter %lu", zone->name, order,
				   migratetype_name(mt), n, area->nr_free_mt[mt]);
			blocks += n;
		}
		KTEST_EXPECT_FEW(t, bad, blocks == area->nr_free, "zone %s order %u: %lu blocks, nr_free %lu",
			   zone->name, order, blocks, area->nr_free);
		pages += blocks << order;
	}
	for (unsigned idx = 0; idx < NR_PCP_LISTS; idx++) {
		const struct list_head *head = &zone_pcp(zone, 0)->lists[idx];
		unsigned order = idx / MIGRATE_PCPTYPES;
		unsigned long n = 0;

		for (const struct list_head *pos = head->next; pos != head && n < cap;
		     pos = pos->next, n++) {
			struct page *page = list_entry(pos, struct page, lru);

			KTEST_EXPECT_FEW(t, bad, PagePcp(page) && page->private == order,
				   "zone %s pcp list %u: pfn %#llx type %#x private %lu", zone->name, idx,
				   (unsigned long long)page_to_pfn(page), page->page_type, page->private);
			pcp_pages += 1UL << order;
		}
	}
	KTEST_EXPECT_EQ(t, pcp_pages, (unsigned long)zone_pcp_count(zone));
	KTEST_EXPECT_EQ(t, zone_nr_free(zone), pages + pcp_pages);
	return pages + pcp_pages;
}

static void buddy_lists_consistent(struct ktest *t)
{
	unsigned long free = 0;
	int nid;

	for_each_online_node(nid)
		for (int z = 0; z < MAX_NR_ZONES; z++)
			if (populated_zone(&NODE_DATA(nid)->node_zones[z]))
				free += check_zone_lists(t, &NODE_DATA(nid)->node_zones[z]);
	KTEST_EXPECT_EQ(t, free, global_free_pages());
}

/* totalram_pages() and global_free_pages() are the sums over the online nodes' zones. */
static void global_counters_are_zone_sums(struct ktest *t)
{
	unsigned long managed = 0, free = 0;
	int nid;

	for_each_online_node(nid)
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			managed += NODE_DATA(nid)->node_zones[z].managed_pages;
			free += zone_nr_free(&NODE_DATA(nid)->node_zones[z]);
		}
	KTEST_EXPECT_EQ(t, totalram_pages(), managed);
	KTEST_EXPECT_EQ(t, global_free_pages(), free);
}

/* The same checks after the cases above allocated and freed. */
static void buddy_lists_consistent_after(struct ktest *t)
{
	buddy_lists_consistent(t);
}

/* ---- a private zone over a borrowed block ------------------------------- */

#define PZ_ORDER	pageblock_order
#define PZ_PAGES	(1UL << PZ_ORDER)

static struct zone private_zone;
static struct page *pz_pages[PZ_PAGES];	/* what the case holds from the private zone */
static unsigned pz_orders[PZ_PAGES];	/* and the order of each */

/* Only the private zone's free counters, in order: blocks per order. */
static bool pz_is_one_free_block(const struct zone *z)
{
	for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++)
		if (z->free_area[order].nr_free != (order == PZ_ORDER ? 1UL : 0UL))
			return false;
	return zone_nr_free(z) == PZ_PAGES && zone_pcp_count(z) == 0;
}

/*
 * Borrow one pageblock-sized block from the live allocator and make it a
 * zone of its own: the buddy and the pcp lists then run over 512 pages
 * that no live zone can see (buddy merges never look outside a zone's
 * span).  Inside it: take every page one by one, give them back in a
 * scrambled order and check that they merge into one block again; then a
 * mix of orders.  At the end the whole block is allocated from the private
 * zone and freed to the live allocator, whose free count must be back
 * where it was.
 */
static void private_zone_alloc_free(struct ktest *t)
{
	struct zone *z = &private_zone;
	unsigned long live_before = global_free_pages();
	/* movable: takes a Movable pageblock as it is, steals nothing */
	struct page *block = alloc_pages(GFP_MOVABLE | __GFP_NOWARN, PZ_ORDER);
	static const unsigned mix[] = { 3, 0, 5, 1, 8, 0, 2, 4 };
	unsigned long held = 0, mix_pages = 0;
	u64 pfn;
	gfp_t gfp;
	int mt;

	KTEST_ASSERT(t, block != NULL);
	pfn = page_to_pfn(block);
	mt = buddy_list_mt(pfn);
	/* ask for the block's own type, so no fallback changes its pageblock */
	gfp = (mt == MIGRATE_MOVABLE ? GFP_MOVABLE : GFP_KERNEL) | __GFP_NOWARN;

	memset(z, 0, sizeof(*z));
	z->name = "ktest";
	z->idx = page_zonenum(block);
	zone_init_free_lists(z);
	z->zone_start_pfn = pfn;
	z->spanned_pages = z->present_pages = PZ_PAGES;
	buddy_free_boot_pages(z, pfn, PZ_ORDER, false);
	KTEST_EXPECT_EQ(t, z->managed_pages, PZ_PAGES);
	KTEST_EXPECT(t, pz_is_one_free_block(z));
	KTEST_EXPECT_EQ(t, global_free_pages(), live_before - PZ_PAGES);

	/* Every page, one by one, through the pcp lists; then nothing is left. */
	for (held = 0; held < PZ_PAGES; held++) {
		pz_pages[held] = zone_alloc_pages(z, gfp, 0);
		if (!pz_pages[held])
			break;
	}
	KTEST_EXPECT_EQ(t, held, PZ_PAGES);
	KTEST_EXPECT(t, zone_alloc_pages(z, gfp, 0) == NULL);
	KTEST_EXPECT_EQ(t, zone_nr_free(z), 0);
	/* Back in a scrambled order: i * 197 mod 512 visits every index once
	 * (197 is odd); after a short count, simply in order. */
	for (unsigned long i = 0; i < held; i++) {
		unsigned long j = held == PZ_PAGES ? (i * 197) % PZ_PAGES : i;

		KTEST_EXPECT_EQ(t, zone_free_pages(z, pz_pages[j], 0), 0);
	}
	pcp_drain_zone(z);
	KTEST_EXPECT(t, pz_is_one_free_block(z));

	/* A mix of orders: split on the way down, merged on the way back. */
	held = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(mix); i++) {
		struct page *page = zone_alloc_pages(z, gfp | __GFP_NOPCP, mix[i]);

		KTEST_EXPECT(t, page != NULL);
		if (!page)
			continue;
		KTEST_EXPECT(t, IS_ALIGNED(page_to_pfn(page), 1ULL << mix[i]));
		KTEST_EXPECT(t, page_to_pfn(page) >= pfn &&
			     page_to_pfn(page) + (1ULL << mix[i]) <= pfn + PZ_PAGES);
		pz_pages[held] = page;
		pz_orders[held++] = mix[i];
		mix_pages += 1UL << mix[i];
		KTEST_EXPECT_EQ(t, zone_nr_free(z), PZ_PAGES - mix_pages);
	}
	for (unsigned long i = 0; i < held; i++)
		KTEST_EXPECT_EQ(t, zone_free_pages(z, pz_pages[i], pz_orders[i]), 0);
	pcp_drain_zone(z);
	KTEST_EXPECT(t, pz_is_one_free_block(z));

	/* Give the block back to the live allocator, whole. */
	block = zone_alloc_pages(z, gfp, PZ_ORDER);
	KTEST_ASSERT(t, block != NULL);
	KTEST_EXPECT_EQ(t, page_to_pfn(block), pfn);
	KTEST_EXPECT_EQ(t, zone_nr_free(z), 0);
	free_pages(block, PZ_ORDER);
	KTEST_EXPECT_EQ(t, global_free_pages(), live_before);
}

static const struct ktest_case mm_cases[] = {
	KTEST_CASE(global_counters_are_zone_sums),
	KTEST_CASE(pfn_page_round_trip),
	KTEST_CASE(pfn_valid_holes),
	KTEST_CASE(zone_spans_inside_nodes),
	KTEST_CASE(buddy_lists_consistent),
	KTEST_CASE(alloc_free_each_order),
	KTEST_CASE(gfp_zero_zeroes),
	KTEST_CASE(private_zone_alloc_free),
	KTEST_CASE(buddy_lists_consistent_after),
};

KTEST_SUITE(mm, "mm", mm_cases);

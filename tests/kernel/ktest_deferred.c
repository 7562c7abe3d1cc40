/*
 * ktest_deferred.c - `selftest deferred`: the live machine's deferred
 * memmap init state (include/mm/deferred_init.h) agrees with itself, with
 * the sections and with the zones, whichever design the boot ran and
 * however far the work has come.  Read-only, except the last case, which
 * initialises one pending section if there is one (what the background
 * work would do next) and checks the counters moved by exactly it.
 * Reports are capped so a broken rule over many pages prints a few lines.
 * Context: (main), nothing else allocating meanwhile.
 */
#include <kernel/ktest.h>
#include <mm/deferred_init.h>
#include <mm/memblock.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>

/*
 * Pages of memblock memory in [start_pfn, end_pfn), or (reserved) only the
 * reserved ones among them: interval arithmetic over the two lists, not
 * the free-range walk deferred_init.c counts with.  A pending section's
 * memmap is unreadable, so this is how its pages are counted here.
 */
static u64 memblock_pages(u64 start_pfn, u64 end_pfn, bool reserved)
{
	u64 lo = PFN_PHYS(start_pfn), hi = PFN_PHYS(end_pfn), bytes = 0;

	for (u32 m = 0; m < memblock.memory.cnt; m++) {
		const struct memblock_region *mr = &memblock.memory.regions[m];
		u64 ms = MAX(lo, mr->base), me = MIN(hi, mr->base + mr->size);

		if (ms >= me)
			continue;
		if (!reserved)
			bytes += me - ms;
		for (u32 r = 0; reserved && r < memblock.reserved.cnt; r++) {
			const struct memblock_region *rr = &memblock.reserved.regions[r];
			u64 rs = MAX(ms, rr->base), re = MIN(me, rr->base + rr->size);

			if (rs < re)
				bytes += re - rs;
		}
	}
	return bytes >> PAGE_SHIFT;
}

/* The pending set: flags on sections = the counts (a pending section's
 * free memory: its memmap pages, if it holds memmap, are reserved);
 * pending pfns unreadable. */
static void pending_sections_match_counts(struct ktest *t)
{
	u64 nr = 0, sections = 0, pages = 0, free, node_pages[MAX_NUMNODES] = { 0 };
	int bad = 0, nid;

	for (; sparse_next_present(&nr); nr++) {
		const struct mem_section *ms = __nr_to_section(nr);
		u64 pfn = section_nr_to_pfn(nr);

		if (!deferred_section(ms))
			continue;
		sections++;
		free = memblock_pages(pfn, pfn + PAGES_PER_SECTION, false) -
		       memblock_pages(pfn, pfn + PAGES_PER_SECTION, true);
		pages += free;
		if (ms->nid >= 0 && ms->nid < MAX_NUMNODES)
			node_pages[ms->nid] += free;
		KTEST_EXPECT_FEW(t, bad, !pfn_valid(pfn) && !pfn_to_online_page(pfn) && pfn_pending(pfn),
			   "section %llu", (unsigned long long)nr);
		KTEST_EXPECT_FEW(t, bad, early_section(ms) && valid_section(ms), "section %llu",
			   (unsigned long long)nr);
	}
	KTEST_EXPECT_EQ(t, deferred_init_pending_sections(), sections);
	KTEST_EXPECT_EQ(t, deferred_init_pending_pages(NUMA_NO_NODE), pages);
	for_each_online_node(nid)
		KTEST_EXPECT_EQ(t, deferred_init_pending_pages(nid), node_pages[nid]);
	if (!deferred_init_stats.boot_new)
		KTEST_EXPECT_EQ(t, sections, 0);
}

/*
 * Per zone: present = managed + reserved + pending, the reserved pages
 * counted from the memmap of the zone's initialised boot sections (no
 * hot-added memory in the zone: its offline pages would count elsewhere)
 * and from memblock for its pending ones (the memmap a pending section
 * may hold).
 */
static void zone_present_is_managed_reserved_pending(struct ktest *t)
{
	struct zone *zone;
	unsigned checked = 0;

	for_each_zone(zone) {
		u64 reserved = 0, pending;
		bool boot_only = true;

		if (!zone->zone_pgdat || !populated_zone(zone) || zone->idx == ZONE_DEVICE)
			continue;
		for (u64 pfn = zone->zone_start_pfn; pfn < zone_end_pfn(zone); pfn++) {
			const struct mem_section *ms = __pfn_to_section(pfn);
			const struct page *page;

			if (!present_section(ms)) {
				pfn = ALIGN_UP(pfn + 1, PAGES_PER_SECTION) - 1;
				continue;
			}
			if (!early_section(ms))
				boot_only = false;
			if (deferred_section(ms)) {
				u64 end = MIN(ALIGN_UP(pfn + 1, PAGES_PER_SECTION), zone_end_pfn(zone));

				reserved += memblock_pages(pfn, end, true);
				pfn = end - 1;
				continue;
			}
			if (!pfn_valid(pfn) || (ms->nr_present_pages < PAGES_PER_SECTION &&
						!memblock_is_memory(&memblock, PFN_PHYS(pfn))))
				continue;
			page = pfn_to_page(pfn);
			if (page_zone(page) == zone && PageReserved(page))
				reserved++;
		}
		if (!boot_only)
			continue;
		pending = deferred_init_zone_pending_pages(zone);
		KTEST_EXPECT_EQ(t, zone->present_pages, zone->managed_pages + reserved + pending);
		KTEST_EXPECT_EQ(t, zone->contiguous && pending, 0);	/* pending: never contiguous */
		checked++;
	}
	KTEST_EXPECT(t, checked > 0);
}

/* The initialised boot sections carry the memmap of the zone spanning
 * each memory page and of the section's node (first and last memory pfn). */
static void initialised_sections_have_their_zone(struct ktest *t)
{
	u64 nr = 0;
	int bad = 0;

	for (; sparse_next_present(&nr); nr++) {
		const struct mem_section *ms = __nr_to_section(nr);
		u64 lo = section_nr_to_pfn(nr), hi = section_nr_to_pfn(nr + 1);

		if (!early_section(ms) || deferred_section(ms))
			continue;
		for (u64 pfn = lo; pfn < hi; pfn += PAGES_PER_SECTION - 1) {
			const struct page *page;
			struct zone *zone;

			if (!memblock_is_memory(&memblock, PFN_PHYS(pfn)))
				continue;
			page = pfn_to_page(pfn);
			zone = page_zone(page);
			KTEST_EXPECT_FEW(t, bad, page_to_nid(page) == ms->nid && zone_spans_pfn(zone, pfn),
				   "pfn %#llx: node %d zone %s", (unsigned long long)pfn,
				   page_to_nid(page), zone->name);
		}
	}
}

/* One step, if anything waits: exactly one section, its memory now managed. */
static void one_step_moves_one_section(struct ktest *t)
{
	u64 sections = deferred_init_pending_sections(), pending, total;

	if (!sections) {
		KTEST_EXPECT_EQ(t, deferred_init_step(1), 0);
		return;
	}
	pending = deferred_init_pending_pages(NUMA_NO_NODE);
	total = totalram_pages();
	KTEST_EXPECT_EQ(t, deferred_init_step(1), 1);
	KTEST_EXPECT_EQ(t, deferred_init_pending_sections(), sections - 1);
	KTEST_EXPECT(t, deferred_init_pending_pages(NUMA_NO_NODE) < pending);
	/* a pending section's pending pages are its free ones: all managed now */
	KTEST_EXPECT_EQ(t, totalram_pages() - total,
			pending - deferred_init_pending_pages(NUMA_NO_NODE));
}

static const struct ktest_case deferred_cases[] = {
	KTEST_CASE(pending_sections_match_counts),
	KTEST_CASE(zone_present_is_managed_reserved_pending),
	KTEST_CASE(initialised_sections_have_their_zone),
	KTEST_CASE(one_step_moves_one_section),
};
KTEST_SUITE(deferred, "deferred", deferred_cases);

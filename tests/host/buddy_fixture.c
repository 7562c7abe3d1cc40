/*
 * buddy_fixture.c - see buddy_fixture.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buddy_fixture.h"
#include "mm_host.h"

void bf_machine(u64 ram_bytes)
{
	u64 end_pfn = ram_bytes >> PAGE_SHIFT;

	host_mm_reset(ram_bytes);
	memset(node_data, 0, sizeof(node_data));
	memset(numa_distance, 0, sizeof(numa_distance));
	if (!end_pfn)
		return;
	if (sparse_add_present(0, end_pfn, 0, true, host_root_alloc, NULL)) {
		fprintf(stderr, "bf_machine: sparse_add_present failed\n");
		abort();
	}
	for (u64 nr = 0; nr <= pfn_to_section_nr(end_pfn - 1); nr++)
		sparse_set_memmap(nr, 0);
	if (mm_vmemmap_populate(0, ALIGN_UP(end_pfn, PAGES_PER_SUBSECTION), 0)) {
		fprintf(stderr, "bf_machine: vmemmap populate failed\n");
		abort();
	}
}

void bf_zone_init(struct zone *z, int nid, enum zone_type idx, u64 start_pfn, u64 end_pfn, int mt)
{
	struct pglist_data *pgdat = NODE_DATA(nid);

	memset(z, 0, sizeof(*z));
	z->zone_pgdat = pgdat;
	z->name = zone_names[idx];
	z->idx = idx;
	zone_init_free_lists(z);
	z->zone_start_pfn = start_pfn;
	z->spanned_pages = end_pfn - start_pfn;
	z->present_pages = end_pfn - start_pfn;
	pgdat->node_id = nid;
	pgdat->online = true;
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		memset(page, 0, sizeof(*page));
		set_page_links(page, idx, nid);
		page->refcount = 1;
		page->page_type = PAGE_TYPE_NONE;
		INIT_LIST_HEAD(&page->lru);
		SetPageReserved(page);
	}
	for (u64 pfn = pageblock_start_pfn(start_pfn); pfn < end_pfn; pfn += pageblock_nr_pages)
		set_pageblock_migratetype(pfn, mt);
}

void bf_handover(struct zone *z, u64 start_pfn, u64 end_pfn)
{
	while (start_pfn < end_pfn) {
		unsigned order = MAX_PAGE_ORDER;

		while (order && (!IS_ALIGNED(start_pfn, 1ULL << order) ||
				 start_pfn + (1ULL << order) > end_pfn))
			order--;
		buddy_free_boot_pages(z, start_pfn, order, false);
		start_pfn += 1ULL << order;
	}
}

enum { ST_NONE, ST_BUDDY, ST_BUDDY_HEAD, ST_PCP };

#define PROBLEM(...)								\
	do {									\
		if (problems++ < 20) {						\
			fprintf(stderr, "  bf_check_zone(%s): ", z->name);	\
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
		}								\
	} while (0)

static bool mergeable_pair(u64 a, u64 b, unsigned order)
{
	int mt_a, mt_b;

	if (order < pageblock_order)
		return true;
	mt_a = buddy_list_mt(a);
	mt_b = buddy_list_mt(b);
	return mt_a == mt_b || (migratetype_is_mergeable(mt_a) && migratetype_is_mergeable(mt_b));
}

int bf_check_zone(struct zone *z, const u8 *allocated_map)
{
	u64 start = z->zone_start_pfn, span = z->spanned_pages;
	u8 *state = calloc(span ? span : 1, 1);
	unsigned long buddy_pages = 0, cma_pages = 0, pcp_pages = 0, allocated = 0;
	int problems = 0;

	for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++) {
		struct free_area *area = &z->free_area[order];
		unsigned long blocks = 0;

		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			unsigned long n = 0;
			struct page *page;

			list_for_each_entry(page, &area->free_list[mt], lru) {
				u64 pfn = page_to_pfn(page);

				if (++n > span) {
					PROBLEM("order %u list %d: loops", order, mt);
					break;
				}
				if (!zone_spans_pfn(z, pfn) || !zone_spans_pfn(z, pfn + (1ULL << order) - 1)) {
					PROBLEM("pfn %#llx order %u on list %d: outside the zone",
						(unsigned long long)pfn, order, mt);
					continue;
				}
				if (!PageBuddy(page) || buddy_order(page) != order || page->refcount)
					PROBLEM("pfn %#llx on order-%u list %d: type %#x private %lu refcount %d",
						(unsigned long long)pfn, order, mt, page->page_type,
						page->private, page->refcount);
				if (!IS_ALIGNED(pfn, 1ULL << order))
					PROBLEM("pfn %#llx not aligned to order %u", (unsigned long long)pfn, order);
				for (u64 pb = pfn; pb < pfn + (1ULL << order); pb += pageblock_nr_pages)
					if (buddy_list_mt(pb) != mt)
						PROBLEM("pfn %#llx order %u on list %d, its pageblock %#llx is type %d",
							(unsigned long long)pfn, order, mt,
							(unsigned long long)pb, buddy_list_mt(pb));
				for (u64 i = 0; i < (1ULL << order); i++) {
					struct page *p = pfn_to_page(pfn + i);

					if (state[pfn + i - start] != ST_NONE)
						PROBLEM("pfn %#llx is in two free blocks", (unsigned long long)(pfn + i));
					state[pfn + i - start] = i ? ST_BUDDY : ST_BUDDY_HEAD;
					if (i && (p->page_type != PAGE_TYPE_NONE || p->refcount))
						PROBLEM("pfn %#llx inside a free block: type %#x refcount %d",
							(unsigned long long)(pfn + i), p->page_type, p->refcount);
				}
				buddy_pages += 1UL << order;
				if (mt == MIGRATE_CMA)
					cma_pages += 1UL << order;
			}
			if (n != area->nr_free_mt[mt])
				PROBLEM("order %u list %d has %lu blocks, nr_free_mt says %lu",
					order, mt, n, area->nr_free_mt[mt]);
			blocks += n;
		}
		if (blocks != area->nr_free)
			PROBLEM("order %u has %lu blocks, nr_free says %lu", order, blocks, area->nr_free);
	}

	for (unsigned idx = 0; idx < NR_PCP_LISTS; idx++) {
		unsigned order = idx / MIGRATE_PCPTYPES;
		unsigned long n = 0;
		struct page *page;

		list_for_each_entry(page, &zone_pcp(z, 0)->lists[idx], lru) {
			u64 pfn = page_to_pfn(page);

			if (++n > span) {
				PROBLEM("pcp list %u loops", idx);
				break;
			}
			if (!zone_spans_pfn(z, pfn) || !IS_ALIGNED(pfn, 1ULL << order)) {
				PROBLEM("pcp list %u: pfn %#llx outside the zone or unaligned", idx,
					(unsigned long long)pfn);
				continue;
			}
			if (!PagePcp(page) || page->private != order || page->refcount)
				PROBLEM("pcp list %u: pfn %#llx type %#x private %lu refcount %d", idx,
					(unsigned long long)pfn, page->page_type, page->private, page->refcount);
			if (buddy_list_mt(pfn) == MIGRATE_ISOLATE)
				PROBLEM("pcp list %u: pfn %#llx is in an isolated pageblock", idx,
					(unsigned long long)pfn);
			for (u64 i = 0; i < (1ULL << order); i++) {
				if (state[pfn + i - start] != ST_NONE)
					PROBLEM("pcp pfn %#llx is also free elsewhere", (unsigned long long)(pfn + i));
				state[pfn + i - start] = ST_PCP;
			}
			pcp_pages += 1UL << order;
		}
	}
	if (pcp_pages != zone_pcp_count(z))
		PROBLEM("pcp lists hold %lu pages, pcp count says %lu", pcp_pages, zone_pcp_count(z));
	if (buddy_pages + pcp_pages != zone_nr_free(z))
		PROBLEM("buddy %lu + pcp %lu pages != nr_free %lu", buddy_pages, pcp_pages, zone_nr_free(z));
	if (cma_pages != z->nr_free_cma)
		PROBLEM("CMA lists hold %lu pages, nr_free_cma says %lu", cma_pages, z->nr_free_cma);

	for (u64 pfn = start; pfn < start + span; pfn++) {
		struct page *page;
		u8 st = state[pfn - start];

		if (!pfn_valid(pfn))
			continue;
		page = pfn_to_page(pfn);
		if (st == ST_BUDDY_HEAD) {
			unsigned order = buddy_order(page);
			u64 buddy = pfn ^ (1ULL << order);

			if (order < MAX_PAGE_ORDER && zone_spans_pfn(z, buddy) &&
			    state[buddy - start] == ST_BUDDY_HEAD && buddy_order(pfn_to_page(buddy)) == order &&
			    mergeable_pair(pfn, buddy, order))
				PROBLEM("free buddies %#llx and %#llx of order %u were not merged",
					(unsigned long long)pfn, (unsigned long long)buddy, order);
		}
		if (st != ST_NONE)
			continue;
		if (PageBuddy(page) || PagePcp(page))
			PROBLEM("pfn %#llx is typed %s but on no list", (unsigned long long)pfn,
				page_type_name(page));
		if (PageReserved(page))
			continue;
		if (page->refcount < 1)
			PROBLEM("pfn %#llx: neither free nor reserved, refcount %d",
				(unsigned long long)pfn, page->refcount);
		else
			allocated++;
		if (allocated_map && !allocated_map[pfn - start])
			PROBLEM("pfn %#llx is allocated but the test never got it", (unsigned long long)pfn);
	}
	if (allocated_map)
		for (u64 pfn = start; pfn < start + span; pfn++)
			if (allocated_map[pfn - start] && state[pfn - start] != ST_NONE)
				PROBLEM("pfn %#llx is allocated by the test but free in the zone",
					(unsigned long long)pfn);
	if (zone_nr_free(z) + allocated != z->managed_pages)
		PROBLEM("free %lu + allocated %lu != managed %lu", zone_nr_free(z), allocated, z->managed_pages);
	free(state);
	return problems;
}

static int block_cmp(const void *a, const void *b)
{
	const struct bf_block *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

unsigned bf_free_blocks(struct zone *z, struct bf_block *out, unsigned max)
{
	unsigned n = 0;

	for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			struct page *page;

			list_for_each_entry(page, &z->free_area[order].free_list[mt], lru)
				if (n < max)
					out[n++] = (struct bf_block){ page_to_pfn(page), order };
		}
	qsort(out, n, sizeof(out[0]), block_cmp);
	return n;
}

bool bf_blocks_equal(const struct bf_block *a, unsigned nr_a, const struct bf_block *b, unsigned nr_b)
{
	if (nr_a != nr_b)
		return false;
	for (unsigned i = 0; i < nr_a; i++)
		if (a[i].pfn != b[i].pfn || a[i].order != b[i].order)
			return false;
	return true;
}

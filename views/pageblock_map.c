/*
 * pageblock_map.c - one character per pageblock for its migratetype and
 * for the largest free block covering it (include/views/pageblock_map.h):
 * the walk behind `buddy map` and the view channel's `pageblocks`.
 *
 * A free head of order o covers 2^o pages, which may span pageblocks
 * (order 10 spans two) but never a section (a section holds 32 order-10
 * blocks), so a walk that starts at a section's first pfn sees every free
 * block that touches its pageblocks.
 *
 * Context: (main) (reads the free lists; nothing is changed).
 */
#include <views/pageblock_map.h>
#include <lib/string.h>
#include <mm/buddy.h>
#include <mm/sparse.h>
#include <mm/page.h>

static const char mt_letters[MIGRATE_TYPES] = {
	[MIGRATE_UNMOVABLE] = 'U', [MIGRATE_MOVABLE] = 'M', [MIGRATE_RECLAIMABLE] = 'R',
	[MIGRATE_HIGHATOMIC] = 'H', [MIGRATE_CMA] = 'C', [MIGRATE_ISOLATE] = 'I',
};

/*
 * The two letters of pageblock [pfn, pfn + pageblock_nr_pages) in zone
 * z's picture; free_order is the largest free order seen in it, or -1.
 */
static void column(const struct zone *z, u64 pfn, signed char free_order, char *mt, char *fr)
{
	u64 first = pfn < z->zone_start_pfn ? z->zone_start_pfn : pfn;
	const struct page *page;

	if (pfn + pageblock_nr_pages <= z->zone_start_pfn || pfn >= zone_end_pfn(z)) {
		*mt = *fr = ' ';
		return;
	}
	page = pfn_to_online_page(first);
	if (!page || page_zone(page) != z) {
		*mt = *fr = page ? '~' : '-';
		return;
	}
	*mt = mt_letters[buddy_list_mt(first)];
	*fr = free_order < 0 ? '.' : free_order < 10 ? (char)('0' + free_order) : 'A';
}

void pageblock_map(const struct zone *z, u64 start, unsigned n, char *mt, char *fr)
{
	signed char free_order[PAGEBLOCK_MAP_MAX];
	u64 end = start + (u64)n * pageblock_nr_pages;
	u64 pfn = start < z->zone_start_pfn ? z->zone_start_pfn : start;

	if (n > PAGEBLOCK_MAP_MAX)
		n = PAGEBLOCK_MAP_MAX;
	if (end > zone_end_pfn(z))
		end = zone_end_pfn(z);
	memset(free_order, -1, n);
	while (pfn < end) {
		const struct page *page = pfn_to_online_page(pfn);
		unsigned order;

		if (!page) {		/* a hole or an offline block: skip its section */
			pfn = ALIGN_DOWN(pfn, PAGES_PER_SECTION) + PAGES_PER_SECTION;
			continue;
		}
		if (page_zone(page) != z || !free_block_at(pfn, FREE_BLOCK_BUDDY, &order)) {
			pfn++;
			continue;
		}
		/* mark every pageblock the free block covers */
		for (u64 q = pfn; q < pfn + (1ULL << order) && q < end; q += pageblock_nr_pages) {
			unsigned i = (unsigned)((q - start) / pageblock_nr_pages);

			if (free_order[i] < (signed char)order)
				free_order[i] = (signed char)order;
		}
		pfn += 1ULL << order;
	}
	for (unsigned i = 0; i < n; i++)
		column(z, start + (u64)i * pageblock_nr_pages, free_order[i], &mt[i], &fr[i]);
}

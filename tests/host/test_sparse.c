/*
 * test_sparse.c - the section table: presence, subsections, pfn_valid,
 * online state and pageblock flags.
 */
#include "htest.h"
#include "mm_host.h"
#include <mm/sparse.h>
#include "../../mm/internal.h"
#include <lib/printer.h>
#include <string.h>

/*
 * Sections 0 and 2 present; section 1 absent; section 3 present only in
 * its first two subsections (a hot-added 4 MiB range).
 *
 *   | sec 0 (early) | sec 1 absent | sec 2 (early) | sec 3: 2 subsections |
 *
 * Expect pfn_valid everywhere in early sections with a memmap, only in the
 * two subsections of section 3, and nowhere in section 1.
 */
HTEST(sparse_present_and_valid)
{
	u64 s = PAGES_PER_SECTION;

	host_mm_reset(0);
	CHECK_EQ(sparse_add_present(0, s, 0, true, host_root_alloc, NULL), 0);
	CHECK_EQ(sparse_add_present(2 * s, 3 * s - 100, 1, true, host_root_alloc, NULL), 0);
	CHECK_EQ(sparse_add_present(3 * s, 3 * s + 2 * PAGES_PER_SUBSECTION, 1, false,
				    host_root_alloc, NULL), 0);
	CHECK(present_section(__pfn_to_section(0)));
	CHECK(!present_section(__pfn_to_section(s)));
	CHECK_EQ(__pfn_to_section(2 * s)->nr_present_pages, s - 100);
	CHECK_EQ(__pfn_to_section(2 * s)->nid, 1);
	CHECK(!pfn_valid(0));			/* no memmap yet */
	sparse_set_memmap(0, 0x1000);
	sparse_set_memmap(2, 0x2000);
	sparse_set_memmap(3, 0x3000);
	CHECK(pfn_valid(0) && pfn_valid(s - 1));
	CHECK(!pfn_valid(s) && !pfn_valid(2 * s - 1));
	CHECK(pfn_valid(3 * s - 1));		/* early section: whole section valid */
	CHECK(pfn_valid(3 * s + 2 * PAGES_PER_SUBSECTION - 1));
	CHECK(!pfn_valid(3 * s + 2 * PAGES_PER_SUBSECTION));
	CHECK(pfn_to_online_page(0) == NULL);
	sparse_set_online(0, s);
	CHECK(pfn_to_online_page(5) == pfn_to_page(5));
	sparse_set_offline(0, s);
	CHECK(pfn_to_online_page(5) == NULL);
	CHECK(!pfn_valid(MAX_PFN + 1));
	CHECK_EQ(sparse_add_present(MAX_PFN - 1, MAX_PFN + 1, 0, false, host_root_alloc, NULL), -22);
}

/* Removing part of a hot-added section clears only its subsections; the
 * section goes away when its last page does. */
HTEST(sparse_remove_present)
{
	u64 s = PAGES_PER_SECTION, base = 8 * s;

	host_mm_reset(0);
	CHECK_EQ(sparse_add_present(base, base + s, 0, false, host_root_alloc, NULL), 0);
	CHECK_EQ(__pfn_to_section(base)->subsection_map, ~0ULL);
	sparse_remove_present(base, base + s / 2);
	CHECK_EQ(__pfn_to_section(base)->subsection_map, 0xffffffff00000000ULL);
	{	/* `sections` draws the map lowest subsection first */
		static char text[2048];
		struct buf_printer bp;

		buf_printer_init(&bp, text, sizeof(text));
		sparse_dump(&bp.p);
		CHECK(strstr(text, "................................"
				   "################################ present") != NULL);
	}
	CHECK(present_section(__pfn_to_section(base)));
	sparse_remove_present(base + s / 2, base + s);
	CHECK(!present_section(__pfn_to_section(base)));
	CHECK_EQ(__pfn_to_section(base)->nid, -1);
}

/* Pageblock flags: each of the 64 pageblocks of a section keeps its own
 * migratetype and isolate bit, without disturbing its neighbours. */
HTEST(sparse_pageblock_flags)
{
	u64 s = PAGES_PER_SECTION;

	host_mm_reset(0);
	CHECK_EQ(sparse_add_present(s, 2 * s, 0, true, host_root_alloc, NULL), 0);
	for (unsigned i = 0; i < PAGEBLOCKS_PER_SECTION; i++)
		set_pageblock_migratetype(s + i * pageblock_nr_pages, (int)(i % 6));
	set_pageblock_isolate(s + 5 * pageblock_nr_pages, true);
	for (unsigned i = 0; i < PAGEBLOCKS_PER_SECTION; i++) {
		u64 pfn = s + i * pageblock_nr_pages + 17;

		CHECK_EQ(get_pageblock_migratetype(pfn), i % 6);
		CHECK_EQ(get_pageblock_isolate(pfn), i == 5);
	}
	set_pageblock_isolate(s + 5 * pageblock_nr_pages, false);
	CHECK_EQ(get_pageblock_migratetype(s + 5 * pageblock_nr_pages), 5);
	CHECK(!get_pageblock_isolate(s + 5 * pageblock_nr_pages));
}

/* Iteration skips absent sections and empty roots, even far apart. */
HTEST(sparse_iteration)
{
	u64 s = PAGES_PER_SECTION, nr = 0, seen[4], n = 0;

	host_mm_reset(0);
	CHECK_EQ(sparse_add_present(0, s, 0, true, host_root_alloc, NULL), 0);
	CHECK_EQ(sparse_add_present(1000 * s, 1001 * s, 0, false, host_root_alloc, NULL), 0);
	CHECK_EQ(sparse_add_present(100000 * s, 100001 * s, 0, false, host_root_alloc, NULL), 0);
	for (; n < 4 && sparse_next_present(&nr); nr++)
		seen[n++] = nr;
	CHECK_EQ(n, 3);
	CHECK_EQ(seen[0], 0);
	CHECK_EQ(seen[1], 1000);
	CHECK_EQ(seen[2], 100000);
}

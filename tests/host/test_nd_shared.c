/*
 * test_nd_shared.c - the shared-vmemmap design (mm/vmemmap_shared.c), and
 * the head-template one, on devdax namespaces of random places, sizes and
 * aligns: read back through pfn_to_page(), every pfn's struct page is the
 * per-page design's, byte for byte, whichever designs ran before; it writes a quarter of the
 * memmap and needs a quarter of the pages; switching back and forth and
 * destroying the namespace gives back exactly what was taken; and the
 * requests it cannot serve (4 KiB align, a borrowed range) are refused
 * with nothing changed.
 */
#include "htest.h"
#include "hotplug_fixture.h"
#include <drivers/nd.h>
#include <mm/memremap.h>
#include <mm/mechanisms.h>
#include <mm/sparse.h>
#include <lib/errno.h>
#include "../../mm/internal.h"
#include <stdlib.h>
#include <string.h>

#define SECTION_BYTES	(PFN_PHYS(PAGES_PER_SECTION))

static char why[160];

/* xorshift: the same sequence on every run */
static u64 rng_state = 0x9e3779b97f4a7c15ULL;

static u64 rnd(u64 n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

/* A region in the 2 GiB above the boot RAM: align 4K or 2M, 1-3 sections
 * at a random section; align 1G, 2 GiB at 4 (the info block reserves the
 * first 1 GiB compound: a 1 GiB namespace has no room for a dax device). */
static void boot_region(u64 align, u64 *start, u64 *size)
{
	boot(HOTPLUG_BASE + 2 * GiB, 2 * GiB);
	devmem_reset();
	nd_reset();
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, DESIGN_NEW), 0);
	if (align == SZ_1G) {
		(void)rnd(2);		/* the sequence the other rounds were drawn with */
		*size = 2 * GiB;
		*start = HOTPLUG_BASE;
	} else {
		*size = (1 + rnd(3)) * SECTION_BYTES;
		*start = HOTPLUG_BASE + rnd(2 * GiB / SECTION_BYTES - 3) * SECTION_BYTES;
	}
	CHECK_EQ(nd_add_region(*start, *size, 0, 1), 0);
}

/* Every struct page of the range, as pfn_to_page() reads it, equal to ref. */
static bool same_as(const struct page *ref, u64 pfn, u64 nr)
{
	for (u64 i = 0; i < nr; i++)
		if (memcmp(&ref[i], pfn_to_page(pfn + i), sizeof(struct page)))
			return false;
	return true;
}

static bool same_pageblocks(const u8 *ref, u64 pfn, u64 nr)
{
	for (u64 i = 0; i < nr / pageblock_nr_pages; i++)
		if (ref[i] != get_pageblock_migratetype(pfn + i * pageblock_nr_pages))
			return false;
	return true;
}

HTEST(nd_shared_vmemmap_reads_back_as_per_page)
{
	static const u64 aligns[] = { SZ_2M, SZ_2M, SZ_1G, SZ_4K };
	static const int full_designs[] = { DESIGN_OLD, DEVMEM_DESIGN_HEAD_TEMPLATE, DESIGN_NEW,
					    DESIGN_NEW_NT };

	for (int round = 0; round < 10; round++) {
		u64 align = aligns[round % 4], start, size, pfn, nr, secs;
		unsigned order = (unsigned)__builtin_ctzll(align) - PAGE_SHIFT;
		struct vmemmap_cost cost = { 0 };
		unsigned long free0, free_full, free_shared;
		const struct dev_pagemap *pgmap;
		struct page *ref;
		u8 *pb;

		boot_region(align, &start, &size);
		pfn = PHYS_PFN(start);
		nr = PHYS_PFN(size);
		secs = nr / PAGES_PER_SECTION;
		free0 = global_free_pages();
		CHECK_EQ(mech_set(MECH_MEMMAP_INIT, DESIGN_OLD), 0);
		CHECK_EQ(nd_create_devdax(0, align, 0, why, sizeof(why)), 0);
		pgmap = devmem_find(nd_region(0)->ns[0].devmem_id);
		CHECK_EQ(pgmap->vmemmap_shift, order);
		if (vmemmap_shared_order_ok(order))
			vmemmap_layout_cost(true, order, nr, &cost);
		free_full = global_free_pages();
		CHECK_EQ(free0 - free_full, secs * 512);	/* a 2 MiB memmap per section */
		CHECK_EQ(pgmap->last_init_bytes, nr * sizeof(struct page));

		/* the per-page design's memmap and pageblocks */
		ref = malloc(nr * sizeof(struct page));
		pb = malloc(nr / pageblock_nr_pages);
		CHECK(ref && pb);
		memcpy(ref, pfn_to_page(pfn), nr * sizeof(struct page));
		for (u64 i = 0; i < nr / pageblock_nr_pages; i++)
			pb[i] = (u8)get_pageblock_migratetype(pfn + i * pageblock_nr_pages);

		for (int step = 0; step < 5 + round % 2; step++) {	/* odd: destroyed full */
			int d = step % 2 || align == SZ_4K ? full_designs[rnd(4)] : DEVMEM_DESIGN_SHARED;

			for (u64 i = 0; i < nr / pageblock_nr_pages; i++)
				set_pageblock_migratetype(pfn + i * pageblock_nr_pages,
							  MIGRATE_UNMOVABLE);
			CHECK_EQ(nd_rebind(0, 0, d, why, sizeof(why)), 0);
			CHECK_EQ(pgmap->last_design, d);
			CHECK_EQ(pgmap->shared_vmemmap, d == DEVMEM_DESIGN_SHARED);
			CHECK(same_as(ref, pfn, nr));
			CHECK(same_pageblocks(pb, pfn, nr));
			if (d == DEVMEM_DESIGN_SHARED) {
				/* 128 of each compound's struct pages written, in
				 * 2 pages per compound, plus the kept table page */
				CHECK_EQ(pgmap->last_init_bytes,
					 (nr >> order) * 128 * sizeof(struct page));
				CHECK_EQ(cost.memmap_pages, (nr >> order) * 2);
				free_shared = global_free_pages();
				CHECK_EQ(free0 - free_shared, cost.memmap_pages + 1);
				/* struct page 64 + k and 128 + k are one memory, to the
				 * compound's end (a 1 GiB one: across its sections) */
				CHECK(pfn_to_page(pfn + 64) != pfn_to_page(pfn + 128));
				pfn_to_page(pfn + 64 + 5)->memlab_debug = 0x5a;
				CHECK_EQ(pfn_to_page(pfn + 128 + 5)->memlab_debug, 0x5a);
				CHECK_EQ(pfn_to_page(pfn + 448 + 5)->memlab_debug, 0x5a);
				CHECK_EQ(pfn_to_page(pfn + (1ULL << order) - 64 + 5)->memlab_debug,
					 0x5a);
				if (nr > (1ULL << order))
					CHECK_EQ(pfn_to_page(pfn + (1ULL << order) + 128 + 5)->memlab_debug,
						 0);
				pfn_to_page(pfn + 64 + 5)->memlab_debug = 0;
			} else {
				CHECK_EQ(pgmap->last_init_bytes, nr * sizeof(struct page));
				CHECK_EQ(global_free_pages(), free_full);
			}
		}
		CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
		CHECK_EQ(global_free_pages(), free0);
		for (u64 p = pfn; p < pfn + nr; p += PAGES_PER_SECTION)
			CHECK(!present_section(__pfn_to_section(p)));
		free(ref);
		free(pb);
	}
}

/* Destroyed while shared: the chunks, the page tables and the table go. */
HTEST(nd_shared_vmemmap_destroyed_gives_all_back)
{
	u64 start, size;
	unsigned long free0;
	struct vmemmap_cost full, shared;

	boot_region(SZ_2M, &start, &size);
	free0 = global_free_pages();
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), 0);
	CHECK_EQ(nd_rebind(0, 0, DEVMEM_DESIGN_SHARED, why, sizeof(why)), 0);
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
	CHECK_EQ(global_free_pages(), free0);

	/* the costs: 4x fewer bytes and pages at 2 MiB */
	vmemmap_layout_cost(false, 9, 25 * (u64)PAGES_PER_SECTION * 32, &full);
	vmemmap_layout_cost(true, 9, 25 * (u64)PAGES_PER_SECTION * 32, &shared);
	CHECK_EQ(full.bytes_written, 4 * shared.bytes_written);
	CHECK_EQ(full.memmap_pages, 4 * shared.memmap_pages);
	CHECK_EQ(full.table_pages, 0);
	CHECK_EQ(shared.table_pages, 25 * 32);
	/* and 2048x fewer bytes at 1 GiB: 128 of 262144 struct pages */
	vmemmap_layout_cost(false, 18, 8 * (u64)PAGES_PER_SECTION * 4, &full);
	vmemmap_layout_cost(true, 18, 8 * (u64)PAGES_PER_SECTION * 4, &shared);
	CHECK_EQ(full.bytes_written, 2048 * shared.bytes_written);
	CHECK_EQ(full.memmap_pages, 2048 * shared.memmap_pages);
	CHECK_EQ(shared.table_pages, 32);
}

HTEST(nd_shared_vmemmap_refusals_change_nothing)
{
	u64 start, size;
	unsigned long free1;
	const struct dev_pagemap *pgmap;

	boot_region(SZ_2M, &start, &size);
	CHECK_EQ(nd_create_devdax(0, SZ_4K, 0, why, sizeof(why)), 0);
	pgmap = devmem_find(nd_region(0)->ns[0].devmem_id);
	free1 = global_free_pages();
	CHECK_EQ(nd_rebind(0, 0, DEVMEM_DESIGN_SHARED, why, sizeof(why)), -EINVAL);
	CHECK(!pgmap->shared_vmemmap);
	CHECK_EQ(pgmap->last_design, DESIGN_NEW);
	CHECK_EQ(global_free_pages(), free1);
	CHECK_EQ(devmem_parse_design("shared"), DEVMEM_DESIGN_SHARED);
	CHECK_EQ(devmem_parse_design("old"), DESIGN_OLD);
	CHECK_EQ(devmem_parse_design("sharde"), -EINVAL);
	CHECK(!strcmp(devmem_design_name(DEVMEM_DESIGN_SHARED), "shared"));
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
}

/* The head-template design beside per page on random compound orders and
 * ranges of a live devdax memmap (orders a namespace cannot have too). */
HTEST(nd_head_template_random_orders_as_per_page)
{
	static const unsigned orders[] = { 0, 1, 3, 9, 10, 15, 9, 0 };
	u64 start, size, pfn, nr;
	struct page *ref;

	boot_region(SZ_2M, &start, &size);
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), 0);
	pfn = PHYS_PFN(start);
	nr = PHYS_PFN(size);
	ref = malloc(nr * sizeof(struct page));
	CHECK(ref != NULL);
	for (unsigned i = 0; i < ARRAY_SIZE(orders); i++) {
		u64 unit = 1ULL << orders[i], s = ALIGN_DOWN(rnd(nr), unit);
		u64 len = ALIGN_DOWN(rnd(nr - s) + unit, unit);
		void *owner = (void *)devmem_find(nd_region(0)->ns[0].devmem_id);

		len = MIN(len, nr - s);
		memmap_fill_pattern(pfn_to_page(pfn + s), len, 0x5a5a5a5a5a5a5a5aULL);
		CHECK_EQ(memmap_init_zone_device_design(pfn + s, len, 0, orders[i], owner,
							DESIGN_OLD), 0);
		memcpy(ref, pfn_to_page(pfn + s), len * sizeof(struct page));
		memmap_fill_pattern(pfn_to_page(pfn + s), len, 0xa5a5a5a5a5a5a5a5ULL);
		CHECK_EQ(memmap_init_zone_device_head_template(pfn + s, len, 0, orders[i], owner), 0);
		CHECK(same_as(ref, pfn + s, len));
	}
	free(ref);
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
}

/* devmem_compare() on a dax device: every design, the shared one read back
 * through pfn_to_page() in the shared layout it maps for the comparison;
 * the range keeps its layout, its free pages and a valid memmap. */
HTEST(nd_devmem_compare_covers_all_five_designs)
{
	static const u64 aligns[] = { SZ_2M, SZ_1G, SZ_4K };

	for (unsigned i = 0; i < ARRAY_SIZE(aligns); i++) {
		u64 align = aligns[i], start, size, pfn, nr;
		struct devmem_compare_out out;
		struct memmap_diff diff;
		const struct dev_pagemap *pgmap;
		unsigned long free1;
		struct page *ref;
		bool pb_diff;

		boot_region(align, &start, &size);
		pfn = PHYS_PFN(start);
		nr = PHYS_PFN(size);
		CHECK_EQ(nd_create_devdax(0, align, 0, why, sizeof(why)), 0);
		pgmap = devmem_find(nd_region(0)->ns[0].devmem_id);
		CHECK(pgmap != NULL);
		if (!pgmap)
			return;
		CHECK_EQ(nd_rebind(0, 0, DESIGN_OLD, why, sizeof(why)), 0);
		ref = malloc(nr * sizeof(struct page));
		CHECK(ref != NULL);
		memcpy(ref, pfn_to_page(pfn), nr * sizeof(struct page));
		free1 = global_free_pages();

		CHECK_EQ(devmem_compare(pgmap->id, &diff, &pb_diff, &out), 0);
		CHECK(out.ran[DESIGN_OLD] && out.ran[DESIGN_NEW] && out.ran[DESIGN_NEW_NT] &&
		      out.ran[DEVMEM_DESIGN_HEAD_TEMPLATE]);
		CHECK_EQ(out.ran[DEVMEM_DESIGN_SHARED], align != SZ_4K);
		CHECK_EQ(out.shared_err, align == SZ_4K ? -EINVAL : 0);
		CHECK(!out.in_shared && !pgmap->shared_vmemmap);
		CHECK_EQ(global_free_pages(), free1);		/* the shared layout given back */
		CHECK(same_as(ref, pfn, nr));			/* a valid memmap left */

		if (align != SZ_4K) {
			/* in the shared layout: the full designs through its aliases */
			CHECK_EQ(nd_rebind(0, 0, DEVMEM_DESIGN_SHARED, why, sizeof(why)), 0);
			free1 = global_free_pages();
			CHECK_EQ(devmem_compare(pgmap->id, &diff, &pb_diff, &out), 0);
			CHECK(out.in_shared && pgmap->shared_vmemmap);
			CHECK(out.ran[DEVMEM_DESIGN_SHARED] && out.ran[DEVMEM_DESIGN_HEAD_TEMPLATE]);
			CHECK_EQ(global_free_pages(), free1);
			CHECK(same_as(ref, pfn, nr));
		}
		free(ref);
		CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
	}
}

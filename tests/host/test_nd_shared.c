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
 * at a random section; align 1G, 1 GiB at 4 or 5 GiB, or 2 GiB at 4. */
static void boot_region(u64 align, u64 *start, u64 *size)
{
	boot(HOTPLUG_BASE + 2 * GiB, 2 * GiB);
	devmem_reset();
	nd_reset();
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, DESIGN_NEW), 0);
	if (align == SZ_1G) {
		*size = (1 + rnd(2)) * GiB;
		*start = HOTPLUG_BASE + (*size == GiB ? rnd(2) * GiB : 0);
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
		pgmap = devmem_find(nd_region(0)->ns.devmem_id);
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
			CHECK_EQ(nd_rebind(0, d, why, sizeof(why)), 0);
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
		CHECK_EQ(nd_destroy(0, why, sizeof(why)), 0);
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
	CHECK_EQ(nd_rebind(0, DEVMEM_DESIGN_SHARED, why, sizeof(why)), 0);
	CHECK_EQ(nd_destroy(0, why, sizeof(why)), 0);
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
	pgmap = devmem_find(nd_region(0)->ns.devmem_id);
	free1 = global_free_pages();
	CHECK_EQ(nd_rebind(0, DEVMEM_DESIGN_SHARED, why, sizeof(why)), -EINVAL);
	CHECK(!pgmap->shared_vmemmap);
	CHECK_EQ(pgmap->last_design, DESIGN_NEW);
	CHECK_EQ(global_free_pages(), free1);
	CHECK_EQ(devmem_parse_design("shared"), DEVMEM_DESIGN_SHARED);
	CHECK_EQ(devmem_parse_design("old"), DESIGN_OLD);
	CHECK_EQ(devmem_parse_design("sharde"), -EINVAL);
	CHECK(!strcmp(devmem_design_name(DEVMEM_DESIGN_SHARED), "shared"));
	CHECK_EQ(nd_destroy(0, why, sizeof(why)), 0);
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
		void *owner = (void *)devmem_find(nd_region(0)->ns.devmem_id);

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
	CHECK_EQ(nd_destroy(0, why, sizeof(why)), 0);
}

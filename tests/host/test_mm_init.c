/*
 * test_mm_init.c - the whole boot sequence (mm_core_init) on simulated
 * machines: QEMU-like maps, NUMA splits, movablecore, and random maps.
 *
 * After boot, for every zone: present = managed + reserved, nr_free =
 * managed (nothing is allocated yet), every free block is maximal (no two
 * free buddies of one order side by side) and aligned, holes are reserved,
 * and zone spans nest inside node spans.
 */
#include "htest.h"
#include "mm_host.h"
#include <stdlib.h>
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/memblock.h>
#include <mm/gfp.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>

static struct fw_memmap map;
static struct mm_boot_params bp;

static void boot_begin(u64 ram_bytes)
{
	host_mm_reset(ram_bytes);
	printk_set_level(LOG_WARNING);
	fw_memmap_init(&map);
	memset(&bp, 0, sizeof(bp));
	bp.memmap = &map;
}

static void boot_finish(void)
{
	fw_memmap_sanitize(&map);
	mm_core_init(&bp);
}

/* Count reserved pages of a zone by walking its span. */
static u64 zone_reserved_pages(struct zone *z)
{
	u64 n = 0;

	for (u64 pfn = z->zone_start_pfn; pfn < zone_end_pfn(z); pfn++)
		if (pfn_valid(pfn) && memblock_is_memory(&memblock, PFN_PHYS(pfn)) &&
		    PageReserved(pfn_to_page(pfn)))
			n++;
	return n;
}

/* Every invariant of a freshly booted allocator; returns failed checks. */
static void check_booted(void)
{
	struct zone *z;
	int nid;

	for_each_online_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);
		u64 present = 0;

		for (int i = 0; i < MAX_NR_ZONES; i++) {
			z = &pgdat->node_zones[i];
			present += z->present_pages;
			if (zone_is_empty(z))
				continue;
			CHECK(z->zone_start_pfn >= pgdat->node_start_pfn);
			CHECK(zone_end_pfn(z) <= pgdat_end_pfn(pgdat));
			CHECK_EQ(z->managed_pages + zone_reserved_pages(z), z->present_pages);
			/* free pages: all managed pages, in the buddy */
			{
				u64 free = 0;

				for (unsigned o = 0; o < NR_PAGE_ORDERS; o++) {
					struct free_area *fa = &z->free_area[o];
					u64 blocks = 0;

					for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
						struct page *p;

						list_for_each_entry(p, &fa->free_list[mt], lru) {
							u64 pfn = page_to_pfn(p);
							u64 buddy = pfn ^ (1ULL << o);

							blocks++;
							CHECK(PageBuddy(p));
							CHECK_EQ(buddy_order(p), o);
							CHECK(IS_ALIGNED(pfn, 1ULL << o));
							CHECK(zone_spans_pfn(z, pfn));
							/* maximal: the buddy is not a free block of the same order */
							if (o < MAX_PAGE_ORDER && zone_spans_pfn(z, buddy) &&
							    pfn_valid(buddy))
								CHECK(!(PageBuddy(pfn_to_page(buddy)) &&
									buddy_order(pfn_to_page(buddy)) == o));
						}
					}
					CHECK_EQ(blocks, fa->nr_free);
					free += blocks << o;
				}
				CHECK_EQ(free, z->managed_pages);
				CHECK_EQ(zone_nr_free(z), z->managed_pages);
			}
		}
		CHECK_EQ(present, pgdat->node_present_pages);
		/* zone contiguity: the counter and the walk agree after boot */
		for (int i = 0; i < MAX_NR_ZONES; i++) {
			z = &pgdat->node_zones[i];
			if (!populated_zone(z))
				continue;
			CHECK(z->pages_with_online_memmap <= z->spanned_pages);
			CHECK_EQ(zone_contiguous_by_walk(z), zone_contiguous_by_counter(z));
		}
	}
}

/* QEMU q35 -m 2G scaled to 512 MiB: the low hole, the 1 MiB boundary,
 * firmware reserved pages at the top of RAM. */
HTEST(mm_init_qemu_like)
{
	boot_begin(512 * SZ_1M);
	fw_memmap_add_raw(&map, 0, 0x9fc00, FW_MEM_RAM);
	fw_memmap_add_raw(&map, 0x9fc00, 0x400, FW_MEM_RESERVED);
	fw_memmap_add_raw(&map, 0xf0000, 0x10000, FW_MEM_RESERVED);
	fw_memmap_add_raw(&map, 0x100000, 0x1ffdf000 - 0x100000, FW_MEM_RAM);
	fw_memmap_add_raw(&map, 0x1ffdf000, 0x21000, FW_MEM_RESERVED);
	bp.reserved[bp.nr_reserved++] = (typeof(bp.reserved[0])){ 0x100000, 0x500000, "kernel" };
	boot_finish();
	check_booted();
	CHECK(NODE_DATA(0)->online);
	CHECK(!NODE_DATA(1)->online);
	CHECK(populated_zone(&NODE_DATA(0)->node_zones[ZONE_DMA]));
	CHECK(populated_zone(&NODE_DATA(0)->node_zones[ZONE_DMA32]));
	CHECK(!populated_zone(&NODE_DATA(0)->node_zones[ZONE_NORMAL]));
	CHECK_EQ(NODE_DATA(0)->node_zones[ZONE_DMA].zone_start_pfn, 0);
	CHECK_EQ(NODE_DATA(0)->node_zones[ZONE_DMA].spanned_pages, 4096);
	CHECK_EQ(NODE_DATA(0)->node_zones[ZONE_DMA32].zone_start_pfn, 4096);
	/* the hole [0x9f, 0x100) is reserved memmap */
	CHECK(PageReserved(pfn_to_page(0xa0)));
	/* holes have a memmap of the zone, so the zone is still contiguous */
	CHECK(NODE_DATA(0)->node_zones[ZONE_DMA].contiguous);
	CHECK(NODE_DATA(0)->node_zones[ZONE_DMA32].contiguous);
	CHECK(memblock.current_limit == 0);	/* closed after the hand-over */
	/* the allocator works */
	{
		struct page *p = alloc_pages(GFP_KERNEL, 3);

		CHECK(p != NULL);
		if (p)
			free_pages(p, 3);
	}
}

/*
 * Two nodes: node 0 = [1 MiB, 256 MiB) (DMA, DMA32), node 1 = [4 GiB,
 * 4 GiB + 256 MiB) (Normal).  movablecore=128M means kernelcore = 511 MiB -
 * 128 MiB = 383 MiB, spread over two nodes, 191.5 MiB each.  Node 0's
 * memory lies below the movable zone (Normal), so all 255 MiB of it count as
 * kernelcore, leaving 128 MiB to place.  Node 1 then gets 128/2 = 64 MiB
 * (Linux shrinks the per-node share when less is left than a share), and
 * the second pass, with one usable node left, gives it the remaining 64 MiB.
 * So node 1 = 128 MiB kernelcore + 128 MiB ZONE_MOVABLE, node 0 none.
 */
HTEST(mm_init_two_nodes_movablecore)
{
	boot_begin(SZ_4G + 256 * SZ_1M);
	fw_memmap_add_raw(&map, 0x100000, 255 * SZ_1M, FW_MEM_RAM);
	fw_memmap_add_raw(&map, SZ_4G, 256 * SZ_1M, FW_MEM_RAM);
	bp.numa[bp.nr_numa++] = (struct numa_memblk){ 0, 256 * SZ_1M, 0, false };
	bp.numa[bp.nr_numa++] = (struct numa_memblk){ SZ_4G, SZ_4G + 256 * SZ_1M, 1, false };
	bp.numa[bp.nr_numa++] = (struct numa_memblk){ 8 * SZ_1G, 16 * SZ_1G, 1, true };
	bp.movablecore = 128 * SZ_1M;
	boot_finish();
	check_booted();
	CHECK(NODE_DATA(0)->online && NODE_DATA(1)->online);
	CHECK_EQ(NODE_DATA(1)->node_start_pfn, SZ_4G >> PAGE_SHIFT);
	CHECK_EQ(nr_numa_hotplug_blks, 1);
	{
		struct zone *m0 = &NODE_DATA(0)->node_zones[ZONE_MOVABLE];
		struct zone *m1 = &NODE_DATA(1)->node_zones[ZONE_MOVABLE];
		struct zone *n1 = &NODE_DATA(1)->node_zones[ZONE_NORMAL];

		CHECK(!populated_zone(m0));
		CHECK(populated_zone(m1));
		CHECK_EQ(m1->present_pages, (128 * SZ_1M) >> PAGE_SHIFT);
		CHECK_EQ(zone_end_pfn(n1), m1->zone_start_pfn);
		CHECK(IS_ALIGNED(m1->zone_start_pfn, MAX_ORDER_NR_PAGES));
	}
}

/* Random maps: RAM and reserved ranges anywhere below 2 GiB, unaligned and
 * overlapping; every invariant must hold after boot. */
HTEST(mm_init_random_maps)
{
	for (unsigned seed = 1; seed <= 12; seed++) {
		u64 total_ram = 0;

		srand(seed);
		boot_begin(2 * SZ_1G);
		for (int i = 0; i < 12; i++) {
			u64 start = ((u64)rand() % (2 * SZ_1G)) & ~0x3ffULL;
			u64 len = ((u64)rand() % (256 * SZ_1M)) + 1;
			u32 type = rand() % 3 ? FW_MEM_RAM : FW_MEM_RESERVED;

			if (start + len > 2 * SZ_1G)
				len = 2 * SZ_1G - start;
			fw_memmap_add_raw(&map, start, len, type);
		}
		fw_memmap_sanitize(&map);
		total_ram = fw_memmap_ram_bytes(&map);
		if (total_ram < 64 * SZ_1M)	/* too small to hold its memmap: skip */
			continue;
		mm_core_init(&bp);
		check_booted();
		if (htest_failures) {
			fprintf(stderr, "  (seed %u)\n", seed);
			break;
		}
	}
}

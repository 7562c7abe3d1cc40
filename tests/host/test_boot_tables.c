/*
 * test_boot_tables.c - the arithmetic of the boot page tables
 * (arch/x86_64/boot_tables.c): how many table pages the direct map of a
 * firmware map may need with and without 1 GiB pages (an upper bound that
 * a 4 TiB map without them puts far past the .bss pool), and which run of
 * RAM below 4 GiB boot_tables_area_pick() takes for the rest (whole pages,
 * above the first MiB, clear of the ranges to avoid, the highest that
 * fits, none when nothing fits).  The mapping itself needs the hardware
 * and is tested under QEMU (tests/qemu/test_bigmem.py boots 4 TiB without
 * 1 GiB pages).
 */
#include "htest.h"
#include <arch/paging.h>
#include <lib/string.h>

static struct fw_memmap map;

static void map_reset(void)
{
	memset(&map, 0, sizeof(map));
}

static void map_add(u64 start, u64 end, u32 type)
{
	map.map[map.nr++] = (struct fw_range){ .start = start, .end = end, .type = type };
}

/* q35 with RAM below and above the 32-bit hole. */
static void map_q35(u64 high_gib)
{
	map_reset();
	map_add(0, 0x9fc00, FW_MEM_RAM);
	map_add(0xf0000, 0x100000, FW_MEM_RESERVED);
	map_add(0x100000, 0x7ffe0000, FW_MEM_RAM);
	map_add(0x7ffe0000, 0x80000000, FW_MEM_RESERVED);
	map_add(0xfeffc000, 0xff000000, FW_MEM_RESERVED);
	if (high_gib)
		map_add(0x100000000ULL, 0x100000000ULL + (high_gib << 30), FW_MEM_RAM);
}

HTEST(boot_tables_needed_small_guest_fits_the_pool)
{
	map_q35(0);
	/* two RAM ranges: a PDPT, two end PDs (1G) or the GiBs touched, two PTs each */
	CHECK_EQ(boot_tables_needed(&map, true), 2 * (1 + 2 + 2));
	CHECK_EQ(boot_tables_needed(&map, false), (1 + 1 + 2) + (1 + 2 + 2));
	/* reserved ranges are not direct-mapped */
	map_add(0xfee00000, 0xfee01000, FW_MEM_RESERVED);
	CHECK_EQ(boot_tables_needed(&map, false), (1 + 1 + 2) + (1 + 2 + 2));
}

HTEST(boot_tables_needed_grows_with_ram_without_1g_pages)
{
	map_q35(4096 - 2);	/* 4 TiB in all */
	u64 with = boot_tables_needed(&map, true), without = boot_tables_needed(&map, false);

	/* with 1 GiB pages: a PDPT per 512 GiB touched (high RAM [4 GiB, 4098 GiB)
	 * touches nine), two end PDs and two end PTs per range */
	CHECK_EQ(with, 2 * (1 + 2 + 2) + (9 + 2 + 2));
	/* without: a PD per GiB touched, 4094 above 4 GiB, GiB 0 and 1 below */
	CHECK_EQ(without, (1 + 1 + 2) + (1 + 2 + 2) + (9 + 4094 + 2));
	CHECK(without > 512);	/* more than the .bss pool */
	/* an empty or inverted range costs nothing */
	map_reset();
	map_add(0x200000, 0x200000, FW_MEM_RAM);
	CHECK_EQ(boot_tables_needed(&map, false), 0);
	CHECK_EQ(boot_tables_needed(NULL, false), 0);
}

HTEST(boot_tables_area_pick_highest_fit_below_4g)
{
	map_q35(4094);
	/* the top of low RAM, whole pages */
	CHECK_EQ(boot_tables_area_pick(&map, 16, NULL, 0), 0x7ffe0000 - 16 * 4096);
	/* never above 4 GiB even though high RAM is bigger */
	CHECK(boot_tables_area_pick(&map, 4000, NULL, 0) < BOOT_TABLES_LIMIT);
	/* none when nothing below 4 GiB is big enough */
	CHECK_EQ(boot_tables_area_pick(&map, (0x80000000ULL >> 12), NULL, 0), 0);
	CHECK_EQ(boot_tables_area_pick(&map, 0, NULL, 0), 0);
}

HTEST(boot_tables_area_pick_avoids_ranges_and_the_first_mib)
{
	const phys_addr_t avoid[3][2] = {
		{ 0x7ff00000, 0x7ffe0000 },	/* something at the top */
		{ 0x7fe00000, 0x7fe00800 },	/* a block not page aligned */
		{ 0x200000, 0x7fd00000 },	/* the rest of it, the "image" */
	};
	u64 pages = 0x80000 >> 12;	/* 512 KiB */

	map_q35(0);
	/* below the top avoided range, above the unaligned one (rounded out) */
	CHECK_EQ(boot_tables_area_pick(&map, pages, avoid, 1), 0x7ff00000 - 0x80000);
	/* [0x7fe01000, 0x7ff00000) is 0xff000 bytes: fits 512 KiB */
	CHECK_EQ(boot_tables_area_pick(&map, pages, avoid, 2), 0x7ff00000 - 0x80000);
	/* 1 MiB no longer fits above the unaligned block: below it */
	CHECK_EQ(boot_tables_area_pick(&map, 256, avoid, 2), 0x7fe00000 - 0x100000);
	/* with the image too: the gaps are [1 MiB, 2 MiB), [0x7fd00000, 0x7fe00000)
	 * and [0x7fe01000, 0x7ff00000) */
	CHECK_EQ(boot_tables_area_pick(&map, 16, avoid, 3), 0x7ff00000 - 16 * 4096);
	CHECK_EQ(boot_tables_area_pick(&map, 256, avoid, 3), 0x7fd00000);
	CHECK_EQ(boot_tables_area_pick(&map, 512, avoid, 3), 0);
	/* [1 MiB, 2 MiB) when the upper gaps are avoided as well */
	const phys_addr_t low_only[2][2] = { { 0x200000, 0x80000000 }, { 0, 0 } };
	CHECK_EQ(boot_tables_area_pick(&map, 16, low_only, 1), 0x200000 - 16 * 4096);
	/* the low 640 KiB is RAM but below BOOT_TABLES_LOW */
	map_reset();
	map_add(0, 0x9fc00, FW_MEM_RAM);
	CHECK_EQ(boot_tables_area_pick(&map, 1, NULL, 0), 0);
}

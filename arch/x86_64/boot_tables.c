/*
 * boot_tables.c - how many page-table pages the boot direct map needs, and
 * where they go when the .bss pool is too small: the arithmetic of
 * paging_init(), without touching hardware, so the host tests check it
 * (tests/host/test_boot_tables.c).  paging.c does the mapping.
 *
 * The direct map covers every RAM, ACPI and NVS range of the firmware map.
 * With 1 GiB pages a range costs a PDPT per 512 GiB it touches and at most
 * two PDs and two PTs for its unaligned ends; without them, one PD for
 * every GiB it touches.  A guest of 4 TiB without 1 GiB pages needs 4096
 * PDs (16 MiB), far more than the 2 MiB pool in .bss, so the rest comes
 * from RAM: one run of whole pages below 4 GiB (the part the boot stub's
 * identity map reaches, so the pages can be written before the new tables
 * are live), clear of the first MiB, the kernel image and the multiboot2
 * block.  mm reserves that run in memblock like the kernel image.
 */
#include <arch/paging.h>

#define GiB		(1ULL << 30)
#define SPAN_512G	(512ULL << 30)
#define MiB2		(2ULL << 20)

/* Whether a range of this type is in the direct map (paging_init()). */
static bool direct_mapped(u32 type)
{
	return type == FW_MEM_RAM || type == FW_MEM_ACPI || type == FW_MEM_NVS;
}

/* Slots of size `span` that [start, end) touches (end > start). */
static u64 slots_touched(u64 start, u64 end, u64 span)
{
	return (end - 1) / span - start / span + 1;
}

/*
 * boot_tables_needed() - see arch/paging.h.  An upper bound: two ranges that
 * share a GiB or a 512 GiB slot count it twice.
 */
u64 boot_tables_needed(const struct fw_memmap *map, bool gbpages)
{
	u64 n = 0;

	for (u32 i = 0; map && i < map->nr; i++) {
		const struct fw_range *r = &map->map[i];
		u64 start = ALIGN_DOWN(r->start, PAGE_SIZE), end = ALIGN_UP(r->end, PAGE_SIZE);

		if (!direct_mapped(r->type) || end <= start)
			continue;
		n += slots_touched(start, end, SPAN_512G);	/* PDPTs */
		if (gbpages)
			n += 2;					/* PDs at the two ends */
		else
			n += slots_touched(start, end, GiB);	/* a PD per GiB */
		n += 2;						/* PTs at the two ends */
	}
	return n;
}

/* Does [a, a + len) overlap any of the nr ranges of avoid? */
static bool run_avoided(phys_addr_t a, u64 len, const phys_addr_t (*avoid)[2], unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		if (a < avoid[i][1] && avoid[i][0] < a + len)
			return true;
	return false;
}

/*
 * boot_tables_area_pick() - see arch/paging.h.  The highest fitting run, so
 * the kernel image and whatever the loader put low stay clear.  A RAM range
 * counts for its whole pages only.  Each candidate end steps down to just
 * below the avoided range that blocked it, so the search ends after a step
 * per avoided range and RAM range.
 */
phys_addr_t boot_tables_area_pick(const struct fw_memmap *map, u64 pages,
				  const phys_addr_t (*avoid)[2], unsigned nr)
{
	u64 len = pages * PAGE_SIZE;
	phys_addr_t best = 0;

	if (!pages || pages > BOOT_TABLES_LIMIT / PAGE_SIZE)
		return 0;
	for (u32 i = 0; map && i < map->nr; i++) {
		const struct fw_range *r = &map->map[i];
		phys_addr_t lo, hi;

		if (r->type != FW_MEM_RAM)
			continue;
		lo = MAX(ALIGN_UP(r->start, PAGE_SIZE), (phys_addr_t)BOOT_TABLES_LOW);
		hi = MIN(ALIGN_DOWN(r->end, PAGE_SIZE), (phys_addr_t)BOOT_TABLES_LIMIT);
		while (hi >= lo + len && hi - len > best) {
			phys_addr_t a = hi - len, lowest_block = hi;

			if (!run_avoided(a, len, avoid, nr)) {
				best = a;
				break;
			}
			for (unsigned k = 0; k < nr; k++)
				if (a < avoid[k][1] && avoid[k][0] < hi)
					lowest_block = MIN(lowest_block, avoid[k][0]);
			hi = ALIGN_DOWN(lowest_block, PAGE_SIZE);
		}
	}
	return best;
}

/*
 * hotplug_check.c - see hotplug_check.h.
 */
#include "htest.h"
#include "hotplug_check.h"
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/memblock.h>
#include "../../mm/buddy_internal.h"
#include <mm/memory_hotplug.h>
#include <mm/memremap.h>
#include <mm/deferred_init.h>
#include "../../mm/internal.h"
#include "mm_host.h"
#include <mm/mm_init.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>
#include <lib/string.h>

#define BLOCK_PAGES	PAGES_PER_MEMORY_BLOCK

unsigned long long (*hotplug_check_frozen_pages)(const struct zone *zone);

static struct zone *zone_of(int nid, enum zone_type z)
{
	return &NODE_DATA(nid)->node_zones[z];
}

static bool pfn_is_memory(const struct mem_section *ms, u64 pfn)
{
	if (!early_section(ms))
		return pfn_valid(pfn);
	if (ms->nr_present_pages == PAGES_PER_SECTION)
		return true;
	return memblock_is_memory(&memblock, PFN_PHYS(pfn));
}

static bool pfn_online_in(u64 pfn, const struct zone *zone)
{
	struct page *page = pfn_to_online_page(pfn);

	return page && page_zone(page) == zone;
}

/* Contract in hotplug_check.h. */
unsigned long long hotplug_check_memblock_pages(unsigned long long start_pfn,
						unsigned long long end_pfn, bool reserved)
{
	u64 lo = (u64)PFN_PHYS(start_pfn), hi = (u64)PFN_PHYS(end_pfn), bytes = 0;

	for (u32 m = 0; m < memblock.memory.cnt; m++) {
		const struct memblock_region *mr = &memblock.memory.regions[m];
		u64 ms = MAX(lo, (u64)mr->base), me = MIN(hi, (u64)(mr->base + mr->size));

		if (ms >= me)
			continue;
		if (!reserved)
			bytes += me - ms;
		for (u32 r = 0; reserved && r < memblock.reserved.cnt; r++) {
			const struct memblock_region *rr = &memblock.reserved.regions[r];
			u64 rs = MAX(ms, (u64)rr->base), re = MIN(me, (u64)(rr->base + rr->size));

			if (rs < re)
				bytes += re - rs;
		}
	}
	return bytes >> PAGE_SHIFT;
}

static void check_zone(struct zone *zone, u64 present, u64 reserved, u64 offline, u64 allocated)
{
	u64 free = 0, bad_free = 0, pending = deferred_init_zone_pending_pages(zone);
	u64 pending_free = zone->nr_free_pending;

	if (hotplug_check_frozen_pages)
		allocated += hotplug_check_frozen_pages(zone);
	/* pending hot-added sections: their free pages (what the online
	 * callback will free) counted as managed and free since the online,
	 * the same in the table; their other pages stay PageOffline */
	CHECK_EQ(pending_free, deferred_init_zone_pending_free(zone));
	CHECK(pending_free <= pending);
	CHECK_EQ(zone->present_pages, present + pending);
	CHECK_EQ(zone->managed_pages + reserved + offline + (pending - pending_free), zone->present_pages);
	CHECK_EQ(zone_nr_free(zone) + allocated, zone->managed_pages);	/* no page lost */
	CHECK_EQ(zone_nr_free_pages(zone), zone->nr_free_buddy + pending_free);
	for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			struct page *p;

			list_for_each_entry(p, &zone->free_area[o].free_list[mt], lru) {
				u64 pfn = page_to_pfn(p);

				free += 1ULL << o;
				if (!pfn_online_in(pfn, zone) || !pfn_online_in(pfn + (1ULL << o) - 1, zone) ||
				    mt == MIGRATE_ISOLATE || get_pageblock_isolate(pfn))
					bad_free++;
			}
		}
	CHECK_EQ(bad_free, 0);
	CHECK_EQ(free + (u64)zone_pcp_count(zone) + pending_free, zone_nr_free(zone));
	if (zone->idx == ZONE_DEVICE) {
		/* device ranges (memremap.h): spanned, never present or
		 * managed, their sections offline; the span ends on them */
		CHECK_EQ(zone->present_pages, 0);
		CHECK_EQ(zone->managed_pages, 0);
		if (!zone_is_empty(zone)) {
			CHECK(devmem_intersects(zone->zone_start_pfn, 1));
			CHECK(devmem_intersects(zone_end_pfn(zone) - 1, 1));
		}
	} else if (zone_is_empty(zone)) {
		CHECK_EQ(zone->present_pages, 0);
		CHECK_EQ(zone->zone_start_pfn, 0);
	} else {
		CHECK(pfn_pending(zone->zone_start_pfn) || pfn_online_in(zone->zone_start_pfn, zone));
		CHECK(pfn_pending(zone_end_pfn(zone) - 1) || pfn_online_in(zone_end_pfn(zone) - 1, zone));
		/* mechanism 1: the flag in use equals the walk's answer, and the
		 * counter-based answer equals it too (no undercount in memlab) */
		CHECK_EQ(zone->contiguous, zone_contiguous_by_walk(zone));
		CHECK_EQ(zone_contiguous_by_counter(zone), zone_contiguous_by_walk(zone));
		CHECK(zone->pages_with_online_memmap <= zone->spanned_pages);
	}
}

/* Mechanism 4: the cached auto-movable sums equal the walk, everywhere. */
static void check_auto_movable_cache(void)
{
	struct auto_movable_stats walk, cached;

	auto_movable_stats_walk(NUMA_NO_NODE, &walk);
	auto_movable_stats_cached(NUMA_NO_NODE, &cached);
	CHECK_EQ(walk.kernel_early_pages, cached.kernel_early_pages);
	CHECK_EQ(walk.movable_pages, cached.movable_pages);
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		auto_movable_stats_walk(nid, &walk);
		auto_movable_stats_cached(nid, &cached);
		CHECK_EQ(walk.kernel_early_pages, cached.kernel_early_pages);
		CHECK_EQ(walk.movable_pages, cached.movable_pages);
	}
}

/*
 * The watermarks and pcp sizes of setup_per_zone_wmarks(), recomputed from
 * today's managed pages and min_free_kbytes (itself derived from the
 * watermarks of the last recomputation, so it is taken as it is): a
 * managed_pages change that skipped setup_per_zone_wmarks() shows here.
 */
static void check_watermarks(void)
{
	unsigned long pages_min = (unsigned long)get_min_free_kbytes() >> (PAGE_SHIFT - 10);
	unsigned long lowmem_pages = 0;
	struct zone *zone;

	for_each_zone(zone)
		lowmem_pages += zone->managed_pages;
	for_each_zone(zone) {
		u64 min = lowmem_pages ? (u64)pages_min * zone->managed_pages / lowmem_pages : 0;
		u64 gap = MAX(min / 4, (u64)zone->managed_pages * (u64)get_watermark_scale_factor() / 10000);
		struct per_cpu_pages pcp = *zone_pcp(zone, 0);

		CHECK_EQ(zone->watermark[WMARK_MIN], min);
		CHECK_EQ(zone->watermark[WMARK_LOW], min + gap);
		CHECK_EQ(zone->watermark[WMARK_HIGH], min + 2 * gap);
		/* a zone of a node that add_memory() just brought online has
		 * boot-time pcp sizes until memory in it is onlined */
		if (!zone->zone_pgdat || !zone->zone_pgdat->online || !zone->managed_pages)
			continue;
		zone_pcp_init(zone);		/* batch and high only; the lists stay */
		CHECK_EQ(pcp.batch, zone_pcp(zone, 0)->batch);
		CHECK_EQ(pcp.high, zone_pcp(zone, 0)->high);
		zone_pcp(zone, 0)->batch = pcp.batch;
		zone_pcp(zone, 0)->high = pcp.high;
	}
}

void hotplug_check_invariants(void)
{
	check_auto_movable_cache();
	check_watermarks();
	static u64 present[MAX_NUMNODES][MAX_NR_ZONES], reserved[MAX_NUMNODES][MAX_NR_ZONES],
		   offline[MAX_NUMNODES][MAX_NR_ZONES], allocated[MAX_NUMNODES][MAX_NR_ZONES];
	unsigned long states[NR_MEM_STATES] = { 0 };
	unsigned long grp_kernel[MAX_MEMORY_GROUPS] = { 0 }, grp_movable[MAX_MEMORY_GROUPS] = { 0 };
	u64 bad_zone = 0, bad_span = 0, managed = 0;
	struct memory_block *mem;
	unsigned long id = 0;
	int nid;

	memset(present, 0, sizeof(present));
	memset(reserved, 0, sizeof(reserved));
	memset(offline, 0, sizeof(offline));
	memset(allocated, 0, sizeof(allocated));
	for (; (mem = memory_block_next(&id)); id++) {
		u64 start = memory_block_start_pfn(mem), end = start + BLOCK_PAGES;
		struct mem_section *ms = __pfn_to_section(start);

		states[mem->state]++;
		CHECK(present_section(ms) && valid_section(ms));
		CHECK_EQ(ms->nid, mem->nid);
		CHECK(NODE_DATA(mem->nid)->online);
		if (mem->state == MEM_OFFLINE) {
			CHECK(!online_section(ms));
			CHECK(mem->zone == NULL);
			/* a device range's blocks carry its initialised memmap;
			 * without memmap_poison= nothing is written at all, nor
			 * for a block that went offline while pending */
			if (!mem->early && !devmem_intersects(start, BLOCK_PAGES) &&
			    memmap_poison_enabled() && !memmap_unwritten_section(ms)) {
				CHECK(page_memmap_poisoned(pfn_to_page(start)));
				CHECK(page_memmap_poisoned(pfn_to_page(end - 1)));
			}
			continue;
		}
		CHECK(online_section(ms));
		CHECK(mem->zone != NULL);
		/* deferred_init=new: a pending section's free pages count as
		 * pending in check_zone(); its struct pages may not be read yet,
		 * so its reserved pages (memmap) are counted from memblock */
		if (deferred_section(ms)) {
			u64 r = hotplug_check_memblock_pages(start, end, true);

			present[mem->nid][mem->zone->idx] += r;
			reserved[mem->nid][mem->zone->idx] += r;
		}
		for (u64 pfn = start; pfn < end && !deferred_section(ms); pfn++) {
			struct page *page;
			int pnid;
			enum zone_type z;

			if (!pfn_is_memory(ms, pfn))
				continue;
			page = pfn_to_page(pfn);
			pnid = page_to_nid(page);
			z = page_zonenum(page);
			if (pnid != mem->nid || z >= MAX_NR_ZONES || (!mem->zones_mixed && page_zone(page) != mem->zone)) {
				bad_zone++;
				continue;
			}
			present[pnid][z]++;
			if (PageReserved(page))
				reserved[pnid][z]++;
			else if (PageOffline(page))
				offline[pnid][z]++;
			else if (page->page_type == PAGE_TYPE_NONE && page->refcount >= 1)
				allocated[pnid][z]++;
			if (!zone_spans_pfn(page_zone(page), pfn))
				bad_span++;
		}
		if (mem->group && mem->zone->idx == ZONE_MOVABLE)
			grp_movable[mem->group->id] += BLOCK_PAGES;
		else if (mem->group)
			grp_kernel[mem->group->id] += BLOCK_PAGES;
	}
	CHECK_EQ(bad_zone, 0);
	CHECK_EQ(bad_span, 0);
	for (int s = 0; s < NR_MEM_STATES; s++)
		CHECK_EQ(states[s], nr_memory_blocks_in_state[s]);
	for (int g = 0; g < MAX_MEMORY_GROUPS; g++) {
		struct memory_group *group = memory_group_find_by_id(g);

		if (!group)
			continue;
		CHECK_EQ(group->present_kernel_pages, grp_kernel[g]);
		CHECK_EQ(group->present_movable_pages, grp_movable[g]);
	}
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct pglist_data *pgdat = NODE_DATA(nid);
		u64 node_present = 0, start = ~0ULL, end = 0;

		if (!pgdat->online) {
			CHECK_EQ(memory_blocks_on_node(nid), 0);
			continue;
		}
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = zone_of(nid, z);

			check_zone(zone, present[nid][z], reserved[nid][z], offline[nid][z],
				   allocated[nid][z]);
			node_present += zone->present_pages;
			managed += zone->managed_pages;
			if (!zone_is_empty(zone)) {
				start = MIN(start, (u64)zone->zone_start_pfn);
				end = MAX(end, (u64)zone_end_pfn(zone));
			}
		}
		CHECK_EQ(pgdat->node_present_pages, node_present);
		CHECK_EQ(pgdat->node_start_pfn, end ? start : 0);
		CHECK_EQ(pgdat->node_spanned_pages, end ? end - start : 0);
	}
	CHECK_EQ(totalram_pages(), managed);
}


/* Contract in hotplug_check.h. */
void hotplug_boot(unsigned long long ram_bytes, unsigned long long boot_bytes)
{
	static struct fw_memmap map;
	static struct mm_boot_params bp;

	host_mm_reset(ram_bytes);
	printk_set_level(LOG_CRIT);
	fw_memmap_init(&map);
	memset(&bp, 0, sizeof(bp));
	bp.memmap = &map;
	fw_memmap_add_raw(&map, 0, boot_bytes, FW_MEM_RAM);
	fw_memmap_sanitize(&map);
	mm_core_init(&bp);
	memory_blocks_init_boot();
	hotplug_knobs_default();
}

unsigned long nr_section_roots(void)
{
	unsigned long n = 0;

	for (u64 r = 0; r < NR_SECTION_ROOTS; r++)
		n += mem_section_roots[r] != NULL;
	return n;
}

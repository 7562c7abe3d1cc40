/*
 * test_memory_blocks_boot.c - what the boot makes per section, in bulk:
 * the memmaps (mm_init.c's setup_sections(): one memblock allocation per
 * run of sections, split when the node has no room for a run in one
 * piece) and the boot's memory blocks (memory_blocks_init_boot(): one
 * pass into the empty pool, the zone of a run of blocks looked up once).
 *
 * Each is compared with what the per-section, per-block path gave, worked
 * out here from first principles: every present section has a 2 MiB-aligned
 * memmap of its own, reserved in memblock, on its node when the node had
 * room; every present section is an early online block whose zone is the
 * zone of the node whose span holds most of the section (none when two
 * spans meet in it), with the per-state and per-node counters of a
 * recount, the blocks in id order, and a block hot-added afterwards taking
 * the next slot as memory_block_create() always did.
 */
#include "htest.h"
#include "mm_host.h"
#include "hotplug_check.h"
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/memblock.h>
#include <mm/memory_hotplug.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>
#include <lib/errno.h>
#include "../../mm/internal.h"

#define MiB	(1ULL << 20)
#define GiB	(1ULL << 30)

static struct fw_memmap map;
static struct mm_boot_params bp;

static void boot_begin(u64 ram_bytes)
{
	host_mm_reset(ram_bytes);
	printk_set_level(LOG_CRIT);
	fw_memmap_init(&map);
	memset(&bp, 0, sizeof(bp));
	bp.memmap = &map;
}

static void boot_finish(void)
{
	fw_memmap_sanitize(&map);
	mm_core_init(&bp);
}

/* The zone early_block_zone() must pick for [s, e) of nid, from the spans. */
static struct zone *reference_zone(int nid, u64 s, u64 e, bool *mixed)
{
	struct zone *best = NULL;
	u64 best_pages = 0;
	int zones = 0;

	for (int z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &NODE_DATA(nid)->node_zones[z];
		u64 lo = MAX(s, (u64)zone->zone_start_pfn), hi = MIN(e, (u64)zone_end_pfn(zone));

		if (!zone->spanned_pages || lo >= hi)
			continue;
		zones++;
		if (hi - lo > best_pages) {
			best = zone;
			best_pages = hi - lo;
		}
	}
	*mixed = zones > 1;
	return best;
}

/* Every present section has its own memmap: 2 MiB aligned, reserved,
 * disjoint from every other; on its node unless want_node is false. */
static void check_memmaps(bool want_node)
{
	const u64 bytes = PAGES_PER_SECTION * sizeof(struct page);
	u64 nr = 0, prev_pa = 0, sections = 0;

	for (; sparse_next_present(&nr); nr++) {
		const struct mem_section *ms = __nr_to_section(nr);
		u64 other = 0;

		CHECK(ms->flags & SECTION_HAS_MEM_MAP);
		CHECK(IS_ALIGNED(ms->memmap_pa, SZ_2M));
		CHECK(memblock_is_reserved(&memblock, ms->memmap_pa));
		CHECK(memblock_is_reserved(&memblock, ms->memmap_pa + bytes - 1));
		if (want_node)
			CHECK_EQ(memblock_nid_of(&memblock, ms->memmap_pa), ms->nid);
		for (; sparse_next_present(&other) && other < nr; other++) {
			const struct mem_section *o = __nr_to_section(other);

			CHECK(o->memmap_pa + bytes <= ms->memmap_pa || ms->memmap_pa + bytes <= o->memmap_pa);
		}
		prev_pa = ms->memmap_pa;
		sections++;
	}
	CHECK(sections > 0);
	CHECK_EQ(mm_boot_stats.memmap_pages, sections * bytes >> PAGE_SHIFT);
	(void)prev_pa;
}

/* The boot blocks, against a recount and the reference zones. */
static void check_boot_blocks(void)
{
	unsigned long on_node[MAX_NUMNODES] = { 0 }, blocks = 0, id = 0;
	struct memory_block *mem;
	u64 nr = 0;

	for (; sparse_next_present(&nr); nr++) {
		const struct mem_section *ms = __nr_to_section(nr);
		u64 s = section_nr_to_pfn(nr);
		bool mixed;
		struct zone *zone = reference_zone(ms->nid, s, s + PAGES_PER_SECTION, &mixed);

		mem = find_memory_block_by_id((unsigned long)nr);
		CHECK(mem != NULL);
		if (!mem)
			continue;
		CHECK_EQ(mem->block_id, (unsigned long)nr);
		CHECK_EQ(mem->nid, ms->nid);
		CHECK(mem->zone == zone);
		CHECK_EQ(mem->zones_mixed, mixed);
		CHECK_EQ(mem->state, MEM_ONLINE);
		CHECK_EQ(mem->online_type, zone && zone->idx == ZONE_MOVABLE ? MMOP_ONLINE_MOVABLE :
			 MMOP_ONLINE_KERNEL);
		CHECK(mem->early && mem->in_use && !mem->group && !mem->nr_vmemmap_pages);
		on_node[ms->nid]++;
		blocks++;
	}
	/* in id order, nothing else */
	for (unsigned long prev = 0, n = 0; (mem = memory_block_next(&id)); id++, n++) {
		CHECK(n == 0 || mem->block_id > prev);
		prev = mem->block_id;
		CHECK(valid_section(__nr_to_section(mem->block_id)));
	}
	CHECK_EQ(nr_memory_blocks_in_state[MEM_ONLINE], blocks);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 0);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_GOING_OFFLINE], 0);
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		CHECK_EQ(memory_blocks_on_node(nid), on_node[nid]);
	CHECK_EQ(memory_blocks_free_slots(), memory_blocks_pool_size() - blocks);
}

/*
 * Two nodes, DMA/DMA32 on node 0 and Normal + Movable on node 1
 * (movablecore=), with a zone boundary inside a section of node 0 (16 MiB:
 * DMA | DMA32 mixed in section 0): every block's zone as the spans say.
 */
HTEST(memory_blocks_boot_zones_in_runs)
{
	boot_begin(SZ_4G + 512 * MiB);
	fw_memmap_add_raw(&map, 0x100000, 767 * MiB, FW_MEM_RAM);
	fw_memmap_add_raw(&map, SZ_4G, 512 * MiB, FW_MEM_RAM);
	bp.numa[bp.nr_numa++] = (struct numa_memblk){ 0, 768 * MiB, 0, false };
	bp.numa[bp.nr_numa++] = (struct numa_memblk){ SZ_4G, SZ_4G + 512 * MiB, 1, false };
	bp.movablecore = 256 * MiB;
	boot_finish();
	CHECK(populated_zone(&NODE_DATA(1)->node_zones[ZONE_MOVABLE]));
	CHECK(find_memory_block_by_id(0) && find_memory_block_by_id(0)->zones_mixed);
	check_memmaps(true);
	check_boot_blocks();
	hotplug_check_invariants();
}

/*
 * A block hot-added after the bulk boot path is made by
 * memory_block_create() as before: the next slot, found by id, counted
 * offline; deleting it gives the counters back.
 */
HTEST(memory_blocks_boot_then_a_block_created)
{
	struct memory_block *mem = NULL;
	unsigned long online;

	hotplug_boot(4 * GiB, GiB);
	check_boot_blocks();
	online = nr_memory_blocks_in_state[MEM_ONLINE];
	CHECK_EQ(memory_block_create(16, 0, NULL, false, &mem), 0);
	CHECK(mem && find_memory_block_by_id(16) == mem);
	CHECK_EQ(memory_block_create(3, 0, NULL, false, &mem), -EEXIST);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 1);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_ONLINE], online);
	memory_block_delete(find_memory_block_by_id(16));
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 0);
	CHECK(find_memory_block_by_id(16) == NULL);
	check_boot_blocks();
}

/*
 * RAM broken by reserved pages every 12 MiB: no memblock region holds the
 * 16 MiB memmap of the 8 sections in one piece, so the run is split until
 * its pieces fit, and every section still gets a memmap of its own.
 */
HTEST(memory_blocks_boot_memmap_run_split)
{
	boot_begin(GiB);
	fw_memmap_add_raw(&map, 0x100000, GiB - 0x100000, FW_MEM_RAM);
	for (u64 a = 12 * MiB; a < GiB; a += 12 * MiB)
		fw_memmap_add_raw(&map, a, 4096, FW_MEM_RESERVED);
	boot_finish();
	check_memmaps(true);
	check_boot_blocks();
	hotplug_check_invariants();
}

/*
 * mm_cmds_machine.h - a small simulated machine for the mm shell commands
 * (kernel/cmd_contig.c, cmd_devmem.c, cmd_hotplug.c, cmd_handles.c,
 * cmd_mm.c, cmd_mech.c, cmd_bench.c), shared by tests/host/test_mm_cmds.c
 * and tests/fuzz/fuzz_mm_cmds.c.  Include it after those .c files: it
 * reads and resets their statics (the handle table, the contig ranges).
 *
 * The machine (mcm_boot):
 *   - 4.5 GiB of simulated RAM; the firmware map says RAM is [0, 256 MiB);
 *   - node 0 = [0, 128 MiB), node 1 = [128 MiB, 256 MiB), and SRAT's
 *     hotpluggable window [4 GiB, 4.5 GiB) on node 1: four 128 MiB memory
 *     blocks, ids 32-35, that mcm_dimm_add() adds as a DIMM driver would
 *     (add_memory) and mcm_dimm_remove() takes away again;
 *   - cma=16M, so cma0 exists;
 *   - hotplug knobs, mechanism switches and the commands' tables as at boot.
 * Before it returns a block of the window is added and removed once, so
 * the section-table root the window needs (never freed) is part of the
 * boot state.
 *
 * mcm_check_owners() is the no-page-lost rule seen from the commands: a
 * walk over every online page, which must be
 *   - allocated (refcount >= 1, no type) by exactly one known owner: the
 *     boot state (mcm_baseline()), a live `alloc` handle, a refcounted
 *     `contig alloc` range, a `cma alloc` allocation, or the 2 MiB memmap
 *     of a hot-added block; or
 *   - not allocated and owned by none of them, or by exactly one frozen
 *     `contig alloc ... frozen` range (refcount 0, no type);
 * and no owner may claim a page that is not online memory.  Together with
 * hotplug_check_invariants() (free lists and zone counters recounted, with
 * the frozen ranges counted through hotplug_check_frozen_pages) a page
 * that leaks, is freed twice, or is handed to two owners shows here.
 *
 * Each mcm_* check returns NULL or a sentence saying what is wrong.
 */
#ifndef HOST_MM_CMDS_MACHINE_H
#define HOST_MM_CMDS_MACHINE_H

#include <stdio.h>
#include <string.h>
#include <kernel/fw_memmap.h>
#include <kernel/shell.h>
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/buddy.h>
#include <mm/cma.h>
#include <mm/memremap.h>
#include <mm/mechanisms.h>
#include <mm/memory_hotplug.h>
#include "mm_host.h"
#include "hotplug_check.h"

#define MCM_MiB		(1ULL << 20)
#define MCM_GiB		(1ULL << 30)
#define MCM_BOOT_RAM	(256 * MCM_MiB)
#define MCM_WINDOW	(4 * MCM_GiB)			/* the hot-add window */
#define MCM_WINDOW_SIZE	(512 * MCM_MiB)
#define MCM_SIM_RAM	(MCM_WINDOW + MCM_WINDOW_SIZE)
#define MCM_NR_PFNS	(MCM_SIM_RAM >> PAGE_SHIFT)
#define MCM_FIRST_HOT	(MCM_WINDOW / MEMORY_BLOCK_SIZE)	/* block 32 */
#define MCM_NR_HOT	(MCM_WINDOW_SIZE / MEMORY_BLOCK_SIZE)	/* 4 blocks */
#define MCM_CMA_SIZE	(16 * MCM_MiB)

#define MCM_UNUSED	__attribute__((unused))

static struct fw_memmap mcm_map;
static struct mm_boot_params mcm_bp;
static struct mechanism mcm_mech_boot[NR_MECHS];	/* the switches as linked */
static bool mcm_mech_saved;

/* Owners per pfn: low nibble refcounted owners, high nibble frozen ones. */
static u8 mcm_owner[MCM_NR_PFNS];
static u8 mcm_boot_owner[MCM_NR_PFNS];	/* allocated in the boot state */
static char mcm_why[256];		/* the last complaint */

/* An allocated page as the buddy hands it out: refcount >= 1, no type. */
static bool mcm_page_allocated(const struct page *page)
{
	return page->page_type == PAGE_TYPE_NONE && page->refcount >= 1 && !PageReserved(page);
}

/*
 * The commands' own state as at boot: no handles, no contig ranges.
 * Context: host tests.
 */
static void mcm_reset_commands(void)
{
	memset(handles, 0, sizeof(handles));
	next_handle_id = 1;
	nr_live_handles = 0;
	memset(contig_ranges, 0, sizeof(contig_ranges));
}

/* Frozen `contig alloc` pages of zone: hotplug_check_frozen_pages. */
static unsigned long long mcm_frozen_in_zone(const struct zone *zone)
{
	unsigned long long n = 0;

	for (unsigned i = 0; i < CONTIG_MAX_RANGES; i++) {
		const struct contig_range *c = &contig_ranges[i];

		if (c->nr_pages && c->frozen && page_zone(pfn_to_page(c->pfn)) == zone)
			n += c->nr_pages;
	}
	return n;
}

/* The allocated pages of every online zone now, as the boot state. */
static void mcm_baseline(void)
{
	struct zone *zone;

	memset(mcm_boot_owner, 0, sizeof(mcm_boot_owner));
	for_each_populated_zone(zone)
		for (u64 pfn = zone->zone_start_pfn; pfn < zone_end_pfn(zone) && pfn < MCM_NR_PFNS; pfn++) {
			struct page *page = pfn_to_online_page(pfn);

			if (page && page_zone(page) == zone && mcm_page_allocated(page))
				mcm_boot_owner[pfn] = 1;
		}
}

/*
 * mcm_boot() - the machine described at the top, with the commands' state
 * reset.  Context: host tests.
 */
static MCM_UNUSED void mcm_boot(void)
{
	int err;

	if (!mcm_mech_saved) {
		memcpy(mcm_mech_boot, mechanisms, sizeof(mechanisms));
		mcm_mech_saved = true;
	}
	memcpy(mechanisms, mcm_mech_boot, sizeof(mechanisms));
	cma_reset();
	devmem_reset();
	host_mm_reset(MCM_SIM_RAM);
	fw_memmap_init(&mcm_map);
	memset(&mcm_bp, 0, sizeof(mcm_bp));
	mcm_bp.memmap = &mcm_map;
	fw_memmap_add_raw(&mcm_map, 0, MCM_BOOT_RAM, FW_MEM_RAM);
	fw_memmap_sanitize(&mcm_map);
	mcm_bp.numa[mcm_bp.nr_numa++] = (struct numa_memblk){ 0, 128 * MCM_MiB, 0, false };
	mcm_bp.numa[mcm_bp.nr_numa++] = (struct numa_memblk){ 128 * MCM_MiB, MCM_BOOT_RAM, 1, false };
	mcm_bp.numa[mcm_bp.nr_numa++] = (struct numa_memblk){ MCM_WINDOW, MCM_SIM_RAM, 1, true };
	mcm_bp.cma_size = MCM_CMA_SIZE;
	mm_core_init(&mcm_bp);
	memory_blocks_init_boot();
	hotplug_knobs_default();
	mcm_reset_commands();
	hotplug_check_frozen_pages = mcm_frozen_in_zone;

	/* a block of the window once, so its section-table root is boot state */
	_Static_assert(MCM_FIRST_HOT / SECTIONS_PER_ROOT ==
		       (MCM_FIRST_HOT + MCM_NR_HOT - 1) / SECTIONS_PER_ROOT,
		       "the window needs one section-table root");
	err = add_memory(1, MCM_WINDOW, MEMORY_BLOCK_SIZE, -1, MHP_NO_AUTO_ONLINE);
	if (!err)
		err = remove_memory(MCM_WINDOW, MEMORY_BLOCK_SIZE);
	if (err) {
		fprintf(stderr, "mcm_boot: adding the hot-add window failed: %d\n", err);
		abort();
	}
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		for (int z = 0; z < MAX_NR_ZONES; z++)
			if (NODE_DATA(nid)->online)
				pcp_drain_zone(&NODE_DATA(nid)->node_zones[z]);
	mcm_baseline();
}

/* mcm_dimm_add() - a DIMM of nr blocks at window block first (0-3) on nid. */
static MCM_UNUSED int mcm_dimm_add(int nid, unsigned first, unsigned nr, unsigned flags)
{
	return add_memory(nid, MCM_WINDOW + (u64)first * MEMORY_BLOCK_SIZE,
			  (u64)nr * MEMORY_BLOCK_SIZE, -1, flags);
}

/* mcm_dimm_remove() - the DIMM's eject: offline and remove nr blocks. */
static MCM_UNUSED int mcm_dimm_remove(unsigned first, unsigned nr)
{
	return offline_and_remove_memory(MCM_WINDOW + (u64)first * MEMORY_BLOCK_SIZE,
					 (u64)nr * MEMORY_BLOCK_SIZE);
}

/* Claim [pfn, pfn + nr) for one owner; false if a page is not online memory. */
static bool mcm_claim(u64 pfn, u64 nr, bool frozen, const char *who)
{
	for (u64 p = pfn; p < pfn + nr; p++) {
		if (p >= MCM_NR_PFNS || !pfn_to_online_page(p)) {
			snprintf(mcm_why, sizeof(mcm_why), "%s claims pfn %#llx, which is not online memory",
				 who, (unsigned long long)p);
			return false;
		}
		mcm_owner[p] += frozen ? 0x10 : 1;
	}
	return true;
}

/*
 * mcm_check_owners() - the walk described at the top.  Returns NULL, or
 * the first broken rule in words.  Context: host tests.
 */
static MCM_UNUSED const char *mcm_check_owners(void)
{
	struct cma *cma = &cma_areas[0];
	unsigned long id = 0;
	struct memory_block *mem;
	struct zone *zone;

	memcpy(mcm_owner, mcm_boot_owner, sizeof(mcm_owner));
	for (unsigned i = 0; i < MM_MAX_HANDLES; i++) {
		const struct mm_handle *h = &handles[i];

		if (h->id && !mcm_claim(page_to_pfn(h->page), 1ULL << h->order, false, "a handle"))
			return mcm_why;
	}
	for (unsigned i = 0; i < CONTIG_MAX_RANGES; i++) {
		const struct contig_range *c = &contig_ranges[i];

		if (c->nr_pages && !mcm_claim(c->pfn, c->nr_pages, c->frozen, "a contig range"))
			return mcm_why;
	}
	for (unsigned i = 0; cma_area_count && i < cma->nr_mem; i++)
		if (!mcm_claim(cma->mem[i].pfn, cma->mem[i].nr_pages, false, "a cma allocation"))
			return mcm_why;
	for (; (mem = memory_block_next(&id)); id++) {
		u64 nr = pfn_to_section_nr(memory_block_start_pfn(mem));

		if (mem->early || mem->nr_vmemmap_pages)
			continue;
		if (!mcm_claim(PHYS_PFN(__nr_to_section(nr)->memmap_pa), PAGES_PER_MEMORY_BLOCK / 64,
			       false, "a hot-added block's memmap"))
			return mcm_why;
	}
	for_each_populated_zone(zone) {
		for (u64 pfn = zone->zone_start_pfn; pfn < zone_end_pfn(zone); pfn++) {
			struct page *page = pfn_to_online_page(pfn);
			u8 o;

			if (!page || page_zone(page) != zone || PageReserved(page) || PageOffline(page))
				continue;
			o = pfn < MCM_NR_PFNS ? mcm_owner[pfn] : 0;
			if (mcm_page_allocated(page) ? o == 1 : (o == 0 || (o == 0x10 && page->refcount == 0 &&
									     page->page_type == PAGE_TYPE_NONE)))
				continue;
			snprintf(mcm_why, sizeof(mcm_why),
				 "pfn %#llx (zone %s): refcount %d, type %#x, %u owners and %u frozen owners",
				 (unsigned long long)pfn, zone->name, page->refcount, page->page_type, o & 15,
				 o >> 4);
			return mcm_why;
		}
	}
	return NULL;
}

/* Every zone's per-CPU list into the buddy. */
static MCM_UNUSED void mcm_drain_all(void)
{
	struct zone *zone;

	for_each_populated_zone(zone)
		pcp_drain_zone(zone);
}

#endif

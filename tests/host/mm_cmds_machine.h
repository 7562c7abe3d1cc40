/*
 * mm_cmds_machine.h - a small simulated machine for the mm shell commands
 * (shell/cmd_contig.c, cmd_devmem.c, cmd_hotplug.c, cmd_handles.c,
 * cmd_mm.c, cmd_mech.c, cmd_bench.c) and the virtio-mem driver, shared by
 * tests/host/test_mm_cmds.c and tests/fuzz/fuzz_mm_cmds.c.  Include it
 * after those .c files and after drivers/virtio/virtio_pci.c,
 * virtio_mem.c and tests/host/virtio_mem_fake.h: it reads and resets
 * their statics (the handle table, the contig ranges, the driver's
 * devices).
 *
 * The machine (mcm_boot):
 *   - 5 GiB of simulated RAM; the firmware map says RAM is [0, 256 MiB);
 *   - node 0 = [0, 128 MiB), node 1 = [128 MiB, 256 MiB), and SRAT's
 *     hotpluggable window [4 GiB, 5 GiB) on node 1 (QEMU's device-memory
 *     window, where DIMMs and virtio-mem regions both go);
 *   - in its first half, [4 GiB, 4.5 GiB), four 128 MiB memory blocks,
 *     ids 32-35, that mcm_dimm_add() adds as the ACPI DIMM driver would
 *     (add_memory, MHP_MEMMAP_ON_MEMORY when the memmap_on_memory knob is
 *     set) and mcm_dimm_remove() takes away again;
 *   - in its second half, [4.5 GiB, 5 GiB), the region of a virtio-mem
 *     device (virtio_mem_fake.h, QEMU's behaviour, 2 MiB blocks,
 *     proximity domain 1 = node 1, requested size 0), probed through the
 *     real virtio-pci transport: memory blocks 36-39 appear and go as it
 *     plugs and unplugs; mcm_vmem_request() is the host's qom-set of
 *     requested-size, mcm_vmem_poll() the driver's poller some time later;
 *   - cma=16M, so cma0 exists;
 *   - hotplug knobs, mechanism switches and the commands' tables as at boot.
 * Before it returns a block of the window is added and removed once, so
 * the section-table root the window needs (never freed) is part of the
 * boot state, and so are the device's queue and bookkeeping pages.
 *
 * mcm_check_owners() is the no-page-lost rule seen from the commands: a
 * walk over every online page, which must be
 *   - allocated (refcount >= 1, no type) by exactly one known owner: the
 *     boot state (mcm_baseline()), a live `alloc` handle, a refcounted
 *     `contig alloc` range, a `cma alloc` allocation, or the 2 MiB memmap
 *     of a hot-added block that took it from the page allocator; or
 *   - not allocated and owned by none of them, or by exactly one frozen
 *     `contig alloc ... frozen` range (refcount 0, no type); or
 *   - a page of an unplugged virtio-mem sub-block in an online block,
 *     owned by virtio-mem alone: PageOffline, refcount 0, not free; every
 *     PageOffline page must be one; or
 *   - one of the first 512 pages of a memmap_on_memory block (the block's
 *     own struct pages), owned by that memmap alone: PG_reserved,
 *     PGTY_TABLE, never free, never handed out; or
 *   - another PG_reserved page (boot reservations), owned by nobody;
 * and no owner may claim a page that is not online memory.  The
 * virtio-mem driver's own bookkeeping is checked too (fvm_check_driver():
 * bitmaps, per-state counters, the blocks of its memory group, its view
 * against the device's).  Together with
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
#include <lib/fw_memmap.h>
#include <shell/shell.h>
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include "../../mm/buddy_internal.h"
#include <mm/cma.h>
#include <mm/memremap.h>
#include <mm/mechanisms.h>
#include <mm/memory_hotplug.h>
#include "mm_host.h"
#include "hotplug_check.h"

#define MCM_MiB		(1ULL << 20)
#define MCM_GiB		(1ULL << 30)
#define MCM_BOOT_RAM	(256 * MCM_MiB)
#define MCM_WINDOW	(4 * MCM_GiB)			/* the DIMMs' part of the window */
#define MCM_WINDOW_SIZE	(512 * MCM_MiB)
#define MCM_VMEM	(MCM_WINDOW + MCM_WINDOW_SIZE)	/* the virtio-mem region */
#define MCM_VMEM_SIZE	(512 * MCM_MiB)
#define MCM_VMEM_BS	(2 * MCM_MiB)			/* its device block size, QEMU's */
#define MCM_SIM_RAM	(MCM_VMEM + MCM_VMEM_SIZE)
#define MCM_NR_PFNS	(MCM_SIM_RAM >> PAGE_SHIFT)
#define MCM_FIRST_HOT	(MCM_WINDOW / MEMORY_BLOCK_SIZE)	/* block 32 */
#define MCM_NR_HOT	(MCM_WINDOW_SIZE / MEMORY_BLOCK_SIZE)	/* 4 blocks */
#define MCM_FIRST_VMEM	(MCM_VMEM / MEMORY_BLOCK_SIZE)		/* block 36 */
#define MCM_NR_VMEM	(MCM_VMEM_SIZE / MEMORY_BLOCK_SIZE)	/* 4 blocks */
#define MCM_END_BLOCK	(MCM_FIRST_VMEM + MCM_NR_VMEM)		/* 40: past the window */
#define MCM_CMA_SIZE	(16 * MCM_MiB)

_Static_assert(MCM_SIM_RAM <= FVM_SIM_RAM, "the fake device tracks blocks up to FVM_SIM_RAM");

#define MCM_UNUSED	__attribute__((unused))

static struct fw_memmap mcm_map;
static struct mm_boot_params mcm_bp;

/* Owners per pfn: low nibble refcounted owners, high nibble frozen ones. */
static u8 mcm_owner[MCM_NR_PFNS];
static u8 mcm_boot_owner[MCM_NR_PFNS];	/* allocated in the boot state */
static char mcm_why[256];		/* the last complaint */

/* Owners that keep a page out of the page allocator's hands, per pfn. */
enum mcm_keeper {
	MCM_KEPT_NONE,		/* an ordinary page: free or allocated */
	MCM_KEPT_VMEM,		/* an unplugged virtio-mem sub-block (PageOffline) */
	MCM_KEPT_MEMMAP,	/* a memmap_on_memory block's own memmap (reserved, table) */
};
static u8 mcm_keeper[MCM_NR_PFNS];	/* enum mcm_keeper */

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

	mech_reset();	/* the switches as linked */
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
	mcm_bp.numa[mcm_bp.nr_numa++] = (struct numa_memblk){ MCM_WINDOW, MCM_SIM_RAM, 1, true };	/* DIMMs and virtio-mem */
	mcm_bp.cma_size = MCM_CMA_SIZE;
	mm_core_init(&mcm_bp);
	memory_blocks_init_boot();
	hotplug_knobs_default();
	mcm_reset_commands();
	hotplug_check_frozen_pages = mcm_frozen_in_zone;

	/* a block of the window once, so its section-table root is boot state */
	_Static_assert(MCM_FIRST_HOT / SECTIONS_PER_ROOT == (MCM_END_BLOCK - 1) / SECTIONS_PER_ROOT,
		       "the window needs one section-table root");
	err = add_memory(1, MCM_WINDOW, MEMORY_BLOCK_SIZE, -1, MHP_NO_AUTO_ONLINE);
	if (!err)
		err = remove_memory(MCM_WINDOW, MEMORY_BLOCK_SIZE);
	if (err) {
		fprintf(stderr, "mcm_boot: adding the hot-add window failed: %d\n", err);
		abort();
	}

	/* the virtio-mem device: honest, 2 MiB blocks, domain 1 = node 1, nothing requested */
	fvm_driver_reset();
	fvm_nr_pxm_nodes = 2;
	fvm_pxm_of_node[1] = 1;
	fvm_setup(MCM_VMEM_BS, 1, MCM_VMEM, MCM_VMEM_SIZE, MCM_VMEM_SIZE, 0, 0);
	err = fvm_probe();
	if (err || !vmem_devs[0].in_use) {
		fprintf(stderr, "mcm_boot: the virtio-mem probe failed: %d\n", err);
		abort();
	}
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		for (int z = 0; z < MAX_NR_ZONES; z++)
			if (NODE_DATA(nid)->online)
				pcp_drain_zone(&NODE_DATA(nid)->node_zones[z]);
	mcm_baseline();
}

/*
 * mcm_dimm_add() - a DIMM of nr blocks at window block first (0-3) on nid,
 * added as drivers/acpi/memhp.c does: with MHP_MEMMAP_ON_MEMORY when the
 * memmap_on_memory knob is set.
 */
static MCM_UNUSED int mcm_dimm_add(int nid, unsigned first, unsigned nr)
{
	return add_memory(nid, MCM_WINDOW + (u64)first * MEMORY_BLOCK_SIZE,
			  (u64)nr * MEMORY_BLOCK_SIZE, -1,
			  memhp_get_memmap_on_memory() ? MHP_MEMMAP_ON_MEMORY : MHP_NONE);
}

/* mcm_dimm_remove() - the DIMM's eject: offline and remove nr blocks. */
static MCM_UNUSED int mcm_dimm_remove(unsigned first, unsigned nr)
{
	return offline_and_remove_memory(MCM_WINDOW + (u64)first * MEMORY_BLOCK_SIZE,
					 (u64)nr * MEMORY_BLOCK_SIZE);
}

/* The virtio-mem device of the machine. */
static MCM_UNUSED struct vmem_dev *mcm_vmem(void)
{
	return &vmem_devs[0];
}

/*
 * mcm_vmem_request() - the host sets the device's requested-size (QEMU's
 * qom-set); the driver sees it at its next poll.  Context: host tests.
 */
static MCM_UNUSED void mcm_vmem_request(u64 size)
{
	fvm_request_size(size);
}

/* mcm_vmem_poll() - ticks (10 ms each) later, the driver's poller runs. */
static MCM_UNUSED void mcm_vmem_poll(unsigned ticks)
{
	fvm_poll(ticks);
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

/* Mark [pfn, pfn + nr) as kept by one keeper; false if a page is not online memory or kept twice. */
static bool mcm_keep(u64 pfn, u64 nr, enum mcm_keeper k, const char *who)
{
	for (u64 p = pfn; p < pfn + nr; p++) {
		if (p >= MCM_NR_PFNS || !pfn_to_online_page(p) || mcm_keeper[p] != MCM_KEPT_NONE) {
			snprintf(mcm_why, sizeof(mcm_why), "%s holds pfn %#llx, which is %s",
				 who, (unsigned long long)p,
				 p < MCM_NR_PFNS && mcm_keeper[p] ? "held by another keeper too" :
				 "not online memory");
			return false;
		}
		mcm_keeper[p] = (u8)k;
	}
	return true;
}

/* Every unplugged sub-block of the device's online blocks: kept by virtio-mem. */
static bool mcm_keep_vmem_unplugged(void)
{
	struct vmem_dev *vm = mcm_vmem();
	u64 sb_pages;

	if (!vm->in_use)
		return true;
	sb_pages = vm->sb_size >> PAGE_SHIFT;
	for (unsigned i = 0; i < vm->nr_mbs; i++) {
		struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + i);

		if (vm->mb_state[i] == VMEM_MB_UNUSED || !mem || mem->state != MEM_ONLINE)
			continue;
		for (unsigned sb = 0; sb < vm->sb_per_mb; sb++)
			if (!vmem_sb_plugged(vm, i, sb) &&
			    !mcm_keep(PHYS_PFN(vmem_sb_addr(vm, i, sb)), sb_pages, MCM_KEPT_VMEM,
				      "an unplugged virtio-mem sub-block"))
				return false;
	}
	return true;
}

/*
 * The page at pfn (online, in zone, o owners claimed it) as its keeper
 * says: a kept page has no other owner and the state its keeper gives it;
 * a PageOffline page is kept by virtio-mem; a PGTY_TABLE page of hot-added
 * memory by its block's memmap; another PG_reserved page is nobody's.
 */
static bool mcm_kept_page_ok(u64 pfn, const struct page *page, const struct zone *zone, u8 o)
{
	u8 k = pfn < MCM_NR_PFNS ? mcm_keeper[pfn] : MCM_KEPT_NONE;
	const char *bad = NULL;

	if (k == MCM_KEPT_VMEM && !(PageOffline(page) && page->refcount == 0))
		bad = "an unplugged virtio-mem sub-block's page is not PageOffline with refcount 0";
	else if (k == MCM_KEPT_MEMMAP && !(PageReserved(page) && page_has_type(page, PGTY_TABLE)))
		bad = "a memmap_on_memory page is not PG_reserved PGTY_TABLE";
	else if (k != MCM_KEPT_NONE && o)
		bad = "a kept page is claimed by another owner as well";
	else if (k != MCM_KEPT_VMEM && PageOffline(page))
		bad = "a PageOffline page that no unplugged virtio-mem sub-block explains";
	else if (k != MCM_KEPT_MEMMAP && page_has_type(page, PGTY_TABLE) && !mcm_boot_owner[pfn] &&
		 pfn >= PHYS_PFN(MCM_WINDOW))
		bad = "a PGTY_TABLE page of hot-added memory that is no block's own memmap";
	else if (k == MCM_KEPT_NONE && PageReserved(page) && o)
		bad = "a PG_reserved page is claimed by an owner";
	if (!bad)
		return true;
	snprintf(mcm_why, sizeof(mcm_why),
		 "pfn %#llx (zone %s): %s (refcount %d, type %#x, flags %#llx, %u owners, %u frozen owners)",
		 (unsigned long long)pfn, zone->name, bad, page->refcount, page->page_type,
		 (unsigned long long)page->flags, o & 15, o >> 4);
	return false;
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
	memset(mcm_keeper, MCM_KEPT_NONE, sizeof(mcm_keeper));
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
		u64 start_pfn = memory_block_start_pfn(mem);
		u64 nr = pfn_to_section_nr(start_pfn);

		if (mem->early)
			continue;
		if (mem->nr_vmemmap_pages) {
			/* its own memmap, in its first pages; not online memory while offline */
			if (mem->state == MEM_ONLINE &&
			    !mcm_keep(start_pfn, mem->nr_vmemmap_pages, MCM_KEPT_MEMMAP,
				      "a memmap_on_memory block's own memmap"))
				return mcm_why;
			continue;
		}
		if (!mcm_claim(PHYS_PFN(__nr_to_section(nr)->memmap_pa), PAGES_PER_MEMORY_BLOCK / 64,
			       false, "a hot-added block's memmap"))
			return mcm_why;
	}
	if (!mcm_keep_vmem_unplugged())
		return mcm_why;
	for_each_populated_zone(zone) {
		for (u64 pfn = zone->zone_start_pfn; pfn < zone_end_pfn(zone); pfn++) {
			struct page *page;
			u8 o;

			if (!online_section(__pfn_to_section(pfn))) {	/* a hole between blocks */
				pfn = ALIGN_DOWN(pfn, PAGES_PER_SECTION) + PAGES_PER_SECTION - 1;
				continue;
			}
			page = pfn_to_online_page(pfn);
			if (!page || page_zone(page) != zone)
				continue;
			o = pfn < MCM_NR_PFNS ? mcm_owner[pfn] : 0;
			if (!mcm_kept_page_ok(pfn, page, zone, o))
				return mcm_why;
			if (PageReserved(page) || PageOffline(page))
				continue;
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
	/* last: the walk's complaints name the page, the driver's rules only a line */
	if (mcm_vmem()->in_use) {
		int line = fvm_check_driver(mcm_vmem(), true);

		if (line) {
			snprintf(mcm_why, sizeof(mcm_why),
				 "virtio-mem: the driver's bookkeeping breaks the rule at virtio_mem_fake.h:%d",
				 line);
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

/*
 * mm_init.c - from a firmware memory map to a working page allocator.
 *
 * mm_core_init() runs once at boot and reads like the list of what a
 * physical memory manager needs, in the order each step needs the previous:
 *
 *   1. memblock: RAM from the firmware map; reservations (first MiB, kernel
 *      image, multiboot2 block);
 *   2. nodes: SRAT ranges set the node of each memblock region;
 *   3. sections: every section with RAM becomes present, gets 2 MiB of
 *      struct pages from memblock (on its own node), mapped in the vmemmap;
 *   4. zones: DMA/DMA32/Normal spans from fixed address limits, and
 *      ZONE_MOVABLE from kernelcore=/movablecore= (Linux's rule, below);
 *   5. memmap: every struct page of RAM initialised by memmap_init_range()
 *      (per page or from a template, whichever design memmap_init selects),
 *      holes as reserved pages, memblock-reserved RAM marked PG_reserved;
 *      with deferred_init=new only the sections deferred_init_plan() keeps
 *      early, the others left pending for mm/deferred_init.c, which runs
 *      the same window functions on them later;
 *   6. hand-over: each free memblock range given to the buddy allocator in
 *      the largest naturally aligned blocks (up to order 10) by
 *      free_pfn_range_to_buddy() (deferred_init=new: of the early sections
 *      only); memblock is closed to allocations (its lists stay, for the
 *      pending sections);
 *   7. per-zone settings: pcp batch/high, zonelists, watermarks and the
 *      `contiguous` flag (zone_update_contiguous(): the walk or the counter,
 *      whichever design contig_check selects).
 *
 * Context: (boot).
 */
#include <mm/mm_init.h>
#include <mm/memmap_init.h>
#include <mm/memblock.h>
#include <mm/sparse.h>
#include <mm/mmzone.h>
#include <mm/gfp.h>
#include "buddy_internal.h"
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <mm/cma.h>
#include <mm/deferred_init.h>
#include "internal.h"
#include <lib/string.h>
#include <lib/printk.h>

struct mm_boot_stats mm_boot_stats;	/* [c] */
struct numa_memblk numa_hotplug_blks[MM_MAX_NUMA_BLKS];	/* [c] */
u32 nr_numa_hotplug_blks;	/* [c] */

/* Highest pfn (exclusive) of each zone by address; Movable/Device are
 * placed by other rules. */
static const u64 zone_limit_pfn[MAX_NR_ZONES] = {
	[ZONE_DMA] = SZ_16M >> PAGE_SHIFT,
	[ZONE_DMA32] = SZ_4G >> PAGE_SHIFT,
	[ZONE_NORMAL] = MAX_PFN,
};

/* The zone that ZONE_MOVABLE is carved from: the highest one with memory. */
static enum zone_type movable_zone;	/* [c] */

/* ---- early allocations from memblock -------------------------------------- */

static phys_addr_t boot_alloc_zeroed_page(void)
{
	phys_addr_t pa = memblock_phys_alloc_range(&memblock, PAGE_SIZE, PAGE_SIZE, 0,
						   MEMBLOCK_ALLOC_ANYWHERE, NUMA_NO_NODE);

	if (pa)
		memset(mm_phys_to_virt(pa), 0, PAGE_SIZE);
	return pa;
}

/* memory_blocks_size_pool()'s allocator at boot: memblock, kept for good. */
static void *boot_pool_alloc(u64 bytes)
{
	phys_addr_t pa = memblock_phys_alloc_range(&memblock, bytes, PAGE_SIZE, 0,
						   MEMBLOCK_ALLOC_ANYWHERE, NUMA_NO_NODE);

	return pa ? mm_phys_to_virt(pa) : NULL;
}

/*
 * The block pool from the map: one slot per memory block up to the end of
 * boot RAM or of the highest SRAT hotplug range, whichever is higher (a
 * block id is its address / 128 MiB, so that many ids can exist); and
 * deferred init's hot-add table, one entry per section up to the same end.
 */
static void size_block_pool(void)
{
	u64 end = memblock_end_of_DRAM(&memblock);

	for (u32 i = 0; i < nr_numa_hotplug_blks; i++)
		end = MAX(end, (u64)numa_hotplug_blks[i].end);
	memory_blocks_size_pool(ALIGN_UP(end, MEMORY_BLOCK_SIZE) / MEMORY_BLOCK_SIZE, boot_pool_alloc);
	deferred_init_hotplug_size(end, boot_pool_alloc);	/* the same sections, lazily onlined */
}

static void *boot_root_alloc(void *ctx)
{
	phys_addr_t pa = boot_alloc_zeroed_page();

	return pa ? mm_phys_to_virt(pa) : NULL;
}

/* After the hand-over: page tables and section roots come from the buddy. */
/*
 * Page tables live for as long as the memory they map, so they are kept
 * metadata (alloc_pages_kept(): low memory first, rather than the newest
 * hot-added block, where one table page would keep that block from ever
 * being unplugged).
 */
static phys_addr_t buddy_alloc_zeroed_page(void)
{
	struct page *page = alloc_pages_kept(__GFP_ZERO | __GFP_NOWARN, 0);

	return page ? page_to_phys(page) : 0;
}

/*
 * A page-table page unmapping emptied: back to the buddy.  A page memblock
 * handed out at boot is PageReserved and counted in no zone's managed
 * pages; it stays reserved (false), as boot memory's tables only empty if
 * boot memory goes.  Context: (main).
 */
static bool buddy_release_pt_page(phys_addr_t pa)
{
	struct page *page = pfn_to_page(pa >> PAGE_SHIFT);

	if (PageReserved(page))
		return false;
	free_pages(page, 0);
	return true;
}

/* ---- step 1 and 2: memblock and nodes -------------------------------------- */

static void setup_memblock(const struct mm_boot_params *bp)
{
	const struct fw_memmap *map = bp->memmap;

	memblock_init(&memblock);
	for (u32 i = 0; i < map->nr; i++)
		if (map->map[i].type == FW_MEM_RAM &&
		    memblock_add(&memblock, map->map[i].start,
				 map->map[i].end - map->map[i].start))
			pr_warn("memblock: no room for RAM [%#llx-%#llx) (the memory list holds %u regions); ignored",
				(unsigned long long)map->map[i].start,
				(unsigned long long)map->map[i].end, MEMBLOCK_MAX_REGIONS);
	/* Real-mode leftovers, BIOS data and option ROMs live in the first MiB. */
	if (memblock_reserve(&memblock, 0, SZ_1M))
		panic("memblock: cannot reserve the first MiB");
	for (u32 i = 0; i < bp->nr_reserved; i++) {
		/* fatal: the range would be handed out while the kernel uses it */
		if (memblock_reserve(&memblock, bp->reserved[i].start,
				     bp->reserved[i].end - bp->reserved[i].start))
			panic("memblock: cannot reserve [%#llx-%#llx) %s: the reserved list "
			      "(%u regions) is full", (unsigned long long)bp->reserved[i].start,
			      (unsigned long long)bp->reserved[i].end, bp->reserved[i].what,
			      MEMBLOCK_MAX_REGIONS);
		pr_info("memblock: reserved [%#llx-%#llx) %s",
			(unsigned long long)bp->reserved[i].start,
			(unsigned long long)bp->reserved[i].end, bp->reserved[i].what);
	}
}

static void setup_nodes(const struct mm_boot_params *bp)
{
	for (u32 i = 0; i < bp->nr_numa; i++) {
		const struct numa_memblk *b = &bp->numa[i];

		if (b->nid < 0 || b->nid >= MAX_NUMNODES || b->end <= b->start) {
			pr_warn("numa: ignoring range [%#llx-%#llx) of node %d",
				(unsigned long long)b->start, (unsigned long long)b->end, b->nid);
			continue;
		}
		memblock_set_node(&memblock, b->start, b->end - b->start, b->nid);
		if (b->hotpluggable && nr_numa_hotplug_blks < MM_MAX_NUMA_BLKS)
			numa_hotplug_blks[nr_numa_hotplug_blks++] = *b;
	}
	/* memory no SRAT entry claims belongs to node 0 (through the setter,
	 * so touching node-0 regions merge) */
	for (u32 i = 0; i < memblock.memory.cnt; ) {
		const struct memblock_region *r = &memblock.memory.regions[i];

		if (r->nid == NUMA_NO_NODE) {
			memblock_set_node(&memblock, r->base, r->size, 0);
			i = 0;	/* the list may have been rewritten */
			continue;
		}
		i++;
	}
	for (u32 i = 0; i < memblock.memory.cnt; i++)
		NODE_DATA(memblock.memory.regions[i].nid)->online = true;
	for (int a = 0; a < MAX_NUMNODES; a++) {
		NODE_DATA(a)->node_id = a;
		for (int b = 0; b < MAX_NUMNODES; b++)
			numa_distance[a][b] = bp->distance[a][b] ? bp->distance[a][b] :
					      (a == b ? 10 : 20);
	}
}

/* ---- step 3: sections and the vmemmap ------------------------------------- */

/*
 * The memmap's own backing, as runs of physical memory.  setup_sections()
 * takes it from memblock a run of sections at a time, so its 2 MiB chunks
 * form a few long runs (one per run of sections of a node).  deferred_init_plan() asks how much of a
 * section is memmap (boot_memmap_bytes_in()): a section whose only
 * reservation is memmap can wait, because nobody owns those pages as
 * pages.  More runs than the table holds (not seen on any machine: it would
 * take 64 separate pieces) and every answer is 0 from then on: those
 * sections are initialised at boot, slower but never wrong.
 */
#define BOOT_MEMMAP_RUNS	64
static struct { phys_addr_t lo, hi; } boot_memmap_run[BOOT_MEMMAP_RUNS];	/* [c] */
static u32 boot_memmap_runs;	/* [c] */
static bool boot_memmap_runs_full;	/* [c] */

static void boot_memmap_note(phys_addr_t pa, u64 bytes)
{
	for (u32 i = 0; i < boot_memmap_runs; i++) {
		if (pa + bytes == boot_memmap_run[i].lo) {
			boot_memmap_run[i].lo = pa;
			return;
		}
		if (pa == boot_memmap_run[i].hi) {
			boot_memmap_run[i].hi += bytes;
			return;
		}
	}
	if (boot_memmap_runs == BOOT_MEMMAP_RUNS) {
		boot_memmap_runs_full = true;
		return;
	}
	boot_memmap_run[boot_memmap_runs].lo = pa;
	boot_memmap_run[boot_memmap_runs++].hi = pa + bytes;
}

/* Contract in internal.h. */
u64 boot_memmap_bytes_in(phys_addr_t lo, phys_addr_t hi)
{
	u64 bytes = 0;

	if (boot_memmap_runs_full)
		return 0;
	for (u32 i = 0; i < boot_memmap_runs; i++) {
		phys_addr_t s = MAX(lo, boot_memmap_run[i].lo), e = MIN(hi, boot_memmap_run[i].hi);

		if (s < e)
			bytes += e - s;
	}
	return bytes;
}

/*
 * The memmap of sections [first, first + n), all present and on node nid:
 * one memblock allocation of n 2 MiB pieces on the node, mapped in one
 * call (2 MiB pages, PD after PD), section i's struct pages at piece i.
 * When the node has no room for the whole run in one piece, the two
 * halves are tried apart, down to a single section, which may then come
 * from any node as before (a section whose memmap cannot be had at all
 * stops the boot with its number).
 */
static void setup_memmap_run(u64 first, u64 n, int nid)
{
	const u64 bytes = PAGES_PER_SECTION * sizeof(struct page);
	phys_addr_t pa = memblock_phys_alloc_range(&memblock, n * bytes, SZ_2M, 0,
						   MEMBLOCK_ALLOC_ANYWHERE, nid);
	int err;

	if (!pa && n > 1) {
		setup_memmap_run(first, n / 2, nid);
		setup_memmap_run(first + n / 2, n - n / 2, nid);
		return;
	}
	if (!pa)
		pa = memblock_phys_alloc_try_nid(&memblock, bytes, SZ_2M, nid);
	if (!pa)
		panic("sparse: no memory for the memmap of section %llu (node %d, %llu KiB)",
		      (unsigned long long)first, nid, (unsigned long long)(bytes >> 10));
	err = mm_vmemmap_populate(section_nr_to_pfn(first), section_nr_to_pfn(first + n), pa);
	if (err)
		panic("sparse: cannot map the memmap of sections %llu-%llu: error %d",
		      (unsigned long long)first, (unsigned long long)(first + n - 1), err);
	for (u64 i = 0; i < n; i++)
		sparse_set_memmap(first + i, pa + i * bytes);
	boot_memmap_note(pa, n * bytes);
	mm_boot_stats.memmap_pages += (n * bytes) >> PAGE_SHIFT;
}

/*
 * Step 3: every section with RAM present, and its memmap allocated and
 * mapped a run at a time: a run is consecutive present sections of one
 * node (a 4 TiB machine has one run of 32768 sections above 1 TiB and one
 * of 16 below 2 GiB), so the boot makes a few memblock allocations and
 * fills page directories 512 entries at a time, where it used to make one
 * allocation and one page-table walk per section (some 10 us each under
 * TCG, 0.3 s at 4 TiB).  Within a run section i's memmap follows section
 * i - 1's; the range the memmaps take is the same as one allocation per
 * section top-down gave (the top of the node's RAM), the page-table pages
 * now lie below it rather than between its pieces.
 */
static void setup_sections(void)
{
	u64 nr = 0;

	boot_memmap_runs = 0;
	boot_memmap_runs_full = false;

	for (u32 i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		int err = sparse_add_present(PFN_UP(r->base), PFN_DOWN(r->base + r->size),
					     r->nid, true, boot_root_alloc, NULL);

		if (err)
			panic("sparse: cannot add [%#llx-%#llx) of node %d: error %d",
			      (unsigned long long)r->base, (unsigned long long)(r->base + r->size),
			      r->nid, err);
	}
	while (sparse_next_present(&nr)) {
		int nid = __nr_to_section(nr)->nid;
		u64 n = 1;

		while (nr + n < NR_MEM_SECTIONS) {
			const struct mem_section *ms = __nr_to_section(nr + n);

			if (!ms || !present_section(ms) || ms->nid != nid)
				break;
			n++;
		}
		setup_memmap_run(nr, n, nid);
		nr += n;
	}
}

/* ---- step 4: zones -------------------------------------------------------- */

/* Pages of memblock memory of nid inside [start, end). */
static u64 memory_pages_in(int nid, u64 start, u64 end)
{
	u64 pages = 0;

	for (u32 i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		u64 s = MAX(PFN_UP(r->base), start), e = MIN(PFN_DOWN(r->base + r->size), end);

		if ((nid == NUMA_NO_NODE || r->nid == nid) && s < e)
			pages += e - s;
	}
	return pages;
}

static u64 parse_core(u64 value, bool percent, u64 total_pages)
{
	if (percent)
		return total_pages * MIN(value, 100ULL) / 100;
	return value >> PAGE_SHIFT;
}

/*
 * ZONE_MOVABLE placement, Linux's rule (find_zone_movable_pfns_for_nodes):
 * "kernelcore" pages may hold any allocation, the rest only movable ones.
 * movablecore=X is turned into kernelcore = total - X.  Kernelcore is
 * spread evenly over the nodes with memory; memory below the movable zone
 * (DMA, and DMA32 when Normal exists) counts as kernelcore automatically.
 * Each node's ZONE_MOVABLE starts where its share of kernelcore ends,
 * rounded up to MAX_ORDER_NR_PAGES.  Nodes whose share does not fit pass
 * the remainder on (the outer loop).  node_mem_end[nid] is the pfn after
 * node nid's last memblock memory (setup_zones()).  Context: (boot).
 */
static void find_zone_movable_pfns(const struct mm_boot_params *bp, const u64 *node_mem_end,
				   u64 *zone_movable_pfn)
{
	u64 total = memory_pages_in(NUMA_NO_NODE, 0, MAX_PFN);
	u64 required_kernelcore = 0, usable_startpfn;
	int usable_nodes = 0, nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++)
		zone_movable_pfn[nid] = 0;
	movable_zone = ZONE_DMA;
	for (int z = ZONE_NORMAL; z > ZONE_DMA; z--)
		if (memory_pages_in(NUMA_NO_NODE, z == ZONE_DMA32 ? zone_limit_pfn[ZONE_DMA] :
				    zone_limit_pfn[ZONE_DMA32], zone_limit_pfn[z])) {
			movable_zone = (enum zone_type)z;
			break;
		}
	if (bp->kernelcore)
		required_kernelcore = parse_core(bp->kernelcore, bp->kernelcore_percent, total);
	else if (bp->movablecore) {
		u64 movable = parse_core(bp->movablecore, bp->movablecore_percent, total);

		required_kernelcore = total > movable ? total - movable : 0;
	} else {
		return;
	}
	if (!required_kernelcore || required_kernelcore >= total)
		return;
	usable_startpfn = movable_zone == ZONE_DMA ? 0 : zone_limit_pfn[movable_zone - 1];
	for_each_online_node(nid)
		usable_nodes++;

	while (usable_nodes) {
		u64 kernelcore_node = required_kernelcore / usable_nodes;

		for_each_online_node(nid) {
			u64 remaining = kernelcore_node;

			if (required_kernelcore < kernelcore_node)
				remaining = kernelcore_node = required_kernelcore / usable_nodes;
			for (u32 i = 0; i < memblock.memory.cnt && remaining; i++) {
				const struct memblock_region *r = &memblock.memory.regions[i];
				u64 start = PFN_UP(r->base), end = PFN_DOWN(r->base + r->size), size;

				if (r->nid != nid)
					continue;
				start = MAX(start, zone_movable_pfn[nid]);
				if (start >= end)
					continue;
				if (start < usable_startpfn) {
					/* below the movable zone: kernel memory anyway */
					u64 kernel_pages = MIN(end, usable_startpfn) - start;

					remaining -= MIN(kernel_pages, remaining);
					required_kernelcore -= MIN(kernel_pages, required_kernelcore);
					if (end <= usable_startpfn) {
						zone_movable_pfn[nid] = end;
						continue;
					}
					start = usable_startpfn;
				}
				size = MIN(end - start, remaining);
				zone_movable_pfn[nid] = start + size;
				required_kernelcore -= MIN(required_kernelcore, size);
				remaining -= size;
			}
		}
		usable_nodes--;
		if (!usable_nodes || required_kernelcore <= (u64)usable_nodes)
			break;
	}
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!zone_movable_pfn[nid])
			continue;
		zone_movable_pfn[nid] = ALIGN_UP(zone_movable_pfn[nid], MAX_ORDER_NR_PAGES);
		if (zone_movable_pfn[nid] >= node_mem_end[nid])
			zone_movable_pfn[nid] = 0;	/* the node is all kernelcore */
	}
}

static void setup_zones(const struct mm_boot_params *bp)
{
	u64 node_mem_start[MAX_NUMNODES], node_mem_end[MAX_NUMNODES];	/* pfns of memblock memory */
	u64 *zmp = mm_boot_stats.zone_movable_pfn;
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		node_mem_start[nid] = MAX_PFN;
		node_mem_end[nid] = 0;
	}
	for (u32 i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];

		node_mem_start[r->nid] = MIN(node_mem_start[r->nid], PFN_UP(r->base));
		node_mem_end[r->nid] = MAX(node_mem_end[r->nid], PFN_DOWN(r->base + r->size));
	}
	find_zone_movable_pfns(bp, node_mem_end, zmp);

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		for (int z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &pgdat->node_zones[z];
			u64 start = 0, end = 0;

			zone->zone_pgdat = pgdat;
			zone->name = zone_names[z];
			zone->idx = (enum zone_type)z;
			zone_init_free_lists(zone);
			if (!pgdat->online) {
				zone_span_write_begin(zone);
				zone_span_set(zone, 0, 0);
				zone_span_write_end(zone);
				continue;
			}
			if (z <= ZONE_NORMAL) {
				u64 low = z == ZONE_DMA ? 0 : zone_limit_pfn[z - 1];

				start = MAX(node_mem_start[nid], low);
				end = MIN(node_mem_end[nid], zone_limit_pfn[z]);
				if (zmp[nid] && z >= (int)movable_zone)
					end = MIN(end, zmp[nid]);
			} else if (z == ZONE_MOVABLE && zmp[nid]) {
				start = zmp[nid];
				end = node_mem_end[nid];
			}
			if (start >= end)
				start = end = 0;
			zone_span_write_begin(zone);
			zone_span_set(zone, start, end - start);
			zone_span_write_end(zone);
			zone->present_pages = memory_pages_in(nid, start, end);
			zone->present_early_pages = zone->present_pages;
		}
		pgdat->node_start_pfn = pgdat->online ? node_mem_start[nid] : 0;
		pgdat->node_spanned_pages = pgdat->online ? node_mem_end[nid] - node_mem_start[nid] : 0;
		pgdat->node_present_pages = pgdat->online ? memory_pages_in(nid, 0, MAX_PFN) : 0;
	}
}

/* The zone of nid that spans pfn, else the highest populated zone of nid
 * at or below... else the node's highest populated zone (trailing holes). */
static enum zone_type zone_for_pfn(int nid, u64 pfn)
{
	struct pglist_data *pgdat = NODE_DATA(nid);
	int highest = ZONE_DMA;

	for (int z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (zone_spans_pfn(zone, pfn))
			return (enum zone_type)z;
		if (populated_zone(zone))
			highest = z;
	}
	return (enum zone_type)highest;
}

/* ---- step 5: the memmap --------------------------------------------------- */

/* The zone's pages_with_online_memmap grows by [s, e): at once (acct NULL,
 * mem_resize_lock held), or recorded in acct for memmap_acct_apply(). */
static void online_memmap_add(struct memmap_acct *acct, struct zone *zone, u64 s, u64 e)
{
	if (!acct) {
		zone_online_memmap_add(zone, s, e);
		return;
	}
	if (acct->nr && acct->e[acct->nr - 1].zone == zone && acct->e[acct->nr - 1].end_pfn == s) {
		acct->e[acct->nr - 1].end_pfn = e;	/* the piece before, continued */
		return;
	}
	if (acct->nr == MEMMAP_ACCT_MAX) {
		acct->overflow = true;
		return;
	}
	acct->e[acct->nr].zone = zone;
	acct->e[acct->nr].start_pfn = s;
	acct->e[acct->nr].end_pfn = e;
	acct->nr++;
}

/* Contract in internal.h. */
void memmap_acct_apply(const struct memmap_acct *acct)
{
	for (unsigned i = 0; i < acct->nr; i++)
		zone_online_memmap_add(acct->e[i].zone, acct->e[i].start_pfn, acct->e[i].end_pfn);
}

/* Initialise the holes of present sections in [start_pfn, end_pfn) with
 * the given zone/node; whole absent sections are skipped. */
static u64 init_holes(u64 start_pfn, u64 end_pfn, int nid, enum zone_type zone,
		      struct memmap_acct *acct)
{
	u64 pages = 0;

	while (start_pfn < end_pfn) {
		u64 sec_end = MIN(ALIGN_UP(start_pfn + 1, PAGES_PER_SECTION), end_pfn);

		if (valid_section(__pfn_to_section(start_pfn))) {
			pages += init_unavailable_range(start_pfn, sec_end, zone, nid);
			/* holes inside the zone's span count as initialised memmap */
			online_memmap_add(acct, &NODE_DATA(nid)->node_zones[zone], start_pfn, sec_end);
		}
		start_pfn = sec_end;
	}
	return pages;
}

/*
 * reserve_memory_pages() - PG_reserved on every pfn of [s, e) whose page
 * is memory (starts inside a memblock.memory region) and has a memmap (a
 * valid section); in_use: also refcount 1 (the page was initialised born
 * free).  Worked out per memory region and per section, not per pfn: the
 * reserved ranges include the memmap itself, 1/64 of RAM, so a lookup per
 * pfn was a large part of boot at hundreds of GiB.
 */
static void reserve_memory_pages(u64 s, u64 e, bool in_use)
{
	for (u32 m = 0; m < memblock.memory.cnt; m++) {
		const struct memblock_region *r = &memblock.memory.regions[m];
		u64 pfn = MAX(s, PFN_UP(r->base)), end = MIN(e, PFN_UP(r->base + r->size));

		while (pfn < end) {
			u64 sec_end = MIN(ALIGN_UP(pfn + 1, PAGES_PER_SECTION), end);

			if (valid_section(__pfn_to_section(pfn)))
				for (; pfn < sec_end; pfn++) {
					struct page *page = pfn_to_page(pfn);

					SetPageReserved(page);
					if (in_use)
						page->refcount = 1;
				}
			pfn = sec_end;
		}
	}
}

/* Contract in internal.h. */
u64 boot_memmap_init_window(u64 lo, u64 hi, u64 *holes, bool born_free, struct memmap_acct *acct)
{
	u64 hole_pfn = 0, pages = 0, hole_pages = 0;
	int last_nid = 0;

	for (u32 i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		u64 start = PFN_UP(r->base), end = PFN_DOWN(r->base + r->size);

		if (start >= end)
			continue;
		/* the hole before this range takes the zone of its first page */
		hole_pages += init_holes(MAX(hole_pfn, lo), MIN(start, hi), r->nid,
					 zone_for_pfn(r->nid, start), acct);
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &NODE_DATA(r->nid)->node_zones[z];
			u64 s = MAX(MAX(start, (u64)zone->zone_start_pfn), lo);
			u64 e = MIN(MIN(end, (u64)zone_end_pfn(zone)), hi);

			if (s < e) {
				if (born_free)
					memmap_init_free_range(s, e, (enum zone_type)z, r->nid,
							       MIGRATE_MOVABLE);
				else
					memmap_init_range(s, e, (enum zone_type)z, r->nid,
							  MIGRATE_MOVABLE);
				online_memmap_add(acct, zone, s, e);
				pages += e - s;
			}
		}
		hole_pfn = end;
		last_nid = r->nid;
	}
	/* the tail of the last section */
	hole_pages += init_holes(MAX(hole_pfn, lo), MIN(ALIGN_UP(hole_pfn, PAGES_PER_SECTION), hi),
				 last_nid, zone_for_pfn(last_nid, hole_pfn ? hole_pfn - 1 : 0), acct);

	/* Reserved RAM: never given to the buddy. */
	for (u32 i = 0; i < memblock.reserved.cnt; i++) {
		const struct memblock_region *r = &memblock.reserved.regions[i];
		u64 s = MAX(PFN_DOWN(r->base), lo), e = MIN(PFN_UP(r->base + r->size), hi);

		if (s < e)
			reserve_memory_pages(s, e, born_free);
	}
	if (holes)
		*holes += hole_pages;
	return pages;
}

/*
 * init_memmap() - step 5.  The old deferred_init design initialises every
 * section in one window; the new one only the sections deferred_init_plan()
 * left out of its pending set, one window each (mm/deferred_init.c does the
 * rest later, through the same boot_memmap_init_window()).
 */
static void init_memmap(void)
{
	u64 t0 = mm_cycles(), pages = 0, holes = 0, nr = 0, deferred = 0;

	mem_resize_lock();	/* the zones' counters of initialised memmap */
	if (!deferred_init_pending_sections()) {
		pages = boot_memmap_init_window(0, MAX_PFN, &holes, false, NULL);
	} else {
		for (; sparse_next_present(&nr); nr++) {
			if (deferred_section(__nr_to_section(nr))) {
				deferred++;
				continue;
			}
			pages += boot_memmap_init_window(section_nr_to_pfn(nr),
							 section_nr_to_pfn(nr + 1), &holes, false, NULL);
		}
	}
	mem_resize_unlock();
	mm_boot_stats.memmap_init_cycles = mm_cycles() - t0;
	mm_boot_stats.memmap_init_design = mech_design(MECH_MEMMAP_INIT);
	mm_boot_stats.memmap_init_pages = pages + holes;
	pr_info("memmap: initialised %llu pages (%llu in holes) in %llu cycles, %llu cycles/page%s",
		(unsigned long long)(pages + holes), (unsigned long long)holes,
		(unsigned long long)mm_boot_stats.memmap_init_cycles,
		(unsigned long long)(mm_boot_stats.memmap_init_cycles / MAX(pages + holes, 1ULL)),
		deferred ? "; the other sections wait (deferred_init=new)" : "");

	/* Boot memory is online from the start (deferred sections too: their
	 * blocks are online, pfn_valid() keeps walkers out until initialised). */
	for (u32 i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];

		sparse_set_online(PFN_UP(r->base), PFN_DOWN(r->base + r->size));
	}
}

/* ---- step 6: hand-over to the buddy --------------------------------------- */

/* Contract in internal.h. */
u64 boot_handover_window(u64 lo, u64 hi, bool born_free)
{
	unsigned flags = FREE_RANGE_NEW | (born_free ? FREE_RANGE_BORN_FREE : 0) |
			 (page_poison_enabled() ? FREE_RANGE_POISON : 0);
	u64 idx = 0, pages = 0;
	phys_addr_t s, e;
	int nid;

	while (memblock_next_free_range(&memblock, &idx, NUMA_NO_NODE, &s, &e, &nid)) {
		u64 start = MAX(PFN_UP(s), lo), end = MIN(PFN_DOWN(e), hi);

		for (int z = 0; z < MAX_NR_ZONES && start < end; z++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];
			u64 zs = MAX(start, (u64)zone->zone_start_pfn);
			u64 ze = MIN(end, (u64)zone_end_pfn(zone));

			if (zs < ze) {
				free_pfn_range_to_buddy(zone, zs, ze, flags, NULL);
				pages += ze - zs;
			}
		}
	}
	return pages;
}

static void handover_to_buddy(void)
{
	u64 t0 = mm_cycles(), nr = 0;

	if (!deferred_init_pending_sections()) {
		boot_handover_window(0, MAX_PFN, false);
	} else {
		for (; sparse_next_present(&nr); nr++)
			if (!deferred_section(__nr_to_section(nr)))
				boot_handover_window(section_nr_to_pfn(nr), section_nr_to_pfn(nr + 1),
						     false);
	}
	mm_boot_stats.handover_cycles = mm_cycles() - t0;
	memblock.current_limit = 0;	/* closed: the buddy owns free memory now */
}

/* ---- the whole sequence --------------------------------------------------- */

static void print_zone_ranges(void)
{
	int nid;

	pr_info("Zone ranges:");
	for (int z = 0; z <= ZONE_NORMAL; z++) {
		u64 low = z == ZONE_DMA ? 0 : zone_limit_pfn[z - 1], high = zone_limit_pfn[z];
		u64 s = MAX(low, memblock_start_of_DRAM(&memblock) >> PAGE_SHIFT);
		u64 e = MIN(high, memblock_end_of_DRAM(&memblock) >> PAGE_SHIFT);

		if (s < e)
			pr_info("  %-8s [mem 0x%016llx-0x%016llx]", zone_names[z],
				(unsigned long long)PFN_PHYS(s), (unsigned long long)PFN_PHYS(e) - 1);
		else
			pr_info("  %-8s empty", zone_names[z]);
	}
	pr_info("Movable zone start for each node");
	for_each_online_node(nid)
		if (mm_boot_stats.zone_movable_pfn[nid])
			pr_info("  Node %d: 0x%016llx", nid,
				(unsigned long long)PFN_PHYS(mm_boot_stats.zone_movable_pfn[nid]));
	pr_info("Early memory node ranges");
	for (u32 i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];

		pr_info("  node %3d: [mem 0x%016llx-0x%016llx]", r->nid,
			(unsigned long long)r->base, (unsigned long long)(r->base + r->size - 1));
	}
}

void mm_core_init(const struct mm_boot_params *bp)
{
	struct zone *zone;
	u64 managed = 0, present = 0, pending;

	MM_BUG_ON(!bp || !bp->memmap, "bp %p, memmap %p", (const void *)bp,
		  bp ? (const void *)bp->memmap : NULL);

	setup_memblock(bp);				/* 1 */
	mm_boot_mark("mm: memblock");
	cma_reserve_boot(bp->cma_size);			/* cma=: a range kept for CMA */
	setup_nodes(bp);				/* 2 */
	mm_boot_mark("mm: nodes");
	mm_set_pt_allocator(boot_alloc_zeroed_page, buddy_release_pt_page);
	setup_sections();				/* 3 */
	mm_boot_mark("mm: sections and their memmap mapped");
	setup_zones(bp);				/* 4 */
	size_block_pool();				/* before the plan: its memory is reserved */
	print_zone_ranges();
	mm_boot_mark("mm: zones, block pool");
	deferred_init_plan();				/* 5: deferred_init=new: what waits */
	mm_boot_mark("mm: deferred_init_plan");
	init_memmap();
	mm_boot_mark("mm: memmap of the early sections");
	page_poison_enable(bp->page_poison);
	handover_to_buddy();				/* 6 */
	mm_boot_mark("mm: hand-over to the buddy");
	mm_set_pt_allocator(buddy_alloc_zeroed_page, buddy_release_pt_page);

	for_each_zone(zone) {				/* 7 */
		if (!zone->zone_pgdat || !zone->zone_pgdat->online)
			continue;
		zone_pcp_init(zone);
		mem_resize_lock();
		zone_update_contiguous(zone);
		mem_resize_unlock();
		managed += zone->managed_pages;
		present += zone->present_pages;
	}
	build_all_zonelists();
	setup_per_zone_wmarks();
	mm_boot_mark("mm: per-zone settings");
	memory_blocks_init_boot();			/* boot memory as online blocks */
	mm_boot_mark("mm: memory blocks");
	auto_movable_stats_resync();			/* mechanism 4's cache from the truth */
	mech_register_resync(MECH_AUTO_MOVABLE_STATS, auto_movable_stats_resync);
	mm_boot_stats.reserved_pages = present - managed;
	pending = deferred_init_pending_pages(NUMA_NO_NODE);	/* waiting, not reserved */
	pr_info("Memory: %lluK/%lluK available (%lluK memmap, %lluK other reserved)",
		(unsigned long long)(managed << (PAGE_SHIFT - 10)),
		(unsigned long long)(present << (PAGE_SHIFT - 10)),
		(unsigned long long)(mm_boot_stats.memmap_pages << (PAGE_SHIFT - 10)),
		(unsigned long long)((present - managed - pending - mm_boot_stats.memmap_pages) <<
				     (PAGE_SHIFT - 10)));
	if (pending)
		pr_info("Memory: %lluK more once deferred init is done (deferred_init=new)",
			(unsigned long long)(pending << (PAGE_SHIFT - 10)));
	cma_activate();					/* CMA pageblocks into the buddy */
	deferred_init_boot_done();			/* the rest: steps, on demand */
}

void mm_init_dump(struct printer *p)
{
	const struct mm_boot_stats *s = &mm_boot_stats;
	int nid;

	MM_BUG_ON(!p, "no printer");

	pr_printf(p, "memmap init:   %llu struct pages in %llu cycles (%llu cycles/page), design %s\n",
		  (unsigned long long)s->memmap_init_pages, (unsigned long long)s->memmap_init_cycles,
		  (unsigned long long)(s->memmap_init_cycles / MAX(s->memmap_init_pages, 1ULL)),
		  mech_design_name(s->memmap_init_design));
	pr_printf(p, "hand-over:     %llu cycles (free memblock ranges -> buddy, largest aligned blocks)\n",
		  (unsigned long long)s->handover_cycles);
	pr_printf(p, "memmap:        %llu pages (%llu KiB) of struct pages\n",
		  (unsigned long long)s->memmap_pages,
		  (unsigned long long)(s->memmap_pages << (PAGE_SHIFT - 10)));
	pr_printf(p, "reserved:      %llu pages of boot memory (memmap, kernel, first MiB, tables)\n",
		  (unsigned long long)s->reserved_pages);
	pr_printf(p, "movable zone:  %s\n", movable_zone == ZONE_NORMAL ? "carved from Normal" :
		  movable_zone == ZONE_DMA32 ? "carved from DMA32" : "carved from DMA");
	for_each_online_node(nid) {
		if (s->zone_movable_pfn[nid])
			pr_printf(p, "  node %d: ZONE_MOVABLE starts at pfn %#llx\n", nid,
				  (unsigned long long)s->zone_movable_pfn[nid]);
		else
			pr_printf(p, "  node %d: no ZONE_MOVABLE\n", nid);
	}
	pr_printf(p, "SRAT hotpluggable ranges: %u\n", nr_numa_hotplug_blks);
	for (u32 i = 0; i < nr_numa_hotplug_blks; i++)
		pr_printf(p, "  [mem 0x%016llx-0x%016llx] node %d\n",
			  (unsigned long long)numa_hotplug_blks[i].start,
			  (unsigned long long)numa_hotplug_blks[i].end - 1, numa_hotplug_blks[i].nid);
}

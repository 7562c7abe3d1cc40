/*
 * memremap.c - device memory ranges (ZONE_DEVICE), Linux's
 * memremap_pages()/memunmap_pages() reduced to what memmap init needs.
 *
 * Where device memory comes from.  In Linux a driver (nvdimm, a GPU)
 * owns a physical range that was never RAM and asks memremap_pages() for
 * a memmap over it.  memlab has no such devices, so it borrows hot-added
 * memory that was left offline: the blocks are present, their sections
 * have a memmap (poisoned: "uninitialised", memory_hotplug.h), and no zone
 * owns them.  devmem_create() makes them device memory:
 *
 *   hot-added DIMM, blocks MEM_OFFLINE          memmap poisoned, no zone
 *        | devmem_create(start, size, order)
 *        v
 *   device range: ZONE_DEVICE span of the node grown over it, memmap
 *   initialised by memmap_init_zone_device() (4 KiB pages or compounds),
 *   sections still offline, blocks still MEM_OFFLINE (the hotplug core
 *   must leave them alone: devmem_intersects())
 *        | devmem_rebind(id): poison + init again, timed (dax_pmem rebind)
 *        | devmem_destroy(id)
 *        v
 *   blocks MEM_OFFLINE, memmap poisoned as the hotplug core left it:
 *   they can be onlined or removed (device_del) again
 *
 * Device memory that is not RAM.  devmem_create_phys() is the real
 * memremap_pages() case, for a range the firmware describes as device
 * memory (an NVDIMM's SPA range): no memory block, so nothing for the
 * hotplug core to online; the sections, direct map and vmemmap are made
 * for the range by the same primitives add_memory() uses (sparse,
 * include/mm/platform.h, the movable 2 MiB memmaps of
 * mm/hotplug_memmap.c), one section at a time under mem_hotplug_lock,
 * and destroyed with it.
 *
 * What is measured.  Li Zhe's numbers are the memmap_init_zone_device()
 * time of a dax_pmem rebind ("initialised N pages in X ms"); rebind here
 * times exactly that call, nothing of the teardown or span bookkeeping.
 *
 * Spans.  Like Linux's move_pfn_range_to_zone() for ZONE_DEVICE, creating a
 * range grows the zone and node spans; present and managed pages stay 0.
 * Linux never shrinks a ZONE_DEVICE span (its shrink code cannot handle
 * device pages); memlab recomputes it from its own table of ranges on
 * destroy, which is exact and cheap, so a destroyed range leaves no span
 * behind.  pages_with_online_memmap and `contiguous` are never touched:
 * device ranges are not counted (as in Linux 6.1).
 *
 * Context: (main) only.
 */
#include "buddy_internal.h"
#include <mm/memremap.h>
#include <mm/range_claim.h>
#include <mm/memory_hotplug.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/gfp.h>
#include <mm/mech_bench.h>
#include "internal.h"
#include <lib/errno.h>
#include <lib/string.h>
#include <lib/printk.h>

static struct dev_pagemap devmem_ranges[DEVMEM_MAX_RANGES];	/* [m] */

struct dev_pagemap *devmem_find(int id)
{
	if (id < 0 || id >= DEVMEM_MAX_RANGES || !devmem_ranges[id].in_use)
		return NULL;
	return &devmem_ranges[id];
}

bool devmem_intersects(u64 start_pfn, u64 nr_pages)
{
	MM_BUG_ON(start_pfn + nr_pages < start_pfn, "start_pfn %#llx + nr_pages %llu wraps",
		  (unsigned long long)start_pfn, (unsigned long long)nr_pages);

	for (int i = 0; i < DEVMEM_MAX_RANGES; i++) {
		const struct dev_pagemap *pgmap = &devmem_ranges[i];

		if (pgmap->in_use && start_pfn < pgmap->start_pfn + pgmap->nr_pages &&
		    pgmap->start_pfn < start_pfn + nr_pages)
			return true;
	}
	return false;
}

/*
 * Memory that is not online that the kernel still uses: the memmap of a
 * block still added (memmap_on_memory keeps a block's struct pages in its
 * own first 2 MiB, offline or not), or a page-table page.  Online memory
 * is not looked at here: its pages are the offline or isolation step's,
 * which every driver takes first and which refuses them by name
 * (describe_unmovable()).
 */
static int offline_range_in_use(u64 start_pfn, u64 end_pfn, char *why, size_t size)
{
	for (u64 pfn = start_pfn; pfn < end_pfn; ) {
		u64 sec_end = MIN(section_nr_to_pfn(pfn_to_section_nr(pfn) + 1), end_pfn), nr;
		phys_addr_t pt;

		if (online_section(__pfn_to_section(pfn))) {
			pfn = sec_end;
			continue;
		}
		if (sparse_memmap_at(pfn, sec_end, &nr)) {
			ksnprintf(why, size, "holding the memmap of memory%llu (its struct pages go only when that block is removed)",
				  (unsigned long long)nr);
			return -EBUSY;
		}
		pt = mm_page_table_in(PFN_PHYS(pfn), PFN_PHYS(sec_end));
		if (pt) {
			ksnprintf(why, size, "holding a page-table page at %#llx", (unsigned long long)pt);
			return -EBUSY;
		}
		pfn = sec_end;
	}
	return 0;
}

/* Contract in memory_hotplug.h. */
int memory_range_in_use(u64 start_pfn, u64 nr_pages, char *why, size_t size)
{
	MM_BUG_ON(start_pfn + nr_pages < start_pfn, "start_pfn %#llx + nr_pages %llu wraps",
		  (unsigned long long)start_pfn, (unsigned long long)nr_pages);

	for (int i = 0; i < DEVMEM_MAX_RANGES; i++) {
		const struct dev_pagemap *pgmap = &devmem_ranges[i];

		if (pgmap->in_use && start_pfn < pgmap->start_pfn + pgmap->nr_pages &&
		    pgmap->start_pfn < start_pfn + nr_pages) {
			ksnprintf(why, size, "in use as device memory devmem%d (devmem destroy it first)",
				  i);
			return -EBUSY;
		}
	}
	return offline_range_in_use(start_pfn, start_pfn + nr_pages, why, size);
}

void devmem_reset(void)
{
	memset(devmem_ranges, 0, sizeof(devmem_ranges));
}

/* ---- checks -------------------------------------------------------------- */

/*
 * The range must be whole existing memory blocks, all offline, of one
 * node, none self-hosting its memmap, and no device memory yet.  *nid
 * gets the node.  Errors as devmem_create(), with the reason logged.
 */
static int devmem_check_range(const char *what, phys_addr_t start, u64 size, int *nid)
{
	unsigned long first = phys_to_block_id(start), end;
	int err = memory_block_range_check(start, size);

	if (err == -EINVAL) {
		pr_err("%s: [%#llx-%#llx): not whole memory blocks of %llu MiB", what,
		       (unsigned long long)start, (unsigned long long)(start + size),
		       (unsigned long long)(MEMORY_BLOCK_SIZE >> 20));
		return err;
	}
	if (err) {
		pr_err("%s: [%#llx, +%#llx) runs past the end of physical memory (MAX_PHYSMEM_BITS %d)",
		       what, (unsigned long long)start, (unsigned long long)size, MAX_PHYSMEM_BITS);
		return err;
	}
	end = phys_to_block_id(start + size);
	*nid = NUMA_NO_NODE;
	for (unsigned long id = first; id < end; id++) {
		struct memory_block *mem = find_memory_block_by_id(id);

		if (!mem || !valid_section(__pfn_to_section(memory_block_start_pfn(mem)))) {
			pr_err("%s: block %lu (%#llx) is not present memory", what, id,
			       (unsigned long long)id * MEMORY_BLOCK_SIZE);
			return -EINVAL;
		}
		if (mem->state != MEM_OFFLINE) {
			pr_err("%s: block %lu is %s; only offline blocks can become device memory",
			       what, id, mem->state == MEM_ONLINE ? "online" : "going offline");
			return -EBUSY;
		}
		if (mem->nr_vmemmap_pages) {
			pr_err("%s: block %lu holds its own memmap (memmap_on_memory)", what, id);
			return -EINVAL;
		}
		if (mem->group && mem->group->ops && mem->group->ops->range_held) {
			char why[128];
			int err = mem->group->ops->range_held(mem->group->owner,
							     memory_block_start_pfn(mem),
							     PAGES_PER_MEMORY_BLOCK, why, sizeof(why));

			if (err) {
				pr_err("%s: block %lu: %s", what, id, why);
				return err;
			}
		}
		if (*nid != NUMA_NO_NODE && mem->nid != *nid) {
			pr_err("%s: blocks of nodes %d and %d: a device range lies in one node", what,
			       *nid, mem->nid);
			return -EINVAL;
		}
		*nid = mem->nid;
	}
	if (!NODE_DATA(*nid)->online) {
		pr_err("%s: node %d is offline", what, *nid);
		return -EINVAL;
	}
	if (devmem_intersects(PHYS_PFN(start), PHYS_PFN(size))) {
		pr_err("%s: [%#llx-%#llx) overlaps a device range", what, (unsigned long long)start,
		       (unsigned long long)(start + size));
		return -EBUSY;
	}
	return 0;
}

/* ---- spans --------------------------------------------------------------- */

/* Grow the node's ZONE_DEVICE span and the node span over the range. */
static void device_span_grow(int nid, u64 start_pfn, u64 nr_pages)
{
	struct pglist_data *pgdat = NODE_DATA(nid);

	mem_resize_lock();
	resize_zone_range(&pgdat->node_zones[ZONE_DEVICE], start_pfn, nr_pages);
	resize_pgdat_range(pgdat, start_pfn, nr_pages);
	mem_resize_unlock();
}

/* The node's ZONE_DEVICE span is its remaining device ranges; the node
 * span its non-empty zones, as the hotplug core recomputes it. */
static void device_span_recompute(int nid)
{
	struct pglist_data *pgdat = NODE_DATA(nid);
	struct zone *zone = &pgdat->node_zones[ZONE_DEVICE];
	u64 start = ~0ULL, end = 0;

	for (int i = 0; i < DEVMEM_MAX_RANGES; i++) {
		const struct dev_pagemap *pgmap = &devmem_ranges[i];

		if (!pgmap->in_use || pgmap->nid != nid)
			continue;
		start = MIN(start, pgmap->start_pfn);
		end = MAX(end, pgmap->start_pfn + pgmap->nr_pages);
	}
	mem_resize_lock();
	zone_span_write_begin(zone);
	zone_span_set(zone, end ? start : 0, end ? end - start : 0);
	zone_span_write_end(zone);
	update_pgdat_span(pgdat);
	mem_resize_unlock();
}

/* ---- the memmap ---------------------------------------------------------- */

/*
 * A range of more than DEVMEM_WHOLE_MAX pages (64 sections, 8 GiB) is
 * initialised a section at a time, each timed on its own (the figure is
 * the sum), with a pause between two where the shell's job lets the
 * console answer; a smaller one in one timed call, as always.  A section
 * at a time writes the same bytes (devmem_compare() relies on it).
 */
#define DEVMEM_WHOLE_MAX	(64 * (u64)PAGES_PER_SECTION)

/* The pages a device range is initialised and compared by: a section, or
 * a compound larger than a section (1 GiB). */
static u64 devmem_unit(const struct dev_pagemap *pgmap)
{
	return MAX((u64)PAGES_PER_SECTION, 1ULL << pgmap->vmemmap_shift);
}

/* Between two sections of a long pass: the shell's job may pause here; a
 * stop request is not taken (the memmap must be whole at the end). */
static void devmem_pause(void)
{
	(void)mech_bench_checkpoint();
}

/*
 * Linux's memunmap_pages() poisons the struct pages of the range ("they
 * are now uninitialized again").  memlab writes the hotplug core's offline
 * poison (memory_hotplug.h: flags, page type and refcount all ones; three
 * stores in the line) plus a NULL owner, so no page points at a dead
 * dev_pagemap.  Cheap on purpose: the rebind measures the init, not this.
 */
static void devmem_poison_memmap(u64 start_pfn, u64 nr_pages)
{
	for (u64 i = 0; i < nr_pages; i += PAGES_PER_SECTION) {
		struct page *page = pfn_to_page(start_pfn + i);
		struct page *end = page + MIN((u64)PAGES_PER_SECTION, nr_pages - i);

		for (; page < end; page++) {
			page->flags = MEMMAP_POISON_FLAGS;
			page->page_type = 0xffffffffu;
			page->refcount = -1;
			page->owner = NULL;
		}
		if (nr_pages > DEVMEM_WHOLE_MAX && i + PAGES_PER_SECTION < nr_pages)
			devmem_pause();
	}
}

const char *devmem_design_name(int d)
{
	if (d == DEVMEM_DESIGN_SHARED)
		return "shared";
	if (d == DEVMEM_DESIGN_HEAD_TEMPLATE)
		return "head-template";
	return d >= 0 && d < NR_MEMMAP_DESIGNS ? mech_design_name((enum mech_design)d) : "?";
}

int devmem_parse_design(const char *word)
{
	if (!strcmp(word, "shared"))
		return DEVMEM_DESIGN_SHARED;
	if (!strcmp(word, "head-template"))
		return DEVMEM_DESIGN_HEAD_TEMPLATE;
	return mech_parse_design(word, strlen(word));
}

/*
 * Initialise the range's memmap with design d (DEVMEM_DESIGN_SHARED: the
 * vmemmap is in the shared layout, and only the struct pages with memory
 * of their own are written) and record the time and the bytes.
 */
static void devmem_init_memmap(struct dev_pagemap *pgmap, int d)
{
	u64 chunk = pgmap->nr_pages > DEVMEM_WHOLE_MAX ? devmem_unit(pgmap) : pgmap->nr_pages;
	struct vmemmap_cost cost;
	u64 cycles = 0;

	MM_BUG_ON((d == DEVMEM_DESIGN_SHARED) != pgmap->shared_vmemmap,
		  "devmem%d: design %d on a %s vmemmap", pgmap->id, d,
		  pgmap->shared_vmemmap ? "shared" : "full");
	for (u64 i = 0; i < pgmap->nr_pages; i += chunk) {
		u64 nr = MIN(chunk, pgmap->nr_pages - i), t0 = mm_cycles();
		u64 pfn = pgmap->start_pfn + i;
		unsigned order = pgmap->vmemmap_shift;
		int err = d == DEVMEM_DESIGN_SHARED ?
			memmap_init_zone_device_shared(pfn, nr, pgmap->nid, order, pgmap,
						       vmemmap_shared_unique()) :
			d == DEVMEM_DESIGN_HEAD_TEMPLATE ?
			memmap_init_zone_device_head_template(pfn, nr, pgmap->nid, order, pgmap) :
			memmap_init_zone_device_design(pfn, nr, pgmap->nid, order, pgmap,
						       (enum mech_design)d);

		cycles += mm_cycles() - t0;
		/* the order was checked by devmem_create(), the design by its caller */
		MM_BUG_ON(err, "devmem%d: design %d, order %u: %d", pgmap->id, (int)d,
			  pgmap->vmemmap_shift, err);
		if (i + nr < pgmap->nr_pages)
			devmem_pause();
	}
	vmemmap_layout_cost(pgmap->shared_vmemmap, pgmap->vmemmap_shift, pgmap->nr_pages, &cost);
	pgmap->last_init_cycles = cycles;
	pgmap->last_init_pages = pgmap->nr_pages;
	pgmap->last_init_bytes = cost.bytes_written;
	pgmap->last_design = d;
	pgmap->nr_inits++;
	pr_info("devmem%d: initialised %llu pages in %llu cycles (%llu cycles/page, %s, %llu KiB of memmap written)",
		pgmap->id, (unsigned long long)pgmap->nr_pages,
		(unsigned long long)pgmap->last_init_cycles,
		(unsigned long long)(pgmap->last_init_cycles / pgmap->nr_pages),
		devmem_design_name(d), (unsigned long long)(cost.bytes_written >> 10));
}

/* ---- sections of a range that is not RAM --------------------------------- */

/* sparse_add_present()'s root_alloc: a zeroed kept page.  Device memory
 * never reaches the buddy, so a root cannot land in the range it serves. */
static void *devmem_root_alloc(void *ctx)
{
	struct page *page = alloc_pages_kept(__GFP_ZERO | __GFP_NOWARN, 0);

	(void)ctx;
	return page ? mm_phys_to_virt(page_to_phys(page)) : NULL;
}

/* Take down what devmem_add_section() made of section nr (pgmap: the
 * range, NULL before it exists; its vmemmap may be shared by now).
 * Context: (main), mem_hotplug_lock held for writing. */
static void devmem_remove_section_locked(struct dev_pagemap *pgmap, u64 nr)
{
	u64 pfn = section_nr_to_pfn(nr), end = pfn + PAGES_PER_SECTION;
	phys_addr_t memmap_pa = __nr_to_section(nr)->memmap_pa;
	void *root;

	mem_hotplug_assert_held();
	if (pgmap && pgmap->shared_vmemmap) {
		vmemmap_shared_remove_section(pgmap, nr);
	} else {
		sparse_clear_memmap(nr);
		mm_vmemmap_depopulate(pfn, end);
		hotplug_memmap_free(pfn_to_page(PHYS_PFN(memmap_pa)));
	}
	mm_direct_map_remove(PFN_PHYS(pfn), PFN_PHYS(PAGES_PER_SECTION));
	sparse_remove_present(pfn, end);
	root = sparse_release_root(nr);
	if (root)
		free_pages(pfn_to_page(PHYS_PFN(mm_virt_to_phys(root))), 0);
}

/*
 * Section nr of node nid: present, direct map, vmemmap over a 2 MiB
 * memmap from the allocator, memmap poisoned.  0, or -ENOMEM with all of
 * it undone.  Context: (main); takes mem_hotplug_lock.
 */
static int devmem_add_section(int nid, u64 nr)
{
	u64 pfn = section_nr_to_pfn(nr), end = pfn + PAGES_PER_SECTION;
	struct page *memmap = hotplug_memmap_alloc(nid, nr);
	int err;

	if (!memmap) {
		pr_err("devmem: section %llu: no 2 MiB for its memmap", (unsigned long long)nr);
		return -ENOMEM;
	}
	mem_hotplug_begin();
	err = sparse_add_present(pfn, end, nid, false, devmem_root_alloc, NULL);
	if (err)
		goto out_memmap;
	err = mm_direct_map_add(PFN_PHYS(pfn), PFN_PHYS(PAGES_PER_SECTION));
	if (err)
		goto out_present;
	err = mm_vmemmap_populate(pfn, end, page_to_phys(memmap));
	if (err)
		goto out_direct_map;
	sparse_set_memmap(nr, page_to_phys(memmap));
	memmap_poison(pfn, end);
	mem_hotplug_done();
	return 0;

out_direct_map:
	mm_direct_map_remove(PFN_PHYS(pfn), PFN_PHYS(PAGES_PER_SECTION));
out_present:
	sparse_remove_present(pfn, end);
	{
		void *root = sparse_release_root(nr);

		if (root)
			free_pages(pfn_to_page(PHYS_PFN(mm_virt_to_phys(root))), 0);
	}
out_memmap:
	mem_hotplug_done();
	hotplug_memmap_free(memmap);
	pr_err("devmem: section %llu: error %d", (unsigned long long)nr, err);
	return -ENOMEM;
}

/* Sections [first, end) made by devmem_add_section() go again (pgmap as
 * devmem_remove_section_locked()'s), and the table of a shared vmemmap. */
static void devmem_remove_sections(struct dev_pagemap *pgmap, u64 first, u64 end)
{
	for (u64 nr = first; nr < end; nr++) {
		mem_hotplug_begin();
		devmem_remove_section_locked(pgmap, nr);
		mem_hotplug_done();
	}
	if (pgmap)
		vmemmap_shared_free_table(pgmap);
}

/* ---- create, rebind, destroy --------------------------------------------- */

/* A compound order devmem can build (up to 1 GiB), for a range
 * [start, start + size) it tiles. */
static bool devmem_order_ok(unsigned compound_order, phys_addr_t start, u64 size)
{
	if (compound_order > MAX_DEVICE_COMPOUND_ORDER) {
		pr_err("devmem: compound order %u: at most %u (1 GiB)", compound_order,
		       (unsigned)MAX_DEVICE_COMPOUND_ORDER);
		return false;
	}
	if (start % (PAGE_SIZE << compound_order) || size % (PAGE_SIZE << compound_order)) {
		pr_err("devmem: [%#llx, +%#llx) is not whole compounds of %llu KiB",
		       (unsigned long long)start, (unsigned long long)size,
		       (unsigned long long)((PAGE_SIZE << compound_order) >> 10));
		return false;
	}
	return true;
}

/* A free slot of devmem_ranges[], or NULL (logged).  Context: (main). */
static struct dev_pagemap *devmem_free_slot(void)
{
	for (int i = 0; i < DEVMEM_MAX_RANGES; i++)
		if (!devmem_ranges[i].in_use)
			return &devmem_ranges[i];
	pr_err("devmem: all %d device ranges are in use", DEVMEM_MAX_RANGES);
	return NULL;
}

/*
 * The last step of both creations: slot pgmap becomes the range [start,
 * start + size) of node nid (own_sections: devmem made its sections, for
 * owner), the node's spans grow over it under mem_hotplug_lock, and its
 * memmap is initialised with the current design.  Returns the range's id.
 * Context: (main) or the shell's job.
 */
static int devmem_publish(struct dev_pagemap *pgmap, int nid, phys_addr_t start, u64 size,
			  unsigned compound_order, bool own_sections, const char *owner)
{
	mem_hotplug_begin();	/* the range and the spans; the memmap is written after */
	memset(pgmap, 0, sizeof(*pgmap));
	pgmap->id = (int)(pgmap - devmem_ranges);
	pgmap->in_use = true;
	pgmap->own_sections = own_sections;
	if (own_sections)
		strlcpy(pgmap->owner, owner ? owner : "", sizeof(pgmap->owner));
	pgmap->start_pfn = PHYS_PFN(start);
	pgmap->nr_pages = PHYS_PFN(size);
	pgmap->nid = nid;
	pgmap->vmemmap_shift = compound_order;
	device_span_grow(nid, pgmap->start_pfn, pgmap->nr_pages);
	mem_hotplug_done();
	pr_info("devmem%d: [mem %#018llx-%#018llx] node %d ZONE_DEVICE%s, %llu KiB pages",
		pgmap->id, (unsigned long long)start, (unsigned long long)(start + size - 1), nid,
		own_sections ? " (not RAM)" : "",
		(unsigned long long)((PAGE_SIZE << compound_order) >> 10));
	devmem_init_memmap(pgmap, mech_design(MECH_MEMMAP_INIT));
	return pgmap->id;
}

int devmem_create(phys_addr_t start, u64 size, unsigned compound_order)
{
	struct dev_pagemap *pgmap;
	int nid, err;

	if (!devmem_order_ok(compound_order, start, size))
		return -EINVAL;
	err = devmem_check_range("devmem", start, size, &nid);
	if (err)
		return err;
	if (range_claim_check(PHYS_PFN(start), PHYS_PFN(start + size)))
		return -EBUSY;	/* another holder changes this memory: range_claim.h */
	pgmap = devmem_free_slot();
	if (!pgmap)
		return -ENOSPC;
	return devmem_publish(pgmap, nid, start, size, compound_order, false, NULL);
}

int devmem_create_phys(int nid, phys_addr_t start, u64 size, unsigned compound_order,
		       const char *owner)
{
	u64 first = pfn_to_section_nr(PHYS_PFN(start)), nr_secs = PHYS_PFN(size) / PAGES_PER_SECTION;
	struct dev_pagemap *pgmap;
	u64 added = 0;

	if (!devmem_order_ok(compound_order, start, size))
		return -EINVAL;
	if (!size || start % PFN_PHYS(PAGES_PER_SECTION) || size % PFN_PHYS(PAGES_PER_SECTION)) {
		pr_err("devmem: [%#llx, +%#llx): not whole sections of %llu MiB",
		       (unsigned long long)start, (unsigned long long)size,
		       (unsigned long long)(PFN_PHYS(PAGES_PER_SECTION) >> 20));
		return -EINVAL;
	}
	if (start + size < start || PHYS_PFN(start + size) > MAX_PFN) {
		pr_err("devmem: [%#llx, +%#llx) runs past the end of physical memory (MAX_PHYSMEM_BITS %d)",
		       (unsigned long long)start, (unsigned long long)size, MAX_PHYSMEM_BITS);
		return -ERANGE;
	}
	if (nid < 0 || nid >= MAX_NUMNODES || !NODE_DATA(nid)->online) {
		pr_err("devmem: node %d is not an online node", nid);
		return -EINVAL;
	}
	for (u64 nr = first; nr < first + nr_secs; nr++)
		if (present_section(__nr_to_section(nr))) {
			pr_err("devmem: [%#llx, +%#llx): section %llu is present already (RAM or a device)",
			       (unsigned long long)start, (unsigned long long)size,
			       (unsigned long long)nr);
			return -EEXIST;
		}
	if (range_claim_check(PHYS_PFN(start), PHYS_PFN(start + size)))
		return -EBUSY;	/* another holder changes this memory: range_claim.h */
	pgmap = devmem_free_slot();
	if (!pgmap)
		return -ENOSPC;
	for (; added < nr_secs; added++) {
		if (devmem_add_section(nid, first + added)) {
			devmem_remove_sections(NULL, first, first + added);
			return -ENOMEM;
		}
		if (nr_secs > 64 && added + 1 < nr_secs)
			devmem_pause();
	}
	return devmem_publish(pgmap, nid, start, size, compound_order, true, owner);
}

int devmem_rebind(int id, int d)
{
	struct dev_pagemap *pgmap = devmem_find(id);
	bool shared = d == DEVMEM_DESIGN_SHARED;
	int err;

	if (!pgmap)
		return -ENOENT;
	if (d < -1 || d > DEVMEM_DESIGN_SHARED)	/* -1: the switch's; else devmem_parse_design()'s */
		return -EINVAL;
	if (shared && !pgmap->own_sections) {
		pr_err("devmem%d: the shared vmemmap needs a range with a vmemmap of its own (nd's devdax); this one borrows hot-added blocks",
		       id);
		return -EOPNOTSUPP;
	}
	if (shared && !vmemmap_shared_order_ok(pgmap->vmemmap_shift)) {
		pr_err("devmem%d: the shared vmemmap needs compounds of more than %llu pages (align 2M); these are %llu KiB",
		       id, (unsigned long long)vmemmap_shared_unique(),
		       (unsigned long long)((PAGE_SIZE << pgmap->vmemmap_shift) >> 10));
		return -EINVAL;
	}
	if (d == -1)
		d = mech_design(MECH_MEMMAP_INIT);
	if (pgmap->own_sections) {
		err = vmemmap_relayout(pgmap, shared);	/* outside the timed init */
		if (err)
			return err;
	}
	devmem_poison_memmap(pgmap->start_pfn, pgmap->nr_pages);
	devmem_init_memmap(pgmap, d);
	return 0;
}

/* Contract in include/mm/memremap.h. */
int devmem_floor(int id, u64 *cycles, u64 *bytes)
{
	struct dev_pagemap *pgmap = devmem_find(id);
	u64 unit, total = 0;

	MM_BUG_ON(!cycles || !bytes, "id %d: cycles %p, bytes %p", id, (void *)cycles,
		  (void *)bytes);
	if (!pgmap)
		return -ENOENT;
	unit = pgmap->nr_pages > DEVMEM_WHOLE_MAX ? devmem_unit(pgmap) : pgmap->nr_pages;
	*bytes = 0;
	for (u64 i = 0; i < pgmap->nr_pages; i += unit) {
		u64 s = pgmap->start_pfn + i, nr = MIN(unit, pgmap->nr_pages - i), t0 = mm_cycles();

		if (pgmap->shared_vmemmap) {
			/* the struct pages of their own: what the shared design writes */
			for (u64 h = s; h < s + nr; h += 1ULL << pgmap->vmemmap_shift)
				memmap_stream_pattern(pfn_to_page(h), vmemmap_shared_unique(),
						      MEMMAP_POISON_FLAGS);
			*bytes += (nr >> pgmap->vmemmap_shift) * vmemmap_shared_unique() *
				  sizeof(struct page);
		} else {
			memmap_stream_pattern(pfn_to_page(s), nr, MEMMAP_POISON_FLAGS);
			*bytes += nr * sizeof(struct page);
		}
		total += mm_cycles() - t0;
		if (i + nr < pgmap->nr_pages)
			devmem_pause();
	}
	*cycles = total;
	devmem_init_memmap(pgmap, pgmap->last_design);	/* a valid memmap again, untimed */
	return 0;
}

int devmem_destroy(int id)
{
	struct dev_pagemap *pgmap = devmem_find(id);
	int nid;

	if (!pgmap)
		return -ENOENT;
	if (range_claim_check(pgmap->start_pfn, pgmap->start_pfn + pgmap->nr_pages))
		return -EBUSY;	/* another holder changes this memory: range_claim.h */
	nid = pgmap->nid;
	devmem_poison_memmap(pgmap->start_pfn, pgmap->nr_pages);
	mem_hotplug_begin();
	pgmap->in_use = false;
	device_span_recompute(nid);
	mem_hotplug_done();
	if (pgmap->own_sections) {
		u64 first = pfn_to_section_nr(pgmap->start_pfn);

		devmem_remove_sections(pgmap, first, first + pgmap->nr_pages / PAGES_PER_SECTION);
		pr_info("devmem%d: [mem %#018llx-%#018llx] unmapped", id,
			(unsigned long long)PFN_PHYS(pgmap->start_pfn),
			(unsigned long long)PFN_PHYS(pgmap->start_pfn + pgmap->nr_pages) - 1);
		return 0;
	}
	pr_info("devmem%d: [mem %#018llx-%#018llx] back to offline memory", id,
		(unsigned long long)PFN_PHYS(pgmap->start_pfn),
		(unsigned long long)PFN_PHYS(pgmap->start_pfn + pgmap->nr_pages) - 1);
	return 0;
}

/* ---- equivalence on the live memmap -------------------------------------- */

#define SCRATCH_ORDER	9	/* 2 MiB: one section's struct pages */
_Static_assert((PAGE_SIZE << SCRATCH_ORDER) == PAGES_PER_SECTION * sizeof(struct page),
	       "the scratch buffer holds one section's memmap");

/* Patterns written before each design, different per design, so a byte a
 * design forgets to write cannot keep an earlier design's value
 * (indexed by devmem design: old, new, template-nt, head-template, shared). */
static const u64 compare_patterns[NR_DEVMEM_DESIGNS] = {
	0x5a5a5a5a5a5a5a5aULL, 0xa5a5a5a5a5a5a5a5ULL, 0x3c3c3c3c3c3c3c3cULL,
	0xc3c3c3c3c3c3c3c3ULL, 0x6969696969696969ULL,
};
/* Likewise for the pageblock migratetypes (none of them Movable). */
static const int compare_pb_patterns[NR_DEVMEM_DESIGNS] = {
	MIGRATE_UNMOVABLE, MIGRATE_RECLAIMABLE, MIGRATE_HIGHATOMIC, MIGRATE_CMA,
	MIGRATE_UNMOVABLE,
};

/* Fill the unit of pages at unit_pfn, init it with devmem design d, return
 * the cycles of the init alone. */
static u64 compare_one(const struct dev_pagemap *pgmap, u64 unit_pfn, u64 unit, int d)
{
	unsigned order = pgmap->vmemmap_shift;
	u64 t0;
	int err;

	memmap_fill_pattern(pfn_to_page(unit_pfn), unit, compare_patterns[d]);
	for (u64 pfn = unit_pfn; pfn < unit_pfn + unit; pfn += pageblock_nr_pages)
		set_pageblock_migratetype(pfn, compare_pb_patterns[d]);
	t0 = mm_cycles();
	if (d == DEVMEM_DESIGN_SHARED)
		err = memmap_init_zone_device_shared(unit_pfn, unit, pgmap->nid, order,
						     (void *)pgmap, vmemmap_shared_unique());
	else if (d == DEVMEM_DESIGN_HEAD_TEMPLATE)
		err = memmap_init_zone_device_head_template(unit_pfn, unit, pgmap->nid, order,
							    (void *)pgmap);
	else
		err = memmap_init_zone_device_design(unit_pfn, unit, pgmap->nid, order,
						     (void *)pgmap, (enum mech_design)d);
	t0 = mm_cycles() - t0;
	MM_BUG_ON(err, "devmem%d: design %d, order %u: %d", pgmap->id, d, order, err);
	return t0;
}

/* The struct page whose memory pfn's shares in the shared layout (itself for
 * the head and the first tails): Linux's vmemmap_populate_compound_pages()
 * maps every vmemmap page of a compound after the second to the second. */
static u64 shared_alias(const struct dev_pagemap *pgmap, u64 pfn)
{
	u64 head = pgmap->start_pfn + ALIGN_DOWN(pfn - pgmap->start_pfn, 1ULL << pgmap->vmemmap_shift);
	u64 u = vmemmap_shared_unique(), half = u / 2, j = pfn - head;

	return j < u ? pfn : head + half + j % half;
}

/*
 * One pass of the comparison over the range in its present layout: per
 * section, the per-page (old) design into the scratch, then each of
 * designs[] compared with it, through pfn_to_page() (the shared layout's
 * aliases too).  premise: also check on the per-page result that every
 * struct page equals the one it would share memory with in the shared
 * layout (a full layout only).  Returns 0, 1 (different: *diff, *pb_diff,
 * out->design), -EINTR.
 */
static int compare_pass(const struct dev_pagemap *pgmap, struct page *expect, const int *designs,
			unsigned nr_designs, bool premise, struct memmap_diff *diff, bool *pb_diff,
			struct devmem_compare_out *out)
{
	u8 pb_expect[PAGEBLOCKS_PER_SECTION];
	bool old_counted = out->ran[DESIGN_OLD];
	int ret = 0;

	for (u64 sec = pgmap->start_pfn; sec < pgmap->start_pfn + pgmap->nr_pages && !ret;
	     sec += PAGES_PER_SECTION) {
		u64 unit = devmem_unit(pgmap), c;
		u64 unit_pfn = pgmap->start_pfn + ALIGN_DOWN(sec - pgmap->start_pfn, unit);
		bool count = unit_pfn == sec;

		/* between two sections the caller may pause (the shell's job) */
		if (sec > pgmap->start_pfn && mech_bench_checkpoint())
			return -EINTR;
		c = compare_one(pgmap, unit_pfn, unit, DESIGN_OLD);
		if (count && !old_counted)
			out->cycles[DESIGN_OLD] += c;
		memcpy(expect, pfn_to_page(sec), PAGES_PER_SECTION * sizeof(struct page));
		for (unsigned i = 0; i < PAGEBLOCKS_PER_SECTION; i++)
			pb_expect[i] = (u8)get_pageblock_migratetype(sec + i * pageblock_nr_pages);
		for (u64 i = 0; premise && i < PAGES_PER_SECTION && !ret; i++) {
			u64 a = shared_alias(pgmap, sec + i);

			if (a != sec + i && memmap_compare(pfn_to_page(a), pfn_to_page(sec + i), 1, diff)) {
				diff->index = sec + i - pgmap->start_pfn;
				out->design = DEVMEM_DESIGN_SHARED;
				out->shared_premise = true;
				ret = 1;
			}
		}
		for (unsigned k = 0; k < nr_designs && !ret; k++) {
			int d = designs[k];

			c = compare_one(pgmap, unit_pfn, unit, d);
			if (count)
				out->cycles[d] += c;
			if (memmap_compare(expect, pfn_to_page(sec), PAGES_PER_SECTION, diff)) {
				diff->index += sec - pgmap->start_pfn;
				out->design = d;
				ret = 1;
			}
			for (unsigned i = 0; i < PAGEBLOCKS_PER_SECTION && !ret; i++)
				if (pb_expect[i] != get_pageblock_migratetype(sec + i * pageblock_nr_pages)) {
					*pb_diff = true;
					diff->index = sec - pgmap->start_pfn + i * pageblock_nr_pages;
					diff->byte = 0;
					diff->expect = pb_expect[i];
					diff->got = (u8)get_pageblock_migratetype(sec + i * pageblock_nr_pages);
					out->design = d;
					ret = 1;
				}
		}
	}
	out->ran[DESIGN_OLD] = true;
	for (unsigned k = 0; k < nr_designs; k++)
		out->ran[designs[k]] = true;
	return ret;
}

/* The whole memmap initialised again with design d (a valid memmap after
 * a comparison), a unit at a time. */
static void compare_reinit(const struct dev_pagemap *pgmap, int d)
{
	u64 unit = devmem_unit(pgmap);

	for (u64 pfn = pgmap->start_pfn; pfn < pgmap->start_pfn + pgmap->nr_pages; pfn += unit)
		compare_one(pgmap, pfn, unit, d);
}

/*
 * A unit at a time (devmem_unit(): a section, or a 1 GiB compound) is the
 * same as the whole range at once: compounds never cross a unit, and the
 * template designs rebuild their templates per unit anyway.  The scratch
 * holds one section: a unit of several sections is initialised again for
 * each of them, and its cycles are counted once.
 */
int devmem_compare(int id, struct memmap_diff *diff, bool *pb_diff, struct devmem_compare_out *out)
{
	static const int full[] = { DEVMEM_DESIGN_HEAD_TEMPLATE, DESIGN_NEW, DESIGN_NEW_NT };
	static const int shared_only[] = { DEVMEM_DESIGN_SHARED };
	struct dev_pagemap *pgmap = devmem_find(id);
	struct devmem_compare_out local;
	bool was_shared, can_share;
	struct page *scratch, *expect;
	int ret;

	MM_BUG_ON(!diff || !pb_diff, "id %d: diff %p, pb_diff %p", id, (void *)diff, (void *)pb_diff);

	if (!out)
		out = &local;
	memset(out, 0, sizeof(*out));
	out->design = -1;
	if (!pgmap)
		return -ENOENT;
	scratch = alloc_pages(GFP_KERNEL | __GFP_NOWARN, SCRATCH_ORDER);
	if (!scratch)
		return -ENOMEM;
	expect = mm_phys_to_virt(page_to_phys(scratch));
	*pb_diff = false;
	was_shared = pgmap->shared_vmemmap;
	can_share = pgmap->own_sections && vmemmap_shared_order_ok(pgmap->vmemmap_shift);
	out->shared_err = !pgmap->own_sections ? -EOPNOTSUPP : !can_share ? -EINVAL : 0;
	out->in_shared = was_shared;

	/* pass 1: the full designs in the layout the range has (through the
	 * aliases if it is shared; on real memory the premise of sharing too) */
	ret = compare_pass(pgmap, expect, full, ARRAY_SIZE(full), can_share && !was_shared, diff,
			   pb_diff, out);
	/* pass 2: the shared design, in the shared layout, against the per-page
	 * design read back through the same aliases */
	if (!ret && can_share) {
		int err = was_shared ? 0 : vmemmap_relayout(pgmap, true);

		if (err) {
			out->shared_err = err;
		} else {
			ret = compare_pass(pgmap, expect, shared_only, 1, false, diff, pb_diff, out);
			if (!was_shared && vmemmap_relayout(pgmap, false)) {
				/* no memory to map it back: it stays shared, initialised as such */
				pr_warn("devmem%d: compare: the full vmemmap could not be mapped back; the range keeps the shared layout",
					id);
			}
		}
	}
	free_pages(scratch, SCRATCH_ORDER);
	/* leave a valid memmap behind whatever happened */
	if (ret || pgmap->shared_vmemmap != out->in_shared || (can_share && !out->in_shared &&
							       out->ran[DEVMEM_DESIGN_SHARED]))
		compare_reinit(pgmap, pgmap->shared_vmemmap ? DEVMEM_DESIGN_SHARED : DESIGN_NEW_NT);
	return ret;
}

/* ---- measurement over an offline range ----------------------------------- */

int devmem_bench(phys_addr_t start, u64 size, unsigned reps, bool warm, struct memmap_bench *b)
{
	int nid, err;

	MM_BUG_ON(!b, "[%#llx, +%#llx) reps %u: no result struct", (unsigned long long)start,
		  (unsigned long long)size, reps);

	err = devmem_check_range("devmem bench", start, size, &nid);
	if (err)
		return err;
	err = memmap_init_bench(PHYS_PFN(start), PHYS_PFN(size), nid, reps, warm, b);
	devmem_poison_memmap(PHYS_PFN(start), PHYS_PFN(size));
	return err;
}

/* ---- views --------------------------------------------------------------- */

void devmem_dump(struct printer *p)
{
	int n = 0;

	MM_BUG_ON(!p, "no printer");

	for (int i = 0; i < DEVMEM_MAX_RANGES; i++) {
		const struct dev_pagemap *pgmap = &devmem_ranges[i];
		u64 per_page;

		if (!pgmap->in_use)
			continue;
		if (!n++)
			pr_printf(p, "ID RANGE                                  NODE     PAGES COMPOUND LAST INIT\n");
		per_page = pgmap->last_init_pages ? pgmap->last_init_cycles / pgmap->last_init_pages : 0;
		pr_printf(p, "%2d [mem %#018llx-%#018llx] %4d %9llu %5llu KiB %s: %llu cycles (%llu/page), %llu inits%s%s\n",
			  pgmap->id, (unsigned long long)PFN_PHYS(pgmap->start_pfn),
			  (unsigned long long)PFN_PHYS(pgmap->start_pfn + pgmap->nr_pages) - 1,
			  pgmap->nid, (unsigned long long)pgmap->nr_pages,
			  (unsigned long long)((PAGE_SIZE << pgmap->vmemmap_shift) >> 10),
			  devmem_design_name(pgmap->last_design),
			  (unsigned long long)pgmap->last_init_cycles, (unsigned long long)per_page,
			  (unsigned long long)pgmap->nr_inits, pgmap->owner[0] ? ", " : "",
			  pgmap->owner);
	}
	if (!n)
		pr_printf(p, "no device memory ranges\n");
}

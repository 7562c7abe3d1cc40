/*
 * memremap.h - device memory (ZONE_DEVICE): physical ranges with a memmap
 * whose pages never reach the buddy allocator, as Linux's memremap_pages()
 * gives persistent memory (dax_pmem, nd_pmem) and GPU memory.
 *
 * memlab turns a range of hot-added memory blocks that are present but
 * offline (a DIMM added with auto_online_blocks=offline) into a device
 * range of its node: the ZONE_DEVICE zone's span grows over it (present 0,
 * managed 0: Linux never counts device pages as memory), and its memmap is
 * initialised by memmap_init_zone_device() in 4 KiB pages or compounds
 * (2 MiB: like devdax align=2M).  "rebind" tears the memmap down and
 * initialises it again, timing the init, which is the measurement of Li
 * Zhe's 2026 series (dax_pmem unbind/bind, memmap_init_zone_device's
 * "initialised N pages in X ms").
 *
 * Invariants:
 *   - a device range is whole memory blocks, all MEM_OFFLINE, of one node,
 *     none carrying its own memmap (memmap_on_memory), overlapping no other
 *     device range;
 *   - while it exists, its memmap is initialised (every page ZONE_DEVICE,
 *     owner = its struct dev_pagemap), its sections stay offline (so
 *     pfn_to_online_page() says NULL, as Linux), and the node's
 *     ZONE_DEVICE span covers it; pages_with_online_memmap and
 *     `contiguous` of ZONE_DEVICE are never touched (Linux never counts
 *     device ranges);
 *   - devmem_destroy() leaves the memmap poisoned exactly as the hotplug
 *     core leaves an offline block (page_memmap_poisoned()), so the blocks
 *     can be onlined or removed again.
 * The hotplug core must not online or remove a block of a device range:
 * it asks devmem_intersects() (see the contract there).
 *
 * Context: (main) only.
 */
#ifndef MM_MEMREMAP_H
#define MM_MEMREMAP_H

#include <mm/memmap_init.h>
#include <mm/mech_bench.h>
#include <lib/printer.h>

#define DEVMEM_MAX_RANGES	16

/*
 * The designs of memmap init for device memory only, which devmem_rebind()
 * takes beside the enum mech_design values; no value of the switch, which
 * also serves memory that is not a device's:
 *   DEVMEM_DESIGN_HEAD_TEMPLATE  "head-template": the seed's first step,
 *                                heads from a template, tails field by field
 *   DEVMEM_DESIGN_SHARED         "shared": the shared vmemmap
 *                                (mm/vmemmap_shared.c)
 */
#define DEVMEM_DESIGN_HEAD_TEMPLATE	NR_MEMMAP_DESIGNS
#define DEVMEM_DESIGN_SHARED		(NR_MEMMAP_DESIGNS + 1)
#define NR_DEVMEM_DESIGNS		(NR_MEMMAP_DESIGNS + 2)

/* devmem_design_name() - "old", "new", "template-nt", "head-template" or "shared". */
const char *devmem_design_name(int d);

/* devmem_parse_design() - the inverse of devmem_design_name(), or -EINVAL. */
int devmem_parse_design(const char *word);

/* One device range; its address is the owner of every page in it. */
struct dev_pagemap {
	int id;				/* [c] devmem id: index in the table */
	bool in_use;			/* [m] slot taken */
	u64 start_pfn;			/* [m] first pfn */
	u64 nr_pages;			/* [m] whole memory blocks */
	int nid;			/* [m] node of the blocks */
	unsigned vmemmap_shift;		/* [m] compound order: 0 = 4 KiB pages, 9 = 2 MiB */
	int last_design;		/* [m] design of the last memmap init (DEVMEM_DESIGN_SHARED too) */
	u64 last_init_bytes;		/* [m] memmap bytes it wrote */
	u64 last_init_cycles;		/* [m] cycles of the last memmap_init_zone_device() */
	u64 last_init_pages;		/* [m] struct pages it initialised */
	u64 nr_inits;			/* [m] memmap inits: the create and every rebind */
	bool own_sections;		/* [m] devmem_create_phys(): its sections, direct map
					 * and vmemmap were made for it and go with it */
	char owner[16];			/* [m] the driver's device ("dax0.0"), "" for devmem's own */
	bool shared_vmemmap;		/* [m] [h] its vmemmap is in the shared layout */
	phys_addr_t shared_table_pa;	/* [m] [h] shared layout: a kept page (or more) of
					 * u64, each section's chunk of struct pages */
};

/* What a layout of the vmemmap costs a range (vmemmap_layout_cost()). */
struct vmemmap_cost {
	u64 bytes_written;	/* [o] memmap bytes one init writes */
	u64 memmap_pages;	/* [o] pages of struct pages */
	u64 table_pages;	/* [o] page-table pages that map them (besides the shared
				 * upper levels) */
};

/*
 * vmemmap_shared_unique() - struct pages of a compound the shared layout
 * gives memory of their own (128: two pages of vmemmap), the ones its
 * init writes.  vmemmap_shared_order_ok() - whether compounds of order
 * can have the shared layout: more struct pages than that, in one
 * section (align 2 MiB).  Context: (any).
 */
u64 vmemmap_shared_unique(void);
bool vmemmap_shared_order_ok(unsigned order);

/*
 * vmemmap_layout_cost() - *c for nr_pages (whole sections) in compounds
 * of order, in the full layout (shared false: every design but shared)
 * or the shared one (order must be vmemmap_shared_order_ok()).
 * Context: (any).
 */
void vmemmap_layout_cost(bool shared, unsigned order, u64 nr_pages, struct vmemmap_cost *c);

/*
 * vmemmap_relayout() - map the vmemmap of range pgmap (a range of its
 * own, devmem_create_phys()) in the shared layout (shared) or the full one.
 * Every new backing is allocated first, then each section is unmapped
 * (TLB shootdown) and mapped again, then the old backings are freed: the
 * memmap's contents are lost (the caller initialises it).  Returns 0
 * (also when the layout is already that), -EINVAL (shared with an order
 * that cannot have it) or -ENOMEM (logged; the range is as it was).
 * Context: (main); takes mem_hotplug_lock per section.
 */
int vmemmap_relayout(struct dev_pagemap *pgmap, bool shared);

/*
 * vmemmap_shared_remove_section() - unmap section nr of a range in the
 * shared layout and free its chunk; vmemmap_shared_free_table() - then,
 * with every section removed, the table (nothing for a full layout).
 * Context: (main), mem_hotplug_lock held for writing (the first).
 */
void vmemmap_shared_remove_section(struct dev_pagemap *pgmap, u64 nr);
void vmemmap_shared_free_table(struct dev_pagemap *pgmap);

/*
 * devmem_create() - make [start, start + size) a device range with
 * compounds of 2^compound_order pages.  start and size must be multiples
 * of the memory block size.  Returns the new id (>= 0), or -EINVAL (empty
 * or not aligned, a block that does not exist, blocks of two nodes, a
 * block with its own memmap, a bad order), -ERANGE (beyond
 * MAX_PHYSMEM_BITS; the range errors are add_memory()'s), -EBUSY (a block
 * is online or going offline, the range overlaps a device range, or
 * another holder has claimed memory of it: include/mm/range_claim.h),
 * -ENOSPC (table full).
 * The reason is logged ("devmem: block N is online").  A range of more
 * than 64 sections is initialised a section at a time, with a pause for
 * the shell's job between two (mech_bench_checkpoint(); never a stop), so
 * the caller must hold the range meanwhile.  Context: (main) or the
 * shell's job.
 */
int devmem_create(phys_addr_t start, u64 size, unsigned compound_order);

/*
 * devmem_create_phys() - Linux's memremap_pages() of a physical range
 * that is not RAM and was never hot-added, as persistent memory is
 * (drivers/nvdimm/nd.c, devdax): [start, start + size) of node nid
 * becomes a device range with compounds of 2^compound_order pages, owned
 * by the device named owner (kept, cut to 15 characters; the `devmem`
 * command leaves such a range to its driver).  For
 * each section: the section present (no memory block is made: the range
 * is no memory the hotplug core may online), the direct map added, the
 * vmemmap populated over a 2 MiB memmap from the page allocator; then the
 * memmap initialised by memmap_init_zone_device() with the switch's
 * design, as devmem_create() does.  devmem_destroy() takes all of it
 * down again.  start and size must be multiples of the section size
 * (128 MiB).  Returns the new id (>= 0), or -EINVAL (empty or not
 * section-aligned, a bad order, nid not an online node), -ERANGE (beyond
 * MAX_PHYSMEM_BITS), -EEXIST (a section of it is present already: RAM,
 * hot-added memory, another device), -EBUSY (claimed:
 * include/mm/range_claim.h), -ENOSPC (table full) or -ENOMEM (no 2 MiB
 * for a memmap, or a page table; everything of this call undone).  The
 * reason is logged.  Pauses between sections as devmem_create().
 * Context: (main) or the shell's job.
 */
int devmem_create_phys(int nid, phys_addr_t start, u64 size, unsigned compound_order,
		       const char *owner);

/*
 * devmem_rebind() - tear the memmap of range id down (poisoned, as
 * Linux's memunmap_pages leaves it) and initialise it again with design d
 * (an enum mech_design, as mech_parse_design() reads it from a name; -1:
 * the switch's design), timing only the init, as Linux's rebind
 * measurement does.  Logs "devmemN: initialised N pages in X cycles
 * (Y cycles/page, design)".  Returns 0, -ENOENT (no such id) or -EINVAL
 * (d neither a design nor -1; nothing changed).
 * Pauses as devmem_create() does.  Context: (main) or the shell's job.
 */
int devmem_rebind(int id, int d);

/*
 * devmem_floor() - the floor of a rebind of range id: streaming
 * (non-temporal) stores of the memmap bytes its layout's designs write,
 * every struct page (full layout) or the head and first tails of each
 * compound (shared), timed as devmem_rebind() times its init; then the
 * memmap initialised again with the last design (untimed, counted as an
 * init).  *cycles and *bytes get the time and the bytes.  Returns 0 or
 * -ENOENT.  Pauses as devmem_create() does.  Context: (main) or the
 * shell's job.
 */
int devmem_floor(int id, u64 *cycles, u64 *bytes);

/*
 * devmem_destroy() - give the range back: memmap poisoned (the offline
 * block state of the hotplug core), the ZONE_DEVICE and node spans shrunk
 * to what remains, the slot freed; for a range of devmem_create_phys()
 * also its vmemmap, memmaps, direct map and sections, so the physical
 * range is as it was before.  Returns 0, -ENOENT, or -EBUSY while
 * another holder has claimed memory of the range (include/mm/range_claim.h;
 * nothing changed).
 */
int devmem_destroy(int id);

/* What devmem_compare() did, design by design (indexed by devmem design). */
struct devmem_compare_out {
	u64 cycles[NR_DEVMEM_DESIGNS];	/* [o] init cycles, summed over the units */
	bool ran[NR_DEVMEM_DESIGNS];	/* [o] compared with the per-page design */
	int design;			/* [o] on a difference: the design that differed */
	bool shared_premise;		/* [o] ... in the per-page memmap: a struct page unlike
					 * the one whose memory it would share */
	int shared_err;			/* [o] why shared was not compared: -EOPNOTSUPP (a
					 * borrowed range), -EINVAL (4 KiB pages), -ENOMEM
					 * (no memory for the shared layout) */
	bool in_shared;			/* [o] the range was in the shared layout: the full
					 * designs were compared through its aliases */
};

/*
 * devmem_compare() - prove every design equal on the live memmap of range
 * id.  Pass 1, in the layout the range has: section by section, fill the
 * memmap with a pattern, init with the per-page (old) design, copy the
 * section's memmap and pageblock flags to a 2 MiB scratch buffer from the
 * buddy, then for head-template, template (new) and template-nt: fill
 * with another pattern, init, compare.  In the full layout of a range that
 * can have the shared one, the per-page memmap is also checked to hold
 * what sharing needs: every struct page equal to the one whose memory it
 * would share.  Pass 2, for a range of its own (devmem_create_phys()) with
 * compounds of 2 MiB or 1 GiB: the vmemmap mapped in the shared layout
 * (vmemmap_relayout(), unless it is already), and per section the per-page
 * design and the shared design written and read back through
 * pfn_to_page(), compared; then the full layout mapped back.  *out (may
 * be NULL) says what ran, the cycles of each design, and on a difference
 * which design.  Returns 0 (identical), 1 (different: *diff says where,
 * diff->index counting from the range's first pfn; *pb_diff is set when
 * the pageblock flags differed instead), -ENOENT, -ENOMEM (no scratch) or
 * -EINTR (mech_bench_checkpoint(), asked between two sections, said stop).
 * The memmap is left initialised (by template-nt in the full layout, by
 * shared in the shared one) and in the layout it had.  Context: (main) or
 * the shell's job, which may pause between two sections: the caller keeps
 * the range from being destroyed or rebound meanwhile.
 */
int devmem_compare(int id, struct memmap_diff *diff, bool *pb_diff, struct devmem_compare_out *out);

/*
 * devmem_bench() - memmap_init_bench() over [start, start + size), a range
 * of existing memory blocks that are all offline and not device memory
 * (checked as devmem_create() does, same errors), cold or warm before each
 * run (see memmap_init_bench()), then the memmap poisoned again as the
 * hotplug core expects.  Context: (main).
 */
int devmem_bench(phys_addr_t start, u64 size, unsigned reps, bool warm, struct memmap_bench *b);

/* devmem_find() - range id, or NULL. */
struct dev_pagemap *devmem_find(int id);

/*
 * devmem_intersects() - does [start_pfn, start_pfn + nr_pages) overlap a
 * device range?  The hotplug core must refuse (-EBUSY) to online or remove
 * such blocks: their memmap belongs to the device.  Context: (main).
 */
bool devmem_intersects(u64 start_pfn, u64 nr_pages);

/* devmem_dump() - one line per range: id, range, node, order, last init. */
void devmem_dump(struct printer *p);

/* devmem_reset() - forget every range without touching memmaps (host tests). */
void devmem_reset(void);

#endif

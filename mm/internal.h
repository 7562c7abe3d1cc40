/*
 * internal.h - what only mm/ (and the host tests of mm/) may call: the
 * writers behind the public headers of include/mm/.  Drivers, views and
 * the shell use include/mm/ only.
 *
 * Invariants these functions keep (the public headers describe the
 * structures; these are the only writers of the fields named):
 *   - memory_block.state changes through memory_block_set_state() only,
 *     which keeps nr_memory_blocks_in_state[] equal to the blocks in each
 *     state;
 *   - a memory block exists (find_memory_block_by_id() finds it) from
 *     memory_block_create() to memory_block_delete(), and the registered
 *     memory_block_notifier hears of both right after they happened;
 *   - zone->managed_pages counts the pages the buddy manages: it grows
 *     only in free_pfn_range_to_buddy(FREE_RANGE_NEW) (boot hand-over,
 *     onlining, fake-onlining, CMA activation through
 *     buddy_free_boot_pages()) and shrinks only in memory_online.c
 *     (offlining, fake_offline_pages());
 *   - the memmap of memory that is not online is poisoned
 *     (memmap_poison(), MEMMAP_POISON_FLAGS) and says nothing true.
 *
 * Context: as each function says; (main) or (boot), one CPU.
 */
#ifndef MM_INTERNAL_H
#define MM_INTERNAL_H

#include <mm/memory_hotplug.h>
#include <mm/contig_alloc.h>
#include <mm/mechanisms.h>

/* ---- include/mm/page.h's fields: the writers ------------------------------ */

/*
 * page_flag_set() / page_flag_clear() - set or clear flag f of page
 * (SetPageReserved() / ClearPageReserved() for PG_reserved).
 * set_page_links() - store zone and node in the flags (pfn-independent).
 * page_set_type() / page_clear_type() - give the page a type (PGTY_*) or
 * none.  Readers are in include/mm/page.h.  Context: (boot) or (main).
 */
static inline void page_flag_set(struct page *p, enum pageflags f) { p->flags |= 1UL << f; }
static inline void page_flag_clear(struct page *p, enum pageflags f) { p->flags &= ~(1UL << f); }

#define SetPageReserved(p)	page_flag_set(p, PG_reserved)
#define ClearPageReserved(p)	page_flag_clear(p, PG_reserved)

static inline void set_page_links(struct page *p, enum zone_type zone, int nid)
{
	p->flags &= ~((ZONES_MASK << ZONES_PGSHIFT) | (NODES_MASK << NODES_PGSHIFT));
	p->flags |= ((unsigned long)zone << ZONES_PGSHIFT) |
		    ((unsigned long)nid << NODES_PGSHIFT);
}

/* The buddy reads a neighbour's type under zone->lock while the pcp code
 * may change it under a pcp lock: both sides use MM_*_ONCE. */
static inline void page_set_type(struct page *p, u32 type) { MM_WRITE_ONCE(p->page_type, type << 24); }
static inline void page_clear_type(struct page *p) { MM_WRITE_ONCE(p->page_type, PAGE_TYPE_NONE); }

/* ---- mm/sparse.c: sections and pageblock flags, the writers --------------- */

/*
 * sparse_add_present() - mark [start_pfn, end_pfn) as memory of node nid:
 * sections present, subsection bits set, nr_present_pages counted.
 * Allocates root pages with root_alloc(ctx) (returns a zeroed 4 KiB
 * page's virtual address, or NULL).  Returns 0, -ENOMEM or -EINVAL (beyond
 * MAX_PHYSMEM_BITS).  Context: (boot) or (main).
 */
int sparse_add_present(u64 start_pfn, u64 end_pfn, int nid, bool early,
		       void *(*root_alloc)(void *ctx), void *ctx);

/*
 * sparse_set_memmap() - record that the section's memmap is mapped.
 * sparse_clear_memmap(), sparse_set_online(), sparse_set_offline() and
 * sparse_remove_present() are the other transitions.  Context: (boot)/(main).
 */
void sparse_set_memmap(u64 section_nr, phys_addr_t memmap_pa);
void sparse_clear_memmap(u64 section_nr);
void sparse_set_online(u64 start_pfn, u64 end_pfn);
void sparse_set_offline(u64 start_pfn, u64 end_pfn);

/*
 * sparse_set_deferred() - set or clear SECTION_MEMMAP_DEFERRED of a section
 * with a memmap: only mechanism 5 calls it (mm/deferred_init.c at boot,
 * mm/deferred_hotplug.c at a lazy online; both under mem_resize_lock after
 * boot), setting it before the memmap is initialised and clearing it once
 * it is.  Context: (boot)/(main).
 */
void sparse_set_deferred(u64 section_nr, bool deferred);

/*
 * sparse_set_unwritten() - mark an offline section with a memmap as never
 * written (SECTION_MEMMAP_UNWRITTEN): mm/deferred_hotplug.c's offline of a
 * pending block; sparse_set_online() and sparse_clear_memmap() clear it.
 * Context: (main), mem_hotplug_lock held, under mem_resize_lock.
 */
void sparse_set_unwritten(u64 section_nr);
void sparse_remove_present(u64 start_pfn, u64 end_pfn);

/*
 * deferred_init_hotplug_defer() - block [start_pfn, +nr_pages), its spans
 * grown into zone and not yet initialised, onlined lazily: its section
 * marked pending (pfn_valid() false) for mechanism 5's steps, workers,
 * grows and range inits, which write its memmap and free it later as the
 * eager online would.  False (nothing changed: the caller onlines eagerly)
 * unless deferred_init_hotplug_enabled(), the block is one whole present
 * hot-added section without memmap_on_memory and page_poison is off.
 * online_cb is the online callback set now (the eager online's): the
 * caller asks only when it is generic_online_pages() or was set with
 * set_online_page_callback_deferrable() (virtio-mem's, whose plan for a
 * pending section stays until the section is initialised); the hand-over
 * calls it then (online_page_callback_get()), or the default.  The pages
 * it will give to the buddy (online_count's answer for a driver's
 * callback, the whole block for the default) are counted now, as the
 * eager online counts them: zone managed_pages (MemTotal) and free, the
 * free ones as zone->nr_free_pending until the hand-over.  A section past
 * the table (sized from the map at boot) is onlined eagerly and logged.
 * Context: (main), mem_hotplug_lock held.
 */
bool deferred_init_hotplug_defer(u64 start_pfn, u64 nr_pages, struct zone *zone,
				 online_page_callback_t online_cb, online_page_count_t online_count);

/*
 * online_pages_freed_here() - the pages generic_online_pages() gave to
 * the buddy on this CPU so far: the difference around an online callback
 * is what it freed (deferred init's hand-over counts a virtio-mem
 * section's plugged pages so, other CPUs' onlines apart).  Context: any.
 */
u64 online_pages_freed_here(void);

/*
 * online_pages_born_free() - on: until it is switched off again, the pages
 * generic_online_pages() frees on this CPU were initialised by
 * memmap_init_free_range() (refcount 0, the state its reset would leave):
 * it gives them to the buddy with FREE_RANGE_BORN_FREE, one pass less.
 * Deferred init's hand-over of a hot-added section sets it around the
 * online callback; never with page_poison=on.  Context: any CPU, around
 * an online callback it runs itself.
 */
void online_pages_born_free(bool on);

/*
 * online_pages_counted() - on: until it is switched off again, the pages
 * generic_online_pages() frees on this CPU were counted as managed and
 * free at a lazy online (deferred_init_hotplug_defer()): they go to the
 * buddy with FREE_RANGE_PENDING (nr_free_pending down, managed as it is).
 * Deferred init's hand-over of a hot-added section sets it around the
 * online callback.  Context: any CPU, around an online callback it runs
 * itself.
 */
void online_pages_counted(bool on);

/*
 * online_page_callback_get() - the online callback set now
 * (generic_online_pages() unless a driver set its own): deferred init's
 * hand-over of a section onlined under a driver's deferrable callback
 * calls it.  Context: any CPU (it changes only while no block of the
 * driver is online).
 */
online_page_callback_t online_page_callback_get(void);

/*
 * deferred_init_hotplug_discard() - the offline of block [start_pfn,
 * end_pfn) of zone without writing its memmap, when every section of it is
 * a pending hot-added section (deferred_init_hotplug_defer()) whose online
 * finished and which no CPU initialises: nothing can have been allocated
 * from it (an allocation, a pfn walker or an isolation initialises a
 * section first), so its pages are exactly those its online counted.
 * They leave the zone's managed pages and nr_free_pending, the sections
 * leave the table and the pending counters, pfn_valid() stays false; *counted
 * is the pages uncounted.  The caller does the rest of the offline (present
 * pages, the section offline, spans) and skips the isolation, the
 * migration and the memmap counter (a pending section never joined it).
 * False, and nothing changed, otherwise (the caller initialises the range
 * and offlines it as any other).  Context: (main), mem_hotplug_lock held
 * for writing, no mem_resize_lock.
 */
bool deferred_init_hotplug_discard(u64 start_pfn, u64 end_pfn, struct zone *zone, u64 *counted);

/*
 * deferred_init_hotplug_publish() - the end of the online of the block at
 * start_pfn that deferred_init_hotplug_defer() made pending: from now on
 * its section may be claimed (before, a worker on another CPU could hand
 * its pages to the buddy before the section is online), and the
 * background work is kicked.  Nothing if the block was onlined eagerly.
 * Context: (main), mem_hotplug_lock held.
 */
void deferred_init_hotplug_publish(u64 start_pfn);

/*
 * deferred_init_hotplug_zone() - the zone (enum zone_type; its node is the
 * section's) of pfn if it lies in a hot-added section whose memmap is
 * pending, else -1: such memory is online memory of that zone although
 * pfn_valid() is false (the span scans of memory_online.c ask).
 * Context: mem_resize_lock held.
 */
int deferred_init_hotplug_zone(u64 pfn);

/*
 * set_pageblock_migratetype() / set_pageblock_isolate() - write the
 * migratetype / the isolate bit of the pageblock holding pfn (readers:
 * get_pageblock_*() in include/mm/sparse.h).  The buddy's free lists do
 * not follow: buddy_set_pageblock_migratetype() and
 * buddy_isolate_pageblock() move the free pages too.  Context: (boot) or
 * (main); the pageblock's memory is the caller's (its zone lock held, or
 * its memmap being initialised, or a range claim).
 */
void set_pageblock_migratetype(u64 pfn, int migratetype);
void set_pageblock_isolate(u64 pfn, bool isolated);

/* ---- mm/mm_init.c: the memmap, the writers -------------------------------- */

/*
 * init_single_page() - the struct page of pfn, initialised field by field
 * for zone/nid as Linux's __init_single_page: zeroed, links set, refcount 1,
 * no type, empty list.  The "old design" of memmap init; the template design
 * lives next to it in mm/memmap_init.c.  Context: (boot) or (main).
 */
void init_single_page(struct page *page, u64 pfn, enum zone_type zone, int nid);

/*
 * memmap_init_range() - initialise the struct pages of [start_pfn, end_pfn)
 * for zone/nid and set each pageblock's migratetype.  Context: (boot)/(main).
 */
void memmap_init_range(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
		       int migratetype);

/* init_unavailable_range() - holes: initialised and PG_reserved. */
u64 init_unavailable_range(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid);

/* ---- the explicit-design twins: mm/memmap_init.c, mm/contig_free.c ------- */

/*
 * Each mechanism's entry point runs the design its switch says
 * (mech_design(), include/mm/mechanisms.h).  These twins take the design
 * instead, for what must run one particular design: the equivalence
 * checks (mm/memremap.c's devmem_compare(), the host tests) and the
 * benchmarks (mm/mech_bench.c, tests/bench/).  They are mm's own: code
 * above mm picks a design only through the switch, mech_override() /
 * mech_restore() (make check-tree's "designs" rule).  A design out of
 * range (not an enum mech_design, or DESIGN_NEW_NT for contig_free) is
 * refused with -EINVAL before anything is written.
 */

/*
 * memmap_init_range_design() - memmap_init_range() with design d instead
 * of the switch: [start_pfn, end_pfn) of zone/nid, pageblock migratetype
 * set at each pageblock-aligned pfn.  Returns 0 or -EINVAL (d out of
 * range).  Context: (boot)/(main).
 */
int memmap_init_range_design(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
			     int migratetype, enum mech_design d);

/*
 * init_unavailable_range_design() - init_unavailable_range() with design
 * d: the holes [start_pfn, end_pfn) (none if end_pfn <= start_pfn).
 * Returns 0 or -EINVAL (d out of range).  Context: (boot)/(main).
 */
int init_unavailable_range_design(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
				  enum mech_design d);

/*
 * memmap_init_zone_device_design() - memmap_init_zone_device() with design
 * d.  Returns 0, or -EINVAL (d out of range, or the compound order rules
 * of memmap_init_zone_device(); nothing written).  Context: (main).
 */
int memmap_init_zone_device_design(u64 start_pfn, u64 nr_pages, int nid,
				   unsigned compound_order, void *pgmap, enum mech_design d);

/*
 * memmap_init_zone_device_head_template() - the head-template design of
 * device memory (the seed's first step): heads and 4 KiB pages copied from
 * a template, every compound tail initialised field by field as the old
 * design does.  The same bytes as every other design.  Returns 0, or
 * -EINVAL (the order rules of memmap_init_zone_device(); nothing
 * written).  Context: (main).
 */
int memmap_init_zone_device_head_template(u64 start_pfn, u64 nr_pages, int nid,
					  unsigned compound_order, void *pgmap);

/*
 * memmap_init_zone_device_shared() - the shared-vmemmap design's init
 * (mm/vmemmap_shared.c): the template design, but of each compound only
 * the first nr_unique struct pages are written (the head and the first
 * tails: those with memory of their own in the vmemmap); the others are
 * the vmemmap's aliases of written tails, so read back through
 * pfn_to_page() they are what the other designs write.  Every pageblock
 * is set Movable, as by the other designs.  Returns 0, or -EINVAL (the
 * order rules of memmap_init_zone_device(), or nr_unique not in
 * [2, 2^compound_order]; nothing written).  Context: (main).
 */
int memmap_init_zone_device_shared(u64 start_pfn, u64 nr_pages, int nid, unsigned compound_order,
				   void *pgmap, u64 nr_unique);

/*
 * free_contig_range_design() - free_contig_range() (or, frozen,
 * free_contig_frozen_range()) with design DESIGN_OLD or DESIGN_NEW.
 * Fills *stats (may be NULL).  Returns 0, or -EINVAL when the design is
 * neither or the compound-head rule refused the call (nothing freed).
 * Context: (main).
 */
int free_contig_range_design(u64 pfn, u64 nr_pages, bool frozen, enum mech_design design,
			     struct contig_free_stats *stats);

/* ---- mm/page_alloc.c: ranges to the buddy ------------------------------- */

/* How free_pfn_range_to_buddy() treats the pages it is given. */
#define FREE_RANGE_NEW		0x1u	/* never free before: reset, counted as managed, list tail */
#define FREE_RANGE_POISON	0x2u	/* with FREE_RANGE_NEW: poison each page (page_poison=on) */
#define FREE_RANGE_BORN_FREE	0x4u	/* with FREE_RANGE_NEW: memmap_init_free_range() pages: no reset */
#define FREE_RANGE_PENDING	0x8u	/* with FREE_RANGE_NEW: counted at a lazy online: from nr_free_pending, managed unchanged */
#define FREE_RANGE_PREPARED	0x0u	/* already free as far as the counters go: only inserted */

/*
 * free_pfn_range_to_buddy() - give [start_pfn, end_pfn) (half-open, pages
 * of zone, on no list) to the buddy in the largest naturally aligned
 * chunks: order = min(MAX_PAGE_ORDER, trailing zeros of the pfn,
 * floor(log2(pages left))) (max_aligned_order()).  A chunk larger than a
 * pageblock whose pageblocks are not all on one free list goes pageblock
 * by pageblock (Linux's split_large_buddy()).
 *   FREE_RANGE_NEW: pages never freed before (boot hand-over, onlining,
 *     fake-onlining: PG_reserved, PageOffline or untyped): each is reset
 *     (type and PG_reserved cleared, refcount 0), zone->managed_pages
 *     grows by the range, chunks go to the tail (buddy_free_boot_pages());
 *     with FREE_RANGE_POISON each page is poisoned first; with
 *     FREE_RANGE_BORN_FREE (not with POISON) the pages were initialised
 *     in that reset state by memmap_init_free_range() and are not visited
 *     again: only the chunks' heads are written, the counters grow the same;
 *     with FREE_RANGE_PENDING the range was counted as managed and free
 *     when its block was onlined lazily (zone->nr_free_pending): managed
 *     stays, nr_free_pending goes down as the buddy goes up, the zone's
 *     free count (zone_nr_free()) unchanged.
 *   FREE_RANGE_PREPARED: pages prepared by the caller (refcount 0, clean)
 *     and already counted (free_contig_range, the parts of a taken free
 *     block outside an alloc_contig_range): only inserted, FPI_NONE.
 * st: the new free_contig_range design's counts and trace, or NULL.
 * The one routine that cuts a range into buddy blocks: mm_init.c,
 * memory_online.c, contig_alloc.c and contig_free.c all call it.
 * Context: (boot), or (main); takes zone->lock around the whole range (the
 * callers hand it bounded ranges: a memory block, a deferred section).
 */
void free_pfn_range_to_buddy(struct zone *zone, u64 start_pfn, u64 end_pfn, unsigned flags,
			     struct contig_free_stats *st);

/* ---- mm/mm_init.c: boot memory's memmap and hand-over, by window --------- */

/*
 * boot_memmap_init_window() - what the boot's memmap step does, for the
 * pfns of [lo, hi) only: the struct pages of boot memory (each zone's part
 * through memmap_init_range()), the holes of present sections (reserved,
 * the zone of the memory after them), the zones' pages_with_online_memmap,
 * and PG_reserved on memblock-reserved RAM.  Called with [0, MAX_PFN) by
 * the old design, and with one section at a time by deferred init (the
 * same calls clipped, so the bytes written are the same).  *holes (may be
 * NULL) grows by the hole pages; returns the memory pages initialised.
 * born_free: the memory pages through memmap_init_free_range() instead
 * (refcount 0; memblock-reserved ones get refcount 1 with PG_reserved, as
 * memmap_init_range() would have left them), for a caller that hands the
 * window over at once with boot_handover_window(lo, hi, true), before any
 * memblock allocation can reserve more of it.
 * acct NULL: the counters are added at once, mem_resize_lock held.  acct
 * given: they are collected there instead (struct memmap_acct) and the
 * window runs with no lock, for a CPU that owns the window's struct pages
 * (deferred init's claim on a section); memmap_acct_apply() adds them
 * later under mem_resize_lock.
 * Context: (boot), or (main)/(any CPU) for a deferred section.
 */
#define MEMMAP_ACCT_MAX		16
struct memmap_acct {
	unsigned nr;			/* [o] entries used */
	bool overflow;			/* [o] more pieces than entries: redo the window locked */
	struct {
		struct zone *zone;	/* [o] */
		u64 start_pfn, end_pfn;	/* [o] zone_online_memmap_add()'s arguments */
	} e[MEMMAP_ACCT_MAX];		/* [o] */
};
u64 boot_memmap_init_window(u64 lo, u64 hi, u64 *holes, bool born_free, struct memmap_acct *acct);

/* memmap_acct_apply() - the counters boot_memmap_init_window() collected in
 * acct.  Context: mem_resize_lock. */
void memmap_acct_apply(const struct memmap_acct *acct);

/*
 * boot_handover_window() - the boot hand-over for [lo, hi) only: every
 * free memblock range clipped to it, zone by zone, through
 * free_pfn_range_to_buddy(FREE_RANGE_NEW, poisoned if page_poison=on).
 * born_free: the window was initialised with born_free just before (the
 * range is given with FREE_RANGE_BORN_FREE; not allowed with page_poison,
 * which must visit every page anyway).  Returns the pages handed to the
 * buddy.  Context: (boot)/(main).
 */
u64 boot_handover_window(u64 lo, u64 hi, bool born_free);

/*
 * boot_memmap_bytes_in() - bytes of [lo, hi) (physical) that back boot
 * memory's memmap (the memblock allocations of setup_sections()).  Always
 * <= the memblock-reserved bytes of the range.  Context: (boot)/(main).
 */
u64 boot_memmap_bytes_in(phys_addr_t lo, phys_addr_t hi);

/* ---- mm/memory_block.c: the block table's writers ------------------------ */

/*
 * memory_block_set_state() - the only writer of mem->state; keeps
 * nr_memory_blocks_in_state[].  Context: (main)/(boot).
 */
void memory_block_set_state(struct memory_block *mem, enum memory_block_state state);

/*
 * memory_block_create() - a new MEM_OFFLINE block block_id of node nid in
 * group (or NULL), nothing else filled in; *out gets it.  Returns 0,
 * -EEXIST (the id exists) or -ENOSPC (every slot of the pool in use).
 * memory_block_delete() - forget a MEM_OFFLINE block.  Context: (main)/(boot).
 */
int memory_block_create(unsigned long block_id, int nid, struct memory_group *group, bool early,
			struct memory_block **out);
void memory_block_delete(struct memory_block *mem);

/* memory_blocks_on_node() - existing blocks of node nid (early ones included). */
unsigned long memory_blocks_on_node(int nid);
/* memory_blocks_free_slots() - blocks that can still be created. */
unsigned long memory_blocks_free_slots(void);

/*
 * memory_block_range_check() - is [start, start + size) (physical) a range
 * of whole memory blocks that the physical address space holds?  Returns
 * 0; -EINVAL when it is empty or start or size is not a multiple of
 * MEMORY_BLOCK_SIZE; -ERANGE when it wraps or ends beyond
 * 2^MAX_PHYSMEM_BITS.  Alignment is judged first, so a range that is both
 * gets -EINVAL.  Prints nothing: each caller says why in its own words.
 * The one errno per kind of bad range for add_memory(), remove_memory(),
 * devmem_create() and devmem_bench().  Context: any.
 */
int memory_block_range_check(phys_addr_t start, u64 size);

/*
 * remove_memory_log() - the "remove_memory: [mem A-B]: N blocks" line of a
 * removal of nr_blocks blocks from start: remove_memory()'s, and a quiet
 * removal's memory_removal_report(), which logs blocks removed one at a
 * time as that one call would have.  Context: (main).
 */
void remove_memory_log(phys_addr_t start, unsigned long nr_blocks);

/*
 * memory_block_notify_added() / memory_block_notify_removed() - tell the
 * registered memory_block_notifier (if any) that block mem was just
 * created, or block block_id just deleted.  Context: (main).
 */
void memory_block_notify_added(struct memory_block *mem);
void memory_block_notify_removed(unsigned long block_id);

/* ---- mm/memory_online.c: the memmap of offline memory, spans ------------- */

/*
 * memmap_poison() - poison the struct pages of [start_pfn, end_pfn) when
 * memmap_poison_enabled(): the memmap of memory that is not online says
 * nothing true (see MEMMAP_POISON_FLAGS).  Three stores in one cache line
 * per page, 2 MiB of stores per block, paid once at add and once at
 * offline; nothing at all when poisoning is off (the boot default);
 * hot-added free memory itself is never touched.  Used by
 * memory_hotplug.c and memory_online.c.  Context: (main).
 */
void memmap_poison(u64 start_pfn, u64 end_pfn);

/*
 * Spans: resize_zone_range() / resize_pgdat_range() grow a zone's or
 * node's span over [start_pfn, start_pfn + nr_pages); update_pgdat_span()
 * recomputes a node's span from its non-empty zones.  Context: (main).
 */
void resize_zone_range(struct zone *zone, u64 start_pfn, u64 nr_pages);
void resize_pgdat_range(struct pglist_data *pgdat, u64 start_pfn, u64 nr_pages);
void update_pgdat_span(struct pglist_data *pgdat);

/* ---- mm/sparse.c: section-table roots ----------------------------------- */

/*
 * sparse_release_root() - if the root holding section_nr was allocated
 * after boot and none of its 64 sections is present any more, detach it
 * from the table and return it (the 4 KiB page root_alloc gave, now the
 * caller's to free); NULL otherwise.  Roots from boot stay.  Context: (main).
 */
void *sparse_release_root(u64 section_nr);

/* ---- mm/hotplug_memmap.c: the movable memmap of a hot-added block -------- */

/* The memmap of one block (one section): 2 MiB = an order-9 block. */
#define HOTPLUG_MEMMAP_ORDER	9

/*
 * hotplug_memmap_alloc() - the 2 MiB backing for the memmap of section
 * section_nr from the page allocator (on node nid if it has one free,
 * else anywhere), marked as a movable allocation whose owner follows it
 * into the section's vmemmap and sparse record when it is migrated.  NULL
 * if there is no free order-9 block.  Context: (main).
 */
struct page *hotplug_memmap_alloc(int nid, u64 section_nr);

/*
 * hotplug_memmap_free() - give back a block hotplug_memmap_alloc()
 * returned (wherever migration has put it since), after the section's
 * vmemmap was unmapped.  Context: (main).
 */
void hotplug_memmap_free(struct page *head);

/*
 * hotplug_memmap_page() - is page part of a hot-added block's memmap?  If
 * so, *section_nr (may be NULL) is the section it describes.  Context: any.
 */
bool hotplug_memmap_page(const struct page *page, u64 *section_nr);

#endif

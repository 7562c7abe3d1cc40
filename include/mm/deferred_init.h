/*
 * deferred_init.h - mechanism 5: deferred memmap init of boot memory.
 *
 * The old design (deferred_init=old): mm_core_init()
 * initialises the struct pages of all boot memory and hands all free
 * memory to the buddy before the prompt; the cost grows with memory.
 *
 * The new design (deferred_init=new, the default; Linux's deferred struct
 * page init):
 * at boot, per node, only the first deferred_init_early bytes of memory
 * (whole sections, at least one) and every section holding memblock-
 * reserved RAM other than the memmap's own backing (page tables, section
 * roots, the kernel, CMA) are initialised and handed over; the other
 * sections are "pending" (SECTION_MEMMAP_DEFERRED,
 * include/mm/sparse.h).  They are initialised later, a section at a time,
 * by the same boot_memmap_init_window() and boot_handover_window() the
 * old design uses (so through memmap_init_range() and mechanism 2's
 * template):
 *   - in background steps, deferred_init_step(), lowest section first
 *     (the kernel runs them as a long operation after the prompt);
 *   - on demand, deferred_grow_zone(), when an allocation finds no free
 *     block in a zone's initialised part: the allocator initialises
 *     pending sections of that zone until the request fits, then tries it
 *     again before falling back to the next zone;
 *   - for an operation on a range, deferred_init_pfn_range(): offlining a
 *     block, isolating pageblocks and alloc_contig_range initialise the
 *     pending sections they touch first, then proceed as on eager memory.
 *
 * Rules while sections are pending (docs/deferred-init.md):
 *   - pfn_valid() is false in a pending section, so no pfn walker reads
 *     its struct pages; views that show pfns say "pending" for them
 *     (pfn_pending());
 *   - zone and node present_pages count pending memory (it exists),
 *     managed_pages and MemTotal do not (the buddy does not have it yet),
 *     nor do the free counts; present = managed + reserved + pending,
 *     where pending is the free memory of the pending sections (the
 *     memmap pages a pending section holds are reserved, as in the eager
 *     boot: they never reach the buddy);
 *   - the watermarks and pcp sizes follow managed_pages after each step;
 *   - a zone with pending memory is not contiguous (its memmap is not all
 *     initialised), under both contig_check designs.
 *
 * Context: (boot) for the plan, (main) for everything else; one CPU.
 */
#ifndef MM_DEFERRED_INIT_H
#define MM_DEFERRED_INIT_H

#include <mm/mmzone.h>
#include <mm/mechanisms.h>
#include <lib/printer.h>

/*
 * The boot parameters: deferred_init=old|new and deferred_init_early=SIZE,
 * private to deferred_init.c (deferred_init_param, deferred_init_early):
 * read through the getters, written only through the setters.  The
 * design is the one the boot asks for; deferred_init_plan() switches
 * MECH_DEFERRED_INIT to it.
 */

/* deferred_init_get_design() - the design deferred_init= asks for,
 * DESIGN_OLD or DESIGN_NEW (the default).  Context: (boot) or (main). */
enum mech_design deferred_init_get_design(void);

/*
 * deferred_init_set_design() - ask for design at the next
 * deferred_init_plan() (the boot; the host tests boot again).  Returns 0,
 * or -EINVAL unless design is DESIGN_OLD or DESIGN_NEW (nothing changed).
 * Context: (boot).
 */
int deferred_init_set_design(enum mech_design design);

/* deferred_init_get_early() - deferred_init_early: the bytes of each node's
 * memory initialised at boot under the new design, default 256 MiB.
 * Context: (boot) or (main). */
u64 deferred_init_get_early(void);

/*
 * deferred_init_set_early() - set deferred_init_early for the next
 * deferred_init_plan(); any size is valid (rounded up to whole sections,
 * at least one; ~0 keeps all early): returns 0.  Context: (boot).
 */
int deferred_init_set_early(u64 bytes);

/* What deferred init did so far, for `meminit` and the tests. */
struct deferred_init_stats {
	bool boot_new;			/* [c] the boot ran the new design */
	u64 boot_sections;		/* [c] sections initialised at boot */
	u64 boot_pending_sections;	/* [c] sections left pending at boot */
	u64 boot_pending_pages;		/* [c] their free pages (memory minus memmap) */
	u64 steps;			/* [n] deferred_init_step{,_while}() calls that did work */
	u64 step_sections;		/* [n] sections initialised by steps */
	u64 work_sections;		/* [n] sections initialised by deferred_init_work_node() */
	u64 grows, grow_sections;	/* [n] deferred_grow_zone(): calls that grew, sections */
	u64 range_sections;		/* [n] sections initialised for an operation on a range */
	u64 cycles;			/* [n] spent initialising pending sections, all CPUs */
	u64 done_cycles;		/* [n] mm_cycles() when the last one finished, 0 before */
	u64 hotplug_sections;		/* [n] hot-added sections onlined with their memmap pending */
	u64 hotplug_discarded;		/* [n] of them offlined before their memmap was written */
};
extern struct deferred_init_stats deferred_init_stats;

/*
 * deferred_init_plan() - with deferred_init=new, choose the sections that
 * wait and mark them SECTION_MEMMAP_DEFERRED; with old, nothing.  Resets the
 * state of a previous boot (host tests boot many times) and sets the
 * mechanism's design from deferred_init=.  Called by mm_core_init()
 * after the zones are set up and before the memmap is initialised.
 * Context: (boot).
 */
void deferred_init_plan(void);

/*
 * deferred_init_boot_done() - the end of mm_core_init(): take the pending
 * pages out of the boot's "reserved" count and register
 * deferred_init_finish() as the mechanism's leave hook.  Context: (boot).
 */
void deferred_init_boot_done(void);

/*
 * deferred_init_step() - initialise and hand over up to max_sections
 * pending sections (at least one if any is pending), lowest first; then
 * the watermarks and the contiguity of the zones touched.  Returns the
 * sections initialised (0: nothing was pending).  Context: (main).
 */
u64 deferred_init_step(u64 max_sections);

/*
 * deferred_init_step_while() - the same with a budget the caller judges:
 * one pending section, then more while more(ctx) says so (asked after
 * each section), and the watermarks and contiguity settled once at the
 * end, not per section (they cost about as much as a small section).
 * The background work passes "the slice's deadline has not passed",
 * `meminit finish` "no Ctrl-C yet".  Returns the sections initialised.
 * Context: (main).
 */
u64 deferred_init_step_while(bool (*more)(void *ctx), void *ctx);

/*
 * deferred_grow_zone() - initialise pending sections of zone, lowest
 * first, until it has a free block of order `order` above its low
 * watermark (or none is pending).  True if any section was initialised;
 * false at once when nothing waits.  The allocator calls it for a zone
 * that cannot serve a request, before falling back to the next zone.
 * A section another CPU is initialising is waited for (it counts as
 * grown).  Context: any CPU, no lock held (it frees into the buddy).
 */
bool deferred_grow_zone(struct zone *zone, unsigned order);

/*
 * deferred_init_pfn_range() - initialise every pending section that meets
 * [start_pfn, end_pfn), for an operation that is about to change that
 * range (offline, isolation, alloc_contig_range).  Returns the sections
 * initialised.  Context: (main).
 */
u64 deferred_init_pfn_range(u64 start_pfn, u64 end_pfn);

/*
 * deferred_init_work_node() - a worker's share of node nid: claim the
 * node's pending sections one at a time, lowest first, and initialise
 * each (the struct pages with no lock held, two CPUs' sections at once),
 * while more(ctx) says so (more NULL: until none is left to claim); then
 * the watermarks and contiguity once.  Returns the sections initialised;
 * deferred_init_cpu_sections[] counts them per CPU.  The CPUs of a node
 * run it from their work queues (kernel/meminit_work.c) while CPU 0's
 * steps take sections too.  Context: any CPU, no lock held.
 */
u64 deferred_init_work_node(int nid, bool (*more)(void *ctx), void *ctx);
extern u64 deferred_init_cpu_sections[];	/* [n] per CPU: sections it initialised */
extern u64 deferred_init_cpu_cycles[];	/* [n] per CPU: the cycles they took */

/*
 * deferred_init_memmap_sum() - what must not depend on which CPU
 * initialised which section, or when: for every pfn of boot memory whose
 * struct page may be read, its zone, node and PG_reserved, hashed in pfn
 * order (FNV-1a), with the counts; pfns of pending sections are only
 * counted.  These fields do not change when pages are allocated and
 * freed, so two boots of one machine give the same sum once nothing is
 * pending, whatever ran in between (`meminit sum`; the QEMU test compares
 * 4 CPUs with deferred_init_cpus=0 and with deferred_init=old).
 * Context: any; a snapshot.
 */
struct memmap_sum {
	u64 pages;	/* [o] struct pages summed */
	u64 reserved;	/* [o] of which PG_reserved */
	u64 pending;	/* [o] pfns of pending sections, not summed */
	u64 hash;	/* [o] FNV-1a over (pfn, zone | node << 8 | reserved << 16) */
};
void deferred_init_memmap_sum(struct memmap_sum *s);

/* deferred_init_finish() - every pending section, now, those claimed by
 * other CPUs waited for.  Context: (main), or any CPU with no lock held. */
void deferred_init_finish(void);

/*
 * The queries: pages still pending on node nid (NUMA_NO_NODE: all nodes),
 * in zone (a boot section's free pages: what it will add to
 * managed_pages; a hot-added section's every page), pending sections in
 * all; pfn_pending(): is pfn in a pending section (its struct page not
 * initialised yet).  deferred_init_zone_pending_free(): the pages zone's
 * pending hot-added sections counted as managed and free at their online,
 * summed from the table (what zone->nr_free_pending must be; the host
 * tests compare them).  Context: (any).
 */
u64 deferred_init_pending_pages(int nid);
u64 deferred_init_zone_pending_pages(const struct zone *zone);
u64 deferred_init_pending_sections(void);
u64 deferred_init_zone_pending_free(const struct zone *zone);

/*
 * deferred_init_hotplug_size() - size the hot-add table (the pending
 * hot-added sections, indexed by section number) to cover [0, end), the
 * end of the firmware's map with its hotplug ranges: the static table
 * (1 TiB of sections) when that is enough, else end / 128 MiB entries
 * from alloc (memblock at boot), 16 bytes each.  -ENOMEM (logged) keeps
 * the static table.  Context: (boot), before deferred_init_plan().
 */
int deferred_init_hotplug_size(u64 end, void *(*alloc)(u64 bytes));

/*
 * deferred_init_hotplug_enabled() - are hot-added blocks onlined with
 * their memmap pending?  deferred_init_hotplug=1 (the default) and
 * mechanism 5's design new.  deferred_init_hotplug_get() reads the knob
 * alone, deferred_init_hotplug_set() writes it.
 * Context: (main).
 */
bool deferred_init_hotplug_enabled(void);
bool deferred_init_hotplug_get(void);
void deferred_init_hotplug_set(bool on);

/*
 * deferred_init_set_kick() - what to call after a hot-added section was
 * made pending: the kernel's background work (kernel/meminit_work.c,
 * meminit_work_kick()), which starts again or counts it in.  NULL (the
 * host tests): only on demand and deferred_init_step().  Context: (boot).
 */
void deferred_init_set_kick(void (*kick)(void));
bool pfn_pending(u64 pfn);

/*
 * deferred_init_dump() - the `meminit` part: the design the boot ran, per
 * node initialised and pending pages, steps, grows and cycles so far.
 * Context: (any).
 */
void deferred_init_dump(struct printer *p);

#endif

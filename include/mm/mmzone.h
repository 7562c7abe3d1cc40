/*
 * mmzone.h - nodes, zones, free areas and per-CPU page lists.
 *
 * A node (struct pglist_data) is memory with one distance to the CPU (from
 * the ACPI SRAT; one node without it).  A node's memory is split into zones
 * by address and purpose (page.h: DMA < 16 MiB, DMA32 < 4 GiB, Normal,
 * Movable, Device).  Each zone has its own buddy allocator: free_area[order]
 * holds one free list per migratetype; and a per-CPU list set (one CPU in
 * memlab) in front of it for orders 0..3.
 *
 * Zone counters (pages):
 *   spanned_pages  = zone_end_pfn - zone_start_pfn, holes included
 *   present_pages  = pages with memory in the span
 *   managed_pages  = present minus reserved: what the buddy manages
 *   zone_nr_free() = pages free in the buddy + on pcp lists + pending
 *                    (NR_FREE_PAGES, what the views print, is
 *                    zone_nr_free_pages(): the buddy + pending, without
 *                    the pcp lists)
 *   nr_free_pending = free pages of hot-added sections onlined lazily
 *                    (deferred_init_hotplug=1) whose memmap is not written
 *                    yet: counted in managed_pages and free at the online,
 *                    as the eager online counts them, but not in the buddy
 *                    until their section is initialised (an allocation
 *                    grows the zone into them: deferred_grow_zone())
 * Invariant checked by the tests: for every zone,
 *   nr_free + allocated + reserved == present_pages
 * where allocated counts pages handed out by the allocator, and
 *   nr_free == buddy lists + pcp lists + nr_free_pending.
 *
 * Locks (include/lib/lock.h: real spinning locks; in the kernel only CPU 0
 * runs mm's operations, the other CPUs allocate and free only in `stress`
 * (shell/cmd_stress.c); the lock legend of every field is at its end, in
 * brackets):
 *   [z]  zone->lock: the free lists, nr_free_buddy, nr_free_cma,
 *        managed_pages and the free-list event counters.  Taken by
 *        zone_alloc_pages(), zone_free_pages(), free_pfn_range_to_buddy()
 *        and the isolation and contiguous-range code around their buddy
 *        calls; the functions of buddy_internal.h marked "Context: zone
 *        lock" assert it.
 *   [p]  the pcp lock of one CPU's per_cpu_pages: that CPU's lists and
 *        count.  Taken before zone->lock, never after it.
 *   [h]  mem_hotplug_lock (memory_hotplug.h), for writing: present and CMA
 *        page counts, zonelists, nodes online; changed by boot, online,
 *        offline, add, remove and device memory.
 *   [n]  mem_resize_lock (below): contiguity and deferred init's state.
 *        Spans are "[h] [n]": written with both held, so a reader holding
 *        either (hotplug or deferred init) sees them whole.
 *   [s]  the zone span seqlock (span_seq, below): a zone's span is also
 *        written inside it, so a reader with no lock (an AP's free path)
 *        reads start and length from one moment (zone_spans_pfn()).
 *   [w]  wmark_lock (mm/page_alloc.c): watermarks, lowmem_reserve,
 *        totalreserve_pages, pcp batch and high, written by one watermark
 *        computation at a time.
 *   [c]  set once when the node is set up ((boot) or node online) and
 *        constant after.
 *   [a]  the allocation and free counters (ev.alloc_pages, ev.free_pages,
 *        ev.pcp_hits, numa): atomic, MM_STAT_ADD() from any CPU with no
 *        lock held (pcp_hits under each CPU's own pcp lock).
 * The buddy's nr_free_buddy, nr_free_cma and nr_free_mt stay [z], but the
 * watermark check reads them without the lock, so they are written with
 * MM_WRITE_ONCE() and read with MM_READ_ONCE() (mm/buddy.c).
 * Lock order: mem_hotplug_lock, mem_resize_lock, wmark_lock, a pcp lock,
 * zone->lock.  Readers of [w], [n] and [h] fields that hold none of these
 * (the watermark check, the views) read a snapshot: exact on one CPU.
 */
#ifndef MM_MMZONE_H
#define MM_MMZONE_H

#include <mm/page.h>
#include <mm/platform.h>
#include <lib/list.h>
#include <lib/printer.h>
#include <lib/lock.h>
#include <mm/numa_cpu.h>

enum migratetype {
	MIGRATE_UNMOVABLE,	/* kernel allocations that never move */
	MIGRATE_MOVABLE,	/* can be migrated (the shell's movable allocations) */
	MIGRATE_RECLAIMABLE,	/* could be freed under pressure (unused in memlab) */
	MIGRATE_PCPTYPES,	/* the number of types with pcp lists */
	MIGRATE_HIGHATOMIC = MIGRATE_PCPTYPES, /* reserve for atomic allocations */
	MIGRATE_CMA,		/* CMA area: only movable allocations */
	MIGRATE_ISOLATE,	/* isolated: never allocated from */
	MIGRATE_TYPES
};

/* migratetype_name() - "Unmovable", "Movable", ... as /proc/pagetypeinfo. */
const char *migratetype_name(int mt);

enum zone_watermarks {
	WMARK_MIN,
	WMARK_LOW,
	WMARK_HIGH,
	NR_WMARK
};

struct free_area {
	struct list_head free_list[MIGRATE_TYPES];	/* [z] heads of free blocks */
	unsigned long nr_free;				/* [z] blocks on all lists */
	unsigned long nr_free_mt[MIGRATE_TYPES];	/* [z] blocks per list */
};

/* One list per (pcp migratetype, order 0..3). */
#define NR_PCP_ORDERS		(PAGE_ALLOC_COSTLY_ORDER + 1)
#define NR_PCP_LISTS		(MIGRATE_PCPTYPES * NR_PCP_ORDERS)

/*
 * MM_NR_CPUS - the CPUs for which each zone keeps per-CPU lists: as many
 * as the locks keep records for (LOCK_MAX_CPUS, 64).  The sets are static,
 * zone->pageset[MM_NR_CPUS]: sizeof(struct per_cpu_pages) is 248 bytes, so
 * MAX_NUMNODES * MAX_NR_ZONES * MM_NR_CPUS sets take 8 * 5 * 64 * 248 =
 * 620 KiB of the kernel's bss, against allocating them at zone init for
 * the CPUs that exist (node online and the boot zones would need an
 * allocator each).  Only the first mm_nr_cpus() sets are ever used.
 */
#define MM_NR_CPUS		LOCK_MAX_CPUS

struct per_cpu_pages {
	struct spinlock lock;	/* the pcp lock of this CPU's lists: [p] below */
	int count;		/* [p] pages on all lists (order-k page counts 2^k) */
	int high;		/* [w] drain down when count exceeds this (MM_WRITE_ONCE: read under the pcp lock) */
	int batch;		/* [w] pages moved per refill/drain step (ditto) */
	struct list_head lists[NR_PCP_LISTS]; /* [p] index: order * MIGRATE_PCPTYPES + mt */
};

/* Event counters, like /proc/vmstat's. */
struct zone_events {
	u64 alloc_pages[NR_PAGE_ORDERS];	/* [a] successful allocations per order (counted with no lock held) */
	u64 free_pages[NR_PAGE_ORDERS];		/* [a] frees per order (no lock; zone->lock in free_pfn_range_to_buddy()) */
	u64 pcp_hits;				/* [a] allocations served by a pcp list (each CPU's under its own pcp lock) */
	u64 pcp_refills;			/* [z] pcp refills from the buddy */
	u64 pcp_drains;				/* [z] pcp drains to the buddy */
	u64 merges;				/* [z] buddy merges on free */
	u64 splits;				/* [z] block splits on allocation */
	u64 fallbacks;				/* [z] allocations from another migratetype */
	u64 steals;				/* [z] pageblocks converted on fallback */
};

/*
 * Linux's NUMA allocation events of a zone (zoneinfo's and vmstat's
 * numa_hit ... numa_other, nodeN/numastat), counted once per successful
 * allocation from the zone, as Linux's zone_statistics():
 *   hit/miss     the zone is on / not on the node the allocation preferred;
 *   foreign      (counted on the preferred node's first zone) the
 *                allocation preferred this node but got another's memory;
 *   interleave   allocations of an interleave policy (memlab has none: 0);
 *   local/other  the zone is on / not on the node of the allocating CPU.
 */
struct zone_numa_events {
	u64 hit, miss, foreign, interleave, local, other;	/* [a] counted with no lock held, from any CPU */
};

struct pglist_data;

struct zone {
	struct pglist_data *zone_pgdat;	/* [c] the node */
	const char *name;		/* [c] "DMA", "DMA32", "Normal", "Movable", "Device" */
	enum zone_type idx;		/* [c] position in node_zones[] */
	unsigned long zone_start_pfn;	/* [h] [n] [s] first pfn of the span */
	unsigned long spanned_pages;	/* [h] [n] [s] span, holes included; 0 = empty zone */
	u32 span_seq;			/* [h] [n] odd while the span changes (atomic): the zone span seqlock */
	unsigned long present_pages;	/* [h] pages with memory in the span */
	unsigned long present_early_pages; /* [h] of which present since boot */
	unsigned long managed_pages;	/* [z] given to the buddy (written with MM_WRITE_ONCE: read without the lock) */
	unsigned long cma_pages;	/* [h] of which in CMA pageblocks */
	unsigned long nr_free_buddy;	/* [z] free pages in the buddy (zone_nr_free() adds the pcp lists) */
	unsigned long nr_free_cma;	/* [z] of which in CMA pageblocks */
	unsigned long nr_free_pending;	/* [z] free, managed, not in the buddy yet: pending hot-added sections (zone_nr_free_pending_add(); MM_WRITE_ONCE, read unlocked) */
	unsigned long watermark[NR_WMARK]; /* [w] min, low, high free pages */
	unsigned long lowmem_reserve[MAX_NR_ZONES]; /* [w] pages kept from allocations that could use higher zones */
	bool contiguous;		/* [n] every pageblock of the span has a valid, same-zone memmap */
	unsigned long pages_with_online_memmap; /* [n] pfns in the span with an initialised memmap of this zone */
	struct free_area free_area[NR_PAGE_ORDERS]; /* [z] the buddy free lists */
	struct per_cpu_pages pageset[MM_NR_CPUS]; /* [p] [h] each CPU's page cache in front of the buddy (zone_pcp()) */
	struct spinlock lock;		/* zone->lock: the [z] fields */
	struct zone_events ev;		/* [z] [a] event counters: each field says which */
	struct zone_numa_events numa;	/* [a] NUMA allocation events */
};

/*
 * The zone span seqlock ([s] above; Linux's zone->span_seqlock).  A span
 * changes only under mem_hotplug_lock and mem_resize_lock, between
 * zone_span_write_begin() and zone_span_write_end(), each field stored
 * whole (zone_span_set()).  A reader holding neither lock, an AP's free
 * path checking that a buddy lies in the zone, reads the start and the
 * length between zone_span_read_begin() (which waits out a change in
 * progress) and zone_span_read_retry() (true if one overlapped: read
 * again), so it never pairs a new start with an old length
 * (zone_spans_pfn()).  Readers under either lock read the fields directly.
 */
static inline void zone_span_write_begin(struct zone *z)
{
	__atomic_store_n(&z->span_seq, z->span_seq + 1, __ATOMIC_RELAXED);
}

static inline void zone_span_write_end(struct zone *z)
{
	__atomic_store_n(&z->span_seq, z->span_seq + 1, __ATOMIC_RELEASE);
}

/* zone_span_set() - the new span; between write_begin and write_end.  The
 * release stores keep the odd count before them: a reader that sees a new
 * field sees the count moved. */
static inline void zone_span_set(struct zone *z, unsigned long start_pfn, unsigned long spanned)
{
	__atomic_store_n(&z->zone_start_pfn, start_pfn, __ATOMIC_RELEASE);
	__atomic_store_n(&z->spanned_pages, spanned, __ATOMIC_RELEASE);
}

static inline u32 zone_span_read_begin(const struct zone *z)
{
	u32 seq;

	while ((seq = __atomic_load_n(&z->span_seq, __ATOMIC_ACQUIRE)) & 1)
		lock_cpu_relax();
	return seq;
}

/* The fields were read with acquire loads, so this load comes after them. */
static inline bool zone_span_read_retry(const struct zone *z, u32 seq)
{
	return __atomic_load_n(&z->span_seq, __ATOMIC_RELAXED) != seq;
}

static inline unsigned long zone_end_pfn(const struct zone *z)
{
	return MM_READ_ONCE(z->zone_start_pfn) + MM_READ_ONCE(z->spanned_pages);
}

static inline bool zone_is_empty(const struct zone *z) { return MM_READ_ONCE(z->spanned_pages) == 0; }
static inline bool populated_zone(const struct zone *z) { return z->present_pages != 0; }
static inline bool managed_zone(const struct zone *z) { return MM_READ_ONCE(z->managed_pages) != 0; }
/* zone_wmark() - watermark i of z, read without wmark_lock (the allocator's
 * check; setup_per_zone_wmarks() writes them with MM_WRITE_ONCE()). */
static inline unsigned long zone_wmark(const struct zone *z, int i)
{
	return MM_READ_ONCE(z->watermark[i]);
}

/* zone_spans_pfn() - is pfn inside z's span?  Any CPU, no lock needed. */
static inline bool zone_spans_pfn(const struct zone *z, u64 pfn)
{
	unsigned long start, spanned;
	u32 seq;

	do {
		seq = zone_span_read_begin(z);
		start = __atomic_load_n(&z->zone_start_pfn, __ATOMIC_ACQUIRE);
		spanned = __atomic_load_n(&z->spanned_pages, __ATOMIC_ACQUIRE);
	} while (zone_span_read_retry(z, seq));
	return pfn >= start && pfn < start + spanned;
}

/* A zonelist: the zones to try for an allocation, best first. */
#define MAX_ZONES_PER_ZONELIST	(MAX_NUMNODES * MAX_NR_ZONES)

/*
 * Rebuilt in place by build_all_zonelists() (mem_hotplug_lock) while other
 * CPUs walk it without a lock: each entry is stored and loaded whole
 * (MM_WRITE_ONCE / zonelist_zone()), so a walker always sees zone
 * pointers, and seq is odd while a rebuild runs and bumped again after it.
 * A walk that failed retries when seq says a rebuild overlapped it
 * (zonelist_read_begin() / zonelist_read_retry()), so it never fails
 * because it saw half of the old list and half of the new.
 */
struct zonelist {
	u32 seq;					/* [h] odd during a rebuild (atomic) */
	struct zone *zones[MAX_ZONES_PER_ZONELIST + 1]; /* [h] NULL-terminated (atomic entries) */
};

/* zonelist_zone() - entry i of zl, read without the lock. */
static inline struct zone *zonelist_zone(const struct zonelist *zl, int i)
{
	/* acquire: zonelist_read_retry()'s load of seq comes after it */
	return __atomic_load_n(&zl->zones[i], __ATOMIC_ACQUIRE);
}

/* zonelist_read_begin() - the sequence a walk starts at, after any rebuild
 * in progress (it spins while the count is odd); zonelist_read_retry() -
 * did a rebuild start or end since? */
static inline u32 zonelist_read_begin(const struct zonelist *zl)
{
	u32 seq;

	while ((seq = __atomic_load_n(&zl->seq, __ATOMIC_ACQUIRE)) & 1)
		lock_cpu_relax();
	return seq;
}

static inline bool zonelist_read_retry(const struct zonelist *zl, u32 seq)
{
	return __atomic_load_n(&zl->seq, __ATOMIC_ACQUIRE) != seq;
}

struct pglist_data {
	int node_id;				/* [c] nid */
	bool online;				/* [h] has memory or was declared by SRAT */
	struct zone node_zones[MAX_NR_ZONES];	/* [c] indexed by enum zone_type */
	struct zonelist node_zonelist;		/* [h] own zones high to low, then other nodes by distance */
	unsigned long node_start_pfn;		/* [h] [n] first pfn of the node's span */
	unsigned long node_spanned_pages;	/* [h] [n] span, holes included */
	unsigned long node_present_pages;	/* [h] pages with memory */
	unsigned long totalreserve_pages;	/* [w] kept free by watermarks + reserves */
};

static inline unsigned long pgdat_end_pfn(const struct pglist_data *pgdat)
{
	return pgdat->node_start_pfn + pgdat->node_spanned_pages;
}

/* The nodes; NODE_DATA(nid) for nid < MAX_NUMNODES (online or not). */
extern struct pglist_data node_data[MAX_NUMNODES];
#define NODE_DATA(nid)	(&node_data[(nid)])
extern u8 numa_distance[MAX_NUMNODES][MAX_NUMNODES]; /* SLIT, 10 = local */

static inline struct zone *page_zone(const struct page *page)
{
	return &NODE_DATA(page_to_nid(page))->node_zones[page_zonenum(page)];
}

#define for_each_online_node(nid)					\
	for ((nid) = 0; (nid) < MAX_NUMNODES; (nid)++)			\
		if (!NODE_DATA(nid)->online) {} else

/* next_zone() - the zone after zone in node_data[] order, NULL after the
 * last.  (Zones of consecutive nodes are not adjacent in memory: each
 * pglist_data has more fields after node_zones[].) */
static inline struct zone *next_zone(struct zone *zone)
{
	size_t nid = (size_t)((char *)zone - (char *)node_data) / sizeof(struct pglist_data);

	if (zone + 1 < &node_data[nid].node_zones[MAX_NR_ZONES])
		return zone + 1;
	return nid + 1 < MAX_NUMNODES ? &node_data[nid + 1].node_zones[0] : NULL;
}

#define for_each_zone(zone)						\
	for ((zone) = &node_data[0].node_zones[0]; (zone); (zone) = next_zone(zone))

/*
 * first_online_zone_from() - the first zone of the first online node at or
 * after nid, NULL if there is none.  next_online_zone() - the zone after
 * zone, skipping nodes that are not online.  With them a walk costs what
 * Linux's costs (its next_zone() follows next_online_pgdat()): a one-node
 * machine visits MAX_NR_ZONES zones, not MAX_NUMNODES times as many.
 */
static inline struct zone *first_online_zone_from(int nid)
{
	for (; nid < MAX_NUMNODES; nid++)
		if (node_data[nid].online)
			return &node_data[nid].node_zones[0];
	return NULL;
}

static inline struct zone *next_online_zone(struct zone *zone)
{
	int nid = (int)(((char *)zone - (char *)node_data) / (long)sizeof(struct pglist_data));

	if (zone + 1 < &node_data[nid].node_zones[MAX_NR_ZONES])
		return zone + 1;
	return first_online_zone_from(nid + 1);
}

/* for_each_populated_zone() - every zone with present pages, of online
 * nodes only (Linux's for_each_populated_zone()). */
#define for_each_populated_zone(zone)					\
	for ((zone) = first_online_zone_from(0); (zone); (zone) = next_online_zone(zone)) \
		if (!populated_zone(zone)) {} else

/*
 * for_each_populated_zone_of() - the zones of node pgdat that have present
 * pages, in node_zones[] order: z is the zone's index (enum zone_type, an
 * int), zone the zone.  The views' walk over one node's zones; with
 * for_each_online_node() around it, the same zones as
 * for_each_populated_zone().  Context: (main).
 */
#define for_each_populated_zone_of(pgdat, z, zone)			\
	for ((z) = 0; (z) < MAX_NR_ZONES; (z)++)			\
		if (!populated_zone((zone) = &(pgdat)->node_zones[(z)])) {} else

extern const char *const zone_names[MAX_NR_ZONES];

/*
 * zone_init_free_lists() - empty free lists, pcp lists and counters of z
 * (spans untouched).  Used for live zones at boot and for private zones in
 * tests.  Context: (boot), or a zone nobody else uses.
 */
void zone_init_free_lists(struct zone *z);

/*
 * mem_resize_lock (Linux's pgdat_resize_lock, one for all nodes here):
 * protects each zone's contiguity (contiguous, pages_with_online_memmap:
 * the [n] fields) and deferred init's pending sections, the state that
 * both memory hotplug and deferred memmap init change.  A spinlock:
 * taken inside mem_hotplug_lock, outside the pcp and zone locks.
 * mem_resize_lock() / mem_resize_unlock() take and release it;
 * mem_resize_assert_held() is for the functions below that need it.
 * Context: (boot) or (main).
 */
void mem_resize_lock(void);
void mem_resize_unlock(void);
void mem_resize_assert_held_at(const char *file, int line, const char *fn);
#define mem_resize_assert_held()	mem_resize_assert_held_at(__FILE__, __LINE__, __func__)
/* mem_resize_lock_stats() / wmark_lock_stats() - the two locks, for
 * `locks` (their names, state and counts). */
const struct spinlock *mem_resize_lock_stats(void);
const struct spinlock *wmark_lock_stats(void);

/* Zone contiguity (mm/zone_contig.c): see the essay there.  Context:
 * mem_resize_lock held, for all but the two comparisons. */
/* The pfn scans' probe, zone_pageblock_page(): include/mm/zone_contig.h. */
void clear_zone_contiguous(struct zone *zone);
/* zone_update_contiguous() - decide zone->contiguous with the design the
 * contig_check switch selects; call after every span change. */
void zone_update_contiguous(struct zone *zone);
/* Both answers, for comparisons; neither changes zone->contiguous. */
bool zone_contiguous_by_walk(struct zone *zone);
bool zone_contiguous_by_counter(const struct zone *zone);
/*
 * Counter upkeep: the memmap of [start_pfn, end_pfn) (clipped to the span)
 * was just initialised for this zone / is about to be retired.  Call add
 * AFTER the memmap is initialised and the span covers it; sub BEFORE the
 * memmap is retired and the span shrinks.
 */
void zone_online_memmap_add(struct zone *zone, u64 start_pfn, u64 end_pfn);
void zone_online_memmap_sub(struct zone *zone, u64 start_pfn, u64 end_pfn);
extern unsigned long zone_contig_walk_steps;	/* pageblocks walked by the old design */
extern unsigned long zone_contig_counter_checks; /* O(1) decisions of the new one */

/* global counters, summed over zones */
unsigned long totalram_pages(void);	/* managed pages of all zones */
/*
 * zone_nr_free_pages() - Linux's NR_FREE_PAGES of the zone: pages in the
 * buddy, plus the free pages of its pending hot-added sections
 * (nr_free_pending: free as the eager online would have made them, handed
 * to the buddy when their memmap is written).  Pages on the per-CPU lists
 * count as allocated here, as in Linux, so every view (MemFree, zoneinfo
 * "pages free", vmstat nr_free_pages, node meminfo) shows this number and
 * a pcp drain raises it by exactly the pages drained.  zone_nr_free()
 * (buddy + pcp + pending) is mm's own bookkeeping.  Context: (main).
 */
static inline unsigned long zone_nr_free_pages(const struct zone *zone)
{
	/* a snapshot without zone->lock */
	return MM_READ_ONCE(zone->nr_free_buddy) + MM_READ_ONCE(zone->nr_free_pending);
}

/*
 * zone_nr_free_pending_add() - the one setter of zone->nr_free_pending:
 * delta pages (negative: fewer) counted as free while their section is
 * pending.  Context: zone->lock held.
 */
void zone_nr_free_pending_add(struct zone *zone, long delta);

/* zone_pcp() - CPU cpu's lists of zone (const if zone is); this_cpu_pcp():
 * the running CPU's. */
#define zone_pcp(zone, cpu)	(&(zone)->pageset[(cpu)])

static inline struct per_cpu_pages *this_cpu_pcp(struct zone *zone)
{
	unsigned cpu = mm_this_cpu();

	MM_BUG_ON(cpu >= MM_NR_CPUS, "CPU %u has no pcp lists (MM_NR_CPUS %u)", cpu, MM_NR_CPUS);
	return zone_pcp(zone, cpu);
}

/*
 * mm_nr_cpus() - the CPUs mm keeps pcp lists for: those the CPU table
 * lists (numa_cpu.h: 1 before any is added), at most MM_NR_CPUS.  The
 * kernel fills the table at boot; a host test adds CPUs before its
 * threads run mm on them.  Context: (any).
 */
static inline unsigned mm_nr_cpus(void)
{
	unsigned n = nr_numa_cpus();

	return n < MM_NR_CPUS ? n : MM_NR_CPUS;
}

/* for_each_pcp_cpu() - every CPU that has lists in each zone. */
#define for_each_pcp_cpu(cpu)	for ((cpu) = 0; (cpu) < mm_nr_cpus(); (cpu)++)

/*
 * zone_pcp_count() - pages on every CPU's pcp lists of the zone.  A
 * sum of counters each under its own pcp lock: exact on one CPU, a
 * snapshot with more.  Context: (main).
 */
static inline unsigned long zone_pcp_count(const struct zone *zone)
{
	unsigned long n = 0;

	for (unsigned cpu = 0; cpu < MM_NR_CPUS; cpu++)
		n += (unsigned long)zone->pageset[cpu].count;
	return n;
}

/*
 * zone_nr_free() - mm's own count of the zone's free pages: the buddy's
 * plus every pcp list's plus the pending ones (nr_free_pending; the
 * invariant nr_free + allocated + reserved == present_pages holds for
 * it).  Context: (main).
 */
static inline unsigned long zone_nr_free(const struct zone *zone)
{
	return zone->nr_free_buddy + zone_pcp_count(zone) + MM_READ_ONCE(zone->nr_free_pending);
}

unsigned long global_free_pages(void);	/* nr_free of all zones */

#endif

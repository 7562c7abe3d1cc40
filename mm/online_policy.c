/*
 * online_policy.c - how a memory block is onlined when the caller does not
 * say: the online type (default_online_type) and which zone it joins
 * (zone_for_pfn_range), under memory_hotplug.online_policy:
 *
 *   contig-zones  (default) the one of {kernel zone, ZONE_MOVABLE} that
 *                 already intersects the range, else the kernel zone;
 *   auto-movable  ZONE_MOVABLE while MOVABLE : KERNEL_EARLY stays within
 *                 auto_movable_ratio percent, machine-wide and (with
 *                 auto_movable_numa_aware) on the block's node; static
 *                 groups decide for the whole device, dynamic groups per
 *                 unit.
 *
 * The inputs of auto-movable come in two designs, side by side below
 * (mechanism 4, see include/mm/mechanisms.h): summing every zone's counters
 * on each decision, or cached sums kept in step with those counters.
 * Split out of memory_hotplug.c; memory_online.c calls zone_for_pfn_range()
 * at online and auto_movable_stats_zone_changed() where present pages
 * change.
 *
 * Context: (main).
 */
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <lib/errno.h>
#include <lib/median.h>
#include <lib/printk.h>

/* The knobs, written only through the setters below (memory_hotplug.h). */
static enum online_policy memhp_online_policy = ONLINE_POLICY_CONTIG_ZONES;	/* [m] */
static unsigned int auto_movable_ratio = 301;	/* [m] */
static bool auto_movable_numa_aware = true;	/* [m] */

/* ---- the knobs ------------------------------------------------------------ */

/* Contract in memory_hotplug.h. */
enum online_policy memhp_get_online_policy(void)
{
	return memhp_online_policy;
}

/* Contract in memory_hotplug.h. */
int memhp_set_online_policy(enum online_policy policy)
{
	if (policy != ONLINE_POLICY_CONTIG_ZONES && policy != ONLINE_POLICY_AUTO_MOVABLE)
		return -EINVAL;
	memhp_online_policy = policy;
	return 0;
}

/* Contract in memory_hotplug.h. */
unsigned int memhp_get_auto_movable_ratio(void)
{
	return auto_movable_ratio;
}

/* Contract in memory_hotplug.h. */
int memhp_set_auto_movable_ratio(u64 percent)
{
	if (percent > 0xffffffffULL)
		return -EINVAL;
	auto_movable_ratio = (unsigned int)percent;
	return 0;
}

/* Contract in memory_hotplug.h. */
bool memhp_get_auto_movable_numa_aware(void)
{
	return auto_movable_numa_aware;
}

/* Contract in memory_hotplug.h. */
int memhp_set_auto_movable_numa_aware(bool on)
{
	auto_movable_numa_aware = on;
	return 0;
}

/* ---- which online type ---------------------------------------------------- */

/* Contract in memory_hotplug.h. */
enum mmop default_online_type(void)
{
	enum mmop type = memhp_get_default_online_type();

	return type == MMOP_OFFLINE ? MMOP_ONLINE : type;
}

/* ---- which zone: the online policies ------------------------------------- */

/* Does zone's span meet [start_pfn, start_pfn + nr_pages)? */
static bool zone_intersects(const struct zone *zone, u64 start_pfn, u64 nr_pages)
{
	if (zone_is_empty(zone))
		return false;
	return start_pfn < zone_end_pfn(zone) && start_pfn + nr_pages > zone->zone_start_pfn;
}

/*
 * default_kernel_zone_for_pfn() - online_kernel: the first of DMA, DMA32
 * whose span meets the range, else Normal (also for hot-added memory below
 * 4 GiB that no DMA32 span reaches, as in Linux).  Context: (main).
 */
static struct zone *default_kernel_zone_for_pfn(int nid, u64 start_pfn, u64 nr_pages)
{
	struct pglist_data *pgdat = NODE_DATA(nid);

	for (int z = 0; z < ZONE_NORMAL; z++)
		if (zone_intersects(&pgdat->node_zones[z], start_pfn, nr_pages))
			return &pgdat->node_zones[z];
	return &pgdat->node_zones[ZONE_NORMAL];
}

/*
 * default_zone_for_pfn() - the contig-zones policy: if exactly one of the
 * kernel zone and ZONE_MOVABLE already spans part of the range, join it, so
 * zones stay contiguous; otherwise the kernel zone (memlab has no
 * movable_node knob, which would choose Movable).  Context: (main).
 */
static struct zone *default_zone_for_pfn(int nid, u64 start_pfn, u64 nr_pages)
{
	struct zone *kernel_zone = default_kernel_zone_for_pfn(nid, start_pfn, nr_pages);
	struct zone *movable_zone = &NODE_DATA(nid)->node_zones[ZONE_MOVABLE];
	bool in_kernel = zone_intersects(kernel_zone, start_pfn, nr_pages);
	bool in_movable = zone_intersects(movable_zone, start_pfn, nr_pages);

	if (in_kernel != in_movable)
		return in_kernel ? kernel_zone : movable_zone;
	return kernel_zone;
}

/*
 * ---- auto-movable statistics: the old design ------------------------------
 *
 * auto_movable_stats_walk() sums the inputs of the auto-movable decision
 * over every populated zone (of one node, or of all) on every call: cost
 * O(nodes x zones) per onlined block, twice with NUMA awareness.  Linux's
 * source says "TODO: cache values" exactly here; the 2025 patch that keeps
 * cached sums in step with the counters is memlab's new design, below
 * (auto_movable_stats_cached()).  Keep this one unchanged as the
 * reference the cached version must agree with.
 */
static void auto_movable_stats_account_zone(struct auto_movable_stats *stats,
					    const struct zone *zone)
{
	if (zone->idx == ZONE_MOVABLE) {
		stats->movable_pages += zone->present_pages;
	} else {
		/* CMA pages (never hot-added) behave like ZONE_MOVABLE */
		stats->kernel_early_pages += zone->present_early_pages - zone->cma_pages;
		stats->movable_pages += zone->cma_pages;
	}
}

void auto_movable_stats_walk(int nid, struct auto_movable_stats *stats)
{
	struct zone *zone;

	MM_BUG_ON(nid != NUMA_NO_NODE && (unsigned)nid >= MAX_NUMNODES, "nid %d", nid);

	stats->kernel_early_pages = 0;
	stats->movable_pages = 0;
	if (nid == NUMA_NO_NODE) {
		for_each_populated_zone(zone)
			auto_movable_stats_account_zone(stats, zone);
		return;
	}
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		zone = &NODE_DATA(nid)->node_zones[z];
		if (populated_zone(zone))
			auto_movable_stats_account_zone(stats, zone);
	}
}

/*
 * ---- auto-movable statistics: the new design -----------------------------
 *
 * The same two sums, kept per node and for the whole machine, and changed
 * exactly where their inputs change: present pages on online/offline
 * (adjust_present_page_count), early pages at boot, CMA pages when a CMA
 * area is activated.  Reading them is a copy; the check no longer walks
 * nodes x zones.  (Linux 2025, "mm/memory_hotplug: Cache auto_movable
 * stats to optimize online check".)  auto_movable_stats_resync() rebuilds
 * the cache from the walk: at the end of boot and whenever the switch goes
 * back to "new", so the cache always starts from the truth.
 */
static struct auto_movable_stats am_cache_node[MAX_NUMNODES];	/* [h] */
static struct auto_movable_stats am_cache_all;	/* [h] */
u64 auto_movable_stat_walks, auto_movable_stat_cache_reads;	/* [m] */

void auto_movable_stats_zone_changed(struct zone *zone, long d_present, long d_early, long d_cma)
{
	struct auto_movable_stats *node = &am_cache_node[zone->zone_pgdat->node_id];
	long d_kernel = 0, d_movable;

	MM_BUG_ON((unsigned)zone->zone_pgdat->node_id >= MAX_NUMNODES || zone->idx >= MAX_NR_ZONES,
		  "zone %s: node %d idx %d", zone->name, zone->zone_pgdat->node_id, (int)zone->idx);

	if (zone->idx == ZONE_MOVABLE) {
		d_movable = d_present;
	} else {
		d_kernel = d_early - d_cma;
		d_movable = d_cma;
	}
	node->kernel_early_pages += (unsigned long)d_kernel;
	node->movable_pages += (unsigned long)d_movable;
	am_cache_all.kernel_early_pages += (unsigned long)d_kernel;
	am_cache_all.movable_pages += (unsigned long)d_movable;
	if (!d_kernel && !d_movable)
		return;		/* hot-added kernel memory: not an input, nothing to say */
	mech_trace(MECH_AUTO_MOVABLE_STATS,
		   "node %d zone %s: cached kernel_early %+ld, movable %+ld",
		   zone->zone_pgdat->node_id, zone->name, d_kernel, d_movable);
}

void auto_movable_stats_resync(void)
{
	int nid;

	am_cache_all = (struct auto_movable_stats){ 0, 0 };
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		auto_movable_stats_walk(nid, &am_cache_node[nid]);
		am_cache_all.kernel_early_pages += am_cache_node[nid].kernel_early_pages;
		am_cache_all.movable_pages += am_cache_node[nid].movable_pages;
	}
}

void auto_movable_stats_cached(int nid, struct auto_movable_stats *stats)
{
	MM_BUG_ON(nid != NUMA_NO_NODE && (unsigned)nid >= MAX_NUMNODES, "nid %d", nid);

	*stats = nid == NUMA_NO_NODE ? am_cache_all : am_cache_node[nid];
}

/* The old design's read for auto_movable_stats_get(): out of line, so the
 * cached read has no call in it. */
static __attribute__((noinline)) struct auto_movable_stats auto_movable_stats_walked(int nid)
{
	struct auto_movable_stats stats;

	auto_movable_stat_walks++;
	auto_movable_stats_walk(nid, &stats);
	mech_trace(MECH_AUTO_MOVABLE_STATS, "walked the zones of %s: kernel_early %lu, movable %lu",
		   nid == NUMA_NO_NODE ? "all nodes" : "one node", stats.kernel_early_pages,
		   stats.movable_pages);
	return stats;
}

/*
 * auto_movable_stats_get() - the inputs, by the design the switch selects.
 * Inline and returned by value (two registers), so the cached design's
 * read stays a pair of loads on the check's fast path, with no call and
 * return (under TCG each return is a lookup of the next translated block).
 */
static inline struct auto_movable_stats auto_movable_stats_get(int nid)
{
	if (mech_new(MECH_AUTO_MOVABLE_STATS)) {
		auto_movable_stat_cache_reads++;
		return nid == NUMA_NO_NODE ? am_cache_all : am_cache_node[nid];
	}
	return auto_movable_stats_walked(nid);
}

/* ---- auto-movable: the decision ------------------------------------------ */

struct auto_movable_group_stats {
	unsigned long movable_pages;		/* [o] online movable pages of the groups */
	unsigned long req_kernel_early_pages;	/* [o] early kernel pages those need */
};

/*
 * Other dynamic groups (of nid, or all): their movable pages, and the early
 * kernel pages they use up: a dynamic group may have ratio% of its own
 * kernel pages as movable; only what exceeds that needs early kernel memory.
 * Out of line and called only when a dynamic group exists (ratio != 0): the
 * loop needs registers the common case, no virtio-mem device, should not
 * have to save and restore on every check.
 */
static __attribute__((noinline)) struct auto_movable_group_stats
auto_movable_account_dynamic_groups(int nid, const struct memory_group *excluded)
{
	struct auto_movable_group_stats gs = { 0, 0 };
	unsigned ratio = auto_movable_ratio;

	for (int mgid = 0;; mgid++) {
		const struct memory_group *group = memory_group_next_dynamic(&mgid);
		long pages;

		if (!group)
			break;
		if (group == excluded || (nid != NUMA_NO_NODE && group->nid != nid))
			continue;
		pages = (long)(group->present_movable_pages * 100 / ratio) -
			(long)group->present_kernel_pages;
		if (pages > 0)
			gs.req_kernel_early_pages += (unsigned long)pages;
		gs.movable_pages += group->present_movable_pages;
	}
	return gs;
}

/* The numbers one check compares, for the trace. */
struct auto_movable_check {
	unsigned long kernel_early_pages;	/* [o] after other dynamic groups' share */
	unsigned long movable_pages;		/* [o] with the nr_pages to online */
	unsigned long limit;			/* [o] ratio% of kernel_early_pages */
};

/*
 * auto_movable_check() - the check itself; fills *c (when not NULL) with
 * the numbers it compared.  Inlined into both callers, so the untraced
 * check keeps its fast path.
 */
static inline bool auto_movable_check(int nid, struct memory_group *group, unsigned long nr_pages,
				      struct auto_movable_check *c)
{
	struct auto_movable_group_stats gs = { 0, 0 };
	struct auto_movable_stats stats;
	unsigned long kernel_early_pages, movable_pages, scaled;	/* ratio x kernel_early */

	MM_BUG_ON(nid != NUMA_NO_NODE && (unsigned)nid >= MAX_NUMNODES, "nid %d nr_pages %lu", nid,
		  nr_pages);
	stats = auto_movable_stats_get(nid);
	if (auto_movable_ratio && memory_groups_have_dynamic())
		gs = auto_movable_account_dynamic_groups(nid, group);
	if (stats.kernel_early_pages <= gs.req_kernel_early_pages) {
		if (c)
			*c = (struct auto_movable_check){ 0, stats.movable_pages + nr_pages, 0 };
		return false;
	}
	kernel_early_pages = stats.kernel_early_pages - gs.req_kernel_early_pages;
	movable_pages = stats.movable_pages - gs.movable_pages;
	if (group && group->is_dynamic)
		kernel_early_pages += group->present_kernel_pages;
	movable_pages += nr_pages;
	/*
	 * movable <= floor(ratio% of kernel_early), without the division
	 * (a helper call per check under TCG): for an integer m,
	 * m <= floor(x / 100) exactly when 100 m <= x.  The product wraps as
	 * Linux's does; 100 m cannot (m counts pages, far below 2^57).
	 */
	scaled = (unsigned long)auto_movable_ratio * kernel_early_pages;
	if (c)
		*c = (struct auto_movable_check){ kernel_early_pages, movable_pages, scaled / 100 };
	return movable_pages * 100 <= scaled;
}

/*
 * auto_movable_can_online_movable() - with nr_pages more in ZONE_MOVABLE,
 * would MOVABLE : KERNEL_EARLY stay within auto_movable_ratio percent?
 * KERNEL_EARLY is boot memory in kernel zones; hot-added kernel memory
 * counts only inside its own dynamic group, and other dynamic groups' use
 * is taken out first.  Context: (main).
 */
bool auto_movable_can_online_movable(int nid, struct memory_group *group, unsigned long nr_pages)
{
	return auto_movable_check(nid, group, nr_pages, NULL);
}

/*
 * auto_movable_check_traced() - the policy's check, narrated when the
 * trace of auto_movable_stats is on: the two sides of the comparison and
 * the answer, e.g. "all nodes: movable 262144 <= 301% of kernel_early
 * 512477 = 1542555: yes".  The percentage is the ratio in use, so a
 * reader sees which one the decision needed.
 */
static bool auto_movable_check_traced(int nid, struct memory_group *group, unsigned long nr_pages)
{
	struct auto_movable_check c;
	bool ok;

	if (!mech_tracing(MECH_AUTO_MOVABLE_STATS))
		return auto_movable_check(nid, group, nr_pages, NULL);
	ok = auto_movable_check(nid, group, nr_pages, &c);
	if (nid == NUMA_NO_NODE)
		mech_trace(MECH_AUTO_MOVABLE_STATS,
			   "check all nodes: movable %lu (with %lu to online) <= %u%% of kernel_early %lu = %lu: %s",
			   c.movable_pages, nr_pages, auto_movable_ratio, c.kernel_early_pages,
			   c.limit, ok ? "yes" : "no");
	else
		mech_trace(MECH_AUTO_MOVABLE_STATS,
			   "check node %d: movable %lu (with %lu to online) <= %u%% of kernel_early %lu = %lu: %s",
			   nid, c.movable_pages, nr_pages, auto_movable_ratio, c.kernel_early_pages,
			   c.limit, ok ? "yes" : "no");
	return ok;
}

/*
 * auto_movable_zone_for_pfn() - the auto-movable policy (Linux 5.16+):
 *   - a static group (a DIMM) is decided as a whole: once any of it is in
 *     a kernel zone the rest follows; otherwise Movable only if all of the
 *     rest (max_pages minus what is online) could be Movable now;
 *   - a dynamic group (virtio-mem) decides per unit: if an online section
 *     of the block's unit is in a kernel zone, kernel; otherwise Movable if
 *     the rest of the unit could be;
 *   - no group: Movable if this range could be;
 *   - "could be": auto_movable_can_online_movable() over all nodes, and
 *     with auto_movable_numa_aware over the block's node as well.
 * Otherwise the kernel zone.  A ratio of 0 means always kernel.
 * Context: (main).
 */
static struct zone *auto_movable_zone_for_pfn(int nid, struct memory_group *group,
					      u64 start_pfn, u64 nr_pages)
{
	unsigned long online_pages = 0, max_pages;
	const char *why;
	struct zone *zone;

	if (!auto_movable_ratio) {
		why = "auto_movable_ratio is 0";
		goto kernel_zone;
	}
	if (group && !group->is_dynamic) {
		max_pages = group->s.max_pages;
		online_pages = group->present_movable_pages;
		if (group->present_kernel_pages) {
			why = "its group already has kernel memory";
			goto kernel_zone;
		}
	} else if (!group || group->d.unit_pages == nr_pages) {
		max_pages = (unsigned long)nr_pages;
	} else {
		u64 unit_start = ALIGN_DOWN(start_pfn, (u64)group->d.unit_pages);

		max_pages = group->d.unit_pages;
		/* hot-added memory only: all of a section is in one zone */
		for (u64 pfn = unit_start; pfn < unit_start + max_pages; pfn += PAGES_PER_SECTION) {
			struct page *page = pfn_to_online_page(pfn);

			if (!page)
				continue;
			if (page_zonenum(page) != ZONE_MOVABLE) {
				why = "its unit already has kernel memory";
				goto kernel_zone;
			}
			online_pages += PAGES_PER_SECTION;
		}
	}
	why = "the ratio would not hold";
	if (online_pages > max_pages)
		goto kernel_zone;
	if (!auto_movable_check_traced(NUMA_NO_NODE, group, max_pages - online_pages))
		goto kernel_zone;
	if (auto_movable_numa_aware &&
	    !auto_movable_check_traced(nid, group, max_pages - online_pages))
		goto kernel_zone;
	zone = &NODE_DATA(nid)->node_zones[ZONE_MOVABLE];
	why = "the ratio holds";
	goto out;
kernel_zone:
	zone = default_kernel_zone_for_pfn(nid, start_pfn, nr_pages);
out:
	mech_trace(MECH_AUTO_MOVABLE_STATS, "online pfn [%#llx-%#llx) node %d%s%s: zone %s (%s)",
		   (unsigned long long)start_pfn, (unsigned long long)(start_pfn + nr_pages), nid,
		   group && group->name ? ", group " : "", group && group->name ? group->name : "",
		   zone->name, why);
	return zone;
}

/*
 * zone_for_pfn_range() - online_kernel and online_movable name their zone;
 * "online" asks the policy (memhp_online_policy).  Context: (main).
 */
struct zone *zone_for_pfn_range(enum mmop online_type, int nid, struct memory_group *group,
				u64 start_pfn, u64 nr_pages)
{
	MM_BUG_ON((unsigned)nid >= MAX_NUMNODES || !nr_pages, "nid %d pfn %#llx +%llu", nid,
		  (unsigned long long)start_pfn, (unsigned long long)nr_pages);

	if (online_type == MMOP_ONLINE_KERNEL)
		return default_kernel_zone_for_pfn(nid, start_pfn, nr_pages);
	if (online_type == MMOP_ONLINE_MOVABLE)
		return &NODE_DATA(nid)->node_zones[ZONE_MOVABLE];
	if (memhp_online_policy == ONLINE_POLICY_AUTO_MOVABLE)
		return auto_movable_zone_for_pfn(nid, group, start_pfn, nr_pages);
	return default_zone_for_pfn(nid, start_pfn, nr_pages);
}

/*
 * proc_mm.c - the memory core as Linux shows it: /proc/meminfo,
 * /proc/buddyinfo, /proc/pagetypeinfo, /proc/zoneinfo and the node files
 * under /sys/devices/system/node/.
 *
 * The text is Linux 6.1's, byte for byte, for every field memlab has, so a
 * student can put `cat /proc/zoneinfo` of memlab and of a Linux guest side
 * by side (the reference build is Debian 12's Linux 6.1, x86_64, see
 * docs/shell.md).  Fields about things memlab does not have at all (page
 * cache, anonymous memory, slab, swap, huge pages, vmalloc allocations,
 * per-CPU allocations, user commitments) are printed as 0, which is what
 * they are here and what Linux prints for most of them on an idle machine.
 * zoneinfo's numa_hit .. numa_other are memlab's own NUMA allocation
 * events (zone->numa).  "vm stats threshold" is 0: memlab's counters are
 * exact, with no per-CPU deltas to fold.
 * memlab's own per-zone state, "contiguous" (the flag, decided by the walk
 * or the counter, see mm/zone_contig.c) and "pages_with_online_memmap"
 * (the counter), is in /sys/kernel/mm/memlab/zoneinfo, not in Linux's file.
 *
 * What the numbers mean (mmzone.h has the invariants):
 *   MemTotal     pages the buddy manages (managed: present minus reserved)
 *   MemFree      zone_nr_free_pages() summed: pages free in the buddy,
 *                Linux's NR_FREE_PAGES.  Pages on the per-CPU lists are
 *                allocated as far as this count goes (as in Linux), so a
 *                `drain` raises MemFree by exactly the pages it moved, and
 *                MemFree comes back exactly after everything is freed once
 *                the lists are drained.  zoneinfo's "pages free" and
 *                "nr_free_pages" are the same number per zone, and for
 *                every zone
 *                  pages free = sum of buddyinfo[k] * 2^k + nr_free_pending
 *                (nr_free_pending: free pages of lazily onlined hot-added
 *                sections whose memmap is not written yet, counted free
 *                as the eager online counts them; memlab's zoneinfo)
 *   MemAvailable MemFree minus totalreserve_pages (each zone's high
 *                watermark plus its largest lowmem reserve), clipped at 0:
 *                Linux's si_mem_available() without page cache and
 *                reclaimable slab, which memlab has none of
 *   buddyinfo    free blocks per order, buddy lists only, as in Linux
 *
 * Every show() only reads: zone counters, free lists and pageblock flags.
 * Context: (main).
 */
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <views/vfs.h>
#include <mm/buddy.h>
#include <views/mm_views.h>
#include <mm/mmzone.h>
#include <mm/memory_hotplug.h>
#include <mm/sparse.h>
#include <mm/cma.h>
#include <mm/numa_cpu.h>
#include <arch/paging.h>

static unsigned long pages_to_kb(unsigned long pages)
{
	return pages << (PAGE_SHIFT - 10);
}

/* Managed and buddy-free pages (NR_FREE_PAGES) of the node's zones. */
static void node_totals(int nid, unsigned long *managed, unsigned long *free)
{
	const struct pglist_data *pgdat = NODE_DATA(nid);

	*managed = *free = 0;
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		*managed += pgdat->node_zones[z].managed_pages;
		*free += zone_nr_free_pages(&pgdat->node_zones[z]);
	}
}

/* Whether page-table page pa is on node *(int *)arg (its struct page says). */
static bool table_on_node(phys_addr_t pa, void *arg)
{
	u64 pfn = pa >> PAGE_SHIFT;

	return pfn_valid(pfn) && page_to_nid(pfn_to_page(pfn)) == *(const int *)arg;
}

/* node_table_pages() - page-table pages in use that sit on node nid: the
 * per-node PageTables / nr_page_table_pages (Linux counts each table page
 * on the node its memory comes from, as here). */
static unsigned long node_table_pages(int nid)
{
	return (unsigned long)paging_count_tables(table_on_node, &nid);
}

static bool node_has_memory(int nid)
{
	for (int z = 0; z < MAX_NR_ZONES; z++)
		if (populated_zone(&NODE_DATA(nid)->node_zones[z]))
			return true;
	return false;
}

/* N_NORMAL_MEMORY: memory any kernel allocation may use (a zone up to Normal). */
static bool node_has_normal_memory(int nid)
{
	for (int z = 0; z <= ZONE_NORMAL; z++)
		if (populated_zone(&NODE_DATA(nid)->node_zones[z]))
			return true;
	return false;
}

/* ---- /proc/meminfo -------------------------------------------------------- */

/*
 * One line of /proc/meminfo: the label padded to 16 columns and the value
 * in 8 (Linux's show_val_kb); longer labels get one space and keep the
 * line's width, as "HardwareCorrupted: %5lu kB" does.
 */
static void meminfo_kb(struct printer *p, const char *label, unsigned long kb)
{
	size_t len = strlen(label);

	if (len < 16)
		pr_printf(p, "%-16s%8lu kB\n", label, kb);
	else
		pr_printf(p, "%s %*lu kB\n", label, (int)MAX(23 - (int)len, 1), kb);
}

/* Fields that are 0 because memlab has no such thing (no page cache, no
 * user memory, no swap, no slab, no task stacks), in Linux's order. */
static const char *const meminfo_absent_1[] = {
	"Buffers:", "Cached:", "SwapCached:", "Active:", "Inactive:",
	"Active(anon):", "Inactive(anon):", "Active(file):", "Inactive(file):",
	"Unevictable:", "Mlocked:", "SwapTotal:", "SwapFree:", "Zswap:",
	"Zswapped:", "Dirty:", "Writeback:", "AnonPages:", "Mapped:", "Shmem:",
	"KReclaimable:", "Slab:", "SReclaimable:", "SUnreclaim:", "KernelStack:",
};
static const char *const meminfo_absent_2[] = {
	"SecPageTables:", "NFS_Unstable:", "Bounce:", "WritebackTmp:",
};
static const char *const meminfo_absent_3[] = {
	"HardwareCorrupted:", "AnonHugePages:", "ShmemHugePages:",
	"ShmemPmdMapped:", "FileHugePages:", "FilePmdMapped:",
};

static int meminfo_show(struct printer *p, void *data)
{
	unsigned long total = 0, free = 0, cma_total = 0, cma_free = 0;
	unsigned long reserve = totalreserve_pages;
	struct paging_stats pt;
	int nid;

	(void)data;
	for_each_online_node(nid) {
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			const struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			total += zone->managed_pages;
			free += zone_nr_free_pages(zone);
			cma_total += zone->cma_pages;
			cma_free += zone->nr_free_cma;
		}
	}
	meminfo_kb(p, "MemTotal:", pages_to_kb(total));
	meminfo_kb(p, "MemFree:", pages_to_kb(free));
	meminfo_kb(p, "MemAvailable:", pages_to_kb(free > reserve ? free - reserve : 0));
	for (size_t i = 0; i < ARRAY_SIZE(meminfo_absent_1); i++)
		meminfo_kb(p, meminfo_absent_1[i], 0);
	paging_get_stats(&pt);
	meminfo_kb(p, "PageTables:", pages_to_kb(pt.table_pages));
	for (size_t i = 0; i < ARRAY_SIZE(meminfo_absent_2); i++)
		meminfo_kb(p, meminfo_absent_2[i], 0);
	/* vm_commit_limit(): overcommit_ratio 50% of RAM, no swap, no hugetlb */
	meminfo_kb(p, "CommitLimit:", pages_to_kb(total * 50 / 100));
	meminfo_kb(p, "Committed_AS:", 0);
	/* memlab's vmalloc space is its ioremap area; no vmalloc allocations */
	meminfo_kb(p, "VmallocTotal:", IOREMAP_SIZE >> 10);
	meminfo_kb(p, "VmallocUsed:", 0);
	meminfo_kb(p, "VmallocChunk:", 0);
	meminfo_kb(p, "Percpu:", 0);
	for (size_t i = 0; i < ARRAY_SIZE(meminfo_absent_3); i++)
		meminfo_kb(p, meminfo_absent_3[i], 0);
	if (cma_area_count) {	/* Linux prints them with CONFIG_CMA */
		meminfo_kb(p, "CmaTotal:", pages_to_kb(cma_total));
		meminfo_kb(p, "CmaFree:", pages_to_kb(cma_free));
	}
	pr_printf(p, "HugePages_Total:   %5u\n"
		     "HugePages_Free:    %5u\n"
		     "HugePages_Rsvd:    %5u\n"
		     "HugePages_Surp:    %5u\n", 0, 0, 0, 0);
	meminfo_kb(p, "Hugepagesize:", pages_to_kb(pageblock_nr_pages));
	meminfo_kb(p, "Hugetlb:", 0);
	/* arch_report_meminfo(): the direct map by page size, 1G if the CPU has it */
	meminfo_kb(p, "DirectMap4k:", pt.direct_4k * 4);
	meminfo_kb(p, "DirectMap2M:", pt.direct_2m * 2048);
	if (pt.gbpages)
		meminfo_kb(p, "DirectMap1G:", pt.direct_1g * 1048576);
	return 0;
}

/* ---- /proc/buddyinfo ------------------------------------------------------ */

/* Free blocks per order, populated zones only, "%6lu " each (Linux's mm/vmstat.c). */
static int buddyinfo_show(struct printer *p, void *data)
{
	int nid;

	(void)data;
	for_each_online_node(nid) {
		const struct zone *zone;
		int z;

		for_each_populated_zone_of(NODE_DATA(nid), z, zone) {
			pr_printf(p, "Node %d, zone %8s ", nid, zone_names[z]);
			for (unsigned order = 0; order < NR_PAGE_ORDERS; order++)
				pr_printf(p, "%6lu ", zone_free_blocks(zone, order));
			pr_printf(p, "\n");
		}
	}
	return 0;
}

/* ---- /proc/pagetypeinfo --------------------------------------------------- */

/* Linux stops counting a free list here; the count is then shown as ">N". */
#define FREE_LIST_COUNT_CAP	100000

/*
 * Pageblocks of zone per type, as Linux's pagetypeinfo_showblockcount_print:
 * one probe every pageblock_nr_pages from zone_start_pfn, counting only
 * pfns with an online memmap that belongs to this zone.
 */
static void zone_count_pageblocks(struct zone *zone, unsigned long *count)
{
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		count[mt] = 0;
	for (u64 pfn = zone->zone_start_pfn; pfn < zone_end_pfn(zone); pfn += pageblock_nr_pages) {
		struct page *page = pfn_to_online_page(pfn);
		int mt;

		if (!page || page_zone(page) != zone)
			continue;
		mt = buddy_list_mt(pfn);	/* Isolate while isolated, as Linux */
		if (mt >= 0 && mt < MIGRATE_TYPES)
			count[mt]++;
	}
}

static void pagetypeinfo_node(struct printer *p, int nid)
{
	struct pglist_data *pgdat = NODE_DATA(nid);
	unsigned long count[MIGRATE_TYPES];
	struct zone *zone;
	int z;

	pr_printf(p, "Page block order: %d\n", pageblock_order);
	pr_printf(p, "Pages per block:  %lu\n", pageblock_nr_pages);
	pr_printf(p, "\n");

	pr_printf(p, "%-43s ", "Free pages count per migrate type at order");
	for (int order = 0; order < NR_PAGE_ORDERS; order++)
		pr_printf(p, "%6d ", order);
	pr_printf(p, "\n");
	for_each_populated_zone_of(pgdat, z, zone) {
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			pr_printf(p, "Node %4d, zone %8s, type %12s ", nid, zone_names[z],
				  migratetype_name(mt));
			for (unsigned order = 0; order < NR_PAGE_ORDERS; order++) {
				bool overflow;
				unsigned long n = zone_free_list_count(zone, order, mt,
								       FREE_LIST_COUNT_CAP, &overflow);

				pr_printf(p, "%s%6lu ", overflow ? ">" : "", n);
			}
			pr_printf(p, "\n");
		}
	}

	pr_printf(p, "\n%-23s", "Number of blocks type ");
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		pr_printf(p, "%12s ", migratetype_name(mt));
	pr_printf(p, "\n");
	for_each_populated_zone_of(pgdat, z, zone) {
		zone_count_pageblocks(zone, count);
		pr_printf(p, "Node %d, zone %8s ", nid, zone_names[z]);
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			pr_printf(p, "%12lu ", count[mt]);
		pr_printf(p, "\n");
	}
}

/* One block per node with memory, each with its own header, as Linux. */
static int pagetypeinfo_show(struct printer *p, void *data)
{
	int nid;

	(void)data;
	for_each_online_node(nid)
		if (node_has_memory(nid))
			pagetypeinfo_node(p, nid);
	return 0;
}

/* ---- /proc/zoneinfo ------------------------------------------------------- */

/* Linux's zone vmstat items in order; memlab has only the free counters,
 * and every other item counts something memlab has none of. */
static const char *const zone_stat_absent[] = {
	"nr_zone_inactive_anon", "nr_zone_active_anon", "nr_zone_inactive_file",
	"nr_zone_active_file", "nr_zone_unevictable", "nr_zone_write_pending",
	"nr_mlock", "nr_bounce", "nr_zspages",
};

/*
 * Linux 6.1's node_stat_items, in order (Debian's config: CONFIG_SWAP and
 * CONFIG_NUMA_BALANCING, no shadow call stack).  Each counts something
 * memlab has none of, except nr_page_table_pages: the page-table pages
 * in use on the node (node_table_pages()), printed in place.
 */
static const char *const node_stat_items[] = {
	"nr_inactive_anon", "nr_active_anon", "nr_inactive_file", "nr_active_file",
	"nr_unevictable", "nr_slab_reclaimable", "nr_slab_unreclaimable",
	"nr_isolated_anon", "nr_isolated_file", "workingset_nodes",
	"workingset_refault_anon", "workingset_refault_file",
	"workingset_activate_anon", "workingset_activate_file",
	"workingset_restore_anon", "workingset_restore_file",
	"workingset_nodereclaim", "nr_anon_pages", "nr_mapped", "nr_file_pages",
	"nr_dirty", "nr_writeback", "nr_writeback_temp", "nr_shmem",
	"nr_shmem_hugepages", "nr_shmem_pmdmapped", "nr_file_hugepages",
	"nr_file_pmdmapped", "nr_anon_transparent_hugepages", "nr_vmscan_write",
	"nr_vmscan_immediate_reclaim", "nr_dirtied", "nr_written",
	"nr_throttled_written", "nr_kernel_misc_reclaimable", "nr_foll_pin_acquired",
	"nr_foll_pin_released", "nr_kernel_stack", "nr_page_table_pages",
	"nr_sec_page_table_pages", "nr_swapcached", "pgpromote_success",
	"pgpromote_candidate",
};

/* Is zone z the first populated zone of node nid (Linux's is_zone_first_populated)? */
static bool zone_first_populated(int nid, int z)
{
	for (int i = 0; i < z; i++)
		if (populated_zone(&NODE_DATA(nid)->node_zones[i]))
			return false;
	return populated_zone(&NODE_DATA(nid)->node_zones[z]);
}

/*
 * print_numa_events() - the six NUMA events in Linux's order, each through
 * fmt (a "%s" width and "%llu"), under vmstat's names ("numa_hit" ..
 * "numa_other") or numastat's ("numa_hit" .. "other_node").
 */
static void print_numa_events(struct printer *p, const struct zone_numa_events *e,
			      const char *fmt, bool vmstat_names)
{
	static const char *const vm[] = { "numa_hit", "numa_miss", "numa_foreign",
		"numa_interleave", "numa_local", "numa_other" };
	static const char *const ns[] = { "numa_hit", "numa_miss", "numa_foreign",
		"interleave_hit", "local_node", "other_node" };
	const u64 v[] = { e->hit, e->miss, e->foreign, e->interleave, e->local, e->other };

	for (int i = 0; i < 6; i++)
		pr_printf(p, fmt, vmstat_names ? vm[i] : ns[i], (unsigned long long)v[i]);
}

/* node_numa_events() - the NUMA events of nid's zones, summed. */
static struct zone_numa_events node_numa_events(int nid)
{
	struct zone_numa_events sum = { 0 };

	for (int z = 0; z < MAX_NR_ZONES; z++) {
		const struct zone_numa_events *e = &NODE_DATA(nid)->node_zones[z].numa;

		sum.hit += e->hit;
		sum.miss += e->miss;
		sum.foreign += e->foreign;
		sum.interleave += e->interleave;
		sum.local += e->local;
		sum.other += e->other;
	}
	return sum;
}

/* One zone's stanza, as Linux 6.1's zoneinfo_show_print(): its pagesets
 * for the online CPUs only (a CPU listed but not running, one that did
 * not answer its start-up, has none).  Context: (main). */
static void zoneinfo_zone(struct printer *p, int nid, int z)
{
	const struct zone *zone = &NODE_DATA(nid)->node_zones[z];
	unsigned cpu;

	pr_printf(p, "Node %d, zone %8s", nid, zone_names[z]);
	if (zone_first_populated(nid, z)) {
		pr_printf(p, "\n  per-node stats");
		for (size_t i = 0; i < ARRAY_SIZE(node_stat_items); i++)
			pr_printf(p, "\n      %-12s %lu", node_stat_items[i],
				  strcmp(node_stat_items[i], "nr_page_table_pages") ? 0UL :
				  node_table_pages(nid));
	}
	pr_printf(p, "\n  pages free     %lu"
		     "\n        boost    %lu"
		     "\n        min      %lu"
		     "\n        low      %lu"
		     "\n        high     %lu"
		     "\n        spanned  %lu"
		     "\n        present  %lu"
		     "\n        managed  %lu"
		     "\n        cma      %lu",
		  zone_nr_free_pages(zone), 0UL, zone->watermark[WMARK_MIN], zone->watermark[WMARK_LOW],
		  zone->watermark[WMARK_HIGH], zone->spanned_pages, zone->present_pages,
		  zone->managed_pages, zone->cma_pages);
	pr_printf(p, "\n        protection: (%ld", (long)zone->lowmem_reserve[0]);
	for (int i = 1; i < MAX_NR_ZONES; i++)
		pr_printf(p, ", %ld", (long)zone->lowmem_reserve[i]);
	pr_printf(p, ")");
	/* Linux: "If unpopulated, no other information is useful". */
	if (!populated_zone(zone)) {
		pr_printf(p, "\n");
		return;
	}
	pr_printf(p, "\n      %-12s %lu", "nr_free_pages", zone_nr_free_pages(zone));
	for (size_t i = 0; i < ARRAY_SIZE(zone_stat_absent); i++)
		pr_printf(p, "\n      %-12s %lu", zone_stat_absent[i], 0UL);
	pr_printf(p, "\n      %-12s %lu", "nr_free_cma", zone->nr_free_cma);
	print_numa_events(p, &zone->numa, "\n      %-12s %llu", true);
	pr_printf(p, "\n  pagesets");
	for_each_pcp_cpu(cpu) {	/* Linux 6.1: for_each_online_cpu() */
		const struct per_cpu_pages *pcp = zone_pcp(zone, cpu);
		struct numa_cpu c;

		if (!numa_cpu_get(cpu, &c) || !c.online)
			continue;	/* listed, not running: no pageset line */

		pr_printf(p, "\n    cpu: %u"
			     "\n              count: %i"
			     "\n              high:  %i"
			     "\n              batch: %i",
			  cpu, pcp->count, pcp->high, pcp->batch);
	}
	pr_printf(p, "\n  vm stats threshold: %d", 0);
	pr_printf(p, "\n  node_unreclaimable:  %u"
		     "\n  start_pfn:           %lu",
		  0u, zone->zone_start_pfn);
	pr_printf(p, "\n");
}

/* Every zone of every online node, populated or not, as Linux. */
static int zoneinfo_show(struct printer *p, void *data)
{
	int nid;

	(void)data;
	get_online_mems();	/* spans and counters stay as they are while printed */
	for_each_online_node(nid)
		for (int z = 0; z < MAX_NR_ZONES; z++)
			zoneinfo_zone(p, nid, z);
	put_online_mems();
	return 0;
}

/*
 * /sys/kernel/mm/memlab/zoneinfo: memlab's own per-zone state, which Linux's
 * zoneinfo does not have, for every populated zone in zoneinfo's order:
 *   Node 0, zone    DMA32
 *    contiguous:               1
 *    pages_with_online_memmap: 520160
 *    nr_free_pending:          1048576
 * (the last line only while hot-added sections of the zone are pending:
 * their free pages, counted in "pages free" and MemFree but not in the
 * buddy, zone->nr_free_pending; zoneinfo's pages free is buddyinfo's sum
 * plus it)
 */
static int memlab_zoneinfo_show(struct printer *p, void *data)
{
	int nid;

	(void)data;
	for_each_online_node(nid) {
		const struct zone *zone;
		int z;

		for_each_populated_zone_of(NODE_DATA(nid), z, zone) {
			pr_printf(p, "Node %d, zone %8s\n"
				     "  contiguous:               %u\n"
				     "  pages_with_online_memmap: %lu\n",
				  nid, zone_names[z], (unsigned)zone->contiguous,
				  zone->pages_with_online_memmap);
			if (MM_READ_ONCE(zone->nr_free_pending))	/* lazily onlined, pending */
				pr_printf(p, "  nr_free_pending:          %lu\n",
					  MM_READ_ONCE(zone->nr_free_pending));
		}
	}
	return 0;
}

static const struct vfs_file_ops meminfo_ops = { .show = meminfo_show };
static const struct vfs_file_ops buddyinfo_ops = { .show = buddyinfo_show };
static const struct vfs_file_ops pagetypeinfo_ops = { .show = pagetypeinfo_show };
static const struct vfs_file_ops zoneinfo_ops = { .show = zoneinfo_show };
VFS_FILE(proc_meminfo, "/proc/meminfo", &meminfo_ops, NULL);
VFS_FILE(proc_buddyinfo, "/proc/buddyinfo", &buddyinfo_ops, NULL);
VFS_FILE(proc_pagetypeinfo, "/proc/pagetypeinfo", &pagetypeinfo_ops, NULL);
VFS_FILE(proc_zoneinfo, "/proc/zoneinfo", &zoneinfo_ops, NULL);
static const struct vfs_file_ops memlab_zoneinfo_ops = { .show = memlab_zoneinfo_show };
VFS_FILE(memlab_zoneinfo, "/sys/kernel/mm/memlab/zoneinfo", &memlab_zoneinfo_ops, NULL);

/* ---- /sys/devices/system/node --------------------------------------------- */

/* A node mask as Linux's "%*pbl": ranges "0-1", lists "0,2-3", then "\n". */
static void print_node_list(struct printer *p, bool (*member)(int nid))
{
	bool first = true;

	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		int last = nid;

		if (!member(nid))
			continue;
		while (last + 1 < MAX_NUMNODES && member(last + 1))
			last++;
		pr_printf(p, "%s%d", first ? "" : ",", nid);
		if (last > nid)
			pr_printf(p, "-%d", last);
		first = false;
		nid = last;
	}
	pr_printf(p, "\n");
}

static bool node_is_online(int nid)
{
	return NODE_DATA(nid)->online;
}

static bool node_online_with_memory(int nid)
{
	return NODE_DATA(nid)->online && node_has_memory(nid);
}

static bool node_online_with_normal_memory(int nid)
{
	return NODE_DATA(nid)->online && node_has_normal_memory(nid);
}

static int node_online_show(struct printer *p, void *data)
{
	(void)data;
	print_node_list(p, node_is_online);
	return 0;
}

static int node_has_memory_show(struct printer *p, void *data)
{
	(void)data;
	print_node_list(p, node_online_with_memory);
	return 0;
}

static int node_has_normal_memory_show(struct printer *p, void *data)
{
	(void)data;
	print_node_list(p, node_online_with_normal_memory);
	return 0;
}

/* The CPUs come from mm's CPU table (include/mm/numa_cpu.h: MADT + SRAT). */
static bool node_has_cpu(int nid)
{
	return node_has_cpus(nid);
}

static int node_possible_show(struct printer *p, void *data)
{
	(void)data;
	print_node_list(p, node_is_online);	/* the nodes known at boot: SRAT's */
	return 0;
}

static int node_has_cpu_show(struct printer *p, void *data)
{
	(void)data;
	print_node_list(p, node_has_cpu);
	return 0;
}

static const struct vfs_file_ops node_online_ops = { .show = node_online_show };
static const struct vfs_file_ops node_has_memory_ops = { .show = node_has_memory_show };
static const struct vfs_file_ops node_has_normal_memory_ops = { .show = node_has_normal_memory_show };
static const struct vfs_file_ops node_possible_ops = { .show = node_possible_show };
static const struct vfs_file_ops node_has_cpu_ops = { .show = node_has_cpu_show };
VFS_FILE(node_online, "/sys/devices/system/node/online", &node_online_ops, NULL);
VFS_FILE(node_possible, "/sys/devices/system/node/possible", &node_possible_ops, NULL);
VFS_FILE(node_has_cpu, "/sys/devices/system/node/has_cpu", &node_has_cpu_ops, NULL);
VFS_FILE(node_has_memory, "/sys/devices/system/node/has_memory", &node_has_memory_ops, NULL);
VFS_FILE(node_has_normal_memory, "/sys/devices/system/node/has_normal_memory",
	 &node_has_normal_memory_ops, NULL);

/* The fields of Linux's drivers/base/node.c node_read_meminfo(), in order,
 * between MemUsed and the huge page counts (see the top of this file): all
 * 0 in memlab but PageTables (node_table_pages()). */
static const char *const node_meminfo_fields[] = {
	"SwapCached:", "Active:", "Inactive:", "Active(anon):", "Inactive(anon):",
	"Active(file):", "Inactive(file):", "Unevictable:", "Mlocked:", "Dirty:",
	"Writeback:", "FilePages:", "Mapped:", "AnonPages:", "Shmem:",
	"KernelStack:", "PageTables:", "SecPageTables:", "NFS_Unstable:", "Bounce:",
	"WritebackTmp:", "KReclaimable:", "Slab:", "SReclaimable:", "SUnreclaim:",
	"AnonHugePages:", "ShmemHugePages:", "ShmemPmdMapped:",
};
/* ... and the two Linux prints with one space less ("FileHugePages: %8lu"). */
static const char *const node_meminfo_absent_narrow[] = {
	"FileHugePages:", "FilePmdMapped:",
};

/* /sys/devices/system/node/nodeN/meminfo: "Node %d %-16s%8lu kB" lines. */
static int node_meminfo_show(struct printer *p, void *data)
{
	int nid = (int)(uintptr_t)data;
	unsigned long managed, free;

	node_totals(nid, &managed, &free);
	pr_printf(p, "Node %d %-16s%8lu kB\n", nid, "MemTotal:", pages_to_kb(managed));
	pr_printf(p, "Node %d %-16s%8lu kB\n", nid, "MemFree:", pages_to_kb(free));
	pr_printf(p, "Node %d %-16s%8lu kB\n", nid, "MemUsed:",
		  pages_to_kb(managed > free ? managed - free : 0));
	for (size_t i = 0; i < ARRAY_SIZE(node_meminfo_fields); i++)
		pr_printf(p, "Node %d %-16s%8lu kB\n", nid, node_meminfo_fields[i],
			  strcmp(node_meminfo_fields[i], "PageTables:") ? 0UL :
			  pages_to_kb(node_table_pages(nid)));
	for (size_t i = 0; i < ARRAY_SIZE(node_meminfo_absent_narrow); i++)
		pr_printf(p, "Node %d %-15s%8lu kB\n", nid, node_meminfo_absent_narrow[i], 0UL);
	pr_printf(p, "Node %d HugePages_Total: %5u\n"
		     "Node %d HugePages_Free:  %5u\n"
		     "Node %d HugePages_Surp:  %5u\n", nid, 0, nid, 0, nid, 0);
	return 0;
}

/* /sys/devices/system/node/nodeN/distance: to every online node, one line. */
static int node_distance_show(struct printer *p, void *data)
{
	int nid = (int)(uintptr_t)data, other;
	bool first = true;

	for_each_online_node(other) {
		pr_printf(p, "%s%u", first ? "" : " ", (unsigned)numa_distance[nid][other]);
		first = false;
	}
	pr_printf(p, "\n");
	return 0;
}

/* nodeN/cpulist: "%*pbl" of the node's CPUs ("0-1", or an empty line). */
static int node_cpulist_show(struct printer *p, void *data)
{
	node_cpulist_print(p, (int)(uintptr_t)data);
	pr_printf(p, "\n");
	return 0;
}

/* nodeN/cpumap: "%*pb", a hex mask of nr_cpu_ids bits. */
static int node_cpumap_show(struct printer *p, void *data)
{
	node_cpumap_print(p, (int)(uintptr_t)data);
	pr_printf(p, "\n");
	return 0;
}

/*
 * nodeN/vmstat: "name value" lines, Linux's node_read_vmstat() order (zone
 * items summed over the node's zones, the NUMA events, then node items), of the items
 * memlab counts; the others are absent, as in /proc/vmstat.
 */
static int node_vmstat_show(struct printer *p, void *data)
{
	const struct pglist_data *pgdat = NODE_DATA((int)(uintptr_t)data);
	unsigned long free = 0, free_cma = 0;

	for (int z = 0; z < MAX_NR_ZONES; z++) {
		free += zone_nr_free_pages(&pgdat->node_zones[z]);
		free_cma += pgdat->node_zones[z].nr_free_cma;
	}
	struct zone_numa_events numa = node_numa_events((int)(uintptr_t)data);

	pr_printf(p, "nr_free_pages %lu\n", free);
	pr_printf(p, "nr_free_cma %lu\n", free_cma);
	print_numa_events(p, &numa, "%s %llu\n", true);
	pr_printf(p, "nr_page_table_pages %lu\n", node_table_pages((int)(uintptr_t)data));
	return 0;
}

/* nodeN/numastat: Linux's node_read_numastat(), six "name value" lines. */
static int node_numastat_show(struct printer *p, void *data)
{
	struct zone_numa_events numa = node_numa_events((int)(uintptr_t)data);

	print_numa_events(p, &numa, "%s %llu\n", false);
	return 0;
}

static const struct vfs_file_ops node_cpulist_ops = { .show = node_cpulist_show };
static const struct vfs_file_ops node_cpumap_ops = { .show = node_cpumap_show };
static const struct vfs_file_ops node_vmstat_ops = { .show = node_vmstat_show };
static const struct vfs_file_ops node_numastat_ops = { .show = node_numastat_show };
static const struct vfs_file_ops node_meminfo_ops = { .show = node_meminfo_show };
static const struct vfs_file_ops node_distance_ops = { .show = node_distance_show };

/*
 * mm_views_add_node() - create the sysfs files of node nid.  Returns 0, or 0
 * if they already exist, or vfs_create()'s error.  (Nothing creates them
 * for a node that comes online later by memory hotplug.)
 */
static int mm_views_add_node(int nid)
{
	static const struct { const char *name; const struct vfs_file_ops *ops; } files[] = {
		{ "cpulist", &node_cpulist_ops },
		{ "cpumap", &node_cpumap_ops },
		{ "distance", &node_distance_ops },
		{ "meminfo", &node_meminfo_ops },
		{ "numastat", &node_numastat_ops },
		{ "vmstat", &node_vmstat_ops },
	};
	char path[VFS_PATH_MAX];

	if (nid < 0 || nid >= MAX_NUMNODES)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		int err;

		ksnprintf(path, sizeof(path), "/sys/devices/system/node/node%d/%s", nid,
			  files[i].name);
		err = vfs_create(path, files[i].ops, (void *)(uintptr_t)nid);
		if (err && err != -EEXIST)
			return err;
	}
	return 0;
}

void mm_views_init(void)
{
	int nid;

	for_each_online_node(nid) {
		int err = mm_views_add_node(nid);

		if (err)
			pr_warn("mm_views: cannot create the sysfs files of node %d: %s",
				nid, err_text(err));
	}
}

/*
 * proc_vmstat.c - /proc/vmstat: the memory core's counters as Linux 6.1
 * names and orders them (Linux's vmstat.c), one "name value" line each.
 *
 * Linux prints every item of its vmstat_text[]; memlab prints the items it
 * has the concept of and counts, in Linux's order, and leaves the others
 * out (page cache, swap, reclaim, compaction, THP: memlab counts none of
 * them), so every line present means what it means in Linux:
 *   nr_free_pages        zone_nr_free_pages() summed (the buddy only, as MemFree)
 *   nr_free_cma          of which in CMA pageblocks
 *   numa_hit .. numa_other  allocations by NUMA placement (zone->numa,
 *                        counted per allocation as Linux's zone_statistics())
 *   nr_page_table_pages  page-table pages in use (meminfo's PageTables)
 *   pgalloc_<zone>       pages allocated from the zone: 2^order per
 *                        allocation, pcp or buddy (zone->ev.alloc_pages)
 *   pgfree               pages freed, all zones (zone->ev.free_pages)
 *   pgmigrate_success    pages migrated (offlining, alloc_contig_range, `move`)
 *   pgmigrate_fail       pages of movable blocks that found no target
 *
 * Context: (main).
 */
#include <lib/string.h>
#include <views/vfs.h>
#include <mm/mmzone.h>
#include <mm/migrate.h>
#include <arch/paging.h>

/* Pages counted in per-order event counters: sum of count[k] << k. */
static u64 order_pages(const u64 *count)
{
	u64 pages = 0;

	for (int order = 0; order < NR_PAGE_ORDERS; order++)
		pages += count[order] << order;
	return pages;
}

static void lower(char *dst, const char *src, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = (src[i] >= 'A' && src[i] <= 'Z') ? (char)(src[i] - 'A' + 'a') : src[i];
	dst[i] = '\0';
}

static const char *const numa_names[6] = { "numa_hit", "numa_miss", "numa_foreign",
	"numa_interleave", "numa_local", "numa_other" };

static int vmstat_show(struct printer *p, void *data)
{
	unsigned long nr_free = 0, nr_free_cma = 0;
	u64 pgalloc[MAX_NR_ZONES] = { 0 }, pgfree = 0, numa[6] = { 0 };
	struct paging_stats pt;
	int nid;

	(void)data;
	for_each_online_node(nid) {
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			const struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			nr_free += zone_nr_free_pages(zone);
			nr_free_cma += zone->nr_free_cma;
			pgalloc[z] += order_pages(zone->ev.alloc_pages);
			pgfree += order_pages(zone->ev.free_pages);
			numa[0] += zone->numa.hit;
			numa[1] += zone->numa.miss;
			numa[2] += zone->numa.foreign;
			numa[3] += zone->numa.interleave;
			numa[4] += zone->numa.local;
			numa[5] += zone->numa.other;
		}
	}
	paging_get_stats(&pt);

	pr_printf(p, "nr_free_pages %lu\n", nr_free);
	pr_printf(p, "nr_free_cma %lu\n", nr_free_cma);
	for (int i = 0; i < 6; i++)
		pr_printf(p, "%s %llu\n", numa_names[i], (unsigned long long)numa[i]);
	pr_printf(p, "nr_page_table_pages %llu\n", (unsigned long long)pt.table_pages);
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		char name[16];

		lower(name, zone_names[z], sizeof(name));
		pr_printf(p, "pgalloc_%s %llu\n", name, (unsigned long long)pgalloc[z]);
	}
	pr_printf(p, "pgfree %llu\n", (unsigned long long)pgfree);
	pr_printf(p, "pgmigrate_success %llu\n", (unsigned long long)pgmigrate_success);
	pr_printf(p, "pgmigrate_fail %llu\n", (unsigned long long)pgmigrate_fail);
	return 0;
}

static const struct vfs_file_ops vmstat_ops = { .show = vmstat_show };
VFS_FILE(proc_vmstat, "/proc/vmstat", &vmstat_ops, NULL);

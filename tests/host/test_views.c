/*
 * test_views.c - the Linux-format views of views/proc_mm.c (/proc/meminfo,
 * buddyinfo, zoneinfo, pagetypeinfo, the node files) on a simulated
 * machine, under ASan and UBSan.
 *
 * The QEMU scenarios (tests/qemu/test_mm.py) hold these views to Linux
 * 6.1's exact layouts; here the same text is read back and every number
 * in it compared with the counter it shows, after allocations that change
 * them, and the show functions are run into buffers too small for them.
 *
 * The suite `views` links the real views/proc_mm.c: its files are in the
 * file tree (vfs_init()), and each is read as the shell's cat reads it,
 * with vfs_read().
 */
#include "htest.h"
#include <mm/deferred_init.h>
#include <views/vfs.h>
#include <views/mm_views.h>
#include <arch/paging.h>
#include <mm/cma.h>
#include <lib/printk.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lib/fw_memmap.h>
#include <mm/gfp.h>
#include <mm/mm_init.h>
#include "mm_host.h"

#define MiB	(1ULL << 20)

/* The page tables' numbers, as arch/x86_64/paging.c would give them. */
void paging_get_stats(struct paging_stats *st)
{
	st->direct_4k = 1;
	st->direct_2m = 511;
	st->direct_1g = 0;
	st->table_pages = 7;
	st->gbpages = false;
}

/* ... and their per-node split: the same 7 table pages, at 1 MiB. */
u64 paging_count_tables(bool (*in)(phys_addr_t pa, void *arg), void *arg)
{
	u64 n = 0;

	for (phys_addr_t pa = MiB; pa < MiB + 7 * 4096; pa += 4096)
		n += in(pa, arg);
	return n;
}

static struct fw_memmap vmap;
static struct mm_boot_params vbp;
static char text[64 * 1024];

/* A one-node machine with 1 GiB of RAM from the firmware map. */
static void views_boot(void)
{
	host_mm_reset(1024 * MiB);
	printk_set_level(LOG_CRIT);
	fw_memmap_init(&vmap);
	memset(&vbp, 0, sizeof(vbp));
	vbp.memmap = &vmap;
	fw_memmap_add_raw(&vmap, 0, 1024 * MiB, FW_MEM_RAM);
	fw_memmap_sanitize(&vmap);
	mm_core_init(&vbp);
	deferred_init_finish();	/* the boot's background part, as the kernel's meminit work does */
	vfs_init();
}

/* The file at path read into text; the text, NUL-terminated, or NULL on overflow. */
static const char *show(const char *path)
{
	struct buf_printer bp;

	buf_printer_init(&bp, text, sizeof(text));
	CHECK_EQ(vfs_read(path, &bp.p), 0);
	return bp.overflow ? NULL : text;
}

/* The value of "label ... N kB" in /proc/meminfo text, or -1. */
static long meminfo_value(const char *t, const char *label)
{
	const char *at = strstr(t, label);
	long v;

	if (!at || sscanf(at + strlen(label), "%ld kB", &v) != 1)
		return -1;
	return v;
}

/* Where zone's section of t starts, after "Node N, zone %8s" and sep; or NULL. */
static const char *zone_text(const char *t, const struct zone *zone, const char *sep)
{
	char head[64];
	const char *at;

	snprintf(head, sizeof(head), "Node %d, zone %8s%s", zone->zone_pgdat->node_id, zone->name,
		 sep);
	at = strstr(t, head);
	return at ? at + strlen(head) : NULL;
}

static unsigned long zone_free_sum(void)
{
	unsigned long free = 0;
	struct zone *zone;

	for_each_populated_zone(zone)
		free += zone_nr_free(zone);
	return free;
}

HTEST(views_meminfo_matches_the_counters)
{
	const char *t;
	struct page *page;

	views_boot();
	t = show("/proc/meminfo");
	CHECK(t != NULL);
	CHECK_EQ(meminfo_value(t, "MemTotal:"), (long)(totalram_pages() * 4));
	CHECK_EQ(meminfo_value(t, "MemFree:"), (long)(zone_free_sum() * 4));
	/* every line is "%-16s%8lu kB" or one of the 24-column HugePages lines */
	for (const char *line = t; *line; line = strchr(line, '\n') + 1) {
		size_t len = (size_t)(strchr(line, '\n') - line);

		CHECK(len == 27 || (len == 24 && !strncmp(line, "HugePages_", 10)) ||
		      !strncmp(line, "VmallocTotal:   1073741824 kB\n", len + 1));
	}
	/* Linux 6.1's later fields, from the page tables (the stub above) */
	CHECK_EQ(meminfo_value(t, "PageTables:"), 7 * 4);
	CHECK_EQ(meminfo_value(t, "CommitLimit:"), (long)(totalram_pages() / 2 * 4));
	CHECK_EQ(meminfo_value(t, "Committed_AS:"), 0);
	CHECK_EQ(meminfo_value(t, "VmallocTotal:"), 1L << 30);
	CHECK_EQ(meminfo_value(t, "Percpu:"), 0);
	CHECK_EQ(meminfo_value(t, "DirectMap4k:"), 4);
	CHECK_EQ(meminfo_value(t, "DirectMap2M:"), 511 * 2048);
	CHECK(strstr(t, "DirectMap1G:") == NULL);	/* no 1 GiB pages */
	CHECK((strstr(t, "CmaTotal:") != NULL) == (cma_area_count != 0));	/* with an area only */
	CHECK(strstr(t, "\nPageTables:      ") < strstr(t, "\nSecPageTables:"));
	CHECK(strstr(t, "\nHugetlb:") < strstr(t, "\nDirectMap4k:"));
	page = alloc_pages(GFP_KERNEL, 4);
	CHECK(page != NULL);
	t = show("/proc/meminfo");
	CHECK_EQ(meminfo_value(t, "MemFree:"), (long)(zone_free_sum() * 4));
	free_pages(page, 4);
}

HTEST(views_buddyinfo_is_the_free_lists)
{
	const char *t;
	unsigned lines = 0;
	struct zone *zone;

	views_boot();
	t = show("/proc/buddyinfo");
	CHECK(t != NULL);
	for_each_populated_zone(zone) {
		const char *at = zone_text(t, zone, " ");

		CHECK(at != NULL);
		if (!at)
			continue;
		for (int order = 0; order < NR_PAGE_ORDERS; order++) {
			char cell[16];

			snprintf(cell, sizeof(cell), "%6lu ", zone->free_area[order].nr_free);
			CHECK(!strncmp(at, cell, strlen(cell)));
			at += strlen(cell);
		}
		CHECK_EQ(*at, '\n');
		lines++;
	}
	for (const char *p = t; (p = strchr(p, '\n')); p++)
		lines--;
	CHECK_EQ(lines, 0);	/* one line per populated zone, no other */
}

HTEST(views_zoneinfo_shows_each_zone)
{
	const char *t;
	struct zone *zone;

	views_boot();
	t = show("/proc/zoneinfo");
	CHECK(t != NULL);
	for_each_populated_zone(zone) {
		const char *at = zone_text(t, zone, "\n");
		unsigned long free, spanned, present, managed;

		CHECK(at != NULL);
		if (!at)
			continue;
		CHECK_EQ(sscanf(strstr(at, "pages free"), "pages free %lu", &free), 1);
		CHECK_EQ(sscanf(strstr(at, "spanned"), "spanned %lu", &spanned), 1);
		CHECK_EQ(sscanf(strstr(at, "present"), "present %lu", &present), 1);
		CHECK_EQ(sscanf(strstr(at, "managed"), "managed %lu", &managed), 1);
		CHECK_EQ(free, zone_nr_free(zone));
		CHECK_EQ(spanned, zone->spanned_pages);
		CHECK_EQ(present, zone->present_pages);
		CHECK_EQ(managed, zone->managed_pages);
		CHECK(strstr(at, "  vm stats threshold: 0\n") != NULL);
		CHECK(strstr(at, "contiguous") == NULL);	/* memlab's own: not here */
	}
	t = show("/sys/kernel/mm/memlab/zoneinfo");
	CHECK(t != NULL);
	for_each_populated_zone(zone) {
		const char *at = zone_text(t, zone, "\n");

		CHECK(at != NULL);
		if (at)
			CHECK(strncmp(at, "  contiguous:               1\n", 30) == 0);
	}
}

/* The node files split PageTables by node: the one node holds all 7. */
HTEST(views_node_page_tables)
{
	const char *t;

	views_boot();
	mm_views_init();
	t = show("/sys/devices/system/node/node0/meminfo");
	CHECK(t != NULL && strstr(t, "Node 0 PageTables:           28 kB\n") != NULL);
	t = show("/sys/devices/system/node/node0/vmstat");
	CHECK(t != NULL && strstr(t, "\nnr_page_table_pages 7\n") != NULL);
	t = show("/proc/zoneinfo");
	CHECK(t != NULL && strstr(t, "\n      nr_page_table_pages 7\n") != NULL);
}

/*
 * Every view into buffers of every size up to what it needs: the printer
 * stops at the end and says so, nothing is written past it (ASan), and
 * what fits is the start of the whole text.
 */
HTEST(views_survive_short_buffers)
{
	static const char *const files[] = {
		"/proc/meminfo", "/proc/buddyinfo", "/proc/pagetypeinfo", "/proc/zoneinfo",
		"/sys/kernel/mm/memlab/zoneinfo",
		"/sys/devices/system/node/online", "/sys/devices/system/node/has_memory",
	};
	static char whole[64 * 1024];

	views_boot();
	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		size_t need;

		CHECK(show(files[f]) != NULL);
		need = strlen(text);
		memcpy(whole, text, need + 1);
		for (size_t size = 1; size <= need; size += 1 + size / 8) {
			char *small = malloc(size);
			struct buf_printer bp;

			buf_printer_init(&bp, small, size);
			vfs_read(files[f], &bp.p);
			CHECK(bp.overflow);
			CHECK(!strncmp(small, whole, size - 1));
			free(small);
		}
	}
}

/*
 * cmd_mm.c - shell commands that look at the memory core: page, sections,
 * memblock, numa, meminit (`memmap map` is in cmd_memmap.c).  They only format: the text of
 * `sections`, `memblock` and `meminit` comes from the dump functions of the
 * mechanisms themselves.  The commands that use the allocator by hand
 * (alloc, free, fill, check, move, handles) are in cmd_handles.c.
 *
 * Context: (main).
 */
#include <shell/mm_handles.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <shell/args.h>
#include <shell/shell.h>
#include <lib/string.h>
#include <mm/buddy.h>
#include <mm/memblock.h>
#include <mm/memory_hotplug.h>
#include <mm/memremap.h>
#include <mm/migrate.h>
#include <mm/mm_init.h>
#include <views/mm_views.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/numa_cpu.h>
#include <arch/smp.h>
#include <mm/deferred_init.h>
#include <kernel/meminit_work.h>
#include <kernel/time.h>


/* ---- page PFN ------------------------------------------------------------- */

/* "present,memmap,online,early" into buf. */
static const char *section_state(const struct mem_section *ms, char *buf, size_t size)
{
	if (!present_section(ms)) {
		strlcpy(buf, "absent", size);
		return buf;
	}
	ksnprintf(buf, size, "present%s%s%s%s%s", ms->flags & SECTION_HAS_MEM_MAP ? ",memmap" : "",
		  ms->flags & SECTION_IS_ONLINE ? ",online" : "",
		  ms->flags & SECTION_IS_EARLY ? ",early" : "",
		  ms->flags & SECTION_MEMMAP_DEFERRED ? ",deferred" : "",
		  ms->flags & SECTION_MEMMAP_UNWRITTEN ? ",unwritten" : "");
	return buf;
}

/*
 * Why pfn has no struct page to show, in words; NULL if it has one.  A
 * pfn of a block that is present but not online (its section says so) has
 * a memmap that means nothing: stale, or with memmap_poison=1 poisoned
 * (memory_hotplug.h: zone 7, node 63).  It must not be decoded: its node
 * and zone index past the node and zone tables.  Context: (main).
 */
static const char *pfn_invalid_reason(u64 pfn, char *buf, size_t size)
{
	const struct mem_section *ms;
	u64 nr = pfn_to_section_nr(pfn);

	if (pfn >= MAX_PFN) {
		ksnprintf(buf, size, "beyond the %d-bit physical address space (pfns end at 0x%llx)",
			  MAX_PHYSMEM_BITS, (unsigned long long)MAX_PFN);
		return buf;
	}
	ms = __nr_to_section(nr);
	if (!present_section(ms))
		ksnprintf(buf, size, "no memmap (section %llu is not present)", (unsigned long long)nr);
	else if (!valid_section(ms))
		ksnprintf(buf, size, "no memmap (section %llu is present but has no memmap)",
			  (unsigned long long)nr);
	else if (deferred_section(ms))
		ksnprintf(buf, size, "memmap init pending: section %llu of boot memory waits for deferred init (`meminit finish` does it now)",
			  (unsigned long long)nr);
	else if (!pfn_valid(pfn))
		ksnprintf(buf, size, "no memmap (subsection %u of section %llu is not present)",
			  pfn_to_subsection(pfn), (unsigned long long)nr);
	else if (!online_section(ms) && !devmem_intersects(pfn, 1))
		/* the section says so; the struct pages hold the poison only with memmap_poison=1 */
		ksnprintf(buf, size, "memmap not initialised: memory block %lu is offline (online it first)%s",
			  pfn_to_block_id(pfn),
			  memmap_unwritten_section(ms) ? "; its struct pages were never written (it went offline while they were pending)" :
			  page_memmap_poisoned(pfn_to_page(pfn)) ? "; its struct pages hold the poison" : "");
	else
		return NULL;
	return buf;
}

/* Where pfn stands in the buddy: heading or inside a free block, on a pcp list. */
static void page_free_state(struct printer *out, u64 pfn, const struct page *page)
{
	unsigned order;
	u64 head_pfn = free_block_containing(pfn, &order);

	if (head_pfn == pfn) {
		pr_printf(out, "  free:       heads an order-%u free block [0x%llx-0x%llx) on the %s list\n",
			  order, (unsigned long long)pfn, (unsigned long long)(pfn + (1ULL << order)),
			  migratetype_name(get_pageblock_migratetype(pfn)));
		return;
	}
	if (free_block_at(pfn, FREE_BLOCK_PCP, &order)) {
		pr_printf(out, "  free:       on the per-CPU list (order %u)\n", order);
		return;
	}
	if (head_pfn != NO_PFN && page_zone(pfn_to_page(head_pfn)) == page_zone(page))
		pr_printf(out, "  free:       inside the order-%u free block at pfn 0x%llx\n",
			  order, (unsigned long long)head_pfn);
}

static int cmd_page(struct printer *out, int argc, char **argv)
{
	const struct mem_section *ms;
	const struct memory_block *mem;
	const struct page *page;
	char buf[128];
	const char *why;
	u64 pfn, pb;
	unsigned long id;
	unsigned order;

	if (argc != 2)
		return shell_usage(out, shell_find("page"));
	/* any number: pfn_invalid_reason() says why one has no memmap */
	if (shell_arg_u64(out, "page", "pfn", argv[1], 0, ~0ULL, NULL, &pfn))
		return -EINVAL;
	why = pfn_invalid_reason(pfn, buf, sizeof(buf));
	if (why) {
		pr_printf(out, "page: pfn 0x%llx: %s\n", (unsigned long long)pfn, why);
		return -EINVAL;
	}
	page = pfn_to_page(pfn);
	ms = __pfn_to_section(pfn);
	pr_printf(out, "pfn 0x%llx (phys 0x%llx), struct page at %p\n", (unsigned long long)pfn,
		  (unsigned long long)PFN_PHYS(pfn), (const void *)page);
	pr_printf(out, "  node %d zone %s%s\n", page_to_nid(page), zone_names[page_zonenum(page)],
		  zone_spans_pfn(page_zone(page), pfn) ? "" : " (outside the zone's span)");
	pr_printf(out, "  flags:      0x%lx (", page->flags);
	{
		bool any = false;

		for (int f = 0; f < __NR_PAGEFLAGS; f++) {
			if (!page_flag_test(page, (enum pageflags)f))
				continue;
			pr_printf(out, "%s%s", any ? "|" : "", page_flag_name((enum pageflags)f));
			any = true;
		}
		pr_printf(out, "%s)\n", any ? "" : "none");
	}
	pr_printf(out, "  page_type:  %#010x (%s)\n", page->page_type, page_type_name(page));
	pr_printf(out, "  refcount:   %d\n", page->refcount);
	pr_printf(out, "  private:    %lu%s\n", page_private(page),
		  free_block_at(pfn, FREE_BLOCK_BUDDY, &order) ? " (buddy order)" :
		  free_block_at(pfn, FREE_BLOCK_PCP, &order) ? " (pcp order)" : "");
	id = mm_handle_of(page);
	if (id)
		pr_printf(out, "  owner:      handle %lu (index %lu)\n", id, page->index);
	else if (page->owner && page_zonenum(page) == ZONE_DEVICE) {
		const struct dev_pagemap *pgmap = page->owner;	/* a device page's owner */

		pr_printf(out, "  owner:      devmem%d (device range [0x%llx-0x%llx), %p)\n",
			  pgmap->id, (unsigned long long)pgmap->start_pfn,
			  (unsigned long long)(pgmap->start_pfn + pgmap->nr_pages), page->owner);
	} else if (page_movable_owner(page)) {
		const struct movable_owner *mo = page_movable_owner(page);

		pr_printf(out, "  owner:      %s, movable (%p, index %lu)\n",
			  mo->ops && mo->ops->name ? mo->ops->name : "unnamed", page->owner, page->index);
	} else if (page->owner)
		pr_printf(out, "  owner:      %p (index %lu)\n", page->owner, page->index);
	else
		pr_printf(out, "  owner:      none\n");
	if (PageTail(page))
		pr_printf(out, "  compound:   tail of the page at pfn 0x%llx\n",
			  (unsigned long long)page_to_pfn(compound_head((struct page *)page)));
	else if (PageHead(page))
		pr_printf(out, "  compound:   head\n");
	if (page->memlab_debug)
		pr_printf(out, "  debug:      0x%lx\n", page->memlab_debug);
	page_free_state(out, pfn, page);
	if (early_section(ms) && !memblock_is_memory(&memblock, PFN_PHYS(pfn)))
		pr_printf(out, "  memory:     none: a hole in boot memory, initialised as reserved\n");
	mem = memmap_on_memory_block_of(pfn);
	if (mem)
		pr_printf(out, "  memory:     block %lu's own memmap (memmap_on_memory: its first %lu pages hold its struct pages)\n",
			  mem->block_id, mem->nr_vmemmap_pages);
	pb = pageblock_start_pfn(pfn);
	pr_printf(out, "  pageblock:  [0x%llx-0x%llx) %s%s\n", (unsigned long long)pb,
		  (unsigned long long)(pb + pageblock_nr_pages),
		  migratetype_name(get_pageblock_migratetype(pfn)),
		  get_pageblock_isolate(pfn) ? ", isolated" : "");
	pr_printf(out, "  section:    %llu %s, node %d, subsection %u, %u pages present\n",
		  (unsigned long long)pfn_to_section_nr(pfn), section_state(ms, buf, sizeof(buf)),
		  ms->nid, pfn_to_subsection(pfn), ms->nr_present_pages);
	return 0;
}

SHELL_COMMAND(page, .name = "page", .usage = "page PFN",
	      .summary = "decode the struct page of a page frame number",
	      .help = "Node, zone, flags and page type by name, refcount, private (the\n"
		      "buddy order of a free block's head), the owning handle, where the\n"
		      "page stands in the buddy, whether it holds its block's own memmap\n"
		      "(memmap_on_memory), its pageblock's migratetype and isolate\n"
		      "bit, and its section's state.  A pfn without a memmap is refused\n"
		      "with the reason (which section or subsection is missing).",
	      .fn = cmd_page);

/* ---- sections, memmap map ------------------------------------------------- */

static int cmd_sections(struct printer *out, int argc, char **argv)
{
	if (argc != 1)
		return shell_usage(out, shell_find("sections"));
	sparse_dump(out);
	return 0;
}

SHELL_COMMAND(sections, .name = "sections", .usage = "sections",
	      .summary = "list the present 128 MiB memory sections and their state",
	      .help = "One line per present section: number, pfn range, node, pages of\n"
		      "memory, the map of its 64 subsections of 2 MiB, and its flags\n"
		      "(present, memmap, online, early).  See also: memmap map.",
	      .fn = cmd_sections);

/* ---- memblock, numa, meminit ---------------------------------------------- */

static int cmd_memblock(struct printer *out, int argc, char **argv)
{
	if (argc != 1)
		return shell_usage(out, shell_find("memblock"));
	memblock_dump(&memblock, out);
	if (smp_trampoline_phys())	/* inside the first MiB's reserved region */
		pr_printf(out, " reserved by name: [0x%016llx-0x%016llx] SMP trampoline\n",
			  (unsigned long long)smp_trampoline_phys(),
			  (unsigned long long)smp_trampoline_phys() + 4095);
	return 0;
}

SHELL_COMMAND(memblock, .name = "memblock", .usage = "memblock",
	      .summary = "the boot-time allocator's memory and reserved lists",
	      .help = "What memblock knew when it handed free memory to the buddy\n"
		      "allocator: RAM ranges with their node, and the reserved ranges\n"
		      "(first MiB, kernel image, multiboot2 block, early allocations).\n"
		      "The page the other CPUs start in is named last: the first MiB's\n"
		      "region holds it (docs/smp.md).",
	      .fn = cmd_memblock);

/*
 * The CPU table: number, APIC id, UID, domain and node of each CPU the
 * firmware lists (include/mm/numa_cpu.h).
 */
static void numa_cpus_print(struct printer *out)
{
	struct numa_cpu c;

	pr_printf(out, "CPUs: %u listed (MADT, nodes from SRAT processor affinity); memlab runs "
		  "on CPU 0, the others idle (see `cpus`)\n", nr_numa_cpus());
	if (!numa_cpus_listed()) {
		pr_printf(out, "  cpu 0: boot CPU, no MADT processor entries\n");
		return;
	}
	for (unsigned cpu = 0; numa_cpu_get(cpu, &c); cpu++) {
		pr_printf(out, "  cpu %u: APIC id %u, UID %u, ", cpu, c.hw_id, c.uid);
		if (c.pxm < 0)
			pr_printf(out, "no proximity domain");
		else
			pr_printf(out, "proximity domain %d", c.pxm);
		if (c.nid == NUMA_NO_NODE)
			pr_printf(out, ", no node");
		else
			pr_printf(out, ", node %d", c.nid);
		pr_printf(out, "%s\n", c.boot ? " (boot CPU)" : "");
	}
	if (numa_cpus_dropped())
		pr_printf(out, "  ... %u more CPUs not listed\n", numa_cpus_dropped());
}

static int cmd_numa(struct printer *out, int argc, char **argv)
{
	int nid, other;

	if (argc != 1)
		return shell_usage(out, shell_find("numa"));
	for_each_online_node(nid) {
		const struct pglist_data *pgdat = NODE_DATA(nid);
		unsigned long managed = 0;

		for (int z = 0; z < MAX_NR_ZONES; z++)
			managed += pgdat->node_zones[z].managed_pages;
		pr_printf(out, "node %d: [mem 0x%016llx-0x%016llx] pfn [0x%llx-0x%llx)\n", nid,
			  (unsigned long long)PFN_PHYS(pgdat->node_start_pfn),
			  (unsigned long long)PFN_PHYS(pgdat_end_pfn(pgdat)) - 1,
			  (unsigned long long)pgdat->node_start_pfn,
			  (unsigned long long)pgdat_end_pfn(pgdat));
		pr_printf(out, "  %lu pages spanned, %lu present, %lu managed (%lu MiB)\n",
			  pgdat->node_spanned_pages, pgdat->node_present_pages, managed,
			  managed >> (20 - PAGE_SHIFT));
		if (deferred_init_pending_pages(nid))
			pr_printf(out, "  %llu pages pending: memmap init deferred (`meminit`)\n",
				  (unsigned long long)deferred_init_pending_pages(nid));
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			const struct zone *zone = &pgdat->node_zones[z];

			if (zone_is_empty(zone))
				continue;
			pr_printf(out, "  zone %-8s pfn [0x%llx-0x%llx) %lu present\n", zone_names[z],
				  (unsigned long long)zone->zone_start_pfn,
				  (unsigned long long)zone_end_pfn(zone), zone->present_pages);
		}
		pr_printf(out, "  cpus: ");
		node_cpulist_print(out, nid);
		pr_printf(out, "%s\n", node_has_cpus(nid) ? "" : "none");
	}
	numa_cpus_print(out);
	pr_printf(out, "node distances:\nnode ");
	for_each_online_node(other)
		pr_printf(out, "%4d", other);
	pr_printf(out, "\n");
	for_each_online_node(nid) {
		pr_printf(out, "%3d: ", nid);
		for_each_online_node(other)
			pr_printf(out, "%4u", (unsigned)numa_distance[nid][other]);
		pr_printf(out, "\n");
	}
	pr_printf(out, "SRAT hotpluggable ranges: %u\n", nr_numa_hotplug_blks);
	for (u32 i = 0; i < nr_numa_hotplug_blks; i++)
		pr_printf(out, "  [mem 0x%016llx-0x%016llx] node %d\n",
			  (unsigned long long)numa_hotplug_blks[i].start,
			  (unsigned long long)numa_hotplug_blks[i].end - 1, numa_hotplug_blks[i].nid);
	return 0;
}

SHELL_COMMAND(numa, .name = "numa", .usage = "numa",
	      .summary = "nodes: spans, present and managed pages, zones, distances",
	      .help = "Nodes come from the ACPI SRAT (one node without it); distances\n"
		      "from the SLIT (10 local, 20 remote without it).  Each node's CPUs\n"
		      "and the CPU table (APIC id, ACPI UID, proximity domain, node) come\n"
		      "from the MADT and the SRAT's processor affinity; mm's operations\n"
		      "run on CPU 0 (`cpus`: the others and what they run).  Also lists the ranges SRAT marks hotpluggable, where\n"
		      "memory may appear later.",
	      .fn = cmd_numa);

/*
 * deferred_init_step_while()'s budget for `meminit finish`: go on while
 * the job's turn lasts and nobody asked it to stop (without a job: until
 * Ctrl-C).  It cannot pause inside the call (the zones are settled only at
 * its end), so it returns, and the command pauses between two calls.
 */
static bool finish_budget(void *ctx)
{
	bool *stop = ctx;

	*stop = shell_stop_requested();
	return !*stop && !shell_turn_over();
}

/*
 * `meminit finish`: the pending sections now, as a job: in bursts of one
 * turn, pausing between them, so the console answers meanwhile.  Ctrl-C
 * stops it between two sections; each leaves the machine consistent
 * (initialised and handed over, or still pending).  The background work
 * (kernel/meminit_work.c) may do some of the sections between two turns:
 * this counts only its own.
 */
static int meminit_finish(struct printer *out)
{
	u64 before = deferred_init_pending_sections(), t0 = ktime_ns(), done = 0;
	bool stop = false;

	if (!before) {
		pr_printf(out, "meminit: nothing pending\n");
		return 0;
	}
	while (deferred_init_pending_sections() && !stop) {
		done += deferred_init_step_while(finish_budget, &stop);
		shell_progress(before - deferred_init_pending_sections(), before, "sections");
		stop = stop || shell_checkpoint();
	}
	if (stop && deferred_init_pending_sections()) {
		pr_printf(out, "meminit: interrupted after %llu of %llu sections; %llu still pending\n",
			  (unsigned long long)done, (unsigned long long)before,
			  (unsigned long long)deferred_init_pending_sections());
		return -EINTR;
	}
	pr_printf(out, "meminit: %llu sections initialised in %llu ms; nothing pending\n",
		  (unsigned long long)done, (unsigned long long)((ktime_ns() - t0) / 1000000));
	return 0;
}

static bool meminit_runs_long(int argc, char **argv)
{
	return argc == 2 && !strcmp(argv[1], "finish");
}

/* `meminit sum`: deferred_init_memmap_sum()'s line. */
static int meminit_sum(struct printer *out)
{
	struct memmap_sum s;

	deferred_init_memmap_sum(&s);
	pr_printf(out, "memmap sum: %llu struct pages of boot memory (%llu reserved), %llu pending: %016llx\n",
		  (unsigned long long)s.pages, (unsigned long long)s.reserved,
		  (unsigned long long)s.pending, (unsigned long long)s.hash);
	return 0;
}

static int cmd_meminit(struct printer *out, int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "finish"))
		return meminit_finish(out);
	if (argc == 2 && !strcmp(argv[1], "sum"))
		return meminit_sum(out);
	if (argc != 1)
		return shell_usage(out, shell_find("meminit"));
	mm_init_dump(out);
	deferred_init_dump(out);
	meminit_work_dump(out);
	return 0;
}

SHELL_COMMAND(meminit, .name = "meminit", .usage = "meminit [finish|sum]",
	      .summary = "what mm_core_init did at boot, with its costs",
	      .help = "Cycles spent initialising the memmap and handing memory to the\n"
		      "buddy, the memmap's own size, reserved pages, and where\n"
		      "ZONE_MOVABLE starts on each node.  With deferred_init=new, also\n"
		      "the sections still pending per node and the background work;\n"
		      "`meminit finish` initialises the rest now, as a job (the console\n"
		      "answers meanwhile; Ctrl-C stops it between two sections).\n"
		      "`meminit sum` hashes every initialised struct page's zone, node and\n"
		      "PG_reserved: the same for every design and CPU count once nothing waits.",
	      .fn = cmd_meminit,
	      .runs_long = meminit_runs_long);

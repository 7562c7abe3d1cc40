/*
 * cmd_memmap.c - the `memmap` shell command.
 *
 * `memmap` shows what the boot loader handed over: its name, the multiboot2
 * block, the ACPI RSDP it found, under UEFI the EFI system table and the EFI
 * memory map's size, anything odd about the block, and then
 * fw_memmap_dump() of the firmware memory map (raw, sanitized, notes).
 * `memmap map` draws the physical address space from the sparse memory
 * model's sections instead.  It only formats; the text of the firmware map
 * comes from lib/fw_memmap.c.  The
 * /proc/iomem file is in views/iomem.c: it prints the kernel's resource
 * tree (kernel/resource.c), whose top level is this map.
 */
#include <arch/bootinfo.h>
#include <lib/errno.h>
#include <lib/fw_memmap.h>
#include <lib/printer.h>
#include <shell/shell.h>
#include <lib/string.h>
#include <lib/types.h>
#include <mm/mmzone.h>
#include <mm/page.h>
#include <mm/sparse.h>

/* The boot loader part of `memmap`: who booted us and what was odd. */
static void boot_info_dump(const struct boot_info *bi, struct printer *p)
{
	pr_printf(p, "boot loader: %s\n",
		  bi->loader_name[0] ? bi->loader_name : "(not given)");
	pr_printf(p, "multiboot2 info: [0x%llx-0x%llx), %u tags, %u unknown\n",
		  (unsigned long long)bi->mbi_start,
		  (unsigned long long)bi->mbi_end, bi->nr_tags,
		  bi->nr_unknown_tags);
	if (bi->rsdp_tag)
		pr_printf(p, "ACPI RSDP: from tag %u (%s), %u bytes\n",
			  bi->rsdp_tag,
			  bi->rsdp_tag == 15 ? "ACPI 2.0+, XSDT" : "ACPI 1.0, RSDT",
			  bi->rsdp_len);
	else
		pr_printf(p, "ACPI RSDP: not given\n");
	if (bi->efi_systab_tag)
		pr_printf(p, "EFI system table: 0x%llx (tag %u, %d-bit)\n",
			  (unsigned long long)bi->efi_systab, bi->efi_systab_tag,
			  bi->efi_systab_tag == 12 ? 64 : 32);
	if (bi->memmap_tag == 17)
		pr_printf(p, "memory map: the EFI memory map (tag 17), %u descriptors\n",
			  bi->nr_efi_descs);
	for (u32 i = 0; i < bi->nr_notes && i < BOOT_NOTES; i++)
		pr_printf(p, "boot note: %s\n", bi->notes[i]);
	if (bi->nr_notes > BOOT_NOTES)
		pr_printf(p, "boot note: ... and %u more not kept\n",
			  bi->nr_notes - BOOT_NOTES);
}

#define MAP_PER_LINE	64	/* sections per line: 8 GiB */
#define MAP_MAX_LINES	64	/* lines drawn at most (absent runs are folded) */

static const char zone_letters[MAX_NR_ZONES] = {
	[ZONE_DMA] = 'D', [ZONE_DMA32] = 'd', [ZONE_NORMAL] = 'N',
	[ZONE_MOVABLE] = 'M', [ZONE_DEVICE] = 'V',
};

/* All memory pages of the online section are PG_reserved (none for the buddy). */
static bool section_all_reserved(u64 nr)
{
	u64 start = section_nr_to_pfn(nr);

	for (u64 pfn = start; pfn < start + PAGES_PER_SECTION; pfn++)
		if (pfn_valid(pfn) && !PageReserved(pfn_to_page(pfn)))
			return false;
	return true;
}

/* The zone of the section's node whose span covers most of the section. */
static int section_main_zone(const struct mem_section *ms, u64 nr)
{
	u64 start = section_nr_to_pfn(nr), end = start + PAGES_PER_SECTION, best_pages = 0;
	int best = -1;

	if (ms->nid < 0 || ms->nid >= MAX_NUMNODES)
		return -1;
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		const struct zone *zone = &NODE_DATA(ms->nid)->node_zones[z];
		u64 s = MAX(start, (u64)zone->zone_start_pfn), e = MIN(end, (u64)zone_end_pfn(zone));

		if (s < e && e - s > best_pages) {
			best_pages = e - s;
			best = z;
		}
	}
	return best;
}

static char section_char(u64 nr)
{
	const struct mem_section *ms = __nr_to_section(nr);
	int z;

	if (!present_section(ms))
		return '.';
	if (!online_section(ms))
		return 'o';
	if (deferred_section(ms))
		return 'p';	/* its struct pages are not written yet: not read */
	if (ms->nr_present_pages < PAGES_PER_SECTION)
		return 'h';
	if (section_all_reserved(nr))
		return 'r';
	z = section_main_zone(ms, nr);
	return z < 0 ? '?' : zone_letters[z];
}

/*
 * memmap_map_show() - the `memmap map` picture of the physical address
 * space, one character per 128 MiB section (legend printed with it).
 * Returns 0.
 */
static int memmap_map_show(struct printer *p)
{
	u64 nr = 0, highest = 0, counts[128] = { 0 };
	char line[MAP_PER_LINE + 1], nodes[MAP_PER_LINE + 1];
	unsigned lines = 0;
	bool any = false, many_nodes = false;
	int first_nid = NUMA_NO_NODE;

	for (; sparse_next_present(&nr); nr++) {
		int nid = __nr_to_section(nr)->nid;

		if (first_nid == NUMA_NO_NODE)
			first_nid = nid;
		many_nodes |= nid != first_nid;
		highest = nr;
		any = true;
	}
	if (!any) {
		pr_printf(p, "no present sections\n");
		return 0;
	}
	for (u64 base = 0; base <= highest; base += MAP_PER_LINE) {
		u64 next = base;
		bool empty = true;

		unsigned len = (unsigned)MIN((u64)MAP_PER_LINE, highest + 1 - base);

		for (unsigned i = 0; i < len; i++) {
			char c = section_char(base + i);
			const struct mem_section *ms = __nr_to_section(base + i);
			int nid = present_section(ms) ? ms->nid : NUMA_NO_NODE;

			nodes[i] = nid < 0 ? ' ' : nid < 10 ? (char)('0' + nid) : (char)('a' + nid - 10);
			line[i] = c;
			counts[(u8)c & 127]++;
			empty &= c == '.';
		}
		line[len] = nodes[len] = '\0';
		if (empty) {
			/* fold a run of lines without memory into one */
			if (!sparse_next_present(&next))
				break;
			next = ALIGN_DOWN(next, MAP_PER_LINE);
			pr_printf(p, "0x%012llx  (no memory up to 0x%llx)\n",
				  (unsigned long long)PFN_PHYS(section_nr_to_pfn(base)),
				  (unsigned long long)PFN_PHYS(section_nr_to_pfn(next)));
			base = next - MAP_PER_LINE;
			continue;
		}
		if (lines++ == MAP_MAX_LINES) {
			pr_printf(p, "... (the map stops after %d lines; highest present section %llu)\n",
				  MAP_MAX_LINES, (unsigned long long)highest);
			break;
		}
		pr_printf(p, "0x%012llx  %s\n", (unsigned long long)PFN_PHYS(section_nr_to_pfn(base)),
			  line);
		if (many_nodes) {	/* where one node's memory ends and the next begins */
			for (int i = (int)len - 1; i >= 0 && nodes[i] == ' '; i--)
				nodes[i] = '\0';
			pr_printf(p, "        node  %s\n", nodes);
		}
	}
	pr_printf(p, "one character per %llu MiB section, %d per line (%llu GiB):\n",
		  (unsigned long long)(PAGES_PER_SECTION * PAGE_SIZE >> 20), MAP_PER_LINE,
		  (unsigned long long)(MAP_PER_LINE * PAGES_PER_SECTION * PAGE_SIZE >> 30));
	pr_printf(p, "  . absent  o present, not online  h online, part hole  r all reserved\n"
		     "  D DMA  d DMA32  N Normal  M Movable  V Device (the zone of most pages)\n");
	if (counts['p'])
		pr_printf(p, "  p online boot memory whose memmap init is still pending (deferred_init=new)\n");
	if (many_nodes)
		pr_printf(p, "  node lines: the node of each present section (0-9, then a-z)\n");
	pr_printf(p, "drawn: %llu D, %llu d, %llu N, %llu M, %llu V, %llu h, %llu r, %llu o, %llu .",
		  (unsigned long long)counts['D'], (unsigned long long)counts['d'],
		  (unsigned long long)counts['N'], (unsigned long long)counts['M'],
		  (unsigned long long)counts['V'], (unsigned long long)counts['h'],
		  (unsigned long long)counts['r'], (unsigned long long)counts['o'],
		  (unsigned long long)counts['.']);
	if (counts['p'])
		pr_printf(p, ", %llu p", (unsigned long long)counts['p']);
	pr_printf(p, "\n");
	return 0;
}

static int cmd_memmap(struct printer *out, int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "map"))
		return memmap_map_show(out);
	if (argc != 1)
		return shell_usage(out, shell_find(argv[0]));
	boot_info_dump(&boot_info, out);
	fw_memmap_dump(&boot_info.memmap, out);
	return 0;
}

SHELL_COMMAND(memmap,
	.name = "memmap",
	.usage = "memmap [map]",
	.summary = "show the firmware memory map: raw, sanitized, and what was changed",
	.help = "Prints the boot loader name, the multiboot2 block, the ACPI RSDP,\n"
		"the firmware memory map as given (start, length, type), the\n"
		"sanitized map memlab uses (sorted, no overlaps, RAM in whole\n"
		"pages) and one note per change sanitizing made, with its range.\n"
		"`memmap map` draws the physical address space instead, one\n"
		"character per 128 MiB section (see the legend it prints); with\n"
		"more than one node, a node line under each row says whose it is.\n"
		"See also: cat /proc/iomem",
	.fn = cmd_memmap);

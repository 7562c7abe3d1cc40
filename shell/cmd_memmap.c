/*
 * cmd_memmap.c - the `memmap` shell command.
 *
 * `memmap` shows what the boot loader handed over: its name, the multiboot2
 * block, the ACPI RSDP it found, under UEFI the EFI system table and the EFI
 * memory map's size, anything odd about the block, and then
 * fw_memmap_dump() of the firmware memory map (raw, sanitized, notes).
 * It only formats; the text of the map comes from fw_memmap.c.  The
 * /proc/iomem file is in views/iomem.c (kernel build only, it needs the
 * linker's section symbols); its text comes from fw_memmap_print_iomem().
 */
#include <arch/bootinfo.h>
#include <lib/errno.h>
#include <lib/fw_memmap.h>
#include <lib/printer.h>
#include <shell/shell.h>
#include <lib/string.h>
#include <views/mm_views.h>

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

/*
 * `memmap map` is drawn by the memory core's views (shell/cmd_mm.c), which
 * the host tests do not link; this weak fallback stands in for it there.
 */
__attribute__((weak)) int memmap_map_show(struct printer *out)
{
	pr_printf(out, "memmap: map: the memory core is not part of this build\n");
	return -ENOSYS;
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
		"character per 128 MiB section (see the legend it prints).\n"
		"See also: cat /proc/iomem",
	.fn = cmd_memmap);

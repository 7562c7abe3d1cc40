/*
 * main.c - kmain(), the table of contents of memlab's boot.
 *
 * boot/entry.asm arrives here in long mode on the boot stack, with the boot
 * page tables (the first 4 GiB identity-mapped, the kernel at KERNEL_VMA)
 * and interrupts off.  Each line below sets up one thing, in the order the
 * next ones need it.
 */
#include <kernel/kernel.h>
#include <kernel/bootinfo.h>
#include <kernel/printk.h>
#include <kernel/time.h>
#include <kernel/shell.h>
#include <kernel/vfs.h>
#include <kernel/string.h>
#include <kernel/sections.h>
#include <kernel/kallsyms.h>
#include <drivers/acpi.h>
#include <arch/cpu.h>
#include <arch/traps.h>
#include <arch/paging.h>

#define MB2_MAGIC	0x36d76289

const char memlab_version_string[] =
	"memlab version " MEMLAB_VERSION " (gcc version " __VERSION__ ") #1 x86_64 multiboot2";

/* Print the sanitized firmware map the way Linux prints its e820 table. */
static void print_memmap(const struct fw_memmap *m)
{
	pr_info("BIOS-provided physical RAM map (%u entries from the boot loader):", m->nr_raw);
	for (u32 i = 0; i < m->nr; i++)
		pr_info("  [mem 0x%016llx-0x%016llx] %s", (unsigned long long)m->map[i].start,
			(unsigned long long)m->map[i].end - 1, fw_mem_type_name(m->map[i].type));
	for (u32 i = 0; i < m->nr_notes && i < FW_MEMMAP_NOTES; i++)
		pr_notice("memmap: %s", m->notes[i]);
	if (m->nr_notes > FW_MEMMAP_NOTES)
		pr_notice("memmap: ... and %u more changes (see `memmap`)",
			  m->nr_notes - FW_MEMMAP_NOTES);
	pr_info("memmap: %llu MiB of System RAM", (unsigned long long)(fw_memmap_ram_bytes(m) >> 20));
}

static void apply_cmdline(const char *cmdline)
{
	char val[16];
	u64 level;

	if (!cmdline_get(cmdline, "loglevel", val, sizeof(val)) && !parse_u64(val, &level) &&
	    level <= 7)
		printk_set_level((int)level);
	if (!cmdline_get(cmdline, "quiet", val, sizeof(val)))
		printk_set_level(LOG_WARNING);
}

void kmain(u32 magic, u64 mbi_phys);
void kmain(u32 magic, u64 mbi_phys)
{
	int err;

	time_early_init();		/* time zero: the TSC now */
	serial_init();			/* COM1, so we can say things */
	cpu_detect();			/* CPUID: NX, 1 GiB pages, ... */
	if (magic != MB2_MAGIC)
		panic("not booted by a multiboot2 loader: magic %#x", magic);
	/* the information block is still reachable through the identity map */
	err = multiboot2_parse(&boot_info, (const void *)(uintptr_t)mbi_phys,
			       mbi_phys < SZ_4G ? MIN(SZ_4G - mbi_phys, SZ_16M) : 0, mbi_phys);
	apply_cmdline(boot_info.cmdline);
	pr_info("%s", memlab_version_string);
	pr_info("Command line: %s", boot_info.cmdline);
	if (err)
		panic("multiboot2 information at %#llx is unusable: error %d",
		      (unsigned long long)mbi_phys, err);
	pr_info("boot loader: %s; %u tags (%u unknown)", boot_info.loader_name,
		boot_info.nr_tags, boot_info.nr_unknown_tags);
	print_memmap(&boot_info.memmap);
	if (!fw_memmap_ram_bytes(&boot_info.memmap))
		panic("the firmware memory map has no usable RAM");

	gdt_init();			/* segments, TSS with the double-fault stack */
	idt_init();			/* exception and IRQ vectors */
	paging_init(&boot_info.memmap);	/* direct map, kernel W^X; identity map gone */
	pic_init();			/* 8259s moved to vectors 32-47, all masked */
	time_init();			/* TSC frequency from the PIT, 100 Hz tick */
	serial_enable_irq();		/* console input by interrupt */
	irq_enable();
	acpi_tables_init(&boot_info);	/* RSDP -> RSDT/XSDT -> FADT, DSDT, ... */
	vfs_init();			/* /proc files registered at link time */

	pr_info("kallsyms: %llu symbols", (unsigned long long)kallsyms_count());
	pr_info("boot: ready in %llu ms; type 'help'",
		(unsigned long long)(ktime_ns() / 1000000));
	shell_run();			/* the serial shell, forever */
}

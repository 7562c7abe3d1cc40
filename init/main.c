/*
 * main.c - kmain(), the table of contents of memlab's boot.
 *
 * boot/entry.asm arrives here in long mode on the boot stack, with the boot
 * page tables (the first 4 GiB identity-mapped, the kernel at KERNEL_VMA)
 * and interrupts off.  Each line below sets up one thing, in the order the
 * next ones need it.
 */
#include <kernel/kernel.h>
#include <arch/bootinfo.h>
#include <lib/printk.h>
#include <kernel/time.h>
#include <shell/shell.h>
#include <shell/view_channel.h>
#include <views/vfs.h>
#include <lib/string.h>
#include <arch/sections.h>
#include <arch/kallsyms.h>
#include <drivers/acpi.h>
#include <drivers/nfit.h>
#include <drivers/nd.h>
#include <drivers/nd_acpi.h>
#include <views/nd_views.h>
#include <views/acpi_views.h>
#include <views/pci_views.h>
#include <drivers/pci.h>
#include <drivers/virtio_mem.h>
#include <drivers/video.h>
#include <drivers/input.h>
#include <arch/cpu.h>
#include <arch/traps.h>
#include <arch/paging.h>
#include <arch/smp.h>
#include <kernel/params.h>
#include <kernel/resource.h>
#include <lib/params.h>
#include <views/sysfs_params.h>
#include <mm/mm_init.h>
#include <mm/gfp.h>
#include <mm/platform.h>
#include <views/mm_views.h>
#include <views/memory_sysfs.h>
#include <views/cpu_sysfs.h>
#include <mm/memory_hotplug.h>
#include <kernel/meminit_work.h>

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

/*
 * "kernelcore=" and "movablecore=": a size (512M, 2G) or a percentage of
 * memory (25%), as Linux accepts.  A malformed value is reported and ignored.
 */
static void parse_core_param(const char *cmdline, const char *key, u64 *value, bool *percent)
{
	char val[32];
	size_t len;

	if (cmdline_get(cmdline, key, val, sizeof(val)))
		return;
	len = strlen(val);
	*percent = len && val[len - 1] == '%';
	if (*percent)
		val[len - 1] = '\0';
	if (parse_u64(val, value) || (*percent && *value > 100)) {
		pr_warn("%s=%s%s: not a size or a percentage; ignored", key, val, *percent ? "%" : "");
		*value = 0;
		*percent = false;
	}
}

/* What mm/ needs to know about this machine, in its own neutral terms. */
static struct mm_boot_params mm_params;
static bool memmap_poison_param;	/* memmap_poison= */

/*
 * The page the other CPUs start in (arch/x86_64/smp_trampoline.asm): chosen
 * in conventional memory clear of the multiboot2 block, and reserved in
 * memblock like the kernel image, so nothing else is ever put there (the
 * first MiB is reserved whole as well; this names the page).
 */
static void reserve_trampoline(struct mm_boot_params *bp)
{
	const phys_addr_t avoid[1][2] = { { ALIGN_DOWN(boot_info.mbi_start, 4096),
					    ALIGN_UP(boot_info.mbi_end, 4096) } };
	phys_addr_t tramp = smp_trampoline_pick(&boot_info.memmap, avoid, 1);

	if (tramp)
		bp->reserved[bp->nr_reserved++] = (typeof(bp->reserved[0])){
			tramp, tramp + 4096, "SMP trampoline" };
}

/* The boot table area paging_init() took, if any, reserved like the image. */
static void reserve_boot_tables(struct mm_boot_params *bp)
{
	phys_addr_t start, end;

	paging_boot_area(&start, &end);
	if (end > start)
		bp->reserved[bp->nr_reserved++] = (typeof(bp->reserved[0])){
			start, end, "boot page tables" };
}

/* The trampoline page in /proc/iomem, inside its System RAM range, busy
 * like the kernel's parts. */
static void iomem_add_trampoline(void)
{
	phys_addr_t t = smp_trampoline_phys();
	struct resource *r;

	if (!t)
		return;
	r = resource_new(t, t + 4095, "SMP trampoline", IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY);
	if (r && insert_resource(&iomem_resource, r)) {
		pr_warn("iomem: SMP trampoline not recorded");
		resource_free(r);
	}
}

/* Each persistent-memory range of the NFIT a label-less region of the
 * libnvdimm model (drivers/nvdimm/nd.c), mapped by the DIMMs (nmemN) its
 * memory device maps name; the other kinds are only listed. */
static void nd_regions_from_nfit(void)
{
	const struct nfit_memdev *md;
	const struct nfit_spa *spa;

	for (unsigned i = 0; (spa = nfit_spa(i)); i++) {
		int id;

		if (spa->kind != NFIT_SPA_PM) {
			pr_info("nd: SPA range %u (%s) is not persistent memory; not a region",
				spa->range_index, nfit_spa_kind_name(spa->kind));
			continue;
		}
		id = nd_add_region(spa->base, spa->length, spa->nid, spa->range_index);
		for (unsigned k = 0; id >= 0 && (md = nfit_memdev(k)); k++) {
			const struct nfit_dcr *c = NULL, *dcr;
			struct nd_dimm d = { .handle = md->handle, .phys_id = md->phys_id,
					     .flags = md->state_flags };
			int dimm;

			if (md->spa_index != spa->range_index)
				continue;
			for (unsigned j = 0; (dcr = nfit_dcr(j)); j++)
				if (dcr->index == md->dcr_index)
					c = dcr;
			if (c) {
				d.has_dcr = true;
				d.vendor = c->vendor;
				d.device = c->device;
				d.revision = c->revision;
				d.subsys_vendor = c->subsys_vendor;
				d.subsys_device = c->subsys_device;
				d.subsys_revision = c->subsys_revision;
				d.format = c->format_code;
				d.serial = c->serial;
			}
			dimm = nd_add_dimm(&d);
			if (dimm >= 0)
				nd_add_mapping(id, dimm, md->dpa, md->region_size);
		}
	}
}

static void mm_setup(void)
{
	struct mm_boot_params *bp = &mm_params;

	bp->memmap = &boot_info.memmap;
	bp->reserved[bp->nr_reserved++] = (typeof(bp->reserved[0])){
		kernel_pa(_kernel_start), kernel_pa(_end), "kernel image" };
	bp->reserved[bp->nr_reserved++] = (typeof(bp->reserved[0])){
		ALIGN_DOWN(boot_info.mbi_start, 4096), ALIGN_UP(boot_info.mbi_end, 4096),
		"multiboot2 information" };
	reserve_trampoline(bp);
	reserve_boot_tables(bp);
	srat_parse(bp);
	parse_core_param(boot_info.cmdline, "kernelcore", &bp->kernelcore, &bp->kernelcore_percent);
	parse_core_param(boot_info.cmdline, "movablecore", &bp->movablecore, &bp->movablecore_percent);
	params_apply_cmdline(boot_info.cmdline);	/* the parameter table: cma=, page_poison=, ... */
	mm_core_init(bp);
	memmap_poison_enable(memmap_poison_param);	/* for hotplug from here on */
}

/*
 * Boot parameters that fill mm_params (and memmap_poison=, which mm_setup()
 * hands to the hotplug core), in the one parameter table.  They
 * have no /sys/module file (no module), as in Linux, where cma= and
 * page_poison= are early parameters.  kernelcore= and movablecore= keep
 * their own reader above: a size or a percentage is no type of the table.
 */
KERNEL_PARAM(cma,
	.name = "cma", .type = PARAM_SIZE, .value = &mm_params.cma_size,
	.min = 0, .max = ~0ULL, .def = 0,
	.help = "size of the CMA area reserved at boot (0: none)");
KERNEL_PARAM(memmap_poison,
	.name = "memmap_poison", .type = PARAM_BOOL, .value = &memmap_poison_param,
	.max = 1, .def = 0,
	.help = "poison the memmap of hot-added and offlined memory (Linux's CONFIG_DEBUG_VM)");
KERNEL_PARAM(page_poison,
	.name = "page_poison", .type = PARAM_BOOL, .value = &mm_params.page_poison,
	.max = 1, .def = 0,
	.help = "poison free pages and check the poison when they are allocated");

/*
 * The file tree's chunks past its static ones: 256 KiB (order 6) from the
 * buddy, kept for good.  A chunk is an unmovable kernel allocation that
 * never goes away, so it must not land in memory that may be unplugged:
 * alloc_pages_kept(), as for page tables and section roots (hot-added
 * memory only when below 4 GiB has no 256 KiB left).  (With GFP_KERNEL alone, a 2 GiB guest that
 * grew past the static chunks, about 2800 memory blocks, got the chunks of
 * its memoryN directories from hot-added Normal memory and could never
 * unplug that block again.)
 * Context: main loop, after mm_setup().
 */
static void *vfs_chunk_from_buddy(void)
{
	struct page *page = alloc_pages_kept(__GFP_NOWARN, 6);

	_Static_assert((PAGE_SIZE << 6) == VFS_CHUNK_BYTES, "order 6 is one chunk");
	return page ? mm_phys_to_virt(page_to_phys(page)) : NULL;
}

/* The FADT's PM timer for time_init() (TMR_VAL_EXT, flag bit 8: 32 bits). */
static void time_set_pm_timer_from_fadt(void)
{
	const struct acpi_fadt *fadt = (const void *)acpi_find_table("FACP", 0);

	if (fadt && fadt->h.length >= offsetof(struct acpi_fadt, flags) + 4 &&
	    fadt->pm_tmr_blk && fadt->pm_tmr_blk <= 0xfffc && fadt->pm_tmr_len == 4)
		time_set_pm_timer((u16)fadt->pm_tmr_blk, fadt->flags & (1u << 8));
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
	boot_mark("multiboot2_parse, the map printed");
	if (!fw_memmap_ram_bytes(&boot_info.memmap))
		panic("the firmware memory map has no usable RAM");

	gdt_init();			/* segments, TSS with the double-fault stack */
	idt_init();			/* exception and IRQ vectors */
	/* direct map, kernel W^X, identity map gone; boot tables clear of these */
	const phys_addr_t avoid[2][2] = {
		{ kernel_pa(_kernel_start), kernel_pa(_end) },
		{ ALIGN_DOWN(boot_info.mbi_start, 4096), ALIGN_UP(boot_info.mbi_end, 4096) },
	};
	paging_init(&boot_info.memmap, avoid, 2);
	boot_mark("paging_init");
	fbcon_init(&boot_info);		/* the console on the screen, if GRUB gave one */
	acpi_tables_init(&boot_info);	/* RSDP -> RSDT/XSDT -> FADT, MADT, SRAT, DSDT */
	boot_mark("fbcon_init, acpi_tables_init");
	pic_init();			/* 8259s moved to vectors 32-47, all masked */
	acpi_power_init();		/* FADT PM1 and reset registers, to arch (\_S5: AML) */
	apic_init(madt_parse() ? &madt_info : NULL);	/* I/O APIC + local APIC if the MADT has them */
	boot_mark("pic_init, apic_init");
	time_set_pm_timer_from_fadt();	/* the ACPI PM timer, to measure the TSC against */
	time_init();			/* TSC frequency (CPUID, PM timer, PIT), 100 Hz tick */
	boot_mark("time_init");
	if (lapic_timer_calibrate())	/* each CPU's local timer (LOC), against the TSC */
		lapic_timer_start();
	boot_mark("lapic_timer_calibrate");
	serial_enable_irq();		/* console input by interrupt */
	i8042_init();			/* the PS/2 keyboard, a second console input */
	irq_enable();
	boot_mark("serial, i8042");
	mm_setup();			/* memblock, sections, zones, buddy */
	boot_mark("mm_setup");
	nfit_parse(&boot_info.memmap);	/* NVDIMM ranges, nodes from the SRAT */
	iomem_register_boot(&boot_info.memmap);	/* /proc/iomem: firmware map, kernel image */
	nfit_iomem_register();		/* /proc/iomem: Persistent Memory of the NFIT */
	acpi_resources_init();		/* /proc/iomem: APICs, HPET; /proc/ioports: ACPI blocks */
	acpi_numa_cpus_init(boot_cpu.apic_id);	/* MADT CPUs on SRAT's nodes */
	smp_init();			/* the other CPUs started; they idle */
	mm_cpus_online_changed();	/* pcp high shared by the CPUs now online */
	boot_mark("iomem, numa, smp_init");
	iomem_add_trampoline();		/* /proc/iomem: the page they started in */
	vfs_init();			/* /proc files registered at link time */
	vfs_set_chunk_source(vfs_chunk_from_buddy);	/* more nodes past the static ones */
	mm_views_init();		/* /sys/devices/system/node/nodeN/... */
	cpu_sysfs_init();		/* /sys/devices/system/cpu/cpuN/... */
	sysfs_params_init();		/* /sys/module/MODULE/parameters/: a few, first */
	memory_sysfs_init();		/* /sys/devices/system/memory/memoryN/ */
	boot_mark("vfs_init, sysfs");
	acpi_events_init();		/* ACPI mode, SCI, GPE0 (or polling) */
	boot_mark("acpi_events_init");
	virtio_mem_init();		/* the virtio-mem PCI driver, registered */
	pci_init();			/* ECAM, buses behind root ports, drivers */
	boot_mark("virtio_mem_init, pci_init");
	acpi_aml_init();		/* AML namespace: DSDT + SSDTs, \_PIC(1), _STA/_INI */
	pci_acpi_init();		/* root buses from _BBN, nodes from _PXM, hotplug through \_GPE._E01 */
	acpi_memhp_init();		/* DIMM slots; cold-plugged DIMMs added */
	boot_mark("acpi_aml_init, acpi_memhp_init");
	nd_regions_from_nfit();		/* NVDIMM regions, label-less namespaces, raw */
	nd_labels_probe();		/* their DIMMs' label areas through _DSM */
	nd_media_init();		/* the NVDIMMs' bytes, for the info blocks */
	nd_probe_info();		/* namespaces that were devdax: devdax again */
	nd_views_init();		/* /sys/bus/nd/devices/ */
	acpi_tables_views_init();	/* /sys/firmware/acpi/tables/ */
	acpi_devices_views_init();	/* /sys/bus/acpi/devices/ */
	pci_sysfs_init();		/* /sys/bus/pci/devices/ */
	view_channel_init();		/* COM2: the view channel's hello and poller, if there */
	boot_mark("nvdimm, acpi views, view channel");

	meminit_work_start();		/* deferred_init=new: the rest of the memmap, after the prompt */
	meminit_cpus_start();		/* ... on every CPU of each node, CPU 0's slices alongside */
	boot_mark("meminit_work_start");

	pr_info("kallsyms: %llu symbols", (unsigned long long)kallsyms_count());
	time_refine();			/* the TSC against the PM timer over the whole boot */
	boot_mark("ready");		/* `boottime` lists the steps */
	pr_info("boot: ready in %llu ms; type 'help'",
		(unsigned long long)(ktime_ns() / 1000000));
	shell_run();			/* the shell on serial and screen, forever */
}

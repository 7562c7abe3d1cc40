/*
 * resource_boot.c - the ranges the boot knows, entered into the resource
 * tree: the firmware memory map, the system ROM and the kernel image.
 *
 * As Linux on x86 (e820__reserve_resources() and probe_roms()): every range
 * of the sanitized firmware map becomes a top-level resource named as e820
 * names it; System RAM and everything below 1 MiB are BUSY, other reserved
 * ranges are not, so that a PCI MMCONFIG range can be put around one and
 * the BIOS's ROM inside one.  The kernel image's four parts nest in the
 * System RAM that holds them.  Devices and hotplug add theirs later
 * (drivers/pci/iomem.c, drivers/acpi/resources.c, ACPI memory hotplug and
 * virtio-mem).
 *
 * The I/O port space starts with the ports every PC has, which Linux
 * enters at boot whether a driver uses them or not (its
 * reserve_standard_io_resources()), and COM1, the serial console.
 */
#include <kernel/resource.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>
#include <arch/sections.h>

/* The BIOS's ROM at the top of the first MiB (ISA; always there on a PC). */
static struct resource system_rom = {
	.start = 0xf0000, .end = 0xfffff, .name = "System ROM",
	.flags = IORESOURCE_MEM | IORESOURCE_BUSY,
};

static struct resource kernel_parts[4] = {
	{ .name = "Kernel code", .flags = IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY },
	{ .name = "Kernel rodata", .flags = IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY },
	{ .name = "Kernel data", .flags = IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY },
	{ .name = "Kernel bss", .flags = IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY },
};

/* The PC's standard I/O ports, with Linux's names. */
static struct resource standard_ports[] = {
	{ .start = 0x00, .end = 0x1f, .name = "dma1" },
	{ .start = 0x20, .end = 0x21, .name = "pic1" },
	{ .start = 0x40, .end = 0x43, .name = "timer0" },
	{ .start = 0x50, .end = 0x53, .name = "timer1" },
	{ .start = 0x60, .end = 0x60, .name = "keyboard" },
	{ .start = 0x64, .end = 0x64, .name = "keyboard" },
	{ .start = 0x80, .end = 0x8f, .name = "dma page reg" },
	{ .start = 0xa0, .end = 0xa1, .name = "pic2" },
	{ .start = 0xc0, .end = 0xdf, .name = "dma2" },
	{ .start = 0xf0, .end = 0xff, .name = "fpu" },
	{ .start = 0x3f8, .end = 0x3ff, .name = "serial" },
};

/* part() - give kernel_parts[i] the half-open physical range [a, b). */
static void part(int i, phys_addr_t a, phys_addr_t b)
{
	kernel_parts[i].start = a;
	kernel_parts[i].end = b > a ? b - 1 : a;
}

/*
 * iomem_register_boot() - enter m's sanitized ranges, the system ROM and
 * the kernel image into iomem_resource.  A range that cannot be entered
 * (the pool full, an overlap) is logged and left out.  Context: boot, once.
 */
void iomem_register_boot(const struct fw_memmap *m)
{
	struct resource *holder;

	for (unsigned i = 0; i < sizeof(standard_ports) / sizeof(standard_ports[0]); i++) {
		standard_ports[i].flags = IORESOURCE_IO | IORESOURCE_BUSY;
		if (request_resource(&ioport_resource, &standard_ports[i]))
			pr_warn("ioports: %s not recorded", standard_ports[i].name);
	}

	for (u32 i = 0; i < m->nr; i++) {
		const struct fw_range *fr = &m->map[i];
		u32 flags = IORESOURCE_MEM;
		struct resource *r;

		if (fr->type == FW_MEM_RAM)
			flags = IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY;
		else if ((fr->type != FW_MEM_RESERVED && fr->type != FW_MEM_SOFT_RESERVED &&
			  fr->type != FW_MEM_PMEM && fr->type != FW_MEM_PRAM) || fr->start < SZ_1M)
			flags |= IORESOURCE_BUSY;
		/* The map has no overlaps: each range lands at the top level. */
		r = request_region(&iomem_resource, fr->start, fr->end - fr->start,
				   fw_mem_type_name(fr->type), 0);
		if (r)
			r->flags = flags;	/* e820's flags, not request_region()'s */
	}
	/* The System ROM sits inside the firmware's Reserved range, if any. */
	holder = resource_lookup(&iomem_resource, system_rom.start);
	if (!holder || holder->end < system_rom.end)
		holder = &iomem_resource;
	if (request_resource(holder, &system_rom))
		pr_warn("iomem: System ROM not recorded");
	part(0, kernel_pa(_text), kernel_pa(_etext));
	part(1, kernel_pa(_rodata), kernel_pa(_erodata));
	part(2, kernel_pa(_data), kernel_pa(_edata));
	part(3, kernel_pa(_bss), kernel_pa(_ebss));
	for (int i = 0; i < 4; i++)
		if (insert_resource(&iomem_resource, &kernel_parts[i]))
			pr_warn("iomem: %s not recorded", kernel_parts[i].name);
}

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
#include <arch/paging.h>

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

/*
 * Option ROMs in the ISA hole, found as Linux's probe_roms() finds them: a
 * ROM starts on a 2 KiB boundary with the bytes 0x55 0xaa, byte 2 is its
 * length in 512-byte units, and its bytes sum to 0.  The video BIOS is
 * looked for at 0xc0000-0xc7fff ("Video ROM"), an extension ROM at 0xe0000
 * (64 KiB, "Extension ROM"), other adapters' ROMs from after the video ROM
 * up to 0xe0000 ("Adapter ROM").
 */
#define ROM_AREA_START		0xc0000ULL
#define ROM_AREA_END		0x100000ULL
#define VIDEO_ROM_END		0xc8000ULL	/* the video ROM starts below */
#define EXTENSION_ROM		0xe0000ULL
#define MAX_ADAPTER_ROMS	6
#define NR_ROMS			(2 + MAX_ADAPTER_ROMS)

static struct resource roms[NR_ROMS];

/* rom_at() - the length of a valid ROM at isa[off], or 0 (length_fixed:
 * the length is given, only the signature and sum are checked). */
static u64 rom_at(const volatile u8 *isa, u64 off, u64 limit, u64 length_fixed)
{
	u64 len = length_fixed;
	u8 sum = 0;

	if (isa[off] != 0x55 || isa[off + 1] != 0xaa)
		return 0;
	if (!len)
		len = (u64)isa[off + 2] * 512;
	if (!len || ROM_AREA_START + off + len > limit)
		return 0;
	for (u64 i = 0; i < len; i++)
		sum = (u8)(sum + isa[off + i]);
	return sum == 0 ? len : 0;
}

/* enter_rom() - roms[i] = [start, start + len) named name, at the top level
 * or inside the firmware range that holds it. */
static void enter_rom(int i, u64 start, u64 len, const char *name)
{
	struct resource *holder = resource_lookup(&iomem_resource, start);

	roms[i] = (struct resource){ .start = start, .end = start + len - 1, .name = name,
				     .flags = IORESOURCE_MEM | IORESOURCE_BUSY };
	if (!holder || holder->end < roms[i].end)
		holder = &iomem_resource;
	if (request_resource(holder, &roms[i]))
		pr_debug("iomem: %s at %#llx meets another range; not entered", name,
			 (unsigned long long)start);
}

/* probe_roms() - enter the option ROMs of the ISA hole.  Context: boot. */
static void probe_roms(void)
{
	const volatile u8 *isa = ioremap(ROM_AREA_START, ROM_AREA_END - ROM_AREA_START, IOREMAP_UC);
	u64 start, upper = EXTENSION_ROM, len;
	int n = 2;

	if (!isa)
		return;
	start = VIDEO_ROM_END;
	for (u64 a = ROM_AREA_START; a < VIDEO_ROM_END; a += 2048) {
		if (isa[a - ROM_AREA_START] != 0x55 || isa[a - ROM_AREA_START + 1] != 0xaa)
			continue;
		len = rom_at(isa, a - ROM_AREA_START, EXTENSION_ROM, 0);
		/* a video ROM whose sum is wrong keeps Linux's default end */
		enter_rom(0, a, len ? len : VIDEO_ROM_END - a, "Video ROM");
		start = MAX(VIDEO_ROM_END, (roms[0].end + 1 + 2047) & ~2047ULL);
		break;
	}
	if (rom_at(isa, EXTENSION_ROM - ROM_AREA_START, ROM_AREA_END, 0x10000)) {
		enter_rom(1, EXTENSION_ROM, 0x10000, "Extension ROM");
		upper = EXTENSION_ROM;
	}
	for (; start < upper && n < NR_ROMS; start += 2048) {
		len = rom_at(isa, start - ROM_AREA_START, upper, 0);
		if (!len)
			continue;
		enter_rom(n, start, len, "Adapter ROM");
		start = roms[n++].end & ~2047ULL;
	}
}

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
	probe_roms();
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

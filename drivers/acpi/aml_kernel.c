/*
 * aml_kernel.c - the kernel's side of the AML interpreter: the platform of
 * include/drivers/aml_platform.h over the real machine (port I/O,
 * SystemMemory through ioremap, PCI config through drivers/pci, the TSC,
 * printk), the one namespace built at boot from the DSDT and every SSDT,
 * and the boot walk of _STA/_INI (docs/aml.md).
 *
 * The namespace lives in a static arena of AML_ARENA_BYTES; nothing else
 * is allocated.  A method that fails at boot is named in the log and the
 * boot goes on.
 */
#include <drivers/acpi.h>
#include <drivers/aml.h>
#include <drivers/pci.h>
#include <arch/io.h>
#include <arch/paging.h>
#include <arch/time.h>
#include <lib/printk.h>
#include <lib/string.h>

#define AML_ARENA_BYTES	(2u << 20)
#define MAP_SLOTS	32

static u8 aml_arena[AML_ARENA_BYTES] __aligned(16);	/* the namespace's memory */
static struct aml_ns *kernel_ns;			/* NULL until acpi_aml_init() */

/* SystemMemory pages mapped so far (ioremap never unmaps: each page is
 * mapped once and kept). */
static struct { u64 page; u8 *va; } maps[MAP_SLOTS];
static unsigned nr_maps;

static volatile u8 *mem_va(u64 phys)
{
	u64 page = phys & ~0xfffull;

	for (unsigned i = 0; i < nr_maps; i++)
		if (maps[i].page == page)
			return maps[i].va + (phys - page);
	if (nr_maps == MAP_SLOTS)
		return NULL;
	u8 *va = ioremap(page, 0x2000, IOREMAP_UC);	/* two pages: an access may cross */
	if (!va)
		return NULL;
	maps[nr_maps].page = page;
	maps[nr_maps++].va = va;
	return va + (phys - page);
}

static int k_mem_read(void *ctx, u64 phys, unsigned width, u64 *val)
{
	volatile u8 *p = mem_va(phys);

	(void)ctx;
	if (!p)
		return -1;
	switch (width) {
	case 1: *val = *p; break;
	case 2: *val = *(volatile u16 *)p; break;
	case 4: *val = *(volatile u32 *)p; break;
	default: *val = *(volatile u64 *)p; break;
	}
	return 0;
}

static int k_mem_write(void *ctx, u64 phys, unsigned width, u64 val)
{
	volatile u8 *p = mem_va(phys);

	(void)ctx;
	if (!p)
		return -1;
	switch (width) {
	case 1: *p = (u8)val; break;
	case 2: *(volatile u16 *)p = (u16)val; break;
	case 4: *(volatile u32 *)p = (u32)val; break;
	default: *(volatile u64 *)p = val; break;
	}
	return 0;
}

static int k_io_read(void *ctx, u32 port, unsigned width, u64 *val)
{
	(void)ctx;
	*val = width == 1 ? inb((u16)port) : width == 2 ? inw((u16)port) : inl((u16)port);
	return 0;
}

static int k_io_write(void *ctx, u32 port, unsigned width, u64 val)
{
	(void)ctx;
	if (width == 1)
		outb((u16)port, (u8)val);
	else if (width == 2)
		outw((u16)port, (u16)val);
	else
		outl((u16)port, (u32)val);
	return 0;
}

static int k_pci_read(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off, unsigned width, u64 *val)
{
	u32 v = ~0u;

	(void)ctx;
	if (seg)
		return -1;
	/* an absent function reads as all ones, as the hardware does */
	if (pci_config_read(bus, dev, fn, off, width, &v))
		v = width == 4 ? ~0u : (1u << (8 * width)) - 1;
	*val = v;
	return 0;
}

static int k_pci_write(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off, unsigned width, u64 val)
{
	(void)ctx;
	if (seg)
		return -1;
	pci_config_write(bus, dev, fn, off, width, (u32)val);
	return 0;
}

static void k_stall(void *ctx, u32 us)
{
	(void)ctx;
	udelay(us);
}

static void k_sleep(void *ctx, u32 ms)
{
	(void)ctx;
	udelay((u64)ms * 1000);
}

static u64 k_time(void *ctx)
{
	(void)ctx;
	return ktime_ns();
}

static void k_log(void *ctx, const char *line)
{
	(void)ctx;
	pr_info("%s", line);
}

/* Notify: to the handler set by acpi_aml_set_notify() (memory hotplug
 * while its GPE method runs), else logged. */
static void (*notify_hook)(struct aml_node *node, u64 value);

void acpi_aml_set_notify(void (*fn)(struct aml_node *node, u64 value))
{
	notify_hook = fn;
}

static void k_notify(void *ctx, struct aml_node *node, u64 value)
{
	char path[96];

	(void)ctx;
	if (notify_hook) {
		notify_hook(node, value);
		return;
	}
	aml_node_path(node, path, sizeof(path));
	pr_info("aml: Notify (%s, 0x%llx): no handler", path, (unsigned long long)value);
}

/* The global lock: one CPU runs AML, and memlab takes no firmware lock
 * yet (the FACS handshake is not done): always granted. */
static bool k_global_lock(void *ctx, bool acquire)
{
	(void)ctx;
	(void)acquire;
	return true;
}

static const struct aml_platform kernel_platform = {
	.io_read = k_io_read, .io_write = k_io_write,
	.mem_read = k_mem_read, .mem_write = k_mem_write,
	.pci_read = k_pci_read, .pci_write = k_pci_write,
	.stall_us = k_stall, .sleep_ms = k_sleep, .time_ns = k_time, .io_clock_ns = k_time,
	.log = k_log, .notify = k_notify, .global_lock = k_global_lock,
};

struct aml_ns *acpi_aml(void)
{
	return kernel_ns;
}

static void load(const char *sig, unsigned n)
{
	const struct acpi_sdt_header *h = acpi_find_table(sig, n);

	if (!h)
		return;
	if (aml_load_table(kernel_ns, h, h->length)) {
		const struct aml_error *e = aml_last_error(kernel_ns);
		pr_warn("aml: %s %u (%.8s) not fully loaded: at 0x%x: %s", sig, n, h->oem_table_id,
			e->offset, e->reason);
	}
}

/*
 * acpi_aml_init() - the namespace from the DSDT and every SSDT, then
 * \_PIC(1) and the _STA/_INI walk; one summary line.  Context: boot,
 * after ACPI mode and PCI (regions may reach both).
 */
void acpi_aml_init(void)
{
	struct aml_stats st;
	char line[256];
	struct buf_printer bp;

	kernel_ns = aml_create(aml_arena, sizeof(aml_arena), &kernel_platform, NULL);
	if (!kernel_ns) {
		pr_warn("aml: no namespace (arena too small)");
		return;
	}
	load("DSDT", 0);
	for (unsigned n = 0; acpi_find_table("SSDT", n); n++)
		load("SSDT", n);
	aml_init_devices(kernel_ns, &st);
	acpi_power_use_aml(kernel_ns);		/* \_S5 and \_PTS for poweroff */
	buf_printer_init(&bp, line, sizeof(line));
	aml_print_stats(kernel_ns, &bp.p);
	if (bp.len && line[bp.len - 1] == '\n')
		line[bp.len - 1] = 0;
	pr_info("%s", line);
}

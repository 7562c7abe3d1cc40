/*
 * drivers/pci/dump.c - the views of the device table that `lspci` prints:
 * one line per function, and a function's registers and capabilities.
 *
 * Context: (main).
 */
#include "internal.h"
#include <lib/printer.h>

static const struct { u16 vendor, device; const char *name; } known_ids[] = {
	{ 0x8086, 0x29c0, "q35-host" },
	{ 0x8086, 0x2918, "ich9-lpc" },
	{ 0x8086, 0x2922, "ich9-ahci" },
	{ 0x8086, 0x2930, "ich9-smbus" },
	{ 0x1b36, 0x000c, "pcie-root-port" },
	{ 0x1b36, 0x000e, "pcie-pci-bridge" },
	{ 0x1b36, 0x0001, "pci-bridge" },
	{ 0x1af4, 0x1041, "virtio-net" },
	{ 0x1af4, 0x1042, "virtio-blk" },
	{ 0x1af4, 0x1044, "virtio-rng" },
	{ 0x1af4, 0x1045, "virtio-balloon" },
	{ 0x1af4, 0x1058, "virtio-mem" },
	{ 0x1234, 0x1111, "vga" },
};

static const char *id_name(const struct pci_dev *d)
{
	unsigned i;

	for (i = 0; i < sizeof(known_ids) / sizeof(known_ids[0]); i++)
		if (known_ids[i].vendor == d->vendor && known_ids[i].device == d->device)
			return known_ids[i].name;
	return "?";
}

static void dump_windows(struct printer *p, const struct pci_dev *d)
{
	pr_printf(p, " bus %02x-%02x", d->secondary_bus, d->subordinate_bus);
	if (pci_window_open(d->mem_window_base, d->mem_window_limit))
		pr_printf(p, " mem %llx-%llx", (unsigned long long)d->mem_window_base,
			  (unsigned long long)d->mem_window_limit);
	else
		pr_puts(p, " mem closed");
	if (pci_window_open(d->pref_window_base, d->pref_window_limit))
		pr_printf(p, " pref %llx-%llx", (unsigned long long)d->pref_window_base,
			  (unsigned long long)d->pref_window_limit);
	else
		pr_puts(p, " pref closed");
	if (pci_window_open(d->io_window_base, d->io_window_limit))
		pr_printf(p, " io %llx-%llx", (unsigned long long)d->io_window_base,
			  (unsigned long long)d->io_window_limit);
}

static void dump_one(struct printer *p, const struct pci_dev *d)
{
	unsigned i;

	pr_printf(p, "%02x:%02x.%x %02x%02x: %04x:%04x (%s)", d->bus, d->dev, d->fn,
		  d->class_code, d->subclass, d->vendor, d->device, id_name(d));
	if (d->header_type == 1)
		dump_windows(p, d);
	for (i = 0; i < 6; i++) {
		const struct pci_bar *b = &d->bars[i];

		if (!b->size)
			continue;
		pr_printf(p, " bar%u %s%s", i, b->is_io ? "io" : "mem",
			  b->is_io ? "" : b->is_64 ? "64" : "32");
		if (b->prefetchable)
			pr_puts(p, "p");
		if (b->base)
			pr_printf(p, " %llx+%llx", (unsigned long long)b->base,
				  (unsigned long long)b->size);
		else
			pr_printf(p, " unassigned+%llx", (unsigned long long)b->size);
	}
	if (d->driver)
		pr_printf(p, " driver %s", d->driver->name);
	if (d->hotplugged)
		pr_puts(p, " hotplugged");
	pr_puts(p, "\n");
}

/*
 * pci_dump() - the `lspci` view: one line per function in the table, or
 * why there is none.  Context: (main).
 */
void pci_dump(struct printer *p)
{
	unsigned i;

	if (!pci_ready) {
		pr_puts(p, "pci: not initialised (no MCFG?)\n");
		return;
	}
	for (i = 0; i < pci_nr_devices; i++)
		if (pci_devices[i].cfg)
			dump_one(p, &pci_devices[i]);
}

static const char *cap_name(u8 id)
{
	switch (id) {
	case 0x01: return "power management";
	case 0x05: return "MSI";
	case 0x09: return "vendor specific";
	case 0x0d: return "bridge subsystem id";
	case 0x10: return "PCI Express";
	case 0x11: return "MSI-X";
	default: return "?";
	}
}

/* dump_caps() - lspci -v: the capability list, with the PCIe slot registers. */
static void dump_caps(struct printer *p, const struct pci_dev *d)
{
	u8 pos = 0;
	unsigned n = 0;

	pr_printf(p, "  command %04x status %04x irq line %u pin %u header %u\n",
		  pci_read16(d, CFG_COMMAND), pci_read16(d, CFG_STATUS),
		  d->irq_line, d->irq_pin, d->header_type);
	while ((pos = pci_find_capability(d, 0xff, pos)) && n++ < CAP_WALK_LIMIT) {
		u8 id = pci_read8(d, pos);

		pr_printf(p, "  cap %02x @%02x %s", id, pos, cap_name(id));
		if (id == PCI_CAP_ID_EXP) {
			u16 flags = pci_read16(d, (u16)(pos + 2));

			pr_printf(p, " type %u", (flags >> 4) & 0xf);
			if (flags & 0x100)	/* slot implemented */
				pr_printf(p, " slotcap %08x slotctl %04x slotsta %04x",
					  pci_read32(d, (u16)(pos + 0x14)),
					  pci_read16(d, (u16)(pos + 0x18)),
					  pci_read16(d, (u16)(pos + 0x1a)));
		} else if (id == PCI_CAP_ID_VNDR) {
			pr_printf(p, " len %u type %u bar %u off %x",
				  pci_read8(d, (u16)(pos + 2)), pci_read8(d, (u16)(pos + 3)),
				  pci_read8(d, (u16)(pos + 4)), pci_read32(d, (u16)(pos + 8)));
		}
		pr_puts(p, "\n");
	}
}

/*
 * pci_dump_device() - the `lspci -v BB:DD.F` view of d: its `lspci` line,
 * then its command and status registers, interrupt routing and header
 * type, and its capability list (with the PCIe slot registers and the
 * virtio vendor capabilities).  Context: (main).
 */
void pci_dump_device(struct printer *p, const struct pci_dev *d)
{
	dump_one(p, d);
	dump_caps(p, d);
}

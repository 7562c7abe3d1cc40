/*
 * drivers/pci/iomem.c - what PCI claims in the resource tree, rebuilt from
 * the device table whenever it changes (pci_resources_sync()).
 *
 * As in Linux's /proc/iomem on q35:
 *   PCI MMCONFIG 0000 [bus 00-ff]   the ECAM range, put around the
 *                                   firmware's Reserved range of it;
 *   PCI Bus 0000:00                 each window of the root bus, memory in
 *                                   iomem and I/O in ioports, as the host
 *                                   bridge's _CRS lists them (drivers/acpi/
 *                                   crs.c): on q35 the VGA window, the
 *                                   32-bit hole around MMCONFIG, the 64-bit
 *                                   hole, and I/O 0000-0cf7 and 0d00-ffff,
 *                                   which adopt the legacy ports below them.
 *                                   Without a readable _CRS: the 32-bit
 *                                   hole memlab places BARs in, alone;
 *   PCI Bus 0000:RR                 each window of another root bus (a
 *                                   pxb-pcie expander's, bus 80), from its
 *                                   root bridge's _CRS (drivers/pci/acpi.c;
 *                                   a refused _CRS shows nothing);
 *   PCI Bus 0000:NN                 each open window of a bridge (memory,
 *                                   prefetchable, I/O), inside the window
 *                                   of the bridge above;
 *   0000:BB:DD.F                    each assigned BAR, inside the window
 *                                   that holds it (I/O BARs in ioports);
 *   <driver's name>                 a BAR a driver requested, inside it.
 * Entered from the bottom up (BARs, the deepest bridges' windows, the root
 * buses' windows), each adopting what lies inside it.
 * Rebuilding the whole PCI part costs a few hundred list steps and cannot
 * get out of step with the table: entries of removed functions vanish,
 * windows opened for a hot-added device appear.  The resources are pool
 * entries listed in owned[], never pointers into the device table.
 *
 * Context: (boot, main).
 */
#include "internal.h"
#include <drivers/acpi.h>
#include <kernel/resource.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>

#define PCI_OWNED_MAX	(PCI_MAX_DEVICES * 4 + 8 + (PCI_MAX_ROOT_BUSES + 1) * ACPI_ROOT_WINDOWS_MAX)
static struct resource *owned[PCI_OWNED_MAX];
static unsigned nr_owned;

/* own() - a new pool resource entered with insert_resource() under parent;
 * kept in owned[].  NULL if it could not be entered (logged once per sync). */
static struct resource *own(struct resource *parent, u64 start, u64 end, const char *name,
			    u32 flags)
{
	struct resource *r;

	if (nr_owned >= PCI_OWNED_MAX || start > end)
		return NULL;
	r = resource_new(start, end, name, flags);
	if (!r)
		return NULL;
	if (insert_resource(parent, r)) {
		pr_debug("pci: %s [%llx-%llx] meets another resource; not in iomem", name,
			 (unsigned long long)start, (unsigned long long)end);
		resource_free(r);
		return NULL;
	}
	owned[nr_owned++] = r;
	return r;
}

/* depth() - how many bridges are above d (bounded by the table size). */
static unsigned depth(const struct pci_dev *d)
{
	unsigned n = 0;

	while (d->bridge && n < PCI_MAX_DEVICES) {
		d = d->bridge;
		n++;
	}
	return n;
}

/* claim_windows() - the open memory windows of bridge d. */
static void claim_windows(const struct pci_dev *d)
{
	char name[RESOURCE_NAME_LEN];

	ksnprintf(name, sizeof(name), "PCI Bus 0000:%02x", d->secondary_bus);
	if (pci_window_open(d->mem_window_base, d->mem_window_limit))
		own(&iomem_resource, d->mem_window_base, d->mem_window_limit, name, IORESOURCE_MEM);
	if (pci_window_open(d->pref_window_base, d->pref_window_limit))
		own(&iomem_resource, d->pref_window_base, d->pref_window_limit, name,
		    IORESOURCE_MEM | IORESOURCE_PREFETCH);
	if (pci_window_open(d->io_window_base, d->io_window_limit))
		own(&ioport_resource, d->io_window_base, d->io_window_limit, name, IORESOURCE_IO);
}

/* claim_root_windows() - each root bus's windows, from its root bridge's
 * _CRS (pci_read_root_windows()); for the first root bus, when none could
 * be read, the 32-bit hole memlab places BARs in. */
static void claim_root_windows(void)
{
	char name[RESOURCE_NAME_LEN];

	pci_read_root_windows();
	for (unsigned r = 0; r < pci_nr_root_windows; r++) {
		const struct pci_root_windows *rw = &pci_root_windows[r];

		ksnprintf(name, sizeof(name), "PCI Bus 0000:%02x", rw->bus);
		for (unsigned i = 0; i < rw->nr; i++) {
			const struct acpi_window *w = &rw->win[i];

			if (w->io)
				own(&ioport_resource, w->start, w->end, name, IORESOURCE_IO);
			else
				own(&iomem_resource, w->start, w->end, name,
				    IORESOURCE_MEM | (w->prefetchable ? IORESOURCE_PREFETCH : 0));
		}
	}
	if (pci_root_windows[0].nr == 0) {
		ksnprintf(name, sizeof(name), "PCI Bus 0000:%02x", pci_root_windows[0].bus);
		own(&iomem_resource, PCI_HOLE32_LOW, PCI_HOLE32_HIGH - 1, name, IORESOURCE_MEM);
	}
}

/* claim_bars() - d's assigned BARs, and the parts its driver requested. */
static void claim_bars(const struct pci_dev *d)
{
	char name[RESOURCE_NAME_LEN];
	unsigned nbars = d->header_type == 1 ? 2 : 6;

	ksnprintf(name, sizeof(name), "0000:%02x:%02x.%x", d->bus, d->dev, d->fn);
	for (unsigned b = 0; b < nbars; b++) {
		const struct pci_bar *bar = &d->bars[b];
		struct resource *r;

		if (!bar->size || !bar->base || bar->base + bar->size - 1 < bar->base)
			continue;
		r = own(bar->is_io ? &ioport_resource : &iomem_resource, bar->base,
			bar->base + bar->size - 1, name,
			bar->is_io ? IORESOURCE_IO :
			IORESOURCE_MEM | (bar->prefetchable ? IORESOURCE_PREFETCH : 0));
		if (r && d->bar_owner[b])
			own(r, r->start, r->end, d->bar_owner[b], r->flags | IORESOURCE_BUSY);
		if (bar->is_64)
			b++;
	}
}

void pci_resources_sync(void)
{
	char name[RESOURCE_NAME_LEN];
	unsigned i, level;

	while (nr_owned)
		resource_free(owned[--nr_owned]);
	if (!pci_ecam_virt && !pci_nr_devices)
		return;
	if (pci_ecam.base) {
		ksnprintf(name, sizeof(name), "PCI MMCONFIG 0000 [bus %02x-%02x]",
			  pci_ecam.start_bus, pci_ecam.end_bus);
		own(&iomem_resource, pci_ecam.base + ((u64)pci_ecam.start_bus << 20),
		    pci_ecam.base + (((u64)pci_ecam.end_bus + 1) << 20) - 1, name, IORESOURCE_MEM);
	}
	/* From the bottom up: each range entered adopts what lies inside it,
	 * so a window the size of the one above it (QEMU's root bus windows
	 * are cut around the bridges' windows) still nests under it, and a
	 * BAR the size of its window sits inside the window, as in Linux. */
	for (i = 0; i < pci_nr_devices; i++)
		if (pci_devices[i].cfg)
			claim_bars(&pci_devices[i]);
	for (level = 8; level-- > 0;)
		for (i = 0; i < pci_nr_devices; i++)
			if (pci_devices[i].cfg && pci_devices[i].header_type == 1 &&
			    depth(&pci_devices[i]) == level)
				claim_windows(&pci_devices[i]);
	claim_root_windows();
}

/*
 * pci_request_bar() - see pci.h.  The name is kept by pointer (a driver's
 * string constant) and cleared when the function's entry is freed.
 * Context: (main).
 */
int pci_request_bar(struct pci_dev *d, int bar, const char *name)
{
	if (bar < 0 || bar > 5 || !d->bars[bar].size || !d->bars[bar].base || !name)
		return -EINVAL;
	d->bar_owner[bar] = name;
	pci_resources_sync();
	return 0;
}

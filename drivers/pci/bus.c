/*
 * drivers/pci/bus.c - the life of the device table: pci_init, rescan,
 * driver binding and removal.
 *
 * pci_init() maps ECAM (config.c), enumerates (probe.c) and offers every
 * function to the registered drivers.  pci_rescan() finds functions that
 * appeared since, gives their BARs addresses (resource.c), enables and
 * probes them.  A function going away gets its driver's remove first.
 *
 * Context: pci_init (boot); everything else (main).
 */
#include "internal.h"
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>

const struct pci_driver *pci_drivers[PCI_MAX_DRIVERS];
unsigned pci_nr_drivers;
bool pci_ready;
/* told of every function that leaves the table (boot sets it; main loop) */
static void (*removal_observer)(const struct pci_dev *d);

/* pci_set_removal_observer() - fn (NULL: none) is called with each
 * function pci_remove_device() takes out, before its entry is cleared.
 * Context: (boot). */
void pci_set_removal_observer(void (*fn)(const struct pci_dev *d))
{
	removal_observer = fn;
}

/* probe_one() - offer d to the registered drivers until one binds. */
static void probe_one(struct pci_dev *d)
{
	unsigned i;

	if (d->driver)
		return;
	for (i = 0; i < pci_nr_drivers; i++) {
		const struct pci_driver *drv = pci_drivers[i];
		int err;

		if (drv->vendor != d->vendor || drv->device != d->device)
			continue;
		d->driver = drv;
		err = drv->probe(d);
		if (!err) {
			pr_info("pci %02x:%02x.%x: bound to %s", d->bus, d->dev, d->fn, drv->name);
			return;
		}
		d->driver = NULL;
		pr_warn("pci %02x:%02x.%x: %s probe failed (%d)", d->bus, d->dev, d->fn,
			drv->name, err);
	}
}

/*
 * pci_register_driver() - add drv to the driver table and offer it every
 * function already found; later rescans offer it theirs.  A full table is
 * logged and drv ignored.  Context: (boot, main).
 */
void pci_register_driver(const struct pci_driver *drv)
{
	unsigned i;

	if (pci_nr_drivers >= PCI_MAX_DRIVERS) {
		pr_err("pci: driver table full; %s not registered", drv->name);
		return;
	}
	pci_drivers[pci_nr_drivers++] = drv;
	for (i = 0; i < pci_nr_devices; i++)
		if (pci_devices[i].cfg)
			probe_one(&pci_devices[i]);
}

/*
 * pci_remove_device() - the function is going away: the driver's remove,
 * decoding off, and its entry freed (entries never move).  Functions that
 * had it as their bridge lose that link.  Context: (main).
 */
void pci_remove_device(struct pci_dev *d)
{
	unsigned idx = (unsigned)(d - pci_devices), i;

	if (idx >= pci_nr_devices || !d->cfg)
		return;
	if (d->driver && d->driver->remove)
		d->driver->remove(d);
	d->driver = NULL;
	pci_write16(d, CFG_COMMAND, pci_read16(d, CFG_COMMAND) & ~(CMD_IO | CMD_MEMORY | CMD_MASTER));
	pr_info("pci %02x:%02x.%x: %04x:%04x removed", d->bus, d->dev, d->fn, d->vendor, d->device);
	if (removal_observer)
		removal_observer(d);
	for (i = 0; i < pci_nr_devices; i++)
		if (pci_devices[i].bridge == d)
			pci_devices[i].bridge = NULL;
	memset(d, 0, sizeof(*d));
	pci_resources_sync();
}

/*
 * pci_scan_roots() - after pci_add_root_bus(): walk the new root buses as
 * at boot (the firmware placed their BARs; nothing is moved or enabled
 * that it did not), and offer what was found to the drivers.  Returns how
 * many functions were added, or -ENODEV before pci_init.  Context: boot.
 */
int pci_scan_roots(void)
{
	struct pci_dev *added[PCI_MAX_DEVICES];
	int n, i;

	if (!pci_ready)
		return -ENODEV;
	n = pci_scan_all(false, added);
	pci_resources_sync();
	for (i = 0; i < n; i++)
		probe_one(added[i]);
	return n;
}

/*
 * pci_rescan() - find functions that appeared since the last scan, give
 * their BARs addresses inside the window of the bridge above them, enable
 * and probe them.  Returns how many are new, or -ENODEV before pci_init.
 * Context: (main).
 */
int pci_rescan(void)
{
	struct pci_dev *added[PCI_MAX_DEVICES];
	int n, i;

	if (!pci_ready)
		return -ENODEV;
	n = pci_scan_all(true, added);
	for (i = 0; i < n; i++) {
		struct pci_dev *d = added[i];
		int err;

		if (d->header_type != 0)
			continue;
		pci_distrust_bars(d);
		err = pci_assign_bars(d);
		if (err) {
			pr_warn("pci %02x:%02x.%x: cannot assign BARs (%d); left disabled",
				d->bus, d->dev, d->fn, err);
			continue;
		}
		pci_enable_device(d);
		pci_resources_sync();
		probe_one(d);
	}
	pci_resources_sync();
	return n;
}

/*
 * pci_init() - map ECAM, enumerate every reachable bus, offer each function
 * to the registered drivers (PCI hotplug starts later, from the AML
 * namespace: pci_hotplug_init()).  0, or the error of
 * pci_ecam_init() (already logged).  Context: boot.
 */
int pci_init(void)
{
	int err, n;
	unsigned i;

	err = pci_ecam_init();
	if (err)
		return err;
	n = pci_scan_all(false, NULL);
	pci_ready = true;
	pci_resources_sync();
	for (i = 0; i < pci_nr_devices; i++)
		probe_one(&pci_devices[i]);
	pr_info("pci: %d functions", n);
	return 0;
}

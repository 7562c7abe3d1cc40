/*
 * pci.h - PCI Express configuration space, devices and drivers.
 *
 * Configuration space is memory-mapped (ECAM): the MCFG table gives, per
 * segment, the base address and bus range; function (bus, dev, fn)'s 4 KiB
 * of registers are at base + (bus << 20 | dev << 15 | fn << 12).  pci_init()
 * maps it, enumerates every bus reachable from bus 0 (including the buses
 * behind PCIe root ports and bridges), sizes each BAR, and probes the
 * registered drivers.  Devices hot-added later (ACPI PCI hotplug on q35,
 * GPE 1) are found by pci_rescan(), which assigns their BARs inside the
 * window of the root port they sit behind, enables them and probes them.
 *
 * Context: pci_init (boot); everything else (main).
 */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include <lib/types.h>
#include <lib/printer.h>

#define PCI_MAX_DEVICES		64
#define PCI_CAP_ID_VNDR		0x09	/* vendor-specific (virtio uses it) */
#define PCI_CAP_ID_EXP		0x10	/* PCI Express */

struct pci_bar {
	u64 base;		/* bus address (= physical on x86), 0 if unassigned */
	u64 size;		/* bytes, 0 if the BAR is not implemented */
	bool is_io;		/* I/O space rather than memory */
	bool is_64;		/* 64-bit memory BAR (uses two BAR slots) */
	bool prefetchable;	/* prefetchable memory */
};

struct pci_driver;

struct pci_dev {
	u8 bus, dev, fn;		/* address (segment 0) */
	u16 vendor, device;		/* ids */
	u8 class_code, subclass, prog_if, revision;
	u8 header_type;			/* 0 device, 1 bridge */
	struct pci_bar bars[6];		/* BARs (header type 0), BAR0-1 (type 1) */
	u8 irq_line, irq_pin;		/* legacy INTx routing from firmware */
	struct pci_dev *bridge;		/* the bridge/root port above it, NULL on bus 0 */
	u8 secondary_bus, subordinate_bus; /* bridges */
	u64 mem_window_base, mem_window_limit; /* bridges: non-prefetchable window [base, limit] */
	u64 pref_window_base, pref_window_limit; /* bridges: prefetchable window */
	u64 io_window_base, io_window_limit; /* bridges: I/O port window */
	bool hotplugged;		/* found by a rescan, not at boot */
	const struct pci_driver *driver;/* bound driver, or NULL */
	void *driver_data;		/* the driver's */
	volatile u8 *cfg;		/* this function's mapped 4 KiB of config space */
	const char *bar_owner[6];	/* pci_request_bar()'s names, NULL if none */
};

struct pci_driver {
	const char *name;		/* "virtio-mem" */
	u16 vendor, device;		/* match */
	int (*probe)(struct pci_dev *dev);	/* 0 binds; -errno leaves the device alone */
	void (*remove)(struct pci_dev *dev);	/* device going away (may be NULL) */
};

/* Config space accessors (offsets within the function's 4 KiB). */
u8 pci_read8(const struct pci_dev *d, u16 off);
u16 pci_read16(const struct pci_dev *d, u16 off);
u32 pci_read32(const struct pci_dev *d, u16 off);
void pci_write8(struct pci_dev *d, u16 off, u8 v);
void pci_write16(struct pci_dev *d, u16 off, u16 v);
void pci_write32(struct pci_dev *d, u16 off, u32 v);

/* pci_find_capability() - offset of the first capability with id cap_id
 * after `start` (0: from the list head), or 0.  Bounded walk: a looping or
 * out-of-range list is cut and reported. */
u8 pci_find_capability(const struct pci_dev *d, u8 cap_id, u8 start);

/* pci_enable_device() - memory and I/O decoding plus bus mastering on. */
void pci_enable_device(struct pci_dev *d);

/* pci_map_bar() - the BAR's memory mapped uncached, or NULL. */
void *pci_map_bar(struct pci_dev *d, int bar);

/* pci_request_bar() - the driver claims BAR `bar` of d under `name`
 * ("virtio-pci-modern"), shown nested in the BAR in /proc/iomem until the
 * function is removed.  0, or -EINVAL (no such memory BAR, no address). */
int pci_request_bar(struct pci_dev *d, int bar, const char *name);

/* pci_register_driver() - probe matching devices now and on later rescans. */
void pci_register_driver(const struct pci_driver *drv);

/* pci_device_count()/pci_device() - the table: indices below the count;
 * pci_device() is NULL for the entry of a removed function. */
unsigned pci_device_count(void);
struct pci_dev *pci_device(unsigned i);

/* pci_get_bdf() - the table's entry for (bus, dev, fn), or NULL. */
struct pci_dev *pci_get_bdf(unsigned bus, unsigned dev, unsigned fn);

/* pci_config_read()/pci_config_write() - `width` (1, 2, 4) bytes at `off`
 * of function (bus, dev, fn), found by address: 0, -ENODEV (no such
 * function) or -EINVAL (width not 1/2/4, off not aligned to it or past the
 * 4 KiB, or a value wider than width).  A write to a bridge refreshes its
 * windows and bus numbers in the table. */
int pci_config_read(unsigned bus, unsigned dev, unsigned fn, u16 off, unsigned width, u32 *val);
int pci_config_write(unsigned bus, unsigned dev, unsigned fn, u16 off, unsigned width, u32 val);

/* pci_remove_device() - driver remove, decoding off, entry freed (other
 * entries never move; d itself must not be used afterwards). */
void pci_remove_device(struct pci_dev *d);

/* pci_acpi_init() - what the AML namespace says about PCI: root buses
 * from _BBN walked, nodes from _PXM, then pci_hotplug_init()
 * (drivers/pci/acpi.c).  Context: boot, after pci_init() and
 * acpi_aml_init(). */
void pci_acpi_init(void);
/* pci_numa_node() - the node of d's _PXM (or of the nearest device above
 * with one), -1 when none.  Context: main. */
int pci_numa_node(const struct pci_dev *d);
/* pci_set_removal_observer() - fn is called with each function
 * pci_remove_device() takes out (views/sysfs_pci.c's entries go). */
void pci_set_removal_observer(void (*fn)(const struct pci_dev *d));
/* pci_hotplug_init() - PCI hotplug as the firmware's AML describes it
 * (\_GPE._E01, the slots' _EJ0: drivers/pci/hotplug_acpi.c), or, when the
 * namespace has no such method, the native PCIe slots (hotplug_native.c).
 * Context: boot, from pci_acpi_init(). */
void pci_hotplug_init(void);
/* pci_hotplug_dump() - the `pcihp` view: mechanism, slots, counts, events. */
void pci_hotplug_dump(struct printer *p);

int pci_init(void);		/* ECAM from the MCFG, enumerate, assign, probe */
int pci_rescan(void);		/* find hot-added devices; returns how many are new */
void pci_dump(struct printer *p);	/* `lspci` */
/* pci_dump_device() - `lspci -v`: d's line, registers and capabilities. */
void pci_dump_device(struct printer *p, const struct pci_dev *d);

#endif

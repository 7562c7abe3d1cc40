/*
 * drivers/pci/internal.h - what the files of drivers/pci share and nobody
 * else uses: the register offsets, the ECAM mapping, the device and driver
 * tables, and the steps one file does for another.  The public API is
 * include/drivers/pci.h.  The host tests (tests/host/pci_model.c) reset the
 * state below between tests.
 *
 *   config.c    ECAM: the MCFG, the mapping, the register accessors
 *   resource.c  BARs and bridge windows: sizing, placing, opening windows
 *   probe.c     the device table, enumeration, bus numbers
 *   bus.c       pci_init, rescan, driver binding, removal
 *   dump.c      the `lspci` views
 *   hotplug.c   the choice of hotplug mechanism, slot release, `pcihp` view
 *   hotplug_acpi.c    ACPI PCI hotplug through the firmware's AML
 *   hotplug_native.c  native PCIe hotplug (the PCIe slot registers)
 *   acpi.c      root buses from _BBN, NUMA nodes from _PXM, then hotplug
 *
 * Context: as each function says; all of it is main loop (or boot) only.
 */
#ifndef DRIVERS_PCI_INTERNAL_H
#define DRIVERS_PCI_INTERNAL_H

#include <drivers/pci.h>
#include <kernel/workqueue.h>

/* Configuration space registers used here (PCI Local Bus 3.0, PCIe 4.0). */
#define CFG_VENDOR		0x00
#define CFG_DEVICE		0x02
#define CFG_COMMAND		0x04
#define CFG_STATUS		0x06
#define CFG_REVISION		0x08
#define CFG_HEADER_TYPE		0x0e
#define CFG_BAR0		0x10
#define CFG_PRIMARY_BUS		0x18
#define CFG_SECONDARY_BUS	0x19
#define CFG_SUBORDINATE_BUS	0x1a
#define CFG_IO_BASE		0x1c
#define CFG_IO_LIMIT		0x1d
#define CFG_MEM_BASE		0x20
#define CFG_MEM_LIMIT		0x22
#define CFG_PREF_BASE		0x24
#define CFG_PREF_LIMIT		0x26
#define CFG_PREF_BASE_HI	0x28
#define CFG_PREF_LIMIT_HI	0x2c
#define CFG_IO_BASE_HI		0x30
#define CFG_IO_LIMIT_HI		0x32
#define CFG_CAP_PTR		0x34
#define CFG_IRQ_LINE		0x3c
#define CFG_IRQ_PIN		0x3d

#define CMD_IO			0x0001
#define CMD_MEMORY		0x0002
#define CMD_MASTER		0x0004
#define STATUS_CAP_LIST		0x0010
#define HEADER_MULTIFUNCTION	0x80
#define HEADER_TYPE_MASK	0x7f

#define BAR_IO			0x1
#define BAR_MEM_TYPE_MASK	0x6
#define BAR_MEM_64		0x4
#define BAR_MEM_PREFETCH	0x8

#define PCI_MAX_DRIVERS		16

/* The q35 32-bit PCI hole: above the ECAM/low RAM, below the IOAPIC.  BARs
 * and bridge windows are placed in it; /proc/iomem shows it as the root
 * bus's window ("PCI Bus 0000:00"). */
#define PCI_HOLE32_LOW		0xc0000000ULL
#define PCI_HOLE32_HIGH		0xfec00000ULL
#define CAP_WALK_LIMIT		48	/* (256 - 64) / 4 capabilities at most */

/* The MCFG (PCI Firmware 3.0): a header, then 16-byte allocation entries. */
#define PCI_MCFG_HEADER_LEN	44	/* SDT header + 8 reserved bytes */
#define PCI_MCFG_ENTRY_LEN	16
struct pci_ecam {
	u64 base;		/* physical address of bus 0's configuration space */
	u8 start_bus, end_bus;	/* buses it decodes */
};

/* config.c: segment 0 from the MCFG, and its uncached mapping (NULL before
 * pci_ecam_init()). */
extern struct pci_ecam pci_ecam;
extern volatile u8 *pci_ecam_virt;

/* probe.c: the table.  An entry with cfg == NULL is free (its function was
 * removed); entries never move, so drivers may keep their pointers.
 * Entries below pci_nr_devices were used. */
extern struct pci_dev pci_devices[PCI_MAX_DEVICES];
extern unsigned pci_nr_devices;
/* probe.c: root buses beside the first MCFG bus (pci_add_root_bus(), at
 * boot; read by every walk in the main loop). */
#define PCI_MAX_ROOT_BUSES	8
extern u8 pci_root_buses[PCI_MAX_ROOT_BUSES];
extern unsigned pci_nr_root_buses;

/*
 * acpi.c: the windows of each root bus, from its root bridge's _CRS
 * (pci_read_root_windows(), at every pci_resources_sync()).  Entry 0 is the
 * first MCFG bus's (the first root bridge's _CRS, or the tables' bytes
 * before the namespace exists); the others one per further root bridge
 * with a _CRS.  A root whose _CRS was refused (its windows overlap an
 * earlier root's, leave the physical address space, or there are none)
 * has nr == 0 and `refused` says why.  Written and read in the main loop
 * (or boot) only; no lock.
 */
#include <drivers/acpi.h>
struct pci_root_windows {
	unsigned bus, bus_end;		/* the root bus and the last bus below it */
	struct acpi_window win[ACPI_ROOT_WINDOWS_MAX];
	unsigned nr;			/* windows in win[] */
	char source[64];		/* where they come from: "\\_SB_.PC80._CRS" */
	char refused[128];		/* why none are used ("" when none was refused) */
	struct {			/* what the log last said of this entry */
		bool valid;
		unsigned bus, nr;
		char refused[128];
	} said;
};
extern struct pci_root_windows pci_root_windows[PCI_MAX_ROOT_BUSES + 1];
extern unsigned pci_nr_root_windows;

/* pci_read_root_windows() - fill pci_root_windows[] (see above), logging a
 * root's count or refusal when it changes.  Context: (boot, main). */
void pci_read_root_windows(void);

/* pci_root_windows_of() - the windows of root bus `bus` that were read and
 * accepted, or NULL.  Context: (boot, main). */
const struct pci_root_windows *pci_root_windows_of(unsigned bus);

/* pci_add_root_bus() - another root bus for the walk: 0, -EEXIST, -ERANGE
 * (outside the MCFG) or -ENOSPC.  Context: boot. */
int pci_add_root_bus(unsigned bus);
/* pci_scan_roots() - bus.c: walk the root buses added since, offer what
 * was found to the drivers; how many, or -ENODEV.  Context: boot. */
int pci_scan_roots(void);

/* bus.c: the registered drivers; pci_ready once pci_init() enumerated. */
extern const struct pci_driver *pci_drivers[PCI_MAX_DRIVERS];
extern unsigned pci_nr_drivers;
extern bool pci_ready;

/* pci_ecam_init() - find the MCFG, check it (pci_mcfg_parse()) and map its
 * buses uncached.  0, -ENODEV (no MCFG), -EINVAL/-ENOENT (unusable MCFG)
 * or -ENOMEM (no mapping), each logged with the reason.  Context: boot. */
int pci_ecam_init(void);

/* pci_cfg_of() - the mapped 4 KiB of (bus, dev, fn), or NULL outside the
 * MCFG's buses (or before pci_ecam_init()).  Context: (any). */
volatile u8 *pci_cfg_of(unsigned bus, unsigned dev, unsigned fn);

/* pci_size_bars() - fill d->bars from the hardware (type, size, the
 * address the firmware gave; 0 if none).  Context: (boot, main). */
void pci_size_bars(struct pci_dev *d);

/* pci_read_windows() - refresh a bridge's memory windows and bus numbers
 * in d from its registers; a closed window reads as limit < base.
 * Context: (boot, main). */
void pci_read_windows(struct pci_dev *d);

/* pci_window_open() - is [base, limit] an open window?  Pure. */
bool pci_window_open(u64 base, u64 limit);

/* pci_distrust_bars() - forget (with the reason logged) the addresses of a
 * rescanned function's memory BARs that lie outside the windows of the
 * bridge above or meet another BAR.  Context: (main). */
void pci_distrust_bars(struct pci_dev *d);

/* pci_assign_bars() - place every unassigned memory BAR of d inside the
 * windows of the bridge above (opening one if needed).  0, -ENODEV (no
 * bridge above), -EINVAL (a BAR of a size no BAR has), -ENOSPC or -EIO.
 * Context: (main). */
int pci_assign_bars(struct pci_dev *d);

/* pci_resources_sync() - the PCI part of the resource tree (iomem.c) made
 * to match the device table: MMCONFIG, the root bus window, each bridge's
 * open windows, each assigned BAR under the window that holds it, and the
 * BARs drivers requested (pci_request_bar()) inside those.  Called after
 * every change of the table, a window or a BAR.  Context: (boot, main). */
void pci_resources_sync(void);

/* pci_scan_all() - walk every bus reachable from the first MCFG bus and add
 * the functions not in the table yet (marked hotplugged when `hot`), listed
 * in added_list (room for PCI_MAX_DEVICES; may be NULL).  Returns how many
 * were added.  Context: (boot, main). */
int pci_scan_all(bool hot, struct pci_dev **added_list);

/* hotplug.c: the choice of mechanism and what both share. */
extern const char *pcihp_acpi_off_reason;	/* why ACPI PCI hotplug is off (NULL: on or not chosen yet) */
extern const char *pcihp_off_reason;	/* why native hotplug is off too */
extern u64 pcihp_ups, pcihp_downs, pcihp_ejects;	/* events handled, both mechanisms */
/* hotplug_native.c */
extern bool pcihp_native_mode;		/* the PCIe slots are polled */
extern struct poller pcihp_native_poller;

/*
 * A slot's functions, for pcihp_release_slot(): those right behind a root
 * port (native hotplug), or those of device `slot` on bus `bus` (ACPI).
 */
struct pcihp_slot {
	const struct pci_dev *port;	/* native: the port; NULL for ACPI */
	int bus;			/* ACPI: the bus */
	unsigned slot;			/* ACPI: the device number on it */
};

/* pcihp_in_slot() - d is one of the slot's functions or sits below one of
 * them.  Context: (main). */
bool pcihp_in_slot(const struct pci_dev *d, const struct pcihp_slot *s);

/* pcihp_release_slot() - every function of the slot, and everything behind
 * a bridge in it, leaves (driver remove, then the table), deepest first.
 * Returns how many went.  Context: (main). */
unsigned pcihp_release_slot(const struct pcihp_slot *s);

/* hotplug_acpi.c: ACPI PCI hotplug through the AML namespace. */
#define PCIHP_AML_EVENTS	8	/* the last Notify()s kept for the view */
struct pcihp_aml_event {
	char path[64];		/* the device notified */
	u64 value;		/* 0 bus check, 1 device check, 3 eject request */
	char what[32];		/* what memlab did */
};
extern bool pcihp_aml_mode;		/* GPE 1 runs the AML's method */
extern struct pcihp_aml_event pcihp_aml_events[PCIHP_AML_EVENTS];
extern unsigned pcihp_aml_nr_events;	/* ever recorded; the ring keeps the last */
/* pcihp_aml_init() - take GPE 1 and follow the namespace's method and slot
 * devices; NULL when taken, else why not (a static string).  Context: boot. */
const char *pcihp_aml_init(void);
/* pcihp_aml_dump() - the `pcihp` view of it; slots: one line per slot
 * device.  Context: (main). */
void pcihp_aml_dump(struct printer *out, bool slots);

/* pcihp_native_init() - start polling the hotplug-capable PCIe slots, or
 * set pcihp_off_reason when there are none.  Context: boot. */
void pcihp_native_init(void);

#endif

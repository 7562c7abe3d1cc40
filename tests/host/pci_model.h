/*
 * pci_model.h - a model of PCI configuration space behind ECAM, for the
 * real drivers/pci sources compiled for the host (tests/host/pci_model.c).
 *
 * Used by the tests of the host suite `pci` (build/host-tests-pci:
 * tests/host/test_pci*.c, on the machines of pci_machine.h and
 * pcihp_machine.h) and by tests/fuzz/fuzz_pci.c.  That suite links the
 * real drivers/pci objects and shell/cmd_pci.c with this model, which
 * defines the platform functions they call (ioremap(), acpi_find_table(),
 * the port and MMIO accessors, the workqueue): in a binary of their own,
 * nothing needs renaming.  The drivers' private state
 * comes from drivers/pci/internal.h (pm_reset() clears it).
 *
 * The model.  Up to PM_MAX_FUNCS functions, each with 4 KiB of register
 * bytes (cfg), the bits a write may change (wmask), the bits a write of
 * one clears (w1c), and which bytes are registers at all (impl).  A write
 * of v stores (old & ~wmask) | (v & wmask) and then clears the w1c bits
 * written as one, so a BAR whose wmask is ~(size - 1) reads back its size
 * mask after all-ones, read-only registers keep their value, and bridges'
 * bus numbers and windows hold what is written.  A function sits at
 * (dev, fn) on the root bus (parent -1) or on the secondary bus of a
 * bridge function (parent = its index).  Configuration cycles are routed
 * as bridges route them: bus root_bus reaches the root functions; another
 * bus goes down through the first bridge (in table order) whose current
 * [secondary, subordinate] holds it, and is that bridge's secondary bus
 * when it equals the secondary number.  So whatever the kernel writes to
 * bus-number registers decides what it reaches next, as on hardware.
 *
 * ECAM is a PROT_NONE reservation of 256 MiB: the kernel computes pointers
 * into it (ioremap() returns its start for the MCFG's range) and
 * only the mmio accessors of tests/host/arch/io.h may use them; those come
 * to pm_access(), which decodes the address.  Counted, for the tests to
 * check: reads and writes, writes to absent functions or to bytes that
 * are not registers (stray), accesses outside the mapping (oob).
 *
 * Also here: acpi_find_table() serving an MCFG (exact heap buffer) and an
 * optional DSDT (pm_set_dsdt()), and hotplug as QEMU 7.2 signals it:
 *   - ACPI PCI hotplug: the register block at port 0xcc0 (pm_pcihp_*(),
 *     see "ACPI PCI hotplug" below), GPE 1 delivered by pm_gpe(), the
 *     work item and poller the driver registers run by pm_run_work() and
 *     pm_poll();
 *   - native PCIe hotplug: a root port's slot registers (pm_pcie_slot(),
 *     pm_slot_plug(), pm_slot_unplug_request(); see "PCIe slots" below).
 */
#ifndef TESTS_HOST_PCI_MODEL_H
#define TESTS_HOST_PCI_MODEL_H

#include <drivers/pci.h>
#include <drivers/acpi.h>
#include <kernel/workqueue.h>
#include <arch/paging.h>
#include <arch/io.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/printer.h>
#include <lib/errno.h>
#include <stdlib.h>
#include "../../drivers/pci/internal.h"

#define PM_MAX_FUNCS	300
#define PM_ECAM_SPAN	(256ULL << 20)
#define PM_ECAM_BASE	0xb0000000ULL	/* q35's MCFG base */
#define PM_NR_BSEL	256		/* bus selectors, as many as QEMU numbers */
#define PM_BSEL_NONE	(-2)		/* pci_model.bsel_bridge[]: selects no bus */
#define PM_MAX_PXM	8		/* proximity domains the model's SRAT knows */
#define PM_PHYS_BITS	40		/* the CPU's physical address width (QEMU's default) */

struct pm_func {
	int parent;			/* bridge function it sits behind; -1: root bus */
	bool expander;			/* pm_expander(): a second root bus behind it */
	u8 exp_bus, exp_end;		/* that root bus and the last bus below it */
	bool absent;			/* not plugged in (yet): reads all ones */
	u8 dev, fn;			/* where on that bus */
	u8 slot_pos;			/* PCIe capability with slot registers (pm_pcie_slot), 0: none */
	u8 cfg[4096];			/* register contents */
	u8 wmask[4096];			/* bits a write may change */
	u8 w1c[4096];			/* bits a write of one clears */
	u8 impl[4096];			/* 1: this byte is a register */
};

struct pci_model {
	struct pm_func *f;		/* pm_funcs */
	unsigned nr;			/* functions in f */
	u8 root_bus;			/* bus number of the root functions */
	u8 *ecam;			/* the PROT_NONE reservation */
	u64 ecam_phys;			/* where the MCFG says bus start_bus is */
	u64 ecam_span;			/* what ioremap() handed out */
	u8 *mcfg;			/* what acpi_find_table("MCFG") gives */
	u8 *dsdt;			/* and "DSDT" (may be NULL) */
	u64 reads, writes;		/* config accesses */
	u64 stray_writes;		/* to absent functions or non-registers */
	u64 oob;			/* outside the ECAM mapping */
	int last_stray;			/* offset of the last stray write (debugging) */
	/* ACPI PCI hotplug registers (port 0xcc0), per bus selector (bsel) */
	bool pcihp_present;		/* the block answers (else ports read all ones) */
	u32 bnum;			/* BNUM: the selected bsel */
	int bsel_bridge[PM_NR_BSEL];	/* the bridge whose secondary bus it selects; -1 root bus, PM_BSEL_NONE */
	u32 up[PM_NR_BSEL], down[PM_NR_BSEL], rmv[PM_NR_BSEL];	/* UP, DOWN, RMV */
	u32 ejected[PM_NR_BSEL];	/* slots ejected per selector */
	unsigned eject_writes;		/* writes to EJECT, whatever they did */
	bool gpe_fails;			/* acpi_gpe_register() refuses */
	unsigned gpe_registered;	/* acpi_gpe_register() calls */
	unsigned gpe;			/* the GPE it asked for */
	struct work *gpe_work;		/* and the work it wants run */
	unsigned work_scheduled;	/* schedule_work() calls */
	struct work *work;		/* the last work scheduled */
	unsigned pollers;		/* register_poller() calls */
	struct poller *poller;		/* the last poller registered */
	/* the AML namespace acpi_aml() gives (NULL: none), and the Notify
	 * handler drivers/pci set with acpi_aml_set_notify() */
	struct aml_ns *aml;
	void (*aml_notify)(struct aml_node *node, u64 value);
	/* the SRAT: node + 1 of each proximity domain (0: none), for
	 * acpi_pxm_find_node() */
	int pxm_node[PM_MAX_PXM];
	/* PCIe slots */
	bool slot_power_gates;		/* functions behind a powered-off slot read all ones */
};

extern struct pm_func pm_funcs[PM_MAX_FUNCS];
extern struct pci_model pm;

#define PM_SLTCAP_QEMU		0x7b
#define PM_SLTCAP_PCP		0x02	/* power controller present */
#define PM_SLTCTL_PIC		0x0300	/* power indicator: 01 on, 11 off */
#define PM_SLTCTL_PIC_ON	0x0100
#define PM_SLTCTL_PCC		0x0400	/* power controller: 1 = off */
#define PM_SLTSTA_ABP		0x0001
#define PM_SLTSTA_PFD		0x0002
#define PM_SLTSTA_PDC		0x0008
#define PM_SLTSTA_CC		0x0010
#define PM_SLTSTA_PDS		0x0040
#define PM_PCIHP_BASE	0x0cc0
#define PM_PCIHP_LEN	0x18

/* pm_mcfg_entry() - one 16-byte MCFG allocation entry at e. */
void pm_mcfg_entry(u8 *e, u64 base, u16 seg, u8 start, u8 end);

/* pm_mcfg_simple() - an MCFG with one entry: segment 0 at base, buses start-end. */
void pm_mcfg_simple(u64 base, u8 start, u8 end);

/* pm_set_mcfg() - acpi_find_table("MCFG") gives a heap copy of exactly len
 * bytes of table (NULL: no MCFG); its length field is the caller's. */
void pm_set_mcfg(const void *table, size_t len);

/* pm_reset() - an empty model, an MCFG for buses start-end at PM_ECAM_BASE
 * whose first bus is the root bus, and the drivers' state as before
 * pci_init(). */
void pm_reset(u8 start_bus, u8 end_bus);

/* ---- building functions ---------------------------------------------------- */
void pm_put(struct pm_func *f, unsigned off, unsigned width, u32 v);

u32 pm_get(const struct pm_func *f, unsigned off, unsigned width);

/* pm_reg() - bytes [off, off+width) are registers; wmask (repeated per
 * dword when width > 4) says which bits a write changes. */
void pm_reg(struct pm_func *f, unsigned off, unsigned width, u32 wmask);

/*
 * pm_add() - a function at (dev, fn) behind `parent` (-1: root bus) with
 * the given ids, header type (0 or 1, plus 0x80 for multi-function) and
 * class.  Header type 0: command, status, BARs 0-5 (hard-wired zero until
 * pm_bar()), interrupt line.  Type 1: BARs 0-1, bus numbers, I/O, memory
 * and 64-bit prefetchable windows (writable, closed), bridge control.
 * Returns its index.
 */
int pm_add(int parent, u8 dev, u8 fn, u16 vendor, u16 device, u8 header, u8 class,
		  u8 subclass);

/* pm_bar() - BAR i of function x: `size` bytes (a power of two), flags the
 * low bits (1 I/O, 4 64-bit, 8 prefetchable), at addr (0: unassigned). */
void pm_bar(int x, unsigned i, u64 size, u32 flags, u64 addr);

/* pm_bar_raw() - BAR register at off: any value and write mask (hostile). */
void pm_bar_raw(int x, unsigned off, u32 value, u32 wmask);

/* pm_buses() - a bridge's primary, secondary and subordinate bus numbers. */
void pm_buses(int x, u8 pri, u8 sec, u8 sub);

/* pm_mem_window() - a bridge's memory window [base, limit] (1 MiB units). */
void pm_mem_window(int x, u32 base, u32 limit);

/* pm_pref_window() - a bridge's 64-bit prefetchable window [base, limit]. */
void pm_pref_window(int x, u64 base, u64 limit);

/* pm_cap() - a capability (id, next) at pos; `first` makes it the list head. */
void pm_cap(int x, u8 pos, u8 id, u8 next, bool first, unsigned len);

/* pm_pcie_slot() - a PCIe capability at pos with a hotplug-capable slot
 * (QEMU's slot capabilities): slot control writable, powered off with the
 * indicator off; slot status bits 0-4 and 8 write-one-to-clear. */
void pm_pcie_slot(int x, u8 pos, u8 next, bool first);

/* pm_slot_reg() - slot register at `off` (0x14, 0x18, 0x1a) of port x. */
u32 pm_slot_reg(int x, unsigned off, unsigned width);

void pm_slot_set(int x, unsigned off, unsigned width, u32 v);

/* pm_slot_no_power_controller() - port x's slot has no power controller:
 * the bit is not in its capabilities and slot control keeps it zero. */
void pm_slot_no_power_controller(int x);

/* pm_slot_powered() - the functions behind port x have power. */
bool pm_slot_powered(int x);

/* pm_slot_occupied() - the model has a present function right behind x. */
bool pm_slot_occupied(int x);

/* pm_slot_populated() - QEMU's state after reset for a slot with a device:
 * powered on, power indicator on, presence detected, no events. */
void pm_slot_populated(int x);

/* pm_slot_event() - set status bits of port x's slot (QEMU's slot event). */
void pm_slot_event(int x, u16 bits);

/* pm_slot_unplug() - QEMU takes the functions behind port x away:
 * presence state clears, presence detect changed is set. */
void pm_slot_unplug(int x);

/* pm_slot_plug() - device_add of function y (built absent, behind port x). */
void pm_slot_plug(int x, int y);

/* pm_slot_unplug_request() - device_del of what is behind port x. */
void pm_slot_unplug_request(int x);

/* pm_decode() - the function and register an ECAM pointer stands for. */
struct pm_func *pm_decode(const volatile void *p, unsigned width, unsigned *reg);

/* pm_expander() - function x (a host bridge on the root bus) stands for a
 * second root bus `bus` (to `end`), like QEMU's pxb-pcie. */
void pm_expander(int x, u8 bus, u8 end);

/* pm_load_aml() - a namespace over the model (its ports and configuration
 * space) from a whole table image, devices initialised, made what
 * acpi_aml() gives (an earlier one destroyed; so does pm_reset()).  A load
 * that fails keeps what was loaded.  NULL if no namespace could be made. */
struct aml_limits;
struct aml_ns *pm_load_aml(const void *table, size_t len, const struct aml_limits *lim);
/* pm_iomem() - /proc/iomem as it is now (the tree holds only PCI in these
 * tests), in a static buffer the next call overwrites. */
const char *pm_iomem(void);
/* pm_read_file() - up to max bytes of a file; its length, 0 if unreadable. */
size_t pm_read_file(const char *path, void *buf, size_t max);

/* pm_set_dsdt() - acpi_find_table("DSDT") gives a heap table of exactly
 * the header plus len bytes of aml (NULL: no DSDT). */
void pm_set_dsdt(const void *aml, size_t len);

/* pm_run_work() - what the main loop does: run the scheduled work once, if
 * it is pending.  Returns whether it ran. */
bool pm_run_work(void);

/* pm_gpe() - GPE `gpe` fires: the events code schedules the work registered
 * for it, and the main loop runs it.  Returns whether anything ran. */
bool pm_gpe(unsigned gpe);

/* pm_poll() - the main loop calls the registered poller once (if any). */
bool pm_poll(void);

/* pm_pcihp() - the register block answers; every slot removable. */
void pm_pcihp(void);

/* pm_pcihp_bsel() - selector sel stands for the secondary bus of bridge
 * function x (-1: the root bus). */
void pm_pcihp_bsel(unsigned sel, int x);

/* pm_bsel_of() - the selector of the bus function y sits on, or -1. */
int pm_bsel_of(int y);

/* pm_acpi_plug() - device_add of function y (built absent): it appears
 * and its slot's UP bit is set.  The test then fires GPE 1. */
void pm_acpi_plug(int y);

/* pm_acpi_unplug_request() - device_del of function y: its slot's DOWN bit. */
void pm_acpi_unplug_request(int y);

/* pm_below() - function y is x or sits below bridge x (bounded walk). */
bool pm_below(int y, int x);

/* pm_init() - pci_init() with the log quiet unless verbose. */
int pm_init(void);

#endif

/*
 * pci_model.h - drivers/pci/pci.c and hotplug.c compiled for the host,
 * against a model of PCI configuration space behind ECAM.
 *
 * Included by tests/host/test_pci.c, tests/host/test_pci_hotplug.c and
 * tests/fuzz/fuzz_pci.c.  The drivers' exported names, and the platform
 * functions they call, are renamed with PM_NAME() (pcitest_* unless the
 * includer defines PM_NAME first) so that this file links into the one
 * host-tests binary beside test_virtio.c (which has its own pci_read8()..),
 * test_acpi.c / test_apic.c (their own ioremap(), acpi_find_table(), port
 * and MMIO models) and a second includer with its own copy of the drivers.
 * Such a second includer also defines PM_PRIVATE_SHELL: its copies of
 * lspci, setpci and pcihp then stay out of the shell's command table (which
 * must name each command once) and are reached as shell_cmd_lspci etc.
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
 * into it (pcitest_ioremap() returns its start for the MCFG's range) and
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

#ifndef PM_NAME
#define PM_NAME(x)		pcitest_##x
#endif
#define acpi_find_table		PM_NAME(acpi_find_table)
#define acpi_gpe_register	PM_NAME(acpi_gpe_register)
#define ioremap			PM_NAME(ioremap)
#define host_port_in		PM_NAME(port_in)
#define host_port_out		PM_NAME(port_out)
#define host_mmio_read8		PM_NAME(mmio_read8)
#define host_mmio_read16	PM_NAME(mmio_read16)
#define host_mmio_read32	PM_NAME(mmio_read32)
#define host_mmio_write8	PM_NAME(mmio_write8)
#define host_mmio_write16	PM_NAME(mmio_write16)
#define host_mmio_write32	PM_NAME(mmio_write32)
#define schedule_work		PM_NAME(schedule_work)
#define register_poller		PM_NAME(register_poller)
#define pci_read8		PM_NAME(read8)
#define pci_read16		PM_NAME(read16)
#define pci_read32		PM_NAME(read32)
#define pci_write8		PM_NAME(write8)
#define pci_write16		PM_NAME(write16)
#define pci_write32		PM_NAME(write32)
#define pci_find_capability	PM_NAME(find_capability)
#define pci_enable_device	PM_NAME(enable_device)
#define pci_map_bar		PM_NAME(map_bar)
#define pci_register_driver	PM_NAME(register_driver)
#define pci_device_count	PM_NAME(device_count)
#define pci_device		PM_NAME(device)
#define pci_remove_device	PM_NAME(remove_device)
#define pci_mcfg_parse		PM_NAME(mcfg_parse)
#define pci_cap_find_raw	PM_NAME(cap_find_raw)
#define pci_hotplug_init	PM_NAME(hotplug_init)
#define pci_init		PM_NAME(init)
#define pci_rescan		PM_NAME(rescan)
#define pci_dump		PM_NAME(dump)
#ifdef PM_PRIVATE_SHELL
#include <shell/shell.h>
#undef SHELL_COMMAND
#define SHELL_COMMAND(ident, ...)					\
	static const struct shell_cmd shell_cmd_##ident __attribute__((unused)) = { __VA_ARGS__ }
#endif
#include "../../drivers/pci/pci.c"
#include "../../drivers/pci/hotplug.c"

#include <stdlib.h>
#include <sys/mman.h>

#define PM_MAX_FUNCS	300
#define PM_ECAM_SPAN	(256ULL << 20)
#define PM_ECAM_BASE	0xb0000000ULL	/* q35's MCFG base */
#define PM_NR_BSEL	256		/* bus selectors, as many as QEMU numbers */
#define PM_BSEL_NONE	(-2)		/* pci_model.bsel_bridge[]: selects no bus */

struct pm_func {
	int parent;			/* bridge function it sits behind; -1: root bus */
	bool absent;			/* not plugged in (yet): reads all ones */
	u8 dev, fn;			/* where on that bus */
	u8 slot_pos;			/* PCIe capability with slot registers (pm_pcie_slot), 0: none */
	u8 cfg[4096];			/* register contents */
	u8 wmask[4096];			/* bits a write may change */
	u8 w1c[4096];			/* bits a write of one clears */
	u8 impl[4096];			/* 1: this byte is a register */
};

static struct pm_func pm_funcs[PM_MAX_FUNCS];

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
	/* PCIe slots */
	bool slot_power_gates;		/* functions behind a powered-off slot read all ones */
};

static struct pci_model pm;

static void pm_set_mcfg(const void *table, size_t len);

/* pm_mcfg_entry() - one 16-byte MCFG allocation entry at e. */
static void pm_mcfg_entry(u8 *e, u64 base, u16 seg, u8 start, u8 end)
{
	memcpy(e, &base, 8);
	memcpy(e + 8, &seg, 2);
	e[10] = start;
	e[11] = end;
}

/* pm_mcfg_simple() - an MCFG with one entry: segment 0 at base, buses start-end. */
static void pm_mcfg_simple(u64 base, u8 start, u8 end)
{
	u8 t[PCI_MCFG_HEADER_LEN + PCI_MCFG_ENTRY_LEN] = { 'M', 'C', 'F', 'G' };
	u32 len = sizeof(t);

	memcpy(t + 4, &len, 4);
	pm_mcfg_entry(t + PCI_MCFG_HEADER_LEN, base, 0, start, end);
	pm_set_mcfg(t, sizeof(t));
}

/* pm_set_mcfg() - acpi_find_table("MCFG") gives a heap copy of exactly len
 * bytes of table (NULL: no MCFG); its length field is the caller's. */
static void pm_set_mcfg(const void *table, size_t len)
{
	free(pm.mcfg);
	pm.mcfg = NULL;
	if (table) {
		pm.mcfg = malloc(len ? len : 1);
		memcpy(pm.mcfg, table, len);
	}
}

/* pm_reset() - an empty model, an MCFG for buses start-end at PM_ECAM_BASE
 * whose first bus is the root bus, and the drivers' state as before
 * pci_init(). */
static void pm_reset(u8 start_bus, u8 end_bus)
{
	u8 *res = pm.ecam;
	u8 *mcfg = pm.mcfg;

	if (!res) {
		res = mmap(NULL, PM_ECAM_SPAN, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (res == MAP_FAILED)
			abort();
	}
	free(pm.dsdt);
	memset(&pm, 0, sizeof(pm));
	pm.f = pm_funcs;
	pm.ecam = res;
	pm.mcfg = mcfg;
	pm.root_bus = start_bus;
	pm.last_stray = -1;
	for (unsigned i = 0; i < PM_NR_BSEL; i++)
		pm.bsel_bridge[i] = PM_BSEL_NONE;
	pm_mcfg_simple(PM_ECAM_BASE, start_bus, end_bus);

	/* pci.c */
	memset(&ecam, 0, sizeof(ecam));
	ecam_virt = NULL;
	memset(devices, 0, sizeof(devices));
	nr_devices = 0;
	memset(drivers, 0, sizeof(drivers));
	nr_drivers = 0;
	pci_ready = false;
	/* hotplug.c */
	memset(bsels, 0, sizeof(bsels));
	nr_bsel = 0;
	from_dsdt = false;
	acpi_mode = false;
	off_reason = NULL;
	ups = downs = ejects = 0;
	native_mode = false;
	memset(&native_poller, 0, sizeof(native_poller));
	pcihp_work.pending = false;
}


/* ---- building functions ---------------------------------------------------- */

static void pm_put(struct pm_func *f, unsigned off, unsigned width, u32 v)
{
	for (unsigned i = 0; i < width; i++)
		f->cfg[off + i] = (u8)(v >> (8 * i));
}

static u32 pm_get(const struct pm_func *f, unsigned off, unsigned width)
{
	u32 v = 0;

	for (unsigned i = 0; i < width; i++)
		v |= (u32)f->cfg[off + i] << (8 * i);
	return v;
}

/* pm_reg() - bytes [off, off+width) are registers; wmask (repeated per
 * dword when width > 4) says which bits a write changes. */
static void pm_reg(struct pm_func *f, unsigned off, unsigned width, u32 wmask)
{
	for (unsigned i = 0; i < width; i++) {
		f->impl[off + i] = 1;
		f->wmask[off + i] = (u8)(wmask >> (8 * (i % 4)));	/* repeats per dword */
	}
}

/*
 * pm_add() - a function at (dev, fn) behind `parent` (-1: root bus) with
 * the given ids, header type (0 or 1, plus 0x80 for multi-function) and
 * class.  Header type 0: command, status, BARs 0-5 (hard-wired zero until
 * pm_bar()), interrupt line.  Type 1: BARs 0-1, bus numbers, I/O, memory
 * and 64-bit prefetchable windows (writable, closed), bridge control.
 * Returns its index.
 */
static int pm_add(int parent, u8 dev, u8 fn, u16 vendor, u16 device, u8 header, u8 class,
		  u8 subclass)
{
	struct pm_func *f;
	unsigned nbars = (header & 0x7f) == 1 ? 2 : 6;

	if (pm.nr >= PM_MAX_FUNCS)
		abort();
	f = &pm.f[pm.nr];
	memset(f, 0, sizeof(*f));
	f->parent = parent;
	f->dev = dev;
	f->fn = fn;
	pm_put(f, 0x00, 2, vendor);
	pm_put(f, 0x02, 2, device);
	pm_reg(f, 0x00, 4, 0);
	pm_reg(f, 0x04, 2, 0x0547);
	pm_reg(f, 0x06, 2, 0);
	pm_put(f, 0x0a, 1, subclass);
	pm_put(f, 0x0b, 1, class);
	pm_reg(f, 0x08, 4, 0);
	pm_reg(f, 0x0c, 2, 0x00ff);
	pm_put(f, 0x0e, 1, header);
	pm_reg(f, 0x0e, 2, 0);
	pm_reg(f, 0x10, 4 * nbars, 0);
	pm_reg(f, 0x34, 1, 0);
	pm_reg(f, 0x3c, 1, 0xff);
	pm_reg(f, 0x3d, 1, 0);
	if ((header & 0x7f) == 1) {
		pm_reg(f, 0x18, 3, 0xffffff);		/* primary, secondary, subordinate */
		pm_reg(f, 0x1b, 1, 0);
		pm_reg(f, 0x1c, 2, 0xf0f0);		/* I/O base, limit */
		pm_reg(f, 0x1e, 2, 0);
		pm_reg(f, 0x20, 4, 0xfff0fff0);		/* memory base, limit */
		pm_put(f, 0x20, 4, 0x0000fff0);		/* closed */
		pm_reg(f, 0x24, 4, 0xfff0fff0);		/* prefetchable base, limit */
		pm_put(f, 0x24, 4, 0x0001fff1);		/* 64-bit capable, closed */
		pm_reg(f, 0x28, 8, 0xffffffff);		/* their upper halves */
		pm_put(f, 0x28, 4, 0xffffffff);
		pm_reg(f, 0x30, 4, 0xffffffff);		/* I/O upper halves */
		pm_reg(f, 0x3e, 2, 0x0fff);		/* bridge control */
	}
	return (int)pm.nr++;
}

/* pm_bar() - BAR i of function x: `size` bytes (a power of two), flags the
 * low bits (1 I/O, 4 64-bit, 8 prefetchable), at addr (0: unassigned). */
static void pm_bar(int x, unsigned i, u64 size, u32 flags, u64 addr)
{
	struct pm_func *f = &pm.f[x];
	unsigned off = 0x10 + 4 * i;
	u64 mask = ~(size - 1);

	if (flags & 1) {
		pm_reg(f, off, 4, (u32)mask & 0xfffc);
		pm_put(f, off, 4, ((u32)addr & 0xfffc) | 1);
		return;
	}
	pm_reg(f, off, 4, (u32)mask & ~0xfu);
	pm_put(f, off, 4, ((u32)addr & ~0xfu) | (flags & 0xe));
	if (flags & 4) {
		pm_reg(f, off + 4, 4, (u32)(mask >> 32));
		pm_put(f, off + 4, 4, (u32)(addr >> 32));
	}
}

/* pm_bar_raw() - BAR register at off: any value and write mask (hostile). */
static inline void pm_bar_raw(int x, unsigned off, u32 value, u32 wmask)
{
	pm_reg(&pm.f[x], off, 4, wmask);
	pm_put(&pm.f[x], off, 4, value);
}

/* pm_buses() - a bridge's primary, secondary and subordinate bus numbers. */
static void pm_buses(int x, u8 pri, u8 sec, u8 sub)
{
	pm_put(&pm.f[x], 0x18, 1, pri);
	pm_put(&pm.f[x], 0x19, 1, sec);
	pm_put(&pm.f[x], 0x1a, 1, sub);
}

/* pm_mem_window() - a bridge's memory window [base, limit] (1 MiB units). */
static void pm_mem_window(int x, u32 base, u32 limit)
{
	pm_put(&pm.f[x], 0x20, 2, (base >> 16) & 0xfff0);
	pm_put(&pm.f[x], 0x22, 2, (limit >> 16) & 0xfff0);
}

/* pm_pref_window() - a bridge's 64-bit prefetchable window [base, limit]. */
static void pm_pref_window(int x, u64 base, u64 limit)
{
	pm_put(&pm.f[x], 0x24, 2, ((base >> 16) & 0xfff0) | 1);
	pm_put(&pm.f[x], 0x26, 2, ((limit >> 16) & 0xfff0) | 1);
	pm_put(&pm.f[x], 0x28, 4, (u32)(base >> 32));
	pm_put(&pm.f[x], 0x2c, 4, (u32)(limit >> 32));
}

/* pm_cap() - a capability (id, next) at pos; `first` makes it the list head. */
static void pm_cap(int x, u8 pos, u8 id, u8 next, bool first, unsigned len)
{
	struct pm_func *f = &pm.f[x];

	f->cfg[0x06] |= 0x10;		/* capability list */
	if (first)
		f->cfg[0x34] = pos;
	f->cfg[pos] = id;
	f->cfg[pos + 1] = next;
	for (unsigned i = 0; i < len && pos + i < 4096; i++)
		f->impl[pos + i] = 1;
}

/* ---- PCIe slots ------------------------------------------------------------- */

/*
 * A root port's slot as QEMU 7.2's pcie-root-port has it (hw/pci/pcie.c
 * behaviour, as facts): slot capabilities (PCIe cap + 0x14) 0x7b:
 * attention button, power controller, attention and power indicators,
 * surprise, hotplug capable; slot control (+0x18) and slot status (+0x1a).
 *   - device_add: the function appears, presence detect state is set,
 *     and the events presence detect changed and attention button pressed
 *     (pm_slot_plug);
 *   - device_del: attention button pressed; or, when the slot is powered
 *     off with its power indicator off, the functions leave at once
 *     (pm_slot_unplug_request);
 *   - a write to slot control that powers an occupied slot off with its
 *     power indicator off (and it was not so before) unplugs the functions
 *     behind the port: presence state clears, presence changed is set.
 *     QEMU looks at the value written, not at what the register keeps, so
 *     a slot without a power controller is emptied that way too;
 *   - every write to slot control completes a command (bit 4).
 * With slot_power_gates, functions behind a powered-off slot read all ones
 * and ignore writes, as QEMU's has_power does.
 */
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

/* pm_pcie_slot() - a PCIe capability at pos with a hotplug-capable slot
 * (QEMU's slot capabilities): slot control writable, powered off with the
 * indicator off; slot status bits 0-4 and 8 write-one-to-clear. */
static void pm_pcie_slot(int x, u8 pos, u8 next, bool first)
{
	struct pm_func *f = &pm.f[x];

	pm_cap(x, pos, PCI_CAP_ID_EXP, next, first, 0x3c);
	pm_put(f, pos + 2, 2, 0x0142);	/* version 2, root port, slot implemented */
	pm_put(f, pos + 0x14, 4, PM_SLTCAP_QEMU);
	pm_reg(f, pos + 0x18, 2, 0x07ff);
	pm_put(f, pos + 0x18, 2, PM_SLTCTL_PCC | PM_SLTCTL_PIC);	/* powered off, indicator off */
	for (unsigned i = 0; i < 2; i++)
		f->w1c[pos + 0x1a + i] = i ? 0x01 : 0x1f;
	f->slot_pos = pos;
}

/* pm_slot_reg() - slot register at `off` (0x14, 0x18, 0x1a) of port x. */
static u32 pm_slot_reg(int x, unsigned off, unsigned width)
{
	return pm_get(&pm.f[x], pm.f[x].slot_pos + off, width);
}

static void pm_slot_set(int x, unsigned off, unsigned width, u32 v)
{
	pm_put(&pm.f[x], pm.f[x].slot_pos + off, width, v);
}

/* pm_slot_no_power_controller() - port x's slot has no power controller:
 * the bit is not in its capabilities and slot control keeps it zero. */
static inline void pm_slot_no_power_controller(int x)
{
	struct pm_func *f = &pm.f[x];

	pm_slot_set(x, 0x14, 4, pm_slot_reg(x, 0x14, 4) & ~(u32)PM_SLTCAP_PCP);
	pm_slot_set(x, 0x18, 2, pm_slot_reg(x, 0x18, 2) & ~(u32)PM_SLTCTL_PCC);
	f->wmask[f->slot_pos + 0x19] &= (u8)~(PM_SLTCTL_PCC >> 8);
}

/* pm_slot_powered() - the functions behind port x have power. */
static bool pm_slot_powered(int x)
{
	return !(pm_slot_reg(x, 0x14, 4) & PM_SLTCAP_PCP) ||
	       !(pm_slot_reg(x, 0x18, 2) & PM_SLTCTL_PCC);
}

/* pm_slot_occupied() - the model has a present function right behind x. */
static inline bool pm_slot_occupied(int x)
{
	for (unsigned i = 0; i < pm.nr; i++)
		if (pm.f[i].parent == x && !pm.f[i].absent)
			return true;
	return false;
}

/* pm_slot_populated() - QEMU's state after reset for a slot with a device:
 * powered on, power indicator on, presence detected, no events. */
static inline void pm_slot_populated(int x)
{
	u32 ctl = pm_slot_reg(x, 0x18, 2) & ~(u32)(PM_SLTCTL_PCC | PM_SLTCTL_PIC);

	pm_slot_set(x, 0x18, 2, ctl | PM_SLTCTL_PIC_ON);
	pm_slot_set(x, 0x1a, 2, PM_SLTSTA_PDS);
}

/* pm_slot_event() - set status bits of port x's slot (QEMU's slot event). */
static void pm_slot_event(int x, u16 bits)
{
	pm_slot_set(x, 0x1a, 2, pm_slot_reg(x, 0x1a, 2) | bits);
}

/* pm_slot_unplug() - QEMU takes the functions behind port x away:
 * presence state clears, presence detect changed is set. */
static void pm_slot_unplug(int x)
{
	for (unsigned i = 0; i < pm.nr; i++)
		if (pm.f[i].parent == x)
			pm.f[i].absent = true;
	pm_slot_set(x, 0x1a, 2, (pm_slot_reg(x, 0x1a, 2) & ~(u32)PM_SLTSTA_PDS) | PM_SLTSTA_PDC);
}

/* pm_slot_plug() - device_add of function y (built absent, behind port x). */
static inline void pm_slot_plug(int x, int y)
{
	pm.f[y].absent = false;
	pm_slot_event(x, PM_SLTSTA_PDS);
	if (pm.f[y].fn == 0)
		pm_slot_event(x, PM_SLTSTA_PDC | PM_SLTSTA_ABP);
}

/* pm_slot_unplug_request() - device_del of what is behind port x. */
static inline void pm_slot_unplug_request(int x)
{
	u32 ctl = pm_slot_reg(x, 0x18, 2);

	if ((ctl & PM_SLTCTL_PIC) == PM_SLTCTL_PIC && (ctl & PM_SLTCTL_PCC)) {
		pm_slot_unplug(x);
		return;
	}
	pm_slot_event(x, PM_SLTSTA_ABP);
}

/* pm_slot_control_written() - QEMU's side effects of a write of val to
 * port x's slot control, which held old before. */
static void pm_slot_control_written(int x, u16 old, u16 val)
{
	if ((pm_slot_reg(x, 0x1a, 2) & PM_SLTSTA_PDS) && (val & PM_SLTCTL_PCC) &&
	    (val & PM_SLTCTL_PIC) == PM_SLTCTL_PIC &&
	    (!(old & PM_SLTCTL_PCC) || (old & PM_SLTCTL_PIC) != PM_SLTCTL_PIC))
		pm_slot_unplug(x);
	pm_slot_event(x, PM_SLTSTA_CC);
}

/* ---- routing ----------------------------------------------------------------- */

/* pm_bridge_child() - among the children of `parent`, the first bridge whose
 * [secondary, subordinate] holds bus, or -1. */
static int pm_bridge_child(int parent, unsigned bus)
{
	for (unsigned i = 0; i < pm.nr; i++) {
		const struct pm_func *f = &pm.f[i];

		if (f->parent != parent || f->absent || (f->cfg[0x0e] & 0x7f) != 1)
			continue;
		if (f->cfg[0x19] <= bus && bus <= f->cfg[0x1a])
			return (int)i;
	}
	return -1;
}

/* pm_find() - the function that a configuration cycle to (bus, dev, fn)
 * reaches, or NULL (the read gives all ones). */
static struct pm_func *pm_find(unsigned bus, unsigned dev, unsigned fn)
{
	int parent = -1;
	unsigned hops = 0;

	if (bus != pm.root_bus) {
		for (;;) {
			int br = pm_bridge_child(parent, bus);

			if (br < 0 || ++hops > PM_MAX_FUNCS)
				return NULL;
			parent = br;
			if (pm.f[br].cfg[0x19] == bus)
				break;
		}
	}
	if (parent >= 0 && pm.slot_power_gates && pm.f[parent].slot_pos &&
	    !pm_slot_powered(parent))
		return NULL;
	for (unsigned i = 0; i < pm.nr; i++)
		if (pm.f[i].parent == parent && pm.f[i].dev == dev && pm.f[i].fn == fn &&
		    !pm.f[i].absent)
			return &pm.f[i];
	return NULL;
}

/* pm_decode() - the function and register an ECAM pointer stands for. */
static struct pm_func *pm_decode(const volatile void *p, unsigned width, unsigned *reg)
{
	const u8 *a = (const u8 *)(uintptr_t)p;
	u64 off;

	if (!pm.ecam || a < pm.ecam || (u64)(a - pm.ecam) + width > pm.ecam_span ||
	    ((uintptr_t)a & (width - 1))) {
		pm.oob++;
		return NULL;
	}
	off = (u64)(a - pm.ecam);
	*reg = (unsigned)(off & 0xfff);
	return pm_find(ecam.start_bus + (unsigned)(off >> 20), (unsigned)(off >> 15) & 31,
		       (unsigned)(off >> 12) & 7);
}

static u32 pm_read(const volatile void *p, unsigned width)
{
	unsigned reg;
	struct pm_func *f;

	pm.reads++;
	f = pm_decode(p, width, &reg);
	if (!f)
		return width == 4 ? 0xffffffff : (1u << (8 * width)) - 1;
	return pm_get(f, reg, width);
}

static void pm_write(volatile void *p, unsigned width, u32 v)
{
	unsigned reg;
	struct pm_func *f;

	unsigned ctl_at;
	u16 old_ctl;

	pm.writes++;
	f = pm_decode(p, width, &reg);
	if (!f) {
		pm.stray_writes++;
		return;
	}
	ctl_at = f->slot_pos + 0x18u;
	old_ctl = f->slot_pos ? (u16)pm_get(f, ctl_at, 2) : 0;
	for (unsigned i = 0; i < width; i++) {
		u8 b = (u8)(v >> (8 * i));

		if (!f->impl[reg + i]) {
			pm.stray_writes++;
			pm.last_stray = (int)(reg + i);
			continue;
		}
		f->cfg[reg + i] = (u8)((f->cfg[reg + i] & ~f->wmask[reg + i]) |
				       (b & f->wmask[reg + i]));
		f->cfg[reg + i] &= (u8)~(b & f->w1c[reg + i]);
	}
	/* a write that covers all of slot control is a slot command */
	if (f->slot_pos && reg <= ctl_at && reg + width >= ctl_at + 2)
		pm_slot_control_written((int)(f - pm.f), old_ctl, (u16)(v >> (8 * (ctl_at - reg))));
}

/* (host_mmio_* and the platform functions below carry PM_NAME() names) */
u8 host_mmio_read8(const volatile u8 *reg) { return (u8)pm_read(reg, 1); }
u16 host_mmio_read16(const volatile u16 *reg) { return (u16)pm_read(reg, 2); }
u32 host_mmio_read32(const volatile u32 *reg) { return pm_read(reg, 4); }
void host_mmio_write8(volatile u8 *reg, u8 v) { pm_write(reg, 1, v); }
void host_mmio_write16(volatile u16 *reg, u16 v) { pm_write(reg, 2, v); }
void host_mmio_write32(volatile u32 *reg, u32 v) { pm_write(reg, 4, v); }

/* ---- platform ------------------------------------------------------------------ */

void *ioremap(phys_addr_t phys, u64 size, enum ioremap_cache cache)
{
	if (cache != IOREMAP_UC || size > PM_ECAM_SPAN || !pm.ecam)
		return NULL;
	pm.ecam_phys = phys;
	pm.ecam_span = size;
	return pm.ecam;
}

const struct acpi_sdt_header *acpi_find_table(const char *sig, unsigned n)
{
	if (n)
		return NULL;
	if (!memcmp(sig, "MCFG", 4))
		return (const void *)pm.mcfg;
	if (!memcmp(sig, "DSDT", 4))
		return (const void *)pm.dsdt;
	return NULL;
}

/* pm_set_dsdt() - acpi_find_table("DSDT") gives a heap table of exactly
 * the header plus len bytes of aml (NULL: no DSDT). */
static inline void pm_set_dsdt(const void *aml, size_t len)
{
	struct acpi_sdt_header h = { .signature = { 'D', 'S', 'D', 'T' }, .revision = 1 };

	free(pm.dsdt);
	pm.dsdt = NULL;
	if (!aml)
		return;
	h.length = (u32)(sizeof(h) + len);
	pm.dsdt = malloc(h.length);
	memcpy(pm.dsdt, &h, sizeof(h));
	memcpy(pm.dsdt + sizeof(h), aml, len);
}

int acpi_gpe_register(unsigned gpe, struct work *w)
{
	pm.gpe_registered++;
	if (pm.gpe_fails)
		return -1;
	pm.gpe = gpe;
	pm.gpe_work = w;
	return 0;
}

void schedule_work(struct work *w)
{
	w->pending = true;
	pm.work_scheduled++;
	pm.work = w;
}

void register_poller(struct poller *p)
{
	pm.pollers++;
	pm.poller = p;
}

/* pm_run_work() - what the main loop does: run the scheduled work once, if
 * it is pending.  Returns whether it ran. */
static bool pm_run_work(void)
{
	struct work *w = pm.work;

	if (!w || !w->pending)
		return false;
	w->pending = false;
	w->runs++;
	w->fn(w);
	return true;
}

/* pm_gpe() - GPE `gpe` fires: the events code schedules the work registered
 * for it, and the main loop runs it.  Returns whether anything ran. */
static inline bool pm_gpe(unsigned gpe)
{
	if (!pm.gpe_work || pm.gpe != gpe)
		return false;
	schedule_work(pm.gpe_work);
	return pm_run_work();
}

/* pm_poll() - the main loop calls the registered poller once (if any). */
static inline bool pm_poll(void)
{
	if (!pm.poller || !pm.poller->fn)
		return false;
	pm.poller->calls++;
	pm.poller->fn();
	return true;
}

/* ---- ACPI PCI hotplug ------------------------------------------------------------ */

/*
 * QEMU 7.2's ACPI PCI hotplug registers on q35 (hw/acpi/pcihp.c behaviour,
 * as facts): 0x18 bytes at port 0xcc0, a window onto the bus selector
 * written to BNUM.
 *   +0x00 UP: slots with a device added; reading clears it (q35);
 *   +0x04 DOWN: slots whose device device_del asked to remove; reading
 *         does not clear it, an eject of the slot does;
 *   +0x08 EJECT: write a slot mask; only its lowest set bit counts: that
 *         slot's UP and DOWN bits clear and its functions leave (here:
 *         become absent; so does what is behind them).  A selector with
 *         no bus, or a mask of 0, does nothing;
 *   +0x0c RMV: slots whose devices may be removed;
 *   +0x10 BNUM: the selector (reads back); above the modelled ones, UP,
 *         DOWN and RMV read 0 and EJECT does nothing.
 * Which bus a selector stands for is bsel_bridge[]: a bridge function's
 * secondary bus, or the root bus (-1).
 */
#define PM_PCIHP_BASE	0x0cc0
#define PM_PCIHP_LEN	0x18

/* pm_pcihp() - the register block answers; every slot removable. */
static inline void pm_pcihp(void)
{
	pm.pcihp_present = true;
	for (unsigned i = 0; i < PM_NR_BSEL; i++)
		pm.rmv[i] = 0xffffffff;
}

/* pm_pcihp_bsel() - selector sel stands for the secondary bus of bridge
 * function x (-1: the root bus). */
static inline void pm_pcihp_bsel(unsigned sel, int x)
{
	pm.bsel_bridge[sel] = x;
}

/* pm_bsel_of() - the selector of the bus function y sits on, or -1. */
static int pm_bsel_of(int y)
{
	for (unsigned i = 0; i < PM_NR_BSEL; i++)
		if (pm.bsel_bridge[i] != PM_BSEL_NONE && pm.bsel_bridge[i] == pm.f[y].parent)
			return (int)i;
	return -1;
}

/* pm_acpi_plug() - device_add of function y (built absent): it appears
 * and its slot's UP bit is set.  The test then fires GPE 1. */
static inline void pm_acpi_plug(int y)
{
	int sel = pm_bsel_of(y);

	pm.f[y].absent = false;
	if (sel >= 0)
		pm.up[sel] |= 1u << pm.f[y].dev;
}

/* pm_acpi_unplug_request() - device_del of function y: its slot's DOWN bit. */
static inline void pm_acpi_unplug_request(int y)
{
	int sel = pm_bsel_of(y);

	if (sel >= 0)
		pm.down[sel] |= 1u << pm.f[y].dev;
}

/* pm_below() - function y is x or sits below bridge x (bounded walk). */
static bool pm_below(int y, int x)
{
	for (unsigned hops = 0; y >= 0 && hops <= pm.nr; hops++, y = pm.f[y].parent)
		if (y == x)
			return true;
	return false;
}

/* pm_pcihp_eject() - a write of mask to EJECT with selector sel. */
static void pm_pcihp_eject(u32 sel, u32 mask)
{
	unsigned slot;

	pm.eject_writes++;
	if (sel >= PM_NR_BSEL || pm.bsel_bridge[sel] == PM_BSEL_NONE || !mask)
		return;
	slot = (unsigned)__builtin_ctz(mask);
	pm.down[sel] &= ~(1u << slot);
	pm.up[sel] &= ~(1u << slot);
	pm.ejected[sel] |= 1u << slot;
	for (unsigned i = 0; i < pm.nr; i++)
		if (pm.f[i].parent == pm.bsel_bridge[sel] && pm.f[i].dev == slot)
			for (unsigned j = 0; j < pm.nr; j++)
				if (pm_below((int)j, (int)i))
					pm.f[j].absent = true;
}

u32 host_port_in(u16 port, unsigned width)
{
	u32 sel = pm.bnum, v;

	if (!pm.pcihp_present || port < PM_PCIHP_BASE || port >= PM_PCIHP_BASE + PM_PCIHP_LEN)
		return 0xffffffff;
	if (port == PM_PCIHP_BASE + 0x10)
		return pm.bnum;
	if (sel >= PM_NR_BSEL)
		return 0;
	switch (port - PM_PCIHP_BASE) {
	case 0x00:
		v = pm.up[sel];
		pm.up[sel] = 0;
		return v;
	case 0x04: return pm.down[sel];
	case 0x0c: return pm.rmv[sel];
	default: return 0;
	}
}

void host_port_out(u16 port, unsigned width, u32 v)
{
	if (!pm.pcihp_present || port < PM_PCIHP_BASE || port >= PM_PCIHP_BASE + PM_PCIHP_LEN)
		return;
	if (port == PM_PCIHP_BASE + 0x10)
		pm.bnum = v;
	else if (port == PM_PCIHP_BASE + 0x08)
		pm_pcihp_eject(pm.bnum, v);
}

/* pm_init() - pci_init() with the log quiet unless verbose. */
static int pm_init(void)
{
	return pci_init();
}

#endif

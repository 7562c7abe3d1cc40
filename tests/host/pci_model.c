/*
 * pci_model.c - the model of PCI configuration space, ACPI tables, the
 * hotplug register block and PCIe slots that tests/host/pci_model.h
 * describes, and the platform functions drivers/pci calls on the host.
 */
#include "pci_model.h"
#include <arch/cpu.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdio.h>
#include <drivers/aml.h>
#include <kernel/resource.h>
#include <lib/printer.h>

struct pm_func pm_funcs[PM_MAX_FUNCS];
/* The CPU drivers/pci reads: its physical address width (the root
 * windows' check), PM_PHYS_BITS after pm_reset(). */
struct cpu_info boot_cpu;
struct pci_model pm;


/* pm_mcfg_entry() - one 16-byte MCFG allocation entry at e. */
void pm_mcfg_entry(u8 *e, u64 base, u16 seg, u8 start, u8 end)
{
	memcpy(e, &base, 8);
	memcpy(e + 8, &seg, 2);
	e[10] = start;
	e[11] = end;
}

/* pm_mcfg_simple() - an MCFG with one entry: segment 0 at base, buses start-end. */
void pm_mcfg_simple(u64 base, u8 start, u8 end)
{
	u8 t[PCI_MCFG_HEADER_LEN + PCI_MCFG_ENTRY_LEN] = { 'M', 'C', 'F', 'G' };
	u32 len = sizeof(t);

	memcpy(t + 4, &len, 4);
	pm_mcfg_entry(t + PCI_MCFG_HEADER_LEN, base, 0, start, end);
	pm_set_mcfg(t, sizeof(t));
}

/* pm_set_mcfg() - acpi_find_table("MCFG") gives a heap copy of exactly len
 * bytes of table (NULL: no MCFG); its length field is the caller's. */
void pm_set_mcfg(const void *table, size_t len)
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
void pm_reset(u8 start_bus, u8 end_bus)
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
	if (pm.aml)
		aml_destroy(pm.aml);
	memset(&pm, 0, sizeof(pm));
	pm.f = pm_funcs;
	pm.ecam = res;
	pm.mcfg = mcfg;
	pm.root_bus = start_bus;
	pm.last_stray = -1;
	for (unsigned i = 0; i < PM_NR_BSEL; i++)
		pm.bsel_bridge[i] = PM_BSEL_NONE;
	pm_mcfg_simple(PM_ECAM_BASE, start_bus, end_bus);

	/* drivers/pci (internal.h) */
	memset(&pci_ecam, 0, sizeof(pci_ecam));
	pci_ecam_virt = NULL;
	memset(pci_devices, 0, sizeof(pci_devices));
	pci_nr_devices = 0;
	pci_nr_root_buses = 0;
	memset(pci_root_windows, 0, sizeof(pci_root_windows));
	pci_nr_root_windows = 0;
	memset(&boot_cpu, 0, sizeof(boot_cpu));
	boot_cpu.phys_bits = PM_PHYS_BITS;
	memset(pci_drivers, 0, sizeof(pci_drivers));
	pci_nr_drivers = 0;
	pci_ready = false;
	pcihp_acpi_off_reason = NULL;
	pcihp_off_reason = NULL;
	pcihp_ups = pcihp_downs = pcihp_ejects = 0;
	pcihp_native_mode = false;
	pcihp_aml_mode = false;
	pcihp_aml_nr_events = 0;
	memset(&pcihp_native_poller, 0, sizeof(pcihp_native_poller));
}


/* ---- building functions ---------------------------------------------------- */

void pm_put(struct pm_func *f, unsigned off, unsigned width, u32 v)
{
	for (unsigned i = 0; i < width; i++)
		f->cfg[off + i] = (u8)(v >> (8 * i));
}

u32 pm_get(const struct pm_func *f, unsigned off, unsigned width)
{
	u32 v = 0;

	for (unsigned i = 0; i < width; i++)
		v |= (u32)f->cfg[off + i] << (8 * i);
	return v;
}

/* pm_reg() - bytes [off, off+width) are registers; wmask (repeated per
 * dword when width > 4) says which bits a write changes. */
void pm_reg(struct pm_func *f, unsigned off, unsigned width, u32 wmask)
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
int pm_add(int parent, u8 dev, u8 fn, u16 vendor, u16 device, u8 header, u8 class,
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
void pm_bar(int x, unsigned i, u64 size, u32 flags, u64 addr)
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
void pm_bar_raw(int x, unsigned off, u32 value, u32 wmask)
{
	pm_reg(&pm.f[x], off, 4, wmask);
	pm_put(&pm.f[x], off, 4, value);
}

/* pm_buses() - a bridge's primary, secondary and subordinate bus numbers. */
void pm_buses(int x, u8 pri, u8 sec, u8 sub)
{
	pm_put(&pm.f[x], 0x18, 1, pri);
	pm_put(&pm.f[x], 0x19, 1, sec);
	pm_put(&pm.f[x], 0x1a, 1, sub);
}

/* pm_mem_window() - a bridge's memory window [base, limit] (1 MiB units). */
void pm_mem_window(int x, u32 base, u32 limit)
{
	pm_put(&pm.f[x], 0x20, 2, (base >> 16) & 0xfff0);
	pm_put(&pm.f[x], 0x22, 2, (limit >> 16) & 0xfff0);
}

/* pm_pref_window() - a bridge's 64-bit prefetchable window [base, limit]. */
void pm_pref_window(int x, u64 base, u64 limit)
{
	pm_put(&pm.f[x], 0x24, 2, ((base >> 16) & 0xfff0) | 1);
	pm_put(&pm.f[x], 0x26, 2, ((limit >> 16) & 0xfff0) | 1);
	pm_put(&pm.f[x], 0x28, 4, (u32)(base >> 32));
	pm_put(&pm.f[x], 0x2c, 4, (u32)(limit >> 32));
}

/* pm_cap() - a capability (id, next) at pos; `first` makes it the list head. */
void pm_cap(int x, u8 pos, u8 id, u8 next, bool first, unsigned len)
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

/* pm_pcie_slot() - a PCIe capability at pos with a hotplug-capable slot
 * (QEMU's slot capabilities): slot control writable, powered off with the
 * indicator off; slot status bits 0-4 and 8 write-one-to-clear. */
void pm_pcie_slot(int x, u8 pos, u8 next, bool first)
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
u32 pm_slot_reg(int x, unsigned off, unsigned width)
{
	return pm_get(&pm.f[x], pm.f[x].slot_pos + off, width);
}

void pm_slot_set(int x, unsigned off, unsigned width, u32 v)
{
	pm_put(&pm.f[x], pm.f[x].slot_pos + off, width, v);
}

/* pm_slot_no_power_controller() - port x's slot has no power controller:
 * the bit is not in its capabilities and slot control keeps it zero. */
void pm_slot_no_power_controller(int x)
{
	struct pm_func *f = &pm.f[x];

	pm_slot_set(x, 0x14, 4, pm_slot_reg(x, 0x14, 4) & ~(u32)PM_SLTCAP_PCP);
	pm_slot_set(x, 0x18, 2, pm_slot_reg(x, 0x18, 2) & ~(u32)PM_SLTCTL_PCC);
	f->wmask[f->slot_pos + 0x19] &= (u8)~(PM_SLTCTL_PCC >> 8);
}

/* pm_slot_powered() - the functions behind port x have power. */
bool pm_slot_powered(int x)
{
	return !(pm_slot_reg(x, 0x14, 4) & PM_SLTCAP_PCP) ||
	       !(pm_slot_reg(x, 0x18, 2) & PM_SLTCTL_PCC);
}

/* pm_slot_occupied() - the model has a present function right behind x. */
bool pm_slot_occupied(int x)
{
	for (unsigned i = 0; i < pm.nr; i++)
		if (pm.f[i].parent == x && !pm.f[i].absent)
			return true;
	return false;
}

/* pm_slot_populated() - QEMU's state after reset for a slot with a device:
 * powered on, power indicator on, presence detected, no events. */
void pm_slot_populated(int x)
{
	u32 ctl = pm_slot_reg(x, 0x18, 2) & ~(u32)(PM_SLTCTL_PCC | PM_SLTCTL_PIC);

	pm_slot_set(x, 0x18, 2, ctl | PM_SLTCTL_PIC_ON);
	pm_slot_set(x, 0x1a, 2, PM_SLTSTA_PDS);
}

/* pm_slot_event() - set status bits of port x's slot (QEMU's slot event). */
void pm_slot_event(int x, u16 bits)
{
	pm_slot_set(x, 0x1a, 2, pm_slot_reg(x, 0x1a, 2) | bits);
}

/* pm_slot_unplug() - QEMU takes the functions behind port x away:
 * presence state clears, presence detect changed is set. */
void pm_slot_unplug(int x)
{
	for (unsigned i = 0; i < pm.nr; i++)
		if (pm.f[i].parent == x)
			pm.f[i].absent = true;
	pm_slot_set(x, 0x1a, 2, (pm_slot_reg(x, 0x1a, 2) & ~(u32)PM_SLTSTA_PDS) | PM_SLTSTA_PDC);
}

/* pm_slot_plug() - device_add of function y (built absent, behind port x). */
void pm_slot_plug(int x, int y)
{
	pm.f[y].absent = false;
	pm_slot_event(x, PM_SLTSTA_PDS);
	if (pm.f[y].fn == 0)
		pm_slot_event(x, PM_SLTSTA_PDC | PM_SLTSTA_ABP);
}

/* pm_slot_unplug_request() - device_del of what is behind port x. */
void pm_slot_unplug_request(int x)
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

		if (f->parent != parent || f->absent)
			continue;
		if (f->expander ? f->exp_bus <= bus && bus <= f->exp_end :
		    (f->cfg[0x0e] & 0x7f) == 1 && f->cfg[0x19] <= bus && bus <= f->cfg[0x1a])
			return (int)i;
	}
	return -1;
}

/* pm_expander() - function x (a host bridge, header type 0, on the root
 * bus) is an expander like QEMU's pxb-pcie: a second root bus `bus` (and
 * the buses up to `end` below it) sits behind it, reached by configuration
 * cycles for those numbers; no bridge register says so. */
void pm_expander(int x, u8 bus, u8 end)
{
	pm.f[x].expander = true;
	pm.f[x].exp_bus = bus;
	pm.f[x].exp_end = end;
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
			if ((pm.f[br].expander ? pm.f[br].exp_bus : pm.f[br].cfg[0x19]) == bus)
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
struct pm_func *pm_decode(const volatile void *p, unsigned width, unsigned *reg)
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
	return pm_find(pci_ecam.start_bus + (unsigned)(off >> 20), (unsigned)(off >> 15) & 31,
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

/* The MMIO accessors of tests/host/arch/io.h, for ECAM pointers. */
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
void pm_set_dsdt(const void *aml, size_t len)
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

/* acpi_pxm_find_node() - the SRAT's node for proximity domain pxm, as the
 * test set it in pm.pxm_node[] (pxm + 1; 0: none), else -1. */
int acpi_pxm_find_node(u32 pxm)
{
	return pxm < PM_MAX_PXM && pm.pxm_node[pxm] ? pm.pxm_node[pxm] - 1 : -1;
}

/* acpi_aml() - the namespace a test built (pm.aml), NULL by default. */
struct aml_ns *acpi_aml(void)
{
	return pm.aml;
}

void acpi_aml_set_notify(void (*fn)(struct aml_node *node, u64 value))
{
	pm.aml_notify = fn;
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
bool pm_run_work(void)
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
bool pm_gpe(unsigned gpe)
{
	if (!pm.gpe_work || pm.gpe != gpe)
		return false;
	schedule_work(pm.gpe_work);
	return pm_run_work();
}

/* pm_poll() - the main loop calls the registered poller once (if any). */
bool pm_poll(void)
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

/* pm_pcihp() - the register block answers; every slot removable. */
void pm_pcihp(void)
{
	pm.pcihp_present = true;
	for (unsigned i = 0; i < PM_NR_BSEL; i++)
		pm.rmv[i] = 0xffffffff;
}

/* pm_pcihp_bsel() - selector sel stands for the secondary bus of bridge
 * function x (-1: the root bus). */
void pm_pcihp_bsel(unsigned sel, int x)
{
	pm.bsel_bridge[sel] = x;
}

/* pm_bsel_of() - the selector of the bus function y sits on, or -1. */
int pm_bsel_of(int y)
{
	for (unsigned i = 0; i < PM_NR_BSEL; i++)
		if (pm.bsel_bridge[i] != PM_BSEL_NONE && pm.bsel_bridge[i] == pm.f[y].parent)
			return (int)i;
	return -1;
}

/* pm_acpi_plug() - device_add of function y (built absent): it appears
 * and its slot's UP bit is set.  The test then fires GPE 1. */
void pm_acpi_plug(int y)
{
	int sel = pm_bsel_of(y);

	pm.f[y].absent = false;
	if (sel >= 0)
		pm.up[sel] |= 1u << pm.f[y].dev;
}

/* pm_acpi_unplug_request() - device_del of function y: its slot's DOWN bit. */
void pm_acpi_unplug_request(int y)
{
	int sel = pm_bsel_of(y);

	if (sel >= 0)
		pm.down[sel] |= 1u << pm.f[y].dev;
}

/* pm_below() - function y is x or sits below bridge x (bounded walk). */
bool pm_below(int y, int x)
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

/* ---- the AML's platform: the model's ports and configuration space ---------- */

static u64 pm_fake_now;

static int pm_aml_io_read(void *ctx, u32 port, unsigned width, u64 *val)
{
	(void)ctx;
	*val = host_port_in((u16)port, width);
	return 0;
}

static int pm_aml_io_write(void *ctx, u32 port, unsigned width, u64 val)
{
	(void)ctx;
	host_port_out((u16)port, width, (u32)val);
	return 0;
}

static int pm_aml_pci_read(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off, unsigned width, u64 *val)
{
	u32 v;

	(void)ctx;
	if (seg || pci_config_read(bus, dev, fn, off, width, &v))
		v = width == 4 ? ~0u : (1u << (8 * width)) - 1;
	*val = v;
	return 0;
}

static int pm_aml_pci_write(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off, unsigned width, u64 val)
{
	(void)ctx;
	(void)seg; (void)bus; (void)dev; (void)fn; (void)off; (void)width; (void)val;
	return 0;	/* the LPC's PIRQ routing: nothing of the model's */
}

static u64 pm_aml_time(void *ctx)
{
	(void)ctx;
	return pm_fake_now += 1000;
}

static void pm_aml_notify(void *ctx, struct aml_node *node, u64 value)
{
	(void)ctx;
	if (pm.aml_notify)
		pm.aml_notify(node, value);
}

static const struct aml_platform pm_aml_platform = {
	.io_read = pm_aml_io_read, .io_write = pm_aml_io_write,
	.pci_read = pm_aml_pci_read, .pci_write = pm_aml_pci_write,
	.time_ns = pm_aml_time, .notify = pm_aml_notify,
};

#define PM_AML_ARENA	(4u << 20)
static void *pm_aml_arena;

/*
 * pm_load_aml() - a namespace over the model from a whole table image (an
 * earlier one destroyed), its devices initialised as acpi_aml_init() does,
 * made what acpi_aml() gives.  The table may be hostile: a load that fails
 * keeps what was loaded (as the kernel does).  NULL only when no namespace
 * could be made.
 */
struct aml_ns *pm_load_aml(const void *table, size_t len, const struct aml_limits *lim)
{
	struct aml_ns *ns;
	int level = printk_get_level();

	if (pm.aml)
		aml_destroy(pm.aml);
	pm.aml = NULL;
	if (!pm_aml_arena)
		pm_aml_arena = malloc(PM_AML_ARENA);
	ns = pm_aml_arena ? aml_create(pm_aml_arena, PM_AML_ARENA, &pm_aml_platform, lim) : NULL;
	if (!ns)
		return NULL;
	printk_set_level(LOG_ERR);
	aml_load_table(ns, table, len);
	aml_init_devices(ns, NULL);
	printk_set_level(level);
	pm.aml = ns;
	return ns;
}

/* pm_read_file() - up to max bytes of the file at path into buf; the
 * length, or 0 when it cannot be read. */
size_t pm_read_file(const char *path, void *buf, size_t max)
{
	FILE *fp = fopen(path, "rb");
	size_t len;

	if (!fp)
		return 0;
	len = fread(buf, 1, max, fp);
	fclose(fp);
	return len;
}

/* pm_init() - pci_init() with the log quiet unless verbose. */
int pm_init(void)
{
	return pci_init();
}


/* Contract in pci_model.h. */
const char *pm_iomem(void)
{
	static char out[4096];
	struct buf_printer bp;

	buf_printer_init(&bp, out, sizeof(out));
	resource_print_tree(&iomem_resource, 8, &bp.p);
	return out;
}

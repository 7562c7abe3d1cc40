/*
 * pci_model.h - drivers/pci/pci.c and hotplug.c compiled for the host,
 * against a model of PCI configuration space behind ECAM.
 *
 * Included by tests/host/test_pci.c and tests/fuzz/fuzz_pci.c, once per
 * program.  The drivers' exported names, and the platform functions they
 * call, are renamed to pcitest_* so that this file links into the one
 * host-tests binary beside test_virtio.c (which has its own pci_read8()..)
 * and test_acpi.c / test_apic.c (their own ioremap(), acpi_find_table(),
 * port and MMIO models).
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
 * optional DSDT, and QEMU's ACPI PCI hotplug registers at port 0xcc0 (per
 * bus selector: UP, DOWN, RMV; writes to EJECT recorded).
 */
#ifndef TESTS_HOST_PCI_MODEL_H
#define TESTS_HOST_PCI_MODEL_H

#define acpi_find_table		pcitest_acpi_find_table
#define acpi_gpe_register	pcitest_acpi_gpe_register
#define ioremap			pcitest_ioremap
#define host_port_in		pcitest_port_in
#define host_port_out		pcitest_port_out
#define host_mmio_read8		pcitest_mmio_read8
#define host_mmio_read16	pcitest_mmio_read16
#define host_mmio_read32	pcitest_mmio_read32
#define host_mmio_write8	pcitest_mmio_write8
#define host_mmio_write16	pcitest_mmio_write16
#define host_mmio_write32	pcitest_mmio_write32
#define schedule_work		pcitest_schedule_work
#define register_poller		pcitest_register_poller
#define pci_read8		pcitest_read8
#define pci_read16		pcitest_read16
#define pci_read32		pcitest_read32
#define pci_write8		pcitest_write8
#define pci_write16		pcitest_write16
#define pci_write32		pcitest_write32
#define pci_find_capability	pcitest_find_capability
#define pci_enable_device	pcitest_enable_device
#define pci_map_bar		pcitest_map_bar
#define pci_register_driver	pcitest_register_driver
#define pci_device_count	pcitest_device_count
#define pci_device		pcitest_device
#define pci_remove_device	pcitest_remove_device
#define pci_mcfg_parse		pcitest_mcfg_parse
#define pci_cap_find_raw	pcitest_cap_find_raw
#define pci_hotplug_init	pcitest_hotplug_init
#define pci_init		pcitest_init
#define pci_rescan		pcitest_rescan
#define pci_dump		pcitest_dump
#include "../../drivers/pci/pci.c"
#include "../../drivers/pci/hotplug.c"

#include <stdlib.h>
#include <sys/mman.h>

#define PM_MAX_FUNCS	300
#define PM_ECAM_SPAN	(256ULL << 20)
#define PM_ECAM_BASE	0xb0000000ULL	/* q35's MCFG base */

struct pm_func {
	int parent;			/* bridge function it sits behind; -1: root bus */
	bool absent;			/* not plugged in (yet): reads all ones */
	u8 dev, fn;			/* where on that bus */
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
	/* ACPI PCI hotplug registers (port 0xcc0) */
	bool pcihp_present;
	u32 bnum;			/* selected bus selector */
	u32 up[32], down[32], rmv[32];	/* per selector */
	u32 ejected[32];		/* slots ejected per selector */
	unsigned gpe_registered;	/* acpi_gpe_register() calls */
	unsigned work_scheduled;	/* schedule_work() calls */
	unsigned pollers;		/* register_poller() calls */
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
static void pm_bar_raw(int x, unsigned off, u32 value, u32 wmask)
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

/* pm_pcie_slot() - a PCIe capability at pos with a hotplug-capable slot:
 * slot control writable, slot status bits 0-4 write-one-to-clear. */
static void pm_pcie_slot(int x, u8 pos, u8 next, bool first)
{
	struct pm_func *f = &pm.f[x];

	pm_cap(x, pos, PCI_CAP_ID_EXP, next, first, 0x3c);
	pm_put(f, pos + 2, 2, 0x0142);	/* version 2, root port, slot implemented */
	pm_put(f, pos + 0x14, 4, 0x40);	/* hotplug capable */
	pm_reg(f, pos + 0x18, 2, 0x07ff);
	pm_put(f, pos + 0x18, 2, 0x0400 | 0x0300);	/* powered off, indicator off */
	for (unsigned i = 0; i < 2; i++)
		f->w1c[pos + 0x1a + i] = i ? 0x01 : 0x1f;
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

	pm.writes++;
	f = pm_decode(p, width, &reg);
	if (!f) {
		pm.stray_writes++;
		return;
	}
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
}

u8 pcitest_mmio_read8(const volatile u8 *reg) { return (u8)pm_read(reg, 1); }
u16 pcitest_mmio_read16(const volatile u16 *reg) { return (u16)pm_read(reg, 2); }
u32 pcitest_mmio_read32(const volatile u32 *reg) { return pm_read(reg, 4); }
void pcitest_mmio_write8(volatile u8 *reg, u8 v) { pm_write(reg, 1, v); }
void pcitest_mmio_write16(volatile u16 *reg, u16 v) { pm_write(reg, 2, v); }
void pcitest_mmio_write32(volatile u32 *reg, u32 v) { pm_write(reg, 4, v); }

/* ---- platform ------------------------------------------------------------------ */

void *pcitest_ioremap(phys_addr_t phys, u64 size, enum ioremap_cache cache)
{
	if (cache != IOREMAP_UC || size > PM_ECAM_SPAN || !pm.ecam)
		return NULL;
	pm.ecam_phys = phys;
	pm.ecam_span = size;
	return pm.ecam;
}

const struct acpi_sdt_header *pcitest_acpi_find_table(const char *sig, unsigned n)
{
	if (n)
		return NULL;
	if (!memcmp(sig, "MCFG", 4))
		return (const void *)pm.mcfg;
	if (!memcmp(sig, "DSDT", 4))
		return (const void *)pm.dsdt;
	return NULL;
}

int pcitest_acpi_gpe_register(unsigned gpe, struct work *w)
{
	pm.gpe_registered++;
	return 0;
}

void pcitest_schedule_work(struct work *w)
{
	w->pending = true;
	pm.work_scheduled++;
}

void pcitest_register_poller(struct poller *p)
{
	pm.pollers++;
}

u32 pcitest_port_in(u16 port, unsigned width)
{
	u32 sel = pm.bnum < 32 ? pm.bnum : 0;
	u32 v;

	if (!pm.pcihp_present || port < PCIHP_PORT_Q35 || port >= PCIHP_PORT_Q35 + 0x18)
		return 0xffffffff;
	switch (port - PCIHP_PORT_Q35) {
	case PCIHP_UP:
		v = pm.up[sel];
		pm.up[sel] = 0;
		return v;
	case PCIHP_DOWN: return pm.down[sel];
	case PCIHP_RMV: return pm.rmv[sel];
	case PCIHP_BNUM: return pm.bnum;
	default: return 0;
	}
}

void pcitest_port_out(u16 port, unsigned width, u32 v)
{
	if (!pm.pcihp_present || port < PCIHP_PORT_Q35 || port >= PCIHP_PORT_Q35 + 0x18)
		return;
	if (port == PCIHP_PORT_Q35 + PCIHP_BNUM)
		pm.bnum = v;
	else if (port == PCIHP_PORT_Q35 + PCIHP_EJECT && pm.bnum < 32) {
		pm.ejected[pm.bnum] |= v;
		pm.down[pm.bnum] &= ~v;
	}
}

/* pm_init() - pci_init() with the log quiet unless verbose. */
static int pm_init(void)
{
	return pcitest_init();
}

#endif

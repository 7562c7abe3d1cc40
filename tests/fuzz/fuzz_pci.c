/*
 * fuzz_pci.c - libFuzzer target for drivers/pci/ and shell/cmd_pci.c: PCI
 * enumeration, BAR sizing and placement, bridge numbering and windows,
 * rescan, lspci and setpci, against the configuration-space model of
 * tests/host/pci_model.h, with topologies and register contents from the
 * input.
 *
 * Input: a 4-byte header, then 12-byte records, one function each (at
 * most 48).
 *   header[0] MCFG: bits 0-1 0-2 one good entry, 3 a hostile table (bits
 *             2-3: shorter than the header, no entry, segment 1 only, end
 *             bus below start); header[1] start bus (bits 0-2), header[2]
 *             end bus (start + header[2] & 0x3f, capped at 255);
 *   header[3] bits 0-3: how many setpci lines to run (their register from
 *             the records' bytes), bit 4: a second rescan.
 *   record[0]  parent: 0 the root bus, n the (n-1)-th function if it is a
 *              bridge (else the root bus);
 *   record[1]  devfn on that bus;
 *   record[2]  bit 0 bridge, bit 7 multi-function, bit 6 hot (appears
 *              after pci_init(), before the rescan), bit 5 raw BAR0,
 *              bit 4 read-only bus numbers;
 *   record[3]  vendor: 0 -> 0x0000, 1 -> 0xffff, else 0x1af4 (device = it);
 *   record[4]  device: BAR slot (bits 0-2, 6-7 -> 5), type bits 3-5
 *              (I/O, 64-bit, prefetchable); bridge: secondary bus;
 *   record[5]  device: log2 of the size (mod 40); bridge: subordinate bus;
 *   record[6]  device: address (0 unassigned; else in the hole or, 64-bit,
 *              above 4 GiB); bridge: memory window base (0 closed), 4 MiB
 *              units from 0xc0000000;
 *   record[7]  device: a second BAR like record[4] with record[8] size;
 *              bridge: window size - 1 in MiB (bits 0-3) and a 64-bit
 *              prefetchable window at 2^35 + record[8] GiB when bit 4;
 *   record[9]  capability list head (0: none), record[10] its next, record[11]
 *              its id; a second capability at record[10] points back at head;
 *   raw BAR0: record[6..9] its value, record[10..11] the top of its mask.
 * Hotplug mode (header[3] bit 5): the record count is the byte after the
 * header (at most 48 and what the input holds), then the records, then
 * the hotplug part read by hp_run() (see "Hotplug events" below): two
 * setup bytes (DSDT shape, register block, which bridges have slots),
 * then 4-byte events; setpci is not run.  Record[2] bit 1 then gives a
 * root-bus bridge without capabilities a hotplug-capable PCIe slot.
 * Invariants, after pci_init(), after the rescan(s), and after setpci:
 * every function in the table is inside the MCFG's bus range, appears
 * once, and links to a bridge whose secondary bus is its bus; each BAR the
 * kernel gave an address lies inside its bridge's window and overlaps no
 * other assigned BAR (until setpci, which may move windows and bus
 * numbers); nothing was written to a byte that is not a
 * register or to an absent function (before setpci, which may write
 * anywhere); nothing touched outside the ECAM mapping; the configuration
 * accesses are bounded; lspci (all, and -v of each) fits a bounded buffer.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>

#define MAX_RECORDS	48
#define MAX_ACCESSES	4000000ULL

static bool verbose;
static bool hp_mode;		/* this input has a hotplug part */
static u64 stray_budget;	/* stray writes check() accepts */
static bool hot[PM_MAX_FUNCS];
static bool fw_base[PCI_MAX_DEVICES][6];	/* the address was there before the kernel */
static u8 bars_before[PM_MAX_FUNCS][24];	/* the model's BAR registers as built */

/* fail() - an invariant broke: say which (FUZZ_VERBOSE=1) and trap. */
static void fail(const char *what)
{
	if (verbose) {
		fflush(stdout);
		fprintf(stderr, "fuzz_pci: %s\n", what);
	}
	__builtin_trap();
}

static void add_bar(int x, u8 spec, u8 lg, u8 where)
{
	unsigned slot = spec & 7;
	u32 flags = 0;
	u64 size, addr = 0;

	if (slot > 5)
		slot = 5;
	if (spec & 0x08)
		flags |= 1;
	else {
		if (spec & 0x10)
			flags |= 4;
		if (spec & 0x20)
			flags |= 8;
	}
	lg %= 40;
	if (flags & 1)
		lg = lg % 9;
	else if (!(flags & 4) && lg > 31)
		lg = 31;
	if (lg < 4)
		lg = 4;
	if ((flags & 4) && slot == 5)
		slot = 4;
	size = 1ULL << lg;
	if (where) {
		if (flags & 1)
			addr = 0xc000 + ((u64)where << 8);
		else if (flags & 4 && where & 0x80)
			addr = (0x800000000ULL + ((u64)where << 30)) & ~(size - 1);
		else
			addr = (0xc0000000ULL + ((u64)where << 22)) & ~(size - 1) & 0xffffffffULL;
	}
	pm_bar(x, slot, size, flags, addr);
}

static void build(const u8 *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++, r += 12) {
		int parent = r[0] ? (int)((r[0] - 1) % (i ? i : 1)) : -1;
		u8 header = (r[2] & 1) | (r[2] & 0x80);
		u16 vendor = r[3] == 0 ? 0x0000 : r[3] == 1 ? 0xffff : 0x1af4;
		int x;

		if (parent >= 0 && (i == 0 || (pm.f[parent].cfg[0x0e] & 0x7f) != 1))
			parent = -1;
		x = pm_add(parent, (r[1] >> 3) & 31, r[1] & 7, vendor, r[3], header,
			   (r[2] & 1) ? 6 : 2, (r[2] & 1) ? 4 : 0);
		hot[x] = r[2] & 0x40;
		if (r[2] & 1) {
			pm_buses(x, 0, r[4], r[5]);
			if (r[2] & 0x10)
				pm_reg(&pm.f[x], 0x18, 3, 0);
			if (r[6])
				pm_mem_window(x, 0xc0000000u + ((u32)r[6] << 22),
					      0xc0000000u + ((u32)r[6] << 22) + (((u32)(r[7] & 15) + 1) << 20) - 1);
			if (r[7] & 0x10)
				pm_pref_window(x, (1ULL << 35) + ((u64)r[8] << 30),
					       (1ULL << 35) + ((u64)r[8] << 30) + (1ULL << 30) - 1);
		} else if (r[2] & 0x20) {
			u32 v, m;

			memcpy(&v, r + 6, 4);
			m = ((u32)r[10] << 24) | ((u32)r[11] << 16);
			pm_bar_raw(x, 0x10, v, m);
		} else {
			add_bar(x, r[4], r[5], r[6]);
			if (r[7])
				add_bar(x, r[7], r[8], 0);
		}
		if (hp_mode && (r[2] & 3) == 3 && parent < 0 && r[9] < 0x40)
			pm_pcie_slot(x, 0xa0, 0, true);
		if (r[9] >= 0x40 && !(r[2] & 0x20)) {
			pm_cap(x, r[9] & 0xfc, r[11], r[10], true, 4);
			if ((r[10] & 0xfc) >= 0x40)
				pm_cap(x, r[10] & 0xfc, r[11] ^ 1, r[9], false, 4);
		}
	}
}

/* window_of() - whether [b, b+size) is inside a window of bridge br. */
static bool in_windows(const struct pci_dev *br, u64 b, u64 size)
{
	if (b + size < b)
		return false;
	if (br->mem_window_limit > br->mem_window_base && b >= br->mem_window_base &&
	    b + size - 1 <= br->mem_window_limit)
		return true;
	return br->pref_window_limit > br->pref_window_base && b >= br->pref_window_base &&
	       b + size - 1 <= br->pref_window_limit;
}

/* came_with_address() - BAR a of hot-added d had an address in the model
 * before the kernel saw it (the kernel keeps such addresses). */
static bool came_with_address(const struct pci_dev *d, unsigned a)
{
	unsigned reg;
	const struct pm_func *f = pm_decode(d->cfg, 4, &reg);
	u32 lo, hi = 0;

	if (!d->hotplugged || !f)
		return false;
	memcpy(&lo, bars_before[f - pm.f] + 4 * a, 4);
	if (d->bars[a].is_64 && a < 5)
		memcpy(&hi, bars_before[f - pm.f] + 4 * a + 4, 4);
	return (lo & ~0xfu) || hi;
}

static void check(bool after_setpci)
{
	if (pm.oob)
		fail("access outside the ECAM mapping");
	if (!after_setpci && pm.stray_writes > stray_budget) {
		if (verbose)
			fprintf(stderr, "fuzz_pci: %llu stray writes (accepted %llu), last at %x\n",
				(unsigned long long)pm.stray_writes,
				(unsigned long long)stray_budget, pm.last_stray);
		fail("write to a register the model does not have, or to an absent function");
	}
	if (pm.reads + pm.writes > MAX_ACCESSES)
		fail("unbounded configuration accesses");
	if (!pci_ready)
		return;
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		const struct pci_dev *d = &pci_devices[i];

		if (!d->cfg)
			continue;
		if (d->bus < pci_ecam.start_bus || d->bus > pci_ecam.end_bus)
			fail("function outside the MCFG's buses");
		if (d->bridge && (!d->bridge->cfg || d->bridge->header_type != 1))
			fail("bridge link to a non-bridge");
		for (unsigned j = i + 1; j < pci_nr_devices; j++)
			if (pci_devices[j].cfg && pci_devices[j].bus == d->bus && pci_devices[j].dev == d->dev &&
			    pci_devices[j].fn == d->fn)
				fail("a function twice in the table");
		for (unsigned a = 0; a < 6; a++) {
			const struct pci_bar *b = &d->bars[a];

			if (!b->size || b->is_io || !b->base || fw_base[i][a])
				continue;
			/*
			 * The kernel placed this one.  Once setpci has run, the
			 * placement rules are off: it may have moved a bridge's
			 * windows, or its bus numbers, so that a function the
			 * table knows reappears under another address with the
			 * BAR it already had (raw register writes break any
			 * kernel's picture, Linux's too).  Memory safety,
			 * bounded work and the table's own consistency are
			 * still checked.
			 */
			if (after_setpci)
				continue;
			if (!d->bridge || !in_windows(d->bridge, b->base, b->size)) {
				if (verbose)
					fprintf(stderr, "fuzz_pci: %02x:%02x.%x BAR%u %llx+%llx, bridge %s\n",
						d->bus, d->dev, d->fn, a, (unsigned long long)b->base,
						(unsigned long long)b->size, d->bridge ? "there" : "none");
				fail("assigned BAR outside its bridge's windows");
			}
			for (unsigned j = 0; j < pci_nr_devices; j++)
				for (unsigned c = 0; c < 6; c++) {
					const struct pci_bar *o = &pci_devices[j].bars[c];

					if ((j == i && c == a) || !pci_devices[j].cfg || !o->size ||
					    o->is_io || !o->base)
						continue;
					if (b->base < o->base + o->size && o->base < b->base + b->size) {
						if (getenv("FUZZ_VERBOSE"))
							fprintf(stderr, "%02x:%02x.%x BAR%u %llx+%llx overlaps %02x:%02x.%x BAR%u %llx+%llx\n",
								d->bus, d->dev, d->fn, a, (unsigned long long)b->base, (unsigned long long)b->size,
								pci_devices[j].bus, pci_devices[j].dev, pci_devices[j].fn, c,
								(unsigned long long)o->base, (unsigned long long)o->size);
						fail("assigned BAR overlaps another BAR");
					}
				}
		}
	}
}

/* remember_bases() - for entries not looked at yet, which BARs have an
 * address the kernel did not give: at boot, every address; for a hot-added
 * function, the ones its registers held before (while the routing that
 * found it still holds). */
static bool noted[PCI_MAX_DEVICES];
static const volatile u8 *noted_cfg[PCI_MAX_DEVICES];	/* the entry noted was this function */

static void remember_bases(void)
{
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		if (!pci_devices[i].cfg || (noted[i] && noted_cfg[i] == pci_devices[i].cfg))
			continue;
		noted[i] = true;
		noted_cfg[i] = pci_devices[i].cfg;
		for (unsigned a = 0; a < 6; a++)
			fw_base[i][a] = pci_devices[i].hotplugged ? came_with_address(&pci_devices[i], a) :
				pci_devices[i].bars[a].base != 0;
	}
}

static char out[16384];

static void views(void)
{
	struct buf_printer bp;

	buf_printer_init(&bp, out, sizeof(out));
	pci_dump(&bp.p);
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		char a[16], *argv[3] = { "lspci", "-v", a };

		if (!pci_devices[i].cfg)
			continue;
		ksnprintf(a, sizeof(a), "%02x:%02x.%x", pci_devices[i].bus, pci_devices[i].dev,
			  pci_devices[i].fn);
		buf_printer_init(&bp, out, sizeof(out));
		shell_find("lspci")->fn(&bp.p, 3, argv);
	}
}

/* ---- Hotplug events ------------------------------------------------------------ */

/*
 * The hotplug part of an input (hp_run()):
 *   setup[0] bits 0-1 the DSDT: 0 BSELs for the model's selectors, 1 none
 *            (the kernel guesses QEMU's order), 2 no BSEL (native PCIe
 *            hotplug, slot power gates configuration access), 3 the first
 *            shape with bytes patched (hostile: pairs of position, value
 *            from the event bytes) and cut; bit 2 the register block at
 *            0xcc0 is missing; bit 3 the root bus has a selector too;
 *            bit 4 selectors newest bridge first (QEMU's order), else in
 *            slot order from setup[1] & 7; bit 5 GPE 1 cannot be had;
 *   setup[1] the first selector number; shape 3: bits 3-7 how many patch
 *            pairs follow (taken from the front of the events);
 *   then at most MAX_EVENTS events of 4 bytes e[0..3], (e[0] & 0x7f) % 12:
 *     0 ACPI device_add behind root bridge e[1] (or the root bus), slot
 *       e[2] & 31, what by e[3] (new_functions()); e[0] bit 7 then GPE 1;
 *     1 ACPI device_del of present function e[1]: DOWN; e[2] bit 0 clears
 *       the slot's RMV bit, bit 1 sets it; e[0] bit 7 then GPE 1;
 *     2 GPE 1;  3 a raw UP (e[3] bit 0) or DOWN bit: selector e[1], slot
 *       e[2] & 31 (what a confused register block might say);
 *     4 native device_add into the slot of port e[1]; e[0] bit 7 then poll
 *       (4-8 only in shape 2: QEMU uses the slots when ACPI hotplug is off);
 *     5 native device_del (attention button, or at once when the slot is
 *       off);  6 power fault;  7 surprise removal;  8 presence detect
 *       changed alone;  9 poll;  10 rescan;  11 pending work, `pcihp`, lspci.
 * After each event (hp_check()), beside check(): no entry of the table
 * reaches a function that is absent, or another function than the one it
 * was made for, or links to a bridge other than the one it sits behind,
 * and every bridge's memory window is what its registers hold, a window
 * opened for a plugged bridge inside the one above and apart from the
 * others (all unless a removal the kernel has not been told of yet is
 * pending, or compare_maps() says no: a hostile DSDT makes the kernel
 * eject the wrong slot, a hostile boot topology hides a bridge); the fake
 * driver's probe and remove come in pairs, remove exactly once for every
 * bound function that leaves; the only writes to absent functions are the
 * one decoding-off write of each function released after it was already
 * gone (any, when the maps differ).
 */
#define MAX_EVENTS	64

static int slot_ports[PM_MAX_FUNCS];	/* model indices of ports with slots */
static unsigned nr_slot_ports;
static bool maps_agree;			/* the kernel's bsel map is the model's */
static bool unseen_removal;		/* functions left that no poll has seen go */
static unsigned boot_funcs;		/* model functions before the first event */
static bool aliased;			/* two model functions share an address */
static bool bound[PCI_MAX_DEVICES];	/* the fake driver holds this entry */
static int entry_fn[PCI_MAX_DEVICES];	/* model function the entry was made for */
static const volatile u8 *entry_cfg[PCI_MAX_DEVICES];	/* and its cfg then */

/* fake_probe() - binds every 1af4:1058; an entry bound twice is a bug. */
static int fake_probe(struct pci_dev *d)
{
	unsigned i = (unsigned)(d - pci_devices);

	if (i >= PCI_MAX_DEVICES)
		fail("probe of something not in the table");
	if (bound[i])
		fail("probe of a function the driver already holds");
	bound[i] = true;
	return 0;
}

/* fake_remove() - remove of a function the driver does not hold is a bug. */
static void fake_remove(struct pci_dev *d)
{
	unsigned i = (unsigned)(d - pci_devices);

	if (i >= PCI_MAX_DEVICES || !bound[i])
		fail("driver remove of a function it does not hold (twice?)");
	bound[i] = false;
}

static const struct pci_driver fake_drv = {
	.name = "fuzz-vmem", .vendor = 0x1af4, .device = 0x1058,
	.probe = fake_probe, .remove = fake_remove,
};

/* model_index() - the model function cfg reaches now, or -1. */
static int model_index(const volatile u8 *cfg)
{
	unsigned reg;
	const struct pm_func *f = pm_decode(cfg, 2, &reg);

	return f ? (int)(f - pm.f) : -1;
}

/* root_bridge() - the k-th (mod their number) bridge on the root bus in
 * the model, or -1 when there is none or k lands past them (the root bus). */
static int root_bridge(unsigned k)
{
	unsigned n = 0, i;

	for (i = 0; i < pm.nr; i++)
		n += pm.f[i].parent < 0 && (pm.f[i].cfg[0x0e] & 0x7f) == 1;
	k %= n + 1;
	for (i = 0; i < pm.nr; i++)
		if (pm.f[i].parent < 0 && (pm.f[i].cfg[0x0e] & 0x7f) == 1 && k-- == 0)
			return (int)i;
	return -1;
}

/* slot_taken() - a present function sits at (parent, dev). */
static bool slot_taken(int parent, unsigned dev)
{
	for (unsigned i = 0; i < pm.nr; i++)
		if (pm.f[i].parent == parent && pm.f[i].dev == dev && !pm.f[i].absent)
			return true;
	return false;
}

/* new_leaf() - an absent 1af4:1058 at (parent, dev, fn): BAR0 from spec
 * (log2 size 4 + spec bits 3-6, 64-bit prefetchable when bit 2; bit 7:
 * with an address left in it from an earlier life) and, bit 0, a 4 KiB
 * BAR2. */
static int new_leaf(int parent, u8 dev, u8 fn, bool multi, u8 spec)
{
	int x = pm_add(parent, dev, fn, 0x1af4, 0x1058, multi ? 0x80 : 0, 0x05, 0x00);

	add_bar(x, (spec & 4) ? 0x30 : 0, (u8)(4 + ((spec >> 3) & 15)), (spec & 0x80) ? spec : 0);
	if (spec & 1)
		add_bar(x, 2, 12, 0);
	pm.f[x].absent = true;
	memcpy(bars_before[x], pm.f[x].cfg + 0x10, 24);
	return x;
}

/*
 * new_functions() - build (absent) what a device_add at (parent, dev)
 * plugs, by kind bits 0-1: 0 one function; 1 multi-function: function 0
 * and function 1 + (kind >> 5 & 3); 2 a bridge (1b36:000e, unnumbered)
 * with a function behind it; 3 that bridge with a multi-function device
 * behind.  The others first, function 0 last in out[] (QEMU signals
 * function 0 last).  Returns how many, 0 when the model is full.
 */
static unsigned new_functions(int parent, u8 dev, u8 kind, int *out)
{
	unsigned n = 0;

	if (pm.nr + 3 > PM_MAX_FUNCS)
		return 0;
	if ((kind & 3) == 1) {
		out[n++] = new_leaf(parent, dev, (u8)(1 + ((kind >> 5) & 3)), true, kind);
		out[n++] = new_leaf(parent, dev, 0, true, kind);
	} else if ((kind & 3) == 0) {
		out[n++] = new_leaf(parent, dev, 0, false, kind);
	} else {
		int br = pm_add(parent, dev, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);

		pm.f[br].absent = true;
		memcpy(bars_before[br], pm.f[br].cfg + 0x10, 24);
		out[n++] = new_leaf(br, 0, 0, (kind & 3) == 3, kind);
		if ((kind & 3) == 3)
			out[n++] = new_leaf(br, 0, 3, true, kind);
		out[n++] = br;
	}
	return n;
}

/* present_at_root() - the function e-th (from e on, wrapping) that is
 * present and sits on the root bus or right behind a root bridge, or -1. */
static int present_at_root(unsigned e)
{
	for (unsigned k = 0; k < pm.nr; k++) {
		unsigned i = (e + k) % pm.nr;
		int p = pm.f[i].parent;

		if (!pm.f[i].absent && (p < 0 || pm.f[p].parent < 0))
			return (int)i;
	}
	return -1;
}

/* aml_put_name() - NameOp, a 4-character name, an integer (DWordPrefix or
 * Zero, One) into a[*n] (room checked by the caller: 10 bytes). */
static void aml_put_name(u8 *a, size_t *n, const char *name, u32 v)
{
	a[(*n)++] = 0x08;
	memcpy(a + *n, name, 4);
	*n += 4;
	if (v <= 1) {
		a[(*n)++] = (u8)v;
		return;
	}
	a[(*n)++] = 0x0c;
	memcpy(a + *n, &v, 4);
	*n += 4;
}

/*
 * hp_setup() - selectors, DSDT and slots before the boot: the model's
 * bsel map over the root bridges (and root bus), the DSDT of the shape,
 * the register block, slot power as QEMU leaves it.  Returns the events
 * (after any patch bytes) and their count in *n.
 */
static const u8 *hp_setup(const u8 *p, size_t len, unsigned *n)
{
	u8 aml[1024];
	size_t an = 0;
	unsigned shape, sel, nb = 0, i, patches = 0;
	int order[PM_MAX_FUNCS];

	*n = 0;
	if (len < 2)
		return p;
	shape = p[0] & 3;
	if (!(p[0] & 4))
		pm_pcihp();
	pm.gpe_fails = p[0] & 0x20;
	for (i = 0; i < pm.nr; i++)
		if (pm.f[i].parent < 0 && (pm.f[i].cfg[0x0e] & 0x7f) == 1)
			order[nb++] = (int)i;
	sel = p[1] & 7;
	memcpy(aml, "\x08_ADR\x00", 6);	/* PCI0's _ADR: the root bus */
	an = 6;
	if (p[0] & 8) {
		pm_pcihp_bsel(sel, -1);
		aml_put_name(aml, &an, "BSEL", sel);
		sel++;
	}
	for (i = 0; i < nb && sel < PM_NR_BSEL && an + 20 < sizeof(aml); i++, sel++) {
		int x = order[(p[0] & 0x10) ? nb - 1 - i : i];

		pm_pcihp_bsel(sel, x);
		aml_put_name(aml, &an, "_ADR", ((u32)pm.f[x].dev << 16) | pm.f[x].fn);
		aml_put_name(aml, &an, "BSEL", sel);
	}
	if (shape == 2) {
		an = 0;
		for (i = 0; i < nb && an + 10 < sizeof(aml); i++)
			aml_put_name(aml, &an, "_ADR", ((u32)pm.f[order[i]].dev << 16) | pm.f[order[i]].fn);
		pm.slot_power_gates = true;
	}
	p += 2;
	len -= 2;
	if (shape == 3) {
		patches = p[-1] >> 3;
		for (i = 0; i < patches && 2 * i + 1 < len; i++)
			aml[p[2 * i] % (an + 1) < an ? p[2 * i] % (an + 1) : 0] = p[2 * i + 1];
		if (2 * patches < len) {
			p += 2 * patches;
			len -= 2 * patches;
		} else {
			len = 0;
		}
		an = an - (patches % (an + 1)) / 2;
	}
	if (shape != 1)
		pm_set_dsdt(aml, an);
	for (i = 0; i < pm.nr; i++)
		if (pm.f[i].slot_pos) {
			slot_ports[nr_slot_ports++] = (int)i;
			if (pm_slot_occupied((int)i))
				pm_slot_populated((int)i);
		}
	*n = (unsigned)(len / 4);
	if (*n > MAX_EVENTS)
		*n = MAX_EVENTS;
	return p;
}

/*
 * compare_maps() - after the boot: does the kernel's selector map name the
 * bridges the model's does (same selectors, same root-bus addresses, one
 * model function per address), does every bridge of the model have a
 * vendor id (one with 0 or ffff is invisible to any kernel, yet the model
 * routes through it) and bus numbers that can be written, and does every
 * entry of the table reach the function it was made for?  Only then must
 * its ejects hit what it released, and its entries stay reachable: a
 * hostile boot topology (two bridges claiming one bus for good) is
 * fuzz_pci's boot part's business.
 */
static bool compare_maps(void)
{
	if (pm.root_bus != 0)
		return false;
	for (unsigned s = 0; s < PM_NR_BSEL; s++) {
		int x = pm.bsel_bridge[s];
		bool k = s < pcihp_nr_bsel && pcihp_bsels[s].known;

		if (x == PM_BSEL_NONE || !k) {
			if ((x == PM_BSEL_NONE) != !k)
				return false;
			continue;
		}
		if (x < 0 ? (pcihp_bsels[s].dev || pcihp_bsels[s].fn) :
		    (pcihp_bsels[s].dev != pm.f[x].dev || pcihp_bsels[s].fn != pm.f[x].fn ||
		     (!pcihp_bsels[s].dev && !pcihp_bsels[s].fn)))
			return false;
	}
	for (unsigned i = 0; i < pm.nr; i++) {
		u16 vendor = (u16)pm_get(&pm.f[i], 0, 2);

		/* a bridge that routes cycles while its vendor id says "nobody",
		 * or whose bus numbers nobody can change */
		if ((pm.f[i].cfg[0x0e] & 0x7f) == 1 &&
		    (vendor == 0 || vendor == 0xffff || !pm.f[i].wmask[0x19]))
			return false;
	}
	for (unsigned i = 0; i < pm.nr; i++)
		for (unsigned j = i + 1; j < pm.nr; j++)
			if (pm.f[i].parent < 0 && pm.f[j].parent < 0 && pm.f[i].dev == pm.f[j].dev &&
			    pm.f[i].fn == pm.f[j].fn)
				return false;
	return true;
}

/* same_parent() - entry d's bridge link names the model function that d's
 * model function sits behind (or both are on the root bus). */
static bool same_parent(const struct pci_dev *d)
{
	int x = model_index(d->cfg);

	if (x < 0)
		return false;
	if (!d->bridge || !d->bridge->cfg)
		return pm.f[x].parent < 0 && !d->bridge;
	return model_index(d->bridge->cfg) == pm.f[x].parent;
}

/* below() - bridge a is b or sits below it in the table (bounded walk). */
static bool below(const struct pci_dev *a, const struct pci_dev *b)
{
	for (unsigned hops = 0; a && hops <= PCI_MAX_DEVICES; hops++, a = a->bridge)
		if (a == b)
			return true;
	return false;
}

/*
 * check_windows() - for every bridge in the table: the memory window the
 * kernel believes in is the one its registers hold in the model; and a
 * window the kernel opened for a bridge an event plugged (those come
 * closed; a hot record of the boot part may bring firmware windows) lies
 * inside the window of the bridge above (so what it holds is routed at
 * all) and overlaps no open window of a bridge that is neither above nor
 * below it.
 */
static void check_windows(void)
{
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		const struct pci_dev *d = &pci_devices[i];
		int x = d->cfg ? model_index(d->cfg) : -1;
		u64 base, limit;

		if (x < 0 || d->header_type != 1)
			continue;
		base = (u64)(pm_get(&pm.f[x], 0x20, 2) & 0xfff0) << 16;
		limit = ((u64)(pm_get(&pm.f[x], 0x22, 2) & 0xfff0) << 16) | 0xfffff;
		if (base != d->mem_window_base || limit != d->mem_window_limit) {
			if (verbose)
				fprintf(stderr, "fuzz_pci: %02x:%02x.%x window %llx-%llx, registers %llx-%llx\n",
					d->bus, d->dev, d->fn, (unsigned long long)d->mem_window_base,
					(unsigned long long)d->mem_window_limit, (unsigned long long)base,
					(unsigned long long)limit);
			fail("a bridge's memory window is not what its registers hold");
		}
		if ((unsigned)x < boot_funcs || limit <= base)
			continue;		/* not a window the kernel opened */
		if (d->bridge && d->bridge->mem_window_limit > d->bridge->mem_window_base &&
		    (base < d->bridge->mem_window_base || limit > d->bridge->mem_window_limit))
			fail("a hot-added bridge's window is outside the window of the bridge above");
		for (unsigned j = 0; j < pci_nr_devices; j++) {
			const struct pci_dev *o = &pci_devices[j];

			if (j == i || !o->cfg || o->header_type != 1 || below(d, o) || below(o, d) ||
			    o->mem_window_limit <= o->mem_window_base)
				continue;
			if (base <= o->mem_window_limit && o->mem_window_base <= limit) {
				if (verbose)
					fprintf(stderr, "fuzz_pci: %02x:%02x.%x window %llx-%llx meets %02x:%02x.%x's %llx-%llx\n",
						d->bus, d->dev, d->fn, (unsigned long long)base,
						(unsigned long long)limit, o->bus, o->dev, o->fn,
						(unsigned long long)o->mem_window_base,
						(unsigned long long)o->mem_window_limit);
				fail("a hot-added bridge's window overlaps another bridge's");
			}
		}
	}
}

/*
 * hp_note() - before an event: which model function each entry reaches
 * now (-1: none), for the stray-write budget afterwards.
 */
static void hp_note(int *before)
{
	for (unsigned i = 0; i < PCI_MAX_DEVICES; i++)
		before[i] = i < pci_nr_devices && pci_devices[i].cfg ? model_index(pci_devices[i].cfg) : -2;
}

/*
 * hp_check() - the invariants after one event (see above); before[] is
 * hp_note()'s picture from before it.  Entries that left while their
 * function was already gone each earn one accepted stray write.
 */
static void hp_check(const int *before)
{
	for (unsigned i = 0; i < PCI_MAX_DEVICES; i++) {
		const struct pci_dev *d = i < pci_nr_devices ? &pci_devices[i] : NULL;
		/* an entry freed and reused for the same address within one
		 * event: its old function has left the model (when the maps
		 * disagree, an entry may instead be stale: left in the table
		 * while QEMU ejected its function and plugged another) */
		int now = d && d->cfg ? model_index(d->cfg) : -1;
		bool reused = maps_agree && now >= 0 && entry_fn[i] >= 0 && pm.f[entry_fn[i]].absent &&
			      now != entry_fn[i];
		bool gone = !d || !d->cfg || d->cfg != entry_cfg[i] || reused;

		if (before[i] == -1 && gone && entry_cfg[i])
			stray_budget++;
		if (!maps_agree)
			stray_budget = ~0ULL >> 1;
		if (gone) {
			noted[i] = false;
			entry_cfg[i] = d ? d->cfg : NULL;
			entry_fn[i] = entry_cfg[i] ? model_index(entry_cfg[i]) : -1;
		}
		if (bound[i] != (d && d->cfg && d->driver == &fake_drv)) {
			if (verbose)
				fprintf(stderr, "fuzz_pci: entry %u (%02x:%02x.%x) bound %d driver %p\n",
					i, d ? d->bus : 0, d ? d->dev : 0, d ? d->fn : 0, bound[i],
					d ? (const void *)d->driver : NULL);
			fail("a function left the table without its driver's remove");
		}
		/* two functions at one address (see check(aliased) below):
		 * which one answers is the model's choice, not the kernel's */
		if (!d || !d->cfg || unseen_removal || !maps_agree || aliased)
			continue;
		if (model_index(d->cfg) < 0 || pm_get(&pm.f[model_index(d->cfg)], 0, 2) == 0xffff) {
			if (verbose)
				fprintf(stderr, "fuzz_pci: %02x:%02x.%x in the table, absent in the model\n",
					d->bus, d->dev, d->fn);
			fail("a function in the table does not answer");
		}
		if (model_index(d->cfg) != entry_fn[i]) {
			if (verbose)
				fprintf(stderr, "fuzz_pci: %02x:%02x.%x was function %d, now reaches %d\n",
					d->bus, d->dev, d->fn, entry_fn[i], model_index(d->cfg));
			fail("a table entry now reaches another function");
		}
		if (!same_parent(d)) {
			if (verbose)
				fprintf(stderr, "fuzz_pci: %02x:%02x.%x (function %d) links to a bridge that is not its parent %d\n",
					d->bus, d->dev, d->fn, entry_fn[i], pm.f[entry_fn[i]].parent);
			fail("a table entry's bridge link is not the bridge it sits behind");
		}
	}
	if (maps_agree && !unseen_removal && !aliased)
		check_windows();
	remember_bases();
	/*
	 * Two functions at one address (a hot record of the boot part
	 * appearing in front of the one the kernel found): the kernel's
	 * accesses now reach another function than the one it sized, so
	 * its picture of windows and BARs, and where its writes land, are
	 * the model's doing, as after setpci; memory safety, bounded work
	 * and the table's consistency still count.
	 */
	check(aliased);
}

/* hp_views() - what a user at the shell would look at. */
static void hp_views(void)
{
	char *argv[] = { "pcihp", NULL };
	struct buf_printer bp;

	buf_printer_init(&bp, out, sizeof(out));
	shell_find("pcihp")->fn(&bp.p, 1, argv);
	views();
}

/* hp_event() - one event e[0..3] (see above). */
static void hp_event(const u8 *e)
{
	int fns[4], x, port = -1;
	unsigned n, i, type = (e[0] & 0x7fu) % 12;

	if (verbose)
		fprintf(stderr, "fuzz_pci: event %u (%02x %02x %02x %02x)\n", type, e[0], e[1], e[2], e[3]);
	/* QEMU signals through the slots only when ACPI PCI hotplug is off */
	if (pm.slot_power_gates && nr_slot_ports)
		port = slot_ports[e[1] % nr_slot_ports];
	switch (type) {
	case 0:
		x = root_bridge(e[1]);
		if (slot_taken(x, e[2] & 31))
			break;
		n = new_functions(x, e[2] & 31, e[3], fns);
		for (i = 0; i < n; i++)
			if (pm.f[fns[i]].parent == x)
				pm_acpi_plug(fns[i]);
			else
				pm.f[fns[i]].absent = false;
		if (e[0] & 0x80)
			pm_gpe(1);
		break;
	case 1:
		x = present_at_root(e[1]);
		if (x >= 0) {
			int sel = pm_bsel_of(x);

			pm_acpi_unplug_request(x);
			if (sel >= 0 && (e[2] & 1))
				pm.rmv[sel] &= ~(1u << pm.f[x].dev);
			if (sel >= 0 && (e[2] & 2))
				pm.rmv[sel] |= 1u << pm.f[x].dev;
		}
		if (e[0] & 0x80)
			pm_gpe(1);
		break;
	case 2:
		pm_gpe(1);
		break;
	case 3:
		if (e[3] & 1)
			pm.up[e[1]] |= 1u << (e[2] & 31);
		else
			pm.down[e[1]] |= 1u << (e[2] & 31);
		break;
	case 4:
		if (port < 0 || pm_slot_occupied(port))
			break;
		n = new_functions(port, 0, e[3], fns);
		for (i = 0; i < n; i++)
			if (pm.f[fns[i]].parent == port)
				pm_slot_plug(port, fns[i]);
			else
				pm.f[fns[i]].absent = false;
		if ((e[0] & 0x80) && pm_poll())
			unseen_removal = false;
		break;
	case 5:
		if (port >= 0) {
			pm_slot_unplug_request(port);
			unseen_removal = true;
		}
		break;
	case 6:
		if (port >= 0)
			pm_slot_event(port, PM_SLTSTA_PFD);
		break;
	case 7:
		if (port >= 0 && pm_slot_occupied(port)) {
			pm_slot_unplug(port);
			unseen_removal = true;
		}
		break;
	case 8:
		if (port >= 0)
			pm_slot_event(port, PM_SLTSTA_PDC);
		break;
	case 9:
		if (pm_poll())
			unseen_removal = false;
		break;
	case 10:
		pci_rescan();
		break;
	default:
		pm_run_work();
		hp_views();
		break;
	}
}

/*
 * hp_boot() - after the boot part of a hotplug-mode input: the fake
 * driver registered before anything is plugged, the table's first
 * picture, and whether the model is one whose entries must stay
 * reachable (compare_maps()).
 */
static void hp_boot(void)
{
	memset(bound, 0, sizeof(bound));
	memset(entry_cfg, 0, sizeof(entry_cfg));
	pci_register_driver(&fake_drv);
	static bool reached[PM_MAX_FUNCS];

	memset(reached, 0, sizeof(reached));
	maps_agree = compare_maps();
	boot_funcs = pm.nr;
	aliased = false;
	for (unsigned i = 0; i < pm.nr; i++)
		for (unsigned j = i + 1; j < pm.nr; j++)
			aliased |= pm.f[i].parent == pm.f[j].parent && pm.f[i].dev == pm.f[j].dev &&
				   pm.f[i].fn == pm.f[j].fn;
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		entry_cfg[i] = pci_devices[i].cfg;
		entry_fn[i] = pci_devices[i].cfg ? model_index(pci_devices[i].cfg) : -1;
		if (entry_cfg[i] && (entry_fn[i] < 0 || !same_parent(&pci_devices[i])))
			maps_agree = false;
		if (entry_fn[i] >= 0)
			reached[entry_fn[i]] = true;
	}
	/* a bridge the walk never saw (function 7 without a function 0, say)
	 * that forwards buses steals them from the ones the kernel numbers */
	for (unsigned i = 0; i < pm.nr; i++)
		if (!pm.f[i].absent && (pm.f[i].cfg[0x0e] & 0x7f) == 1 && pm.f[i].cfg[0x1a] &&
		    !reached[i])
			maps_agree = false;
	/* two bridges on one bus whose firmware numbers overlap: the walk
	 * enters the first in its order and reports the second (test_pci's
	 * pci_bridge_bus_numbers_hostile); which of them a cycle for those
	 * buses reaches is the model's choice, so functions plugged there
	 * later may sit behind either */
	for (unsigned i = 0; i < pm.nr; i++)
		for (unsigned j = i + 1; j < pm.nr; j++) {
			const u8 *a = pm.f[i].cfg, *b = pm.f[j].cfg;

			if (!pm.f[i].absent && !pm.f[j].absent && pm.f[i].parent == pm.f[j].parent &&
			    (a[0x0e] & 0x7f) == 1 && (b[0x0e] & 0x7f) == 1 && a[0x1a] && b[0x1a] &&
			    a[0x19] <= b[0x1a] && b[0x19] <= a[0x1a])
				maps_agree = false;
		}
}

/*
 * hp_run() - the events of a hotplug-mode input, each followed by
 * hp_check(); the work pending from pci_hotplug_init() runs first, as the
 * main loop would.
 */
static void hp_run(const u8 *p, unsigned n)
{
	int before[PCI_MAX_DEVICES];

	hp_note(before);
	pm_run_work();
	hp_check(before);
	for (unsigned k = 0; k < n; k++, p += 4) {
		hp_note(before);
		hp_event(p);
		hp_check(before);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	verbose = getenv("FUZZ_VERBOSE") != NULL;
	host_log_verbose = verbose;
	printk_set_level(verbose ? LOG_DEBUG : LOG_CRIT);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned n, start, end, kind, nev = 0;
	const u8 *rec = data + 4, *ev = NULL;

	if (size < 4)
		return 0;
	hp_mode = data[3] & 0x20;
	if (hp_mode) {
		if (size < 5)
			return 0;
		n = data[4] % (MAX_RECORDS + 1);
		if (n > (size - 5) / 12)
			n = (unsigned)((size - 5) / 12);
		rec = data + 5;
	} else {
		n = (unsigned)((size - 4) / 12);
		if (n > MAX_RECORDS)
			n = MAX_RECORDS;
	}
	start = data[1] & 7;
	end = start + (data[2] & 0x3f);
	if (end > 255)
		end = 255;
	pm_reset((u8)start, (u8)end);
	memset(hot, 0, sizeof(hot));
	memset(fw_base, 0, sizeof(fw_base));
	memset(noted, 0, sizeof(noted));
	stray_budget = 0;
	nr_slot_ports = 0;
	unseen_removal = false;
	kind = data[0] & 3;
	if (kind == 3) {
		u8 t[60] = { 'M', 'C', 'F', 'G' };
		u32 len = 60;

		switch ((data[0] >> 2) & 3) {
		case 0: len = 40; break;
		case 1: len = 44; break;
		case 2: pm_mcfg_entry(t + 44, PM_ECAM_BASE, 1, 0, 255); break;
		case 3: pm_mcfg_entry(t + 44, PM_ECAM_BASE, 0, (u8)end, (u8)start - 1); break;
		}
		memcpy(t + 4, &len, 4);
		pm_set_mcfg(t, len);
	}
	build(rec, n);
	for (unsigned i = 0; i < pm.nr; i++) {
		pm.f[i].absent = hot[i];
		memcpy(bars_before[i], pm.f[i].cfg + 0x10, 24);
	}
	if (hp_mode)
		ev = hp_setup(rec + 12 * n, size - 5 - 12 * n, &nev);
	pci_init();
	remember_bases();
	check(false);
	for (unsigned i = 0; i < pm.nr; i++)
		pm.f[i].absent = false;
	pci_rescan();
	remember_bases();
	check(false);
	views();
	check(false);
	if (data[3] & 0x10) {
		pci_rescan();
		remember_bases();
		check(false);
	}
	if (hp_mode) {
		hp_boot();
		hp_run(ev, nev);
		return 0;
	}
	for (unsigned k = 0; k < (data[3] & 15u) && k < n; k++) {
		const u8 *r = data + 4 + 12 * k;
		char line[64], *argv[4] = { "setpci", line, line + 16, NULL };
		const struct pci_dev *d = pci_device(r[1] % (pci_nr_devices ? pci_nr_devices : 1));
		struct buf_printer bp;

		if (!d)
			continue;
		ksnprintf(line, 16, "%02x:%02x.%x", d->bus, d->dev, d->fn);
		ksnprintf(line + 16, 48, "%x.%c=%x", r[4] % 0x40, "bwl"[r[5] % 3],
			  r[6] | (u32)r[7] << 8 | (u32)r[8] << 16);
		buf_printer_init(&bp, out, sizeof(out));
		shell_find("setpci")->fn(&bp.p, 3, argv);
	}
	if (data[3] & 15) {
		pci_rescan();
		remember_bases();
		views();
		check(true);
	}
	return 0;
}

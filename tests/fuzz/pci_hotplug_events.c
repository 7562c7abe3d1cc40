/*
 * pci_hotplug_events.c - the hotplug part of a fuzz_pci input
 * (tests/fuzz/fuzz_pci.c, header[3] bit 5): the DSDT, selectors and slots
 * it sets up, the ACPI and native hotplug events it sends, and the checks
 * after each event.  Its format and its invariants are in the comment
 * below; pci_fuzz.h says what it shares with fuzz_pci.c.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include "pci_fuzz.h"

/* ---- Hotplug events ------------------------------------------------------------ */

/*
 * The hotplug part of an input (hp_run()):
 *   setup[0] bits 0-1 the firmware: 0 QEMU's DSDT of two root ports and a
 *            PCI bridge (tests/host/fixtures/acpi/bridges: ACPI PCI
 *            hotplug through the AML), 1 that DSDT cut at setup[1] / 256
 *            of its length, 2 no namespace (native PCIe hotplug, slot
 *            power gates configuration access), 3 that DSDT with bytes
 *            patched (hostile: setup[1] bits 3-7 triples of position lo,
 *            position hi, value, taken from the front of the events);
 *            bit 2 the register block at 0xcc0 is missing; bit 5 GPE 1
 *            cannot be had.  The model's bus selectors are the DSDT's:
 *            the root-bus bridge at 00:01.0 is 2, the one at 00:02.0 is
 *            0, the bridge at device 0 behind that is 1;
 *   then at most MAX_EVENTS events of 4 bytes e[0..3], (e[0] & 0x7f) % 12:
 *     0 ACPI device_add behind root bridge e[1] (or the root bus; e[1]
 *       bit 7: behind selector 1's bridge), slot e[2] & 31, what by e[3]
 *       (new_functions()); e[0] bit 7 then GPE 1;
 *     1 ACPI device_del of present function e[1]: DOWN; e[0] bit 7 then
 *       GPE 1;
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
unsigned nr_slot_ports;
static bool maps_agree;			/* the DSDT's slots are the model's */
static unsigned shape;			/* setup[0] bits 0-1 */
static u8 fixture[1 << 16];		/* QEMU's bridges DSDT */
static size_t fixture_len;
static u8 image[1 << 16];		/* what this input loads */
static size_t image_len;
bool unseen_removal;		/* functions left that no poll has seen go */
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

/* bsel_like_qemu() - the model's selectors as QEMU numbered them in the
 * fixture: 00:01.0 -> 2, 00:02.0 -> 0, device 0 behind 00:02.0 -> 1 (the
 * first bridge at each place). */
static void bsel_like_qemu(void)
{
	int port2 = -1;

	for (unsigned i = 0; i < pm.nr; i++) {
		const struct pm_func *f = &pm.f[i];

		if (f->parent >= 0 || (f->cfg[0x0e] & 0x7f) != 1 || f->fn)
			continue;
		if (f->dev == 1 && pm.bsel_bridge[2] == PM_BSEL_NONE)
			pm_pcihp_bsel(2, (int)i);
		if (f->dev == 2 && port2 < 0) {
			port2 = (int)i;
			pm_pcihp_bsel(0, port2);
		}
	}
	for (unsigned i = 0; port2 >= 0 && i < pm.nr; i++)
		if (pm.f[i].parent == port2 && (pm.f[i].cfg[0x0e] & 0x7f) == 1 && !pm.f[i].dev &&
		    !pm.f[i].fn && pm.bsel_bridge[1] == PM_BSEL_NONE)
			pm_pcihp_bsel(1, (int)i);
}

/*
 * hp_setup() - the firmware and slots before the boot: the DSDT image of
 * the shape, the model's selectors as the DSDT numbers them, the register
 * block, slot power as QEMU leaves it.  Returns the events (after any
 * patch bytes) and their count in *n.
 */
const u8 *hp_setup(const u8 *p, size_t len, unsigned *n)
{
	unsigned i, patches;

	*n = 0;
	image_len = 0;
	if (len < 2)
		return p;
	if (!fixture_len) {
		fixture_len = pm_read_file("tests/host/fixtures/acpi/bridges/dsdt.dat", fixture,
					   sizeof(fixture));
		if (fixture_len < 36)
			fail("cannot read tests/host/fixtures/acpi/bridges/dsdt.dat (run from the tree's top)");
	}
	shape = p[0] & 3;
	if (!(p[0] & 4))
		pm_pcihp();
	pm.gpe_fails = p[0] & 0x20;
	if (shape != 2) {
		bsel_like_qemu();
		memcpy(image, fixture, fixture_len);
		image_len = fixture_len;
	} else {
		pm.slot_power_gates = true;
	}
	if (shape == 1) {
		u32 l = (u32)(36 + (fixture_len - 36) * p[1] / 256);

		memcpy(image + 4, &l, 4);
		image_len = l;
	}
	p += 2;
	len -= 2;
	if (shape == 3) {
		patches = p[-1] >> 3;
		for (i = 0; i < patches && 3 * i + 2 < len; i++)
			image[(p[3 * i] | (size_t)p[3 * i + 1] << 8) % image_len] = p[3 * i + 2];
		if (3 * patches < len) {
			p += 3 * patches;
			len -= 3 * patches;
		} else {
			len = 0;
		}
	}
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
 * compare_maps() - after the boot: is the DSDT QEMU's own (not patched),
 * are the model's selectors its slots' buses, does every bridge of the
 * model have a vendor id (one with 0 or ffff is invisible to any kernel,
 * yet the model routes through it) and bus numbers that can be written,
 * and is each root-bus address one function's?  Only then must its ejects
 * hit what it released, and its entries stay reachable: a hostile DSDT may
 * name any slot, and a hostile boot topology (two bridges claiming one bus
 * for good) is fuzz_pci's boot part's business.
 */
static bool compare_maps(void)
{
	if (pm.root_bus != 0 || shape == 3)
		return false;
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
			if (pm.f[i].parent == pm.f[j].parent && pm.f[i].dev == pm.f[j].dev &&
			    pm.f[i].fn == pm.f[j].fn && (pm.f[i].parent < 0 || pm.f[pm.f[i].parent].parent < 0))
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
		x = (e[1] & 0x80) && pm.bsel_bridge[1] >= 0 ? pm.bsel_bridge[1] : root_bridge(e[1]);
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
		if (x >= 0)
			pm_acpi_unplug_request(x);
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
 * driver registered before anything is plugged, the namespace of the
 * shape loaded and PCI hotplug chosen (as the kernel's boot does after
 * pci_init()), the table's first picture, and whether the model is one
 * whose entries must stay reachable (compare_maps()).
 */
void hp_boot(void)
{
	memset(bound, 0, sizeof(bound));
	memset(entry_cfg, 0, sizeof(entry_cfg));
	pci_register_driver(&fake_drv);
	if (image_len && !pm_load_aml(image, image_len, NULL))
		fail("no namespace could be made for the DSDT");
	pci_acpi_init();
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
 * hp_check(); the work pending from pci_hotplug_init() (the AML's look at
 * boot) runs first, as the main loop would.
 */
void hp_run(const u8 *p, unsigned n)
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

/*
 * drivers/pci/probe.c - enumeration: the device table and bus numbers.
 *
 * Enumeration is a depth-first walk with an explicit stack (no recursion):
 * a stack frame is "bus B, next device/function to look at".  A bridge
 * (header type 1) found on the way pushes a frame for its secondary bus.
 * Bridges the firmware configured keep their bus numbers, as long as they
 * lie inside the bus range of the bridge above (configuration cycles for a
 * bus outside it never reach them).  A bridge left unconfigured (secondary
 * bus 0), or with numbers that are garbage, is numbered by the walk: the
 * lowest bus number inside the range of the bridge above (the MCFG's buses
 * on the root bus) that no other bridge forwards, and, while the walk is
 * below it, the subordinate that ends that run of free numbers, so that
 * cycles reach every bus it may hand out and no bus of another bridge;
 * when its frame is popped the subordinate is cut down to the highest bus
 * in use below it.  A firmware-numbered bridge whose range does not lie
 * inside the range above is reported, cleared and numbered the same way
 * (Linux keeps such numbers and reports the devices behind as unusable;
 * memlab has the numbers to do better).  When the range above has no free
 * number the bridge stays unnumbered and the log says so.
 *
 * The walk starts at the first MCFG bus, then at every other root bus the
 * namespace names (pci_add_root_bus(): a second PCI root bridge's _BBN,
 * e.g. QEMU's pxb-pcie), which no bridge leads to.
 *
 * Context: (boot, main).
 */
#include "internal.h"
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <arch/io.h>

struct pci_dev pci_devices[PCI_MAX_DEVICES];
unsigned pci_nr_devices;
u8 pci_root_buses[PCI_MAX_ROOT_BUSES];
unsigned pci_nr_root_buses;

/*
 * pci_device_count() / pci_device() - the table by index: entries below
 * the count; pci_device() is NULL for a free entry.  Context: (main).
 */
unsigned pci_device_count(void)
{
	return pci_nr_devices;
}

struct pci_dev *pci_device(unsigned i)
{
	return i < pci_nr_devices && pci_devices[i].cfg ? &pci_devices[i] : NULL;
}

/* pci_get_bdf() - the table's entry for (bus, dev, fn), or NULL.  Context: (main). */
struct pci_dev *pci_get_bdf(unsigned bus, unsigned dev, unsigned fn)
{
	unsigned i;

	for (i = 0; i < pci_nr_devices; i++)
		if (pci_devices[i].cfg && pci_devices[i].bus == bus && pci_devices[i].dev == dev &&
		    pci_devices[i].fn == fn)
			return &pci_devices[i];
	return NULL;
}

/*
 * add_function() - record (bus, dev, fn) in the table, reading its ids,
 * class, BARs and (bridges) windows.  Returns the entry, or NULL if the
 * table is full.  Context: (boot, main).
 */
static struct pci_dev *add_function(volatile u8 *cfg, unsigned bus, unsigned dev,
				    unsigned fn, struct pci_dev *bridge, bool hot)
{
	struct pci_dev *d = NULL;
	unsigned i;

	for (i = 0; i < pci_nr_devices && !d; i++)
		if (!pci_devices[i].cfg)
			d = &pci_devices[i];	/* reuse a removed function's entry */
	if (!d) {
		if (pci_nr_devices >= PCI_MAX_DEVICES) {
			pr_warn("pci %02x:%02x.%x: device table full (%u); ignored",
				bus, dev, fn, PCI_MAX_DEVICES);
			return NULL;
		}
		d = &pci_devices[pci_nr_devices++];
	}
	memset(d, 0, sizeof(*d));
	d->cfg = cfg;
	d->bus = (u8)bus;
	d->dev = (u8)dev;
	d->fn = (u8)fn;
	d->vendor = pci_read16(d, CFG_VENDOR);
	d->device = pci_read16(d, CFG_DEVICE);
	d->revision = pci_read8(d, CFG_REVISION);
	d->prog_if = pci_read8(d, CFG_REVISION + 1);
	d->subclass = pci_read8(d, CFG_REVISION + 2);
	d->class_code = pci_read8(d, CFG_REVISION + 3);
	d->header_type = pci_read8(d, CFG_HEADER_TYPE) & HEADER_TYPE_MASK;
	d->irq_line = pci_read8(d, CFG_IRQ_LINE);
	d->irq_pin = pci_read8(d, CFG_IRQ_PIN);
	d->bridge = bridge;
	d->hotplugged = hot;
	if (d->header_type <= 1)
		pci_size_bars(d);
	if (d->header_type == 1)
		pci_read_windows(d);
	return d;
}

/*
 * bus_function() - one step of a walk over the functions of bus: the
 * configuration space of the function at devfn, or NULL when nothing is
 * there (no mapping, or a vendor id of 0xffff: no device answered, or
 * 0x0000: what some broken boards return for an empty slot; no vendor has
 * that id).  *next gets the devfn to look at after it: the next function,
 * or the next device's function 0 when function 0 is missing or its device
 * is single-function.  Context: (boot, main).
 */
static volatile u8 *bus_function(unsigned bus, unsigned devfn, unsigned *next)
{
	volatile u8 *cfg = pci_cfg_of(bus, devfn >> 3, devfn & 7);
	bool fn0 = !(devfn & 7);
	u16 vendor = cfg ? mmio_read16((const volatile u16 *)cfg) : 0xffff;

	*next = devfn + 1;
	if (vendor == 0xffff || vendor == 0x0000) {
		if (fn0)
			*next = (devfn | 7) + 1;
		return NULL;
	}
	if (fn0 && !(mmio_read8(cfg + CFG_HEADER_TYPE) & HEADER_MULTIFUNCTION))
		*next = (devfn | 7) + 1;
	return cfg;
}

struct scan_frame {
	u8 bus;			/* the bus being scanned */
	u8 limit;		/* highest bus the bridge above forwards (root bus: 0xff) */
	u8 max_bus;		/* highest bus number in use at or below this bus so far */
	u16 next;		/* next devfn to look at; 256 = bus done */
	struct pci_dev *bridge;	/* the bridge leading to it, or NULL */
	bool assigned;		/* we numbered that bridge; fix its subordinate on pop */
};

/*
 * bus_numbers_valid() - are secondary `sec` and subordinate `sub` a
 * configuration memlab keeps for a bridge on `bus`, whose own bus range
 * ends at `limit` (0xff on the root bus)?  The secondary bus must be above
 * the bridge's bus, the range must be ordered, and it must lie inside the
 * range of the bridge above: configuration cycles for a bus outside it
 * never reach this bridge.  Pure.  Context: (any).
 */
static bool bus_numbers_valid(unsigned bus, unsigned sec, unsigned sub, unsigned limit)
{
	return sec > bus && sub >= sec && sub <= limit;
}

/* bus_marked() / mark_bus() - bus b in a bitmap of 256 buses (u8[32]). */
static bool bus_marked(const u8 *map, unsigned b)
{
	return map[b / 8] & (1u << (b % 8));
}

static void mark_bus(u8 *map, unsigned b)
{
	map[b / 8] |= (u8)(1u << (b % 8));
}

/* claim() - mark buses [sec, sub] in the bitmap `map` (256 bits); a bridge
 * with subordinate 0, or sec above sub, forwards nothing.  Context: (any). */
static void claim(u8 *map, unsigned sec, unsigned sub)
{
	for (unsigned b = sec; sub && b <= sub && b < 256; b++)
		mark_bus(map, b);
}

/*
 * free_bus_run() - bus numbers for bridge d, found unconfigured on the bus
 * of frame stack[depth - 1]: the lowest number above that bus, at most the
 * frame's limit and the MCFG's last bus, that no other bridge forwards,
 * and in *last the end of the run of free numbers it starts (the highest
 * subordinate d may have while the walk is below it).  "Other bridge"
 * means: every bridge in the table, and every bridge on d's bus read
 * straight from its registers (siblings the walk has not reached yet),
 * except d itself and the bridges above it (the stack), whose ranges hold
 * the frame's range; buses the walk has entered (`seen`) are taken too.
 * Returns false when there is no free number.  Reads configuration space
 * of d's bus only.  Context: (boot, main).
 */
static bool free_bus_run(const struct pci_dev *d, const struct scan_frame *stack,
			 unsigned depth, const u8 *seen, unsigned *first, unsigned *last)
{
	const struct scan_frame *f = &stack[depth - 1];
	unsigned lo = f->bus + 1u, hi = f->limit < pci_ecam.end_bus ? f->limit : pci_ecam.end_bus, n;
	u8 taken[32];

	memcpy(taken, seen, sizeof(taken));
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		const struct pci_dev *b = &pci_devices[i];
		bool above = false;

		if (!b->cfg || b->header_type != 1 || b == d)
			continue;
		for (unsigned k = 0; k < depth; k++)
			above |= stack[k].bridge == b;
		if (!above)
			claim(taken, b->secondary_bus, b->subordinate_bus);
	}
	for (unsigned devfn = 0, next; devfn < 256; devfn = next) {
		volatile u8 *cfg = bus_function(f->bus, devfn, &next);

		if (cfg && cfg != d->cfg && (mmio_read8(cfg + CFG_HEADER_TYPE) & HEADER_TYPE_MASK) == 1)
			claim(taken, mmio_read8(cfg + CFG_SECONDARY_BUS),
			      mmio_read8(cfg + CFG_SUBORDINATE_BUS));
	}
	for (n = lo; n <= hi && bus_marked(taken, n); n++)
		;
	if (n > hi)
		return false;
	*first = n;
	while (n + 1 <= hi && !bus_marked(taken, n + 1))
		n++;
	*last = n;
	return true;
}

/*
 * push_bridge() - continue the walk below bridge d, which sits on the bus
 * of the top frame.  A bridge whose numbers are valid (bus_numbers_valid():
 * inside the range of the bridge above) keeps them.  Any other bridge
 * (quiet_bridges() cleared it) gets the lowest free bus number inside the
 * range of the bridge above (free_bus_run()), and, while the walk is below
 * it, the subordinate that ends the run of free numbers from there: it
 * then forwards no bus another bridge owns, and everything numbered below
 * it stays inside its run; when its frame is popped the subordinate is cut
 * down to the highest bus in use below it.  With no free number the bridge
 * is left unnumbered and the log says that the range above is full.  A bus
 * is entered once per walk (`seen`, a bitmap of 256 buses): bridges whose
 * ranges overlap, a bus outside the MCFG's range, and a bridge that does
 * not keep the numbers written to it are reported and not entered, so the
 * walk stays bounded and never records one function under two addresses.
 * Returns false if the bridge cannot be entered.  Context: (boot, main).
 */
static bool push_bridge(struct scan_frame *stack, unsigned *depth, unsigned max,
			struct pci_dev *d, u8 *seen)
{
	const struct scan_frame *f = &stack[*depth - 1];
	unsigned sec, sub;

	if (*depth >= max) {
		pr_warn("pci %02x:%02x.%x: bridges nested too deep; not scanned",
			d->bus, d->dev, d->fn);
		return false;
	}
	if (bus_numbers_valid(d->bus, d->secondary_bus, d->subordinate_bus, f->limit)) {
		sec = d->secondary_bus;
		if (sec > pci_ecam.end_bus) {
			pr_warn("pci %02x:%02x.%x: secondary bus %02x is beyond the MCFG's buses %02x-%02x; not scanned",
				d->bus, d->dev, d->fn, sec, pci_ecam.start_bus, pci_ecam.end_bus);
			return false;
		}
		if (bus_marked(seen, sec)) {
			pr_warn("pci %02x:%02x.%x: secondary bus %02x was already scanned (bridges overlap); not scanned again",
				d->bus, d->dev, d->fn, sec);
			return false;
		}
		mark_bus(seen, sec);
		stack[(*depth)++] = (struct scan_frame){ .bus = (u8)sec,
			.limit = d->subordinate_bus, .max_bus = (u8)sec, .bridge = d };
		return true;
	}
	if (!free_bus_run(d, stack, *depth, seen, &sec, &sub)) {
		unsigned hi = f->limit < pci_ecam.end_bus ? f->limit : pci_ecam.end_bus;

		if (f->bridge)
			pr_warn("pci %02x:%02x.%x: bus range %02x-%02x of the bridge above (%02x:%02x.%x) is full: no free bus number for this bridge; left unnumbered, not scanned",
				d->bus, d->dev, d->fn, f->bus, hi, f->bridge->bus,
				f->bridge->dev, f->bridge->fn);
		else
			pr_warn("pci %02x:%02x.%x: no free bus number left in the MCFG's buses %02x-%02x; bridge left unnumbered, not scanned",
				d->bus, d->dev, d->fn, pci_ecam.start_bus, hi);
		pci_read_windows(d);	/* what it forwards now, not what it once held */
		return false;
	}
	pci_write8(d, CFG_PRIMARY_BUS, d->bus);
	pci_write8(d, CFG_SECONDARY_BUS, (u8)sec);
	pci_write8(d, CFG_SUBORDINATE_BUS, (u8)sub);
	pci_read_windows(d);
	if (d->secondary_bus != sec || d->subordinate_bus != sub) {
		pr_warn("pci %02x:%02x.%x: bridge does not keep its bus numbers (wrote %02x-%02x, reads %02x-%02x); not scanned",
			d->bus, d->dev, d->fn, sec, sub, d->secondary_bus, d->subordinate_bus);
		return false;
	}
	pr_info("pci %02x:%02x.%x: bridge was unconfigured; secondary bus %02x (free up to %02x)",
		d->bus, d->dev, d->fn, sec, sub);
	mark_bus(seen, sec);
	stack[(*depth)++] = (struct scan_frame){ .bus = (u8)sec, .limit = (u8)sub,
						 .max_bus = (u8)sec, .bridge = d,
						 .assigned = true };
	return true;
}

/*
 * quiet_bridges() - before the walk hands out bus numbers below `bus`
 * (whose bridge forwards buses up to `limit`; 0xff for the root bus):
 * every bridge on it whose numbers are not a configuration memlab keeps
 * (bus_numbers_valid(), the ones push_bridge() will number) gets them
 * cleared first.  Otherwise garbage left in such a bridge's subordinate
 * register (say secondary 0, subordinate 5) makes it forward configuration
 * cycles for buses that the walk hands to a bridge found before it, and two
 * bridges answer for one bus (Linux likewise reconfigures such bridges only
 * after a first pass).  A bridge the firmware numbered outside the range of
 * the bridge above is reported: cycles for its buses never reach it, so
 * memlab renumbers it (Linux keeps such numbers and says the devices behind
 * are unusable).  A bridge whose registers do not clear is reported; the
 * range it still claims is kept out of the numbers handed out (it reads
 * back, and free_bus_run() sees it).  A cleared bridge already in the table
 * (a rescan) has its entry refreshed.  Context: (boot, main).
 */
static void quiet_bridges(unsigned bus, unsigned limit, const struct pci_dev *above)
{
	for (unsigned devfn = 0, next; devfn < 256; devfn = next) {
		unsigned dev = devfn >> 3, fn = devfn & 7;
		volatile u8 *cfg = bus_function(bus, devfn, &next);
		struct pci_dev *known;
		u8 sec, sub;

		if (!cfg || (mmio_read8(cfg + CFG_HEADER_TYPE) & HEADER_TYPE_MASK) != 1)
			continue;
		sec = mmio_read8(cfg + CFG_SECONDARY_BUS);
		sub = mmio_read8(cfg + CFG_SUBORDINATE_BUS);
		if (bus_numbers_valid(bus, sec, sub, limit) || (!sec && !sub))
			continue;				/* configured, or quiet */
		if (above && bus_numbers_valid(bus, sec, sub, 0xff))
			pr_warn("pci %02x:%02x.%x: bus numbers %02x-%02x are not inside %02x-%02x, the range of the bridge above (%02x:%02x.%x); renumbered",
				bus, dev, fn, sec, sub, bus, limit, above->bus, above->dev,
				above->fn);
		mmio_write8(cfg + CFG_SUBORDINATE_BUS, 0);
		mmio_write8(cfg + CFG_SECONDARY_BUS, 0);
		known = pci_get_bdf(bus, dev, fn);
		if (known && known->cfg == cfg)
			pci_read_windows(known);
		sec = mmio_read8(cfg + CFG_SECONDARY_BUS);
		sub = mmio_read8(cfg + CFG_SUBORDINATE_BUS);
		if (!sub)
			continue;
		pr_warn("pci %02x:%02x.%x: bridge does not clear its bus numbers (reads %02x-%02x); buses %02x-%02x are not handed out",
			bus, dev, fn, sec, sub, sec, sub);
	}
}

/*
 * pci_add_root_bus() - another root bus (the _BBN of a second PCI root
 * bridge, a pxb-pcie expander's) for pci_scan_all() to walk from.  0,
 * -EEXIST (known, or reached through a bridge of the table), -ERANGE
 * (outside the MCFG's buses) or -ENOSPC (PCI_MAX_ROOT_BUSES known).
 * Context: (boot).
 */
int pci_add_root_bus(unsigned bus)
{
	unsigned i;

	if (bus < pci_ecam.start_bus || bus > pci_ecam.end_bus)
		return -ERANGE;
	if (bus == pci_ecam.start_bus)
		return -EEXIST;
	for (i = 0; i < pci_nr_root_buses; i++)
		if (pci_root_buses[i] == bus)
			return -EEXIST;
	for (i = 0; i < pci_nr_devices; i++) {
		const struct pci_dev *d = &pci_devices[i];

		if (d->cfg && d->header_type == 1 && d->secondary_bus <= bus && bus <= d->subordinate_bus &&
		    d->secondary_bus > d->bus)
			return -EEXIST;
	}
	if (pci_nr_root_buses == PCI_MAX_ROOT_BUSES)
		return -ENOSPC;
	pci_root_buses[pci_nr_root_buses++] = (u8)bus;
	return 0;
}

/* root_limit() - the last bus the walk from root bus `bus` may number: the
 * one before the next root bus above it, else 0xff. */
static unsigned root_limit(unsigned bus)
{
	unsigned lim = 0xff;

	for (unsigned i = 0; i < pci_nr_root_buses; i++)
		if (pci_root_buses[i] > bus && pci_root_buses[i] - 1u < lim)
			lim = pci_root_buses[i] - 1u;
	return lim;
}

/*
 * pci_scan_all() - walk every bus reachable from the first MCFG bus and
 * from each root bus pci_add_root_bus() gave, depth first with an explicit
 * stack, adding functions that are not in the table yet (marked
 * hotplugged when `hot`), and lists them in added_list (room for
 * PCI_MAX_DEVICES; may be NULL).  The walk from one root numbers buses
 * only below the next root.  Returns how many were added.
 * Context: (boot, main).
 */
int pci_scan_all(bool hot, struct pci_dev **added_list)
{
	struct scan_frame stack[32];
	unsigned depth = 0, added = 0, root;
	u8 seen[32];

	memset(seen, 0, sizeof(seen));
	for (root = 0; root <= pci_nr_root_buses; root++) {
		unsigned rb = root ? pci_root_buses[root - 1] : pci_ecam.start_bus;

		if (bus_marked(seen, rb))
			continue;	/* a bridge of an earlier walk leads to it */
		mark_bus(seen, rb);
		stack[depth++] = (struct scan_frame){ .bus = (u8)rb, .limit = (u8)root_limit(rb),
						      .max_bus = (u8)rb };
		while (depth) {
			struct scan_frame *f = &stack[depth - 1];
			unsigned dev, fn, next;
			volatile u8 *cfg;
			struct pci_dev *d;

			if (f->next == 0)
				quiet_bridges(f->bus, f->limit, f->bridge);
			if (f->next >= 256) {
				if (f->assigned && f->bridge) {
					pci_write8(f->bridge, CFG_SUBORDINATE_BUS, f->max_bus);
					pci_read_windows(f->bridge);
				}
				if (f->bridge && depth >= 2 && f->bridge->subordinate_bus > stack[depth - 2].max_bus)
					stack[depth - 2].max_bus = f->bridge->subordinate_bus;
				depth--;
				continue;
			}
			dev = f->next >> 3;
			fn = f->next & 7;
			cfg = bus_function(f->bus, f->next, &next);
			f->next = (u16)next;
			if (!cfg)
				continue;
			d = pci_get_bdf(f->bus, dev, fn);
			if (!d) {
				d = add_function(cfg, f->bus, dev, fn, f->bridge, hot);
				if (!d)
					continue;
				if (added_list)
					added_list[added] = d;
				added++;
				if (hot)
					pr_info("pci %02x:%02x.%x: found %04x:%04x class %02x%02x",
						d->bus, d->dev, d->fn, d->vendor, d->device,
						d->class_code, d->subclass);
			}
			if (d->header_type == 1)
				push_bridge(stack, &depth, sizeof(stack) / sizeof(stack[0]), d, seen);
		}
	}
	return (int)added;
}

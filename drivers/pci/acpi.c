/*
 * drivers/pci/acpi.c - what the AML namespace says about PCI, once it is
 * loaded (pci_acpi_init(), after acpi_aml_init()):
 *   root buses  every PCI root bridge (_HID/_CID PNP0A08 or PNP0A03) and
 *               its bus, _BBN (0 when absent).  A root bus other than the
 *               first MCFG bus (QEMU's pxb-pcie expander: its own
 *               PNP0A08 device with _BBN and _PXM) is walked now, since no
 *               bridge leads to it;
 *   NUMA node   of a function: the _PXM of its ACPI companion (the
 *               device whose _ADR is its device and function, under the
 *               companion of the bridge above, down from the root bridge
 *               of its root bus) or, without one, of the nearest companion
 *               above that has one, the root bridge included; the node is
 *               the SRAT's for that proximity domain.  None: -1, as Linux
 *               prints it (pci_numa_node(), read by
 *               /sys/bus/pci/devices/.../numa_node);
 *   windows     of every root bus, from its root bridge's _CRS (a Name
 *               or a Method), re-read at every pci_resources_sync():
 *               pci_read_root_windows().  A _CRS whose windows meet an
 *               earlier root's, leave the physical address space, or are
 *               none is refused with the reason logged; that root's
 *               devices keep the firmware's addresses;
 * then PCI hotplug is chosen (pci_hotplug_init()).
 *
 * Methods are evaluated when asked (a _PXM may be a method); one that fails
 * gives no node, with the reason logged.
 *
 * Context: pci_acpi_init (boot); pci_numa_node (main).
 */
#include "internal.h"
#include <drivers/acpi.h>
#include <drivers/aml.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <arch/cpu.h>

#define MAX_ROOTS	PCI_MAX_ROOT_BUSES
#define MAX_CHAIN	32	/* bridges from a root bus down to a function */

/* Set by pci_acpi_init() at boot, read in the main loop; no lock (one
 * context at a time). */
static struct aml_ns *ns;		/* the namespace; NULL before pci_acpi_init() */
static struct { struct aml_node *dev; unsigned bus; } roots[MAX_ROOTS];	/* root bridges, _BBN */
static unsigned nr_roots;

/*
 * bus_from_crs() - the bus range of dev's _CRS, where it has one, is its
 * root bus (QEMU's pxb-pcie lists WordBusNumber 0x80-0x81 beside _BBN
 * 0x80): *bus set to its start, with a warning when that is not _BBN.
 * Returns true when a first bus of a _CRS range is already a root's.
 */
static bool bus_from_crs(struct aml_node *dev, const char *path, u64 *bus)
{
	static struct acpi_crs crs;	/* large: not on the stack (one context) */

	if (acpi_bridge_crs(dev, &crs) || crs.bus_min < 0 || (u64)crs.bus_min == *bus)
		return false;
	pr_warn("pci: %s: _CRS's bus range starts at %02x, _BBN says %02x; the _CRS's is used",
		path, crs.bus_min, (unsigned)*bus);
	*bus = (u64)crs.bus_min;
	for (unsigned i = 0; i < nr_roots; i++)
		if (roots[i].bus == *bus) {
			pr_warn("pci: %s: root bus %02x is another root bridge's; ignored", path,
				(unsigned)*bus);
			return true;
		}
	return false;
}

/* add_root() - walk callback: a root bridge and its _BBN. */
static int add_root(struct aml_ns *n, struct aml_node *dev, void *arg)
{
	char path[96];
	u64 bbn = 0;

	(void)arg;
	for (unsigned i = 0; i < nr_roots; i++)
		if (roots[i].dev == dev)
			return 0;	/* both PNP0A08 and PNP0A03 */
	aml_node_path(dev, path, sizeof(path));
	if (aml_child(dev, "_BBN") && aml_eval_integer(n, dev, "_BBN", &bbn)) {
		pr_warn("pci: %s: _BBN failed (%s); root bridge ignored", path, aml_last_error(n)->reason);
		return 0;
	}
	if (bbn > 0xff) {
		pr_warn("pci: %s: _BBN %#llx is not a bus number; root bridge ignored", path,
			(unsigned long long)bbn);
		return 0;
	}
	if (bus_from_crs(dev, path, &bbn))
		return 0;
	if (nr_roots == MAX_ROOTS) {
		pr_warn("pci: %s: more than %u PCI root bridges; ignored", path, MAX_ROOTS);
		return 0;
	}
	roots[nr_roots].dev = dev;
	roots[nr_roots++].bus = (unsigned)bbn;
	return 0;
}

/*
 * pci_acpi_init() - the root bridges of the namespace; the root buses they
 * name that the walk from the first MCFG bus did not reach are walked
 * (their functions offered to the drivers); then PCI hotplug is chosen.
 * Without a namespace only the latter.  Context: (boot), after pci_init()
 * and acpi_aml_init().
 */
void pci_acpi_init(void)
{
	unsigned added = 0;

	ns = acpi_aml();
	nr_roots = 0;
	if (ns && pci_ready) {
		aml_walk_hid(ns, "PNP0A08", add_root, NULL);
		aml_walk_hid(ns, "PNP0A03", add_root, NULL);
		for (unsigned i = 0; i < nr_roots; i++) {
			int err = pci_add_root_bus(roots[i].bus);

			if (!err)
				added++;
			else if (err != -EEXIST)
				pr_warn("pci: root bus %02x of the namespace not walked (%d)", roots[i].bus, err);
		}
		if (added)
			pr_info("pci: %u more root bus(es) from _BBN: %d function(s)", added, pci_scan_roots());
	}
	pci_hotplug_init();
}

struct pci_root_windows pci_root_windows[PCI_MAX_ROOT_BUSES + 1];
unsigned pci_nr_root_windows;

/* windows_meet() - do a and b share an address of one space? */
static bool windows_meet(const struct acpi_window *a, const struct acpi_window *b)
{
	return a->io == b->io && a->start <= b->end && b->start <= a->end;
}

/*
 * check_root() - r->refused set (and r->nr cleared) when r's windows cannot
 * be used: there are none, a memory window ends beyond the CPU's physical
 * address width, or one meets a window of an earlier entry.
 */
static void check_root(struct pci_root_windows *r)
{
	unsigned bits = boot_cpu.phys_bits;
	u64 top = bits && bits < 64 ? 1ULL << bits : 0;

	if (!r->nr) {
		ksnprintf(r->refused, sizeof(r->refused), "it lists no memory or I/O window");
		return;
	}
	for (unsigned i = 0; i < r->nr && !r->refused[0]; i++) {
		const struct acpi_window *w = &r->win[i];

		if (!w->io && top && w->end >= top) {
			ksnprintf(r->refused, sizeof(r->refused),
				  "window %llx-%llx lies outside the %u-bit physical address space",
				  (unsigned long long)w->start, (unsigned long long)w->end, bits);
			break;
		}
		for (const struct pci_root_windows *q = pci_root_windows; q < r && !r->refused[0]; q++)
			for (unsigned j = 0; j < q->nr; j++)
				if (windows_meet(w, &q->win[j])) {
					ksnprintf(r->refused, sizeof(r->refused),
						  "%s window %llx-%llx meets %llx-%llx of root bus %02x",
						  w->io ? "I/O" : "memory",
						  (unsigned long long)w->start,
						  (unsigned long long)w->end,
						  (unsigned long long)q->win[j].start,
						  (unsigned long long)q->win[j].end, q->bus);
					break;
				}
	}
	if (r->refused[0])
		r->nr = 0;
}

/* log_root() - entry i's count or refusal, when it is not what was said last. */
static void log_root(unsigned i)
{
	struct pci_root_windows *r = &pci_root_windows[i];

	if (r->said.valid && r->said.bus == r->bus && r->said.nr == r->nr &&
	    !strcmp(r->said.refused, r->refused))
		return;
	r->said.valid = true;
	r->said.bus = r->bus;
	r->said.nr = r->nr;
	strlcpy(r->said.refused, r->refused, sizeof(r->said.refused));
	if (i == 0 && !r->refused[0])
		pr_info("pci: root bus windows: %u from the host bridge's _CRS%s", r->nr,
			r->nr ? "" : "; using the 32-bit hole memlab places BARs in");
	else if (i == 0)
		pr_warn("pci: root bus %02x: the host bridge's _CRS is refused: %s; using the 32-bit hole memlab places BARs in",
			r->bus, r->refused);
	else if (!r->refused[0])
		pr_info("pci: root bus %02x windows: %u from %s", r->bus, r->nr, r->source);
	else
		pr_warn("pci: root bus %02x: %s is refused: %s; its devices keep the firmware's addresses",
			r->bus, r->source, r->refused);
}

/* clear_entry() - r empty, what the log said of it kept. */
static void clear_entry(struct pci_root_windows *r)
{
	typeof(r->said) said = r->said;

	memset(r, 0, sizeof(*r));
	r->said = said;
}

/*
 * pci_read_root_windows() - see internal.h.  Entry 0 from
 * acpi_root_windows() (which reads the tables' bytes before the namespace
 * exists); one more for each root bridge of the namespace on another bus
 * that has a _CRS (evaluated: a Name or a Method).  Context: (boot, main).
 */
void pci_read_root_windows(void)
{
	static struct acpi_crs crs;	/* large: not on the stack (one context) */
	struct pci_root_windows *r = &pci_root_windows[0];
	char path[48];
	int n;

	clear_entry(r);
	r->bus = pci_ecam.start_bus;
	r->bus_end = pci_ecam.end_bus;
	strlcpy(r->source, "the host bridge's _CRS", sizeof(r->source));
	n = acpi_root_windows(r->win, ACPI_ROOT_WINDOWS_MAX);
	if (n >= 0) {
		r->nr = (unsigned)n;
		if (n > 0)
			check_root(r);
	}
	pci_nr_root_windows = 1;
	log_root(0);
	for (unsigned i = 0; ns && ns == acpi_aml() && i < nr_roots; i++) {
		if (roots[i].bus == pci_root_windows[0].bus ||
		    pci_nr_root_windows == PCI_MAX_ROOT_BUSES + 1)
			continue;
		if (acpi_bridge_crs(roots[i].dev, &crs) == -ENOENT)
			continue;	/* no _CRS: nothing to show or place in */
		r = &pci_root_windows[pci_nr_root_windows];
		clear_entry(r);
		r->bus = r->bus_end = roots[i].bus;
		aml_node_path(roots[i].dev, path, sizeof(path));
		ksnprintf(r->source, sizeof(r->source), "%s._CRS", path);
		if (crs.why) {
			strlcpy(r->refused, crs.why, sizeof(r->refused));
		} else {
			if (crs.bus_min == (int)r->bus)
				r->bus_end = (unsigned)crs.bus_max;
			memcpy(r->win, crs.win, sizeof(r->win));
			r->nr = crs.nr;
			check_root(r);
		}
		log_root(pci_nr_root_windows++);
	}
}

/* pci_root_windows_of() - see internal.h. */
const struct pci_root_windows *pci_root_windows_of(unsigned bus)
{
	for (unsigned i = 0; i < pci_nr_root_windows; i++)
		if (pci_root_windows[i].bus == bus && pci_root_windows[i].nr)
			return &pci_root_windows[i];
	return NULL;
}

struct find_adr {
	struct aml_node *parent, *found;
	u64 adr;
};

/* match_adr() - walk callback: a child of f->parent whose _ADR is f->adr. */
static int match_adr(struct aml_ns *n, struct aml_node *dev, void *arg)
{
	struct find_adr *f = arg;
	char path[96], ppath[96];
	size_t len;
	u64 adr;

	if (f->found || !aml_child(dev, "_ADR"))
		return 0;
	aml_node_path(dev, path, sizeof(path));
	aml_node_path(f->parent, ppath, sizeof(ppath));
	len = strlen(ppath);
	/* a child: the parent's path, a dot, one name segment */
	if (strncmp(path, ppath, len) || path[len] != '.' || strchr(path + len + 1, '.'))
		return 0;
	if (!aml_eval_integer(n, dev, "_ADR", &adr) && adr == f->adr)
		f->found = dev;
	return 0;
}

/* companion_of() - d's device under parent (the companion of the bridge
 * above d, or the root bridge), or NULL.  Context: (main). */
static struct aml_node *companion_of(struct aml_node *parent, const struct pci_dev *d)
{
	struct find_adr f = { .parent = parent, .adr = ((u64)d->dev << 16) | d->fn };

	aml_walk_devices(ns, match_adr, &f);
	return f.found;
}

/* pxm_of() - dev's _PXM into *pxm: true when it has one that evaluates. */
static bool pxm_of(struct aml_node *dev, u64 *pxm)
{
	char path[96];

	if (!aml_child(dev, "_PXM"))
		return false;
	if (!aml_eval_integer(ns, dev, "_PXM", pxm) && *pxm <= 0xffffffffull)
		return true;
	aml_node_path(dev, path, sizeof(path));
	pr_warn("pci: %s._PXM gives no proximity domain (%s)", path, aml_last_error(ns)->reason);
	return false;
}

/*
 * pci_numa_node() - d's node from the namespace (see above), -1 when none:
 * no namespace, no root bridge for its root bus, no _PXM on the way, or a
 * proximity domain the SRAT has no node for.  Context: (main).
 */
int pci_numa_node(const struct pci_dev *d)
{
	const struct pci_dev *chain[MAX_CHAIN];
	struct aml_node *c = NULL;
	unsigned n = 0, i;
	bool have = false;
	u64 pxm = 0, p;

	if (!ns || !d)
		return -1;
	for (const struct pci_dev *e = d; e && n < MAX_CHAIN; e = e->bridge)
		chain[n++] = e;
	if (chain[n - 1]->bridge)
		return -1;	/* deeper than MAX_CHAIN: no answer rather than a wrong one */
	for (i = 0; i < nr_roots; i++)
		if (roots[i].bus == chain[n - 1]->bus)
			c = roots[i].dev;
	if (!c)
		return -1;
	have = pxm_of(c, &pxm);
	while (n-- > 0) {
		c = companion_of(c, chain[n]);
		if (!c)
			break;
		if (pxm_of(c, &p)) {
			pxm = p;
			have = true;
		}
	}
	return have ? acpi_pxm_find_node((u32)pxm) : -1;
}

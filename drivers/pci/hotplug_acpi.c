/*
 * drivers/pci/hotplug_acpi.c - ACPI PCI hotplug as the firmware's AML
 * describes it: the GPE method runs in the interpreter, and what it
 * Notify()s is what memlab does.  This file knows no register of any
 * machine: which ports the methods touch is the firmware's business.
 *
 *   event        GPE 1's method, \_GPE._E01 (edge) or _L01 (level), run as
 *                work when the GPE fires.  Notifications are queued while
 *                it runs and handled after it returns (no AML inside AML).
 *   Notify 0/1   bus check / device check on a bridge or a slot: rescan
 *                (pci_rescan(): new functions get BARs and drivers).
 *   Notify 3     eject request on a slot: its functions (and whatever sits
 *                behind a bridge in it) leave, then the slot's _EJ0(1).  A
 *                slot without _EJ0 is not removable: refused, it stays.
 *   slots        devices with _ADR whose parent is a PCI bridge device
 *                (a device with _ADR) or the root bridge (PNP0A08/PNP0A03),
 *                and which have _EJ0 or _SUN.  The bus a bridge device
 *                leads to is read from the bridge's config space (its
 *                secondary bus) at event time.
 *
 * A method that fails (a limit broken, a malformed byte) is logged with
 * its path and offset; the namespace and the PCI table stay consistent.
 * The last events are kept for the `pcihp` view.
 *
 * When the namespace lacks the method (or the slots), pcihp_aml_init() says
 * why and hotplug.c falls back to the native PCIe slots; nothing else.
 *
 * Context: pcihp_aml_init (boot, after acpi_aml_init); the rest (main).
 */
#include "internal.h"
#include <drivers/acpi.h>
#include <drivers/aml.h>
#include <lib/printk.h>
#include <lib/string.h>

#define GPE_PCI_HOTPLUG		1
#define MAX_ROOTS		4
#define MAX_QUEUE		64
#define MAX_DEPTH		8

bool pcihp_aml_mode;
static struct aml_ns *ns;
static struct aml_node *roots[MAX_ROOTS];
static unsigned nr_roots, nr_slots, nr_bridges;
static char gpe_method[12];

static struct { struct aml_node *dev; u64 value; } queue[MAX_QUEUE];
static unsigned queued;
static bool queue_overflow;

struct pcihp_aml_event pcihp_aml_events[PCIHP_AML_EVENTS];
unsigned pcihp_aml_nr_events;		/* ever recorded; the ring holds the last ones */

static void aml_work_fn(struct work *w);
static struct work aml_work = WORK_INIT(aml_work_fn, "pci-hotplug-aml");

static bool is_root(const struct aml_node *n)
{
	for (unsigned i = 0; i < nr_roots; i++)
		if (roots[i] == n)
			return true;
	return false;
}

/* parent_of() - the node above n, from its path; NULL at the root. */
static struct aml_node *parent_of(const struct aml_node *n)
{
	char path[96];
	char *dot;

	aml_node_path(n, path, sizeof(path));
	dot = strrchr(path, '.');
	if (!dot)
		return NULL;
	*dot = 0;
	return aml_lookup(ns, NULL, path);
}

/*
 * node_bus() - the PCI bus a root or bridge device leads to: _BBN (0 when
 * absent) for a root; for a bridge, the secondary bus of the function at
 * its _ADR on its parent's bus.  -1 when unknown (not PCI, not found, not
 * numbered).  Bounded by MAX_DEPTH.  Context: (main).
 */
static int node_bus(struct aml_node *n, unsigned depth)
{
	u64 adr, bbn = 0;
	int pb;

	if (!n || depth > MAX_DEPTH)
		return -1;
	if (is_root(n)) {
		if (aml_child(n, "_BBN") && aml_eval_integer(ns, n, "_BBN", &bbn))
			return -1;
		return bbn < 256 ? (int)bbn : -1;
	}
	if (!aml_child(n, "_ADR") || aml_eval_integer(ns, n, "_ADR", &adr))
		return -1;
	pb = node_bus(parent_of(n), depth + 1);
	if (pb < 0)
		return -1;
	for (unsigned i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device(i);

		if (d && d->bus == pb && d->dev == ((adr >> 16) & 0x1f) && d->fn == (adr & 7) &&
		    d->header_type == 1)
			return d->secondary_bus > d->bus ? d->secondary_bus : -1;
	}
	return -1;
}

/* is_slot() - dev is a hotplug slot: _ADR, _EJ0 or _SUN, under a PCI
 * bridge or root device. */
static bool is_slot(struct aml_node *dev, struct aml_node **parent)
{
	struct aml_node *p;

	if (!aml_child(dev, "_ADR") || (!aml_child(dev, "_EJ0") && !aml_child(dev, "_SUN")))
		return false;
	p = parent_of(dev);
	if (!p || !(is_root(p) || aml_child(p, "_ADR")))
		return false;
	if (parent)
		*parent = p;
	return true;
}

static int add_root(struct aml_ns *n, struct aml_node *dev, void *arg)
{
	(void)n;
	(void)arg;
	if (nr_roots < MAX_ROOTS && !is_root(dev))
		roots[nr_roots++] = dev;
	return 0;
}

/* count() - slots, and the bridges that hold at least one. */
static int count(struct aml_ns *n, struct aml_node *dev, void *arg)
{
	struct aml_node *p = NULL, **last = arg;

	(void)n;
	if (!is_slot(dev, &p))
		return 0;
	nr_slots++;
	if (p != *last)
		nr_bridges++;
	*last = p;
	return 0;
}

static void record(struct aml_node *dev, u64 value, const char *what)
{
	struct pcihp_aml_event *e = &pcihp_aml_events[pcihp_aml_nr_events % PCIHP_AML_EVENTS];

	aml_node_path(dev, e->path, sizeof(e->path));
	e->value = value;
	ksnprintf(e->what, sizeof(e->what), "%s", what);
	pcihp_aml_nr_events++;
}

static void fail(const char *what)
{
	const struct aml_error *e = aml_last_error(ns);

	pr_warn("pci-hotplug: %s failed: %s at 0x%x: %s", what, e->path, e->offset, e->reason);
}

/*
 * eject() - Notify(slot, 3): release the slot's functions, then _EJ0(1).
 * Returns what happened, for the event log.  Context: (main).
 */
static const char *eject(struct aml_node *dev, const char *path)
{
	struct aml_node *p = NULL;
	struct aml_obj *one;
	u64 adr;
	int bus;

	pcihp_downs++;
	if (!is_slot(dev, &p)) {
		pr_warn("pci-hotplug: eject request for %s: not a PCI slot; ignored", path);
		return "not a slot: ignored";
	}
	if (!aml_child(dev, "_EJ0")) {
		pr_warn("pci-hotplug: eject request for %s refused: no _EJ0 (not removable)", path);
		return "refused: no _EJ0";
	}
	bus = node_bus(p, 0);
	if (aml_eval_integer(ns, dev, "_ADR", &adr)) {
		fail("_ADR");
		return "_ADR failed";
	}
	if (bus < 0) {
		pr_warn("pci-hotplug: eject request for %s: bus unknown; ejecting anyway", path);
	} else {
		struct pcihp_slot ref = { .bus = bus, .slot = (unsigned)((adr >> 16) & 0x1f) };

		pr_info("pci-hotplug: eject request for %s (%02x:%02x): %u function(s) released", path,
			bus, ref.slot, pcihp_release_slot(&ref));
	}
	one = aml_new_integer(ns, 1);
	if (!one || aml_eval_at(ns, dev, "_EJ0", &one, 1, NULL)) {
		aml_put(ns, one);
		fail("_EJ0");
		return "_EJ0 failed";
	}
	aml_put(ns, one);
	pcihp_ejects++;
	pr_info("pci-hotplug: %s ejected (_EJ0)", path);
	return "ejected";
}

static void queue_notify(struct aml_node *dev, u64 value)
{
	if (queued == MAX_QUEUE) {
		queue_overflow = true;
		return;
	}
	queue[queued].dev = dev;
	queue[queued++].value = value;
}

/*
 * aml_work_fn() - GPE 1 fired: run its method, then act on each Notify:
 * one rescan for all the checks, an eject per eject request.  Context: (main).
 */
static void aml_work_fn(struct work *w)
{
	bool rescan = false;
	char path[96];

	(void)w;
	queued = 0;
	queue_overflow = false;
	acpi_aml_set_notify(queue_notify);
	if (aml_eval(ns, gpe_method, NULL, 0, NULL))
		fail(gpe_method);
	acpi_aml_set_notify(NULL);
	if (queue_overflow)
		pr_warn("pci-hotplug: more than %u notifications in one GPE: some lost", MAX_QUEUE);
	for (unsigned i = 0; i < queued; i++) {
		struct aml_node *dev = queue[i].dev;
		u64 v = queue[i].value;

		aml_node_path(dev, path, sizeof(path));
		if (v == 0 || v == 1) {
			bool known = is_slot(dev, NULL) || is_root(dev) || aml_child(dev, "_ADR");

			pr_info("pci-hotplug: Notify (%s, %llu): %s", path, (unsigned long long)v,
				!known ? "not a PCI device; ignored" : v ? "device check" : "bus check");
			if (known) {
				pcihp_ups++;
				rescan = true;
			}
			record(dev, v, known ? (v ? "device check" : "bus check") : "not PCI: ignored");
		} else if (v == 3) {
			record(dev, v, eject(dev, path));
		} else {
			pr_info("pci-hotplug: Notify (%s, 0x%llx): not handled", path, (unsigned long long)v);
			record(dev, v, "not handled");
		}
	}
	if (rescan) {
		int n = pci_rescan();

		pr_info("pci-hotplug: rescan found %d new function(s)", n);
	}
}

/*
 * pcihp_aml_init() - when the namespace has GPE 1's method, a PCI root
 * bridge and PCI slot devices, ACPI PCI hotplug follows the AML from now
 * on: GPE 1's work runs the method.  Returns NULL then, else why not (the
 * first missing piece, a static string for the `pcihp` view).
 * Context: (boot), after acpi_aml_init(), from pci_hotplug_init().
 */
const char *pcihp_aml_init(void)
{
	struct aml_node *last = NULL;

	ns = acpi_aml();
	nr_roots = nr_slots = nr_bridges = 0;
	if (!ns)
		return "no AML namespace (no DSDT, or it could not be loaded)";
	ksnprintf(gpe_method, sizeof(gpe_method), "\\_GPE._E%02X", GPE_PCI_HOTPLUG);
	if (!aml_lookup(ns, NULL, gpe_method))
		ksnprintf(gpe_method, sizeof(gpe_method), "\\_GPE._L%02X", GPE_PCI_HOTPLUG);
	if (!aml_lookup(ns, NULL, gpe_method)) {
		ns = NULL;
		return "the namespace has no \\_GPE._E01 or _L01 (the firmware does no ACPI PCI hotplug)";
	}
	aml_walk_hid(ns, "PNP0A08", add_root, NULL);
	aml_walk_hid(ns, "PNP0A03", add_root, NULL);
	if (!nr_roots) {
		ns = NULL;
		return "the namespace has no PCI root bridge (PNP0A08, PNP0A03)";
	}
	aml_walk_devices(ns, count, &last);
	if (!nr_slots) {
		ns = NULL;
		return "the namespace has no PCI slot devices (_ADR with _EJ0 or _SUN)";
	}
	if (acpi_gpe_register(GPE_PCI_HOTPLUG, &aml_work)) {
		ns = NULL;
		return "GPE 1 unavailable";
	}
	pcihp_aml_mode = true;
	pr_info("pci-hotplug: ACPI PCI hotplug through the AML: %s, %u slot(s) under %u bridge(s)",
		gpe_method, nr_slots, nr_bridges);
	/* a device added before we listened: look now */
	schedule_work(&aml_work);
	return NULL;
}

/* slot_line() - one line of the view per slot. */
static int slot_line(struct aml_ns *n, struct aml_node *dev, void *arg)
{
	struct printer *out = arg;
	struct aml_node *p = NULL;
	char path[96];
	u64 adr = 0, sun = 0;
	int bus;

	if (!is_slot(dev, &p))
		return 0;
	aml_node_path(dev, path, sizeof(path));
	bus = node_bus(p, 0);
	aml_eval_integer(n, dev, "_ADR", &adr);
	pr_printf(out, "slot %s", path);
	if (bus >= 0)
		pr_printf(out, " %02x:%02llx", bus, (unsigned long long)((adr >> 16) & 0x1f));
	else
		pr_printf(out, " bus ?");
	if (aml_child(dev, "_SUN") && !aml_eval_integer(n, dev, "_SUN", &sun))
		pr_printf(out, " _SUN %llu", (unsigned long long)sun);
	pr_printf(out, "%s\n", aml_child(dev, "_EJ0") ? " _EJ0" : " (not removable)");
	return 0;
}

/*
 * pcihp_aml_dump() - the `pcihp` view of the AML mechanism: the method,
 * the slots the namespace has (on a bus memlab numbered, or "bus ?"), the
 * counters and the last events.  Context: (main).
 */
void pcihp_aml_dump(struct printer *out, bool slots)
{
	unsigned first, i;

	pr_printf(out, "ACPI PCI hotplug through the AML: %s (GPE %u), %u slot(s) under %u bridge(s)\n",
		  gpe_method, GPE_PCI_HOTPLUG, nr_slots, nr_bridges);
	if (slots)
		aml_walk_devices(ns, slot_line, out);
	pr_printf(out, "events: up %llu down %llu ejected %llu\n", (unsigned long long)pcihp_ups,
		  (unsigned long long)pcihp_downs, (unsigned long long)pcihp_ejects);
	first = pcihp_aml_nr_events > PCIHP_AML_EVENTS ? pcihp_aml_nr_events - PCIHP_AML_EVENTS : 0;
	for (i = first; i < pcihp_aml_nr_events; i++) {
		const struct pcihp_aml_event *e = &pcihp_aml_events[i % PCIHP_AML_EVENTS];

		pr_printf(out, "notify %s %llu: %s\n", e->path, (unsigned long long)e->value, e->what);
	}
}

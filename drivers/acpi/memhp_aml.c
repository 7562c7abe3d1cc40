/*
 * memhp_aml.c - the DIMM slots as the firmware's AML describes them: the
 * memory devices (PNP0C80, found by _HID) and their methods, used by
 * memhp.c: the only way memlab reaches them.
 *
 *   present?      _STA (bit 0)
 *   where, size   _CRS: its QWord (or DWord) memory range descriptor
 *   node          _PXM
 *   report        _OST (event, status, Buffer)
 *   eject         _EJ0 (0)
 *   events        the GPE's method, \_GPE._E03 (edge) or _L03 (level),
 *                 which Notify()s each device: 1 device check, 3 eject
 *                 request.  Notifications are queued while the method runs
 *                 and handed out after it returns, so the handler never
 *                 runs AML inside AML.
 *
 * A slot is the device's _UID (QEMU: "0x00", "0x01", ...).  Which
 * registers the methods touch is the firmware's business, not this file's.
 * What these evaluations cost is summed (memhp_aml_spent(): time,
 * opcodes, region accesses and their time), for the AML's share of a
 * DIMM's add-to-online latency.
 *
 * Context: boot (init), then main loop (the GPE work).
 */
#include <drivers/acpi.h>
#include <drivers/aml.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <kernel/time.h>
#include "memhp_aml.h"

static struct aml_ns *ns;				/* NULL: no AML slots */
static struct aml_node *dev_of[MEMHP_AML_MAX_SLOTS];	/* slot -> its device */
static unsigned nr_devs;

/* What this file's AML evaluations cost since boot (time by ktime_ns(),
 * opcodes and region accesses from the namespace's counters), and the
 * clock and those sums when the last GPE method run began, for
 * memhp_aml_spent() / memhp_aml_scan_began().  Main loop only: no lock. */
static struct memhp_aml_cost spent;
static u64 scan_began_ns;
static struct memhp_aml_cost scan_began_spent;

/* An evaluation's start: the clock and the namespace's counters. */
struct mark { u64 t0, ops, io, io_ns; };

static void mark_begin(struct mark *m)
{
	const struct aml_stats *st = aml_get_stats(ns);

	m->ops = st->ops;
	m->io = st->io_accesses;
	m->io_ns = st->io_ns;
	m->t0 = ktime_ns();
}

/* mark_end() - add what happened since mark_begin(m) to the sums. */
static void mark_end(const struct mark *m)
{
	u64 t1 = ktime_ns();
	const struct aml_stats *st = aml_get_stats(ns);

	spent.ns += t1 - m->t0;
	spent.ops += st->ops - m->ops;
	spent.io += st->io_accesses - m->io;
	spent.io_ns += st->io_ns - m->io_ns;
}

/* Notify()s seen while the GPE method ran, in order. */
static struct { struct aml_node *dev; u64 value; } queue[2 * MEMHP_AML_MAX_SLOTS];
static unsigned queued;
static bool queue_overflow;

static int add_dev(struct aml_ns *n, struct aml_node *dev, void *arg)
{
	u64 uid;

	(void)arg;
	if (aml_eval_integer(n, dev, "_UID", &uid) || uid >= MEMHP_AML_MAX_SLOTS) {
		char path[96];
		aml_node_path(dev, path, sizeof(path));
		pr_warn("acpi-memhp: %s: no usable _UID; not a slot", path);
		return 0;
	}
	if (!dev_of[uid])
		nr_devs++;
	dev_of[uid] = dev;
	return 0;
}

unsigned memhp_aml_init(void)
{
	ns = acpi_aml();
	nr_devs = 0;
	queued = 0;
	scan_began_ns = 0;	/* no GPE method run yet */
	memset(&scan_began_spent, 0, sizeof(scan_began_spent));
	memset(dev_of, 0, sizeof(dev_of));
	if (!ns)
		return 0;
	aml_walk_hid(ns, "PNP0C80", add_dev, NULL);
	if (!nr_devs)
		ns = NULL;
	return nr_devs;
}

static void fail(unsigned slot, const char *what)
{
	const struct aml_error *e = aml_last_error(ns);
	pr_warn("acpi-memhp: slot %u: %s failed: %s at 0x%x: %s", slot, what, e->path, e->offset,
		e->reason);
}

bool memhp_aml_has(unsigned slot)
{
	return ns && slot < MEMHP_AML_MAX_SLOTS && dev_of[slot];
}

bool memhp_aml_present(unsigned slot)
{
	struct mark m;
	u64 sta;
	int err;

	if (slot >= MEMHP_AML_MAX_SLOTS || !dev_of[slot])
		return false;
	mark_begin(&m);
	err = aml_device_status(ns, dev_of[slot], &sta);
	mark_end(&m);
	if (err) {
		fail(slot, "_STA");
		return false;
	}
	return sta & 1;
}

static u64 le(const u8 *p, unsigned n)
{
	u64 v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (u64)p[i] << (8 * i);
	return v;
}

/* The first memory range of a resource template: QWord (0x8a) or DWord
 * (0x87) address space of type memory, or a 32-bit fixed range (0x86). */
static bool crs_memory(const struct aml_obj *b, u64 *base, u64 *size)
{
	const u8 *d = b->buf.data;
	u32 i = 0, n = b->buf.len;

	while (i < n) {
		u8 t = d[i];
		if (!(t & 0x80)) {
			if ((t >> 3) == 0x0f)
				break;	/* End Tag */
			i += 1 + (t & 7);
			continue;
		}
		if (i + 3 > n)
			break;
		u32 len = (u32)le(d + i + 1, 2);
		if (i + 3 + len > n)
			break;
		const u8 *x = d + i + 3;
		if (t == 0x8a && len >= 43 && x[0] == 0) {
			*base = le(x + 11, 8);
			*size = le(x + 35, 8);
			return true;
		}
		if (t == 0x87 && len >= 23 && x[0] == 0) {
			*base = le(x + 7, 4);
			*size = le(x + 19, 4);
			return true;
		}
		if (t == 0x86 && len >= 9) {
			*base = le(x + 1, 4);
			*size = le(x + 5, 4);
			return true;
		}
		i += 3 + len;
	}
	return false;
}

/* range_of() - the slot's _CRS memory range and _PXM (0 when absent); 0 or
 * -1.  Context: (main). */
static int range_of(unsigned slot, u64 *base, u64 *size, u32 *pxm)
{
	struct aml_obj *crs = NULL;
	u64 p = 0;
	int r = -1;

	if (!memhp_aml_has(slot))
		return -1;
	if (aml_eval_at(ns, dev_of[slot], "_CRS", NULL, 0, &crs)) {
		fail(slot, "_CRS");
		return -1;
	}
	if (crs && crs->type == AML_BUFFER && crs_memory(crs, base, size))
		r = 0;
	else
		pr_warn("acpi-memhp: slot %u: _CRS holds no memory range", slot);
	aml_put(ns, crs);
	if (aml_child(dev_of[slot], "_PXM") && aml_eval_integer(ns, dev_of[slot], "_PXM", &p))
		fail(slot, "_PXM");
	*pxm = (u32)p;
	return r;
}

/* memhp_aml_range() - range_of(), its time added to the sum.  Context: (main). */
int memhp_aml_range(unsigned slot, u64 *base, u64 *size, u32 *pxm)
{
	struct mark m;
	int r;

	if (!memhp_aml_has(slot))
		return -1;
	mark_begin(&m);
	r = range_of(slot, base, size, pxm);
	mark_end(&m);
	return r;
}

void memhp_aml_ost(unsigned slot, u32 event, u32 status, const char *info)
{
	struct aml_obj *args[3];
	struct mark m;

	if (!memhp_aml_has(slot) || !aml_child(dev_of[slot], "_OST"))
		return;
	mark_begin(&m);
	args[0] = aml_new_integer(ns, event);
	args[1] = aml_new_integer(ns, status);
	args[2] = aml_new_string(ns, info ? info : "");
	if (args[0] && args[1] && args[2] && aml_eval_at(ns, dev_of[slot], "_OST", args, 3, NULL))
		fail(slot, "_OST");
	for (unsigned i = 0; i < 3; i++)
		aml_put(ns, args[i]);
	mark_end(&m);
}

void memhp_aml_eject(unsigned slot)
{
	struct aml_obj *zero;
	struct mark m;

	if (!memhp_aml_has(slot))
		return;
	mark_begin(&m);

	zero = aml_new_integer(ns, 0);
	if (zero && aml_eval_at(ns, dev_of[slot], "_EJ0", &zero, 1, NULL))
		fail(slot, "_EJ0");
	aml_put(ns, zero);
	mark_end(&m);
}

/* The notify handler while the GPE method runs: queue it. */
static void queue_notify(struct aml_node *dev, u64 value)
{
	if (queued == ARRAY_SIZE(queue)) {
		queue_overflow = true;
		return;
	}
	queue[queued].dev = dev;
	queue[queued++].value = value;
}

/* memhp_aml_spent() - what this file's evaluations cost since boot.
 * Context: (main). */
void memhp_aml_spent(struct memhp_aml_cost *out)
{
	*out = spent;
}

/* memhp_aml_scan_began() - when the last GPE method run began, and the
 * sums above then (0 and zeroes before the first).  Context: (main). */
void memhp_aml_scan_began(u64 *when_ns, struct memhp_aml_cost *then)
{
	*when_ns = scan_began_ns;
	*then = scan_began_spent;
}

/* The paths of the GPE's methods, made once per GPE number (formatting
 * them took more than the lookups).  Main loop only: no lock. */
static unsigned paths_gpe = ~0u;
static char edge[12], level[12];

unsigned memhp_aml_scan(unsigned gpe, void (*event)(unsigned slot, u64 value))
{
	unsigned delivered = 0;

	if (gpe != paths_gpe) {
		ksnprintf(edge, sizeof(edge), "\\_GPE._E%02X", gpe);
		ksnprintf(level, sizeof(level), "\\_GPE._L%02X", gpe);
		paths_gpe = gpe;
	}
	const char *m = aml_lookup(ns, NULL, edge) ? edge : aml_lookup(ns, NULL, level) ? level : NULL;
	if (!m) {
		pr_warn("acpi-memhp: no \\_GPE._E%02X or _L%02X method", gpe, gpe);
		return 0;
	}
	queued = 0;
	queue_overflow = false;
	struct mark mk;

	scan_began_spent = spent;
	mark_begin(&mk);
	scan_began_ns = mk.t0;
	acpi_aml_set_notify(queue_notify);
	int err = aml_eval(ns, m, NULL, 0, NULL);
	acpi_aml_set_notify(NULL);
	mark_end(&mk);
	if (err) {
		const struct aml_error *e = aml_last_error(ns);
		pr_warn("acpi-memhp: %s failed: %s at 0x%x: %s", m, e->path, e->offset, e->reason);
	}
	if (queue_overflow)
		pr_warn("acpi-memhp: more than %u notifications in one GPE: some lost",
			(unsigned)ARRAY_SIZE(queue));
	for (unsigned i = 0; i < queued; i++)
		for (unsigned s = 0; s < MEMHP_AML_MAX_SLOTS; s++)
			if (dev_of[s] == queue[i].dev) {
				event(s, queue[i].value);
				delivered++;
			}
	return delivered;
}

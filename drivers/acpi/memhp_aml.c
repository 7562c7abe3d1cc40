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
 * The time spent in these evaluations is summed (memhp_aml_spent_ns()),
 * for the AML's share of a DIMM's add-to-online latency.
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

/* Time spent in this file's AML evaluations, since boot (ktime_ns()), and
 * the clock and that sum when the last GPE method run began, for
 * memhp_aml_spent_ns() / memhp_aml_scan_began().  Main loop only: no lock. */
static u64 spent_ns;
static u64 scan_began_ns, scan_began_spent;

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
	scan_began_ns = scan_began_spent = 0;	/* no GPE method run yet */
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
	u64 sta, t0;
	int err;

	if (slot >= MEMHP_AML_MAX_SLOTS || !dev_of[slot])
		return false;
	t0 = ktime_ns();
	err = aml_device_status(ns, dev_of[slot], &sta);
	spent_ns += ktime_ns() - t0;
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
	u64 t0 = ktime_ns();
	int r = range_of(slot, base, size, pxm);

	spent_ns += ktime_ns() - t0;
	return r;
}

void memhp_aml_ost(unsigned slot, u32 event, u32 status, const char *info)
{
	struct aml_obj *args[3];
	u64 t0 = ktime_ns();

	if (!memhp_aml_has(slot) || !aml_child(dev_of[slot], "_OST"))
		return;
	args[0] = aml_new_integer(ns, event);
	args[1] = aml_new_integer(ns, status);
	args[2] = aml_new_string(ns, info ? info : "");
	if (args[0] && args[1] && args[2] && aml_eval_at(ns, dev_of[slot], "_OST", args, 3, NULL))
		fail(slot, "_OST");
	for (unsigned i = 0; i < 3; i++)
		aml_put(ns, args[i]);
	spent_ns += ktime_ns() - t0;
}

void memhp_aml_eject(unsigned slot)
{
	struct aml_obj *zero;

	if (!memhp_aml_has(slot))
		return;
	u64 t0 = ktime_ns();

	zero = aml_new_integer(ns, 0);
	if (zero && aml_eval_at(ns, dev_of[slot], "_EJ0", &zero, 1, NULL))
		fail(slot, "_EJ0");
	aml_put(ns, zero);
	spent_ns += ktime_ns() - t0;
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

/* memhp_aml_spent_ns() - the time this file's evaluations took since
 * boot.  Context: (main). */
u64 memhp_aml_spent_ns(void)
{
	return spent_ns;
}

/* memhp_aml_scan_began() - when the last GPE method run began, and the
 * sum above then (0, 0 before the first).  Context: (main). */
void memhp_aml_scan_began(u64 *when_ns, u64 *spent)
{
	*when_ns = scan_began_ns;
	*spent = scan_began_spent;
}

unsigned memhp_aml_scan(unsigned gpe, void (*event)(unsigned slot, u64 value))
{
	char edge[12], level[12];
	unsigned delivered = 0;

	ksnprintf(edge, sizeof(edge), "\\_GPE._E%02X", gpe);
	ksnprintf(level, sizeof(level), "\\_GPE._L%02X", gpe);
	const char *m = aml_lookup(ns, NULL, edge) ? edge : aml_lookup(ns, NULL, level) ? level : NULL;
	if (!m) {
		pr_warn("acpi-memhp: no \\_GPE._E%02X or _L%02X method", gpe, gpe);
		return 0;
	}
	queued = 0;
	queue_overflow = false;
	scan_began_ns = ktime_ns();
	scan_began_spent = spent_ns;
	acpi_aml_set_notify(queue_notify);
	int err = aml_eval(ns, m, NULL, 0, NULL);
	acpi_aml_set_notify(NULL);
	spent_ns += ktime_ns() - scan_began_ns;
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

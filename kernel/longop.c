/*
 * longop.c - the running list of long operations and the slice loop that
 * the console's idle point calls.
 *
 * The list is touched only from the main loop, so it needs no lock.  An
 * operation whose step() says it is done is unlinked before the next one
 * runs; step() may start other operations (they run from the next slice).
 * The memory an operation changes is claimed in mm (mm/range_claim.c);
 * while its step() runs the operation is mm's current holder, and its
 * claim goes when it leaves the list.
 */
#include <kernel/longop.h>
#include <kernel/time.h>
#include <lib/printk.h>
#include <mm/page.h>

static struct longop *running_ops;	/* (main), one CPU */

void longop_start(struct longop *op)
{
	struct longop **pp = &running_ops;

	if (op->running)
		return;
	op->running = true;
	op->waiting = false;
	op->start_ns = ktime_ns();
	op->slices = 0;
	op->worst_slice_ns = 0;
	op->next = NULL;
	while (*pp)
		pp = &(*pp)->next;
	*pp = op;
}

/* Run one slice of op; returns true while it has more to do. */
static bool longop_slice(struct longop *op)
{
	u64 t0 = ktime_ns();
	struct range_claim *outer = range_claim_set_current(&op->claim);
	bool more;
	u64 spent;

	op->waiting = false;
	more = op->step(op, t0 + LONGOP_SLICE_NS);
	range_claim_set_current(outer);
	spent = ktime_ns() - t0;

	op->slices++;
	if (spent > op->worst_slice_ns)
		op->worst_slice_ns = spent;
	return more;
}

bool longop_run_slice(void)
{
	struct longop **pp = &running_ops;

	while (*pp) {
		struct longop *op = *pp;

		if (longop_slice(op)) {
			pp = &op->next;
			continue;
		}
		op->running = false;
		*pp = op->next;
		op->next = NULL;
		range_release(&op->claim);
	}
	return running_ops != NULL;
}

bool longop_any_running(void)
{
	return running_ops != NULL;
}

const struct longop *longop_next(const struct longop *op)
{
	return op ? op->next : running_ops;
}

bool longop_any_working(void)
{
	for (struct longop *op = running_ops; op; op = op->next)
		if (!op->waiting)
			return true;
	return false;
}

void longop_cancel(struct longop *op)
{
	struct longop **pp;

	if (!op->running)
		return;
	for (pp = &running_ops; *pp; pp = &(*pp)->next)
		if (*pp == op) {
			*pp = op->next;
			break;
		}
	op->running = false;
	op->next = NULL;
	range_release(&op->claim);
}

void longop_finish(struct longop *op)
{
	if (!op->running)
		return;
	while (longop_slice(op))
		;
	longop_cancel(op);	/* unlink: it is done */
}

int longop_claim(struct longop *op, u64 start, u64 end)
{
	return range_claim(&op->claim, PFN_DOWN(start), PFN_UP(end), op->name, op);
}

struct longop *longop_range_busy(u64 start, u64 end)
{
	const struct range_claim *c = range_claim_holder(PFN_DOWN(start), PFN_UP(end));

	for (struct longop *op = running_ops; c && op; op = op->next)
		if (&op->claim == c)
			return op;
	return NULL;
}

const struct range_claim *longop_wait_range(struct longop *op, u64 start, u64 end)
{
	const struct range_claim *other = range_claim_holder(PFN_DOWN(start), PFN_UP(end));

	if (other) {
		op->waiting = true;
		range_release(&op->claim);
		return other;
	}
	longop_claim(op, start, end);
	return NULL;
}

void longop_dump(struct printer *p)
{
	u64 now = ktime_ns();

	if (!running_ops) {
		pr_printf(p, "long operations: none\n");
		return;
	}
	pr_printf(p, "long operations:\n");
	for (struct longop *op = running_ops; op; op = op->next) {
		u64 ms = (now - op->start_ns) / 1000000;

		pr_printf(p, "  %-32s ", op->name);
		if (op->total)
			pr_printf(p, "%llu/%llu %s", (unsigned long long)op->done,
				  (unsigned long long)op->total, op->unit ? op->unit : "units");
		else
			pr_printf(p, "running");
		pr_printf(p, ", %llu.%03llu s, %llu slices, worst %llu us%s\n",
			  (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000),
			  (unsigned long long)op->slices,
			  (unsigned long long)(op->worst_slice_ns / 1000),
			  op->waiting ? ", waiting" : "");
	}
}

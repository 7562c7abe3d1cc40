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
 *
 * `work pause` holds the list where it stands (longop_pause()): the idle
 * point passes over every operation but a foreground one, and `work step
 * N` gives each held operation N slices of one unit each.
 */
#include <kernel/longop.h>
#include <kernel/time.h>
#include <lib/printk.h>
#include <mm/page.h>

static struct longop *running_ops;	/* (main), one CPU */
static bool paused;			/* `work pause`: (main) */
static u64 paused_at_ns;		/* ktime_ns() at longop_pause(): (main) */

/* Whether the idle point passes over op: paused, and nobody waits for it
 * at the prompt. */
static bool held(const struct longop *op)
{
	return paused && !op->foreground;
}

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
	if (held(op))
		pr_info("work: %s is held (`work pause`): `work step [N]` or `work resume`",
			op->name);
}

/* Run one slice of op, of at most budget_ns (0: one unit, the deadline
 * passed before it starts); returns true while it has more to do. */
static bool longop_slice(struct longop *op, u64 budget_ns)
{
	u64 t0 = ktime_ns();
	struct range_claim *outer = range_claim_set_current(&op->claim);
	bool more;
	u64 spent;

	op->waiting = false;
	more = op->step(op, budget_ns ? t0 + budget_ns : 0);
	range_claim_set_current(outer);
	spent = ktime_ns() - t0;

	op->slices++;
	if (spent > op->worst_slice_ns)
		op->worst_slice_ns = spent;
	return more;
}

/* One slice of the operation at *pp; unlinks it when it is done.  The
 * link to go on from. */
static struct longop **slice_at(struct longop **pp, u64 budget_ns)
{
	struct longop *op = *pp;

	if (longop_slice(op, budget_ns))
		return &op->next;
	op->running = false;
	*pp = op->next;
	op->next = NULL;
	range_release(&op->claim);
	return pp;
}

/*
 * One round of the idle point: a slice of every operation not held.  The
 * round together stays about LONGOP_SLICE_NS: with several operations
 * running (a lazy plug's resize beside its deferred memmap init) each gets
 * its share, so a line typed meanwhile waits about one slice's time
 * (plus the units that end past their deadlines), not one per operation.
 */
bool longop_run_slice(void)
{
	struct longop **pp = &running_ops;
	unsigned n = 0;
	u64 budget;

	for (struct longop *op = running_ops; op; op = op->next)
		n += !held(op);
	budget = n > 1 ? LONGOP_SLICE_NS / n : LONGOP_SLICE_NS;
	while (*pp) {
		if (held(*pp))
			pp = &(*pp)->next;
		else
			pp = slice_at(pp, budget);
	}
	return running_ops != NULL;
}

bool longop_pause(void)
{
	if (paused)
		return false;
	paused = true;
	paused_at_ns = ktime_ns();
	return true;
}

bool longop_resume(void)
{
	if (!paused)
		return false;
	paused = false;
	return true;
}

unsigned longop_step(unsigned n)
{
	unsigned round;

	for (round = 0; round < n && paused; round++) {
		struct longop **pp = &running_ops;
		bool any = false;

		while (*pp) {
			if (!held(*pp)) {
				pp = &(*pp)->next;
				continue;
			}
			any = true;
			pp = slice_at(pp, 0);
		}
		if (!any)
			break;
	}
	return round;
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
		if (!op->waiting && !held(op))
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
	while (longop_slice(op, LONGOP_SLICE_NS))
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

	if (paused) {
		u64 ms = (now - paused_at_ns) / 1000000;

		if (running_ops)
			pr_printf(p, "long operations (paused for %llu.%03llu s: `work step [N]`, "
				  "`work resume`):\n", (unsigned long long)(ms / 1000),
				  (unsigned long long)(ms % 1000));
		else
			pr_printf(p, "long operations: none (paused for %llu.%03llu s: a new one "
				  "waits for `work step [N]` or `work resume`)\n",
				  (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000));
		if (!running_ops)
			return;
	} else if (!running_ops) {
		pr_printf(p, "long operations: none\n");
		return;
	} else {
		pr_printf(p, "long operations:\n");
	}
	for (struct longop *op = running_ops; op; op = op->next) {
		u64 ms = (now - op->start_ns) / 1000000;

		pr_printf(p, "  %-32s ", op->name);
		if (op->total)
			pr_printf(p, "%llu/%llu %s", (unsigned long long)op->done,
				  (unsigned long long)op->total, op->unit ? op->unit : "units");
		else
			pr_printf(p, "running");
		pr_printf(p, ", %llu.%03llu s, %llu slices, worst %llu us%s%s\n",
			  (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000),
			  (unsigned long long)op->slices,
			  (unsigned long long)(op->worst_slice_ns / 1000),
			  held(op) ? ", held" : "",
			  op->waiting ? ", waiting" : "");
	}
}

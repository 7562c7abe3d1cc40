/*
 * workqueue.c - deferred work and pollers, run by the main loop.
 *
 * The queue is a singly linked FIFO of struct work; schedule_work() appends
 * with interrupts disabled so an interrupt handler and the main loop never
 * see it half-updated.  run_pending_work() detaches one item at a time and
 * runs it with interrupts enabled.
 */
#include <kernel/workqueue.h>
#include <kernel/time.h>
#include <shell/shell.h>
#include <lib/printk.h>
#include <arch/cpu.h>

static struct work *queue_head, *queue_tail;
static struct poller *pollers;

void schedule_work(struct work *w)
{
	bool was_on = irqs_enabled();

	irq_disable();
	if (!w->pending) {
		w->pending = true;
		w->next = NULL;
		if (queue_tail)
			queue_tail->next = w;
		else
			queue_head = w;
		queue_tail = w;
	}
	if (was_on)
		irq_enable();
}

bool work_pending_any(void)
{
	return queue_head != NULL;
}

unsigned run_pending_work(void)
{
	unsigned ran = 0;

	for (;;) {
		bool was_on = irqs_enabled();
		struct work *w;

		irq_disable();
		w = queue_head;
		if (w) {
			queue_head = w->next;
			if (!queue_head)
				queue_tail = NULL;
			w->pending = false;
		}
		if (was_on)
			irq_enable();
		if (!w)
			return ran;
		w->runs++;
		w->fn(w);
		ran++;
	}
}

void register_poller(struct poller *p)
{
	p->next_tick = jiffies() + p->period;
	p->next = pollers;
	pollers = p;
}

void run_pollers(void)
{
	u64 now = jiffies();

	for (struct poller *p = pollers; p; p = p->next) {
		if (now < p->next_tick)
			continue;
		p->next_tick = now + p->period;
		p->calls++;
		p->fn();
	}
}

static int cmd_work(struct printer *out, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("work"));
	pr_printf(out, "pollers (every N ticks of 10 ms):\n");
	for (struct poller *p = pollers; p; p = p->next)
		pr_printf(out, "  %-24s every %u, %llu calls\n", p->name, p->period,
			  (unsigned long long)p->calls);
	pr_printf(out, "pending work: %s\n", queue_head ? queue_head->name : "none");
	return 0;
}

SHELL_COMMAND(work, .name = "work", .usage = "work",
	      .summary = "list the pollers and pending deferred work",
	      .help = "Interrupt handlers only schedule work; the main loop runs it\n"
		      "between shell input bytes and while idle.  Pollers are called\n"
		      "every few timer ticks where an interrupt cannot be wired.",
	      .fn = cmd_work);

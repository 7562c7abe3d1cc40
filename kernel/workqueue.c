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

void workqueue_dump(struct printer *p)
{
	pr_printf(p, "pollers (every N ticks of 10 ms):\n");
	for (struct poller *q = pollers; q; q = q->next)
		pr_printf(p, "  %-24s every %u, %llu calls\n", q->name, q->period,
			  (unsigned long long)q->calls);
	pr_printf(p, "pending work: %s\n", queue_head ? queue_head->name : "none");
}

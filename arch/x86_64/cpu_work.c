/*
 * cpu_work.c - the APs' work queues (contract and lock story in
 * arch/x86_64/include/arch/cpu_work.h).
 *
 * One struct cpu_queue per CPU memlab starts, CPU 0's unused.  Queueing
 * appends under the queue's lock and sends the AP the call IPI
 * (smp_kick()), whose handler finds no call and returns; the AP's idle
 * loop (arch/x86_64/smp.c) then sees cpu_work_pending() and calls
 * cpu_work_run().  An item's state moves IDLE/DONE -> QUEUED (queuer) ->
 * RUNNING (the AP, as it takes it off the list) -> DONE (the AP, after fn
 * returned), each change under the queue's lock.
 */
#include <arch/cpu_work.h>
#include <arch/smp.h>
#include <arch/time.h>
#include <lib/lock.h>
#include <lib/errno.h>

struct cpu_queue {
	struct spinlock lock;
	struct cpu_work *head, *tail;	/* (lock) waiting items, FIFO */
	struct cpu_work *running;	/* (lock) the item fn runs for, or NULL */
	unsigned queued;		/* (lock) items on the list */
	u64 ran;			/* (lock) items run */
};

static struct cpu_queue queues[SMP_MAX_CPUS] = {
	[0 ... SMP_MAX_CPUS - 1] = { .lock = SPINLOCK_INIT("cpu work queue") },
};

/* Append w to cpu's queue; false if w is queued or running already. */
static bool enqueue(unsigned cpu, struct cpu_work *w)
{
	struct cpu_queue *q = &queues[cpu];
	unsigned long flags = spin_lock_irqsave(&q->lock);
	u32 st = __atomic_load_n(&w->state, __ATOMIC_RELAXED);
	bool ok = st != CPU_WORK_QUEUED && st != CPU_WORK_RUNNING;

	if (ok) {
		w->cpu = cpu;
		w->next = NULL;
		w->start_ns = w->end_ns = 0;
		__atomic_store_n(&w->state, CPU_WORK_QUEUED, __ATOMIC_RELAXED);
		if (q->tail)
			q->tail->next = w;
		else
			q->head = w;
		q->tail = w;
		q->queued++;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return ok;
}

/* Is cpu an AP that is online? */
static bool ap_online(unsigned cpu)
{
	const struct percpu *pc = smp_cpu(cpu);

	return pc && pc->state == CPU_ONLINE;
}

int queue_work_on(unsigned cpu, struct cpu_work *w)
{
	if (cpu == 0 || cpu >= SMP_MAX_CPUS || cpu >= smp_nr_cpus() || !w->fn)
		return -EINVAL;
	if (!ap_online(cpu))
		return -ENODEV;
	if (!enqueue(cpu, w))
		return -EBUSY;
	smp_kick(cpu);
	return 0;
}

int queue_work_idle(struct cpu_work *w)
{
	for (unsigned cpu = 1; cpu < smp_nr_cpus() && cpu < SMP_MAX_CPUS; cpu++) {
		struct cpu_queue *q = &queues[cpu];
		unsigned long flags;
		bool idle;

		if (!ap_online(cpu) || smp_work_running(cpu))
			continue;
		flags = spin_lock_irqsave(&q->lock);
		idle = !q->running && !q->head;
		spin_unlock_irqrestore(&q->lock, flags);
		if (idle)	/* it may have got work meanwhile: then w waits behind it */
			return queue_work_on(cpu, w) ?: (int)cpu;
	}
	return -EBUSY;
}

bool cpu_work_done(const struct cpu_work *w)
{
	return __atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == CPU_WORK_DONE;
}

bool cpu_work_pending(unsigned cpu)
{
	return cpu < SMP_MAX_CPUS && __atomic_load_n(&queues[cpu].head, __ATOMIC_RELAXED);
}

unsigned cpu_work_run(unsigned cpu)
{
	struct cpu_queue *q = &queues[cpu];
	unsigned ran = 0;

	for (;;) {
		unsigned long flags = spin_lock_irqsave(&q->lock);
		struct cpu_work *w = q->head;

		if (w) {
			q->head = w->next;
			if (!q->head)
				q->tail = NULL;
			q->queued--;
			q->running = w;
			w->start_ns = ktime_ns();
			__atomic_store_n(&w->state, CPU_WORK_RUNNING, __ATOMIC_RELAXED);
		}
		spin_unlock_irqrestore(&q->lock, flags);
		if (!w)
			return ran;
		lock_assert_none_held("cpu_work_run: before an item");
		w->fn(w);
		lock_assert_none_held("cpu_work_run: an item returned");
		flags = spin_lock_irqsave(&q->lock);
		q->running = NULL;
		q->ran++;
		w->end_ns = ktime_ns();
		__atomic_store_n(&w->state, CPU_WORK_DONE, __ATOMIC_RELEASE);
		spin_unlock_irqrestore(&q->lock, flags);
		ran++;
	}
}

const char *cpu_work_current(unsigned cpu)
{
	const char *name = NULL;
	unsigned long flags;

	if (cpu >= SMP_MAX_CPUS)
		return NULL;
	flags = spin_lock_irqsave(&queues[cpu].lock);
	if (queues[cpu].running)
		name = queues[cpu].running->name;
	spin_unlock_irqrestore(&queues[cpu].lock, flags);
	return name;
}

unsigned cpu_work_queued(unsigned cpu)
{
	return cpu < SMP_MAX_CPUS ? __atomic_load_n(&queues[cpu].queued, __ATOMIC_RELAXED) : 0;
}

u64 cpu_work_ran(unsigned cpu)
{
	return cpu < SMP_MAX_CPUS ? __atomic_load_n(&queues[cpu].ran, __ATOMIC_RELAXED) : 0;
}

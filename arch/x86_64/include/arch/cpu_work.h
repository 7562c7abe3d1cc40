/*
 * arch/cpu_work.h - work queues of the other CPUs: background work that runs on
 * an AP while CPU 0 keeps the main loop (and so the shell) answering.
 *
 * Each AP has a FIFO of struct cpu_work.  queue_work_on(cpu, w) appends w
 * to cpu's queue and wakes it (the call IPI); the AP's idle loop takes one
 * item at a time from its queue and runs w->fn(w) with interrupts on
 * until it returns, then marks it done.  queue_work_idle(w) picks an AP
 * that runs nothing and has nothing queued ("any idle CPU").  CPU 0 has
 * no queue of its own: its work is the main loop's (workqueue.h).
 *
 * The lock story.  Each queue has one spinlock, "cpu work queue", taken
 * with interrupts off by a CPU that queues (any CPU) and by the queue's
 * AP when it takes the next item or finishes one; it guards the list
 * links, the queue's `running` pointer and the item's state.  It is a
 * leaf: nothing else is taken under it, and w->fn() runs without it.  An
 * item is on at most one queue: queueing an item that is queued or
 * running fails (-EBUSY), so its fields have one owner at a time (the
 * queue while queued, the running CPU while it runs, the queuer once
 * done).  cpu_work_done() reads the state with an acquire load, so what
 * fn wrote before it returned is visible to whoever sees it done.
 *
 * fn must end by itself (a count, a flag it polls) and may take locks, run
 * mm and printk(); it must not wait for CPU 0's main loop (which may be
 * waiting for it).  The item's memory must outlive its run.
 *
 * Context: queue_work_on(), queue_work_idle(), cpu_work_done() from any
 * CPU, not from an interrupt handler; the rest from the main loop.
 */
#ifndef ARCH_CPU_WORK_H
#define ARCH_CPU_WORK_H

#include <lib/types.h>

enum cpu_work_state {
	CPU_WORK_IDLE,		/* never queued */
	CPU_WORK_QUEUED,	/* on a CPU's queue */
	CPU_WORK_RUNNING,	/* its fn runs on w->cpu */
	CPU_WORK_DONE,		/* its fn returned on w->cpu */
};

struct cpu_work {
	void (*fn)(struct cpu_work *w);	/* runs on the AP, interrupts on */
	const char *name;		/* for `cpus` and messages */
	void *arg;			/* fn's */
	volatile u32 state;		/* enum cpu_work_state (queue lock; acquire/release) */
	u32 cpu;			/* the CPU it was queued on */
	struct cpu_work *next;		/* queue link while queued (queue lock) */
	u64 start_ns, end_ns;		/* ktime_ns() when fn began and returned */
};

/*
 * queue_work_on() - run w on AP cpu, after what is queued there already.
 * Returns 0; -EINVAL for CPU 0, past the CPUs memlab knows, or no w->fn; -ENODEV for
 * a CPU that is not online; -EBUSY when w is queued or running.
 */
int queue_work_on(unsigned cpu, struct cpu_work *w);

/*
 * queue_work_idle() - run w on an online AP that runs nothing and has
 * nothing queued, the lowest such; returns its number, or -EBUSY when none
 * is idle (or w is queued or running).
 */
int queue_work_idle(struct cpu_work *w);

/* cpu_work_done() - has w's fn returned (since it was last queued)? */
bool cpu_work_done(const struct cpu_work *w);

/*
 * cpu_work_run() - the AP's side: run every item on cpu's queue, one after
 * the other, with interrupts on; returns how many ran.  cpu_work_pending()
 * - is anything queued on cpu (the idle loop asks with interrupts off,
 * then halts only if not).  Context: AP cpu itself, its idle loop.
 */
unsigned cpu_work_run(unsigned cpu);
bool cpu_work_pending(unsigned cpu);

/*
 * cpu_work_current() - the name of the item running on cpu, or NULL;
 * cpu_work_queued() - the items waiting on cpu; cpu_work_ran() - the
 * items cpu ran.  For `cpus`.  Context: any (a snapshot).
 */
const char *cpu_work_current(unsigned cpu);
unsigned cpu_work_queued(unsigned cpu);
u64 cpu_work_ran(unsigned cpu);

#endif

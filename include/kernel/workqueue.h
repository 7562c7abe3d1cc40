/*
 * workqueue.h - work deferred from interrupt handlers to the main loop.
 *
 * An interrupt handler must be short and must not take part in memory
 * hotplug, so it only records that something happened: schedule_work()
 * marks a work item pending.  The main loop (the shell, between input bytes,
 * and while idle) calls run_pending_work(), which runs each pending item's
 * function once, in the order they were scheduled.  An item scheduled again
 * while pending runs once.
 *
 * Pollers are functions the main loop calls every `period` timer ticks; they
 * stand in for an interrupt that cannot be wired (or back it up).
 *
 * Context: schedule_work() from (any); the rest from (main).
 */
#ifndef KERNEL_WORKQUEUE_H
#define KERNEL_WORKQUEUE_H

#include <lib/types.h>

struct work {
	void (*fn)(struct work *w);	/* runs in the main loop */
	const char *name;		/* for `work` and messages */
	volatile bool pending;		/* scheduled, not yet run */
	struct work *next;		/* queue link while pending */
	u64 runs;			/* times run */
};

#define WORK_INIT(fn_, name_) { .fn = (fn_), .name = (name_) }

void schedule_work(struct work *w);

/* run_pending_work() - run what is pending now; returns how many ran. */
unsigned run_pending_work(void);

/* work_pending_any() - true if something is waiting (idle loop check). */
bool work_pending_any(void);

struct poller {
	void (*fn)(void);	/* called from the main loop */
	const char *name;	/* for `work` */
	u32 period;		/* in timer ticks (10 ms) */
	u64 next_tick;		/* when to call next */
	u64 calls;		/* times called */
	struct poller *next;	/* list link */
};

/* register_poller() - call p->fn every p->period ticks from the main loop. */
void register_poller(struct poller *p);

/* run_pollers() - call the pollers that are due; from the main loop. */
void run_pollers(void);

/* workqueue_dump() - the pollers (period, calls) and the first pending work
 * item; the text of `work`.  Context: main loop. */
struct printer;
void workqueue_dump(struct printer *p);

#endif

/*
 * kthread.h - cooperative kernel threads: a function that runs on a stack
 * of its own and hands the CPU back at points it chooses.
 *
 * memlab's main loop runs everything else as bounded steps (longop.h): a
 * step function keeps its place in a struct and returns.  That suits work
 * cut into units by a cursor (a device's blocks), but not a shell command
 * whose place is a nest of loops and half-printed tables, such as a
 * benchmark.  Such code runs as a kthread instead: kthread_run() switches
 * to the thread's stack, the thread runs until it calls kthread_yield()
 * (or returns), and kthread_run() returns to its caller with the thread's
 * whole state (locals, call chain) kept on that stack for the next turn.
 *
 * Nothing is preemptive: a thread runs only inside kthread_run() and stops
 * only where it yields, so between two turns it is never in the middle of
 * anything it did not choose.  That is what lets a thread and the rest of
 * the kernel share memory without locks: each yield point must leave the
 * state it touches consistent, as the shell's checkpoints do
 * (shell_checkpoint() in shell.h), and hold no lock (lib/lock.h):
 * kthread_yield(), kthread_run() and a thread's end panic, naming the
 * held locks, if one is.
 *
 * The stack is the caller's memory, at least KTHREAD_MIN_STACK bytes; its
 * lowest word holds a canary that kthread_run() checks after every turn.
 * The shell maps its job stack with an unmapped page below it, so an
 * overflow faults at once instead of corrupting what lies below.
 *
 * Context: kthread_init() and kthread_run() from (main), never from inside
 * a thread (threads do not nest); kthread_yield() and kthread_current()
 * from anywhere.
 */
#ifndef KERNEL_KTHREAD_H
#define KERNEL_KTHREAD_H

#include <lib/types.h>

#define KTHREAD_MIN_STACK	4096
#define KTHREAD_CANARY		0x216461657268746bULL	/* "kthread!" */

struct kthread {
	const char *name;	/* for panics and traces */
	void (*fn)(void *arg);	/* what the thread runs; returning ends it */
	void *arg;		/* fn's argument */
	u64 *stack_lo;		/* lowest word of its stack: the canary */
	u64 *stack_hi;		/* one past its highest word */
	u64 sp;			/* its saved stack pointer while switched out */
	u64 caller_sp;		/* kthread_run()'s stack pointer while it runs */
	u64 deadline_ns;	/* ktime_ns() at which its current turn should end */
	u64 turns;		/* kthread_run() calls so far */
	bool finished;		/* fn returned: never runs again */
};

/*
 * kthread_init() - prepare t to run fn(arg) on [stack, stack + size)
 * (16-byte aligned, size >= KTHREAD_MIN_STACK) from its first
 * kthread_run().  A finished thread may be initialised again.
 */
void kthread_init(struct kthread *t, const char *name, void *stack, size_t size,
		  void (*fn)(void *arg), void *arg);

/*
 * kthread_run() - give t a turn: switch to it and come back when it yields
 * or returns.  deadline_ns is only advice, for kthread_turn_over().
 * Returns true while t has more to do, false once fn has returned.  Panics,
 * with the values, when t's stack canary was overwritten.
 */
bool kthread_run(struct kthread *t, u64 deadline_ns);

/* kthread_current() - the thread running now, or NULL on the main stack. */
struct kthread *kthread_current(void);

/* kthread_yield() - end the current thread's turn (no-op on the main
 * stack); returns when kthread_run() gives it the next one. */
void kthread_yield(void);

/* kthread_turn_over() - is there a current thread whose deadline passed? */
bool kthread_turn_over(void);

#endif

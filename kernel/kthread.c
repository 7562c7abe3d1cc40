/*
 * kthread.c - cooperative kernel threads (contract in kthread.h).
 *
 * A switch is two calls of kthread_switch() (arch/x86_64/kthread_switch.asm)
 * that pass each other: kthread_run() saves the main stack's pointer in
 * t->caller_sp and loads t->sp; kthread_yield() saves the thread's pointer
 * in t->sp and loads t->caller_sp.  Each side therefore resumes inside its
 * own kthread_switch() call, as if that call had simply returned.
 *
 * A thread that has never run has no kthread_switch() call to resume in,
 * so kthread_init() builds the frame such a call would have left: six
 * register slots (r12 = the thread, rbp = 0) and a return address,
 * kthread_entry, which calls kthread_main().
 *
 * Context: see kthread.h.  Only the main loop starts turns, so `current`
 * needs no lock.
 */
#include <kernel/kthread.h>
#include <kernel/time.h>
#include <lib/printk.h>
#include <lib/lock.h>

void kthread_switch(u64 *save_sp, u64 next_sp);	/* arch/x86_64/kthread_switch.asm */
void kthread_entry(void);			/* ditto: a new thread's first return */
void kthread_main(struct kthread *t) __noreturn;

static struct kthread *current;

/* Slots of the first frame, lowest address first: kthread_switch() pops
 * r15, r14, r13, r12, rbx, rbp, then returns. */
enum { F_R15, F_R14, F_R13, F_R12, F_RBX, F_RBP, F_RET, F_WORDS };

void kthread_init(struct kthread *t, const char *name, void *stack, size_t size,
		  void (*fn)(void *arg), void *arg)
{
	u64 *lo = stack, *hi = (u64 *)((char *)stack + size), *frame;

	if (((uintptr_t)stack | size) & 15 || size < KTHREAD_MIN_STACK)
		panic("kthread %s: stack %p size %zu: need 16-byte alignment and >= %u bytes",
		      name, stack, size, KTHREAD_MIN_STACK);
	if (t == current)
		panic("kthread %s: initialised while it runs", name);
	t->name = name;
	t->fn = fn;
	t->arg = arg;
	t->stack_lo = lo;
	t->stack_hi = hi;
	t->turns = 0;
	t->finished = false;
	*lo = KTHREAD_CANARY;
	/* the return lands at hi: 16-byte aligned, as kthread_entry's call needs */
	frame = hi - F_WORDS;
	for (int i = 0; i < F_WORDS; i++)
		frame[i] = 0;
	frame[F_R12] = (u64)(uintptr_t)t;
	frame[F_RET] = (u64)(uintptr_t)kthread_entry;
	t->sp = (u64)(uintptr_t)frame;
}

/* The bottom of every thread: run fn, then leave for good. */
void kthread_main(struct kthread *t)
{
	t->fn(t->arg);
	lock_assert_none_held("kthread_main: a thread ended");
	t->finished = true;
	kthread_switch(&t->sp, t->caller_sp);
	panic("kthread %s: a finished thread was switched to", t->name);
}

bool kthread_run(struct kthread *t, u64 deadline_ns)
{
	if (current)
		panic("kthread_run(%s) from inside kthread %s: threads do not nest",
		      t->name, current->name);
	if (t->finished)
		return false;
	lock_assert_none_held("kthread_run");
	t->deadline_ns = deadline_ns;
	t->turns++;
	current = t;
	kthread_switch(&t->caller_sp, t->sp);
	current = NULL;
	if (*t->stack_lo != KTHREAD_CANARY)
		panic("kthread %s: stack overflow: the canary at %p reads %#llx (stack %p-%p)",
		      t->name, (void *)t->stack_lo, (unsigned long long)*t->stack_lo,
		      (void *)t->stack_lo, (void *)t->stack_hi);
	return !t->finished;
}

struct kthread *kthread_current(void)
{
	return current;
}

void kthread_yield(void)
{
	struct kthread *t = current;

	if (!t)
		return;
	lock_assert_none_held("kthread_yield");	/* no lock is held across a yield */
	kthread_switch(&t->sp, t->caller_sp);
}

bool kthread_turn_over(void)
{
	return current && ktime_ns() >= current->deadline_ns;
}

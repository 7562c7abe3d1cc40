/*
 * lock.h - memlab's locks, the record of the locks each CPU holds, and the
 * lock-order validator.
 *
 * Three kinds, named and used as in Linux:
 *   struct spinlock  spin_lock() / spin_unlock(): a short section that
 *                    never yields or waits (zone->lock, a pcp list's lock).
 *   struct mutex     mutex_lock() / mutex_unlock(): one holder, a section
 *                    that may take long (a memory block's online/offline).
 *   struct rwsem     down_read() / up_read(), down_write() / up_write():
 *                    many readers or one writer (mem_hotplug_lock).
 *
 * They are real locks for several CPUs.  A spinlock is a ticket lock (GCC
 * __atomic builtins, so lib/lock.c builds for the kernel and the host
 * alike): each taker draws a ticket and spins, with a pause hint, until
 * the lock serves it, so CPUs get the lock in the order they asked.  A
 * mutex is the same ticket lock today and an rwsem a count of readers and
 * a writer behind a small ticket guard: contention spins, nothing sleeps.
 * Once work (kthreads, the shell's jobs) runs on several CPUs a mutex and
 * an rwsem will yield while they wait instead; the callers do not change.
 * The rwsem does not queue: new readers get in while a writer waits, so a
 * steady stream of readers can hold a writer off (none exists today).
 *
 * Each lock records its holder's CPU (owner, writer: the CPU number + 1,
 * 0 when free), so that taking a lock the same CPU holds already still
 * panics at once, with the lock's name and the site that holds it
 * (taken_at, a return address `addr2line` or the kernel's backtrace
 * names): recursion is a bug, and spinning on it would hang.  Releasing a
 * lock this CPU does not hold panics too.
 *
 * Every lock taken is also pushed on the taking CPU's record of held locks
 * (at most LOCK_MAX_HELD deep, in any order of release), which panics
 * print and lock_assert_none_held() checks.  There is one record per CPU,
 * indexed by lock_this_cpu(), for LOCK_MAX_CPUS CPUs.
 *
 * The validator (LOCK_VALIDATOR, on in every build: `make test` boots the
 * kernel `make iso` builds) knows locks by class: the lock's name, so all
 * zone->locks are one class and all pcp locks another.  For each pair of
 * classes it remembers the first order they were taken in (A held while
 * B is taken) with both call sites; taking them the other way round later
 * panics, naming both classes and all four sites, before the lock is
 * spun on, so an inversion is found on one CPU long before two CPUs
 * deadlock on it.  Only direct pairs are checked (A->B then B->A), not
 * chains (A->B, B->C, then C->A), and two locks of one class (two memory
 * block locks) may nest in either order unchecked.  The tables are
 * bounded: LOCK_MAX_CLASSES classes, each a row of a 64-bit bitmap of
 * pairs, and LOCK_MAX_PAIRS pairs with their sites.  A lock whose class
 * finds the class table full is not checked (counted in
 * lock_validator_stats()); a pair that finds the site table full is still
 * checked, and its report says the first sites were not kept.
 *
 * The asserts are macros so that a failure names the function whose
 * contract was broken: spin_assert_held(&zone->lock) in buddy_del_free()
 * panics with "buddy_del_free(): zone->lock is not held".  They ask
 * whether this CPU holds the lock, not whether anyone does.
 *
 * Lock order (take left before right, never the other way):
 *   memory block's lock -> mem_hotplug_lock -> pcp lock -> zone->lock
 *
 * Platform hooks, provided outside lib/ (lib calls no arch code): the
 * kernel's in arch/x86_64/smp.c, the host tests' in
 * tests/host/platform_stub.c.
 *   lock_this_cpu()      the running CPU's number, < LOCK_MAX_CPUS
 *                        (kernel: its GS per-CPU area; host: a
 *                        thread-local number, 0 unless a test sets it)
 *   lock_irq_save()      interrupts off, returning what restores them
 *   lock_irq_restore()   (host: no-ops)
 *
 * Context: any, except that mutexes and rwsems are never taken from an
 * interrupt handler; a spinlock an interrupt handler also takes must be
 * taken with spin_lock_irqsave() elsewhere (no handler takes one today).
 */
#ifndef LIB_LOCK_H
#define LIB_LOCK_H

#include <lib/types.h>
#include <lib/printk.h>

#define LOCK_MAX_HELD		16	/* deepest nesting of held locks */
#define LOCK_MAX_CPUS		64	/* CPUs with a record (and mm's pcp sets) */
#define LOCK_MAX_CLASSES	64	/* validator classes: one bitmap row each */
#define LOCK_MAX_PAIRS		256	/* validator pairs whose first sites are kept */

#ifndef LOCK_VALIDATOR
#define LOCK_VALIDATOR		1	/* build with -DLOCK_VALIDATOR=0 to leave it out */
#endif

/* A ticket lock's two counters: the next ticket to hand out, the one served. */
struct lock_ticket {
	u32 next;
	u32 serving;
};

struct spinlock {
	const char *name;	/* for reports and the validator's class: "zone->lock" */
	struct lock_ticket ticket;
	u32 owner;		/* the holder's CPU + 1, 0 when free */
	u16 class_id;		/* validator class + 1, 0 until first taken */
	const void *taken_at;	/* return address of the spin_lock() that holds it */
	u64 nr_taken;		/* times taken, for `locks` */
};

struct mutex {
	const char *name;	/* "memory block lock" */
	struct lock_ticket ticket;
	u32 owner;		/* the holder's CPU + 1, 0 when free */
	u16 class_id;		/* validator class + 1, 0 until first taken */
	const void *taken_at;	/* the mutex_lock() site that holds it */
	u64 nr_taken;		/* times taken */
};

struct rwsem {
	const char *name;	/* "mem_hotplug_lock" */
	struct lock_ticket guard; /* held for a moment around the fields below */
	u32 readers;		/* down_read() holds now */
	u32 writer;		/* the writer's CPU + 1, 0 when none */
	u16 class_id;		/* validator class + 1, 0 until first taken */
	const void *taken_at;	/* the site of the writer, or of the last reader */
	u64 nr_read, nr_write;	/* times taken for read / for write */
};

#define SPINLOCK_INIT(n)	{ .name = (n) }
#define MUTEX_INIT(n)		{ .name = (n) }
#define RWSEM_INIT(n)		{ .name = (n) }

/* The platform hooks (the header says who provides them). */
unsigned lock_this_cpu(void);
unsigned long lock_irq_save(void);
void lock_irq_restore(unsigned long flags);

/* lock_cpu_relax() - the spin-wait hint (x86 pause; nothing elsewhere). */
static inline void lock_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("pause" : : : "memory");
#else
	__asm__ volatile("" : : : "memory");
#endif
}

/* *_init() - an unheld lock called name (a string that outlives it);
 * a static rwsem uses RWSEM_INIT. */
void spin_lock_init(struct spinlock *l, const char *name);
void mutex_init(struct mutex *m, const char *name);

/*
 * spin_lock() - take l, spinning while another CPU holds it.  Panics when
 * this CPU holds l already, naming l and the site that holds it, and when
 * the validator sees an order inversion.  spin_unlock() panics when this
 * CPU does not hold l.  Context: any.
 */
void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);

/*
 * spin_lock_irqsave() - interrupts off on this CPU, then spin_lock(l);
 * returns the interrupt state to give spin_unlock_irqrestore(), which
 * releases l and then restores it.  (Linux's are macros that assign the
 * flags; these return them.)  Context: any.
 */
unsigned long spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);

/* mutex_lock() / mutex_unlock() - as spin_lock(), for a mutex.
 * Context: not from an interrupt handler. */
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);

/*
 * down_read() - take s for reading, spinning while a writer holds it:
 * panics if this CPU holds it for writing.  down_write() - take s for
 * writing, spinning while anyone holds it: panics if this CPU holds it at
 * all.  Readers of one CPU may nest.  up_read() / up_write() release and
 * panic when this CPU does not so hold s.
 * Context: not from an interrupt handler.
 */
void down_read(struct rwsem *s);
void up_read(struct rwsem *s);
void down_write(struct rwsem *s);
void up_write(struct rwsem *s);

/* Is the lock held, by any CPU?  For the views (a snapshot with more CPUs). */
static inline bool spin_is_locked(const struct spinlock *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) != 0;
}
static inline bool mutex_is_locked(const struct mutex *m)
{
	return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) != 0;
}
static inline bool rwsem_is_locked(const struct rwsem *s)
{
	return __atomic_load_n(&s->readers, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&s->writer, __ATOMIC_RELAXED);
}
static inline bool rwsem_is_write_locked(const struct rwsem *s)
{
	return __atomic_load_n(&s->writer, __ATOMIC_RELAXED) != 0;
}

/* Does this CPU hold the lock?  For the asserts below.  A reader is found
 * on this CPU's record (lock_held_here()). */
static inline bool spin_held_here(const struct spinlock *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == lock_this_cpu() + 1;
}
static inline bool mutex_held_here(const struct mutex *m)
{
	return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) == lock_this_cpu() + 1;
}
static inline bool rwsem_write_held_here(const struct rwsem *s)
{
	return __atomic_load_n(&s->writer, __ATOMIC_RELAXED) == lock_this_cpu() + 1;
}

/* lock_held_here() - is lock (any kind) on this CPU's record? */
bool lock_held_here(const void *lock);

/* lock_not_held() - the panic of the asserts below: "FN(): NAME is not HOW". */
void lock_not_held(const char *file, int line, const char *fn, const char *name, const char *how)
	__noreturn;

#define spin_assert_held(l)							\
	do {									\
		if (unlikely(!spin_held_here(l)))				\
			lock_not_held(__FILE__, __LINE__, __func__, (l)->name, "held"); \
	} while (0)

#define mutex_assert_held(m)							\
	do {									\
		if (unlikely(!mutex_held_here(m)))				\
			lock_not_held(__FILE__, __LINE__, __func__, (m)->name, "held"); \
	} while (0)

/* rwsem_assert_held(): for reading or writing; _write: for writing. */
#define rwsem_assert_held(s)							\
	do {									\
		if (unlikely(!rwsem_write_held_here(s) && !lock_held_here(s))) \
			lock_not_held(__FILE__, __LINE__, __func__, (s)->name, "held"); \
	} while (0)

#define rwsem_assert_held_write(s)						\
	do {									\
		if (unlikely(!rwsem_write_held_here(s)))			\
			lock_not_held(__FILE__, __LINE__, __func__, (s)->name, "held for writing"); \
	} while (0)

/* lock_nr_held() - how many locks this CPU holds now. */
unsigned lock_nr_held(void);

/*
 * lock_assert_none_held() - panic, listing every held lock and the site
 * that took it, if this CPU holds any: where is the caller's name
 * ("kthread_yield").  Context: any.
 */
void lock_assert_none_held(const char *where);

/* lock_print_held() - one line per lock this CPU holds:
 * "  NAME (KIND) taken at ADDR". */
void lock_print_held(struct printer *p);

/* What the validator knows: classes and pairs recorded, and what found its
 * table full (classes left unchecked, pairs whose sites were not kept). */
struct lock_validator_stats {
	unsigned nr_classes, nr_pairs;
	u64 classes_dropped, pairs_unsited;
};

/* lock_validator_stats() - a snapshot of the above.  Context: any. */
void lock_validator_stats(struct lock_validator_stats *out);

#endif

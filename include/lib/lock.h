/*
 * lock.h - memlab's locks, and the record of the locks this CPU holds.
 *
 * Three kinds, named and used as in Linux:
 *   struct spinlock  spin_lock() / spin_unlock(): a short section that
 *                    never yields or waits (zone->lock, a pcp list's lock).
 *   struct mutex     mutex_lock() / mutex_unlock(): one holder, a section
 *                    that may take long (a memory block's online/offline).
 *   struct rwsem     down_read() / up_read(), down_write() / up_write():
 *                    many readers or one writer (mem_hotplug_lock).
 *
 * Today memlab runs on one CPU, nothing preempts kernel code, interrupt
 * handlers take no lock, and no lock is held across a yield
 * (kthread_yield() checks it with lock_assert_none_held()).  So a lock can
 * never be found held by someone else: whoever finds it held when taking
 * it is its holder, and that is a recursive lock or a missing unlock.  Each
 * lock is therefore a counter that panics with the lock's name and the
 * site that took it (taken_at, a return address `addr2line` or the
 * kernel's backtrace names).  Once memlab starts more CPUs these calls
 * spin or wait instead; the code that takes them does not change.
 *
 * Every lock taken is also pushed on the CPU's record of held locks (at
 * most LOCK_MAX_HELD deep, in any order of release), which panics print and
 * lock_assert_none_held() checks.
 *
 * The asserts are macros so that a failure names the function whose
 * contract was broken: spin_assert_held(&zone->lock) in buddy_del_free()
 * panics with "buddy_del_free(): zone->lock is not held".
 *
 * Lock order (take left before right, never the other way):
 *   memory block's lock -> mem_hotplug_lock -> pcp lock -> zone->lock
 *
 * Context: any, except that mutexes and rwsems are never taken from an
 * interrupt handler.  The record itself is the CPU's (one CPU today).
 */
#ifndef LIB_LOCK_H
#define LIB_LOCK_H

#include <lib/types.h>
#include <lib/printk.h>

#define LOCK_MAX_HELD	16	/* deepest nesting of held locks */

struct spinlock {
	const char *name;	/* for reports: "zone->lock" */
	u32 locked;		/* 1 while held */
	const void *taken_at;	/* return address of the spin_lock() that holds it */
	u64 nr_taken;		/* times taken, for `locks` */
};

struct mutex {
	const char *name;	/* "memory block lock" */
	u32 locked;		/* 1 while held */
	const void *taken_at;	/* the mutex_lock() site that holds it */
	u64 nr_taken;		/* times taken */
};

struct rwsem {
	const char *name;	/* "mem_hotplug_lock" */
	u32 readers;		/* down_read() holds now */
	u32 writer;		/* 1 while down_write() holds it */
	const void *taken_at;	/* the site of the writer, or of the last reader */
	u64 nr_read, nr_write;	/* times taken for read / for write */
};

#define SPINLOCK_INIT(n)	{ .name = (n) }
#define MUTEX_INIT(n)		{ .name = (n) }
#define RWSEM_INIT(n)		{ .name = (n) }

/* *_init() - an unheld lock called name (a string that outlives it);
 * a static rwsem uses RWSEM_INIT. */
void spin_lock_init(struct spinlock *l, const char *name);
void mutex_init(struct mutex *m, const char *name);

/*
 * spin_lock() - take l.  Panics when l is held already (on one CPU: by the
 * caller itself), naming l and the site that holds it.  spin_unlock()
 * panics when l is not held.  Context: any.
 */
void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);

/* mutex_lock() / mutex_unlock() - as spin_lock(), for a mutex.
 * Context: not from an interrupt handler. */
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);

/*
 * down_read() - take s for reading: panics if it is held for writing (on
 * one CPU: by the caller).  down_write() - take s for writing: panics if
 * it is held at all.  up_read() / up_write() release and panic when s is
 * not so held.  Context: not from an interrupt handler.
 */
void down_read(struct rwsem *s);
void up_read(struct rwsem *s);
void down_write(struct rwsem *s);
void up_write(struct rwsem *s);

/* Is the lock held (by anyone: one CPU today)?  For the asserts below. */
static inline bool spin_is_locked(const struct spinlock *l) { return l->locked != 0; }
static inline bool mutex_is_locked(const struct mutex *m) { return m->locked != 0; }
static inline bool rwsem_is_locked(const struct rwsem *s) { return s->readers || s->writer; }
static inline bool rwsem_is_write_locked(const struct rwsem *s) { return s->writer != 0; }

/* lock_not_held() - the panic of the asserts below: "FN(): NAME is not held". */
void lock_not_held(const char *file, int line, const char *fn, const char *name, const char *how)
	__noreturn;

#define spin_assert_held(l)							\
	do {									\
		if (unlikely(!spin_is_locked(l)))				\
			lock_not_held(__FILE__, __LINE__, __func__, (l)->name, "held"); \
	} while (0)

#define mutex_assert_held(m)							\
	do {									\
		if (unlikely(!mutex_is_locked(m)))				\
			lock_not_held(__FILE__, __LINE__, __func__, (m)->name, "held"); \
	} while (0)

/* rwsem_assert_held(): for reading or writing; _write: for writing. */
#define rwsem_assert_held(s)							\
	do {									\
		if (unlikely(!rwsem_is_locked(s)))				\
			lock_not_held(__FILE__, __LINE__, __func__, (s)->name, "held"); \
	} while (0)

#define rwsem_assert_held_write(s)						\
	do {									\
		if (unlikely(!rwsem_is_write_locked(s)))			\
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

/* lock_print_held() - one line per held lock: "  NAME (KIND) taken at ADDR". */
void lock_print_held(struct printer *p);

#endif

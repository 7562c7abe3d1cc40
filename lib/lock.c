/*
 * lock.c - spinlocks, mutexes and rwsems on one CPU, and the record of the
 * locks held (lock.h says what they promise).
 *
 * On one CPU nothing can hold a lock but the code that finds it held, so
 * taking a held lock is the bug itself: each function checks, panics with
 * the lock's name and both sites, or records the lock and returns.  The
 * record is a small stack; a lock may be released out of order (the
 * entry is found and removed), as Linux allows.
 *
 * Context: any.  The record is this CPU's (one today) and is changed only
 * by the code taking and releasing locks, never by an interrupt handler
 * (they take none).
 */
#include <lib/lock.h>
#include <lib/printer.h>

struct held_lock {
	const void *lock;	/* the lock */
	const char *name;	/* its name */
	const char *kind;	/* "spinlock", "mutex", "read", "write" */
	const void *at;		/* the site that took it */
};

static struct held_lock held[LOCK_MAX_HELD];	/* (cpu) this CPU's held locks */
static unsigned nr_held;			/* (cpu) entries used in held[] */

/* Describe the held locks into buf (for a panic message). */
static const char *held_text(char *buf, size_t size)
{
	struct buf_printer bp;

	buf_printer_init(&bp, buf, size);
	if (!nr_held)
		pr_puts(&bp.p, "  (none)");
	lock_print_held(&bp.p);
	return buf;
}

static void held_push(const void *lock, const char *name, const char *kind, const void *at)
{
	char buf[384];

	if (nr_held == LOCK_MAX_HELD)
		panic("lock: taking %s (%s) at %p would hold more than %u locks; held:\n%s", name,
		      kind, at, LOCK_MAX_HELD, held_text(buf, sizeof(buf)));
	held[nr_held++] = (struct held_lock){ lock, name, kind, at };
}

/* Remove the newest entry for lock (any kind); panic if there is none. */
static void held_pop(const void *lock, const char *name, const void *at)
{
	char buf[384];

	for (unsigned i = nr_held; i-- > 0;) {
		if (held[i].lock != lock)
			continue;
		for (; i + 1 < nr_held; i++)
			held[i] = held[i + 1];
		nr_held--;
		return;
	}
	panic("lock: %s released at %p is not on this CPU's record; held:\n%s", name, at,
	      held_text(buf, sizeof(buf)));
}

void spin_lock_init(struct spinlock *l, const char *name)
{
	*l = (struct spinlock){ .name = name };
}

void mutex_init(struct mutex *m, const char *name)
{
	*m = (struct mutex){ .name = name };
}

void spin_lock(struct spinlock *l)
{
	const void *at = __builtin_return_address(0);

	if (l->locked)
		panic("spin_lock(%s) at %p: already held, taken at %p (one CPU: a recursive "
		      "lock or a missing spin_unlock)", l->name, at, l->taken_at);
	l->locked = 1;
	l->taken_at = at;
	l->nr_taken++;
	held_push(l, l->name, "spinlock", at);
}

void spin_unlock(struct spinlock *l)
{
	const void *at = __builtin_return_address(0);

	if (!l->locked)
		panic("spin_unlock(%s) at %p: not held", l->name, at);
	held_pop(l, l->name, at);
	l->locked = 0;
}

void mutex_lock(struct mutex *m)
{
	const void *at = __builtin_return_address(0);

	if (m->locked)
		panic("mutex_lock(%s) at %p: already held, taken at %p (one CPU, no lock held "
		      "across a yield: a recursive lock or a missing mutex_unlock)", m->name, at,
		      m->taken_at);
	m->locked = 1;
	m->taken_at = at;
	m->nr_taken++;
	held_push(m, m->name, "mutex", at);
}

void mutex_unlock(struct mutex *m)
{
	const void *at = __builtin_return_address(0);

	if (!m->locked)
		panic("mutex_unlock(%s) at %p: not held", m->name, at);
	held_pop(m, m->name, at);
	m->locked = 0;
}

/*
 * A reader finding a writer, or a writer finding anyone, is the caller
 * itself on one CPU.  Readers may nest (Linux's rwsem allows a second
 * down_read only when no writer waits; with one CPU none ever does).
 */
void down_read(struct rwsem *s)
{
	const void *at = __builtin_return_address(0);

	if (s->writer)
		panic("down_read(%s) at %p: held for writing, taken at %p (one CPU: the caller "
		      "holds it)", s->name, at, s->taken_at);
	s->readers++;
	s->taken_at = at;
	s->nr_read++;
	held_push(s, s->name, "read", at);
}

void up_read(struct rwsem *s)
{
	const void *at = __builtin_return_address(0);

	if (!s->readers)
		panic("up_read(%s) at %p: not held for reading", s->name, at);
	held_pop(s, s->name, at);
	s->readers--;
}

void down_write(struct rwsem *s)
{
	const void *at = __builtin_return_address(0);

	if (s->writer || s->readers)
		panic("down_write(%s) at %p: already held (%u readers, %s), last taken at %p "
		      "(one CPU: the caller holds it)", s->name, at, s->readers,
		      s->writer ? "a writer" : "no writer", s->taken_at);
	s->writer = 1;
	s->taken_at = at;
	s->nr_write++;
	held_push(s, s->name, "write", at);
}

void up_write(struct rwsem *s)
{
	const void *at = __builtin_return_address(0);

	if (!s->writer)
		panic("up_write(%s) at %p: not held for writing", s->name, at);
	held_pop(s, s->name, at);
	s->writer = 0;
}

void lock_not_held(const char *file, int line, const char *fn, const char *name, const char *how)
{
	char buf[384];

	panic("%s:%d %s(): %s is not %s; held:\n%s", file, line, fn, name, how,
	      held_text(buf, sizeof(buf)));
}

unsigned lock_nr_held(void)
{
	return nr_held;
}

void lock_assert_none_held(const char *where)
{
	char buf[384];

	if (nr_held)
		panic("%s: %u lock(s) held, none may be:\n%s", where, nr_held,
		      held_text(buf, sizeof(buf)));
}

void lock_print_held(struct printer *p)
{
	for (unsigned i = 0; i < nr_held; i++)
		pr_printf(p, "  %s (%s) taken at %p\n", held[i].name, held[i].kind, held[i].at);
}

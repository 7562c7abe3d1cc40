/*
 * lock.c - ticket spinlocks, spinning mutexes and rwsems, each CPU's record
 * of the locks it holds, and the lock-order validator (lock.h says what
 * they promise).
 *
 * Taking a lock: find this CPU's record (lock_this_cpu()), panic if this
 * CPU holds the lock already (recursion would spin for ever), let the
 * validator check the order against every lock on the record, spin until
 * the lock is ours, then note the owner and the site and push the lock on
 * the record.  Releasing undoes it in the other order.  The record is a
 * small stack; a lock may be released out of order (the entry is found
 * and removed), as Linux allows.
 *
 * Memory order: a ticket is drawn with a relaxed fetch-add and waited on
 * with acquire loads; the release is a release store of serving + 1, so
 * what one holder wrote is seen by the next.  owner, readers and writer
 * are read without the lock (recursion checks, the views), so every access
 * to them is atomic (relaxed: the ticket orders the data).
 *
 * Context: any.  A record is changed only by its own CPU, taking and
 * releasing locks, never by an interrupt handler (they take none).  The
 * validator's tables are shared and change under its own ticket guard
 * (vguard), which is not a recorded lock.
 */
#include <lib/lock.h>
#include <lib/printer.h>
#include <lib/string.h>

struct held_lock {
	const void *lock;	/* the lock */
	const char *name;	/* its name */
	const char *kind;	/* "spinlock", "mutex", "read", "write" */
	const void *at;		/* the site that took it */
	u16 class_id;		/* its validator class + 1, 0 unchecked */
};

struct lock_record {
	struct held_lock held[LOCK_MAX_HELD];	/* (cpu) the CPU's held locks */
	unsigned nr_held;			/* (cpu) entries used in held[] */
};

static struct lock_record records[LOCK_MAX_CPUS];	/* (cpu) one per CPU */

/* ---- tickets ------------------------------------------------------------- */

/* Draw a ticket and spin until it is served. */
static void ticket_lock(struct lock_ticket *t)
{
	u32 me = __atomic_fetch_add(&t->next, 1, __ATOMIC_RELAXED);

	while (__atomic_load_n(&t->serving, __ATOMIC_ACQUIRE) != me)
		lock_cpu_relax();
}

/* Serve the next ticket (the caller holds t). */
static void ticket_unlock(struct lock_ticket *t)
{
	u32 s = __atomic_load_n(&t->serving, __ATOMIC_RELAXED);

	__atomic_store_n(&t->serving, s + 1, __ATOMIC_RELEASE);
}

/* ---- the record ---------------------------------------------------------- */

/* This CPU's record; a CPU past LOCK_MAX_CPUS has none and may not lock. */
static struct lock_record *my_record(const char *name, const void *at)
{
	unsigned cpu = lock_this_cpu();

	if (unlikely(cpu >= LOCK_MAX_CPUS))
		panic("lock: CPU %u took %s at %p, but only CPUs below %u have a lock record "
		      "(LOCK_MAX_CPUS)", cpu, name, at, LOCK_MAX_CPUS);
	return &records[cpu];
}

/* Describe this CPU's held locks into buf (for a panic message). */
static const char *held_text(char *buf, size_t size)
{
	struct buf_printer bp;

	buf_printer_init(&bp, buf, size);
	if (!lock_nr_held())
		pr_puts(&bp.p, "  (none)");
	lock_print_held(&bp.p);
	return buf;
}

static void held_push(struct lock_record *r, const void *lock, const char *name,
		      const char *kind, const void *at, u16 class_id)
{
	char buf[384];

	if (r->nr_held == LOCK_MAX_HELD)
		panic("lock: taking %s (%s) at %p would hold more than %u locks; held:\n%s", name,
		      kind, at, LOCK_MAX_HELD, held_text(buf, sizeof(buf)));
	r->held[r->nr_held++] = (struct held_lock){ lock, name, kind, at, class_id };
}

/* Remove the newest entry for lock (any kind); panic if there is none. */
static void held_pop(struct lock_record *r, const void *lock, const char *name, const void *at)
{
	char buf[384];

	for (unsigned i = r->nr_held; i-- > 0;) {
		if (r->held[i].lock != lock)
			continue;
		for (; i + 1 < r->nr_held; i++)
			r->held[i] = r->held[i + 1];
		r->nr_held--;
		return;
	}
	panic("lock: %s released at %p is not on this CPU's record; held:\n%s", name, at,
	      held_text(buf, sizeof(buf)));
}

/* The newest entry of lock on r, or NULL. */
static const struct held_lock *held_find(const struct lock_record *r, const void *lock)
{
	for (unsigned i = r->nr_held; i-- > 0;)
		if (r->held[i].lock == lock)
			return &r->held[i];
	return NULL;
}

/* ---- the validator ------------------------------------------------------- */

#define NO_CLASS	0xffff	/* class_id of a lock the full table left out */

struct lock_pair {
	u8 held, taken;			/* the classes: held while taken was taken */
	const char *taken_fn;		/* "spin_lock", "down_read", ... */
	const void *held_at, *taken_at;	/* the first sites of this order */
};

static struct lock_ticket vguard;			/* the tables below */
static const char *class_names[LOCK_MAX_CLASSES];	/* (vguard) class i's name */
static unsigned nr_classes;				/* (vguard) classes used */
static u64 order_bits[LOCK_MAX_CLASSES];		/* (vguard) bit b of row a: a held, b taken */
static struct lock_pair pairs[LOCK_MAX_PAIRS];		/* (vguard) first sites */
static unsigned nr_pairs;				/* (vguard) pairs[] used */
static u64 classes_dropped, pairs_unsited;		/* (vguard) what found a table full */

/*
 * The class of a lock named name, cached in *class_id (class + 1): found
 * by name, or added.  Returns the cached value: NO_CLASS when the table is
 * full, which leaves the lock unchecked.
 */
static u16 class_of(const char *name, u16 *class_id)
{
	u16 id = __atomic_load_n(class_id, __ATOMIC_ACQUIRE);
	unsigned i;

	if (likely(id))
		return id;
	if (!name)
		name = "(unnamed)";
	ticket_lock(&vguard);
	for (i = 0; i < nr_classes; i++)
		if (!strcmp(class_names[i], name))
			break;
	if (i == nr_classes) {
		if (nr_classes < LOCK_MAX_CLASSES)
			class_names[nr_classes++] = name;
		else
			classes_dropped++;
	}
	id = i < LOCK_MAX_CLASSES ? (u16)(i + 1) : NO_CLASS;
	__atomic_store_n(class_id, id, __ATOMIC_RELEASE);
	ticket_unlock(&vguard);
	return id;
}

static bool order_seen(unsigned held, unsigned taken)
{
	return __atomic_load_n(&order_bits[held], __ATOMIC_ACQUIRE) & (1ULL << taken);
}

/* Panic: the order held -> taken of h and the lock being taken (class
 * taken, name, by fn at at) is the opposite of one recorded first. */
static __noreturn void report_inversion(const struct held_lock *h, unsigned taken,
					const char *name, const char *fn, const void *at)
{
	unsigned held = h->class_id - 1;
	struct lock_pair first = { 0 };
	bool found = false;
	char buf[384];

	ticket_lock(&vguard);
	for (unsigned i = 0; i < nr_pairs; i++)
		if (pairs[i].held == taken && pairs[i].taken == held) {
			first = pairs[i];
			found = true;
			break;
		}
	ticket_unlock(&vguard);
	if (!found)
		panic("lock order inversion: %s(%s) at %p with %s already held (taken at %p), but "
		      "the order %s -> %s was seen first (its sites were not kept: %u pairs); "
		      "held:\n%s", fn, name, at, h->name, h->at, class_names[taken],
		      class_names[held], LOCK_MAX_PAIRS, held_text(buf, sizeof(buf)));
	panic("lock order inversion: %s(%s) at %p with %s already held (taken at %p), but the "
	      "order %s -> %s was seen first: %s(%s) at %p with %s held (taken at %p); held:\n%s",
	      fn, name, at, h->name, h->at, class_names[taken], class_names[held], first.taken_fn,
	      class_names[held], first.taken_at, class_names[taken], first.held_at,
	      held_text(buf, sizeof(buf)));
}

/* Record held -> taken (first sites: the held lock's and at). */
static void order_record(const struct held_lock *h, unsigned taken, const char *fn,
			 const void *at)
{
	unsigned held = h->class_id - 1;

	ticket_lock(&vguard);
	if (!order_seen(held, taken)) {
		if (nr_pairs < LOCK_MAX_PAIRS)
			pairs[nr_pairs++] = (struct lock_pair){ (u8)held, (u8)taken, fn, h->at, at };
		else
			pairs_unsited++;
		__atomic_fetch_or(&order_bits[held], 1ULL << taken, __ATOMIC_RELEASE);
	}
	ticket_unlock(&vguard);
}

/*
 * Check taking a lock of class id (named name, by fn at at) against every
 * lock on r: panic on an order seen the other way first, record the
 * orders not seen yet.
 */
static void validate(const struct lock_record *r, u16 id, const char *name, const char *fn,
		     const void *at)
{
	if (!LOCK_VALIDATOR || id == NO_CLASS)
		return;
	for (unsigned i = 0; i < r->nr_held; i++) {
		const struct held_lock *h = &r->held[i];

		if (h->class_id == id || !h->class_id || h->class_id == NO_CLASS)
			continue;
		if (order_seen(id - 1, h->class_id - 1))
			report_inversion(h, id - 1, name, fn, at);
		if (!order_seen(h->class_id - 1, id - 1))
			order_record(h, id - 1, fn, at);
	}
}

void lock_validator_stats(struct lock_validator_stats *out)
{
	ticket_lock(&vguard);
	*out = (struct lock_validator_stats){ nr_classes, nr_pairs, classes_dropped,
					      pairs_unsited };
	ticket_unlock(&vguard);
}

/* ---- spinlocks and mutexes ----------------------------------------------- */

/* The fields spinlocks and mutexes share, for the code both use. */
struct excl {
	const char *name;
	struct lock_ticket *ticket;
	u32 *owner;
	u16 *class_id;
	const void **taken_at;
	u64 *nr_taken;
};

#define EXCL(l)	((struct excl){ (l)->name, &(l)->ticket, &(l)->owner, &(l)->class_id,	\
				&(l)->taken_at, &(l)->nr_taken })

/* Take x for fn ("spin_lock", "mutex_lock") of kind ("spinlock", "mutex"). */
static void excl_lock(struct excl x, const void *lock, const char *fn, const char *kind,
		      const char *unlock_fn, const void *at)
{
	struct lock_record *r = my_record(x.name, at);
	u32 me = lock_this_cpu() + 1;
	u16 id;

	if (__atomic_load_n(x.owner, __ATOMIC_RELAXED) == me)
		panic("%s(%s) at %p: already held, taken at %p (by this CPU: a recursive lock or "
		      "a missing %s)", fn, x.name, at, *x.taken_at, unlock_fn);
	id = class_of(x.name, x.class_id);
	validate(r, id, x.name, fn, at);
	ticket_lock(x.ticket);
	__atomic_store_n(x.owner, me, __ATOMIC_RELAXED);
	*x.taken_at = at;
	(*x.nr_taken)++;
	held_push(r, lock, x.name, kind, at, id);
}

static void excl_unlock(struct excl x, const void *lock, const char *fn, const void *at)
{
	struct lock_record *r = my_record(x.name, at);
	u32 owner = __atomic_load_n(x.owner, __ATOMIC_RELAXED);

	if (owner != lock_this_cpu() + 1)
		panic("%s(%s) at %p: not held%s", fn, x.name, at,
		      owner ? " by this CPU (another holds it)" : "");
	held_pop(r, lock, x.name, at);
	__atomic_store_n(x.owner, 0, __ATOMIC_RELAXED);
	ticket_unlock(x.ticket);
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
	excl_lock(EXCL(l), l, "spin_lock", "spinlock", "spin_unlock", __builtin_return_address(0));
}

void spin_unlock(struct spinlock *l)
{
	excl_unlock(EXCL(l), l, "spin_unlock", __builtin_return_address(0));
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = lock_irq_save();

	excl_lock(EXCL(l), l, "spin_lock_irqsave", "spinlock", "spin_unlock_irqrestore",
		  __builtin_return_address(0));
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	excl_unlock(EXCL(l), l, "spin_unlock_irqrestore", __builtin_return_address(0));
	lock_irq_restore(flags);
}

void mutex_lock(struct mutex *m)
{
	excl_lock(EXCL(m), m, "mutex_lock", "mutex", "mutex_unlock", __builtin_return_address(0));
}

void mutex_unlock(struct mutex *m)
{
	excl_unlock(EXCL(m), m, "mutex_unlock", __builtin_return_address(0));
}

/* ---- rwsems -------------------------------------------------------------- */

/*
 * A reader waits while a writer holds s; a writer while anyone does.  The
 * guard is held only to look at and change readers and writer, never
 * while waiting.  Readers of one CPU may nest (Linux's rwsem allows a
 * second down_read only when no writer waits; this one never makes a
 * reader wait for a waiting writer).
 */
void down_read(struct rwsem *s)
{
	const void *at = __builtin_return_address(0);
	struct lock_record *r = my_record(s->name, at);
	u32 me = lock_this_cpu() + 1;
	u16 id;

	if (__atomic_load_n(&s->writer, __ATOMIC_RELAXED) == me)
		panic("down_read(%s) at %p: held for writing, taken at %p (by this CPU: the "
		      "caller holds it)", s->name, at, s->taken_at);
	id = class_of(s->name, &s->class_id);
	validate(r, id, s->name, "down_read", at);
	for (;;) {
		ticket_lock(&s->guard);
		if (!s->writer) {
			__atomic_store_n(&s->readers, s->readers + 1, __ATOMIC_RELAXED);
			s->taken_at = at;
			s->nr_read++;
			ticket_unlock(&s->guard);
			break;
		}
		ticket_unlock(&s->guard);
		lock_cpu_relax();
	}
	held_push(r, s, s->name, "read", at, id);
}

void up_read(struct rwsem *s)
{
	const void *at = __builtin_return_address(0);
	struct lock_record *r = my_record(s->name, at);
	const struct held_lock *h = held_find(r, s);

	if (!__atomic_load_n(&s->readers, __ATOMIC_RELAXED) || !h || h->kind[0] != 'r')
		panic("up_read(%s) at %p: not held for reading", s->name, at);
	held_pop(r, s, s->name, at);
	ticket_lock(&s->guard);
	__atomic_store_n(&s->readers, s->readers - 1, __ATOMIC_RELAXED);
	ticket_unlock(&s->guard);
}

void down_write(struct rwsem *s)
{
	const void *at = __builtin_return_address(0);
	struct lock_record *r = my_record(s->name, at);
	u32 me = lock_this_cpu() + 1;
	u16 id;

	if (__atomic_load_n(&s->writer, __ATOMIC_RELAXED) == me || held_find(r, s))
		panic("down_write(%s) at %p: already held (%u readers, %s), last taken at %p "
		      "(by this CPU: the caller holds it)", s->name, at,
		      __atomic_load_n(&s->readers, __ATOMIC_RELAXED),
		      __atomic_load_n(&s->writer, __ATOMIC_RELAXED) ? "a writer" : "no writer",
		      s->taken_at);
	id = class_of(s->name, &s->class_id);
	validate(r, id, s->name, "down_write", at);
	for (;;) {
		ticket_lock(&s->guard);
		if (!s->writer && !s->readers) {
			__atomic_store_n(&s->writer, me, __ATOMIC_RELAXED);
			s->taken_at = at;
			s->nr_write++;
			ticket_unlock(&s->guard);
			break;
		}
		ticket_unlock(&s->guard);
		lock_cpu_relax();
	}
	held_push(r, s, s->name, "write", at, id);
}

void up_write(struct rwsem *s)
{
	const void *at = __builtin_return_address(0);
	struct lock_record *r = my_record(s->name, at);

	if (!rwsem_write_held_here(s))
		panic("up_write(%s) at %p: not held for writing", s->name, at);
	held_pop(r, s, s->name, at);
	ticket_lock(&s->guard);
	__atomic_store_n(&s->writer, 0, __ATOMIC_RELAXED);
	ticket_unlock(&s->guard);
}

/* ---- asking ---------------------------------------------------------------- */

void lock_not_held(const char *file, int line, const char *fn, const char *name, const char *how)
{
	char buf[384];

	panic("%s:%d %s(): %s is not %s; held:\n%s", file, line, fn, name, how,
	      held_text(buf, sizeof(buf)));
}

bool lock_held_here(const void *lock)
{
	unsigned cpu = lock_this_cpu();

	return cpu < LOCK_MAX_CPUS && held_find(&records[cpu], lock);
}

unsigned lock_nr_held(void)
{
	unsigned cpu = lock_this_cpu();

	return cpu < LOCK_MAX_CPUS ? records[cpu].nr_held : 0;
}

void lock_assert_none_held(const char *where)
{
	char buf[384];

	if (lock_nr_held())
		panic("%s: %u lock(s) held, none may be:\n%s", where, lock_nr_held(),
		      held_text(buf, sizeof(buf)));
}

void lock_print_held(struct printer *p)
{
	unsigned cpu = lock_this_cpu();
	const struct lock_record *r;

	if (cpu >= LOCK_MAX_CPUS) {
		pr_printf(p, "  (CPU %u has no lock record)\n", cpu);
		return;
	}
	r = &records[cpu];
	for (unsigned i = 0; i < r->nr_held; i++)
		pr_printf(p, "  %s (%s) taken at %p\n", r->held[i].name, r->held[i].kind,
			  r->held[i].at);
}

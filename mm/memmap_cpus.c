/*
 * memmap_cpus.c - an onlined block's memmap_init_range() split over the
 * CPUs: chunks of whole pageblock-flag words, one per CPU, the caller's
 * first, then a bounded wait for the others (include/mm/memmap_cpus.h
 * tells the whole story: the chunks, the claims, the bound).
 *
 * Context: (main), mem_hotplug_lock held for writing.
 */
#include <mm/memmap_cpus.h>
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include "internal.h"
#include <lib/errno.h>
#include <lib/params.h>
#include <lib/printk.h>

/* A chunk's state word: the job's generation << 2 | one of these. */
enum {
	CHUNK_OPEN,	/* given to a helper, not claimed yet */
	CHUNK_CLAIMED,	/* its helper writes it */
	CHUNK_CALLER,	/* the caller writes it (its own, or taken back) */
	CHUNK_DONE,	/* written; the writer's stores visible (release) */
};
#define CHUNK_ST(gen, s)	(((gen) << 2) | (u64)(s))

/*
 * One range's chunks.  start/end/zone/nid/migratetype/design are written
 * by the caller before it publishes the state word CHUNK_OPEN with
 * release; a helper reads them only after its claim (acquire) succeeded.
 * Written again only by a later range, once every chunk of this one is
 * done, so a late helper (its claim refused) never reads them.
 */
struct memmap_chunk {
	u64 start_pfn, end_pfn;		/* [h] the chunk */
	enum zone_type zone;		/* [h] */
	int nid, migratetype;		/* [h] */
	enum mech_design design;	/* [h] the caller's reading of the switch */
	int cpu;			/* [h] start()'s answer: the helper's CPU */
	unsigned caller;		/* [h] the CPU to notify() when done */
	const struct memmap_cpus_ops *ops;	/* [h] the ops the range began with */
	u64 t_start;			/* [h] mm_cycles() when the caller began the range */
	u64 t_claim;			/* [o] the claimer's mm_cycles() at its claim, written before done */
	u64 state;			/* [a] CHUNK_ST(gen, ...): claims by CAS, done with release */
};

static struct memmap_chunk chunks[MEMMAP_CPUS_MAX_CHUNKS];	/* [h] (state: atomic) */
static u64 job_gen;		/* [h] the current range's generation */
static const struct memmap_cpus_ops *cpu_ops;	/* [m] memmap_cpus_set_ops() */
static unsigned max_helpers = MM_NR_CPUS - 1;	/* [m] memory_hotplug.memmap_init_cpus */
struct memmap_cpus_stats memmap_cpus_stats;	/* [h] */

KERNEL_PARAM(memmap_init_cpus,
	.module = "memory_hotplug", .name = "memmap_init_cpus", .type = PARAM_UINT,
	.value = &max_helpers, .min = 0, .max = MM_NR_CPUS - 1, .def = MM_NR_CPUS - 1,
	.writable = true,
	.help = "eager hot-add: CPUs besides CPU 0 that initialise a block's memmap (0: CPU 0 alone)");

void memmap_cpus_set_ops(const struct memmap_cpus_ops *ops) { cpu_ops = ops; }
unsigned memmap_cpus_max(void) { return max_helpers; }
void memmap_cpus_set_max(unsigned n) { max_helpers = n < MM_NR_CPUS - 1 ? n : MM_NR_CPUS - 1; }

/* Write chunk c's struct pages.  Context: whoever claimed it. */
static void chunk_init(const struct memmap_chunk *c)
{
	memmap_init_range_design(c->start_pfn, c->end_pfn, c->zone, c->nid, c->migratetype,
				 c->design);
}

/*
 * A helper's side: claim chunk idx of generation gen (arg holds both),
 * write it, mark it done.  A claim that fails (the caller took the chunk
 * back, or a later range reuses it) writes nothing.  Context: a helper
 * CPU, no lock held.
 */
static void chunk_helper(void *arg)
{
	uintptr_t a = (uintptr_t)arg;
	unsigned idx = (unsigned)(a & 0xff);
	u64 gen = (u64)(a >> 8), want = CHUNK_ST(gen, CHUNK_OPEN);
	struct memmap_chunk *c;

	if (idx >= MEMMAP_CPUS_MAX_CHUNKS)
		return;
	c = &chunks[idx];
	const struct memmap_cpus_ops *ops;
	unsigned caller;

	if (!__atomic_compare_exchange_n(&c->state, &want, CHUNK_ST(gen, CHUNK_CLAIMED), false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	c->t_claim = mm_cycles();
	ops = c->ops;		/* read before done: then the chunk may be the next range's */
	caller = c->caller;
	chunk_init(c);
	__atomic_store_n(&c->state, CHUNK_ST(gen, CHUNK_DONE), __ATOMIC_RELEASE);
	ops->notify(caller);
}

/* The caller's chunk: claimed by it, written, done.  Context: the caller. */
static void caller_init(struct memmap_chunk *c)
{
	__atomic_store_n(&c->state, CHUNK_ST(job_gen, CHUNK_CALLER), __ATOMIC_RELAXED);
	chunk_init(c);
	__atomic_store_n(&c->state, CHUNK_ST(job_gen, CHUNK_DONE), __ATOMIC_RELAXED);
	memmap_cpus_stats.chunks_by_cpu[0]++;
	memmap_cpus_stats.pages_by_cpu[0] += c->end_pfn - c->start_pfn;
}

/*
 * Wait for helper chunk c: done, or taken back when still open after the
 * bound, or (claimed, not done after the bound) logged and waited for to
 * the end.  Context: the caller.
 */
static void wait_chunk(struct memmap_chunk *c)
{
	u64 t0 = cpu_ops->now_ms(), open = CHUNK_ST(job_gen, CHUNK_OPEN);
	bool claimed = false, logged = false;

	for (;;) {
		u64 st = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE), want = open;

		if (st == CHUNK_ST(job_gen, CHUNK_DONE))
			break;
		if (!claimed && st != open) {	/* its helper claimed it: the bound again, for the chunk */
			claimed = true;
			t0 = cpu_ops->now_ms();
		}
		if (logged || cpu_ops->now_ms() - t0 < cpu_ops->timeout_ms) {
			cpu_ops->wait(&c->state, st);
			continue;
		}
		if (!claimed) {
			if (!__atomic_compare_exchange_n(&c->state, &want, CHUNK_ST(job_gen, CHUNK_CALLER),
							 false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				continue;	/* claimed meanwhile: the next turn sees it */
			pr_warn("memmap init: CPU %d did not start its chunk [%#llx, %#llx) within %u ms; CPU 0 did it",
				c->cpu, (unsigned long long)c->start_pfn,
				(unsigned long long)c->end_pfn, cpu_ops->timeout_ms);
			memmap_cpus_stats.taken_back++;
			c->cpu = 0;
			caller_init(c);
			return;
		}
		pr_err("memmap init: CPU %d has not finished its chunk [%#llx, %#llx) within %u ms; waiting for it (its struct pages are its own until it is done)",
		       c->cpu, (unsigned long long)c->start_pfn, (unsigned long long)c->end_pfn,
		       cpu_ops->timeout_ms);
		memmap_cpus_stats.late++;
		logged = true;
	}
	memmap_cpus_stats.claim_cycles += c->t_claim - c->t_start;
	if (c->cpu >= 0 && c->cpu < MM_NR_CPUS) {
		memmap_cpus_stats.chunks_by_cpu[c->cpu]++;
		memmap_cpus_stats.pages_by_cpu[c->cpu] += c->end_pfn - c->start_pfn;
	}
}

/* Contract in include/mm/memmap_cpus.h. */
unsigned memmap_init_range_cpus(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
				int migratetype)
{
	u64 first = ALIGN_DOWN(start_pfn, MEMMAP_CPUS_UNIT);
	u64 units = (ALIGN_UP(end_pfn, MEMMAP_CPUS_UNIT) - first) / MEMMAP_CPUS_UNIT;
	unsigned n = 1, helped = 0;
	enum mech_design d = mech_design(MECH_MEMMAP_INIT);
	bool started[MEMMAP_CPUS_MAX_CHUNKS] = { false };
	u64 t0 = mm_cycles(), t_wait;

	mem_hotplug_assert_held();
	memmap_cpus_stats.ranges++;
	if (start_pfn >= end_pfn)
		return 0;
	/* more CPUs, unless there is no way to them or a trace narrates the init in order */
	if (cpu_ops && !mech_tracing(MECH_MEMMAP_INIT))
		n = 1 + MIN(max_helpers, cpu_ops->idle());
	n = MIN(n, MIN((u64)MEMMAP_CPUS_MAX_CHUNKS, units));
	job_gen++;
	for (unsigned i = 0; i < n; i++) {
		struct memmap_chunk *c = &chunks[i];

		c->start_pfn = MAX(start_pfn, first + (units * i / n) * MEMMAP_CPUS_UNIT);
		c->end_pfn = MIN(end_pfn, first + (units * (i + 1) / n) * MEMMAP_CPUS_UNIT);
		c->zone = zone;
		c->nid = nid;
		c->migratetype = migratetype;
		c->design = d;
		c->cpu = 0;
		c->caller = mm_this_cpu();
		c->ops = cpu_ops;
		c->t_start = t0;
		c->t_claim = t0;
		__atomic_store_n(&c->state, CHUNK_ST(job_gen, CHUNK_OPEN), __ATOMIC_RELEASE);
	}
	for (unsigned i = 1; i < n; i++) {
		int cpu = cpu_ops->start(chunk_helper, (void *)(uintptr_t)((job_gen << 8) | i));

		if (cpu > 0) {
			chunks[i].cpu = cpu;
			started[i] = true;
		} else {
			memmap_cpus_stats.not_started++;
		}
	}
	if (n > 1)
		memmap_cpus_stats.split++;
	caller_init(&chunks[0]);
	for (unsigned i = 1; i < n; i++)
		if (!started[i])
			caller_init(&chunks[i]);
	t_wait = mm_cycles();
	for (unsigned i = 1; i < n; i++) {
		if (!started[i])
			continue;
		wait_chunk(&chunks[i]);
		if (chunks[i].cpu > 0)
			helped++;
	}
	memmap_cpus_stats.wait_cycles += mm_cycles() - t_wait;
	memmap_cpus_stats.cycles += mm_cycles() - t0;
	return helped;
}

/*
 * memmap_cpus.h - the memmap of an onlined memory block initialised on
 * several CPUs at once (the eager hot-add design: virtio-mem plug, DIMM
 * add).  mm/memory_online.c's init_block_memmap() calls
 * memmap_init_range_cpus() instead of memmap_init_range(); the range is
 * cut into chunks, one per CPU that takes part, and every chunk gets the
 * same bytes memmap_init_range() would have written (the tests compare).
 *
 * mm stays freestanding: it does not know how to run code on another
 * CPU.  The platform tells it through struct memmap_cpus_ops, set once
 * with memmap_cpus_set_ops(): the kernel's (kernel/memmap_cpus.c) gives
 * the chunks to idle APs as cpu_work items; the host tests give them to
 * pthreads, or give none (no ops: CPU 0 alone, the serial design).
 *
 * The chunks.  A chunk is a run of whole units of MEMMAP_CPUS_UNIT pfns
 * (16 pageblocks, 32 MiB), aligned to the unit, except that the first
 * and last chunk end at the range's own edges.  16 pageblocks are the 64
 * bits of one word of the section's pageblock flags (4 bits each): two
 * CPUs never write the same word, and each writes only the struct pages
 * of its own chunk.  The caller (CPU 0) does the first chunk itself, then
 * waits for the others.
 *
 * The wait and its bound.  Each chunk is claimed by an atomic state word
 * (a generation and open / claimed by its helper / taken by the caller /
 * done).  A helper claims its chunk before writing and marks it done
 * after (release; the caller reads it with acquire).  A chunk whose
 * helper has not claimed it within ops->timeout_ms is taken back: the
 * caller claims it and initialises it itself ("did not start ...; CPU 0
 * did it" in the log), and the helper, if it runs later, finds its claim
 * refused and writes nothing.  A chunk a helper has claimed but not
 * finished within the bound is logged ("has not finished ...; waiting")
 * and waited for, however long: its struct pages are that CPU's until it
 * marks them done, so the caller can neither redo them nor hand the block
 * to the buddy before.  A start() that fails (no idle CPU) leaves the
 * chunk to the caller at once.
 *
 * Context: (main), mem_hotplug_lock held for writing (one online at a
 * time), the range's memmap populated and the pages nobody else's.
 */
#ifndef MM_MEMMAP_CPUS_H
#define MM_MEMMAP_CPUS_H

#include <mm/page.h>
#include <mm/mmzone.h>

/* pfns of one unit: one 64-bit word of pageblock flags (16 pageblocks). */
#define MEMMAP_CPUS_UNIT	((64 / 4) * pageblock_nr_pages)
/* Chunks of one range at most: the caller's and 7 helpers' (a memory
 * block of 128 MiB has 4 units, so 4 are used there). */
#define MEMMAP_CPUS_MAX_CHUNKS	8

struct memmap_cpus_ops {
	/*
	 * start() - run fn(arg) soon on a CPU other than the caller's that
	 * runs nothing else, at most once.  Returns that CPU's number, or a
	 * negative errno (-EBUSY: no CPU idle) and then fn never runs for
	 * this call.  fn must not wait for the caller.  Context: (main).
	 */
	int (*start)(void (*fn)(void *arg), void *arg);	/* [c] */
	/* idle() - how many CPUs start() could give a chunk now. */
	unsigned (*idle)(void);	/* [c] */
	/* now_ms() - a clock in milliseconds, for the bound.  Context: (main). */
	u64 (*now_ms)(void);	/* [c] */
	/*
	 * wait() - one turn of the caller's wait loop: return once *word may
	 * no longer be old, or after a while (the kernel halts until the next
	 * interrupt, the helper's notify() or the 10 ms tick, so a waiting
	 * vCPU leaves the host's cores to the helpers; the host yields).
	 */
	void (*wait)(const u64 *word, u64 old);	/* [c] */
	/* notify() - a helper finished a chunk: wake CPU cpu's wait(). */
	void (*notify)(unsigned cpu);	/* [c] */
	unsigned timeout_ms;	/* [c] the bound on a helper's start and on its chunk */
};

/*
 * memmap_cpus_set_ops() - the platform's way to other CPUs; NULL: none
 * (every range on the caller's CPU alone).  Context: (boot) or (main),
 * no online running.
 */
void memmap_cpus_set_ops(const struct memmap_cpus_ops *ops);

/*
 * memmap_cpus_max() / memmap_cpus_set_max() - the helpers (CPUs besides
 * the caller) one range may use at most: the parameter
 * memory_hotplug.memmap_init_cpus (0: the caller alone, the one-CPU
 * design, for comparisons in one boot).  Context: (main).
 */
unsigned memmap_cpus_max(void);
void memmap_cpus_set_max(unsigned n);

/*
 * memmap_init_range_cpus() - memmap_init_range(start_pfn, end_pfn, zone,
 * nid, migratetype) (the switch's design, read once by the caller), its
 * chunks on the caller and on up to memmap_cpus_max() helpers.  Returns
 * the number of chunks helpers did.  Context: above.
 */
unsigned memmap_init_range_cpus(u64 start_pfn, u64 end_pfn, enum zone_type zone, int nid,
				int migratetype);

/* What the ranges so far were split into (for the kernel's stats file). */
struct memmap_cpus_stats {
	u64 ranges;		/* [h] memmap_init_range_cpus() calls */
	u64 split;		/* [h] of them, ranges with more than one chunk */
	u64 chunks_by_cpu[MM_NR_CPUS];	/* [h] chunks each CPU did (CPU 0: the caller's) */
	u64 pages_by_cpu[MM_NR_CPUS];	/* [h] and their struct pages */
	u64 not_started;	/* [h] start() refused: the caller did the chunk */
	u64 taken_back;		/* [h] not claimed within the bound: the caller did it */
	u64 late;		/* [h] claimed, not done within the bound: waited for */
	u64 cycles;		/* [h] the caller's mm_cycles() inside the calls, start to last chunk done */
	u64 wait_cycles;	/* [h] of them, waiting for helpers after the caller's own chunks */
	u64 claim_cycles;	/* [h] helpers' chunks: from the call's start to their claim, summed */
};
/* [h] written under mem_hotplug_lock by the caller; helpers write nothing here */
extern struct memmap_cpus_stats memmap_cpus_stats;

#endif

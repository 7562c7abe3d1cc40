/*
 * range_claim.h - who holds a range of physical memory: the one place that
 * says "this memory is being changed, leave it alone".
 *
 * A holder (a long operation of kernel/longop.c: a shell job, a virtio-mem
 * resize, a DIMM being added or removed) claims the page frames
 * [start_pfn, end_pfn) it is changing, under a name users recognise from
 * `work`.  Claims never overlap: range_claim() refuses memory another
 * holder has.  The mm operations that change the state of memory check the
 * claims themselves before touching anything: onlining and offlining a
 * memory block, add_memory() and remove_memory(), devmem_create() and
 * devmem_destroy(), alloc_contig_range() and cma_alloc() return -EBUSY for
 * memory another holder has claimed, and range_claim_holder() then names
 * the holder for the caller's message.
 *
 * How the holder itself gets through: the operations take no extra
 * argument.  Whoever runs a holder's work marks it the current holder for
 * that time (range_claim_set_current(); kernel/longop.c does so around
 * every step of a long operation, a shell job's command included), and a
 * claim of the current holder never stops anything.  Outside every step
 * (the console's own commands, sysfs writes, boot) there is no current
 * holder, so every claim counts.
 *
 * A struct range_claim is the holder's memory (a long operation embeds
 * one); mm links it into its list while it holds a range.  It must be
 * released before that memory is reused or zeroed.
 *
 * Context: (main) for every function.
 */
#ifndef MM_RANGE_CLAIM_H
#define MM_RANGE_CLAIM_H

#include <lib/types.h>

/* Written by range_claim() and range_release() only; every field (main), one CPU. */
struct range_claim {
	u64 start_pfn, end_pfn;		/* [m] [start_pfn, end_pfn), non-empty while held */
	const char *name;		/* [m] the holder, for messages: "job [3] memory offline 32-35" */
	void *owner;			/* [m] the holder's own pointer (a long operation: its struct longop) */
	bool held;			/* [m] on the list of claims */
	struct range_claim *next;	/* [m] list link while held */
};

/*
 * range_claim() - c holds [start_pfn, end_pfn) for the holder called name
 * (owner kept for the holder's use), in place of any range c held before.
 * Returns 0, or -EBUSY when another claim meets the range (c keeps what it
 * held; range_claim_holder() names the other).  An empty range releases c.
 * Context: (main).
 */
int range_claim(struct range_claim *c, u64 start_pfn, u64 end_pfn, const char *name,
		void *owner);

/* range_release() - c holds nothing any more (no-op if it held nothing).
 * Context: (main). */
void range_release(struct range_claim *c);

/*
 * range_claim_holder() - the claim that meets [start_pfn, end_pfn) and is
 * not the current holder's, or NULL when the memory is free to change for
 * the caller.  Context: (main).
 */
const struct range_claim *range_claim_holder(u64 start_pfn, u64 end_pfn);

/*
 * range_claim_check() - -EBUSY when range_claim_holder() names a holder for
 * [start_pfn, end_pfn), else 0: the check the mm operations above make
 * first.  Context: (main).
 */
int range_claim_check(u64 start_pfn, u64 end_pfn);

/*
 * range_claim_set_current() - c (NULL: nobody) is the holder whose work
 * runs now, until the next call; returns the one before, for the caller
 * to put back when the work returns.  Context: (main).
 */
struct range_claim *range_claim_set_current(struct range_claim *c);

/* range_claims_held() - how many claims are on the list (tests: nothing
 * leaks).  Context: (main). */
unsigned range_claims_held(void);

#endif

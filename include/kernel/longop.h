/*
 * longop.h - long operations that proceed in bounded steps from the main
 * loop, so the console keeps answering while they run.
 *
 * memlab has one CPU and no preemption: whatever the main loop calls runs
 * until it returns.  A virtio-mem resize of 256 GiB, a DIMM with hundreds of
 * blocks or the background part of boot's memmap init would therefore
 * silence the shell for seconds.  Such work is written as a step function
 * instead: each call does a slice of at most about LONGOP_SLICE_NS and says
 * whether more is left.  console_getc(), the point where the main loop
 * waits for a key, calls longop_run_slice() between input bytes, so a key
 * typed during the operation is read within one slice.
 *
 * This is a cooperative state machine per operation, not a thread facility:
 * each operation keeps its position in its own structure (which block,
 * which sub-block), so there are no stacks to size and a student can read
 * the whole state of an operation in one struct.
 *
 * Context: (main) for every function; step functions run in (main) with
 * interrupts enabled.
 */
#ifndef KERNEL_LONGOP_H
#define KERNEL_LONGOP_H

#include <lib/types.h>
#include <mm/range_claim.h>

/* One slice's time budget: well under the console's 100 ms answer target. */
#define LONGOP_SLICE_NS	(5ull * 1000 * 1000)

struct printer;

struct longop {
	const char *name;	/* "virtio-mem 01:00.0 plug", shown by `work` */
	const char *unit;	/* what done/total count: "blocks", "pages" */
	/*
	 * step() - do one slice, stopping once ktime_ns() passes deadline_ns
	 * (finishing the current unit of work first).  Returns true while work
	 * remains, false when the operation is complete.  Updates done/total.
	 */
	bool (*step)(struct longop *op, u64 deadline_ns);
	u64 done, total;	/* progress, in units */
	u64 start_ns;		/* ktime_ns() at longop_start() */
	u64 slices;		/* step() calls so far */
	u64 worst_slice_ns;	/* longest single step() call */
	/*
	 * The memory the operation is changing, claimed in mm through
	 * longop_claim() (include/mm/range_claim.h): mm refuses to change it
	 * for anyone else, and other operations on memory there refuse or
	 * wait (docs/long-operations.md).  Released when the operation leaves
	 * the running list.
	 */
	struct range_claim claim;
	/*
	 * Set by a step() that did nothing because it waits, for another
	 * operation's range or for the user (a stopped job); cleared before
	 * every step().  While every running operation waits, the idle loop
	 * may halt until the next interrupt instead of spinning.
	 */
	bool waiting;
	bool running;		/* on the list; cleared when step() says done */
	/*
	 * Set while the user waits for the operation at the prompt (the
	 * shell's job in the foreground, shell/shell_job.c): `work pause`
	 * does not hold it, or the prompt would never come back.
	 */
	bool foreground;
	struct longop *next;	/* list link while running */
};

/* longop_start() - put op on the running list (no-op if already running);
 * its first slice runs at the next idle point. */
void longop_start(struct longop *op);

/* longop_run_slice() - give each running operation one slice; drop those
 * that finish.  Returns true if any operation is still running. */
bool longop_run_slice(void);

/* longop_any_running() - true while any operation is on the list. */
bool longop_any_running(void);

/* longop_next() - the running operation after op (NULL: the first), or
 * NULL at the end; for a reader that lists them (the view channel).  The
 * list may change at the next slice, so a caller walks it in one go. */
const struct longop *longop_next(const struct longop *op);

/* longop_any_working() - true if the idle loop must not halt: an operation
 * on the list did work in its last step (did not set `waiting`). */
bool longop_any_working(void);

/* longop_finish() - run op's slices back to back until it completes, for a
 * caller that needs the result now (boot, tests); the console is not read
 * meanwhile. */
void longop_finish(struct longop *op);

/* longop_cancel() - take op off the running list where it stands (no-op
 * if not running), for an owner that goes away (a device removed): its
 * step() is not called again; the owner leaves its state consistent. */
void longop_cancel(struct longop *op);

/*
 * longop_claim() - running op claims the physical range [start, end)
 * (whole pages, rounded out) in mm under its name, in place of what it
 * held; an empty range releases it.  Returns 0, or -EBUSY when another
 * holder has memory there (op keeps what it held).  While op's step()
 * runs, op is mm's current holder, so its own claim never stops it.  The
 * claim is released when op leaves the running list (done or cancelled);
 * range_release(&op->claim) gives it up earlier.  Context: (main).
 */
int longop_claim(struct longop *op, u64 start, u64 end);

/* longop_range_busy() - the running operation whose claim meets the
 * physical range [start, end), or NULL if none does (or the holder there
 * is not a long operation: range_claim_holder() names every holder).
 * Asked from inside an operation's step() (a shell job's command
 * included), that operation itself is not counted: its own range does not
 * stop it.  Context: (main). */
struct longop *longop_range_busy(u64 start, u64 end);

/*
 * longop_wait_range() - for op's step(), before it changes [start, end):
 * when another holder has memory there (a shell job's blocks), op waits
 * for it: op holds no range meanwhile (or the other would be refused by op
 * in turn), is marked `waiting`, and the other's claim is returned; the
 * step then returns true without working.  Otherwise op holds [start, end)
 * and NULL is returned.  Context: (main), in step().
 */
const struct range_claim *longop_wait_range(struct longop *op, u64 start, u64 end);

/*
 * Pausing, for a student who wants to look at an operation half way (the
 * shell's `work pause`, `work step N`, `work resume`; docs/long-operations.md).
 *
 * longop_pause() - from now on the idle point gives no slice to any
 * operation but a foreground one (longop_run_slice() passes over them;
 * longop_any_working() does not count them, so an idle machine halts).
 * Operations started meanwhile join the list and wait too.  Pausing holds
 * only the slices: pollers and deferred work still run, so a device's new
 * request still puts its operation on the list, and longop_finish()
 * (a caller that needs the result now: boot, the first reader of the
 * memory block files) still runs one to the end.  Returns false if it
 * was paused already.
 *
 * longop_step() - while paused: n rounds, each giving every held
 * operation one slice whose deadline has passed already, so each step()
 * does exactly one unit of its work (one memory block, one section, a
 * job's stretch to its next checkpoint) however fast the machine is.
 * Returns the rounds run: fewer than n once no held operation is left.
 *
 * longop_resume() - the slices go on; false if it was not paused.
 * Context: (main) for all three.
 */
bool longop_pause(void);
unsigned longop_step(unsigned n);
bool longop_resume(void);

/* longop_dump() - one line per running operation: name, done/total unit
 * ("running" while total is 0), elapsed time, slices and the worst slice
 * (", held" while paused, ", waiting" when its last step waited); part of
 * `work`. */
void longop_dump(struct printer *p);

#endif

/*
 * meminit_work.h - the background part of deferred memmap init
 * (deferred_init=new, include/mm/deferred_init.h) as a long operation:
 * started at the end of boot, so the prompt comes first, it initialises
 * the pending sections of boot memory a few at a time from the main loop's
 * idle point, each slice bounded by LONGOP_SLICE_NS (finishing the section
 * it is in).  `work` lists it with done/total sections; `meminit` shows
 * its progress and `meminit finish` runs the rest in the foreground.
 *
 * Context: (main).
 */
#ifndef KERNEL_MEMINIT_WORK_H
#define KERNEL_MEMINIT_WORK_H

#include <lib/types.h>

struct printer;

/*
 * meminit_work_start() - start the long operation if boot memory waits
 * (and deferred_init_background=1, the default: 0 leaves the pending
 * sections to the allocator and `meminit finish`, for experiments and
 * tests); nothing otherwise.  Called once, by kmain() before the shell.
 */
void meminit_work_start(void);

/*
 * meminit_work_dump() - one line: the background operation's sections
 * done of total, its slices and elapsed time (running or finished), or
 * nothing when it never ran.  Part of `meminit`.
 */
void meminit_work_dump(struct printer *p);

/* meminit_work_wait_for() - the operation is complete only once busy()
 * (the other CPUs' workers) says false as well: the log's "complete" line
 * then comes after every CPU is idle again. */
void meminit_work_wait_for(bool (*busy)(void));

/* meminit_work_others_with() - what queues the other CPUs' items again when
 * a hot-added section was made pending after boot (deferred_init_hotplug=1):
 * kernel/meminit_cpus.c's meminit_cpus_start().  Context: (main). */
void meminit_work_others_with(void (*start)(void));

/* meminit_work_running() - is the background operation under way? */
bool meminit_work_running(void);

/*
 * meminit_cpus_start() - kernel/meminit_cpus.c: while the background
 * operation runs, give every online AP (up to deferred_init_cpus=) whose
 * node has pending sections a work item that initialises them
 * (deferred_init_work_node()); CPU 0's slices go on alongside.  Called
 * once, by kmain() after meminit_work_start().
 */
void meminit_cpus_start(void);

/*
 * meminit_cpus_queue() - the same workers, now: one on every online AP
 * (up to deferred_init_cpus=) whose node has pending sections and whose
 * previous item is done; returns how many were queued.
 * meminit_cpus_busy() - is any worker queued or running?
 * meminit_cpus_stop() - ask the workers to end after their current
 * section.  For `cpus meminit`.  Context: (main).
 */
unsigned meminit_cpus_queue(void);
bool meminit_cpus_busy(void);
void meminit_cpus_stop(void);

#endif

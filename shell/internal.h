/*
 * internal.h - the tables the shell's memory commands keep, shared with
 * the host tests that check them against the allocator (the mm-commands
 * machine of tests/host/test_mm_cmds.c and tests/fuzz/fuzz_mm_cmds.c walk
 * every page's owner and reset the tables between runs).  Nothing outside
 * shell/ and those tests includes this header.
 *
 * Invariants: a handle slot is free iff its id is 0; a live handle's block
 * of 2^order pages starts at page and carries page->index = id; a contig
 * range slot is free iff nr_pages is 0.
 *
 * Context: main loop only (shell commands).
 */
#ifndef SHELL_INTERNAL_H
#define SHELL_INTERNAL_H

#include <lib/types.h>
#include <mm/gfp.h>
#include <mm/migrate.h>

/* ---- shell/cmd_handles.c: `alloc`, `free`, `fill`, `check`, `move` -------- */

#define MM_MAX_HANDLES		4096

struct mm_handle {
	struct movable_owner mo; /* first: page->owner of a movable handle's pages */
	unsigned long id;	/* 1, 2, ... as given out; 0: the slot is free */
	struct page *page;	/* head page of the block, where it is now */
	unsigned order;		/* the block is 2^order pages */
	gfp_t gfp;		/* flags it was allocated with */
	u64 pattern;		/* what `fill` wrote, if filled */
	bool filled;		/* `fill` ran on it since the allocation */
};

extern struct mm_handle handles[MM_MAX_HANDLES];	/* the handle table */
extern unsigned long next_handle_id;			/* the id the next alloc gets */
extern unsigned nr_live_handles;			/* slots with an id */

/*
 * mm_handle_alloc() - one block of 2^order pages from alloc_pages() (or
 * alloc_pages_node() when nid is not NUMA_NO_NODE) kept in a new handle,
 * printing nothing.  Returns the handle, or NULL with *err -ENOSPC (the
 * table is full) or -ENOMEM (no free block).  `alloc` and the view
 * channel's alloc request (shell/view_channel.c) both use it.
 * Context: (main).
 */
struct mm_handle *mm_handle_alloc(unsigned order, gfp_t gfp, int nid, int *err);

/*
 * mm_handle_release() - give h's block back to the allocator and free the
 * slot, printing nothing.  Returns 0, or the allocator's error (the
 * handle is then kept).  Context: (main).
 */
int mm_handle_release(struct mm_handle *h);

/* ---- shell/cmd_contig.c: `contig alloc` / `contig free` ------------------ */

#define CONTIG_MAX_RANGES	64

struct contig_range {
	u64 pfn;		/* first page */
	u64 nr_pages;		/* pages; 0: slot free */
	bool frozen;		/* refcount 0 pages (alloc_contig_frozen_range) */
};

extern struct contig_range contig_ranges[CONTIG_MAX_RANGES];	/* allocated ranges */

/* ---- shell/cmd_aml.c: `acpi ns|eval|trace`, called by `acpi` ------------- */

struct printer;
int cmd_acpi_aml(struct printer *out, int argc, char **argv);

#endif

/*
 * mechanisms.h - the Linux mechanisms memlab keeps next to the designs
 * they replaced, and the run-time switch between them.
 *
 *   contig_check        zone contiguity: old = walk every pageblock after
 *                       each span change; new = pages_with_online_memmap
 *                       counter (mm/zone_contig.c)
 *   memmap_init         old = every struct page field by field; new = a
 *                       template copied; template-nt = the copy with
 *                       non-temporal stores (mm/memmap_init.c)
 *   contig_free         free_contig_range: old = page by page through the
 *                       pcp lists; new = prepare each page, then free in the
 *                       largest aligned chunks (mm/contig_free.c)
 *   auto_movable_stats  auto-movable online check: old = sum the stats of
 *                       every zone each time; new = cached sums kept in
 *                       step (mm/online_policy.c)
 *   deferred_init       boot memmap init: old = every struct page of boot
 *                       memory before the prompt; new = a bounded early
 *                       part per node, the rest in background steps and on
 *                       demand (mm/deferred_init.c).  A boot-time choice
 *                       (deferred_init=old|new, default new); switching to
 *                       old at run time finishes the pending work now,
 *                       switching to new only says what the next boot does
 *
 * Each mechanism has a design (DESIGN_OLD, DESIGN_NEW, or DESIGN_NEW_NT for
 * memmap_init) and a trace switch that narrates its steps on the console,
 * off by default.  The defaults: contig_check, memmap_init (template, not
 * template-nt), contig_free and auto_movable_stats start in DESIGN_NEW;
 * deferred_init starts in DESIGN_OLD, and deferred_init_plan() sets it
 * from the boot parameter.  deferred_init differs because its new design
 * lets MemTotal and the free lists grow after the prompt, so what a first
 * command reads would depend on timing; the boot asks for it instead
 * (docs/deferred-init.md).  Views:
 * /sys/kernel/mm/memlab/<name> (old|new|template-nt) and
 * /sys/kernel/mm/memlab/trace/<name> (0|1); shell: `mech`, `trace`.
 *
 * One pattern in all of them: each mechanism file holds its old design, its
 * new design and the switch (the entry point that reads its getter below
 * and dispatches); explicit _old/_new or _design() entries exist
 * only for comparisons and equivalence tests, and say so: the _design()
 * twins are mm's own (mm/internal.h; make check-tree's "designs" rule),
 * so code above mm picks a design only through this header.  Only
 * mm/mechanisms.c writes a design: mech_set() (validates, resyncs,
 * traces) and mech_override()/mech_restore() for benchmarks.  The
 * measurements themselves live in mm/mech_bench.c (shell: `bench NAME`).
 *
 * Context: the switches are read anywhere; written from (main) between
 * operations, never during one.
 */
#ifndef MM_MECHANISMS_H
#define MM_MECHANISMS_H

#include <lib/types.h>
#include <lib/printk.h>
#include <lib/printer.h>

enum mech_id {
	MECH_CONTIG_CHECK,
	MECH_MEMMAP_INIT,
	MECH_CONTIG_FREE,
	MECH_AUTO_MOVABLE_STATS,
	MECH_DEFERRED_INIT,
	NR_MECHS
};

enum mech_design {
	DESIGN_OLD,	/* "old": the design Linux replaced */
	DESIGN_NEW,	/* "new": the 2025-2026 design (default but for deferred_init) */
	DESIGN_NEW_NT,	/* "template-nt": memmap_init only, non-temporal stores */
	NR_MECH_DESIGNS
};

/*
 * mech_design_names[] - the name of each design, by enum mech_design:
 * what mech_design_name() says and mech_parse_design() reads.  A boot
 * parameter that chooses a design (deferred_init=) takes its words from
 * here too: the first two, for a mechanism without template-nt.
 */
extern const char *const mech_design_names[NR_MECH_DESIGNS];

/*
 * The table itself (name, summary, current design, trace switches) is
 * mm/mechanisms.c's own; above it, code reads a mechanism by id through
 * the functions below and changes it through mech_set() and the others.
 */

/*
 * The getters: the design a mechanism's switch dispatches on.  Each
 * mechanism file reads its own (zone_update_contiguous(), memmap_init_range(),
 * free_contig_range(), auto_movable_stats_get()).  An id out of range is
 * a bug (MM_BUG_ON).  Context: (any).
 */
enum mech_design mech_design(enum mech_id id);
static inline bool mech_new(enum mech_id id) { return mech_design(id) != DESIGN_OLD; }
bool mech_tracing(enum mech_id id);
bool mech_tracing_verbose(enum mech_id id);
bool mech_any_tracing(void);
static inline enum mech_design contig_check_design(void) { return mech_design(MECH_CONTIG_CHECK); }
static inline enum mech_design memmap_init_design(void) { return mech_design(MECH_MEMMAP_INIT); }
static inline enum mech_design contig_free_design(void) { return mech_design(MECH_CONTIG_FREE); }
static inline enum mech_design auto_movable_stats_design(void)
{
	return mech_design(MECH_AUTO_MOVABLE_STATS);
}

/*
 * mech_name() - the knob name ("contig_check", ...: the file under
 * /sys/kernel/mm/memlab/ and the word `mech` takes).  mech_has_nt() -
 * whether the mechanism has the template-nt design (memmap_init only).
 * An id out of range is a bug.  Context: (any).
 */
const char *mech_name(enum mech_id id);
bool mech_has_nt(enum mech_id id);

/* mech_trace() - a teaching line on the console when the mechanism's trace is on. */
#define mech_trace(id, fmt, ...)						\
	do {									\
		if (mech_tracing(id))						\
			printk(LOG_NOTICE, "[%s] " fmt, mech_name(id),		\
			       ##__VA_ARGS__);					\
	} while (0)

/*
 * mech_find() - the id of the mechanism whose knob name is name, or
 * -ENOENT.  Context: (any).
 */
int mech_find(const char *name);

/*
 * mech_set() - THE setter: switch mechanism id to design d.  -EINVAL for
 * an id out of range or a design it does not have (template-nt is
 * memmap_init's only).  Switching from old to a new design first runs the
 * mechanism's resync hook, if it registered one, so the new design starts
 * from the truth; the switch is narrated when the mechanism's trace is on.
 * No code outside mm/mechanisms.c writes a mechanism's design.
 * Context: (main), between operations.
 */
int mech_set(enum mech_id id, enum mech_design d);

/*
 * mech_parse_design() - THE parser of design names: the len bytes at word
 * are exactly "old", "new" or "template-nt" (the names mech_design_name()
 * gives).  Returns the enum mech_design, or -EINVAL for any other word;
 * whether the mechanism has that design is mech_set()'s question.
 * Context: (any).
 */
int mech_parse_design(const char *word, size_t len);

/*
 * mech_set_design() - mech_parse_design() the value (a trailing newline,
 * as a file write has, is fine) and mech_set() it on mechanism id.
 * Returns 0 or -EINVAL.  Context: (main).
 */
int mech_set_design(enum mech_id id, const char *value, size_t len);
const char *mech_design_name(enum mech_design d);

/*
 * mech_set_trace() - turn a mechanism's narration on or off (and its
 * step-by-step narration off).  mech_set_trace_verbose() turns both on,
 * for a mechanism that has a step-by-step narration; -EINVAL for the
 * others.  Context: (main).
 */
void mech_set_trace(enum mech_id id, bool on);
int mech_set_trace_verbose(enum mech_id id);

/*
 * mech_override() / mech_restore() - for benchmarks and comparisons that
 * must run one specific design: mech_override() saves the current design
 * in *saved and switches to d (through mech_set(), so resync hooks and
 * validation apply); mech_restore() switches back to saved.  Returns 0
 * or -EINVAL (nothing changed).  *saved is written in both cases, so a
 * restore is never of an uninitialised design: after a failure it holds
 * the design in force and restoring it changes nothing.  Callers check
 * the result all the same and report it; an id out of range has no design
 * to save, and its restore is a bug (MM_BUG_ON).  Context: (main); pair
 * them in one operation, nothing else switching in between.
 */
int mech_override(enum mech_id id, enum mech_design d, enum mech_design *saved);
void mech_restore(enum mech_id id, enum mech_design saved);

/*
 * Resync hooks: a mechanism whose new design keeps state that may be
 * stale after running the old design registers a function that recomputes
 * that state from scratch; mech_set() calls it when switching from old to
 * new.  Today only auto_movable_stats registers one (mm/mm_init.c, at
 * boot); contig_check keeps its counter under both designs and needs none.
 * Context: (boot).
 */
void mech_register_resync(enum mech_id id, void (*resync)(void));

/*
 * Leave hooks: a mechanism whose new design leaves work pending registers
 * a function that completes it; mech_set() calls it when switching from a
 * new design to old, before the switch.  Today deferred_init registers
 * deferred_init_finish() (mm/mm_init.c, at boot).  Context: (boot).
 */
void mech_register_leave_new(enum mech_id id, void (*leave)(void));

/* mech_dump() - the `mech` table: name, design, trace, summary.  Context: (any). */
void mech_dump(struct printer *p);

/*
 * mech_reset() - every mechanism back to its design as linked (the one
 * deferred_init_plan() and the boot parameters start from), all traces
 * off; no hook runs.  For host tests that boot the simulated machine
 * again; the kernel boots with the table as linked.  Context: (boot),
 * before mm_core_init().
 */
void mech_reset(void);

#endif

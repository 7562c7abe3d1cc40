/*
 * mechanisms.h - the four Linux mechanisms memlab keeps next to the designs
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
 *
 * Each mechanism has a design (DESIGN_OLD, DESIGN_NEW, or DESIGN_NEW_NT for
 * memmap_init) and a trace switch that narrates its steps on the console,
 * off by default.  The defaults are the new designs.  Views:
 * /sys/kernel/mm/memlab/<name> (old|new|template-nt) and
 * /sys/kernel/mm/memlab/trace/<name> (0|1); shell: `mech`, `trace`.
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
	NR_MECHS
};

enum mech_design {
	DESIGN_OLD,	/* "old": the design Linux replaced */
	DESIGN_NEW,	/* "new": the 2025-2026 design (default) */
	DESIGN_NEW_NT,	/* "template-nt": memmap_init only, non-temporal stores */
};

struct mechanism {
	const char *name;	/* knob name: "contig_check", ... */
	const char *summary;	/* one line for `mech` */
	enum mech_design design;/* current design */
	bool has_nt;		/* accepts "template-nt" */
	bool trace;		/* narrate steps on the console */
};

extern struct mechanism mechanisms[NR_MECHS];

static inline enum mech_design mech_design(enum mech_id id) { return mechanisms[id].design; }
static inline bool mech_new(enum mech_id id) { return mechanisms[id].design != DESIGN_OLD; }
static inline bool mech_tracing(enum mech_id id) { return mechanisms[id].trace; }

/* mech_trace() - a teaching line on the console when the mechanism's trace is on. */
#define mech_trace(id, fmt, ...)						\
	do {									\
		if (mech_tracing(id))						\
			printk(LOG_NOTICE, "[%s] " fmt, mechanisms[id].name,	\
			       ##__VA_ARGS__);					\
	} while (0)

/* mech_find() - by name, or NULL. */
struct mechanism *mech_find(const char *name);

/*
 * mech_set_design() - parse "old", "new" or "template-nt" (a trailing
 * newline is fine) and switch.  Returns 0 or -EINVAL.  Switching
 * contig_check or auto_movable_stats to "new" first brings their counters
 * up to date (mech_resync hooks), so the new design starts from the truth.
 */
int mech_set_design(struct mechanism *m, const char *value, size_t len);
const char *mech_design_name(enum mech_design d);

/*
 * Resync hooks: a mechanism whose new design keeps state (a counter, a
 * cache) registers a function that recomputes that state from scratch.
 * mech_set_design() calls it when switching to the new design.
 */
void mech_register_resync(enum mech_id id, void (*resync)(void));

void mech_dump(struct printer *p);

#endif

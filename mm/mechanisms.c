/*
 * mechanisms.c - the switches between old and new designs: the table, the
 * one setter (mech_set), the save/restore pair for benchmarks (see
 * include/mm/mechanisms.h for what each one chooses).  The table is this
 * file's alone; everyone else reads it through the getters below.
 */
#include <mm/mechanisms.h>
#include <mm/platform.h>
#include <lib/string.h>
#include <lib/errno.h>

struct mechanism {
	const char *name;	/* [c] knob name: "contig_check", ... */
	const char *summary;	/* [c] one line for `mech` */
	enum mech_design linked;/* [c] the design before anyone switched: mech_reset() */
	enum mech_design design;/* [m] current design */
	bool has_nt;		/* [c] accepts "template-nt" */
	bool trace;		/* [m] narrate steps on the console */
	bool has_verbose;	/* [c] has a step-by-step narration as well */
	bool verbose;		/* [m] narrate every step (implies trace) */
};

/* The design a mechanism starts in, and goes back to in mech_reset(). */
#define MECH_DEFAULT(d)	.linked = (d), .design = (d)

static struct mechanism mechanisms[NR_MECHS] = {	/* [m] */
	[MECH_CONTIG_CHECK] = {
		.name = "contig_check",
		.summary = "zone contiguity: pageblock walk (old) or pages_with_online_memmap counter (new)",
		MECH_DEFAULT(DESIGN_NEW),
		.has_verbose = true,	/* the walk, pageblock by pageblock */
	},
	[MECH_MEMMAP_INIT] = {
		.name = "memmap_init",
		.has_verbose = true,	/* one page's words: the template and a copy */
		.summary = "memmap init: field by field (old), template copy (new), template with movnti (template-nt)",
		MECH_DEFAULT(DESIGN_NEW),
		.has_nt = true,
	},
	[MECH_CONTIG_FREE] = {
		.name = "contig_free",
		.summary = "free_contig_range: page by page (old) or prepared, then largest aligned chunks (new)",
		MECH_DEFAULT(DESIGN_NEW),
	},
	[MECH_AUTO_MOVABLE_STATS] = {
		.name = "auto_movable_stats",
		.summary = "auto-movable online check: sum every zone (old) or cached sums (new)",
		MECH_DEFAULT(DESIGN_NEW),
	},
	[MECH_DEFERRED_INIT] = {
		.name = "deferred_init",
		.summary = "boot memmap: all before the prompt (old) or early part, rest in steps and on demand (new)",
		MECH_DEFAULT(DESIGN_OLD),	/* deferred_init= at boot chooses */
	},
};

static void (*resync_hooks[NR_MECHS])(void);	/* [m] */
static void (*leave_new_hooks[NR_MECHS])(void);	/* [m] */

/* The entry of id; an id out of range is a caller's bug. */
static struct mechanism *mech_of(enum mech_id id)
{
	MM_BUG_ON((int)id < 0 || id >= NR_MECHS, "mechanism id %d", (int)id);
	return &mechanisms[id];
}

enum mech_design mech_design(enum mech_id id)
{
	return mech_of(id)->design;
}

bool mech_tracing(enum mech_id id)
{
	return mech_of(id)->trace;
}

bool mech_tracing_verbose(enum mech_id id)
{
	return mech_of(id)->verbose;
}

bool mech_any_tracing(void)
{
	for (int i = 0; i < NR_MECHS; i++)
		if (mechanisms[i].trace)
			return true;
	return false;
}

const char *mech_name(enum mech_id id)
{
	return mech_of(id)->name;
}

bool mech_has_nt(enum mech_id id)
{
	return mech_of(id)->has_nt;
}

int mech_find(const char *name)
{
	for (int i = 0; i < NR_MECHS; i++)
		if (!strcmp(mechanisms[i].name, name))
			return i;
	return -ENOENT;
}

const char *const mech_design_names[NR_MECH_DESIGNS] = {
	[DESIGN_OLD] = "old", [DESIGN_NEW] = "new", [DESIGN_NEW_NT] = "template-nt",
};

const char *mech_design_name(enum mech_design d)
{
	if (d != DESIGN_OLD && d != DESIGN_NEW)
		d = DESIGN_NEW_NT;	/* as it always said for any other value */
	return mech_design_names[d];
}

void mech_register_resync(enum mech_id id, void (*resync)(void))
{
	MM_BUG_ON(id < 0 || id >= NR_MECHS, "mech_register_resync: id %d", (int)id);
	resync_hooks[id] = resync;
}

void mech_register_leave_new(enum mech_id id, void (*leave)(void))
{
	MM_BUG_ON(id < 0 || id >= NR_MECHS, "mech_register_leave_new: id %d", (int)id);
	leave_new_hooks[id] = leave;
}

int mech_set(enum mech_id id, enum mech_design d)
{
	struct mechanism *m;

	if ((int)id < 0 || id >= NR_MECHS)
		return -EINVAL;
	m = &mechanisms[id];
	if (d != DESIGN_OLD && d != DESIGN_NEW && !(d == DESIGN_NEW_NT && m->has_nt))
		return -EINVAL;
	if (d == m->design)
		return 0;
	if (d != DESIGN_OLD && m->design == DESIGN_OLD && resync_hooks[id])
		resync_hooks[id]();
	if (d == DESIGN_OLD && leave_new_hooks[id])
		leave_new_hooks[id]();
	mech_trace(id, "design %s -> %s", mech_design_name(m->design), mech_design_name(d));
	m->design = d;
	return 0;
}

int mech_parse_design(const char *word, size_t len)
{
	for (unsigned d = 0; d < ARRAY_SIZE(mech_design_names); d++)
		if (len == strlen(mech_design_names[d]) && !strncmp(word, mech_design_names[d], len))
			return (int)d;
	return -EINVAL;
}

int mech_set_design(enum mech_id id, const char *value, size_t len)
{
	int d;

	if (len && value[len - 1] == '\n')	/* as `echo` writes a file */
		len--;
	d = mech_parse_design(value, len);
	if (d < 0)
		return d;
	return mech_set(id, (enum mech_design)d);
}

void mech_set_trace(enum mech_id id, bool on)
{
	MM_BUG_ON(id < 0 || id >= NR_MECHS, "mech_set_trace: id %d", (int)id);
	mechanisms[id].trace = on;
	mechanisms[id].verbose = false;
}

int mech_set_trace_verbose(enum mech_id id)
{
	MM_BUG_ON(id < 0 || id >= NR_MECHS, "mech_set_trace_verbose: id %d", (int)id);
	if (!mechanisms[id].has_verbose)
		return -EINVAL;
	mechanisms[id].trace = mechanisms[id].verbose = true;
	return 0;
}

int mech_override(enum mech_id id, enum mech_design d, enum mech_design *saved)
{
	if ((int)id < 0 || id >= NR_MECHS) {
		*saved = DESIGN_OLD;	/* nothing to go back to: mech_restore() bugs */
		return -EINVAL;
	}
	/* written before the switch: after a failure, restoring it changes nothing */
	*saved = mechanisms[id].design;
	return mech_set(id, d);
}

void mech_restore(enum mech_id id, enum mech_design saved)
{
	int err = mech_set(id, saved);

	MM_BUG_ON(err, "mech_restore: mechanism %d to design %d: %d", (int)id, (int)saved, err);
}

void mech_dump(struct printer *p)
{
	for (int i = 0; i < NR_MECHS; i++)
		pr_printf(p, "%-19s %-11s trace %s  %s\n", mechanisms[i].name,
			  mech_design_name(mechanisms[i].design), mechanisms[i].trace ? "on " : "off",
			  mechanisms[i].summary);
}

void mech_reset(void)
{
	for (int i = 0; i < NR_MECHS; i++) {
		mechanisms[i].design = mechanisms[i].linked;
		mechanisms[i].trace = mechanisms[i].verbose = false;
	}
}

/*
 * mechanisms.c - the switches between old and new designs (see
 * include/mm/mechanisms.h for what each one chooses).
 */
#include <mm/mechanisms.h>
#include <lib/string.h>
#include <lib/errno.h>

struct mechanism mechanisms[NR_MECHS] = {
	[MECH_CONTIG_CHECK] = {
		.name = "contig_check",
		.summary = "zone contiguity: pageblock walk (old) or pages_with_online_memmap counter (new)",
		.design = DESIGN_NEW,
	},
	[MECH_MEMMAP_INIT] = {
		.name = "memmap_init",
		.summary = "memmap init: field by field (old), template copy (new), template with movnti (template-nt)",
		.design = DESIGN_NEW,
		.has_nt = true,
	},
	[MECH_CONTIG_FREE] = {
		.name = "contig_free",
		.summary = "free_contig_range: page by page (old) or prepared, then largest aligned chunks (new)",
		.design = DESIGN_NEW,
	},
	[MECH_AUTO_MOVABLE_STATS] = {
		.name = "auto_movable_stats",
		.summary = "auto-movable online check: sum every zone (old) or cached sums (new)",
		.design = DESIGN_NEW,
	},
};

static void (*resync_hooks[NR_MECHS])(void);

struct mechanism *mech_find(const char *name)
{
	for (int i = 0; i < NR_MECHS; i++)
		if (!strcmp(mechanisms[i].name, name))
			return &mechanisms[i];
	return NULL;
}

const char *mech_design_name(enum mech_design d)
{
	return d == DESIGN_OLD ? "old" : d == DESIGN_NEW ? "new" : "template-nt";
}

static bool word_is(const char *value, size_t len, const char *word)
{
	size_t n = strlen(word);

	if (len && value[len - 1] == '\n')
		len--;
	return len == n && !strncmp(value, word, n);
}

void mech_register_resync(enum mech_id id, void (*resync)(void))
{
	resync_hooks[id] = resync;
}

int mech_set_design(struct mechanism *m, const char *value, size_t len)
{
	enum mech_design d;
	int id = (int)(m - mechanisms);

	if (word_is(value, len, "old"))
		d = DESIGN_OLD;
	else if (word_is(value, len, "new"))
		d = DESIGN_NEW;
	else if (m->has_nt && word_is(value, len, "template-nt"))
		d = DESIGN_NEW_NT;
	else
		return -EINVAL;
	if (d != DESIGN_OLD && m->design == DESIGN_OLD && resync_hooks[id])
		resync_hooks[id]();
	m->design = d;
	return 0;
}

void mech_dump(struct printer *p)
{
	for (int i = 0; i < NR_MECHS; i++)
		pr_printf(p, "%-19s %-11s trace %s  %s\n", mechanisms[i].name,
			  mech_design_name(mechanisms[i].design), mechanisms[i].trace ? "on " : "off",
			  mechanisms[i].summary);
}

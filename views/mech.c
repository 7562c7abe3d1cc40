/*
 * mech.c - the switches of the four mechanisms as files (the commands
 * `mech` and `trace` are shell/cmd_mech.c):
 *
 *   /sys/kernel/mm/memlab/<name>         old | new (| template-nt)
 *   /sys/kernel/mm/memlab/trace/<name>   0 | 1
 *
 * Writes go through mech_set_design() and mech_set_trace(): the one setter
 * validates, resyncs and traces.  Context: (main).
 */
#include <mm/mechanisms.h>
#include <views/vfs.h>
#include <lib/errno.h>

/* Each file's data is its mechanism's id: mech_ids[id] == id. */
static enum mech_id mech_ids[NR_MECHS] = {
	[MECH_CONTIG_CHECK] = MECH_CONTIG_CHECK,
	[MECH_MEMMAP_INIT] = MECH_MEMMAP_INIT,
	[MECH_CONTIG_FREE] = MECH_CONTIG_FREE,
	[MECH_AUTO_MOVABLE_STATS] = MECH_AUTO_MOVABLE_STATS,
	[MECH_DEFERRED_INIT] = MECH_DEFERRED_INIT,
};

/* <name>: the current design's name. */
static int show_design(struct printer *p, void *data)
{
	pr_printf(p, "%s\n", mech_design_name(mech_design(*(enum mech_id *)data)));
	return 0;
}

/* <name> written: the word parsed and switched to by mm. */
static int store_design(const char *buf, size_t len, void *data)
{
	return mech_set_design(*(enum mech_id *)data, buf, len);
}

/* trace/<name>: 1 while the narration is on. */
static int show_trace(struct printer *p, void *data)
{
	pr_printf(p, "%d\n", mech_tracing(*(enum mech_id *)data) ? 1 : 0);
	return 0;
}

/* trace/<name> written: 0 or 1 (a trailing newline is fine), else -EINVAL. */
static int store_trace(const char *buf, size_t len, void *data)
{
	if (len && buf[len - 1] == '\n')
		len--;
	if (len != 1 || (buf[0] != '0' && buf[0] != '1'))
		return -EINVAL;
	mech_set_trace(*(enum mech_id *)data, buf[0] == '1');
	return 0;
}

static const struct vfs_file_ops design_ops = { .show = show_design, .store = store_design };
static const struct vfs_file_ops trace_ops = { .show = show_trace, .store = store_trace };

#define MECH_FILES(id, name)								\
	VFS_FILE(mech_##name, "/sys/kernel/mm/memlab/" #name, &design_ops,		\
		 &mech_ids[id]);							\
	VFS_FILE(trace_##name, "/sys/kernel/mm/memlab/trace/" #name, &trace_ops,	\
		 &mech_ids[id])

MECH_FILES(MECH_CONTIG_CHECK, contig_check);
MECH_FILES(MECH_MEMMAP_INIT, memmap_init);
MECH_FILES(MECH_CONTIG_FREE, contig_free);
MECH_FILES(MECH_AUTO_MOVABLE_STATS, auto_movable_stats);
MECH_FILES(MECH_DEFERRED_INIT, deferred_init);

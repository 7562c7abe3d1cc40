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

static int show_design(struct printer *p, void *data)
{
	const struct mechanism *m = data;

	pr_printf(p, "%s\n", mech_design_name(m->design));
	return 0;
}

static int store_design(const char *buf, size_t len, void *data)
{
	return mech_set_design(data, buf, len);
}

static int show_trace(struct printer *p, void *data)
{
	const struct mechanism *m = data;

	pr_printf(p, "%d\n", m->trace ? 1 : 0);
	return 0;
}

static int store_trace(const char *buf, size_t len, void *data)
{
	struct mechanism *m = data;

	if (len && buf[len - 1] == '\n')
		len--;
	if (len != 1 || (buf[0] != '0' && buf[0] != '1'))
		return -EINVAL;
	mech_set_trace((enum mech_id)(m - mechanisms), buf[0] == '1');
	return 0;
}

static const struct vfs_file_ops design_ops = { .show = show_design, .store = store_design };
static const struct vfs_file_ops trace_ops = { .show = show_trace, .store = store_trace };

#define MECH_FILES(id, name)								\
	VFS_FILE(mech_##name, "/sys/kernel/mm/memlab/" #name, &design_ops,		\
		 &mechanisms[id]);							\
	VFS_FILE(trace_##name, "/sys/kernel/mm/memlab/trace/" #name, &trace_ops,	\
		 &mechanisms[id])

MECH_FILES(MECH_CONTIG_CHECK, contig_check);
MECH_FILES(MECH_MEMMAP_INIT, memmap_init);
MECH_FILES(MECH_CONTIG_FREE, contig_free);
MECH_FILES(MECH_AUTO_MOVABLE_STATS, auto_movable_stats);
MECH_FILES(MECH_DEFERRED_INIT, deferred_init);

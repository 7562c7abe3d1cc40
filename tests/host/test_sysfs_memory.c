/*
 * test_sysfs_memory.c - views/sysfs_memory.c on a simulated machine under
 * ASan and UBSan: the state and online files drive the hotplug core the way Linux's state_store() and
 * online_store() do, errno for errno.
 *
 * The suite `sysfs_memory` links the real views/sysfs_memory.c: its hooks
 * take the place of mm/memory_block.c's no-op ones, its static files are in
 * the file tree (vfs_init()), and the per-block files are created for real,
 * in the file tree of views/vfs.c.  The parsers it uses are lib/kstrtox.c's,
 * tested in test_params.c.
 */
#include "htest.h"
#include <views/vfs.h>
#include <views/memory_sysfs.h>

#include <string.h>
#include <lib/errno.h>
#include <lib/fw_memmap.h>
#include <mm/mm_init.h>
#include "mm_host.h"
#include "hotplug_check.h"
#include "../../mm/internal.h"
#include <kernel/longop.h>
#include <lib/printer.h>

#define MiB	(1ULL << 20)
#define GiB	(1ULL << 30)
#define MEMORY_DIR	"/sys/devices/system/memory"
#define INJECT_ONLINE	"/sys/kernel/debug/notifier-error-inject/memory/actions/MEM_GOING_ONLINE/error"

/* kernel/longop.c's clock: still, unless a test makes every reading move
 * it on by clock_step_ns (then each fill slice does one block). */
static u64 clock_ns, clock_step_ns;

u64 ktime_ns(void)
{
	clock_ns += clock_step_ns;
	return clock_ns;
}

/* A file's text, NUL-terminated, in a static buffer. */
static const char *cat(const char *path)
{
	static char text[256];
	struct buf_printer bp;

	buf_printer_init(&bp, text, sizeof(text));
	if (vfs_read(path, &bp.p))
		return "";
	return text;
}

static int echo(const char *path, const char *word)
{
	return vfs_write(path, word, strlen(word));
}

/*
 * 1 GiB of boot RAM, a 256 MiB DIMM added offline at 4 GiB (blocks 32 and
 * 33), then the files made; the state and online files of block 32 walk
 * it through Linux's rules.
 */
HTEST(sysfs_memory_state_and_online_files)
{
	const char *state = MEMORY_DIR "/memory32/state";
	const char *online = MEMORY_DIR "/memory32/online";

	hotplug_boot(5 * GiB, GiB);
	memhp_set_default_online_type(MMOP_OFFLINE);
	memhp_set_online_policy(ONLINE_POLICY_CONTIG_ZONES);
	vfs_init();
	CHECK_EQ(add_memory(0, 4 * GiB, 256 * MiB, -1, MHP_NONE), 0);
	memory_sysfs_init();

	CHECK_STREQ(cat(MEMORY_DIR "/memory33/phys_index"), "00000021\n");
	CHECK_STREQ(cat(state), "offline\n");
	CHECK_STREQ(cat(online), "0\n");
	CHECK_EQ(echo(state, "offline\n"), -EINVAL);		/* offline already */
	CHECK_EQ(echo(state, "onlin"), -EINVAL);
	CHECK_EQ(echo(state, "online_movable\n\n"), -EINVAL);
	CHECK_EQ(echo(state, "online_movable\n"), 0);
	CHECK_STREQ(cat(state), "online\n");
	CHECK_STREQ(cat(MEMORY_DIR "/memory32/valid_zones"), "Movable\n");
	CHECK_EQ(echo(state, "online\n"), -EINVAL);		/* online already */
	CHECK_EQ(echo(online, "1"), 0);				/* already: no-op */
	CHECK_EQ(echo(online, "maybe"), -EINVAL);
	CHECK_EQ(echo(online, "0\n"), 0);
	CHECK_STREQ(cat(state), "offline\n");
	CHECK_EQ(echo(online, "off"), 0);			/* already: no-op */
	CHECK_EQ(echo(online, "y"), 0);				/* default type: online */
	CHECK_STREQ(cat(state), "online\n");
	CHECK_EQ(echo(state, "offline"), 0);

	/* the files of a removed block go with it */
	CHECK_EQ(remove_memory(4 * GiB, 256 * MiB), 0);
	memory_block_notify_removed(32);	/* told again: nothing to do */
	CHECK_EQ(echo(state, "online"), -ENOENT);
	vfs_init();
}

/*
 * default_online_type(), the type "1" in memoryN/online and virtio-mem use:
 * what auto_online_blocks says, "online" in place of "offline".  With
 * online_movable there, a write of 1 puts the block in ZONE_MOVABLE.
 */
HTEST(sysfs_memory_online_uses_default_online_type)
{
	static const struct { const char *word; enum mmop type; } cases[] = {
		{ "offline", MMOP_ONLINE }, { "online", MMOP_ONLINE },
		{ "online_kernel", MMOP_ONLINE_KERNEL }, { "online_movable", MMOP_ONLINE_MOVABLE },
	};
	const char *online = MEMORY_DIR "/memory32/online";

	hotplug_boot(5 * GiB, GiB);
	memhp_set_default_online_type(MMOP_OFFLINE);
	memhp_set_online_policy(ONLINE_POLICY_CONTIG_ZONES);
	vfs_init();
	CHECK_EQ(add_memory(0, 4 * GiB, 256 * MiB, -1, MHP_NONE), 0);
	memory_sysfs_init();
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ(echo(MEMORY_DIR "/auto_online_blocks", cases[i].word), 0);
		CHECK_EQ(default_online_type(), cases[i].type);
	}
	CHECK_EQ(echo(online, "1"), 0);
	CHECK_STREQ(cat(MEMORY_DIR "/memory32/valid_zones"), "Movable\n");
	CHECK_EQ(echo(online, "0"), 0);
	memhp_set_default_online_type(MMOP_OFFLINE);
	CHECK_EQ(remove_memory(4 * GiB, 256 * MiB), 0);
	vfs_init();
}

HTEST(sysfs_memory_inject_error_is_clamped)
{
	vfs_init();
	CHECK_EQ(echo(INJECT_ONLINE, "-12\n"), 0);
	CHECK_STREQ(cat(INJECT_ONLINE), "-12\n");
	CHECK_EQ(echo(INJECT_ONLINE, "5"), 0);			/* positive: no injection */
	CHECK_STREQ(cat(INJECT_ONLINE), "0\n");
	CHECK_EQ(echo(INJECT_ONLINE, "-100000"), 0);		/* beyond MAX_ERRNO (4095) */
	CHECK_STREQ(cat(INJECT_ONLINE), "-4095\n");
	CHECK_EQ(echo(INJECT_ONLINE, "-x"), -EINVAL);
	CHECK_STREQ(cat(INJECT_ONLINE), "-4095\n");
	CHECK_EQ(echo(INJECT_ONLINE, "0"), 0);
}

static void count_blocks(const char *name, bool is_dir, void *ctx)
{
	if (is_dir && !strncmp(name, "memory", 6))
		(*(int *)ctx)++;
}

/*
 * The boot blocks' directories come from a slice at boot and then a long
 * operation: after two slices (a block each, the clock moving a slice per
 * reading) `work` shows it part done; a DIMM removed ahead of it gets no directory; the first read
 * finishes the fill, so the reader sees every block and the operation is
 * gone from `work`.
 */
HTEST(sysfs_memory_fill_runs_in_slices_and_settles_on_read)
{
	static char text[512];
	struct buf_printer bp;
	int n = 0;

	hotplug_boot(5 * GiB, GiB);
	memhp_set_default_online_type(MMOP_OFFLINE);
	vfs_init();
	CHECK_EQ(add_memory(0, 4 * GiB, 256 * MiB, -1, MHP_NONE), 0);	/* blocks 32, 33 */
	clock_step_ns = LONGOP_SLICE_NS;
	memory_sysfs_init();		/* a slice now, one block */
	CHECK(longop_run_slice());	/* and one more */
	clock_step_ns = 0;
	buf_printer_init(&bp, text, sizeof(text));
	longop_dump(&bp.p);
	CHECK_STR_CONTAINS(text, "sysfs memory block files");
	CHECK_STR_CONTAINS(text, " 2/10 blocks");
	CHECK_EQ(remove_memory(4 * GiB, 256 * MiB), 0);		/* ahead of the fill */
	CHECK_EQ(vfs_list(MEMORY_DIR, count_blocks, &n), 0);	/* the reader settles it */
	CHECK_EQ(n, 8);
	CHECK_STREQ(cat(MEMORY_DIR "/memory7/state"), "online\n");
	CHECK_STREQ(cat(MEMORY_DIR "/memory32/state"), "");
	buf_printer_init(&bp, text, sizeof(text));
	longop_dump(&bp.p);
	CHECK_STREQ(text, "long operations: none\n");
	vfs_init();
}

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

/* kernel/longop.c's clock: still. */
u64 ktime_ns(void)
{
	return 0;
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

/* A listing as "a b c " */
static void collect(const char *name, bool is_dir, void *ctx)
{
	(void)is_dir;
	strcat(ctx, name);
	strcat(ctx, " ");
}

static unsigned vfs_nodes(void)
{
	struct vfs_stats st;

	vfs_get_stats(&st);
	return st.nodes;
}

/*
 * The blocks' files are made when looked at: after memory_sysfs_init()
 * the tree holds no memoryN node, yet a listing names every block in
 * strcmp order (memory10 before memory2), node0 lists its memoryN links,
 * a read below memory7 makes memory7's files (and only those), the link
 * node0/memory3 reads as Linux's, a DIMM's block gets its firmware_node
 * and the DIMM's ACPI device at once, and a removed block is neither
 * listed nor readable.  No long operation runs for it (`work` is empty).
 */
HTEST(sysfs_memory_files_made_when_looked_at)
{
	static char text[1024];
	struct buf_printer bp;
	unsigned nodes;
	int n = 0;

	hotplug_boot(5 * GiB, GiB);
	memhp_set_default_online_type(MMOP_OFFLINE);
	vfs_init();
	CHECK_EQ(add_memory(0, 4 * GiB, 256 * MiB, -1, MHP_NONE), 0);	/* blocks 32, 33 */
	nodes = vfs_nodes();
	memory_sysfs_init();
	CHECK(vfs_nodes() <= nodes + 4);	/* the node directory's source, at most */
	buf_printer_init(&bp, text, sizeof(text));
	longop_dump(&bp.p);
	CHECK_STREQ(text, "long operations: none\n");

	CHECK_EQ(vfs_list(MEMORY_DIR, count_blocks, &n), 0);
	CHECK_EQ(n, 10);
	text[0] = '\0';
	CHECK_EQ(vfs_list(MEMORY_DIR, collect, text), 0);
	CHECK_STREQ(text, "auto_online_blocks block_size_bytes memory0 memory1 memory2 memory3 "
		    "memory32 memory33 memory4 memory5 memory6 memory7 ");
	text[0] = '\0';
	CHECK_EQ(vfs_list("/sys/devices/system/node/node0", collect, text), 0);
	CHECK_STR_CONTAINS(text, "memory0 memory1 memory2 memory3 memory32 memory33 memory4 ");
	nodes = vfs_nodes();
	CHECK_STREQ(cat(MEMORY_DIR "/memory7/state"), "online\n");
	CHECK_EQ(vfs_nodes(), nodes + 8);	/* memory7/, its six files, node0 */
	CHECK_STREQ(cat(MEMORY_DIR "/memory7/phys_index"), "00000007\n");
	CHECK_EQ(vfs_nodes(), nodes + 8);
	text[0] = '\0';
	CHECK_EQ(vfs_list(MEMORY_DIR "/memory7", collect, text), 0);
	CHECK_STREQ(text, "node0 online phys_device phys_index removable state valid_zones ");
	{
		char target[64];

		CHECK_EQ(vfs_readlink("/sys/devices/system/node/node0/memory3", target, sizeof(target)),
			 0);
		CHECK_STREQ(target, "../../memory/memory3");
		CHECK_STREQ(cat("/sys/devices/system/node/node0/memory3/state"), "online\n");
	}
	CHECK_STREQ(cat(MEMORY_DIR "/memory8/state"), "");	/* no such block */
	CHECK_STREQ(cat(MEMORY_DIR "/memory07/state"), "");	/* not block 7's name */

	CHECK_EQ(remove_memory(4 * GiB, 256 * MiB), 0);
	n = 0;
	CHECK_EQ(vfs_list(MEMORY_DIR, count_blocks, &n), 0);
	CHECK_EQ(n, 8);
	CHECK_STREQ(cat(MEMORY_DIR "/memory32/state"), "");
	vfs_init();
}

/* The notifier for a DIMM: its blocks' ACPI device directory is there as
 * soon as the DIMM is added, memoryN/firmware_node when the block is
 * looked at, and both go with the DIMM. */
HTEST(sysfs_memory_dimm_firmware_node)
{
	char target[96];
	int g;

	hotplug_boot(5 * GiB, GiB);
	memhp_set_default_online_type(MMOP_OFFLINE);
	vfs_init();
	memory_sysfs_init();
	g = memory_group_register_static(0, (256 * MiB) >> 12, "dimm3");
	CHECK(g >= 0);
	CHECK_EQ(add_memory(0, 4 * GiB, 256 * MiB, g, MHP_NONE), 0);
	CHECK_STREQ(cat("/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A06:00/PNP0C80:03/hid"),
		    "PNP0C80\n");
	CHECK_EQ(vfs_readlink(MEMORY_DIR "/memory33/firmware_node", target, sizeof(target)), 0);
	CHECK_STREQ(target, "../../../LNXSYSTM:00/LNXSYBUS:00/PNP0A06:00/PNP0C80:03");
	CHECK_EQ(remove_memory(4 * GiB, 256 * MiB), 0);
	CHECK_STREQ(cat("/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A06:00/PNP0C80:03/hid"), "");
	CHECK_EQ(memory_group_unregister(g), 0);
	vfs_init();
}

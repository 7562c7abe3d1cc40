/*
 * test_sysfs_memory.c - views/sysfs_memory.c on a simulated machine under
 * ASan and UBSan: what a write to a memory block's files brings is parsed
 * the way Linux's kstrto*() and sysfs_streq() parse it, and the state and
 * online files drive the hotplug core the way Linux's state_store() and
 * online_store() do, errno for errno.
 *
 * The suite `sysfs_memory` links the real views/sysfs_memory.c: its hooks
 * take the place of mm/memory_block.c's no-op ones, its static files are in
 * the file tree (vfs_init()), and the per-block files are created for real,
 * in the file tree of views/vfs.c.  The parsers are reached through the
 * file's private header.
 */
#include "htest.h"
#include <views/vfs.h>
#include <views/memory_sysfs.h>
#include "../../views/sysfs_memory_internal.h"

#include <string.h>
#include <lib/errno.h>
#include <lib/fw_memmap.h>
#include <mm/mm_init.h>
#include "mm_host.h"

#define MiB	(1ULL << 20)
#define GiB	(1ULL << 30)
#define MEMORY_DIR	"/sys/devices/system/memory"
#define INJECT_ONLINE	"/sys/kernel/debug/notifier-error-inject/memory/actions/MEM_GOING_ONLINE/error"

static struct fw_memmap smap;
static struct mm_boot_params sbp;

HTEST(sysfs_memory_parsers_follow_kstrto)
{
	static const struct { const char *s; int err; unsigned long long v; } ull[] = {
		{ "0", 0, 0 }, { "42\n", 0, 42 }, { "+7", 0, 7 }, { "0x1f", 0, 31 },
		{ "0X1F\n", 0, 31 }, { "017", 0, 15 }, { "18446744073709551615", 0, ~0ULL },
		{ "18446744073709551616", -ERANGE, 0 }, { "", -EINVAL, 0 }, { "\n", -EINVAL, 0 },
		{ "0x", -EINVAL, 0 }, { "08", -EINVAL, 0 }, { "1 ", -EINVAL, 0 },
		{ "1\n\n", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { "+", -EINVAL, 0 },
	};
	static const struct { const char *s; int err; long long v; } ll[] = {
		{ "-12\n", 0, -12 }, { "-9223372036854775808", 0, INT64_MIN },
		{ "9223372036854775807", 0, INT64_MAX }, { "9223372036854775808", -ERANGE, 0 },
		{ "-9223372036854775809", -ERANGE, 0 }, { "-", -EINVAL, 0 }, { "--1", -EINVAL, 0 },
		{ "+5", 0, 5 }, { "-+5", -EINVAL, 0 },	/* kstrtoll: "+" only without "-" */
	};
	static const struct { const char *s; int err; bool v; } bools[] = {
		{ "1", 0, true }, { "Y\n", 0, true }, { "on", 0, true }, { "ON", 0, true },
		{ "0", 0, false }, { "no", 0, false }, { "off\n", 0, false }, { "o", -EINVAL, 0 },
		{ "ox", -EINVAL, 0 }, { "", -EINVAL, 0 }, { "2", -EINVAL, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(ull); i++) {
		unsigned long long v = 0;

		CHECK_EQ(parse_ull(ull[i].s, strlen(ull[i].s), &v), ull[i].err);
		if (!ull[i].err)
			CHECK_EQ(v, ull[i].v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(ll); i++) {
		long long v = 0;

		CHECK_EQ(parse_ll(ll[i].s, strlen(ll[i].s), &v), ll[i].err);
		if (!ll[i].err)
			CHECK_EQ(v, ll[i].v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bools); i++) {
		bool v = !bools[i].v;

		CHECK_EQ(parse_bool(bools[i].s, strlen(bools[i].s), &v), bools[i].err);
		if (!bools[i].err)
			CHECK_EQ(v, bools[i].v);
	}
	CHECK(sysfs_word_is("online\n", 7, "online"));
	CHECK(!sysfs_word_is("online\n\n", 8, "online"));
	CHECK(!sysfs_word_is("onlin", 5, "online"));
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

	host_mm_reset(5 * GiB);
	printk_set_level(LOG_CRIT);
	fw_memmap_init(&smap);
	memset(&sbp, 0, sizeof(sbp));
	sbp.memmap = &smap;
	fw_memmap_add_raw(&smap, 0, GiB, FW_MEM_RAM);
	fw_memmap_sanitize(&smap);
	mm_core_init(&sbp);
	memory_blocks_init_boot();
	memhp_default_online_type = MMOP_OFFLINE;
	memhp_online_policy = ONLINE_POLICY_CONTIG_ZONES;
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
	memory_sysfs_block_removed(32);		/* again: nothing to do */
	CHECK_EQ(echo(state, "online"), -ENOENT);
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

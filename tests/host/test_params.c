/*
 * test_params.c - the parameter table (lib/params.c, lib/kstrtox.c,
 * kernel/params.c, views/sysfs_params.c): the boot command line and
 * /sys/module/MODULE/parameters/NAME accept the same text and refuse the
 * rest alike, for every parameter of the table and a list of hostile values.
 */
#include "htest.h"
#include <string.h>
#include <lib/errno.h>
#include <lib/kstrtox.h>
#include <lib/params.h>
#include <kernel/params.h>
#include <lib/printk.h>
#include <views/sysfs_params.h>
#include <views/vfs.h>
#include <mm/memory_hotplug.h>

HTEST(kstrtox_follows_linux_kstrto)
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

		CHECK_EQ(kstrtoull(ull[i].s, strlen(ull[i].s), &v), ull[i].err);
		if (!ull[i].err)
			CHECK_EQ(v, ull[i].v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(ll); i++) {
		long long v = 0;

		CHECK_EQ(kstrtoll(ll[i].s, strlen(ll[i].s), &v), ll[i].err);
		if (!ll[i].err)
			CHECK_EQ(v, ll[i].v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bools); i++) {
		bool v = !bools[i].v;

		CHECK_EQ(kstrtobool(bools[i].s, strlen(bools[i].s), &v), bools[i].err);
		if (!bools[i].err)
			CHECK_EQ(v, bools[i].v);
	}
	CHECK(sysfs_streq("online\n", 7, "online"));
	CHECK(!sysfs_streq("online\n\n", 8, "online"));
	CHECK(!sysfs_streq("onlin", 5, "online"));
}

HTEST(memparse_takes_suffixes)
{
	static const struct { const char *s; int err; unsigned long long v; } t[] = {
		{ "64M", 0, 64ULL << 20 }, { "2g\n", 0, 2ULL << 30 }, { "0x1000", 0, 0x1000 },
		{ "1K", 0, 1024 }, { "0x1e", 0, 0x1e }, { "3E", 0, 3ULL << 60 },
		{ "16E", -ERANGE, 0 }, { "M", -EINVAL, 0 }, { "12x", -EINVAL, 0 },
		{ "", -EINVAL, 0 }, { "1MM", -EINVAL, 0 }, { "0x10M", 0, 16ULL << 20 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		unsigned long long v = 0;

		CHECK_EQ(memparse(t[i].s, strlen(t[i].s), &v), t[i].err);
		if (!t[i].err)
			CHECK_EQ(v, t[i].v);
	}
}

/* Every parameter's variable holds its declared default before anything sets it. */
HTEST(params_defaults_are_the_variables_values)
{
	unsigned n = 0;

	for_each_kernel_param(kp) {
		CHECK(kp->name && kp->help);
		/* a variable, or a setter and a getter instead of it */
		CHECK(kp->value ? !kp->set && !kp->get : kp->set && kp->get);
		CHECK(kp->def >= kp->min && (kp->type == PARAM_ENUM || kp->def <= kp->max));
		if (kp->type == PARAM_ENUM)
			CHECK(kp->def < kp->nr_names);
		/* the host tests may have changed a few; those get reset below */
		n++;
	}
	CHECK(n >= 5);
	CHECK(param_find("memory_hotplug.auto_movable_ratio") != NULL);
	CHECK(param_find("memory-hotplug.auto-movable-ratio") != NULL);
	CHECK(param_find("auto_movable_ratio") == NULL);
	CHECK(param_find("memory_hotplug.nope") == NULL);
}

/* Save and restore every parameter around a test that sets them. */
static u64 saved[64];

static void save_params(void)
{
	unsigned i = 0;

	for_each_kernel_param(kp)
		saved[i++] = param_get(kp);
}

static void restore_params(void)
{
	unsigned i = 0;

	for_each_kernel_param(kp)
		CHECK_EQ(param_store(kp, saved[i++]), 0);
}

static const char *const hostile[] = {
	"", "\n", "1", "0", "y", "N", "on", "off", "ox", "2", "-1", "+5", "0x10", "017", "08",
	"4294967295", "4294967296", "18446744073709551615", "18446744073709551616",
	"301", "10001", "64M", "1G", "12x", "online", "offline", "online_movable",
	"contig-zones", "auto-movable", "auto-movable\n", "Auto-movable", "1 ",
};

/*
 * For every module parameter and every hostile value: writing VALUE to the
 * sysfs file and booting with MODULE.NAME=VALUE end with the same value,
 * and both refuse exactly the same values.
 */
HTEST(params_cmdline_and_sysfs_agree)
{
	save_params();
	vfs_init();
	CHECK_EQ(sysfs_params_init(), 0);
	printk_set_level(LOG_CRIT);
	for_each_kernel_param(kp) {
		char name[64], path[128], line[160];

		if (!kp->module)
			continue;
		param_full_name(kp, name, sizeof(name));
		ksnprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", kp->module, kp->name);
		if (!kp->writable) {
			/* a boot-only parameter (memmap_on_memory): its file refuses writes */
			restore_params();
			CHECK_EQ(vfs_write(path, "1", 1), -EACCES);
			CHECK_EQ(param_get(kp), kp->def);
			continue;
		}
		for (size_t i = 0; i < ARRAY_SIZE(hostile); i++) {
			const char *v = hostile[i];
			size_t vl = strlen(v);
			int werr, refused;
			u64 via_sysfs, via_cmdline;

			if (strchr(v, ' ') || (vl && v[vl - 1] == '\n'))
				continue;	/* not expressible as one command-line word */
			restore_params();
			werr = vfs_write(path, v, vl);
			via_sysfs = param_get(kp);
			restore_params();
			ksnprintf(line, sizeof(line), "quiet %s=%s", name, v);
			refused = params_apply_cmdline(line);
			via_cmdline = param_get(kp);
			if (!vl && kp->type == PARAM_BOOL) {
				/* a bare bool on the command line means Y; "" to sysfs is refused */
				CHECK_EQ(refused, 0);
				CHECK_EQ(via_cmdline, 1);
				CHECK_EQ(werr, -EINVAL);
				continue;
			}
			if ((werr != 0) != (refused != 0) || via_sysfs != via_cmdline)
				printf("  %s=%s: sysfs %d -> %llu, cmdline refused %d -> %llu\n", name,
				       v, werr, (unsigned long long)via_sysfs, refused,
				       (unsigned long long)via_cmdline);
			CHECK_EQ(werr != 0, refused != 0);
			CHECK_EQ(via_sysfs, via_cmdline);
		}
	}
	restore_params();
	vfs_init();
}

HTEST(params_sysfs_files_show_linux_text)
{
	char buf[64];
	struct buf_printer bp;

	save_params();
	vfs_init();
	CHECK_EQ(sysfs_params_init(), 0);
	printk_set_level(LOG_CRIT);
	CHECK_EQ(params_apply_cmdline("memory_hotplug.online_policy=auto-movable "
				      "memory_hotplug.auto_movable_ratio=0x20 "
				      "memory_hotplug.memmap_on_memory memhp_default_state=offline"), 0);
	buf_printer_init(&bp, buf, sizeof(buf));
	CHECK_EQ(vfs_read("/sys/module/memory_hotplug/parameters/online_policy", &bp.p), 0);
	CHECK_STREQ(buf, "auto-movable\n");
	buf_printer_init(&bp, buf, sizeof(buf));
	CHECK_EQ(vfs_read("/sys/module/memory_hotplug/parameters/auto_movable_ratio", &bp.p), 0);
	CHECK_STREQ(buf, "32\n");
	buf_printer_init(&bp, buf, sizeof(buf));
	CHECK_EQ(vfs_read("/sys/module/memory_hotplug/parameters/memmap_on_memory", &bp.p), 0);
	CHECK_STREQ(buf, "Y\n");
	CHECK_EQ(memhp_get_default_online_type(), MMOP_OFFLINE);
	/* refused values keep the old one and are counted */
	CHECK_EQ(params_apply_cmdline("memory_hotplug.auto_movable_ratio=4294967296 "
				      "memhp_default_state=sideways memory_hotplug.auto_movable_numa_aware=maybe"), 3);
	CHECK_EQ(memhp_get_auto_movable_ratio(), 32);
	CHECK_EQ(memhp_get_default_online_type(), MMOP_OFFLINE);
	CHECK_EQ(vfs_write("/sys/module/memory_hotplug/parameters/auto_movable_ratio", "1x", 2),
		 -EINVAL);
	CHECK_EQ(vfs_write("/sys/module/memory_hotplug/parameters/auto_movable_ratio",
			   "4294967296", 10), -ERANGE);
	/* the same one check for a value stored without text */
	CHECK_EQ(param_store(param_find("memory_hotplug.auto_movable_ratio"), 1ULL << 32), -ERANGE);
	CHECK_EQ(param_store(param_find("memory_hotplug.online_policy"), 2), -EINVAL);
	CHECK_EQ(param_store(param_find("memory_hotplug.auto_movable_numa_aware"), 2), -EINVAL);
	CHECK_EQ(memhp_get_auto_movable_ratio(), 32);
	CHECK_EQ(memhp_get_online_policy(), ONLINE_POLICY_AUTO_MOVABLE);
	restore_params();
	vfs_init();
}

HTEST(params_error_words)
{
	char why[96];
	const struct kernel_param *kp = param_find("memory_hotplug.online_policy");

	CHECK(kp != NULL);
	CHECK_STREQ(param_error(kp, -EINVAL, why, sizeof(why)), "not one of contig-zones/auto-movable");
	kp = param_find("memory_hotplug.auto_movable_ratio");
	CHECK_STREQ(param_error(kp, -ERANGE, why, sizeof(why)), "out of range [0, 4294967295]");
	kp = param_find("memory_hotplug.memmap_on_memory");
	CHECK_STREQ(param_error(kp, -EINVAL, why, sizeof(why)),
		    "not a boolean (1/0, y/n, Y/N, on/off)");
}

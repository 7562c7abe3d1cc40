/*
 * sysfs_params.c - /sys/module/MODULE/parameters/NAME for every parameter
 * of the table (include/lib/params.h) that belongs to a module.
 *
 * Reading shows the value as Linux prints that type ("Y"/"N" for a bool, the
 * number in decimal, the word of an enum); writing goes through param_set(),
 * the same function the boot command line uses (kernel/params.c), so both
 * accept the same text and refuse the rest with the same errno (-EINVAL for
 * text that is not a value of the type, -ERANGE outside the range, which the
 * shell's `echo` prints as "Invalid argument" / "Numerical result out of
 * range").  A parameter that is not writable after boot is a read-only file
 * (mode 0444 in Linux): a write answers "Permission denied".
 *
 * Context: main loop only.
 */
#include <lib/errno.h>
#include <lib/params.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <views/sysfs_params.h>
#include <views/vfs.h>

static int param_file_show(struct printer *p, void *data)
{
	param_show(data, p);
	return 0;
}

static int param_file_store(const char *buf, size_t len, void *data)
{
	return param_set(data, buf, len);
}

static const struct vfs_file_ops param_rw_ops = {
	.show = param_file_show, .store = param_file_store,
};
static const struct vfs_file_ops param_ro_ops = {
	.show = param_file_show,
};

int sysfs_params_init(void)
{
	int failed = 0;

	for_each_kernel_param(kp) {
		char path[128];
		int err;

		if (!kp->module)
			continue;
		ksnprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", kp->module, kp->name);
		/* the table is const; the files only read it, and store through it */
		err = vfs_create(path, kp->writable ? &param_rw_ops : &param_ro_ops,
				 (void *)(uintptr_t)kp);
		if (err) {
			pr_err("sysfs_params: %s: error %d", path, err);
			failed++;
		}
	}
	return failed ? -ENOSPC : 0;
}

/*
 * proc_sys.c - the /proc files about the system itself: /proc/cmdline (the
 * kernel command line GRUB passed), /proc/version and /proc/uptime
 * (seconds since boot and seconds idle, as Linux prints them).
 */
#include <views/vfs.h>
#include <kernel/kernel.h>
#include <kernel/time.h>
#include <arch/bootinfo.h>
#include <lib/printer.h>

static int show_cmdline(struct printer *p, void *data)
{
	(void)data;
	pr_printf(p, "%s\n", boot_info.cmdline);
	return 0;
}

static int show_version(struct printer *p, void *data)
{
	(void)data;
	pr_printf(p, "%s\n", memlab_version_string);
	return 0;
}

/* /proc/uptime: seconds since boot and seconds spent idle, 2 decimals. */
static int show_uptime(struct printer *p, void *data)
{
	u64 up = ktime_ns() / 10000000, idle = ktime_idle_ns() / 10000000;

	(void)data;
	pr_printf(p, "%llu.%02llu %llu.%02llu\n", (unsigned long long)(up / 100),
		  (unsigned long long)(up % 100), (unsigned long long)(idle / 100),
		  (unsigned long long)(idle % 100));
	return 0;
}

static const struct vfs_file_ops cmdline_ops = { .show = show_cmdline };
static const struct vfs_file_ops version_ops = { .show = show_version };
static const struct vfs_file_ops uptime_ops = { .show = show_uptime };
VFS_FILE(cmdline, "/proc/cmdline", &cmdline_ops, NULL);
VFS_FILE(version, "/proc/version", &version_ops, NULL);
VFS_FILE(uptime, "/proc/uptime", &uptime_ops, NULL);

/*
 * proc_sys.c - the /proc files about the system itself: /proc/cmdline (the
 * kernel command line GRUB passed), /proc/version, /proc/uptime
 * (seconds since boot and seconds idle, as Linux prints them) and
 * /proc/cpuinfo (one stanza per online CPU, arch/x86_64/smp.c).
 */
#include <views/vfs.h>
#include <kernel/kernel.h>
#include <kernel/time.h>
#include <arch/bootinfo.h>
#include <lib/printer.h>
#include <arch/smp.h>

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

/* /proc/cpuinfo: Linux's layout, `processor : N` for each online CPU. */
static int show_cpuinfo(struct printer *p, void *data)
{
	(void)data;
	smp_cpuinfo_dump(p);
	return 0;
}

static const struct vfs_file_ops cmdline_ops = { .show = show_cmdline };
static const struct vfs_file_ops version_ops = { .show = show_version };
static const struct vfs_file_ops uptime_ops = { .show = show_uptime };
VFS_FILE(cmdline, "/proc/cmdline", &cmdline_ops, NULL);
VFS_FILE(version, "/proc/version", &version_ops, NULL);
static const struct vfs_file_ops cpuinfo_ops = { .show = show_cpuinfo };
VFS_FILE(uptime, "/proc/uptime", &uptime_ops, NULL);
VFS_FILE(cpuinfo, "/proc/cpuinfo", &cpuinfo_ops, NULL);

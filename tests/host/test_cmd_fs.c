/*
 * test_cmd_fs.c - ls, cat, grep and echo over a small private tree.
 */
#include "htest.h"
#include <shell/shell.h>
#include <views/vfs.h>
#include <lib/errno.h>
#include <lib/string.h>

static char out_buf[1 << 16];
static struct buf_printer out_bp;

static int run(const char *line)
{
	char copy[512];

	snprintf(copy, sizeof(copy), "%s", line);
	buf_printer_init(&out_bp, out_buf, sizeof(out_buf));
	return shell_execute(&out_bp.p, copy);
}

static int show_text(struct printer *p, void *data)
{
	pr_puts(p, data);
	return 0;
}

static int store_any(const char *buf, size_t len, void *data)
{
	(void)buf;
	(void)len;
	(void)data;
	return 0;
}

/* 100000 numbered lines, written in pieces that do not align with lines. */
static int show_huge(struct printer *p, void *data)
{
	(void)data;
	for (int i = 0; i < 100000; i++)
		pr_printf(p, "line %d%s", i, i % 3 ? "\n" : "");
	pr_puts(p, "\n");
	return 0;
}

/* One 2000-byte line containing "needle" at its very end. */
static int show_long_line(struct printer *p, void *data)
{
	(void)data;
	for (int i = 0; i < 2000; i++)
		pr_puts(p, "x");
	pr_puts(p, "needle\nshort needle\n");
	return 0;
}

static const struct vfs_file_ops text_ops = { .show = show_text };
static const struct vfs_file_ops rw_ops = { .show = show_text, .store = store_any };
static const struct vfs_file_ops huge_ops = { .show = show_huge };
static const struct vfs_file_ops long_ops = { .show = show_long_line };

static void setup(void)
{
	vfs_init();
	vfs_remove("/htest");	/* the VFS_FILE of test_vfs.c */
	CHECK_EQ(vfs_create("/proc/meminfo", &text_ops,
			    "MemTotal:  1024 kB\nMemFree:   512 kB\nBuffers:   0 kB\n"), 0);
	CHECK_EQ(vfs_create("/proc/cmdline", &text_ops, "console=ttyS0 memlab"), 0);
	CHECK_EQ(vfs_create("/sys/devices/system/memory/memory0/state", &rw_ops, "online\n"), 0);
	CHECK_EQ(vfs_create("/sys/devices/system/memory/block_size_bytes", &text_ops,
			    "8000000\n"), 0);
	CHECK_EQ(vfs_create("/big/huge", &huge_ops, NULL), 0);
	CHECK_EQ(vfs_create("/big/long", &long_ops, NULL), 0);
}

HTEST(cmd_ls)
{
	setup();
	CHECK_EQ(run("ls"), 0);
	CHECK_STREQ(out_buf, "big\nproc\nsys\n");
	CHECK_EQ(run("ls /proc"), 0);
	CHECK_STREQ(out_buf, "cmdline\nmeminfo\n");
	CHECK_EQ(run("ls sys/devices/system/memory/"), 0);
	CHECK_STREQ(out_buf, "block_size_bytes\nmemory0\n");
	CHECK_EQ(run("ls -l /sys/devices/system/memory/memory0"), 0);
	CHECK_STREQ(out_buf, "-rw-r--r-- 4096 state\n");
	CHECK_EQ(run("ls -l /sys/devices/system/memory"), 0);
	CHECK_STREQ(out_buf, "-r--r--r-- 4096 block_size_bytes\ndr-xr-xr-x    0 memory0\n");
	CHECK_EQ(run("ls /proc/meminfo"), 0);
	CHECK_STREQ(out_buf, "/proc/meminfo\n");
	CHECK_EQ(run("ls -l /proc/meminfo"), 0);
	CHECK_STREQ(out_buf, "-r--r--r-- 0 /proc/meminfo\n");
	CHECK_EQ(run("ls -1 /proc"), 0);
	CHECK_STREQ(out_buf, "cmdline\nmeminfo\n");
	CHECK_EQ(run("ls -1l /proc"), 0);
	CHECK_STREQ(out_buf, "-r--r--r-- 0 cmdline\n-r--r--r-- 0 meminfo\n");

	CHECK_EQ(run("ls /nope"), -ENOENT);
	CHECK_STREQ(out_buf, "ls: cannot access '/nope': No such file or directory\n");
	CHECK_EQ(run("ls -x"), -EINVAL);
	CHECK_STREQ(out_buf, "usage: ls [-1l] [PATH]\n");
	CHECK_EQ(run("ls /a /b"), -EINVAL);
}

static int link_to_memory0(char *buf, size_t size, void *data)
{
	(void)data;
	strlcpy(buf, "memory/memory0", size);
	return 0;
}

static const struct vfs_file_ops link_ops = { .readlink = link_to_memory0 };

/* ls -l shows a link and its target; cat and ls go through it. */
HTEST(cmd_ls_symlink)
{
	setup();
	CHECK_EQ(vfs_create("/sys/devices/system/m0", &link_ops, NULL), 0);
	CHECK_EQ(run("ls -l /sys/devices/system"), 0);
	CHECK_STREQ(out_buf, "lrwxrwxrwx 0 m0 -> memory/memory0\ndr-xr-xr-x 0 memory\n");
	CHECK_EQ(run("ls -l /sys/devices/system/m0"), 0);
	CHECK_STREQ(out_buf, "lrwxrwxrwx 0 /sys/devices/system/m0 -> memory/memory0\n");
	CHECK_EQ(run("ls /sys/devices/system/m0"), 0);
	CHECK_STREQ(out_buf, "state\n");
	CHECK_EQ(run("cat /sys/devices/system/m0/state"), 0);
	CHECK_STREQ(out_buf, "online\n");
}

HTEST(cmd_cat)
{
	setup();
	CHECK_EQ(run("cat /proc/meminfo"), 0);
	CHECK_STREQ(out_buf, "MemTotal:  1024 kB\nMemFree:   512 kB\nBuffers:   0 kB\n");
	CHECK_EQ(run("cat /proc/cmdline /sys/devices/system/memory/memory0/state"), 0);
	CHECK_STREQ(out_buf, "console=ttyS0 memlabonline\n");

	CHECK_EQ(run("cat /proc/nope"), -ENOENT);
	CHECK_STREQ(out_buf, "cat: /proc/nope: No such file or directory\n");
	CHECK_EQ(run("cat /proc"), -EISDIR);
	CHECK_STREQ(out_buf, "cat: /proc: Is a directory\n");
	/* Errors do not stop the other files. */
	CHECK_EQ(run("cat /proc /sys/devices/system/memory/block_size_bytes"), -EISDIR);
	CHECK_STREQ(out_buf, "cat: /proc: Is a directory\n8000000\n");
	CHECK_EQ(run("cat"), -EINVAL);
	CHECK_STREQ(out_buf, "usage: cat FILE...\n");
}

HTEST(cmd_grep)
{
	setup();
	CHECK_EQ(run("grep Mem /proc/meminfo"), 0);
	CHECK_STREQ(out_buf, "MemTotal:  1024 kB\nMemFree:   512 kB\n");
	CHECK_EQ(run("grep -v Mem /proc/meminfo"), 0);
	CHECK_STREQ(out_buf, "Buffers:   0 kB\n");
	CHECK_EQ(run("grep -c kB /proc/meminfo"), 0);
	CHECK_STREQ(out_buf, "3\n");
	CHECK_EQ(run("grep -cv Free /proc/meminfo"), 0);
	CHECK_STREQ(out_buf, "2\n");
	CHECK_EQ(run("grep \"Free:   5\" /proc/meminfo"), 0);
	CHECK_STREQ(out_buf, "MemFree:   512 kB\n");

	/* The last line has no newline; it is still a line. */
	CHECK_EQ(run("grep memlab /proc/cmdline"), 0);
	CHECK_STREQ(out_buf, "console=ttyS0 memlab\n");

	/* Several files: prefixed. */
	CHECK_EQ(run("grep o /proc/cmdline /sys/devices/system/memory/memory0/state"), 0);
	CHECK_STREQ(out_buf, "/proc/cmdline:console=ttyS0 memlab\n"
			     "/sys/devices/system/memory/memory0/state:online\n");
	CHECK_EQ(run("grep -c Mem /proc/meminfo /proc/cmdline"), 0);
	CHECK_STREQ(out_buf, "/proc/meminfo:2\n/proc/cmdline:0\n");

	/* No match: status 1 and no message. */
	CHECK_EQ(run("grep zzz /proc/meminfo"), 1);
	CHECK_STREQ(out_buf, "");
	CHECK_EQ(run("grep -c zzz /proc/meminfo"), 1);
	CHECK_STREQ(out_buf, "0\n");

	CHECK_EQ(run("grep Mem /proc/nope /proc/meminfo"), -ENOENT);
	CHECK_STREQ(out_buf, "grep: /proc/nope: No such file or directory\n"
			     "/proc/meminfo:MemTotal:  1024 kB\n/proc/meminfo:MemFree:   512 kB\n");
	CHECK_EQ(run("grep Mem /proc"), -EISDIR);
	CHECK_STREQ(out_buf, "grep: /proc: Is a directory\n");
	CHECK_EQ(run("grep Mem"), -EINVAL);
	CHECK_STREQ(out_buf, "usage: grep [-c] [-v] PATTERN FILE...\n");
	CHECK_EQ(run("grep -q Mem /proc/meminfo"), -EINVAL);
	CHECK_EQ(run("grep -- -x /proc/meminfo"), 1);
	CHECK_EQ(run("grep \"\" /proc/cmdline"), 0);	/* empty pattern matches all */
}

HTEST(cmd_grep_streams_big_files)
{
	setup();
	/* 100000 show() lines were joined 3 by 3 (see show_huge). */
	CHECK_EQ(run("grep -c line /big/huge"), 0);
	CHECK_STREQ(out_buf, "66667\n");
	CHECK_EQ(run("grep \"line 99999\" /big/huge"), 0);
	CHECK_STREQ(out_buf, "line 99999\n");
	CHECK_EQ(run("grep -c \"line 6line 7\" /big/huge"), 0);
	CHECK_STREQ(out_buf, "1\n");

	/* A line longer than grep's buffer is cut, and grep says so. */
	CHECK_EQ(run("grep -c needle /big/long"), 0);
	CHECK_STREQ(out_buf, "1\ngrep: /big/long: 1 lines cut to 511 bytes\n");
}

HTEST(cmd_echo)
{
	setup();
	CHECK_EQ(run("echo"), 0);
	CHECK_STREQ(out_buf, "\n");
	CHECK_EQ(run("echo  a   b \"c  d\""), 0);
	CHECK_STREQ(out_buf, "a b c  d\n");
	CHECK_EQ(run("echo -n x"), 0);
	CHECK_STREQ(out_buf, "x");
	CHECK_EQ(run("echo offline > /sys/devices/system/memory/memory0/state"), 0);
	CHECK_STREQ(out_buf, "");
	/* Linux: a read-only procfs file opens and its write fails with EIO;
	 * a read-only sysfs file is refused at open with EACCES */
	CHECK_EQ(run("echo 1 > /proc/meminfo"), -EIO);
	CHECK_STREQ(out_buf, "echo: write error: Input/output error\n");
	CHECK_EQ(run("echo 1 > /sys/devices/system/memory/block_size_bytes"), -EACCES);
	CHECK_STREQ(out_buf, "/sys/devices/system/memory/block_size_bytes: Permission denied\n");
}

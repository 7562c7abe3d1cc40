/*
 * cmd_fs.c - the shell commands that read and write the virtual file tree:
 * ls, cat, hexdump, grep and echo.
 *
 * They behave like their GNU namesakes on the subset they implement, and
 * print the same error texts, so what a reader learns here about
 * /proc/meminfo or /sys/devices/system/memory carries over to Linux.  The
 * shell has no working directory: a relative path is relative to "/".
 *
 * Writing is not done here: `echo 1 > FILE` is the shell's redirection
 * (shell.c), which sends echo's output, "1\n", to the file's store().
 */
#include <shell/shell.h>
#include <views/vfs.h>
#include <lib/hexdump.h>
#include <lib/errno.h>
#include <lib/string.h>

#define GREP_LINE_MAX	512	/* bytes of one line grep keeps, NUL included */

/* The mode column of `ls -l`, as Linux shows sysfs and procfs entries. */
static const char *mode_string(const struct vfs_attr *a)
{
	if (a->type == VFS_DIR)
		return "dr-xr-xr-x";
	if (a->type == VFS_LINK)
		return "lrwxrwxrwx";
	if (a->binary)
		return "-r--------";	/* Linux's ACPI tables: 0400, root only */
	return a->writable ? "-rw-r--r--" : "-r--r--r--";
}

/* What ls_emit() needs to print one directory entry. */
struct ls_ctx {
	struct printer *out;	/* where the listing goes */
	const char *dir;	/* the directory's path, as given */
	bool long_format;	/* -l */
	bool measure;		/* first -l pass: only find size_width */
	int size_width;		/* digits of the largest size, as ls pads */
};

static int digits(unsigned long v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* One `ls -l` line of path, shown as name: mode, size, name, "-> target". */
static void ls_long_line(struct printer *out, const char *path, const char *name,
			 int size_width)
{
	struct vfs_attr a = { .type = VFS_REG };
	char target[VFS_PATH_MAX];

	if (vfs_lstat(path, &a) < 0)
		a.type = VFS_REG;	/* path too long to name: show it read-only */
	pr_printf(out, "%s %*lu %s", mode_string(&a), size_width, a.size, name);
	if (a.type == VFS_LINK && vfs_readlink(path, target, sizeof(target)) == 0)
		pr_printf(out, " -> %s", target);
	pr_printf(out, "\n");
}

static void ls_emit(const char *name, bool is_dir, void *arg)
{
	struct ls_ctx *ctx = arg;
	char path[VFS_PATH_MAX + VFS_NAME_MAX + 1];

	(void)is_dir;
	if (!ctx->long_format) {
		pr_printf(ctx->out, "%s\n", name);
		return;
	}
	ksnprintf(path, sizeof(path), "%s/%s", ctx->dir, name);
	if (ctx->measure) {
		struct vfs_attr a;

		if (vfs_lstat(path, &a) == 0 && digits(a.size) > ctx->size_width)
			ctx->size_width = digits(a.size);
		return;
	}
	ls_long_line(ctx->out, path, name, ctx->size_width);
}

static int cmd_ls(struct printer *out, int argc, char **argv)
{
	struct ls_ctx ctx = { .out = out, .dir = "/", .size_width = 1 };
	struct vfs_attr a;
	bool is_dir = false;
	int i, ret;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		for (const char *o = argv[i] + 1; *o; o++) {
			if (*o == 'l')
				ctx.long_format = true;
			else if (*o != '1')	/* -1: one per line, which ls here always is */
				return shell_usage(out, shell_find("ls"));
		}
	}
	if (argc - i > 1)
		return shell_usage(out, shell_find("ls"));
	if (argc - i == 1)
		ctx.dir = argv[i];

	/* ls -l names a link given as the operand, plain ls follows it */
	ret = ctx.long_format ? vfs_lstat(ctx.dir, &a) : vfs_stat(ctx.dir, &is_dir, NULL);
	if (ret) {
		pr_printf(out, "ls: cannot access '%s': %s\n", ctx.dir, err_text(ret));
		return ret;
	}
	if (ctx.long_format)
		is_dir = a.type == VFS_DIR;
	if (!is_dir) {
		if (ctx.long_format)
			ls_long_line(out, ctx.dir, ctx.dir, digits(a.size));
		else
			pr_printf(out, "%s\n", ctx.dir);
		return 0;
	}
	if (ctx.long_format) {
		ctx.measure = true;
		ret = vfs_list(ctx.dir, ls_emit, &ctx);
		ctx.measure = false;
		if (ret)
			return ret;
	}
	return vfs_list(ctx.dir, ls_emit, &ctx);
}

SHELL_COMMAND(ls,
	.name = "ls",
	.usage = "ls [-1l] [PATH]",
	.summary = "list a directory of the virtual file tree",
	.help = "Print the entries of the directory PATH (default /), one per line,\n"
		"in strcmp() order (-1 is accepted: that is the only layout).  For a\n"
		"file, print its name.  -l adds the mode and size: -r--r--r--\n"
		"read-only, -rw-r--r-- writable with `echo VALUE > FILE`, dr-xr-xr-x\n"
		"directory, lrwxrwxrwx symlink (then \"-> TARGET\"); the size is\n"
		"Linux's st_size: 4096 for a sysfs file, the length of a binary\n"
		"file (an ACPI table, -r--------), 0 for /proc files, directories\n"
		"and links.",
	.fn = cmd_ls);

static int cmd_cat(struct printer *out, int argc, char **argv)
{
	int i, ret, err = 0;

	if (argc < 2)
		return shell_usage(out, shell_find("cat"));
	for (i = 1; i < argc; i++) {
		struct vfs_attr a;

		/* raw bytes would reach the terminal as control sequences */
		if (vfs_stat_attr(argv[i], &a) == 0 && a.binary) {
			pr_printf(out, "cat: %s: binary file of %lu bytes; see it with "
				  "`hexdump -C %s`\n", argv[i], a.size, argv[i]);
			err = -EINVAL;
			continue;
		}
		ret = vfs_read(argv[i], out);
		if (ret) {
			pr_printf(out, "cat: %s: %s\n", argv[i], err_text(ret));
			err = ret;
		}
	}
	return err;
}

SHELL_COMMAND(cat,
	.name = "cat",
	.usage = "cat FILE...",
	.summary = "print files",
	.help = "Print each FILE in turn (a symlink: the file it points to).\n"
		"Virtual files are generated when read, so the contents are always\n"
		"current.  A binary file (an ACPI table) is not printed: its raw\n"
		"bytes would be taken as terminal controls; `hexdump -C` shows it.",
	.fn = cmd_cat);

static int cmd_hexdump(struct printer *out, int argc, char **argv)
{
	struct hexdump_printer h;
	int ret, err = 0;

	if (argc < 3 || strcmp(argv[1], "-C"))
		return shell_usage(out, shell_find("hexdump"));
	hexdump_printer_init(&h, out, HEXDUMP_CANONICAL);
	for (int i = 2; i < argc; i++) {
		ret = vfs_read(argv[i], &h.p);
		if (ret) {
			pr_printf(out, "hexdump: %s: %s\n", argv[i], err_text(ret));
			err = ret;
		}
	}
	hexdump_finish(&h);
	return err;
}

SHELL_COMMAND(hexdump,
	.name = "hexdump",
	.usage = "hexdump -C FILE...",
	.summary = "print files as hex and characters, 16 bytes a row",
	.help = "The canonical layout of util-linux's `hexdump -C`, the only one\n"
		"memlab has: the offset, 16 bytes in hex in two groups of 8, the\n"
		"printable characters between | |; a row equal to the one before\n"
		"is one \"*\" line, and the last line is the length.  Several\n"
		"FILEs are one stream, as with hexdump.  Any file\n"
		"works; it is the way to look at a binary one such as\n"
		"/sys/firmware/acpi/tables/DSDT (acpidump prints every table).",
	.fn = cmd_hexdump);

/*
 * grep as a printer: the file's show() writes into it, it cuts the stream
 * into lines and passes on the selected ones.  Only one line is held at a
 * time, so a file of any size needs GREP_LINE_MAX bytes.  A longer line is
 * cut at GREP_LINE_MAX - 1 bytes for matching and printing, and grep says
 * so after the file.
 */
struct grep_printer {
	struct printer p;		/* must stay first: grep_write() casts */
	struct printer *out;		/* where selected lines go */
	const char *pattern;		/* substring to look for */
	const char *prefix;		/* "FILE" before each line, or NULL */
	bool invert;			/* -v: select lines without the pattern */
	bool count_only;		/* -c: print only the number selected */
	char line[GREP_LINE_MAX];	/* the line being received */
	size_t len;			/* bytes in line[] */
	bool cut;			/* this line lost bytes */
	unsigned long nr_cut;		/* lines that lost bytes */
	unsigned long nr_selected;	/* lines selected so far */
};

static void grep_line_done(struct grep_printer *g)
{
	bool match;

	g->line[g->len] = '\0';
	match = strstr(g->line, g->pattern) != NULL;
	if (match != g->invert) {
		g->nr_selected++;
		if (!g->count_only) {
			if (g->prefix)
				pr_printf(g->out, "%s:", g->prefix);
			g->out->write(g->out, g->line, g->len);
			g->out->write(g->out, "\n", 1);
		}
	}
	g->len = 0;
	g->cut = false;
}

static void grep_write(struct printer *p, const char *s, size_t len)
{
	struct grep_printer *g = (struct grep_printer *)p;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n') {
			grep_line_done(g);
		} else if (g->len < sizeof(g->line) - 1) {
			g->line[g->len++] = s[i];
		} else if (!g->cut) {
			g->cut = true;
			g->nr_cut++;
		}
	}
}

static int cmd_grep(struct printer *out, int argc, char **argv)
{
	struct grep_printer g;
	bool invert = false, count_only = false, any = false;
	const char *pattern;
	int i, ret, err = 0;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		for (const char *o = argv[i] + 1; *o; o++) {
			if (*o == 'c')
				count_only = true;
			else if (*o == 'v')
				invert = true;
			else
				return shell_usage(out, shell_find("grep"));
		}
	}
	if (argc - i < 2)
		return shell_usage(out, shell_find("grep"));
	pattern = argv[i++];

	for (int first = i; i < argc; i++) {
		memset(&g, 0, sizeof(g));
		g.p.write = grep_write;
		g.out = out;
		g.pattern = pattern;
		g.prefix = argc - first > 1 ? argv[i] : NULL;
		g.invert = invert;
		g.count_only = count_only;

		ret = vfs_read(argv[i], &g.p);
		if (ret) {
			pr_printf(out, "grep: %s: %s\n", argv[i], err_text(ret));
			err = ret;
			continue;
		}
		if (g.len || g.cut)
			grep_line_done(&g);	/* last line had no newline */
		if (count_only) {
			if (g.prefix)
				pr_printf(out, "%s:", g.prefix);
			pr_printf(out, "%lu\n", g.nr_selected);
		}
		if (g.nr_cut)
			pr_printf(out, "grep: %s: %lu lines cut to %d bytes\n",
				  argv[i], g.nr_cut, GREP_LINE_MAX - 1);
		if (g.nr_selected)
			any = true;
	}
	if (err)
		return err;
	return any ? 0 : 1;	/* 1: nothing selected, like grep's exit status */
}

SHELL_COMMAND(grep,
	.name = "grep",
	.usage = "grep [-c] [-v] PATTERN FILE...",
	.summary = "print the lines of files that contain a string",
	.help = "Print each line of each FILE that contains PATTERN (a plain\n"
		"substring, not a regular expression).  With several files each\n"
		"line starts with \"FILE:\".\n"
		"  -c  print only the number of selected lines\n"
		"  -v  select the lines that do not contain PATTERN\n"
		"Like grep, it succeeds only if some line was selected.",
	.fn = cmd_grep);

static int cmd_echo(struct printer *out, int argc, char **argv)
{
	bool newline = true;
	int i = 1;

	if (argc > 1 && strcmp(argv[1], "-n") == 0) {
		newline = false;
		i++;
	}
	for (int first = i; i < argc; i++) {
		if (i > first)
			out->write(out, " ", 1);
		pr_puts(out, argv[i]);
	}
	if (newline)
		out->write(out, "\n", 1);
	return 0;
}

SHELL_COMMAND(echo,
	.name = "echo",
	.usage = "echo [-n] [WORD...] [> FILE]",
	.summary = "print words, or write them into a file",
	.help = "Print the WORDs separated by spaces and followed by a newline\n"
		"(none with -n).  With `> FILE` the text goes into the virtual file\n"
		"in one write, as on Linux: `echo online > /sys/devices/system/\n"
		"memory/memory32/state`.  A value the file rejects gives\n"
		"\"echo: write error: Invalid argument\".",
	.fn = cmd_echo);

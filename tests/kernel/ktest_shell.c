/*
 * ktest_shell.c - self-tests of the line editor, the shell's word splitting
 * and number parsing, and the virtual file tree, run inside the kernel
 * (`selftest shell`).
 *
 * The host tests cover these files in depth; this suite checks that the
 * same code behaves the same when built freestanding.  Fixtures are
 * private: editors with their own buffers, and files under /selftest,
 * which the vfs case creates and removes again, so the live tree is left as
 * it was.
 */
#include <kernel/ktest.h>
#include <shell/line_edit.h>
#include <shell/shell.h>
#include <views/vfs.h>
#include <lib/string.h>
#include <lib/errno.h>

/* Static: an editor carries its 4 KiB history. */
static struct line_edit kt_editor;
static char kt_echo[1024];
static struct buf_printer kt_echo_bp;

static struct line_edit *editor_setup(void)
{
	buf_printer_init(&kt_echo_bp, kt_echo, sizeof(kt_echo));
	line_edit_init(&kt_editor, &kt_echo_bp.p);
	return &kt_editor;
}

/* Feed s; returns the event of its last byte. */
static enum line_event feed(struct line_edit *le, const char *s)
{
	enum line_event ev = LINE_NONE;

	for (; *s; s++)
		ev = line_edit_feed(le, (u8)*s);
	return ev;
}

static void line_edit_keys(struct ktest *t)
{
	struct line_edit *le = editor_setup();

	KTEST_EXPECT_EQ(t, feed(le, "ab\x1b[Dc"), LINE_NONE);
	KTEST_EXPECT_STREQ(t, le->buf, "acb");
	KTEST_EXPECT_STREQ(t, kt_echo, "ab\bcb\b");	/* insert mid-line, redraw */
	KTEST_EXPECT_EQ(t, feed(le, "\x7f\r"), LINE_DONE);
	KTEST_EXPECT_STREQ(t, le->buf, "ab");
	/* The LF of CR LF does not make a second line. */
	KTEST_EXPECT_EQ(t, feed(le, "\n"), LINE_NONE);
	KTEST_EXPECT_EQ(t, feed(le, "\x01x\x05y\x1b[1;5C\x80\r"), LINE_DONE);
	KTEST_EXPECT_STREQ(t, le->buf, "xy");
	KTEST_EXPECT_EQ(t, feed(le, "abc\x03"), LINE_CANCELLED);
}

static void line_edit_history_and_limit(struct ktest *t)
{
	struct line_edit *le = editor_setup();

	feed(le, "one\rtwo\rtwo\r");
	feed(le, "\x1b[A\x1b[A");
	KTEST_EXPECT_STREQ(t, le->buf, "one");
	feed(le, "\x1b[B\x1b[B");
	KTEST_EXPECT_STREQ(t, le->buf, "");

	for (int i = 0; i < LINE_EDIT_MAX + 10; i++)
		line_edit_feed(le, 'x');
	KTEST_EXPECT_EQ(t, le->len, LINE_EDIT_MAX - 1);
	KTEST_EXPECT(t, le->overlong);
	KTEST_EXPECT_EQ(t, feed(le, "\r"), LINE_TOO_LONG);
	KTEST_EXPECT_EQ(t, feed(le, "ok\r"), LINE_DONE);
	KTEST_EXPECT_STREQ(t, le->buf, "ok");
}

static void shell_split_words(struct ktest *t)
{
	char line[] = "echo \"a b\" c\\ d>\"/sys/x y\"";
	char many[3 * (SHELL_MAX_ARGS + 1) + 1];
	struct shell_words sw;

	KTEST_ASSERT(t, shell_split(line, &sw) == 3);
	KTEST_EXPECT_STREQ(t, sw.argv[0], "echo");
	KTEST_EXPECT_STREQ(t, sw.argv[1], "a b");
	KTEST_EXPECT_STREQ(t, sw.argv[2], "c d");
	KTEST_EXPECT(t, sw.redirect && strcmp(sw.redirect, "/sys/x y") == 0);

	for (int i = 0; i <= SHELL_MAX_ARGS; i++)
		memcpy(many + 3 * i, "ab ", 3);
	many[sizeof(many) - 1] = '\0';
	KTEST_EXPECT_EQ(t, shell_split(many, &sw), -E2BIG);
}

static void shell_parse_u64(struct ktest *t)
{
	u64 v = 0;

	KTEST_EXPECT_EQ(t, parse_u64("0x8000000", &v), 0);
	KTEST_EXPECT_EQ(t, v, 0x8000000);
	KTEST_EXPECT_EQ(t, parse_u64("128M", &v), 0);
	KTEST_EXPECT_EQ(t, v, 128ULL << 20);
	KTEST_EXPECT_EQ(t, parse_u64("18446744073709551616", &v), -ERANGE);
	KTEST_EXPECT_EQ(t, parse_u64("16777216T", &v), -ERANGE);
	KTEST_EXPECT_EQ(t, parse_u64("12q", &v), -EINVAL);
	KTEST_EXPECT_EQ(t, parse_u64("", &v), -EINVAL);
}

/* A file under /selftest that remembers the last write. */
static char kt_stored[16];

static int kt_show(struct printer *p, void *data)
{
	pr_printf(p, "%s\n", (const char *)data);
	return 0;
}

static int kt_store(const char *buf, size_t len, void *data)
{
	(void)data;
	if (len == 0 || len >= sizeof(kt_stored) || buf[len - 1] != '\n')
		return -EINVAL;
	memcpy(kt_stored, buf, len - 1);
	kt_stored[len - 1] = '\0';
	return 0;
}

static const struct vfs_file_ops kt_ro_ops = { .show = kt_show };
static const struct vfs_file_ops kt_rw_ops = { .show = kt_show, .store = kt_store };

/* Gather a listing as "a b/ c". */
struct kt_listing {
	char text[128];		/* the names so far */
	size_t len;		/* bytes in text */
};

static void kt_collect(const char *name, bool is_dir, void *ctx)
{
	struct kt_listing *l = ctx;

	l->len += ksnprintf(l->text + l->len, sizeof(l->text) - l->len, "%s%s%s",
			    l->len ? " " : "", name, is_dir ? "/" : "");
	if (l->len >= sizeof(l->text))
		l->len = sizeof(l->text) - 1;
}

static void vfs_private_tree(struct ktest *t)
{
	static char out[256];
	struct buf_printer bp;
	struct kt_listing l = { "", 0 };
	char cmd[64];
	bool is_dir = false;

	vfs_remove("/selftest");	/* left over from an aborted run */
	KTEST_ASSERT(t, vfs_create("/selftest/memory10", &kt_ro_ops, "ten") == 0);
	KTEST_ASSERT(t, vfs_create("/selftest/memory2", &kt_ro_ops, "two") == 0);
	KTEST_ASSERT(t, vfs_create("/selftest/d/val", &kt_rw_ops, "val") == 0);
	KTEST_EXPECT_EQ(t, vfs_create("/selftest/memory2", &kt_ro_ops, NULL), -EEXIST);
	KTEST_EXPECT_EQ(t, vfs_create("/selftest/memory2/x", &kt_ro_ops, NULL), -ENOTDIR);

	KTEST_EXPECT_EQ(t, vfs_list("//selftest/", kt_collect, &l), 0);
	KTEST_EXPECT_STREQ(t, l.text, "d/ memory10 memory2");
	KTEST_EXPECT_EQ(t, vfs_stat("/selftest/d", &is_dir, NULL), 0);
	KTEST_EXPECT(t, is_dir);

	/* Through the shell: redirection, cat, and the error texts. */
	buf_printer_init(&bp, out, sizeof(out));
	strlcpy(cmd, "echo 42 > /selftest/d/val", sizeof(cmd));
	KTEST_EXPECT_EQ(t, shell_execute(&bp.p, cmd), 0);
	KTEST_EXPECT_STREQ(t, kt_stored, "42");
	strlcpy(cmd, "echo 1 > /selftest/memory2", sizeof(cmd));
	KTEST_EXPECT_EQ(t, shell_execute(&bp.p, cmd), -EACCES);
	strlcpy(cmd, "cat /selftest/memory10 /selftest/nope", sizeof(cmd));
	KTEST_EXPECT_EQ(t, shell_execute(&bp.p, cmd), -ENOENT);
	KTEST_EXPECT_STREQ(t, out, "/selftest/memory2: Permission denied\n"
			   "ten\ncat: /selftest/nope: No such file or directory\n");

	KTEST_EXPECT_EQ(t, vfs_remove("/selftest"), 0);
	KTEST_EXPECT_EQ(t, vfs_stat("/selftest/d/val", NULL, NULL), -ENOENT);
	KTEST_EXPECT_EQ(t, vfs_stat("/selftest", NULL, NULL), -ENOENT);
}

static const struct ktest_case shell_cases[] = {
	KTEST_CASE(line_edit_keys),
	KTEST_CASE(line_edit_history_and_limit),
	KTEST_CASE(shell_split_words),
	KTEST_CASE(shell_parse_u64),
	KTEST_CASE(vfs_private_tree),
};

KTEST_SUITE(shell, "shell", shell_cases);

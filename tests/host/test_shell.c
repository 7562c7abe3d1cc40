/*
 * test_shell.c - word splitting, redirection, parse_u64, help and the
 * error lines of the shell.
 *
 * Commands are run through shell_execute() with a buffer printer, so each
 * test compares the exact text a user would see on the console.
 */
#include "htest.h"
#include <shell/shell.h>
#include <views/vfs.h>
#include <lib/errno.h>

static char out_buf[16384];
static struct buf_printer out_bp;

/* Run a copy of line (shell_execute rewrites it) and capture the output. */
static int run(const char *line)
{
	char copy[1024];

	snprintf(copy, sizeof(copy), "%s", line);
	buf_printer_init(&out_bp, out_buf, sizeof(out_buf));
	return shell_execute(&out_bp.p, copy);
}

/* tst_args: print argc and every word in brackets. */
static int cmd_tst_args(struct printer *out, int argc, char **argv)
{
	pr_printf(out, "%d", argc);
	for (int i = 0; i < argc; i++)
		pr_printf(out, " [%s]", argv[i]);
	pr_puts(out, "\n");
	return 0;
}

SHELL_COMMAND(tst_args,
	.name = "tst_args",
	.usage = "tst_args [WORD...]",
	.summary = "test: show the words",
	.fn = cmd_tst_args);

static int cmd_tst_fail(struct printer *out, int argc, char **argv)
{
	(void)argc;
	pr_printf(out, "%s: it failed\n", argv[0]);
	return -EBUSY;
}

SHELL_COMMAND(tst_fail,
	.name = "tst_fail",
	.usage = "tst_fail",
	.summary = "test: print an error and fail",
	.help = "Line one.\nLine two.\n",
	.fn = cmd_tst_fail);

/* tst_long: "long" when its first argument says so (shell_classify). */
static bool tst_long_runs_long(int argc, char **argv)
{
	return argc >= 2 && !strcmp(argv[1], "long");
}

SHELL_COMMAND(tst_long,
	.name = "tst_long",
	.usage = "tst_long [long|short]",
	.summary = "test: a command that is long only with `long`",
	.fn = cmd_tst_args,
	.runs_long = tst_long_runs_long);

/* split a copy of line; returns argc or the error */
static char split_buf[512];
static struct shell_words sw;

static int split(const char *line)
{
	snprintf(split_buf, sizeof(split_buf), "%s", line);
	return shell_split(split_buf, &sw);
}

HTEST(shell_split_words)
{
	CHECK_EQ(split(""), 0);
	CHECK_EQ(split(" \t  "), 0);
	CHECK(sw.argv[0] == NULL);
	CHECK_EQ(split("  ls   -l\t/proc  "), 3);
	CHECK_STREQ(sw.argv[0], "ls");
	CHECK_STREQ(sw.argv[1], "-l");
	CHECK_STREQ(sw.argv[2], "/proc");
	CHECK(sw.argv[3] == NULL);
	CHECK(sw.redirect == NULL);
}

HTEST(shell_split_quotes_and_backslashes)
{
	CHECK_EQ(split("echo \"a b\" c"), 3);
	CHECK_STREQ(sw.argv[1], "a b");
	CHECK_STREQ(sw.argv[2], "c");

	CHECK_EQ(split("echo a\\ b"), 2);
	CHECK_STREQ(sw.argv[1], "a b");

	CHECK_EQ(split("echo \"x\\\"y\" \"\\\\\""), 3);	/* "x\"y" "\\" */
	CHECK_STREQ(sw.argv[1], "x\"y");
	CHECK_STREQ(sw.argv[2], "\\");

	CHECK_EQ(split("echo \"\" x"), 3);		/* an empty word counts */
	CHECK_STREQ(sw.argv[1], "");
	CHECK_STREQ(sw.argv[2], "x");

	CHECK_EQ(split("echo a\"b c\"d"), 2);		/* quotes join, not split */
	CHECK_STREQ(sw.argv[1], "ab cd");

	CHECK_EQ(split("echo a\\"), 2);		/* a trailing backslash stays */
	CHECK_STREQ(sw.argv[1], "a\\");

	CHECK_EQ(split("echo \"abc"), -EINVAL);
	CHECK_STREQ(sw.error, "missing closing quote");
}

HTEST(shell_split_redirect)
{
	static const char *const forms[] = {
		"echo 1 > /sys/x", "echo 1 >/sys/x", "echo 1>/sys/x", "echo 1 >> /sys/x",
		"echo 1 >\"/sys/x\"", "echo 1 > /sys/x  ", "echo > /sys/x 1",
	};

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		CHECK_EQ(split(forms[i]), 2);
		CHECK_STREQ(sw.argv[0], "echo");
		CHECK_STREQ(sw.argv[1], "1");
		CHECK(sw.redirect && strcmp(sw.redirect, "/sys/x") == 0);
	}

	/* Quoted or escaped '>' is an ordinary character. */
	CHECK_EQ(split("echo \">\" x"), 3);
	CHECK_STREQ(sw.argv[1], ">");
	CHECK(sw.redirect == NULL);
	CHECK_EQ(split("echo \"a>b\""), 2);
	CHECK_STREQ(sw.argv[1], "a>b");
	CHECK(sw.redirect == NULL);
	CHECK_EQ(split("echo a\\>b"), 2);
	CHECK_STREQ(sw.argv[1], "a>b");
	CHECK(sw.redirect == NULL);
	CHECK_EQ(split("echo 1 > \"a b\""), 2);
	CHECK_STREQ(sw.redirect, "a b");

	CHECK_EQ(split("echo 1 >"), -EINVAL);
	CHECK_STREQ(sw.error, "'>' needs a file name");
	CHECK_EQ(split("echo 1 > > f"), -EINVAL);
	CHECK_EQ(split("echo 1 > a > b"), -EINVAL);
	CHECK_STREQ(sw.error, "only one '>' redirection is allowed");
	CHECK_EQ(split("> f"), -EINVAL);
	CHECK_STREQ(sw.error, "missing command before '>'");
	CHECK_EQ(split("cat /proc/meminfo | grep Mem"), -EINVAL);
	CHECK_EQ(split("cat < f"), -EINVAL);
}

HTEST(shell_split_background)
{
	static const char *const forms[] = {
		"bench zone_contig &", "bench zone_contig&", "bench zone_contig &  \t",
		"  bench   zone_contig\t&",
	};

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		CHECK_EQ(split(forms[i]), 2);
		CHECK_STREQ(sw.argv[0], "bench");
		CHECK_STREQ(sw.argv[1], "zone_contig");
		CHECK(sw.argv[2] == NULL);
		CHECK(sw.background);
	}
	CHECK_EQ(split("bench zone_contig"), 2);
	CHECK(!sw.background);
	/* quoted or escaped '&' is an ordinary character */
	CHECK_EQ(split("echo \"a&b\" c\\&"), 3);
	CHECK_STREQ(sw.argv[1], "a&b");
	CHECK_STREQ(sw.argv[2], "c&");
	CHECK(!sw.background);
	/* with a redirection, before the '&' */
	CHECK_EQ(split("echo 1 > /sys/x &"), 2);
	CHECK_STREQ(sw.redirect, "/sys/x");
	CHECK(sw.background);
	/* '&' ends the line, and needs a command */
	CHECK_EQ(split("echo a & b"), -EINVAL);
	CHECK_STREQ(sw.error, "'&' must end the line (it runs a long command in the background)");
	CHECK_EQ(split("echo a && b"), -EINVAL);
	CHECK_EQ(split("  &"), -EINVAL);
	CHECK_STREQ(sw.error, "missing command before '&'");
	CHECK_EQ(split("echo 1 > &"), -EINVAL);
	CHECK_STREQ(sw.error, "'>' needs a file name");
	/* shell_execute() says why, as for any split error */
	CHECK_EQ(run("tst_args a & b"), -EINVAL);
	CHECK_STREQ(out_buf, "error: '&' must end the line (it runs a long command in the background)\n");
	/* a command that is not long runs at once: the '&' is no argument */
	CHECK_EQ(run("tst_args a &"), 0);
	CHECK_STREQ(out_buf, "2 [tst_args] [a]\n");
}

HTEST(shell_classify_long_commands)
{
	const char *line = "tst_long long &";
	bool bg = false;

	CHECK(shell_classify(line, &bg) == shell_find("tst_long"));
	CHECK(bg);
	CHECK_STREQ(line, "tst_long long &");		/* not modified */
	CHECK(shell_classify("tst_long long", &bg) == shell_find("tst_long"));
	CHECK(!bg);
	/* not long: this invocation, a command without runs_long, a redirection */
	CHECK(shell_classify("tst_long short &", &bg) == NULL);
	CHECK(bg);					/* said, but it runs at once */
	CHECK(shell_classify("tst_args long", &bg) == NULL);
	CHECK(shell_classify("tst_long long > /sys/x", &bg) == NULL);
	/* nothing to run: shell_execute() reports the line */
	CHECK(shell_classify("", &bg) == NULL);
	CHECK(shell_classify("nosuch long", &bg) == NULL);
	CHECK(shell_classify("tst_long \"long", &bg) == NULL);
	CHECK(!bg);
	/* outside a job the checkpoints never pause and report nothing */
	CHECK(!shell_checkpoint());
	CHECK(!shell_turn_over());
	CHECK(shell_job_longop() == NULL);
	shell_progress(1, 2, "units");			/* no job: nothing to update */
	shell_claim_range(0, 4096);
	shell_yield();
}

HTEST(shell_split_argument_limit)
{
	char line[512] = "c";

	for (int i = 1; i < SHELL_MAX_ARGS; i++)
		strcat(line, " w");
	CHECK_EQ(split(line), SHELL_MAX_ARGS);
	CHECK(sw.argv[SHELL_MAX_ARGS] == NULL);
	/* The redirection target is not an argument. */
	strcat(line, " > f");
	CHECK_EQ(split(line), SHELL_MAX_ARGS);
	strcat(line, " w");
	CHECK_EQ(split(line), -E2BIG);

	CHECK_EQ(run("tst_args 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 "
		     "21 22 23 24 25 26 27 28 29 30 31 32"), -E2BIG);
	CHECK_STREQ(out_buf, "error: too many arguments (max 32 words)\n");
}

HTEST(shell_execute_runs_and_reports)
{
	CHECK_EQ(run("tst_args  \"a b\"  c"), 0);
	CHECK_STREQ(out_buf, "3 [tst_args] [a b] [c]\n");

	CHECK_EQ(run(""), 0);
	CHECK_STREQ(out_buf, "");
	CHECK_EQ(run("   "), 0);
	CHECK_STREQ(out_buf, "");

	CHECK_EQ(run("nosuch arg"), -ENOENT);
	CHECK_STREQ(out_buf, "nosuch: command not found\n"
			     "type 'help' for a list of commands\n");

	CHECK_EQ(run("tst_fail"), -EBUSY);
	CHECK_STREQ(out_buf, "tst_fail: it failed\n");

	CHECK_EQ(run("echo \"unterminated"), -EINVAL);
	CHECK_STREQ(out_buf, "error: missing closing quote\n");
}

HTEST(shell_find_and_usage)
{
	const struct shell_cmd *c = shell_find("tst_args");

	CHECK(c != NULL);
	CHECK(shell_find("tst_arg") == NULL);
	CHECK(shell_find("") == NULL);
	buf_printer_init(&out_bp, out_buf, sizeof(out_buf));
	CHECK_EQ(shell_usage(&out_bp.p, c), -EINVAL);
	CHECK_STREQ(out_buf, "usage: tst_args [WORD...]\n");
}

HTEST(shell_help_lists_every_command_sorted)
{
	size_t nr_cmds = (size_t)(__stop_shell_cmds - __start_shell_cmds);
	size_t nr_lines = 0;
	char prev[64] = "";
	char *line, *save;

	CHECK_EQ(run("help"), 0);
	CHECK(!out_bp.overflow);
	for (line = strtok_r(out_buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];

		nr_lines++;
		CHECK(sscanf(line, "%63s", name) == 1);
		CHECK(strcmp(prev, name) < 0);		/* strictly sorted */
		strcpy(prev, name);
		CHECK(shell_find(name) != NULL);
		CHECK(strstr(line, shell_find(name)->summary) != NULL);
	}
	CHECK_EQ(nr_lines, nr_cmds);

	/* Summaries start in one column. */
	CHECK_EQ(run("help"), 0);
	{
		const char *a = strstr(out_buf, "test: show the words");
		const char *b = strstr(out_buf, "test: print an error and fail");
		const char *la = a, *lb = b;

		CHECK(a && b);
		if (a && b) {
			while (la > out_buf && la[-1] != '\n')
				la--;
			while (lb > out_buf && lb[-1] != '\n')
				lb--;
			CHECK_EQ(a - la, b - lb);
		}
	}
}

HTEST(shell_help_one_command)
{
	CHECK_EQ(run("help tst_fail"), 0);
	CHECK_STREQ(out_buf, "usage: tst_fail\n"
			     "test: print an error and fail\n"
			     "\n"
			     "Line one.\nLine two.\n");
	CHECK_EQ(run("help tst_args"), 0);		/* no detailed help */
	CHECK_STREQ(out_buf, "usage: tst_args [WORD...]\ntest: show the words\n");
	CHECK_EQ(run("help help"), 0);
	CHECK(strncmp(out_buf, "usage: help [COMMAND]\n", 22) == 0);

	CHECK_EQ(run("help nosuch"), -ENOENT);
	CHECK_STREQ(out_buf, "help: no command named 'nosuch'\n"
			     "type 'help' for a list of commands\n");
	CHECK_EQ(run("help a b"), -EINVAL);
	CHECK_STREQ(out_buf, "usage: help [COMMAND]\n");
}

HTEST(shell_parse_u64)
{
	static const struct { const char *s; int ret; u64 v; } cases[] = {
		{ "0", 0, 0 },
		{ "123", 0, 123 },
		{ "007", 0, 7 },			/* decimal, not octal */
		{ "0x1f", 0, 0x1f },
		{ "0XFF", 0, 0xff },
		{ "0xdeadBEEF", 0, 0xdeadbeef },
		{ "4K", 0, 4096 },
		{ "4k", 0, 4096 },
		{ "2M", 0, 2 << 20 },
		{ "1G", 0, 1ULL << 30 },
		{ "3T", 0, 3ULL << 40 },
		{ "0x10K", 0, 16 << 10 },
		{ "0x1b", 0, 0x1b },			/* b is a digit here */
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "0xffffffffffffffff", 0, UINT64_MAX },
		{ "16777215T", 0, 16777215ULL << 40 },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "99999999999999999999999", -ERANGE, 0 },
		{ "0x10000000000000000", -ERANGE, 0 },
		{ "16777216T", -ERANGE, 0 },		/* 2^24 << 40 = 2^64 */
		{ "17179869184G", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "0x", -EINVAL, 0 },
		{ "x10", -EINVAL, 0 },
		{ "12x", -EINVAL, 0 },
		{ "99999999999999999999999x", -EINVAL, 0 },	/* syntax beats range */
		{ "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 },
		{ "1KB", -EINVAL, 0 },
		{ "K", -EINVAL, 0 },
		{ "1P", -EINVAL, 0 },
		{ "0xg", -EINVAL, 0 },
		{ "1.5G", -EINVAL, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		u64 v = 0x5a5a5a5a;
		int ret = parse_u64(cases[i].s, &v);

		if (ret != cases[i].ret)
			fprintf(stderr, "  parse_u64(\"%s\")\n", cases[i].s);
		CHECK_EQ(ret, cases[i].ret);
		if (ret == 0)
			CHECK(v == cases[i].v);
		else
			CHECK(v == 0x5a5a5a5a);	/* untouched on error */
	}
}

/* A writable file that records what it was given. */
static char stored[64];
static size_t stored_len;
static int stored_calls;
static int store_result;

static int rec_show(struct printer *p, void *data)
{
	(void)data;
	pr_puts(p, "value\n");
	return 0;
}

static int rec_store(const char *buf, size_t len, void *data)
{
	(void)data;
	stored_calls++;
	stored_len = len < sizeof(stored) ? len : sizeof(stored) - 1;
	memcpy(stored, buf, stored_len);
	stored[stored_len] = '\0';
	return store_result;
}

static const struct vfs_file_ops rec_ops = { .show = rec_show, .store = rec_store };
static const struct vfs_file_ops ro_ops = { .show = rec_show };

/* 5000 bytes: more than one redirected write may carry. */
static int big_show(struct printer *p, void *data)
{
	(void)data;
	for (int i = 0; i < 100; i++)
		pr_printf(p, "%049d\n", i);
	return 0;
}

static const struct vfs_file_ops big_ops = { .show = big_show };

static void redirect_setup(void)
{
	vfs_init();
	CHECK_EQ(vfs_create("/t/val", &rec_ops, NULL), 0);
	CHECK_EQ(vfs_create("/t/ro", &ro_ops, NULL), 0);
	stored[0] = '\0';
	stored_len = 0;
	stored_calls = 0;
	store_result = 0;
}

HTEST(shell_redirect_writes_once)
{
	static const char *const forms[] = {
		"echo 5 > /t/val", "echo 5 >/t/val", "echo 5>/t/val", "echo \"5\" > t/val",
	};

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		redirect_setup();
		CHECK_EQ(run(forms[i]), 0);
		CHECK_STREQ(out_buf, "");
		CHECK_EQ(stored_calls, 1);
		CHECK_STREQ(stored, "5\n");
		CHECK_EQ(stored_len, 2);
	}

	redirect_setup();
	CHECK_EQ(run("echo -n online_movable >/t/val"), 0);
	CHECK_STREQ(stored, "online_movable");
	CHECK_EQ(run("echo \"a > b\" > /t/val"), 0);
	CHECK_STREQ(stored, "a > b\n");
	CHECK_EQ(stored_calls, 2);
}

HTEST(shell_redirect_errors)
{
	redirect_setup();
	store_result = -EINVAL;
	CHECK_EQ(run("echo bogus > /t/val"), -EINVAL);
	CHECK_STREQ(out_buf, "echo: write error: Invalid argument\n");
	store_result = -EBUSY;
	CHECK_EQ(run("echo offline > /t/val"), -EBUSY);
	CHECK_STREQ(out_buf, "echo: write error: Device or resource busy\n");
	CHECK_EQ(stored_calls, 2);

	redirect_setup();
	CHECK_EQ(run("echo 1 > /t/missing"), -ENOENT);
	CHECK_STREQ(out_buf, "/t/missing: No such file or directory\n");
	CHECK_EQ(run("echo 1 > /t/ro"), -EACCES);
	CHECK_STREQ(out_buf, "/t/ro: Permission denied\n");
	CHECK_EQ(run("echo 1 > /t"), -EISDIR);
	CHECK_STREQ(out_buf, "/t: Is a directory\n");
	CHECK_EQ(run("echo 1 > /t/ro/x"), -ENOTDIR);
	CHECK_STREQ(out_buf, "/t/ro/x: Not a directory\n");
	CHECK_EQ(stored_calls, 0);

	/* A failing command's message is shown, not written. */
	CHECK_EQ(run("tst_fail > /t/val"), -EBUSY);
	CHECK_STREQ(out_buf, "tst_fail: it failed\n");
	CHECK_EQ(stored_calls, 0);
	/* An unknown command is reported before the file is looked at. */
	CHECK_EQ(run("nosuch > /t/missing"), -ENOENT);
	CHECK_STREQ(out_buf, "nosuch: command not found\n"
			     "type 'help' for a list of commands\n");
	/* grep selecting nothing writes nothing and says nothing. */
	CHECK_EQ(run("grep zzz /t/ro > /t/val"), 1);
	CHECK_STREQ(out_buf, "");
	CHECK_EQ(stored_calls, 0);
	/* Output larger than one page is refused, not cut. */
	CHECK_EQ(vfs_create("/t/big", &big_ops, NULL), 0);
	CHECK_EQ(run("cat /t/big > /t/val"), -ENOSPC);
	CHECK_STREQ(out_buf, "cat: write error: No space left on device\n");
	CHECK_EQ(stored_calls, 0);
	vfs_init();
}

/* ---- shell_arg_u64(): one reader and one set of messages for numeric arguments ---- */
#include <shell/args.h>

HTEST(shell_arg_u64_names_the_argument_and_its_range)
{
	static const struct {
		const char *word; u64 min, max; const char *why; int err; const char *msg;
	} t[] = {
		{ "7", 0, 10, NULL, 0, "" },
		{ "0x10", 0, 16, NULL, 0, "" },
		{ "2K", 0, 4096, NULL, 0, "" },
		{ "x", 0, 10, NULL, -EINVAL, "cmd: order 'x' is not a number\n" },
		{ "11", 0, 10, "MAX", -ERANGE, "cmd: order 11 is out of range: 0-10 (MAX)\n" },
		{ "99999999999999999999", 0, 10, NULL, -ERANGE,
		  "cmd: order 99999999999999999999 is out of range: 0-10\n" },
		{ "0", 1, 1, NULL, -ERANGE, "cmd: order 0 is out of range: it must be 1\n" },
		{ "0x10000000000", 0x100000, 0xffffffffffULL, NULL, -ERANGE,
		  "cmd: order 0x10000000000 is out of range: 1048576-1099511627775\n" },
		{ "", 0, 10, NULL, -EINVAL, "cmd: order '' is not a number\n" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char buf[160];
		struct buf_printer bp;
		u64 v = 12345;

		buf_printer_init(&bp, buf, sizeof(buf));
		CHECK_EQ(shell_arg_u64(&bp.p, "cmd", "order", t[i].word, t[i].min, t[i].max,
				       t[i].why, &v), t[i].err);
		CHECK_STREQ(buf, t[i].msg);
		if (t[i].err)
			CHECK_EQ(v, 12345);	/* unchanged on an error */
	}
}

/* ---- shell_execute_held(): output in whole lines ------------------------ */

static char rec_buf[32768];
static size_t rec_len;
static unsigned rec_writes, rec_partial;

static void rec_write(struct printer *p, const char *s, size_t len)
{
	(void)p;
	if (len && s[len - 1] != '\n')
		rec_partial++;
	if (rec_len + len <= sizeof(rec_buf)) {
		memcpy(rec_buf + rec_len, s, len);
		rec_len += len;
	}
	rec_writes++;
}

static int many_show(struct printer *p, void *data)
{
	(void)data;
	for (int i = 0; i < 300; i++)
		pr_printf(p, "%049d\n", i);	/* 50 bytes a line, 15000 in all */
	return 0;
}

static const struct vfs_file_ops many_ops = { .show = many_show };

/*
 * A held command's output reaches the console unchanged, in a few writes
 * of whole lines (so a log line between two writes falls between lines),
 * and a short output in one write at the end.
 */
HTEST(shell_execute_held_writes_whole_lines)
{
	struct printer rec = { rec_write };
	char line[64];

	vfs_init();
	CHECK_EQ(vfs_create("/t/many", &many_ops, NULL), 0);
	rec_len = rec_writes = rec_partial = 0;
	strcpy(line, "cat /t/many");
	CHECK_EQ(shell_execute_held(&rec, line), 0);
	CHECK_EQ(rec_len, 15000u);
	CHECK_EQ(rec_partial, 0u);
	CHECK(rec_writes >= 2 && rec_writes <= 4);
	CHECK(memcmp(rec_buf, "0000000000000000000000000000000000000000000000000\n", 50) == 0);
	CHECK(memcmp(rec_buf + 14950, "0000000000000000000000000000000000000000000000299\n", 50) == 0);

	rec_len = rec_writes = rec_partial = 0;
	strcpy(line, "tst_args a b");
	CHECK_EQ(shell_execute_held(&rec, line), 0);
	CHECK_EQ(rec_writes, 1u);
	CHECK(rec_len == 21 && memcmp(rec_buf, "3 [tst_args] [a] [b]\n", 21) == 0);
	vfs_init();
}

/*
 * fuzz_shell.c - libFuzzer target for the console input path: line editor,
 * word splitting, redirection, the file commands and the virtual file tree.
 *
 * Each input is used twice:
 *   1. fed byte by byte to a line editor whose echo drives a model terminal
 *      (tests/host/term_model.h); after every byte the editor's invariants
 *      must hold and the screen must show its line, and every finished line
 *      is run with shell_execute();
 *   2. cut at NUL and newline bytes into raw lines (control bytes, quotes
 *      and all) that go straight to shell_execute().
 * The tree is rebuilt for every input, and two fuzz-only commands, `mk PATH`
 * and `rm PATH`, let inputs create and remove entries at arbitrary paths.
 * A broken invariant calls __builtin_trap(); the sanitizers catch the rest.
 *
 * Build (the Makefile's test-fuzz does this):
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
 *     -fno-sanitize-recover=all -Iinclude -Itests/host -DHOST_TEST \
 *     tests/fuzz/fuzz_shell.c <HOST_SRCS> tests/host/platform_stub.c -o fuzz_shell
 */
#include <stdint.h>
#include <stddef.h>
#include <errno.h>	/* the host's: same values as lib/errno.h */
#include "term_model.h"
#include <shell/shell.h>
#include <views/vfs.h>
#include <shell/line_edit.h>

static char fuzz_value[64];

static int fz_show(struct printer *p, void *data)
{
	pr_printf(p, "%s\nvalue=%s\nsecond line\n", (const char *)data, fuzz_value);
	return 0;
}

static int fz_store(const char *buf, size_t len, void *data)
{
	(void)data;
	if (len == 0 || len >= sizeof(fuzz_value) || buf[len - 1] != '\n')
		return -EINVAL;
	memcpy(fuzz_value, buf, len - 1);
	fuzz_value[len - 1] = '\0';
	return 0;
}

/* Prints 20 KiB, more than a redirection may carry. */
static int fz_show_big(struct printer *p, void *data)
{
	(void)data;
	for (int i = 0; i < 400; i++)
		pr_printf(p, "%049d\n", i);
	return 0;
}

static const struct vfs_file_ops fz_ro_ops = { .show = fz_show };
static const struct vfs_file_ops fz_rw_ops = { .show = fz_show, .store = fz_store };
static const struct vfs_file_ops fz_big_ops = { .show = fz_show_big };

VFS_FILE(fz_version, "/proc/version", &fz_ro_ops, "memlab fuzz");

static int cmd_mk(struct printer *out, int argc, char **argv)
{
	if (argc != 2)
		return shell_usage(out, shell_find("mk"));
	return vfs_create(argv[1], argv[1][0] == '/' && argv[1][1] == 'w' ? &fz_rw_ops : &fz_ro_ops,
			  "made");
}

SHELL_COMMAND(mk, .name = "mk", .usage = "mk PATH", .summary = "fuzz: create a file",
	      .fn = cmd_mk);

static int cmd_rm(struct printer *out, int argc, char **argv)
{
	if (argc != 2)
		return shell_usage(out, shell_find("rm"));
	return vfs_remove(argv[1]);
}

SHELL_COMMAND(rm, .name = "rm", .usage = "rm PATH", .summary = "fuzz: remove a path",
	      .fn = cmd_rm);

static char out_buf[1 << 16];
static struct line_edit editor;
static struct term_model term;

static void check_editor(void)
{
	const struct line_edit *le = &editor;

	if (le->len >= LINE_EDIT_MAX || le->cursor > le->len || le->buf[le->len] != '\0' ||
	    strlen(le->buf) != le->len || le->hist_count > LINE_EDIT_HISTORY ||
	    le->hist_pos > le->hist_count)
		__builtin_trap();
	for (size_t i = 0; i < le->len; i++)
		if (le->buf[i] < 0x20 || le->buf[i] > 0x7e)
			__builtin_trap();
	if (term.bad_bytes)
		__builtin_trap();
}

static void execute(char *line)
{
	struct buf_printer bp;

	buf_printer_init(&bp, out_buf, sizeof(out_buf));
	shell_execute(&bp.p, line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char raw[2048];

	vfs_init();
	fuzz_value[0] = '\0';
	vfs_create("/sys/devices/system/memory/memory0/state", &fz_rw_ops, "online");
	vfs_create("/sys/devices/system/memory/memory10/state", &fz_ro_ops, "offline");
	vfs_create("/sys/big", &fz_big_ops, NULL);

	/* 1. Through the line editor. */
	term_init(&term);
	line_edit_init(&editor, &term.p);
	for (size_t i = 0; i < size; i++) {
		enum line_event ev = line_edit_feed(&editor, data[i]);

		check_editor();
		if (ev == LINE_DONE) {
			/* The finished row shows the line (blanks typed at its end
			 * are indistinguishable from the empty rest of the row). */
			size_t n = editor.len;

			while (n && editor.buf[n - 1] == ' ')
				n--;
			if (strlen(term.last_row) != n || memcmp(term.last_row, editor.buf, n) != 0)
				__builtin_trap();
			execute(editor.buf);
		} else if (ev == LINE_NONE && editor.esc == LINE_ESC_NONE &&
			   !editor.reset_pending && !editor.after_cr) {
			if (!term_matches(&term, &editor))
				__builtin_trap();
		}
	}

	/* 2. Raw lines straight into the shell. */
	for (size_t i = 0; i < size;) {
		size_t n = 0;

		while (i < size && data[i] != '\0' && data[i] != '\n') {
			if (n < sizeof(raw) - 1)
				raw[n++] = (char)data[i];
			i++;
		}
		i++;
		raw[n] = '\0';
		execute(raw);
	}
	return 0;
}

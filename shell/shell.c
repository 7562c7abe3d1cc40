/*
 * shell.c - turning a command line into a call of a shell command.
 *
 * A line goes through three steps:
 *   1. shell_split() cuts it into words in place (quotes, backslashes, '>');
 *   2. shell_find() looks the first word up in the "shell_cmds" section;
 *   3. the command runs, printing to the caller's printer, or, for
 *      `CMD ... > FILE`, into a buffer whose contents then go to the virtual
 *      file in a single vfs_write().
 * The interactive loop around it (prompt, line editor, console) is in
 * shell_run.c, so this file builds unchanged in the host tests.
 *
 * Also here: `help`.  (Numbers: parse_u64() in lib/kstrtox.c, shell_arg_u64()
 * in shell/args.c.)
 */
#include <shell/shell.h>
#include <lib/errno.h>
#include <lib/string.h>
#include <kernel/longop.h>
#include <mm/page.h>
#include <mm/range_claim.h>
#include <views/vfs.h>

/* Output of a redirected command: one page, as sysfs accepts per write. */
#define SHELL_REDIRECT_MAX	4096

#define STRINGIFY_(x)	#x
#define STRINGIFY(x)	STRINGIFY_(x)

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * The word being built ends at *w: terminate it and file it as an argument,
 * or as the redirection target if a '>' came before it.  Returns 0 or the
 * split error.
 */
static int end_word(struct shell_words *sw, char **w, char *start,
		    bool *want_target)
{
	*(*w)++ = '\0';
	if (*want_target) {
		sw->redirect = start;
		*want_target = false;
		return 0;
	}
	if (sw->argc >= SHELL_MAX_ARGS) {
		sw->error = "too many arguments (max " STRINGIFY(SHELL_MAX_ARGS) " words)";
		return -E2BIG;
	}
	sw->argv[sw->argc++] = start;
	return 0;
}

/*
 * The output pointer w never passes the input pointer r: every input byte
 * yields at most one output byte, and each word's NUL takes the place of
 * the blank, '>' or NUL that ended it.  So the line can be rewritten in
 * place, and every word stays valid for as long as the line does.
 */
int shell_split(char *line, struct shell_words *sw)
{
	char *r = line, *w = line, *start = NULL;
	bool in_word = false, in_quote = false, want_target = false;
	int ret;

	sw->argc = 0;
	sw->argv[0] = NULL;
	sw->redirect = NULL;
	sw->background = false;
	sw->error = NULL;

	for (;;) {
		char c = *r;

		if (c == '\0') {
			if (in_quote) {
				sw->error = "missing closing quote";
				return -EINVAL;
			}
			if (in_word) {
				ret = end_word(sw, &w, start, &want_target);
				if (ret)
					return ret;
			}
			break;
		}
		r++;

		if (in_quote) {
			if (c == '"') {
				in_quote = false;
				continue;
			}
			if (c == '\\' && *r)
				c = *r++;
			*w++ = c;
			continue;
		}

		if (is_blank(c) || c == '>') {
			if (in_word) {
				in_word = false;
				ret = end_word(sw, &w, start, &want_target);
				if (ret)
					return ret;
			}
			if (c == '>') {
				if (want_target) {
					sw->error = "'>' needs a file name";
					return -EINVAL;
				}
				if (sw->redirect) {
					sw->error = "only one '>' redirection is allowed";
					return -EINVAL;
				}
				want_target = true;
				if (*r == '>')
					r++;	/* ">>": the same as '>' for virtual files */
			}
			continue;
		}
		if (c == '&') {
			const char *rest = r;

			while (is_blank(*rest))
				rest++;
			if (*rest) {
				sw->error = "'&' must end the line (it runs a long command in the background)";
				return -EINVAL;
			}
			if (in_word) {
				in_word = false;
				ret = end_word(sw, &w, start, &want_target);
				if (ret)
					return ret;
			}
			sw->background = true;
			break;
		}
		if (c == '|' || c == '<') {
			sw->error = c == '|' ? "pipes ('|') are not supported; use grep PATTERN FILE"
					     : "input redirection ('<') is not supported";
			return -EINVAL;
		}

		if (!in_word) {
			in_word = true;
			start = w;
		}
		if (c == '"') {
			in_quote = true;
			continue;
		}
		if (c == '\\' && *r)
			c = *r++;
		*w++ = c;
	}

	if (want_target) {
		sw->error = "'>' needs a file name";
		return -EINVAL;
	}
	if (sw->redirect && sw->argc == 0) {
		sw->error = "missing command before '>'";
		return -EINVAL;
	}
	if (sw->background && sw->argc == 0) {
		sw->error = "missing command before '&'";
		return -EINVAL;
	}
	sw->argv[sw->argc] = NULL;
	return sw->argc;
}

bool (*shell_interrupt_check)(void);
struct shell_job_ctl *(*shell_current_job)(void);

static struct shell_job_ctl *current_job(void)
{
	return shell_current_job ? shell_current_job() : NULL;
}

/* Contracts of the next seven in shell.h ("Long commands and jobs"). */
bool shell_checkpoint(void)
{
	struct shell_job_ctl *j = current_job();

	if (j && j->turn_over())
		j->yield();
	return shell_stop_requested();
}

void shell_yield(void)
{
	struct shell_job_ctl *j = current_job();

	if (j)
		j->yield();
}

bool shell_stop_requested(void)
{
	struct shell_job_ctl *j = current_job();

	if (!j)
		return shell_interrupt_check && shell_interrupt_check();
	return j->cancel;
}

bool shell_turn_over(void)
{
	struct shell_job_ctl *j = current_job();

	return j && (j->cancel || j->turn_over());
}

void shell_progress(u64 done, u64 total, const char *unit)
{
	struct shell_job_ctl *j = current_job();

	if (!j)
		return;
	j->op->done = done;
	j->op->total = total;
	j->op->unit = unit;
}

int shell_claim_range(u64 start, u64 end)
{
	struct shell_job_ctl *j = current_job();

	if (!j)
		return range_claim_check(PFN_DOWN(start), PFN_UP(end));
	return range_claim(&j->op->claim, PFN_DOWN(start), PFN_UP(end), j->op->name, j->op);
}

int shell_range_busy(struct printer *out, u64 start, u64 end, const char *head,
		     const char *what, bool progress)
{
	const struct range_claim *c = range_claim_holder(PFN_DOWN(start), PFN_UP(end));
	/* a long operation's claim points at it (kernel/longop.c) */
	const struct longop *op = c ? c->owner : NULL;

	if (!c)
		return 0;
	pr_printf(out, "%s%s is working on %s", head, c->name, what);
	if (progress && op)
		pr_printf(out, " (%llu/%llu %s done)", (unsigned long long)op->done,
			  (unsigned long long)op->total, op->unit);
	pr_printf(out, "; try again when `work` no longer lists it\n");
	return -EBUSY;
}

struct longop *shell_job_longop(void)
{
	struct shell_job_ctl *j = current_job();

	return j ? j->op : NULL;
}

bool shell_always_long(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return true;
}

const struct shell_cmd *shell_find(const char *name)
{
	for (const struct shell_cmd *c = __start_shell_cmds; c < __stop_shell_cmds; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

int shell_usage(struct printer *out, const struct shell_cmd *cmd)
{
	pr_printf(out, "usage: %s\n", cmd->usage);
	return -EINVAL;
}

/*
 * Run cmd with its output going into the file sw->redirect.  The file is
 * checked first, as bash opens it before running the command.  There is no
 * stderr, so when the command fails its buffered output (its error message)
 * is shown instead of written.  Empty output writes nothing, as a write of
 * zero bytes never reaches a sysfs store().
 */
static int run_redirected(struct printer *out, const struct shell_cmd *cmd,
			  struct shell_words *sw)
{
	static char buf[SHELL_REDIRECT_MAX + 1];
	struct buf_printer bp;
	int ret, err;

	err = vfs_open_write(sw->redirect);
	if (err) {
		pr_printf(out, "%s: %s\n", sw->redirect, err_text(err));
		return err;
	}

	buf_printer_init(&bp, buf, sizeof(buf));
	ret = cmd->fn(&bp.p, sw->argc, sw->argv);
	if (ret < 0) {
		out->write(out, bp.buf, bp.len);
		return ret;
	}
	if (bp.overflow)
		err = -ENOSPC;
	else if (bp.len)
		err = vfs_write(sw->redirect, bp.buf, bp.len);
	if (err) {
		pr_printf(out, "%s: write error: %s\n", sw->argv[0], err_text(err));
		return err;
	}
	return ret;
}

const struct shell_cmd *shell_classify(const char *line, bool *background)
{
	static char copy[SHELL_MAX_LINE];
	struct shell_words sw;
	const struct shell_cmd *cmd;

	*background = false;
	strlcpy(copy, line, sizeof(copy));
	if (shell_split(copy, &sw) <= 0)
		return NULL;		/* blank, or shell_execute() says why */
	*background = sw.background;
	cmd = shell_find(sw.argv[0]);
	if (!cmd || !cmd->runs_long || sw.redirect)
		return NULL;
	return cmd->runs_long(sw.argc, sw.argv) ? cmd : NULL;
}

int shell_execute(struct printer *out, char *line)
{
	struct shell_words sw;
	const struct shell_cmd *cmd;
	int ret;

	ret = shell_split(line, &sw);
	if (ret < 0) {
		pr_printf(out, "error: %s\n", sw.error);
		return ret;
	}
	if (sw.argc == 0)
		return 0;

	cmd = shell_find(sw.argv[0]);
	if (!cmd) {
		pr_printf(out, "%s: command not found\n"
			  "type 'help' for a list of commands\n", sw.argv[0]);
		return -ENOENT;
	}
	if (sw.redirect)
		return run_redirected(out, cmd, &sw);
	return cmd->fn(out, sw.argc, sw.argv);
}

/*
 * The held printer (contract in shell.h): output collects in buf and goes
 * to `to` in whole lines, when more than SHELL_HOLD_FLUSH bytes are
 * waiting and at the end.  Log lines printed meanwhile (a trace) go to the
 * console at once, so they come before the command's output, never inside
 * one of its tables (unless a command prints more than the buffer holds).
 */
#define SHELL_HOLD_FLUSH	6144

static void held_flush(struct shell_held *h, bool all)
{
	size_t n = h->len;

	if (!all)
		while (n && h->buf[n - 1] != '\n')
			n--;			/* whole lines only */
	if (!n)
		n = h->len;			/* one line longer than the buffer */
	h->to->write(h->to, h->buf, n);
	memmove(h->buf, h->buf + n, h->len - n);
	h->len -= n;
}

static void held_write(struct printer *p, const char *s, size_t len)
{
	struct shell_held *h = (struct shell_held *)p;

	while (len) {
		size_t n = MIN(len, sizeof(h->buf) - h->len);

		memcpy(h->buf + h->len, s, n);
		h->len += n;
		s += n;
		len -= n;
		if (h->len > SHELL_HOLD_FLUSH)
			held_flush(h, h->len == sizeof(h->buf));
	}
}

void shell_held_init(struct shell_held *h, struct printer *to)
{
	h->p.write = held_write;
	h->to = to;
	h->len = 0;
}

void shell_held_flush(struct shell_held *h)
{
	if (h->len)
		held_flush(h, true);
}

int shell_execute_held(struct printer *out, char *line)
{
	static struct shell_held h;
	int ret;

	shell_held_init(&h, out);
	ret = shell_execute(&h.p, line);
	shell_held_flush(&h);
	return ret;
}

/* Order of `help`: by name, ties (duplicate names) by table position. */
static bool cmd_before(const struct shell_cmd *a, const struct shell_cmd *b)
{
	int d = strcmp(a->name, b->name);

	return d < 0 || (d == 0 && a < b);
}

/*
 * List every command sorted by name without sorting the table (it is
 * read-only) or allocating: each round picks the smallest command after the
 * one printed last.  Quadratic, which is nothing for a few dozen commands.
 */
static void help_list(struct printer *out)
{
	const struct shell_cmd *prev = NULL;
	int width = 0;

	for (const struct shell_cmd *c = __start_shell_cmds; c < __stop_shell_cmds; c++)
		width = MAX(width, (int)strlen(c->name));

	for (;;) {
		const struct shell_cmd *next = NULL;

		for (const struct shell_cmd *c = __start_shell_cmds; c < __stop_shell_cmds; c++) {
			if (prev && !cmd_before(prev, c))
				continue;
			if (!next || cmd_before(c, next))
				next = c;
		}
		if (!next)
			break;
		pr_printf(out, "%-*s  %s\n", width, next->name,
			  next->summary ? next->summary : "");
		prev = next;
	}
}

static int cmd_help(struct printer *out, int argc, char **argv)
{
	const struct shell_cmd *cmd;

	if (argc == 1) {
		help_list(out);
		return 0;
	}
	if (argc != 2)
		return shell_usage(out, shell_find("help"));

	cmd = shell_find(argv[1]);
	if (!cmd) {
		pr_printf(out, "help: no command named '%s'\n"
			  "type 'help' for a list of commands\n", argv[1]);
		return -ENOENT;
	}
	pr_printf(out, "usage: %s\n", cmd->usage);
	if (cmd->summary)
		pr_printf(out, "%s\n", cmd->summary);
	if (cmd->help && cmd->help[0]) {
		size_t len = strlen(cmd->help);

		pr_printf(out, "\n%s%s", cmd->help, cmd->help[len - 1] == '\n' ? "" : "\n");
	}
	return 0;
}

SHELL_COMMAND(help,
	.name = "help",
	.usage = "help [COMMAND]",
	.summary = "list the commands, or explain one",
	.help = "Without COMMAND, print every command with a one-line summary.\n"
		"With COMMAND, print its usage line and what it does.",
	.fn = cmd_help);

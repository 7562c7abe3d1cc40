/*
 * shell.h - commands of the serial shell.
 *
 * A command is a struct shell_cmd placed in the "shell_cmds" link section by
 * SHELL_COMMAND(), so `help` finds every command without a central list.
 * Commands live in shell/ only: they parse arguments and format, and reach
 * a mechanism through its API and its *_dump(struct printer *) views.  The shell splits a line into words (double quotes group words,
 * backslash escapes the next byte), looks the first word up, and calls fn.
 *
 * fn writes its output to `out` and returns 0 on success or a negative errno;
 * on failure it has already printed a line that says why (prefixed with the
 * command name, e.g. "cat: /proc/x: No such file or directory").  A positive
 * value means "false" without an error, like grep's exit status 1 when no
 * line matched; nothing is printed for it.
 *
 * `CMD ARGS > FILE` (or `>FILE`, or `>>`, which is the same for virtual
 * files) runs CMD into a buffer and writes that output to FILE with one
 * vfs_write(), as bash does for `echo 1 > /sys/...`: FILE must exist and be
 * writable ("FILE: No such file or directory", "FILE: Permission denied"),
 * and a rejected write prints "CMD: write error: <reason>".
 * shell_usage() prints the "usage:" line for wrong arguments and returns
 * -EINVAL.
 *
 * Context: main loop only.
 */
#ifndef SHELL_SHELL_H
#define SHELL_SHELL_H

#include <lib/types.h>
#include <lib/printer.h>
#include <lib/kstrtox.h>	/* parse_u64(), for the commands */

#define SHELL_MAX_LINE	256	/* bytes in one input line, NUL included */
#define SHELL_MAX_ARGS	32	/* words in one line */

struct shell_cmd {
	const char *name;	/* the word that runs it */
	const char *usage;	/* "grep PATTERN FILE": the synopsis */
	const char *summary;	/* one line for `help` */
	const char *help;	/* details for `help NAME`; may be NULL */
	int (*fn)(struct printer *out, int argc, char **argv); /* argv[0] = name */
};

#define SHELL_COMMAND(ident, ...)					\
	static const struct shell_cmd shell_cmd_##ident			\
	__used __section("shell_cmds") __aligned(8) = { __VA_ARGS__ }

/* The command table, in link order (the shell sorts for `help`). */
extern const struct shell_cmd __start_shell_cmds[];
extern const struct shell_cmd __stop_shell_cmds[];

/* shell_find() - the command named name, or NULL. */
const struct shell_cmd *shell_find(const char *name);

/* shell_usage() - print "usage: <cmd->usage>" to out; returns -EINVAL. */
int shell_usage(struct printer *out, const struct shell_cmd *cmd);

/* The words of one line, as shell_split() leaves them. */
struct shell_words {
	int argc;			/* words in argv[] */
	char *argv[SHELL_MAX_ARGS + 1];	/* the words, then NULL */
	char *redirect;			/* the FILE of "> FILE", or NULL */
	const char *error;		/* why splitting failed, for the user */
};

/*
 * shell_split() - split line in place into words: blanks (space, tab)
 * separate words; "..." groups blanks and '>' into one word; a backslash
 * makes the next byte literal (inside quotes too); an unquoted '>' ends the
 * word before it and takes the following word as the redirection target.
 * Returns argc (0 for a blank line), or -E2BIG for more than SHELL_MAX_ARGS
 * words, or -EINVAL for a missing closing quote, a '>' without a file, a
 * second '>', '>' without a command, or an unquoted '|' or '<'; w->error
 * then says which in words.
 */
int shell_split(char *line, struct shell_words *w);

/*
 * shell_execute() - split line (modified in place) and run it, printing to
 * out.  Empty lines do nothing.  Returns the command's result, or -ENOENT
 * for an unknown command (after printing "NAME: command not found"), or
 * shell_split()'s error (after printing "error: <why>").
 * Not reentrant: a command must not call shell_execute().
 */
int shell_execute(struct printer *out, char *line);

/*
 * shell_execute_held() - shell_execute() with the command's output held
 * back and written to out in whole lines (at the end, or 6 KiB at a time),
 * so log lines printed while it runs (a mechanism's trace) come before it
 * instead of splitting its tables.  The interactive shell uses it while a
 * trace is on.  Context: main loop; not reentrant.
 */
int shell_execute_held(struct printer *out, char *line);

/*
 * shell_interrupted() - has the user typed Ctrl-C since the command began?
 * Long commands call it from their loops and stop at a consistent point
 * (what was done stays done, or is undone, as each command documents),
 * print "interrupted" and return -EINTR.  It asks shell_interrupt_check,
 * which shell_run() points at console_interrupted() (other typed bytes are
 * kept for the prompt); with none set (host tests) it says false.
 * Context: (main).
 */
bool shell_interrupted(void);
extern bool (*shell_interrupt_check)(void);

/* shell_run() - the interactive loop on the console: prompt, edit, run. */
void shell_run(void) __noreturn;


#endif

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

struct longop;

#define SHELL_MAX_LINE	256	/* bytes in one input line, NUL included */
#define SHELL_MAX_ARGS	32	/* words in one line */

struct shell_cmd {
	const char *name;	/* the word that runs it */
	const char *usage;	/* "grep PATTERN FILE": the synopsis */
	const char *summary;	/* one line for `help` */
	const char *help;	/* details for `help NAME`; may be NULL */
	int (*fn)(struct printer *out, int argc, char **argv); /* argv[0] = name */
	/*
	 * runs_long() - may this invocation take long (its cost grows with
	 * memory)?  Then the interactive shell runs it as a job
	 * (shell_job.c): on a stack of its own, in slices, so the console and
	 * the long operations go on meanwhile; fn must then reach
	 * shell_checkpoint() often, at points where what it changed is
	 * consistent.  NULL: never long.
	 */
	bool (*runs_long)(int argc, char **argv);
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
	bool background;		/* the line ended with '&' */
	const char *error;		/* why splitting failed, for the user */
};

/* shell_always_long() - a runs_long() for commands that are always long. */
bool shell_always_long(int argc, char **argv);

/*
 * shell_split() - split line in place into words: blanks (space, tab)
 * separate words; "..." groups blanks and '>' into one word; a backslash
 * makes the next byte literal (inside quotes too); an unquoted '>' ends the
 * word before it and takes the following word as the redirection target;
 * an unquoted '&' that only blanks follow sets w->background (a long
 * command then runs in the background).
 * Returns argc (0 for a blank line), or -E2BIG for more than SHELL_MAX_ARGS
 * words, or -EINVAL for a missing closing quote, a '>' without a file, a
 * second '>', '>' without a command, an unquoted '|' or '<', an '&'
 * before the end of the line or without a command; w->error then says
 * which in words.
 */
int shell_split(char *line, struct shell_words *w);

/*
 * shell_classify() - how the interactive shell runs line (not modified):
 * the command, when line names one whose runs_long() says this invocation
 * is long and it has no "> FILE" (a redirected line runs directly, as the
 * write needs its whole output), else NULL; *background says whether the
 * line ended with '&' (ignored for a command that is not long: it runs at
 * once).  Context: the main loop (a static scratch copy of the line).
 */
const struct shell_cmd *shell_classify(const char *line, bool *background);

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
 * The printer behind shell_execute_held(), for a caller that runs a command
 * its own way (a foreground job while a trace is on): write to h.p; output
 * reaches `to` in whole lines once more than 6 KiB wait, the rest at
 * shell_held_flush().
 */
#define SHELL_HOLD_SIZE		8192
struct shell_held {
	struct printer p;	/* first: the write callback casts */
	struct printer *to;	/* where held lines go */
	size_t len;		/* bytes held in buf */
	char buf[SHELL_HOLD_SIZE];
};
void shell_held_init(struct shell_held *h, struct printer *to);
void shell_held_flush(struct shell_held *h);

/*
 * Long commands and jobs.  A long command (runs_long()) runs as a job: on
 * a stack of its own, in turns of about LONGOP_SLICE_NS given by the main
 * loop, in the foreground (the prompt waits for it; Ctrl-C asks it to
 * stop, Ctrl-Z stops it until `fg` or `bg`) or, with '&', in the background
 * (the prompt comes back at once).  Its code asks three questions:
 *
 * shell_checkpoint() - a point where the command may pause: when its turn
 * is over it yields here, and the console, the pollers and the long
 * operations run before it goes on.  Call it only where everything the
 * command changed is consistent (a block onlined, a round measured), and
 * re-check after it what others may have changed meanwhile.  Returns true
 * when the user asked the command to stop (Ctrl-C, `kill`): it should
 * stop at a consistent point (what was done stays done, or is undone, as
 * each command documents), print "interrupted" and return -EINTR.
 *
 * shell_stop_requested() - the same answer without pausing, for loops
 * that must finish a unit first (see shell_turn_over()).
 *
 * shell_turn_over() - without pausing: should the command reach a
 * checkpoint now (its turn is over, or it was asked to stop)?  For a loop
 * inside mm/ that cannot pause in the middle: it stops, returns, and the
 * command calls shell_checkpoint() outside it.
 *
 * Outside a job (the host tests; a command that is not long) nothing
 * pauses: shell_checkpoint() and shell_stop_requested() ask
 * shell_interrupt_check (the kernel points it at console_interrupted(),
 * which keeps other typed bytes for the prompt; with none set, false) and
 * shell_turn_over() says false.
 *
 * shell_yield() - end the turn now, whatever time is left: a job that
 * waits for other work (a device's round) lets it run.  Outside a job it
 * does nothing.
 *
 * shell_progress() tells the job's entry in `work` its done/total;
 * outside a job it does nothing.  shell_claim_range() claims the physical
 * range [start, end) in mm for the job (include/mm/range_claim.h: mm then
 * refuses to change that memory for anyone else) and returns 0, or -EBUSY
 * when another holder has memory there; outside a job it claims nothing
 * and says only whether another holder has memory there.
 * shell_job_longop() is the job's entry, or NULL outside a job.  (A job's
 * own range never stops it: while it runs it is mm's current holder.)
 *
 * Context: (main) or the command's job.
 */
bool shell_checkpoint(void);
bool shell_stop_requested(void);
bool shell_turn_over(void);
void shell_yield(void);
void shell_progress(u64 done, u64 total, const char *unit);
int shell_claim_range(u64 start, u64 end);
struct longop *shell_job_longop(void);

/*
 * shell_range_busy() - when another holder has memory in the physical
 * range [start, end) (include/mm/range_claim.h; not the job asking), say
 * so on out and return -EBUSY; else 0 and nothing said.  The one message
 * every command gives for memory another operation works on:
 *   "<head><holder> is working on <what>[ (D/T UNIT done)]; try again when
 *   `work` no longer lists it"
 * with the holder's progress when progress is set and the holder is a
 * long operation.  head ends in its own separator ("cma alloc: ").
 * Context: (main) or the command's job.
 */
int shell_range_busy(struct printer *out, u64 start, u64 end, const char *head,
		     const char *what, bool progress);

/* The non-job answer to "was Ctrl-C typed?" (see above). */
extern bool (*shell_interrupt_check)(void);

/*
 * What a running job shows the commands (filled by shell_job.c): its
 * `work` entry, whether it was asked to stop, and how it pauses.
 */
struct shell_job_ctl {
	struct longop *op;		/* its entry in `work` */
	bool cancel;			/* Ctrl-C or `kill`: stop at the next checkpoint */
	bool (*turn_over)(void);	/* its turn has ended */
	void (*yield)(void);		/* end its turn; returns at its next one */
};

/* shell_current_job - the job the caller runs in, or NULL (also when NULL
 * itself: no job support, as in the host tests). */
extern struct shell_job_ctl *(*shell_current_job)(void);

/* shell_run() - the interactive loop on the console: prompt, edit, run. */
void shell_run(void) __noreturn;


#endif

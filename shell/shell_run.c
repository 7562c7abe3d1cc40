/*
 * shell_run.c - the interactive shell on the serial console.
 *
 * Kept apart from shell.c because it never returns and reads the console:
 * everything it calls (the line editor, shell_execute) is portable and
 * tested on the host; this loop is the only glue.
 */
#include <shell/shell.h>
#include <shell/line_edit.h>
#include <shell/job.h>
#include <kernel/console.h>
#include <lib/printk.h>
#include <mm/mech_bench.h>
#include <mm/mechanisms.h>

#define SHELL_PROMPT	"memlab> "

_Static_assert(LINE_EDIT_MAX == SHELL_MAX_LINE, "the editor's line is the shell's line");

/* Static, not on the stack: the editor carries its 4 KiB history. */
static struct line_edit shell_editor;

/*
 * Run one entered line: a long command as the job (shell_job.c), in the
 * foreground or, with '&', the background; any other directly, its output
 * held while a trace is on so trace lines stay out of its tables.
 */
static void shell_run_line(struct printer *out, char *line)
{
	bool background;
	const struct shell_cmd *cmd = shell_classify(line, &background);

	shell_job_report(out);
	if (cmd)
		shell_job_run_line(out, cmd, line, background);
	else if (mech_any_tracing())
		shell_execute_held(out, line);
	else
		shell_execute(out, line);
}

/*
 * shell_run() - prompt, read one line through the editor, run it, forever.
 * Context: the main loop, once everything else is initialised.
 */
void shell_run(void)
{
	struct printer *out = &console_printer;
	struct line_edit *le = &shell_editor;

	line_edit_init(le, out);
	shell_interrupt_check = console_interrupted;
	mech_bench_set_checkpoint(shell_checkpoint);	/* mm's bench loops pause and ask too */
	shell_job_init();
	for (;;) {
		enum line_event ev;

		shell_job_report(out);		/* a background job that ended */
		pr_puts(out, SHELL_PROMPT);
		do {
			ev = line_edit_feed(le, console_getc());
		} while (ev == LINE_NONE);

		if (ev == LINE_DONE)
			shell_run_line(out, le->buf);
		else if (ev == LINE_TOO_LONG)
			pr_printf(out, "error: line too long (max %d characters)\n",
				  SHELL_MAX_LINE - 1);
	}
}

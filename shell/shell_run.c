/*
 * shell_run.c - the interactive shell on the serial console.
 *
 * Kept apart from shell.c because it never returns and reads the console:
 * everything it calls (the line editor, shell_execute) is portable and
 * tested on the host; this loop is the only glue.
 */
#include <shell/shell.h>
#include <shell/line_edit.h>
#include <kernel/console.h>
#include <lib/printk.h>
#include <mm/mech_bench.h>
#include <mm/mechanisms.h>

#define SHELL_PROMPT	"memlab> "

_Static_assert(LINE_EDIT_MAX == SHELL_MAX_LINE, "the editor's line is the shell's line");

/* Static, not on the stack: the editor carries its 4 KiB history. */
static struct line_edit shell_editor;

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
	mech_bench_set_interrupt(shell_interrupted);	/* mm's bench loops ask too */
	for (;;) {
		enum line_event ev;

		pr_puts(out, SHELL_PROMPT);
		do {
			ev = line_edit_feed(le, console_getc());
		} while (ev == LINE_NONE);

		if (ev == LINE_DONE && mech_any_tracing())
			shell_execute_held(out, le->buf);	/* trace lines stay out of tables */
		else if (ev == LINE_DONE)
			shell_execute(out, le->buf);
		else if (ev == LINE_TOO_LONG)
			pr_printf(out, "error: line too long (max %d characters)\n",
				  SHELL_MAX_LINE - 1);
	}
}

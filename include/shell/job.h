/*
 * job.h - long shell commands as jobs (shell/shell_job.c), for the
 * interactive loop (shell_run.c).
 *
 * A line whose command says it is long (shell_classify()) runs as the
 * shell's job: a kthread on the job stack, given turns by the main loop as
 * a long operation named "job [N] LINE" in `work`.  One job exists at a
 * time: long commands share state (the benchmarks' tables, the blocks
 * they online), so a second one is refused while the first runs.
 *
 * In the foreground the prompt waits for the job, but the main loop goes
 * on (pollers, hotplug, other long operations); Ctrl-C asks the job to
 * stop at its next checkpoint, Ctrl-Z stops it (no more turns, its range
 * still held) until `fg` or `bg`.  In the
 * background (a line ending in '&', or after `bg`) the prompt is free
 * and the job's output is kept (its first and last lines, 16 KiB) until it
 * ends: the shell then prints "[N] done: LINE" and the output before the
 * next prompt, as bash reports a finished background job.  `jobs` lists
 * it, `fg` waits for it again, `kill` asks it to stop.
 *
 * Context: (main): the interactive loop only.
 */
#ifndef SHELL_JOB_H
#define SHELL_JOB_H

#include <lib/types.h>
#include <lib/printer.h>

struct shell_cmd;

/* The job stack's size: as large as the main loop's own stack. */
#define SHELL_JOB_STACK		(32 * 1024)

/*
 * shell_job_init() - map the job stack (kernel image memory) a second time
 * with an unmapped guard page below; hook the job into shell.h's
 * checkpoints.  Returns 0 or -ENOMEM (long commands then run directly,
 * blocking the console, and the boot log says so).
 */
int shell_job_init(void);

/*
 * shell_job_run_line() - run line, whose command cmd is long, as the job:
 * in the foreground (waiting for it, Ctrl-C and Ctrl-Z read) or in the
 * background.  Refused, with a line that says why, while another job
 * exists.  Without a job stack the line runs directly.
 */
void shell_job_run_line(struct printer *out, const struct shell_cmd *cmd, const char *line,
			bool background);

/*
 * shell_job_report() - if a background job has ended, print "[N] done:
 * LINE" (or "failed"/"interrupted") and the output it kept, and free the
 * job.  The loop calls it before every prompt and before running a line.
 */
void shell_job_report(struct printer *out);

#endif

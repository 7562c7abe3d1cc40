/*
 * shell_job.c - long shell commands as jobs: the command runs as a kthread
 * (kernel/kthread.c) on the job stack, and the main loop gives it turns as
 * one more long operation (kernel/longop.c), so the console, the pollers
 * and the device operations go on while it works.  Contract and the user's
 * view: include/shell/job.h; the checkpoints the command calls:
 * include/shell/shell.h.
 *
 * Why a thread here when every device operation is a step function: a
 * device operation's place is a cursor (the next memory block), but a
 * command's place is its call chain, a benchmark's loops and the table it
 * is halfway through printing.  Rewriting each command as a state machine
 * would turn a page of straight code into a maze; a stack of its own keeps
 * the code as it reads, and the command still stops only where it says
 * (shell_checkpoint()), so nothing else ever sees it in the middle of a
 * step.  docs/long-operations.md says more.
 *
 * The job's life: FREE -> RUNNING (shell_job_run_line) -> ENDED (its
 * command returned: job_step) -> FREE, at once in the foreground, or after
 * shell_job_report() printed a background job's end.  job_set_state() is
 * the one place the state changes.
 *
 * Context: (main), except the hooks the command calls from the job.
 */
#include <shell/job.h>
#include <shell/shell.h>
#include <kernel/console.h>
#include <kernel/kthread.h>
#include <kernel/longop.h>
#include <kernel/time.h>
#include <arch/paging.h>
#include <arch/sections.h>
#include <arch/traps.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <mm/mechanisms.h>

/* A background job's output: the first JOB_KEEP_HEAD bytes and the latest. */
#define JOB_KEEP_SIZE	16384
#define JOB_KEEP_HEAD	2048

struct job_kept {
	char buf[JOB_KEEP_SIZE];
	size_t len;		/* bytes in buf */
	size_t cut;		/* where bytes were dropped (once dropped > 0) */
	u64 dropped;		/* bytes dropped at cut, oldest after the head first */
};

enum job_state { JOB_FREE, JOB_RUNNING, JOB_ENDED };

struct shell_job {
	unsigned id;			/* [N]: counts every job since boot */
	enum job_state state;
	bool foreground;		/* the prompt waits for it */
	bool stopped;			/* Ctrl-Z: no turns until `fg`, `bg` or `kill` */
	bool holding;			/* foreground output held (a trace is on) */
	int result;			/* the command's return value, once ENDED */
	u64 start_ns, end_ns;		/* ktime_ns() at start and end */
	char line[SHELL_MAX_LINE];	/* the line as shown: without the '&' */
	char words[SHELL_MAX_LINE];	/* the copy shell_execute() splits */
	char name[64];			/* "job [N] LINE", its name in `work` */
	struct shell_job_ctl ctl;	/* what the command sees (shell.h) */
	struct longop op;		/* its turns, progress and busy range */
	struct kthread thread;		/* the command's stack and place */
	struct printer p;		/* the command writes here (job_write) */
	struct printer *console;	/* the interactive loop's printer */
	struct shell_held held;		/* foreground output while holding */
	struct job_kept kept;		/* background output */
};

static struct shell_job job;		/* one job at a time: job.h says why */
/*
 * The job stack lives in the kernel image, not in the buddy: a stack taken
 * from the buddy at boot would be an unmovable page in the first pageblock,
 * in the way of every `contig alloc` and buddy experiment down there.  The
 * job runs on a second mapping of it (job_stack) whose page below is not
 * mapped, so an overflow faults instead of writing over the image.
 */
static char job_stack_image[SHELL_JOB_STACK] __attribute__((aligned(PAGE_SIZE)));
static void *job_stack;			/* its mapping, guard page below */
static unsigned last_job_id;

/* ---- output ----------------------------------------------------------------- */

/* Make room in k: drop the oldest quarter after the head, up to a line end. */
static void kept_drop(struct job_kept *k)
{
	size_t from, to;

	if (!k->dropped) {
		from = JOB_KEEP_HEAD;
		while (from > 0 && k->buf[from - 1] != '\n')
			from--;
		k->cut = from ? from : JOB_KEEP_HEAD;
	}
	from = k->cut;
	to = from + (k->len - from) / 4;
	while (to < k->len && k->buf[to - 1] != '\n')
		to++;
	if (to == k->len)
		to = from + (k->len - from) / 4;	/* one endless line: cut it */
	memmove(k->buf + from, k->buf + to, k->len - to);
	k->len -= to - from;
	k->dropped += to - from;
}

static void kept_write(struct job_kept *k, const char *s, size_t len)
{
	while (len) {
		size_t n;

		if (k->len == sizeof(k->buf))
			kept_drop(k);
		n = MIN(len, sizeof(k->buf) - k->len);
		memcpy(k->buf + k->len, s, n);
		k->len += n;
		s += n;
		len -= n;
	}
}

/* Print what k kept, saying how much was dropped and where; empty it. */
static void kept_print(struct job_kept *k, struct printer *out)
{
	size_t head = k->dropped ? k->cut : k->len;

	out->write(out, k->buf, head);
	if (k->dropped) {
		pr_printf(out, "[... %llu bytes of output not kept ...]\n",
			  (unsigned long long)k->dropped);
		out->write(out, k->buf + head, k->len - head);
	}
	k->len = 0;
	k->cut = 0;
	k->dropped = 0;
}

/* The command's printer: straight to the console in the foreground (held
 * while a trace is on, as shell_execute_held() does), kept in the
 * background. */
static void job_write(struct printer *p, const char *s, size_t len)
{
	struct shell_job *j = container_of(p, struct shell_job, p);

	if (!j->foreground)
		kept_write(&j->kept, s, len);
	else if (j->holding)
		j->held.p.write(&j->held.p, s, len);
	else
		j->console->write(j->console, s, len);
}

/* ---- state -------------------------------------------------------------------- */

static void job_set_state(struct shell_job *j, enum job_state state)
{
	j->state = state;
	if (state == JOB_ENDED)
		j->end_ns = ktime_ns();
}

static void job_to_background(struct shell_job *j)
{
	if (j->holding)
		shell_held_flush(&j->held);
	j->holding = false;
	j->foreground = false;
	j->op.foreground = false;	/* `work pause` holds it again */
}

static void job_to_foreground(struct shell_job *j)
{
	kept_print(&j->kept, j->console);
	j->foreground = true;
	j->op.foreground = true;	/* the prompt waits for it: never held */
	j->holding = mech_any_tracing();
	if (j->holding)
		shell_held_init(&j->held, j->console);
}

/* The hooks of shell.h's checkpoints: the job's controls, when the caller
 * runs on the job's stack. */
static struct shell_job_ctl *job_ctl(void)
{
	return job_stack && kthread_current() == &job.thread ? &job.ctl : NULL;
}

static bool job_turn_over(void)
{
	return kthread_turn_over();
}

static void job_yield(void)
{
	kthread_yield();
}

/* The bottom of the job's stack: run the line. */
static void job_main(void *arg)
{
	struct shell_job *j = arg;

	j->result = shell_execute(&j->p, j->words);
}

/* The job's long operation: one turn of the thread (none while stopped:
 * it waits at its checkpoint, holding its range). */
static bool job_step(struct longop *op, u64 deadline_ns)
{
	struct shell_job *j = container_of(op, struct shell_job, op);

	if (j->stopped) {
		op->waiting = true;
		return true;
	}
	if (kthread_run(&j->thread, deadline_ns))
		return true;
	job_set_state(j, JOB_ENDED);
	return false;
}

/* ---- the interactive loop's calls (job.h) ---------------------------------------- */

int shell_job_init(void)
{
	/* a second mapping, in the ioremap area: the page below it is unmapped */
	job_stack = ioremap(kernel_pa(job_stack_image), SHELL_JOB_STACK, IOREMAP_WB);
	if (!job_stack) {
		pr_warn("shell: cannot map the job stack: long commands will block the console");
		return -ENOMEM;
	}
	traps_add_stack((u64)(uintptr_t)job_stack, (u64)(uintptr_t)job_stack + SHELL_JOB_STACK);
	job.ctl.op = &job.op;
	job.ctl.turn_over = job_turn_over;
	job.ctl.yield = job_yield;
	job.op.step = job_step;
	job.op.name = job.name;
	job.p.write = job_write;
	shell_current_job = job_ctl;
	return 0;
}

/* line as shown: trailing blanks and the '&' taken off. */
static void job_set_line(struct shell_job *j, const char *line)
{
	size_t n;

	strlcpy(j->line, line, sizeof(j->line));
	n = strlen(j->line);
	while (n && (j->line[n - 1] == ' ' || j->line[n - 1] == '\t'))
		n--;
	if (n && j->line[n - 1] == '&')
		n--;
	while (n && (j->line[n - 1] == ' ' || j->line[n - 1] == '\t'))
		n--;
	j->line[n] = '\0';
}

/*
 * Wait while j runs in the foreground: the main loop goes on (console_idle
 * gives the job its turns), Ctrl-C asks it to stop, Ctrl-Z stops it where
 * it is (between two turns, so at a checkpoint) and lets the prompt go.
 * Other typed bytes wait for the prompt.
 */
static void job_wait(struct shell_job *j)
{
	for (;;) {
		unsigned keys;

		console_idle();		/* first a turn: a job stopped at once holds its range */
		if (j->state != JOB_RUNNING || !j->foreground)
			break;
		keys = console_read_controls();
		if ((keys & CONSOLE_SAW_INTR) && !j->ctl.cancel) {
			j->ctl.cancel = true;
			pr_puts(j->console, "^C\n");
		}
		if (keys & CONSOLE_SAW_SUSP) {
			j->stopped = true;
			job_to_background(j);
			pr_printf(j->console, "^Z\n[%u] stopped: %s (`fg` or `bg` goes on with it, "
				  "`kill %u` ends it)\n", j->id, j->line, j->id);
			return;
		}
	}
	if (j->state == JOB_ENDED && j->foreground) {
		if (j->holding)
			shell_held_flush(&j->held);
		job_set_state(j, JOB_FREE);
	}
}

void shell_job_run_line(struct printer *out, const struct shell_cmd *cmd, const char *line,
			bool background)
{
	struct shell_job *j = &job;

	if (!job_stack) {
		char copy[SHELL_MAX_LINE];

		strlcpy(copy, line, sizeof(copy));
		shell_execute(out, copy);
		return;
	}
	if (j->state != JOB_FREE) {
		pr_printf(out, "%s: job [%u] (%s) is %s: one long command at a time; "
			  "`fg` waits for it, `kill %u` stops it\n", cmd->name, j->id, j->line,
			  j->stopped ? "stopped" : "still running", j->id);
		return;
	}
	j->id = ++last_job_id;
	j->console = out;
	j->result = 0;
	j->start_ns = ktime_ns();
	j->ctl.cancel = false;
	job_set_line(j, line);
	strlcpy(j->words, line, sizeof(j->words));
	ksnprintf(j->name, sizeof(j->name), "job [%u] %s", j->id, j->line);
	j->op.unit = NULL;
	j->op.done = 0;
	j->op.total = 0;
	range_release(&j->op.claim);	/* (released when the last job ended) */
	j->foreground = false;
	j->op.foreground = !background;	/* `work pause` never holds a foreground one */
	j->stopped = false;
	j->holding = false;
	j->kept.len = 0;
	j->kept.dropped = 0;
	kthread_init(&j->thread, j->name, job_stack, SHELL_JOB_STACK, job_main, j);
	job_set_state(j, JOB_RUNNING);
	longop_start(&j->op);
	if (background) {
		pr_printf(out, "[%u] %s: running in the background (`jobs`, `fg`, `kill %u`)\n",
			  j->id, j->line, j->id);
		return;
	}
	job_to_foreground(j);
	job_wait(j);
}

/* How a job ended, in a word or two. */
static void print_ending(struct printer *out, const struct shell_job *j)
{
	u64 ms = (j->end_ns - j->start_ns) / 1000000;

	pr_printf(out, "[%u] ", j->id);
	if (j->result == -EINTR)
		pr_printf(out, "interrupted");
	else if (j->result < 0)
		pr_printf(out, "failed (%s)", err_text(j->result));
	else
		pr_printf(out, "done");
	pr_printf(out, " after %llu.%03llu s: %s\n", (unsigned long long)(ms / 1000),
		  (unsigned long long)(ms % 1000), j->line);
}

void shell_job_report(struct printer *out)
{
	struct shell_job *j = &job;

	if (j->state != JOB_ENDED || j->foreground)
		return;
	print_ending(out, j);
	kept_print(&j->kept, out);
	job_set_state(j, JOB_FREE);
}

/* ---- jobs, fg, kill ------------------------------------------------------------------ */

/*
 * The job a `fg`/`kill` argument names: none (the job), N or %N.  NULL,
 * after saying why, when there is no such running job.
 */
static struct shell_job *job_arg(struct printer *out, const char *cmd, int argc, char **argv)
{
	struct shell_job *j = &job;
	u64 id;

	if (argc > 2) {
		shell_usage(out, shell_find(cmd));
		return NULL;
	}
	if (argc == 2) {
		const char *a = argv[1][0] == '%' ? argv[1] + 1 : argv[1];

		if (parse_u64(a, &id)) {
			pr_printf(out, "%s: %s: not a job number (`jobs` lists them)\n", cmd, argv[1]);
			return NULL;
		}
		if (j->state != JOB_RUNNING || id != j->id) {
			pr_printf(out, "%s: no job [%llu]%s\n", cmd, (unsigned long long)id,
				  j->state == JOB_RUNNING ? " (`jobs` lists the one running)" : "");
			return NULL;
		}
	}
	if (j->state != JOB_RUNNING) {
		pr_printf(out, "%s: no job is running\n", cmd);
		return NULL;
	}
	return j;
}

static int cmd_jobs(struct printer *out, int argc, char **argv)
{
	const struct shell_job *j = &job;
	u64 ms;

	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("jobs"));
	if (j->state != JOB_RUNNING) {
		pr_printf(out, "no jobs\n");
		return 0;
	}
	ms = (ktime_ns() - j->start_ns) / 1000000;
	pr_printf(out, "[%u] %s for %llu.%03llu s: %s", j->id,
		  j->stopped ? "stopped" : j->foreground ? "running in the foreground" :
		  "running in the background", (unsigned long long)(ms / 1000),
		  (unsigned long long)(ms % 1000), j->line);
	if (j->op.total)
		pr_printf(out, " (%llu/%llu %s)", (unsigned long long)j->op.done,
			  (unsigned long long)j->op.total, j->op.unit ? j->op.unit : "units");
	pr_printf(out, "%s\n", j->ctl.cancel ? ", asked to stop" : "");
	return 0;
}

SHELL_COMMAND(jobs, .name = "jobs", .usage = "jobs",
	      .summary = "the long command running as a job: in the background or stopped",
	      .help = "A long command (bench, memory online/offline N-M, contig alloc,\n"
		      "meminit finish, ...) runs as a job: the console and the hotplug\n"
		      "work go on while it runs.  End a line with '&' to run it in the\n"
		      "background.  Ctrl-Z stops a foreground job where it is (it keeps\n"
		      "what it holds); `bg` lets it go on in the background, `fg` in the\n"
		      "foreground.  Ctrl-C or `kill` asks it to stop at its next\n"
		      "checkpoint.  One job exists at a time.  A background job's output\n"
		      "is printed when it ends, before the next prompt.",
	      .fn = cmd_jobs);

static int cmd_fg(struct printer *out, int argc, char **argv)
{
	struct shell_job *j = job_arg(out, "fg", argc, argv);

	if (!j)
		return -ESRCH;
	if (j->foreground) {
		pr_printf(out, "fg: job [%u] is in the foreground already\n", j->id);
		return 0;
	}
	pr_printf(out, "%s\n", j->line);
	j->stopped = false;
	job_to_foreground(j);
	job_wait(j);
	return 0;
}

SHELL_COMMAND(fg, .name = "fg", .usage = "fg [N|%N]",
	      .summary = "go on with the background or stopped job in the foreground",
	      .help = "Prints the output the job kept so far, then the rest as it comes;\n"
		      "a stopped job goes on.",
	      .fn = cmd_fg);

static int cmd_bg(struct printer *out, int argc, char **argv)
{
	struct shell_job *j = job_arg(out, "bg", argc, argv);

	if (!j)
		return -ESRCH;
	if (!j->stopped) {
		pr_printf(out, "bg: job [%u] is running in the background already\n", j->id);
		return 0;
	}
	j->stopped = false;
	pr_printf(out, "[%u] %s &\n", j->id, j->line);
	return 0;
}

SHELL_COMMAND(bg, .name = "bg", .usage = "bg [N|%N]",
	      .summary = "let the stopped job (Ctrl-Z) go on in the background",
	      .help = "Its output is kept and printed when it ends, before the next\n"
		      "prompt, as for a line that ended in '&'.",
	      .fn = cmd_bg);

static int cmd_kill(struct printer *out, int argc, char **argv)
{
	struct shell_job *j = job_arg(out, "kill", argc, argv);

	if (!j)
		return -ESRCH;
	j->ctl.cancel = true;
	j->stopped = false;	/* it must run to its checkpoint to stop there */
	pr_printf(out, "kill: [%u] %s: asked to stop; it stops at its next checkpoint\n", j->id,
		  j->line);
	return 0;
}

SHELL_COMMAND(kill, .name = "kill", .usage = "kill [N|%N]",
	      .summary = "ask the running job to stop, as Ctrl-C does in the foreground",
	      .help = "The job stops at its next checkpoint, where what it did is\n"
		      "consistent (each command's help says what stays done); its end\n"
		      "is reported before the next prompt.",
	      .fn = cmd_kill);

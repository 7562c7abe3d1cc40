/*
 * cmd_kernel.c - the shell commands of the kernel's core services: `dmesg`
 * (kernel/printk.c's log ring and console level) and `work` (the pollers
 * and deferred work of kernel/workqueue.c, and the long operations of
 * kernel/longop.c, which `work pause`, `work step` and `work resume` hold
 * and single-step).
 */
#include <shell/args.h>
#include <shell/shell.h>
#include <kernel/workqueue.h>
#include <kernel/longop.h>
#include <lib/printk.h>
#include <lib/string.h>

static int cmd_dmesg(struct printer *out, int argc, char **argv)
{
	u64 level;

	if (argc == 1) {
		printk_log_dump(out);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "-n")) {
		int err = shell_arg_u64(out, "dmesg", "level", argv[2], 0, 7, "KERN_DEBUG is 7",
					&level);

		if (err)
			return err;
		printk_set_level((int)level);
		pr_printf(out, "console log level set to %d\n", printk_get_level());
		return 0;
	}
	return shell_usage(out, shell_find("dmesg"));
}

SHELL_COMMAND(dmesg, .name = "dmesg", .usage = "dmesg [-n LEVEL]",
	      .summary = "print the kernel log, or set the console log level",
	      .help = "Prints the last 64 KiB of kernel messages, each stamped with\n"
		      "seconds since boot.  `dmesg -n 7` also shows debug messages on\n"
		      "the console; `dmesg -n 4` only warnings and worse.  Messages\n"
		      "below the level are still kept in the log.",
	      .fn = cmd_dmesg);

/* The most steps one `work step` runs: the console waits for them. */
#define WORK_STEP_MAX	4096

/* `work step [N]`: N units of every held operation, then the list. */
static int work_step(struct printer *out, int argc, char **argv)
{
	u64 n = 1;
	unsigned done;

	if (argc == 3) {
		int err = shell_arg_u64(out, "work step", "count", argv[2], 1, WORK_STEP_MAX,
					"the console waits for the steps", &n);

		if (err)
			return err;
	}
	if (longop_pause())	/* a step holds what it stepped */
		pr_printf(out, "work: long operations paused (`work resume` lets them go on)\n");
	done = longop_step((unsigned)n);
	if (!done)
		pr_printf(out, "work: no long operation to step\n");
	else if (done < n)
		pr_printf(out, "work: %u of %llu steps: no operation left after the last\n", done,
			  (unsigned long long)n);
	else
		pr_printf(out, "work: %u step%s of one unit each\n", done, done == 1 ? "" : "s");
	longop_dump(out);
	return 0;
}

static int cmd_work(struct printer *out, int argc, char **argv)
{
	if (argc == 1) {
		workqueue_dump(out);
		longop_dump(out);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "pause")) {
		if (!longop_pause())
			pr_printf(out, "work: paused already\n");
		else
			pr_printf(out, "work: long operations paused: none gets a slice until "
				  "`work step [N]` or `work resume`\n");
		longop_dump(out);
		return 0;
	}
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "step"))
		return work_step(out, argc, argv);
	if (argc == 2 && !strcmp(argv[1], "resume")) {
		if (longop_resume())
			pr_printf(out, "work: long operations go on\n");
		else
			pr_printf(out, "work: not paused\n");
		return 0;
	}
	return shell_usage(out, shell_find("work"));
}

SHELL_COMMAND(work, .name = "work", .usage = "work [pause | step [N] | resume]",
	      .summary = "list the pollers, pending deferred work and long operations; pause them",
	      .help = "Interrupt handlers only schedule work; the main loop runs it\n"
		      "between shell input bytes and while idle.  Pollers are called\n"
		      "every few timer ticks where an interrupt cannot be wired.  Long\n"
		      "operations (a large resize, background memmap init, a long shell\n"
		      "command running as a job: `help jobs`) run one slice of about\n"
		      "5 ms at a time; each shows done/total so far.\n"
		      "`work pause` holds every long operation where it stands (a job in\n"
		      "the foreground excepted; pollers and deferred work still run, so a\n"
		      "new request joins the list and waits); `work step N` gives each held\n"
		      "operation N units of its work (N blocks of a plug, N sections of\n"
		      "memmap init; 1 to 4096; it pauses them first if they run) and lists\n"
		      "them; `work resume` lets them go on.",
	      .fn = cmd_work);

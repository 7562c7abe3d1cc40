/*
 * cmd_kernel.c - the shell commands of the kernel's core services: `dmesg`
 * (kernel/printk.c's log ring and console level) and `work` (the pollers
 * and deferred work of kernel/workqueue.c).
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

static int cmd_work(struct printer *out, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("work"));
	workqueue_dump(out);
	longop_dump(out);
	return 0;
}

SHELL_COMMAND(work, .name = "work", .usage = "work",
	      .summary = "list the pollers, pending deferred work and long operations",
	      .help = "Interrupt handlers only schedule work; the main loop runs it\n"
		      "between shell input bytes and while idle.  Pollers are called\n"
		      "every few timer ticks where an interrupt cannot be wired.  Long\n"
		      "operations (a large resize, background memmap init, a long shell\n"
		      "command running as a job: `help jobs`) run one slice of about\n"
		      "5 ms at a time; each shows done/total so far.",
	      .fn = cmd_work);

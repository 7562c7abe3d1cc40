/*
 * cmd_sys.c - the shell commands about the system itself: version, uptime,
 * power, self-tests and deliberate crashes.  (/proc/cmdline, /proc/version
 * and /proc/uptime are in views/proc_sys.c.)
 */
#include <kernel/kernel.h>
#include <shell/shell.h>
#include <kernel/ktest.h>
#include <kernel/time.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <arch/cpu.h>
#include <arch/power.h>

static int cmd_uptime(struct printer *out, int argc, char **argv)
{
	u64 ns = ktime_ns(), s = ns / NSEC_PER_SEC, idle = ktime_idle_ns();

	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("uptime"));
	pr_printf(out, "up %llu:%02llu:%02llu (%llu.%06llu s), idle %llu%%, %llu timer ticks\n",
		  (unsigned long long)(s / 3600), (unsigned long long)(s / 60 % 60),
		  (unsigned long long)(s % 60), (unsigned long long)s,
		  (unsigned long long)(ns % NSEC_PER_SEC / 1000),
		  (unsigned long long)(ns ? idle * 100 / ns : 0), (unsigned long long)jiffies());
	return 0;
}

SHELL_COMMAND(uptime, .name = "uptime", .usage = "uptime",
	      .summary = "time since boot and the share of it spent idle",
	      .help = "Time comes from the TSC, whose frequency is measured against\n"
		      "the PIT at boot. Idle time is time halted waiting for input.\n"
		      "/proc/uptime has the same two numbers in Linux's format.",
	      .fn = cmd_uptime);

/* ms.mmm of a cycle count, as "%4llu.%03llu". */
static void print_ms(struct printer *out, u64 cycles)
{
	u64 us = cycles_to_ns(cycles) / 1000;

	pr_printf(out, "%5llu.%03llu", (unsigned long long)(us / 1000), (unsigned long long)(us % 1000));
}

static int cmd_boottime(struct printer *out, int argc, char **argv)
{
	const struct boot_mark *marks;
	unsigned nr = boot_marks(&marks);
	u64 prev = cycles_at_boot();

	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("boottime"));
	pr_printf(out, "%9s %9s  %s\n", "at ms", "took ms", "boot step (done)");
	for (unsigned i = 0; i < nr; i++) {
		print_ms(out, marks[i].cycles - cycles_at_boot());
		pr_puts(out, " ");
		print_ms(out, marks[i].cycles - prev);
		pr_printf(out, "  %s\n", marks[i].what);
		prev = marks[i].cycles;
	}
	return 0;
}

SHELL_COMMAND(boottime, .name = "boottime", .usage = "boottime",
	      .summary = "what the boot spent its time on, step by step",
	      .help = "Each line is a step of the boot (kmain() and mm_core_init()):\n"
		      "when it ended, in ms since the TSC was read at kmain's first\n"
		      "instruction, and how long it took since the line before. The\n"
		      "last line is the prompt's \"boot: ready in N ms\".",
	      .fn = cmd_boottime);

static int cmd_version(struct printer *out, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("version"));
	pr_printf(out, "%s\n", memlab_version_string);
	return 0;
}

SHELL_COMMAND(version, .name = "version", .usage = "version",
	      .summary = "print the memlab version (as /proc/version)",
	      .help = NULL, .fn = cmd_version);

static int cmd_poweroff(struct printer *out, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("poweroff"));
	pr_printf(out, "Powering off.\n");
	machine_poweroff();
}

SHELL_COMMAND(poweroff, .name = "poweroff", .usage = "poweroff",
	      .summary = "power the machine off (QEMU exits with status 0)",
	      .help = "Enters ACPI S5 through the FADT's PM1 control register with the\n"
		      "sleep type from the DSDT's \\_S5 object; falls back to QEMU's\n"
		      "and Bochs's fixed ports.",
	      .fn = cmd_poweroff);

static int cmd_reboot(struct printer *out, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("reboot"));
	pr_printf(out, "Restarting system.\n");
	machine_reboot();
}

SHELL_COMMAND(reboot, .name = "reboot", .usage = "reboot",
	      .summary = "reset the machine (QEMU -no-reboot exits instead)",
	      .help = "Tries the ACPI reset register, the 0xcf9 reset control, the\n"
		      "keyboard controller and finally a triple fault.",
	      .fn = cmd_reboot);

static void list_suites(struct printer *out)
{
	pr_printf(out, "suites:");
	for (const struct ktest_suite *s = __start_ktest_suites; s < __stop_ktest_suites; s++)
		pr_printf(out, " %s", s->name);
	pr_printf(out, "\n");
}

static int cmd_selftest(struct printer *out, int argc, char **argv)
{
	int failed;

	if (argc > 2)
		return shell_usage(out, shell_find("selftest"));
	if (argc == 2 && !strcmp(argv[1], "-l")) {
		list_suites(out);
		return 0;
	}
	failed = ktest_run(out, argc == 2 ? argv[1] : NULL);
	if (failed == -ENOENT) {
		pr_printf(out, "selftest: %s: no such suite; ", argv[1]);
		list_suites(out);
		return -ENOENT;
	}
	return failed ? -EIO : 0;
}

SHELL_COMMAND(selftest, .name = "selftest", .usage = "selftest [-l | SUITE]",
	      .summary = "run the in-kernel self-tests and print KTAP",
	      .help = "Runs every registered suite, or the one named, and prints the\n"
		      "results in KTAP, the format of Linux's KUnit: `ok N name` or\n"
		      "`not ok N name` per case, with `# file:line` diagnostics for\n"
		      "each failed expectation. `selftest -l` lists the suites.\n"
		      "Tests use private fixtures and leave the live state alone.",
	      .fn = cmd_selftest);

/*
 * Deliberate faults, to see (and test) the exception reports.  Each helper
 * is a separate noinline function so the backtrace has a frame to name.
 */
static volatile u64 *volatile crash_ptr;

static __attribute__((noinline)) void crash_pagefault(void)
{
	crash_ptr = (volatile u64 *)0x10;
	*crash_ptr = 0xdead;		/* the first page is never mapped */
}

static __attribute__((noinline)) void crash_write_text(void)
{
	crash_ptr = (volatile u64 *)(uintptr_t)crash_write_text;
	*crash_ptr = 0;			/* code is mapped read-only */
}

static __attribute__((noinline)) void crash_gp(void)
{
	crash_ptr = (volatile u64 *)0x8000000000000000ULL;
	(void)*crash_ptr;		/* non-canonical address: #GP */
}

static __attribute__((noinline)) void crash_divide(void)
{
	volatile u32 zero = 0, x = 1;

	x = x / zero;
	(void)x;
}

static __attribute__((noinline)) void crash_invalid_opcode(void)
{
	__asm__ volatile("ud2");
}

/* Uses ~1 KiB of stack per call until the guard page below the stack
 * is hit; the fault then cannot push its frame: a double fault. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
static __attribute__((noinline)) u64 crash_stack(u64 depth)
{
	volatile u8 pad[1024];

	pad[0] = (u8)depth;
	return crash_stack(depth + 1) + pad[0];
}
#pragma GCC diagnostic pop

static int cmd_crash(struct printer *out, int argc, char **argv)
{
	const char *what = argc == 2 ? argv[1] : "";

	if (!strcmp(what, "pagefault"))
		crash_pagefault();
	else if (!strcmp(what, "wp"))
		crash_write_text();
	else if (!strcmp(what, "gp"))
		crash_gp();
	else if (!strcmp(what, "divide"))
		crash_divide();
	else if (!strcmp(what, "ud"))
		crash_invalid_opcode();
	else if (!strcmp(what, "stack"))
		crash_stack(0);
	else if (!strcmp(what, "panic"))
		panic("crash command: deliberate panic (value %#x)", 0x1234);
	else
		return shell_usage(out, shell_find("crash"));
	pr_printf(out, "crash: %s did not fault\n", what);
	return -EIO;
}

SHELL_COMMAND(crash, .name = "crash",
	      .usage = "crash pagefault|wp|gp|divide|ud|stack|panic",
	      .summary = "fault on purpose, to see an exception report",
	      .help = "pagefault: write to address 0x10 (unmapped first page)\n"
		      "wp:        write to kernel code (mapped read-only)\n"
		      "gp:        read a non-canonical address\n"
		      "divide:    divide by zero\n"
		      "ud:        execute ud2 (invalid opcode)\n"
		      "stack:     overflow the stack into its guard page (double fault)\n"
		      "panic:     call panic()\n"
		      "The report shows the vector, error code, RIP with its function,\n"
		      "all registers, CR2 and the call trace; QEMU then exits with\n"
		      "status ((0x20 + vector) << 1) | 1 through isa-debug-exit\n"
		      "(93 for a page fault), or 225 for a panic.",
	      .fn = cmd_crash);

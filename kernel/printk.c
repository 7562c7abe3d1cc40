/*
 * printk.c - the kernel log.
 *
 * printk() formats one message, puts "[seconds.micros] " in front (time
 * since boot, as Linux's dmesg), appends it to a ring buffer that `dmesg`
 * prints, and writes it to the console if its level is at or below the
 * console log level (`loglevel=N` on the command line, default 6 = info,
 * so pr_debug is hidden unless loglevel=7).
 *
 * panic() is the one way memlab stops on a broken invariant: it prints the
 * message and a backtrace of the caller, then exits QEMU with
 * EXIT_CODE_PANIC through isa-debug-exit (status 225) or halts.
 *
 * Context: any (no locks; the console writes synchronously).
 */
#include <lib/printk.h>
#include <kernel/console.h>
#include <kernel/time.h>
#include <lib/string.h>
#include <arch/traps.h>
#include <arch/cpu.h>
#include <arch/smp.h>

#define LOG_BUF_SIZE	(64 * 1024)

static char log_buf[LOG_BUF_SIZE];	/* ring of the most recent messages */
static u64 log_head;			/* total bytes ever appended */
static int console_loglevel = LOG_INFO;

static void console_printer_write(struct printer *p, const char *s, size_t len)
{
	(void)p;
	console_write(s, len);
}

struct printer console_printer = { console_printer_write };

void printk_set_level(int level)
{
	console_loglevel = level;
}

int printk_get_level(void)
{
	return console_loglevel;
}

static void log_append(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		log_buf[(log_head + i) % LOG_BUF_SIZE] = s[i];
	log_head += len;
}

void vprintk(int level, const char *fmt, va_list ap)
{
	char line[512];
	u64 ns = ktime_ns();
	int n = ksnprintf(line, sizeof(line), "[%5llu.%06llu] ",
			  (unsigned long long)(ns / NSEC_PER_SEC),
			  (unsigned long long)(ns % NSEC_PER_SEC / 1000));
	int m = kvsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	size_t len = (size_t)n + ((size_t)m < sizeof(line) - n - 1 ? (size_t)m : sizeof(line) - n - 2);

	if (len == 0 || line[len - 1] != '\n')
		line[len++] = '\n';
	log_append(line, len);
	if (level <= console_loglevel)
		console_write(line, len);
}

void printk(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(level, fmt, ap);
	va_end(ap);
}

void kprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pr_vprintf(&console_printer, fmt, ap);
	va_end(ap);
}

void panic(const char *fmt, ...)
{
	va_list ap;
	u64 rbp;

	irq_disable();
	kprintf("\nKernel panic - not syncing: ");
	va_start(ap, fmt);
	pr_vprintf(&console_printer, fmt, ap);
	va_end(ap);
	kprintf("\n");
	__asm__ volatile("mov %%rbp, %0" : "=r"(rbp));
	backtrace_print(&console_printer, 0, rbp);
	smp_stop_others(&console_printer);	/* the other CPUs halt, with where they were */
	kprintf("---[ end Kernel panic; QEMU exit status %u with isa-debug-exit ]---\n",
		(EXIT_CODE_PANIC << 1) | 1);
	console_flush();		/* a screen draws what it deferred */
	qemu_debug_exit(EXIT_CODE_PANIC);
	cpu_halt_forever();
}

void printk_log_dump(struct printer *p)
{
	u64 start = log_head > LOG_BUF_SIZE ? log_head - LOG_BUF_SIZE : 0;
	char chunk[256];
	size_t n = 0;

	if (start) {	/* skip the partial first line of a wrapped ring */
		while (start < log_head && log_buf[start % LOG_BUF_SIZE] != '\n')
			start++;
		start++;
	}
	for (u64 i = start; i < log_head; i++) {
		chunk[n++] = log_buf[i % LOG_BUF_SIZE];
		if (n == sizeof(chunk)) {
			p->write(p, chunk, n);
			n = 0;
		}
	}
	p->write(p, chunk, n);
}

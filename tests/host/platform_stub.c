/*
 * platform_stub.c - the host's stand-ins for kernel services.
 *
 * Portable kernel code calls printk(), kprintf(), panic() and the console.
 * Here they go to the host's stdio: log output is written to stdout with a
 * "[host] " prefix, console input comes from a byte queue a test can fill
 * (host_console_feed), and panic() aborts so ASan prints a stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lib/printk.h>
#include <kernel/console.h>
#include <kernel/time.h>
#include <lib/lock.h>
#include "platform_stub.h"

static int log_level = LOG_INFO;
static char host_log_ring[HOST_LOG_RING][256];	/* the last printk lines (256 bytes each) */

__thread unsigned host_cpu;

/* lock.h's platform hooks: the thread's CPU number; interrupts are a
 * kernel matter, so saving and restoring them does nothing here. */
unsigned lock_this_cpu(void)
{
	return host_cpu;
}

unsigned long lock_irq_save(void)
{
	return 0;
}

void lock_irq_restore(unsigned long flags)
{
	(void)flags;
}

void printk_set_level(int level) { log_level = level; }
int printk_get_level(void) { return log_level; }

void vprintk(int level, const char *fmt, va_list ap)
{
	char buf[1024];

	kvsnprintf(buf, sizeof(buf), fmt, ap);
	if (level <= log_level || host_log_verbose)
		printf("[host] %s%s", buf,
		       buf[0] && buf[strlen(buf) - 1] == '\n' ? "" : "\n");
	host_log_count++;
	snprintf(host_last_log, sizeof(host_last_log), "%s", buf);
	snprintf(host_log_ring[host_log_count % HOST_LOG_RING], sizeof(host_log_ring[0]), "%.255s", buf);
}

bool host_log_seen(const char *needle, int since)
{
	int first = host_log_count - HOST_LOG_RING + 1;

	for (int n = since + 1 > first ? since + 1 : first; n <= host_log_count; n++)
		if (strstr(host_log_ring[n % HOST_LOG_RING], needle))
			return true;
	return false;
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

/*
 * The console: weak, because the suite `uart` links the real
 * drivers/serial/uart16550.c, whose console_*() then take their place.
 */
__attribute__((weak)) void console_write(const char *s, size_t len)
{
	if (host_console_out)
		host_console_out->write(host_console_out, s, len);
	else
		fwrite(s, 1, len, stdout);
}

__attribute__((weak)) void console_putc(char c) { console_write(&c, 1); }

static void console_printer_write(struct printer *p, const char *s, size_t len)
{
	(void)p;
	console_write(s, len);
}

struct printer console_printer = { console_printer_write };

static const unsigned char *feed;
static size_t feed_len, feed_pos;

void host_console_feed(const void *bytes, size_t len)
{
	feed = bytes;
	feed_len = len;
	feed_pos = 0;
}

__attribute__((weak)) int console_trygetc(void)
{
	return feed_pos < feed_len ? feed[feed_pos++] : -1;
}

__attribute__((weak)) int console_getc(void)
{
	int c = console_trygetc();

	if (c < 0) {
		fprintf(stderr, "console_getc: host input exhausted\n");
		abort();
	}
	return c;
}

void panic(const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	kvsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "Kernel panic - not syncing: %s\n", buf);
	abort();
}

/*
 * The cycle counter of arch/time.h, for the shell commands that time
 * what they do (contig bench, devmem rebind): the host's TSC, with a
 * nominal 1 GHz so that cycles_to_ns() and tsc_khz() give numbers of the
 * right shape.  Weak, because the suite `tsc` links the real
 * arch/x86_64/tsc.c, whose definitions then take their place.
 * Context: any.
 */
__attribute__((weak)) u64 cycles_now(void)
{
	return __builtin_ia32_rdtsc();
}

__attribute__((weak)) u64 tsc_khz(void)
{
	return 1000000;
}

__attribute__((weak)) u64 cycles_to_ns(u64 cycles)
{
	return cycles;
}

int host_log_verbose;
int host_log_count;
char host_last_log[1024];
struct printer *host_console_out;

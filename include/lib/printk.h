/*
 * printk.h - kernel log messages with a level and a timestamp.
 *
 * Every message starts with "[seconds.micros] " since boot, like Linux's
 * dmesg, and goes to the console.  Messages below the console log level
 * (loglevel= on the command line, default 6 = info) are not printed but
 * still counted.  Lines printed with kprintf() carry no prefix: the shell uses
 * it for command output.
 *
 * Context: any CPU, any context, including exception handlers and a
 * panic (no allocation).  printk() takes the log's own spinlock with
 * interrupts off, and writes without it when this CPU holds it already
 * or a panic is in progress (kernel/printk.c says why).
 */
#ifndef LIB_PRINTK_H
#define LIB_PRINTK_H

#include <lib/types.h>
#include <lib/printer.h>

enum log_level {
	LOG_EMERG = 0,	/* system is unusable */
	LOG_ALERT,	/* action must be taken immediately */
	LOG_CRIT,	/* critical conditions */
	LOG_ERR,	/* error conditions */
	LOG_WARNING,	/* warning conditions */
	LOG_NOTICE,	/* normal but significant */
	LOG_INFO,	/* informational */
	LOG_DEBUG,	/* debug-level messages */
};

/* printk() - log one message at level. A trailing newline is added if missing. */
void printk(int level, const char *fmt, ...) __printf(2, 3);
void vprintk(int level, const char *fmt, va_list ap);

#define pr_emerg(...)	printk(LOG_EMERG, __VA_ARGS__)
#define pr_err(...)	printk(LOG_ERR, __VA_ARGS__)
#define pr_warn(...)	printk(LOG_WARNING, __VA_ARGS__)
#define pr_notice(...)	printk(LOG_NOTICE, __VA_ARGS__)
#define pr_info(...)	printk(LOG_INFO, __VA_ARGS__)
#define pr_debug(...)	printk(LOG_DEBUG, __VA_ARGS__)

/* printk_set_level() - messages with level <= this are shown. */
void printk_set_level(int level);
int printk_get_level(void);

/*
 * printk_log_dump() - the log ring's contents (the last 64 KiB of messages),
 * oldest first, starting at a whole line; the text of `dmesg`.
 * Context: main loop.
 */
void printk_log_dump(struct printer *p);

/*
 * printk_log_read() - up to size bytes of the log from position *pos (a
 * count of bytes ever logged, as printk_log_head() gives) into buf;
 * advances *pos past them.  When the ring has overwritten *pos, the read
 * starts at the oldest byte still there and adds the bytes skipped to
 * *lost.  Returns the bytes copied (0: nothing new).  For a reader that
 * follows the log as it grows (the view channel's trace stream).
 * printk_log_head() - the position after the last byte logged.
 * Context: main loop.
 */
size_t printk_log_read(u64 *pos, char *buf, size_t size, u64 *lost);
u64 printk_log_head(void);

/* kprintf() - plain formatted output to the console, no prefix. */
void kprintf(const char *fmt, ...) __printf(1, 2);

/* The console as a printer, for dump functions called from the shell. */
extern struct printer console_printer;

/*
 * panic() - print "Kernel panic - not syncing: <message>", the caller's
 * backtrace, and stop (exiting QEMU with status 0xe1 when isa-debug-exit is
 * present).  Give the values that explain the failure in the message.
 */
void panic(const char *fmt, ...) __printf(1, 2) __noreturn;

/* BUG_ON() - always-on assertion; panics with the function, file and line. */
#define BUG_ON(cond)							\
	do {								\
		if (unlikely(cond))					\
			panic("BUG_ON(%s) in %s() at %s:%d", #cond,	\
			      __func__, __FILE__, __LINE__);		\
	} while (0)

#endif

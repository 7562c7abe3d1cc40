/*
 * platform_stub.h - knobs of the host stand-ins in platform_stub.c.
 */
#ifndef HOST_PLATFORM_STUB_H
#define HOST_PLATFORM_STUB_H

#include <stddef.h>
#include <stdbool.h>
#include <lib/printer.h>

extern int host_log_verbose;		/* print every printk, whatever its level */
extern int host_log_count;		/* printk calls so far */
extern char host_last_log[1024];	/* text of the last printk */
extern struct printer *host_console_out;/* capture console output (NULL: stdout) */

/* host_log_seen() - one of the printk lines after number `since` (a value
 * of host_log_count), among the last HOST_LOG_RING (each cut at 255
 * bytes), contains needle. */
#define HOST_LOG_RING	64
bool host_log_seen(const char *needle, int since);

/* host_console_feed() - console_getc() returns these bytes, then aborts. */
void host_console_feed(const void *bytes, size_t len);

/*
 * host_cpu - the calling thread's CPU number for lock_this_cpu() and
 * mm_this_cpu(): 0 unless a test thread sets its own (below LOCK_MAX_CPUS).
 */
extern __thread unsigned host_cpu;

#endif

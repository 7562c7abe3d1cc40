/*
 * debug.c - mm's warning tier (MM_WARN_ON() in platform.h).
 *
 * A warning is a state mm must never reach but can step back from; it is
 * logged with the values that explain it and counted, and the code goes on
 * along its refusal path.  The count is what the host tests read after
 * every test (tests/host/main.c), so a warning nobody expected fails the
 * test that caused it.
 *
 * Context: (any) except interrupt handlers (mm is never called from them).
 */
#include <mm/platform.h>
#include <lib/printer.h>

static u64 nr_warnings;	/* [m] warnings so far: written only here, from mm's callers' context */

void mm_warn(const char *file, int line, const char *fn, const char *cond, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	nr_warnings++;
	pr_warn("WARNING: %s:%d %s(): %s %s", file, line, fn, cond, msg);
}

u64 mm_nr_warnings(void)
{
	return nr_warnings;
}

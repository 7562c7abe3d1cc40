/*
 * printer.h - where formatted text goes.
 *
 * A struct printer is a sink: the console, a bounded buffer, or a filter
 * (grep) in front of another printer.  Every dump function and every virtual
 * file writes to a printer, so the shell only chooses the sink, and the host
 * tests capture the same text into a buffer and compare it.
 *
 * Invariants: write() accepts any length, including 0, and never fails; a
 * buffer printer that runs out of room keeps the first bytes and sets
 * `overflow`.
 */
#ifndef LIB_PRINTER_H
#define LIB_PRINTER_H

#include <lib/types.h>

struct printer {
	/* append len bytes of s to the sink */
	void (*write)(struct printer *p, const char *s, size_t len);
};

/* A printer that fills a caller-owned buffer, always NUL-terminated. */
struct buf_printer {
	struct printer p;	/* must stay first: the write callback casts */
	char *buf;		/* caller's storage */
	size_t size;		/* bytes in buf, including the final NUL */
	size_t len;		/* bytes written so far, excluding the NUL */
	bool overflow;		/* true once a write did not fit */
};

/* buf_printer_init() - make bp write into buf[0, size). size must be >= 1. */
void buf_printer_init(struct buf_printer *bp, char *buf, size_t size);

/* pr_printf() - format (see kvsnprintf for the conversions) into p. */
void pr_printf(struct printer *p, const char *fmt, ...) __printf(2, 3);
void pr_vprintf(struct printer *p, const char *fmt, va_list ap);
void pr_puts(struct printer *p, const char *s);

/*
 * kvsnprintf() - the one formatter of memlab, like C's vsnprintf.
 *
 * Conversions: %d %i %u %x %X %o %c %s %p %% with flags '-', '0', '+', ' ',
 * '#', a width and precision (both may be '*'), and the length modifiers
 * hh h l ll z t j.  %p prints 0x and 16 hex digits.  A NULL %s prints
 * "(null)".  Returns the length the full output would have; buf holds at most
 * size-1 bytes plus a NUL (nothing is written when size is 0).
 */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

#endif

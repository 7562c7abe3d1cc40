/*
 * printer.c - formatted output into any struct printer.
 *
 * The formatting itself (pr_vprintf) lives in vsnprintf.c next to
 * kvsnprintf: it streams through a small stack buffer into the printer, so
 * output of any length arrives whole without any allocation.
 *
 * Context: any.
 */
#include <lib/printer.h>
#include <lib/string.h>

static void buf_printer_write(struct printer *p, const char *s, size_t len)
{
	struct buf_printer *bp = (struct buf_printer *)p;
	size_t room = bp->size - 1 - bp->len;

	if (len > room) {
		len = room;
		bp->overflow = true;
	}
	memcpy(bp->buf + bp->len, s, len);
	bp->len += len;
	bp->buf[bp->len] = '\0';
}

void buf_printer_init(struct buf_printer *bp, char *buf, size_t size)
{
	bp->p.write = buf_printer_write;
	bp->buf = buf;
	bp->size = size;
	bp->len = 0;
	bp->overflow = false;
	buf[0] = '\0';
}

void pr_printf(struct printer *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pr_vprintf(p, fmt, ap);
	va_end(ap);
}

void pr_puts(struct printer *p, const char *s)
{
	p->write(p, s, strlen(s));
}

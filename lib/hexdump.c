/*
 * hexdump.c - bytes as hex rows for `hexdump -C` and `acpidump` (see
 * hexdump.h for the two layouts).  The printer keeps one row and prints it
 * when it is full, so the input streams through in any pieces.
 *
 * Context: any.
 */
#include <lib/hexdump.h>
#include <lib/string.h>

static char printable(u8 c)
{
	return c >= 0x20 && c < 0x7f ? (char)c : '.';
}

/* One row of n bytes (n < HEXDUMP_ROW only for the last one), padded so
 * that the character column lines up with the full rows above it. */
static void print_row(struct hexdump_printer *h, unsigned int n)
{
	char line[96];
	size_t len = 0;
	bool canon = h->style == HEXDUMP_CANONICAL;

	if (canon)
		len += ksnprintf(line + len, sizeof(line) - len, "%08llx  ",
				 (unsigned long long)h->offset);
	else
		len += ksnprintf(line + len, sizeof(line) - len, "%8.4llX: ",
				 (unsigned long long)h->offset);
	for (unsigned int i = 0; i < HEXDUMP_ROW; i++) {
		if (i < n)
			len += ksnprintf(line + len, sizeof(line) - len, canon ? "%02x " : "%02X ",
					 h->row[i]);
		else
			len += ksnprintf(line + len, sizeof(line) - len, "   ");
		if (canon && i == 7)
			line[len++] = ' ';	/* -C splits the row in two halves */
	}
	line[len++] = ' ';
	if (canon)
		line[len++] = '|';
	for (unsigned int i = 0; i < n; i++)
		line[len++] = printable(h->row[i]);
	if (canon)
		line[len++] = '|';
	line[len++] = '\n';
	h->out->write(h->out, line, len);
}

/* The row is full: print it, or squeeze it into "*" (CANONICAL only). */
static void row_done(struct hexdump_printer *h)
{
	if (h->style == HEXDUMP_CANONICAL && h->have_prev &&
	    !memcmp(h->row, h->prev, HEXDUMP_ROW)) {
		if (!h->squeezing)
			h->out->write(h->out, "*\n", 2);
		h->squeezing = true;
	} else {
		print_row(h, HEXDUMP_ROW);
		h->squeezing = false;
	}
	memcpy(h->prev, h->row, HEXDUMP_ROW);
	h->have_prev = true;
	h->offset += HEXDUMP_ROW;
	h->fill = 0;
}

static void hexdump_write(struct printer *p, const char *s, size_t len)
{
	struct hexdump_printer *h = (struct hexdump_printer *)p;

	for (size_t i = 0; i < len; i++) {
		h->row[h->fill++] = (u8)s[i];
		if (h->fill == HEXDUMP_ROW)
			row_done(h);
	}
}

void hexdump_printer_init(struct hexdump_printer *h, struct printer *out,
			  enum hexdump_style style)
{
	memset(h, 0, sizeof(*h));
	h->p.write = hexdump_write;
	h->out = out;
	h->style = style;
}

void hexdump_finish(struct hexdump_printer *h)
{
	u64 total = h->offset + h->fill;

	if (h->fill)
		print_row(h, h->fill);
	if (h->style == HEXDUMP_CANONICAL && total)
		pr_printf(h->out, "%08llx\n", (unsigned long long)total);
	h->offset = total;
	h->fill = 0;
}

void hexdump_buffer(struct printer *out, enum hexdump_style style, const void *buf,
		    size_t len)
{
	struct hexdump_printer h;

	hexdump_printer_init(&h, out, style);
	h.p.write(&h.p, buf, len);
	hexdump_finish(&h);
}

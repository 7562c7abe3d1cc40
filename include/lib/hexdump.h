/*
 * hexdump.h - bytes as text rows: 16 bytes a row, hex then the printable
 * characters, in the two layouts a reader of ACPI tables meets.
 *
 *  - HEXDUMP_CANONICAL is `hexdump -C` (util-linux):
 *      00000000  53 53 44 54 39 00 00 00  02 06 54 45 53 54 00 00  |SSDT9.....TEST..|
 *    a row equal to the one before it prints as one "*" line (however many
 *    follow), and the end is the total length on a line of its own; no
 *    input, no output.
 *  - HEXDUMP_ACPI is the body of a table in ACPICA's acpidump text, the
 *    format `acpixtract` reads back:
 *          0000: 53 53 44 54 39 00 00 00 02 06 54 45 53 54 00 00  SSDT9.....TEST..
 *    upper-case hex, every row printed, nothing after the last.
 *
 * A struct hexdump_printer is a printer: whatever is written into it (a
 * virtual file's show(), a table's bytes) comes out as rows on `out`, so a
 * file of any size needs one row of memory.  Characters 0x20-0x7e show as
 * themselves, every other byte as '.'.  Context: any.
 */
#ifndef LIB_HEXDUMP_H
#define LIB_HEXDUMP_H

#include <lib/types.h>
#include <lib/printer.h>

enum hexdump_style {
	HEXDUMP_CANONICAL,	/* hexdump -C */
	HEXDUMP_ACPI,		/* acpidump's rows */
};

#define HEXDUMP_ROW	16	/* bytes in a row */

struct hexdump_printer {
	struct printer p;		/* must stay first: the write callback casts */
	struct printer *out;		/* where the rows go */
	enum hexdump_style style;
	u8 row[HEXDUMP_ROW];		/* the row being filled */
	unsigned int fill;		/* bytes in row[] */
	u64 offset;			/* offset of row[0] in the input */
	u8 prev[HEXDUMP_ROW];		/* the last full row (CANONICAL's "*") */
	bool have_prev;			/* prev[] holds a row */
	bool squeezing;			/* "*" printed for the rows equal to prev */
};

/* hexdump_printer_init() - rows of what is written to h go to out. */
void hexdump_printer_init(struct hexdump_printer *h, struct printer *out,
			  enum hexdump_style style);

/* hexdump_finish() - print the last, partial row (and CANONICAL's final
 * offset line).  Call once, after the last write. */
void hexdump_finish(struct hexdump_printer *h);

/* hexdump_buffer() - buf[0, len) as rows on out: init, one write, finish. */
void hexdump_buffer(struct printer *out, enum hexdump_style style, const void *buf,
		    size_t len);

#endif

/*
 * term_model.h - a one-line model of a dumb terminal, to check the line
 * editor's echo.
 *
 * The model is a struct printer: the editor's echo goes into it, and it
 * moves a cursor the way a VT100 does for the bytes the editor may send:
 * printable characters are written at the cursor (which moves right), '\b'
 * moves left (never past column 0), '\n' ends the row.  Any other byte is a
 * bug in the editor and is counted in `bad_bytes`.  term_matches() then says
 * whether the screen shows exactly the editor's line with the cursor in the
 * editor's place.  Used by the host tests and the fuzz target.
 */
#ifndef TERM_MODEL_H
#define TERM_MODEL_H

#include <string.h>
#include <lib/printer.h>
#include <shell/line_edit.h>

#define TERM_COLS	1024

struct term_model {
	struct printer p;	/* must stay first */
	char row[TERM_COLS];	/* the current row, blanks where nothing was drawn */
	size_t col;		/* cursor column */
	size_t rows_done;	/* rows ended by '\n' */
	char last_row[TERM_COLS]; /* the row ended last, trailing blanks cut */
	size_t bad_bytes;	/* bytes a line editor must never send */
};

static void term_write(struct printer *p, const char *s, size_t len)
{
	struct term_model *t = (struct term_model *)p;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\b') {
			if (t->col)
				t->col--;
		} else if (c == '\n') {
			size_t n = TERM_COLS - 1;

			while (n && t->row[n - 1] == ' ')
				n--;
			memcpy(t->last_row, t->row, n);
			t->last_row[n] = '\0';
			memset(t->row, ' ', sizeof(t->row));
			t->col = 0;
			t->rows_done++;
		} else if (c >= 0x20 && c < 0x7f) {
			if (t->col < TERM_COLS - 1)
				t->row[t->col++] = (char)c;
			else
				t->bad_bytes++;	/* ran off the model's width */
		} else {
			t->bad_bytes++;
		}
	}
}

static inline void term_init(struct term_model *t)
{
	memset(t, 0, sizeof(*t));
	t->p.write = term_write;
	memset(t->row, ' ', sizeof(t->row));
}

/* Does the row show le->buf followed only by blanks, with the cursor at le->cursor? */
static inline int term_matches(const struct term_model *t, const struct line_edit *le)
{
	if (t->bad_bytes || t->col != le->cursor)
		return 0;
	if (memcmp(t->row, le->buf, le->len) != 0)
		return 0;
	for (size_t i = le->len; i < TERM_COLS; i++)
		if (t->row[i] != ' ')
			return 0;
	return 1;
}

#endif

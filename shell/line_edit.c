/*
 * line_edit.c - the shell's line editor (see line_edit.h for the keys).
 *
 * The editor keeps the line in a fixed buffer and mirrors every change on
 * the terminal with the fewest portable bytes it can: a character typed in
 * the middle of the line is printed, followed by the rest of the line and
 * enough "\b" to walk the cursor back; a deletion reprints the rest of the
 * line plus one blank to cover the old last character.  The terminal's
 * cursor is therefore always `cursor` columns after the prompt.
 *
 * Escape sequences arrive one byte at a time, so the parser is a small state
 * machine (enum line_esc_state).  It follows the shape ECMA-48 gives them:
 *
 *   ESC [ <parameter bytes 0x30-0x3f>* <intermediate 0x20-0x2f>* <final 0x40-0x7e>
 *   ESC O <final>
 *   ESC <any other byte>          (two bytes, ignored)
 *
 * so a sequence it does not know is still swallowed whole, and its tail
 * never shows up as typed text.
 */
#include <shell/line_edit.h>
#include <lib/string.h>

#define KEY_CTRL(c)	((c) & 0x1f)
#define ASCII_ESC	0x1b
#define ASCII_DEL	0x7f
#define ESC_PARAM_MAX	9999	/* CSI parameters saturate here */

/* Keys that escape sequences and control bytes stand for. */
enum line_key {
	KEY_LEFT,
	KEY_RIGHT,
	KEY_UP,
	KEY_DOWN,
	KEY_HOME,
	KEY_END,
	KEY_DELETE,
};

static void echo_bytes(struct line_edit *le, const char *s, size_t len)
{
	if (len)
		le->echo->write(le->echo, s, len);
}

static void echo_repeat(struct line_edit *le, char c, size_t n)
{
	char chunk[32];

	memset(chunk, c, sizeof(chunk));
	while (n) {
		size_t k = MIN(n, sizeof(chunk));

		echo_bytes(le, chunk, k);
		n -= k;
	}
}

/*
 * Reprint buf[cursor, len), then `blanks` spaces to wipe characters that
 * used to be there, and walk the terminal cursor back to `cursor`.
 */
static void redraw_tail(struct line_edit *le, size_t blanks)
{
	size_t tail = le->len - le->cursor;

	echo_bytes(le, le->buf + le->cursor, tail);
	echo_repeat(le, ' ', blanks);
	echo_repeat(le, '\b', tail + blanks);
}

/* Start an empty line: nothing is echoed, the terminal is already on a fresh line. */
static void line_clear(struct line_edit *le)
{
	le->len = 0;
	le->cursor = 0;
	le->buf[0] = '\0';
	le->overlong = false;
	le->hist_pos = 0;
}

void line_edit_init(struct line_edit *le, struct printer *echo)
{
	memset(le, 0, sizeof(*le));
	le->echo = echo;
	line_clear(le);
}

static void move_home(struct line_edit *le)
{
	echo_repeat(le, '\b', le->cursor);
	le->cursor = 0;
}

static void move_end(struct line_edit *le)
{
	echo_bytes(le, le->buf + le->cursor, le->len - le->cursor);
	le->cursor = le->len;
}

/* Wipe the line off the screen and out of buf (Ctrl-U). */
static void kill_line(struct line_edit *le)
{
	move_home(le);
	echo_repeat(le, ' ', le->len);
	echo_repeat(le, '\b', le->len);
	le->len = 0;
	le->buf[0] = '\0';
	le->overlong = false;
}

/* Replace the line by s (a history entry), cursor at its end. */
static void replace_line(struct line_edit *le, const char *s, bool overlong)
{
	kill_line(le);
	le->len = strlcpy(le->buf, s, sizeof(le->buf));
	le->cursor = le->len;
	le->overlong = overlong;
	echo_bytes(le, le->buf, le->len);
}

/*
 * Insert the printable character c at the cursor.  When the buffer is full
 * the character is dropped and the line marked overlong: Enter will refuse
 * it rather than run a command that lost its end.
 */
static void insert_char(struct line_edit *le, char c)
{
	if (le->len >= sizeof(le->buf) - 1) {
		le->overlong = true;
		return;
	}
	/* Shift buf[cursor, len] (the NUL too) one place right. */
	memmove(le->buf + le->cursor + 1, le->buf + le->cursor,
		le->len - le->cursor + 1);
	le->buf[le->cursor] = c;
	le->len++;
	echo_bytes(le, &c, 1);
	le->cursor++;
	redraw_tail(le, 0);
}

/* Remove the character at index at (< len); the cursor is already placed. */
static void delete_at(struct line_edit *le, size_t at)
{
	memmove(le->buf + at, le->buf + at + 1, le->len - at);
	le->len--;
	redraw_tail(le, 1);
}

static void backspace(struct line_edit *le)
{
	if (le->cursor == 0)
		return;
	le->cursor--;
	echo_bytes(le, "\b", 1);
	delete_at(le, le->cursor);
}

/* The n-th most recent history entry, 1 <= n <= hist_count. */
static const char *history_entry(struct line_edit *le, unsigned int n)
{
	unsigned int slot = (le->hist_next + LINE_EDIT_HISTORY - n) % LINE_EDIT_HISTORY;

	return le->history[slot];
}

/* Remember an entered line, unless it is empty or repeats the newest entry. */
static void history_add(struct line_edit *le)
{
	if (le->len == 0)
		return;
	if (le->hist_count && strcmp(history_entry(le, 1), le->buf) == 0)
		return;
	strlcpy(le->history[le->hist_next], le->buf, LINE_EDIT_MAX);
	le->hist_next = (le->hist_next + 1) % LINE_EDIT_HISTORY;
	if (le->hist_count < LINE_EDIT_HISTORY)
		le->hist_count++;
}

/*
 * Up: show the next older entry.  Leaving the own line saves it, so Down
 * past the newest entry brings back what was being typed.
 */
static void history_older(struct line_edit *le)
{
	if (le->hist_pos >= le->hist_count)
		return;
	if (le->hist_pos == 0) {
		strlcpy(le->saved, le->buf, sizeof(le->saved));
		le->saved_overlong = le->overlong;
	}
	le->hist_pos++;
	replace_line(le, history_entry(le, le->hist_pos), false);
}

static void history_newer(struct line_edit *le)
{
	if (le->hist_pos == 0)
		return;
	le->hist_pos--;
	if (le->hist_pos == 0)
		replace_line(le, le->saved, le->saved_overlong);
	else
		replace_line(le, history_entry(le, le->hist_pos), false);
}

static void do_key(struct line_edit *le, enum line_key key)
{
	switch (key) {
	case KEY_LEFT:
		if (le->cursor > 0) {
			le->cursor--;
			echo_bytes(le, "\b", 1);
		}
		break;
	case KEY_RIGHT:
		if (le->cursor < le->len) {
			echo_bytes(le, le->buf + le->cursor, 1);
			le->cursor++;
		}
		break;
	case KEY_UP:
		history_older(le);
		break;
	case KEY_DOWN:
		history_newer(le);
		break;
	case KEY_HOME:
		move_home(le);
		break;
	case KEY_END:
		move_end(le);
		break;
	case KEY_DELETE:
		if (le->cursor < le->len)
			delete_at(le, le->cursor);
		break;
	}
}

/*
 * A complete CSI sequence: final byte f, first parameter p (0 when absent),
 * nparams parameters.  Only the unmodified cursor keys are bound; anything
 * with a second parameter (Ctrl/Shift/Alt variants) or a count is ignored.
 */
static void csi_dispatch(struct line_edit *le, int f, unsigned int p,
			 unsigned int nparams)
{
	if (nparams > 1)
		return;
	if (f == '~') {
		if (p == 1 || p == 7)
			do_key(le, KEY_HOME);
		else if (p == 4 || p == 8)
			do_key(le, KEY_END);
		else if (p == 3)
			do_key(le, KEY_DELETE);
		return;
	}
	if (p > 1)
		return;
	switch (f) {
	case 'A': do_key(le, KEY_UP); break;
	case 'B': do_key(le, KEY_DOWN); break;
	case 'C': do_key(le, KEY_RIGHT); break;
	case 'D': do_key(le, KEY_LEFT); break;
	case 'H': do_key(le, KEY_HOME); break;
	case 'F': do_key(le, KEY_END); break;
	}
}

/*
 * One printable byte (0x20-0x7e) while inside an escape sequence.  Control
 * bytes never get here: line_edit_feed() ends the sequence for them.
 */
static void esc_byte(struct line_edit *le, int c)
{
	switch (le->esc) {
	case LINE_ESC_START:
		if (c == '[') {
			le->esc = LINE_ESC_CSI;
			le->esc_param = 0;
			le->esc_nparams = 0;
			le->esc_odd = false;
		} else if (c == 'O') {
			le->esc = LINE_ESC_SS3;
		} else {
			le->esc = LINE_ESC_NONE;	/* Alt-key or unknown: drop */
		}
		return;
	case LINE_ESC_SS3:
		le->esc = LINE_ESC_NONE;
		if (c >= 'A' && c <= 'D')
			csi_dispatch(le, c, 0, 0);	/* application cursor keys */
		else if (c == 'H' || c == 'F')
			csi_dispatch(le, c, 0, 0);
		return;
	case LINE_ESC_CSI:
		if (c >= '0' && c <= '9') {
			if (le->esc_nparams == 0)
				le->esc_nparams = 1;
			if (le->esc_nparams == 1) {
				le->esc_param = le->esc_param * 10 + (unsigned int)(c - '0');
				if (le->esc_param > ESC_PARAM_MAX)
					le->esc_param = ESC_PARAM_MAX;
			}
		} else if (c == ';') {
			le->esc_nparams = le->esc_nparams ? le->esc_nparams + 1 : 2;
			if (le->esc_nparams > 16)
				le->esc_nparams = 16;
		} else if (c < 0x40) {
			le->esc_odd = true;	/* ':', '<'-'?', or an intermediate byte */
		} else {
			le->esc = LINE_ESC_NONE;
			if (!le->esc_odd)
				csi_dispatch(le, c, le->esc_param, le->esc_nparams);
		}
		return;
	case LINE_ESC_NONE:
		return;
	}
}

/* Enter: finish the line and report it, or refuse it if it lost characters. */
static enum line_event end_line(struct line_edit *le)
{
	echo_bytes(le, "\n", 1);
	le->reset_pending = true;
	if (le->overlong)
		return LINE_TOO_LONG;
	history_add(le);
	return LINE_DONE;
}

enum line_event line_edit_feed(struct line_edit *le, int c)
{
	if (le->reset_pending) {
		le->reset_pending = false;
		line_clear(le);
	}
	if (c <= 0 || c > 0xff)
		return LINE_NONE;	/* NUL (and out-of-range values) are ignored */
	if (le->after_cr) {
		le->after_cr = false;
		if (c == '\n')
			return LINE_NONE;	/* the LF of a CR LF pair */
	}

	if (le->esc != LINE_ESC_NONE) {
		if (c == ASCII_ESC) {
			le->esc = LINE_ESC_START;	/* a new sequence replaces the old */
			return LINE_NONE;
		}
		if (c >= 0x20 && c < ASCII_DEL) {
			esc_byte(le, c);
			return LINE_NONE;
		}
		le->esc = LINE_ESC_NONE;	/* control byte: abandon, then act on it */
	}

	if (c >= 0x20 && c < ASCII_DEL) {
		insert_char(le, (char)c);
		return LINE_NONE;
	}

	switch (c) {
	case '\r':
		le->after_cr = true;
		return end_line(le);
	case '\n':
		return end_line(le);
	case ASCII_DEL:
	case '\b':
		backspace(le);
		break;
	case ASCII_ESC:
		le->esc = LINE_ESC_START;
		break;
	case KEY_CTRL('A'):
		do_key(le, KEY_HOME);
		break;
	case KEY_CTRL('E'):
		do_key(le, KEY_END);
		break;
	case KEY_CTRL('U'):
		kill_line(le);
		break;
	case KEY_CTRL('C'):
		move_end(le);
		echo_bytes(le, "^C\n", 3);
		le->reset_pending = true;
		return LINE_CANCELLED;
	default:
		break;		/* other control bytes and bytes >= 0x80 */
	}
	return LINE_NONE;
}

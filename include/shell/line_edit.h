/*
 * line_edit.h - a line editor for a byte-stream terminal, as a state machine.
 *
 * The caller feeds input bytes one at a time with line_edit_feed(); the
 * editor changes its line, writes the bytes that redraw it on the terminal
 * to the echo printer, and says when a line is finished.  It knows nothing
 * about where the bytes come from, so the shell drives it from the serial
 * console, and the host tests and the fuzz target drive it from buffers.
 *
 * Keys understood (VT100/xterm encodings):
 *   printable ASCII (0x20-0x7e)  insert at the cursor
 *   CR, LF, CR LF                end the line (a CR followed by LF counts once)
 *   Backspace (0x7f, 0x08)       delete before the cursor
 *   Delete (ESC [ 3 ~)           delete under the cursor
 *   Left/Right (ESC [ D / C)     move the cursor
 *   Home (ESC [ H, ESC O H, ESC [ 1 ~, ESC [ 7 ~, Ctrl-A)
 *   End  (ESC [ F, ESC O F, ESC [ 4 ~, ESC [ 8 ~, Ctrl-E)
 *   Up/Down (ESC [ A / B)        older/newer line of the history
 *   Ctrl-U                       erase the whole line
 *   Ctrl-C                       cancel the line (echoes "^C" and a newline)
 * Everything else is dropped and never stored: other control bytes, NUL,
 * bytes >= 0x80, and unknown escape sequences, which are consumed up to
 * their final byte.  A control byte in the middle of an escape sequence ends
 * the sequence and then acts normally, so Enter and Ctrl-C always work.
 *
 * Redraws use only "\b", spaces and the line's own characters (no cursor
 * addressing), so they work on any terminal that moves left on backspace.
 * Newlines are echoed as "\n"; the console turns them into "\r\n".
 *
 * Invariants: len <= LINE_EDIT_MAX - 1, cursor <= len, buf[len] == '\0', and
 * buf holds only printable ASCII.  When more characters are typed than fit,
 * the extra ones are dropped and `overlong` is set; Enter then reports
 * LINE_TOO_LONG and discards the line, so a truncated command never runs.
 *
 * All state lives in struct line_edit, owned by the caller: any number of
 * editors can exist at once.  Context: single-threaded use of one editor.
 */
#ifndef SHELL_LINE_EDIT_H
#define SHELL_LINE_EDIT_H

#include <lib/types.h>
#include <lib/printer.h>

#define LINE_EDIT_MAX		256	/* bytes in a line, NUL included (= SHELL_MAX_LINE) */
#define LINE_EDIT_HISTORY	16	/* lines kept for Up/Down */

/* What line_edit_feed() reports after one byte. */
enum line_event {
	LINE_NONE = 0,		/* still editing */
	LINE_DONE,		/* Enter: the line is in le->buf */
	LINE_CANCELLED,		/* Ctrl-C: the line was thrown away */
	LINE_TOO_LONG,		/* Enter on an overlong line: thrown away */
};

/* Where the editor is inside an escape sequence. */
enum line_esc_state {
	LINE_ESC_NONE = 0,	/* not in a sequence */
	LINE_ESC_START,		/* after ESC */
	LINE_ESC_CSI,		/* after ESC [, reading parameters */
	LINE_ESC_SS3,		/* after ESC O, waiting for the final byte */
};

struct line_edit {
	char buf[LINE_EDIT_MAX];	/* the line, NUL-terminated */
	size_t len;			/* characters in buf */
	size_t cursor;			/* insertion point, 0..len */
	bool overlong;			/* characters were dropped for lack of room */
	bool after_cr;			/* last byte was CR: swallow one LF */
	bool reset_pending;		/* a line was returned: start afresh on the next byte */
	enum line_esc_state esc;	/* escape sequence parser state */
	unsigned int esc_param;		/* first numeric CSI parameter (saturates) */
	unsigned int esc_nparams;	/* CSI parameters seen (a ';' starts another) */
	bool esc_odd;			/* CSI had intermediate or private bytes */
	char history[LINE_EDIT_HISTORY][LINE_EDIT_MAX]; /* ring of entered lines */
	unsigned int hist_next;		/* slot the next entered line goes to */
	unsigned int hist_count;	/* valid slots, <= LINE_EDIT_HISTORY */
	unsigned int hist_pos;		/* 0: own line; n: n-th most recent entry shown */
	char saved[LINE_EDIT_MAX];	/* own line while browsing the history */
	bool saved_overlong;		/* its overlong flag */
	struct printer *echo;		/* where redraw bytes go; never NULL */
};

/*
 * line_edit_init() - make le an empty editor with an empty history that
 * echoes to echo (a printer that discards is fine; NULL is not).
 */
void line_edit_init(struct line_edit *le, struct printer *echo);

/*
 * line_edit_feed() - take one input byte c (0-255; other values are ignored)
 * and return what it did to the line.  After LINE_DONE le->buf holds the
 * line without its line ending; the caller may read and modify it until the
 * next call, which starts a new empty line.  Non-empty lines that differ
 * from the newest history entry are added to the history.
 * Context: the editor's owner only.
 */
enum line_event line_edit_feed(struct line_edit *le, int c);

#endif

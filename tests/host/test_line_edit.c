/*
 * test_line_edit.c - the line editor against a model terminal.
 *
 * Every test feeds bytes as a terminal would send them and checks three
 * things: the events, the line the editor holds, and what the echo drew on
 * the model terminal (term_model.h), so a redraw that leaves stale
 * characters or a misplaced cursor fails even when the buffer is right.
 */
#include "htest.h"
#include "term_model.h"
#include <shell/line_edit.h>

#define UP	"\x1b[A"
#define DOWN	"\x1b[B"
#define RIGHT	"\x1b[C"
#define LEFT	"\x1b[D"

struct fixture {
	struct line_edit le;
	struct term_model term;
	int nr_done, nr_cancelled, nr_too_long;	/* events so far */
	char last_line[LINE_EDIT_MAX];		/* line of the last LINE_DONE */
};

static struct fixture fx;

static struct line_edit *setup(void)
{
	memset(&fx, 0, sizeof(fx));
	term_init(&fx.term);
	line_edit_init(&fx.le, &fx.term.p);
	return &fx.le;
}

/* Feed n bytes; returns the event of the last byte. */
static enum line_event feedn(const char *s, size_t n)
{
	enum line_event ev = LINE_NONE;

	for (size_t i = 0; i < n; i++) {
		ev = line_edit_feed(&fx.le, (unsigned char)s[i]);
		if (ev == LINE_DONE) {
			fx.nr_done++;
			strcpy(fx.last_line, fx.le.buf);
		} else if (ev == LINE_CANCELLED) {
			fx.nr_cancelled++;
		} else if (ev == LINE_TOO_LONG) {
			fx.nr_too_long++;
		}
	}
	return ev;
}

static enum line_event feed(const char *s)
{
	return feedn(s, strlen(s));
}

HTEST(line_edit_plain_line)
{
	setup();
	CHECK_EQ(feed("ls /proc"), LINE_NONE);
	CHECK_STREQ(fx.le.buf, "ls /proc");
	CHECK(term_matches(&fx.term, &fx.le));
	CHECK_EQ(feed("\r"), LINE_DONE);
	CHECK_STREQ(fx.le.buf, "ls /proc");
	CHECK_STREQ(fx.term.last_row, "ls /proc");
	CHECK_EQ(fx.term.rows_done, 1);
	/* The next byte starts a fresh line. */
	feed("x");
	CHECK_STREQ(fx.le.buf, "x");
	CHECK(term_matches(&fx.term, &fx.le));
}

HTEST(line_edit_crlf_counts_once)
{
	setup();
	feed("a\r\nb\r\n");
	CHECK_EQ(fx.nr_done, 2);
	CHECK_STREQ(fx.last_line, "b");
	CHECK_EQ(fx.term.rows_done, 2);

	setup();
	feed("\r\n\r\n");
	CHECK_EQ(fx.nr_done, 2);
	CHECK_EQ(fx.term.rows_done, 2);

	setup();
	feed("\n\n");
	CHECK_EQ(fx.nr_done, 2);
	setup();
	feed("\r\r");
	CHECK_EQ(fx.nr_done, 2);
	/* LF then CR is two line ends too (only CR LF pairs). */
	setup();
	feed("\n\r");
	CHECK_EQ(fx.nr_done, 2);
	/* A CR LF split by a NUL still counts once. */
	setup();
	feedn("a\r\0\n", 4);
	CHECK_EQ(fx.nr_done, 1);
}

HTEST(line_edit_backspace)
{
	setup();
	feed("abc\x7f");
	CHECK_STREQ(fx.le.buf, "ab");
	CHECK(term_matches(&fx.term, &fx.le));
	feed("\x08");
	CHECK_STREQ(fx.le.buf, "a");
	CHECK(term_matches(&fx.term, &fx.le));
	feed("\x7f\x7f\x7f");		/* extra backspaces at column 0 do nothing */
	CHECK_STREQ(fx.le.buf, "");
	CHECK_EQ(fx.le.cursor, 0);
	CHECK(term_matches(&fx.term, &fx.le));
	feed("d\r");
	CHECK_STREQ(fx.last_line, "d");

	/* The erase sequence itself. */
	{
		char out[64];
		struct buf_printer bp;

		buf_printer_init(&bp, out, sizeof(out));
		line_edit_init(&fx.le, &bp.p);
		feed("ab\x7f");
		CHECK_STREQ(out, "ab\b \b");
	}
}

HTEST(line_edit_ctrl_u_kills_line)
{
	setup();
	feed("hello world");
	feed(LEFT LEFT LEFT);
	feed("\x15");
	CHECK_STREQ(fx.le.buf, "");
	CHECK_EQ(fx.le.cursor, 0);
	CHECK(term_matches(&fx.term, &fx.le));
	feed("bye\r");
	CHECK_STREQ(fx.last_line, "bye");
	CHECK_STREQ(fx.term.last_row, "bye");
}

HTEST(line_edit_ctrl_c_cancels)
{
	setup();
	feed("abc" LEFT);
	CHECK_EQ(feed("\x03"), LINE_CANCELLED);
	CHECK_EQ(fx.nr_done, 0);
	CHECK_STREQ(fx.term.last_row, "abc^C");
	CHECK_EQ(fx.term.rows_done, 1);
	CHECK_EQ(feed("x\r"), LINE_DONE);
	CHECK_STREQ(fx.last_line, "x");
	/* A cancelled line is not in the history. */
	feed(UP);
	CHECK_STREQ(fx.le.buf, "x");
	feed(UP);
	CHECK_STREQ(fx.le.buf, "x");
}

HTEST(line_edit_cursor_insert_delete)
{
	setup();
	feed("ac" LEFT "b");
	CHECK_STREQ(fx.le.buf, "abc");
	CHECK_EQ(fx.le.cursor, 2);
	CHECK(term_matches(&fx.term, &fx.le));

	feed(LEFT "\x7f");		/* backspace at column 1 */
	CHECK_STREQ(fx.le.buf, "bc");
	CHECK_EQ(fx.le.cursor, 0);
	CHECK(term_matches(&fx.term, &fx.le));

	feed("\x1b[3~");		/* Delete under the cursor */
	CHECK_STREQ(fx.le.buf, "c");
	CHECK(term_matches(&fx.term, &fx.le));
	feed(RIGHT "\x1b[3~");		/* Delete at the end: nothing */
	CHECK_STREQ(fx.le.buf, "c");
	CHECK_EQ(fx.le.cursor, 1);
	feed(RIGHT RIGHT);		/* Right at the end: nothing */
	CHECK_EQ(fx.le.cursor, 1);
	feed(LEFT LEFT LEFT);		/* Left at column 0: nothing */
	CHECK_EQ(fx.le.cursor, 0);
	CHECK(term_matches(&fx.term, &fx.le));
	feed("\r");
	CHECK_STREQ(fx.last_line, "c");
}

HTEST(line_edit_home_end)
{
	static const char *const homes[] = { "\x1b[H", "\x1bOH", "\x1b[1~", "\x1b[7~", "\x01" };
	static const char *const ends[] = { "\x1b[F", "\x1bOF", "\x1b[4~", "\x1b[8~", "\x05" };

	for (size_t i = 0; i < ARRAY_SIZE(homes); i++) {
		setup();
		feed("bc");
		feed(homes[i]);
		CHECK_EQ(fx.le.cursor, 0);
		feed("a");
		feed(ends[i]);
		CHECK_EQ(fx.le.cursor, 3);
		feed("d");
		CHECK_STREQ(fx.le.buf, "abcd");
		CHECK(term_matches(&fx.term, &fx.le));
	}
}

HTEST(line_edit_history)
{
	setup();
	feed("one\r" "two\r" "two\r");
	feed(UP);
	CHECK_STREQ(fx.le.buf, "two");
	CHECK(term_matches(&fx.term, &fx.le));
	feed(UP);
	CHECK_STREQ(fx.le.buf, "one");	/* the repeated "two" was kept once */
	CHECK(term_matches(&fx.term, &fx.le));
	feed(UP);
	CHECK_STREQ(fx.le.buf, "one");	/* no older entry */
	feed(DOWN);
	CHECK_STREQ(fx.le.buf, "two");
	feed(DOWN);
	CHECK_STREQ(fx.le.buf, "");
	CHECK(term_matches(&fx.term, &fx.le));

	/* The line being typed comes back after browsing. */
	feed("par");
	feed(UP UP);
	CHECK_STREQ(fx.le.buf, "one");
	feed(DOWN DOWN);
	CHECK_STREQ(fx.le.buf, "par");
	CHECK_EQ(fx.le.cursor, 3);
	CHECK(term_matches(&fx.term, &fx.le));

	/* A recalled line can be edited and run. */
	feed("\x15" UP "\x7f" "o\r");
	CHECK_STREQ(fx.last_line, "two");	/* "two" -> "tw" -> "two" */
	/* Empty lines are not remembered. */
	feed("\r" UP);
	CHECK_STREQ(fx.le.buf, "two");
}

HTEST(line_edit_history_ring)
{
	char line[16];

	setup();
	for (int i = 0; i < 20; i++) {
		snprintf(line, sizeof(line), "cmd%d\r", i);
		feed(line);
	}
	for (int i = 0; i < 25; i++)
		feed(UP);
	/* 16 entries kept: cmd4 .. cmd19. */
	CHECK_STREQ(fx.le.buf, "cmd4");
	feed(DOWN);
	CHECK_STREQ(fx.le.buf, "cmd5");
	CHECK(term_matches(&fx.term, &fx.le));
}

HTEST(line_edit_unknown_escapes_are_swallowed)
{
	setup();
	feed("a\x1b[1;5Cb");		/* Ctrl-Right: ignored */
	CHECK_STREQ(fx.le.buf, "ab");
	feed("\x1b[?25hc");		/* private CSI */
	feed("\x1bOZd");		/* unknown SS3 */
	feed("\x1bxe");			/* Alt-x */
	feed("\x1b[200~f\x1b[201~");	/* bracketed paste markers */
	feed("\x1b[5~g");		/* Page Up */
	feed("\x1b[12345678901234567890Ah");	/* huge parameter */
	feed("\x1b[2Dx");		/* a count: ignored, not two Lefts */
	CHECK_STREQ(fx.le.buf, "abcdefghx");
	CHECK_EQ(fx.le.cursor, 9);
	CHECK(term_matches(&fx.term, &fx.le));
	/* ESC ESC [ D: the second ESC starts over, the Left works. */
	feed("\x1b\x1b[D");
	CHECK_EQ(fx.le.cursor, 8);
	/* A control byte ends a sequence and then acts: Enter still works. */
	CHECK_EQ(feed("\x1b[1;\r"), LINE_DONE);
	CHECK_STREQ(fx.last_line, "abcdefghx");
	CHECK_EQ(feed("\x1b\x03"), LINE_CANCELLED);
}

HTEST(line_edit_ignores_controls_and_high_bytes)
{
	setup();
	feedn("a\0\x02\x04\t\x0b\x0c\x0e\x1f\x80\xc3\xa9\xffz", 14);
	CHECK_STREQ(fx.le.buf, "az");
	CHECK(term_matches(&fx.term, &fx.le));
	/* Values outside 0..255 (a caller's EOF) are ignored too. */
	CHECK_EQ(line_edit_feed(&fx.le, -1), LINE_NONE);
	CHECK_EQ(line_edit_feed(&fx.le, 0x141), LINE_NONE);
	CHECK_STREQ(fx.le.buf, "az");
}

HTEST(line_edit_overlong_line)
{
	char big[400];

	setup();
	memset(big, 'x', sizeof(big));
	feedn(big, LINE_EDIT_MAX - 1);
	CHECK_EQ(fx.le.len, LINE_EDIT_MAX - 1);
	CHECK(!fx.le.overlong);
	CHECK_EQ(feed("\r"), LINE_DONE);	/* exactly 255 characters fit */
	CHECK_EQ(strlen(fx.last_line), LINE_EDIT_MAX - 1);

	feedn(big, sizeof(big));
	CHECK_EQ(fx.le.len, LINE_EDIT_MAX - 1);
	CHECK(fx.le.overlong);
	CHECK(term_matches(&fx.term, &fx.le));
	feed("\x7f\x7f");			/* room again, but the line stays refused */
	CHECK_EQ(feed("\r"), LINE_TOO_LONG);
	CHECK_EQ(fx.nr_done, 1);
	CHECK_EQ(feed("ok\r"), LINE_DONE);
	CHECK_STREQ(fx.last_line, "ok");
	/* The refused line is not in the history: Up Up finds the 255 x's. */
	feed(UP UP);
	big[LINE_EDIT_MAX - 1] = '\0';
	CHECK_STREQ(fx.le.buf, big);
	CHECK(!fx.le.overlong);
	CHECK(term_matches(&fx.term, &fx.le));
	memset(big, 'x', sizeof(big));

	/* Ctrl-U forgets the overflow. */
	setup();
	feedn(big, sizeof(big));
	feed("\x15" "ls\r");
	CHECK_EQ(fx.nr_done, 1);
	CHECK_STREQ(fx.last_line, "ls");
}

/* Random keys; after each, the screen must show the line and the cursor. */
HTEST(line_edit_random_keys_keep_screen_in_step)
{
	static const char *const keys[] = {
		"a", "b", " ", "\x7f", "\b", LEFT, RIGHT, UP, DOWN, "\x1b[H", "\x1b[F",
		"\x1b[3~", "\x01", "\x05", "\x15", "\r", "\x03", "\x1b[1;5D", "\x1b",
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	};
	unsigned int seed = 12345;
	int mismatches = 0;

	setup();
	for (int i = 0; i < 20000; i++) {
		enum line_event ev;

		seed = seed * 1103515245 + 12345;
		ev = feed(keys[(seed >> 16) % ARRAY_SIZE(keys)]);
		if (ev != LINE_NONE || fx.le.esc != LINE_ESC_NONE)
			continue;	/* the row just ended, or a sequence is pending */
		if (!term_matches(&fx.term, &fx.le))
			mismatches++;
		if (fx.le.len >= LINE_EDIT_MAX || fx.le.cursor > fx.le.len ||
		    fx.le.buf[fx.le.len] != '\0')
			mismatches++;
	}
	CHECK_EQ(mismatches, 0);
	CHECK(fx.nr_done > 0);
}

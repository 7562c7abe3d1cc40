/*
 * test_scancode.c - PS/2 scancodes to terminal bytes
 * (drivers/input/scancode.c), in set 1 and set 2.
 */
#include "htest.h"
#include <drivers/input.h>

/* Feed codes[0, n) and collect every byte made, NUL-terminated. */
static const char *feed(struct kbd_state *k, const u8 *codes, size_t n)
{
	static char out[64];
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		char b[KBD_OUT_MAX];
		int got = kbd_feed(k, codes[i], b);

		CHECK(got >= 0 && got <= KBD_OUT_MAX);
		for (int j = 0; j < got && len + 1 < sizeof(out); j++)
			out[len++] = b[j];
	}
	out[len] = '\0';
	return out;
}

HTEST(scancode_set1_letters_shift_enter)
{
	/* "version" + Enter; Shift-a; Caps Lock a; Backspace */
	static const u8 codes[] = {
		0x2f, 0xaf, 0x12, 0x92, 0x13, 0x93, 0x1f, 0x9f, 0x17, 0x97,
		0x18, 0x98, 0x31, 0xb1, 0x1c, 0x9c,
		0x2a, 0x1e, 0x9e, 0xaa, 0x1e,
		0x3a, 0xba, 0x1e, 0x2a, 0x1e, 0xaa, 0x3a, 0xba,
		0x0e, 0x02, 0x2a, 0x02, 0xaa,
	};
	struct kbd_state k;

	kbd_init(&k, 1);
	CHECK_STREQ(feed(&k, codes, sizeof(codes)), "version\rAaAa\x7f" "1!");
}

HTEST(scancode_set1_ctrl_and_arrows)
{
	static const u8 codes[] = {
		0x1d, 0x1e, 0x9e, 0x9d,			/* Ctrl-A */
		0xe0, 0x1d, 0x2e, 0xe0, 0x9d,		/* right Ctrl-C */
		0xe0, 0x48, 0xe0, 0xc8,			/* up */
		0xe0, 0x4b, 0xe0, 0x4d, 0xe0, 0x50,	/* left, right, down */
		0xe0, 0x47, 0xe0, 0x4f, 0xe0, 0x53,	/* home, end, delete */
		0xe0, 0x2a, 0xe0, 0x48,			/* fake shift: still up */
		0x48,					/* keypad 8: ignored */
		0xe1, 0x1d, 0x45, 0xe1, 0x9d, 0xc5,	/* Pause: nothing */
		0x01,					/* Esc */
	};
	struct kbd_state k;

	kbd_init(&k, 1);
	CHECK_STREQ(feed(&k, codes, sizeof(codes)),
		    "\x01\x03\x1b[A\x1b[D\x1b[C\x1b[B\x1b[H\x1b[F\x1b[3~\x1b[A\x1b");
}

HTEST(scancode_set2)
{
	static const u8 codes[] = {
		0x2a, 0xf0, 0x2a, 0x24, 0xf0, 0x24,	/* v e */
		0x12, 0x1c, 0xf0, 0x1c, 0xf0, 0x12,	/* Shift-a */
		0x14, 0x21, 0xf0, 0x21, 0xf0, 0x14,	/* Ctrl-C */
		0xe0, 0x75, 0xe0, 0xf0, 0x75,		/* up */
		0xe0, 0x71, 0xe0, 0xf0, 0x71,		/* delete */
		0x5a, 0xf0, 0x5a,			/* Enter */
		0xfa, 0xaa,				/* ack, self-test: nothing */
		0x66, 0x29,				/* Backspace, space */
	};
	struct kbd_state k;

	kbd_init(&k, 2);
	CHECK_STREQ(feed(&k, codes, sizeof(codes)), "veA\x03\x1b[A\x1b[3~\r\x7f ");
}

/* Every byte in every state: no output beyond KBD_OUT_MAX, no fault. */
HTEST(scancode_every_byte)
{
	for (u8 set = 1; set <= 2; set++) {
		struct kbd_state k;

		kbd_init(&k, set);
		for (u32 a = 0; a < 256; a++)
			for (u32 b = 0; b < 256; b += 7) {
				const u8 codes[] = { (u8)a, (u8)b, 0xe0, (u8)b };

				feed(&k, codes, sizeof(codes));
			}
	}
}

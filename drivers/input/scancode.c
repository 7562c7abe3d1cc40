/*
 * scancode.c - PS/2 scancodes (set 1 or set 2) to terminal bytes; see
 * include/drivers/input.h for what each key gives.
 *
 * Set 2 make codes are first turned into the set 1 code of the same key
 * (set2_to_set1[]), so one key table serves both sets.  Set 1 marks a
 * release with bit 7, set 2 with an 0xf0 prefix; both mark the extra keys
 * (arrows, right Ctrl, ...) with an 0xe0 prefix.  Only what memlab's line
 * editor uses is translated; the rest (function keys, the keypad's
 * numbers) is ignored.  Portable: no kernel calls.
 */
#include <drivers/input.h>
#include <lib/string.h>

/* Set 1 make codes of the keys that are not characters. */
#define SC1_LCTRL	0x1d	/* with 0xe0: right Ctrl */
#define SC1_LSHIFT	0x2a
#define SC1_RSHIFT	0x36
#define SC1_ALT		0x38	/* with 0xe0: right Alt */
#define SC1_CAPS	0x3a
#define SC1_ENTER	0x1c	/* with 0xe0: keypad Enter */
#define SC1_HOME	0x47	/* the 0xe0 ones */
#define SC1_UP		0x48
#define SC1_LEFT	0x4b
#define SC1_RIGHT	0x4d
#define SC1_END		0x4f
#define SC1_DOWN	0x50
#define SC1_DELETE	0x53

/* Set 1 make code -> character, without and with Shift; 0: not a character. */
static const char keymap[0x3a][2] = {
	[0x01] = { 0x1b, 0x1b },
	[0x02] = { '1', '!' }, [0x03] = { '2', '@' }, [0x04] = { '3', '#' },
	[0x05] = { '4', '$' }, [0x06] = { '5', '%' }, [0x07] = { '6', '^' },
	[0x08] = { '7', '&' }, [0x09] = { '8', '*' }, [0x0a] = { '9', '(' },
	[0x0b] = { '0', ')' }, [0x0c] = { '-', '_' }, [0x0d] = { '=', '+' },
	[0x0e] = { 0x7f, 0x7f }, [0x0f] = { '\t', '\t' },
	[0x10] = { 'q', 'Q' }, [0x11] = { 'w', 'W' }, [0x12] = { 'e', 'E' },
	[0x13] = { 'r', 'R' }, [0x14] = { 't', 'T' }, [0x15] = { 'y', 'Y' },
	[0x16] = { 'u', 'U' }, [0x17] = { 'i', 'I' }, [0x18] = { 'o', 'O' },
	[0x19] = { 'p', 'P' }, [0x1a] = { '[', '{' }, [0x1b] = { ']', '}' },
	[0x1c] = { '\r', '\r' },
	[0x1e] = { 'a', 'A' }, [0x1f] = { 's', 'S' }, [0x20] = { 'd', 'D' },
	[0x21] = { 'f', 'F' }, [0x22] = { 'g', 'G' }, [0x23] = { 'h', 'H' },
	[0x24] = { 'j', 'J' }, [0x25] = { 'k', 'K' }, [0x26] = { 'l', 'L' },
	[0x27] = { ';', ':' }, [0x28] = { '\'', '"' }, [0x29] = { '`', '~' },
	[0x2b] = { '\\', '|' },
	[0x2c] = { 'z', 'Z' }, [0x2d] = { 'x', 'X' }, [0x2e] = { 'c', 'C' },
	[0x2f] = { 'v', 'V' }, [0x30] = { 'b', 'B' }, [0x31] = { 'n', 'N' },
	[0x32] = { 'm', 'M' }, [0x33] = { ',', '<' }, [0x34] = { '.', '>' },
	[0x35] = { '/', '?' }, [0x37] = { '*', '*' }, [0x39] = { ' ', ' ' },
};

/* Set 2 make code -> set 1 make code of the same key (0: not translated). */
static const u8 set2_to_set1[0x80] = {
	[0x76] = 0x01, [0x16] = 0x02, [0x1e] = 0x03, [0x26] = 0x04, [0x25] = 0x05,
	[0x2e] = 0x06, [0x36] = 0x07, [0x3d] = 0x08, [0x3e] = 0x09, [0x46] = 0x0a,
	[0x45] = 0x0b, [0x4e] = 0x0c, [0x55] = 0x0d, [0x66] = 0x0e, [0x0d] = 0x0f,
	[0x15] = 0x10, [0x1d] = 0x11, [0x24] = 0x12, [0x2d] = 0x13, [0x2c] = 0x14,
	[0x35] = 0x15, [0x3c] = 0x16, [0x43] = 0x17, [0x44] = 0x18, [0x4d] = 0x19,
	[0x54] = 0x1a, [0x5b] = 0x1b, [0x5a] = 0x1c, [0x14] = 0x1d, [0x1c] = 0x1e,
	[0x1b] = 0x1f, [0x23] = 0x20, [0x2b] = 0x21, [0x34] = 0x22, [0x33] = 0x23,
	[0x3b] = 0x24, [0x42] = 0x25, [0x4b] = 0x26, [0x4c] = 0x27, [0x52] = 0x28,
	[0x0e] = 0x29, [0x12] = 0x2a, [0x5d] = 0x2b, [0x1a] = 0x2c, [0x22] = 0x2d,
	[0x21] = 0x2e, [0x2a] = 0x2f, [0x32] = 0x30, [0x31] = 0x31, [0x3a] = 0x32,
	[0x41] = 0x33, [0x49] = 0x34, [0x4a] = 0x35, [0x59] = 0x36, [0x7c] = 0x37,
	[0x11] = 0x38, [0x29] = 0x39, [0x58] = 0x3a,
	/* keys that only come after 0xe0 in set 2 */
	[0x75] = SC1_UP, [0x72] = SC1_DOWN, [0x6b] = SC1_LEFT, [0x74] = SC1_RIGHT,
	[0x6c] = SC1_HOME, [0x69] = SC1_END, [0x71] = SC1_DELETE,
};

void kbd_init(struct kbd_state *k, u8 set)
{
	memset(k, 0, sizeof(*k));
	k->set = set == 2 ? 2 : 1;
}

/* An escape sequence for the 0xe0 keys, or NULL. */
static const char *extended_key(u8 sc1)
{
	switch (sc1) {
	case SC1_UP:		return "\x1b[A";
	case SC1_DOWN:		return "\x1b[B";
	case SC1_RIGHT:		return "\x1b[C";
	case SC1_LEFT:		return "\x1b[D";
	case SC1_HOME:		return "\x1b[H";
	case SC1_END:		return "\x1b[F";
	case SC1_DELETE:	return "\x1b[3~";
	case SC1_ENTER:		return "\r";
	default:		return NULL;
	}
}

/* One key of set 1 code sc1, pressed (release false) or released. */
static int key_event(struct kbd_state *k, u8 sc1, bool e0, bool release,
		     char out[KBD_OUT_MAX])
{
	bool shift, upper;
	char c;

	switch (sc1) {
	case SC1_LSHIFT:
		if (!e0)	/* 0xe0 0x2a: a fake shift around the extra keys */
			k->lshift = !release;
		return 0;
	case SC1_RSHIFT:
		if (!e0)
			k->rshift = !release;
		return 0;
	case SC1_LCTRL:
		if (e0)
			k->rctrl = !release;
		else
			k->lctrl = !release;
		return 0;
	case SC1_ALT:
		k->alt = !release;
		return 0;
	case SC1_CAPS:
		if (!release)
			k->caps = !k->caps;
		return 0;
	default:
		break;
	}
	if (release)
		return 0;
	if (e0) {
		const char *seq = extended_key(sc1);
		size_t n = seq ? strlen(seq) : 0;

		if (n)
			memcpy(out, seq, n);
		return (int)n;
	}
	if (sc1 >= ARRAY_SIZE(keymap) || !keymap[sc1][0])
		return 0;
	shift = k->lshift || k->rshift;
	c = keymap[sc1][0];
	upper = shift;
	if (c >= 'a' && c <= 'z')
		upper = shift != k->caps;
	c = keymap[sc1][upper ? 1 : 0];
	if ((k->lctrl || k->rctrl) && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
		c &= 0x1f;	/* Ctrl-A is 0x01 ... Ctrl-Z 0x1a */
	out[0] = c;
	return 1;
}

int kbd_feed(struct kbd_state *k, u8 code, char out[KBD_OUT_MAX])
{
	bool e0, release;
	u8 sc1;

	if (k->skip) {
		k->skip--;
		return 0;
	}
	if (code == 0xe0) {
		k->e0 = true;
		return 0;
	}
	if (code == 0xe1) {		/* Pause: a fixed sequence, nothing to type */
		k->skip = k->set == 1 ? 5 : 7;
		k->e0 = k->release = false;
		return 0;
	}
	if (k->set == 2 && code == 0xf0) {
		k->release = true;
		return 0;
	}
	e0 = k->e0;
	k->e0 = false;
	if (k->set == 1) {
		release = code & 0x80;
		sc1 = code & 0x7f;
	} else {
		release = k->release;
		k->release = false;
		if (code >= 0x80)
			return 0;	/* 0xfa acks, 0xaa self-test, 0x83 F7 */
		sc1 = set2_to_set1[code];
		if (!sc1)
			return 0;
	}
	return key_event(k, sc1, e0, release, out);
}

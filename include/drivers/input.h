/*
 * input.h - the PS/2 keyboard: scancodes to the bytes a terminal sends.
 *
 * drivers/input/scancode.c is portable (the host tests feed it scancodes):
 * kbd_feed() takes one byte from the keyboard, in scancode set 1 (what the
 * i8042 gives when it translates, the usual setting) or set 2, and writes
 * the bytes a VT100 terminal would send for the key: letters and symbols
 * (Shift, Caps Lock), Enter as "\r", Backspace as DEL (0x7f), Tab, Esc,
 * Ctrl+letter as 0x01-0x1a, arrows as ESC [ A/B/C/D, Home/End as ESC [ H/F,
 * Delete as ESC [ 3 ~.  drivers/input/i8042.c reads the controller.
 */
#ifndef DRIVERS_INPUT_H
#define DRIVERS_INPUT_H

#include <lib/types.h>

#define KBD_OUT_MAX	4	/* bytes kbd_feed() writes at most */

struct kbd_state {
	u8 set;			/* 1 or 2 */
	bool e0;		/* an 0xe0 prefix came */
	bool release;		/* set 2: an 0xf0 prefix came */
	u8 skip;		/* bytes of a Pause sequence still to swallow */
	bool lshift, rshift, lctrl, rctrl, alt, caps;
};

/* kbd_init() - no key down, Caps Lock off, reading scancode set (1 or 2). */
void kbd_init(struct kbd_state *k, u8 set);

/*
 * kbd_feed() - one scancode byte; the bytes it makes go to out[0, n), and
 * n (0 to KBD_OUT_MAX) is returned.  Unknown keys and releases give 0.
 * Context: any; touches k and out only.
 */
int kbd_feed(struct kbd_state *k, u8 code, char out[KBD_OUT_MAX]);

/* i8042_init() - find the PS/2 controller and register the keyboard (i8042.c). */
void i8042_init(void);

#endif

/*
 * i8042.c - the PS/2 keyboard behind the i8042 controller (ports 0x60 and
 * 0x64), as a second input of the console.
 *
 * The keyboard is polled: console.c calls the getc hook from the main loop,
 * which the 100 Hz tick wakes, so a key shows within 10 ms and no interrupt
 * routing is needed.  The controller's configuration byte says whether it
 * translates the keyboard's set 2 into set 1 (bit 6, what firmware leaves
 * on); scancode.c reads whichever set that gives.  Bytes from the second
 * port (a mouse, bit 5 of the status) are dropped.  A controller that is
 * not there reads 0xff: no keyboard is registered.
 *
 * Context: i8042_init() at boot; the hooks from the main loop.
 */
#include <drivers/input.h>
#include <kernel/console.h>
#include <arch/io.h>
#include <lib/printk.h>

#define I8042_DATA		0x60
#define I8042_STATUS		0x64	/* read */
#define I8042_COMMAND		0x64	/* write */
#define STATUS_OUT_FULL		0x01	/* a byte waits in the data port */
#define STATUS_IN_FULL		0x02	/* the controller has not taken our last byte */
#define STATUS_AUX		0x20	/* the waiting byte is from the second port */
#define CMD_READ_CONFIG		0x20
#define CONFIG_TRANSLATE	0x40
#define SPINS			100000	/* status polls before giving up */

static struct kbd_state kbd;
static char kbd_pending[KBD_OUT_MAX];	/* bytes of the last key not yet taken */
static int kbd_nr_pending, kbd_next;

static bool wait_status(u8 mask, bool set)
{
	for (u32 i = 0; i < SPINS; i++)
		if (!!(inb(I8042_STATUS) & mask) == set)
			return true;
	return false;
}

/* Interrupts are off (console.c). */
static int kbd_getc(struct console *con)
{
	(void)con;
	while (kbd_next >= kbd_nr_pending) {
		u8 st = inb(I8042_STATUS), code;

		if (!(st & STATUS_OUT_FULL))
			return -1;
		code = inb(I8042_DATA);
		if (st & STATUS_AUX)
			continue;	/* a mouse byte */
		kbd_nr_pending = kbd_feed(&kbd, code, kbd_pending);
		kbd_next = 0;
	}
	return (u8)kbd_pending[kbd_next++];
}

static struct console kbd_console = {
	.name = "kbd",
	.getc = kbd_getc,
};

/*
 * i8042_init() - see input.h: read the configuration byte for the
 * scancode set, empty the output buffer, register the keyboard.
 * Context: boot.
 */
void i8042_init(void)
{
	u8 config;

	if (inb(I8042_STATUS) == 0xff) {
		pr_info("i8042: no PS/2 controller; no keyboard console");
		return;
	}
	for (u32 i = 0; i < 64 && (inb(I8042_STATUS) & STATUS_OUT_FULL); i++)
		(void)inb(I8042_DATA);		/* what firmware left */
	if (!wait_status(STATUS_IN_FULL, false))
		goto stuck;
	outb(I8042_COMMAND, CMD_READ_CONFIG);
	if (!wait_status(STATUS_OUT_FULL, true))
		goto stuck;
	config = inb(I8042_DATA);
	kbd_init(&kbd, (config & CONFIG_TRANSLATE) ? 1 : 2);
	console_register(&kbd_console);
	pr_info("i8042: PS/2 keyboard, scancode set %u%s, polled", kbd.set,
		kbd.set == 1 ? " (translated by the controller)" : "");
	return;
stuck:
	pr_warn("i8042: the controller does not answer; no keyboard console");
}

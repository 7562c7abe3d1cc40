/*
 * console.h - the byte stream the shell talks over, fanned out to every
 * console device: COM1, the screen, the PS/2 keyboard.
 *
 * A driver describes its device with a struct console and registers it;
 * console_write() sends the bytes to every device that writes, and
 * console_getc() takes the next byte from whichever device that reads has
 * one (serial and keyboard feed the same shell).  "\n" means a new line:
 * the serial driver sends "\r\n", the screen moves to the next row's start.
 * Output is synchronous per device (a screen may draw late: see .idle).
 *
 * Context: console_write() from any context; console_getc() only from the
 * main loop (it may halt the CPU while waiting); console_register() at boot.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <lib/types.h>

struct console {
	const char *name;			/* "ttyS0", "fb0", "kbd" */
	/* Output; NULL for an input-only device.  Any context. */
	void (*write)(struct console *con, const char *s, size_t len);
	/* The next input byte or -1; NULL for an output-only device.
	 * Called with interrupts off, from the main loop. */
	int (*getc)(struct console *con);
	/* Input is waiting that getc() will return; NULL if getc() is never
	 * fed by an interrupt (polled devices rely on the 100 Hz tick).
	 * Called with interrupts off, just before the CPU halts. */
	bool (*pending)(struct console *con);
	/* The main loop is about to wait for input: finish deferred output
	 * (a screen draws what changed).  NULL if nothing is deferred. */
	void (*idle)(struct console *con);
	struct console *next;			/* console.c's list */
};

/*
 * console_register() - add con to the devices console_write() and
 * console_getc() use, after those already registered.  con must stay valid
 * for ever (static).  Context: boot, main loop.
 */
void console_register(struct console *con);

/* console_write() - len bytes to every console that writes. Any context. */
void console_write(const char *s, size_t len);
void console_putc(char c);

/*
 * console_flush() - let every console finish deferred output now (panic,
 * before the main loop waits).  Any context.
 */
void console_flush(void);

/* console_getc() - the next input byte, waiting for one (console_idle()
 * runs meanwhile). Never fails. */
int console_getc(void);

/*
 * console_idle() - one round of the main loop's idle point: deferred work,
 * pollers, one slice of every long operation (longop.h), screens drawn;
 * then, if none of those has more to do and no input waits, halt until
 * the next interrupt.  console_getc() calls it while no byte waits; the
 * shell calls it while a foreground job runs.  Context: (main), never
 * from inside a kthread.
 */
void console_idle(void);

/* console_trygetc() - the next input byte, or -1 if none is waiting
 * (bytes console_interrupted() read ahead come first). */
int console_trygetc(void);

/* Ctrl-C, the byte that interrupts a long shell command. */
#define CONSOLE_INTR		0x03
/* Ctrl-Z, the byte that stops a foreground job (`fg`, `bg` go on with it). */
#define CONSOLE_SUSP		0x1a
/* After a byte inside a line, console_getc() waits this long for the next
 * one before it runs the idle point's work (console.c: line_byte_ns). */
#define CONSOLE_LINE_GAP_NS	(10000ull * 1000)
/* console_interrupted() looks at the devices at most this often. */
#define CONSOLE_PEEK_NS		(1000ull * 1000)

/*
 * console_interrupted() - has Ctrl-C been typed?  Reads every waiting
 * byte: a Ctrl-C is consumed and makes it return true; any other byte is
 * kept, in order, for console_trygetc() (up to 256 bytes; beyond that
 * they wait in the device).  Cheap enough for the inner loop of a long
 * command: it looks at the devices at most once per CONSOLE_PEEK_NS and
 * otherwise only reads the clock.  Context: (main), not in an interrupt.
 */
bool console_interrupted(void);

/*
 * console_read_controls() - what a foreground job's wait loop asks: read
 * every waiting byte as console_interrupted() does (no rate limit), take
 * out each Ctrl-C and Ctrl-Z, and return which were seen:
 * CONSOLE_SAW_INTR | CONSOLE_SAW_SUSP, or 0.  Other bytes are kept, in
 * order, for the prompt.  Context: (main).
 */
#define CONSOLE_SAW_INTR	0x1
#define CONSOLE_SAW_SUSP	0x2
unsigned console_read_controls(void);

#endif

/*
 * console.c - the console fan-out: every registered device gets the output,
 * every device that reads can give the next input byte.
 *
 * The list is built at boot (serial first, then the screen and keyboard)
 * and never shrinks, so writers walk it without a lock.  console_getc() is
 * the main loop's idle point: while no device has a byte, deferred work,
 * pollers and one slice of each long operation (kernel/longop.c) run,
 * screens draw what changed, and the CPU halts until the next interrupt
 * (a serial byte, the SCI, or the 100 Hz tick, which is also when polled
 * devices such as the PS/2 keyboard are looked at again).
 *
 * Context: see include/kernel/console.h.
 */
#include <kernel/console.h>
#include <kernel/workqueue.h>
#include <kernel/longop.h>
#include <kernel/time.h>
#include <arch/cpu.h>
#include <arch/traps.h>

static struct console *consoles;	/* registration order */

/*
 * Bytes read ahead by console_interrupted() while it looked for a Ctrl-C:
 * console_trygetc() hands them out first, in order, so nothing typed
 * during a long command is lost.  Main loop only: no lock.
 */
#define CONSOLE_AHEAD	256
static u8 ahead[CONSOLE_AHEAD];
static unsigned ahead_head, ahead_len;
static u64 last_peek_ns;

void console_register(struct console *con)
{
	struct console **pp = &consoles;

	while (*pp)
		pp = &(*pp)->next;
	con->next = NULL;
	*pp = con;
}

void console_write(const char *s, size_t len)
{
	for (struct console *c = consoles; c; c = c->next)
		if (c->write)
			c->write(c, s, len);
}

void console_putc(char c)
{
	console_write(&c, 1);
}

void console_flush(void)
{
	for (struct console *c = consoles; c; c = c->next)
		if (c->idle)
			c->idle(c);
}

/* The next byte from the devices themselves, or -1. */
static int console_device_getc(void)
{
	bool was_on = irqs_enabled();
	int ch = -1;

	irq_disable();
	for (struct console *c = consoles; c && ch < 0; c = c->next)
		if (c->getc)
			ch = c->getc(c);
	if (was_on)
		irq_enable();
	return ch;
}

int console_trygetc(void)
{
	int ch;

	if (ahead_len) {
		ch = ahead[ahead_head];
		ahead_head = (ahead_head + 1) % CONSOLE_AHEAD;
		ahead_len--;
		return ch;
	}
	return console_device_getc();
}

/*
 * Move every waiting device byte to the read-ahead buffer, except the
 * control bytes in `take` (CONSOLE_SAW_* flags), which are consumed;
 * returns the flags of those seen.
 */
static unsigned read_ahead(unsigned take)
{
	unsigned seen = 0;

	while (ahead_len < CONSOLE_AHEAD) {
		int ch = console_device_getc();

		if (ch < 0)
			break;
		if (ch == CONSOLE_INTR && (take & CONSOLE_SAW_INTR)) {
			seen |= CONSOLE_SAW_INTR;	/* taken: the prompt never sees it */
			continue;
		}
		if (ch == CONSOLE_SUSP && (take & CONSOLE_SAW_SUSP)) {
			seen |= CONSOLE_SAW_SUSP;
			continue;
		}
		ahead[(ahead_head + ahead_len) % CONSOLE_AHEAD] = (u8)ch;
		ahead_len++;
	}
	return seen;
}

bool console_interrupted(void)
{
	u64 now = ktime_ns();

	if (now - last_peek_ns < CONSOLE_PEEK_NS)
		return false;
	last_peek_ns = now;
	return read_ahead(CONSOLE_SAW_INTR) != 0;
}

unsigned console_read_controls(void)
{
	return read_ahead(CONSOLE_SAW_INTR | CONSOLE_SAW_SUSP);
}

/* Is any device's input waiting?  Interrupts are off. */
static bool console_pending(void)
{
	for (struct console *c = consoles; c; c = c->next)
		if (c->pending && c->pending(c))
			return true;
	return false;
}

void console_idle(void)
{
	run_pending_work();
	run_pollers();
	longop_run_slice();
	console_flush();
	irq_disable();
	if (!work_pending_any() && !longop_any_working() && !console_pending())
		cpu_wait_for_interrupt();
	irq_enable();
}

/*
 * ktime_ns() of the last byte console_getc() returned inside a line (not
 * its end), 0 when none: a line sent at once (a paste, a script) arrives
 * in pieces, the UART's 16-byte FIFO refilled by the host only once the
 * guest has read it, so for CONSOLE_LINE_GAP_NS after such a byte the
 * next one is waited for without the idle point's work.  Otherwise every
 * refill cost a slice of each long operation, several per line.  (main).
 */
static u64 line_byte_ns;

int console_getc(void)
{
	for (;;) {
		int ch = console_trygetc();

		if (ch >= 0) {
			line_byte_ns = ch == '\r' || ch == '\n' ? 0 : ktime_ns();
			return ch;
		}
		if (line_byte_ns && ktime_ns() - line_byte_ns < CONSOLE_LINE_GAP_NS) {
			/* halted, not spinning: the host's refill needs the CPU */
			irq_disable();
			if (!console_pending())
				cpu_wait_for_interrupt();	/* the byte's interrupt, or the tick */
			irq_enable();
			continue;
		}
		line_byte_ns = 0;
		console_idle();
	}
}

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

int console_trygetc(void)
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

/* Is any device's input waiting?  Interrupts are off. */
static bool console_pending(void)
{
	for (struct console *c = consoles; c; c = c->next)
		if (c->pending && c->pending(c))
			return true;
	return false;
}

int console_getc(void)
{
	for (;;) {
		int ch = console_trygetc();

		if (ch >= 0)
			return ch;
		run_pending_work();
		run_pollers();
		longop_run_slice();
		console_flush();
		irq_disable();
		if (!work_pending_any() && !longop_any_running() && !console_pending())
			cpu_wait_for_interrupt();
		irq_enable();
	}
}

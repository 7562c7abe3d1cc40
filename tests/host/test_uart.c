/*
 * test_uart.c - drivers/serial/uart16550.c on the host, against a model
 * COM1: the loopback check at init, interrupt-driven input when IRQ 4 can
 * be wired, and polled input when it cannot (a MADT override took IRQ 4's
 * line, so irq_register() refuses): the receive interrupt stays off, the
 * reason is logged, and bytes still arrive through the console's getc hook
 * (kernel/console.c's idle loop calls it; the driver registers it).
 *
 * The suite `uart` links the real uart16550.c (its console_*() take the
 * place of platform_stub.c's weak ones) with the fakes below: the ports,
 * irq_register(), the main loop's work and the idle wait.  The model keeps
 * the registers the driver touches: IER, MCR (with loopback), LSR's
 * data-ready and transmit-empty bits, and a queue of bytes "typed" by the
 * test.  The register offsets are the 16550's, as the driver uses them.
 */
#include "htest.h"
#include <arch/io.h>
#include <arch/traps.h>
#include <kernel/console.h>
#include <kernel/kernel.h>
#include <kernel/time.h>
#include <kernel/workqueue.h>
#include <drivers/serial.h>
#include "platform_stub.h"
#include <lib/errno.h>

#define COM1		0x3f8
#define REG_DATA	0	/* receive / transmit */
#define REG_IER		1	/* interrupt enable */
#define REG_LCR		3	/* line control */
#define REG_MCR		4	/* modem control */
#define REG_LSR		5	/* line status */
#define LSR_DATA_READY	0x01
#define LSR_THR_EMPTY	0x20

#define COM2		0x2f8

static struct {
	u8 ier, mcr, lcr;			/* registers as last written */
	bool busy;				/* the transmitter does not empty */
	u64 lsr_reads;				/* line status polls */
	u64 ns, ns_per_poll;			/* ktime_ns(): advanced by each poll */
	char typed[64];				/* bytes waiting in the receiver */
	unsigned head, tail;
	char sent[64];				/* bytes transmitted */
	unsigned nr_sent;
	unsigned waits, pollers;		/* idle waits, poller rounds */
} u;
static int irq_answer;				/* what irq_register() returns */
static void (*irq4_handler)(unsigned irq);

/* The fake clock: the driver's bound on a busy transmitter reads it. */
u64 ktime_ns(void)
{
	return u.ns;
}

/* One UART model behind both COM1 and COM2 (a test uses one at a time). */
static unsigned reg_of(u16 port)
{
	return port >= COM1 ? port - COM1 : port >= COM2 && port < COM2 + 8 ? port - COM2 : 8;
}

u32 host_port_in(u16 port, unsigned width)
{
	(void)width;
	switch (reg_of(port)) {
	case REG_DATA:		/* the receiver's FIFO (loopback writes land there too) */
		return u.head != u.tail ? (u8)u.typed[u.tail++ % sizeof(u.typed)] : 0;
	case REG_IER:
		return u.ier;
	case REG_LSR:
		u.lsr_reads++;
		u.ns += u.ns ? u.ns_per_poll : 0;	/* 0: the clock does not run yet */
		return (u.busy ? 0 : LSR_THR_EMPTY) | (u.head != u.tail ? LSR_DATA_READY : 0);
	default:
		return 0;
	}
}

void host_port_out(u16 port, unsigned width, u32 v)
{
	(void)width;
	switch (reg_of(port)) {
	case REG_DATA:
		if (u.lcr & 0x80)		/* divisor latch, not data */
			break;
		if (u.mcr & 0x10)		/* loopback: into the receiver, behind what waits */
			u.typed[u.head++ % sizeof(u.typed)] = (char)v;
		else if (u.nr_sent < sizeof(u.sent))
			u.sent[u.nr_sent++] = (char)v;
		break;
	case REG_IER:
		if (!(u.lcr & 0x80))
			u.ier = (u8)v;
		break;
	case REG_LCR:
		u.lcr = (u8)v;
		break;
	case REG_MCR:
		u.mcr = (u8)v;
		break;
	}
}

int irq_register(unsigned irq, void (*handler)(unsigned irq))
{
	if (irq == 4 && !irq_answer)
		irq4_handler = handler;
	return irq_answer;
}

/* The console the driver registered (console.c keeps a list of them). */
static struct console *uart_con;

void console_register(struct console *con)
{
	uart_con = con;
}

/* What console.c's idle loop does with one console: getc, else wait. */
static int idle_getc(void)
{
	for (;;) {
		int c = uart_con->getc(uart_con);

		if (c >= 0)
			return c;
		u.pollers++;
		if (!uart_con->pending(uart_con))
			cpu_wait_for_interrupt();
	}
}

/* The idle wait: a byte is typed while the CPU "halts", as a person would. */
void cpu_wait_for_interrupt(void)
{
	u.waits++;
	if (u.waits == 3)
		u.typed[u.head++ % sizeof(u.typed)] = 'x';
}

/* boot() - a fresh COM1, serial_init() and serial_enable_irq() with
 * irq_register() saying answer; early[] is in the receiver already (what
 * the other end sent before the driver's loopback check). */
static void boot_with(int answer, const char *early)
{
	memset(&u, 0, sizeof(u));
	while (uart_con && uart_con->getc(uart_con) >= 0)	/* empty the driver's ring */
		;
	while (*early)
		u.typed[u.head++ % sizeof(u.typed)] = *early++;
	irq_answer = answer;
	irq4_handler = NULL;
	uart_con = NULL;
	serial_init();
	serial_enable_irq();
}

static void boot(int answer)
{
	boot_with(answer, "");
}

/* type() - the person at the terminal types s. */
static void type(const char *s)
{
	while (*s)
		u.typed[u.head++ % sizeof(u.typed)] = *s++;
}

/*
 * IRQ 4 wired: the loopback check finds the UART, the receive interrupt
 * is switched on, and the handler moves typed bytes into the ring.
 */
HTEST(uart_input_by_interrupt)
{
	boot(0);
	CHECK_EQ(u.ier, 0x01);
	CHECK(irq4_handler != NULL);
	type("ab");
	if (irq4_handler)
		irq4_handler(4);
	CHECK_EQ(u.head, u.tail);		/* the handler drained the receiver */
	CHECK(uart_con != NULL);
	if (!uart_con)
		return;
	CHECK_EQ(uart_con->getc(uart_con), 'a');
	CHECK_EQ(uart_con->getc(uart_con), 'b');
	CHECK_EQ(uart_con->getc(uart_con), -1);
	uart_con->write(uart_con, "ok\n", 3);
	CHECK_EQ(u.nr_sent, 4);			/* "\n" goes out as "\r\n" */
	CHECK(!memcmp(u.sent, "ok\r\n", 4));
}

/*
 * Bytes sent before the loopback check (a host program connected while
 * memlab boots again) sit in the FIFO ahead of the test byte: the check
 * still finds the UART, and those bytes are read, in order, not lost.
 */
HTEST(uart_loopback_check_with_bytes_waiting)
{
	boot_with(0, "{\"req\":\"hello\"}\n");
	CHECK(uart_con != NULL);
	CHECK_EQ(u.ier, 0x01);			/* found: the interrupt is on */
	if (!uart_con)
		return;
	CHECK_EQ(uart_con->getc(uart_con), '{');
	CHECK_EQ(uart_con->getc(uart_con), '"');
	for (int i = 0; i < 13; i++)		/* req":"hello"} */
		uart_con->getc(uart_con);
	CHECK_EQ(uart_con->getc(uart_con), '\n');
	CHECK_EQ(uart_con->getc(uart_con), -1);	/* the test byte itself is not input */
}

/*
 * IRQ 4 refused: the receive interrupt stays off (an enabled interrupt
 * with no handler would be a stuck line), the log says input is polled,
 * and the console still returns what is typed, through its own
 * polling of the line status register in the idle loop.
 */
HTEST(uart_input_polled_without_irq4)
{
	int logs = host_log_count;

	boot(-EBUSY);
	CHECK(uart_con != NULL);		/* the loopback check found the UART */
	if (!uart_con)
		return;
	uart_con->write(uart_con, "z", 1);
	CHECK_EQ(u.nr_sent, 1);
	CHECK_EQ(u.ier, 0x00);
	CHECK(irq4_handler == NULL);
	CHECK(host_log_seen("serial: no interrupt for COM1: input is polled from the idle loop", logs));
	type("q");
	CHECK(uart_con != NULL);
	if (!uart_con)
		return;
	CHECK_EQ(idle_getc(), 'q');
	CHECK_EQ(idle_getc(), 'x');	/* typed during the third idle wait */
	CHECK_EQ(u.waits, 3);
	CHECK(u.pollers >= 3);
}

/*
 * More input than the driver's ring holds (4096 bytes) before anyone
 * reads it: the ring keeps the first 4096, later bytes are dropped and
 * counted (serial_rx_dropped()), and reading empties it.
 */
HTEST(uart_full_ring_drops_and_counts)
{
	u64 dropped0;
	unsigned typed = 0, got = 0;

	boot(0);
	dropped0 = serial_rx_dropped();
	for (int round = 0; round < 70; round++) {
		type("0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN");	/* 60 */
		typed += 60;
		if (irq4_handler)
			irq4_handler(4);
	}
	CHECK_EQ(serial_rx_dropped() - dropped0, typed - 4096);
	while (uart_con && uart_con->getc(uart_con) >= 0)
		got++;
	CHECK_EQ(got, 4096);
}

/* com2_busy() - a fresh COM2 (found by its loopback check) whose
 * transmitter then stays busy; the clock at start (0: not running) and
 * its advance per line status poll. */
static void com2_busy(u64 start_ns, u64 ns_per_poll)
{
	memset(&u, 0, sizeof(u));
	CHECK(serial_aux_init());
	serial_aux_write("-", 1);	/* a byte the line takes: not stuck from before */
	u.nr_sent = 0;
	u.busy = true;
	u.lsr_reads = 0;
	u.ns = start_ns;
	u.ns_per_poll = ns_per_poll;
}

/*
 * A busy transmitter (the program on the other end stopped reading): a
 * byte waits a million polls and one second, whichever comes later, then
 * is dropped and COM2 is stuck; while stuck and still busy, bytes are
 * dropped at once; the first byte the transmitter takes again clears it.
 * Before the clock runs, the million polls alone bound the wait.
 */
HTEST(uart_busy_transmitter_waits_a_second_then_drops)
{
	u64 dropped0, polls;

	/* polls are fast (0.5 us each): the second is the longer bound */
	com2_busy(1000, 500);
	dropped0 = serial_aux_tx_dropped();
	serial_aux_write("a", 1);
	polls = u.lsr_reads;
	CHECK_EQ(serial_aux_tx_dropped() - dropped0, 1);
	CHECK(polls >= 2000000 && polls <= 2000002);	/* 1 s of 0.5 us polls */
	CHECK(serial_aux_stuck());			/* (one more poll) */
	polls = u.lsr_reads;
	serial_aux_write("bcd", 3);			/* stuck and busy: no wait */
	CHECK_EQ(serial_aux_tx_dropped() - dropped0, 4);
	CHECK_EQ(u.lsr_reads - polls, 3);
	CHECK_EQ(u.nr_sent, 0);

	/* polls are slow (5 us each): the million polls are the longer bound */
	com2_busy(1000, 5000);
	dropped0 = serial_aux_tx_dropped();
	serial_aux_write("e", 1);
	CHECK_EQ(serial_aux_tx_dropped() - dropped0, 1);
	CHECK(u.lsr_reads >= 1000001 && u.lsr_reads <= 1000003);

	/* the line moves again: sent, and no longer stuck */
	u.busy = false;
	CHECK(!serial_aux_stuck());
	serial_aux_write("f", 1);
	CHECK_EQ(u.nr_sent, 1);
	CHECK_EQ(u.sent[0], 'f');
	u.busy = true;
	CHECK(!serial_aux_stuck());			/* busy, but nothing was dropped since */

	/* before the clock runs: a million polls */
	com2_busy(0, 0);
	dropped0 = serial_aux_tx_dropped();
	serial_aux_write("g", 1);
	CHECK_EQ(serial_aux_tx_dropped() - dropped0, 1);
	CHECK(u.lsr_reads >= 1000001 && u.lsr_reads <= 1000003);
}

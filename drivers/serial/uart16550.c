/*
 * uart16550.c - the 16550 serial ports: the console on COM1 (I/O 0x3f8,
 * IRQ 4), and COM2 (I/O 0x2f8) as the view channel's raw line
 * (include/drivers/serial.h), both 115200 8N1, one struct uart each.
 *
 * Output is polled: wait until the transmit holding register is empty, then
 * write the byte (on the console "\n" goes out as "\r\n"; COM2 sends bytes
 * as they are).  Console input is interrupt-driven: the
 * IRQ handler moves every received byte into rx_ring; console_getc() takes
 * bytes from it (through kernel/console.c, which halts the CPU while no
 * console has input).  If the interrupt never arrives (no IRQ wiring, a real
 * machine with the UART elsewhere), the 100 Hz timer still wakes the CPU and
 * the getc hook also polls the line status register, so input keeps
 * working, just with up to 10 ms delay.  When the
 * ring is full, further bytes are dropped and counted.  COM2's input is
 * only polled, by its reader (the view channel's poller), through the same
 * ring.  A byte whose transmitter stays busy for a million polls and a
 * second is dropped; COM2 is then marked stuck and its bytes are dropped (and
 * counted) without waiting until the transmitter is empty again, so a
 * peer that stops reading slows nothing down.
 *
 * Context: console_write from any context; input functions from the main
 * loop.
 */
#include <kernel/console.h>
#include <kernel/time.h>
#include <arch/io.h>
#include <arch/cpu.h>
#include <arch/traps.h>
#include <lib/printk.h>
#include <drivers/serial.h>

#define COM1		0x3f8
#define COM2		0x2f8
#define REG_DATA	0	/* receive / transmit */
#define REG_IER		1	/* interrupt enable */
#define REG_IIR_FCR	2	/* interrupt identification / FIFO control */
#define REG_LCR		3	/* line control */
#define REG_MCR		4	/* modem control */
#define REG_LSR		5	/* line status */
#define LSR_DATA_READY	0x01
#define LSR_THR_EMPTY	0x20
#define RX_RING_SIZE	4096	/* power of two */
#define TX_WAIT_POLLS	1000000	/* a busy transmitter: polls before a byte is dropped */
#define TX_WAIT_NS	1000000000ULL	/* ... and time */

struct uart {
	u16 base;			/* first I/O port */
	bool present;			/* passed the loopback check */
	bool drop_when_stuck;		/* COM2: after one timeout, drop while busy */
	bool stuck;			/* the transmitter did not empty: drop until it does */
	u8 rx_ring[RX_RING_SIZE];
	volatile u32 rx_head, rx_tail;	/* head: next write; tail: next read */
	u64 rx_dropped;			/* input lost to a full ring */
	u64 tx_dropped;			/* output lost to a stuck transmitter */
};

static struct uart com1 = { .base = COM1 };
static struct uart com2 = { .base = COM2, .drop_when_stuck = true };

/*
 * uart_drain_rx() - move all received bytes of u into its ring.
 * Interrupts must be disabled.  No UART (a machine without the port reads
 * 0xff, "data ready" for ever): nothing.  Context: (main) or IRQ.
 */
static void uart_drain_rx(struct uart *u)
{
	if (!u->present)
		return;
	while (inb(u->base + REG_LSR) & LSR_DATA_READY) {
		u8 c = inb(u->base + REG_DATA);

		if (u->rx_head - u->rx_tail == RX_RING_SIZE) {
			u->rx_dropped++;
			continue;
		}
		u->rx_ring[u->rx_head % RX_RING_SIZE] = c;
		u->rx_head++;
	}
}

/* uart_getc() - the next received byte of u, or -1.  Interrupts off. */
static int uart_getc(struct uart *u)
{
	int c = -1;

	uart_drain_rx(u);
	if (u->rx_head != u->rx_tail) {
		c = u->rx_ring[u->rx_tail % RX_RING_SIZE];
		u->rx_tail++;
	}
	return c;
}

/* A received byte into u's ring (the loopback check keeps what it reads). */
static void uart_keep(struct uart *u, u8 c)
{
	if (u->rx_head - u->rx_tail == RX_RING_SIZE) {
		u->rx_dropped++;
		return;
	}
	u->rx_ring[u->rx_head % RX_RING_SIZE] = c;
	u->rx_head++;
}

#define LOOPBACK_SCAN	64	/* received bytes looked through per try */

/*
 * uart_loopback_ok() - the self-check, in loopback mode: a byte written
 * comes back.  The other end may have sent bytes before (a program on the
 * host still connected while memlab boots again: the view channel's
 * memview.py after a reset), and they are in the FIFO ahead of it, or it
 * is full: so the FIFO is read out first, and the test byte is looked for
 * among at most LOOPBACK_SCAN bytes, three tries.  What was read is kept
 * in the ring; without a UART (every read 0xff) the ring is emptied
 * again.  Context: boot.
 */
static bool uart_loopback_ok(struct uart *u)
{
	u16 base = u->base;

	for (int attempt = 0; attempt < 3; attempt++) {
		for (int i = 0; i < LOOPBACK_SCAN && (inb(base + REG_LSR) & LSR_DATA_READY); i++)
			uart_keep(u, inb(base + REG_DATA));
		outb(base + REG_DATA, 0xae);
		for (int i = 0; i < LOOPBACK_SCAN; i++) {
			u8 c = inb(base + REG_DATA);

			if (c == 0xae)
				return true;
			uart_keep(u, c);
			if (!(inb(base + REG_LSR) & LSR_DATA_READY))
				break;
		}
	}
	u->rx_head = u->rx_tail = 0;
	u->rx_dropped = 0;
	return false;
}

/*
 * uart_setup() - program u at 115200 8N1 with its FIFO, and check it with
 * the loopback test; u->present says whether it answered.  Context: boot.
 */
static void uart_setup(struct uart *u)
{
	u16 base = u->base;

	outb(base + REG_IER, 0x00);
	outb(base + REG_LCR, 0x80);		/* divisor latch */
	outb(base + REG_DATA, 0x01);		/* 115200 baud */
	outb(base + REG_IER, 0x00);
	outb(base + REG_LCR, 0x03);		/* 8N1 */
	outb(base + REG_IIR_FCR, 0xc5);		/* FIFO on, 14-byte trigger; keep typed bytes */
	outb(base + REG_MCR, 0x1e);		/* loopback for the self-check */
	u->present = uart_loopback_ok(u);
	outb(base + REG_MCR, 0x0b);		/* DTR, RTS, OUT2 (IRQ gate) */
}

static void uart_irq(unsigned irq)
{
	(void)irq;
	uart_drain_rx(&com1);
}

static void serial_write(struct console *con, const char *s, size_t len);
static int serial_getc(struct console *con);
static bool serial_pending(struct console *con);

static struct console serial_console = {
	.name = "ttyS0",
	.write = serial_write,
	.getc = serial_getc,
	.pending = serial_pending,
};

/*
 * serial_init() - program COM1, check it with the loopback test and
 * register it as the first console.  Context: boot, interrupts off.
 */
void serial_init(void)
{
	uart_setup(&com1);
	console_register(&serial_console);
}

/*
 * serial_enable_irq() - start interrupt-driven input.  If IRQ 4 has no
 * line (irq_register() said why), input stays polled.  Context: boot.
 */
void serial_enable_irq(void)
{
	if (irq_register(4, uart_irq)) {
		pr_warn("serial: no interrupt for COM1: input is polled from the idle loop");
		return;
	}
	outb(com1.base + REG_IER, 0x01);	/* received data available */
}

/*
 * uart_putc() - send c on u, waiting for the transmitter: at most a
 * million polls and one second (both: under QEMU a busy transmitter means
 * the program on the other end of the line is slow, and on a loaded host a
 * million polls pass in a fraction of a second; before the clock runs,
 * the polls alone), then the byte is dropped.  On COM2 such a timeout marks
 * u stuck, and while stuck a byte is sent only if the transmitter is empty
 * at once, else dropped.  Context: any.
 */
static void uart_putc(struct uart *u, char c)
{
	u64 t0 = 0;

	if (!u->present)
		return;
	for (u32 spins = 0; !(inb(u->base + REG_LSR) & LSR_THR_EMPTY); spins++) {
		if (u->stuck && u->drop_when_stuck) {
			u->tx_dropped++;
			return;
		}
		if (!spins)
			t0 = ktime_ns();	/* 0 before the clock runs: polls alone */
		if (spins > TX_WAIT_POLLS && (!t0 || ktime_ns() - t0 >= TX_WAIT_NS)) {
			u->stuck = true;	/* a stuck UART must not hang the kernel */
			u->tx_dropped++;
			return;
		}
	}
	u->stuck = false;
	outb(u->base + REG_DATA, (u8)c);
}

static void serial_write(struct console *con, const char *s, size_t len)
{
	(void)con;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			uart_putc(&com1, '\r');
		uart_putc(&com1, s[i]);
	}
}

/* Interrupts are off (console.c). */
static int serial_getc(struct console *con)
{
	(void)con;
	return uart_getc(&com1);
}

/* Interrupts are off (console.c). */
static bool serial_pending(struct console *con)
{
	(void)con;
	return com1.rx_head != com1.rx_tail ||
	       (com1.present && (inb(com1.base + REG_LSR) & LSR_DATA_READY));
}

/* serial_rx_dropped() - input bytes lost to a full ring since boot. */
u64 serial_rx_dropped(void)
{
	return com1.rx_dropped;
}

/* ---- COM2, the view channel's line ---------------------------------------- */

bool serial_aux_init(void)
{
	uart_setup(&com2);
	return com2.present;
}

void serial_aux_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		uart_putc(&com2, s[i]);
}

u64 serial_aux_tx_dropped(void)
{
	return com2.tx_dropped;
}

bool serial_aux_stuck(void)
{
	return com2.present && com2.stuck && !(inb(com2.base + REG_LSR) & LSR_THR_EMPTY);
}

int serial_aux_getc(void)
{
	bool was_on = irqs_enabled();
	int c;

	irq_disable();
	c = uart_getc(&com2);
	if (was_on)
		irq_enable();
	return c;
}

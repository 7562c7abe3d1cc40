/*
 * uart16550.c - the console on COM1 (I/O 0x3f8, IRQ 4), 115200 8N1.
 *
 * Output is polled: wait until the transmit holding register is empty, then
 * write the byte ("\n" goes out as "\r\n").  Input is interrupt-driven: the
 * IRQ handler moves every received byte into rx_ring; console_getc() takes
 * bytes from it (through kernel/console.c, which halts the CPU while no
 * console has input).  If the interrupt never arrives (no IRQ wiring, a real
 * machine with the UART elsewhere), the 100 Hz timer still wakes the CPU and
 * the getc hook also polls the line status register, so input keeps
 * working, just with up to 10 ms delay.  When the
 * ring is full, further bytes are dropped and counted.
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

#define COM1		0x3f8
#define REG_DATA	0	/* receive / transmit */
#define REG_IER		1	/* interrupt enable */
#define REG_IIR_FCR	2	/* interrupt identification / FIFO control */
#define REG_LCR		3	/* line control */
#define REG_MCR		4	/* modem control */
#define REG_LSR		5	/* line status */
#define LSR_DATA_READY	0x01
#define LSR_THR_EMPTY	0x20
#define RX_RING_SIZE	4096	/* power of two */

static u8 rx_ring[RX_RING_SIZE];
static volatile u32 rx_head, rx_tail;	/* head: next write; tail: next read */
static u64 rx_dropped;
static bool uart_present;

/*
 * Move all received bytes into the ring. Interrupts must be disabled.  No
 * UART (a machine without COM1 reads 0xff, "data ready" for ever): nothing.
 */
static void uart_drain_rx(void)
{
	if (!uart_present)
		return;
	while (inb(COM1 + REG_LSR) & LSR_DATA_READY) {
		u8 c = inb(COM1 + REG_DATA);

		if (rx_head - rx_tail == RX_RING_SIZE) {
			rx_dropped++;
			continue;
		}
		rx_ring[rx_head % RX_RING_SIZE] = c;
		rx_head++;
	}
}

static void uart_irq(unsigned irq)
{
	(void)irq;
	uart_drain_rx();
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
	outb(COM1 + REG_IER, 0x00);
	outb(COM1 + REG_LCR, 0x80);		/* divisor latch */
	outb(COM1 + REG_DATA, 0x01);		/* 115200 baud */
	outb(COM1 + REG_IER, 0x00);
	outb(COM1 + REG_LCR, 0x03);		/* 8N1 */
	outb(COM1 + REG_IIR_FCR, 0xc5);		/* FIFO on, 14-byte trigger; keep typed bytes */
	outb(COM1 + REG_MCR, 0x1e);		/* loopback for the self-check */
	outb(COM1 + REG_DATA, 0xae);
	uart_present = inb(COM1 + REG_DATA) == 0xae;
	outb(COM1 + REG_MCR, 0x0b);		/* DTR, RTS, OUT2 (IRQ gate) */
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
	outb(COM1 + REG_IER, 0x01);		/* received data available */
}

static void uart_putc(char c)
{
	if (!uart_present)
		return;
	for (u32 spins = 0; !(inb(COM1 + REG_LSR) & LSR_THR_EMPTY); spins++)
		if (spins > 1000000)
			return;	/* a stuck UART must not hang the kernel */
	outb(COM1 + REG_DATA, (u8)c);
}

static void serial_write(struct console *con, const char *s, size_t len)
{
	(void)con;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
}

/* Interrupts are off (console.c). */
static int serial_getc(struct console *con)
{
	int c = -1;

	(void)con;
	uart_drain_rx();
	if (rx_head != rx_tail) {
		c = rx_ring[rx_tail % RX_RING_SIZE];
		rx_tail++;
	}
	return c;
}

/* Interrupts are off (console.c). */
static bool serial_pending(struct console *con)
{
	(void)con;
	return rx_head != rx_tail || (uart_present && (inb(COM1 + REG_LSR) & LSR_DATA_READY));
}

/* serial_rx_dropped() - input bytes lost to a full ring since boot. */
u64 serial_rx_dropped(void)
{
	return rx_dropped;
}

/*
 * pic.c - the legacy 8259 interrupt controllers and the PIT tick.
 *
 * Two cascaded 8259s deliver ISA IRQs 0-15.  They power up mapped over the
 * CPU exception vectors, so pic_init() moves them to vectors 32-47 and masks
 * everything; drivers unmask what they register.  The PIT (channel 0) ticks
 * at PIT_HZ on IRQ 0: nothing depends on the tick for correctness, it wakes
 * the idle loop so polled work (and console polling when the UART interrupt
 * is not wired) runs at least every 10 ms.
 */
#include <arch/traps.h>
#include <arch/io.h>

#define PIC1_CMD	0x20
#define PIC1_DATA	0x21
#define PIC2_CMD	0xa0
#define PIC2_DATA	0xa1
#define PIC_EOI		0x20
#define PIC_READ_ISR	0x0b

static u16 pic_mask_bits = 0xffff;

static void pic_write_mask(void)
{
	outb(PIC1_DATA, pic_mask_bits & 0xff);
	outb(PIC2_DATA, pic_mask_bits >> 8);
}

void pic_init(void)
{
	outb(PIC1_CMD, 0x11);	/* ICW1: init, ICW4 follows */
	io_wait();
	outb(PIC2_CMD, 0x11);
	io_wait();
	outb(PIC1_DATA, IRQ_BASE);	/* ICW2: vector offsets */
	io_wait();
	outb(PIC2_DATA, IRQ_BASE + 8);
	io_wait();
	outb(PIC1_DATA, 4);	/* ICW3: slave on IRQ 2 */
	io_wait();
	outb(PIC2_DATA, 2);	/* ICW3: slave identity */
	io_wait();
	outb(PIC1_DATA, 0x01);	/* ICW4: 8086 mode */
	io_wait();
	outb(PIC2_DATA, 0x01);
	io_wait();
	pic_mask_bits = 0xffff & ~(1u << 2);	/* only the cascade line open */
	pic_write_mask();
}

void pic_unmask(unsigned irq)
{
	pic_mask_bits &= ~(1u << irq);
	pic_write_mask();
}

void pic_eoi(unsigned irq)
{
	if (irq >= 8)
		outb(PIC2_CMD, PIC_EOI);
	outb(PIC1_CMD, PIC_EOI);
}

/*
 * IRQ 7 and 15 can be spurious: the PIC raised the line and withdrew it.
 * Then the in-service bit is clear, and no EOI is owed (except to the
 * master for a spurious IRQ 15, which did come through the cascade).
 */
bool pic_spurious(unsigned irq)
{
	if (irq != 7 && irq != 15)
		return false;
	if (irq == 7) {
		outb(PIC1_CMD, PIC_READ_ISR);
		return !(inb(PIC1_CMD) & 0x80);
	}
	outb(PIC2_CMD, PIC_READ_ISR);
	if (inb(PIC2_CMD) & 0x80)
		return false;
	outb(PIC1_CMD, PIC_EOI);
	return true;
}

/*
 * idt.c - the interrupt descriptor table and the dispatch of vectors.
 *
 * Vectors 0-31 (CPU exceptions) go to trap_exception() in traps.c, which
 * reports and stops.  Vectors 32-47 are the 8259 PIC's IRQs: each runs the
 * handler registered with irq_register(), then the PIC gets its EOI.  The
 * double fault runs on its own stack (IST1), NMI and machine check on IST2.
 */
#include <arch/traps.h>
#include <arch/cpu.h>
#include <kernel/printk.h>

struct idt_entry {
	u16 offset_lo;
	u16 selector;
	u8 ist;		/* bits 0-2: IST index, 0 = current stack */
	u8 type_attr;	/* 0x8e: present, ring 0, 64-bit interrupt gate */
	u16 offset_mid;
	u32 offset_hi;
	u32 reserved;
} __packed;

struct idt_ptr {
	u16 limit;
	u64 base;
} __packed;

extern const u64 isr_table[48];
void trap_exception(struct trap_frame *tf) __noreturn;

static struct idt_entry idt[256];
static void (*irq_handlers[NR_IRQS])(unsigned irq);
static u64 irq_counts[NR_IRQS];
static u64 spurious_irqs;

static void idt_set(unsigned vector, u64 handler, u8 ist)
{
	struct idt_entry *e = &idt[vector];

	e->offset_lo = handler & 0xffff;
	e->selector = 0x08;
	e->ist = ist;
	e->type_attr = 0x8e;
	e->offset_mid = (handler >> 16) & 0xffff;
	e->offset_hi = handler >> 32;
	e->reserved = 0;
}

void idt_init(void)
{
	struct idt_ptr ptr = { sizeof(idt) - 1, (u64)(uintptr_t)idt };

	for (unsigned v = 0; v < 48; v++)
		idt_set(v, isr_table[v], 0);
	idt_set(8, isr_table[8], 1);	/* #DF on IST1 */
	idt_set(2, isr_table[2], 2);	/* NMI on IST2 */
	idt_set(18, isr_table[18], 2);	/* #MC on IST2 */
	__asm__ volatile("lidt %0" : : "m"(ptr));
}

void irq_register(unsigned irq, void (*handler)(unsigned irq))
{
	BUG_ON(irq >= NR_IRQS);
	irq_handlers[irq] = handler;
	pic_unmask(irq);
}

/* irq_count() - interrupts handled on irq since boot. */
u64 irq_count(unsigned irq)
{
	return irq < NR_IRQS ? irq_counts[irq] : spurious_irqs;
}

/* Called by isr.asm with interrupts disabled. */
void trap_dispatch(struct trap_frame *tf)
{
	if (tf->vector < IRQ_BASE)
		trap_exception(tf);

	unsigned irq = (unsigned)(tf->vector - IRQ_BASE);

	if (pic_spurious(irq)) {
		spurious_irqs++;
		return;
	}
	irq_counts[irq]++;
	if (irq_handlers[irq])
		irq_handlers[irq](irq);
	pic_eoi(irq);
}

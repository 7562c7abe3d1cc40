/*
 * idt.c - the interrupt descriptor table and the dispatch of vectors.
 *
 * Vectors 0-31 (CPU exceptions) go to trap_exception() in traps.c, which
 * reports and stops.  Vectors 32-63 are interrupt lines: line = vector - 32.
 * With the I/O APIC (apic.c, when the MADT describes one) a line is a GSI;
 * with the 8259 PICs it is an ISA IRQ.  Each runs the handler registered
 * for it, then the controller gets its EOI.  Vector 255 is the local APIC's
 * spurious vector (no EOI).  Vector 0xf0 is the cross-CPU call (arch/smp.h;
 * EOI after the handler); an NMI while smp_stop_others() runs is its stop,
 * any other NMI is fatal like an exception.  The double fault runs on its own stack (IST1),
 * NMI and machine check on IST2.
 */
#include <arch/traps.h>
#include <arch/cpu.h>
#include <lib/printk.h>
#include <lib/errno.h>
#include <arch/io.h>
#include <arch/smp.h>

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

extern const u64 isr_table[66];
void trap_exception(struct trap_frame *tf) __noreturn;

static struct idt_entry idt[256];
static void (*irq_handlers[NR_IRQ_LINES])(unsigned irq);
static u64 irq_counts[NR_IRQ_LINES];
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

/*
 * idt_load() - point the calling CPU's IDTR at the one table: every CPU
 * shares it (the handlers find their CPU through the GS base).
 * Context: boot, or an AP's start.
 */
void idt_load(void)
{
	struct idt_ptr ptr = { sizeof(idt) - 1, (u64)(uintptr_t)idt };

	__asm__ volatile("lidt %0" : : "m"(ptr));
}

void idt_init(void)
{
	for (unsigned v = 0; v < 64; v++)
		idt_set(v, isr_table[v], 0);
	idt_set(255, isr_table[64], 0);
	idt_set(SMP_CALL_VECTOR, isr_table[65], 0);
	idt_set(8, isr_table[8], 1);	/* #DF on IST1 */
	idt_set(2, isr_table[2], 2);	/* NMI on IST2 */
	idt_set(18, isr_table[18], 2);	/* #MC on IST2 */
	idt_load();
}

/*
 * irq_register() - handler for ISA IRQ irq.  Through the I/O APIC the IRQ is
 * first mapped to its GSI by the MADT's overrides (IRQ 0 is GSI 2 on q35),
 * with the override's polarity and trigger (ISA default: high, edge).  An
 * IRQ that has no line (an override sends another IRQ to its GSI) is not
 * registered, with the reason: the handler of the IRQ on that line stays.
 * Returns 0, or -EBUSY for such an IRQ or a line the I/O APIC cannot route
 * (the caller falls back to polling).  Context: (boot).
 */
int irq_register(unsigned irq, void (*handler)(unsigned irq))
{
	BUG_ON(irq >= NR_IRQS);
	if (apic_enabled()) {
		unsigned gsi;
		bool level, low;

		if (apic_isa_irq_to_gsi(irq, &gsi, &level, &low)) {
			pr_warn("irq: ISA IRQ %u has no I/O APIC line (the MADT's override sends IRQ %d to GSI %u); handler not installed",
				irq, apic_gsi_owner(gsi), gsi);
			return -EBUSY;
		}
		BUG_ON(gsi >= NR_IRQ_LINES);	/* apic_init() dropped such overrides */
		irq_handlers[gsi] = handler;
		if (ioapic_route(gsi, IRQ_BASE + gsi, level, low)) {
			irq_handlers[gsi] = NULL;
			return -EBUSY;
		}
		return 0;
	}
	irq_handlers[irq] = handler;
	pic_unmask(irq);
	return 0;
}

/*
 * irq_register_sci() - the ACPI SCI.  FADT SCI_INT is the IRQ it is wired
 * to in 8259 mode; with the I/O APIC the MADT's override for that IRQ maps
 * it to a GSI.  ACPI makes the SCI a shareable, level-triggered,
 * active-low line unless an override says otherwise (QEMU's says level,
 * active-high).  With the 8259s the chipset's edge/level control register
 * (ELCR, ports 0x4d0/0x4d1) must say "level" for it; the 8259 has no
 * polarity.  *line gets the GSI (I/O APIC) or IRQ (8259) and *how its
 * trigger and polarity, for the boot log.  Returns 0, or -1 if the line
 * cannot be reached (with the I/O APIC also when the SCI's IRQ has no line
 * because an override sends another IRQ to its GSI; the reason is logged).
 * Context: (boot).
 */
int irq_register_sci(unsigned sci_int, void (*handler)(unsigned irq), unsigned *line,
		     const char **how)
{
	u16 port = sci_int < 8 ? 0x4d0 : 0x4d1;

	*line = sci_int;
	*how = "not wired";
	if (apic_enabled()) {
		static const char *const names[2][2] = {
			{ "edge, active-high", "edge, active-low" },
			{ "level, active-high", "level, active-low" },
		};
		unsigned gsi;
		bool level, low;

		if (apic_irq_to_gsi(sci_int, true, true, &gsi, &level, &low)) {
			pr_warn("irq: SCI IRQ %u has no I/O APIC line (the MADT's override sends IRQ %d to GSI %u)",
				sci_int, apic_gsi_owner(gsi), gsi);
			*line = gsi;
			return -1;
		}
		*line = gsi;
		if (gsi >= NR_IRQ_LINES)
			return -1;
		irq_handlers[gsi] = handler;
		if (ioapic_route(gsi, IRQ_BASE + gsi, level, low)) {
			irq_handlers[gsi] = NULL;
			return -1;
		}
		*how = names[level][low];
		return 0;
	}
	if (sci_int >= NR_IRQS || sci_int == 0 || sci_int == 2)
		return -1;
	outb(port, inb(port) | (u8)(1u << (sci_int % 8)));
	irq_register(sci_int, handler);
	*how = "level, 8259";
	return 0;
}

/* irq_count() - interrupts handled on line irq since boot (spurious: any other). */
u64 irq_count(unsigned irq)
{
	return irq < NR_IRQ_LINES ? irq_counts[irq] : spurious_irqs;
}

/* Called by isr.asm with interrupts disabled. */
void trap_dispatch(struct trap_frame *tf)
{
	if (tf->vector == 2 && smp_stopping())
		smp_stop_interrupt(tf);
	if (tf->vector < IRQ_BASE)
		trap_exception(tf);
	if (tf->vector == SMP_CALL_VECTOR) {
		smp_call_interrupt();
		lapic_eoi();
		return;
	}
	if (tf->vector == APIC_SPURIOUS_VECTOR || tf->vector >= IRQ_BASE + NR_IRQ_LINES) {
		spurious_irqs++;
		return;
	}

	unsigned line = (unsigned)(tf->vector - IRQ_BASE);

	if (!apic_enabled() && (line >= NR_IRQS || pic_spurious(line))) {
		spurious_irqs++;
		return;
	}
	irq_counts[line]++;
	if (irq_handlers[line])
		irq_handlers[line](line);
	if (apic_enabled())
		lapic_eoi();
	else
		pic_eoi(line);
}

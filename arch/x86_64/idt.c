/*
 * idt.c - the interrupt descriptor table and the dispatch of vectors.
 *
 * Vectors 0-31 (CPU exceptions) go to trap_exception() in traps.c, which
 * reports and stops.  Vectors 32-63 are interrupt lines: line = vector - 32.
 * With the I/O APIC (apic.c, when the MADT describes one) a line is a GSI;
 * with the 8259 PICs it is an ISA IRQ.  Each runs the handler registered
 * for it, then the controller gets its EOI.  Vector 255 is the local APIC's
 * spurious vector (no EOI).  Vector 0xf0 is the cross-CPU call (arch/smp.h;
 * EOI after the handler), 0xec each CPU's local APIC timer tick (counted,
 * EOI); an NMI while smp_stop_others() runs is its stop (counted), any
 * other NMI is fatal like an exception.  The double fault runs on its own stack (IST1),
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

extern const u64 isr_table[67];
void trap_exception(struct trap_frame *tf) __noreturn;

static struct idt_entry idt[256];
static void (*irq_handlers[NR_IRQ_LINES])(unsigned irq);

/* What /proc/interrupts says of a wired line: the IRQ it carries (ISA IRQ,
 * or the SCI's FADT SCI_INT), its trigger and the device's Linux name.  The
 * counts themselves are per CPU, in struct percpu (irqs[], spurious,
 * bad_irqs): each CPU writes only its own, so no lock. */
static struct {
	const char *name;	/* NULL: nothing registered on the line */
	u8 irq;
	bool level;
} line_info[NR_IRQ_LINES];

/* The names Linux gives the PC's ISA devices on their usual IRQs. */
static const char *const isa_names[NR_IRQS] = {
	[0] = "timer", [1] = "i8042", [3] = "ttyS1", [4] = "ttyS0", [8] = "rtc0", [12] = "i8042",
};

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
	idt_set(LAPIC_TIMER_VECTOR, isr_table[66], 0);
	idt_set(8, isr_table[8], 1);	/* #DF on IST1 */
	idt_set(2, isr_table[2], 2);	/* NMI on IST2 */
	idt_set(18, isr_table[18], 2);	/* #MC on IST2 */
	idt_load();
}

/* line_set() - remember what line carries for /proc/interrupts (a NULL name:
 * "irq<N>").  Context: boot. */
static void line_set(unsigned line, unsigned irq, bool level, const char *name)
{
	line_info[line].irq = (u8)irq;
	line_info[line].level = level;
	line_info[line].name = name ? name : "irq";
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
		line_set(gsi, irq, level, isa_names[irq]);
		return 0;
	}
	irq_handlers[irq] = handler;
	line_set(irq, irq, false, isa_names[irq]);
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
		line_set(gsi, sci_int, level, "acpi");
		*how = names[level][low];
		return 0;
	}
	if (sci_int >= NR_IRQS || sci_int == 0 || sci_int == 2)
		return -1;
	outb(port, inb(port) | (u8)(1u << (sci_int % 8)));
	irq_register(sci_int, handler);
	line_set(sci_int, sci_int, true, "acpi");
	*how = "level, 8259";
	return 0;
}

/*
 * irq_count_cpu() - interrupts CPU cpu handled on line irq since boot; for
 * any other line number the spurious ones it saw (the local APIC's
 * spurious vector, an 8259 spurious IRQ, a vector past the lines).
 * Returns 0 for a CPU memlab does not know.  Context: any (another CPU's
 * count is read as it is written: a relaxed 64-bit load).
 */
static u64 irq_count_cpu(unsigned irq, unsigned cpu)
{
	const struct percpu *pc = smp_cpu(cpu);

	if (!pc)
		return 0;
	if (irq < NR_IRQ_LINES)
		return __atomic_load_n(&pc->irqs[irq], __ATOMIC_RELAXED);
	return __atomic_load_n(&pc->spurious, __ATOMIC_RELAXED) +
	       __atomic_load_n(&pc->bad_irqs, __ATOMIC_RELAXED);
}

/* irq_count() - interrupts handled on line irq since boot, summed over the
 * CPUs (spurious: any other line number).  Context: any. */
u64 irq_count(unsigned irq)
{
	u64 sum = 0;

	for (unsigned cpu = 0; cpu < smp_nr_cpus(); cpu++)
		sum += irq_count_cpu(irq, cpu);
	return sum;
}

/* column() - does /proc/interrupts have a column for cpu (is it online)?
 * Context: main loop. */
static bool column(unsigned cpu)
{
	const struct percpu *pc = smp_cpu(cpu);

	return pc && __atomic_load_n(&pc->state, __ATOMIC_ACQUIRE) == CPU_ONLINE;
}

/* arch_row() - one architecture row: "XYZ:", each online CPU's u64 at
 * offset off of its struct percpu, then what it counts.  Context: main loop. */
static void arch_row(struct printer *p, const char *tag, size_t off, const char *what)
{
	pr_printf(p, "%3s: ", tag);
	for (unsigned cpu = 0; cpu < smp_nr_cpus(); cpu++) {
		if (column(cpu))
			pr_printf(p, "%10llu ", (unsigned long long)__atomic_load_n(
				(const u64 *)((const char *)smp_cpu(cpu) + off), __ATOMIC_RELAXED));
	}
	pr_printf(p, "  %s\n", what);
}

/*
 * interrupts_dump() - /proc/interrupts in Linux's layout: a header with one
 * "CPUn" column per online CPU; a row per wired line, labelled with the
 * IRQ it carries, with each CPU's count, the controller ("IO-APIC", or
 * "XT-PIC" with the 8259s), the line (GSI or IRQ) and its flow ("edge";
 * "fasteoi" for a level I/O APIC line, "level" on the 8259) and the device;
 * then NMI (non-maskable interrupts: a panic's stop), LOC (each CPU's
 * local APIC timer ticks), SPU (the local APIC's spurious vector, per CPU),
 * CAL (calls each CPU ran: cross-CPU calls, TLB shootdowns among them), TLB
 * (shootdowns each CPU ran for another one) and ERR (the total of the
 * other spurious interrupts).  Linux puts NMI and LOC first too; its other
 * rows (RES, PMI, ...) count things memlab does not have.
 * Context: main loop.
 */
void interrupts_dump(struct printer *p)
{
	u64 errs = 0;

	/* each name starts 11 columns after the last, none trails spaces */
	unsigned pad = 11;

	for (unsigned cpu = 0; cpu < smp_nr_cpus(); cpu++) {
		if (!column(cpu))
			continue;
		pr_printf(p, "%*sCPU%u", (int)pad, "", cpu);
		pad = 11 - 3 - (cpu >= 100 ? 3 : cpu >= 10 ? 2 : 1);
	}
	pr_printf(p, "\n");
	for (unsigned line = 0; line < NR_IRQ_LINES; line++) {
		bool apic = apic_enabled();

		if (!line_info[line].name)
			continue;
		pr_printf(p, "%3u: ", line_info[line].irq);
		for (unsigned cpu = 0; cpu < smp_nr_cpus(); cpu++) {
			if (column(cpu))
				pr_printf(p, "%10llu ", (unsigned long long)irq_count_cpu(line, cpu));
		}
		pr_printf(p, " %8s %3u-%-8s %s\n", apic ? "IO-APIC" : "XT-PIC", line,
			  !line_info[line].level ? "edge" : apic ? "fasteoi" : "level",
			  line_info[line].name);
	}
	arch_row(p, "NMI", offsetof(struct percpu, nmis), "Non-maskable interrupts");
	arch_row(p, "LOC", offsetof(struct percpu, local_timer), "Local timer interrupts");
	arch_row(p, "SPU", offsetof(struct percpu, spurious), "Spurious interrupts");
	arch_row(p, "CAL", offsetof(struct percpu, calls), "Function call interrupts");
	arch_row(p, "TLB", offsetof(struct percpu, tlb_flushes), "TLB shootdowns");
	for (unsigned cpu = 0; cpu < smp_nr_cpus(); cpu++) {
		const struct percpu *pc = smp_cpu(cpu);

		errs += __atomic_load_n(&pc->bad_irqs, __ATOMIC_RELAXED);
	}
	pr_printf(p, "ERR: %10llu\n", (unsigned long long)errs);
}

/* Called by isr.asm with interrupts disabled. */
void trap_dispatch(struct trap_frame *tf)
{
	if (tf->vector == 2) {
		this_cpu()->nmis++;
		if (smp_stopping())
			smp_stop_interrupt(tf);
	}
	if (tf->vector < IRQ_BASE)
		trap_exception(tf);
	if (tf->vector == SMP_CALL_VECTOR) {
		smp_call_interrupt();
		lapic_eoi();
		return;
	}
	if (tf->vector == APIC_SPURIOUS_VECTOR) {
		this_cpu()->spurious++;
		return;
	}
	if (tf->vector == LAPIC_TIMER_VECTOR) {
		this_cpu()->local_timer++;
		lapic_eoi();
		return;
	}
	if (tf->vector >= IRQ_BASE + NR_IRQ_LINES) {
		this_cpu()->bad_irqs++;
		return;
	}

	unsigned line = (unsigned)(tf->vector - IRQ_BASE);

	if (!apic_enabled() && (line >= NR_IRQS || pic_spurious(line))) {
		this_cpu()->bad_irqs++;
		return;
	}
	this_cpu()->irqs[line]++;
	if (irq_handlers[line])
		irq_handlers[line](line);
	if (apic_enabled())
		lapic_eoi();
	else
		pic_eoi(line);
}

/*
 * arch/traps.h - interrupt and exception entry.
 *
 * isr.asm saves the general registers and calls trap_dispatch() with a
 * pointer to this frame; the layout below mirrors the pushes in isr.asm
 * (lowest address first).  Vectors 0-31 are CPU exceptions: memlab treats
 * every one as fatal and prints a report (see traps.c).  Vectors 32-47 are
 * the legacy PIC's IRQ 0-15, dispatched to the handler registered with
 * irq_register().
 */
#ifndef ARCH_TRAPS_H
#define ARCH_TRAPS_H

#include <lib/types.h>

struct trap_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;	/* pushed by isr.asm */
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;		/* pushed by isr.asm */
	u64 vector;		/* pushed by the vector's stub */
	u64 error_code;		/* pushed by the CPU, or 0 by the stub */
	u64 rip, cs, rflags, rsp, ss;			/* pushed by the CPU */
};

#define IRQ_BASE	32	/* vector of interrupt line 0 */
#define NR_IRQS		16	/* ISA IRQs */
#define NR_IRQ_LINES	32	/* vectors 32-63: ISA IRQs (PIC) or GSIs (I/O APIC) */
#define APIC_SPURIOUS_VECTOR 255
#define LAPIC_TIMER_VECTOR 0xec	/* each CPU's local APIC timer tick */
#define LAPIC_TIMER_HZ	100	/* its ticks a second, on every CPU */

/*
 * traps_add_stack() - let exception reports follow frame pointers on
 * [lo, hi) too: a cooperative thread's stack (kernel/kthread.c).  Returns
 * 0, or -ENOSPC when TRAPS_MAX_STACKS are known already.  Context: (main).
 */
int traps_add_stack(u64 lo, u64 hi);

/*
 * A CPU's segment tables: its GDT (null, code, data, a 16-byte TSS
 * descriptor) and its TSS, whose IST1 is the double-fault stack and IST2
 * the NMI / machine-check one.  The boot CPU's are gdt.c's own; each AP
 * has its own in its per-CPU area (arch/smp.h): a TSS is marked busy by
 * `ltr`, so two CPUs cannot share one.
 */
struct x86_tss {
	u32 reserved0;
	u64 rsp[3];		/* stacks for privilege changes (unused) */
	u64 reserved1;
	u64 ist[7];		/* interrupt stack table: IST1..IST7 */
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;		/* no I/O bitmap: offset past the limit */
} __packed;

struct cpu_tables {
	u64 gdt[5];
	struct x86_tss tss;
};

void gdt_init(void);
/* gdt_load_cpu() - fill t (its TSS with the IST stack tops df_top and
 * nmi_top) and load it on the calling CPU: lgdt, segment reloads, ltr.
 * Context: boot (the boot CPU's) or an AP's start, interrupts off. */
void gdt_load_cpu(struct cpu_tables *t, u64 df_top, u64 nmi_top);
void idt_init(void);
/* idt_load() - load the one IDT that idt_init() filled (an AP's start). */
void idt_load(void);
void trap_dispatch(struct trap_frame *tf);

/*
 * irq_register() - run handler for ISA IRQ irq (0-15) and unmask it.
 * Returns 0, or -EBUSY when the IRQ has no line of its own (the MADT's
 * override gave its identity GSI to another IRQ) or its line cannot be
 * routed; the reason is logged and nothing is installed.
 */
int irq_register(unsigned irq, void (*handler)(unsigned irq));

/* irq_count() - interrupts handled on line irq since boot, summed over the
 * CPUs (spurious: any other line number).  Context: any. */
u64 irq_count(unsigned irq);

/* interrupts_dump() - the text of /proc/interrupts, Linux's layout: one
 * column per online CPU, a row per wired line, then SPU, CAL, TLB and ERR
 * (idt.c says what each counts).  Context: main loop. */
struct printer;
void interrupts_dump(struct printer *p);

/* irq_register_sci() - the ACPI SCI, FADT SCI_INT (see idt.c). */
int irq_register_sci(unsigned sci_int, void (*handler)(unsigned irq), unsigned *line,
		     const char **how);

/*
 * The interrupt controllers and the ISA IRQ overrides, as the firmware
 * describes them: the ACPI driver fills one from the MADT
 * (drivers/acpi/madt.c) and init/main.c hands it to apic_init(), so arch
 * needs no ACPI.  An override's flags are ACPI's (MPS INTI): polarity in
 * bits 0-1, trigger mode in bits 2-3, 0 in either meaning "conforms to the
 * bus".
 */
#define APIC_MAX_IOAPICS	8
#define APIC_MAX_OVERRIDES	16
#define IRQ_POLARITY_HIGH	0x1	/* flags bits 0-1 */
#define IRQ_POLARITY_LOW	0x3
#define IRQ_TRIGGER_EDGE	0x4	/* flags bits 2-3 */
#define IRQ_TRIGGER_LEVEL	0xc

struct irq_override {
	u8 bus_irq;		/* ISA IRQ */
	u32 gsi;		/* global system interrupt it arrives on */
	u16 flags;		/* polarity (bits 0-1), trigger (bits 2-3) */
};

struct irq_topology {
	u64 lapic_addr;				/* local APIC MMIO base */
	u32 flags;				/* bit 0: the 8259s exist too */
	u32 nr_cpus;				/* enabled local APICs */
	struct { u8 id; u32 addr; u32 gsi_base; } ioapics[APIC_MAX_IOAPICS];
	u32 nr_ioapics;
	struct irq_override overrides[APIC_MAX_OVERRIDES];
	u32 nr_overrides;
};

/*
 * apic_init() - route interrupts through the local APIC and the I/O APICs
 * that topo describes; false (and nothing changed: the 8259s stay) when
 * topo is NULL, the CPU has no APIC, or no I/O APIC answers.  apic_init()
 * keeps topo for the IRQ -> GSI lookups below and drops from it, in place,
 * the overrides it cannot honour (each logged), so topo must stay valid.
 * Context: boot, once, interrupts disabled.
 */
bool apic_init(struct irq_topology *topo);
bool apic_enabled(void);
/* apic_irq_to_gsi() - IRQ -> GSI, polarity, trigger (see apic.c); 0, or
 * -EBUSY: the IRQ has no line, an override sends apic_gsi_owner(*gsi) there. */
int apic_irq_to_gsi(unsigned irq, bool def_level, bool def_low, unsigned *gsi, bool *level,
		    bool *active_low);
int apic_isa_irq_to_gsi(unsigned irq, unsigned *gsi, bool *level, bool *active_low);
int apic_gsi_owner(unsigned gsi);
int ioapic_route(unsigned gsi, unsigned vector, bool level, bool active_low);
void lapic_eoi(void);
/* lapic_send_ipi() - send ICR low `low` to APIC id dest; in xAPIC mode wait
 * (up to 10 ms) for the delivery status to clear.  Returns 0, -ETIMEDOUT
 * when the IPI stayed pending.  Context: any, interrupts off. */
int lapic_send_ipi(u32 dest, u32 low);
/* lapic_x2apic() - the boot CPU's local APIC runs in x2APIC mode. */
bool lapic_x2apic(void);
/* lapic_cpu_id() - the calling CPU's APIC id, read from its local APIC. */
u32 lapic_cpu_id(void);
/* lapic_ap_setup() - an AP's local APIC: x2APIC mode if the boot CPU's is
 * (and the AP's CPUID has it), enabled, TPR 0, LINT0 masked.  Returns true
 * for x2APIC mode.  Context: an AP's start, interrupts off. */
bool lapic_ap_setup(void);
/* lapic_timer_calibrate() - measure the local APIC timer against the TSC
 * (2 ms, divide by 16) and log its rate; 0 when there is no local APIC in
 * use or it did not count.  Returns the timer's count per tick.  Context:
 * boot, the boot CPU, after time_init(). */
u32 lapic_timer_calibrate(void);
/* lapic_timer_start() - start the calling CPU's local APIC timer, periodic
 * at LAPIC_TIMER_HZ with the calibrated count (nothing if there is none):
 * every tick is counted as the CPU's LOC row of /proc/interrupts.
 * Context: boot CPU at boot, or an AP's start; interrupts off. */
void lapic_timer_start(void);
/* lapic_timer_hz() - the timer's input rate after the divider, in Hz
 * (0 before lapic_timer_calibrate() or without one). */
u64 lapic_timer_hz(void);
struct printer;
void apic_dump(struct printer *p);

/* Legacy 8259 PIC (pic.c). */
void pic_init(void);
void pic_unmask(unsigned irq);
void pic_eoi(unsigned irq);
bool pic_spurious(unsigned irq);

/* isa-debug-exit codes: QEMU exits with (code << 1) | 1. */
#define EXIT_CODE_EXCEPTION_BASE 0x20	/* + vector */
#define EXIT_CODE_PANIC		0x70

/* qemu_debug_exit() - ask QEMU's isa-debug-exit device (port 0xf4) to exit. */
void qemu_debug_exit(u8 code);

/* backtrace_print() - walk the frame-pointer chain from rbp, printing symbols. */
struct printer;
void backtrace_print(struct printer *p, u64 rip, u64 rbp);

#endif

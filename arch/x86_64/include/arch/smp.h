/*
 * arch/smp.h - the other CPUs: starting them, the per-CPU area, calls on
 * them by IPI, TLB shootdown, and stopping them on a panic.
 *
 * The boot CPU (CPU 0) runs everything memlab does: mm, the main loop, the
 * shell, every interrupt of a device.  Every other CPU the firmware lists
 * (the MADT's enabled processors, numbered as include/mm/numa_cpu.h numbers
 * them) is started by smp_init() through a real-mode trampoline
 * (arch/x86_64/smp_trampoline.asm, arch/x86_64/smp.c), and then halts in
 * its idle loop and answers calls (arch/x86_64/smp_call.c).  Its idle loop
 * also runs the one work item CPU 0 may give it (smp_start_work(): the
 * `stress` command's loop, which runs mm there); it may printk().
 * docs/smp.md tells the whole story.
 *
 * Context: smp_init() at boot; the rest from the main loop unless said.
 */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#include <lib/types.h>
#include <lib/printer.h>
#include <lib/fw_memmap.h>
#include <arch/traps.h>

#define SMP_MAX_CPUS		256	/* CPUs memlab starts; more are reported */
#define SMP_AP_STACK_SIZE	16384	/* each AP's own stack */
#define SMP_IST_DF_SIZE		8192	/* its double-fault stack (IST1) */
#define SMP_IST_NMI_SIZE	4096	/* its NMI / machine-check stack (IST2) */

/* The vector of the cross-CPU call (above the GSIs' 32-63).  The stop of
 * smp_stop_others() is an NMI, which a CPU gets with interrupts off too. */
#define SMP_CALL_VECTOR		0xf0	/* run the call waiting in the area */

enum cpu_state {
	CPU_ABSENT,		/* no such CPU */
	CPU_STARTING,		/* INIT/SIPI sent, not answered yet */
	CPU_ONLINE,		/* running: the boot CPU, or an AP in its idle loop */
	CPU_FAILED,		/* did not start: see fail_reason */
	CPU_STUCK,		/* started, but did not answer a call in time */
	CPU_STOPPED,		/* halted for good by smp_stop_others() */
};

/*
 * struct percpu - one CPU's own area; its GS base points here, so
 * this_cpu() finds it (self is the first field for that read).  The boot
 * CPU's is static; an AP's lives in the last page of the block that also
 * holds its stacks.
 */
struct percpu {
	struct percpu *self;	/* %gs:0 */
	u32 cpu;		/* memlab's CPU number (numa_cpu.h's) */
	u32 apic_id;		/* the MADT's APIC id (x2APIC id) */
	volatile u32 state;	/* enum cpu_state */
	bool x2apic;		/* its local APIC runs in x2APIC mode */
	const char *fail_reason;/* CPU_FAILED / CPU_STUCK: why */
	u64 stack_lo, stack_hi;	/* its stack, [lo, hi), a guard page below */
	u64 ist_top[2];		/* its double-fault and NMI stacks' tops */
	u64 start_cycles;	/* TSC cycles from the first SIPI to online */
	u32 tramp_stage;	/* how far it got in the trampoline (failure) */
	/* the cross-CPU call mailbox (smp_call.c) */
	void (*call_fn)(void *arg);
	void *call_arg;
	volatile u32 call_req;	/* bumped by the caller */
	volatile u32 call_done;	/* set to call_req by the CPU when fn returned */
	u64 calls;		/* calls it ran */
	/* the work item its idle loop runs with interrupts on (smp_start_work()) */
	void (*work_fn)(void *arg);
	void *work_arg;
	volatile u32 work_req;	/* bumped by the CPU that started it */
	volatile u32 work_done;	/* set to work_req by the CPU when fn returned */
	u64 works;		/* work items it ran */
	/* interrupts it handled (idt.c; /proc/interrupts): only it writes them */
	u64 irqs[NR_IRQ_LINES];	/* per line (vector IRQ_BASE + line) */
	u64 spurious;		/* the local APIC's spurious vector */
	u64 bad_irqs;		/* 8259 spurious IRQs, vectors past the lines */
	u64 tlb_flushes;	/* TLB shootdowns it ran for another CPU */
	u64 local_timer;	/* its local APIC timer's ticks (LAPIC_TIMER_VECTOR) */
	u64 nmis;		/* NMIs it took (a panic's stop) */
	/* what smp_stop_others() made it save */
	u64 stop_rip, stop_rsp;
	struct cpu_tables tables;	/* its GDT and TSS */
};

/* this_cpu() - the calling CPU's area (after smp_init(); CPU 0's before). */
struct percpu *this_cpu(void);

/*
 * smp_trampoline_pick() - choose the trampoline page: the highest 4 KiB
 * page of RAM in [4 KiB, 640 KiB) of map that overlaps none of the nr
 * ranges avoid (start/end pairs, e.g. the multiboot2 block), remembered
 * for smp_init().  Returns its physical address, or 0 when there is none
 * (smp_init() then starts no CPU).  Context: boot, before memblock is
 * filled (the caller reserves the page).
 */
phys_addr_t smp_trampoline_pick(const struct fw_memmap *map, const phys_addr_t (*avoid)[2],
				unsigned nr);
/* smp_trampoline_phys() - the page smp_trampoline_pick() chose, or 0. */
phys_addr_t smp_trampoline_phys(void);

/*
 * smp_init() - start every CPU of the numa CPU table but the boot CPU, one
 * after the other; a CPU that does not answer within a second is reported
 * with its APIC id and skipped.  Context: boot, after mm is up (the APs'
 * stacks come from the page allocator) and the CPU table is filled.
 */
void smp_init(void);

/* smp_nr_cpus() - CPUs memlab knows of (the boot CPU included). */
unsigned smp_nr_cpus(void);
/* smp_nr_online() - of which online. */
unsigned smp_nr_online(void);
/* smp_cpu() - CPU cpu's area, or NULL past smp_nr_cpus(). */
const struct percpu *smp_cpu(unsigned cpu);

/*
 * smp_call_function_single() - run fn(arg) on CPU cpu (with interrupts off
 * there) and, if wait, until it returned.  On the calling CPU fn runs
 * directly.  Returns 0; -ENODEV for a CPU that is not online; -ETIMEDOUT
 * when it did not answer within SMP_CALL_TIMEOUT_MS (it is then marked
 * CPU_STUCK, named in the log, and no longer called).
 * Context: main loop (CPU 0), interrupts on or off.
 */
#define SMP_CALL_TIMEOUT_MS	1000
int smp_call_function_single(unsigned cpu, void (*fn)(void *arg), void *arg, bool wait);

/*
 * on_each_cpu() - run fn(arg) on every online CPU, the caller's included:
 * the IPIs go out first, then the caller runs fn, then (if wait) it waits
 * for all.  Returns the number of CPUs that did not answer in time (each
 * logged and marked CPU_STUCK).  Context: main loop (CPU 0).
 */
int on_each_cpu(void (*fn)(void *arg), void *arg, bool wait);

/*
 * smp_start_work() - give AP cpu a work item: its idle loop runs fn(arg)
 * once, with interrupts on (so it still answers calls, TLB shootdowns and
 * the panic's stop while fn runs), for as long as fn takes.  The call IPI
 * wakes it.  fn must return by itself (a flag it polls, a count); it may
 * take locks, run mm and printk() (the log has its own lock).  Returns 0; -EINVAL for CPU
 * 0 (the main loop is its idle loop); -ENODEV for a CPU that is not
 * online; -EBUSY while its previous item has not returned.
 * smp_work_running() - has cpu's item not returned yet?
 * Context: main loop (CPU 0), one starter at a time.
 */
int smp_start_work(unsigned cpu, void (*fn)(void *arg), void *arg);
bool smp_work_running(unsigned cpu);

/*
 * smp_kick() - wake AP cpu's idle loop (the call IPI, with no call waiting)
 * so that it looks at its work queue (arch/x86_64/cpu_work.c); nothing for the
 * calling CPU itself or a CPU that is not online.  Context: any CPU.
 */
void smp_kick(unsigned cpu);

/*
 * smp_flush_tlb_range() - drop [va, va+size) from the TLB of every online
 * CPU (the caller's with invlpg, the others through on_each_cpu()); a
 * range over 32 pages flushes the whole TLB (a CR3 reload; global pages
 * are not used).  Context: main loop, after the entries were changed.
 */
void smp_flush_tlb_range(u64 va, u64 size);

/*
 * smp_stop_others() - on a panic or a fatal exception: send every other
 * online CPU the stop IPI, wait up to 100 ms for each to save RIP and RSP
 * and halt, and print one line per CPU.  Returns at once when only one CPU
 * runs.  Context: any, interrupts off; called once (later calls return).
 */
void smp_stop_others(struct printer *p);

/* smp_call_interrupt() - SMP_CALL_VECTOR's handler; smp_stopping() - has
 * smp_stop_others() begun (then an NMI is its stop); smp_stop_interrupt() -
 * that NMI's handler: save RIP and RSP, halt for good.  Context: interrupt
 * (idt.c's dispatch). */
void smp_call_interrupt(void);
bool smp_stopping(void);
__noreturn void smp_stop_interrupt(const struct trap_frame *tf);

/* smp_dump() - the text of `cpus`: one line per CPU.  smp_cpuinfo_dump() -
 * /proc/cpuinfo: one stanza per online CPU.  Context: main loop. */
void smp_dump(struct printer *p);
void smp_cpuinfo_dump(struct printer *p);

#endif

/* ---- the trampoline (arch/x86_64/trampoline.c) ---------------------------- */

/* The parameter block inside the trampoline page; the layout is
 * arch/x86_64/smp_trampoline.asm's (its header lists the offsets). */
struct trampoline_params {
	volatile u32 stage;	/* 0 not yet, 1 real mode, 2 long mode (the AP writes) */
	u32 apic_id;		/* the AP this start is for */
	u32 id_leaf;		/* CPUID leaf of the APIC id: 1 or 0xb */
	u32 efer;		/* EFER bits the AP sets: LME, NXE */
	u64 kernel_cr3;		/* the BSP's CR3 */
	u64 stack_top;		/* the AP's stack */
	u64 percpu;		/* its struct percpu */
	u64 entry;		/* smp_ap_entry */
	u32 boot_cr3;		/* boot_pml4, physical */
	u32 pad;
} __packed;

#define TRAMPOLINE_LOW		0x1000ULL	/* the page search's bounds: */
#define TRAMPOLINE_HIGH		0xa0000ULL	/* conventional memory */

/*
 * trampoline_install() - copy the trampoline code (len bytes, its
 * parameter block at params_off) into page, the direct-map view of the
 * page at phys, and return the parameter block in it, cleared; *vector
 * gets the start-up vector (phys >> 12).  NULL, and nothing written, when
 * phys is not a page below 1 MiB or the code and a 64-byte stack do not
 * fit in the page.  Context: boot.
 */
struct trampoline_params *trampoline_install(void *page, phys_addr_t phys, const void *code,
					     size_t len, size_t params_off, int *vector);

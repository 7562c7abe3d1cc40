/*
 * smp.c - starting the application processors (APs) and their per-CPU
 * areas; the idle loop they then live in; `cpus` and /proc/cpuinfo's text.
 *
 * The CPUs are mm's CPU table (include/mm/numa_cpu.h: the MADT's enabled
 * processors, local APIC and local x2APIC entries, numbered the Linux way,
 * the boot CPU 0).  Each AP gets one block of 32 KiB from the page
 * allocator: its stack (16 KiB), its double-fault stack (8 KiB), its NMI
 * stack (4 KiB), each mapped a second time in the ioremap area, where the
 * page below every mapping is left unmapped (paging.c's ioremap()), so an
 * overflow faults instead of writing over the next thing; and, in the last
 * page, reached through the direct map, its struct percpu, which holds its
 * GDT and TSS.  A CPU that never answers keeps its block: it may still
 * wake up later, and must then find its memory its own.
 *
 * The start, as the SDM gives it for the boot CPU starting the others:
 * INIT to every AP, 10 ms, then for each AP in turn its parameters in the
 * trampoline page, a start-up IPI (SIPI) with the page's number as vector,
 * 200 us, a second SIPI if the AP has not yet written its first sign of
 * life in the page (a CPU already running ignores a SIPI), 200 us, and a
 * wait of up to SMP_START_TIMEOUT_MS for the AP to say it is online.  All
 * the waits are udelay()s on the TSC, whose rate time_init() measured.
 * One AP at a time, because they share the one trampoline page.
 *
 * An AP, once in C (smp_ap_main()), loads its GDT and TSS, the shared IDT,
 * the boot CPU's CR4, its GS base (its struct percpu, so this_cpu() works),
 * enables its local APIC (x2APIC mode when the boot CPU's is and its CPUID
 * has it), says it is online, and halts with interrupts on until an IPI
 * comes.  It prints nothing: the log and the main loop are the boot CPU's
 * alone.  It runs mm only in a work item CPU 0 gives it (smp_start_work():
 * the `stress` command's loop, docs/smp.md).
 */
#include <arch/smp.h>
#include <arch/cpu.h>
#include <arch/lapic.h>
#include <arch/paging.h>
#include <arch/sections.h>
#include <arch/time.h>
#include <mm/numa_cpu.h>
#include <arch/cpu_work.h>
#include <mm/gfp.h>
#include <mm/page.h>
#include <mm/platform.h>
#include <lib/printk.h>
#include <lib/lock.h>
#include <lib/errno.h>
#include <lib/string.h>
#include <lib/params.h>

#define MSR_GS_BASE		0xc0000101
#define EFER_LME		(1u << 8)
#define SMP_START_TIMEOUT_MS	1000
#define AP_BLOCK_ORDER		3	/* 32 KiB: three stacks and the area */
#define AP_AREA_OFFSET		(SMP_AP_STACK_SIZE + SMP_IST_DF_SIZE + SMP_IST_NMI_SIZE)

extern const u8 trampoline_start[], trampoline_end[], trampoline_params[];
extern const u8 smp_ap_entry[];
extern u64 boot_pml4[];
extern char boot_stack[], boot_stack_top[];
__noreturn void smp_ap_main(struct percpu *pc);

_Static_assert(AP_AREA_OFFSET + sizeof(struct percpu) <= (PAGE_SIZE << AP_BLOCK_ORDER),
	       "the per-CPU area fits in the block's last page");

static struct percpu boot_area;
static struct percpu *cpus[SMP_MAX_CPUS];
static unsigned nr_cpus = 1, nr_dropped;
static bool gs_ready;
static u64 bsp_cr4;		/* what every AP loads into CR4 */
static struct trampoline_params *tparams;	/* in the trampoline page */
static int sipi_vector;
static u32 id_leaf;		/* CPUID leaf of the APIC id the MADT gives */
static const char *unstarted_why[SMP_MAX_CPUS];	/* listed, no area: why */

/*
 * smp_test_nosipi=N: CPU N gets its INIT but never a start-up IPI, so it
 * does not answer and the boot reports and skips it as it would a CPU that
 * is broken.  Under QEMU every listed CPU starts, so this is the way to
 * see that path (tests/qemu/test_smp.py).  0 (the boot CPU): off.  Set by
 * the command line only, before smp_init().
 */
static unsigned nosipi_cpu;
KERNEL_PARAM(smp_test_nosipi,
	.name = "smp_test_nosipi", .type = PARAM_UINT, .value = &nosipi_cpu,
	.min = 0, .max = SMP_MAX_CPUS - 1, .def = 0,
	.help = "test: CPU N gets INIT but no start-up IPI, so it never answers and is skipped");

/* this_cpu() - see arch/smp.h: %gs:0 is the area's self pointer. */
struct percpu *this_cpu(void)
{
	struct percpu *pc;

	if (!gs_ready)
		return &boot_area;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(pc));
	return pc;
}

/*
 * lock_this_cpu() - include/lib/lock.h's hook: this CPU's number, from its
 * GS per-CPU area (CPU 0 before smp_init() sets GS up).  Returns it.
 * Context: any.
 */
unsigned lock_this_cpu(void)
{
	return this_cpu()->cpu;
}

/*
 * lock_irq_save() - lock.h's hook: interrupts off on this CPU; returns
 * RFLAGS as they were.  lock_irq_restore() turns interrupts back on if
 * they were on in flags.  Context: any.
 */
unsigned long lock_irq_save(void)
{
	unsigned long flags = read_rflags();

	irq_disable();
	return flags;
}

void lock_irq_restore(unsigned long flags)
{
	if (flags & (1UL << 9))
		irq_enable();
}

unsigned smp_nr_cpus(void)
{
	return nr_cpus;
}

unsigned smp_nr_online(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < nr_cpus; i++)
		n += cpus[i] && cpus[i]->state == CPU_ONLINE;
	return n;
}

const struct percpu *smp_cpu(unsigned cpu)
{
	if (cpu == 0)
		return &boot_area;
	return cpu < nr_cpus ? cpus[cpu] : NULL;
}

/* The boot CPU's area: CPU 0, on the boot stack, online; its GS base. */
static void boot_area_init(void)
{
	boot_area.self = &boot_area;
	boot_area.cpu = 0;
	boot_area.apic_id = apic_enabled() ? lapic_cpu_id() : boot_cpu.apic_id;
	boot_area.x2apic = apic_enabled() && lapic_x2apic();
	boot_area.stack_lo = (u64)(uintptr_t)boot_stack;
	boot_area.stack_hi = (u64)(uintptr_t)boot_stack_top;
	boot_area.state = CPU_ONLINE;
	cpus[0] = &boot_area;
	wrmsr(MSR_GS_BASE, (u64)(uintptr_t)&boot_area);
	gs_ready = true;
}

/*
 * ap_area_new() - CPU cpu's block: the three stacks mapped with their
 * guard pages, the area cleared and filled with what smp_ap_main() needs.
 * Returns the area, or NULL with *why set when memory or the ioremap area
 * ran out.  Context: boot.
 */
static struct percpu *ap_area_new(unsigned cpu, u32 apic_id, const char **why)
{
	struct page *page = alloc_pages_kept(__GFP_ZERO | __GFP_NOWARN, AP_BLOCK_ORDER);
	phys_addr_t pa;
	u8 *stack, *df, *nmi;
	struct percpu *pc;

	if (!page) {
		*why = "no memory for its stacks";
		return NULL;
	}
	pa = page_to_phys(page);
	stack = ioremap(pa, SMP_AP_STACK_SIZE, IOREMAP_WB);
	df = ioremap(pa + SMP_AP_STACK_SIZE, SMP_IST_DF_SIZE, IOREMAP_WB);
	nmi = ioremap(pa + SMP_AP_STACK_SIZE + SMP_IST_DF_SIZE, SMP_IST_NMI_SIZE, IOREMAP_WB);
	if (!stack || !df || !nmi) {
		*why = "no room to map its stacks";
		return NULL;	/* the block stays allocated: what was mapped points at it */
	}
	pc = mm_phys_to_virt(pa + AP_AREA_OFFSET);
	pc->self = pc;
	pc->cpu = cpu;
	pc->apic_id = apic_id;
	pc->state = CPU_STARTING;
	pc->stack_lo = (u64)(uintptr_t)stack;
	pc->stack_hi = pc->stack_lo + SMP_AP_STACK_SIZE;
	pc->ist_top[0] = (u64)(uintptr_t)df + SMP_IST_DF_SIZE;
	pc->ist_top[1] = (u64)(uintptr_t)nmi + SMP_IST_NMI_SIZE;
	return pc;
}

/*
 * smp_ap_main() - an AP's first C, from smp_ap_entry on its own stack with
 * the kernel's page tables, interrupts off.  Never returns: after the setup
 * it halts in its idle loop, where each interrupt (a cross-CPU call) wakes
 * it, runs, and it halts again.  Context: the AP.
 */
__noreturn void smp_ap_main(struct percpu *pc)
{
	gdt_load_cpu(&pc->tables, pc->ist_top[0], pc->ist_top[1]);
	idt_load();
	write_cr4(bsp_cr4);
	wrmsr(MSR_GS_BASE, (u64)(uintptr_t)pc);	/* after the GDT: a GS load clears it */
	pc->x2apic = lapic_ap_setup();
	lapic_timer_start();		/* its LOC ticks; each wakes the idle loop */
	__atomic_store_n(&pc->state, CPU_ONLINE, __ATOMIC_RELEASE);
	for (;;) {
		u32 req;

		irq_disable();	/* so no wake-up falls between the check and the hlt */
		req = __atomic_load_n(&pc->work_req, __ATOMIC_ACQUIRE);
		if (req == pc->work_done) {
			if (cpu_work_pending(pc->cpu)) {	/* its queue (arch/x86_64/cpu_work.c) */
				irq_enable();
				cpu_work_run(pc->cpu);
				continue;
			}
			cpu_idle();	/* sti; hlt: sti's one-instruction delay keeps them together */
			continue;
		}
		irq_enable();
		pc->work_fn(pc->work_arg);
		pc->works++;
		__atomic_store_n(&pc->work_done, req, __ATOMIC_RELEASE);
	}
}

/* Why an AP that did not come online stopped, from its trampoline stage. */
static const char *stage_reason(u32 stage)
{
	switch (stage) {
	case 0:
		return "did not answer INIT and SIPI";
	case 1:
		return "started in real mode but did not reach long mode";
	default:
		return "reached long mode but not the kernel";
	}
}

/* Wait up to ms milliseconds of TSC time for pc to be online. */
static bool wait_online(struct percpu *pc, u64 t0, u64 ms)
{
	u64 limit = ms * tsc_khz();

	while (__atomic_load_n(&pc->state, __ATOMIC_ACQUIRE) != CPU_ONLINE) {
		if (rdtsc() - t0 > limit)
			return false;
		cpu_relax();
	}
	return true;
}

/* The start-up IPI, and a second one if the AP has not yet written its
 * first sign of life in the trampoline page, 200 us after each. */
static void send_sipis(const struct percpu *pc)
{
	lapic_send_ipi(pc->apic_id, ICR_STARTUP | ICR_ASSERT | (u32)sipi_vector);
	udelay(200);
	if (!__atomic_load_n(&tparams->stage, __ATOMIC_ACQUIRE)) {
		lapic_send_ipi(pc->apic_id, ICR_STARTUP | ICR_ASSERT | (u32)sipi_vector);
		udelay(200);
	}
}

/*
 * start_ap() - SIPI one AP that had its INIT, and wait for it (see the top
 * of the file).  Records the cycles from the first SIPI to online, or the
 * reason it failed.  Context: boot.
 */
static void start_ap(struct percpu *pc, u32 efer)
{
	u64 t0;

	tparams->stage = 0;
	tparams->apic_id = pc->apic_id;
	tparams->id_leaf = id_leaf;
	tparams->efer = efer;
	tparams->kernel_cr3 = read_cr3();
	tparams->stack_top = pc->stack_hi;
	tparams->percpu = (u64)(uintptr_t)pc;
	tparams->entry = (u64)(uintptr_t)smp_ap_entry;
	tparams->boot_cr3 = (u32)(uintptr_t)boot_pml4;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	t0 = rdtsc();
	if (pc->cpu == nosipi_cpu)
		pr_info("smp: CPU %u (APIC id %u): no start-up IPI sent (smp_test_nosipi=%u)",
			pc->cpu, pc->apic_id, nosipi_cpu);
	else
		send_sipis(pc);
	if (wait_online(pc, t0, SMP_START_TIMEOUT_MS)) {
		pc->start_cycles = rdtsc() - t0;
		numa_cpu_set_online(pc->cpu, true);	/* mm sizes the pcp lists by it */
		return;
	}
	pc->tramp_stage = tparams->stage;
	pc->fail_reason = stage_reason(pc->tramp_stage);
	pc->state = CPU_FAILED;
	pr_warn("smp: CPU %u (APIC id %u) %s within %u ms; skipped", pc->cpu, pc->apic_id,
		pc->fail_reason, SMP_START_TIMEOUT_MS);
}

/*
 * id_leaf_of_boot_cpu() - where a CPU reads the APIC id the MADT gives:
 * CPUID leaf 0xb (the full x2APIC id) when the CPU has that leaf with
 * levels, as cpu_detect() reads it, else leaf 1's 8 bits.
 */
static u32 id_leaf_of_boot_cpu(void)
{
	u32 a, b, c, d;

	if (boot_cpu.max_leaf < 0xb)
		return 1;
	cpuid_count(0xb, 0, &a, &b, &c, &d);
	return b ? 0xb : 1;
}

/* Leave CPUs [first, nr) unstarted for one reason, logged once. */
static void leave_unstarted(unsigned first, unsigned nr, const char *why)
{
	for (unsigned i = first; i < nr && i < SMP_MAX_CPUS; i++)
		unstarted_why[i] = why;
	if (first < nr)
		pr_warn("smp: %u CPUs listed; CPUs %u-%u are not started: %s", nr, first, nr - 1, why);
}

/*
 * smp_init() - see arch/smp.h.  The boot CPU's own area first (its GS
 * base), then, if there is anything to start and a way to start it (a
 * local APIC in use, a trampoline page): INIT to each AP that got its
 * block, 10 ms, and start_ap() for each, in CPU order.
 */
void smp_init(void)
{
	unsigned listed = nr_numa_cpus();
	phys_addr_t tramp = smp_trampoline_phys();
	u32 efer = EFER_LME | (boot_cpu.has_nx ? EFER_NXE : 0);
	u64 t0 = rdtsc();
	struct numa_cpu c;

	boot_area_init();
	bsp_cr4 = read_cr4();
	id_leaf = id_leaf_of_boot_cpu();
	if (listed > SMP_MAX_CPUS) {
		nr_dropped = listed - SMP_MAX_CPUS;
		pr_warn("smp: %u CPUs listed; memlab starts at most %u, the last %u are not started",
			listed, SMP_MAX_CPUS, nr_dropped);
		listed = SMP_MAX_CPUS;
	}
	nr_cpus = listed;
	if (listed > LOCK_MAX_CPUS)
		pr_warn("smp: %u CPUs; the locks keep a record, and mm per-CPU page lists, for %u "
			"(LOCK_MAX_CPUS): CPUs %u and above must never take a lock (no AP does yet)",
			listed, LOCK_MAX_CPUS, LOCK_MAX_CPUS);
	if (listed <= 1) {
		pr_info("smp: 1 CPU; nothing to start");
		return;
	}
	if (!apic_enabled()) {
		leave_unstarted(1, listed, "no local APIC in use to send INIT and SIPI");
		return;
	}
	if (!tramp) {
		leave_unstarted(1, listed, "no free page below 640 KiB for the trampoline");
		return;
	}
	tparams = trampoline_install(phys_to_virt(tramp), tramp, trampoline_start,
				     (size_t)(trampoline_end - trampoline_start),
				     (size_t)(trampoline_params - trampoline_start), &sipi_vector);
	if (!tparams) {
		leave_unstarted(1, listed, "the trampoline does not fit its page");
		return;
	}

	for (unsigned i = 1; i < listed; i++) {
		const char *why = NULL;

		if (!numa_cpu_get(i, &c))
			break;
		cpus[i] = ap_area_new(i, c.hw_id, &why);
		if (!cpus[i]) {
			unstarted_why[i] = why;
			pr_warn("smp: CPU %u (APIC id %u) not started: %s", i, c.hw_id, why);
			continue;
		}
		if (lapic_send_ipi(c.hw_id, ICR_INIT | ICR_ASSERT)) {
			cpus[i]->state = CPU_FAILED;
			cpus[i]->fail_reason = "its INIT stayed pending";
			pr_warn("smp: CPU %u (APIC id %u) not started: %s", i, c.hw_id,
				cpus[i]->fail_reason);
		}
	}
	udelay(10000);		/* the SDM's 10 ms between INIT and the first SIPI */
	for (unsigned i = 1; i < listed; i++)
		if (cpus[i] && cpus[i]->state == CPU_STARTING)
			start_ap(cpus[i], efer);

	pr_info("smp: %u of %u CPUs online (%s), trampoline at %#llx, started in %llu ms",
		smp_nr_online(), listed, boot_area.x2apic ? "x2APIC" : "xAPIC",
		(unsigned long long)tramp,
		(unsigned long long)(cycles_to_ns(rdtsc() - t0) / 1000000));
}

/* ---- what `cpus` and /proc/cpuinfo show ----------------------------------- */

static const char *state_name(const struct percpu *pc)
{
	switch (pc->state) {
	case CPU_ONLINE:
		if (pc->cpu == 0)
			return "online (main loop)";
		return pc->work_req != pc->work_done || cpu_work_current(pc->cpu) ?
		       "online (work)" : "online (idle)";
	case CPU_STARTING:
		return "starting";
	case CPU_FAILED:
		return "failed";
	case CPU_STUCK:
		return "stuck";
	case CPU_STOPPED:
		return "stopped";
	default:
		return "absent";
	}
}

/*
 * What an online AP runs, for the end of its `cpus` line: "  runs NAME"
 * (an item of its work queue, arch/x86_64/cpu_work.c), "  runs a work item"
 * (smp_start_work()'s, which has no name), and how many items wait
 * behind it; empty when it runs nothing.
 */
static const char *runs_text(const struct percpu *pc, char *buf, size_t size)
{
	const char *name = cpu_work_current(pc->cpu);
	unsigned queued = cpu_work_queued(pc->cpu);
	size_t n = 0;

	buf[0] = 0;
	if (name)
		n = ksnprintf(buf, size, "  runs %s", name);
	else if (pc->work_req != pc->work_done)
		n = ksnprintf(buf, size, "  runs a work item");
	if (queued && n < size)
		ksnprintf(buf + n, size - n, "%s%u queued", n ? ", " : "  ", queued);
	return buf;
}

/*
 * smp_dump() - see arch/smp.h: a header with the counts, then one line per
 * CPU: number, APIC id, node, state, APIC mode, start time in TSC cycles
 * (from the first SIPI to online, as the boot CPU saw it), and for a CPU
 * that did not start or stopped answering, why.
 */
void smp_dump(struct printer *p)
{
	unsigned listed = nr_numa_cpus();

	pr_printf(p, "CPUs: %u listed, %u online; CPU 0 runs the main loop, the others idle and "
		  "answer calls\n", listed, smp_nr_online());
	pr_printf(p, "CPU  APIC ID  NODE  STATE               APIC    START (TSC cycles)  RUNS\n");
	for (unsigned i = 0; i < listed && i < SMP_MAX_CPUS; i++) {
		const struct percpu *pc = smp_cpu(i);
		struct numa_cpu c;
		char node[12], runs[96];

		if (!numa_cpu_get(i, &c)) {
			c.hw_id = boot_area.apic_id;
			c.nid = 0;
		}
		if (c.nid < 0)
			ksnprintf(node, sizeof(node), "-");
		else
			ksnprintf(node, sizeof(node), "%d", c.nid);
		if (!pc) {
			pr_printf(p, "%3u  %7u  %4s  %-18s  %-6s  -  %s\n", i, c.hw_id, node,
				  "not started", "-", unstarted_why[i] ? unstarted_why[i] : "");
			continue;
		}
		pr_printf(p, "%3u  %7u  %4s  %-18s  %-6s  ", i, pc->apic_id, node, state_name(pc),
			  pc->state == CPU_ONLINE || pc->state == CPU_STUCK || pc->state == CPU_STOPPED ?
			  (pc->x2apic ? "x2APIC" : "xAPIC") : "-");
		if (i == 0)
			pr_printf(p, "boot CPU\n");
		else if (pc->state == CPU_FAILED)
			pr_printf(p, "-  %s\n", pc->fail_reason);
		else if (pc->state == CPU_STUCK)
			pr_printf(p, "%llu  %s\n", (unsigned long long)pc->start_cycles,
				  pc->fail_reason);
		else
			pr_printf(p, "%llu%s\n", (unsigned long long)pc->start_cycles,
				  runs_text(pc, runs, sizeof(runs)));
	}
	if (nr_dropped)
		pr_printf(p, "... %u more CPUs listed, past memlab's %u, not started\n", nr_dropped,
			  SMP_MAX_CPUS);
}

/* smp_cpuinfo_dump() - see arch/smp.h; cpu_dump_stanza() writes each. */
void smp_cpuinfo_dump(struct printer *p)
{
	for (unsigned i = 0; i < nr_cpus; i++) {
		const struct percpu *pc = smp_cpu(i);

		if (!pc || (pc->state != CPU_ONLINE && pc->state != CPU_STUCK))
			continue;
		cpu_dump_stanza(p, i, pc->apic_id);
		pr_printf(p, "\n");
	}
}

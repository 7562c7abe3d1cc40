/*
 * smp_call.c - running a function on other CPUs: the call IPI and its
 * mailbox, the watchdog that names a CPU that does not answer, the TLB
 * shootdown built on it, and the stop of every other CPU on a panic.
 *
 * Each CPU's struct percpu is its mailbox: the caller (the boot CPU, from
 * the main loop: one caller at a time, so no lock) writes the function and
 * its argument, bumps call_req and sends SMP_CALL_VECTOR to the CPU's APIC
 * id; the CPU's handler runs the function with interrupts off and copies
 * call_req to call_done, which the caller waits for.  x86 keeps stores in
 * order, so the release store of call_req after fn and arg, and of
 * call_done after fn returned, are what the two sides need.  A CPU that
 * does not answer within SMP_CALL_TIMEOUT_MS of TSC time is logged by
 * number and APIC id, marked CPU_STUCK and not called again: a fixed,
 * generous bound for "did not answer at all", not a measure of speed.
 */
#include <arch/smp.h>
#include <arch/cpu.h>
#include <arch/lapic.h>
#include <arch/kallsyms.h>
#include <arch/time.h>
#include <lib/printk.h>
#include <lib/errno.h>

static volatile bool stopping;

/* The call's function name for the log, or "?" without kallsyms. */
static const char *fn_name(void (*fn)(void *))
{
	u64 off, size;
	const char *name = kallsyms_lookup((u64)(uintptr_t)fn, &off, &size);

	return name ? name : "?";
}

/*
 * smp_call_interrupt() - run the call in this CPU's mailbox, if one is
 * waiting (an IPI may find it answered already).  Context: interrupt.
 */
void smp_call_interrupt(void)
{
	struct percpu *pc = this_cpu();
	u32 req = __atomic_load_n(&pc->call_req, __ATOMIC_ACQUIRE);

	if (req == pc->call_done)
		return;
	pc->call_fn(pc->call_arg);
	pc->calls++;
	__atomic_store_n(&pc->call_done, req, __ATOMIC_RELEASE);
}

/*
 * call_wait() - wait until pc answered its last call, at most
 * SMP_CALL_TIMEOUT_MS from start; on a timeout mark it stuck and say so.
 * Returns 0 or -ETIMEDOUT.  Context: main loop.
 */
static int call_wait(struct percpu *pc, u64 start)
{
	u64 limit = SMP_CALL_TIMEOUT_MS * tsc_khz();

	while (__atomic_load_n(&pc->call_done, __ATOMIC_ACQUIRE) != pc->call_req) {
		if (rdtsc() - start > limit) {
			pc->state = CPU_STUCK;
			pc->fail_reason = "did not answer a call";
			pr_err("smp: CPU %u (APIC id %u) did not answer a call to %s() within %u ms; "
			       "marked stuck, not called again", pc->cpu, pc->apic_id,
			       fn_name(pc->call_fn), SMP_CALL_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
		cpu_relax();
	}
	return 0;
}

/*
 * call_post() - put fn(arg) in pc's mailbox and send the IPI; a call still
 * unanswered there is waited for first.  Returns 0, -ENODEV (not online),
 * -ETIMEDOUT (the earlier call never came back, or the IPI stayed pending).
 */
static int call_post(struct percpu *pc, void (*fn)(void *), void *arg)
{
	if (pc->state != CPU_ONLINE)
		return -ENODEV;
	if (pc->call_done != pc->call_req && call_wait(pc, rdtsc()))
		return -ETIMEDOUT;
	pc->call_fn = fn;
	pc->call_arg = arg;
	__atomic_store_n(&pc->call_req, pc->call_req + 1, __ATOMIC_RELEASE);
	return lapic_send_ipi(pc->apic_id, ICR_FIXED | ICR_ASSERT | SMP_CALL_VECTOR);
}

/* Run fn(arg) here with interrupts off, as a remote CPU runs it. */
static void call_local(void (*fn)(void *), void *arg)
{
	bool on = irqs_enabled();

	irq_disable();
	fn(arg);
	if (on)
		irq_enable();
}

/* smp_call_function_single() - see arch/smp.h. */
int smp_call_function_single(unsigned cpu, void (*fn)(void *arg), void *arg, bool wait)
{
	struct percpu *pc = (struct percpu *)smp_cpu(cpu);
	u64 start = rdtsc();
	int err;

	if (!pc)
		return -ENODEV;
	if (pc == this_cpu()) {
		call_local(fn, arg);
		return 0;
	}
	err = call_post(pc, fn, arg);
	if (err || !wait)
		return err;
	return call_wait(pc, start);
}

/* on_each_cpu() - see arch/smp.h. */
int on_each_cpu(void (*fn)(void *arg), void *arg, bool wait)
{
	struct percpu *self = this_cpu();
	u64 start = rdtsc();
	int missing = 0;

	for (unsigned i = 0; i < smp_nr_cpus(); i++) {
		struct percpu *pc = (struct percpu *)smp_cpu(i);

		if (pc && pc != self && pc->state == CPU_ONLINE && call_post(pc, fn, arg) == -ETIMEDOUT)
			missing++;
	}
	call_local(fn, arg);
	if (!wait)
		return missing;
	for (unsigned i = 0; i < smp_nr_cpus(); i++) {
		struct percpu *pc = (struct percpu *)smp_cpu(i);

		if (pc && pc != self && pc->state == CPU_ONLINE && call_wait(pc, start))
			missing++;
	}
	return missing;
}

/* ---- work items for the idle loop ------------------------------------------ */

/* smp_start_work() - see arch/smp.h: the item in the area, then the IPI
 * that wakes the idle loop (its handler finds no call and returns). */
int smp_start_work(unsigned cpu, void (*fn)(void *arg), void *arg)
{
	struct percpu *pc = (struct percpu *)smp_cpu(cpu);

	if (!pc)
		return -ENODEV;
	if (pc == this_cpu() || cpu == 0)
		return -EINVAL;
	if (pc->state != CPU_ONLINE)
		return -ENODEV;
	if (smp_work_running(cpu))
		return -EBUSY;
	pc->work_fn = fn;
	pc->work_arg = arg;
	__atomic_store_n(&pc->work_req, pc->work_req + 1, __ATOMIC_RELEASE);
	return lapic_send_ipi(pc->apic_id, ICR_FIXED | ICR_ASSERT | SMP_CALL_VECTOR);
}

/* smp_kick() - see arch/smp.h: the call IPI with no call in the mailbox. */
void smp_kick(unsigned cpu)
{
	const struct percpu *pc = smp_cpu(cpu);

	if (pc && pc != this_cpu() && pc->state == CPU_ONLINE)
		lapic_send_ipi(pc->apic_id, ICR_FIXED | ICR_ASSERT | SMP_CALL_VECTOR);
}

bool smp_work_running(unsigned cpu)
{
	const struct percpu *pc = smp_cpu(cpu);

	return pc && __atomic_load_n(&pc->work_done, __ATOMIC_ACQUIRE) != pc->work_req;
}

/* ---- TLB shootdown ---------------------------------------------------------- */

struct flush_range {
	u64 va, size;
	u32 from;		/* the CPU that asked */
};

#define FLUSH_ALL_PAGES		32

/* Drop the range from this CPU's TLB: page by page, or all of it.  A CPU
 * that does it for another one counts a shootdown (/proc/interrupts' TLB). */
static void flush_here(void *arg)
{
	const struct flush_range *r = arg;
	struct percpu *self = this_cpu();

	if (self->cpu != r->from)
		self->tlb_flushes++;

	if (r->size / SZ_4K > FLUSH_ALL_PAGES) {
		write_cr3(read_cr3());
		return;
	}
	for (u64 off = 0; off < r->size; off += SZ_4K)
		invlpg((void *)(uintptr_t)(r->va + off));
}

/* smp_flush_tlb_range() - see arch/smp.h. */
void smp_flush_tlb_range(u64 va, u64 size)
{
	struct flush_range r = { va, size, this_cpu()->cpu };

	if (smp_nr_online() <= 1) {
		call_local(flush_here, &r);
		return;
	}
	on_each_cpu(flush_here, &r, true);
}

/* ---- stopping the others ---------------------------------------------------- */

bool smp_stopping(void)
{
	return stopping;
}

/*
 * smp_stop_interrupt() - the NMI of smp_stop_others() on a CPU being
 * stopped: keep where it was, say it stopped, halt for good.
 */
__noreturn void smp_stop_interrupt(const struct trap_frame *tf)
{
	struct percpu *pc = this_cpu();

	pc->stop_rip = tf->rip;
	pc->stop_rsp = tf->rsp;
	__atomic_store_n(&pc->state, CPU_STOPPED, __ATOMIC_RELEASE);
	cpu_halt_forever();
}

/* smp_stop_others() - see arch/smp.h. */
void smp_stop_others(struct printer *p)
{
	struct percpu *self = this_cpu();
	u64 limit = 100 * (tsc_khz() ? tsc_khz() : 1000000);

	if (smp_nr_online() <= 1 || __atomic_exchange_n(&stopping, true, __ATOMIC_SEQ_CST))
		return;
	for (unsigned i = 0; i < smp_nr_cpus(); i++) {
		struct percpu *pc = (struct percpu *)smp_cpu(i);

		if (pc && pc != self && (pc->state == CPU_ONLINE || pc->state == CPU_STUCK))
			lapic_send_ipi(pc->apic_id, ICR_NMI | ICR_ASSERT);
	}
	for (unsigned i = 0; i < smp_nr_cpus(); i++) {
		struct percpu *pc = (struct percpu *)smp_cpu(i);
		u64 start = rdtsc(), off, size;
		const char *name;

		if (!pc || pc == self || (pc->state != CPU_ONLINE && pc->state != CPU_STUCK &&
					  pc->state != CPU_STOPPED))
			continue;
		while (pc->state != CPU_STOPPED && rdtsc() - start < limit)
			cpu_relax();
		if (pc->state != CPU_STOPPED) {
			pr_printf(p, "CPU %u (APIC id %u): did not stop within 100 ms\n", pc->cpu,
				  pc->apic_id);
			continue;
		}
		name = kallsyms_lookup(pc->stop_rip, &off, &size);
		pr_printf(p, "CPU %u (APIC id %u): stopped, RIP %016llx %s+0x%llx RSP %016llx\n",
			  pc->cpu, pc->apic_id, (unsigned long long)pc->stop_rip, name ? name : "?",
			  (unsigned long long)(name ? off : 0), (unsigned long long)pc->stop_rsp);
	}
	pr_printf(p, "CPU %u (APIC id %u): the one that stopped the others\n", self->cpu,
		  self->apic_id);
}

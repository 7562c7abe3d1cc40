/*
 * memmap_cpus.c - the kernel's side of mm's parallel memmap init of an
 * onlined block (include/mm/memmap_cpus.h): mm asks for a chunk to run on
 * another CPU, and this file gives it to an idle AP as a cpu_work item
 * (arch/x86_64/cpu_work.c), one item per CPU that can run mm
 * (MM_NR_CPUS).  An AP that runs or has queued anything else (deferred
 * init's sections, a `stress` loop, a drain) is not asked: the chunk would
 * wait behind that work, and mm would take it back after the bound.
 *
 * views/memmap_cpus.c shows what the onlines so far were split into.
 *
 * Context: (main); the items run on the APs with interrupts on.
 */
#include <kernel/memmap_cpus.h>
#include <mm/memmap_cpus.h>
#include <mm/mmzone.h>
#include <arch/cpu_work.h>
#include <arch/smp.h>
#include <arch/cpu.h>
#include <arch/time.h>
#include <lib/errno.h>

/* The bound on a helper's start and on its chunk: a chunk is at most
 * 16384 struct pages (1 MiB), milliseconds even under TCG. */
#define MEMMAP_CPUS_TIMEOUT_MS	1000

static struct cpu_work items[MM_NR_CPUS];	/* [h] one per AP; its own while queued or running */
static void (*item_fn[MM_NR_CPUS])(void *arg);	/* [h] mm's function, set before the item is queued */

/* An item: mm's chunk function.  Context: the AP, interrupts on. */
static void memmap_item(struct cpu_work *w)
{
	item_fn[w->cpu](w->arg);
}

/* Does AP cpu run nothing and have nothing queued, and is its item free? */
static bool ap_idle(unsigned cpu)
{
	const struct percpu *pc = smp_cpu(cpu);
	u32 st = __atomic_load_n(&items[cpu].state, __ATOMIC_ACQUIRE);

	return pc && pc->state == CPU_ONLINE && (st == CPU_WORK_IDLE || st == CPU_WORK_DONE) &&
	       !smp_work_running(cpu) && !cpu_work_current(cpu) && !cpu_work_queued(cpu);
}

/* memmap_cpus_ops.start: the lowest idle AP gets fn(arg). */
static int memmap_start(void (*fn)(void *arg), void *arg)
{
	for (unsigned cpu = 1; cpu < smp_nr_cpus() && cpu < MM_NR_CPUS; cpu++) {
		if (!ap_idle(cpu))
			continue;
		items[cpu].fn = memmap_item;
		items[cpu].name = "hot-added memmap init";
		items[cpu].arg = arg;
		item_fn[cpu] = fn;
		if (!queue_work_on(cpu, &items[cpu]))
			return (int)cpu;
	}
	return -EBUSY;
}

/* memmap_cpus_ops.idle: the APs memmap_start() could pick now. */
static unsigned memmap_idle(void)
{
	unsigned n = 0;

	for (unsigned cpu = 1; cpu < smp_nr_cpus() && cpu < MM_NR_CPUS; cpu++)
		n += ap_idle(cpu);
	return n;
}

/*
 * memmap_cpus_ops.wait: halt until an interrupt (the helper's kick, the
 * 10 ms tick) unless *word changed already; the check and the halt are
 * one step (cli, check, sti; hlt), so the kick cannot slip in between.
 * With interrupts off (not mm's case) a pause instead.  Context: the
 * caller, no spinlock held.
 */
static void memmap_wait(const u64 *word, u64 old)
{
	if (!irqs_enabled()) {
		cpu_relax();
		return;
	}
	irq_disable();
	if (__atomic_load_n(word, __ATOMIC_ACQUIRE) == old)
		cpu_idle();	/* sti; hlt */
	else
		irq_enable();
}

/* memmap_cpus_ops.notify: the call IPI, which ends the caller's hlt. */
static void memmap_notify(unsigned cpu)
{
	smp_kick(cpu);
}

static u64 memmap_now_ms(void)
{
	return ktime_ns() / 1000000;
}

static const struct memmap_cpus_ops kernel_ops = {
	.start = memmap_start, .idle = memmap_idle, .now_ms = memmap_now_ms, .wait = memmap_wait,
	.notify = memmap_notify,
	.timeout_ms = MEMMAP_CPUS_TIMEOUT_MS,
};

void memmap_cpus_init(void)
{
	memmap_cpus_set_ops(&kernel_ops);
}

/*
 * meminit_cpus.c - deferred memmap init on every CPU of a node: at the end
 * of boot, each online AP gets a work item (arch/x86_64/cpu_work.c) that claims
 * and initialises the pending sections of its own node
 * (deferred_init_work_node(), mm/deferred_init.c) until none is left to
 * claim, while CPU 0's long operation (kernel/meminit_work.c) takes
 * sections too, a slice at a time between the console's turns.  Linux
 * does the same with padata, one job per node split over the node's CPUs.
 * A node with no CPU of its own is CPU 0's alone.
 *
 * deferred_init_cpus=N caps the APs used (default 64, all that run mm; 0: CPU 0 only, the
 * one-CPU design, for comparisons on the same machine).  The work items
 * live here, one per CPU that can run mm (MM_NR_CPUS); each is queued once
 * per boot.
 *
 * Context: (main), at the end of boot.
 */
#include <kernel/meminit_work.h>
#include <kernel/memmap_cpus.h>
#include <arch/cpu_work.h>
#include <mm/deferred_init.h>
#include <mm/mmzone.h>
#include <mm/numa_cpu.h>
#include <arch/smp.h>
#include <lib/params.h>
#include <lib/printk.h>

static unsigned max_cpus = MM_NR_CPUS;	/* deferred_init_cpus= */

KERNEL_PARAM(deferred_init_cpus,
	.name = "deferred_init_cpus", .type = PARAM_UINT, .value = &max_cpus,
	.min = 0, .max = MM_NR_CPUS, .def = MM_NR_CPUS,
	.help = "deferred_init=new: APs that initialise their node's pending sections (0: CPU 0 alone)");

static struct cpu_work workers[MM_NR_CPUS];
static bool stop;	/* meminit_cpus_stop(): workers end after their section (atomic) */

/* deferred_init_work_node()'s budget: until stopped. */
static bool not_stopped(void *ctx)
{
	return !__atomic_load_n(&stop, __ATOMIC_RELAXED);
}

/* A worker's item: its node's pending sections, until none is left to claim. */
static void meminit_worker(struct cpu_work *w)
{
	deferred_init_work_node((int)(uintptr_t)w->arg, not_stopped, NULL);
}

unsigned meminit_cpus_queue(void)
{
	unsigned started = 0;

	__atomic_store_n(&stop, false, __ATOMIC_RELAXED);
	for (unsigned cpu = 1; cpu < smp_nr_cpus() && cpu < MM_NR_CPUS && started < max_cpus; cpu++) {
		struct numa_cpu c;

		if (!numa_cpu_get(cpu, &c) || c.nid < 0 || c.nid >= MAX_NUMNODES ||
		    !deferred_init_pending_pages(c.nid))
			continue;
		if (workers[cpu].fn && !cpu_work_done(&workers[cpu])) {
			started++;	/* still queued or running (a hot-add's kick): it claims on */
			continue;
		}
		workers[cpu].fn = meminit_worker;
		workers[cpu].name = "deferred memmap init";
		workers[cpu].arg = (void *)(uintptr_t)c.nid;
		if (!queue_work_on(cpu, &workers[cpu]))
			started++;
		else	/* refused: a CPU that never came online; not waited for */
			workers[cpu].fn = NULL;
	}
	return started;
}

bool meminit_cpus_busy(void)
{
	for (unsigned cpu = 1; cpu < MM_NR_CPUS; cpu++)
		if (workers[cpu].fn && !cpu_work_done(&workers[cpu]))
			return true;
	return false;
}

void meminit_cpus_stop(void)
{
	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
}

void meminit_cpus_start(void)
{
	unsigned started;

	memmap_cpus_init();	/* the APs take chunks of hot-added blocks' memmaps from now on */
	meminit_work_others_with(meminit_cpus_start);	/* again after a lazy hot-add */
	if (!meminit_work_running() || !deferred_init_pending_sections())
		return;
	started = meminit_cpus_queue();
	meminit_work_wait_for(meminit_cpus_busy);
	if (started)
		pr_info("deferred init: %u CPUs besides CPU 0 initialise their nodes' sections", started);
}

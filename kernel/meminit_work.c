/*
 * meminit_work.c - deferred memmap init's background long operation (see
 * include/kernel/meminit_work.h): each step initialises pending sections
 * through deferred_init_step_while() until the slice's deadline passes.  The
 * allocator, offlining and `meminit finish` may initialise sections too;
 * the step only asks how many are still pending, so it never does one
 * twice and ends when nothing waits, whoever did the work.
 */
#include <kernel/meminit_work.h>
#include <kernel/longop.h>
#include <kernel/time.h>
#include <mm/deferred_init.h>
#include <mm/mmzone.h>
#include <lib/params.h>
#include <lib/printer.h>
#include <lib/printk.h>

static struct longop meminit_op;
static bool background = true;	/* deferred_init_background= */

KERNEL_PARAM(deferred_init_background,
	.name = "deferred_init_background", .type = PARAM_BOOL, .value = &background,
	.max = 1, .def = 1,
	.help = "deferred_init=new: initialise pending boot memory in the background (0: only on demand and `meminit finish`)");
static u64 end_ns;	/* ktime_ns() when it found nothing left, 0 before */
static bool (*others_busy)(void);	/* meminit_work_wait_for(): other CPUs' workers */
static bool hotplug_run;	/* the running operation was started for hot-added memory */
static void (*others_start)(void);	/* meminit_work_others_with(): the APs' items again */

/* deferred_init_step_while()'s budget: until the slice's deadline. */
static bool before_deadline(void *ctx)
{
	return ktime_ns() < *(const u64 *)ctx;
}

/* When CPUs besides CPU 0 took part: the sections each initialised. */
static void by_cpu_line(void)
{
	char line[160];
	size_t n = 0;
	bool others = false;

	for (unsigned cpu = 1; cpu < MM_NR_CPUS; cpu++)
		others |= deferred_init_cpu_sections[cpu] != 0;
	if (!others)
		return;
	for (unsigned cpu = 0; cpu < MM_NR_CPUS && n < sizeof(line); cpu++)
		if (deferred_init_cpu_sections[cpu] || !cpu)
			n += (size_t)ksnprintf(line + n, sizeof(line) - n, "%s%u: %llu", n ? ", " : "",
					       cpu, (unsigned long long)deferred_init_cpu_sections[cpu]);
	pr_info("deferred init: sections by CPU: %s", line);
}

/* One slice: sections until the deadline, the zones settled once; done/
 * total kept in sections of the boot's pending set. */
static bool meminit_step(struct longop *op, u64 deadline_ns)
{
	u64 did = deferred_init_step_while(before_deadline, &deadline_ns);

	op->done = op->total - deferred_init_pending_sections();
	if (deferred_init_pending_sections() || (others_busy && others_busy())) {
		/* what is left is other CPUs' (claimed, or their items ending):
		 * CPU 0 may halt until the next tick instead of spinning */
		op->waiting = !did;
		return true;
	}
	end_ns = ktime_ns();
	pr_info("deferred init: %s memmap complete after %llu ms (%llu slices)",
		hotplug_run ? "hot-added memory's" : "boot memory's",
		(unsigned long long)((end_ns - op->start_ns) / 1000000),
		(unsigned long long)op->slices + 1);
	by_cpu_line();
	return false;
}

void meminit_work_wait_for(bool (*busy)(void))
{
	others_busy = busy;
}

void meminit_work_others_with(void (*start)(void))
{
	others_start = start;
}

bool meminit_work_running(void)
{
	return meminit_op.running;
}

/*
 * meminit_work_kick() - mm's kick (deferred_init_set_kick()) after a
 * hot-added section was onlined with its memmap pending: the operation
 * counts it in if it runs, or starts again; the APs get their items
 * (meminit_work_others_with()).
 * Context: (main).
 */
static void meminit_work_kick(void)
{
	if (meminit_op.running) {
		meminit_op.total = meminit_op.done + deferred_init_pending_sections();
	} else if (background) {
		hotplug_run = true;
		end_ns = 0;
		meminit_work_start();
	}
	if (others_start)
		others_start();
}

void meminit_work_start(void)
{
	deferred_init_set_kick(meminit_work_kick);
	if (!deferred_init_pending_sections())
		return;
	if (!background) {
		pr_info("deferred init: no background work (deferred_init_background=0): on demand and `meminit finish` only");
		return;
	}
	meminit_op.name = "deferred memmap init";
	meminit_op.unit = "sections";
	meminit_op.step = meminit_step;
	meminit_op.total = deferred_init_pending_sections();
	meminit_op.done = 0;
	longop_start(&meminit_op);
}

void meminit_work_dump(struct printer *p)
{
	u64 now = ktime_ns(), ms;

	if (!meminit_op.step)
		return;
	ms = ((meminit_op.running || !end_ns ? now : end_ns) - meminit_op.start_ns) / 1000000;
	pr_printf(p, "  background: %llu/%llu sections, %llu slices, %llu.%03llu s%s\n",
		  (unsigned long long)(meminit_op.total - deferred_init_pending_sections()),
		  (unsigned long long)meminit_op.total, (unsigned long long)meminit_op.slices,
		  (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000),
		  meminit_op.running ? ", running" : ", finished");
}

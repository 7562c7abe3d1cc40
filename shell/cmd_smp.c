/*
 * cmd_smp.c - `cpus`: every CPU the firmware lists and how its start went
 * (arch/x86_64/smp.c's smp_dump()), and `cpus ping`, which runs a function
 * on each online CPU through the cross-CPU call (arch/x86_64/smp_call.c)
 * and prints what each answered and the round trip.  The command parses
 * and formats; the CPUs' state stays in arch/.
 */
#include <shell/shell.h>
#include <arch/smp.h>
#include <arch/cpu.h>
#include <arch/traps.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <kernel/meminit_work.h>
#include <kernel/time.h>
#include <mm/deferred_init.h>
#include <mm/mmzone.h>
#include <mm/gfp.h>
#include <mm/buddy.h>
#include <arch/cpu_work.h>
#include <lib/kstrtox.h>

/* What a pinged CPU writes about itself, from its own registers. */
struct ping_answer {
	u32 cpu;		/* from its GS base: this_cpu()->cpu */
	u32 apic_id;		/* from its local APIC's ID register */
	u32 calls;		/* calls it had run before this one */
	bool answered;
};

static struct ping_answer answers[SMP_MAX_CPUS];

/* ping_here() - the pinged function: runs on the target CPU. */
static void ping_here(void *arg)
{
	struct ping_answer *a = arg;
	const struct percpu *pc = this_cpu();

	a->cpu = pc->cpu;
	a->apic_id = lapic_cpu_id();
	a->calls = (u32)pc->calls;
	a->answered = true;
}

/* ping_all() - on_each_cpu()'s function: each CPU fills its own slot. */
static void ping_all(void *arg)
{
	struct ping_answer *all = arg;

	ping_here(&all[this_cpu()->cpu]);
}

/*
 * cpus_ping() - one call per online CPU in turn, waiting for each: its
 * answer and the round trip in TSC cycles; then one on_each_cpu() to all
 * of them at once.  Returns 0, or -ETIMEDOUT when a CPU did not answer.
 */
static int cpus_ping(struct printer *out)
{
	unsigned asked = 0, answered = 0;
	u64 t0;
	int missing;

	for (unsigned cpu = 0; cpu < smp_nr_cpus(); cpu++) {
		const struct percpu *pc = smp_cpu(cpu);
		struct ping_answer *a = &answers[cpu];
		int err;

		if (!pc || pc->state != CPU_ONLINE)
			continue;
		memset(a, 0, sizeof(*a));
		asked++;
		t0 = rdtsc();
		err = smp_call_function_single(cpu, ping_here, a, true);
		t0 = rdtsc() - t0;
		if (err || !a->answered) {
			pr_printf(out, "cpu %u: APIC id %u: no answer (%s)\n", cpu, pc->apic_id,
				  err_text(err));
			continue;
		}
		answered++;
		pr_printf(out, "cpu %u: answered as cpu %u, APIC id %u, round trip %llu cycles\n",
			  cpu, a->cpu, a->apic_id, (unsigned long long)t0);
	}
	memset(answers, 0, sizeof(answers));
	t0 = rdtsc();
	missing = on_each_cpu(ping_all, answers, true);
	t0 = rdtsc() - t0;
	pr_printf(out, "ping: %u of %u online CPUs answered; on_each_cpu: %u answered, %d did not, "
		  "in %llu cycles\n", answered, asked, asked - (unsigned)missing, missing,
		  (unsigned long long)t0);
	return answered == asked && !missing ? 0 : -ETIMEDOUT;
}

/*
 * `cpus meminit`: the pending sections of boot memory on the APs alone,
 * each AP its node's (kernel/meminit_cpus.c), while CPU 0 only waits
 * between its turns, so the console answers; with the background work held
 * (deferred_init_background=0) every section is an AP's.
 * Ctrl-C asks the APs to stop after the section each is in.  Then: the
 * sections each CPU initialised in this run.
 */
static int cpus_meminit(struct printer *out)
{
	u64 before[MM_NR_CPUS], pending = deferred_init_pending_sections(), t0 = ktime_ns(), done = 0;
	unsigned queued;
	bool stopped = false;

	if (!pending) {
		pr_printf(out, "cpus meminit: nothing pending\n");
		return 0;
	}
	memcpy(before, deferred_init_cpu_sections, sizeof(before));
	queued = meminit_cpus_queue();
	if (!queued) {
		pr_printf(out, "cpus meminit: no AP to run it (%llu sections pending; one online CPU, "
			  "or their nodes have none, or they are busy)\n", (unsigned long long)pending);
		return -ENODEV;
	}
	while (meminit_cpus_busy()) {
		shell_progress(pending - deferred_init_pending_sections(), pending, "sections");
		if (!stopped && shell_checkpoint()) {
			meminit_cpus_stop();
			stopped = true;
		}
		shell_yield();
	}
	pr_printf(out, "cpus meminit: %u APs, %llu ms:", queued,
		  (unsigned long long)((ktime_ns() - t0) / 1000000));
	for (unsigned cpu = 0; cpu < MM_NR_CPUS && cpu < smp_nr_cpus(); cpu++) {
		u64 n = deferred_init_cpu_sections[cpu] - before[cpu];

		done += n;
		if (n || !cpu)
			pr_printf(out, " cpu %u: %llu,", cpu, (unsigned long long)n);
	}
	pr_printf(out, " %llu sections; %llu pending\n", (unsigned long long)done,
		  (unsigned long long)deferred_init_pending_sections());
	if (stopped) {
		pr_printf(out, "interrupted\n");
		return -EINTR;
	}
	return 0;
}

/*
 * `cpus alloc pcp|zone NCPUS COUNT`: why pcp lists exist, measured.  CPUs
 * 0 .. NCPUS-1 each allocate one order-0 page and free it again, COUNT
 * times, all starting together (the APs as work items that wait for a
 * flag, CPU 0 inside the command): `pcp` through their own pcp lists,
 * `zone` with __GFP_NOPCP and free_pages_nopcp(), every one through
 * zone->lock.  Each CPU times its own loop (TSC); the command prints each
 * CPU's cycles per alloc+free and their mean.  With pcp the CPUs share no
 * lock and the mean stays flat as CPUs are added; with zone->lock alone
 * they queue on it.  The console waits meanwhile (a few milliseconds).
 */
#define ALLOC_MAX_COUNT	10000000ULL

struct alloc_run {
	u64 count;		/* alloc+free pairs to do */
	bool zone_only;		/* __GFP_NOPCP and free_pages_nopcp() */
	u64 cycles;		/* its loop, TSC */
	u64 failed;		/* allocations that found no page */
};

static struct alloc_run alloc_runs[SMP_MAX_CPUS];
static bool alloc_go;	/* set by CPU 0 when every AP waits (atomic) */

static void alloc_loop(void *arg)
{
	struct alloc_run *r = arg;
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN | (r->zone_only ? __GFP_NOPCP : 0);
	u64 t0;

	while (!__atomic_load_n(&alloc_go, __ATOMIC_ACQUIRE))
		cpu_relax();
	t0 = rdtsc();
	for (u64 i = 0; i < r->count; i++) {
		struct page *page = alloc_pages(gfp, 0);

		if (!page) {
			r->failed++;
			continue;
		}
		if (r->zone_only)
			free_pages_nopcp(page, 0);
		else
			free_pages(page, 0);
	}
	r->cycles = rdtsc() - t0;
}

static int cpus_alloc(struct printer *out, const char *mode, const char *ncpus, const char *count)
{
	unsigned long long n, cnt;
	u64 sum = 0;
	bool zone_only;

	if ((strcmp(mode, "pcp") && strcmp(mode, "zone")) || kstrtoull(ncpus, strlen(ncpus), &n) ||
	    kstrtoull(count, strlen(count), &cnt) || !n || !cnt || cnt > ALLOC_MAX_COUNT)
		return shell_usage(out, shell_find("cpus"));
	zone_only = !strcmp(mode, "zone");
	if (n > smp_nr_online() || n > MM_NR_CPUS) {
		pr_printf(out, "cpus alloc: %llu CPUs asked, %u online\n", n, smp_nr_online());
		return -EINVAL;
	}
	for (unsigned cpu = 0; cpu < n; cpu++) {
		const struct percpu *pc = smp_cpu(cpu);

		if (!pc || pc->state != CPU_ONLINE || (cpu && (smp_work_running(cpu) ||
							   cpu_work_current(cpu)))) {
			pr_printf(out, "cpus alloc: CPU %u is not online and idle\n", cpu);
			return -EBUSY;
		}
	}
	pcp_drain_each_cpu(NULL, NULL);	/* every CPU starts from empty lists */
	__atomic_store_n(&alloc_go, false, __ATOMIC_RELEASE);
	for (unsigned cpu = 0; cpu < n; cpu++) {
		alloc_runs[cpu] = (struct alloc_run){ .count = cnt, .zone_only = zone_only };
		if (cpu && smp_start_work(cpu, alloc_loop, &alloc_runs[cpu])) {
			pr_printf(out, "cpus alloc: CPU %u did not take the work\n", cpu);
			n = cpu;	/* the ones started run with CPU 0 */
			break;
		}
	}
	__atomic_store_n(&alloc_go, true, __ATOMIC_RELEASE);
	alloc_loop(&alloc_runs[0]);
	for (unsigned cpu = 1; cpu < n; cpu++)
		while (smp_work_running(cpu))
			cpu_relax();
	pcp_drain_each_cpu(NULL, NULL);
	pr_printf(out, "cpus alloc: %s, %llu CPUs, %llu order-0 alloc+free each\n",
		  zone_only ? "zone->lock only" : "pcp lists", n, cnt);
	for (unsigned cpu = 0; cpu < n; cpu++) {
		const struct alloc_run *r = &alloc_runs[cpu];

		sum += r->cycles / cnt;
		pr_printf(out, "  cpu %u: %llu cycles per alloc+free%s\n", cpu,
			  (unsigned long long)(r->cycles / cnt), r->failed ? " (some failed)" : "");
	}
	pr_printf(out, "cpus alloc: mean %llu cycles per alloc+free per CPU\n",
		  (unsigned long long)(sum / n));
	return 0;
}

static bool cpus_runs_long(int argc, char **argv)
{
	return argc == 2 && !strcmp(argv[1], "meminit");
}

static int cmd_cpus(struct printer *out, int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "meminit"))
		return cpus_meminit(out);
	if (argc == 5 && !strcmp(argv[1], "alloc"))
		return cpus_alloc(out, argv[2], argv[3], argv[4]);
	if (argc == 1) {
		smp_dump(out);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "ping"))
		return cpus_ping(out);
	return shell_usage(out, shell_find("cpus"));
}

SHELL_COMMAND(cpus, .name = "cpus", .usage = "cpus [ping|meminit|alloc pcp|zone NCPUS COUNT]",
	      .summary = "list the CPUs and how each started; ping runs a call on each",
	      .help = "Without an argument: one line per CPU the MADT lists: number,\n"
		      "APIC id, node (SRAT), state (online: the boot CPU runs the main\n"
		      "loop, the others idle; failed, with the reason), local APIC mode\n"
		      "(xAPIC or x2APIC) and the TSC cycles from its first start-up IPI\n"
		      "to online.\n"
		      "ping: runs a function on every online CPU in turn through the\n"
		      "cross-CPU call IPI, prints what each says it is (its number from\n"
		      "its per-CPU area, its APIC id from its own local APIC) and the\n"
		      "round trip in TSC cycles, then calls all of them at once with\n"
		      "on_each_cpu().  A CPU that does not answer within 1 s is named.\n"
		      "meminit: the pending sections of boot memory (deferred_init=new) on\n"
		      "the APs alone, each its node's, as a job; says how many each did.\n"
		      "alloc pcp|zone NCPUS COUNT: CPUs 0..NCPUS-1 each allocate and free an\n"
		      "order-0 page COUNT times at once, through their pcp lists or through\n"
		      "zone->lock only, and say the cycles each took per alloc+free.\n"
		      "See docs/smp.md.",
	      .fn = cmd_cpus,
	      .runs_long = cpus_runs_long);

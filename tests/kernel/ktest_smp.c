/*
 * ktest_smp.c - the suite `smp`: the other CPUs answer and share what
 * they must.  A call IPI reaches each CPU and runs there, on_each_cpu()
 * reaches all, a TLB shootdown makes every CPU see a remapped page, a
 * spinlock contended by every CPU loses no increment, and lines printed
 * by every CPU at once reach the log whole.  With one CPU online the
 * cross-CPU cases are skipped.
 *
 * Fixtures are the suite's own: two page-aligned .bss pages behind a
 * fresh ioremap() address (the scratch mapping of the shootdown case,
 * unmapped at its end), a lock and a counter of its own, and log lines at
 * the debug level (not shown on the console) that carry a run number.
 */
#include <kernel/ktest.h>
#include <kernel/time.h>
#include <arch/smp.h>
#include <arch/cpu_work.h>
#include <arch/paging.h>
#include <lib/lock.h>
#include <lib/string.h>
#include <lib/errno.h>

#define ONE_CPU		"one CPU online: nothing to call"
#define WAIT_NS		(300ULL * NSEC_PER_SEC)	/* work items: "did it answer at all", not a speed bound */

/* Skip t and return true when no other CPU is online. */
static bool skip_one_cpu(struct ktest *t)
{
	if (smp_nr_online() > 1)
		return false;
	ktest_skip(t, ONE_CPU);
	return true;
}

static bool cpu_online(unsigned cpu)
{
	const struct percpu *pc = smp_cpu(cpu);

	return pc && pc->state == CPU_ONLINE;
}

/* A call's body: the CPU it ran on, into *arg. */
static void note_cpu(void *arg)
{
	__atomic_store_n((u32 *)arg, this_cpu()->cpu, __ATOMIC_RELEASE);
}

static void call_single_runs_there(struct ktest *t)
{
	unsigned called = 0;

	if (skip_one_cpu(t))
		return;
	for (unsigned i = 0; i < smp_nr_cpus(); i++) {
		u32 ran_on = ~0u;

		if (!cpu_online(i))
			continue;
		KTEST_EXPECT_EQ(t, smp_call_function_single(i, note_cpu, &ran_on, true), 0);
		KTEST_EXPECT_EQ(t, ran_on, i);
		called++;
	}
	KTEST_EXPECT_EQ(t, called, smp_nr_online());
}

static u32 hits[SMP_MAX_CPUS];	/* on_each_cpu_reaches_all: calls per CPU */

static void count_hit(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&hits[this_cpu()->cpu], 1, __ATOMIC_RELAXED);
}

static void on_each_cpu_reaches_all(struct ktest *t)
{
	unsigned nfail = 0;

	if (skip_one_cpu(t))
		return;
	memset(hits, 0, sizeof(hits));
	KTEST_EXPECT_EQ(t, on_each_cpu(count_hit, NULL, true), 0);
	for (unsigned i = 0; i < smp_nr_cpus(); i++)
		KTEST_EXPECT_FEW(t, nfail, hits[i] == (cpu_online(i) ? 1u : 0u),
				 "CPU %u ran the call %u times", i, hits[i]);
}

/* ---- TLB shootdown ------------------------------------------------------- */

static u64 page_a[PAGE_SIZE / 8] __aligned(PAGE_SIZE);	/* the scratch pages */
static u64 page_b[PAGE_SIZE / 8] __aligned(PAGE_SIZE);
static volatile u64 *scratch;				/* their shared address */
static u64 seen[SMP_MAX_CPUS];				/* what each CPU read there */

#define PATTERN_A	0xa5a5a5a5a5a5a5a5ULL
#define PATTERN_B	0x5b5b5b5b5b5b5b5bULL

static void read_scratch(void *arg)
{
	(void)arg;
	seen[this_cpu()->cpu] = scratch[0] ^ scratch[PAGE_SIZE / 8 - 1];
}

/* Every online CPU reads the scratch address; returns how many did not
 * read want (both words' XOR: A ^ A = 0 would hide nothing, so the pages
 * differ in their last word). */
static unsigned all_read(struct ktest *t, u64 want, const char *when)
{
	unsigned nfail = 0;

	memset(seen, 0, sizeof(seen));
	KTEST_EXPECT_EQ(t, on_each_cpu(read_scratch, NULL, true), 0);
	for (unsigned i = 0; i < smp_nr_cpus(); i++)
		if (cpu_online(i))
			KTEST_EXPECT_FEW(t, nfail, seen[i] == want,
					 "%s: CPU %u read %#llx, not %#llx", when, i,
					 (unsigned long long)seen[i], (unsigned long long)want);
	return nfail;
}

static void tlb_shootdown_remap(struct ktest *t)
{
	phys_addr_t pa_a, pa_b, pa;
	u64 size, flags;

	if (skip_one_cpu(t))
		return;
	for (unsigned i = 0; i < PAGE_SIZE / 8; i++) {
		page_a[i] = PATTERN_A;
		page_b[i] = PATTERN_B;
	}
	page_a[PAGE_SIZE / 8 - 1] = 0;
	page_b[PAGE_SIZE / 8 - 1] = 1;
	KTEST_ASSERT(t, !paging_translate((u64)(uintptr_t)page_a, &pa_a, &size, &flags));
	KTEST_ASSERT(t, !paging_translate((u64)(uintptr_t)page_b, &pa_b, &size, &flags));
	scratch = ioremap(pa_a, PAGE_SIZE, IOREMAP_WB);
	KTEST_ASSERT(t, scratch != NULL);
	KTEST_ASSERT(t, !paging_translate((u64)(uintptr_t)scratch, &pa, &size, &flags));
	KTEST_ASSERT(t, pa == pa_a && size == PAGE_SIZE);

	all_read(t, PATTERN_A, "mapped to A");	/* every TLB now holds va -> A */
	KTEST_EXPECT_EQ(t, paging_remap((u64)(uintptr_t)scratch, pa_a, pa_b, PAGE_SIZE), 0);
	all_read(t, PATTERN_B ^ 1, "remapped to B");
	KTEST_EXPECT_EQ(t, paging_remap((u64)(uintptr_t)scratch, pa_b, pa_a, PAGE_SIZE), 0);
	all_read(t, PATTERN_A, "back to A");

	KTEST_EXPECT_EQ(t, paging_unmap((u64)(uintptr_t)scratch, PAGE_SIZE), 0);
	KTEST_EXPECT_EQ(t, paging_translate((u64)(uintptr_t)scratch, &pa, &size, &flags),
			-EFAULT);
	scratch = NULL;
}

/* ---- a contended spinlock and the log, from work items ------------------- */

#define LOCK_ROUNDS	1000	/* per CPU: enough to contend, few enough for a loaded 2-core TCG host */
#define LOG_LINES	40

static struct spinlock counter_lock = SPINLOCK_INIT("ktest smp counter_lock");
static volatile u64 counter;		/* (counter_lock) */
static unsigned log_run;		/* this run's number in the lines */

static void add_under_lock(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < LOCK_ROUNDS; i++) {
		spin_lock(&counter_lock);
		counter = counter + 1;	/* a read and a write: a race would lose some */
		spin_unlock(&counter_lock);
	}
}

/* The text of line n of cpu in run r (after the timestamp). */
static void log_line_text(char *buf, size_t size, unsigned r, unsigned cpu, unsigned n)
{
	ksnprintf(buf, size, "ktest-smp-line run %u cpu %u n %u "
		  "abcdefghijklmnopqrstuvwxyz0123456789 end", r, cpu, n);
}

static void print_lines(void *arg)
{
	char text[128];

	(void)arg;
	for (unsigned n = 0; n < LOG_LINES; n++) {
		log_line_text(text, sizeof(text), log_run, this_cpu()->cpu, n);
		pr_debug("%s", text);
	}
}

/*
 * Run fn on every online AP as a work item and on this CPU, then wait for
 * the items.  Returns how many CPUs ran it, or -ETIMEDOUT.
 */
static int run_everywhere(struct ktest *t, void (*fn)(void *))
{
	unsigned started = 1;
	u64 deadline;

	for (unsigned i = 1; i < smp_nr_cpus(); i++) {
		if (!cpu_online(i))
			continue;
		KTEST_EXPECT_EQ(t, smp_start_work(i, fn, NULL), 0);
		started++;
	}
	fn(NULL);
	deadline = ktime_ns() + WAIT_NS;
	for (unsigned i = 1; i < smp_nr_cpus(); i++)
		while (smp_work_running(i))
			if (ktime_ns() > deadline)
				return -ETIMEDOUT;
	return (int)started;
}

static void spinlock_contended(struct ktest *t)
{
	int cpus;

	if (skip_one_cpu(t))
		return;
	counter = 0;
	cpus = run_everywhere(t, add_under_lock);
	KTEST_ASSERT(t, cpus > 1);
	KTEST_EXPECT_EQ(t, counter, (u64)cpus * LOCK_ROUNDS);
}

/* A printer that checks the log's lines of this run as dmesg writes them. */
struct line_check {
	struct printer p;	/* first: the callback casts */
	char line[600];
	size_t len;
	unsigned per_cpu[SMP_MAX_CPUS];	/* whole lines of this run, by CPU */
	unsigned broken;		/* lines with the marker that are not whole */
	char first_broken[160];
};

/* The decimal number after key in s, or ~0ul. */
static unsigned long number_after(const char *s, const char *key)
{
	const char *at = strstr(s, key);
	unsigned long v = 0;

	if (!at)
		return ~0ul;
	at += strlen(key);
	if (*at < '0' || *at > '9')
		return ~0ul;
	while (*at >= '0' && *at <= '9' && v < 100000000)
		v = v * 10 + (unsigned long)(*at++ - '0');
	return v;
}

/* One line of the dump: a marked line must be whole, "[time] TEXT", TEXT
 * exactly as log_line_text() makes it for the numbers it carries. */
static void check_line(struct line_check *c)
{
	unsigned long r, cpu, n;
	const char *m;
	char want[128];

	c->line[c->len] = 0;
	m = strstr(c->line, "ktest-smp-line ");
	if (!m)
		return;
	r = number_after(m, " run ");
	cpu = number_after(m, " cpu ");
	n = number_after(m, " n ");
	log_line_text(want, sizeof(want), (unsigned)r, (unsigned)cpu, (unsigned)n);
	if (c->line[0] == '[' && m >= c->line + 2 && !memcmp(m - 2, "] ", 2) &&
	    !strcmp(m, want) && cpu < SMP_MAX_CPUS) {
		if (r == log_run)
			c->per_cpu[cpu]++;
		return;
	}
	if (!c->broken++)
		strlcpy(c->first_broken, c->line, sizeof(c->first_broken));
}

static void line_check_write(struct printer *p, const char *s, size_t len)
{
	struct line_check *c = (struct line_check *)p;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n') {
			check_line(c);
			c->len = 0;
		} else if (c->len < sizeof(c->line) - 1) {
			c->line[c->len++] = s[i];
		}
	}
}

static struct line_check lines;	/* too big for the stack */

static void printk_from_all_cpus(struct ktest *t)
{
	unsigned nfail = 0;
	int cpus;

	if (skip_one_cpu(t))
		return;
	log_run++;
	cpus = run_everywhere(t, print_lines);
	KTEST_ASSERT(t, cpus > 1);
	memset(&lines, 0, sizeof(lines));
	lines.p.write = line_check_write;
	printk_log_dump(&lines.p);
	KTEST_EXPECT_FEW(t, nfail, lines.broken == 0, "%u broken lines, the first: \"%s\"",
			 lines.broken, lines.first_broken);
	for (unsigned i = 0; i < smp_nr_cpus(); i++)
		KTEST_EXPECT_FEW(t, nfail, lines.per_cpu[i] == (cpu_online(i) ? LOG_LINES : 0u),
				 "CPU %u: %u whole lines in the log", i, lines.per_cpu[i]);
}

/* ---- the work queues (arch/x86_64/cpu_work.c) ------------------------------ */

#define QUEUE_ITEMS	3	/* items queued on each AP at once */

static struct cpu_work queue_items[SMP_MAX_CPUS][QUEUE_ITEMS];
static u32 queue_ran_on[SMP_MAX_CPUS][QUEUE_ITEMS];
static u32 queue_order[SMP_MAX_CPUS];	/* items each CPU ran so far (its own) */
static u32 queue_seq[SMP_MAX_CPUS][QUEUE_ITEMS];	/* which place each item ran in */

/* An item: where it ran, and in which place on its CPU. */
static void note_item(struct cpu_work *w)
{
	unsigned k = (unsigned)(uintptr_t)w->arg, cpu = this_cpu()->cpu;

	queue_ran_on[w->cpu][k] = cpu;
	queue_seq[w->cpu][k] = queue_order[cpu]++;
}

/* Wait for w to be done; false after WAIT_NS ("did it answer at all"). */
static bool wait_done(const struct cpu_work *w)
{
	u64 deadline = ktime_ns() + WAIT_NS;

	while (!cpu_work_done(w))
		if (ktime_ns() > deadline)
			return false;
	return true;
}

/*
 * queue_work_on() runs each item on its CPU, in the order queued, and
 * refuses CPU 0 and an item that is queued already; queue_work_idle()
 * picks an AP that runs nothing.
 */
static void work_queue_runs_on_each_cpu(struct ktest *t)
{
	unsigned nfail = 0, aps = 0;

	if (skip_one_cpu(t))
		return;
	memset(queue_items, 0, sizeof(queue_items));
	memset(queue_order, 0, sizeof(queue_order));
	KTEST_EXPECT_EQ(t, queue_work_on(0, &queue_items[0][0]), -EINVAL);
	KTEST_EXPECT_EQ(t, queue_work_on(1, &queue_items[0][0]), -EINVAL);	/* no fn */
	for (unsigned i = 1; i < smp_nr_cpus(); i++) {
		if (!cpu_online(i))
			continue;
		aps++;
		for (unsigned k = 0; k < QUEUE_ITEMS; k++) {
			struct cpu_work *w = &queue_items[i][k];

			w->fn = note_item;
			w->name = "ktest item";
			w->arg = (void *)(uintptr_t)k;
			queue_ran_on[i][k] = ~0u;
			KTEST_EXPECT_EQ(t, queue_work_on(i, w), 0);
		}
	}
	for (unsigned i = 1; i < smp_nr_cpus(); i++)
		for (unsigned k = 0; cpu_online(i) && k < QUEUE_ITEMS; k++) {
			KTEST_EXPECT_FEW(t, nfail, wait_done(&queue_items[i][k]),
					 "CPU %u item %u not done", i, k);
			KTEST_EXPECT_FEW(t, nfail, queue_ran_on[i][k] == i && queue_seq[i][k] == k,
					 "CPU %u item %u ran on CPU %u as number %u", i, k,
					 queue_ran_on[i][k], queue_seq[i][k]);
		}
	/* every AP idle now: queue_work_idle() finds one (the lowest) each time */
	for (unsigned k = 0; k < QUEUE_ITEMS; k++) {
		queue_items[0][k].fn = note_item;
		queue_items[0][k].name = "ktest idle item";
		queue_items[0][k].arg = (void *)(uintptr_t)k;
	}
	for (unsigned n = 0; n < aps; n++) {
		int cpu = queue_work_idle(&queue_items[0][n % QUEUE_ITEMS]);

		KTEST_EXPECT_FEW(t, nfail, cpu > 0, "queue_work_idle: %d", cpu);
		if (cpu > 0)
			KTEST_EXPECT_FEW(t, nfail, wait_done(&queue_items[0][n % QUEUE_ITEMS]),
					 "idle item on CPU %d not done", cpu);
	}
	/* the item of a finished run may be queued again */
	for (unsigned i = 1; i < smp_nr_cpus(); i++)
		if (cpu_online(i)) {
			KTEST_EXPECT_EQ(t, queue_work_on(i, &queue_items[i][0]), 0);
			KTEST_EXPECT_EQ(t, wait_done(&queue_items[i][0]), true);
			KTEST_EXPECT_EQ(t, cpu_work_ran(i) >= QUEUE_ITEMS + 1, true);
			break;
		}
}

static const struct ktest_case smp_cases[] = {
	KTEST_CASE(call_single_runs_there),
	KTEST_CASE(on_each_cpu_reaches_all),
	KTEST_CASE(tlb_shootdown_remap),
	KTEST_CASE(spinlock_contended),
	KTEST_CASE(printk_from_all_cpus),
	KTEST_CASE(work_queue_runs_on_each_cpu),
};

KTEST_SUITE(smp, "smp", smp_cases);

/*
 * cmd_stress.c - `stress`: allocations from every CPU at once.
 *
 * Each chosen CPU runs the same loop on its own state (struct stress_cpu):
 * allocate a block of a random order (unmovable, GFP_KERNEL), write a
 * pattern into it that depends on the CPU, the block's serial number and
 * the offset in the block, keep it (at most STRESS_MAX_KEPT blocks and
 * STRESS_KEPT_PAGES pages, 32 MiB, per CPU), and when the keep is full, or
 * at random, check the pattern of a random kept block and free it.  A
 * failed allocation (no memory) is counted and frees a block instead.  At
 * the end every CPU checks and frees what it still keeps.
 *
 * Where it runs: the APs run the loop as their idle loop's work item
 * (arch/smp.h's smp_start_work(): interrupts on, so they still answer
 * calls and TLB shootdowns); CPU 0 runs its share inside the shell's job,
 * one operation between two checkpoints, so the console, the pollers and
 * the long operations (a DIMM's add or eject) go on.  The APs never print:
 * each records its counts and its first pattern errors, and CPU 0 prints
 * them all once every CPU has finished.  Ctrl-C (the job's stop) raises a
 * flag every CPU polls between two operations; each then frees what it
 * keeps, and the accounting check still runs.
 *
 * The accounting check: before the run, every pcp list of every zone is
 * drained and the free pages (global_free_pages()) read; after the run,
 * the same again.  They must be equal: the run lost no page.  When the
 * managed pages changed meanwhile (memory added or removed by hotplug)
 * the two cannot be compared, and the report says so instead.
 *
 * What the APs read without a lock while they allocate, and CPU 0's
 * hotplug may change meanwhile: the node's zonelist, rebuilt in place by
 * online and offline (entries whole, a sequence count: a walk that failed
 * during a rebuild walks again, mmzone.h); a zone's watermarks,
 * lowmem_reserve and managed_pages, read by the watermark check (atomic
 * snapshots); and the spans that the free path's checks use (read
 * through the zone span seqlock, zone_spans_pfn(): mmzone.h).  deferred_grow_zone() is safe on an AP
 * (its sections are claimed, mm/deferred_init.c), but the run still waits
 * for deferred init to finish: its sections would raise the free pages
 * the accounting check compares.  The log has its own lock, so an AP's
 * bad page report or MM_WARN_ON() prints whole.
 *
 * Context: (main) and the command's job; the APs' loops as said.
 */
#include <shell/shell.h>
#include <shell/args.h>
#include <arch/smp.h>
#include <arch/cpu.h>
#include <arch/time.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <mm/gfp.h>
#include <mm/page.h>
#include <mm/mmzone.h>
#include <mm/buddy.h>
#include <mm/platform.h>
#include <mm/deferred_init.h>

#define STRESS_MAX_KEPT		32	/* blocks one CPU keeps at most */
#define STRESS_KEPT_PAGES	(32 * SZ_1M / PAGE_SIZE)	/* pages one CPU keeps at most */
#define STRESS_MAX_ERRORS	4	/* pattern errors one CPU records in full */
#define STRESS_STRIDE		64	/* bytes between two pattern words */
#define STRESS_DEFAULT_OPS	2000	/* operations per CPU without -n or -t */
#define STRESS_NR_ORDERS	(MAX_PAGE_ORDER + 1)

struct stress_block {
	struct page *page;
	u32 serial;		/* the block's number on its CPU */
	u8 order;
};

struct stress_error {
	u64 pfn;		/* the page with the wrong word */
	u32 offset;		/* the word's byte offset in that page */
	u64 want, got;
};

/* One CPU's loop: its own state, written by that CPU only while it runs. */
struct stress_cpu {
	bool chosen;		/* takes part in this run */
	bool started;		/* its loop was started (CPU 0: always) */
	int start_err;		/* smp_start_work()'s answer, when it failed */
	unsigned cpu;
	u64 rng;
	u64 target;		/* operations to run; 0: until the deadline or the stop */
	u64 ops, fails, checks, bad_frees, errors;
	u64 allocs[STRESS_NR_ORDERS];
	u32 serial;
	unsigned nkept;
	u64 kept_pages, limit_pages;
	struct stress_block kept[STRESS_MAX_KEPT];
	struct stress_error err[STRESS_MAX_ERRORS];
};

static struct stress_cpu stress_cpus[MM_NR_CPUS];
static volatile bool stress_stop;	/* every CPU polls it between two operations */
static u64 stress_deadline_ns;		/* -t: ktime_ns() at which all stop; 0 none */
static unsigned stress_lo, stress_hi;	/* the orders */
static bool stress_busy;		/* one run at a time */
static u64 stress_limit;		/* pages each CPU may keep in this run */

static u64 stress_rand(struct stress_cpu *st)
{
	u64 x = st->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	st->rng = x;
	return x;
}

/* The word at byte offset off of block serial on cpu. */
static u64 stress_word(unsigned cpu, u32 serial, u64 off)
{
	u64 v = ((u64)cpu << 48) ^ ((u64)serial << 24) ^ off;

	return v * 0x9e3779b97f4a7c15ULL ^ 0xa5a5a5a5a5a5a5a5ULL;
}

static void stress_fill(const struct stress_cpu *st, const struct stress_block *b)
{
	u8 *base = mm_phys_to_virt(page_to_phys(b->page));
	u64 size = PAGE_SIZE << b->order;

	for (u64 off = 0; off < size; off += STRESS_STRIDE)
		*(volatile u64 *)(base + off) = stress_word(st->cpu, b->serial, off);
}

/* Check b's pattern; count and record each wrong word (the first ones). */
static void stress_check(struct stress_cpu *st, const struct stress_block *b)
{
	const u8 *base = mm_phys_to_virt(page_to_phys(b->page));
	u64 size = PAGE_SIZE << b->order;

	st->checks++;
	for (u64 off = 0; off < size; off += STRESS_STRIDE) {
		u64 want = stress_word(st->cpu, b->serial, off);
		u64 got = *(const volatile u64 *)(base + off);

		if (got == want)
			continue;
		if (st->errors < STRESS_MAX_ERRORS) {
			struct stress_error *e = &st->err[st->errors];

			e->pfn = page_to_pfn(b->page) + off / PAGE_SIZE;
			e->offset = (u32)(off % PAGE_SIZE);
			e->want = want;
			e->got = got;
		}
		st->errors++;
	}
}

/* Check kept block i, free it, and fill its slot with the last one. */
static void stress_free_one(struct stress_cpu *st, unsigned i)
{
	struct stress_block *b = &st->kept[i];

	stress_check(st, b);
	if (free_pages(b->page, b->order))
		st->bad_frees++;
	st->kept_pages -= 1ULL << b->order;
	*b = st->kept[--st->nkept];
}

/* One operation: an allocation kept, or a kept block checked and freed. */
static void stress_op(struct stress_cpu *st)
{
	u64 r = stress_rand(st);
	unsigned order = stress_lo + (unsigned)(r % (stress_hi - stress_lo + 1));
	bool fits = st->nkept < STRESS_MAX_KEPT &&
		    (st->nkept == 0 || st->kept_pages + (1ULL << order) <= st->limit_pages);

	st->ops++;
	if (fits && (st->nkept == 0 || (r >> 40) & 1)) {
		struct page *page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
		struct stress_block *b;

		if (page) {
			b = &st->kept[st->nkept++];
			b->page = page;
			b->order = (u8)order;
			b->serial = st->serial++;
			st->kept_pages += 1ULL << order;
			st->allocs[order]++;
			stress_fill(st, b);
			return;
		}
		st->fails++;
		if (!st->nkept)
			return;
	}
	stress_free_one(st, (unsigned)((r >> 20) % st->nkept));
}

/* Should st stop: asked to, its count reached, or the deadline passed? */
static bool stress_finished(const struct stress_cpu *st)
{
	if (__atomic_load_n(&stress_stop, __ATOMIC_ACQUIRE))
		return true;
	if (st->target)
		return st->ops >= st->target;
	return ktime_ns() >= stress_deadline_ns;
}

static void stress_free_all(struct stress_cpu *st)
{
	while (st->nkept)
		stress_free_one(st, st->nkept - 1);
}

/* An AP's work item (smp_start_work()): the whole loop, then the frees. */
static void stress_ap(void *arg)
{
	struct stress_cpu *st = arg;

	while (!stress_finished(st))
		stress_op(st);
	stress_free_all(st);
}

/* Drain every pcp list of every zone, each CPU's on that CPU when it is
 * idle (r, may be NULL, says what came back from each); then the free
 * pages of all zones. */
static unsigned long stress_drained_free(struct pcp_drain_report *r)
{
	pcp_drain_each_cpu(NULL, r);
	return global_free_pages();
}

/* The after-run drain: what came back from each CPU's lists, and where. */
static void stress_drain_line(struct printer *out, const struct pcp_drain_report *r)
{
	unsigned cpu, self = mm_this_cpu();

	pr_printf(out, "stress: drained after the run:");
	for_each_pcp_cpu(cpu)
		if (r->pages[cpu])
			pr_printf(out, " cpu %u: %lu%s,", cpu, r->pages[cpu],
				  cpu == self ? "" : r->where[cpu] == PCP_DRAIN_THERE ? " (on it)" :
				  " (from CPU 0)");
	pr_printf(out, " the rest empty\n");
}

/* "0-3", "0,2", "1-2,5": the CPUs of list into chosen[]; 0 or -EINVAL. */
static int parse_cpulist(const char *list, bool *chosen, unsigned nr)
{
	const char *s = list;

	while (*s) {
		char word[24];
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		char *dash;
		u64 a, b;

		if (!len || len >= sizeof(word))
			return -EINVAL;
		memcpy(word, s, len);
		word[len] = '\0';
		dash = strchr(word, '-');
		if (dash)
			*dash = '\0';
		if (parse_u64(word, &a) || (dash && parse_u64(dash + 1, &b)))
			return -EINVAL;
		if (!dash)
			b = a;
		if (a > b || b >= nr)
			return -EINVAL;
		for (u64 c = a; c <= b; c++)
			chosen[c] = true;
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}

struct stress_args {
	u64 count, seconds;
	unsigned lo, hi;
	bool chosen[MM_NR_CPUS];
	bool cpus_given;
};

static int stress_parse(struct printer *out, int argc, char **argv, struct stress_args *a)
{
	unsigned nr = smp_nr_cpus() < MM_NR_CPUS ? smp_nr_cpus() : MM_NR_CPUS;

	memset(a, 0, sizeof(*a));
	a->lo = 0;
	a->hi = MAX_PAGE_ORDER;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			if (shell_arg_u64(out, "stress", "count", argv[++i], 1, 1ULL << 40, NULL,
					  &a->count))
				return -EINVAL;
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			if (shell_arg_u64(out, "stress", "seconds", argv[++i], 1, 86400, NULL,
					  &a->seconds))
				return -EINVAL;
		} else if (!strncmp(argv[i], "orders=", 7)) {
			char *dash = strchr(argv[i] + 7, '-');
			u64 lo, hi;

			if (dash)
				*dash = '\0';
			if (shell_arg_u64(out, "stress", "order", argv[i] + 7, 0, MAX_PAGE_ORDER,
					  "MAX_PAGE_ORDER", &lo))
				return -EINVAL;
			hi = lo;
			if (dash && shell_arg_u64(out, "stress", "order", dash + 1, lo,
						  MAX_PAGE_ORDER, "MAX_PAGE_ORDER", &hi))
				return -EINVAL;
			a->lo = (unsigned)lo;
			a->hi = (unsigned)hi;
		} else if (!strncmp(argv[i], "cpus=", 5)) {
			if (parse_cpulist(argv[i] + 5, a->chosen, nr)) {
				pr_printf(out, "stress: cpus '%s' is not a list of CPUs 0-%u "
					  "(\"0-3\", \"0,2\")\n", argv[i] + 5, nr - 1);
				return -EINVAL;
			}
			a->cpus_given = true;
		} else {
			return shell_usage(out, shell_find("stress"));
		}
	}
	if (a->count && a->seconds) {
		pr_printf(out, "stress: -n and -t exclude each other\n");
		return -EINVAL;
	}
	if (!a->count && !a->seconds)
		a->count = STRESS_DEFAULT_OPS;
	if (!a->cpus_given)
		for (unsigned c = 0; c < nr; c++)
			a->chosen[c] = true;
	return 0;
}

/* Wait for deferred memmap init: its sections change the free pages. */
static int stress_wait_meminit(struct printer *out)
{
	if (!deferred_init_pending_sections())
		return 0;
	if (!shell_job_longop()) {
		deferred_init_finish();
		return 0;
	}
	pr_printf(out, "stress: waiting for deferred memmap init (%llu sections pending)\n",
		  (unsigned long long)deferred_init_pending_sections());
	while (deferred_init_pending_sections()) {
		if (shell_stop_requested())
			return -EINTR;
		shell_yield();
	}
	return 0;
}

static void stress_report(struct printer *out, unsigned lo, unsigned hi)
{
	u64 errors = 0, bad = 0;

	pr_printf(out, "CPU       OPS    ALLOCS    FAILED    CHECKED  ERRORS  BAD FREES\n");
	for (unsigned c = 0; c < MM_NR_CPUS; c++) {
		const struct stress_cpu *st = &stress_cpus[c];
		u64 allocs = 0;

		if (!st->chosen)
			continue;
		if (!st->started) {
			pr_printf(out, "%3u  not started: %s\n", c, err_text(st->start_err));
			continue;
		}
		for (unsigned o = 0; o < STRESS_NR_ORDERS; o++)
			allocs += st->allocs[o];
		pr_printf(out, "%3u  %8llu  %8llu  %8llu  %9llu  %6llu  %9llu\n", c,
			  (unsigned long long)st->ops, (unsigned long long)allocs,
			  (unsigned long long)st->fails, (unsigned long long)st->checks,
			  (unsigned long long)st->errors, (unsigned long long)st->bad_frees);
		errors += st->errors;
		bad += st->bad_frees;
	}
	pr_printf(out, "allocations by order:\nCPU");
	for (unsigned o = lo; o <= hi; o++)
		pr_printf(out, " %7s%u", "o", o);
	pr_printf(out, "\n");
	for (unsigned c = 0; c < MM_NR_CPUS; c++) {
		const struct stress_cpu *st = &stress_cpus[c];

		if (!st->chosen || !st->started)
			continue;
		pr_printf(out, "%3u", c);
		for (unsigned o = lo; o <= hi; o++)
			pr_printf(out, " %8llu", (unsigned long long)st->allocs[o]);
		pr_printf(out, "\n");
	}
	for (unsigned c = 0; c < MM_NR_CPUS; c++) {
		const struct stress_cpu *st = &stress_cpus[c];

		for (u64 i = 0; st->chosen && i < st->errors && i < STRESS_MAX_ERRORS; i++)
			pr_printf(out, "stress: cpu %u: pattern error at pfn %#llx offset %#x: "
				  "wrote %016llx, read %016llx\n", c,
				  (unsigned long long)st->err[i].pfn, st->err[i].offset,
				  (unsigned long long)st->err[i].want,
				  (unsigned long long)st->err[i].got);
	}
	pr_printf(out, "stress: pattern errors: %llu, bad frees: %llu\n",
		  (unsigned long long)errors, (unsigned long long)bad);
}

/* Start every chosen AP's loop; returns how many CPUs run (CPU 0 included). */
static unsigned stress_start(const struct stress_args *a, unsigned long free_before)
{
	unsigned n = 0, running = 0;
	u64 limit;

	for (unsigned c = 0; c < MM_NR_CPUS; c++)
		n += a->chosen[c];
	limit = free_before / (4 * (n ? n : 1));
	if (limit > STRESS_KEPT_PAGES)
		limit = STRESS_KEPT_PAGES;
	stress_limit = limit;
	for (unsigned c = 0; c < MM_NR_CPUS; c++) {
		struct stress_cpu *st = &stress_cpus[c];

		memset(st, 0, sizeof(*st));
		if (!a->chosen[c])
			continue;
		st->chosen = true;
		st->cpu = c;
		st->rng = 0x2545f4914f6cdd1dULL * (c + 1) ^ rdtsc();
		st->rng = st->rng ? st->rng : 1;
		st->target = a->count;
		st->limit_pages = limit;
	}
	for (unsigned c = 0; c < MM_NR_CPUS; c++) {
		struct stress_cpu *st = &stress_cpus[c];

		if (!st->chosen)
			continue;
		if (c == 0) {
			st->started = true;
		} else {
			st->start_err = smp_start_work(c, stress_ap, st);
			st->started = !st->start_err;
		}
		running += st->started;
	}
	return running;
}

/* Wait for every AP's loop to return; a stop request stops them all. */
static bool stress_wait_aps(bool interrupted)
{
	for (;;) {
		bool any = false;

		for (unsigned c = 1; c < MM_NR_CPUS; c++)
			any = any || (stress_cpus[c].started && smp_work_running(c));
		if (!any)
			return interrupted;
		if (!interrupted && shell_stop_requested()) {
			__atomic_store_n(&stress_stop, true, __ATOMIC_RELEASE);
			interrupted = true;
		}
		if (shell_job_longop())
			shell_yield();
		else
			cpu_relax();
	}
}

static int cmd_stress(struct printer *out, int argc, char **argv)
{
	static struct stress_args a;
	unsigned long free_before, free_after, managed_before, managed_after;
	static struct pcp_drain_report drained;	/* 1 KiB: not on the job's stack */
	struct stress_cpu *boot = &stress_cpus[0];
	bool interrupted = false;
	unsigned running;
	int err;

	err = stress_parse(out, argc, argv, &a);
	if (err)
		return err;
	if (stress_busy) {
		pr_printf(out, "stress: already running\n");
		return -EBUSY;
	}
	stress_busy = true;
	err = stress_wait_meminit(out);
	if (err) {
		pr_printf(out, "stress: interrupted before it began\n");
		stress_busy = false;
		return err;
	}
	stress_lo = a.lo;
	stress_hi = a.hi;
	stress_stop = false;
	stress_deadline_ns = a.seconds ? ktime_ns() + a.seconds * 1000000000ULL : 0;
	free_before = stress_drained_free(NULL);
	managed_before = totalram_pages();
	running = stress_start(&a, free_before);
	pr_printf(out, "stress: %u CPUs, orders %u-%u, ", running, a.lo, a.hi);
	if (a.count)
		pr_printf(out, "%llu operations each", (unsigned long long)a.count);
	else
		pr_printf(out, "%llu s", (unsigned long long)a.seconds);
	pr_printf(out, ", up to %u blocks and %llu pages kept per CPU\n", STRESS_MAX_KEPT,
		  (unsigned long long)stress_limit);

	if (boot->chosen) {
		while (!stress_finished(boot)) {
			stress_op(boot);
			if (shell_checkpoint()) {
				__atomic_store_n(&stress_stop, true, __ATOMIC_RELEASE);
				interrupted = true;
			}
		}
		stress_free_all(boot);
	}
	interrupted = stress_wait_aps(interrupted);
	free_after = stress_drained_free(&drained);
	managed_after = totalram_pages();

	stress_report(out, a.lo, a.hi);
	stress_drain_line(out, &drained);
	if (managed_after != managed_before)
		pr_printf(out, "stress: free pages before %lu, after %lu: not compared, the managed "
			  "pages changed from %lu to %lu during the run (hotplug)\n", free_before,
			  free_after, managed_before, managed_after);
	else
		pr_printf(out, "stress: free pages before %lu, after %lu: %s\n", free_before,
			  free_after, free_before == free_after ? "equal, no page lost" :
			  free_after < free_before ? "PAGES LOST" : "MORE THAN BEFORE");
	stress_busy = false;
	if (interrupted) {
		pr_printf(out, "stress: interrupted: every CPU stopped and freed what it kept\n");
		return -EINTR;
	}
	return 0;
}

SHELL_COMMAND(stress, .name = "stress",
	      .usage = "stress [-n COUNT | -t SECONDS] [orders=LO-HI] [cpus=LIST]",
	      .summary = "allocate, fill, check and free from every CPU at once",
	      .help = "Runs on each chosen CPU at once (default: every online CPU,\n"
		      "CPU 0 included) a loop of COUNT operations (default 2000) or\n"
		      "SECONDS: allocate a block of a random order in LO-HI (default\n"
		      "0-10, unmovable), write a pattern of CPU, block and offset into\n"
		      "it, keep it (at most 32 blocks and 32 MiB per CPU), or check a\n"
		      "random kept block and free it.  The APs run it as their idle\n"
		      "loop's work item, CPU 0 as this job between checkpoints.  Then\n"
		      "per CPU: operations, allocations (and by order), failures (no\n"
		      "memory), blocks checked, pattern errors (pfn and offset), bad\n"
		      "frees; and the free pages after draining every pcp list, before\n"
		      "and after: equal when no page was lost.  Ctrl-C stops every CPU;\n"
		      "each frees what it keeps.  See docs/smp.md.",
	      .fn = cmd_stress, .runs_long = shell_always_long);

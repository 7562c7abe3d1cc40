/*
 * ktest_lib.c - self-tests of the kernel library and the arch basics:
 * the formatter, string functions, errno texts, symbol lookup, the page
 * tables and the clock.  Each case uses its own buffers only.
 */
#include <kernel/ktest.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <arch/kallsyms.h>
#include <kernel/time.h>
#include <arch/sections.h>
#include <arch/paging.h>
#include <kernel/longop.h>
#include <mm/page.h>
#include <kernel/kthread.h>

static void fmt_integers(struct ktest *t)
{
	char b[64];

	ksnprintf(b, sizeof(b), "%d %i %u", -42, 7, 4000000000u);
	KTEST_EXPECT_STREQ(t, b, "-42 7 4000000000");
	ksnprintf(b, sizeof(b), "%5d|%-5d|%05d", 42, 42, -42);
	KTEST_EXPECT_STREQ(t, b, "   42|42   |-0042");
	ksnprintf(b, sizeof(b), "%llx %#llx %016llX", 0xdeadbeefULL, 0x1ULL, 0xabcULL);
	KTEST_EXPECT_STREQ(t, b, "deadbeef 0x1 0000000000000ABC");
	ksnprintf(b, sizeof(b), "%lld", (long long)(-9223372036854775807LL - 1));
	KTEST_EXPECT_STREQ(t, b, "-9223372036854775808");
	ksnprintf(b, sizeof(b), "%zu %o %#o %+d % d", (size_t)12, 8u, 8u, 3, 3);
	KTEST_EXPECT_STREQ(t, b, "12 10 010 +3  3");
}

static void fmt_strings_and_truncation(struct ktest *t)
{
	char b[8];
	int n;

	n = ksnprintf(b, sizeof(b), "%s-%c", "abcdef", 'x');
	KTEST_EXPECT_EQ(t, n, 8);
	KTEST_EXPECT_STREQ(t, b, "abcdef-");
	ksnprintf(b, sizeof(b), "%.2s|%3s", "xyz", "a");
	KTEST_EXPECT_STREQ(t, b, "xy|  a");
	{
		const char *volatile null_str = NULL;	/* hide NULL from -Wformat */

		ksnprintf(b, sizeof(b), "%s", null_str);
	}
	KTEST_EXPECT_STREQ(t, b, "(null)");
	n = ksnprintf(b, 0, "%d", 12345);
	KTEST_EXPECT_EQ(t, n, 5);
}

static void string_functions(struct ktest *t)
{
	char a[32] = "hello, world";
	char d[8];

	memmove(a + 2, a, 5);
	KTEST_EXPECT_STREQ(t, a, "hehelloworld");	/* overlapping, forwards */
	memmove(a, a + 2, 5);
	KTEST_EXPECT_STREQ(t, a, "helloloworld");	/* overlapping, backwards */
	KTEST_EXPECT_EQ(t, strlcpy(d, "truncated", sizeof(d)), 9);
	KTEST_EXPECT_STREQ(t, d, "truncat");
	KTEST_EXPECT(t, strstr("memory block", "block") != NULL);
	KTEST_EXPECT(t, strstr("memory", "blocks") == NULL);
	KTEST_EXPECT(t, strcmp("abc", "abd") < 0);
	KTEST_EXPECT_EQ(t, strncmp("abcX", "abcY", 3), 0);
	memset(a, 0x5a, 17);
	KTEST_EXPECT_EQ(t, a[16], 0x5a);
	KTEST_EXPECT_EQ(t, a[17], 0);
}

static void errno_texts(struct ktest *t)
{
	KTEST_EXPECT_STREQ(t, err_text(-EINVAL), "Invalid argument");
	KTEST_EXPECT_STREQ(t, err_text(EACCES), "Permission denied");
	KTEST_EXPECT_STREQ(t, err_text(-9999), "Unknown error");
}

static void kallsyms_names_functions(struct ktest *t)
{
	u64 off, size;
	const char *name = kallsyms_lookup((u64)(uintptr_t)kallsyms_lookup + 1, &off, &size);

	KTEST_ASSERT(t, name != NULL);
	KTEST_EXPECT_STREQ(t, name, "kallsyms_lookup");
	KTEST_EXPECT_EQ(t, off, 1);
	KTEST_EXPECT(t, size > 1);
	KTEST_EXPECT(t, kallsyms_lookup(0x1000, &off, &size) == NULL);
}

static void paging_direct_map_and_wx(struct ktest *t)
{
	static u64 probe = 0x6d656d6c6162ULL;	/* in .data */
	phys_addr_t pa;
	u64 size, flags;

	/* the kernel's data is reachable at the same physical address
	 * through the direct map */
	KTEST_ASSERT(t, paging_translate((u64)(uintptr_t)&probe, &pa, &size, &flags) == 0);
	KTEST_EXPECT_EQ(t, pa, kernel_pa(&probe));
	KTEST_EXPECT_EQ(t, *(u64 *)phys_to_virt(pa), probe);
	KTEST_EXPECT(t, flags & 2);			/* data is writable */
	/* code is read-only */
	KTEST_ASSERT(t, paging_translate((u64)(uintptr_t)fmt_integers, &pa, &size, &flags) == 0);
	KTEST_EXPECT(t, !(flags & 2));
	/* the first page is not mapped: NULL dereferences fault */
	KTEST_EXPECT(t, paging_translate(0, &pa, &size, &flags) != 0);
}

static void clock_advances(struct ktest *t)
{
	u64 a = ktime_ns(), b;

	udelay(2000);
	b = ktime_ns();
	KTEST_EXPECT(t, tsc_khz() > 0);
	KTEST_EXPECT(t, b - a >= 2000 * NSEC_PER_USEC);
	KTEST_EXPECT(t, b - a < 2 * NSEC_PER_SEC);
}

/* A long operation of 3 units, one per slice: the slice loop runs it, drops
 * it when its step says done, and longop_finish() completes another at once. */
static bool count_step(struct longop *op, u64 deadline_ns)
{
	(void)deadline_ns;
	op->done++;
	return op->done < op->total;
}

static void longop_slices_and_finish(struct ktest *t)
{
	struct longop a = { .name = "ktest a", .unit = "units", .step = count_step, .total = 3 };
	struct longop b = { .name = "ktest b", .unit = "units", .step = count_step, .total = 5 };

	longop_start(&a);
	longop_claim(&a, 0x1000, 0x3000);
	longop_start(&a);		/* already running: no second entry */
	KTEST_EXPECT(t, longop_any_running());
	KTEST_EXPECT(t, longop_range_busy(0x2000, 0x2001) == &a);
	KTEST_EXPECT(t, longop_range_busy(0x3000, 0x4000) != &a);	/* half-open */
	longop_run_slice();
	KTEST_EXPECT_EQ(t, a.done, 1);
	longop_run_slice();
	longop_run_slice();
	KTEST_EXPECT_EQ(t, a.done, 3);
	KTEST_EXPECT(t, !a.running);
	KTEST_EXPECT_EQ(t, a.slices, 3);
	KTEST_EXPECT(t, longop_range_busy(0x1000, 0x3000) != &a);	/* done: not busy */
	longop_start(&b);
	longop_cancel(&b);		/* off the list where it stands */
	KTEST_EXPECT(t, !b.running);
	KTEST_EXPECT_EQ(t, b.done, 0);
	longop_start(&b);
	longop_finish(&b);
	KTEST_EXPECT_EQ(t, b.done, 5);
	KTEST_EXPECT(t, !b.running);
}

/* A step that asks about the range it holds itself, and about another's. */
static struct longop *busy_seen_self, *busy_seen_other;

static bool ask_busy_step(struct longop *op, u64 deadline_ns)
{
	(void)deadline_ns;
	busy_seen_self = longop_range_busy(PFN_PHYS(op->claim.start_pfn),
					   PFN_PHYS(op->claim.end_pfn));
	busy_seen_other = longop_range_busy(0x8000, 0x9000);
	return false;
}

static void longop_own_range_does_not_stop_it(struct ktest *t)
{
	struct longop a = { .name = "ktest self", .unit = "units", .step = ask_busy_step,
			    .total = 1 };
	struct longop b = { .name = "ktest other", .unit = "units", .step = count_step,
			    .total = 100 };

	longop_start(&b);
	longop_claim(&b, 0x8000, 0x9000);
	longop_start(&a);
	longop_claim(&a, 0x1000, 0x3000);
	longop_finish(&a);
	KTEST_EXPECT(t, busy_seen_self == NULL);	/* its own range: not busy for it */
	KTEST_EXPECT(t, busy_seen_other == &b);		/* another's: busy */
	KTEST_EXPECT(t, longop_range_busy(0x8000, 0x8001) == &b);	/* from (main) */
	longop_cancel(&b);
}

/* A step that does units until its deadline passes, at least one. */
static bool units_step(struct longop *op, u64 deadline_ns)
{
	do
		op->done++;
	while (op->done < op->total && ktime_ns() < deadline_ns);
	return op->done < op->total;
}

/* `work pause`: the slice loop passes over held operations but not a
 * foreground one, a step is one unit of each held one however fast the
 * machine, and after the resume the slices are whole again. */
static void longop_pause_holds_and_steps_one_unit(struct ktest *t)
{
	struct longop a = { .name = "ktest held", .unit = "units", .step = count_step, .total = 3 };
	struct longop b = { .name = "ktest units", .unit = "units", .step = units_step,
			    .total = 1ull << 40 };
	struct longop f = { .name = "ktest fg", .unit = "units", .step = count_step,
			    .total = 100, .foreground = true };
	bool mine = longop_pause();	/* (false: the user paused already) */

	KTEST_EXPECT(t, !longop_pause());
	longop_start(&a);
	longop_start(&b);
	longop_start(&f);
	longop_run_slice();
	KTEST_EXPECT_EQ(t, a.done, 0);
	KTEST_EXPECT_EQ(t, b.done, 0);
	KTEST_EXPECT_EQ(t, f.done, 1);		/* the prompt waits for it: not held */
	KTEST_EXPECT_EQ(t, longop_step(1), 1);
	KTEST_EXPECT_EQ(t, a.done, 1);
	KTEST_EXPECT_EQ(t, b.done, 1);		/* one unit, though its budget is 0 */
	KTEST_EXPECT_EQ(t, f.done, 1);		/* a step is for the held ones */
	KTEST_EXPECT(t, longop_step(4) >= 2);
	KTEST_EXPECT(t, !a.running);		/* done after its third unit */
	KTEST_EXPECT_EQ(t, b.done, 5);
	KTEST_EXPECT_EQ(t, b.slices, 5);
	longop_cancel(&f);
	KTEST_EXPECT(t, !longop_any_working());	/* held: the idle loop may halt */
	if (mine) {
		KTEST_EXPECT(t, longop_resume());
		KTEST_EXPECT(t, !longop_resume());
		KTEST_EXPECT_EQ(t, longop_step(1), 0);	/* not paused: nothing held */
		longop_run_slice();
		KTEST_EXPECT(t, b.done > 6);	/* a whole slice: many units */
	}
	longop_cancel(&b);
}

/* A cooperative thread that yields between its steps: its locals live on
 * its own stack across turns. */
static u64 kt_stack[1024] __aligned(16);	/* 8 KiB */
static char kt_log[16];
static unsigned kt_len;
static bool kt_saw_itself;

static void kt_body(void *arg)
{
	struct kthread *self = arg;

	for (char c = 'a'; c <= 'd'; c++) {	/* c survives every yield */
		kt_log[kt_len++] = c;
		kt_saw_itself = kthread_current() == self;
		kthread_yield();
	}
	kt_log[kt_len++] = '.';
}

static void kthread_turns_keep_the_thread_state(struct ktest *t)
{
	static struct kthread th;
	unsigned turns = 0;

	kt_len = 0;
	kthread_init(&th, "ktest", kt_stack, sizeof(kt_stack), kt_body, &th);
	KTEST_EXPECT(t, kthread_current() == NULL);
	while (kthread_run(&th, ktime_ns() + 1000000)) {
		turns++;
		KTEST_EXPECT(t, kthread_current() == NULL);	/* back on the main stack */
		KTEST_EXPECT_EQ(t, kt_len, turns);		/* one step per turn */
		KTEST_ASSERT(t, turns < 10);
	}
	kt_log[kt_len] = '\0';
	KTEST_EXPECT_EQ(t, turns, 4);
	KTEST_EXPECT(t, !strcmp(kt_log, "abcd."));
	KTEST_EXPECT(t, kt_saw_itself);
	KTEST_EXPECT(t, th.finished);
	KTEST_EXPECT(t, !kthread_run(&th, 0));		/* finished: no more turns */
	KTEST_EXPECT_EQ(t, kt_stack[0], KTHREAD_CANARY);
	kthread_yield();				/* on the main stack: nothing */
	KTEST_EXPECT(t, !kthread_turn_over());
	/* a finished thread starts again from the top */
	kt_len = 0;
	kthread_init(&th, "ktest again", kt_stack, sizeof(kt_stack), kt_body, &th);
	turns = 0;
	while (kthread_run(&th, 0) && turns < 10)
		turns++;
	kt_log[kt_len] = '\0';
	KTEST_EXPECT(t, !strcmp(kt_log, "abcd."));
}

static const struct ktest_case lib_cases[] = {
	KTEST_CASE(fmt_integers),
	KTEST_CASE(fmt_strings_and_truncation),
	KTEST_CASE(string_functions),
	KTEST_CASE(errno_texts),
	KTEST_CASE(kallsyms_names_functions),
	KTEST_CASE(paging_direct_map_and_wx),
	KTEST_CASE(clock_advances),
	KTEST_CASE(longop_slices_and_finish),
	KTEST_CASE(longop_own_range_does_not_stop_it),
	KTEST_CASE(longop_pause_holds_and_steps_one_unit),
	KTEST_CASE(kthread_turns_keep_the_thread_state),
};
KTEST_SUITE(lib, "lib", lib_cases);

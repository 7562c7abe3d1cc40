/*
 * ktest.h - in-kernel self-tests, printed as KTAP (the format of Linux KUnit).
 *
 * A suite is a named array of cases registered with KTEST_SUITE() in the
 * "ktest_suites" link section.  `selftest` runs every suite, `selftest NAME`
 * one suite.  Each case gets a struct ktest; KTEST_EXPECT*() record a failure
 * (printed as a KTAP diagnostic "# ..." line with file, line and values) and
 * let the case go on; KTEST_ASSERT*() also end the case.  Tests should use
 * private fixtures (their own buffers and structures), never the live
 * allocator state, so running them changes nothing.
 *
 * Output, for one suite with two cases:
 *   KTAP version 1
 *   1..1
 *       KTAP version 1
 *       # Subtest: string
 *       1..2
 *       ok 1 memcpy_overlap
 *       not ok 2 strlcpy_truncates
 *   not ok 1 string
 *
 * Context: main loop only.
 */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include <lib/types.h>
#include <lib/printer.h>

struct ktest {
	struct printer *out;	/* where diagnostics go */
	int failures;		/* failed expectations so far */
	bool aborted;		/* an assertion ended the case */
	bool skipped;		/* the case called ktest_skip() */
	const char *skip_reason;/* why, printed as "# SKIP reason" */
};

struct ktest_case {
	const char *name;		/* printed after ok/not ok */
	void (*run)(struct ktest *t);	/* the test body */
};

struct ktest_suite {
	const char *name;		/* `selftest NAME` selects it */
	const struct ktest_case *cases;	/* the cases, in order */
	size_t nr_cases;		/* entries in cases[] */
};

#define KTEST_CASE(fn)	{ #fn, fn }

#define KTEST_SUITE(ident, name_, cases_)				\
	static const struct ktest_suite ktest_suite_##ident		\
	__used __section("ktest_suites") __aligned(8) =			\
	{ .name = (name_), .cases = (cases_), .nr_cases = ARRAY_SIZE(cases_) }

extern const struct ktest_suite __start_ktest_suites[];
extern const struct ktest_suite __stop_ktest_suites[];

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...)
	__printf(4, 5);
void ktest_skip(struct ktest *t, const char *reason);

#define KTEST_EXPECT(t, cond)						\
	do {								\
		if (!(cond))						\
			ktest_fail(t, __FILE__, __LINE__,		\
				   "Expected %s to be true", #cond);	\
	} while (0)

/*
 * KTEST_EXPECT_FEW() - KTEST_EXPECT with a printf message, reported for the
 * first KTEST_REPORT_MAX failures counted in nfail (a walk over many pages
 * or sections fails once per bad one; the test still fails on all).
 */
#define KTEST_REPORT_MAX	4
#define KTEST_EXPECT_FEW(t, nfail, cond, fmt, ...)				\
	do {									\
		if (!(cond) && (nfail)++ < KTEST_REPORT_MAX)			\
			ktest_fail(t, __FILE__, __LINE__, "%s: " fmt, #cond,	\
				   ##__VA_ARGS__);				\
	} while (0)

#define KTEST_EXPECT_EQ(t, a, b)					\
	do {								\
		long long a_ = (long long)(a), b_ = (long long)(b);	\
		if (a_ != b_)						\
			ktest_fail(t, __FILE__, __LINE__,		\
				   "Expected %s == %s, but %s == %lld (0x%llx), %s == %lld (0x%llx)", \
				   #a, #b, #a, a_, (unsigned long long)a_, \
				   #b, b_, (unsigned long long)b_);	\
	} while (0)

#define KTEST_EXPECT_STREQ(t, a, b)					\
	do {								\
		const char *a_ = (a), *b_ = (b);			\
		if (strcmp(a_, b_) != 0)				\
			ktest_fail(t, __FILE__, __LINE__,		\
				   "Expected %s == %s, but \"%s\" != \"%s\"", \
				   #a, #b, a_, b_);			\
	} while (0)

#define KTEST_ASSERT(t, cond)						\
	do {								\
		if (!(cond)) {						\
			ktest_fail(t, __FILE__, __LINE__,		\
				   "Asserted %s", #cond);		\
			(t)->aborted = true;				\
			return;						\
		}							\
	} while (0)

/*
 * ktest_run() - run the suites whose name equals filter (all when NULL),
 * printing KTAP to out.  Returns the number of failed cases, or -ENOENT when
 * filter names no suite.
 */
int ktest_run(struct printer *out, const char *filter);

#endif

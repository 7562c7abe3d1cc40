/*
 * htest.h - the host test runner's registration and checks.
 *
 * A test is a function registered with HTEST(name); tests/host/main.c runs
 * every one (or those whose name contains argv[1]), prints "ok"/"FAIL" per
 * test and ends with "N passed, N failed".  CHECK*() macros record a failure
 * with file, line and the values, and the test goes on, so one run shows
 * every broken expectation.  The binary is built with ASan and UBSan; a
 * sanitizer report aborts the run with a non-zero exit.
 */
#ifndef HTEST_H
#define HTEST_H

#include <stdio.h>
#include <string.h>
#include <stdint.h>

struct htest {
	const char *name;
	void (*fn)(void);
};

#define HTEST(ident)							\
	static void htest_fn_##ident(void);				\
	static const struct htest htest_##ident				\
	__attribute__((used, section("htests"), aligned(8))) =	\
	{ #ident, htest_fn_##ident };					\
	static void htest_fn_##ident(void)

extern int htest_failures;	/* failed checks in the current test */

/* htest_expect_warnings() - the running test means to make mm warn n times
 * (MM_WARN_ON); any other number fails it. */
void htest_expect_warnings(unsigned n);

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			htest_failures++;				\
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n",	\
				__FILE__, __LINE__, #cond);		\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		long long a_ = (long long)(a), b_ = (long long)(b);	\
		if (a_ != b_) {						\
			htest_failures++;				\
			fprintf(stderr, "  %s:%d: %s == %s failed: %lld (0x%llx) != %lld (0x%llx)\n", \
				__FILE__, __LINE__, #a, #b, a_,		\
				(unsigned long long)a_, b_,		\
				(unsigned long long)b_);		\
		}							\
	} while (0)

#define CHECK_STREQ(a, b)						\
	do {								\
		const char *a_ = (a), *b_ = (b);			\
		if (strcmp(a_, b_) != 0) {				\
			htest_failures++;				\
			fprintf(stderr, "  %s:%d: %s == %s failed:\n    got:      \"%s\"\n    expected: \"%s\"\n", \
				__FILE__, __LINE__, #a, #b, a_, b_);	\
		}							\
	} while (0)

#define CHECK_STR_CONTAINS(hay, needle)					\
	do {								\
		const char *h_ = (hay), *n_ = (needle);			\
		if (!strstr(h_, n_)) {					\
			htest_failures++;				\
			fprintf(stderr, "  %s:%d: \"%s\" not found in:\n%s\n", \
				__FILE__, __LINE__, n_, h_);		\
		}							\
	} while (0)

#endif

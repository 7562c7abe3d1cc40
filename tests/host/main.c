/*
 * main.c - run every HTEST registered in the "htests" section.
 *
 * Usage: host-tests [SUBSTRING]   runs the tests whose name contains it.
 * Output: one "ok NAME" or "FAIL NAME" line per test, then the summary
 * line "N passed, N failed"; exit status 1 if anything failed.
 *
 * Besides its own checks, a test fails when it ends holding a lock
 * (lib/lock.h) or when mm warned (MM_WARN_ON) more often than the test
 * said it would with htest_expect_warnings().
 */
#include "htest.h"
#include <stdlib.h>
#include <mm/platform.h>
#include <lib/lock.h>

extern const struct htest __start_htests[];
extern const struct htest __stop_htests[];

int htest_failures;
static u64 expected_warnings;	/* set by the running test */

void htest_expect_warnings(unsigned n)
{
	expected_warnings = n;
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int passed = 0, failed = 0;

	for (const struct htest *t = __start_htests; t < __stop_htests; t++) {
		if (filter && !strstr(t->name, filter))
			continue;
		u64 warnings = mm_nr_warnings();

		htest_failures = 0;
		expected_warnings = 0;
		t->fn();
		if (lock_nr_held()) {
			fprintf(stderr, "  %s ends holding %u lock(s)\n", t->name, lock_nr_held());
			htest_failures++;
		}
		if (mm_nr_warnings() - warnings != expected_warnings) {
			fprintf(stderr, "  %s: %llu mm warning(s), %llu expected\n", t->name,
				(unsigned long long)(mm_nr_warnings() - warnings),
				(unsigned long long)expected_warnings);
			htest_failures++;
		}
		if (htest_failures) {
			printf("FAIL %s (%d checks)\n", t->name, htest_failures);
			failed++;
		} else {
			printf("ok %s\n", t->name);
			passed++;
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

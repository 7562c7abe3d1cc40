/*
 * main.c - run every HTEST registered in the "htests" section.
 *
 * Usage: host-tests [SUBSTRING]   runs the tests whose name contains it.
 * Output: one "ok NAME" or "FAIL NAME" line per test, then the summary
 * line "N passed, N failed"; exit status 1 if anything failed.
 */
#include "htest.h"
#include <stdlib.h>

extern const struct htest __start_htests[];
extern const struct htest __stop_htests[];

int htest_failures;

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int passed = 0, failed = 0;

	for (const struct htest *t = __start_htests; t < __stop_htests; t++) {
		if (filter && !strstr(t->name, filter))
			continue;
		htest_failures = 0;
		t->fn();
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

/*
 * ktest.c - run in-kernel self-tests and print KTAP.
 *
 * KTAP is the line format Linux's KUnit prints (Documentation/dev-tools/
 * ktap.rst): a version line, a plan "1..N", then one "ok N name" or
 * "not ok N name" per test; a suite is a subtest, indented four spaces,
 * with its own plan.  Diagnostics are "# " lines.  The QEMU test tier parses
 * this output and fails on any "not ok".
 *
 * Context: main loop only.
 */
#include <kernel/ktest.h>
#include <lib/string.h>
#include <lib/errno.h>

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	t->failures++;
	pr_printf(t->out, "    # %s:%d: ", file, line);
	va_start(ap, fmt);
	pr_vprintf(t->out, fmt, ap);
	va_end(ap);
	pr_printf(t->out, "\n");
}

void ktest_skip(struct ktest *t, const char *reason)
{
	t->skipped = true;
	t->skip_reason = reason;
}

/* Run one suite as a KTAP subtest; returns the number of failed cases. */
static int run_suite(struct printer *out, const struct ktest_suite *s, unsigned index)
{
	int failed = 0;

	pr_printf(out, "    KTAP version 1\n");
	pr_printf(out, "    # Subtest: %s\n", s->name);
	pr_printf(out, "    1..%zu\n", s->nr_cases);
	for (size_t i = 0; i < s->nr_cases; i++) {
		struct ktest t = { .out = out };

		s->cases[i].run(&t);
		if (t.skipped && !t.failures)
			pr_printf(out, "    ok %zu %s # SKIP %s\n", i + 1, s->cases[i].name,
				  t.skip_reason ? t.skip_reason : "");
		else if (t.failures) {
			pr_printf(out, "    not ok %zu %s\n", i + 1, s->cases[i].name);
			failed++;
		} else
			pr_printf(out, "    ok %zu %s\n", i + 1, s->cases[i].name);
	}
	pr_printf(out, "%sok %u %s\n", failed ? "not " : "", index, s->name);
	return failed;
}

int ktest_run(struct printer *out, const char *filter)
{
	unsigned nr = 0, index = 0;
	int failed = 0;

	for (const struct ktest_suite *s = __start_ktest_suites; s < __stop_ktest_suites; s++)
		if (!filter || !strcmp(filter, s->name))
			nr++;
	if (!nr)
		return -ENOENT;
	pr_printf(out, "KTAP version 1\n1..%u\n", nr);
	for (const struct ktest_suite *s = __start_ktest_suites; s < __stop_ktest_suites; s++)
		if (!filter || !strcmp(filter, s->name))
			failed += run_suite(out, s, ++index);
	pr_printf(out, "# selftest: %u suites, %d failed cases\n", nr, failed);
	return failed;
}

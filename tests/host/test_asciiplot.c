/*
 * test_asciiplot.c - the benchmarks' character chart (lib/asciiplot.c)
 * and the median/spread of their runs (include/lib/median.h): a rising
 * series climbs from the bottom row to the top, a flat one stays on one
 * row, shared cells are '*', a disturbed block does not draw a spike, and
 * the axis says what the rows and columns are.
 */
#include "htest.h"
#include <lib/asciiplot.h>
#include <lib/median.h>
#include <lib/printer.h>
#include <lib/string.h>

static char text[16384];

/* The chart of old (rising 1000..1000+k*step) and new (flat) in text[]. */
static void draw(const u64 *old, const u64 *nw, u64 n, unsigned width, unsigned height)
{
	struct buf_printer bp;
	struct asciiplot_series s[2] = { { "old", 'o', old }, { "new", 'n', nw } };

	buf_printer_init(&bp, text, sizeof(text));
	asciiplot(&bp.p, "cycles/block", "block", s, 2, n, width, height);
	CHECK(!bp.overflow);
}

/* Line i (0 = the title) of text[], into line[]. */
static const char *line_of(int i, char *line, size_t size)
{
	const char *p = text;

	while (i-- > 0 && (p = strchr(p, '\n')))
		p++;
	if (!p)
		return "";
	size_t n = strcspn(p, "\n");
	n = n < size - 1 ? n : size - 1;
	memcpy(line, p, n);
	line[n] = 0;
	return line;
}

HTEST(asciiplot_draws_rising_above_flat)
{
	static u64 old[480], nw[480];
	char line[256];

	for (int i = 0; i < 480; i++) {
		old[i] = 100000 + (u64)i * 2000;	/* the walk: grows with the zone */
		nw[i] = 100000;				/* the counter: flat */
	}
	old[240] = 50000000;	/* one block disturbed by the host: no spike */
	draw(old, nw, 480, 60, 10);
	CHECK_STR_CONTAINS(line_of(0, line, sizeof(line)), "cycles/block  o = old, n = new, * = both");
	CHECK_STR_CONTAINS(line_of(0, line, sizeof(line)), "the median of 8 blocks");
	/* top row: the old walk's last columns, labelled with the top value */
	line_of(1, line, sizeof(line));
	CHECK_STR_CONTAINS(line, "1.0M |");
	CHECK(line[strlen(line) - 1] == 'o');
	CHECK(!strchr(line, 'n'));
	/* no column of the old series reaches the spike's height: the top is
	 * the old series' last column (~1.05M), not 50M */
	CHECK(!strstr(text, "50.0M") && !strstr(text, "50M"));
	/* the flat series sits on one row: that row holds every 'n' (or '*') */
	int rows_with_n = 0;
	for (int r = 1; r <= 10; r++)
		rows_with_n += strchr(line_of(r, line, sizeof(line)), 'n') != NULL;
	CHECK_EQ(rows_with_n, 1);
	/* the old series starts on the same row: a shared cell at column 0 */
	for (int r = 1; r <= 10; r++) {
		line_of(r, line, sizeof(line));
		if (strchr(line, 'n'))
			CHECK_EQ(strchr(line, '|')[1], '*');
	}
	/* the bottom row is labelled 0, then the axis, then the x labels */
	CHECK_STR_CONTAINS(line_of(10, line, sizeof(line)), "     0 |");
	CHECK_STR_CONTAINS(line_of(11, line, sizeof(line)), "+------------------------------------------------------------");
	CHECK_STR_CONTAINS(line_of(12, line, sizeof(line)), "block 0");
	CHECK_STR_CONTAINS(line_of(12, line, sizeof(line)), " 479");
}

HTEST(asciiplot_narrow_series_get_one_column_per_value)
{
	u64 old[5] = { 0, 1, 2, 3, 4 }, nw[5] = { 4, 3, 2, 1, 0 };
	char line[256];

	draw(old, nw, 5, 60, 5);
	CHECK_STR_CONTAINS(line_of(0, line, sizeof(line)), "the median of 1 block)");
	/* five columns: the top row has the old series' last and the new one's first */
	CHECK_STREQ(strchr(line_of(1, line, sizeof(line)), '|'), "|n   o");
	CHECK_STREQ(strchr(line_of(3, line, sizeof(line)), '|'), "|  *");
	CHECK_STREQ(strchr(line_of(6, line, sizeof(line)), '+'), "+-----");
}

HTEST(bench_stats_give_median_range_and_spread)
{
	u64 v[5] = { 120, 100, 90, 110, 105 };
	struct bench_stats s = bench_stats_of(v, 5);

	CHECK_EQ(s.median, 105);
	CHECK_EQ(s.min, 90);
	CHECK_EQ(s.max, 120);
	CHECK_EQ(s.n, 5);
	/* half of 30 is 15: 14.3% of 105, in thousandths */
	CHECK_EQ(bench_spread_permille(&s), 143);
	u64 one[1] = { 7 };
	s = bench_stats_of(one, 1);
	CHECK_EQ(bench_spread_permille(&s), 0);
	u64 zero[2] = { 0, 0 };
	s = bench_stats_of(zero, 2);
	CHECK_EQ(bench_spread_permille(&s), 0);
}

/*
 * asciiplot.c - per-block series as a character chart (contract in
 * include/lib/asciiplot.h).  Used by `bench zone_contig` and the host's
 * bench-zone_contig, so the kernel and the host draw the same picture.
 */
#include <lib/asciiplot.h>
#include <lib/median.h>
#include <lib/string.h>

#define COLUMN_SAMPLES	64	/* values a column's median is taken over, at most */

/*
 * The median of v[from, to), taken over at most COLUMN_SAMPLES values
 * evenly picked from it (a column of a chart wider than 64 values per
 * column is rare: 96 columns cover 6144 blocks).
 */
static u64 column_value(const u64 *v, u64 from, u64 to)
{
	u64 tmp[COLUMN_SAMPLES];
	u64 n = to - from, step = (n + COLUMN_SAMPLES - 1) / COLUMN_SAMPLES;
	unsigned k = 0;

	for (u64 i = from; i < to && k < COLUMN_SAMPLES; i += step)
		tmp[k++] = v[i];
	return median_u64(tmp, k);
}

/* An axis value in at most 6 characters: 950, 12.3K, 1.2M, 340M. */
static void axis_value(char *buf, size_t size, u64 v)
{
	static const char suffix[] = { 0, 'K', 'M', 'G', 'T' };
	struct buf_printer bp;
	u64 scale = 1;
	int s = 0;

	while (v >= scale * 1000 && s < 4) {
		scale *= 1000;
		s++;
	}
	buf_printer_init(&bp, buf, size);
	if (!s)
		pr_printf(&bp.p, "%llu", (unsigned long long)v);
	else if (v / scale >= 100)
		pr_printf(&bp.p, "%llu%c", (unsigned long long)(v / scale), suffix[s]);
	else
		pr_printf(&bp.p, "%llu.%01llu%c", (unsigned long long)(v / scale),
			  (unsigned long long)(v % scale * 10 / scale), suffix[s]);
}

void asciiplot(struct printer *p, const char *unit, const char *x_label,
	       const struct asciiplot_series *series, int nr, u64 n, unsigned width,
	       unsigned height)
{
	u64 col[ASCIIPLOT_MAX_SERIES][ASCIIPLOT_MAX_WIDTH];
	char row[ASCIIPLOT_MAX_WIDTH + 1], label[16];
	u64 top = 1, per_col;

	if (!n || nr < 1)
		return;
	nr = MIN(nr, ASCIIPLOT_MAX_SERIES);
	width = (unsigned)MIN((u64)MIN(MAX(width, 8u), (unsigned)ASCIIPLOT_MAX_WIDTH), n);
	height = MIN(MAX(height, 3u), (unsigned)ASCIIPLOT_MAX_HEIGHT);
	per_col = (n + width - 1) / width;
	width = (unsigned)((n + per_col - 1) / per_col);	/* no empty column at the end */
	for (int s = 0; s < nr; s++)
		for (unsigned c = 0; c < width; c++) {
			col[s][c] = column_value(series[s].v, c * per_col, MIN((c + 1) * per_col, n));
			top = MAX(top, col[s][c]);
		}

	pr_printf(p, "  %s ", unit);
	for (int s = 0; s < nr; s++)
		pr_printf(p, " %c = %s,", series[s].mark, series[s].name);
	pr_printf(p, " * = both (a column: the median of %llu %s%s)\n", (unsigned long long)per_col,
		  x_label, per_col > 1 ? "s" : "");
	for (unsigned r = height; r-- > 0;) {
		/* row r holds the values that round to r * top / (height - 1) */
		for (unsigned c = 0; c < width; c++) {
			row[c] = ' ';
			for (int s = 0; s < nr; s++) {
				unsigned at = (unsigned)((col[s][c] * (height - 1) + top / 2) / top);

				if (at == r)
					row[c] = row[c] == ' ' ? series[s].mark : '*';
			}
		}
		row[width] = 0;
		for (unsigned c = width; c > 0 && row[c - 1] == ' '; c--)
			row[c - 1] = 0;		/* no trailing blanks */
		label[0] = 0;
		if (r == height - 1 || r == 0 || r == (height - 1) / 2)
			axis_value(label, sizeof(label), top * r / (height - 1));
		pr_printf(p, "  %6s |%s\n", label, row);
	}
	memset(row, '-', width);
	row[width] = 0;
	pr_printf(p, "  %6s +%s\n", "", row);
	ksnprintf(label, sizeof(label), "%llu", (unsigned long long)(n - 1));
	pr_printf(p, "  %6s  %s 0%*s\n", "", x_label,
		  (int)MAX((long)width - (long)strlen(x_label) - 2, (long)strlen(label) + 1), label);
}

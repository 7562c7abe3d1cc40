/*
 * bench_out.h - what the host benchmarks write beside their printed
 * tables: CSV files for tools/bench_plot.py (`make bench` sets BENCH_OUT
 * to build/bench; without it nothing is written).
 *
 *   NAME.csv         one row per figure: figure,design,median,spread_pct,unit
 *                    (the median of the runs and half their range, as %
 *                    of it: as printed)
 *   NAME-series.csv  a per-block series: x,old,new
 *
 * Host only (stdio).  The QEMU half (tests/bench/qemu_bench.py) writes the
 * same two formats from the kernel's output.
 */
#ifndef BENCH_OUT_H
#define BENCH_OUT_H

#include <stdio.h>
#include <stdlib.h>
#include <lib/median.h>

/* $BENCH_OUT/name, opened for writing with its header line; NULL when
 * BENCH_OUT is unset (or the file cannot be made: said on stderr). */
static inline FILE *bench_out_open(const char *name, const char *header)
{
	const char *dir = getenv("BENCH_OUT");
	char path[512];
	FILE *f;

	if (!dir || !*dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return NULL;
	}
	fprintf(f, "%s\n", header);
	return f;
}

/* The figures file of a benchmark: NAME.csv. */
static inline FILE *bench_figures_open(const char *bench)
{
	char name[128];

	snprintf(name, sizeof(name), "%s.csv", bench);
	return bench_out_open(name, "figure,design,median,spread_pct,unit");
}

/* One figure: the stats of the runs divided by den (cycles per page, per
 * check, ...); the names quoted (they may hold commas, never quotes).
 * f may be NULL. */
static inline void bench_figure(FILE *f, const char *figure, const char *design,
				const struct bench_stats *s, double den, const char *unit)
{
	if (f)
		fprintf(f, "\"%s\",\"%s\",%.3f,%.1f,%s\n", figure, design, (double)s->median / den,
			bench_spread_permille(s) / 10.0, unit);
}

/* The spread printed beside a median: half the range, % of the median. */
static inline double bench_spread_pct(const struct bench_stats *s)
{
	return bench_spread_permille(s) / 10.0;
}

/* One printed figure: "  label   median unit (+-spread%)note". */
static inline void bench_print(const char *label, const struct bench_stats *s, double den,
			       const char *unit, const char *note)
{
	printf("  %-26s %8.2f %s (+-%.1f%%)%s\n", label, (double)s->median / den, unit,
	       bench_spread_pct(s), note);
}

#endif

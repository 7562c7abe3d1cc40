/*
 * median.h - the median and spread of a benchmark's runs, for the
 * in-kernel and host benchmarks (memmap init, contig free, auto-movable,
 * zone contiguity, first touch).
 *
 * Every figure a benchmark prints is a median of repeated runs, with its
 * spread beside it: the smallest and largest run, and the half-range as a
 * percentage of the median ("±3.1%": the runs lie within about 3% either
 * side).  A ratio whose spread is wider than the gap it shows is noise,
 * and a reader can see that without rerunning.
 */
#ifndef LIB_MEDIAN_H
#define LIB_MEDIAN_H

#include <lib/types.h>

/*
 * median_u64() - the median of v[0, n), n >= 1, sorting v in place: an
 * insertion sort, fine for the few dozen runs a benchmark makes.
 * Context: any.
 */
static inline u64 median_u64(u64 *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			u64 x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return v[n / 2];
}

/* The median of a set of runs and how far apart they lie. */
struct bench_stats {
	u64 median, min, max;
	unsigned n;		/* runs */
};

/*
 * bench_stats_of() - the median, min and max of v[0, n), n >= 1, sorting
 * v in place.  Context: any.
 */
static inline struct bench_stats bench_stats_of(u64 *v, unsigned n)
{
	struct bench_stats s;

	s.median = median_u64(v, n);
	s.min = v[0];
	s.max = v[n - 1];
	s.n = n;
	return s;
}

/*
 * bench_spread_permille() - half of max - min in thousandths of the
 * median (31 is printed "±3.1%").  Context: any.
 */
static inline unsigned bench_spread_permille(const struct bench_stats *s)
{
	u64 half = (s->max - s->min) * 500;

	return s->median ? (unsigned)((half + s->median / 2) / s->median) : 0;
}

/*
 * How every benchmark prints a spread: pr_printf(p, "x " BENCH_SPREAD_FMT,
 * BENCH_SPREAD_ARGS(bench_spread_permille(&s))) gives "x +-3.1%".
 */
#define BENCH_SPREAD_FMT	"+-%u.%u%%"
#define BENCH_SPREAD_ARGS(permille)	(unsigned)(permille) / 10, (unsigned)(permille) % 10

#endif

/*
 * median.h - the median of a benchmark's runs, for the in-kernel and host
 * benchmarks (memmap init, contig free, auto-movable).
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

#endif

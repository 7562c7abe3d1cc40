/*
 * asciiplot.h - a per-block series drawn as characters, for benchmarks
 * that print to the serial console (no graphics there): up to four
 * series of equal length on one chart, each with its own mark.
 *
 *   cycles/block  o = old, n = new, * = both (each column: the median of 8 blocks)
 *    1.22M |                                                      oooo
 *          |                                             ooooooooo
 *          ...
 *    0.12M |nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn
 *        0 +------------------------------------------------------------
 *           block 0                                                 479
 *
 * The y axis starts at 0 so that "flat" and "rising" look like what they
 * are; each column is the median of the values it covers, so one block
 * disturbed by an interrupt or the host does not draw a spike.
 */
#ifndef LIB_ASCIIPLOT_H
#define LIB_ASCIIPLOT_H

#include <lib/types.h>
#include <lib/printer.h>

#define ASCIIPLOT_MAX_SERIES	4
#define ASCIIPLOT_MAX_WIDTH	96	/* columns of the chart */
#define ASCIIPLOT_MAX_HEIGHT	24	/* rows of the chart */

struct asciiplot_series {
	const char *name;	/* in the legend: "o = old" */
	char mark;		/* its character; '*' marks a cell two series share */
	const u64 *v;		/* v[0, n) */
};

/*
 * asciiplot() - draw series[0, nr) (each n values, n >= 1) as a chart of
 * width x height characters (clamped to the maxima above) into p: a title
 * line (unit, legend, what a column is), the rows with the y value of the
 * top and bottom rows and of the middle one, the x axis labelled with
 * x_label and the first and last index.  Context: any; uses no memory
 * but its stack (a few hundred bytes).
 */
void asciiplot(struct printer *p, const char *unit, const char *x_label,
	       const struct asciiplot_series *series, int nr, u64 n, unsigned width,
	       unsigned height);

#endif

"""bench_csv.py - the CSV files the QEMU half of `make bench` writes from
what the kernel printed, in the formats of the host benchmarks
(tests/bench/bench_out.h), for tools/bench_plot.py:

  NAME.csv         figure,design,median,spread_pct,unit
  NAME-series.csv  x,<one column per series>

Written into $BENCH_OUT (make bench: build/bench); nothing without it.
stats() is the median and spread the kernel's benchmarks print, for the
figures the scripts measure themselves."""

import csv
import os


def _open(name):
    out = os.environ.get("BENCH_OUT")
    if not out:
        return None
    os.makedirs(out, exist_ok=True)
    return open(os.path.join(out, name), "w", newline="")


def figures(name, rows):
    """rows: (figure, design, median, spread_pct, unit) tuples."""
    f = _open(f"{name}.csv")
    if f:
        with f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["figure", "design", "median", "spread_pct", "unit"])
            for r in rows:
                w.writerow(r)


def series(name, columns, rows):
    """columns: the header (x first); rows: lists of numbers."""
    f = _open(f"{name}-series.csv")
    if f:
        with f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(columns)
            for r in rows:
                w.writerow(r)


def stats(values):
    """(median, spread %): the middle run, and half of max - min as % of
    it, as the kernel's benchmarks print them (lib/median.h)."""
    v = sorted(values)
    med = v[len(v) // 2]
    return med, (v[-1] - v[0]) * 50 / med if med else 0.0

"""bench_csv.py - the CSV files the QEMU half of `make bench` writes from
what the kernel printed, in the formats of the host benchmarks
(tests/bench/bench_out.h), for tools/bench_plot.py:

  NAME.csv         figure,design,median,spread_pct,unit
  NAME-series.csv  x,<one column per series>
  NAME.log         everything the script printed (tee(): a page can link
                   one benchmark's own output, not only make bench's whole
                   bench.log)

Written into $BENCH_OUT (make bench: build/bench); nothing without it.
stats() is the median and spread the kernel's benchmarks print, for the
figures the scripts measure themselves."""

import csv
import os
import subprocess
import sys
import time


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


class _Tee:
    def __init__(self, out, log):
        self.out, self.log = out, log

    def write(self, text):
        self.out.write(text)
        self.log.write(text)
        return len(text)

    def flush(self):
        self.out.flush()
        self.log.flush()


def tee(name, script):
    """From now on sys.stdout also goes to $BENCH_OUT/NAME.log, which starts
    with a line saying when, at which commit, on which CPU and under what
    load `script` ran; returns a function that adds the load after and
    closes it (nothing without BENCH_OUT)."""
    f = _open(f"{name}.log")
    if not f:
        return lambda: None
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=root, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.strip()
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as c:
            cpu = next((l.split(":", 1)[1].strip() for l in c if l.startswith("model name")), "?")
    except OSError:
        pass
    before = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    f.write(f"{script} run of {time.strftime('%a %b %d %H:%M:%S UTC %Y', time.gmtime())}, "
            f"commit {commit or '?'}, {cpu}, CPUs: {os.cpu_count()}, load average {before} "
            f"before\n")
    out = sys.stdout
    sys.stdout = _Tee(out, f)

    def close():
        after = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"(load average {after} after)")
        sys.stdout = out
        f.close()
    return close

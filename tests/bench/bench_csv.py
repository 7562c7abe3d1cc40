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
figures the scripts measure themselves.  Below them, what the virtio-mem
benchmarks (vmem_bench.py, lazyplug_bench.py) share: the guest, a
mechanism's design switch, the `bench touch` floor and the verdict word.
The scripts put tests/qemu on sys.path before importing this."""

import csv
import os
import re
import subprocess
import sys
import time

import memlab


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


def vmem_machine(iso, name, top_gib):
    """A 2 GiB q35 guest (maxmem top + 10 GiB) with one virtio-mem device
    vmem1 of top_gib GiB (a reserve=off backend) behind root port port1,
    not started."""
    return memlab.Machine(iso, name=name, mem=f"2G,maxmem={top_gib + 10}G", extra=[
        "-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1",
        "-object", f"memory-backend-ram,id=hotmem0,size={top_gib}G,share=on,reserve=off",
        "-device", "virtio-mem-pci,id=vmem1,memdev=hotmem0,bus=port1,requested-size=0"])


def set_design(m, mech, design):
    """`mech MECH DESIGN`, checked: MachineError unless the switch says so."""
    out = m.run(f"mech {mech} {design}")
    if not re.search(rf"{mech}: {design}\s*$", out):
        raise memlab.MachineError(f"mech {mech} {design}: {out}")


def bench_touch_ms(m, nbytes, addr):
    """`bench touch NBYTES ADDR` (printed with its output): the ms it took."""
    cmd = f"bench touch {nbytes} {addr:#x}"
    out = m.run(cmd, timeout=600 * memlab.SCALE)
    print(f"memlab> {cmd}\n{out}", end="", flush=True)
    t = re.search(r"in (\d+)\.(\d+) ms", out)
    if not t:
        raise memlab.MachineError(f"bench touch: {out}")
    return int(t.group(1)) + int(t.group(2)) / 1000


def verdict(ok):
    return "met" if ok else "NOT met"

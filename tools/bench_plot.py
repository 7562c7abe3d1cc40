#!/usr/bin/env python3
"""bench_plot.py - the pictures and tables of `make bench`.

The benchmarks write their figures and per-block series as CSV
(tests/bench/bench_out.h for the host programs, tests/bench/bench_csv.py
for the QEMU half):

  NAME.csv         figure,design,median,spread_pct,unit   one row per figure
  NAME-series.csv  x,<series>...                          one row per block

Usage:
  tools/bench_plot.py plot DIR        every CSV in DIR drawn as DIR/NAME.svg
                                      (python3-matplotlib: tools/deps.sh bench)
  tools/bench_plot.py docs DIR        replace docs/bench/ with DIR's CSVs,
                                      SVGs, run.txt (when, which commit,
                                      which CPU), bench.log (everything
                                      make bench printed) and NAME.log (one
                                      benchmark's own output), and regenerate
                                      every docs page's tables from them
  tools/bench_plot.py check           docs/: every generated table is what
                                      its CSV says, every embedded plot and
                                      every CSV it names exists (make test)

A generated table in a docs page sits between two comment lines,

  <!-- bench-table NAME -->
  | figure | old | new | ... |
  <!-- /bench-table -->

and is the markdown form of docs/bench/NAME.csv (medians with their
spread), so a number in the docs can only change by running the benchmark
again: `make bench && tools/bench_plot.py docs build/bench`.
"""

import csv
import glob
import os
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
DOCS_BENCH = os.path.join(DOCS, "bench")

# What each file shows, for the plot's title and axes.
TITLES = {
    "zone_contig-host": "Zone contiguity: online cost per block (host, 64 GiB in 512 blocks)",
    "zone_contig-qemu": "Zone contiguity: online cost per block (QEMU/TCG, 60 GiB DIMM)",
    "vmem_latency-qemu": "Console answer while virtio-mem plugs/unplugs 256 GiB (QEMU/TCG)",
    "memmap_init-host": "memmap init per struct page (host)",
    "memmap_init-qemu": "memmap init per struct page (QEMU/TCG, 4 GiB)",
    "free_contig_range-host": "free_contig_range of 16384 pages (host)",
    "free_contig_range-qemu": "free_contig_range of 16384 pages (QEMU/TCG)",
    "automovable-host": "auto-movable online check (host)",
    "automovable-qemu": "auto-movable online check (QEMU/TCG, 8 nodes)",
    "memory_core-host": "memory core (host)",
    "vmem-qemu": "virtio-mem plug and unplug vs the first-touch floor (QEMU/TCG)",
    "pmem-qemu": "devdax rebind of 100 GiB, align 2M and 4K: memmap init per design vs floors (QEMU/TCG)",
    "pmem_bytes-qemu": "devdax rebind of 100 GiB, align 2M: memmap bytes each design writes",
    "pmem_init-host": "devdax memmap init: instructions per struct page, per design (host, callgrind)",
    "pmem_init_compound-host": "devdax memmap init, 2 MiB compounds: instructions per compound (host, callgrind)",
    "boot-qemu": "Boot: to the prompt and to all memory initialised, per design (QEMU/TCG)",
    "bigboot-qemu": "Boot of large guests to the prompt, no command line (QEMU/TCG)",
}
SERIES_AXES = {
    "zone_contig": ("block onlined (the zone grows by 128 MiB each)", "cycles to online it"),
    "vmem_latency": ("seconds since qom-set requested-size", "answer to `uptime` (ms)"),
}
BEGIN = re.compile(r"^<!-- bench-table ([\w.-]+) -->$")
END = "<!-- /bench-table -->"


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(v):
    """A median as the tables print it: 3 significant digits, no exponent."""
    v = float(v)
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def table(rows):
    """The markdown table of a figures CSV: one row per figure, one column
    per design, each cell "median ±spread%", in the CSV's order; then a
    ratio column first-design/other for every design that shares a row
    with the first (old/new, kernel/floor: the numbers to quote)."""
    figures, designs, med, cell, units = [], [], {}, {}, {}
    for r in rows:
        if r["figure"] not in figures:
            figures.append(r["figure"])
        if r["design"] not in designs:
            designs.append(r["design"])
        med[(r["figure"], r["design"])] = float(r["median"])
        cell[(r["figure"], r["design"])] = f"{number(r['median'])} ±{float(r['spread_pct']):.1f}%"
        units[r["figure"]] = r["unit"]
    base = designs[0]
    ratios = [d for d in designs[1:] if any((f, base) in med and (f, d) in med for f in figures)]
    out = ["| figure | unit | " + " | ".join(designs + [f"{base}/{d}" for d in ratios]) + " |",
           "|---|---|" + "---|" * (len(designs) + len(ratios))]
    for f in figures:
        ratio = [f"{med[(f, base)] / med[(f, d)]:.2f}x" if (f, base) in med and (f, d) in med
                 and med[(f, d)] else "" for d in ratios]
        out.append(f"| {f} | {units[f]} | " +
                   " | ".join([cell.get((f, d), "") for d in designs] + ratio) + " |")
    return out


def regenerate(text, where):
    """text with every generated table rebuilt from docs/bench/NAME.csv;
    raises SystemExit naming the page and table when a CSV is missing or a
    block is not closed."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        out.append(lines[i])
        m = BEGIN.match(lines[i])
        i += 1
        if not m:
            continue
        path = os.path.join(DOCS_BENCH, m.group(1) + ".csv")
        if not os.path.exists(path):
            raise SystemExit(f"{where}: bench-table {m.group(1)}: no {os.path.relpath(path, ROOT)}")
        while i < len(lines) and lines[i] != END:
            i += 1
        if i == len(lines):
            raise SystemExit(f"{where}: bench-table {m.group(1)} is not closed by {END}")
        out += table(read_csv(path))
    return "\n".join(out)


def pages():
    return sorted(glob.glob(os.path.join(DOCS, "*.md")))


def check():
    """Exit 1 listing every generated table that differs from its CSV and
    every embedded docs/bench file that does not exist."""
    bad = []
    for page in pages():
        rel = os.path.relpath(page, ROOT)
        text = open(page).read()
        try:
            if regenerate(text, rel) != text:
                bad.append(f"{rel}: a bench-table differs from its docs/bench CSV "
                           f"(run tools/bench_plot.py docs build/bench after make bench)")
        except SystemExit as e:
            bad.append(str(e))
        for ref in re.findall(r"\]\((bench/[^)\s]+)\)", text):
            if not os.path.exists(os.path.join(DOCS, ref)):
                bad.append(f"{rel}: embeds {ref}, which does not exist")
    for svg in glob.glob(os.path.join(DOCS_BENCH, "*.svg")):
        if not os.path.exists(svg[:-4] + ".csv"):
            bad.append(f"{os.path.relpath(svg, ROOT)}: no CSV beside it to redraw it from")
    for b in bad:
        print(b)
    return 1 if bad else 0


def docs(src):
    """Copy src's CSVs and SVGs into docs/bench and regenerate the tables."""
    os.makedirs(DOCS_BENCH, exist_ok=True)
    n = 0
    if not os.path.exists(os.path.join(src, "run.txt")):
        raise SystemExit(f"bench_plot: {src} has no run.txt: run make bench first")
    for old in glob.glob(os.path.join(DOCS_BENCH, "*")):
        os.remove(old)          # one run: nothing left from an earlier one
    for f in sorted(glob.glob(os.path.join(src, "*.csv")) + glob.glob(os.path.join(src, "*.svg")) +
                    glob.glob(os.path.join(src, "*.log")) + [os.path.join(src, "run.txt")]):
        shutil.copy(f, DOCS_BENCH)
        n += 1
    for page in pages():
        text = open(page).read()
        new = regenerate(text, os.path.relpath(page, ROOT))
        if new != text:
            with open(page, "w") as f:
                f.write(new)
            print(f"bench_plot: {os.path.relpath(page, ROOT)}: tables regenerated")
    print(f"bench_plot: {n} files copied into docs/bench")
    return 0


def plot(src):
    try:
        import matplotlib
    except ImportError:
        print("bench_plot: python3-matplotlib is not installed: run tools/deps.sh bench "
              "(as root, or: sudo apt-get install python3-matplotlib)", file=sys.stderr)
        return 1
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # the same CSV gives the same SVG: no date, fixed ids, text as paths
    matplotlib.rcParams.update({"svg.hashsalt": "memlab", "svg.fonttype": "path",
                                "font.size": 9})
    meta = {"Date": None, "Creator": "memlab tools/bench_plot.py"}
    for path in sorted(glob.glob(os.path.join(src, "*.csv"))):
        name = os.path.basename(path)[:-4]
        rows = read_csv(path)
        if not rows:
            continue
        if name.endswith("-series"):
            base = name[:-len("-series")]
            fig, ax = plt.subplots(figsize=(7, 3.6))
            cols = [c for c in rows[0] if c != "x"]
            for c in cols:
                pts = [(float(r["x"]), float(r[c])) for r in rows if r[c] != ""]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label=c,
                        marker="." if base.startswith("vmem") else None, linewidth=1)
            xl, yl = SERIES_AXES.get(base.split("-")[0], ("x", "y"))
            ax.set_xlabel(xl)
            ax.set_ylabel(yl)
            ax.set_ylim(bottom=0)
            ax.set_title(TITLES.get(base, base))
            ax.legend()
            out = os.path.join(src, name + ".svg")
        else:
            figures = list(dict.fromkeys(r["figure"] for r in rows))
            designs = list(dict.fromkeys(r["design"] for r in rows))
            fig, ax = plt.subplots(figsize=(7, 1.5 + 0.45 * len(figures)))
            present = {f: [d for d in designs if any(r["figure"] == f and r["design"] == d
                                                     for r in rows)] for f in figures}
            h = 0.8 / max(len(v) for v in present.values())
            colors = {d: f"C{k % 10}" for k, d in enumerate(designs)}
            labelled = set()
            for i, f in enumerate(figures):
                for k, d in enumerate(present[f]):
                    r = [r for r in rows if r["figure"] == f and r["design"] == d][0]
                    med = float(r["median"])
                    ax.barh(i + (k - (len(present[f]) - 1) / 2) * h, med, height=h,
                            xerr=med * float(r["spread_pct"]) / 100, capsize=2, color=colors[d],
                            label=None if d in labelled else d)
                    labelled.add(d)
            ax.set_yticks(range(len(figures)))
            ax.set_yticklabels(figures)
            ax.invert_yaxis()
            ax.set_xlabel(", ".join(dict.fromkeys(r["unit"] for r in rows)) +
                          "  (bar: median; whisker: half the runs' range)")
            ax.set_title(TITLES.get(name, name))
            ax.legend()
            out = os.path.join(src, name + ".svg")
        fig.tight_layout()
        fig.savefig(out, format="svg", metadata=meta)
        plt.close(fig)
        print(f"bench_plot: {os.path.relpath(out, ROOT) if out.startswith(ROOT) else out}")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "plot":
        return plot(argv[2])
    if len(argv) == 3 and argv[1] == "docs":
        return docs(argv[2])
    if len(argv) == 2 and argv[1] == "check":
        return check()
    print(__doc__.split("\n\n")[2], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

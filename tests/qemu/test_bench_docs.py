"""The measurements in docs/ are one `make bench` run's.

tools/bench_plot.py turns the CSV files `make bench` writes into SVG
plots and markdown tables; `make bench-docs` copies one run into
docs/bench/ and regenerates every page's `<!-- bench-table NAME -->`
block. These tests need no machine and no matplotlib: they check that the
committed tables are still what the committed CSVs say (so a hand edit, or
a CSV from a new run without `make bench-docs`, fails), that every plot a
page embeds exists with the CSV it was drawn from, and the table format
itself.
"""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import bench_plot  # noqa: E402


def test_docs_tables_and_plots_match_the_committed_run():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "bench_plot.py"), "check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_mechanism_page_embeds_a_plot_and_a_generated_table():
    for page in ("zone-contiguity.md", "memmap-init.md", "contig-free.md", "auto-movable.md",
                 "virtio-mem.md", "memory-core.md", "pmem.md"):
        text = open(os.path.join(ROOT, "docs", page)).read()
        assert "](bench/" in text and ".svg)" in text, f"docs/{page} embeds no plot"
        assert "<!-- bench-table " in text, f"docs/{page} has no generated table"
    run = open(os.path.join(ROOT, "docs", "bench", "run.txt")).read().splitlines()
    assert len(run) == 3 and run[0].endswith("UTC") and "CPUs:" in run[2], run


def test_table_is_medians_with_spreads_per_design(tmp_path, monkeypatch):
    rows = [{"figure": "8 nodes", "design": "old", "median": "2012", "spread_pct": "8.5",
             "unit": "cycles/check"},
            {"figure": "8 nodes", "design": "new", "median": "540.25", "spread_pct": "17.04",
             "unit": "cycles/check"},
            {"figure": "1 node", "design": "new", "median": "5.126", "spread_pct": "0",
             "unit": "cycles/check"}]
    assert bench_plot.table(rows) == [
        "| figure | unit | old | new | old/new |",
        "|---|---|---|---|---|",
        "| 8 nodes | cycles/check | 2012 ±8.5% | 540 ±17.0% | 3.72x |",
        "| 1 node | cycles/check |  | 5.13 ±0.0% |  |",
    ]
    # a page's block is rebuilt from docs/bench/NAME.csv; a missing CSV or
    # an unclosed block is an error naming the page
    monkeypatch.setattr(bench_plot, "DOCS_BENCH", str(tmp_path))
    (tmp_path / "x.csv").write_text("figure,design,median,spread_pct,unit\n"
                                    "a,old,1.5,2,ms\n")
    page = "intro\n<!-- bench-table x -->\n| stale |\n<!-- /bench-table -->\nend"
    assert bench_plot.regenerate(page, "p.md") == (
        "intro\n<!-- bench-table x -->\n| figure | unit | old |\n|---|---|---|\n"
        "| a | ms | 1.50 ±2.0% |\n<!-- /bench-table -->\nend")
    for bad in ("<!-- bench-table y -->\n<!-- /bench-table -->", "<!-- bench-table x -->\n| a |"):
        try:
            bench_plot.regenerate(bad, "p.md")
        except SystemExit as e:
            assert "p.md: bench-table" in str(e)
        else:
            raise AssertionError(f"accepted {bad!r}")

#!/usr/bin/env python3
"""pmem_bench.py - the persistent-memory part of `make bench`: the seed's
procedure.  Li Zhe's series timed memmap_init_zone_device() over 30
unbind/bind cycles of a 100 GiB devdax namespace (align 2 MiB) in an Ice
Lake VM: 191.20 ms per page, 176.87 ms with the templates (7.5%).  Here:

One q35 guest with an NVDIMM (`-machine nvdimm=on`, a 100 GiB
memory-backend-ram with reserve=off: the namespace's memory is never
touched, its memmap is in guest RAM, Linux's --map=mem, 1.6 GiB of it,
so the guest gets 2 GiB plus room for that), and at the console:

  nd create-namespace --mode=devdax --align=2M
  nd rebind dax0.0 DESIGN      for each of old (per page), head-template
                               (the seed's first step: heads only), new
                               (head and tail templates), template-nt (the
                               same with movnti) and shared (the shared
                               vmemmap: 128 of 512 struct pages), one
                               after the other,
                               CYCLES times round (a change of the host's
                               load falls on every design alike; switching
                               to and from shared maps the vmemmap again,
                               outside the timed init)
  nd floor dax0.0              in the first FLOORS rounds, after
                               template-nt and after shared: streaming
                               stores of the bytes that layout's designs
                               write (full: all of the memmap; shared: the
                               heads and first tails), timed the same way

  nd destroy-namespace, nd create-namespace --mode=devdax --align=4K
                               and the same round-robin rebinds and
                               floors without shared (4 KiB pages have no
                               tails to share): every page is its own
                               head, as in the seed's fsdax rebind, so
                               the head template writes every struct
                               page here where at 2M it writes one in 512

Each rebind prints the cycles of the memmap init alone (devmem_rebind());
cycles become ms through the TSC frequency the kernel measured at boot
("tsc: N MHz").  Printed per design: median, mean and spread (half of
max - min, % of the median) over the cycles, the ratio of per page's
median to its, and its ratio to the floor of its bytes; then the seed's
figures beside memlab's.  Then the same comparisons paired: each cycle
runs every design back to back, so the ratio of two designs' times in one
cycle cancels the host's load drift between cycles; printed per pair, the
median of the per-cycle ratios and in how many cycles the faster design
won, with a one-sided sign test (p < 0.05: "faster"; otherwise "not
significantly faster").  The timing target (head+tail templates faster
than the head template faster than per page) is judged on these pairs:
new against head-template at 2M, head-template against old at 2M and at
4K (at 2M the head template changes one struct page in 512, a gain below
the cycles' noise; at 4K it changes them all).
Beside it, the deterministic verdict in instructions of the host half,
build/bench-pmem_init (tests/bench/bench_pmem_init.c), read from
$BENCH_OUT/pmem_init_compound-host.csv when make bench ran it first.
Under TCG a cycle is a host TSC tick spent emulating: the ratios mean
"work the guest needed", not what real hardware takes; the seed's
milliseconds are printed for reference, not compared.  It never fails on a number; it exits non-zero only if the
guest or a command failed.

Environment: PMEM_BENCH_GIB (default 100), PMEM_BENCH_CYCLES (default 30),
PMEM_BENCH_FLOORS (default 5).  With BENCH_OUT set (make bench) the figures
are written there as pmem-qemu.csv (times) and pmem_bytes-qemu.csv (the
memmap bytes each design wrote), and everything printed as pmem-qemu.log
(tests/bench/bench_csv.py), which `make bench-docs` copies into
docs/bench with the rest of the run.

Usage: tests/bench/pmem_bench.py
"""

import csv
import math
import os
import re
import statistics
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qemu"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import memlab  # noqa: E402
import bench_csv  # noqa: E402

GIB = int(os.environ.get("PMEM_BENCH_GIB", "100"))
CYCLES = int(os.environ.get("PMEM_BENCH_CYCLES", "30"))
FLOORS = int(os.environ.get("PMEM_BENCH_FLOORS", "5"))
DESIGNS = ("old", "head-template", "new", "template-nt", "shared")
DESIGNS_4K = ("old", "head-template", "new", "template-nt")   # no compounds: nothing to share
NAMES = {"old": "per page", "head-template": "head template", "new": "head+tail templates",
         "template-nt": "templates, movnti", "shared": "shared vmemmap"}
SEED_MS = {"old": 191.20, "new": 176.87}
REBIND = re.compile(r"dax0\.0: rebind \(([\w-]+)\): (\d+) struct pages in (\d+) cycles "
                    r"\(\d+ cycles/page\), (\d+) KiB of memmap written")
FLOOR = re.compile(r"dax0\.0: floor: (\d+) KiB of memmap streamed \(non-temporal stores\) in "
                   r"(\d+) cycles")


def run(m, cmd, pattern):
    out = m.run(cmd, timeout=3600 * memlab.SCALE)
    r = pattern.search(out)
    if not r:
        raise memlab.MachineError(f"{cmd}: {out}")
    return r


def stats(values):
    med, spread = bench_csv.stats(values)
    return med, statistics.fmean(values), spread


def sign_p(k, n):
    """One-sided sign test: the chance of k or more of n paired cycles going
    one way if neither design were faster."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n


def paired(slow, fast):
    """The cycles' times of two designs, cycle by cycle: (median of
    slow[c] / fast[c], cycles in which fast took less time, cycles, word):
    word "faster" (fast won significantly), "SLOWER" (it lost
    significantly) or "not significantly faster"."""
    r = [a / b for a, b in zip(slow, fast)]
    won, n = sum(1 for x in r if x > 1), len(r)
    lost = sum(1 for x in r if x < 1)
    med = statistics.median(r)
    word = ("faster" if med > 1 and sign_p(won, n) < 0.05 else
            "SLOWER" if med < 1 and sign_p(lost, n) < 0.05 else "not significantly faster")
    return med, won, n, word


def print_pairs(cycles, pairs):
    """paired() of each (slow, fast) of PAIRS over CYCLES, one line each;
    returns the word of each pair."""
    words = {}
    for slow, fast in pairs:
        med, won, n, word = paired(cycles[slow], cycles[fast])
        words[(slow, fast)] = word
        print(f"  {slow + ' / ' + fast:28} median {med:.4f}x; {fast} took less time in {won} of "
              f"{n} cycles (sign test p {sign_p(won, n):.3g}): {fast} {word} than {slow}")
    return words


def host_instructions():
    """The host half's verdict in instructions (bench_pmem_init.c's figures
    in $BENCH_OUT/pmem_init_compound-host.csv, compound order 9), or where
    to get it."""
    path = os.path.join(os.environ.get("BENCH_OUT", ""), "pmem_init_compound-host.csv")
    if not os.environ.get("BENCH_OUT") or not os.path.exists(path):
        return ("not in this run's BENCH_OUT (make bench runs build/bench-pmem_init before this "
                "script; or run it: make build/bench-pmem_init && build/bench-pmem_init)")
    with open(path, newline="") as f:
        per = {r["design"]: float(r["median"]) for r in csv.DictReader(f)
               if r["figure"] == "order 9, instructions per compound"}
    if not all(d in per for d in ("old", "head-template", "new")):
        return f"{path} has no order 9 instructions per compound"
    ok = per["new"] < per["head-template"] < per["old"]
    return (f"{'holds' if ok else 'does NOT hold'} (instructions per 2 MiB compound: old "
            f"{per['old']:.1f}, head-template {per['head-template']:.1f}, new {per['new']:.1f}; "
            f"the head template {per['old'] - per['head-template']:.1f} fewer per head, "
            f"{(per['old'] - per['head-template']) / per['old'] * 100:.3f}% of a compound)")


def phase(m, align, designs, mhz):
    """One namespace of the NVDIMM with ALIGN, CYCLES round-robin rebinds of
    each of DESIGNS (a change of the host's load falls on every design
    alike), and in the first FLOORS rounds the floor after template-nt and
    after shared (in the layout just used).  Returns (cycles per design,
    memmap KiB per design, struct pages, floors per layout as (cycles, KiB))."""
    cmd = f"nd create-namespace --mode=devdax --align={align}"
    out = m.run(cmd, timeout=3600 * memlab.SCALE)
    print(f"memlab> {cmd}\n{out}", end="", flush=True)
    if "devdax" not in out:
        raise memlab.MachineError(out)
    cycles, kib, pages = {d: [] for d in designs}, {}, 0
    floors = {"full": [], "shared": []}
    for c in range(CYCLES):
        for d in designs:
            r = run(m, f"nd rebind dax0.0 {d}", REBIND)
            pages, kib[d] = int(r.group(2)), int(r.group(4))
            cycles[d].append(int(r.group(3)))
            if c < FLOORS and d in ("template-nt", "shared"):
                r = run(m, "nd floor dax0.0", FLOOR)
                floors["shared" if d == "shared" else "full"].append(
                    (int(r.group(2)), int(r.group(1))))
        print(f"  align {align} cycle {c + 1:2}: " + ", ".join(
            f"{d} {cycles[d][-1] / mhz / 1000:.1f} ms" for d in designs), flush=True)
    return cycles, kib, pages, floors


def main():
    close = bench_csv.tee("pmem-qemu", "pmem_bench.py")
    try:
        return run_bench()
    finally:
        close()


def run_bench():
    iso = memlab.make_iso(memlab.build_kernel(), "")
    ram = 2 + (GIB + 31) // 32          # boot RAM plus the memmap (1/64), twice for a relayout
    m = memlab.Machine(iso, name="pmem-bench", mem=f"{ram}G,slots=4,maxmem={GIB + ram + 8}G",
                       extra=["-machine", "nvdimm=on",
                              "-object", f"memory-backend-ram,id=nv0,size={GIB}G,reserve=off",
                              "-device", "nvdimm,id=nvdimm0,memdev=nv0"])
    t_start = time.monotonic()
    try:
        m.start()
        m.wait_boot()
        mhz = float(re.search(r"tsc: (\d+\.\d+) MHz", m.output).group(1))
        print(f"memlab pmem benchmark: the seed's procedure (TCG, -m {ram}G, a {GIB} GiB "
              f"NVDIMM, reserve=off), devdax align 2M then 4K, {CYCLES} rebinds per design, "
              f"{FLOORS} floors per layout; TSC {mhz:.3f} MHz\n", flush=True)
        cycles, kib, pages, floors = phase(m, "2M", DESIGNS, mhz)
        m.run("nd destroy-namespace namespace0.0", timeout=600 * memlab.SCALE)
        cycles4k, _, pages4k, floors4k = phase(m, "4K", DESIGNS_4K, mhz)
    except (memlab.MachineError, memlab.HarnessError, IndexError, AttributeError) as e:
        print(f"\npmem_bench: {type(e).__name__}: {e}\n--- last serial lines ---\n{m.tail()}",
              file=sys.stderr)
        return 1
    finally:
        m.kill()

    ms = {d: stats(cycles[d]) for d in DESIGNS}
    fl = {k: stats([c for c, _ in v]) for k, v in floors.items()}
    fl_kib = {k: v[0][1] for k, v in floors.items()}
    base = ms["old"][0]
    print(f"\nmemmap_init_zone_device() of a {GIB} GiB devdax namespace ({pages} struct pages, "
          f"compounds of 2 MiB), {CYCLES} rebinds per design (wall {time.monotonic() - t_start:.0f} s):")
    print(f"  {'design':34} {'median ms':>10} {'mean ms':>10} {'spread':>8} {'KiB':>9} "
          f"{'per page/it':>11} {'it/floor':>9}")
    rows = []
    for d in DESIGNS:
        med, mean, spread = ms[d]
        layout = "shared" if d == "shared" else "full"
        print(f"  {d + ' (' + NAMES[d] + ')':34} {med / mhz / 1000:10.2f} {mean / mhz / 1000:10.2f} "
              f"{spread:7.1f}% {kib[d]:9} {base / med:10.2f}x {med / fl[layout][0]:8.2f}x")
        rows.append((f"{GIB} GiB rebind", d, round(med / mhz / 1000, 2), round(spread, 1), "ms"))
    for layout in ("full", "shared"):
        med, mean, spread = fl[layout]
        print(f"  {'floor, ' + layout + ' layout (movnti)':34} {med / mhz / 1000:10.2f} "
              f"{mean / mhz / 1000:10.2f} {spread:7.1f}% {fl_kib[layout]:9} {base / med:10.2f}x")
        rows.append((f"{GIB} GiB rebind", f"floor {layout}", round(med / mhz / 1000, 2),
                     round(spread, 1), "ms"))
    bench_csv.figures("pmem_bytes-qemu", [(f"{GIB} GiB rebind, memmap written", d, kib[d], 0,
                                           "KiB") for d in DESIGNS])
    gain = (1 - ms["new"][0] / base) * 100
    print(f"\nthe seed (Ice Lake VM, 100 GiB, 30 rebinds, mean): per page {SEED_MS['old']:.2f} ms, "
          f"templates {SEED_MS['new']:.2f} ms ({(1 - SEED_MS['new'] / SEED_MS['old']) * 100:.1f}% "
          f"less time); memlab here (TCG, {GIB} GiB, medians): templates {abs(gain):.1f}% "
          f"{'less' if gain >= 0 else 'more'} time than per page, per page taking "
          f"{base / fl['full'][0]:.2f}x its floor's time, shared vmemmap {base / ms['shared'][0]:.2f}x faster than per page "
          f"writing {kib['old'] / kib['shared']:.0f}x fewer bytes")
    print(f"\npaired, cycle by cycle ({CYCLES} cycles, every design back to back in each):")
    pairs = print_pairs(cycles, (("old", "head-template"), ("head-template", "new"), ("old", "new"),
                                 ("new", "template-nt"), ("old", "shared")))
    ms4 = {d: stats(cycles4k[d]) for d in DESIGNS_4K}
    fl4 = stats([c for c, _ in floors4k["full"]])
    base4 = ms4["old"][0]
    print(f"\nthe same namespace with align 4K ({pages4k} struct pages, each page its own head, as "
          f"the seed's fsdax rebind with one page per compound): the head template writes every "
          f"struct page, and new is the head template (there are no tails); {CYCLES} rebinds per "
          f"design:")
    print(f"  {'design':34} {'median ms':>10} {'mean ms':>10} {'spread':>8} {'per page/it':>11} "
          f"{'it/floor':>9}")
    for d in DESIGNS_4K:
        med, mean, spread = ms4[d]
        print(f"  {d + ' (' + NAMES[d] + ')':34} {med / mhz / 1000:10.2f} {mean / mhz / 1000:10.2f} "
              f"{spread:7.1f}% {base4 / med:10.2f}x {med / fl4[0]:8.2f}x")
        rows.append((f"{GIB} GiB rebind, align 4K", d, round(med / mhz / 1000, 2), round(spread, 1),
                     "ms"))
    med, mean, spread = fl4
    print(f"  {'floor (movnti)':34} {med / mhz / 1000:10.2f} {mean / mhz / 1000:10.2f} "
          f"{spread:7.1f}% {base4 / med:10.2f}x")
    rows.append((f"{GIB} GiB rebind, align 4K", "floor full", round(med / mhz / 1000, 2),
                 round(spread, 1), "ms"))
    bench_csv.figures("pmem-qemu", rows)
    pairs4 = print_pairs(cycles4k, (("old", "head-template"), ("old", "new"),
                                    ("head-template", "new")))
    tails_ok = pairs[("head-template", "new")] == "faster"
    head2m_ok = pairs[("old", "head-template")] == "faster"
    head4k_ok = pairs4[("old", "head-template")] == "faster"
    print("\ntargets, this run: head+tail templates faster than head template faster than per page "
          f"(paired cycles): align 2M: new faster than head-template {'met' if tails_ok else 'NOT met'}, "
          f"head-template faster than old {'met' if head2m_ok else 'NOT met'}; align 4K (the head "
          f"template on every page): head-template faster than old "
          f"{'met' if head4k_ok else 'NOT met'}; in instructions on the host (deterministic, "
          f"align 2M): {host_instructions()}; "
          f"shared >= 3x per page: {'met' if base >= 3 * ms['shared'][0] else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

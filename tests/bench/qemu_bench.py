#!/usr/bin/env python3
"""qemu_bench.py - the QEMU half of `make bench`: the in-kernel benchmarks
of the four mechanisms (`bench NAME`), old vs new in one run, on the real ISO under TCG.

One q35 guest (`-m 2G,slots=8,maxmem=64G`, eight NUMA nodes of 256 MiB,
`cma=64M` on the command line) does what a user would type at the serial
console and over QMP:

  bench automovable           the auto-movable online check, zone walk vs
                              cache, with 8 online nodes (the published case)
  bench free_contig_range 16384 REPS
                              free_contig_range of 16384 CMA pages: per page
                              vs batched (and frozen)
  (QMP) object-add memory-backend-ram + device_add pc-dimm, 60 GiB (about
        as much as maxmem=64G leaves: the largest zone this guest can grow), left
        offline (auto_online_blocks = offline)
  bench memmap_init START 4G REPS
                              memmap init on the offline DIMM: per page vs
                              template vs template-nt, beside memset and a
                              movnti stream of the same bytes
  bench zone_contig series    online the DIMM's blocks one after another,
                              pageblock walk vs counter (the per-block
                              series goes to the CSV, the chart is printed)

Under TCG a cycle is a host TSC tick spent emulating: the ratios mean
"instructions the guest needed", not what real hardware would take.  The
script prints every table as the kernel printed it, then one verdict line
per target.  It never fails on a number (these are measurements,
not tests); it exits non-zero only if the guest or a command failed.

Usage: tests/bench/qemu_bench.py [REPS]   (default 9, at most 41)
"""

import os
import re
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qemu"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import memlab  # noqa: E402
import bench_csv  # noqa: E402

MEMDIR = "/sys/devices/system/memory"
OST_DEVICE_CHECK = 1
DIMM_START = 0x100000000     # the first hot-added DIMM on q35 with -m 2G
DIMM_SIZE = 60 << 30
BENCH_SIZE = 4 << 30         # 1048576 struct pages, 64 MiB of memmap
NUMA8 = [a for n in range(8) for a in (
    "-object", f"memory-backend-ram,id=nm{n},size=256M",
    "-numa", f"node,nodeid={n},memdev=nm{n}")]


def sh(m, cmd, timeout):
    out = m.run(cmd, timeout=timeout)
    # the per-block rows of `bench zone_contig series` go to the CSV only
    shown = "".join(line for line in out.splitlines(keepends=True)
                    if not line.startswith("  series "))
    print(f"memlab> {cmd}\n{shown}", end="" if shown.endswith("\n") else "\n", flush=True)
    return out


def write_csv(devmem, contig_free, contig_online, automovable):
    """The figures and the per-block series, as CSV for tools/bench_plot.py."""
    bench = memlab.parse_memmap_bench(devmem)
    rows = []
    for kind, cells in bench["rows"].items():
        for design, cell, spread in zip(("old", "template", "template-nt"), cells[:3],
                                        bench["spreads"][kind]):
            rows.append((f"{kind}, 4 GiB cold", design, cell, spread, "cycles/page"))
    for limit, spread in zip(("memset", "stream", "stores"), bench["limit_spreads"]):
        rows.append(("limits, 4 GiB cold", {"stream": "movnti stream", "stores": "8-byte stores"}
                     .get(limit, limit), bench[limit], spread, "cycles/page"))
    bench_csv.figures("memmap_init-qemu", rows)
    rows = []
    for name, cell, spread in re.findall(
            r"^  (old|new|frozen old|frozen new|memset)[^\n]*?\s+([\d.]+)\s+[\d.]+\s+\+-([\d.]+)%$",
            contig_free, re.M):
        group = "frozen" if name.startswith("frozen") else "limits" if name == "memset" else \
            "refcounted"
        rows.append((group, name.split()[-1], float(cell), float(spread), "cycles/page"))
    bench_csv.figures("free_contig_range-qemu", rows)
    rows = [("8 nodes", {"walk": "old", "cached": "new"}[d], int(med), float(sp), "cycles/check")
            for d, med, sp in re.findall(r"^  (walk|cached)\s+(\d+) cycles/check \(\+-([\d.]+)%",
                                         automovable, re.M)]
    bench_csv.figures("automovable-qemu", rows)
    rows = []
    for design, n, first, fsp, last, lsp in re.findall(
            r"^  (old|new)\s+\d+ cycles, first (\d+) blocks\s+(\d+) \+-([\d.]+)%, last \d+\s+(\d+) "
            r"\+-([\d.]+)%", contig_online, re.M):
        rows.append((f"first {n} blocks", design, int(first), float(fsp), "cycles/block"))
        rows.append((f"last {n} blocks", design, int(last), float(lsp), "cycles/block"))
    bench_csv.figures("zone_contig-qemu", rows)
    bench_csv.series("zone_contig-qemu", ["x", "old", "new"],
                     [[int(v) for v in r] for r in
                      re.findall(r"^  series (\d+) (\d+) (\d+)$", contig_online, re.M)])


def plug_offline_dimm(m):
    sh(m, f"echo offline > {MEMDIR}/auto_online_blocks", 30)
    q = m.qmp()
    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": "mem-b1",
                           "size": DIMM_SIZE, "reserve": False})
    q.cmd("device_add", driver="pc-dimm", id="b1", memdev="mem-b1")
    print(f"(QMP) object-add memory-backend-ram id=mem-b1 size={DIMM_SIZE >> 30}G; "
          "device_add pc-dimm id=b1", flush=True)
    deadline = time.monotonic() + 120 * memlab.SCALE
    while True:
        info = q.wait_event("ACPI_DEVICE_OST", timeout=deadline - time.monotonic())["data"]["info"]
        if info.get("device") == "b1" and info["source"] == OST_DEVICE_CHECK:
            if info["status"] != 0:
                raise SystemExit(f"DIMM hot-add failed: _OST {info}")
            return


def verdicts(devmem, contig_free, contig_online, automovable):
    print("\nmechanism targets, this run (TCG; the memmap limit is the cheaper of memset\n"
          "and the movnti stream: TCG runs rep stosq an iteration at a time):")
    bench = memlab.parse_memmap_bench(devmem)
    limit = min(bench["memset"], bench["stream"])   # the cheapest way to write the same bytes
    for name, (old, new, nt, _, _) in bench["rows"].items():
        design, best = ("template-nt", nt) if nt < new else ("template", new)
        wins, reps, _, verdict = bench["signs"][(name, design)]
        ratio = bench["rows"][name][4 if design == "template-nt" else 3]
        said = {"faster": "faster than", "SLOWER": "SLOWER than"}.get(
            verdict, "NOT significantly faster than")
        print(f"  memmap init, {name}: {design} {said} per-page ({ratio:.2f}x, "
              f"{wins} of {reps} runs); {best / limit:.2f}x the limit: "
              f"{'within' if best <= 1.5 * limit else 'NOT within'} 1.5x")
    m = re.search(r"speedup new/old ([\d.]+)x", contig_free)
    f = re.search(r"frozen new/old ([\d.]+)x", contig_free)
    print(f"  batched free 16384 pages: {m.group(1)}x, frozen {f.group(1)}x "
          f"(target >= 3.5x: {'met' if float(m.group(1)) >= 3.5 else 'NOT met'})")
    lf = re.findall(r"^  (old|new) .*last/first ([\d.]+)", contig_online, re.M)
    for design, ratio in lf:
        print(f"  online per-block cost last/first, {design}: {ratio}"
              + (f" (target <= 1.2: {'met' if float(ratio) <= 1.2 else 'NOT met'})"
                 if design == "new" else ""))
    a = re.search(r"speedup ([\d.]+)x", automovable)
    nodes = int(re.search(r"(\d+) online node", automovable).group(1))
    print(f"  auto-movable check, {nodes} nodes: walk/cached {a.group(1)}x"
          + (f" (target >= 5x: {'met' if float(a.group(1)) >= 5 else 'NOT met'})"
             if nodes == 8 else " (the target, >= 5x, is for 8 nodes)"))


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    iso = memlab.make_iso(memlab.build_kernel(), "cma=64M")
    m = memlab.Machine(iso, name="qemu-bench", mem="2G,slots=8,maxmem=64G", extra=NUMA8)
    try:
        m.start()
        m.wait_boot()
        print(f"memlab QEMU benchmarks (TCG, -m 2G,slots=8,maxmem=64G, 8 NUMA nodes, cma=64M), "
              f"{reps} runs\n")
        automovable = sh(m, "bench automovable", 300 * memlab.SCALE)
        contig_free = sh(m, f"bench free_contig_range 16384 {reps}", 600 * memlab.SCALE)
        plug_offline_dimm(m)
        devmem = sh(m, f"bench memmap_init {DIMM_START:#x} {BENCH_SIZE >> 30}G {reps}",
                    1200 * memlab.SCALE)
        contig_online = sh(m, "bench zone_contig series", 1200 * memlab.SCALE)
        verdicts(devmem, contig_free, contig_online, automovable)
        write_csv(devmem, contig_free, contig_online, automovable)
    except (memlab.MachineError, memlab.HarnessError, AttributeError) as e:
        print(f"\nqemu_bench: {type(e).__name__}: {e}\n--- last serial lines ---\n{m.tail()}",
              file=sys.stderr)
        return 1
    finally:
        m.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())

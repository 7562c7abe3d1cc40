#!/usr/bin/env python3
"""smp_bench.py - the SMP part of `make bench`: deferred memmap init of
boot memory (docs/deferred-init.md) with 1 and with 2 vCPUs, under
multi-threaded TCG (-accel tcg,thread=multi: one host thread per vCPU).

Each guest is q35 with SMP_BENCH_GIB GiB (default 256) of boot RAM in
one memory-backend-ram with reserve=off (the host commits only what the
guest touches), default command line (deferred_init=new, background on):
with one vCPU CPU 0's slices initialise every pending section between the
console's turns; with two, CPU 1's work item (kernel/meminit_cpus.c)
claims the node's sections beside them.  Booted SMP_BENCH_REPS times
(default 3) per vCPU count, in rounds that boot each once (the host's
speed drifts over the minutes of a run; rounds spread the drift over
both alike), measuring

  all memory   the kernel's own "deferred init: boot memory's memmap
               complete after N ms": from the start of the background
               work, after the prompt, to the last section handed over
  by CPU       the sections each CPU initialised (the log's line)

Then the eager virtio-mem plug (deferred_init_hotplug=0: the memmap of
each onlined block written before its pages go to the buddy) of
SMP_BENCH_PLUG_GIB GiB (default 256, a private reserve=off backend) into
a 2 GiB guest, with 1 and with 2 vCPUs: each block's memmap is split over
CPU 0 and the idle APs (mm/memmap_cpus.c).  Each guest plugs into fresh
host memory (cold: the host's first-touch faults of the memmap's pages
dominate), unplugs, and plugs again (warm: the guest's own work); the
2-vCPU guest then unplugs and plugs once more with
memory_hotplug.memmap_init_cpus=0 (CPU 0 alone) in the same boot.  The
figures are the kernel's own "virtio-mem 01:00.0: plugged 0 -> N MiB ...
in T ms" and CPU 0's cycles inside the memmap inits of the plug
(/sys/kernel/mm/memlab/memmap_init_cpus, from the start of a block's
init to its last chunk done); the stats file also says how many struct
pages CPU 1 wrote.  SMP_BENCH_ONLY=plug runs only this part
(SMP_BENCH_REPS guests per vCPU count, as the rest).

Then order-0 alloc+free from 1, 2 and 4 CPUs at once (`cpus alloc`,
SMP_BENCH_ALLOC_COUNT pairs per CPU, default 5000, on a fresh -smp 4
guest each), through the pcp lists and through zone->lock only
(__GFP_NOPCP, free_pages_nopcp()): each CPU's cycles per pair, their
mean.  A zone-lock run that does not finish in 120 s is reported as
timed out (a ticket lock handed between more vCPU threads than the host
has cores).

Medians with their spread (half of max - min, % of the median), then the
issue's targets as met or by how much they are missed: 2 vCPUs finish
deferred init >= 1.7x faster than 1; 2 vCPUs plug >= 1.6x faster than
1 (warm and cold, and its memmap init); with pcp, the per-CPU throughput at 2 CPUs within 20% of 1 CPU's, and >= 3x the zone-lock-only design's.  It never fails on a number; it exits non-zero only if
a guest failed.  On a 2-core host shared with other work the two vCPU
threads do not always get two cores, which is what the spread shows.
With BENCH_OUT set (make bench) the figures go there as CSV.

Usage: tests/bench/smp_bench.py [GiB]
"""

import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qemu"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import memlab  # noqa: E402
import bench_csv  # noqa: E402

GIB = int(os.environ.get("SMP_BENCH_GIB", "256"))
REPS = int(os.environ.get("SMP_BENCH_REPS", "3"))
VCPUS = (1, 2)
TARGET_RATIO = 1.7
COMPLETE = re.compile(r"deferred init: boot memory's memmap complete after (\d+) ms")
BY_CPU = re.compile(r"deferred init: sections by CPU: (.*)")


def boot_once(gib, vcpus, iso):
    """One boot: (all-memory ms, {cpu: sections})."""
    m = memlab.Machine(
        iso, name=f"smp-bench-{gib}g-{vcpus}cpu", mem=f"{gib}G,slots=4,maxmem=1T",
        cpu="max,phys-bits=46",
        extra=["-smp", str(vcpus),
               "-object", f"memory-backend-ram,id=ram,size={gib}G,reserve=off",
               "-machine", "memory-backend=ram"])
    m.accel = memlab.MTTCG
    try:
        m.start()
        m.wait_boot(timeout=900 * memlab.SCALE)   # waits for the "complete" line
        if vcpus > 1:   # printed just after it
            m.wait_for(BY_CPU, timeout=60 * memlab.SCALE)
        done = int(COMPLETE.search(m.output).group(1))
        line = BY_CPU.search(m.output)
        by_cpu = {int(c): int(n) for c, n in re.findall(r"(\d+): (\d+)", line.group(1))} \
            if line else {0: None}
        return done, by_cpu
    finally:
        m.kill()


GiB = 1 << 30
PLUG_GIB = int(os.environ.get("SMP_BENCH_PLUG_GIB", "256"))
PLUG_CMDLINE = "deferred_init_hotplug=0"   # the eager design, whatever the default
TARGET_PLUG_RATIO = 1.6
PLUGGED = re.compile(r"virtio-mem 01:00\.0: plugged 0 -> (\d+) MiB \(requested \d+ MiB\) in (\d+) ms")
UNPLUGGED = re.compile(r"virtio-mem 01:00\.0: unplugged \d+ -> 0 MiB")
PARAM = "/sys/module/memory_hotplug/parameters/memmap_init_cpus"
BY_CPU_PAGES = re.compile(r"^cpu (\d+): \d+ chunks, (\d+) struct pages$", re.M)


def vmem_move(m, size, done_re):
    """qom-set requested-size; wait for the kernel's line of the round; its match."""
    m.qmp().cmd("qom-set", path="vmem1", property="requested-size", value=size)
    return done_re.search(m.wait_for(done_re, timeout=1800 * memlab.SCALE))


def memmap_stats(m):
    """(CPU 0's cycles in memmap init so far, {cpu: struct pages})."""
    out = m.run("cat /sys/kernel/mm/memlab/memmap_init_cpus")
    cyc = re.search(r"(\d+) cycles on CPU 0 in all", out)
    if not cyc:
        raise memlab.MachineError(f"memmap_init_cpus: {out}")
    return int(cyc.group(1)), {int(c): int(n) for c, n in BY_CPU_PAGES.findall(out)}


def plug_round(m, size):
    """Plug size, then unplug it: (plug ms, CPU 0's memmap init Mcycles in it,
    {cpu: struct pages} so far)."""
    c0, _ = memmap_stats(m)
    ms = int(vmem_move(m, size, PLUGGED).group(2))
    c1, pages = memmap_stats(m)
    vmem_move(m, 0, UNPLUGGED)
    return ms, (c1 - c0) // 1000000, pages


def plug_once(gib, vcpus, iso):
    """One guest with vcpus: the eager plug of gib GiB into fresh host
    memory (cold: the host's first-touch faults), then, after an unplug,
    again (warm: the guest's own work); with 2 vCPUs a third plug with
    memmap_init_cpus=0 in the same boot.  A dict of (ms, Mcycles) pairs,
    and CPU 1's struct pages of the split plugs."""
    size = gib * GiB
    m = memlab.Machine(iso, name=f"smp-bench-plug-{gib}g-{vcpus}cpu", mem=f"2G,maxmem={gib + 10}G",
                       extra=["-smp", str(vcpus),
                              "-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1",
                              "-object", f"memory-backend-ram,id=hotmem0,size={gib}G,reserve=off",
                              "-device", "virtio-mem-pci,id=vmem1,memdev=hotmem0,bus=port1,requested-size=0"])
    m.accel = memlab.MTTCG
    try:
        m.start()
        m.wait_boot(timeout=300 * memlab.SCALE)
        m.qmp()
        r = {"cold": plug_round(m, size)[:2]}
        ms, mcyc, pages = plug_round(m, size)
        r["warm"] = (ms, mcyc)
        r["cpu1_pages"] = pages.get(1, 0)
        if vcpus > 1:
            m.run(f"echo 0 > {PARAM}")
            r["alone"] = plug_round(m, size)[:2]
        return r
    finally:
        m.kill()


def plug_bench(iso):
    """The eager plug with 1 and 2 vCPUs; (rows, {(vcpus, kind): (ms, Mcycles)})."""
    runs = {n: [] for n in VCPUS}
    for r in range(REPS):
        for n in VCPUS:
            runs[n].append(plug_once(PLUG_GIB, n, iso))
        print(f"plug round {r + 1} of {REPS} done", flush=True)
    rows, med = [], {}
    print()
    for n in VCPUS:
        for kind in ("cold", "warm", "alone") if n > 1 else ("cold", "warm"):
            ms = bench_csv.stats([x[kind][0] for x in runs[n]])
            cyc = bench_csv.stats([x[kind][1] for x in runs[n]])
            med[(n, kind)] = (ms[0], cyc[0])
            what = {"cold": "into fresh host memory", "warm": "again after an unplug",
                    "alone": "again, memmap_init_cpus=0 (CPU 0 alone, same boot)"}[kind]
            print(f"{PLUG_GIB} GiB eager virtio-mem plug, {n} vCPU{'s' if n > 1 else ''}, {what}: "
                  f"{ms[0]} ms +-{ms[1]:.1f}%, of which memmap init {cyc[0]} Mcycles of CPU 0 "
                  f"+-{cyc[1]:.1f}%", flush=True)
            rows.append((f"{PLUG_GIB} GiB eager plug, {kind}", f"{n} vCPU", ms[0], round(ms[1], 1), "ms"))
            rows.append((f"{PLUG_GIB} GiB eager plug, {kind}, memmap init", f"{n} vCPU", cyc[0],
                         round(cyc[1], 1), "Mcycles"))
    print(f"struct pages CPU 1 wrote in the 2-vCPU split plugs, each boot: "
          f"{', '.join(str(x['cpu1_pages']) for x in runs[2])}", flush=True)
    return rows, med


def plug_verdict(med):
    def ratio_line(what, a, b):
        ratio = a / b if b else 0.0
        verdict = "met" if ratio >= TARGET_PLUG_RATIO else \
            f"NOT met, missed by {TARGET_PLUG_RATIO / ratio:.2f}x" if ratio else "NOT met"
        print(f"  {what}: {a} against {b}: {ratio:.2f}x faster (target >= {TARGET_PLUG_RATIO}x: "
              f"{verdict})")

    for kind in ("warm", "cold"):
        ratio_line(f"virtio-mem eager plug of {PLUG_GIB} GiB, {kind}, 1 vCPU against 2 (ms)",
                   med[(1, kind)][0], med[(2, kind)][0])
    ratio_line("its memmap init, warm, 1 vCPU against 2 (Mcycles)",
               med[(1, "warm")][1], med[(2, "warm")][1])
    ratio_line("its memmap init, 2 vCPUs, CPU 0 alone against split in one boot (Mcycles)",
               med[(2, "alone")][1], med[(2, "warm")][1])


ALLOC_CPUS = (1, 2, 4)
ALLOC_COUNT = int(os.environ.get("SMP_BENCH_ALLOC_COUNT", "5000"))
ALLOC_TIMEOUT = 120
ALLOC_MEAN = re.compile(r"cpus alloc: mean (\d+) cycles per alloc\+free per CPU")
TARGET_FLAT = 0.8       # pcp: per-CPU throughput at 2 CPUs >= 0.8x that at 1
TARGET_PCP_GAIN = 3.0   # pcp >= 3x the zone-lock-only design's throughput (2 CPUs)


def alloc_once(mode, n, iso):
    """`cpus alloc MODE N COUNT` on a fresh -smp 4 guest: the mean cycles
    per alloc+free per CPU, or None when it did not finish in time (a
    ticket lock handed between more vCPU threads than host cores can
    take minutes per thousand handovers)."""
    m = memlab.Machine(iso, name=f"smp-bench-alloc-{mode}-{n}", mem="2G",
                       extra=["-smp", str(max(ALLOC_CPUS))])
    m.accel = memlab.MTTCG
    try:
        m.start()
        m.wait_boot(timeout=300 * memlab.SCALE)
        try:
            out = m.run(f"cpus alloc {mode} {n} {ALLOC_COUNT}", timeout=ALLOC_TIMEOUT * memlab.SCALE)
        except memlab.MachineError:
            return None
        return int(ALLOC_MEAN.search(out).group(1))
    finally:
        m.kill()


def alloc_bench(iso):
    """Order-0 alloc+free from 1, 2 and 4 CPUs at once, pcp against
    zone->lock only; returns the CSV rows."""
    runs = {(mode, n): [] for mode in ("pcp", "zone") for n in ALLOC_CPUS}
    for r in range(REPS):
        for n in ALLOC_CPUS:
            for mode in ("pcp", "zone"):
                runs[(mode, n)].append(alloc_once(mode, n, iso))
        print(f"alloc round {r + 1} of {REPS} done", flush=True)
    rows, med = [], {}
    print()
    for (mode, n), vals in runs.items():
        got = [v for v in vals if v is not None]
        if not got:
            med[(mode, n)] = None
            print(f"order-0 alloc+free, {mode}, {n} CPUs: every run timed out "
                  f"({ALLOC_TIMEOUT} s)", flush=True)
            continue
        st = bench_csv.stats(got)
        med[(mode, n)] = st[0]
        print(f"order-0 alloc+free, {'pcp lists' if mode == 'pcp' else 'zone->lock only'}, "
              f"{n} CPU{'s' if n > 1 else ''}: {st[0]} cycles per op per CPU +-{st[1]:.1f}%"
              + (f" ({len(vals) - len(got)} runs timed out)" if len(got) < len(vals) else ""),
              flush=True)
        rows.append((f"order-0 alloc+free, {n} CPUs", mode, st[0], round(st[1], 1), "cycles"))
    return rows, med


def alloc_verdicts(med):
    p1, p2, z2 = med.get(("pcp", 1)), med.get(("pcp", 2)), med.get(("zone", 2))
    if p1 and p2:
        flat = p1 / p2     # throughput at 2 over throughput at 1, per CPU
        print(f"  pcp, per-CPU throughput at 2 CPUs: {flat:.2f}x that at 1 CPU (target >= "
              f"{TARGET_FLAT}x: {'met' if flat >= TARGET_FLAT else f'NOT met, missed by {TARGET_FLAT / flat:.2f}x'})")
    if p2 and z2:
        gain = z2 / p2
        print(f"  2 CPUs: pcp {gain:.2f}x the zone-lock-only throughput (target >= "
              f"{TARGET_PCP_GAIN}x: {'met' if gain >= TARGET_PCP_GAIN else f'NOT met, missed by {TARGET_PCP_GAIN / gain:.2f}x'})")
    elif p2:
        print(f"  2 CPUs: zone-lock-only runs timed out: pcp far more than "
              f"{TARGET_PCP_GAIN}x (target met)")


def main(argv):
    gib = int(argv[1]) if len(argv) > 1 else GIB
    kernel = memlab.build_kernel()
    iso = memlab.make_iso(kernel, "")
    if os.environ.get("SMP_BENCH_ONLY") == "plug":
        print(f"memlab SMP benchmarks, the plug only (multi-threaded TCG, {os.cpu_count()} host "
              f"CPUs), {REPS} guests per vCPU count; medians +- half the range\n", flush=True)
        try:
            rows, med = plug_bench(memlab.make_iso(kernel, PLUG_CMDLINE))
        except (memlab.MachineError, memlab.HarnessError, AttributeError) as e:
            print(f"\nsmp_bench: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
        bench_csv.figures("smp-plug-qemu", rows)
        print("\nSMP targets, this run (multi-threaded TCG; medians of the guests):")
        plug_verdict(med)
        return 0
    runs = {n: [] for n in VCPUS}
    print(f"memlab SMP benchmarks (multi-threaded TCG, {os.cpu_count()} host CPUs), "
          f"{REPS} boots per vCPU count; medians +- half the range\n", flush=True)
    try:
        for r in range(REPS):
            for n in VCPUS:
                runs[n].append(boot_once(gib, n, iso))
            print(f"round {r + 1} of {REPS} done", flush=True)
        plug_rows, plug_med = plug_bench(memlab.make_iso(kernel, PLUG_CMDLINE))
        alloc_rows, alloc_med = alloc_bench(iso)
    except (memlab.MachineError, memlab.HarnessError, AttributeError) as e:
        print(f"\nsmp_bench: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print()
    rows, med = [], {}
    for n in VCPUS:
        done = bench_csv.stats([d for d, _ in runs[n]])
        med[n] = done[0]
        shares = "; ".join(", ".join(f"cpu {c}: {s}" for c, s in sorted(b.items()))
                           for _, b in runs[n] if b != {0: None})
        print(f"{gib} GiB deferred init, {n} vCPU{'s' if n > 1 else ''}: all memory "
              f"{done[0]} ms +-{done[1]:.1f}%"
              + (f" (sections by CPU, each boot: {shares})" if shares else ""), flush=True)
        rows.append((f"{gib} GiB deferred init", f"{n} vCPU", done[0], round(done[1], 1), "ms"))
    bench_csv.figures("smp-qemu", rows + plug_rows + alloc_rows)
    ratio = med[1] / med[2] if med[2] else 0.0
    verdict = "met" if ratio >= TARGET_RATIO else \
        f"NOT met, missed by {TARGET_RATIO / ratio:.2f}x" if ratio else "NOT met"
    print(f"\nSMP targets, this run (multi-threaded TCG; medians of the boots):")
    print(f"  {gib} GiB deferred init: 1 vCPU {med[1]} ms, 2 vCPUs {med[2]} ms: {ratio:.2f}x "
          f"faster (target >= {TARGET_RATIO}x: {verdict})")
    plug_verdict(plug_med)
    alloc_verdicts(alloc_med)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

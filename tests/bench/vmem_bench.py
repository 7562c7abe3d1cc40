#!/usr/bin/env python3
"""vmem_bench.py - the virtio-mem part of `make bench`: plug and
unplug of 64 and 256 GiB into a 2 GiB guest under TCG, the console's worst
answer latency during each, and beside each plug its floor measured in the
same boot.

One q35 guest, `-m 2G,maxmem=266G`, a 256 GiB memory-backend-ram with
reserve=off (only what the guest touches is backed) behind a virtio-mem
device on a PCIe root port, its onlines eager (`mech deferred_init old`
after the boot: each block's memmap written at its online, so the plug's
time is the memmap's; lazyplug_bench.py compares that with the lazy
default).  For each size, what a user would do:

  (QMP) qom-set vmem1 requested-size SIZE
        while it moves, `uptime` every ~75 ms over the serial console,
        each answer timed (Enter to the next prompt, seen from the host)
  bench touch MEMMAP ADDR     the floor: first touch (8-byte stores) of
                              as many bytes as the memmap of SIZE (SIZE /
                              4 KiB * 64 bytes), at the top of what was
                              just plugged: memory neither the guest nor
                              the host has touched yet
  (QMP) qom-set vmem1 requested-size 0, timed the same way

each REPS times (default 3, VMEM_BENCH_REPS): every figure is the median
of the rounds with its spread (half of max - min, % of the median), the
console's worst answer is the worst of every round.  With BENCH_OUT set
(make bench) the figures and the first 256 GiB round's console answers
over time are written there as CSV (tests/bench/bench_csv.py).

The plug and unplug times are the kernel's own ("virtio-mem 01:00.0:
plugged 0 -> N MiB ... in T ms", from the request's first slice to the
last); the wall time from qom-set to QEMU's size reaching the request is
printed beside them (it adds up to one 100 ms poll).  Then one verdict
line per target: plug 64 GiB <= 2.5 s, 256 GiB <= 10 s, unplug <= 5 s,
plug within 1.5x of its floor, console latency <= 100 ms.  It never fails
on a number; it exits non-zero only if the guest or a command failed.

Usage: tests/bench/vmem_bench.py
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

GiB = 1 << 30
MiB = 1 << 20
REGION = 4 * GiB                     # the device region starts above the 2 GiB of boot RAM
SIZES_GIB = (64, 256)
PROBE_PERIOD = 0.075                 # seconds between console probes
TARGET_PLUG_S = {64: 2.5, 256: 10.0}
TARGET_UNPLUG_S = 5.0
TARGET_FLOOR_RATIO = 1.5
TARGET_LATENCY_MS = 100.0
REPS = int(os.environ.get("VMEM_BENCH_REPS", "3"))   # plug/unplug rounds per size
ROUND = re.compile(r"virtio-mem 01:00\.0: (un)?plugged (\d+) -> (\d+) MiB \(requested (\d+) MiB\) "
                   r"in (\d+) ms")


def vmem_size(m):
    return [d["data"] for d in m.qmp().cmd("query-memory-devices")
            if d["type"] == "virtio-mem"][0]["size"]


def move(m, size):
    """qom-set requested-size, probe the console until QEMU's size is size
    and the kernel logged the end of the round; (kernel ms, wall s, worst
    answer ms, answers, [(s since qom-set, answer ms)])."""
    start = len(m.output)
    m.qmp().cmd("qom-set", path="vmem1", property="requested-size", value=size)
    t0 = time.monotonic()
    worst, answers, wall, probes = 0.0, 0, None, []
    deadline = t0 + 600 * memlab.SCALE
    while True:
        a = time.monotonic()
        m.run("uptime")
        took = time.monotonic() - a
        probes.append((round(a - t0, 3), round(took * 1000, 1)))
        worst = max(worst, took)
        answers += 1
        if wall is None and vmem_size(m) == size:
            wall = time.monotonic() - t0
        done = [r for r in ROUND.finditer(m.output[start:]) if int(r.group(3)) == size >> 20]
        if wall is not None and done:
            return int(done[-1].group(5)), wall, worst * 1000, answers, probes
        if time.monotonic() > deadline:
            raise memlab.MachineError(f"requested-size {size >> 20} MiB not reached in time")
        time.sleep(PROBE_PERIOD)


def main():
    iso = memlab.make_iso(memlab.build_kernel(), "")
    top = max(SIZES_GIB)
    m = bench_csv.vmem_machine(iso, "vmem-bench", top)
    rows, csv_rows = [], []
    try:
        m.start()
        m.wait_boot()
        m.qmp()
        bench_csv.set_design(m, "deferred_init", "old")     # eager onlines (see above)
        print(f"memlab virtio-mem benchmarks (TCG, -m 2G,maxmem={top + 10}G, a {top} GiB "
              f"reserve=off backend), console probed every {PROBE_PERIOD * 1000:.0f} ms, "
              f"{REPS} plug/unplug rounds per size\n", flush=True)
        for gib in SIZES_GIB:
            size = gib * GiB
            memmap = size // 4096 * 64
            plugs, floors, unplugs = [], [], []
            for r in range(REPS):
                plugs.append(move(m, size))
                floors.append(bench_csv.bench_touch_ms(m, memmap, REGION + size - memmap))
                unplugs.append(move(m, 0))
                print(f"{gib:4} GiB round {r + 1}: plug {plugs[-1][0]} ms, floor "
                      f"{floors[-1]:.0f} ms, unplug {unplugs[-1][0]} ms", flush=True)
            if gib == max(SIZES_GIB):
                bench_csv.series("vmem_latency-qemu", ["x", "plug", "unplug"],
                                 latency_rows(plugs[0][4], unplugs[0][4]))
            plug = bench_csv.stats([p[0] for p in plugs])
            floor_ms = bench_csv.stats(floors)
            unplug = bench_csv.stats([u[0] for u in unplugs])
            worst_plug = max(p[2] for p in plugs)
            worst_unplug = max(u[2] for u in unplugs)
            answers = [a for p in plugs + unplugs for _, a in p[4]]
            typical = bench_csv.stats(answers)
            rows.append((gib, plug, floor_ms, unplug, worst_plug, worst_unplug))
            csv_rows += [(f"{gib} GiB plug", "kernel", plug[0], round(plug[1], 1), "ms"),
                         (f"{gib} GiB plug", "floor", floor_ms[0], round(floor_ms[1], 1), "ms"),
                         (f"{gib} GiB unplug", "kernel", unplug[0], round(unplug[1], 1), "ms")]
            print(f"{gib:4} GiB plug:   {plug[0]:6} ms +-{plug[1]:.1f}% in the kernel "
                  f"(wall {plugs[0][1]:.2f} s in round 1), floor {floor_ms[0]:.0f} ms "
                  f"+-{floor_ms[1]:.1f}% ({plug[0] / floor_ms[0]:.2f}x), console worst "
                  f"{worst_plug:.0f} ms", flush=True)
            print(f"{gib:4} GiB unplug: {unplug[0]:6} ms +-{unplug[1]:.1f}% in the kernel, "
                  f"console worst {worst_unplug:.0f} ms", flush=True)
            print(f"{gib:4} GiB console: median answer {typical[0]:.0f} ms +-{typical[1]:.0f}% "
                  f"over {len(answers)} answers (medians of {REPS} rounds)\n", flush=True)
        bench_csv.figures("vmem-qemu", csv_rows)
    except (memlab.MachineError, memlab.HarnessError, IndexError) as e:
        print(f"\nvmem_bench: {type(e).__name__}: {e}\n--- last serial lines ---\n{m.tail()}",
              file=sys.stderr)
        return 1
    finally:
        m.kill()
    print("virtio-mem targets, this run (TCG; medians of the rounds):")
    for gib, plug, floor_ms, unplug, worst_plug, worst_unplug in rows:
        print(f"  plug {gib} GiB: {plug[0] / 1000:.2f} s (target <= {TARGET_PLUG_S[gib]:g} s: "
              f"{bench_csv.verdict(plug[0] / 1000 <= TARGET_PLUG_S[gib])}); {plug[0] / floor_ms[0]:.2f}x its "
              f"floor {floor_ms[0] / 1000:.2f} s (target <= {TARGET_FLOOR_RATIO:g}x: "
              f"{bench_csv.verdict(plug[0] <= TARGET_FLOOR_RATIO * floor_ms[0])})")
        print(f"  unplug {gib} GiB: {unplug[0] / 1000:.2f} s (target <= {TARGET_UNPLUG_S:g} s: "
              f"{bench_csv.verdict(unplug[0] / 1000 <= TARGET_UNPLUG_S)})")
        for what, worst in (("plug", worst_plug), ("unplug", worst_unplug)):
            print(f"  console during {what} {gib} GiB: worst {worst:.0f} ms of every round "
                  f"(target <= {TARGET_LATENCY_MS:g} ms: {bench_csv.verdict(worst <= TARGET_LATENCY_MS)})")
    return 0


def latency_rows(plug, unplug):
    """The console's answers during the first round's plug and unplug, by
    time since the qom-set: x (s), then the plug's and the unplug's answer
    (ms), empty where one has none (the unplug is shorter)."""
    out = []
    for i in range(max(len(plug), len(unplug))):
        x = plug[i][0] if i < len(plug) else unplug[i][0]
        out.append([x, plug[i][1] if i < len(plug) else "",
                    unplug[i][1] if i < len(unplug) else ""])
    return out


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""lazyplug_bench.py - virtio-mem plugs with the memmap written eagerly
(at each block's online) and lazily (deferred_init_hotplug=1, the
default: blocks online at once, struct pages written afterwards by
mechanism 5's background work and on demand), in the same boot, under
TCG: the part of `make bench` for issue 33's targets.

One q35 guest, `-m 2G,maxmem=...`, one memory-backend-ram with
reserve=off (the host backs only what the guest touches) behind a
virtio-mem device on a PCIe root port.  For each size (64, 256 and 512
GiB; LAZYPLUG_BENCH_SIZES=64,256 for fewer) and each design, eager
(`mech deferred_init old`) then lazy (`mech deferred_init new`;
LAZYPLUG_BENCH_DESIGNS=lazy for one, `make bench` runs both):

  idle        `grep MemTotal /proc/meminfo` 20 times, each answer timed
              (Enter to the next prompt, seen from the host)
  plug        (QMP) qom-set vmem1 requested-size SIZE, then the same
              probe every ~75 ms, timed, until MemTotal is +SIZE:
                online   the kernel's plug round line ("plugged 0 -> N MiB
                         ... in T ms"): every block of SIZE online, so an
                         allocation of any of it succeeds (lazily it grows
                         its zone from the pending sections)
                MemTotal the first probe that reads base + SIZE (lazily
                         too the plugged pages count at the online, so
                         this follows the round line); its wall time from
                         the qom-set
                memmap   lazy: the console's "hot-added memory's memmap
                         complete" line after the round line (the
                         background wrote every pending section; it may
                         say so between blocks too), or the round line if
                         `meminit` shows none pending then; eager: the
                         round line (each block's memmap is written at
                         its online)
  floor       `bench touch` of as many bytes as the memmap of SIZE (SIZE /
              4 KiB * 64 bytes) in memory just plugged and not touched,
              the first-touch floor vmem_bench.py measures: at 512 GiB a
              quarter of it, times 4 (the host backs every byte the guest
              touches, and 8 GiB more would not fit beside the plug on a
              shared host)
  unplug      qom-set 0, probed the same way; the kernel's round time

Verdicts, one line each (the issue's targets): 512 GiB online and
MemTotal +512 GiB <= 2 s, memmap complete within 1.2x of its floor,
unplug of 512 GiB <= 3 s, the console's worst answer during plug and
unplug within 50 ms of its idle median.  Every figure is printed for every
size and both designs.  It never fails on a number; it exits non-zero
only if the guest or a command failed.  Wall time: about 4 minutes on 2
cores under TCG (each round waits at most LAZYPLUG_ROUND_S, 120 s).

With BENCH_OUT set (make bench) the figures go there as CSV
(tests/bench/bench_csv.py, lazyplug-qemu.csv).

Usage: tests/bench/lazyplug_bench.py
"""

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

GiB = 1 << 30
MiB = 1 << 20
REGION = 4 * GiB                     # the device region starts above the 2 GiB of boot RAM
SIZES_GIB = tuple(int(s) for s in os.environ.get("LAZYPLUG_BENCH_SIZES", "64,256,512").split(","))
DESIGNS = tuple(d for d in (("eager", "old"), ("lazy", "new"))
                if d[0] in os.environ.get("LAZYPLUG_BENCH_DESIGNS", "eager,lazy").split(","))
PROBE = "grep MemTotal /proc/meminfo"
PROBE_PERIOD = 0.075                 # seconds between console probes
IDLE_PROBES = 20
ROUND_S = float(os.environ.get("LAZYPLUG_ROUND_S", "120"))
TARGET_ONLINE_S = 2.0                # 512 GiB online and MemTotal +512 GiB
TARGET_FLOOR_RATIO = 1.2             # memmap complete against the first-touch floor
TARGET_UNPLUG_S = 3.0                # 512 GiB
TARGET_CONSOLE_MS = 50.0             # worst answer above the idle median
FLOOR_QUARTER_FROM_GIB = 512         # from this size the floor touches a quarter, x4
ROUND = re.compile(r"virtio-mem 01:00\.0: (un)?plugged (\d+) -> (\d+) MiB \(requested (\d+) MiB\) "
                   r"in (\d+) ms")
MEMTOTAL = re.compile(r"^MemTotal:\s+(\d+) kB", re.M)
MEMMAP_DONE = re.compile(r"deferred init: hot-added memory's memmap complete after \d+ ms")
HOT_PENDING_NONE = re.compile(r"hot-added: .* sections onlined with their memmap pending, 0 pending now")


def memtotal_kb(out):
    mt = MEMTOTAL.search(out)
    if not mt:
        raise memlab.MachineError(f"{PROBE}: {out!r}")
    return int(mt.group(1))


def probe(m):
    """One timed probe: (answer ms, MemTotal kB)."""
    a = time.monotonic()
    out = m.run(PROBE)
    return (time.monotonic() - a) * 1000, memtotal_kb(out)


def idle(m):
    """The console's idle answer: (median, worst) ms over IDLE_PROBES."""
    answers = []
    for _ in range(IDLE_PROBES):
        answers.append(probe(m)[0])
        time.sleep(PROBE_PERIOD)
    return statistics.median(answers), max(answers)


def move(m, size, want_kb, lazy=False):
    """qom-set requested-size, probe until the kernel's round line for size
    is in the log and MemTotal is want_kb (and, lazy, the memmap complete
    line): a dict with the kernel's round ms, the wall seconds to the round
    line, to MemTotal and to the memmap complete, the worst answer (ms)."""
    start = len(m.output)
    m.qmp().cmd("qom-set", path="vmem1", property="requested-size", value=size)
    t0 = time.monotonic()
    worst, round_ms, round_s, total_s, memmap_s = 0.0, None, None, None, None
    round_end = None                 # where the round line ends in the log
    deadline = t0 + ROUND_S * memlab.SCALE
    while round_s is None or total_s is None or (lazy and memmap_s is None):
        took, kb = probe(m)
        now = time.monotonic() - t0
        worst = max(worst, took)
        if total_s is None and kb == want_kb:
            total_s = now
        done = [r for r in ROUND.finditer(m.output[start:]) if int(r.group(3)) == size >> 20]
        if round_s is None and done:
            round_ms, round_s = int(done[-1].group(5)), now
            round_end = start + done[-1].end()
            # the background may have caught up between blocks (each time
            # nothing is pending it says complete): only the state after
            # the last block counts, read once here, then the log after it
            if lazy and HOT_PENDING_NONE.search(m.run("meminit")):
                memmap_s = now
        if lazy and memmap_s is None and round_end is not None and \
                MEMMAP_DONE.search(m.output[round_end:]):
            memmap_s = now
        if time.monotonic() > deadline:
            raise memlab.MachineError(f"requested-size {size >> 20} MiB: round line {round_s}, "
                                      f"MemTotal {kb} kB (want {want_kb}), memmap {memmap_s} "
                                      f"after {ROUND_S:g} s")
        time.sleep(PROBE_PERIOD)
    return {"kernel_ms": round_ms, "online_s": round_s, "memtotal_s": total_s,
            "memmap_s": memmap_s if lazy else round_s, "worst_ms": worst}


def floor_ms(m, size):
    """First touch of the memmap's bytes of size at the top of the plugged
    region (a quarter of them, x4, from FLOOR_QUARTER_FROM_GIB)."""
    memmap = size // 4096 * 64
    div = 4 if size >= FLOOR_QUARTER_FROM_GIB * GiB else 1
    nbytes = memmap // div
    return bench_csv.bench_touch_ms(m, nbytes, REGION + size - nbytes) * div


def main():
    iso = memlab.make_iso(memlab.build_kernel(), "")
    top = max(SIZES_GIB)
    m = bench_csv.vmem_machine(iso, "lazyplug-bench", top)
    results, csv_rows = {}, []
    t_start = time.monotonic()
    try:
        m.start()
        m.wait_boot()
        m.qmp()
        base = probe(m)[1]
        print(f"memlab lazy/eager virtio-mem plug benchmarks (TCG, -m 2G,maxmem={top + 10}G, a "
              f"{top} GiB reserve=off backend), console probed with `{PROBE}` every "
              f"{PROBE_PERIOD * 1000:.0f} ms\n", flush=True)
        for gib in SIZES_GIB:
            size = gib * GiB
            for name, mech in DESIGNS:
                bench_csv.set_design(m, "deferred_init", mech)
                idle_med, idle_worst = idle(m)
                plug = move(m, size, base + size // 1024, lazy=name == "lazy")
                floor = floor_ms(m, size)
                unplug = move(m, 0, base)
                results[(gib, name)] = (plug, floor, unplug, idle_med, idle_worst)
                print(f"{gib:4} GiB {name:5}: online {plug['online_s']:.2f} s (kernel round "
                      f"{plug['kernel_ms']} ms), MemTotal +{gib} GiB {plug['memtotal_s']:.2f} s, "
                      f"memmap complete {plug['memmap_s']:.2f} s, "
                      f"floor {floor / 1000:.2f} s, unplug {unplug['kernel_ms']} ms; console "
                      f"idle {idle_med:.0f} ms (worst {idle_worst:.0f}), worst during plug "
                      f"{plug['worst_ms']:.0f} ms, unplug {unplug['worst_ms']:.0f} ms", flush=True)
                csv_rows += [
                    (f"{gib} GiB online", name, round(plug["online_s"] * 1000), 0.0, "ms"),
                    (f"{gib} GiB MemTotal", name, round(plug["memtotal_s"] * 1000), 0.0, "ms"),
                    (f"{gib} GiB memmap", name, round(plug["memmap_s"] * 1000), 0.0, "ms"),
                    (f"{gib} GiB floor", name, round(floor), 0.0, "ms"),
                    (f"{gib} GiB unplug", name, unplug["kernel_ms"], 0.0, "ms"),
                    (f"{gib} GiB console worst", name,
                     round(max(plug["worst_ms"], unplug["worst_ms"])), 0.0, "ms")]
        bench_csv.figures("lazyplug-qemu", csv_rows)
    except (memlab.MachineError, memlab.HarnessError, IndexError) as e:
        print(f"\nlazyplug_bench: {type(e).__name__}: {e}\n--- last serial lines ---\n{m.tail()}",
              file=sys.stderr)
        return 1
    finally:
        m.kill()
    print(f"\nlazy hot-add targets, this run (TCG, one round each, "
          f"{time.monotonic() - t_start:.0f} s in all):")
    for (gib, name), (plug, floor, unplug, idle_med, _) in results.items():
        ratio = plug["memmap_s"] * 1000 / floor
        line = (f"  {gib} GiB {name}: online {plug['online_s']:.2f} s, MemTotal +{gib} GiB "
                f"{plug['memtotal_s']:.2f} s, memmap complete {plug['memmap_s']:.2f} s = {ratio:.2f}x the floor "
                f"{floor / 1000:.2f} s, unplug {unplug['kernel_ms'] / 1000:.2f} s, console worst "
                f"+{max(plug['worst_ms'], unplug['worst_ms']) - idle_med:.0f} ms over idle")
        print(line)
        if gib != 512:
            continue
        print(f"    online and MemTotal +512 GiB <= {TARGET_ONLINE_S:g} s: "
              f"{bench_csv.verdict(max(plug['online_s'], plug['memtotal_s']) <= TARGET_ONLINE_S)} "
              f"({plug['online_s']:.2f} s online, {plug['memtotal_s']:.2f} s MemTotal)")
        print(f"    memmap complete within {TARGET_FLOOR_RATIO:g}x of the floor: "
              f"{bench_csv.verdict(ratio <= TARGET_FLOOR_RATIO)} ({ratio:.2f}x)")
        print(f"    unplug of 512 GiB <= {TARGET_UNPLUG_S:g} s: "
              f"{bench_csv.verdict(unplug['kernel_ms'] / 1000 <= TARGET_UNPLUG_S)} "
              f"({unplug['kernel_ms'] / 1000:.2f} s)")
        worst = max(plug["worst_ms"], unplug["worst_ms"]) - idle_med
        print(f"    console worst within {TARGET_CONSOLE_MS:g} ms of idle: "
              f"{bench_csv.verdict(worst <= TARGET_CONSOLE_MS)} (+{worst:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

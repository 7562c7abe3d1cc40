#!/usr/bin/env python3
"""bigboot_bench.py - the large-guest part of `make bench`: how soon a
guest of 256 GiB, 1 TiB and 4 TiB of boot RAM reaches the prompt with no
command line at all (every mechanism at its default design, deferred
memmap init included), beside a 2 GiB guest booted the same way.

Each guest is q35 under TCG with its RAM in one memory-backend-ram with
reserve=off (the host commits only what the guest touches), `-cpu
max,phys-bits=46` (QEMU refuses more than 1 TiB with the default 40 bits),
booted BIGBOOT_BENCH_REPS times (default 3) in rounds over the sizes:

  to prompt      wall time from QEMU's start to the first `memlab> `
  kernel ready   the kernel's `boot: ready in N ms` (its uptime then)
  QEMU's start   the same QEMU command line with -S (paused before the
                 first guest instruction): wall time from its start to
                 its QMP greeting, i.e. QEMU's own setup of the machine,
                 which grows with the RAM (its dirty-page bitmaps of a
                 4 TiB machine are hundreds of MiB, set at start) and is
                 no part of the guest's boot

Each guest is stopped at the prompt: the rest of its memmap (64 GiB of
struct pages at 4 TiB, more than this 24 GiB host has) would be written
in the background, which boot_bench.py measures up to 512 GiB.

Targets (printed as met or not, never failing the run): kernel ready <=
150 ms at every size; the best wall time to the prompt within 1.2x of the
2 GiB guest's best (the part before the kernel, QEMU, SeaBIOS and GRUB,
takes most of a second whatever the size, and other load on the host only
adds to it, so the fastest boot is the one that measures what size
costs).  Beside the verdict, the best wall time less QEMU's own best
start, and its ratio to the 2 GiB guest's: what the guest (firmware, GRUB,
memlab) adds with size.  Exit status non-zero only if a guest failed.  With BENCH_OUT set
(make bench) the figures go there as CSV (bigboot-qemu.csv).

Usage: tests/bench/bigboot_bench.py [GiB ...]   (default 2 256 1024 4096)
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

SIZES_GIB = (2, 256, 1024, 4096)
REPS = int(os.environ.get("BIGBOOT_BENCH_REPS", "3"))
TARGET_READY_MS = 150
TARGET_WALL_RATIO = 1.2
READY = re.compile(r"boot: ready in (\d+) ms")


def machine(gib, iso, name, extra=()):
    """The guest of gib GiB of boot RAM, not started."""
    maxmem = max(2 * gib, 64)
    return memlab.Machine(
        iso, name=name, mem=f"{gib}G,slots=4,maxmem={maxmem}G", cpu="max,phys-bits=46",
        extra=["-object", f"memory-backend-ram,id=ram,size={gib}G,reserve=off",
               "-machine", "memory-backend=ram", *extra])


def boot_once(gib, iso):
    """One boot with no command line: (wall s to prompt, kernel ready ms,
    QEMU's own start s: the same machine paused (-S), start to QMP greeting)."""
    m = machine(gib, iso, f"bigboot-bench-{gib}g")
    try:
        m.start()
        m.wait_boot(timeout=600 * memlab.SCALE, settle=False)
        wall, ready = m.boot_time, int(READY.search(m.boot_log).group(1))
    finally:
        m.kill()
    m = machine(gib, iso, f"bigboot-bench-{gib}g-paused", ["-S"])
    try:
        m.start()
        m.qmp(timeout=120 * memlab.SCALE)
        start = time.monotonic() - m.t_start
    finally:
        m.kill()
    return wall, ready, start


def main(argv):
    sizes = [int(a) for a in argv[1:]] or list(SIZES_GIB)
    if 2 not in sizes:
        sizes.insert(0, 2)
    iso = memlab.make_iso(memlab.build_kernel(), "")
    runs = {gib: [] for gib in sizes}
    print(f"memlab large-guest boots (TCG, no command line, RAM in one reserve=off backend), "
          f"{REPS} boots per size; stopped at the prompt\n", flush=True)
    try:
        for r in range(REPS):
            for gib in sizes:
                runs[gib].append(boot_once(gib, iso))
            print(f"round {r + 1} of {REPS} done", flush=True)
    except (memlab.MachineError, memlab.HarnessError, AttributeError) as e:
        print(f"\nbigboot_bench: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print()
    rows, best, qbest = [], {}, {}
    for gib in sizes:
        wall = bench_csv.stats([w for w, _, _ in runs[gib]])
        ready = bench_csv.stats([k for _, k, _ in runs[gib]])
        qemu = bench_csv.stats([q for _, _, q in runs[gib]])
        best[gib] = min(w for w, _, _ in runs[gib])
        qbest[gib] = min(q for _, _, q in runs[gib])
        print(f"{gib:5} GiB: prompt {wall[0]:.2f} s +-{wall[1]:.1f}% (best {best[gib]:.2f} s), "
              f"kernel ready {ready[0]} ms +-{ready[1]:.1f}%, QEMU's own start "
              f"{qemu[0]:.2f} s +-{qemu[1]:.1f}% (best {qbest[gib]:.2f} s)", flush=True)
        rows += [(f"{gib} GiB to prompt", "default", round(wall[0] * 1000), round(wall[1], 1), "ms"),
                 (f"{gib} GiB kernel ready", "default", ready[0], round(ready[1], 1), "ms"),
                 (f"{gib} GiB QEMU's own start", "paused", round(qemu[0] * 1000),
                  round(qemu[1], 1), "ms")]
    bench_csv.figures("bigboot-qemu", rows)
    print("\nlarge-guest boot targets, this run (TCG; no command line):")
    for gib in sizes:
        if gib == 2:
            continue
        ready = bench_csv.stats([k for _, k, _ in runs[gib]])[0]
        ratio = best[gib] / best[2]
        guest, guest2 = best[gib] - qbest[gib], best[2] - qbest[2]
        print(f"  {gib} GiB: kernel ready {ready} ms (target <= {TARGET_READY_MS} ms: "
              f"{'met' if ready <= TARGET_READY_MS else 'NOT met'}); prompt best "
              f"{best[gib]:.2f} s, {ratio:.2f}x the 2 GiB guest's {best[2]:.2f} s (target <= "
              f"{TARGET_WALL_RATIO}x: {'met' if ratio <= TARGET_WALL_RATIO else 'NOT met'})")
        print(f"    of which QEMU's own start {qbest[gib]:.2f} s against {qbest[2]:.2f} s; "
              f"the rest (firmware, GRUB, memlab) {guest:.2f} s, {guest / guest2:.2f}x the 2 GiB "
              f"guest's {guest2:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

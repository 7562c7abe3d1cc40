#!/usr/bin/env python3
"""memhp_bench.py - the DIMM hotplug part of `make bench`: how much of a
DIMM's add-to-online latency is the AML interpreter's, for a 128 MiB and
a 1 GiB pc-dimm, measured in the same boot.

One q35 guest under TCG, `-m 2G,slots=4,maxmem=16G`.  For each size, REPS
rounds (default 5, MEMHP_BENCH_REPS) of what a user would do:

  (QMP) object-add memory-backend-ram id=mem-X size=SIZE reserve=off
  (QMP) device_add pc-dimm id=X memdev=mem-X
        wait for the Device Check _OST (success)
  dmesg the kernel's own figures, a debug line (kept in the log, not
        printed on the console): "acpi-memhp: slot N: M MiB added and
        onlined T us after its GPE, A us of it in AML"
  (QMP) device_del X, wait for DEVICE_DELETED, object-del mem-X

after one round of the smaller size that is not counted (TCG translates
each code path the first time it runs, which would land in round 1).

T runs from the start of the GPE work pass whose method notified the
device check to the Device Check _OST after the last block was onlined;
A is the time spent in AML evaluations in between (the GPE method,
_STA, _CRS, _PXM, _OST), measured by drivers/acpi/memhp_aml.c around each
call.  The old direct register path is gone, so there is no old design
to run beside it; what this reports is the AML's share, A / T, per size
(a ratio of two figures of the same round), the median of the rounds with
its spread (the CSV holds T and A; its table's total/AML column is the
inverse of the share).  The register path's latency could not be below T - A, so
T / (T - A) bounds how much slower the AML makes an add.  With BENCH_OUT
set (make bench) the figures go there as CSV (tests/bench/bench_csv.py).
It never fails on a number; it exits non-zero only if the guest or a
command failed.

Usage: tests/bench/memhp_bench.py
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

MiB = 1 << 20
SIZES_MIB = (128, 1024)
REPS = int(os.environ.get("MEMHP_BENCH_REPS", "5"))
OST_DEVICE_CHECK = 1
LINE = re.compile(r"acpi-memhp: slot (\d+): (\d+) MiB added( and onlined)? (\d+) us after its GPE, "
                  r"(\d+) us of it in AML")
TIMEOUT = 120 * memlab.SCALE


def wait_event(m, want, timeout):
    """The next QMP event for which want(ev) holds."""
    q = m.qmp()
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise memlab.MachineError("no matching QMP event in time")
        ev = q.wait_event(None, timeout=left)
        if want(ev):
            return ev


def figures_seen(m):
    return LINE.findall(m.run("dmesg", timeout=60 * memlab.SCALE))


def one_round(m, name, mib):
    """Plug a DIMM of mib MiB, wait for its figures, unplug it; (T, A) us."""
    q = m.qmp()
    before = len(figures_seen(m))
    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": f"mem-{name}",
                           "size": mib * MiB, "reserve": False})
    q.cmd("device_add", driver="pc-dimm", id=name, memdev=f"mem-{name}")
    ev = wait_event(m, lambda e: e["event"] == "ACPI_DEVICE_OST" and
                    e["data"]["info"].get("device") == name and
                    e["data"]["info"]["source"] == OST_DEVICE_CHECK, TIMEOUT)
    if ev["data"]["info"]["status"] != 0:
        raise memlab.MachineError(f"memlab refused {name}: {ev}")
    deadline = time.monotonic() + TIMEOUT
    while True:
        seen = figures_seen(m)
        if len(seen) > before:
            break
        if time.monotonic() > deadline:
            raise memlab.MachineError(f"no add figures for {name} in dmesg")
        time.sleep(0.1)
    slot, size, onlined, total, aml = seen[-1]
    if int(size) != mib or not onlined:
        raise memlab.MachineError(f"{name}: unexpected figures {seen[-1]}")
    q.cmd("device_del", id=name)
    wait_event(m, lambda e: e["event"] == "DEVICE_DELETED" and e["data"].get("device") == name,
               TIMEOUT)
    q.cmd("object-del", id=f"mem-{name}")
    return int(total), int(aml)


def main():
    iso = memlab.make_iso(memlab.build_kernel(), "")
    m = memlab.Machine(iso, name="memhp-bench", mem="2G,slots=4,maxmem=16G")
    rows, csv_rows = [], []
    try:
        m.start()
        m.wait_boot()
        m.qmp()
        print(f"memlab DIMM hotplug through the AML (TCG, -m 2G,slots=4,maxmem=16G), "
              f"{REPS} add/remove rounds per size after one not counted, one boot\n", flush=True)
        total, aml = one_round(m, "warmup", SIZES_MIB[0])
        print(f"warm-up ({SIZES_MIB[0]} MiB, not counted: the first run of each code path "
              f"is translated by TCG): GPE to online {total} us, AML {aml} us", flush=True)
        for mib in SIZES_MIB:
            totals, amls, shares = [], [], []
            for r in range(REPS):
                total, aml = one_round(m, f"d{mib}x{r}", mib)
                totals.append(total)
                amls.append(aml)
                shares.append(aml / total if total else 0.0)
                print(f"{mib:5} MiB round {r + 1}: GPE to online {total} us, AML {aml} us "
                      f"({aml / total:.3f} of it)", flush=True)
            t, a, s = bench_csv.stats(totals), bench_csv.stats(amls), bench_csv.stats(shares)
            rows.append((mib, t, a, s))
            csv_rows += [(f"{mib} MiB DIMM GPE to online", "total", t[0], round(t[1], 1), "us"),
                         (f"{mib} MiB DIMM GPE to online", "AML", a[0], round(a[1], 1), "us")]
            print(f"{mib:5} MiB: GPE to online {t[0]} us +-{t[1]:.1f}%, AML {a[0]} us "
                  f"+-{a[1]:.1f}%, AML share {s[0]:.3f} +-{s[1]:.1f}%\n", flush=True)
        bench_csv.figures("memhp-qemu", csv_rows)
    except (memlab.MachineError, memlab.HarnessError, IndexError, KeyError) as e:
        print(f"\nmemhp_bench: {type(e).__name__}: {e}\n--- last serial lines ---\n{m.tail()}",
              file=sys.stderr)
        return 1
    finally:
        m.kill()
    print("DIMM add-to-online, this run (TCG; medians of the rounds): the AML's share, and what")
    print("an add without any AML could at best be (T / (T - A)):")
    for mib, t, a, s in rows:
        bound = t[0] / (t[0] - a[0]) if t[0] > a[0] else float("inf")
        print(f"  {mib:5} MiB: AML {a[0]} us of {t[0]} us = {s[0]:.3f}; "
              f"at most {bound:.2f}x the time of an add without AML")
    return 0


if __name__ == "__main__":
    sys.exit(main())

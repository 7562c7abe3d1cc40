#!/usr/bin/env python3
"""make_seeds.py - write the committed seed corpora of the slow fuzz targets.

    python3 tests/fuzz/seeds/make_seeds.py            # (re)write tests/fuzz/seeds/*/
    python3 tests/fuzz/seeds/make_seeds.py --check    # and run each seed, verbose,
                                                      # checking what it claims

`make test-fuzz` gives tests/fuzz/seeds/NAME/ to build/fuzz/NAME as a second,
read-only corpus directory, so that a short run starts from inputs that
already reach the deep states (a DIMM added and onlined, devmem on the
window, CMA held while memory goes offline, a device plugged to several
blocks and then unplugged under allocations ...) instead of from nothing.

Each seed is written from a named scenario: a list of operations in the
target's own terms, encoded into the bytes the target reads.  One module
per target holds its encoder and scenarios: seeds_mm_cmds.py,
seeds_virtio_mem.py and seeds_pci.py (with seeds_common.py), beside this
file, which writes the seeds and runs the checks.  The encoders mirror the
input readers of the targets (tests/fuzz/fuzz_*.c and their support files)
byte for byte; when a target's input format changes, change the encoder
there, run with --check and commit the rewritten seeds.  The line
templates of fuzz_mm_cmds are read from its source, so adding or
reordering templates needs no change here.

--check runs each seed alone with FUZZ_VERBOSE=1 (build the targets first:
`make build/fuzz/fuzz_mm_cmds build/fuzz/fuzz_virtio_mem build/fuzz/fuzz_pci`)
and compares what the target printed with what the scenario says should
happen: for fuzz_mm_cmds each line's text and its success or failure, for
fuzz_virtio_mem and fuzz_pci strings their kernel log must contain.
Standard library only.
"""
import os
import sys

sys.dont_write_bytecode = True      # keep __pycache__ out of the tree

from seeds_common import HERE, ROOT                  # noqa: E402
from seeds_mm_cmds import mm_check, mm_seeds         # noqa: E402
from seeds_pci import pci_seeds                      # noqa: E402
from seeds_virtio_mem import vm_check, vm_seeds      # noqa: E402


# ============================================================================
# main
# ============================================================================

def write(target, seeds):
    """Write the scenarios' seeds into tests/fuzz/seeds/TARGET/; the other
    files there (inputs a fuzzing run found, seeds added by hand) are kept,
    not deleted: their count is returned.  A seed whose scenario was
    renamed or dropped is one of those: remove it with git rm."""
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    kept = sorted(f for f in os.listdir(d) if f not in seeds)
    for name, (data, _) in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    return len(kept)


def main():
    check = "--check" in sys.argv
    verbose = "-v" in sys.argv
    build = os.path.join(ROOT, "build", "fuzz")
    targets = {
        "fuzz_mm_cmds": (mm_seeds(), mm_check),
        "fuzz_virtio_mem": (vm_seeds(), vm_check),
        "fuzz_pci": (pci_seeds(), vm_check),
    }
    bad = 0
    for target, (seeds, checker) in targets.items():
        kept = write(target, seeds)
        print("%s: %d seeds written, %d other files kept" % (target, len(seeds), kept))
        if not check:
            continue
        binary = os.path.join(build, target)
        for name, (data, what) in seeds.items():
            errors, out = checker(binary, os.path.join(HERE, target, name), what)
            print("  %-32s %4d bytes  %s" % (name, len(data), "ok" if not errors else "NOT AS MEANT"))
            if verbose:
                print(out)
            for e in errors:
                print("    " + e)
            bad += bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

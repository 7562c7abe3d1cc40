#!/usr/bin/env python3
"""aml_insns.py - the AML interpreter's instructions per DIMM add and per
opcode on the host, a deterministic figure (make bench-aml-insns;
memhp_bench.py prints it beside the QEMU figures).

Runs build/bench-memhp_aml (tests/bench/bench_memhp_aml.c: QEMU's DSDT in
the interpreter, the calls memhp.c makes for one add) under valgrind's
callgrind with only bench_one_add() collected, once with ADDS adds, and
divides the instructions by the adds and by the opcodes the bench counted
per add.  Callgrind counts the instructions the program executes, the same
on every run whatever the machine's load.

Usage: tests/bench/aml_insns.py [BINARY]
"""

import os
import re
import shutil
import subprocess
import sys

ADDS = 200
DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build",
                       "bench-memhp_aml")
OPS = re.compile(r"\): (\d+) opcodes, (\d+) method calls, (\d+) region accesses")
COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def measure(binary=DEFAULT):
    """(instructions per add, opcodes per add, region accesses per add), or
    None and the reason when the binary or valgrind is missing."""
    if not os.path.exists(binary):
        return None, f"{binary} not built (make {os.path.relpath(binary)})"
    if not shutil.which("valgrind"):
        return None, "no valgrind"
    root = os.path.join(os.path.dirname(os.path.abspath(binary)), "..")
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                        "--collect-atstart=no", "--toggle-collect=bench_one_add",
                        binary, str(ADDS)], cwd=root, capture_output=True, text=True,
                       timeout=600)
    ops, got = OPS.search(p.stdout), COLLECTED.search(p.stderr)
    if p.returncode or not ops or not got:
        return None, f"{binary} under callgrind failed: {p.stdout}{p.stderr[-500:]}"
    return (int(got.group(1)) / ADDS, int(ops.group(1)), int(ops.group(3))), None


def main():
    fig, why = measure(sys.argv[1] if len(sys.argv) > 1 else DEFAULT)
    if not fig:
        print(f"aml_insns: {why}", file=sys.stderr)
        return 1
    insns, ops, io = fig
    print(f"AML of one DIMM add on the host (callgrind, QEMU's DSDT, 8 slots): {insns:.0f} "
          f"instructions, {ops} opcodes, {io} region accesses: {insns / ops:.0f} instructions "
          f"per opcode")
    return 0


if __name__ == "__main__":
    sys.exit(main())

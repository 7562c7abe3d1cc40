#!/usr/bin/env python3
"""acpi_capture.py - keep QEMU's ACPI tables as test fixtures.

Boots the memlab ISO in QEMU 7.2 q35 (TCG, as the tests boot it, through
tests/qemu/memlab.py) once per configuration below, runs the shell's
`acpidump`, and lets ACPICA's `acpixtract -a` turn that text into one
binary per table, kept in tests/host/fixtures/acpi/<config>/: dsdt.dat,
ssdt.dat (or ssdt1.dat, ssdt2.dat, ... when there are several), facp.dat,
apic.dat, facs.dat, rsdt.dat, ...  These are the firmware tables the AML
interpreter's host tests run against, beside ASL of their own.

Refresh (after a QEMU upgrade, or to add a configuration):

    make iso
    /usr/bin/python3 tools/acpi_capture.py              # every configuration
    /usr/bin/python3 tools/acpi_capture.py numa nvdimm  # some of them
    git add tests/host/fixtures/acpi && git commit

Each directory is replaced as a whole.  tests/qemu/test_acpi_fixtures.py
boots the same configurations and fails when the running machine's tables
differ from the committed files by one byte, so a QEMU that builds other
tables is noticed (then refresh, and look at what changed with
`iasl -d` on both).  The same test checks, without a machine, that
`iasl -d` disassembles every DSDT and SSDT and that acpiexec evaluates
\\_S5 on each set.

Needs: acpica-tools (acpixtract), qemu-system-x86, a built ISO
(MEMLAB_NO_BUILD=1 uses build/memlab.elf as it is; otherwise the harness
runs make).
"""

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "host" / "fixtures" / "acpi"

# name: (the -m value, more QEMU arguments, what it shows).  memlab.py's
# Machine adds -machine q35 -cpu max -smp 1; a later -smp or -machine in
# the extra arguments wins or merges, as on QEMU's command line.
CONFIGS = {
    "dimms": ("2G,slots=8,maxmem=64G", [],
              "make run's machine: 8 DIMM slots (memory hotplug device MHPC, MP00-MP07)"),
    "numa": ("2G,slots=4,maxmem=16G",
             ["-smp", "2",
              "-object", "memory-backend-ram,id=m0,size=1G",
              "-object", "memory-backend-ram,id=m1,size=1G",
              "-numa", "node,nodeid=0,cpus=0,memdev=m0",
              "-numa", "node,nodeid=1,cpus=1,memdev=m1"],
             "two nodes with a CPU and 1 GiB each, DIMM slots: SRAT, _PXM"),
    "bridges": ("2G,slots=4,maxmem=16G",
                ["-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1",
                 "-device", "pcie-root-port,id=port2,bus=pcie.0,slot=2",
                 "-device", "pcie-pci-bridge,id=br1,bus=port2"],
                "two PCIe root ports and a PCI bridge behind one: ACPI PCI hotplug, BSEL"),
    "nvdimm": ("2G,slots=4,maxmem=40G",
               ["-machine", "nvdimm=on",
                "-object", "memory-backend-ram,id=nv0,size=4G,reserve=off",
                "-device", "nvdimm,id=nvdimm0,memdev=nv0"],
               "one NVDIMM: NFIT and the NVDIMM SSDT (_DSM)"),
    "smp4": ("2G,slots=8,maxmem=64G", ["-smp", "4"],
             "four CPUs: MADT entries, processor devices in the DSDT"),
}

HEADER = re.compile(r"^([A-Z0-9_?]{4}|RSD PTR) @ 0x([0-9A-Fa-f]{16})$")
ROW = re.compile(r"^\s+([0-9A-Fa-f]{4,}): ((?:[0-9A-Fa-f]{2} ){1,16})")


def parse_acpidump(text):
    """The tables of acpidump text, as [(signature, address, bytes)] in
    the order printed.  Lines that are neither a header nor a row (a log
    line, the blank line after a table) are skipped; a row out of order or
    a table whose length disagrees with its header raises ValueError."""
    tables = []
    cur = None
    for line in text.splitlines():
        h = HEADER.match(line)
        if h:
            cur = [h.group(1), int(h.group(2), 16), bytearray()]
            tables.append(cur)
            continue
        r = ROW.match(line)
        if r and cur is not None:
            if int(r.group(1), 16) != len(cur[2]):
                raise ValueError(f"{cur[0]}: row {r.group(1)} after {len(cur[2])} bytes")
            cur[2] += bytes.fromhex(r.group(2))
    out = []
    for sig, addr, data in tables:
        if len(data) < 8 or int.from_bytes(data[4:8], "little") != len(data):
            raise ValueError(f"{sig} @ {addr:#x}: {len(data)} bytes, header says "
                             f"{int.from_bytes(data[4:8], 'little') if len(data) >= 8 else '?'}")
        out.append((sig, addr, bytes(data)))
    return out


def fixture_names(tables):
    """{file name: bytes} as acpixtract -a names them: the signature in
    lower case, numbered from 1 when a signature comes more than once."""
    count = {}
    for sig, _, _ in tables:
        count[sig] = count.get(sig, 0) + 1
    seen = {}
    files = {}
    for sig, _, data in tables:
        seen[sig] = seen.get(sig, 0) + 1
        n = str(seen[sig]) if count[sig] > 1 else ""
        files[f"{sig.lower()}{n}.dat"] = data
    return files


def read_fixtures(config):
    """{file name: bytes} of the committed fixtures of one configuration."""
    d = FIXTURES / config
    return {p.name: p.read_bytes() for p in sorted(d.glob("*.dat"))}


def boot(config, name=None):
    """A started machine of one configuration, at its prompt (memlab.py)."""
    sys.path.insert(0, str(REPO / "tests" / "qemu"))
    import memlab  # noqa: E402

    mem, extra, _ = CONFIGS[config]
    kernel = memlab.KERNEL if memlab.os.environ.get("MEMLAB_NO_BUILD") else memlab.build_kernel()
    m = memlab.Machine(memlab.make_iso(kernel, ""), name=name or f"acpi-capture-{config}",
                       mem=mem, extra=extra).start()
    m.wait_boot()
    return m


def capture(config):
    """Boot, acpidump, acpixtract -a into the fixture directory."""
    m = boot(config)
    try:
        text = m.run("acpidump", timeout=120)
    finally:
        m.kill()
    parse_acpidump(text)        # refuse to keep a dump that does not parse
    dest = FIXTURES / config
    with tempfile.TemporaryDirectory(prefix="acpi-capture-") as tmp:
        (Path(tmp) / "acpidump.txt").write_text(text)
        subprocess.run(["acpixtract", "-a", "acpidump.txt"], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL)
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        for f in sorted(Path(tmp).glob("*.dat")):
            shutil.copy(f, dest / f.name)
    names = sorted(p.name for p in dest.glob("*.dat"))
    print(f"{config}: {len(names)} tables: {' '.join(names)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("configs", nargs="*", metavar="CONFIG",
                    help=f"configurations to capture (default: all of {', '.join(CONFIGS)})")
    args = ap.parse_args()
    for c in args.configs:
        if c not in CONFIGS:
            ap.error(f"no configuration {c!r}; there are {', '.join(CONFIGS)}")
    for c in args.configs or CONFIGS:
        capture(c)
    return 0


if __name__ == "__main__":
    sys.exit(main())

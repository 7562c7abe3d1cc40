"""The gdb helpers (tools/memlab_gdb.py, loaded by tools/gdbinit): gdb in
batch mode attaches to QEMU's gdb server (-gdb) of a booted machine, runs each
helper, and what it prints must be what the shell prints for the same
thing: `page`'s first lines, /proc/buddyinfo, a block's sysfs state, node
and zone, the `sections` table.  gdb stops the guest while it reads and
detaches at the end, so the shell goes on as before."""

import re
import socket
import subprocess

import pytest

from memlab import KERNEL, REPO, SCALE

GDB_TIMEOUT = 120 * SCALE
MEMDIR = "/sys/devices/system/memory"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def gdb(port, *commands):
    """Run commands in gdb attached to QEMU's gdb server at port; their output."""
    argv = ["gdb", "-batch", "-nx", "-ex", "set pagination off",
            "-ex", f"file {KERNEL}", "-ex", f"source {REPO / 'tools' / 'memlab_gdb.py'}",
            "-ex", f"target remote 127.0.0.1:{port}"]
    for c in commands:
        argv += ["-ex", f"echo === {c}\\n", "-ex", c]
    argv += ["-ex", "detach"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=GDB_TIMEOUT, cwd=REPO)
    assert "Python Exception" not in r.stderr and "Error" not in r.stderr, r.stderr
    out = {}
    for part in r.stdout.split("=== ")[1:]:
        name, _, text = part.partition("\n")
        out[name] = text
    assert set(out) == set(commands), r.stdout + r.stderr
    return out


@pytest.fixture
def gdb_machine(boot):
    port = free_port()
    m = boot(extra=["-gdb", f"tcp:127.0.0.1:{port}"])
    m.port = port
    return m


def shell_lines(m, cmd):
    return [line.rstrip() for line in m.run(cmd).splitlines() if not line.startswith("[")]


def test_gdb_helpers_agree_with_the_shell(gdb_machine):
    m = gdb_machine
    pfns = ["0x1", "0x100", "0x1000", "0x40003"]    # reserved, kernel, a free head, inside one
    # the state every helper reads, as the shell sees it now
    pages = {p: shell_lines(m, f"page {p}")[:6] for p in pfns}
    buddyinfo = shell_lines(m, "cat /proc/buddyinfo")
    sections = shell_lines(m, "sections")[1:]
    block = {attr: m.run(f"cat {MEMDIR}/memory9/{attr}").strip()
             for attr in ("state", "phys_index")}
    zone = shell_lines(m, "cat /proc/zoneinfo")

    out = gdb(m.port, *[f"memlab-page {p}" for p in pfns], "memlab-buddyinfo",
              "memlab-sections", "memlab-zone 0 DMA32", "memlab-block 9")
    for p in pfns:
        assert [l.rstrip() for l in out[f"memlab-page {p}"].splitlines()] == pages[p], \
            (pages[p], out[f"memlab-page {p}"])
    assert [l.rstrip() for l in out["memlab-buddyinfo"].splitlines()] == buddyinfo
    got = out["memlab-sections"].splitlines()
    assert got[:-1] == sections[:-1] and got[-1] == f"{len(sections) - 1} present sections", \
        (got, sections)
    b = out["memlab-block 9"].strip()
    assert b.startswith(f"memory9: state {block['state']}, node 0, zone DMA32, "
                        f"phys_index 0x{block['phys_index']}, boot"), (b, block)
    z = out["memlab-zone 0 DMA32"]
    free = sum(int(c) << o for o, c in enumerate(buddyinfo[-1].split()[4:]))
    assert f"free pages in the buddy: {free}\n" in z, z
    spanned = re.search(r"spanned (\d+) present (\d+) managed (\d+)", z).groups()
    text = "\n".join(zone)
    dma32 = text[text.index("Node 0, zone    DMA32\n"):]
    for name, value in zip(("spanned", "present", "managed"), spanned):
        assert re.search(rf"^\s+{name}\s+{value}$", dma32, re.M), (name, value, dma32[:600])
    # gdb detached: the machine runs on
    assert "memlab" in m.run("version")


def test_gdb_helpers_refuse_bad_arguments(gdb_machine):
    argv = ["gdb", "-batch", "-nx", "-ex", f"file {KERNEL}",
            "-ex", f"source {REPO / 'tools' / 'memlab_gdb.py'}",
            "-ex", f"target remote 127.0.0.1:{gdb_machine.port}",
            "-ex", "memlab-page nope", "-ex", "detach"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=GDB_TIMEOUT, cwd=REPO)
    assert "pfn 'nope' is not a number" in r.stderr, r.stderr
    for bad, msg in (("memlab-zone 0 Nowhere", "no zone 'Nowhere'"),
                     ("memlab-block 99999", "no memory block 99999"),
                     ("memlab-zone 0", "usage: memlab-zone NID NAME")):
        argv[-3] = bad
        r = subprocess.run(argv, capture_output=True, text=True, timeout=GDB_TIMEOUT, cwd=REPO)
        assert msg in r.stderr, (bad, r.stderr)
    assert "memlab" in gdb_machine.run("version")

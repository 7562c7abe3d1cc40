"""Icelake-class topology: two sockets, two NUMA nodes that carry
both CPUs and memory.  The MADT's processor entries and the SRAT's
processor affinity, as `numa`, `acpi madt|srat` and the node files show
them.  memlab runs on CPU 0; the others are started and idle
(tests/qemu/test_smp.py tests the start).

Icelake-Server under TCG prints warnings about features TCG cannot
emulate (on QEMU's stderr, in the .qemu.log); they are harmless."""

import re

ICELAKE = ["-smp", "4,sockets=2,cores=2,threads=1",
           "-object", "memory-backend-ram,id=m0,size=1G",
           "-object", "memory-backend-ram,id=m1,size=1G",
           "-numa", "node,nodeid=0,cpus=0-1,memdev=m0",
           "-numa", "node,nodeid=1,cpus=2-3,memdev=m1"]


def cpu_table(out):
    """{cpu: (apic id, pxm, node)} from the `numa` CPU table."""
    rows = re.findall(r"^  cpu (\d+): APIC id (\d+), UID \d+, proximity domain (\d+), "
                      r"node (\d+)", out, re.M)
    return {int(c): (int(a), int(p), int(n)) for c, a, p, n in rows}


def test_icelake_two_sockets_two_nodes(boot):
    m = boot(mem="2G,slots=4,maxmem=16G", cpu="Icelake-Server", extra=ICELAKE)
    srat = m.run("acpi srat")
    # what the SRAT says: APIC id -> proximity domain -> node
    said = {int(a): (int(p), int(n)) for a, p, n in re.findall(
        r"processor: (?:x2)?APIC id (\d+), proximity (\d+) -> node (\d+)", srat)}
    assert said == {0: (0, 0), 1: (0, 0), 2: (1, 1), 3: (1, 1)}, srat

    out = m.run("numa")
    assert "CPUs: 4 listed" in out, out
    table = cpu_table(out)
    assert table == {c: (c, said[c][0], said[c][1]) for c in range(4)}, out
    assert re.search(r"^  cpu 0: .* \(boot CPU\)$", out, re.M), out
    nodes = re.findall(r"^node (\d+): .*?\n  cpus: (\S+)", out, re.M | re.S)
    assert nodes == [("0", "0-1"), ("1", "2-3")], out

    madt = m.run("acpi madt")
    assert "4 CPUs" in madt, madt
    for apic in range(4):
        assert f"local APIC: APIC id {apic}, UID {apic}, enabled" in madt, madt
    assert "local APIC NMI: all processors, LINT1" in madt, madt

    node = "/sys/devices/system/node"
    assert m.run(f"cat {node}/has_cpu") == "0-1\n"
    assert m.run(f"cat {node}/node0/cpulist") == "0-1\n"
    assert m.run(f"cat {node}/node1/cpulist") == "2-3\n"
    assert m.run(f"cat {node}/node0/cpumap") == "3\n"
    assert m.run(f"cat {node}/node1/cpumap") == "c\n"
    # the boot log says the same, and that all four came online
    assert "numa: node 1: CPUs 2-3" in m.boot_log
    assert "smp: 4 of 4 CPUs online" in m.boot_log
    assert re.findall(r"^ +\d+ +(\d+) +(\d+) +online", m.run("cpus"), re.M) == \
        [("0", "0"), ("1", "0"), ("2", "1"), ("3", "1")]

    # page-table pages are counted on the node their memory is on; the
    # nodes' shares add up to /proc/meminfo's PageTables
    def kb(text, field):
        return int(re.search(rf"^(?:Node \d+ )?{field}:\s+(\d+) kB$", text, re.M).group(1))
    total = kb(m.run("cat /proc/meminfo"), "PageTables")
    shares = [kb(m.run(f"cat {node}/node{n}/meminfo"), "PageTables") for n in (0, 1)]
    assert sum(shares) == total and shares[0] > 0, (shares, total)

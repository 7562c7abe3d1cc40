"""`stress` (docs/smp.md): allocations from every CPU at once, under
multi-threaded TCG with -smp 4.  Each CPU allocates, fills, checks and
frees blocks of orders 0-10; the report must show 4 CPUs that each did
work, no pattern error, no bad free, and the free pages after draining
every pcp list equal to those before.  Then the buddy's own counts agree
(/proc/buddyinfo summed against zoneinfo's free pages).  One run goes on
in the background while a DIMM is added and ejected through QMP.  Linux's
CPU views (/sys/devices/system/cpu/...) and the node's CPUs on a
two-node machine.

Counts only, no times: every bound is a generous timeout."""

import os
import re

import pytest

import memlab
import hotplug as hp


# every machine here runs with one host thread per virtual CPU (conftest.py)
pytestmark = pytest.mark.usefixtures("multi_thread_tcg")


STRESS_TIMEOUT = 300.0 * memlab.SCALE
ROW = re.compile(r"^ *(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+)$", re.M)
FREE = re.compile(r"^stress: free pages before (\d+), after (\d+): (.*)$", re.M)


def stress_rows(out):
    """{cpu: (ops, allocs, failed, checked, errors, bad frees)}."""
    return {int(r[0]): tuple(int(x) for x in r[1:]) for r in ROW.findall(out)}


def check_report(out, ncpus, cpus=None):
    rows = stress_rows(out)
    assert sorted(rows) == (cpus or list(range(ncpus))), out
    for cpu, (ops, allocs, failed, checked, errors, bad) in rows.items():
        assert ops > 0 and allocs > 0 and checked > 0, (cpu, out)
        assert errors == 0 and bad == 0, (cpu, out)
    assert "stress: pattern errors: 0, bad frees: 0" in out, out
    assert "pattern error at" not in out, out
    return rows


def buddyinfo_free(m):
    """Free pages summed from /proc/buddyinfo: count * 2^order."""
    total = 0
    for line in hp.cat(m, "/proc/buddyinfo").splitlines():
        cols = line.split()
        if len(cols) < 5 or cols[0] != "Node":
            continue
        total += sum(int(n) << o for o, n in enumerate(cols[4:]))
    return total


def check_consistent(m):
    """buddyinfo's blocks add up to zoneinfo's free pages, after a drain."""
    hp.sh(m, "drain")
    zi = hp.zoneinfo(m)
    assert buddyinfo_free(m) == sum(z["free"] for z in zi.values())


# Operations per CPU of test_stress_four_cpus's runs: 5000 in make test
# (about 30 s under TCG on 2 cores; 20000 took two minutes there, a soak's
# length, not a test's); MEMLAB_STRESS_OPS=20000 for the longer run.
STRESS_OPS = int(os.environ.get("MEMLAB_STRESS_OPS", "5000"))


def test_stress_four_cpus(boot):
    m = boot(extra=["-smp", "4"], timeout=memlab.BOOT_TIMEOUT * 3)
    out = hp.sh(m, f"stress -n {STRESS_OPS}", timeout=STRESS_TIMEOUT)
    assert f"stress: 4 CPUs, orders 0-10, {STRESS_OPS} operations each" in out, out
    rows = check_report(out, 4)
    assert all(r[0] == STRESS_OPS for r in rows.values()), out
    free = FREE.search(out)
    assert free and free.group(1) == free.group(2), out
    assert free.group(3) == "equal, no page lost", out
    check_consistent(m)
    assert "online (idle)" in hp.sh(m, "cpus")
    # small orders only: the pcp lists and their locks, from four CPUs
    out = hp.sh(m, f"stress -n {STRESS_OPS} orders=0-3", timeout=STRESS_TIMEOUT)
    check_report(out, 4)
    free = FREE.search(out)
    assert free and free.group(3) == "equal, no page lost", out
    # the pages each CPU freed last sit on its own lists: each AP, idle
    # again, drained them on itself (a work item), as drain_all_pages()
    drained = re.search(r"^stress: drained after the run:(.*) the rest empty$", out, re.M)
    assert drained, out
    aps = re.findall(r"cpu ([1-3]): \d+ \(([^)]*)\)", drained.group(1))
    assert aps and all(where == "on it" for _, where in aps), drained.group(0)
    check_consistent(m)
    # the APs only, CPU 0 waiting in the job
    out = hp.sh(m, "stress -n 2000 cpus=1-3 orders=2-5", timeout=STRESS_TIMEOUT)
    assert "stress: 3 CPUs, orders 2-5, 2000 operations each" in out, out
    check_report(out, 3, cpus=[1, 2, 3])
    assert FREE.search(out).group(3) == "equal, no page lost", out
    assert "stress: cpus '4' is not a list of CPUs 0-3" in hp.sh(m, "stress cpus=4")


def test_stress_ctrl_c_stops_every_cpu(boot):
    m = boot(extra=["-smp", "4"], timeout=memlab.BOOT_TIMEOUT * 3)
    m.send_line("stress -t 3600")
    m.wait_for(r"stress: 4 CPUs, orders 0-10, 3600 s", timeout=STRESS_TIMEOUT)
    m.send_bytes(b"\x03")
    out = m.wait_prompt(timeout=STRESS_TIMEOUT).replace("\r", "")
    assert "stress: interrupted: every CPU stopped and freed what it kept" in out, out
    assert "stress: pattern errors: 0, bad frees: 0" in out, out
    free = FREE.search(out)
    assert free and free.group(3) == "equal, no page lost", out
    check_consistent(m)
    assert len(re.findall(r"online \(idle\)", hp.sh(m, "cpus"))) == 3


def eject(m, dimm):
    """device_del; True once DEVICE_DELETED came, False when memlab refused
    the eject (its pages in use: _OST 0x81) or left it pending."""
    q = m.qmp()
    q.cmd("device_del", id=dimm)
    while True:
        ev = q.wait_event(None, timeout=hp.UNPLUG_DELAY_MAX * 3)
        if ev["event"] == "DEVICE_DELETED" and ev["data"].get("device") == dimm:
            q.cmd("object-del", id=f"mem-{dimm}")
            return True
        info = ev["data"].get("info", {}) if ev["event"] == "ACPI_DEVICE_OST" else {}
        if info.get("device") == dimm and info.get("source") == hp.OST_EJECT_REQUEST and \
                info.get("status") not in (hp.OST_SUCCESS, 0x84):
            return False


def test_stress_during_hotplug(boot):
    """stress in the background while a DIMM comes and goes: either the
    eject works or memlab refuses it (stress pages in the DIMM); the
    state stays consistent either way, and a later run loses no page."""
    m = hp.boot_hotplug(boot, extra=["-smp", "4"])
    before = hp.meminfo(m)["MemTotal"]
    out = hp.sh(m, "stress -t 3600 &")
    assert re.search(r"\[(\d+)\] stress -t 3600: running in the background", out), out
    job = re.search(r"\[(\d+)\]", out).group(1)
    hp.plug(m, "d1", 1 << 30)
    assert hp.meminfo(m)["MemTotal"] > before
    ejected = eject(m, "d1")
    hp.settle(m)
    # a DIMM onlined movable holds no stress page (they are unmovable): its
    # eject offlines it while the four CPUs allocate, and must succeed
    hp.set_auto_online(m, "online_movable")
    hp.plug(m, "d2", 1 << 30)
    assert eject(m, "d2"), hp.sh(m, "hotplug")
    hp.settle(m)
    assert "stress" in hp.sh(m, "jobs")
    hp.sh(m, f"kill {job}")
    # fg waits for the job's end and prints what it kept, or, when it has
    # ended already, the report comes before fg's prompt
    out = hp.sh(m, "fg", timeout=STRESS_TIMEOUT)
    assert f"[{job}] interrupted after" in out or "stress: interrupted" in out, out
    check_report(out, 4)
    free = FREE.search(out)
    assert free, out
    if ejected:
        assert hp.meminfo(m)["MemTotal"] == before
    check_consistent(m)
    # the state the hotplug left: a run now loses nothing
    out = hp.sh(m, "stress -n 5000", timeout=STRESS_TIMEOUT)
    check_report(out, 4)
    assert FREE.search(out).group(3) == "equal, no page lost", out
    check_consistent(m)


NUMA2_SMP4 = ["-smp", "4,sockets=2,cores=2,threads=1",
              "-object", "memory-backend-ram,id=m0,size=1G",
              "-object", "memory-backend-ram,id=m1,size=1G",
              "-numa", "node,nodeid=0,cpus=0-1,memdev=m0",
              "-numa", "node,nodeid=1,cpus=2-3,memdev=m1"]
CPUDIR = "/sys/devices/system/cpu"
NODEDIR = "/sys/devices/system/node"


def test_cpu_views_two_nodes(boot):
    """Linux's CPU lists and per-CPU files, and each node's real CPUs."""
    m = boot(extra=NUMA2_SMP4, timeout=memlab.BOOT_TIMEOUT * 3)
    for name in ("online", "possible", "present"):
        assert hp.cat(m, f"{CPUDIR}/{name}").strip() == "0-3", name
    assert hp.cat(m, f"{CPUDIR}/offline").strip() == ""
    assert "No such file" in hp.sh(m, f"cat {CPUDIR}/cpu0/online")
    for cpu in (1, 2, 3):
        assert hp.cat(m, f"{CPUDIR}/cpu{cpu}/online").strip() == "1"
    for cpu, node in ((0, 0), (1, 0), (2, 1), (3, 1)):
        assert hp.sh(m, f"ls -l {CPUDIR}/cpu{cpu}/node{node}").strip().endswith(
            f"node{node} -> ../../node/node{node}"), cpu
        assert hp.sh(m, f"ls -l {NODEDIR}/node{node}/cpu{cpu}").strip().endswith(
            f"cpu{cpu} -> ../../cpu/cpu{cpu}"), cpu
        assert hp.cat(m, f"{CPUDIR}/cpu{cpu}/node{node}/cpulist").strip() == \
            ("0-1" if node == 0 else "2-3")
    assert hp.cat(m, f"{NODEDIR}/node0/cpulist").strip() == "0-1"
    assert hp.cat(m, f"{NODEDIR}/node1/cpulist").strip() == "2-3"
    assert hp.cat(m, f"{NODEDIR}/node0/cpumap").strip() == "3"
    assert hp.cat(m, f"{NODEDIR}/node1/cpumap").strip() == "c"
    # the stress run on two nodes: each CPU allocates from its own node first
    out = hp.sh(m, "stress -n 5000", timeout=STRESS_TIMEOUT)
    check_report(out, 4)
    assert FREE.search(out).group(3) == "equal, no page lost", out
    check_consistent(m)


def test_cpu_views_not_present(boot):
    """-smp 2,maxcpus=4: two CPUs present and online, four possible.  QEMU
    lists the other two as disabled in a MADT older than revision 5 (no
    online-capable flag), which Linux counts as possible too."""
    m = boot(extra=["-smp", "2,maxcpus=4"])
    madt = hp.sh(m, "acpi madt")
    assert len(re.findall(r"local APIC: APIC id \d+, UID \d+, disabled", madt)) == 2, madt
    assert hp.cat(m, f"{CPUDIR}/online").strip() == "0-1"
    assert hp.cat(m, f"{CPUDIR}/present").strip() == "0-1"
    assert hp.cat(m, f"{CPUDIR}/possible").strip() == "0-3"
    assert hp.cat(m, f"{CPUDIR}/offline").strip() == "2-3"
    assert hp.cat(m, f"{CPUDIR}/cpu1/online").strip() == "1"
    assert "No such file" in hp.sh(m, f"ls {CPUDIR}/cpu2")

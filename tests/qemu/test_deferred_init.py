"""Deferred memmap init of boot memory (deferred_init=new,
docs/deferred-init.md) on the real machine.

An 8 GiB guest reaches the prompt with most of its memmap still pending
(the boot log says how many sections wait); with
deferred_init_background=0 they stay pending, so the views and operations
on pending memory can be looked at: `numa`, `sections`, `memmap map` and
`page` say "pending", a big `alloc` succeeds at once by growing the zone,
offlining a pending block initialises it first, a DIMM next to pending
memory is added and onlined as usual, `meminit finish` stops when asked
(held by `work pause`, one section stepped, then `kill`: exactly one
section done) and finishes later; `selftest deferred` (KTAP) checks the pending
set against the sections and every zone's present = managed + reserved +
pending, in between.  With the background work on (the default), a
64 GiB guest answers commands while it runs, and when it is done MemTotal
and every zone's counters equal those of an eager boot (deferred_init=old).
"""

import re
import time

import pytest

from memlab import SCALE

LOG_LINE = re.compile(r"^\[\s*\d+\.\d+\] .*\n?", re.M)
HOLD = "deferred_init=new deferred_init_background=0"


def sh(m, cmd, timeout=None):
    out = m.run(cmd) if timeout is None else m.run(cmd, timeout=timeout)
    return LOG_LINE.sub("", out)


def meminfo(m):
    return {k: int(v) for k, v in
            re.findall(r"^(\w+):\s+(\d+) kB$", sh(m, "cat /proc/meminfo"), re.M)}


def big(size):
    """Boot RAM the host commits only as the guest touches it."""
    return ["-object", f"memory-backend-ram,id=ram,size={size},reserve=off",
            "-machine", "memory-backend=ram"]


def selftest_ok(m):
    """`selftest deferred`: the in-kernel consistency check (KTAP)."""
    out = sh(m, "selftest deferred", timeout=60 * SCALE)
    assert "# selftest: 1 suites, 0 failed cases" in out, out
    assert "not ok" not in out, out


def pending(m):
    """{node: (initialised pages, pending pages, pending sections)} from `meminit`."""
    out = sh(m, "meminit")
    rows = re.findall(r"^  node (\d+): (\d+) pages initialised, (\d+) pending \((\d+) sections\)$",
                      out, re.M)
    return {int(n): (int(i), int(p), int(s)) for n, i, p, s in rows}, out


def zone_counters(m):
    """{(node, zone): (present, managed, spanned)} from /proc/zoneinfo."""
    zones, key = {}, None
    for line in sh(m, "cat /proc/zoneinfo").splitlines():
        head = re.match(r"^Node (\d+), zone\s+(\w+)", line)
        if head:
            key = (int(head.group(1)), head.group(2))
            zones[key] = {}
            continue
        kv = re.match(r"^\s+(present|managed|spanned)\s+(\d+)$", line)
        if key and kv:
            zones[key][kv.group(1)] = int(kv.group(2))
    return zones


def test_prompt_comes_with_pending_memory_and_views_say_so(boot):
    m = boot(cmdline=HOLD, mem="8G")
    assert re.search(r"deferred init: \d+ sections \(\d+ MiB\) of boot memory wait",
                     m.output), m.tail()
    nodes, out = pending(m)
    assert "deferred_init=new at boot" in out, out
    init, pend, secs = nodes[0]
    assert pend > 1_500_000 and secs > 40, out           # most of 8 GiB waits
    info = meminfo(m)
    assert info["MemTotal"] < 1024 * 1024, info          # under 1 GiB managed so far
    out = sh(m, "numa")
    assert re.search(rf"^  {pend} pages pending: memmap init deferred", out, re.M), out
    assert ",deferred" in sh(m, "sections")
    out = sh(m, "memmap map")
    assert re.search(r"drawn: .*, (\d+) p$", out, re.M), out
    out = sh(m, "page 0x50000")
    assert "memmap init pending: section 10" in out, out
    assert "long operations: none" in sh(m, "work")      # held: no background work
    out = sh(m, "mech")
    assert re.search(r"^deferred_init\s+new ", out, re.M), out
    selftest_ok(m)                                       # also does one section
    assert pending(m)[0][0][2] == secs - 1


def test_big_alloc_grows_the_zone_at_once(boot):
    m = boot(cmdline=HOLD, mem="8G")
    before = meminfo(m)["MemTotal"]
    out = sh(m, "alloc 10 600", timeout=120 * SCALE)     # 2.4 GiB, far over the early part
    assert "alloc: 600 blocks of order 10" in out, out[-2000:]
    nodes, out = pending(m)
    assert re.search(r"[1-9]\d* grown on demand", out), out
    assert nodes[0][1] > 0, out                          # the rest still waits
    assert meminfo(m)["MemTotal"] > before + 2 * 1024 * 1024
    sh(m, "free all", timeout=60 * SCALE)
    assert meminfo(m)["MemFree"] > before + 2 * 1024 * 1024


def test_offline_of_a_pending_block_initialises_it_first(boot):
    m = boot(cmdline=HOLD, mem="8G")
    assert "memmap init pending" in sh(m, "page 0x140000")   # block 40
    out = sh(m, "memory offline 40", timeout=60 * SCALE)
    assert "error" not in out.lower(), out
    assert re.search(r"^0x0000000140000000-0x0000000147ffffff\s+128M offline", sh(m, "lsmem"),
                     re.M), sh(m, "lsmem")
    out = sh(m, "page 0x140000")
    assert "memmap init pending" not in out, out
    nodes, out = pending(m)
    assert "1 sections for ranges" in out, out
    out = sh(m, "memory online 40", timeout=60 * SCALE)
    assert "error" not in out.lower(), out
    selftest_ok(m)


def test_offline_of_a_pending_block_holding_memmap_refuses(boot):
    """Section 78 of an 8 GiB guest holds the last 2 MiB of the memmap and
    waits all the same: offlining it initialises it (the memmap pages
    become PG_reserved), then refuses as the eager boot would, and nothing
    is lost."""
    m = boot(cmdline=HOLD, mem="8G")
    assert "memmap init pending" in sh(m, "page 0x277fff")     # block 78's last page
    before = meminfo(m)["MemTotal"]
    out = sh(m, "memory offline 78", timeout=60 * SCALE)
    assert re.search(r"memory78: .*(busy|reserved|unmovable)", out, re.I), out
    assert re.search(r"^memory78\s.*online", sh(m, "memory"), re.M) or "online" in \
        sh(m, "cat /sys/devices/system/memory/memory78/state"), out
    page = sh(m, "page 0x277fff")
    assert "memmap init pending" not in page and "reserved" in page.lower(), page
    nodes, out = pending(m)
    assert "1 sections for ranges" in out, out
    # 2 MiB of the 128 MiB are memmap: the rest reached the buddy
    assert meminfo(m)["MemTotal"] == before + (128 - 2) * 1024, out
    selftest_ok(m)


def test_meminit_finish_stops_when_asked_and_completes(boot):
    """`meminit finish &` held by `work pause`: `work step 1` gives the job
    one turn of exactly one section, `kill` asks it to stop (the request
    Ctrl-C makes in the foreground), and its next turn stops it between
    two sections, whatever the machine's speed: one section done, the rest
    still pending.  A second `meminit finish` does the rest."""
    m = boot(cmdline=HOLD, mem="8G")
    nodes, _ = pending(m)
    total = nodes[0][2]
    assert total > 2, nodes
    assert "long operations paused" in sh(m, "work pause")
    out = sh(m, "meminit finish &")
    job = re.match(r"\[(\d+)\] meminit finish: running in the background", out.strip())
    assert job, out
    job = job.group(1)
    out = sh(m, "work step 1")
    assert re.search(rf"^  job \[{job}\] meminit finish +1/{total} sections, .*, held$",
                     out, re.M), out
    assert pending(m)[0][0][2] == total - 1
    sh(m, f"kill {job}")
    out = sh(m, "work step 1")
    assert re.search(rf"^\[{job}\] interrupted after \d+\.\d{{3}} s: meminit finish\n"
                     rf"meminit: interrupted after 1 of {total} sections; {total - 1} still "
                     rf"pending$", out, re.M), out
    left, _ = pending(m)
    assert left[0][2] == total - 1, left
    assert "work: long operations go on" in sh(m, "work resume")
    out = sh(m, "meminit finish", timeout=120 * SCALE)
    assert re.search(rf"meminit: {total - 1} sections initialised in \d+ ms; nothing pending",
                     out), out
    nodes, out = pending(m)
    assert nodes[0][1] == 0 and out.rstrip().endswith("done"), out
    selftest_ok(m)


@pytest.mark.serial
@pytest.mark.slow
def test_background_completes_while_commands_answer_and_equals_eager(boot):
    size = "64G"
    mem = f"{size},slots=4,maxmem=128G"
    m = boot(cmdline="deferred_init=new", mem=mem, extra=big(size), timeout=300 * SCALE)
    answers, worst, seen_work = 0, 0.0, False
    deadline = time.monotonic() + 300 * SCALE
    while True:
        t0 = time.monotonic()
        out = sh(m, "work")
        dt = time.monotonic() - t0
        answers += 1
        worst = max(worst, dt)
        assert dt <= 1.0 * SCALE, f"`work` answered after {dt:.2f} s"
        seen_work |= "deferred memmap init" in out
        nodes, meminit = pending(m)
        if nodes[0][2] == 0:  # memmap-only sections have no pending pages
            break
        assert time.monotonic() < deadline, meminit
        time.sleep(0.05)
    assert re.search(r"background: (\d+)/\1 sections, \d+ slices, [\d.]+ s, finished", meminit), meminit
    print(f"\nbackground init of {size}: {answers} answers, worst {worst * 1000:.0f} ms, "
          f"work listed it: {seen_work}")
    assert "deferred init: boot memory's memmap complete" in m.output
    selftest_ok(m)
    deferred_total, deferred_zones = meminfo(m)["MemTotal"], zone_counters(m)
    m.kill()

    e = boot(cmdline="deferred_init=old", mem=mem, extra=big(size), timeout=300 * SCALE)
    assert "deferred_init=old" in sh(e, "meminit")
    assert meminfo(e)["MemTotal"] == deferred_total
    assert zone_counters(e) == deferred_zones


def test_switch_to_old_finishes_the_pending_work(boot):
    m = boot(cmdline=HOLD, mem="8G")
    out = sh(m, "mech deferred_init old", timeout=120 * SCALE)
    nodes, out = pending(m)
    assert nodes[0][1] == 0 and out.rstrip().endswith("done"), out
    assert re.search(r"^deferred_init\s+old ", sh(m, "mech"), re.M)


def test_dimm_next_to_pending_boot_memory(boot):
    """A DIMM joins ZONE_NORMAL, whose boot sections mostly wait: it is
    added and onlined as usual (its 8 sections pending too, with
    deferred_init_hotplug=1, the default), the pending set changes only by
    those and by what the add's own allocations pulled in (its memmap comes from the buddy, and
    ZONE_NORMAL's initialised part at boot is the top section, mostly
    memmap and tables, so the zone may grow on demand), and the zone
    becomes contiguous only when the last boot section arrives."""
    m = boot(cmdline=HOLD, mem="8G")
    before, (nodes, _) = meminfo(m)["MemTotal"], pending(m)
    q = m.qmp()
    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": "m1", "size": 1 << 30,
                           "reserve": False})
    q.cmd("device_add", {"driver": "pc-dimm", "id": "d1", "memdev": "m1"})
    m.wait_for("node 0: 8 blocks added and onlined", timeout=60 * SCALE)
    after, out = pending(m)
    grown = nodes[0][2] + 8 - after[0][2]                # sections the add's allocations grew
    arrived = nodes[0][1] + 262144 - after[0][1]         # their free pages, now managed
    assert grown >= 0 and arrived == grown * 32768, out  # whole sections without memmap
    assert re.search(rf"grown on demand \({grown} sections\), 0 sections for ranges", out), out
    # boot sections count as they arrive (Linux's boot rule), the DIMM all at
    # its online (the hot-add rule; the grows took boot sections, below it)
    assert meminfo(m)["MemTotal"] == before + (arrived + 262144) * 4
    assert after[0][0] == nodes[0][0] + arrived, out
    assert re.search(r"^0\s+Normal .* no\s+no\s+0$", sh(m, "contiguity"), re.M)
    sh(m, "meminit finish", timeout=120 * SCALE)
    assert pending(m)[0][0][1] == 0
    selftest_ok(m)
    assert re.search(r"^0\s+Normal .* yes\s+yes\s+1$", sh(m, "contiguity"), re.M), \
        sh(m, "contiguity")


SMP4 = ["-smp", "4"]


def memmap_sum(m):
    """`meminit sum`: (struct pages, reserved, pending, hash)."""
    out = sh(m, "meminit sum", timeout=120 * SCALE)
    s = re.search(r"^memmap sum: (\d+) struct pages of boot memory \((\d+) reserved\), "
                  r"(\d+) pending: ([0-9a-f]{16})$", out, re.M)
    assert s, out
    return s.groups()


@pytest.mark.usefixtures("multi_thread_tcg")
def test_four_cpus_initialise_in_parallel_and_the_memmap_is_the_same(boot):
    """-smp 4 under multi-threaded TCG, 16 GiB of boot RAM.  Held at boot
    (deferred_init_background=0), `cpus meminit` initialises every pending
    section on the three APs (each claims its node's sections one at a time),
    CPU 0 none, while the console answers; every section is counted once.
    Booted with the defaults, the APs start on it before the prompt beside
    CPU 0's slices.  Both leave the memmap `meminit sum` sees (every struct
    page's zone, node and PG_reserved) exactly as deferred_init=old does."""
    size = "16G"
    mem = f"{size},slots=4,maxmem=64G"
    m = boot(cmdline=HOLD, mem=mem, extra=SMP4 + big(size), timeout=300 * SCALE)
    nodes, _ = pending(m)
    total = nodes[0][2]
    assert total > 100, nodes
    out = sh(m, "cpus meminit", timeout=300 * SCALE)
    got = re.search(r"^cpus meminit: 3 APs, \d+ ms:((?: cpu \d+: \d+,)+) (\d+) sections; "
                    r"0 pending$", out, re.M)
    assert got, out
    by_cpu = {int(c): int(n) for c, n in re.findall(r"cpu (\d+): (\d+)", got.group(1))}
    assert by_cpu.get(0) == 0, out                       # CPU 0 only waited
    assert sum(by_cpu.values()) == int(got.group(2)) == total, out
    assert set(by_cpu) <= {0, 1, 2, 3}, out
    print(f"\n`cpus meminit` of {total} sections: {by_cpu}")
    nodes, out = pending(m)
    assert nodes[0][2] == 0 and "by CPU" in out, out
    assert re.search(r"^\s+cpu 0: 0 sections", out, re.M), out
    selftest_ok(m)
    held = memmap_sum(m)
    assert held[2] == "0", held
    m.kill()

    m = boot(cmdline="", mem=mem, extra=SMP4 + big(size), timeout=300 * SCALE)
    assert "deferred init: 3 CPUs besides CPU 0 initialise their nodes' sections" in m.output
    waited = int(re.search(r"deferred init: (\d+) sections \(\d+ MiB\) of boot memory wait",
                           m.output).group(1))
    line = re.search(r"deferred init: sections by CPU: (.*)", m.output)
    if line:  # absent only if CPU 0 did them all before an AP got to run
        counts = [int(n) for n in re.findall(r"\d+: (\d+)", line.group(1))]
        assert sum(counts) == waited, line.group(0)
        print(f"\nbackground init with 4 CPUs: {line.group(1)}")
    assert memmap_sum(m) == held
    m.kill()

    e = boot(cmdline="deferred_init=old", mem=mem, extra=SMP4 + big(size), timeout=300 * SCALE)
    assert memmap_sum(e) == held

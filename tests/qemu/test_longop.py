"""Long operations never block the console
(docs/long-operations.md).

While a large virtio-mem plug or unplug, or the add and removal of a DIMM
of many blocks, moves in the background, a shell command is sent every
200 ms and each must be answered within 1 s (a generous bound: the
benchmark, `make bench`, holds the 100 ms target); the operation must
still complete.  Ctrl-C stops a long shell command at a consistent point.
Conflicting requests are refused or queued as the docs say.

Nothing here depends on machine speed: a check that needs the operation
to be still running holds it first (`work pause`, then `work step N`:
exactly N units of it, however fast the host), looks, and lets it go on
with `work resume` (docs/long-operations.md, "Pausing").
"""

import re
import time

import pytest

from memlab import SCALE

MiB = 1 << 20
GiB = 1 << 30
REGION = 4 * GiB                    # the virtio-mem region / first DIMM start here
ANSWER_MAX = 1.0 * SCALE            # one command's answer while an operation moves
PERIOD = 0.2                        # seconds between commands
OP_MAX = 300.0 * SCALE              # the whole operation, under a loaded TCG

LOG_LINE = re.compile(r"^\[\s*\d+\.\d+\] .*\n?", re.M)


def sh(m, cmd, timeout=None):
    out = m.run(cmd) if timeout is None else m.run(cmd, timeout=timeout)
    return LOG_LINE.sub("", out)


def timed(m, cmd):
    """(output, seconds from Enter to the prompt)."""
    t0 = time.monotonic()
    out = sh(m, cmd)
    return out, time.monotonic() - t0


def memtotal_kb(m):
    mt = re.search(r"^MemTotal:\s+(\d+) kB$", sh(m, "cat /proc/meminfo"), re.M)
    assert mt, "no MemTotal"
    return int(mt.group(1))


def vmem_boot(boot, gib):
    return boot(mem=f"2G,maxmem={gib + 8}G", extra=[
        "-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1",
        "-object", f"memory-backend-ram,id=hotmem0,size={gib}G,share=on,reserve=off",
        "-device", "virtio-mem-pci,id=vmem1,memdev=hotmem0,bus=port1,requested-size=0"])


def resize(m, size):
    m.qmp().cmd("qom-set", path="vmem1", property="requested-size", value=size)


def vmem_size(m):
    return [d["data"] for d in m.qmp().cmd("query-memory-devices")
            if d["type"] == "virtio-mem"][0]["size"]


def answer_while(m, done, what):
    """Send `work` and `cat /proc/meminfo` in turn every PERIOD until
    done(output of the last meminfo) says true; every answer within
    ANSWER_MAX.  Returns (answers, worst seconds, whether `work` ever
    showed what)."""
    deadline = time.monotonic() + OP_MAX
    answers, worst, seen = 0, 0.0, False
    while True:
        out, dt = timed(m, "work")
        answers += 1
        worst = max(worst, dt)
        assert dt <= ANSWER_MAX, f"`work` answered after {dt:.2f} s:\n{out}"
        seen |= what in out
        out, dt = timed(m, "cat /proc/meminfo")
        answers += 1
        worst = max(worst, dt)
        assert dt <= ANSWER_MAX, f"`cat /proc/meminfo` answered after {dt:.2f} s"
        if done(out):
            return answers, worst, seen
        assert time.monotonic() < deadline, sh(m, "work") + sh(m, "virtio-mem")
        time.sleep(PERIOD)


def meminfo_total(out):
    mt = re.search(r"^MemTotal:\s+(\d+) kB$", out, re.M)
    return int(mt.group(1)) if mt else -1


# -- virtio-mem ------------------------------------------------------------------

@pytest.mark.serial
@pytest.mark.slow
def test_console_answers_during_large_virtio_mem_plug_and_unplug(boot):
    gib = 64
    m = vmem_boot(boot, gib)
    base = memtotal_kb(m)
    resize(m, gib * GiB)
    n, worst, seen = answer_while(
        m, lambda out: meminfo_total(out) == base + gib * GiB // 1024,
        "virtio-mem 01:00.0 resize")
    print(f"\n{gib} GiB plug: {n} answers, worst {worst * 1000:.0f} ms, work listed it: {seen}")
    assert vmem_size(m) == gib * GiB
    # MemTotal counts the plugged blocks at their online; the memmap of
    # the pending sections is the background's, and it ends too
    deadline = time.monotonic() + OP_MAX
    while "long operations: none" not in sh(m, "work"):
        assert time.monotonic() < deadline, sh(m, "work")
        time.sleep(0.3)
    resize(m, 0)
    n, worst, seen = answer_while(m, lambda out: meminfo_total(out) == base,
                                  "virtio-mem 01:00.0 resize")
    print(f"{gib} GiB unplug: {n} answers, worst {worst * 1000:.0f} ms, work listed it: {seen}")
    assert vmem_size(m) == 0
    out = sh(m, "virtio-mem")
    assert "status:      converged" in out, out


def pause_and_wait_listed(m, name):
    """After `work pause` and a request: wait until the operation is on
    the list, held (the poller puts it there within 100 ms)."""
    deadline = time.monotonic() + 30 * SCALE
    while True:
        out = sh(m, "work")
        if re.search(rf"^  {re.escape(name)} .*, held", out, re.M):
            return out
        assert time.monotonic() < deadline, out
        time.sleep(0.05)


@pytest.mark.slow
def test_conflicts_during_a_virtio_mem_resize(boot):
    """While the resize moves (held after two blocks: `work pause`, `work
    step 2`), a state write to a block of its region and `devmem create`
    on the region are refused with the operation's name; `virtio-mem`
    shows plugged vs requested; a second requested size retargets the
    running round (nothing is lost: it converges on the last one)."""
    m = vmem_boot(boot, 64)
    base = memtotal_kb(m)
    assert "long operations paused" in sh(m, "work pause")
    resize(m, 64 * GiB)
    pause_and_wait_listed(m, "virtio-mem 01:00.0 resize")
    out = sh(m, "work step 2")
    assert re.search(r"^  virtio-mem 01:00.0 resize +256/65536 MiB, .*, held$", out, re.M), out
    off = sh(m, "memory offline 32")
    assert "busy: virtio-mem 01:00.0 resize is working on it (256/65536 MiB done)" in off, off
    dev = sh(m, f"devmem create {REGION:#x} {128 * MiB:#x} 4k")
    assert "virtio-mem 01:00.0 resize is working on that memory" in dev, dev
    view = sh(m, "virtio-mem")
    assert re.search(r"moving:\s+plugging, 256 of 65536 MiB done", view), view
    assert "status:      resizing" in view, view
    assert memtotal_kb(m) == base + 256 * 1024, "held: no block more"
    resize(m, 8 * GiB)                  # retarget while still moving
    assert "work: long operations go on" in sh(m, "work resume")
    deadline = time.monotonic() + OP_MAX
    while memtotal_kb(m) != base + 8 * GiB // 1024 or "long operations: none" not in sh(m, "work"):
        assert time.monotonic() < deadline, sh(m, "virtio-mem")
        time.sleep(0.3)
    assert vmem_size(m) == 8 * GiB
    # afterwards the same write is no longer refused for the resize (the
    # block may still refuse for its own reasons: it holds later memmaps)
    out = sh(m, "memory offline 32")
    assert "is working on it" not in out, out


def test_ctrl_c_leaves_a_retry_running_in_the_background(boot):
    """`virtio-mem retry` waits for the round; Ctrl-C ends the wait, not
    the round.  The round is held (`work pause`; the retry's own job, in
    the foreground, is not), so the retry is still waiting when the
    Ctrl-C comes, whatever the machine's speed; after `work resume` the
    round completes."""
    m = vmem_boot(boot, 64)
    base = memtotal_kb(m)
    assert "long operations paused" in sh(m, "work pause")
    m.qmp().cmd("qom-set", path="vmem1", property="requested-size", value=64 * GiB)
    pause_and_wait_listed(m, "virtio-mem 01:00.0 resize")
    out = m.run_keys(b"virtio-mem retry\r\x03")
    assert "interrupted: the resize goes on in the background (see `work`)" in out, out
    assert re.search(r"^  virtio-mem 01:00.0 resize +0/65536 MiB, .*, held$", sh(m, "work"),
                     re.M), "held: not a block plugged"
    assert "work: long operations go on" in sh(m, "work resume")
    deadline = time.monotonic() + OP_MAX
    while memtotal_kb(m) != base + 64 * GiB // 1024:
        assert time.monotonic() < deadline, sh(m, "virtio-mem")
        time.sleep(0.3)
    assert "^C" not in sh(m, "uptime")   # the Ctrl-C never reached the prompt


# -- DIMMs -----------------------------------------------------------------------

def dimm_state(m, slot=0):
    out = sh(m, "hotplug")
    st = re.search(rf"^{slot}\s+(\S+(?: \S+)?)\s+\[", out, re.M)
    return st.group(1) if st else "empty"


def add_dimm(m, dimm, size):
    q = m.qmp()
    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": f"mem-{dimm}",
                           "size": size, "reserve": False})
    q.cmd("device_add", driver="pc-dimm", id=dimm, memdev=f"mem-{dimm}")


def wait_deleted(m, dimm):
    q = m.qmp()
    q.wait_event("DEVICE_DELETED", timeout=OP_MAX, match={"device": dimm})
    q.cmd("object-del", id=f"mem-{dimm}")


def dimm_boot(boot, maxmem):
    m = boot(mem=f"2G,slots=8,maxmem={maxmem}")
    m.qmp()                             # events are kept from here on
    out = sh(m, "echo online > /sys/devices/system/memory/auto_online_blocks")
    assert out == "", out
    return m


@pytest.mark.serial
@pytest.mark.slow
def test_console_answers_during_dimm_add_and_remove_of_many_blocks(boot):
    size = 32 * GiB                     # 256 memory blocks, each added then onlined
    m = dimm_boot(boot, "40G")
    base = memtotal_kb(m)
    add_dimm(m, "big", size)
    n, worst, seen = answer_while(m, lambda out: meminfo_total(out) == base + size // 1024
                                  and dimm_state(m) == "added", "dimm0 add")
    print(f"\n32 GiB DIMM add: {n} answers, worst {worst * 1000:.0f} ms, work listed it: {seen}")
    m.qmp().cmd("device_del", id="big")
    n, worst, seen = answer_while(m, lambda out: meminfo_total(out) == base
                                  and dimm_state(m) == "empty", "dimm0 remove")
    print(f"32 GiB DIMM remove: {n} answers, worst {worst * 1000:.0f} ms, work listed it: {seen}")
    wait_deleted(m, "big")
    assert "long operations: none" in sh(m, "work")


def test_device_del_during_the_add_waits_for_it(boot):
    """device_del right after device_add: the eject is queued behind the
    add (or, if the add was already done, runs at once); either way the
    DIMM ends removed and the memory is as before."""
    m = dimm_boot(boot, "24G")
    base = memtotal_kb(m)
    add_dimm(m, "d1", 16 * GiB)
    m.qmp().cmd("device_del", id="d1")
    wait_deleted(m, "d1")
    deadline = time.monotonic() + OP_MAX
    while memtotal_kb(m) != base:
        assert time.monotonic() < deadline, sh(m, "hotplug")
        time.sleep(0.3)
    assert "long operations: none" in sh(m, "work")
    assert dimm_state(m) == "empty", sh(m, "hotplug")


# -- Ctrl-C in long commands -------------------------------------------------------

def test_ctrl_c_stops_long_commands_at_a_consistent_point(boot):
    """Ctrl-C typed with the command line: `memory online` of a range stops
    after the first block (the blocks done stay online), `bench
    memmap_init` reports the runs done; other typed bytes are kept, so the
    next command runs normally."""
    m = dimm_boot(boot, "16G")
    # eager onlines (each writes its block's memmap): a lazy one (the
    # default) is over before the Ctrl-C arrives
    sh(m, "mech deferred_init old")
    assert sh(m, "echo offline > /sys/devices/system/memory/auto_online_blocks") == ""
    add_dimm(m, "d1", 1 * GiB)          # blocks 32-39, offline
    m.qmp().wait_event("ACPI_DEVICE_OST", timeout=60 * SCALE, match={})
    m.quiesce(0.3)
    out = m.run_keys(b"memory online 32-39\r\x03")
    done = re.search(r"memory: interrupted after (\d+) blocks: they stay online", out)
    assert done, out
    n = int(done.group(1))
    assert 1 <= n < 8, out
    states = [sh(m, f"cat /sys/devices/system/memory/memory{b}/state").strip()
              for b in range(32, 40)]
    assert states == ["online"] * n + ["offline"] * (8 - n), states
    sh(m, f"memory offline 32-{31 + n}")
    out = m.run_keys(b"bench memmap_init 0x100000000 0x40000000 41\r\x03", timeout=300 * SCALE)
    runs = re.search(r"median of (\d+) runs", out)
    assert runs and int(runs.group(1)) < 41, out
    # bytes typed behind a Ctrl-C are kept for the prompt
    out = m.run_keys(b"bench memmap_init 0x100000000 0x8000000 41\r\x03uptime\r",
                     timeout=300 * SCALE)
    assert "median of" in out, out
    text = m.wait_prompt().replace("\r", "")
    assert "uptime" in text and "up " in text and "^C" not in text, text


# -- long shell commands as jobs ---------------------------------------------------

JOB_DONE = re.compile(r"^\[(\d+)\] (done|interrupted|failed \([^)]*\)) after \d+\.\d{3} s: (.*)$",
                      re.M)


def jobs_running(m):
    """The `jobs` line of the running job, or None."""
    out = sh(m, "jobs")
    run = re.search(r"^\[\d+\] running in the \w+ for .*$", out, re.M)
    return run.group(0) if run else None


def big_offline_dimm(boot):
    """A 2 GiB guest with a 32 GiB DIMM added offline: blocks 32-287."""
    m = dimm_boot(boot, "40G")
    assert sh(m, "echo offline > /sys/devices/system/memory/auto_online_blocks") == ""
    add_dimm(m, "big", 32 * GiB)
    while dimm_state(m) != "added":
        time.sleep(0.2)
    assert "long operations: none" in sh(m, "work")
    return m


@pytest.mark.serial
def test_a_long_command_in_the_background_leaves_the_console_free(boot):
    """`memory online 32-287 &` (256 blocks) runs as a job: the prompt comes
    back at once, `jobs` and `cat /proc/meminfo` sent every 200 ms are
    each answered within 1 s while it runs, `work` lists it with its
    progress, and its end and output are reported before a later prompt."""
    m = big_offline_dimm(boot)
    base = memtotal_kb(m)
    out = sh(m, "memory online 32-287 &")
    started = re.match(r"\[(\d+)\] memory online 32-287: running in the background "
                       r"\(`jobs`, `fg`, `kill (\d+)`\)$", out.strip())
    assert started, out
    job = started.group(1)
    deadline = time.monotonic() + OP_MAX
    answers, worst, seen, report = 0, 0.0, False, None
    while report is None:
        for cmd in ("jobs", "work", "cat /proc/meminfo"):
            out, dt = timed(m, cmd)
            answers += 1
            worst = max(worst, dt)
            assert dt <= ANSWER_MAX, f"`{cmd}` answered after {dt:.2f} s:\n{out}"
            seen |= bool(re.search(rf"job \[{job}\] memory online 32-287 +\d+/256 blocks", out))
            done = JOB_DONE.search(out)
            if done:
                report = out[done.start():]
                break
        assert time.monotonic() < deadline, sh(m, "jobs") + sh(m, "work")
        time.sleep(PERIOD)
    print(f"\nmemory online of 256 blocks as a job: {answers} answers, "
          f"worst {worst * 1000:.0f} ms, work listed it: {seen}")
    done = JOB_DONE.search(report)
    assert done.group(1) == job and done.group(2) == "done", report
    assert done.group(3) == "memory online 32-287", report
    # its output, kept while it ran: the first block and the summary
    assert "memory32: online (zone" in report, report
    # (a job that ended while a line was typed is reported before that
    # line's own output, as bash reports it before the prompt)
    assert re.search(r"memory287: online \(zone \w+, node 0\)\nmemory: 256 blocks onlined\n",
                     report), report
    # online with their memmaps pending (the default): MemTotal is final
    # once nothing is pending
    m.run("meminit finish", timeout=600 * SCALE)
    assert memtotal_kb(m) == base + 32 * GiB // 1024
    assert sh(m, "jobs").strip() == "no jobs"
    assert "long operations: none" in sh(m, "work")


@pytest.mark.serial
def test_a_benchmark_over_16g_leaves_the_console_free(boot):
    """`bench memmap_init` over 16 GiB (4M struct pages, 256 MiB of memmap
    per pass) as a background job: each pass pauses between its sections,
    so `uptime` every 200 ms is answered within 1 s, and the job ends with
    its table and the limits beside it.  Then `devmem rebind` of a 16 GiB
    device range in the background, likewise."""
    m = big_offline_dimm(boot)
    out = sh(m, "bench memmap_init 0x100000000 0x400000000 1 &")
    job = re.match(r"\[(\d+)\] bench memmap_init 0x100000000 0x400000000 1: running", out)
    assert job, out
    deadline = time.monotonic() + OP_MAX
    answers, worst, report = 0, 0.0, ""
    while not JOB_DONE.search(report):
        out, dt = timed(m, "uptime")
        answers += 1
        worst = max(worst, dt)
        assert dt <= ANSWER_MAX, f"`uptime` answered after {dt:.2f} s:\n{out}"
        report += out
        assert time.monotonic() < deadline, sh(m, "jobs")
        time.sleep(PERIOD)
    print(f"\nbench memmap_init over 16 GiB as a job: {answers} answers, "
          f"worst {worst * 1000:.0f} ms")
    ended = JOB_DONE.search(report)
    assert ended.group(1) == job.group(1) and ended.group(2) == "done", report
    assert "median of 1 runs" in report and "memset" in report, report
    # device memory over the same 16 GiB: create, then a rebind in the
    # background, its 128 sections written one at a time, the console free
    out = sh(m, "devmem create 0x100000000 0x400000000 4k", timeout=OP_MAX)
    assert re.search(r"devmem0: created, 4 KiB pages: initialised 4194304 pages in \d+ cycles", out), out
    out = sh(m, "devmem rebind 0 old &")
    job = re.match(r"\[(\d+)\] devmem rebind 0 old: running", out)
    assert job, out
    deadline = time.monotonic() + OP_MAX
    report = ""
    while not JOB_DONE.search(report):
        out, dt = timed(m, "devmem")
        assert dt <= ANSWER_MAX, f"`devmem` answered after {dt:.2f} s:\n{out}"
        report += out
        assert time.monotonic() < deadline, sh(m, "jobs")
        time.sleep(PERIOD)
    ended = JOB_DONE.search(report)
    assert ended.group(1) == job.group(1) and ended.group(2) == "done", report
    assert "devmem0: rebind (old): initialised 4194304 pages in" in report, report
    assert "destroyed" in sh(m, "devmem destroy 0", timeout=OP_MAX)


STOPPED = r"\^Z\n\[(\d+)\] stopped: {line} \(`fg` or `bg` goes on with it, `kill (\d+)` ends it\)"


def stop_at_once(m, line):
    """Type line and Ctrl-Z behind it: the job gets its first turn (it
    claims its range, does a few blocks) and stops.  Its number and the
    blocks done, from `jobs`."""
    out = m.run_keys(line.encode() + b"\r\x1a", timeout=OP_MAX)
    stopped = re.search(STOPPED.format(line=re.escape(line)), out)
    assert stopped and stopped.group(1) == stopped.group(2), out
    job = stopped.group(1)
    listed = sh(m, "jobs").strip()
    done = re.match(rf"\[{job}\] stopped for \d+\.\d{{3}} s: {re.escape(line)} \((\d+)/256 blocks\)$",
                    listed)
    assert done and int(done.group(1)) < 256, listed
    return job, int(done.group(1))


def test_conflicts_with_a_stopped_job(boot):
    """`memory offline 32-287` stopped by Ctrl-Z keeps its blocks: a state
    write to one of them is refused naming the job, a second long command is
    refused (one job at a time), `work` shows it waiting; the DIMM's eject
    waits for it; `bg` lets it go on, it ends and is reported, and then the
    eject removes the DIMM.  `kill`, `fg`, `bg` of no job say so."""
    m = big_offline_dimm(boot)
    assert "memory: 256 blocks onlined" in sh(m, "memory online 32-287", timeout=OP_MAX)
    job, done = stop_at_once(m, "memory offline 32-287")
    assert "write error: Device or resource busy" in \
        sh(m, "echo offline > /sys/devices/system/memory/memory287/state")
    assert f"memory287: job [{job}] memory offline 32-287 is working on this block" \
        in m.output, m.tail()
    single = sh(m, "memory offline 286")
    assert re.search(rf"memory: memory286: busy: job \[{job}\] memory offline 32-287 "
                     rf"is working on it \({done}/256 blocks done\)", single), single
    second = sh(m, "bench automovable")
    assert second.strip() == (f"bench: job [{job}] (memory offline 32-287) is stopped: one long "
                              f"command at a time; `fg` waits for it, `kill {job}` stops it"), second
    assert sh(m, "uptime").startswith("up "), "a short command runs"
    assert re.search(rf"^  job \[{job}\] memory offline 32-287 +{done}/256 blocks, .*, waiting$",
                     sh(m, "work"), re.M)
    # the eject waits for the stopped job, however long
    m.qmp().cmd("device_del", id="big")
    m.wait_for(re.compile(rf"slot 0: eject waits: job \[{job}\] memory offline 32-287 "
                          r"holds memory of the DIMM"), timeout=30 * SCALE)
    assert re.search(r"^  dimm0 remove +0/256 blocks, .*, waiting$", sh(m, "work"), re.M)
    assert sh(m, "jobs").strip().endswith(f"({done}/256 blocks)"), "no turns while stopped"
    assert sh(m, "bg").strip() == f"[{job}] memory offline 32-287 &"
    assert sh(m, "bg").strip() == f"bg: job [{job}] is running in the background already"
    # the job ends, the eject goes on: the DIMM is gone
    wait_deleted(m, "big")
    deadline = time.monotonic() + OP_MAX
    report = ""
    while not JOB_DONE.search(report):
        report += sh(m, "uptime")
        assert time.monotonic() < deadline, report
    ended = JOB_DONE.search(report)
    assert ended.group(1) == job and ended.group(2) == "done", report
    assert "memory: 256 blocks offlined" in report, report
    assert dimm_state(m) == "empty", sh(m, "hotplug")
    assert sh(m, "kill").strip() == "kill: no job is running"
    assert sh(m, "fg 7").strip() == "fg: no job [7]"
    assert sh(m, "bg").strip() == "bg: no job is running"


def test_ctrl_z_fg_and_ctrl_c_of_a_job(boot):
    """Ctrl-Z stops a foreground job (the prompt comes back, it gets no
    more turns), `fg` lets it go on in the foreground with the output it
    kept, Ctrl-C then stops it after the block it is on: the blocks done
    stay online, and the job's end is its own output (no report)."""
    m = big_offline_dimm(boot)
    job, done = stop_at_once(m, "memory online 32-287")
    time.sleep(0.5)
    assert sh(m, "jobs").strip().endswith(f"({done}/256 blocks)"), "no turns while stopped"
    m.send_line("fg")
    text = m.wait_for(re.compile(r"memory online 32-287\r?\n"), timeout=30 * SCALE)
    m.send_bytes(b"\x03")
    text = (text + m.wait_prompt(OP_MAX)).replace("\r", "")
    # it went on from the block after the last one done before Ctrl-Z
    assert re.search(rf"^memory online 32-287\nmemory{32 + done}: online \(zone", text, re.M), text
    assert not JOB_DONE.search(text), text              # a foreground job reports itself
    stopped = re.search(r"memory: interrupted after (\d+) blocks: they stay online", text)
    if not stopped:                                      # it ended before the Ctrl-C came
        assert "memory: 256 blocks onlined" in text, text
        return
    n = int(stopped.group(1))
    assert "^C" in text and n >= done, text
    online = sum(1 for b in range(32, 288)
                 if "online" in sh(m, f"cat /sys/devices/system/memory/memory{b}/state")) \
        if n < 64 else None
    if online is not None:
        assert online == n, (online, n)
    assert sh(m, "jobs").strip() == "no jobs"

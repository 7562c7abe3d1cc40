"""Every CPU the firmware lists is started (docs/smp.md): q35 with -smp N
under multi-threaded TCG for N = 1, 2, 4, 16 and 64.  `cpus` lists N
online CPUs with APIC ids 0..N-1 (QEMU's default topology), /proc/cpuinfo
has N stanzas with their apicid, `cpus ping` gets an answer from each CPU
(its number from its own per-CPU area, its APIC id from its own local
APIC), and the trampoline page is reserved: in the boot log's memblock
reservations, in `memblock` and in /proc/iomem.  CPUs QEMU lists as not
present (-smp 2,maxcpus=4: MADT entries without the enabled flag) are
not started.  One boot on OVMF with -smp 4.  A panic stops the other
CPUs and prints where each was.

No test measures speed: the start and ping cycles are only printed; the
only bound is the kernel's own "did it answer at all" timeout (1 s)."""

import re
import time

import pytest

import memlab


# every machine here runs with one host thread per virtual CPU (conftest.py)
pytestmark = pytest.mark.usefixtures("multi_thread_tcg")


ROW = re.compile(r"^ *(\d+) +(\d+) +(\S+) +(online \((?:main loop|idle)\)|\S+)", re.M)


def cpus_rows(out):
    """[(cpu, apic id, state)] from `cpus`."""
    return [(int(c), int(a), s) for c, a, _, s in ROW.findall(out)]


def check_all_online(m, n):
    out = m.run("cpus")
    assert f"CPUs: {n} listed, {n} online" in out, out
    rows = cpus_rows(out)
    assert [(c, a) for c, a, _ in rows] == [(i, i) for i in range(n)], out
    assert rows[0][2] == "online (main loop)", out
    assert all(s == "online (idle)" for _, _, s in rows[1:]), out
    return out


def check_cpuinfo(m, n):
    info = m.run("cat /proc/cpuinfo")
    assert re.findall(r"^processor\t: (\d+)$", info, re.M) == [str(i) for i in range(n)], info
    assert re.findall(r"^apicid\t\t: (\d+)$", info, re.M) == [str(i) for i in range(n)], info
    assert re.findall(r"^initial apicid\t: (\d+)$", info, re.M) == \
        [str(i) for i in range(n)], info


def check_ping(m, n):
    out = m.run("cpus ping")
    answers = re.findall(r"^cpu (\d+): answered as cpu (\d+), APIC id (\d+), "
                         r"round trip \d+ cycles$", out, re.M)
    assert answers == [(str(i), str(i), str(i)) for i in range(n)], out
    assert f"ping: {n} of {n} online CPUs answered; on_each_cpu: {n} answered, 0 did not" \
        in out, out


def check_trampoline(m):
    tramp = re.search(r"memblock: reserved \[(0x[0-9a-f]+)-(0x[0-9a-f]+)\) SMP trampoline",
                      m.boot_log)
    assert tramp, m.boot_log
    start, end = (int(x, 16) for x in tramp.groups())
    assert end - start == 4096 and start % 4096 == 0 and end <= 0xa0000, tramp.group(0)
    mb = m.run("memblock")
    assert f" reserved by name: [0x{start:016x}-0x{end - 1:016x}] SMP trampoline" in mb, mb
    # the page lies inside one of memblock's reserved regions
    regions = [(int(a, 16), int(b, 16)) for a, b in re.findall(
        r"^ reserved\[0x[0-9a-f]+\]\t\[0x([0-9a-f]+)-0x([0-9a-f]+)\]", mb, re.M)]
    assert any(a <= start and end - 1 <= b for a, b in regions), mb
    iomem = m.run("cat /proc/iomem")
    assert re.search(rf"^ +0*{start:x}-0*{end - 1:x} : SMP trampoline$", iomem, re.M), iomem
    return start


@pytest.mark.parametrize("n", [1, 2, 4, 16, 64])
def test_smp_every_cpu_online(boot, n):
    m = boot(extra=["-smp", str(n)], timeout=memlab.BOOT_TIMEOUT * 3)
    if n == 1:
        assert "smp: 1 CPU; nothing to start" in m.boot_log, m.boot_log
    else:
        assert re.search(rf"smp: {n} of {n} CPUs online \(xAPIC\), trampoline at 0x[0-9a-f]+",
                         m.boot_log), m.boot_log
    check_all_online(m, n)
    check_cpuinfo(m, n)
    check_ping(m, n)
    check_trampoline(m)
    # the CPUs only idle: the machine still works and nothing went wrong
    assert "did not answer" not in m.boot_log
    assert "memlab" in m.run("version")


def test_smp_cpu_that_does_not_answer_is_skipped(boot):
    """A listed CPU that never answers its INIT and start-up IPIs is named
    with its APIC id and the reason, skipped, and the others work: under
    QEMU every CPU starts, so smp_test_nosipi=2 leaves CPU 2 without its
    start-up IPI.  `cpus` says why it is not online, /sys lists it as
    present but not online, and a call to every CPU does not wait for it."""
    m = boot(extra=["-smp", "4"], cmdline="smp_test_nosipi=2", timeout=memlab.BOOT_TIMEOUT * 3)
    log = m.boot_log
    assert "smp: CPU 2 (APIC id 2): no start-up IPI sent (smp_test_nosipi=2)" in log, log
    assert "smp: CPU 2 (APIC id 2) did not answer INIT and SIPI within 1000 ms; skipped" \
        in log, log
    assert re.search(r"smp: 3 of 4 CPUs online \(xAPIC\)", log), log
    out = m.run("cpus")
    assert "CPUs: 4 listed, 3 online" in out, out
    assert re.search(r"^ +2 +2 .*did not answer INIT and SIPI", out, re.M), out
    assert m.run("cat /sys/devices/system/cpu/online").strip() == "0-1,3"
    assert m.run("cat /sys/devices/system/cpu/present").strip() == "0-3"
    ping = m.run("cpus ping")
    assert "ping: 3 of 3 online CPUs answered; on_each_cpu: 3 answered, 0 did not" in ping, ping
    _, rows, text = interrupts(m)
    assert len(rows["LOC"]) == 3, text
    # pcp high is the low watermark shared by the 3 online CPUs (Linux's
    # zone_highsize()), at least 4 * batch; CPU 2 never came up
    zi = m.run("cat /proc/zoneinfo")
    dma32 = zi.split("zone    DMA32")[1].split("\nNode ")[0]
    low = int(re.search(r"^ +low +(\d+)$", dma32, re.M).group(1))
    sets = re.findall(r"cpu: (\d+)\n +count: +\d+\n +high: +(\d+)\n +batch: +(\d+)", dma32)
    # pagesets for the online CPUs only, as Linux 6.1 prints them (for_each_online_cpu)
    assert [cpu for cpu, _, _ in sets] == ["0", "1", "3"], dma32
    for cpu, high, batch in sets:
        assert int(high) == max(low // 3, 4 * int(batch)), (cpu, low, dma32)


def test_smp_not_present_cpus_are_not_started(boot):
    """-smp 2,maxcpus=4: QEMU's MADT lists four processors, two of them
    without the enabled flag (hot-pluggable, absent); only two start."""
    m = boot(extra=["-smp", "2,maxcpus=4"])
    madt = m.run("acpi madt")
    assert len(re.findall(r"local APIC: APIC id \d+, UID \d+, enabled", madt)) == 2, madt
    assert len(re.findall(r"local APIC: APIC id \d+", madt)) == 4, madt
    check_all_online(m, 2)
    check_ping(m, 2)
    assert "smp: 2 of 2 CPUs online" in m.boot_log, m.boot_log
    # /proc/zoneinfo: every populated zone has pagesets for CPUs 0 and 1, none for 2 and 3
    zi = m.run("cat /proc/zoneinfo")
    stanzas = [z for z in zi.split("\nNode ") if "  pagesets" in z]
    assert stanzas, zi
    for z in stanzas:
        assert re.findall(r"^    cpu: (\d+)$", z, re.M) == ["0", "1"], z


def test_smp_uefi_four_cpus(boot, make_iso):
    m = memlab.Machine(make_iso(""), name="test_smp_uefi_four_cpus", firmware="uefi",
                       extra=["-smp", "4"])
    try:
        m.start()
        m.wait_boot()
        assert "smp: 4 of 4 CPUs online" in m.boot_log, m.boot_log
        check_all_online(m, 4)
        check_cpuinfo(m, 4)
        check_ping(m, 4)
        check_trampoline(m)
    finally:
        m.kill()


def test_smp_panic_stops_the_others(boot):
    m = boot(extra=["-smp", "4"])
    m.send_line("crash panic")
    status = m.wait_exit()
    out = m.unread().replace("\r", "")
    assert "Kernel panic - not syncing: crash command" in out, out
    stopped = re.findall(r"^CPU (\d+) \(APIC id (\d+)\): stopped, RIP [0-9a-f]{16} (\S+) "
                         r"RSP [0-9a-f]{16}$", out, re.M)
    assert [(c, a) for c, a, _ in stopped] == [("1", "1"), ("2", "2"), ("3", "3")], out
    # idle CPUs were halted in their idle loop
    assert all(sym.startswith("smp_ap_main+") for _, _, sym in stopped), out
    assert "CPU 0 (APIC id 0): the one that stopped the others" in out, out
    assert status == (0x70 << 1) | 1, status


SMP_CASES = ["call_single_runs_there", "on_each_cpu_reaches_all", "tlb_shootdown_remap",
             "spinlock_contended", "printk_from_all_cpus", "work_queue_runs_on_each_cpu"]


@pytest.mark.parametrize("n", [1, 4])
def test_smp_selftest(boot, n):
    """`selftest smp` (tests/kernel/ktest_smp.c): with four CPUs every case
    passes; with one each is skipped with its reason.  Then the lines the
    CPUs printed at once are whole in `dmesg`, as the case checked."""
    m = boot(extra=["-smp", str(n)])
    # generous: four vCPUs contending one spinlock on a loaded 2-core host
    # hand the lock over slowly under TCG; the suite's own bounds say "stuck"
    out = m.run("selftest smp", timeout=memlab.CMD_TIMEOUT * 20)
    assert "# selftest: 1 suites, 0 failed cases" in out, out
    assert "not ok" not in out, out
    for i, case in enumerate(SMP_CASES, 1):
        if n == 1:
            assert f"ok {i} {case} # SKIP one CPU online: nothing to call" in out, out
        else:
            assert re.search(rf"^\s*ok {i} {case}$", out, re.M), out
    if n == 1:
        return
    log = m.run("dmesg")
    lines = [ln for ln in log.splitlines() if "ktest-smp-line" in ln]
    whole = re.compile(r"^\[ *\d+\.\d{6}\] ktest-smp-line run 1 cpu ([0-3]) n (\d+) "
                       r"abcdefghijklmnopqrstuvwxyz0123456789 end$")
    assert all(whole.match(ln) for ln in lines), log
    assert sorted(whole.match(ln).groups() for ln in lines) == \
        sorted((str(c), str(k)) for c in range(4) for k in range(40)), log


def interrupts(m):
    """(header's CPU names, {row label: [per-CPU counts]}) of /proc/interrupts."""
    text = m.run("cat /proc/interrupts")
    lines = text.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("CPU0"))
    cpus = lines[head].split()
    rows = {}
    for ln in lines[head + 1:]:
        mt = re.match(r"^ *(\w+): +((?:\d+ +)*\d+)", ln)
        if mt:
            rows[mt.group(1)] = [int(x) for x in mt.group(2).split()]
    return cpus, rows, text


@pytest.mark.parametrize("n", [1, 4])
def test_smp_proc_interrupts(boot, n):
    """/proc/interrupts has a column per online CPU; the timer's row (IRQ 0,
    the PIT's 100 Hz tick) grows on CPU 0, which takes every device
    interrupt; `cpus ping` raises every AP's CAL count."""
    m = boot(extra=["-smp", str(n)])
    cpus, rows, text = interrupts(m)
    assert cpus == [f"CPU{i}" for i in range(n)], text
    assert re.search(r"^ +0: .* IO-APIC +2-edge +timer$", text, re.M), text
    for tag, what in [("NMI", "Non-maskable interrupts"), ("LOC", "Local timer interrupts"),
                      ("SPU", "Spurious interrupts"), ("CAL", "Function call interrupts"),
                      ("TLB", "TLB shootdowns")]:
        assert len(rows[tag]) == n, text
        assert re.search(rf"^{tag}: .*\d   {what}$", text, re.M), text
    assert len(rows["ERR"]) == 1, text
    assert all(len(v) == n for k, v in rows.items() if k != "ERR"), text
    assert rows["0"][0] > 0, text
    check_ping(m, n)
    time.sleep(0.3)     # the tick is 100 Hz: a few of them
    _, after, text2 = interrupts(m)
    assert after["0"][0] > rows["0"][0], (text, text2)
    for cpu in range(1, n):
        assert after["CAL"][cpu] >= rows["CAL"][cpu] + 1, (text, text2)
    # every CPU's local APIC timer ticks (idle ones too), and no NMI came
    assert re.search(r"apic: local APIC timer at \d+ kHz \(bus / 16\), a tick of \d+ counts "
                     r"every 10 ms on each CPU \(vector 0xec\)", m.boot_log), m.boot_log
    for cpu in range(n):
        assert after["LOC"][cpu] > rows["LOC"][cpu], (cpu, text, text2)
        assert after["NMI"][cpu] == 0, (cpu, text2)


def free_kb(m):
    return int(re.search(r"^MemFree:\s+(\d+) kB$", m.run("cat /proc/meminfo"), re.M).group(1))


def test_smp_cpus_alloc_pcp_and_zone_lock(boot):
    """`cpus alloc`: every CPU asked allocates and frees its order-0 pages
    at once, through its pcp lists or through zone->lock only, and prints
    its cycles per pair (counts only are checked, never times); afterwards
    no page is missing and the lists are empty.  Bad arguments are refused."""
    m = boot(extra=["-smp", "4"])
    m.run("drain")
    before = free_kb(m)
    for mode, n, count in (("pcp", 4, 2000), ("zone", 2, 200), ("pcp", 1, 100)):
        out = m.run(f"cpus alloc {mode} {n} {count}", timeout=memlab.CMD_TIMEOUT * 10)
        what = "pcp lists" if mode == "pcp" else "zone->lock only"
        assert f"cpus alloc: {what}, {n} CPUs, {count} order-0 alloc+free each" in out, out
        cpus = re.findall(r"^  cpu (\d+): \d+ cycles per alloc\+free$", out, re.M)
        assert cpus == [str(i) for i in range(n)], out
        assert re.search(r"^cpus alloc: mean \d+ cycles per alloc\+free per CPU$", out, re.M), out
    assert "drain: 0 pages moved" in m.run("drain")
    assert free_kb(m) == before
    assert "4 online" in m.run("cpus alloc pcp 5 10")
    assert "usage" in m.run("cpus alloc slow 2 10").lower()
    assert "online (idle)" in m.run("cpus")


TCG_NO_X2APIC = "TCG doesn't support requested feature: CPUID.01H:ECX.x2apic"


def test_smp_x2apic_requested_under_tcg(boot):
    """-smp 4 -cpu max,+x2apic under multi-threaded TCG.  QEMU 7.2's TCG
    has no x2APIC: it warns on its stderr and leaves CPUID.01H:ECX bit 21
    clear, so the firmware hands over in xAPIC mode and every CPU runs in
    it (memlab uses x2APIC only when the firmware handed over in it, and
    an AP only when its CPUID has the bit).  A QEMU whose TCG has x2APIC
    (8.1 on) sets the bit: /proc/cpuinfo's flags then list it, and the
    mode is the one SeaBIOS handed over (xAPIC: it switches only for APIC
    ids above 254).  Either way all four CPUs are online, each in the boot
    CPU's mode, and a `stress` run from the four passes."""
    from test_stress import check_report
    m = boot(extra=["-smp", "4"], cpu="max,+x2apic")
    qemu_err = open(m.qemu_log, errors="replace").read()
    flags = re.search(r"^flags\t\t:(.*)$", m.run("cat /proc/cpuinfo"), re.M)
    assert flags, "no flags line in /proc/cpuinfo"
    out = check_all_online(m, 4)
    modes = re.findall(r"^ +\d+ +\d+ +\S+ +online \((?:main loop|idle)\) +(x2APIC|xAPIC)", out, re.M)
    assert len(modes) == 4, out
    if TCG_NO_X2APIC in qemu_err:
        assert "x2apic" not in flags.group(1).split(), flags.group(0)
        assert modes == ["xAPIC"] * 4, out
        assert re.search(r"smp: 4 of 4 CPUs online \(xAPIC\)", m.boot_log), m.boot_log
    else:
        assert "x2apic" in flags.group(1).split(), (flags.group(0), qemu_err)
        assert len(set(modes)) == 1, out
    check_report(m.run("stress -n 1000", timeout=600 * memlab.SCALE), 4)

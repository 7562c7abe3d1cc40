"""Fixtures for the QEMU scenarios (the harness itself is in memlab.py).

  kernel    (session) build/memlab.elf, built once with make
  make_iso  (session) make_iso(cmdline="") -> ISO path, cached in build/test/
  boot      boot(cmdline="", mem="2G", cpu="max", extra=[], wait=True)
            -> a Machine at its first prompt; every machine is killed after
            the test, pass or fail
  machine   boot() with the defaults
  shell     a machine shared by the tests of one module, for commands that
            change nothing; rebooted if an earlier test left it dead

When a test fails, the report shows the paths of its serial and QEMU logs
(build/test/logs/) and the last serial lines.
"""

import atexit
import os
import signal
import sys

sys.dont_write_bytecode = True      # keep __pycache__ out of the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest                        # noqa: E402
import memlab                        # noqa: E402

atexit.register(memlab.kill_all)


def _sigterm(signum, frame):
    # A CI timeout sends SIGTERM: unwind like Ctrl-C so that fixture
    # teardown kills QEMU and removes its temporary directory.
    raise KeyboardInterrupt("SIGTERM")


if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
    signal.signal(signal.SIGTERM, _sigterm)

_boot_times = []                    # (machine name, seconds to first prompt)


def _note_boot(node, m):
    """Count a boot for the summary line.  The time also rides on the test's
    report (user_properties), so that with pytest-xdist the controller,
    which boots nothing itself, gathers every worker's boots."""
    node.user_properties.append(("memlab_boot", (m.name, m.boot_time)))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: takes more than a few seconds even on a fast host")
    config.addinivalue_line(
        "markers", "serial: leans on the host's CPUs; under pytest-xdist never beside "
                   "another serial scenario")


def pytest_collection_modifyitems(config, items):
    """make test runs the scenarios two at a time (pytest-xdist, --dist
    loadgroup).  The ones that lean on the host's CPUs form one group,
    run one after the other by one worker: every machine on threads of
    its own (multi_thread_tcg: -smp 4 is four host threads, two such
    machines at once eight threads on CI's two cores) and every scenario
    marked serial (console answers within a bound, boot and clock
    checks against the host's, chromium beside QEMU).  The other worker
    meanwhile runs the rest, one single-threaded QEMU at a time."""
    for item in items:
        if "multi_thread_tcg" in item.fixturenames or item.get_closest_marker("serial"):
            item.add_marker(pytest.mark.xdist_group("serial"))


@pytest.fixture(scope="session")
def kernel():
    try:
        return memlab.build_kernel()
    except memlab.HarnessError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def make_iso(kernel):
    cache = {}

    def _make_iso(cmdline=""):
        if cmdline not in cache:
            try:
                cache[cmdline] = memlab.make_iso(kernel, cmdline)
            except memlab.HarnessError as e:
                pytest.fail(str(e), pytrace=False)
        return cache[cmdline]
    return _make_iso


def _attach(node, m):
    node.__dict__.setdefault("_memlab_machines", []).append(m)


@pytest.fixture
def multi_thread_tcg(monkeypatch):
    """-accel tcg,thread=multi for every machine of the test: one host
    thread per virtual CPU (the -smp tests: pytestmark = usefixtures)."""
    monkeypatch.setattr(memlab.Machine, "accel", memlab.MTTCG)


@pytest.fixture
def boot(request, make_iso):
    machines = []

    def _boot(cmdline="", mem="2G", cpu="max", extra=(), wait=True,
              timeout=memlab.BOOT_TIMEOUT, settle=None):
        name = request.node.name
        if machines:
            name += f"-{len(machines) + 1}"
        m = memlab.Machine(make_iso(cmdline), name=name, mem=mem, cpu=cpu,
                           extra=extra)
        machines.append(m)
        _attach(request.node, m)
        m.start()
        if wait:
            # a boot that names deferred_init= is about it: no waiting for it
            m.wait_boot(timeout, settle="deferred_init" not in cmdline if settle is None
                        else settle)
            _note_boot(request.node, m)
        return m

    yield _boot
    for m in machines:
        m.kill()


@pytest.fixture
def machine(boot):
    return boot()


class _Shared:
    """One machine per module, (re)booted on demand."""

    def __init__(self, make_iso, name):
        self.make_iso = make_iso
        self.name = name
        self.m = None
        self.boots = 0
        self.error = None           # why the last boot failed

    def get(self, node):
        if self.error:
            pytest.fail(f"the shared machine did not boot: {self.error}",
                        pytrace=False)
        if self.m is not None and not self.m.alive():
            self.m.kill()
            self.m = None
        if self.m is None:
            self.boots += 1
            name = self.name + (f"-{self.boots}" if self.boots > 1 else "")
            self.m = memlab.Machine(self.make_iso(""), name=name)
            self.m.start()
            try:
                self.m.wait_boot()
            except memlab.MachineError as e:
                self.error = str(e).split("\n")[0]
                raise
            _note_boot(node, self.m)
        return self.m

    def close(self):
        if self.m is not None:
            self.m.kill()
            self.m = None


@pytest.fixture(scope="module")
def _shared_machine(request, make_iso):
    mod = request.module.__name__.rsplit(".", 1)[-1]
    # under pytest-xdist each worker running tests of the module boots its
    # own: the worker's id keeps their logs apart
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    shared = _Shared(make_iso, f"{mod}-shared" + (f"-{worker}" if worker else ""))
    yield shared
    shared.close()


@pytest.fixture
def shell(request, _shared_machine):
    """The module's shared machine at a prompt, with the cursor at the end
    of its output.  Only for commands that change nothing."""
    m = None
    try:
        m = _shared_machine.get(request.node)
    finally:
        if _shared_machine.m is not None:
            _attach(request.node, _shared_machine.m)
    m.quiesce(0.05)
    return m


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if not rep.failed:
        return
    for m in item.__dict__.get("_memlab_machines", []):
        status = m.proc.poll() if m.proc else None
        state = "running" if status is None else f"exited with {status}"
        rep.sections.append((
            f"memlab machine {m.name} ({state})",
            f"serial log: {m.serial_log}\nQEMU log:   {m.qemu_log}\n"
            f"--- last serial lines ---\n{m.tail(30)}"))


def pytest_runtest_logreport(report):
    # every test's boots, once (its teardown report), in this process or,
    # under xdist, in the controller from the workers' reports
    if report.when == "teardown":
        _boot_times.extend(v for k, v in report.user_properties if k == "memlab_boot")


def pytest_terminal_summary(terminalreporter):
    if not _boot_times:
        return
    times = sorted(t for _, t in _boot_times)
    slowest = max(_boot_times, key=lambda x: x[1])
    terminalreporter.write_line(
        f"memlab: {len(times)} boots to the prompt: "
        f"min {times[0]:.2f} s, median {times[len(times) // 2]:.2f} s, "
        f"max {times[-1]:.2f} s ({slowest[0]})")

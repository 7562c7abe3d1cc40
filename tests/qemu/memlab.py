"""memlab.py - the QEMU test harness: build the kernel, make ISOs, boot
QEMU q35 under TCG, and drive the serial shell and QMP.

    kernel = build_kernel()                 # make -s build/memlab.elf
    iso = make_iso(kernel, "foo=bar")       # cached under build/test/
    m = Machine(iso, name="demo").start()
    m.wait_prompt()
    print(m.run("help"))
    print(m.qmp().cmd("query-status"))
    m.kill()

Serial output goes to a buffer with a read cursor: wait_for() searches from
the cursor and moves it past the match, so each call sees only new output.
Everything QEMU prints on the serial port is also written, as it arrives, to
build/test/logs/NAME.serial.log (QEMU's own stderr to NAME.qemu.log).

Environment:
  MEMLAB_NO_BUILD=1        do not run make; use build/memlab.elf as it is
  MEMLAB_TIMEOUT_SCALE=N   multiply every timeout by N (slow machines)
  MEMLAB_QEMU=PATH         the qemu-system-x86_64 to run
"""

import codecs
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
TESTDIR = BUILD / "test"
LOGDIR = TESTDIR / "logs"
KERNEL = BUILD / "memlab.elf"
MKISO = REPO / "tools" / "mkiso.sh"

sys.path.insert(0, str(REPO / "tools"))
from qmp import QMP, QMPError, QMPTimeout, QMPConnectError  # noqa: E402,F401

PROMPT = "memlab> "
LOG_RECORD = re.compile(r"\[\s*\d+\.\d{6}\] [^\n]*\n")  # a kernel log line, wherever it starts
SCALE = float(os.environ.get("MEMLAB_TIMEOUT_SCALE", "1") or 1)
BOOT_TIMEOUT = 60.0 * SCALE        # QEMU start to first prompt
MTTCG = "tcg,thread=multi"         # multi-threaded TCG: -accel for -smp tests
# deferred init's boot log: sections wait / background off / all done
DEFERRED_WAITS = "wait for their memmap"
DEFERRED_OFF = "no background work"
DEFERRED_DONE = re.compile(r"deferred init: boot memory's memmap complete after \d+ ms "
                           r"\(\d+ slices\)\r?\n")
CMD_TIMEOUT = 30.0 * SCALE         # one shell command
EXIT_TIMEOUT = 30.0 * SCALE        # QEMU exit after poweroff/crash
QEMU = os.environ.get("MEMLAB_QEMU", "qemu-system-x86_64")



def exception_exit_status(vector):
    """QEMU's exit status after a fatal exception: the kernel writes
    0x20 + vector to isa-debug-exit, and QEMU exits with (value << 1) | 1."""
    return ((0x20 + vector) << 1) | 1


class HarnessError(Exception):
    """The kernel could not be built or an ISO could not be made."""


class MachineError(AssertionError):
    """The machine did not do what a test waited for (timeout, QEMU exited).
    An AssertionError so pytest reports it as a test failure."""


def _run_tool(argv, what):
    try:
        p = subprocess.run(argv, cwd=REPO, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    except FileNotFoundError as e:
        raise HarnessError(f"{what}: {e}") from None
    if p.returncode != 0:
        raise HarnessError(f"{what} failed (exit {p.returncode}): "
                           f"{' '.join(map(str, argv))}\n{p.stdout[-4000:]}")
    return p.stdout


def build_kernel():
    """Build build/memlab.elf with make (unless MEMLAB_NO_BUILD=1); its path."""
    if os.environ.get("MEMLAB_NO_BUILD") != "1":
        _run_tool(["make", "-s", "build/memlab.elf"], "building the kernel")
    if not KERNEL.is_file():
        raise HarnessError(f"{KERNEL} does not exist"
                           + (" (MEMLAB_NO_BUILD=1 is set)"
                              if os.environ.get("MEMLAB_NO_BUILD") == "1"
                              else ""))
    return KERNEL


def _newest_input_mtime(kernel):
    paths = [Path(kernel), MKISO]
    isodir = REPO / "iso"
    if isodir.is_dir():
        paths += [p for p in isodir.rglob("*") if p.is_file()]
    return max(p.stat().st_mtime for p in paths if p.exists())


def iso_path(cmdline):
    key = hashlib.sha256(cmdline.encode()).hexdigest()[:16]
    return TESTDIR / f"memlab-{key}.iso"


def make_iso(kernel, cmdline=""):
    """An ISO that boots kernel with cmdline, made by tools/mkiso.sh and
    cached as build/test/memlab-<hash of cmdline>.iso (remade when the kernel,
    tools/mkiso.sh or iso/ is newer)."""
    out = iso_path(cmdline)
    if out.exists() and out.stat().st_mtime >= _newest_input_mtime(kernel):
        return out
    if not MKISO.is_file():
        raise HarnessError(f"{MKISO} does not exist")
    TESTDIR.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.stem}.tmp{os.getpid()}.iso")
    try:
        _run_tool(["sh", str(MKISO), str(kernel), str(tmp), cmdline],
                  f"making an ISO with cmdline {cmdline!r}")
        if not tmp.is_file():
            raise HarnessError(f"{MKISO} did not create {tmp}")
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    out.with_suffix(".cmdline").write_text(cmdline + "\n")
    return out


OVMF_DIR = Path("/usr/share/OVMF")


def ovmf_files():
    """OVMF's code and variable-store images (Debian package ovmf)."""
    for code, vars_ in (("OVMF_CODE_4M.fd", "OVMF_VARS_4M.fd"),
                        ("OVMF_CODE.fd", "OVMF_VARS.fd")):
        if (OVMF_DIR / code).is_file() and (OVMF_DIR / vars_).is_file():
            return OVMF_DIR / code, OVMF_DIR / vars_
    raise HarnessError(f"no OVMF images in {OVMF_DIR}: run tools/deps.sh test")


def _safe_name(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:120] or "machine"


def _set_pdeathsig():
    """In the child: die with the test runner even if it is SIGKILLed."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)     # PR_SET_PDEATHSIG
    except Exception:
        pass


_live_machines = weakref.WeakSet()


def kill_all():
    """Kill every Machine still running (atexit / interrupted sessions)."""
    for m in list(_live_machines):
        m.kill()


class Machine:
    """One QEMU q35 (TCG) running the memlab ISO, serial on a pipe.

    mem is the -m value (",slots=8,maxmem=64G" is added unless mem has a
    comma); cpu the -cpu model; extra more QEMU arguments.  firmware is
    "bios" (SeaBIOS) or "uefi" (OVMF); media "cdrom" or "usb" (the ISO as a
    raw disk on a USB stick behind an xHCI controller, read-only); vga adds
    a display device (e.g. "VGA") for QMP screendump."""

    # -accel: plain TCG, one host thread for every virtual CPU; the fixture
    # multi_thread_tcg (conftest.py) sets MTTCG, one host thread per CPU
    accel = "tcg"

    def __init__(self, iso, name="machine", mem="2G", cpu="max", extra=(),
                 log_dir=None, firmware="bios", media="cdrom", vga=None):
        if firmware not in ("bios", "uefi"):
            raise HarnessError(f"firmware {firmware!r}: bios or uefi")
        if media not in ("cdrom", "usb"):
            raise HarnessError(f"media {media!r}: cdrom or usb")
        self.firmware = firmware
        self.media = media
        self.vga = vga
        self.iso = Path(iso)
        self.name = _safe_name(name)
        self.mem = mem if "," in mem else f"{mem},slots=8,maxmem=64G"
        self.cpu = cpu
        self.extra = [str(a) for a in extra]
        log_dir = Path(log_dir or LOGDIR)
        log_dir.mkdir(parents=True, exist_ok=True)
        self.serial_log = log_dir / f"{self.name}.serial.log"
        self.qemu_log = log_dir / f"{self.name}.qemu.log"
        self.proc = None
        self.tmpdir = None
        self.qmp_path = None
        self._qmp = None
        self._text = ""             # all serial output, decoded
        self._pos = 0               # read cursor into _text
        self._cond = threading.Condition()
        self._eof = False
        self._reader = None
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.t_start = None
        self.boot_time = None       # seconds from start() to the first prompt
        self.boot_log = None        # output before the first prompt
        self.last_match = None      # re.Match of the last wait_for()

    # -- life cycle --------------------------------------------------------

    def argv(self):
        return [
            QEMU, "-machine", "q35", "-accel", self.accel, "-cpu", self.cpu,
            "-m", self.mem, "-smp", "1", "-nodefaults", "-display", "none",
            "-no-reboot", "-serial", "stdio",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
        ] + self.media_args() + (["-device", self.vga] if self.vga else []) \
            + self.firmware_args() + self.extra

    def media_args(self):
        """The ISO as a CD, or written raw to a USB stick (hybrid image)."""
        if self.media == "cdrom":
            return ["-cdrom", str(self.iso), "-boot", "d"]
        return ["-device", "qemu-xhci,id=xhci",
                "-drive", f"if=none,id=stick,format=raw,readonly=on,file={self.iso}",
                "-device", "usb-storage,bus=xhci.0,drive=stick,bootindex=0"]

    def firmware_args(self):
        """SeaBIOS is QEMU's default; UEFI is OVMF from pflash, with a
        private copy of its variable store (OVMF writes to it)."""
        if self.firmware == "bios":
            return []
        code, vars_ = ovmf_files()
        mine = os.path.join(self.tmpdir, "OVMF_VARS.fd")
        shutil.copyfile(vars_, mine)
        return ["-drive", f"if=pflash,format=raw,readonly=on,file={code}",
                "-drive", f"if=pflash,format=raw,file={mine}"]

    def start(self):
        self.tmpdir = tempfile.mkdtemp(prefix="memlab-")
        self.qmp_path = os.path.join(self.tmpdir, "qmp.sock")
        argv = self.argv()
        self._log = open(self.serial_log, "wb", buffering=0)
        errlog = open(self.qemu_log, "wb")
        errlog.write(("$ " + " ".join(argv) + "\n").encode())
        errlog.flush()
        self.t_start = time.monotonic()
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=errlog, start_new_session=True,
                preexec_fn=_set_pdeathsig)
        except FileNotFoundError:
            errlog.close()
            self._log.close()
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            raise HarnessError(f"{QEMU} not found: run tools/deps.sh run")
        finally:
            errlog.close()
        _live_machines.add(self)
        self._reader = threading.Thread(target=self._read_loop,
                                        name=f"serial-{self.name}",
                                        daemon=True)
        self._reader.start()
        return self

    def _read_loop(self):
        fd = self.proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if chunk:
                try:
                    self._log.write(chunk)
                except (OSError, ValueError):
                    pass
            text = self._decoder.decode(chunk, final=not chunk)
            with self._cond:
                self._text += text
                if not chunk:
                    self._eof = True
                self._cond.notify_all()
            if not chunk:
                return

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        """Stop QEMU (if running) and clean up.  Safe to call twice."""
        if self._qmp is not None:
            self._qmp.close()
            self._qmp = None
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    self.proc.terminate()
                    self.proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=10)
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    if f:
                        f.close()
                except OSError:
                    pass
        if self._reader is not None:
            self._reader.join(timeout=5)
        if getattr(self, "_log", None) is not None:
            self._log.close()
        if self.tmpdir:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None
        _live_machines.discard(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()

    # -- serial output -----------------------------------------------------

    @property
    def output(self):
        """Everything received on the serial port so far."""
        with self._cond:
            return self._text

    def unread(self):
        """Output after the cursor (what no wait_for() has consumed yet)."""
        with self._cond:
            return self._text[self._pos:]

    def tail(self, lines=40):
        text = self.output.replace("\r", "")
        return "\n".join(text.split("\n")[-lines:])

    def _fail(self, what, timeout=None):
        __tracebackhide__ = True
        status = self.proc.poll() if self.proc else None
        if status is None and self._eof:
            # the serial port closed: QEMU is exiting, give it a moment
            try:
                status = self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        if status is not None:
            why = f"QEMU exited with status {status} while waiting for {what}"
        else:
            why = f"timed out after {timeout:g} s waiting for {what}"
        raise MachineError(
            f"{why}\n--- last serial output ({self.serial_log}) ---\n"
            f"{self.tail(12)}\n--- QEMU stderr: {self.qemu_log} ---")

    def wait_for(self, pattern, timeout=CMD_TIMEOUT):
        """Wait until pattern (a string, or a compiled regex) appears after
        the cursor.  Returns the text from the cursor to the end of the match
        and moves the cursor past it.  Raises MachineError on timeout or when
        QEMU exits first."""
        __tracebackhide__ = True
        if isinstance(pattern, str):
            rx = re.compile(re.escape(pattern))
        else:
            rx = pattern
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                m = rx.search(self._text, self._pos)
                if m:
                    text = self._text[self._pos:m.end()]
                    self._pos = m.end()
                    self.last_match = m
                    return text
                left = deadline - time.monotonic()
                if self._eof or left <= 0:
                    break
                self._cond.wait(min(left, 0.5))
        self._fail(repr(getattr(rx, "pattern", pattern)), timeout)

    def wait_prompt(self, timeout=CMD_TIMEOUT):
        """Wait for the next shell prompt; the text before it."""
        __tracebackhide__ = True
        first = self.boot_time is None
        text = self.wait_for(PROMPT, timeout)[:-len(PROMPT)]
        if first:
            self.boot_time = time.monotonic() - self.t_start
            self.boot_log = text
        return text

    def wait_boot(self, timeout=BOOT_TIMEOUT, settle=True):
        """Wait for the first prompt; the boot log before it.  With settle,
        and when the boot left memory waiting for its memmap (deferred
        init, the default), also wait for the background init to finish
        and read its log line, so that a test starts from a machine whose
        free memory no longer grows and whose console prints nothing of its
        own.  Tests about deferred init itself pass settle=False."""
        __tracebackhide__ = True
        log = self.wait_prompt(timeout)
        if settle and DEFERRED_WAITS in log and DEFERRED_OFF not in log:
            self.wait_for(DEFERRED_DONE, timeout)
        return log

    def quiesce(self, quiet=1.0, timeout=CMD_TIMEOUT):
        """Wait until no serial output arrived for quiet seconds, then move
        the cursor to the end.  Returns the text skipped."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                n = len(self._text)
                self._cond.wait(quiet)
                if len(self._text) == n or time.monotonic() >= deadline:
                    break
            text = self._text[self._pos:]
            self._pos = len(self._text)
            return text

    # -- serial input ------------------------------------------------------

    def send_bytes(self, data):
        """Write raw bytes to the serial port."""
        __tracebackhide__ = True
        if isinstance(data, str):
            data = data.encode()
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            self._fail("the serial port to accept input", 0)

    def send_line(self, line):
        """Type line and Enter (CR, as a terminal sends it)."""
        __tracebackhide__ = True
        self.send_bytes(line.encode() + b"\r")

    def run(self, cmd, timeout=CMD_TIMEOUT):
        """Type cmd, wait for the next prompt, and return the command's output:
        the text between the echoed command line and the prompt, without
        carriage returns."""
        __tracebackhide__ = True
        self.send_line(cmd)
        text = self.wait_prompt(timeout).replace("\r", "")
        # The echo is the first line; normally it ends with the command.
        nl = text.find("\n")
        if nl < 0:
            return ""
        echo, out = text[:nl], text[nl + 1:]
        if not echo.endswith(cmd) and cmd in text:
            # something came before the echo (a late log line)
            idx = text.index(cmd) + len(cmd)
            out = text[idx:].lstrip("\n")
        elif not echo.endswith(cmd):
            # a log record printed while the line was echoed splits the
            # echo ("cat /sys/dev[  8.42] virtio-mem ...\nices/...\n"):
            # take such records out, wherever they start
            joined = LOG_RECORD.sub("", text)
            if cmd in joined:
                out = joined[joined.index(cmd) + len(cmd):].lstrip("\n")
        return out

    def run_keys(self, keys, timeout=CMD_TIMEOUT):
        """Type raw keys (bytes ending in CR), wait for the next prompt, and
        return what came after the first line (the edited, echoed line),
        without carriage returns."""
        __tracebackhide__ = True
        self.send_bytes(keys)
        text = self.wait_prompt(timeout).replace("\r", "")
        nl = text.find("\n")
        return "" if nl < 0 else text[nl + 1:]

    # -- QEMU side ---------------------------------------------------------

    def qmp(self, timeout=10.0):
        """The QMP client for this machine, connected on first use."""
        if self._qmp is None:
            self._qmp = QMP(timeout=CMD_TIMEOUT).connect(self.qmp_path,
                                                         timeout=timeout)
        return self._qmp

    def wait_exit(self, timeout=EXIT_TIMEOUT):
        """Wait for QEMU to exit by itself; its exit status."""
        __tracebackhide__ = True
        try:
            status = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._fail("QEMU to exit", timeout)
        if self._reader is not None:
            self._reader.join(timeout=5)
        return status


# --- parsers for kernel output that more than one script reads -------------

MEMMAP_BENCH_KINDS = ("normal (Movable)", "device 4 KiB", "device 2 MiB")


def parse_memmap_bench(text):
    """The table `devmem bench` prints (memmap_bench_print()), as a dict:

        rows:   {kind: (old, template, template_nt, old_over_new, old_over_nt)}
                cycles/page, then the medians of the paired ratios
        memset, stream, stores:  the three limits, cycles/page
        spreads: {kind: (old, template, template_nt)} and limit_spreads:
                (memset, stream, stores): each median's spread, half of
                the runs' max - min as % of it
        signs:  {(kind, design): (wins, reps, p, verdict)}, design being
                "template" or "template-nt", verdict one of "faster",
                "no significant difference", "SLOWER"

    Raises HarnessError naming the first line it cannot find, so a change
    of the kernel's format fails loudly instead of as a None somewhere."""
    def need(pattern, what):
        found = re.search(pattern, text, re.M)
        if not found:
            raise HarnessError(f"devmem bench output has no {what} line:\n{text}")
        return found

    out = {"rows": {}, "signs": {}}
    for kind in MEMMAP_BENCH_KINDS:
        k = re.escape(kind)
        r = need(rf"^  {k}\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x\s+([\d.]+)x",
                 f"'{kind}' row")
        out["rows"][kind] = tuple(float(v) for v in r.groups())
        for design in ("template", "template-nt"):
            d = re.escape(design)
            s = need(rf"^  {k}\s+{d} faster in (\d+) of (\d+) runs \(p=(\d\.\d{{3}})\): "
                     rf"(?:{d} (faster|SLOWER)|(no significant difference))$",
                     f"'{kind}' {design} sign test")
            out["signs"][(kind, design)] = (int(s.group(1)), int(s.group(2)), float(s.group(3)),
                                            s.group(4) or s.group(5))
    spread = r"\+-([\d.]+)%"
    out["spreads"] = {}
    for kind in MEMMAP_BENCH_KINDS:
        r = need(rf"^    {re.escape(kind)}\s+{spread}\s+{spread}\s+{spread}$", f"'{kind}' spread")
        out["spreads"][kind] = tuple(float(v) for v in r.groups())
    r = need(rf"^    limits\s+memset {spread}\s+stream {spread}\s+stores {spread}$", "limits' spread")
    out["limit_spreads"] = tuple(float(v) for v in r.groups())
    out["memset"] = float(need(r"limit: memset\s+([\d.]+)", "memset limit").group(1))
    out["stream"] = float(need(r"limit: movnti stream\s+([\d.]+)", "stream limit").group(1))
    out["stores"] = float(need(r"limit: 8-byte stores\s+([\d.]+)", "8-byte store limit").group(1))
    return out

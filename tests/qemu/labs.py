"""labs.py - the labs of docs/: Markdown blocks that a test replays.

A lab is a fenced block whose info string is `lab`:

    ```lab
    $ make run CMDLINE="cma=64M" MEM=2G,slots=8,maxmem=64G QEMU_EXTRA="..."
    memlab> alloc 0
    handle 1: pfn 0x1000 order 0 (4 KiB) node 0 zone DMA32 unmovable
    $ tools/qmp.py build/qmp.sock object-add qom-type=memory-backend-ram id=m1 size=1G
    ok
    (qmp) wait ACPI_DEVICE_OST
    ... event ACPI_DEVICE_OST {"info": {...}}
    ```

Lines of a lab:

  $ make run [VAR=VALUE ...]   first line: a new boot, configured as `make run`
                               would be (MEM, CPU, CMDLINE, QEMU_EXTRA); a lab
                               without this line continues the machine of the
                               lab before it in the same file; lines
                               after it, if any, are the expected boot log
                               up to and with the first prompt (`memlab>`)
  memlab> COMMAND              typed into the serial shell
  $ tools/qmp.py build/qmp.sock WORDS
  (qmp) WORDS                  a QMP command (tools/qmp.py's command line or
                               its interactive prompt); `(qmp) wait EVENT`
                               waits for an event after the last command.
                               Expected lines `TIME event NAME ...` after a
                               command (not a wait) are the events qmp.py
                               prints after its reply (before the next
                               prompt, or on stderr): the replay waits up
                               to 10 s for those names, in that order, and
                               prints every event since the command up to
                               the last of them
  $ tools/qmp.py build/qmp.sock
                               alone: the interactive client starts; its
                               output is the `connected to QEMU ...` line
  # wait for the console: TEXT  not typed: wait until TEXT appears on the
                               console (after QMP steps whose effect the
                               guest carries out on its own time); lines
                               after it, if any, are the expected console
                               output up to the end of TEXT's line (kernel
                               log lines: start them with `[`).  A command
                               typed after QMP steps first waits until the
                               console has been quiet for 0.3 s, unless
                               such a wait came in between: so a lab can
                               type commands while an operation still runs
  # the machine stops: exit status N
                               after the expected output of a command that
                               ends the machine (`crash ...`, a panic,
                               `poweroff`): that command is not followed by
                               a prompt, so its output is everything printed
                               until QEMU exited; this step then checks
                               QEMU's exit status.  It is the last step of
                               its boot: the next lab starts with
                               `$ make run ...`
  anything else                the expected output of the line above it

Expected output is compared line by line with what the machine printed,
blank lines left out on both sides, trailing spaces ignored, a run of
spaces matching any run of spaces, and kernel log timestamps
(`[    4.610000] `) removed.  Kernel log lines are compared only when the
expected output has a line starting with `[`; otherwise they are dropped.
Patterns for what changes from run to run:

  {n}     a decimal integer          {num}   a decimal number (38.11)
  {hex}   a hex number, 0x optional  {word}  one word without spaces
  ...     inside a line: any text; a line of only `...`: any lines, or none

Used by tests/qemu/test_labs.py (one test per boot) and from the command
line, to write or check a lab:

    /usr/bin/python3 tests/qemu/labs.py docs/memory-core.md [LINE]

replays the file's labs (or only the boot whose lab starts at LINE) and
prints each step as the machine answered it, marking the steps whose
output does not match.
"""

import contextlib
import difflib
import io
import re
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import memlab  # noqa: E402
import qmp as qmplib  # noqa: E402  (tools/, put on sys.path by memlab)

DOCS = memlab.REPO / "docs"
MAKE_RUN_VARS = {"MEM", "CPU", "CMDLINE", "QEMU_EXTRA"}
MAKE_RUN_EXTRA = ["-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1"]
QMP_CLI = "$ tools/qmp.py build/qmp.sock"
CONSOLE_WAIT = "# wait for the console: "
MACHINE_STOPS = "# the machine stops: "
STEP_TIMEOUT = 300.0 * memlab.SCALE
EVENT_TIMEOUT = 10.0 * memlab.SCALE
TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\] ")


class LabError(Exception):
    """A lab that cannot be read (bad header, output before any command)."""


@dataclass
class Step:
    kind: str            # "boot", "shell", "qmp", "qmp-open", "qmp-cli", "console" or "exit"
    text: str            # the command
    line: int            # 1-based line in the Markdown file
    expected: list = field(default_factory=list)
    stops: bool = False  # a shell command after which QEMU exits (no prompt)


@dataclass
class Session:
    """The labs of one boot: a `$ make run` lab and those that continue it."""
    path: Path
    line: int
    config: dict
    steps: list = field(default_factory=list)
    stopped: bool = False   # ends with `# the machine stops: ...`

    @property
    def name(self):
        return f"{self.path.name}:{self.line}"


def parse_make_run(text, where):
    words = shlex.split(text)
    if words[:3] != ["$", "make", "run"]:
        raise LabError(f"{where}: a lab starts with `$ make run ...`: {text}")
    config = {}
    for w in words[3:]:
        k, eq, v = w.partition("=")
        if not eq or k not in MAKE_RUN_VARS:
            raise LabError(f"{where}: `{w}`: make run takes "
                           f"{', '.join(sorted(MAKE_RUN_VARS))}")
        config[k] = v
    return config


_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")


def lab_blocks(path):
    """(line of the opening fence, [(line number, text), ...]) of each lab
    block, skipping labs shown inside other fenced blocks."""
    lines = Path(path).read_text().split("\n")
    fence, body, start = None, None, 0
    for no, line in enumerate(lines, 1):
        m = _FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                if m.group(2).strip() == "lab" and fence == "```":
                    body, start = [], no
            continue
        if m and m.group(1).startswith(fence) and not m.group(2).strip():
            if body is not None:
                yield start, body
            fence, body = None, None
        elif body is not None:
            body.append((no, line))
    if body is not None:
        raise LabError(f"{path}:{start}: lab block never closed")


def parse_file(path):
    """The sessions of one Markdown file, in order."""
    path = Path(path)
    sessions = []
    for start, body in lab_blocks(path):
        if not body:
            continue
        first_no, first = body[0]
        if first.startswith("$ make run"):
            sessions.append(Session(path, start, parse_make_run(first, f"{path}:{first_no}")))
            sessions[-1].steps.append(Step("boot", first[2:], first_no))
            body = body[1:]
        elif not sessions:
            raise LabError(f"{path}:{start}: the first lab of a page starts "
                           f"with `$ make run ...`")
        sess = sessions[-1]
        for no, text in body:
            if sess.stopped and text.strip():
                raise LabError(f"{path}:{no}: the machine stopped at line "
                               f"{sess.steps[-1].line}: a lab after it starts "
                               f"with `$ make run ...`")
            if text.startswith(MACHINE_STOPS):
                m = re.fullmatch(r"exit status (\d+)", text[len(MACHINE_STOPS):].strip())
                if not m:
                    raise LabError(f"{path}:{no}: `{MACHINE_STOPS}exit status N`: {text}")
                if not sess.steps or sess.steps[-1].kind != "shell":
                    raise LabError(f"{path}:{no}: the machine stops after a "
                                   f"`memlab>` command")
                sess.steps[-1].stops = True
                sess.steps.append(Step("exit", m.group(1), no, [f"exit status {m.group(1)}"]))
                sess.stopped = True
            elif text.startswith("memlab> "):
                sess.steps.append(Step("shell", text[len("memlab> "):], no))
            elif text.startswith("(qmp) "):
                sess.steps.append(Step("qmp", text[len("(qmp) "):], no))
            elif text.startswith(CONSOLE_WAIT):
                sess.steps.append(Step("console", text[len(CONSOLE_WAIT):].strip(), no))
            elif text.rstrip() == QMP_CLI:
                sess.steps.append(Step("qmp-open", "", no))
            elif text.startswith(QMP_CLI + " "):
                sess.steps.append(Step("qmp-cli", text[len(QMP_CLI) + 1:], no))
            elif text.startswith("$ "):
                raise LabError(f"{path}:{no}: a lab runs only `make run` and "
                               f"`tools/qmp.py build/qmp.sock`: {text}")
            elif not sess.steps or sess.steps[-1].line < start:
                if text.strip():
                    raise LabError(f"{path}:{no}: output before any command")
            else:
                sess.steps[-1].expected.append(text)
    for sess in sessions:     # a boot without expected output is not a step
        sess.steps = [s for s in sess.steps
                      if s.kind != "boot" or any(e.strip() for e in s.expected)]
    return sessions


def all_sessions(docs=DOCS):
    """Every lab of docs/*.md and of the README's tour."""
    out = parse_file(memlab.REPO / "README.md") if docs == DOCS else []
    for p in sorted(Path(docs).glob("*.md")):
        out += parse_file(p)
    return out


# -- matching ----------------------------------------------------------------

_TOKENS = re.compile(r"\{n\}|\{num\}|\{hex\}|\{word\}|\.\.\.| +")
_TOKEN_RX = {"{n}": r"-?\d+", "{num}": r"-?\d+(?:\.\d+)?", "{hex}": r"(?:0x)?[0-9a-fA-F]+",
             "{word}": r"\S+", "...": r".*?"}


def line_regex(expected):
    """The regex one expected line stands for (see the module comment)."""
    text = TIMESTAMP.sub("", expected.rstrip())
    lead = len(text) - len(text.lstrip(" "))
    out, pos = [r" *" if lead else ""], lead
    for m in _TOKENS.finditer(text, lead):
        out.append(re.escape(text[pos:m.start()]))
        tok = m.group(0)
        out.append(_TOKEN_RX.get(tok, r" +"))
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return re.compile("".join(out) + r"\Z")


def clean(lines, keep_log):
    out = []
    for line in lines:
        line = line.rstrip()
        if not line.strip():
            continue
        if TIMESTAMP.match(line):
            if not keep_log:
                continue
            line = TIMESTAMP.sub("", line)
        out.append(line)
    return out


def matches(expected, actual):
    """Whether the actual lines fit the expected ones (gaps included)."""
    exp = [None if e.strip() == "..." else line_regex(e) for e in expected]
    n, m = len(exp), len(actual)
    # ok[i][j]: exp[i:] matches actual[j:]
    ok = [[False] * (m + 1) for _ in range(n + 1)]
    ok[n][m] = True
    for i in range(n - 1, -1, -1):
        for j in range(m, -1, -1):
            if exp[i] is None:
                ok[i][j] = ok[i + 1][j] or (j < m and ok[i][j + 1])
            else:
                ok[i][j] = j < m and bool(exp[i].match(actual[j])) and ok[i + 1][j + 1]
    return ok[0][0]


_EVENT_LINE = re.compile(r"^(?:\S+ )?event ([A-Z][A-Z0-9_]*)\b")


def expected_events(step):
    """The names of the QMP events a command's expected output shows
    (lines `TIME event NAME ...`, as qmp.py prints them), in order."""
    if step.kind not in ("qmp", "qmp-cli") or step.text.split()[:1] == ["wait"]:
        return []
    return [m.group(1) for m in map(_EVENT_LINE.match, step.expected) if m]


def compare(step, raw_output):
    """(ok, actual lines) for one step's output."""
    expected = [e for e in step.expected if e.strip()]
    keep_log = any(e.lstrip().startswith("[") for e in expected)
    actual = clean(raw_output.split("\n"), keep_log)
    return matches(expected, actual), actual


def diff_text(step, actual):
    """A unified diff of the expected lines and the machine's, in which an
    actual line that fits an expected line's pattern is shown as that
    expected line, so only the lines that really differ stand out."""
    exp = [e.rstrip() for e in step.expected if e.strip()]
    rx = [(e, line_regex(e)) for e in exp if e.strip() != "..."]
    shown = [next((e for e, r in rx if r.match(a)), a) for a in actual]
    return "\n".join(difflib.unified_diff(exp, shown, "expected (docs)", "machine",
                                          lineterm="", n=2))


# -- running -----------------------------------------------------------------

class Replay:
    """One session's machine: boot it, then run its steps one by one."""

    def __init__(self, session, make_iso):
        self.session = session
        cfg = session.config
        extra = MAKE_RUN_EXTRA + shlex.split(cfg.get("QEMU_EXTRA", ""))
        self.machine = memlab.Machine(make_iso(cfg.get("CMDLINE", "")),
                                      name="lab-" + session.name.replace(":", "-"),
                                      cpu=cfg.get("CPU", "max"), extra=extra)
        self.machine.mem = cfg.get("MEM", "2G,slots=8,maxmem=64G")
        self.history = []
        self.after_qmp = False
        self.exit_status = None

    def boot(self):
        self.machine.start()
        self.machine.wait_boot()
        return self

    def run(self, step):
        """The raw output of one step."""
        m = self.machine
        if step.kind == "boot":
            return (m.boot_log or "").replace("\r", "") + memlab.PROMPT
        if step.kind == "console":
            self.after_qmp = False      # the lab said what to wait for
            text = m.wait_for(step.text, timeout=STEP_TIMEOUT)
            if not step.expected:
                return ""
            text += m.wait_for("\n", timeout=STEP_TIMEOUT)
            return text.replace("\r", "")
        if step.kind == "exit":
            return f"exit status {self.exit_status}\n"
        if step.kind == "shell":
            if self.after_qmp:
                m.quiesce(0.3)
                self.after_qmp = False
            if step.stops:
                return self._run_to_exit(step.text)
            return m.run(step.text, timeout=STEP_TIMEOUT)
        self.after_qmp = True
        q = m.qmp()
        if step.kind == "qmp-open":
            return qmplib.greeting_line(q.greeting, "build/qmp.sock") + "\n"
        words = shlex.split(step.text)
        buf = io.StringIO()
        prefix = "qmp.py: " if step.kind == "qmp-cli" else ""
        with contextlib.redirect_stdout(buf):
            try:
                if step.kind == "qmp" and words[0] == "wait" and len(words) in (2, 3):
                    tmo = float(words[2]) if len(words) == 3 else 30.0
                    ev = qmplib._wait_after(q, self.history, words[1], tmo * memlab.SCALE)
                    qmplib._print_event(ev, out=buf)
                else:
                    q.drain(0)
                    self.history = list(q.events)
                    qmplib._print_result(qmplib._run_words(q, words))
                    for ev in self._events_after(q, expected_events(step)):
                        qmplib._print_event(ev, out=buf)
            except qmplib.QMPError as e:
                print(f"{prefix}error: {e.cls}: {e.desc}")
            except (ValueError, qmplib.QMPTimeout) as e:
                print(f"{prefix}{'error: ' if not prefix else ''}{e}")
        return buf.getvalue()

    def _events_after(self, q, names, timeout=EVENT_TIMEOUT):
        """The events that came after the last command, up to the last of
        names (waited for in that order, at most timeout seconds)."""
        if not names:
            return []
        deadline = time.monotonic() + timeout
        while True:
            new = [e for e in q.events if all(e is not h for h in self.history)]
            k = 0
            for i, ev in enumerate(new):
                if ev.get("event") == names[k]:
                    k += 1
                    if k == len(names):
                        return new[:i + 1]
            left = deadline - time.monotonic()
            if left <= 0:
                return new
            q.drain(min(left, 0.1))

    def _run_to_exit(self, cmd):
        """Type cmd, wait for QEMU to exit, and return what was printed
        after the echoed command line (the next step checks the status)."""
        m = self.machine
        m.send_line(cmd)
        self.exit_status = m.wait_exit()
        text = m.unread().replace("\r", "")
        if cmd in text:
            text = text[text.index(cmd) + len(cmd):]
        return text

    def kill(self):
        self.machine.kill()


def _cli_make_iso(cmdline):
    return memlab.make_iso(memlab.build_kernel(), cmdline)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    path = Path(argv[0])
    only = int(argv[1]) if len(argv) > 1 else None
    bad = 0
    for sess in parse_file(path):
        if only is not None and sess.line != only:
            continue
        print(f"=== {sess.name} {sess.config}")
        t0 = time.monotonic()
        r = Replay(sess, _cli_make_iso).boot()
        try:
            for step in sess.steps:
                out = r.run(step)
                ok, actual = compare(step, out)
                prompt = {"shell": "memlab> ", "qmp": "(qmp) ", "console": CONSOLE_WAIT,
                          "exit": MACHINE_STOPS + "exit status ", "boot": "$ ",
                          "qmp-open": QMP_CLI}.get(step.kind, QMP_CLI + " ")
                print(("" if ok else "!!! MISMATCH ") + prompt + step.text)
                print(out.rstrip("\n"))
                if not ok:
                    bad += 1
                    print(diff_text(step, actual))
        finally:
            r.kill()
        print(f"=== {sess.name}: {time.monotonic() - t0:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

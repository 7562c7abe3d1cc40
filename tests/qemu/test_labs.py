"""The labs of docs/ replayed on the machine.

Every ```lab block of every docs/*.md page is read by labs.py; each boot
(a lab starting with `$ make run ...` and the labs after it that continue
it) is one test: the machine is booted as the header says, every command
is typed or sent over QMP, and its output is compared with the page's.
A failure shows the command, its line in the page and a diff.
docs/testing.md#labs describes the format.
"""

import pytest

import labs

SESSIONS = labs.all_sessions()


def test_labs_exist():
    """Every mechanism page has at least one lab."""
    pages = {s.path.name for s in SESSIONS}
    for page in ("zone-contiguity.md", "memmap-init.md", "contig-free.md",
                 "auto-movable.md", "memory-core.md", "hotplug.md", "virtio-mem.md"):
        assert page in pages, f"docs/{page} has no lab"


def test_lab_patterns():
    """The matcher itself: patterns, gaps, spaces, timestamps."""
    step = labs.Step("shell", "x", 1, ["a {n} b {hex}", "...", "  end ... here"])
    ok, _ = labs.compare(step, "a 12 b 0x1f\nmore\nlines\nend   of it here\n")
    assert ok
    ok, _ = labs.compare(step, "a 12 b 0x1f\nend of it there\n")
    assert not ok
    step = labs.Step("shell", "x", 1, ["[contig_check] zone {word}"])
    assert labs.compare(step, "[    1.000000] [contig_check] zone DMA32\n")[0]
    step = labs.Step("shell", "x", 1, ["done"])
    assert labs.compare(step, "[    1.000000] a log line\ndone\n")[0]


def test_lab_machine_stops(tmp_path):
    """`# the machine stops: exit status N`: the command before it waits for
    QEMU to exit instead of a prompt, the step checks the status, and only
    a new boot may follow it."""
    page = tmp_path / "page.md"
    page.write_text("```lab\n$ make run\nmemlab> crash pagefault\nBUG: ...\n"
                    "# the machine stops: exit status 93\n```\n\n"
                    "```lab\n$ make run MEM=8G\nmemlab> help\n```\n")
    first, second = labs.parse_file(page)
    crash, stop = first.steps
    assert crash.kind == "shell" and crash.stops and crash.expected == ["BUG: ..."]
    assert stop.kind == "exit" and stop.line == 5 and first.stopped
    assert labs.compare(stop, "exit status 93\n")[0]
    assert not labs.compare(stop, "exit status 225\n")[0]
    assert second.config == {"MEM": "8G"} and not second.steps[0].stops
    page.write_text("```lab\n$ make run\nmemlab> crash gp\n"
                    "# the machine stops: exit status 91\n```\n\n"
                    "```lab\nmemlab> help\n```\n")
    with pytest.raises(labs.LabError, match="starts with `\\$ make run"):
        labs.parse_file(page)
    page.write_text("```lab\n$ make run\n# the machine stops: exit status 93\n```\n")
    with pytest.raises(labs.LabError, match="after a `memlab>` command"):
        labs.parse_file(page)


def test_lab_boot_log_and_qmp_events(tmp_path):
    """Output after `$ make run` is the boot log (a step only if there is
    some); `$ tools/qmp.py build/qmp.sock` alone starts the interactive
    client; event lines after a QMP command (not after a wait) name the
    events the replay waits for."""
    page = tmp_path / "page.md"
    page.write_text("```lab\n$ make run CMDLINE=\"x=1\"\n...\n[ 0.1] boot: ready\nmemlab>\n"
                    "$ tools/qmp.py build/qmp.sock\nconnected to QEMU 7.2.{n} ...\n"
                    "(qmp) stop\nok\n{n}:{n}:{num} event STOP\n"
                    "(qmp) wait RESUME\n... event RESUME\n"
                    "$ tools/qmp.py build/qmp.sock device_del id=d1\nok\n"
                    "{n}:{n}:{num} event ACPI_DEVICE_OST {...}\n"
                    "{n}:{n}:{num} event DEVICE_DELETED {...}\n```\n\n"
                    "```lab\n$ make run\nmemlab> help\n```\n")
    first, second = labs.parse_file(page)
    boot, opened, stop, wait, dele = first.steps
    assert boot.kind == "boot" and boot.line == 2 and first.config == {"CMDLINE": "x=1"}
    assert labs.compare(boot, "a\n[    0.148706] boot: ready\nmemlab> ")[0]
    assert not labs.compare(boot, "a\n[    0.148706] boot: not ready\nmemlab> ")[0]
    assert opened.kind == "qmp-open"
    assert labs.compare(opened, "connected to QEMU 7.2.22 at build/qmp.sock; 'help'\n")[0]
    assert labs.expected_events(stop) == ["STOP"]
    assert labs.compare(stop, "ok\n13:11:13.035646 event STOP\n")[0]
    assert labs.expected_events(wait) == []
    assert labs.expected_events(dele) == ["ACPI_DEVICE_OST", "DEVICE_DELETED"]
    assert [s.kind for s in second.steps] == ["shell"]


@pytest.mark.parametrize("session", SESSIONS, ids=[s.name for s in SESSIONS])
def test_lab(session, make_iso, request):
    r = labs.Replay(session, make_iso)
    request.node.__dict__.setdefault("_memlab_machines", []).append(r.machine)
    try:
        r.boot()
        for step in session.steps:
            out = r.run(step)
            ok, actual = labs.compare(step, out)
            if not ok:
                pytest.fail(f"{session.path.name}:{step.line}: `{step.text}` printed "
                            f"something else than the page says:\n"
                            f"{labs.diff_text(step, actual)}", pytrace=False)
    finally:
        r.kill()


def test_every_exercise_has_a_checked_answer():
    """docs/exercises.md's questions and docs/exercises-answers.md's answers
    name the same exercises, and every answer section has a lab (so the
    answer is checked against the machine by test_lab)."""
    import re
    q = (labs.DOCS / "exercises.md").read_text()
    a = (labs.DOCS / "exercises-answers.md").read_text()
    asked = re.findall(r"^\*\*(E\d+\.\d+) ", q, re.M)
    answered = re.findall(r"^\*\*(E\d+\.\d+)\.\*\*", a, re.M)
    assert asked and asked == answered, (asked, answered)
    parts = re.split(r"^\*\*E\d+\.\d+\.\*\*", a, flags=re.M)[1:]
    for ident, text in zip(answered, parts):
        assert "```lab" in text, f"{ident} has no lab in docs/exercises-answers.md"

"""The files and commands the docs name exist on the machine.

Labs (test_labs.py) check what a session prints; prose can still name a
file or a command that is not there.  This module reads docs/*.md and
README.md and checks, on one booted machine:

  paths     every /proc/... or /sys/... path inside `backticks` (outside
            fenced blocks) exists.  {a,b} alternatives are expanded;
            a placeholder component (memoryN, nodeM, PNP0C80:SS, NAME,
            MODULE, <name>, *, ...) stands for the first real entry of
            its directory that fits; the literal name is tried first, so
            MEM_GOING_ONLINE is not a placeholder.  The check lists each
            directory on the way once (`ls DIR`), so a path is only
            reported missing when the machine says so.
  commands  every command a command table names (a table whose first
            header cell is "command": the first word of each backticked
            span in a row's first cell) and every `memlab> COMMAND` line
            of a fenced block is in `help`'s list.

A failure lists doc file:line and what is missing.  ALLOWED_MISSING and
NOT_COMMANDS are the exceptions, each with its reason; an entry that no
doc names any more is reported too, so the lists stay short.
"""

import posixpath
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Paths (as written, up to a prefix) the default 2 GiB boot does not have.
ALLOWED_MISSING = {
    "/proc/nosuch": "the error table's example of a file that does not exist",
    "/sys/devices/LNXSYSTM:00/": "the ACPI memory hotplug devices appear with "
                                 "the first DIMM",
    "/sys/devices/system/memory/memoryN/firmware_node": "only the blocks of "
                                                        "a DIMM have it",
    "/sys/devices/system/cpu/cpuN/online": "every CPU but cpu0 has it, as in "
                                           "Linux; the default boot has one CPU",
    "/sys/bus/nd/": "made with the first NVDIMM region (tests/qemu/test_pmem.py "
                    "checks the files)",
}

# Words at a `memlab> ` prompt in a fenced block that are not commands.
NOT_COMMANDS = {
    "xxxxxxxx...": "shell.md's example of a line that is too long",
}

# Pages whose "command" tables list QMP commands, not shell commands.
QMP_PAGES = {"docs/qmp.md"}

SPAN = re.compile(r"(`+)(.+?)\1")
PATH = re.compile(r"(?<![\w.])/(?:proc|sys)(?:/[^\s`'\"();|>]*)?")
PROMPT = re.compile(r"^\s*memlab> (\S+)")


def doc_files():
    return sorted(ROOT.glob("docs/*.md")) + [ROOT / "README.md"]


def _lines(path):
    """(line number, text, inside a fenced block) of a Markdown file."""
    fence = False
    for no, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        yield no, line, fence


def expand_braces(path):
    """`/a/{b,c,...}/d` -> ['/a/b/d', '/a/c/d'] (a `...` choice is dropped)."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    out = []
    for alt in m.group(1).split(","):
        if alt.strip() in ("...", "") and "," in m.group(1):
            continue
        out += expand_braces(path[:m.start()] + alt.strip() + path[m.end():])
    return out


def doc_paths():
    """(where, as written, path) for each /proc or /sys path in backticks."""
    found = []
    for f in doc_files():
        rel = f.relative_to(ROOT).as_posix()
        for no, line, fence in _lines(f):
            if fence:
                continue
            for span in SPAN.finditer(line):
                for written in PATH.findall(span.group(2)):
                    written = written.rstrip(".,:;")
                    for p in expand_braces(written):
                        found.append((f"{rel}:{no}", written, p))
    return found


def doc_commands():
    """(where, command word) for command tables and fenced prompts."""
    found = []
    for f in doc_files():
        rel = f.relative_to(ROOT).as_posix()
        table = False
        for no, line, fence in _lines(f):
            if fence:
                m = PROMPT.match(line)
                if m:
                    found.append((f"{rel}:{no}", m.group(1)))
                continue
            cells = line.strip().strip("|").split("|") if line.startswith("|") else []
            if not cells:
                table = False
                continue
            if not table:
                table = (cells[0].strip().lower() == "command"
                         and rel not in QMP_PAGES)
                continue
            for span in SPAN.finditer(cells[0]):
                word = span.group(2).split()[0] if span.group(2).split() else ""
                if word:
                    found.append((f"{rel}:{no}", word))
    return found


def placeholder(comp):
    """A regex for a placeholder component, or None for a plain name."""
    if comp == "...":
        return ".+"
    if "*" in comp or "<" in comp:
        rx = re.escape(comp).replace(r"\*", ".*")
        return re.sub(r"<[^>]*>", ".+", rx.replace(r"\<", "<").replace(r"\>", ">"))
    if re.fullmatch(r"[A-Z][A-Z_]*", comp):
        return ".+"
    m = re.fullmatch(r"(.*[a-z0-9:])([A-Z]{1,2})", comp)
    if m:
        return re.escape(m.group(1)) + r"\w+"
    return None


class Tree:
    """Directory listings of the machine, each fetched once with `ls`."""

    def __init__(self, machine):
        self.m = machine
        self.cache = {}

    def names(self, d):
        if d not in self.cache:
            out = self.m.run(f"ls {d}")
            lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
            if any(ln.startswith("ls:") for ln in lines) or lines == [d]:
                self.cache[d] = None        # missing, or a file
            else:
                self.cache[d] = lines
        return self.cache[d]

    def resolve(self, path):
        """None if path (placeholders filled) exists, else why not."""
        cur = "/"
        for comp in [c for c in posixpath.normpath(path).split("/") if c]:
            names = self.names(cur)
            if names is None:
                return f"{cur} is not a directory on the machine"
            if comp not in names:
                rx = placeholder(comp)
                fits = sorted(n for n in names if rx and re.fullmatch(rx, n))
                if not fits:
                    return f"no {comp!r} in {cur}"
                comp = fits[0]
            cur = posixpath.join(cur, comp)
        return None


def _allowed(written):
    return next((k for k in ALLOWED_MISSING if written.startswith(k)), None)


def fail_if_missing(title, missing, table_name, table, used, stale_why):
    """Fail with every missing name (doc file:line first) and every entry
    of an allowlist that no doc needs any more."""
    stale = [f"{table_name}[{k!r}]: {stale_why}" for k in table if k not in used]
    if missing or stale:
        pytest.fail("\n".join([title] + missing + stale), pytrace=False)


def test_extractors_find_the_docs_claims():
    """Host only: the readers find what the pages are known to name."""
    paths = {p for _, _, p in doc_paths()}
    assert "/sys/kernel/mm/memlab/zoneinfo" in paths
    assert "/sys/devices/system/node/possible" in paths   # from {online,possible,...}
    cmds = {c for _, c in doc_commands()}
    assert {"alloc", "cat", "memory", "bench", "help"} <= cmds
    assert "query-status" not in cmds                      # qmp.md's table
    assert placeholder("memoryN") and placeholder("MODULE")
    assert placeholder("cma0") is None and placeholder("LNXSYSTM:00") is None


def test_doc_paths_exist(shell):
    tree = Tree(shell)
    missing, used = [], set()
    for where, written, path in doc_paths():
        why = tree.resolve(path)
        if why is None:
            continue
        key = _allowed(written)
        if key:
            used.add(key)
            continue
        missing.append(f"{where}: {path} ({why})")
    fail_if_missing("paths named in the docs that the machine does not have:", missing,
                    "ALLOWED_MISSING", ALLOWED_MISSING, used,
                    "no doc names a missing path under it")


def test_doc_commands_exist(shell):
    out = shell.run("help")
    known = {ln.split()[0] for ln in out.splitlines() if ln.strip()}
    assert {"help", "alloc", "cat"} <= known, f"help printed:\n{out}"
    missing, used = [], set()
    for where, word in doc_commands():
        if word in known:
            continue
        if word in NOT_COMMANDS:
            used.add(word)
            continue
        missing.append(f"{where}: {word}")
    fail_if_missing("commands named in the docs that `help` does not list:", missing,
                    "NOT_COMMANDS", NOT_COMMANDS, used, "no doc names it any more")

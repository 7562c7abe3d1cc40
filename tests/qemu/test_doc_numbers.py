r"""The numbers the docs state are the machine's.

Labs (test_labs.py) check what a session prints and test_doc_claims.py
the paths and commands prose names; this module checks the counts prose
states ("Section 0 has 32670 pages", `start_pfn: 1`).  A claim carries a
check: an HTML comment beside it, invisible on the rendered page,

    <!-- check: SOURCE | /REGEX/ -->
    <!-- check: SOURCE | /REGEX/ -> EXPR -->
    <!-- check[MEM=8G CMDLINE="cma=64M"]: SOURCE | /REGEX/ -->

SOURCE is what the regex reads:

  COMMAND     a serial shell command that changes nothing (`sections`,
              `cat /proc/zoneinfo`): its output on a machine booted as
              `make run` would (MEM=2G,slots=8,maxmem=64G, the labs'
              pcie-root-port), or as the [...] spec says, with the
              variables of a lab's `$ make run` line.  Checks with the
              same spec share one boot, every command runs once.
  CMD ; CMD   commands typed one after the other, their outputs joined:
              for a claim about what an action does (`cat /proc/meminfo ;
              alloc 0 ; cat /proc/meminfo`).  Such a check changes the
              machine, so it gets a fresh boot (checks with the same
              commands and spec share it).
  lab         the text of the nearest ```lab block above the comment in
              the same page (commands and expected output, as written);
              test_labs.py checks that block against the machine, so the
              claim is checked through it.  For claims about what an action
              did (an alloc, an offline), which a read-only command cannot
              show.
  next lab    the same, the nearest ```lab block below.

REGEX is a Python regex searched in that text (re.M, plus the flags
after the closing slash: s, i); it must have at least one group.  The
check proves the numbers of its sentence: every group's text, or, with
an EXPR, its value alone (an arithmetic expression over the groups {1},
{2}, ... with + - * // / and parentheses: "{1} // 4" turns kB into
pages; "32768 - {1}" the pages a section lacks; "({1} + 50) // 100 * 100"
rounds to hundreds, for an "about"; {1:x} reads a hex group without 0x), must appear as a
whole number in the prose next to the comment: its paragraph, or its
list item in a list, or its row in a table.  A check may name what it
proves, `... -> ({1} - {2}) // 4 = 63`: then the source must give
exactly that, and the lint (below) knows the number without a machine;
a machine check needs that unless its groups are the literal numbers,
`/^0\s.*\s(32670) #/`.  In a table row, write every | of the comment
as \| (GitHub splits cells at a bare one, even inside a comment).  So a check fails when the
machine prints something else (the regex does not match, or captures
another number), and when the sentence's number is edited without it.

The lint (test_every_number_claim_has_a_check) finds what looks like a
claim outside fenced blocks, HTML comments and generated bench tables:

  * a backticked view excerpt that ends in a number, `start_pfn: 1`,
    `count: 62`, `pages free 511903` (not a shell command: its first
    word is not one the docs' command tables list);
  * N pages|blocks|pageblocks|sections|subsections|probes|merges|
    slices|entries|memmaps, N not a power of two (a power of two is a
    size by definition: "32768 pages" is a section);
  * N MiB or N kB, N not a power of two.

Each such number must be proven by a check in the same paragraph, item
or row, or be in UNCHECKED below with its reason (a size the user
chooses, a figure of an earlier measurement); an entry that no doc
needs any more is reported, so the list stays short.

    /usr/bin/python3 tests/qemu/test_doc_numbers.py [PAGE ...]

runs the checks of the pages (all by default), booting the machines
they need, and prints each check with what it captured: the way to write
a new one.
"""

import ast
import operator
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import labs      # noqa: E402
import memlab    # noqa: E402

ROOT = memlab.REPO

# (page, phrase as the lint finds it): why the number needs no check.
_BIG = "a machine too big to boot here (test_bigmem.py boots it) or a static size of the kernel"
_TEST = "what a test named on the page sets up or checks"
_ASKS = "a size the exercise asks for, not one the machine prints"
_ARITH = "arithmetic over sizes the text sets"
UNCHECKED = {
    ("docs/boot.md", "96 entries"): _BIG,
    ("docs/boot.md", "38000 blocks"): _BIG,
    ("docs/boot.md", "4700 pages"): _BIG,
    ("docs/boot.md", "40960 blocks"): _BIG,
    ("docs/contig-free.md", "16367 merges"): "the design table's estimate (~) for 16384 pages",
    ("docs/contig-free.md", "0 merges"): "the design table: aligned chunks cannot merge inside",
    ("docs/contig-free.md", "16400 merges"): "an earlier run's figure (~), cma=64M",
    ("docs/deferred-init.md", "10 blocks"): "tests/host/test_deferred_init.c's figure",
    ("docs/deferred-init.md", "6 blocks"): "tests/host/test_lazy_hotplug.c's plan sizes",
    ("docs/deferred-init.md", "3 sections"): "tests/host/test_lazy_hotplug.c's plan sizes",
    ("docs/exercises-answers.md", "126 MiB"): _ARITH + " (a section less the memmap's 2 MiB)",
    ("docs/exercises-answers.md", "124 MiB"): _ARITH + " (E9 watches it in the view)",
    ("docs/exercises-answers.md", "31744 pages"): _ARITH + " (62 x 512)",
    ("docs/exercises.md", "1026 MiB"): _ASKS,
    ("docs/exercises.md", "900 MiB"): _ASKS,
    ("docs/exercises.md", "1000 MiB"): _ASKS,
    ("docs/exercises.md", "`plug 9`"): "E7's starting state: virtio-mem.md's walk-through lab prints it",
    ("docs/hotplug.md", "1572864 pages"): _ARITH + " (6 GiB)",
    ("docs/hotplug.md", "1835008 pages"): _ARITH + " (7 GiB)",
    ("docs/hotplug.md", "1008 MiB"): _TEST + ": test_hot_add_with_memmap_on_memory",
    ("docs/hotplug.md", "30 MiB"): _TEST + ": test_odd_dimms_say_what_they_use",
    ("docs/hotplug.md", "98 MiB"): _TEST + ": test_odd_dimms_say_what_they_use",
    ("docs/hotplug.md", "100 MiB"): _TEST + ": test_odd_dimms_say_what_they_use",
    ("docs/hotplug.md", "738 MiB"): _TEST + ": test_odd_dimms_say_what_they_use",
    ("docs/memmap-init.md", "26214400 pages"): "a measurement's range (100 GiB of 2 MiB compounds)",
    ("docs/memmap-init.md", "51200 pageblocks"): "a measurement's range (100 GiB of 2 MiB compounds)",
    ("docs/pmem.md", "7 sections"): "a 1 GiB compound spans 8 sections: a definition",
    ("docs/pmem.md", "31 blocks"): _ARITH + " (a 4 GiB namespace less its first block); test_pmem_kmem_online_offline checks it",
    ("docs/pmem.md", "3968 MiB"): _ARITH + " (31 x 128 MiB); test_pmem_kmem_online_offline checks MemTotal's growth",
    ("docs/pmem.md", "4063232 kB"): _ARITH + " (31 x 128 MiB); test_pmem_kmem_online_offline checks MemTotal's growth",
}

CHECK = re.compile(r"<!--\s*check(?:\[(?P<spec>[^\]]*)\])?:\s*(?P<body>.*?)\s*-->")
BODY = re.compile(r"(?P<src>.+?)\s+\|\s+/(?P<rx>.+)/(?P<flags>[si]*)"
                  r"(?:\s+->\s+(?P<expr>[-+*/() {}:x0-9a-fA-F]+?))?"
                  r"(?:\s+=\s+(?P<claim>[\w.]+(?:\s*,\s*[\w.]+)*))?\s*$")
COMMENT = re.compile(r"<!--.*?-->")
SPAN = re.compile(r"(`+)(.+?)\1")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
EXCERPT = re.compile(r"^(?P<words>[A-Za-z_][A-Za-z_ ]*?):?\s+(?P<num>\d+)$")
COUNT_UNITS = ("pages?|blocks?|pageblocks?|sections?|subsections?|probes?|merges?|"
               "slices?|entries|memmaps?")
COUNT = re.compile(rf"(?<![\w.-])(?P<num>\d+(?:,\d{{3}})*)\s+(?:{COUNT_UNITS})\b(?!-)")
SIZE = re.compile(r"(?<![\w.-])(?P<num>\d+)\s+(?:MiB|kB)\b")


class CheckError(Exception):
    """A check comment that cannot be read."""


@dataclass
class Check:
    page: str            # "docs/memory-core.md"
    line: int
    spec: dict           # make run variables
    source: str          # "lab", "next lab" or a shell command
    regex: re.Pattern
    expr: str = None
    claim: list = None   # `= 63`: the numbers it proves, named
    prose: str = ""      # the paragraph, item or row it proves numbers of
    lab_text: str = None  # for lab sources: the block's text
    lab_line: int = None

    @property
    def where(self):
        return f"{self.page}:{self.line}"

    def commands(self):
        return [c.strip() for c in self.source.split(";") if c.strip()]

    @property
    def acts(self):
        """Several commands (`alloc 0 ; cat /proc/zoneinfo`): a check that
        changes the machine, so it gets a boot of its own."""
        return len(self.commands()) > 1

    @property
    def machine_key(self):
        """Checks with equal keys share a boot."""
        return (tuple(sorted(self.spec.items())), self.source if self.acts else None)

    def values(self, text):
        """The numbers this check proves in text, or an error string."""
        m = self.regex.search(text)
        if not m:
            return f"/{self.regex.pattern}/ does not match"
        if self.expr:
            try:
                return [evaluate(self.expr, m.groups())]
            except (ValueError, ZeroDivisionError, IndexError) as e:
                return f"-> {self.expr}: {e}"
        return [g for g in m.groups() if g is not None]

    def verify(self, text):
        """None if the check holds on text, else why not."""
        vals = self.values(text)
        if isinstance(vals, str):
            return vals
        if self.claim is not None and vals != self.claim:
            return f"the source says {', '.join(vals)}, the check {', '.join(self.claim)}"
        missing = [v for v in vals if not in_prose(v, self.prose)]
        if missing:
            return (f"the source says {', '.join(missing)}, which the prose next to "
                    f"the check does not: {self.prose[:300]!r}")
        return None


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv, ast.Div: operator.truediv}


def evaluate(expr, groups):
    """EXPR with {N} replaced by group N (a decimal or 0x number; {N:x}
    a hex number without 0x, as /proc/iomem prints them)."""
    def group(m):
        g = groups[int(m.group(1)) - 1]
        if g is None:
            raise ValueError(f"group {m.group(1)} did not match")
        if m.group(2):
            return str(int(g, 16))
        return str(int(g, 0) if g.lower().startswith("0x") else int(g))

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise ValueError("only numbers, {N}, + - * / // and parentheses")
    value = ev(ast.parse(re.sub(r"\{(\d+)(:x)?\}", group, expr), mode="eval"))
    if isinstance(value, float):
        return f"{value:.1f}".rstrip("0").rstrip(".")
    return str(value)


def in_prose(value, prose):
    """value occurs in prose as a whole number (not inside 0x1f or 1.5)."""
    value = value.replace(",", "")
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", prose)
    return re.search(rf"(?<![\w.]){re.escape(value)}(?![\w]|\.\d)", text) is not None


def doc_files():
    return sorted(ROOT.glob("docs/*.md")) + [ROOT / "README.md"]


@dataclass
class Unit:
    """A paragraph, list item or table row outside fenced blocks."""
    start: int                     # first line number
    lines: list = field(default_factory=list)   # (line number, text)

    @property
    def text(self):
        return "\n".join(t for _, t in self.lines)

    @property
    def prose(self):
        return COMMENT.sub(" ", self.text)


def read_page(path):
    """(units, lab blocks) of a page: the prose units outside fenced and
    indented code blocks and generated bench tables, and (first line, last line, text) of each
    ```lab block."""
    units, blocks = [], []
    fence, lab, cur, bench, indented = None, None, None, False, False

    def close():
        nonlocal cur
        if cur is not None and cur.lines:
            units.append(cur)
        cur = None

    for no, line in enumerate(Path(path).read_text().split("\n"), 1):
        m = FENCE.match(line)
        if fence is not None:
            if m and m.group(1).startswith(fence) and not m.group(2).strip():
                if lab is not None:
                    blocks.append((lab[0], no, "\n".join(lab[1])))
                fence, lab = None, None
            elif lab is not None:
                lab[1].append(line)
            continue
        if m:
            close()
            fence = m.group(1)
            lab = [no, []] if m.group(2).strip() == "lab" else None
            continue
        if line.startswith("<!-- bench-table "):
            close()
            bench = True
            continue
        if line.startswith("<!-- /bench-table"):
            bench = False
            continue
        if bench:
            continue
        if not line.strip():
            close()
            continue
        if cur is None and re.match(r"( {4}|\t)", line) and not ITEM.match(line) and (
                not units or not ITEM.match(units[-1].lines[0][1])):
            indented = True             # an indented code block, as a fence
        elif cur is None:
            indented = False
        if indented:
            continue
        row = line.lstrip().startswith("|")
        if row or (ITEM.match(line) and cur is not None) or (
                cur is not None and cur.lines[-1][1].lstrip().startswith("|")):
            close()
        if cur is None:
            cur = Unit(no)
        cur.lines.append((no, line))
        if row:
            close()
    close()
    return units, blocks


def parse_checks(path, units=None, blocks=None):
    """Every check comment of a page, with its prose and lab text."""
    if units is None:
        units, blocks = read_page(path)
    rel = Path(path).resolve().relative_to(ROOT).as_posix() \
        if Path(path).resolve().is_relative_to(ROOT) else str(path)
    checks = []
    for unit in units:
        for no, line in unit.lines:
            spans = [s.span() for s in SPAN.finditer(line)]
            for m in CHECK.finditer(line):
                if any(a <= m.start() < b for a, b in spans):
                    continue            # `<!-- check: ... -->` shown as code
                where = f"{rel}:{no}"
                body = m.group("body")
                if line.lstrip().startswith("|"):
                    body = body.replace("\\|", "|")   # a table row escapes its pipes
                b = BODY.match(body)
                if not b:
                    raise CheckError(f"{where}: not `<!-- check: SOURCE | /REGEX/ "
                                     f"[-> EXPR] -->`: {m.group(0)}")
                try:
                    spec = labs.parse_make_run("$ make run " + (m.group("spec") or ""),
                                               where)
                except (labs.LabError, ValueError) as e:
                    raise CheckError(f"{where}: [{m.group('spec')}]: {e}") from None
                flags = re.M | (re.S if "s" in b.group("flags") else 0) \
                    | (re.I if "i" in b.group("flags") else 0)
                try:
                    rx = re.compile(b.group("rx"), flags)
                except re.error as e:
                    raise CheckError(f"{where}: /{b.group('rx')}/: {e}") from None
                if rx.groups == 0 and not b.group("expr"):
                    raise CheckError(f"{where}: /{b.group('rx')}/ has no group: "
                                     f"a check proves a number of its sentence")
                claim = [v.strip() for v in b.group("claim").split(",")] \
                    if b.group("claim") else None
                c = Check(rel, no, spec, b.group("src").strip(), rx, b.group("expr"),
                          claim, unit.prose)
                if c.source in ("lab", "next lab"):
                    if spec:
                        raise CheckError(f"{where}: a lab check boots nothing: drop "
                                         f"[{m.group('spec')}]")
                    near = [bl for bl in blocks if bl[1] < no] if c.source == "lab" \
                        else [bl for bl in blocks if bl[0] > no]
                    if not near:
                        raise CheckError(f"{where}: no lab block "
                                         f"{'above' if c.source == 'lab' else 'below'}")
                    bl = near[-1] if c.source == "lab" else near[0]
                    c.lab_line, c.lab_text = bl[0], bl[2]
                checks.append(c)
    return checks


def all_checks():
    out = []
    for f in doc_files():
        out += parse_checks(f)
    return out


def _power_of_two(num):
    n = int(num.replace(",", ""))
    return n > 0 and n & (n - 1) == 0


def claims(unit, commands):
    """(line, phrase, number) of each number in unit that looks like a claim."""
    found = []
    for no, line in unit.lines:
        line = COMMENT.sub(" ", line)
        for s in SPAN.finditer(line):
            m = EXCERPT.match(s.group(2).strip())
            if m and m.group("words").split()[0] not in commands:
                found.append((no, f"`{s.group(2).strip()}`", m.group("num")))
        plain = SPAN.sub(" ", line)
        for rx in (COUNT, SIZE):
            for m in rx.finditer(plain):
                if not _power_of_two(m.group("num")):
                    found.append((no, m.group(0), m.group("num").replace(",", "")))
    return found


def lint(files=None):
    """(problems, allowlist keys used): every claim without a check."""
    import test_doc_claims
    commands = {w for _, w in test_doc_claims.doc_commands()}
    problems, used = [], set()
    for f in files or doc_files():
        rel = f.relative_to(ROOT).as_posix()
        units, blocks = read_page(f)
        checks = parse_checks(f, units, blocks)
        for unit in units:
            mine = [c for c in checks if unit.start <= c.line <= unit.lines[-1][0]]
            for no, phrase, num in claims(unit, commands):
                if any(num == n for c in mine for n in _proves(c)):
                    continue
                if (rel, phrase) in UNCHECKED:
                    used.add((rel, phrase))
                    continue
                problems.append(f"{rel}:{no}: {phrase}")
    return problems, used


def _proves(check):
    """The numbers a check proves, as far as the host can tell: a lab
    check's values (the lab is here to read), a machine check's groups
    that are literal numbers (`/^0 .*\\s(32670) #/`), or its expression's
    value over groups that are literal numbers (`(32735)`), or the
    numbers it names (`= 63`).  The test on the machine verifies them."""
    if check.claim is not None:
        return check.claim
    if check.lab_text is not None:
        vals = check.values(check.lab_text)
        return [] if isinstance(vals, str) else vals
    literal = re.findall(r"(?<!\\)\((?!\?)(0x[0-9a-fA-F]+|\d+)\)", check.regex.pattern)
    if check.expr:
        if len(literal) != check.regex.groups:
            return []
        try:
            return [evaluate(check.expr, literal)]
        except (ValueError, ZeroDivisionError, IndexError):
            return []
    return literal


# -- the tests ---------------------------------------------------------------

def test_check_syntax_and_prose(tmp_path):
    """Host only: the reader, the lab sources, the expression, the binding
    of a check to its sentence, and that a wrong number fails."""
    page = tmp_path / "page.md"
    page.write_text(
        "```lab\n$ make run\nmemlab> sections\n0  [0x0-0x8000)  0  32670 ###\n```\n\n"
        "Section 0 has 32670 pages <!-- check: lab | /^0 .*\\s(\\d+) #/ -->\n"
        "of memory.\n\n"
        "- MemFree fell by 252 kB, 63 pages.\n"
        "  <!-- check: next lab | /down (\\d+) kB/ -> {1} // 4 = 63 -->\n"
        "- another item, 99 pages.\n\n"
        "| a | 7 blocks <!-- check[MEM=8G]: sections \\| /(\\d+) blocks/ --> |\n"
        "| b | 8 |\n\n"
        "```lab\nmemlab> x\ndown 252 kB\n```\n")
    units, blocks = read_page(page)
    c1, c2, c3 = parse_checks(page, units, blocks)
    assert c1.source == "lab" and c1.lab_line == 1 and "of memory." in c1.prose
    assert c1.verify(c1.lab_text) is None
    assert c2.source == "next lab" and "99 pages" not in c2.prose and "63 pages" in c2.prose
    assert c2.values(c2.lab_text) == ["63"] and c2.verify(c2.lab_text) is None
    assert c2.claim == ["63"] and _proves(c2) == ["63"]
    c2.claim = ["64"]
    assert "the check 64" in c2.verify(c2.lab_text)
    assert c3.spec == {"MEM": "8G"} and c3.prose.strip().startswith("| a |")
    assert c3.verify("... 7 blocks ...") is None
    assert "does not" in c3.verify("... 6 blocks ...")       # machine says 6, prose 7
    assert "does not match" in c3.verify("nothing")
    # the sentence edited, the check not: fails
    page.write_text(page.read_text().replace("has 32670", "has 32671"))
    c1 = parse_checks(page)[0]
    assert "32670" in c1.verify(c1.lab_text)
    assert in_prose("4095", "spans pfns 1-4095.") and not in_prose("1", "0x1f or 1.5")
    assert evaluate("({1} - {2}) * 2", ("0x10", "6")) == "20"
    assert evaluate("{1:x} // 0x100000", ("ad6fff",)) == "10"
    for bad in ("<!-- check: sections /x/ -->", "<!-- check: lab | /(1/ -->",
                "<!-- check: sections | /no group/ -->",
                "<!-- check[FOO=1]: sections | /(1)/ -->",
                "<!-- check: lab | /(1)/ -->"):
        page.write_text(f"text 1 {bad}\n")
        try:
            parse_checks(page)
        except CheckError:
            continue
        raise AssertionError(f"accepted {bad}")


def test_lint_finds_claims(tmp_path, monkeypatch):
    """Host only: what the lint calls a claim, and what it leaves alone."""
    unit = Unit(1, [(1, "Section 0 has 32670 pages, `start_pfn: 1` and `alloc 0`;"),
                    (2, "a section is 32768 pages, 2 MiB, `order-9` 4 GiB, 251 MiB"),
                    (3, "<!-- a comment with 5 pages -->")])
    assert [(p, n) for _, p, n in claims(unit, {"alloc"})] == [
        ("`start_pfn: 1`", "1"), ("32670 pages", "32670"), ("251 MiB", "251")]


def test_every_check_reads_and_lab_checks_hold():
    """Host only: every check comment of the docs parses, and those whose
    source is a lab hold against the lab as written."""
    failures = []
    try:
        checks = all_checks()
    except CheckError as e:
        raise AssertionError(str(e)) from None
    for c in checks:
        if c.lab_text is not None:
            why = c.verify(c.lab_text)
            if why:
                failures.append(f"{c.where} (lab at line {c.lab_line}): {why}")
    assert not failures, "\n".join(["checks that fail against their lab:"] + failures)
    assert any(c.lab_text is None for c in checks), "no check runs on a machine"


def test_every_number_claim_has_a_check():
    """Host only: a number that looks like a claim has a check beside it,
    or an entry in UNCHECKED."""
    problems, used = lint()
    stale = [f"UNCHECKED[{k!r}]: no doc states it unchecked any more"
             for k in UNCHECKED if k not in used]
    assert not problems and not stale, "\n".join(
        ["numbers in the docs with neither a check beside them "
         "(docs/testing.md#checked-numbers) nor an UNCHECKED entry:"]
        + problems + stale)


def machine_groups(checks):
    """{(spec items, acting source or None): [checks]}: one boot each."""
    groups = {}
    for c in checks:
        if c.lab_text is None:
            groups.setdefault(c.machine_key, []).append(c)
    return groups


def boot_for(spec, name, make_iso):
    extra = labs.MAKE_RUN_EXTRA + shlex.split(spec.get("QEMU_EXTRA", ""))
    m = memlab.Machine(make_iso(spec.get("CMDLINE", "")), name=name,
                       cpu=spec.get("CPU", "max"), extra=extra)
    m.mem = spec.get("MEM", "2G,slots=8,maxmem=64G")
    if "," not in m.mem:
        m.mem += ",slots=8,maxmem=64G"
    m.start()
    m.wait_boot()
    return m


def run_group(spec, checks, m):
    """[(check, output, None or why it fails)] for one machine's checks,
    each distinct command typed once."""
    outputs, results = {}, []
    for c in checks:
        if c.source not in outputs:
            outputs[c.source] = "\n".join(m.run(cmd, timeout=memlab.CMD_TIMEOUT * 2)
                                          for cmd in c.commands())
        results.append((c, outputs[c.source], c.verify(outputs[c.source])))
    return results


def test_checked_numbers_match_the_machine(boot, make_iso):
    """Every check whose source is a command, on as few boots as there are
    machine specs."""
    groups = machine_groups(all_checks())
    assert groups, "no check runs on a machine"
    failures = []
    for key, checks in groups.items():
        spec = dict(key[0])
        m = boot(cmdline=spec.get("CMDLINE", ""),
                 mem=spec.get("MEM", "2G,slots=8,maxmem=64G"),
                 cpu=spec.get("CPU", "max"),
                 extra=labs.MAKE_RUN_EXTRA + shlex.split(spec.get("QEMU_EXTRA", "")))
        for c, out, why in run_group(spec, checks, m):
            if why:
                failures.append(f"{c.where}: `{c.source}`"
                                f"{' on ' + str(spec) if spec else ''}: {why}")
        m.kill()
    assert not failures, "\n".join(["numbers in the docs that the machine does "
                                    "not print:"] + failures)


def main(argv):
    pages = [Path(p).resolve() for p in argv] or doc_files()
    checks = []
    for p in pages:
        checks += parse_checks(p)
    for c in checks:
        if c.lab_text is not None:
            why = c.verify(c.lab_text)
            print(f"{c.where}: lab at line {c.lab_line}: {c.values(c.lab_text)}"
                  f"{'  FAIL: ' + why if why else ''}")
    kernel = memlab.build_kernel()
    for key, group in machine_groups(checks).items():
        spec = dict(key[0])
        m = boot_for(spec, "doc-numbers", lambda cl: memlab.make_iso(kernel, cl))
        try:
            for c, out, why in run_group(spec, group, m):
                print(f"{c.where}: `{c.source}`{' ' + str(spec) if spec else ''}: "
                      f"{c.values(out)}{'  FAIL: ' + why if why else ''}")
        finally:
            m.kill()


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""check_tree.py - the rules that keep memlab's layout true, checked.

    tools/check_tree.py [--graph]      (make check-tree; part of make test)

Each rule prints one line per violation, "RULE: file:line: what", and the
script exits 1 if there was any.  --graph prints the folder import graph.

  paths     a path named in a comment, a doc or the Makefile exists in the
            repository (src/foo.c, docs/x.md, include/mm/page.h, or a
            header as it is included, <mm/page.h>); nothing names a file
            that lives outside it (OUTSIDE below)
  commands  SHELL_COMMAND() is used only in shell/ (and tests/)
  views     virtual files (VFS_FILE, vfs_create*, vfs_mkdir*, vfs_symlink) are
            created only in views/ (and tests/)
  include-c no file #includes a .c file
  test-size no file under tests/ (.c, .h, .py) has more than 900 lines:
            split a bigger one by topic (MAX_TEST_LINES below)
  private   above mm (shell/, views/, drivers/, kernel/, arch/, init/,
            lib/) nothing reads the buddy's internals -- free_area,
            PageBuddy, PagePcp, buddy_order(), ->private of a struct
            page -- or calls a writer of mm state that lives in
            mm/internal.h (MM_PRIVATE_WRITERS), or includes mm/internal.h
            or mm/buddy_internal.h: such code asks mm's query functions
            and changes mm through its API
  designs   the explicit-design twins of the mechanisms' entry points (the
            *_design() functions mm/internal.h declares, as
            memmap_init_range_design() or free_contig_range_design()) are
            named only in mm/ and tests/: code above mm picks a design
            through the switch (mech_override()/mech_restore(),
            mech_set_design(): include/mm/mechanisms.h), and no public
            header of include/mm/ declares a twin
  legend    every field of a struct or union defined in include/mm/*.h,
            mm/*.h and mm/*.c (members of nested ones included) and every
            file-scope non-const variable those files define ends its
            comment (same line, or the comment block right above) with a
            lock legend tag, [z] [p] [h] [n] [w] [b] [c] [r] [o] [m] [cpu]: what
            protects it (include/mm/platform.h)
  imports   the folder import graph (which top-level folder includes
            headers of which) has no circle, and mm/ includes only lib/,
            its own headers and mm/platform.h
  unused    every function with external linkage in the kernel is called
            from another object file, or from tests/ (needs build/: run
            after make build/memlab.elf; skipped with a note otherwise)

Folders and their layer (lower never includes higher), see docs/architecture.md:
  lib < mm < arch < kernel < drivers < views < shell < init
mm/ sees only lib/ and its own headers; arch/ implements mm's platform
header (arch/x86_64/mm_platform.c), so it may include mm/.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Where an included header lives, by its first path component.
HEADER_ROOTS = {
    "arch": REPO / "arch" / "x86_64" / "include",
}
SOURCE_EXT = (".c", ".h", ".asm")
TEXT_EXT = SOURCE_EXT + (".md", ".py", ".sh", ".ld", ".cfg", ".txt")
TOP = ["lib", "arch", "kernel", "mm", "drivers", "views", "shell", "init",
       "boot", "tests", "tools", "docs", "iso", "include"]
# Allowed imports per folder (besides itself).  tests/ and tools/ may use anything.
ALLOWED = {
    "lib":     set(),
    "arch":    {"lib", "mm"},
    "kernel":  {"lib", "arch", "mm"},
    "mm":      {"lib"},
    "drivers": {"lib", "arch", "kernel", "mm"},
    "views":   {"lib", "arch", "kernel", "mm", "drivers"},
    "shell":   {"lib", "arch", "kernel", "mm", "drivers", "views"},
    "init":    {"lib", "arch", "kernel", "mm", "drivers", "views", "shell"},
    "boot":    set(),
}
# Names that refer to material outside the repository.
OUTSIDE = re.compile(r"\bDESIGN\.md\b|\bresearch/[\w./-]*|\.\./shared\b")

violations = []


def report(rule, path, line, what):
    violations.append(f"{rule}: {path}:{line}: {what}")


def tracked_files():
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"],
                         cwd=REPO, stdout=subprocess.PIPE, text=True).stdout
    return sorted(p for p in out.split() if (REPO / p).is_file())


def read(p):
    try:
        return (REPO / p).read_text()
    except (UnicodeDecodeError, OSError):
        return None


def folder_of(path):
    """The top-level folder a repository file belongs to; include/X/... and
    arch/x86_64/include/arch/... belong to X and arch."""
    parts = path.split("/")
    if parts[0] == "include" and len(parts) > 2:
        return parts[1]
    return parts[0]


def header_path(inc):
    """The repository file an #include <inc> names, or None (a system or
    test-only header)."""
    first = inc.split("/")[0]
    root = HEADER_ROOTS.get(first, REPO / "include")
    p = root / inc
    return p.relative_to(REPO).as_posix() if p.is_file() else None


# -- paths ----------------------------------------------------------------

PATH_RE = re.compile(
    r"(?<![\w./<-])((?:%s)/[\w./-]*\w\.(?:c|h|asm|md|py|sh|ld|cfg|txt))\b"
    % "|".join(TOP))
INCLUDE_NAME_RE = re.compile(r"<((?:lib|arch|kernel|mm|drivers|views|shell)/[\w/]+\.h)>")


def check_paths(files):
    for p in files:
        if not p.endswith(TEXT_EXT) and p != "Makefile" and "/" in p and not p.startswith(".ci"):
            continue
        if p == "tools/check_tree.py":
            continue
        text = read(p)
        if text is None:
            continue
        fenced = False
        for n, line in enumerate(text.splitlines(), 1):
            if p.endswith(".md") and line.lstrip().startswith("```"):
                fenced = not fenced
            m = OUTSIDE.search(line)
            if m:
                report("paths", p, n, f"refers to {m.group(0)!r}, which is not in the repository")
            # a Markdown code block shows a session or an example to type;
            # the labs that replay it check it
            for m in ([] if fenced else PATH_RE.finditer(line)):
                name = m.group(1).rstrip(".")
                if "*" in name or "%" in name or "$" in name:
                    continue
                if name.startswith("build/") or name.startswith("tests/fuzz/seeds/"):
                    continue
                # a file to create, in a how-to ("a new `shell/cmd_x.c`"), or a
                # placeholder in capitals (docs/NAME.md, bench_NAME.c)
                if re.search(r"\bnew (file )?`?$", line[:m.start()]) or \
                        re.search(r"[A-Z]{3,}", name):
                    continue
                # another project's file, and the line says whose ("Linux's mm/vmstat.c")
                if re.search(r"\b(?:Linux|QEMU|util-linux|FreeBSD|xv6|Zircon)\b", line[:m.start()]):
                    continue
                if (REPO / name).exists():
                    continue
                # a header named as it is included (mm/page.h, arch/cpu.h)
                if name.endswith(".h") and header_path(name):
                    continue
                report("paths", p, n, f"names {name}, which does not exist")
            for m in INCLUDE_NAME_RE.finditer(line):
                if not header_path(m.group(1)) and not p.startswith("tests/"):
                    report("paths", p, n, f"names <{m.group(1)}>, which does not exist")


# -- commands, views, include-c ---------------------------------------------

VFS_CREATE_RE = re.compile(r"\bvfs_(?:create\w*|mkdir\w*|symlink)\s*\(|\bVFS_FILE\s*\(")


def check_homes(files):
    for p in files:
        if not p.endswith((".c", ".h")) or p.startswith("tests/"):
            continue
        text = read(p)
        if text is None:
            continue
        top = folder_of(p)
        for n, line in enumerate(text.splitlines(), 1):
            code = line.split("//")[0]
            if re.match(r"\s*(\*|/\*)", code):
                continue
            if "SHELL_COMMAND(" in code and top != "shell" and p != "include/shell/shell.h" \
                    and not code.lstrip().startswith("#define"):
                report("commands", p, n, "SHELL_COMMAND outside shell/")
            if VFS_CREATE_RE.search(code) and top != "views" and not code.lstrip().startswith("#define") \
                    and p != "include/views/vfs.h":
                report("views", p, n, "a virtual file created outside views/")


def check_include_c(files):
    for p in files:
        if not p.endswith(SOURCE_EXT):
            continue
        text = read(p)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if re.match(r'\s*#\s*include\s*["<][^">]*\.c[">]', line):
                report("include-c", p, n, line.strip())


# -- private ----------------------------------------------------------------

# The folders above mm, whose C may use mm only through include/mm's
# queries and API.
ABOVE_MM = ("shell", "views", "drivers", "kernel", "arch", "init", "lib")
# The writers of mm state that mm/internal.h keeps for mm/ (and its tests).
MM_PRIVATE_WRITERS = (
    "page_flag_set", "page_flag_clear", "SetPageReserved", "ClearPageReserved",
    "set_page_links", "page_set_type", "page_clear_type",
    "sparse_add_present", "sparse_set_memmap", "sparse_clear_memmap",
    "sparse_set_online", "sparse_set_offline", "sparse_set_deferred",
    "sparse_remove_present", "set_pageblock_migratetype", "set_pageblock_isolate",
    "init_single_page", "memmap_init_range", "init_unavailable_range",
)
WRITER_CALL_RE = re.compile(r"\b(%s)\s*\(" % "|".join(MM_PRIVATE_WRITERS))
BUDDY_NAME_RE = re.compile(r"\b(free_area|PageBuddy|PagePcp|buddy_order)\b")
# The names a file declares as struct page pointers or arrays.
PAGE_DECL_RE = re.compile(r"\bstruct\s+page\b([^;{}()]*)")
PAGE_NAME_RE = re.compile(r"\s*(?:const\s+)?(?:\*+\s*(?:const\s+)?(\w+)|(\w+)\s*\[)")
PRIVATE_RE = re.compile(r"(\w+)\s*(?:\[[^\]]*\])?\s*(?:->|\.)\s*private\b|"
                        r"pfn_to_page\s*\([^)]*\)\s*->\s*private\b")
INTERNAL_INC_RE = re.compile(r'^\s*#\s*include\s*["<][^">]*\bmm/(?:buddy_)?internal\.h[">]')


def strip_comments(text):
    """text with its comments and string literals blanked, newlines kept."""
    def blank(m):
        t = m.group(0)
        if t.startswith("/"):
            return re.sub(r"[^\n]", " ", t)
        return t[0] + " " * (len(t) - 2) + t[-1]
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  blank, text, flags=re.S)


def check_private(files):
    for p in files:
        if not p.endswith((".c", ".h")) or folder_of(p) not in ABOVE_MM:
            continue
        text = read(p)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if INTERNAL_INC_RE.match(line):
                report("private", p, n, f"includes {line.split()[-1]}, which is mm's own: "
                       "use include/mm/")
        code = strip_comments(text)
        pages = set()
        for m in PAGE_DECL_RE.finditer(code):
            # "*page, *head" or "*page, pages[4]": declarators of struct page
            # until one is of another type ("struct page *page, struct zone *z")
            for d in m.group(1).split(","):
                dm = PAGE_NAME_RE.match(d)
                if not dm:
                    break
                pages.add(dm.group(1) or dm.group(2))
        for n, line in enumerate(code.splitlines(), 1):
            for m in BUDDY_NAME_RE.finditer(line):
                report("private", p, n, f"{m.group(1)} is the buddy's internals: ask mm "
                       "(free_block_at(), free_block_containing(), zone_free_blocks(), "
                       "zone_free_list_count() in include/mm/buddy.h)")
            for m in PRIVATE_RE.finditer(line):
                if m.group(1) is None or m.group(1) in pages:
                    report("private", p, n, "->private of a struct page is mm's: use "
                           "free_block_at() or page_private() (include/mm)")
            for m in WRITER_CALL_RE.finditer(line):
                report("private", p, n, f"{m.group(1)}() writes mm state and is mm's own "
                       "(mm/internal.h): change mm through its API")


# -- designs ----------------------------------------------------------------

# Where the explicit-design twins are declared, and the folders that may
# name them (by path prefix: include/mm/ is not mm/ here).
TWINS_HEADER = "mm/internal.h"
TWINS_ALLOWED = ("mm/", "tests/")
TWIN_DECL_RE = re.compile(r"^[A-Za-z_][\w \t*]*?\b(\w+_design)\s*\(", re.M)


def design_twins():
    """The *_design() functions mm/internal.h declares."""
    text = read(TWINS_HEADER)
    return sorted(set(TWIN_DECL_RE.findall(strip_comments(text)))) if text else []


def check_designs(files):
    twins = design_twins()
    if not twins:
        report("designs", TWINS_HEADER, 0, "declares no *_design() twin: the rule has "
               "nothing to check (update TWINS_HEADER)")
        return
    call_re = re.compile(r"\b(%s)\s*\(" % "|".join(twins))
    for p in files:
        if not p.endswith((".c", ".h")) or p.startswith(TWINS_ALLOWED):
            continue
        text = read(p)
        if text is None:
            continue
        for n, line in enumerate(strip_comments(text).splitlines(), 1):
            for m in call_re.finditer(line):
                report("designs", p, n, f"{m.group(1)}() runs one design explicitly and is "
                       f"mm's own ({TWINS_HEADER}): pick the design with "
                       "mech_override()/mech_restore() (include/mm/mechanisms.h) and call "
                       "the entry point")


# -- test-size ----------------------------------------------------------------

MAX_TEST_LINES = 900
TEST_SIZE_EXT = (".c", ".h", ".py")


def check_test_sizes(files):
    """A test file (host test, fuzz target, seed writer, QEMU scenario or
    their helpers) of more than MAX_TEST_LINES lines is one to split by
    topic, with shared helpers in a file of their own."""
    for p in files:
        if not p.startswith("tests/") or not p.endswith(TEST_SIZE_EXT):
            continue
        text = read(p)
        if text is None:
            continue
        n = len(text.splitlines())
        if n > MAX_TEST_LINES:
            report("test-size", p, MAX_TEST_LINES + 1,
                   f"{n} lines, more than {MAX_TEST_LINES}: split it by topic")


# -- legend -----------------------------------------------------------------

# The lock legend (include/mm/platform.h): every mm global and every field
# of an mm struct says in its comment what protects it.
LEGEND_FILES_RE = re.compile(r"^(?:include/mm/[^/]+\.h|mm/[^/]+\.[ch])$")
LEGEND_TAG_RE = re.compile(r"\[(?:z|p|h|n|w|b|c|r|o|m|a|cpu)\]")
LEGEND_TAGS = "[z] [p] [h] [n] [w] [b] [c] [r] [o] [m] [a] [cpu]: include/mm/platform.h"
# The head of a struct or union body: "struct NAME", "typedef union", ...
LEGEND_AGG_RE = re.compile(r"(?:typedef\s+)?(?:static\s+)?(?:struct|union)(?:\s+\w+)?")
LEGEND_ATTR_RE = re.compile(r"\b__\w+\s*\(\((?:[^()]|\([^()]*\))*\)\)|"
                            r"\b__(?:aligned|section)\s*\([^)]*\)")


def legend_lines(text):
    """Per line of text: (code, comment): the code with comments and
    strings blanked, and the text of the comments on that line."""
    code = strip_comments(text).split("\n")
    return [(c, "".join(ch for ch, k in zip(line, c) if ch != k))
            for line, c in zip(text.split("\n"), code)]


def legend_tagged(lines, first, last):
    """A declaration on lines[first..last] is tagged by a comment on those
    lines or by the comment block that ends on the line above them."""
    if any(LEGEND_TAG_RE.search(lines[i][1]) for i in range(first, last + 1)):
        return True
    i = first - 1
    while i >= 0 and lines[i][1].strip() and not lines[i][0].strip():
        if LEGEND_TAG_RE.search(lines[i][1]):
            return True
        i -= 1
    return False


def legend_object(decl):
    """The name a file-scope statement (its text up to ';' or '{') defines
    as a non-const object, or None: extern and typedef declarations,
    prototypes, function definitions, forward declarations, macros at file
    scope and const objects define none."""
    d = " ".join(LEGEND_ATTR_RE.sub(" ", decl).split())
    if not d or re.match(r"(?:extern|typedef|_Static_assert|static_assert)\b", d):
        return None
    # the declarators, array sizes left out: "u64 map[(N + 63) / 64]"
    head = re.sub(r"\[[^\]]*\]", "[]", d.split("=", 1)[0])
    if re.fullmatch(r"(?:struct|union|enum)\s+\w+\s*", head):
        return None
    m = re.match(r"([^(]*)\(\s*\*\s*((?:const\s+)?)(\w+)", head)
    if m:               # a function pointer: "void (*const hook[N])(void)"
        return None if m.group(2) else m.group(3)
    if "(" in head:
        return None     # a prototype, a function or a macro: NAME(...)
    first = re.split(r"[,\[]", head, maxsplit=1)[0]
    last = first.rsplit("*", 1)[-1]     # what follows the last '*'
    if re.search(r"\bconst\b", last):
        return None
    names = re.findall(r"\w+", last)
    return names[-1] if names else "?"


def check_legend(files):
    """Every field of a struct or union defined in include/mm/*.h, mm/*.h
    and mm/*.c and every file-scope non-const variable those files define
    carries a lock legend tag, in a comment on its line(s) or in the
    comment block right above.  A nested struct or union counts as a field
    of the outer one: its tag (at its '{', above it, or at its '} name;')
    covers its members."""
    for p in files:
        if not LEGEND_FILES_RE.match(p):
            continue
        text = read(p)
        if text is None:
            continue
        lines = legend_lines(text)
        # per open brace: ["agg", first line, untagged members] for a struct
        # or union body, ["skip"] for a function, an initialiser, an enum
        stack = []
        stmt, start = "", None  # the statement being read, its first line
        closed = None           # the aggregate whose '}' was just read
        cont = False
        for i, (code, _) in enumerate(lines):
            if cont or (not stmt.strip() and code.lstrip().startswith("#")):
                cont = code.rstrip().endswith("\\")
                continue
            for ch in code:
                if any(f[0] == "skip" for f in stack):
                    if ch == "{":
                        stack.append(["skip"])
                    elif ch == "}":
                        stack.pop()
                        if not stack:
                            stmt, start = "", None
                    continue
                if ch == "{":
                    head = " ".join(stmt.split())
                    if LEGEND_AGG_RE.fullmatch(head):
                        stack.append(["agg", start if start is not None else i, [], head])
                    else:
                        name = None if stack else legend_object(head)
                        if name and "=" in head and not legend_tagged(lines, start, i):
                            report("legend", p, start + 1,
                                   f"{name} has no lock legend tag ({LEGEND_TAGS})")
                        stack.append(["skip"])
                    stmt, start = "", None
                elif ch == "}":
                    closed = stack.pop()
                    stmt, start = "}", i
                elif ch == ";":
                    s = " ".join(stmt.split())
                    if s.startswith("}") and closed is not None:
                        tagged = legend_tagged(lines, closed[1], closed[1]) or \
                            legend_tagged(lines, start, i)
                        if stack:       # a nested aggregate: a field
                            if not tagged:
                                stack[-1][2].extend(closed[2])
                        else:
                            for n, what in closed[2]:
                                report("legend", p, n + 1, what)
                            # "struct { ... } name;": a variable of it
                            if re.search(r"\w", s[1:]) and not closed[3].startswith("typedef") \
                                    and not tagged:
                                name = re.findall(r"[A-Za-z_]\w*", s)[0]
                                report("legend", p, start + 1,
                                       f"{name} has no lock legend tag ({LEGEND_TAGS})")
                    elif s and stack:
                        if not legend_tagged(lines, start, i):
                            stack[-1][2].append((start, f"field '{s}' has no lock legend "
                                                 f"tag ({LEGEND_TAGS})"))
                    elif s:
                        name = legend_object(s)
                        if name and not legend_tagged(lines, start, i):
                            report("legend", p, start + 1,
                                   f"{name} has no lock legend tag ({LEGEND_TAGS})")
                    stmt, start, closed = "", None, None
                else:
                    if start is None and not ch.isspace():
                        start = i
                    stmt += ch
            if not any(f[0] == "skip" for f in stack):
                stmt += " "


# -- imports ----------------------------------------------------------------

INC_RE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def import_graph(files):
    edges = {}          # (from, to) -> first "file:line" seen
    for p in files:
        if not p.endswith((".c", ".h")):
            continue
        src = folder_of(p)
        if src not in ALLOWED:
            continue
        text = read(p) or ""
        for m in INC_RE.finditer(text):
            inc = m.group(1)
            hp = header_path(inc)
            if hp is None:
                continue
            dst = folder_of(hp)
            line = text.count("\n", 0, m.start()) + 1
            if src == "mm" and inc == "mm/platform.h":
                continue
            if dst != src:
                edges.setdefault((src, dst), f"{p}:{line}")
    return edges


def check_imports(files, show):
    edges = import_graph(files)
    if show:
        for (a, b), where in sorted(edges.items()):
            print(f"{a} -> {b}   ({where})")
    for (a, b), where in sorted(edges.items()):
        if b not in ALLOWED.get(a, set()):
            f, line = where.rsplit(":", 1)
            report("imports", f, line, f"{a}/ includes {b}/ (allowed: "
                   f"{', '.join(sorted(ALLOWED.get(a, ()))) or 'nothing'})")
    # A circle is impossible when every edge goes down the layers above; the
    # search below still proves it on the graph as found.
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    state = {}

    def visit(n, stack):
        state[n] = 1
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                cyc = stack[stack.index(m):] + [m] if m in stack else [n, m]
                report("imports", "-", 0, "circle: " + " -> ".join(cyc))
            elif m not in state:
                visit(m, stack + [m])
        state[n] = 2
    for n in sorted(graph):
        if n not in state:
            visit(n, [n])


# -- unused -----------------------------------------------------------------

# Entered from assembly, the linker script or by name from outside C.
ENTRY_POINTS = {"kmain", "_start", "long_mode_start", "isr_common", "trap_dispatch"}


def check_unused(files):
    objdir = REPO / "build"
    # the kernel's objects whose source still exists (a stale object of a
    # deleted file is not the kernel's any more)
    objs = [o for o in objdir.rglob("*.o")
            if o.relative_to(objdir).parts[0] in ("arch", "boot", "drivers", "init",
                                                   "kernel", "lib", "mm", "shell",
                                                   "views", "tests")
            and any((REPO / o.relative_to(objdir)).with_suffix(ext).is_file()
                    for ext in (".c", ".asm"))]
    if not (objdir / "memlab.elf").is_file() or not objs:
        print("check_tree: unused: skipped (no build/memlab.elf; run make first)")
        return
    defined = {}        # symbol -> object
    used_by = {}        # symbol -> set of objects that reference it
    for o in objs:
        out = subprocess.run(["nm", str(o)], stdout=subprocess.PIPE, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] == "T":
                defined[parts[2]] = o
            elif len(parts) == 2 and parts[0] == "U":
                used_by.setdefault(parts[1], set()).add(o)
    # tests/ sources (host tests, fuzz targets, benches) count as callers.
    test_text = "\n".join(read(p) or "" for p in files
                          if p.startswith("tests/") and p.endswith((".c", ".h")))
    for sym, o in sorted(defined.items()):
        if sym in ENTRY_POINTS or sym.startswith(("isr", "__")):
            continue
        if used_by.get(sym, set()) - {o}:
            continue
        if re.search(r"\b%s\b" % re.escape(sym), test_text):
            continue
        src = o.relative_to(objdir).with_suffix("")
        report("unused", f"{src}", 0, f"{sym}() has external linkage and no caller "
               "outside its file (make it static or delete it)")


def main():
    show = "--graph" in sys.argv[1:]
    files = tracked_files()
    check_paths(files)
    check_homes(files)
    check_include_c(files)
    check_test_sizes(files)
    check_private(files)
    check_designs(files)
    check_legend(files)
    check_imports(files, show)
    check_unused(files)
    for v in violations:
        print(v)
    if violations:
        print(f"check_tree: {len(violations)} violations")
        return 1
    print("check_tree: layout rules hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())

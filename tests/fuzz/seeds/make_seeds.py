#!/usr/bin/env python3
"""make_seeds.py - write the committed seed corpora of the slow fuzz targets.

    python3 tests/fuzz/seeds/make_seeds.py            # (re)write tests/fuzz/seeds/*/
    python3 tests/fuzz/seeds/make_seeds.py --check    # and run each seed, verbose,
                                                      # checking what it claims

`make test-fuzz` gives tests/fuzz/seeds/NAME/ to build/fuzz/NAME as a second,
read-only corpus directory, so that a short run starts from inputs that
already reach the deep states (a DIMM added and onlined, devmem on the
window, CMA held while memory goes offline, a device plugged to several
blocks and then unplugged under allocations ...) instead of from nothing.

Each seed is written from a named scenario below: a list of operations in
the target's own terms, encoded into the bytes the target reads.  The
encoders mirror the input readers of the targets (tests/fuzz/fuzz_*.c)
byte for byte; when a target's input format changes, change the encoder
here, run with --check and commit the rewritten seeds.  The line
templates of fuzz_mm_cmds are read from its source, so adding or
reordering templates needs no change here.

--check runs each seed alone with FUZZ_VERBOSE=1 (build the targets first:
`make build/fuzz/fuzz_mm_cmds build/fuzz/fuzz_virtio_mem build/fuzz/fuzz_pci`)
and compares what the target printed with what the scenario says should
happen: for fuzz_mm_cmds each line's text and its success or failure, for
fuzz_virtio_mem and fuzz_pci strings their kernel log must contain.
Standard library only.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
FUZZ_SRC = os.path.join(ROOT, "tests", "fuzz")

MiB = 1 << 20
GiB = 1 << 30


def u64le(v):
    return bytes((v >> (8 * i)) & 0xFF for i in range(8))


# ============================================================================
# fuzz_mm_cmds: a program of shell lines and DIMM events
# ============================================================================
#
# The input is read from the front, one byte per operation, at most MAX_OPS
# (40) operations:
#   op < 224: the line template lines[op % len(lines)], then the bytes its
#             placeholders read, then one byte "m" that may spoil the line
#             (m % 16 == 0, 1, 2: garbage word, word dropped, word added;
#             we always write 3: leave the line alone);
#   224 <= op < 230: the host sets virtio-mem's requested-size from one
#             byte a (and more, see gen_vmem_request), the poller runs
#             100 ms later;
#   op 230, 231: 1 + a % 8 polls a second apart (retries come due);
#   op >= 232: a DIMM event, one argument byte a: first block a % 4 of the
#             window, nr = 1 + a / 4 % (4 - first) blocks, node 1 - (a >> 7),
#             the memmap_on_memory knob set first if a & 0x40 (the DIMM is
#             added as the ACPI driver does: memmap on memory when the knob
#             is set); odd op = eject, even op = add.
#
# The machine (tests/host/mm_cmds_machine.h): node 0 = [0, 128M), node 1 =
# [128M, 256M), blocks 0-1, cma0 of 16 MiB, a hot-add window at 4 GiB of
# four blocks (ids 32-35, pfns 0x100000-0x11ffff) on node 1, and a
# virtio-mem device on node 1 whose region follows it (blocks 36-39, pfns
# 0x120000-0x13ffff, 2 MiB device blocks, nothing requested at boot); new
# DIMM blocks are offline (auto_online_blocks = offline), virtio-mem
# onlines its blocks itself.

MM_MAX_OPS = 40
MM_BLOCK_PAGES = 32768              # 128 MiB memory blocks
MM_FIRST_HOT = 32
MM_END_BLOCK = 40                   # DIMMs 32-35, virtio-mem 36-39
MM_WINDOW = 4 * GiB
MM_VMEM = MM_WINDOW + 512 * MiB
MM_LINE_OPS = 224
NO_SPOIL = 3


def mm_templates():
    """The line templates, in order, from fuzz_mm_cmds.c."""
    src = open(os.path.join(FUZZ_SRC, "fuzz_mm_cmds.c")).read()
    body = re.search(r"static const char \*const lines\[\] = \{(.*?)\n\};", src, re.S).group(1)
    return [s.encode().decode("unicode_escape") for s in re.findall(r'"((?:[^"\\]|\\.)*)"', body)]


MM_LINES = mm_templates()

# The PICK() word lists of expand(), in order (index = the byte's value).
PICKS = {
    "M": ["movable", "unmovable", "movable", "quiet", "node=0", "node=1", "node=2", "node=64",
          "node=", "node=-1"],
    "W": ["0", "0xdeadbeef", "pattern", "1G", "x"],
    "G": ["4k", "2m", "2M", "4K", "1g", "0"],
    "E": ["old", "new", "template-nt", "template", "newer", ""],
    "T": ["online", "online_kernel", "online_movable", "kernel", "movable", "offline", "onlinex"],
    "L": ["-a", "-b", "-n", "-abn", "--all", "-x", "--bytes"],
    "K": ["contig_check", "memmap_init", "contig_free", "auto_movable_stats", "all", "nosuch"],
    "o": ["on", "off", "1"],
    "Z": ["0", "1", "Y", "N", "on", "maybe"],
    "X": ["0", "-16", "-12", "-4095", "-4096", "5", "x"],
    "Y": ["contig-zones", "auto-movable", "auto_movable"],
    "J": ["nack", "busy", "error", "off", "ack"],
}

# put_num()'s format byte
DEC, HEX = 0, 1


class Arg:
    """The bytes one placeholder reads, and the text it will print if known."""

    def __init__(self, data, text=None):
        self.data = bytes(data)
        self.text = text


def word(letter, w):
    """A word from one of the PICK() lists."""
    return Arg([PICKS[letter].index(w)], w)


def num_text(v, fmt):
    return "%d" % v if fmt == DEC else "%#x" % v


# --- the number generators (expand() of fuzz_mm_cmds.c) ---------------------

def order(o, fmt=DEC):
    """%O: an order 0-11."""
    return Arg([0, o, fmt], num_text(o, fmt))


def count(n, fmt=DEC):
    """%C: a count 1-8."""
    assert 1 <= n <= 8
    return Arg([1, n - 1, fmt], num_text(n, fmt))


def pages(n, fmt=DEC):
    """%N: 1-16, a power of two up to 2^13, or a multiple of 512 up to 4096."""
    if 1 <= n <= 16:
        k = 8 * (n - 1)
    elif n & (n - 1) == 0 and n < (1 << 14):
        k = 2 + 8 * (n.bit_length() - 1)
    elif n % 512 == 0 and 1 <= n // 512 <= 8:
        k = 4 + 8 * (n // 512 - 1)
    else:
        raise ValueError("pages(%d) cannot be encoded" % n)
    return Arg([k, fmt], num_text(n, fmt))


def small(n, fmt=DEC):
    """%n: 1 + 8k for k < 256 (k % 4 != 3)."""
    assert (n - 1) % 8 == 0 and (n - 1) // 8 % 4 != 3
    return Arg([(n - 1) // 8, fmt], num_text(n, fmt))


def reps(r):
    """%r: 1 or 2."""
    return Arg([1, r - 1, DEC], "%d" % r)


def block_id_byte(b):
    """gen_block_id(): a boot block 0-3 or a window block 32-39."""
    if b < 4:
        return 8 * b
    assert MM_FIRST_HOT <= b < MM_END_BLOCK
    return 2 + 8 * (b - MM_FIRST_HOT)


def block(b):
    """%b: one block id."""
    return Arg([block_id_byte(b)], "%d" % b)


def blocks(a, b=None, memory_prefix=False):
    """%B: "N", "memoryN" or "N-M" (M at most N + 7)."""
    if b is None:
        return Arg([0 if memory_prefix else 2, block_id_byte(a)],
                   ("memory%d" if memory_prefix else "%d") % a)
    assert 0 <= b - a < 8
    return Arg([1 + 8 * (b - a), block_id_byte(a)], "%d-%d" % (a, b))


def kbyte(case, mod, bits=0, nbits=0, also=lambda k: True):
    """The smallest byte k with k % mod == case, the bits `bits` set and
    the bits `nbits` clear, and also(k): a generator's selector byte."""
    for k in range(256):
        if k % mod == case and k & bits == bits and not k & nbits and also(k):
            return k
    raise ValueError("no selector byte for case %d" % case)


def pfn_in_block(b, plus_2m=0, fmt=HEX):
    """%P: the first pfn of block b, plus plus_2m pageblocks (< 256)."""
    v = (b % MM_END_BLOCK) * MM_BLOCK_PAGES + plus_2m * 512
    return Arg([4, plus_2m, block_id_byte(b), fmt], num_text(v, fmt))


def pfn_of_cma(plus_64=None, minus_1=False, fmt=HEX):
    """%P: cma0's base pfn (+ 64 * plus_64, - 1)."""
    bits = (0x10 if plus_64 is not None else 0) | (0x20 if minus_1 else 0)
    return Arg([kbyte(3, 12, bits, 0x30 & ~bits), plus_64 or 0, fmt])


def pfn_of_handle(nth=0, fmt=HEX):
    """%P: the first pfn of a live handle (the first one found from slot 16 * nth)."""
    return Arg([0, 0, nth, fmt])


def pfn_of_range(nth=0, plus=None, fmt=HEX):
    """%P: the start of a held contig range (+ plus % its size)."""
    bits = 0x10 if plus is not None else 0
    return Arg([kbyte(2, 12, bits, 0x10 & ~bits), plus or 0, nth, fmt])


def handle_newest(back=0, fmt=DEC):
    """%H: the id of the newest handle, or of one `back` allocations before it."""
    return Arg([kbyte(3, 6, also=lambda k: k // 8 == back), fmt])


def handle_live(fmt=DEC):
    """%H: a live handle's id (the first one in the table)."""
    return Arg([0, 0, fmt])


def addr_block(j, fmt=HEX):
    """%A: the start of window block j (0-8; 4-7 are virtio-mem's, 8 is past the window)."""
    return Arg([8 * j, fmt], num_text(MM_WINDOW + j * 128 * MiB, fmt))


def addr_in_window(n2m, fmt=HEX):
    """%A: the window's start + n2m * 2 MiB."""
    return Arg([5, n2m, fmt], num_text(MM_WINDOW + n2m * 2 * MiB, fmt))


def size_blocks(n, fmt=HEX):
    """%S: 1-4 memory blocks."""
    return Arg([8 * (n - 1), fmt], num_text(n * 128 * MiB, fmt))


def size_2m(plus_block=False, fmt=HEX):
    """%S: 2 MiB (+ a block)."""
    return Arg([4 | (8 if plus_block else 0), fmt],
               num_text((128 * MiB if plus_block else 0) + 2 * MiB, fmt))


def vmem_addr(n2m, unaligned=False, fmt=HEX):
    """%V: virtio-mem's region + n2m * 2 MiB (+ 4 KiB)."""
    return Arg([5 if unaligned else 0, n2m, fmt],
               num_text(MM_VMEM + n2m * 2 * MiB + (4096 if unaligned else 0), fmt))


def vmem_size(n2m, fmt=HEX):
    """%v: 1-64 device blocks of 2 MiB."""
    assert 1 <= n2m <= 64
    return Arg([0, n2m - 1, fmt], num_text(n2m * 2 * MiB, fmt))


def devmem_first(fmt=DEC):
    """%I: the lowest existing devmem id."""
    return Arg([0, fmt])


# %R: a held contig range (the one found from slot `nth`), or part of it
def range_all(nth=0):
    return Arg([nth, 0, HEX, DEC])


def range_head(n, nth=0):
    """the first 1 + (n % size) pages"""
    return Arg([nth, 2, n, HEX, DEC])


def range_tail(n, nth=0):
    """the last 1 + (n % size) pages"""
    return Arg([nth, 3, n, HEX, DEC])


def range_middle(skip, n, nth=0):
    """from skip % size, 1 + n % (what is left) pages"""
    return Arg([nth, 4, skip, n, HEX, DEC])


def range_beyond(extra, nth=0):
    """all of it and 1 + extra % 4 pages more"""
    return Arg([nth, 5, extra, HEX, DEC])


class MmOp:
    def __init__(self, data, prefix, expect):
        self.data = data
        self.prefix = prefix    # what the verbose "> " line starts with
        self.expect = expect    # "ok", "fail" or None (either)


DROP_LAST = 1     # the spoil byte's "last word missing"


def line(template, *args, expect="ok", drop_last=False):
    """One shell line from a template of fuzz_mm_cmds.c's lines[] (without
    its last word if drop_last)."""
    op = MM_LINES.index(template)
    assert op < MM_LINE_OPS
    data = bytearray([op])
    text = ""
    parts = re.split(r"(%.)", template)
    it = iter(args)
    known = True
    for p in parts:
        if p.startswith("%"):
            a = next(it)
            data += a.data
            if known and a.text is not None:
                text += a.text
            else:
                known = False
        elif known:
            text += p
    assert next(it, None) is None, "too many arguments for " + template
    if drop_last:
        assert known
        text = text.rsplit(" ", 1)[0]
    data.append(DROP_LAST if drop_last else NO_SPOIL)
    return MmOp(bytes(data), text, expect)


def dimm_add(first, nr, node=1, memmap_on_memory=False, expect="ok"):
    """A DIMM of nr blocks from window block first (blocks 32 + first ...)."""
    a = first + 4 * (nr - 1) + (0 if node == 1 else 0x80) + (0x40 if memmap_on_memory else 0)
    assert first + nr <= 4
    return MmOp(bytes([232, a]), "(dimm add) blocks %d-%d" % (32 + first, 32 + first + nr - 1), expect)


def dimm_eject(first, nr, expect="ok"):
    a = first + 4 * (nr - 1)
    assert first + nr <= 4
    return MmOp(bytes([233, a]), "(dimm eject) blocks %d-%d" % (32 + first, 32 + first + nr - 1), expect)


def c_hex(v):
    """printf's %#llx: no 0x for 0."""
    return "%#x" % v if v else "0"


def vmem_request(mib):
    """The host sets requested-size to mib MiB (an even number < 512), the poller runs."""
    assert mib % 2 == 0 and 0 <= mib // 2 < 256
    return MmOp(bytes([224, 0, mib // 2]), "(virtio-mem request) %s" % c_hex(mib * MiB), "ok")


def vmem_request_unaligned(mib):
    """requested-size mib MiB + 4 KiB: not a multiple of the block size."""
    assert mib % 2 == 0 and 0 <= mib // 2 < 256
    return MmOp(bytes([224, 6, mib // 2]), "(virtio-mem request) %#x" % (mib * MiB + 4096), "ok")


def vmem_poll_seconds(n):
    """n (1-8) polls a second apart."""
    return MmOp(bytes([230, n - 1]), "(virtio-mem poll)", "ok")


KNOB = "/sys/module/memory_hotplug/parameters/"
INJECT = "/sys/kernel/debug/notifier-error-inject/memory/actions/"

MM_SCENARIOS = {}


def mm_scenario(name, *ops):
    assert len(ops) <= MM_MAX_OPS, name
    MM_SCENARIOS[name] = ops


# A DIMM of two blocks, onlined to both zones, used, offlined (movable data
# migrates off), ejected while online parts hold kernel pages (refused),
# then ejected for real.
mm_scenario(
    "dimm_online_use_offline",
    dimm_add(0, 2),
    line("memory online %B %T", blocks(32), word("T", "online_movable")),
    line("memory online %B %T", blocks(33), word("T", "online_kernel")),
    line("lsmem %L", word("L", "-abn")),
    line("alloc %O %C %M %M", order(3), count(8), word("M", "movable"), word("M", "node=1")),
    line("alloc %O %C %M", order(9), count(4), word("M", "node=1")),
    line("fill %H %W", handle_newest(), word("W", "pattern")),
    line("move %H", handle_newest(1), expect="fail"),      # unmovable
    line("memory offline %B", blocks(32)),                  # movable pages migrate
    line("check all"),
    line("cat /sys/devices/system/memory/memory%b/valid_zones", block(33)),
    line("memory offline %B", blocks(33), expect="fail"),   # kernel pages
    line("memory"),
    dimm_eject(0, 2, expect="fail"),
    line("free all"),
    line("memory offline %B", blocks(33)),
    dimm_eject(0, 2),
    line("memory"),
)

# devmem (ZONE_DEVICE) on the offline blocks of a DIMM: two ranges, one
# over another (refused), not whole blocks (refused), rebound with each
# memmap-init design and compared; the blocks under it cannot be onlined
# or ejected; destroyed, the block onlines again; devmem next to online
# blocks, on an online one (refused), and the cold bench.
mm_scenario(
    "devmem_on_dimm",
    dimm_add(0, 4),
    line("devmem create %A %S %G", addr_block(2), size_blocks(1), word("G", "2m")),
    line("devmem create %A %S %G", addr_block(3), size_blocks(1), word("G", "4k")),
    line("devmem create %A %S %G", addr_block(2), size_blocks(2), word("G", "2M"), expect="fail"),
    line("devmem create %A %S %G", addr_block(0), size_2m(), word("G", "4k"), expect="fail"),
    line("devmem create %A %S %G", addr_block(1), size_blocks(1), word("G", "1g"), expect="fail"),
    line("devmem list"),
    line("devmem rebind %I %E", devmem_first(), word("E", "old")),
    line("devmem rebind %I %E", devmem_first(), word("E", "template-nt")),
    line("devmem rebind %I", devmem_first()),
    line("devmem compare %I", devmem_first()),
    line("page %P", pfn_in_block(34, 1)),
    line("memory online %B", blocks(34), expect="fail"),
    dimm_eject(2, 2, expect="fail"),
    line("memory online %B %T", blocks(32), word("T", "online_movable")),
    line("devmem create %A %S %G", addr_block(0), size_blocks(1), word("G", "2m"), expect="fail"),
    line("devmem create %A %S %G", addr_block(1), size_blocks(1), word("G", "2m")),
    line("sections"),
    line("numa"),
    line("contiguity"),
    line("cat /sys/devices/system/memory/memory%b/valid_zones", block(34)),
    line("devmem destroy %I", devmem_first()),
    line("memory online %B", blocks(34)),
    line("devmem destroy %I", devmem_first()),
    line("devmem bench %A %S %r", addr_block(3), size_blocks(1), reps(1)),
    line("devmem bench %A %S %r warm", addr_block(3), size_blocks(1), reps(2)),
    line("devmem"),
    dimm_eject(0, 2, expect="fail"),                        # 33 is devmem
    line("devmem destroy %I", devmem_first()),
    dimm_eject(0, 4),
)

# CMA held while the memory around it goes offline: cma0's block cannot be
# offlined while an allocation is in it, can once it is released; the
# debugfs alloc/free files and the bitmap.
mm_scenario(
    "cma_held_offline",
    line("cma alloc %N", pages(512)),
    line("echo %N > /sys/kernel/debug/cma/cma0/alloc", pages(64)),
    line("cat /sys/kernel/debug/cma/cma0/bitmap"),
    line("cat /sys/kernel/mm/cma/cma0/available_pages"),
    line("page %P", pfn_of_cma(plus_64=1)),
    line("cma"),
    line("memory offline %B", blocks(0), expect="fail"),
    line("memory offline %B", blocks(1), expect="fail"),
    line("lsmem"),
    line("cma release %N", pages(512)),
    line("echo %N > /sys/kernel/debug/cma/cma0/free", pages(64)),
    line("cma release all"),
    line("memory offline %B", blocks(1), expect="fail"),
    line("cma alloc %N", pages(4096)),
    line("cma alloc %N", pages(1), expect="fail"),
    line("contig alloc %P %N", pfn_of_cma(), pages(512), expect="fail"),
    line("contig alloc %P %N", pfn_of_cma(minus_1=True), pages(2), expect="fail"),
    line("cma"),
)

# CMA on hot-added movable memory: allocations in ZONE_MOVABLE of a DIMM,
# cma and contig held while that block is offlined (migration), ejected.
mm_scenario(
    "cma_contig_dimm_offline",
    dimm_add(0, 2),
    line("memory online %B %T", blocks(32, 33), word("T", "online_movable")),
    line("alloc %O %C %M", order(0), count(8), word("M", "movable")),
    line("cma alloc %N", pages(1024)),
    line("contig alloc %P %N", pfn_in_block(32, 4), pages(1024)),
    line("contig alloc %P %N frozen", pfn_in_block(33, 8), pages(512)),
    line("contig list"),
    line("memory offline %B", blocks(32), expect="fail"),
    line("memory offline %B", blocks(33), expect="fail"),
    dimm_eject(0, 2, expect="fail"),
    line("contig free %R", range_all(0)),
    line("contig free %R", range_all(0)),
    line("memory offline %B", blocks(32, 33)),
    dimm_eject(0, 2),
    line("cma release all"),
    line("contiguity"),
)

# A contig range freed in pieces: head, tail, a middle part, beyond its end
# (refused), the rest; the same with a frozen range.
mm_scenario(
    "contig_free_pieces",
    line("contig alloc %P %N", pfn_in_block(1, 16), pages(2048)),
    line("contig free %R", range_head(0x3f)),
    line("contig list"),
    line("contig free %R", range_tail(0x7f)),
    line("contig free %R", range_middle(0x80, 0x20)),
    line("contig list"),
    line("contig free %R", range_beyond(1), expect="fail"),
    line("page %P", pfn_of_range(0, plus=3)),
    line("contig free %R", range_all(0)),
    line("contig alloc %P %N frozen", pfn_in_block(1, 40), pages(1024)),
    line("contig free %R", range_middle(0x10, 0x30)),
    line("contig free %R", range_head(0x01)),
    line("contig list"),
    line("contig compare %n %o", small(17), word("o", "on"), drop_last=True),
    line("contig compare frozen"),
    line("contig bench %n %r", small(9), reps(2)),
    line("mech %K %E", word("K", "contig_free"), word("E", "old")),
    line("contig alloc %P %N", pfn_in_block(0, 40), pages(4096)),
    line("contig free %R", range_middle(0x99, 0x7e)),
    line("contig free %R", range_tail(0xff)),
    line("contig list"),
)

# auto_online_blocks and the online policy: DIMMs onlined as they come,
# movable, kernel, by the auto-movable policy; the ratio; valid_zones.
mm_scenario(
    "auto_online_policy",
    line("echo %T > /sys/devices/system/memory/auto_online_blocks", word("T", "online_movable")),
    dimm_add(0, 1),
    line("echo %T > /sys/devices/system/memory/auto_online_blocks", word("T", "online")),
    line("echo %Y > /sys/module/memory_hotplug/parameters/online_policy", word("Y", "auto-movable")),
    line("echo %n > /sys/module/memory_hotplug/parameters/auto_movable_ratio", small(17)),
    dimm_add(1, 2),
    line("cat /sys/devices/system/memory/memory%b/valid_zones", block(33)),
    line("lsmem %L", word("L", "-n")),
    line("mech %K", word("K", "auto_movable_stats")),
    line("echo %E > /sys/kernel/mm/memlab/%K", word("E", "old"), word("K", "auto_movable_stats")),
    dimm_add(3, 1, node=0),
    line("echo %T > /sys/devices/system/memory/memory%b/state", word("T", "offline"), block(33)),
    line("echo %T > /sys/devices/system/memory/memory%b/state", word("T", "online_kernel"), block(33)),
    line("echo %Z > /sys/devices/system/memory/memory%b/online", word("Z", "0"), block(34)),
    line("echo %Z > /sys/devices/system/memory/memory%b/online", word("Z", "1"), block(34)),
    line("alloc %O %C %M", order(2), count(8), word("M", "unmovable")),
    line("numa"),
    dimm_eject(1, 3, expect="fail"),                      # kernel pages in 33
    line("free all"),
    dimm_eject(0, 4),
)

# memmap_on_memory: DIMMs whose memmap lives in the block itself, onlined,
# used, offlined, ejected; one without it next to them.
mm_scenario(
    "memmap_on_memory",
    line("echo %Z > /sys/module/memory_hotplug/parameters/memmap_on_memory", word("Z", "Y")),
    dimm_add(0, 2, memmap_on_memory=True),
    dimm_add(2, 1),
    line("memory online %B", blocks(32, 34)),
    line("page %P", pfn_in_block(32)),
    line("page %P", pfn_in_block(33, 1)),
    line("alloc %O %C %M", order(10), count(8), word("M", "node=1")),
    line("alloc %O %C %M", order(4), count(8), word("M", "movable")),
    line("memory offline %B", blocks(32, 33), expect="fail"),
    line("sections"),
    line("free all"),
    line("memory offline %B", blocks(32, 34)),
    dimm_eject(0, 3),
    line("echo %Z > /sys/module/memory_hotplug/parameters/memmap_on_memory", word("Z", "N")),
    dimm_add(0, 1),
    line("memory"),
)

# The memory notifiers refuse: onlining and offlining fail with an error
# injected, then work once it is cleared.
mm_scenario(
    "inject_online_offline_errors",
    dimm_add(1, 2),
    line("echo %X > " + INJECT + "MEM_GOING_ONLINE/error", word("X", "-16")),
    line("memory online %B", blocks(33), expect="fail"),
    line("echo %X > " + INJECT + "MEM_GOING_ONLINE/error", word("X", "0")),
    line("memory online %B %T", blocks(33, 34), word("T", "online_movable")),
    line("echo %X > " + INJECT + "MEM_GOING_OFFLINE/error", word("X", "-12")),
    line("memory offline %B", blocks(34), expect="fail"),
    dimm_eject(1, 2, expect="fail"),
    line("echo %X > " + INJECT + "MEM_GOING_OFFLINE/error", word("X", "0")),
    line("memory offline %B", blocks(34)),
    line("lsmem"),
    dimm_eject(1, 2),
)

# The old designs of every mechanism switched on, with trace, then a DIMM
# cycle, contig and devmem under them; mech and the comparisons.
mm_scenario(
    "old_designs_traced",
    line("trace %K %o", word("K", "all"), word("o", "on")),
    line("mech %K %E", word("K", "contig_check"), word("E", "old")),
    line("mech %K %E", word("K", "memmap_init"), word("E", "old")),
    line("mech %K %E", word("K", "contig_free"), word("E", "old")),
    line("echo %E > /sys/kernel/mm/memlab/%K", word("E", "old"), word("K", "auto_movable_stats")),
    line("mech"),
    dimm_add(0, 4),
    line("memory online %B %T", blocks(32, 34), word("T", "online_movable")),
    line("contiguity"),
    line("contig alloc %P %N", pfn_in_block(33, 2), pages(4096)),
    line("contig free %R", range_middle(0x22, 0x40)),
    line("devmem create %A %S %G", addr_block(3), size_blocks(1), word("G", "2m")),
    line("devmem compare %I", devmem_first()),
    line("memory offline %B", blocks(33), expect="fail"),
    line("contig free %R", range_all(0)),
    line("contig free %R", range_all(0)),
    line("memory offline %B", blocks(32, 34)),
    line("mech %K %E", word("K", "memmap_init"), word("E", "template-nt")),
    line("memory online %B", blocks(33)),
    line("contiguity"),
    line("bench contig"),
    line("mech %K %E", word("K", "contig_check"), word("E", "new")),
    line("trace %K %o", word("K", "all"), word("o", "off")),
    line("meminit"),
)

# Handles in every shape: orders, counts, nodes, quiet; fill, check,
# move (migration), free, drain, the views of the boot memory.
mm_scenario(
    "handles_move_check",
    line("alloc %O %C %M %M", order(0), count(8), word("M", "movable"), word("M", "node=0")),
    line("alloc %O %C %M %M", order(5), count(3), word("M", "unmovable"), word("M", "node=1")),
    line("alloc %O %M quiet", order(10), word("M", "movable")),
    line("fill %H %W", handle_newest(), word("W", "0xdeadbeef")),
    line("fill %H %W", handle_newest(1), word("W", "pattern")),
    line("move %H", handle_newest()),
    line("move %H", handle_newest(2), expect="fail"),      # unmovable
    line("move %H", handle_newest(4)),
    line("check %H", handle_newest()),
    line("check all"),
    line("handles"),
    line("page %P", pfn_of_handle()),
    line("free %H", handle_newest(1)),
    line("drain"),
    line("memblock"),
    line("memmap map"),
    line("free %H", handle_live()),
    line("handles"),
)


# virtio-mem plugs 200 MiB (memory36 whole, memory37 36 of 64 sub-blocks)
# and the plugged memory is used: a contig range, movable handles, CMA; a
# contig range over unplugged sub-blocks (PageOffline, virtio-mem's) is
# refused; then the host asks for nothing: the handles migrate, the
# range's sub-block (and memory37's memmap in memory36) stay plugged until
# the range is freed and the driver retries.
mm_scenario(
    "vmem_unplug_under_contig",
    vmem_request(200),
    line("virtio-mem"),
    line("contig alloc %P %N", pfn_in_block(37, 36), pages(512), expect="fail"),
    line("contig alloc %P %N frozen", pfn_in_block(37, 35), pages(1024), expect="fail"),
    line("page %P", pfn_in_block(37, 40)),
    line("contig alloc %P %N", pfn_in_block(37, 16), pages(512)),
    line("alloc %O %C %M %M", order(9), count(8), word("M", "movable"), word("M", "node=1")),
    line("alloc %O %C %M", order(3), count(8), word("M", "movable")),
    line("cma alloc %N", pages(512)),
    line("devmem create %A %S %G", addr_block(6), size_blocks(1), word("G", "4k"), expect="fail"),
    line("memory offline %B", blocks(37), expect="fail"),
    vmem_request(0),
    line("virtio-mem"),
    line("check all"),
    line("contig free %R", range_all()),
    line("virtio-mem retry"),
    line("virtio-mem"),
    line("lsmem"),
)

# A virtio-mem block offlined behind the driver's back, plugged into while
# offline, onlined movable (only the plugged sub-blocks reach the buddy),
# offlined again and unplugged; the sysfs view of its zones.
mm_scenario(
    "vmem_offline_behind_its_back",
    vmem_request(200),
    line("memory offline %B", blocks(37)),
    line("virtio-mem"),
    vmem_request(220),
    line("cat /sys/devices/system/memory/memory%b/valid_zones", block(37)),
    line("memory online %B %T", blocks(37), word("T", "online_movable")),
    line("page %P", pfn_in_block(37, 50)),
    line("alloc %O %C %M %M", order(4), count(8), word("M", "movable"), word("M", "node=1")),
    line("virtio-mem"),
    line("memory offline %B", blocks(36, 37), expect="fail"),  # 36 holds 37's memmap
    vmem_request(128),                                      # offline memory37 goes first
    line("memory offline %B", blocks(36)),
    line("memory online %B %T", blocks(36), word("T", "online_kernel")),
    line("echo %T > /sys/devices/system/memory/memory%b/state", word("T", "offline"), block(36)),
    vmem_request(0),
    line("lsmem"),
    line("virtio-mem"),
)

# The auto-movable online policy with virtio-mem's dynamic group: blocks
# placed one by one (memory36 Normal, the rest Movable); movable handles
# and CMA in use while it shrinks; STATE requests of plugged, unplugged,
# mixed and unaligned ranges.
mm_scenario(
    "vmem_auto_movable",
    line("echo %Y > /sys/module/memory_hotplug/parameters/online_policy", word("Y", "auto-movable")),
    vmem_request(510),
    line("lsmem %L", word("L", "-abn")),
    line("alloc %O %C %M %M", order(10), count(8), word("M", "movable"), word("M", "node=1")),
    line("cma alloc %N", pages(2048)),
    line("virtio-mem state %V %v", vmem_addr(0), vmem_size(64)),
    line("virtio-mem state %V %v", vmem_addr(200), vmem_size(8)),
    line("virtio-mem state %V %v", vmem_addr(250), vmem_size(8), expect="fail"),   # past the end
    line("virtio-mem state %V %v", vmem_addr(3, unaligned=True), vmem_size(1), expect="fail"),
    vmem_request(128),
    line("check all"),
    line("virtio-mem state %V %v", vmem_addr(60), vmem_size(8)),
    line("echo %n > /sys/module/memory_hotplug/parameters/auto_movable_ratio", small(1)),
    vmem_request(300),
    line("memory"),
    vmem_request(0),
    line("virtio-mem"),
)

# Replies injected by the shell (NACK, BUSY, ERROR) while plugging and
# unplugging, a requested size that is no multiple of the block size, and
# retries a second later.
mm_scenario(
    "vmem_inject_replies",
    line("virtio-mem inject %J %n", word("J", "nack"), small(1)),
    vmem_request(64),
    line("virtio-mem retry"),
    line("virtio-mem inject %J", word("J", "busy")),
    vmem_request(200),
    vmem_poll_seconds(2),
    line("virtio-mem inject %J %n", word("J", "error"), small(9)),
    vmem_request(20),
    line("virtio-mem"),
    line("virtio-mem inject %J", word("J", "ack"), expect="fail"),
    line("virtio-mem inject %J", word("J", "off")),
    vmem_poll_seconds(3),
    vmem_request_unaligned(100),
    line("virtio-mem retry"),
    line("virtio-mem"),
)

# memmap_on_memory DIMM blocks next to virtio-mem: their first 512 pages
# hold their own memmap (refused to contig alloc with the reason), the
# virtio-mem blocks' memmaps come from them; offline, online, eject.
mm_scenario(
    "memmap_on_memory_with_vmem",
    dimm_add(0, 2, memmap_on_memory=True),
    line("memory online %B %T", blocks(32, 33), word("T", "online_kernel")),
    line("page %P", pfn_in_block(32)),
    line("contig alloc %P %N", pfn_in_block(32), pages(512), expect="fail"),
    line("contig alloc %P %N frozen", pfn_in_block(33), pages(1024), expect="fail"),
    line("contig alloc %P %N", pfn_in_block(33, 1), pages(512)),
    vmem_request(300),
    line("sections"),
    line("memory offline %B", blocks(33), expect="fail"),  # the contig range
    line("contig free %R", range_all()),
    line("memory offline %B", blocks(33)),
    line("memory online %B %T", blocks(33), word("T", "online_movable")),
    vmem_request(0),
    line("memory offline %B", blocks(32, 33)),
    dimm_eject(0, 2),
    line("echo %Z > /sys/module/memory_hotplug/parameters/memmap_on_memory", word("Z", "N")),
    dimm_add(2, 2),
    line("memory"),
)


def mm_seeds():
    out = {}
    for name, ops in MM_SCENARIOS.items():
        data = b"".join(o.data for o in ops)
        out[name] = (data, ops)
    return out


def mm_parse(stdout):
    """[(line, ret)] from FUZZ_VERBOSE output: "> LINE\\nOUTPUT[RET]" or "> (dimm ...): RET"."""
    res = []
    cur = None
    for l in stdout.splitlines():
        if l.startswith("> "):
            m = re.match(r"> (\(dimm \w+\) blocks \d+-\d+): (-?\d+)$", l)
            if m:
                res.append((m.group(1), int(m.group(2))))
                cur = None
                continue
            m = re.match(r"> (\(virtio-mem \w+\) \S+): plugged \d+ MiB$", l)
            if m:
                res.append((m.group(1), 0))
                cur = None
                continue
            cur = l[2:]
            l = ""
        if cur is not None:
            m = re.search(r"\[(-?\d+)\]$", l)
            if m:
                res.append((cur, int(m.group(1))))
                cur = None
    return res


def mm_check(binary, path, ops):
    p = subprocess.run([binary, path], env=dict(os.environ, FUZZ_VERBOSE="1"),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    got = mm_parse(p.stdout)
    errors = []
    if p.returncode != 0:
        errors.append("the target failed (exit %d):\n%s" % (p.returncode, p.stderr[-3000:]))
    for i, op in enumerate(ops):
        if i >= len(got):
            errors.append("op %d (%s): not run" % (i, op.prefix))
            continue
        text, ret = got[i]
        if not text.startswith(op.prefix):
            errors.append("op %d: ran '%s', meant '%s...'" % (i, text, op.prefix))
        elif op.expect == "ok" and ret != 0:
            errors.append("op %d: '%s' failed (%d)" % (i, text, ret))
        elif op.expect == "fail" and ret >= 0:
            errors.append("op %d: '%s' succeeded, meant to fail" % (i, text))
    return errors, p.stdout



# ============================================================================
# fuzz_virtio_mem: a device, a program, and the device's replies
# ============================================================================
#
# From the front: the device (block size, region, usable, requested and
# plugged size, proximity domain, transport features, auto_online_blocks and
# the online policy), then a program of at most 64 operations, each an op
# byte (op % 16 chooses) and an argument byte a, some with more.  From the
# BACK, one byte per request the device answers: < 0x80 honest (QEMU's
# behaviour), else 0x80 | enum fvm_lie (tests/host/virtio_mem_fake.h).
#
# A seed here is: device + program padded with polls to 64 operations (so
# the program never runs into the replies) + the replies, reversed, padded
# with honest ones (so the replies never eat the program).
#
# The machine: 128 MiB of boot RAM on node 0; the device region in QEMU's
# device-memory window at 4 GiB, 2 MiB device blocks, 128 MiB memory blocks.

VM_MAX_OPS = 64
VM_HONEST_PAD = 100

# enum fvm_lie
LIE = {name: 0x80 | i for i, name in enumerate([
    "ACK_NOOP", "NACK", "BUSY", "ERROR", "BAD_TYPE", "SHORT", "STILL_PLUGGED", "BAD_ID",
    "BAD_LEN", "IDX_JUMP", "LOST", "LATE", "SLOW", "GARBAGE_STATE", "DONE_BUT_BUSY",
    "RESIZE_UNDER"])}

MMOP = {"offline": 0, "online": 1, "online_kernel": 2, "online_movable": 3}


def vm_size_128m(n):
    """pick_size(): n * 128 MiB (n <= 16)."""
    return bytes([n, 0])


def vm_size_blocks(n):
    """pick_size(): n device blocks (n < 64)."""
    return bytes([n, 3])


class VmSeed:
    def __init__(self, region_128m=4, usable_128m=None, requested_blocks=0, plugged_128m=None,
                 unplugged_inaccessible=False, online="online_movable", auto_movable=False,
                 expect=()):
        d = bytearray()
        d += bytes([0])                         # block size: 2 MiB, QEMU's
        d += bytes([0, 0])                      # region at the window, 4 GiB
        d += vm_size_128m(region_128m)
        d += vm_size_128m(region_128m if usable_128m is None else usable_128m)
        d += vm_size_blocks(requested_blocks)
        if plugged_128m is None:
            d += bytes([1])                     # plugged_size 0 at probe
        else:
            d += bytes([0]) + vm_size_128m(plugged_128m)
        d += bytes([0])                         # proximity domain 0
        d += bytes([0x80 if unplugged_inaccessible else 0])    # features, 64-entry queue
        d += bytes([MMOP[online] | (4 if auto_movable else 0)])
        self.head = bytes(d)
        self.ops = []
        self.replies = []
        self.expect = list(expect)              # strings the kernel log must contain

    def op(self, *b):
        self.ops.append(bytes(b))
        return self

    # the host
    def request(self, n_blocks, grow_usable=False):
        """requested_size := n 2 MiB blocks (n < 256)."""
        return self.op(0, 0x80 if grow_usable else 0, n_blocks)

    def request_128m(self, n):
        return self.op(0, 3, n)

    def poll(self, n=1):
        """the poller, 100 ms later"""
        for _ in range(n):
            self.op(2, 0)
        return self

    def poll_seconds(self, n):
        """n (1-8) polls a second apart: retries come due"""
        return self.op(5, n - 1)

    def lie_plugged(self, n_blocks):
        return self.op(6, 0, n_blocks)

    def usable_shrink(self, n_blocks):
        return self.op(7, 1, n_blocks)

    def usable_grow(self, n_blocks):
        return self.op(7, 0, n_blocks)

    def move_region(self, n2m):
        """the region's address moves (a real device never does)"""
        return self.op(8, 1, n2m)

    # the shell
    def state(self, first_block, n_blocks):
        return self.op(9, 0, first_block, n_blocks - 1)

    def view(self):
        return self.op(10, 0)

    def retry(self):
        return self.op(10, 1)

    def inject(self, what, n):
        return self.op(10, {"nack": 3, "busy": 4, "error": 5}[what], n - 1)

    def inject_off(self):
        return self.op(10, 2)

    # the rest of the kernel
    def alloc(self, slot, order, movable):
        return self.op(11, order | (0x10 if movable else 0), slot)

    def free(self, slot):
        return self.op(13, slot)

    def hog(self):
        """take (or give back) every free 2 MiB block"""
        return self.op(13, 0x80)

    def sysfs_toggle(self, nth_block, online="online_movable"):
        """offline the device's nth memory block, or online it"""
        return self.op(14, MMOP[online] - 1, nth_block)

    def going_online_error(self, on):
        return self.op(15, 0x10 | (0x40 if on else 0))

    def going_offline_error(self, on):
        return self.op(15, 0x30 | (0x40 if on else 0))

    def auto_online(self, online):
        return self.op(15, MMOP[online])

    # the device's answers, in order
    def reply(self, *bs):
        self.replies += bs
        return self

    def honest(self, n):
        return self.reply(*([0] * n))

    def data(self):
        assert len(self.ops) <= VM_MAX_OPS
        prog = b"".join(self.ops) + bytes([2, 0]) * (VM_MAX_OPS - len(self.ops))
        return self.head + prog + bytes(reversed(self.replies + [0] * VM_HONEST_PAD))


VM_SCENARIOS = {}


def vm_scenario(name, seed):
    VM_SCENARIOS[name] = seed

# Plugged to three memory blocks, used by movable and kernel allocations,
# then asked to shrink to nothing: unplugging under allocations (movable
# pages migrate, kernel ones keep their block), retried seconds later once
# the kernel pages are freed.
vm_scenario("plug3_unplug_under_alloc", VmSeed(region_128m=4, online="online", expect=[
    "plugged 0 -> 384 MiB", "384 -> 2 MiB (requested 0 MiB)", "is in use",
    "unplugged 2 -> 0 MiB (requested 0 MiB)"])
    .request(192).poll(4)
    .alloc(0, 3, movable=True).alloc(1, 0, movable=True).alloc(2, 2, movable=False)
    .alloc(3, 3, movable=True).alloc(4, 1, movable=False)
    .view().state(0, 64)
    .request(0).poll(3)
    .view()
    .free(2).free(4).poll_seconds(4).poll(2)
    .view())

# Plug, then lies while unplugging: ACK without doing it, an UNPLUG the
# device goes on counting as plugged, BUSY, a late reply past the timeout;
# the host resizes in between.
vm_scenario("unplug_with_lies", VmSeed(region_128m=4, expect=[
    "0x86 (a lie)", "device BUSY, retrying", "device marked broken"])
    .request(128).poll(4)
    .alloc(0, 3, movable=True).alloc(1, 2, movable=True)
    .request(32).poll(2).poll_seconds(3)
    .request(96).poll(3)
    .request(0).poll(3).poll_seconds(8).poll(2)
    .view()
    .honest(4).reply(LIE["ACK_NOOP"], LIE["STILL_PLUGGED"], LIE["BUSY"], LIE["LATE"], 0x10,
                     LIE["DONE_BUT_BUSY"]))

# Its blocks offlined and onlined behind the driver's back through sysfs,
# offlining refused by a notifier while it shrinks, auto_online_blocks
# changed between plugs.
vm_scenario("sysfs_behind_its_back", VmSeed(region_128m=4, expect=[
    "plugged 0 -> 256 MiB", "unplugged"])
    .request(128).poll(3)
    .sysfs_toggle(1).alloc(0, 3, movable=True)
    .request(64).poll(2)
    .sysfs_toggle(1, "online_kernel").alloc(1, 1, movable=False)
    .going_offline_error(True).request(0).poll(2).poll_seconds(2)
    .going_offline_error(False).free(1).poll_seconds(3)
    .auto_online("offline").request(128).poll(2)
    .sysfs_toggle(0, "online_movable").sysfs_toggle(1, "online").view()
    .going_online_error(True).auto_online("online").request(192).poll(2)
    .going_online_error(False).poll_seconds(2).view())

# No memory for a memmap: every free 2 MiB block taken before it plugs, so
# adding a memory block fails; given back, a retry plugs.
vm_scenario("no_memmap_then_retry", VmSeed(region_128m=4, expect=[
    "no memory for its 2 MiB memmap", "plugged 0 -> 258 MiB"])
    .hog().request(128).poll(3).view()
    .hog().poll_seconds(4).request(129).poll(2).view()
    .hog().request(0).poll(2).hog().poll_seconds(2))

# The shell's injected replies (nack, busy, error), `retry`, `state` of
# plugged and unplugged ranges, then the device lying about plugged_size
# and the usable size shrinking under plugged memory.
vm_scenario("inject_state_and_size_lies", VmSeed(region_128m=4, expect=[
    "injected", "plugged 0 ->"])
    .inject("nack", 2).request(96).poll(3).retry().poll(2)
    .inject("busy", 1).request(160).poll(2).poll_seconds(2)
    .inject("error", 3).request(32).poll(2).inject_off().poll_seconds(2)
    .state(0, 16).state(60, 64).state(200, 8).view()
    .lie_plugged(7).poll(2).usable_shrink(40).request(40).poll(2).poll_seconds(2)
    .usable_grow(100).request(100).poll(2).view())

# UNPLUGGED_INACCESSIBLE offered, the auto-movable online policy, plugged
# memory at probe (UNPLUG_ALL), a request that grows usable as QEMU does.
vm_scenario("plugged_at_probe_auto_movable", VmSeed(
    region_128m=4, usable_128m=2, plugged_128m=1, requested_blocks=10,
    unplugged_inaccessible=True, online="online", auto_movable=True,
    expect=["plugged at probe: UNPLUG_ALL", "plugged 0 ->"])
    .poll(2).request(150, grow_usable=True).poll(3)
    .alloc(0, 2, movable=True).alloc(1, 0, movable=False).view()
    .request(20).poll(3).free(1).poll_seconds(3).view())

# Lies while plugging: NACK, ERROR, a response type outside the enum, a
# short reply, a wrong used id: the driver marks the device broken at the
# first malformed reply and keeps what it has.
vm_scenario("plug_with_lies", VmSeed(region_128m=4, expect=[
    "NACK (beyond requested size)", "ERROR reply", "malformed response", "removed"])
    .request(64).poll(2).request(128).poll(2).request(160).poll(2).request(192).poll(2)
    .view().request(32).poll(2).poll_seconds(3).view()
    .honest(1).reply(LIE["NACK"], LIE["ERROR"], LIE["BAD_TYPE"], 1))


def vm_seeds():
    return {name: (seed.data(), seed.expect) for name, seed in VM_SCENARIOS.items()}


def vm_check(binary, path, expect):
    p = subprocess.run([binary, path], env=dict(os.environ, FUZZ_VERBOSE="1"),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    errors = []
    if p.returncode != 0:
        errors.append("the target failed (exit %d):\n%s" % (p.returncode, p.stdout[-3000:]))
    for e in expect:
        if e not in p.stdout:
            errors.append("the log lacks '%s'" % e)
    return errors, p.stdout


# ============================================================================
# fuzz_pci: a q35-like machine booted, then hotplug events
# ============================================================================
#
# Hotplug mode (header[3] bit 5): header, the record count, 12-byte records
# (one function each), two setup bytes (DSDT shape, register block,
# selector order), then 4-byte events (see tests/fuzz/fuzz_pci.c, "Hotplug
# events").  Every seed boots the same machine: 00:00.0 a host bridge,
# 00:02.0 root port A (buses 1-1, memory window at c4000000, a slot) with a
# function behind it at 01:00.0, 00:03.0 root port B (buses 2-2, window at
# c8000000, an empty slot).

PCI_HP_MODE = 0x20
PCI_EV = {"acpi_plug": 0, "acpi_down": 1, "gpe": 2, "raw_bit": 3, "slot_plug": 4,
          "attention": 5, "power_fault": 6, "surprise": 7, "presence": 8,
          "poll": 9, "rescan": 10, "views": 11}
THEN = 0x80                          # event byte 0 bit 7: GPE (or poll) right after


def pci_record(parent, dev, fn=0, flags=0, vendor=0x80, *rest):
    r = [parent, (dev << 3) | fn, flags, vendor] + list(rest)
    return bytes(r + [0] * (12 - len(r)))


PCI_MACHINE = [
    pci_record(0, 0, 0, 0x00, 0x80),                           # 00:00.0
    pci_record(0, 2, 0, 0x03, 0x0c, 1, 1, 0x10, 0x01),         # port A, slot
    pci_record(2, 0, 0, 0x00, 0x58, 0x00, 12, 0x10),           # 01:00.0 behind A
    pci_record(0, 3, 0, 0x03, 0x0c, 2, 2, 0x20, 0x01),         # port B, slot
]


def pci_ev(kind, a=0, b=0, c=0, then=False):
    return bytes([PCI_EV[kind] | (THEN if then else 0), a, b, c])


def pci_input(setup, events, records=PCI_MACHINE):
    return (bytes([0, 0, 0xff, PCI_HP_MODE, len(records)]) + b"".join(records) +
            bytes(setup) + b"".join(events))


class PciSeed:
    def __init__(self, data, expect):
        self.data = data
        self.expect = expect


# setup[0]: shape (0 DSDT with BSELs, 1 none, 2 without BSEL: native, 3
# hostile), bit 4 newest bridge first (B is bsel 0, A bsel 1, as QEMU)
PCI_SCENARIOS = {
    "acpi_plug_down_eject": PciSeed(pci_input([0x10, 0], [
        pci_ev("acpi_plug", 1, 0, 0x00, then=True),            # leaf behind B
        pci_ev("acpi_plug", 1, 5, 0x01, then=True),            # multi-function, slot 5
        pci_ev("acpi_down", 2, 0, 0, then=True),               # A's boot function
        pci_ev("views"),
        pci_ev("acpi_plug", 0, 7, 0x02, then=True),            # a bridge, leaf behind, on A
        pci_ev("acpi_down", 4, 1, 0, then=True),               # RMV cleared: refused
        pci_ev("acpi_down", 4, 2, 0, then=True),               # RMV set again
        pci_ev("raw_bit", 0, 9, 1), pci_ev("raw_bit", 1, 3, 0), pci_ev("gpe"),
    ]), ["pci-hotplug: device added on bus 02 (bsel 0, slots 1)",
         "pci-hotplug: device added on bus 02 (bsel 0, slots 20)",
         "pci-hotplug: remove request for 01:00 (bsel 1): 1 function(s) released",
         "pci-hotplug: remove request for 02:00 (bsel 0): 1 function(s) released",
         "refused: the slot is not removable", "bound to fuzz-vmem"]),
    "acpi_guessed_map": PciSeed(pci_input([0x11, 0], [
        pci_ev("acpi_plug", 1, 0, 0x01, then=True),
        pci_ev("acpi_down", 4, 0, 0, then=True),
        pci_ev("rescan"), pci_ev("views"),
    ]), ["pci-hotplug: no DSDT; guessing QEMU's bus selector order",
         "pci-hotplug: device added on bus 02 (bsel 0, slots 1)",
         "pci-hotplug: remove request for 02:00 (bsel 0): 2 function(s) released"]),
    "acpi_hostile_dsdt": PciSeed(pci_input([0x13, 0x10], [
        bytes([9, 0x0a, 10, 0xff]),                            # two patch pairs
        pci_ev("acpi_plug", 1, 0, 0x00, then=True),
        pci_ev("acpi_down", 2, 0, 0, then=True),
        pci_ev("gpe"),
    ]), ["pci-hotplug: "]),
    "native_slots": PciSeed(pci_input([0x12, 0], [
        pci_ev("slot_plug", 1, 0, 0x01, then=True),            # into B: multi-function
        pci_ev("attention", 1), pci_ev("poll"),
        pci_ev("slot_plug", 1, 0, 0x00), pci_ev("power_fault", 0), pci_ev("poll"),
        pci_ev("surprise", 1), pci_ev("poll"),
        pci_ev("presence", 0), pci_ev("poll"),
        pci_ev("attention", 0), pci_ev("poll"),                # A's boot function
        pci_ev("slot_plug", 0, 0, 0x02, then=True),            # a bridge into A
        pci_ev("views"),
    ]), ["pci-hotplug: native PCIe hotplug on 2 slot(s)",
         "pci-hotplug: native: removal requested behind 00:03.0",
         "pci-hotplug: native: power fault on the slot of 00:02.0",
         "is gone; 1 function(s) released"]),
}


def pci_seeds():
    return {name: (seed.data, seed.expect) for name, seed in PCI_SCENARIOS.items()}

# ============================================================================
# main
# ============================================================================

def write(target, seeds):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f not in seeds:
            os.remove(os.path.join(d, f))
    for name, (data, _) in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


def main():
    check = "--check" in sys.argv
    verbose = "-v" in sys.argv
    build = os.path.join(ROOT, "build", "fuzz")
    targets = {
        "fuzz_mm_cmds": (mm_seeds(), mm_check),
        "fuzz_virtio_mem": (vm_seeds(), vm_check),
        "fuzz_pci": (pci_seeds(), vm_check),
    }
    bad = 0
    for target, (seeds, checker) in targets.items():
        write(target, seeds)
        print("%s: %d seeds" % (target, len(seeds)))
        if not check:
            continue
        binary = os.path.join(build, target)
        for name, (data, what) in seeds.items():
            errors, out = checker(binary, os.path.join(HERE, target, name), what)
            print("  %-32s %4d bytes  %s" % (name, len(data), "ok" if not errors else "NOT AS MEANT"))
            if verbose:
                print(out)
            for e in errors:
                print("    " + e)
            bad += bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

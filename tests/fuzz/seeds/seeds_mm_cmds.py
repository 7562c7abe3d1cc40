"""seeds_mm_cmds.py - the fuzz_mm_cmds seeds of make_seeds.py: the
encoder of its input (a program of shell lines and DIMM and virtio-mem
events, mirroring tests/fuzz/fuzz_mm_cmds.c byte for byte), the named
scenarios, and the --check of each seed against what the target printed.
Standard library only.
"""
import os
import re
import subprocess

from seeds_common import FUZZ_SRC, MiB, GiB


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

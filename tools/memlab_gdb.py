"""memlab_gdb.py - gdb commands that decode memlab's mm state from a stopped
kernel, printing what the shell prints, so that a student at the gdb prompt
and a student at `memlab>` see the same facts.

    (gdb) source tools/memlab_gdb.py     (tools/gdbinit does it)
    (gdb) memlab-page 0x1000             like `page 0x1000`
    (gdb) memlab-zone 0 DMA32            a zone: span, counters, free lists
    (gdb) memlab-buddyinfo               like `cat /proc/buddyinfo`
    (gdb) memlab-block 32                a memory block, as its sysfs files say
    (gdb) memlab-sections                like `sections`

Everything is read from the ELF's debug information (types, field offsets,
enum values, zone_names[]); the few facts that are preprocessor macros in
the C sources (where page->flags keeps zone and node, the page_type values,
the section flags) are repeated below, next to the header that defines
them.  tests/qemu/test_gdb.py runs these commands in gdb's batch mode
against QEMU's gdb server and compares them with the shell's answers, so a
change on either side that makes them disagree fails `make test`.

Reading guest memory goes through QEMU's gdb server one request at a time; the
commands read whole structures (a section root, a zone) at once where that
matters.
"""

import struct

import gdb

# include/mm/page.h: page->flags keeps the zone in the top ZONES_WIDTH bits
# and the node in the NODES_WIDTH bits below it.
ZONES_WIDTH = 3
NODES_WIDTH = 6
ZONES_PGSHIFT = 64 - ZONES_WIDTH
NODES_PGSHIFT = ZONES_PGSHIFT - NODES_WIDTH
# include/mm/page.h: page_type's top byte.
PAGE_TYPE_NONE = 0xFFFFFFFF
PAGE_TYPES = {0xF0: "buddy", 0xF1: "pcp", 0xF2: "offline", 0xF3: "table"}
# include/mm/sparse.h: mem_section flags.
SECTION_FLAGS = [(1 << 0, "present"), (1 << 1, "memmap"), (1 << 2, "online"),
                 (1 << 3, "early")]
SECTION_SHIFT = 15          # PAGES_PER_SECTION = 32768 (include/mm/page.h)


def _int(expr):
    return int(gdb.parse_and_eval(expr))


def _enum_names(type_name, prefix):
    """{value: lowercase name without prefix} of a C enum in the debug info."""
    t = gdb.lookup_type(type_name)
    return {int(f.enumval): f.name[len(prefix):].lower()
            for f in t.fields() if f.name.startswith(prefix) and not f.name.startswith("__")}


def _zone_names():
    n = _int("sizeof(zone_names) / sizeof(zone_names[0])")
    return [gdb.parse_and_eval(f"zone_names[{i}]").string() for i in range(n)]


def _parse_number(arg, what):
    try:
        return int(arg, 0)
    except ValueError:
        raise gdb.GdbError(f"{what} '{arg}' is not a number")


def _page(pfn):
    return gdb.parse_and_eval(f"mm_vmemmap + {pfn}").dereference()


class MemlabPage(gdb.Command):
    """memlab-page PFN: the struct page of PFN, as the shell's `page` prints
    its first lines (pfn, struct page address, node and zone, flags with
    their names, page_type, refcount, private)."""

    def __init__(self):
        super().__init__("memlab-page", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        pfn = _parse_number(arg.strip(), "pfn")
        page = _page(pfn)
        addr = int(page.address)
        flags = int(page["flags"]) & (2**64 - 1)
        zones = _zone_names()
        zone = (flags >> ZONES_PGSHIFT) & ((1 << ZONES_WIDTH) - 1)
        nid = (flags >> NODES_PGSHIFT) & ((1 << NODES_WIDTH) - 1)
        names = [name for bit, name in sorted(_enum_names("enum pageflags", "PG_").items())
                 if flags & (1 << bit)]
        ptype = int(page["page_type"]) & 0xFFFFFFFF
        tname = "none" if ptype == PAGE_TYPE_NONE else PAGE_TYPES.get(ptype >> 24, "?")
        private = int(page["private"])
        print(f"pfn {pfn:#x} (phys {pfn << 12:#x}), struct page at {addr:#x}")
        print(f"  node {nid} zone {zones[zone] if zone < len(zones) else '?'}")
        print(f"  flags:      {flags:#x} ({'|'.join(names) or 'none'})")
        print(f"  page_type:  {ptype:#010x} ({tname})")
        print(f"  refcount:   {int(page['refcount'])}")
        suffix = {"buddy": " (buddy order)", "pcp": " (pcp order)"}.get(tname, "")
        print(f"  private:    {private}{suffix}")


def _zone(nid, name):
    zones = _zone_names()
    if name not in zones:
        raise gdb.GdbError(f"no zone '{name}': {', '.join(zones)}")
    return gdb.parse_and_eval(f"node_data[{nid}].node_zones[{zones.index(name)}]")


def _free_counts(zone):
    orders = zone["free_area"].type.range()[1] + 1
    return [int(zone["free_area"][o]["nr_free"]) for o in range(orders)]


class MemlabZone(gdb.Command):
    """memlab-zone NID NAME: zone NAME of node NID: its span, present and
    managed pages, and the free blocks per order (the buddyinfo row)."""

    def __init__(self):
        super().__init__("memlab-zone", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        words = arg.split()
        if len(words) != 2:
            raise gdb.GdbError("usage: memlab-zone NID NAME")
        nid = _parse_number(words[0], "node")
        z = _zone(nid, words[1])
        start = int(z["zone_start_pfn"])
        spanned = int(z["spanned_pages"])
        print(f"node {nid} zone {words[1]}: pfn [{start:#x}-{start + spanned:#x})")
        print(f"  spanned {spanned} present {int(z['present_pages'])} "
              f"managed {int(z['managed_pages'])}")
        counts = _free_counts(z)
        print("  free blocks by order: " + " ".join(str(c) for c in counts))
        print(f"  free pages in the buddy: {sum(c << o for o, c in enumerate(counts))}")


class MemlabBuddyinfo(gdb.Command):
    """memlab-buddyinfo: /proc/buddyinfo from the zones' free areas."""

    def __init__(self):
        super().__init__("memlab-buddyinfo", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        zones = _zone_names()
        nodes = _int("sizeof(node_data) / sizeof(node_data[0])")
        for nid in range(nodes):
            if not int(gdb.parse_and_eval(f"node_data[{nid}].online")):
                continue
            for zi, name in enumerate(zones):
                z = gdb.parse_and_eval(f"node_data[{nid}].node_zones[{zi}]")
                if int(z["present_pages"]) == 0:
                    continue
                row = "".join(f"{c:6d} " for c in _free_counts(z))
                print(f"Node {nid}, zone {name:>8s} {row}")


class MemlabBlock(gdb.Command):
    """memlab-block ID: memory block ID (memoryID in sysfs): state, node,
    zone, how it was added."""

    def __init__(self):
        super().__init__("memlab-block", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        want = _parse_number(arg.strip(), "block id")
        n = _int("nr_blocks")
        states = _enum_names("enum memory_block_state", "MEM_")
        for i in range(n):
            mem = gdb.parse_and_eval(f"block_pool[block_index[{i}]]")
            if int(mem["block_id"]) != want:
                continue
            zone = mem["zone"]
            zname = zone.dereference()["name"].string() if int(zone) else "none"
            state = states.get(int(mem["state"]), "?").replace("_", "-")
            print(f"memory{want}: state {state}, node {int(mem['nid'])}, zone {zname}, "
                  f"phys_index {want:#010x}, {'boot' if bool(mem['early']) else 'hot-added'}, "
                  f"{int(mem['nr_vmemmap_pages'])} memmap_on_memory pages")
            return
        raise gdb.GdbError(f"no memory block {want}")


class MemlabSections(gdb.Command):
    """memlab-sections: the present sections, as the shell's `sections`
    prints them (number, node, pages present, subsection map, state)."""

    def __init__(self):
        super().__init__("memlab-sections", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        sec_t = gdb.lookup_type("struct mem_section")
        off = {f.name: f.bitpos // 8 for f in sec_t.fields()}
        size = sec_t.sizeof
        per_root = 4096 // size
        nroots = _int("sizeof(mem_section_roots) / sizeof(mem_section_roots[0])")
        inf = gdb.selected_inferior()
        base = int(gdb.parse_and_eval("&mem_section_roots[0]"))
        roots = struct.unpack(f"<{nroots}Q", bytes(inf.read_memory(base, 8 * nroots)))
        count = 0
        for r, root in enumerate(roots):
            if not root:
                continue
            raw = bytes(inf.read_memory(root, 4096))
            for i in range(per_root):
                s = raw[i * size:(i + 1) * size]
                flags = struct.unpack_from("<Q", s, off["flags"])[0]
                if not flags & 1:
                    continue
                nr = r * per_root + i
                submap = struct.unpack_from("<Q", s, off["subsection_map"])[0]
                nid = struct.unpack_from("<i", s, off["nid"])[0]
                present = struct.unpack_from("<I", s, off["nr_present_pages"])[0]
                drawn = "".join("#" if submap >> b & 1 else "." for b in range(64))
                state = ",".join(name for bit, name in SECTION_FLAGS if flags & bit)
                start = nr << SECTION_SHIFT
                end = (nr + 1) << SECTION_SHIFT
                print(f"{nr:<8d} [{start:#016x}-{end:#016x}) {nid:4d} {present:6d} {drawn} {state}")
                count += 1
        print(f"{count} present sections")


MemlabPage()
MemlabZone()
MemlabBuddyinfo()
MemlabBlock()
MemlabSections()

"""The memory core seen through its Linux-format views
(/proc/meminfo, buddyinfo, zoneinfo, pagetypeinfo, the node files) and the
shell's hand allocations (alloc, free, fill, check).

The parsers below accept only Linux 6.1's exact layouts (column widths,
trailing spaces, field order), so a drift from the Linux format fails here.
The checks tie the views to each other and to the firmware map:

    present pages (zoneinfo)  == System RAM pages (`memmap`)
    managed + reserved        == present          (`meminit` reserved)
    MemTotal                  == managed pages, in kB
    pages free (per zone)     == sum of buddyinfo blocks
    MemFree                   == sum of the zones' pages free

As in Linux, pages on the per-CPU lists are not free in these counts
(NR_FREE_PAGES is the buddy only, see views/proc_mm.c): MemFree and
buddyinfo come back exactly after `free all` once `drain` has emptied the
pcp lists, and a drain raises MemFree by exactly the pages it moved.
"""

import re

import pytest

from memlab import SCALE

MiB = 1 << 20
GiB = 1 << 30
PAGE = 4096
NR_ORDERS = 11
NUMA2 = ["-object", "memory-backend-ram,id=m0,size=1G",
         "-object", "memory-backend-ram,id=m1,size=1G",
         "-numa", "node,nodeid=0,memdev=m0",
         "-numa", "node,nodeid=1,memdev=m1"]
ZONES = ["DMA", "DMA32", "Normal", "Movable", "Device"]
MIGRATETYPES = ["Unmovable", "Movable", "Reclaimable", "HighAtomic", "CMA",
                "Isolate"]

# /proc/meminfo fields of Linux 6.1 (x86_64, CONFIG_CMA, CONFIG_ZSWAP), in
# the order meminfo_proc_show() prints them.  memlab prints a subset, in
# this order.
LINUX_MEMINFO = """MemTotal MemFree MemAvailable Buffers Cached SwapCached
Active Inactive Active(anon) Inactive(anon) Active(file) Inactive(file)
Unevictable Mlocked SwapTotal SwapFree Zswap Zswapped Dirty Writeback
AnonPages Mapped Shmem KReclaimable Slab SReclaimable SUnreclaim KernelStack
PageTables SecPageTables NFS_Unstable Bounce WritebackTmp CommitLimit
Committed_AS VmallocTotal VmallocUsed VmallocChunk Percpu HardwareCorrupted
AnonHugePages ShmemHugePages ShmemPmdMapped FileHugePages FilePmdMapped
CmaTotal CmaFree HugePages_Total HugePages_Free HugePages_Rsvd
HugePages_Surp Hugepagesize Hugetlb DirectMap4k DirectMap2M
DirectMap1G""".split()

# Linux's drivers/base/node.c node_read_meminfo() + hugetlb_report_node_meminfo().
LINUX_NODE_MEMINFO = """MemTotal MemFree MemUsed SwapCached Active Inactive
Active(anon) Inactive(anon) Active(file) Inactive(file) Unevictable Mlocked
Dirty Writeback FilePages Mapped AnonPages Shmem KernelStack PageTables
SecPageTables NFS_Unstable Bounce WritebackTmp KReclaimable Slab
SReclaimable SUnreclaim AnonHugePages ShmemHugePages ShmemPmdMapped
FileHugePages FilePmdMapped HugePages_Total HugePages_Free
HugePages_Surp""".split()


# -- parsers: Linux 6.1's layouts, exactly --------------------------------

def lines_of(text):
    assert text.endswith("\n"), f"output does not end with a newline: {text[-80:]!r}"
    return text[:-1].split("\n")


def is_subsequence(sub, seq):
    it = iter(seq)
    return all(x in it for x in sub)


def parse_meminfo(text):
    """{field: kB (or a count for HugePages_*)} in file order.  Each line is
    "%-16s%8lu kB" (show_val_kb), or "HugePages_Xxx:   %5lu" (24 columns
    either way), or the one longer label "HardwareCorrupted: %5lu kB"."""
    out = {}
    for line in lines_of(text):
        m = re.fullmatch(r"(\S+):( +)(\d+)( kB)?", line)
        assert m, f"not a meminfo line: {line!r}"
        name, value, kb = m.group(1), int(m.group(3)), m.group(4)
        width = len(name) + 1 + len(m.group(2)) + len(m.group(3))
        assert width == 24 or (width > 24 and len(m.group(2)) == 1
                               and len(name) + 2 >= 16) or \
            (width > 24 and len(name) + 1 + len(m.group(2)) == 16), \
            f"meminfo value not right-aligned to column 24: {line!r}"
        assert (kb is None) == name.startswith("HugePages_"), line
        assert name not in out, f"{name} twice"
        out[name] = value
    names = list(out)
    assert is_subsequence(names, LINUX_MEMINFO), \
        f"meminfo fields are not in Linux's order (or unknown): {names}"
    return out


def parse_buddyinfo(text):
    """{(nid, zone): [free blocks per order 0..10]}.  Each line is
    "Node %d, zone %8s " then "%6lu " per order (trailing space)."""
    out = {}
    for line in lines_of(text):
        m = re.fullmatch(r"Node (\d+), zone (.{8}) ((?:[ \d]{5}\d ){11})", line)
        assert m, f"not a buddyinfo line: {line!r}"
        zone = m.group(2).lstrip()
        assert m.group(2) == f"{zone:>8}" and zone in ZONES, line
        out[(int(m.group(1)), zone)] = [int(v) for v in m.group(3).split()]
    return out


ZONE_FIELDS = ["boost", "min", "low", "high", "spanned", "present",
               "managed", "cma"]
ZONE_STATS = ["nr_free_pages", "nr_zone_inactive_anon", "nr_zone_active_anon",
              "nr_zone_inactive_file", "nr_zone_active_file",
              "nr_zone_unevictable", "nr_zone_write_pending", "nr_mlock",
              "nr_bounce", "nr_zspages", "nr_free_cma",
              # NR_VM_NUMA_EVENT_ITEMS, printed after the zone items (CONFIG_NUMA)
              "numa_hit", "numa_miss", "numa_foreign", "numa_interleave",
              "numa_local", "numa_other"]

# Linux 6.1's node_stat_items (mm/vmstat.c vmstat_text[], Debian's config),
# the "per-node stats" block of /proc/zoneinfo.
NODE_STATS = """nr_inactive_anon nr_active_anon nr_inactive_file nr_active_file
nr_unevictable nr_slab_reclaimable nr_slab_unreclaimable nr_isolated_anon
nr_isolated_file workingset_nodes workingset_refault_anon
workingset_refault_file workingset_activate_anon workingset_activate_file
workingset_restore_anon workingset_restore_file workingset_nodereclaim
nr_anon_pages nr_mapped nr_file_pages nr_dirty nr_writeback
nr_writeback_temp nr_shmem nr_shmem_hugepages nr_shmem_pmdmapped
nr_file_hugepages nr_file_pmdmapped nr_anon_transparent_hugepages
nr_vmscan_write nr_vmscan_immediate_reclaim nr_dirtied nr_written
nr_throttled_written nr_kernel_misc_reclaimable nr_foll_pin_acquired
nr_foll_pin_released nr_kernel_stack nr_page_table_pages
nr_sec_page_table_pages nr_swapcached pgpromote_success
pgpromote_candidate""".split()

# /proc/vmstat of Linux 6.1 (x86_64, Debian's config): the items memlab can
# have, in vmstat_text[]'s order (zone items, NUMA events, node items,
# events); memlab prints a subsequence.
LINUX_VMSTAT = """nr_free_pages nr_zone_inactive_anon nr_zone_active_anon
nr_zone_inactive_file nr_zone_active_file nr_zone_unevictable
nr_zone_write_pending nr_mlock nr_bounce nr_zspages nr_free_cma numa_hit
numa_miss numa_foreign numa_interleave numa_local numa_other
nr_page_table_pages pgalloc_dma pgalloc_dma32 pgalloc_normal
pgalloc_movable pgalloc_device pgfree pgmigrate_success
pgmigrate_fail""".split()


def parse_zoneinfo(text):
    """{(nid, zone): {field: value}} with the fields of Linux's mm/vmstat.c
    zoneinfo_show_print() that memlab has, line for line: unpopulated zones
    stop after "protection", populated ones go on with the zone stats,
    pagesets, vm stats threshold, node_unreclaimable and start_pfn.  The
    first populated zone of a node starts with the "per-node stats" block."""
    out = {}
    lines = lines_of(text)
    i = 0

    def take(regex, what):
        nonlocal i
        assert i < len(lines), f"zoneinfo ends where {what} was expected"
        m = re.fullmatch(regex, lines[i])
        assert m, f"zoneinfo line {i + 1}: expected {what}, got {lines[i]!r}"
        i += 1
        return m

    while i < len(lines):
        m = take(r"Node (\d+), zone (.{8})", "a 'Node N, zone NAME' header")
        zone = m.group(2).lstrip()
        assert zone in ZONES, lines[i - 1]
        z = {}
        out[(int(m.group(1)), zone)] = z
        if i < len(lines) and lines[i] == "  per-node stats":
            i += 1
            z["per_node"] = {}
            for f in NODE_STATS:
                z["per_node"][f] = int(take(rf"      {f:<12} (\d+)", f).group(1))
        z["free"] = int(take(r"  pages free     (\d+)", "pages free").group(1))
        for f in ZONE_FIELDS:
            z[f] = int(take(rf"        {f:<8} (\d+)", f).group(1))
        prot = take(r"        protection: \((-?\d+(?:, -?\d+)*)\)", "protection")
        z["protection"] = [int(v) for v in prot.group(1).split(", ")]
        assert len(z["protection"]) == len(ZONES)
        if z["present"] == 0:
            continue
        for f in ZONE_STATS:
            z[f] = int(take(rf"      {f:<12} (\d+)", f).group(1))
        take(r"  pagesets", "pagesets")
        take(r"    cpu: 0", "cpu: 0")
        z["pcp_count"] = int(take(r"              count: (\d+)", "count").group(1))
        z["pcp_high"] = int(take(r"              high:  (\d+)", "high").group(1))
        z["pcp_batch"] = int(take(r"              batch: (\d+)", "batch").group(1))
        take(r"  vm stats threshold: 0", "vm stats threshold")
        take(r"  node_unreclaimable:  0", "node_unreclaimable")
        z["start_pfn"] = int(take(r"  start_pfn:           (\d+)", "start_pfn").group(1))
    return out


def parse_memlab_zoneinfo(text):
    """{(nid, zone): {contiguous, pages_with_online_memmap}} from memlab's
    own /sys/kernel/mm/memlab/zoneinfo (not a Linux file)."""
    out = {}
    lines = lines_of(text)
    assert len(lines) % 3 == 0, text
    for i in range(0, len(lines), 3):
        m = re.fullmatch(r"Node (\d+), zone (.{8})", lines[i])
        c = re.fullmatch(r"  contiguous:               ([01])", lines[i + 1])
        n = re.fullmatch(r"  pages_with_online_memmap: (\d+)", lines[i + 2])
        assert m and c and n, lines[i:i + 3]
        out[(int(m.group(1)), m.group(2).lstrip())] = {
            "contiguous": int(c.group(1)), "pages_with_online_memmap": int(n.group(1))}
    return out


def parse_vmstat(text):
    """{name: value}: "name value" lines, names in Linux 6.1's order."""
    out = {}
    for line in lines_of(text):
        m = re.fullmatch(r"([a-z0-9_]+) (\d+)", line)
        assert m, f"not a vmstat line: {line!r}"
        assert m.group(1) not in out, line
        out[m.group(1)] = int(m.group(2))
    assert is_subsequence(list(out), LINUX_VMSTAT), list(out)
    return out


def parse_pagetypeinfo(text):
    """(free, blocks): free[(nid, zone, type)] = [count per order];
    blocks[(nid, zone)] = {type: pageblocks}.  One section per node with
    memory, each with its own "Page block order" header, as Linux."""
    free, blocks = {}, {}
    lines = lines_of(text)
    order_hdr = "%-43s " % "Free pages count per migrate type at order" + \
        "".join("%6d " % o for o in range(NR_ORDERS))
    type_hdr = "%-23s" % "Number of blocks type " + \
        "".join("%12s " % t for t in MIGRATETYPES)
    i = 0
    while i < len(lines):
        assert lines[i:i + 4] == ["Page block order: 9", "Pages per block:  512", "",
                                  order_hdr], f"pagetypeinfo header at line {i + 1}: {lines[i:i + 4]}"
        i += 4
        while lines[i] != "":
            m = re.fullmatch(r"Node +(\d+), zone (.{8}), type (.{12}) ((?:>?[ \d]{5}\d ){11})",
                             lines[i])
            assert m, f"not a free-count line: {lines[i]!r}"
            assert lines[i].startswith("Node %4d, zone %8s, type %12s " % (
                int(m.group(1)), m.group(2).strip(), m.group(3).strip())), lines[i]
            free[(int(m.group(1)), m.group(2).strip(), m.group(3).strip())] = \
                [int(v.lstrip(">")) for v in m.group(4).split()]
            i += 1
        i += 1
        assert lines[i] == type_hdr, f"block-count header: {lines[i]!r}"
        i += 1
        while i < len(lines) and lines[i].startswith("Node "):
            m = re.fullmatch(r"Node (\d+), zone (.{8}) ((?:[ \d]{11}\d ){6})", lines[i])
            assert m, f"not a block-count line: {lines[i]!r}"
            blocks[(int(m.group(1)), m.group(2).strip())] = dict(
                zip(MIGRATETYPES, (int(v) for v in m.group(3).split())))
            i += 1
    return free, blocks


def parse_node_meminfo(text, nid):
    """{field: value}: "Node %d %-16s%8lu kB" lines, then the three
    "Node %d HugePages_Xxx:  %5u" lines, in Linux's drivers/base/node.c order."""
    out = {}
    for line in lines_of(text):
        m = re.fullmatch(r"Node (\d+) (\S+):( +)(\d+)( kB)?", line)
        assert m and int(m.group(1)) == nid, f"not a node {nid} meminfo line: {line!r}"
        name, value = m.group(2), int(m.group(4))
        if m.group(5):
            # node_read_meminfo() gives these two one space less
            width = 15 if name in ("FileHugePages", "FilePmdMapped") else 16
            assert line == f"Node {nid} {name + ':':<{width}}{value:>8} kB", line
        else:
            assert name.startswith("HugePages_"), line
            assert line == f"Node {nid} {name + ':':<16} {value:>5}", line
        out[name] = value
    assert is_subsequence(list(out), LINUX_NODE_MEMINFO), list(out)
    return out


def memmap_ram_pages(text):
    """From `memmap`: "System RAM: 2096628 KiB in 2 ranges (524157 pages)"."""
    m = re.search(r"^System RAM: (\d+) KiB in \d+ ranges? \((\d+) pages\)", text, re.M)
    assert m, f"no System RAM summary in memmap:\n{text[-600:]}"
    assert int(m.group(1)) * 1024 == int(m.group(2)) * PAGE
    return int(m.group(2))


def meminit_reserved(text):
    m = re.search(r"^reserved:\s+(\d+) pages", text, re.M)
    assert m, f"no 'reserved: N pages' line in meminit:\n{text}"
    return int(m.group(1))


# Summary lines that start like an error ("alloc: ...") but report success.
SUMMARY = re.compile(r"(alloc: \d+ blocks of order|free: \d+ handles freed|drain: \d+ pages moved)")


def run_ok(m, cmd, timeout=None):
    """Run cmd; fail if it printed an error in the shell's "cmd: ..." style."""
    out = m.run(cmd, **({"timeout": timeout} if timeout else {}))
    name = cmd.split()[0]
    for line in out.split("\n"):
        assert not (line.startswith(name + ": ") or line.startswith("usage:")) \
            or SUMMARY.match(line), f"{cmd!r} failed:\n{out}"
    return out


def snapshot(m):
    """What must come back after a round trip: drain the pcp lists, then
    MemFree, buddyinfo and each zone's free pages."""
    run_ok(m, "drain")
    zones = parse_zoneinfo(m.run("cat /proc/zoneinfo"))
    return {
        "MemFree": parse_meminfo(m.run("cat /proc/meminfo"))["MemFree"],
        "buddyinfo": parse_buddyinfo(m.run("cat /proc/buddyinfo")),
        "zone_free": {k: z["free"] for k, z in zones.items()},
    }


def check_views_agree(m):
    """The views against each other; returns (meminfo, zoneinfo, buddyinfo)."""
    meminfo = parse_meminfo(m.run("cat /proc/meminfo"))
    zoneinfo = parse_zoneinfo(m.run("cat /proc/zoneinfo"))
    buddy = parse_buddyinfo(m.run("cat /proc/buddyinfo"))
    free, blocks = parse_pagetypeinfo(m.run("cat /proc/pagetypeinfo"))

    managed = sum(z["managed"] for z in zoneinfo.values())
    assert meminfo["MemTotal"] == managed * 4, (meminfo["MemTotal"], managed)
    assert meminfo["MemFree"] == sum(z["free"] for z in zoneinfo.values()) * 4
    assert 0 <= meminfo["MemAvailable"] <= meminfo["MemFree"]
    assert meminfo["Hugepagesize"] == 2048
    populated = {k for k, z in zoneinfo.items() if z["present"]}
    assert set(buddy) == populated, (sorted(buddy), sorted(populated))
    assert {k for k in blocks} == populated
    for key, z in zoneinfo.items():
        assert z["managed"] <= z["present"] <= z["spanned"], (key, z)
        assert z["min"] <= z["low"] <= z["high"], (key, z)
        if not z["present"]:
            continue
        assert z["nr_free_pages"] == z["free"], (key, z)
        in_buddy = sum(n << o for o, n in enumerate(buddy[key]))
        assert z["free"] == in_buddy, \
            f"{key}: pages free {z['free']} != buddy {in_buddy} (pcp {z['pcp_count']})"
        for order in range(NR_ORDERS):
            by_type = sum(free[(key[0], key[1], t)][order] for t in MIGRATETYPES)
            assert by_type == buddy[key][order], (key, order, by_type, buddy[key][order])
        nblocks = sum(blocks[key].values())
        first = z["start_pfn"] // 512
        last = (z["start_pfn"] + z["spanned"] - 1) // 512
        assert z["present"] // 512 <= nblocks <= last - first + 1, (key, nblocks, z)
    return meminfo, zoneinfo, buddy


# -- read-only checks on the shared machine (2G) -----------------------------

def test_views_parse_and_agree(shell):
    meminfo, zoneinfo, _ = check_views_agree(shell)
    assert meminfo["MemTotal"] > 1900 * 1024
    for field in ["Buffers", "Cached", "SwapTotal", "Slab", "AnonPages"]:
        assert meminfo[field] == 0, field
    # Linux prints every zone of an online node, populated or not
    assert [k for k in zoneinfo] == [(0, z) for z in ZONES]
    # page 0 is the BIOS's (Reserved), as in Linux on x86: Linux 6.1 under
    # QEMU q35 + SeaBIOS prints DMA start_pfn 1, spanned 4095, present 3998
    dma = zoneinfo[(0, "DMA")]
    assert (dma["start_pfn"], dma["spanned"], dma["present"]) == (1, 4095, 3998), dma
    assert zoneinfo[(0, "DMA32")]["start_pfn"] == 4096


def test_node_files(shell):
    assert shell.run("cat /sys/devices/system/node/online") == "0\n"
    assert shell.run("cat /sys/devices/system/node/has_memory") == "0\n"
    assert shell.run("cat /sys/devices/system/node/node0/distance") == "10\n"
    node = parse_node_meminfo(shell.run("cat /sys/devices/system/node/node0/meminfo"), 0)
    meminfo = parse_meminfo(shell.run("cat /proc/meminfo"))
    assert node["MemTotal"] == meminfo["MemTotal"]
    assert node["MemUsed"] == node["MemTotal"] - node["MemFree"]
    assert "cannot access" in shell.run("ls /sys/devices/system/node/node1")
    assert shell.run("cat /sys/devices/system/node/possible") == "0\n"
    assert shell.run("cat /sys/devices/system/node/has_cpu") == "0\n"
    assert shell.run("cat /sys/devices/system/node/node0/cpulist") == "0\n"
    assert shell.run("cat /sys/devices/system/node/node0/cpumap") == "1\n"
    vm = parse_vmstat(shell.run("cat /sys/devices/system/node/node0/vmstat"))
    assert list(vm) == ["nr_free_pages", "nr_free_cma", "numa_hit", "numa_miss", "numa_foreign",
                        "numa_interleave", "numa_local", "numa_other", "nr_page_table_pages"] \
        and vm["nr_free_pages"] > 0, vm
    # one node: it holds every page-table page
    assert node["PageTables"] == meminfo["PageTables"] == vm["nr_page_table_pages"] * 4 > 0
    # numastat: Linux's node_read_numastat() names; all allocations are local here
    ns = shell.run("cat /sys/devices/system/node/node0/numastat")
    assert re.fullmatch(r"numa_hit (\d+)\nnuma_miss 0\nnuma_foreign 0\ninterleave_hit 0\n"
                        r"local_node (\d+)\nother_node 0\n", ns), ns
    links = shell.run("ls /sys/devices/system/node/node0").split()
    assert "memory0" in links and "memory15" in links, links
    assert shell.run("ls -l /sys/devices/system/node/node0/memory3") == \
        "lrwxrwxrwx 0 /sys/devices/system/node/node0/memory3 -> ../../memory/memory3\n"


def test_drain_changes_memfree_by_the_drained_pages(shell):
    """Linux's NR_FREE_PAGES: pages on the per-CPU lists are not free.
    Single pages freed after `alloc` sit on the pcp lists, so MemFree
    (= the buddy sum, check_views_agree) rises at `drain` by exactly the
    pages the drain says it moved."""
    run_ok(shell, "drain")
    run_ok(shell, "alloc 0 40")
    run_ok(shell, "free all")
    check_views_agree(shell)
    before = parse_meminfo(shell.run("cat /proc/meminfo"))["MemFree"]
    zones = parse_zoneinfo(shell.run("cat /proc/zoneinfo"))
    pcp = sum(z["pcp_count"] for z in zones.values() if z["present"])
    out = run_ok(shell, "drain")
    moved = int(re.search(r"drain: (\d+) pages moved", out).group(1))
    after = parse_meminfo(shell.run("cat /proc/meminfo"))["MemFree"]
    assert moved == pcp > 0, (moved, pcp, out)
    assert after - before == moved * 4, (before, after, moved)
    check_views_agree(shell)


def test_vmstat_and_new_meminfo_fields(shell):
    """/proc/vmstat: Linux 6.1's names in its order; its numbers agree with
    meminfo; meminfo's later fields (PageTables .. DirectMap) are there."""
    run_ok(shell, "drain")
    vm = parse_vmstat(shell.run("cat /proc/vmstat"))
    meminfo = parse_meminfo(shell.run("cat /proc/meminfo"))
    assert vm["nr_free_pages"] * 4 == meminfo["MemFree"]
    assert vm["nr_page_table_pages"] * 4 == meminfo["PageTables"] > 0
    # pgalloc_* and pgfree count pages: 2^order per allocation and free
    pgalloc = sum(v for k, v in vm.items() if k.startswith("pgalloc_"))
    out = run_ok(shell, "alloc 3 2 movable")
    after = parse_vmstat(shell.run("cat /proc/vmstat"))
    assert sum(v for k, v in after.items() if k.startswith("pgalloc_")) >= pgalloc + 16, after
    # one NUMA event per allocation (zone_statistics()), all local on one node
    assert after["numa_hit"] >= vm["numa_hit"] + 2, (vm, after)
    assert after["numa_local"] - vm["numa_local"] == after["numa_hit"] - vm["numa_hit"]
    assert after["numa_miss"] == after["numa_foreign"] == after["numa_other"] == 0, after
    assert after["numa_interleave"] == 0
    # a `move` migrates the handle's 2^3 pages: pgmigrate_success counts pages
    handle = re.search(r"handles (\d+)-\d+", out).group(1)
    run_ok(shell, f"move {handle}")
    moved = parse_vmstat(shell.run("cat /proc/vmstat"))
    assert moved["pgmigrate_success"] == after["pgmigrate_success"] + 8, (after, moved)
    assert moved["pgmigrate_fail"] == after["pgmigrate_fail"]
    run_ok(shell, "free all")
    freed = parse_vmstat(shell.run("cat /proc/vmstat"))
    assert freed["pgfree"] >= after["pgfree"] + 16, (after, freed)
    for f in ["CommitLimit", "Committed_AS", "VmallocTotal", "VmallocUsed",
              "VmallocChunk", "Percpu", "DirectMap4k", "DirectMap2M"]:
        assert f in meminfo, f
    # vm_commit_limit(): overcommit_ratio 50 of the managed pages, no swap
    assert abs(meminfo["CommitLimit"] - meminfo["MemTotal"] // 2) <= 4, meminfo
    assert "CmaTotal" not in meminfo     # no cma= area on this machine
    # the direct map covers at least the RAM (plus ACPI/NVS ranges)
    mapped = meminfo["DirectMap4k"] + meminfo["DirectMap2M"] + meminfo.get("DirectMap1G", 0)
    assert mapped >= meminfo["MemTotal"], meminfo
    # memlab's own zone state lives apart from Linux's zoneinfo
    zoneinfo = parse_zoneinfo(shell.run("cat /proc/zoneinfo"))
    assert "per_node" in zoneinfo[(0, "DMA")]
    own = parse_memlab_zoneinfo(shell.run("cat /sys/kernel/mm/memlab/zoneinfo"))
    assert set(own) == {k for k, z in zoneinfo.items() if z["present"]}
    for key, z in own.items():
        assert z["pages_with_online_memmap"] <= zoneinfo[key]["spanned"], key


def test_memmap_map_and_sections(shell):
    out = run_ok(shell, "memmap map")
    assert "        node  " not in out, out     # one node: no node lines
    rows = re.findall(r"^0x([0-9a-f]{12})  (\S[^\n]*)$", out, re.M)
    assert rows, out
    drawn = "".join(r[1].rstrip() for r in rows if not r[1].startswith("("))
    assert set(drawn) <= set(".ohrDdNMV"), out
    sections = shell.run("sections")
    present = len(re.findall(r"^\d+ +\[", sections, re.M))
    assert len(drawn) - drawn.count(".") == present, (drawn, present)
    assert drawn[0] == "h"      # section 0: the 640 KiB - 1 MiB hole
    assert "legend" in out or "absent" in out


def test_page_decodes(shell):
    out = run_ok(shell, "page 0x100")            # the kernel image, at 1 MiB
    assert re.search(r"^pfn 0x100 \(phys 0x100000\)", out, re.M), out
    assert "zone DMA" in out and "reserved" in out and "refcount:   1" in out
    assert re.search(r"pageblock:  \[0x0-0x200\) (Unmovable|Movable)", out), out
    assert "section:    0 present,memmap,online,early" in out, out
    out = run_ok(shell, "page 0x9f")             # the legacy hole
    assert "hole" in out, out


def test_page_of_invalid_pfn(shell):
    out = shell.run("page 0x80000")              # 2 GiB: no RAM at all
    assert out == "page: pfn 0x80000: no memmap (section 16 is not present)\n", out
    out = shell.run("page 0x400000000")
    assert "beyond the 46-bit physical address space" in out, out
    assert "usage" in shell.run("page")
    assert shell.run("page x") == "page: pfn 'x' is not a number\n"
    assert shell.run("page 99999999999999999999") == \
        "page: pfn 99999999999999999999 is out of range: 0-0xffffffffffffffff\n"


def test_numa_memblock_meminit(shell):
    out = run_ok(shell, "numa")
    # node 0 starts at page 1: page 0 is Reserved, as in Linux on x86
    assert re.search(r"^node 0: \[mem 0x0{12}1000-0x[0-9a-f]{16}\]", out, re.M), out
    assert "node distances:" in out
    out = run_ok(shell, "memblock")
    assert out.strip()
    out = run_ok(shell, "meminit")
    assert meminit_reserved(out) > 0


# -- boots of their own ------------------------------------------------------

@pytest.mark.parametrize("mem", ["2G", "8G"])
def test_memtotal_is_ram_minus_reserved(boot, mem):
    m = boot(mem=mem)
    ram_pages = memmap_ram_pages(m.run("memmap"))
    reserved = meminit_reserved(m.run("meminit"))
    meminfo, zoneinfo, _ = check_views_agree(m)
    present = sum(z["present"] for z in zoneinfo.values())
    managed = sum(z["managed"] for z in zoneinfo.values())
    assert present == ram_pages, (present, ram_pages)
    assert managed + reserved == present, (managed, reserved, present)
    assert meminfo["MemTotal"] == managed * 4
    size = int(mem[:-1]) * GiB
    assert size - 4 * MiB <= ram_pages * PAGE <= size
    # the memmap alone is 64 bytes per 4 KiB page of every present section
    assert reserved * PAGE >= size // 64
    if mem == "8G":
        assert zoneinfo[(0, "Normal")]["start_pfn"] == (4 * GiB) // PAGE
        assert zoneinfo[(0, "Normal")]["present"] == 6 * GiB // PAGE


def alloc_until_failure(m, args):
    """`alloc ORDER 4096 args quiet` until it fails; blocks allocated."""
    total = 0
    while True:
        out = m.run(f"alloc {args} quiet", timeout=120 * SCALE)
        ok = re.search(r"^alloc: (\d+) blocks of order", out, re.M)
        if ok:
            total += int(ok.group(1))
            continue
        fail = re.search(r"^alloc: order \d+: no free block .*; (\d+) of \d+ allocated$", out, re.M)
        full = re.search(r"^alloc: the handle table is full .*; (\d+) of \d+ allocated$", out, re.M)
        assert fail or full, out
        total += int((fail or full).group(1))
        return total, bool(full)


@pytest.mark.parametrize("mem", ["2G", "8G"])
def test_alloc_until_failure_then_free_all(boot, mem):
    m = boot(mem=mem)
    before = snapshot(m)
    blocks = 0
    for order in range(10, -1, -1):
        n, full = alloc_until_failure(m, f"{order} 4096 movable")
        blocks += n
        if full:
            break
    else:
        n, _ = alloc_until_failure(m, "0 4096 unmovable")
        blocks += n
    meminfo = parse_meminfo(m.run("cat /proc/meminfo"))
    assert meminfo["MemFree"] < meminfo["MemTotal"] // 20, \
        f"only {blocks} blocks before failure: {meminfo}"
    handles = m.run("handles")
    assert re.search(rf"^{blocks} live handles of 4096", handles, re.M), handles[-200:]
    out = run_ok(m, "free all", timeout=120 * SCALE)
    assert re.search(rf"^free: {blocks} handles freed", out, re.M), out
    after = snapshot(m)
    assert after == before
    check_views_agree(m)


def test_two_numa_nodes(boot):
    m = boot(mem="2G", extra=NUMA2)
    out = run_ok(m, "numa")
    assert re.search(r"^node 0: \[mem 0x0000000000001000-0x000000003fffffff\]", out, re.M), out
    assert re.search(r"^node 1: \[mem 0x0000000040000000-0x000000007[0-9a-f]{7}\]", out, re.M), out
    assert re.search(r"^  0:\s+10\s+20$", out, re.M) and re.search(r"^  1:\s+20\s+10$", out, re.M), out
    assert m.run("cat /sys/devices/system/node/online") == "0-1\n"
    assert m.run("cat /sys/devices/system/node/node0/distance") == "10 20\n"
    assert m.run("cat /sys/devices/system/node/node1/distance") == "20 10\n"
    meminfo, zoneinfo, buddy = check_views_agree(m)
    assert [k for k in zoneinfo] == [(n, z) for n in (0, 1) for z in ZONES]
    assert zoneinfo[(1, "DMA32")]["start_pfn"] == GiB // PAGE
    assert zoneinfo[(1, "DMA")]["present"] == 0
    assert zoneinfo[(0, "DMA32")]["start_pfn"] + zoneinfo[(0, "DMA32")]["spanned"] == GiB // PAGE
    assert (1, "DMA32") in buddy and (1, "DMA") not in buddy
    totals = [parse_node_meminfo(m.run(f"cat /sys/devices/system/node/node{n}/meminfo"), n)
              for n in (0, 1)]
    assert sum(t["MemTotal"] for t in totals) == meminfo["MemTotal"]
    for n in (0, 1):
        managed = sum(z["managed"] for (nid, _), z in zoneinfo.items() if nid == n)
        assert totals[n]["MemTotal"] == managed * 4
    # memmap map marks where node 0's memory ends: sections 0-7 are node 0's (1 GiB)
    out = run_ok(m, "memmap map")
    nodes = re.search(r"^0x000000000000  \S+\n        node  (\S+)$", out, re.M)
    assert nodes and nodes.group(1) == "0" * 8 + "1" * 8, out
    assert "node lines: the node of each present section" in out, out
    out = run_ok(m, "alloc 10 2 node=1")
    assert len(re.findall(r"^handle \d+: pfn 0x[0-9a-f]+ order 10 \(4096 KiB\) node 1 zone DMA32 unmovable$",
                          out, re.M)) == 2, out
    run_ok(m, "free all")


def test_movablecore_creates_movable_zone(boot):
    m = boot("movablecore=512M")
    _, zoneinfo, buddy = check_views_agree(m)
    movable = zoneinfo[(0, "Movable")]
    assert 508 * MiB <= movable["present"] * PAGE <= 512 * MiB, movable
    assert movable["start_pfn"] % 1024 == 0
    dma32 = zoneinfo[(0, "DMA32")]
    assert dma32["start_pfn"] + dma32["spanned"] == movable["start_pfn"]
    assert (0, "Movable") in buddy
    out = run_ok(m, "alloc 10 1 movable")
    assert "zone Movable movable" in out, out
    out = run_ok(m, "alloc 0 1 unmovable")
    assert "zone Movable" not in out, out
    run_ok(m, "free all")


def test_bad_input_changes_nothing(machine):
    m = machine
    before = snapshot(m)
    out = m.run("alloc 11")
    assert out == "alloc: order 11 is out of range: 0-10 (MAX_PAGE_ORDER, 4096 KiB blocks)\n", out
    # a number too large for 64 bits is out of range too, never wrapped
    assert m.run("alloc 99999999999999999999") == \
        "alloc: order 99999999999999999999 is out of range: 0-10 (MAX_PAGE_ORDER, 4096 KiB blocks)\n"
    assert m.run("alloc 0 99999999999999999999") == \
        "alloc: count 99999999999999999999 is out of range: 1-4096 (the handle table's size)\n"
    assert m.run("alloc x") == "alloc: order 'x' is not a number\n"
    # contradictory options are refused; a repeated one is not a contradiction
    assert m.run("alloc 10 1 movable unmovable") == \
        "alloc: 'movable' and 'unmovable' contradict each other: give one\n"
    assert m.run("alloc 3 node=0 node=1") in (
        "alloc: node=1: not an online node\n",
        "alloc: 'node=0' and 'node=1' contradict each other: give one\n")
    assert m.run("alloc 3 node=99999999999999999999") == \
        "alloc: node 99999999999999999999 is out of range: 0-7 (MAX_NUMNODES)\n"
    assert m.run("free 1") == "free: no handle 1: nothing was allocated yet\n"
    assert "usage: alloc" in m.run("alloc")
    assert "usage: alloc" in m.run("alloc 3 lots")
    assert m.run("alloc 3 node=7") == "alloc: node=7: not an online node\n"
    assert m.run("alloc 3 0") == "alloc: count 0 is out of range: 1-4096 (the handle table's size)\n"
    out = run_ok(m, "alloc 2")
    assert re.fullmatch(r"handle 1: pfn 0x[0-9a-f]+ order 2 \(16 KiB\) node 0 zone \w+ unmovable\n", out), out
    assert re.fullmatch(r"handle 1: freed pfn 0x[0-9a-f]+ order 2 \(16 KiB\)\n", m.run("free 1"))
    assert m.run("free 1") == "free: handle 1 was already freed\n"
    assert m.run("free 2") == "free: no handle 2: handles given so far are 1-1\n"
    assert m.run("free x") == "free: handle 'x' is not a number\n"
    assert m.run("fill 1 0x55") == "fill: handle 1 was already freed\n"
    assert m.run("fill 7 0x55") == "fill: no handle 7: handles given so far are 1-1\n"
    assert m.run("check 7") == "check: no handle 7: handles given so far are 1-1\n"
    assert "usage: fill" in m.run("fill 1")
    assert m.run("page 0x80000") == "page: pfn 0x80000: no memmap (section 16 is not present)\n"
    assert "0 live handles" in m.run("handles")
    assert snapshot(m) == before


def test_fill_and_check_patterns(machine):
    m = machine
    out = run_ok(m, "alloc 10 2 movable")
    out += run_ok(m, "alloc 3 3")
    out += run_ok(m, "alloc 0 2 movable")
    pfns = {int(h): int(p, 16) for h, p in re.findall(r"^handle (\d+): pfn 0x([0-9a-f]+)", out, re.M)}
    assert sorted(pfns) == [1, 2, 3, 4, 5, 6, 7], out
    for h in pfns:
        assert re.fullmatch(rf"handle {h}: filled \d+ KiB at pfn 0x{pfns[h]:x} with pattern 0x[0-9a-f]+\n",
                            run_ok(m, f"fill {h} {0x1111 * h:#x}"))
    run_ok(m, "fill 7 some-word")                 # a word is hashed into a pattern
    for h in pfns:
        assert m.run(f"check {h}") == f"handle {h}: ok\n"
    assert m.run("check all") == "ok: 7 handles checked (0 live handles never filled)\n"
    # every page of a block names its handle
    out = run_ok(m, f"page {pfns[1] + 1023:#x}")
    assert "owner:      handle 1 (index 1)" in out, out
    # a block moved by hand (as offlining will migrate it) keeps its data
    out = run_ok(m, "move 1")
    moved = re.fullmatch(rf"handle 1: moved from pfn 0x{pfns[1]:x} to pfn 0x([0-9a-f]+) \(node 0 zone \w+\)\n", out)
    assert moved, out
    assert m.run("check 1") == "handle 1: ok\n"
    assert "owner:      none" in run_ok(m, f"page {pfns[1]:#x}")
    new = int(moved.group(1), 16)
    assert "owner:      handle 1 (index 1)" in run_ok(m, f"page {new + 5:#x}")
    # freeing some leaves the others' data alone
    run_ok(m, "free 2")
    run_ok(m, "free 4")
    assert m.run("check all") == "ok: 5 handles checked (0 live handles never filled)\n"
    out = run_ok(m, "alloc 10 1 movable")     # likely handle 2's block again
    h = int(re.search(r"^handle (\d+):", out, re.M).group(1))
    assert m.run(f"check {h}") == f"check: handle {h} was never filled (fill it first)\n"
    assert m.run("check all") == "ok: 5 handles checked (1 live handles never filled)\n"
    run_ok(m, "free all")


def test_selftest_mm(machine):
    out = machine.run("selftest mm", timeout=120 * SCALE)
    assert "# Subtest: mm" in out, out
    assert not re.search(r"^\s*not ok", out, re.M), out
    assert re.search(r"^ok 1 mm$", out, re.M), out


def test_mechanism_designs_agree_after_hotplug(boot):
    """Old and new designs agree on the live kernel after hot-add and a
    hole punched into a zone (a block offlined in the middle): `selftest
    mech` compares walk vs counter and zone walk vs auto-movable cache."""
    m = boot(mem="2G,slots=4,maxmem=16G")
    q = m.qmp()
    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": "mm1", "size": 1 << 30})
    q.cmd("device_add", driver="pc-dimm", id="dm1", memdev="mm1")
    m.wait_for("8 blocks added", timeout=30)      # the add is done (it runs in the background)
    out = m.run("memory offline 36")
    assert "cannot" not in out, out
    out = m.run("contiguity")
    assert "designs agree" in out, out
    assert "Normal" in out, out
    out = m.run("selftest mech")
    assert "not ok" not in out, out
    assert "ok 1 mech" in out, out
    for design in ("old", "new"):
        m.run("mech contig_check " + design)
        out = m.run("memory online 36")
        assert "cannot" not in out, out
        out = m.run("contiguity")
        assert "designs agree" in out, out
        out = m.run("memory offline 36")
        assert "cannot" not in out, out

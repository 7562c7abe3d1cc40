"""Large machines: hundreds of GiB of boot RAM, backed by
reserve=off so the host commits only what the guest touches.  MemTotal's
base (the present pages of the boot log's "Memory:" line) matches the
System RAM of the firmware map, and every boot memory block has its sysfs
files (512 GiB's 4096 blocks take the file tree past its static chunks, so
it grows from the page allocator).  Under TCG with today's eager memmap init a 256 GiB boot takes about
15 s and a 512 GiB one about 30 s on an idle 2-core machine; the timeouts
below are generous for a loaded one."""

import re

import pytest

from memlab import SCALE


def big(size):
    return ["-object", f"memory-backend-ram,id=ram,size={size},reserve=off",
            "-machine", "memory-backend=ram"]


def check_big_boot(m):
    log = m.boot_log
    ram = 0
    for lo, hi in re.findall(r"^([0-9a-f]+)-([0-9a-f]+) : System RAM$",
                             m.run('grep "System RAM" /proc/iomem'), re.M):
        ram += int(hi, 16) - int(lo, 16) + 1
    present_kb = int(re.search(r"Memory: \d+K/(\d+)K available", log).group(1))
    assert present_kb * 1024 == ram, (present_kb, ram)
    blocks = int(re.search(r"memory: (\d+) boot memory blocks", log).group(1))
    # every block is listed, though its files are made only when looked at
    listed = m.run("ls /sys/devices/system/memory", timeout=120 * SCALE).split()
    assert len([n for n in listed if re.fullmatch(r"memory\d+", n)]) == blocks
    assert "have no files" not in m.output
    assert f"memory_sysfs: {blocks} memory blocks under" in m.output, m.output[-2000:]


@pytest.mark.slow
def test_boot_256g(boot):
    m = boot(mem="256G,slots=4,maxmem=1T", cpu="max,phys-bits=46", extra=big("256G"),
             timeout=300 * SCALE)
    check_big_boot(m)


@pytest.mark.slow
def test_boot_512g(boot):
    m = boot(mem="512G,slots=4,maxmem=1T", cpu="max,phys-bits=46", extra=big("512G"),
             timeout=600 * SCALE)
    check_big_boot(m)


def test_boot_4t_sizes_the_block_pool_from_the_map(boot):
    """4 TiB of boot RAM is 32768 memory blocks, four times the static pool
    of 8192: the pool is sized from the map at boot (boot RAM's end, or the
    SRAT hotplug range's for maxmem=8T, the higher), and every block is
    online, listed by lsmem and has its sysfs directory.  The memmap's
    background init is off, so the host touches only the early part of the
    64 GiB of struct pages."""
    m = boot(cmdline="deferred_init_background=0", mem="4T,slots=4,maxmem=8T",
             cpu="max,phys-bits=46", extra=big("4T"), timeout=300 * SCALE)
    pool = re.search(r"memory: a pool of (\d+) memory blocks \((\d+) GiB\) from the map",
                     m.boot_log)
    assert pool, m.boot_log
    # the SRAT hotplug range of maxmem=8T ends past 8 TiB: more slots than boot blocks
    assert int(pool.group(1)) > 32768 and int(pool.group(2)) >= 8192, pool.group(0)
    assert "no block for boot section" not in m.boot_log, m.boot_log
    lsmem = m.run("lsmem", timeout=120 * SCALE)
    assert "Total online memory:       4T\n" in lsmem, lsmem
    check_big_boot(m)
    # the view of the pool: `memory` counts the blocks against its size
    assert re.search(rf"blocks: 32768 of {pool.group(1)} \(32768 online",
                     m.run("memory", timeout=60 * SCALE)), "memory's block line"
    # the last block's files and its node link are there when looked at
    assert m.run("cat /sys/devices/system/memory/memory40943/state").strip() == "online"
    assert m.run("cat /sys/devices/system/node/node0/memory40943/phys_index").strip() == "00009fef"
    # the boot's own timeline: each step once, the last the prompt's "ready"
    steps = m.run("boottime").splitlines()
    assert steps[0].split()[:4] == ["at", "ms", "took", "ms"], steps
    for name in ("time_init", "mm: sections and their memmap mapped", "mm: memory blocks", "ready"):
        assert sum(line.endswith("  " + name) for line in steps) == 1, (name, steps)
    ready = int(re.search(r"boot: ready in (\d+) ms", m.boot_log).group(1))
    assert abs(float(steps[-1].split()[0]) - ready) <= 1, (steps[-1], ready)


def test_boot_5t_without_1g_pages_sizes_the_boot_tables_and_files(boot):
    """Without 1 GiB pages the direct map of 5 TiB needs a page directory per
    GiB, 5120 table pages, ten times the 2 MiB pool in .bss: paging_init()
    sizes the boot tables from the map and takes the rest from one run of
    RAM below 4 GiB, which memblock then reserves; RAM is all direct-mapped
    with 2 MiB pages.  Its 40960 memory blocks are all listed in sysfs
    (their files are made when looked at, so the file tree stays small;
    tests/host/test_vfs.c grows it past its static chunk table)."""
    m = boot(cmdline="deferred_init_background=0", mem="5T,slots=4,maxmem=8T",
             cpu="max,phys-bits=46,pdpe1gb=off", extra=big("5T"), timeout=300 * SCALE)
    area = re.search(r"paging: boot table area \[(0x[0-9a-f]+)-(0x[0-9a-f]+)\): "
                     r"(\d+) of (\d+) pages used \(without 1 GiB pages\)", m.boot_log)
    assert area, m.boot_log[:3000]
    lo, hi = int(area.group(1), 16), int(area.group(2), 16)
    used, pages = int(area.group(3)), int(area.group(4))
    assert hi <= 1 << 32 and hi - lo == pages * 4096 and 0 < used <= pages, area.group(0)
    # more than the pool: a PD per GiB of 5 TiB
    assert used + 512 >= 5120, area.group(0)
    assert f"memblock: reserved [{lo:#x}-{hi:#x}) boot page tables" in m.boot_log, m.boot_log
    pt = m.run("pagetables")
    assert "1 GiB pages:  no" in pt and " 0 x 1G" in pt, pt
    # ioremaps after paging_init() take table pages too: at least as many now
    now = re.search(rf"boot area: +(\d+) of {pages} pages used at {lo:#x}", pt)
    assert now and int(now.group(1)) >= used, pt
    check_big_boot(m)
    assert "vfs: node table full" not in m.output, m.output[-2000:]
    lsmem = m.run("lsmem", timeout=120 * SCALE)
    assert "Total online memory:       5T\n" in lsmem, lsmem

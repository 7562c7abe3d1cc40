"""The memmap of hot-added memory split over the CPUs (docs/smp.md, "The
memmap of hot-added memory on every CPU"; mm/memmap_cpus.c): a virtio-mem
plug under the eager design (deferred_init_hotplug=0) with -smp 2 under
multi-threaded TCG.  Each onlined block's memmap is cut into a chunk for
CPU 0 and one for CPU 1; /sys/kernel/mm/memlab/memmap_init_cpus counts
them.  The counts must add up to the plugged pages, MemTotal must grow by
the plug, and a `stress` run from both CPUs over the new memory must
find no pattern error and lose no page.  memory_hotplug.memmap_init_cpus=0
in the same boot gives CPU 0 every chunk of the next plug.  With -smp 1
nothing is split.  That the bytes are the serial init's is proved on the
host (tests/host/test_memmap_cpus.c); no test here measures time."""

import re

import pytest

import time

from test_virtio_mem import GiB, PAGE, SETTLE_MAX, memtotal_kb, resize, sh, vmem_args, vmem_device

pytestmark = pytest.mark.usefixtures("multi_thread_tcg")

STATS = "/sys/kernel/mm/memlab/memmap_init_cpus"
PARAM = "/sys/module/memory_hotplug/parameters/memmap_init_cpus"
BLOCK_PAGES = 32768


def stats(m):
    """{"ranges", "split", "pages": {cpu: struct pages}, "chunks": {cpu: n}, "text"}."""
    out = sh(m, f"cat {STATS}")
    r = re.search(r"^ranges: (\d+), split over more than one CPU: (\d+), (\d+) cycles on CPU 0 in all$", out, re.M)
    assert r, out
    rows = re.findall(r"^cpu (\d+): (\d+) chunks, (\d+) struct pages$", out, re.M)
    return {"ranges": int(r.group(1)), "split": int(r.group(2)), "text": out,
            "chunks": {int(c): int(n) for c, n, _ in rows},
            "pages": {int(c): int(p) for c, _, p in rows}}


def wait_size(m, base_kb, size):
    """Until MemTotal is base + size and QEMU's plugged size is size."""
    deadline = time.monotonic() + SETTLE_MAX
    while memtotal_kb(m) != base_kb + size // 1024 or vmem_device(m)["size"] != size:
        assert time.monotonic() < deadline, sh(m, "virtio-mem")
        time.sleep(0.2)


def test_smp_memmap_plug_split_over_two_cpus(boot):
    m = boot(mem="2G,maxmem=16G", cmdline="deferred_init_hotplug=0", settle=True,
             extra=["-smp", "2"] + vmem_args("4G"))
    assert sh(m, f"cat {PARAM}").strip() == "63"
    before = stats(m)
    base = memtotal_kb(m)
    resize(m, 1 * GiB)
    wait_size(m, base, 1 * GiB)
    s = stats(m)
    blocks = 1 * GiB // (BLOCK_PAGES * PAGE)
    assert s["ranges"] - before["ranges"] == blocks, s["text"]
    assert s["split"] - before["split"] == blocks, s["text"]
    assert s["chunks"].get(1, 0) >= blocks, s["text"]      # CPU 1 took a chunk of every block
    # every struct page of the plug written once, by one of the two CPUs
    got = sum(s["pages"].values()) - sum(before["pages"].values())
    assert got == blocks * BLOCK_PAGES, s["text"]
    assert "not started within the bound (CPU 0 did them): 0" in s["text"], s["text"]
    out = sh(m, "stress -n 1000 orders=0-3", timeout=600)
    assert "stress: pattern errors: 0, bad frees: 0" in out, out
    assert "equal, no page lost" in out, out
    # the same boot, CPU 0 alone: no split, CPU 0 writes every struct page
    resize(m, 0)
    wait_size(m, base, 0)
    sh(m, f"echo 0 > {PARAM}")
    assert sh(m, f"cat {PARAM}").strip() == "0"
    mid = stats(m)
    resize(m, 1 * GiB)
    wait_size(m, base, 1 * GiB)
    s = stats(m)
    assert s["split"] == mid["split"], s["text"]
    assert s["pages"][0] - mid["pages"].get(0, 0) == blocks * BLOCK_PAGES, s["text"]
    assert s["pages"].get(1, 0) == mid["pages"].get(1, 0), s["text"]


def test_smp_memmap_one_cpu_does_not_split(boot):
    m = boot(mem="2G,maxmem=16G", cmdline="deferred_init_hotplug=0", settle=True, extra=vmem_args("4G"))
    base = memtotal_kb(m)
    resize(m, 512 << 20)
    wait_size(m, base, 512 << 20)
    s = stats(m)
    assert s["split"] == 0 and s["ranges"] >= 4, s["text"]
    assert list(s["pages"]) == [0], s["text"]

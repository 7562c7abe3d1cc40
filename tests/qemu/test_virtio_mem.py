"""virtio-mem scenarios, driven by the QMP commands users type.

    -device pcie-root-port,id=port1,bus=pcie.0,slot=1
    -object memory-backend-ram,id=hotmem0,size=8G,share=on,reserve=off
    -device virtio-mem-pci,id=vmem1,memdev=hotmem0,bus=port1,requested-size=0
    (QMP) qom-set vmem1 requested-size N      -> plug / unplug

and, for a device added at run time,

    (QMP) object-add memory-backend-ram id=hotmem0 size=8G share=on reserve=off
    (QMP) device_add virtio-mem-pci id=vmem1 memdev=hotmem0 bus=port1

The guest side is read through the serial shell: /proc/meminfo, the
`virtio-mem` view, `lspci`, and the allocation handles (`alloc`, `fill`,
`check`).  QEMU's side through query-memory-devices (its `size` is the
plugged size the driver reached).

Sizes: a 2 GiB guest has all its RAM below 4 GiB, so the device region
starts at 4 GiB (memory block 32); the device block size is 2 MiB.
"""

import os
import re
import time

import pytest

from memlab import SCALE

MiB = 1 << 20
GiB = 1 << 30
PAGE = 4096
REGION = 4 * GiB                    # where the region of the first device starts
SETTLE_MAX = 30.0 * SCALE           # qom-set -> MemTotal, a few GiB under TCG

LOG_LINE = re.compile(r"^\[\s*\d+\.\d+\] .*\n?", re.M)


def vmem_args(size="8G", requested="0", port=True, dev=True):
    a = []
    if port:
        a += ["-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1"]
    if dev:
        a += ["-object", f"memory-backend-ram,id=hotmem0,size={size},share=on,reserve=off",
              "-device", f"virtio-mem-pci,id=vmem1,memdev=hotmem0,bus=port1,"
                         f"requested-size={requested}"]
    return a


def boot_vmem(boot, size="8G", maxmem="16G", **kw):
    return boot(mem=f"2G,maxmem={maxmem}", extra=vmem_args(size, **kw))


def sh(m, cmd, timeout=None):
    out = m.run(cmd) if timeout is None else m.run(cmd, timeout=timeout)
    return LOG_LINE.sub("", out)


def memtotal_kb(m):
    mt = re.search(r"^MemTotal:\s+(\d+) kB$", sh(m, "cat /proc/meminfo"), re.M)
    assert mt, "no MemTotal"
    return int(mt.group(1))


def vmem_device(m):
    devs = [d["data"] for d in m.qmp().cmd("query-memory-devices")
            if d["type"] == "virtio-mem"]
    assert len(devs) == 1, devs
    return devs[0]


def handles(m):
    """[(handle, pfn, order, zone)] from `handles`."""
    return [(int(h), int(pfn, 16), int(order), zone) for h, pfn, order, zone in
            re.findall(r"^\s*(\d+) 0x([0-9a-f]+)\s+(\d+)\s+\d+\s+\d+ (\S+)",
                       sh(m, "handles"), re.M)]


def resize(m, size):
    """qom-set requested-size (QMP wants an integer); returns the time."""
    m.qmp().cmd("qom-set", path="vmem1", property="requested-size", value=size)
    return time.monotonic()


def wait_size(m, base_kb, size, t0=None, timeout=SETTLE_MAX, requested=None):
    """Wait until MemTotal is base + size and QEMU's size is size (its
    requested-size is `requested`, default size); seconds.  MemTotal drops
    when a block is removed, QEMU's size when the block is given back,
    which for a block full of memmaps takes a few more units of the round
    (its pieces): the time is MemTotal's, QEMU's size is waited for too."""
    t0 = t0 or time.monotonic()
    deadline = t0 + timeout
    while True:
        total = memtotal_kb(m)
        if total == base_kb + size // 1024:
            break
        if time.monotonic() > deadline:
            pytest.fail(f"MemTotal {total} kB, want {base_kb} + {size // 1024} kB\n"
                        + sh(m, "virtio-mem"), pytrace=False)
        time.sleep(0.2)
    took = time.monotonic() - t0
    d = vmem_device(m)
    while d["size"] != size and time.monotonic() < deadline:
        time.sleep(0.1)
        d = vmem_device(m)
    want = size if requested is None else requested
    assert d["size"] == size and d["requested-size"] == want, d
    return took


def wait_until(m, done, view_cmd="virtio-mem"):
    """Poll done() until true (SETTLE_MAX), then let the log settle; on a
    timeout the failure shows `view_cmd`'s output."""
    deadline = time.monotonic() + SETTLE_MAX
    while not done():
        assert time.monotonic() < deadline, sh(m, view_cmd)
        time.sleep(0.2)
    m.quiesce(0.5)


def view(m):
    """The `virtio-mem` view as {field: value} plus the block lines."""
    out = sh(m, "virtio-mem")
    fields = dict(re.findall(r"^  (\w[\w ]*):\s+(.*)$", out, re.M))
    blocks = re.findall(r"^  memory(\d+)\s+(\S+)\s+(\S+)\s+(\d+)/(\d+) ([#.]+)$", out, re.M)
    return out, fields, blocks


# -- cold-plugged device -----------------------------------------------------

def test_probe_and_view(boot):
    m = boot_vmem(boot)
    assert re.search(r"1af4:1058 \(virtio-mem\).*driver virtio-mem", sh(m, "lspci")), \
        sh(m, "lspci")
    out, f, blocks = view(m)
    assert f["region"] == "[0x100000000-0x300000000) 8192 MiB", out
    assert f["block size"].startswith("2048 KiB"), out
    assert f["plugged"] == "0 MiB (device: 0 MiB)", out
    assert "UNPLUGGED_INACCESSIBLE" in f["features"], out   # share=on needs it
    assert f["status"] == "converged" and blocks == [], out


def test_cold_plugged_resize_sequence(boot):
    m = boot_vmem(boot)
    base = memtotal_kb(m)
    for size in (1 * GiB, 4 * GiB, 512 * MiB, 0):
        t0 = resize(m, size)
        took = wait_size(m, base, size, t0)
        print(f"requested-size {size // MiB} MiB: MemTotal after {took:.2f} s")
        out, f, blocks = view(m)
        assert f["plugged"] == f"{size // MiB} MiB (device: {size // MiB} MiB)", out
        assert f["status"] == "converged", out
        # whole memory blocks, all plugged, online in a kernel zone
        assert len(blocks) == size // (128 * MiB), out
        assert all(b[2] == "kernel" and b[3] == "64" for b in blocks), out
        # /proc/iomem as Linux's: the device region, and the plugged
        # blocks as one "System RAM (virtio_mem)" range nested in it
        iomem = sh(m, "cat /proc/iomem")
        region = f"{REGION:x}-{REGION + 8 * GiB - 1:x} : virtio0\n"
        ram = f"  {REGION:x}-{REGION + size - 1:x} : System RAM (virtio_mem)\n"
        assert region in iomem, iomem
        assert (region + ram in iomem) if size else "virtio_mem" not in iomem, iomem
    assert sh(m, "lsmem").count("online") >= 1


def unplug_requests(m):
    """The driver's UNPLUG requests so far (the view's `requests:` line)."""
    out, f, _ = view(m)
    r = re.match(r"plug (\d+), unplug (\d+),", f["requests"])
    assert r, out
    return int(r.group(2))


def test_whole_blocks_unplug_in_batches(boot):
    """6 GiB down to 1 GiB and to 0: the whole blocks go back in batches,
    one remove_memory line per batch whose block counts add up, fewer
    UNPLUG requests than blocks from the top (the first blocks, which hold
    the memmaps, go alone and in pieces), QEMU's size and MemTotal exact
    each time."""
    m = boot_vmem(boot)
    base = memtotal_kb(m)
    wait_size(m, base, 6 * GiB, resize(m, 6 * GiB))
    for size, blocks in ((1 * GiB, 40), (0, 8)):
        reqs, start = unplug_requests(m), len(m.output)
        wait_size(m, base, size, resize(m, size))
        m.quiesce(0.5)
        removed = [int(n) for n in re.findall(r"remove_memory: \[mem 0x[0-9a-f]+-0x[0-9a-f]+\]: "
                                              r"(\d+) blocks", m.output[start:])]
        assert sum(removed) == blocks, m.output[start:]
        sent = unplug_requests(m) - reqs
        # one request per batch, or several for a block full of memmaps
        # (given back in pieces); from the top, far fewer than blocks
        assert sent >= len(removed) and (size == 0 or sent < blocks), (sent, removed)
        out, f, view_blocks = view(m)
        assert f["plugged"] == f"{size // MiB} MiB (device: {size // MiB} MiB)", out
        assert f["status"] == "converged" and len(view_blocks) == size // (128 * MiB), out
    assert "virtio_mem" not in sh(m, "cat /proc/iomem")


def test_partial_block_and_state_request(boot):
    m = boot_vmem(boot)
    base = memtotal_kb(m)
    wait_size(m, base, 130 * MiB, resize(m, 130 * MiB))
    out, f, blocks = view(m)
    assert [b[2] for b in blocks] == ["kernel", "kernel-partial"], out
    assert blocks[1][3] == "1" and blocks[1][5] == "#" + "." * 63, out
    s = sh(m, f"virtio-mem state {REGION:#x} 128M")
    assert s.strip().endswith("plugged"), s
    s = sh(m, f"virtio-mem state {REGION + 128 * MiB:#x} 4M")
    assert s.strip().endswith("mixed"), s
    s = sh(m, f"virtio-mem state {REGION + 256 * MiB:#x} 2M")
    assert s.strip().endswith("unplugged"), s
    s = sh(m, f"virtio-mem state {REGION + 1:#x} 2M")
    assert "block aligned" in s, s
    # back to a whole block, then to nothing
    wait_size(m, base, 128 * MiB, resize(m, 128 * MiB))
    wait_size(m, base, 0, resize(m, 0))


def test_movable_allocations_survive_unplug(boot):
    m = boot_vmem(boot)
    base = memtotal_kb(m)
    wait_size(m, base, 1 * GiB, resize(m, 1 * GiB))
    out = sh(m, "alloc 10 24 movable quiet")
    assert "24 blocks of order 10" in out, out
    hs = handles(m)
    inside = [h for h in hs if REGION // PAGE <= h[1] < (REGION + GiB) // PAGE]
    assert inside, f"no allocation landed in plugged memory: {hs}"
    for h, _, _, _ in hs:
        assert "filled" in sh(m, f"fill {h} pat{h}")
    wait_size(m, base, 0, resize(m, 0))
    out = sh(m, "check all")
    assert out.startswith("ok: 24 handles checked"), out
    assert all(pfn < REGION // PAGE for _, pfn, _, _ in handles(m)), handles(m)
    sh(m, "free all")


def test_unmovable_allocation_stops_unplug(boot):
    m = boot_vmem(boot)
    base = memtotal_kb(m)
    wait_size(m, base, 256 * MiB, resize(m, 256 * MiB))
    # ZONE_NORMAL is the plugged memory only (2 GiB guest): kernel
    # allocations go there
    out = sh(m, "alloc 0 1 unmovable")
    mh = re.search(r"handle (\d+): pfn 0x([0-9a-f]+) .* zone Normal", out)
    assert mh and int(mh.group(2), 16) >= REGION // PAGE, out
    handle, pfn = int(mh.group(1)), int(mh.group(2), 16)

    resize(m, 0)
    wait_until(m, lambda: vmem_device(m)["size"] == 2 * MiB)
    # the device keeps the one sub-block that holds the page
    d = vmem_device(m)
    assert d["size"] == 2 * MiB and d["requested-size"] == 0, d
    assert memtotal_kb(m) == base + 2 * 1024
    out, f, blocks = view(m)
    assert f["status"].startswith("stopped short: "), out
    assert "in use" in f["status"] and f"{pfn:#x}" in f["status"], out
    assert len(blocks) == 1 and blocks[0][3] == "1", out
    sb = (pfn * PAGE - REGION) % (128 * MiB) // (2 * MiB)
    assert blocks[0][5].index("#") == sb, out

    # free it: the next retry (every 5 s, or `virtio-mem retry`) succeeds
    assert "freed" in sh(m, f"free {handle}")
    out = sh(m, "virtio-mem retry")
    assert "plugged 0 MiB, requested 0 MiB" in out, out
    wait_size(m, base, 0)
    assert view(m)[1]["status"] == "converged"


def test_requested_size_not_multiple_of_block_size(boot):
    m = boot_vmem(boot)
    base = memtotal_kb(m)
    wait_size(m, base, 128 * MiB, resize(m, 128 * MiB))
    with pytest.raises(Exception) as e:
        resize(m, 128 * MiB + 1 * MiB)
    assert "has to be multiples of 'block-size'" in str(e.value), str(e.value)
    with pytest.raises(Exception) as e:
        resize(m, 16 * GiB)
    assert "cannot exceed the memory backend size" in str(e.value), str(e.value)
    time.sleep(0.5)
    # nothing changed on either side
    assert vmem_device(m)["size"] == 128 * MiB
    assert memtotal_kb(m) == base + 128 * 1024
    assert view(m)[1]["status"] == "converged"


def test_nack_busy_error_replies_keep_accounting(boot):
    """Bad device replies (injected: QEMU never NACKs a correct driver):
    each one gives a message, plugs nothing, and the driver's accounting
    stays equal to the device's; once replies are normal again the resize
    completes exactly."""
    m = boot_vmem(boot)
    base = memtotal_kb(m)
    for reply in ("error", "nack", "busy"):
        out = sh(m, f"virtio-mem inject {reply} 1000")
        assert f"will be {reply.upper()}" in out, out
        resize(m, 1 * GiB)
        time.sleep(1.0)
        out, f, _ = view(m)
        assert reply.upper() in out, out               # the reason names the reply
        assert vmem_device(m)["size"] == 0, out         # the device plugged nothing
        assert memtotal_kb(m) == base, out              # nor did memlab
        sh(m, "virtio-mem inject off")
        sh(m, "virtio-mem retry")
        wait_size(m, base, 1 * GiB)                     # now it goes through
        resize(m, 0)
        wait_size(m, base, 0)
    out = sh(m, "virtio-mem inject maybe")
    assert "usage:" in out, out
    out = sh(m, "virtio-mem inject error 0")
    assert out.strip() == "virtio-mem inject: count 0 is out of range: 1-1000000", out


# 1 TiB needs 16 GiB of memmap, written by the guest and so backed by the
# host: only with MEMLAB_TIB_PLUG=1 (make test-big), not in make test
BIG_PLUGS = [32, 256, 512] + ([1024] if os.environ.get("MEMLAB_TIB_PLUG") == "1" else [])


@pytest.mark.slow
@pytest.mark.parametrize("gib", BIG_PLUGS)
def test_large_sparse_plug(boot, gib):
    """32, 256 and 512 GiB plugged into a 2 GiB guest (reserve=off: only the memmap and
    what the guest touches is backed on the host), then unplugged to 0.
    The kernel's own long-lived pages for the new memory (page tables of the
    direct map and vmemmap, section-table roots, and past about 2800 blocks
    the file tree's chunks for the memoryN directories) come from boot
    memory, and the memmaps, which come from plugged memory, move when the
    block under them goes; so nothing pins a plugged sub-block (at 512 GiB
    both used to: a memmap and a file-tree chunk); the times are printed."""
    # past 1 TiB of address space QEMU needs more than -cpu max's 40 physical bits
    m = boot(mem=f"2G,maxmem={gib + 18}G", cpu="max,phys-bits=46" if gib >= 1024 else "max",
             extra=vmem_args(f"{gib}G"))
    base = memtotal_kb(m)
    took = wait_size(m, base, gib * GiB, resize(m, gib * GiB), timeout=300 * SCALE)
    print(f"\n{gib} GiB plug: qom-set -> MemTotal {took:.2f} s")
    t0 = resize(m, 0)
    deadline = t0 + 300 * SCALE
    while True:
        out, f, _ = view(m)
        size = vmem_device(m)["size"]
        if size == 0 or f["status"].startswith("stopped short"):
            break
        assert time.monotonic() < deadline, out
        time.sleep(0.2)
    took = wait_size(m, base, size, t0, requested=0)
    print(f"{gib} GiB unplug: qom-set -> MemTotal {took:.2f} s, {size // MiB} MiB kept"
          + (f": {f['status']}" if size else ""))
    # Page tables and section roots for hot-added memory come from boot
    # memory (DMA32) first, so nothing of the kernel's pins plugged memory:
    # the unplug must reach 0.
    assert size == 0, out


# -- device added at run time ------------------------------------------------

def test_device_add_at_run_time(boot):
    m = boot(mem="2G,maxmem=16G", extra=vmem_args(dev=False))
    base = memtotal_kb(m)
    q = m.qmp()
    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": "hotmem0",
                           "size": 8 * GiB, "share": True, "reserve": False})
    q.cmd("device_add", driver="virtio-mem-pci", id="vmem1", memdev="hotmem0",
          bus="port1")
    deadline = time.monotonic() + 10 * SCALE
    while "1af4:1058" not in sh(m, "lspci"):
        if time.monotonic() > deadline:
            pytest.skip("lspci does not show the device 10 s after device_add: "
                        "ACPI PCI hotplug (GPE0 bit 1, rescan behind the root "
                        "port) is not in this kernel")
        time.sleep(0.5)
    assert re.search(r"1af4:1058 .*driver virtio-mem", sh(m, "lspci")), sh(m, "lspci")
    for size in (1 * GiB, 4 * GiB, 512 * MiB, 0):
        wait_size(m, base, size, resize(m, size))


def test_device_memory_is_never_unplugged(boot):
    """A plugged virtio-mem block, offlined by hand and
    turned into device memory, must not go back to the host when the
    requested size drops.  The driver asks mm before its UNPLUG request,
    skips the block (the view and the log say why), and a retry after
    `devmem destroy` gives it back.  Equally, `devmem create` refuses a
    block the device has not fully plugged."""
    m = boot_vmem(boot)
    base = memtotal_kb(m)
    blk = REGION // (128 * MiB) + 1                          # memory33
    addr = blk * 128 * MiB

    # memory33 with 1 of its 64 sub-blocks plugged: not device memory
    wait_size(m, base, 130 * MiB, resize(m, 130 * MiB))
    assert sh(m, f"echo offline > /sys/devices/system/memory/memory{blk}/state") == ""
    out = sh(m, f"devmem create {addr:#x} 128M 4k")
    assert "devmem0" not in out, out
    assert (f"devmem: block {blk}: memory{blk} is not fully plugged by "
            f"{vmem_name(m)} (1 of 64 sub-blocks)") in m.output

    # plugged whole (into the offline block), it may become device memory
    resize(m, 256 * MiB)
    wait_until(m, lambda: vmem_device(m)["size"] == 256 * MiB)
    out = sh(m, f"devmem create {addr:#x} 128M 4k")
    assert "devmem0: created" in out, out

    # requested 0: memory33 stays plugged under devmem0
    resize(m, 0)
    wait_until(m, lambda: vmem_device(m)["size"] <= 130 * MiB)
    assert (f"memory{blk} is in use as device memory devmem0 (devmem destroy it first): "
            "not unplugged") in m.output
    out, f, blocks = view(m)
    held = [b for b in blocks if int(b[0]) == blk]
    assert held and held[0][3] == "64", out
    assert vmem_device(m)["size"] >= 128 * MiB
    assert "device" in sh(m, f"page {addr >> 12:#x}").lower()

    # released, the next retry gives it back
    sh(m, "devmem destroy 0")
    sh(m, "virtio-mem retry")
    deadline = time.monotonic() + SETTLE_MAX
    while any(int(b[0]) == blk for b in view(m)[2]):
        assert time.monotonic() < deadline, sh(m, "virtio-mem")
        time.sleep(0.2)
    assert vmem_device(m)["size"] < 128 * MiB


def vmem_name(m):
    """The driver's name for the device, "virtio-mem 01:00.0"."""
    mt = re.search(r"^(virtio-mem \S+): node", sh(m, "virtio-mem"), re.M)
    assert mt, sh(m, "virtio-mem")
    return mt.group(1)


def test_memmap_of_a_dimm_moves_out_of_unplugged_memory(boot):
    """A DIMM added while plugged virtio-mem memory is the only Normal
    memory gets its memmap (2 MiB of struct pages) from that memory.  In
    Linux the sub-block holding it could not be given back; memlab
    migrates the memmap, so the unplug to 0 finishes, and the DIMM, whose
    struct pages now live elsewhere, still onlines, works and ejects."""
    m = boot(mem="2G,slots=2,maxmem=16G", extra=vmem_args())
    base = memtotal_kb(m)
    wait_size(m, base, 256 * MiB, resize(m, 256 * MiB))
    q = m.qmp()
    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": "mem-d1",
                           "size": 128 * MiB, "reserve": False})
    q.cmd("device_add", {"driver": "pc-dimm", "id": "d1", "memdev": "mem-d1"})
    deadline = time.monotonic() + SETTLE_MAX
    dimm = None
    while dimm is None:
        assert time.monotonic() < deadline, sh(m, "hotplug")
        devs = [d["data"] for d in q.cmd("query-memory-devices") if d["type"] == "dimm"]
        blk = devs[0]["addr"] // (128 * MiB) if devs else None
        if blk is not None and f"memory{blk}" in sh(m, "ls /sys/devices/system/memory"):
            dimm = blk
        time.sleep(0.2)
    m.quiesce(0.5)
    mt = re.search(rf"^{dimm}\s+.*present,memmap", sh(m, "sections"), re.M)
    assert mt, sh(m, "sections")

    moved0 = int(re.search(r"migrated \d+ pages, (\d+) memmaps", sh(m, "memory")).group(1))
    state = sh(m, f"cat /sys/devices/system/memory/memory{dimm}/state").strip()
    dimm_kb = 128 * 1024 if state == "online" else 0
    resize(m, 0)
    wait_size(m, base + dimm_kb, 0)
    out, f, blocks = view(m)
    assert f["status"] == "converged", out
    assert blocks == [], out
    moved = int(re.search(r"migrated \d+ pages, (\d+) memmaps", sh(m, "memory")).group(1))
    assert moved > moved0, sh(m, "memory")
    assert re.search(rf"^{dimm}\s+.*present,memmap", sh(m, "sections"), re.M)

    # the DIMM's memory, described by the moved memmap, is online (auto-
    # online, or now) and is used; then it ejects
    if state != "online":
        out = sh(m, f"memory online {dimm} online_kernel")
        assert f"memory{dimm}: online (zone Normal" in out, out
    sh(m, "alloc 9 16 movable quiet")
    for line in sh(m, "handles").splitlines():
        f = line.split()
        if len(f) >= 6 and f[0].isdigit() and f[1].startswith("0x"):
            assert "filled" in sh(m, f"fill {f[0]} {int(f[0]) * 7919}")
    assert "ok: 16 handles checked" in sh(m, "check all")
    sh(m, "free all")
    q.cmd("device_del", id="d1")
    wait_until(m, lambda: not [d for d in q.cmd("query-memory-devices") if d["type"] == "dimm"],
               "hotplug")
    q.cmd("object-del", id="mem-d1")
    assert memtotal_kb(m) == base


"""Persistent memory: QEMU's NVDIMM (-machine nvdimm=on, a 4 GiB RAM
backend with reserve=off) read from the NFIT, shown as a label-less region
with one raw namespace, Persistent Memory in /proc/iomem, devdax with 2 MiB
compound pages, rebound with each memmap init design, the live memmap
compared byte for byte with every design (the shared one in the shared
layout the comparison maps), destroyed; bad requests refused with nothing
changed; the DIMM as nmem0; and a label-less devdax namespace back after
system_reset from its info block (the RAM backend keeps its bytes).  No assertion depends on how fast the machine is: times are only
checked to be printed."""

import re

# The machine type is q35 in memlab.py's argv; QEMU merges a second
# -machine option into it, so nvdimm=on comes in through `extra`.
NVDIMM = ["-machine", "nvdimm=on",
          "-object", "memory-backend-ram,id=nv0,size=4G,reserve=off",
          "-device", "nvdimm,id=nvdimm0,memdev=nv0"]
MEM = "2G,slots=4,maxmem=40G"


def nd_state(m):
    """What a refused request must leave as it was."""
    return (m.run("cat /sys/bus/nd/devices/namespace0.0/mode"),
            m.run("cat /sys/bus/nd/devices/dax0.0/size"),
            m.run("cat /sys/bus/nd/devices/dax0.0/align"),
            m.run("devmem list"))


def test_pmem_region_devdax_rebind_destroy(boot):
    m = boot(mem=MEM, extra=NVDIMM)

    out = m.run("acpi nfit")
    assert "NFIT, 224 bytes" in out, out
    assert re.search(r"SPA range\s+1\n\s+memory device map\s+1\n", out), out
    assert re.search(r"control region\s+1\n", out), out
    assert "[mem 0x0000000100000000-0x00000001ffffffff] persistent memory" in out, out
    assert "NFIT" in m.run("acpi tables")

    out = m.run("cat /proc/iomem")
    assert "100000000-1ffffffff : Persistent Memory" in out, out

    assert m.run("ls /sys/bus/nd/devices").split() == ["dax0.0", "namespace0.0", "nmem0",
                                                        "region0"]
    assert m.run("cat /sys/bus/nd/devices/region0/size").strip() == "4294967296"
    # the DIMM: QEMU's handle 1, vendor 0x8086 and serial 0x123456 as Linux shows them
    assert m.run("cat /sys/bus/nd/devices/region0/mappings").strip() == "1"
    assert m.run("cat /sys/bus/nd/devices/region0/mapping0").strip() == "nmem0,0,4294967296,0"
    assert m.run("cat /sys/bus/nd/devices/nmem0/devtype").strip() == "nvdimm"
    assert m.run("cat /sys/bus/nd/devices/nmem0/nfit/handle").strip() == "0x1"
    assert m.run("cat /sys/bus/nd/devices/nmem0/nfit/serial").strip() == "0x56341200"
    assert m.run("cat /sys/bus/nd/devices/nmem0/nfit/id").strip() == "8680-56341200"
    assert m.run("cat /sys/bus/nd/devices/nmem0/nfit/format").strip() == "0x0301"
    out = m.run("nd list -D")
    assert re.search(r'"dev":"nmem0",\s+"id":"8680-56341200",\s+"handle":1,\s+"phys_id":0', out), out
    assert m.run("cat /sys/bus/nd/devices/region0/numa_node").strip() == "0"
    assert m.run("cat /sys/bus/nd/devices/namespace0.0/mode").strip() == "raw"
    assert m.run("cat /sys/bus/nd/devices/dax0.0/size").strip() == "0"
    out = m.run("nd list")
    assert '"dev":"namespace0.0"' in out and '"mode":"raw"' in out, out

    out = m.run("nd create-namespace --mode=devdax --align=2M", timeout=300)
    assert re.search(r"namespace0\.0: devdax, align 2048 KiB, dax0\.0 \(devmem(\d+)\): "
                     r"1048576 struct pages initialised \(new\) in \d+ cycles", out), out
    devmem = re.search(r"devmem(\d+)\)", out).group(1)
    assert m.run("cat /sys/bus/nd/devices/namespace0.0/mode").strip() == "dax"
    assert m.run("cat /sys/bus/nd/devices/namespace0.0/holder").strip() == "dax0.0"
    # the info block's 2 MiB (8 KiB rounded up to the align) are not the dax device's
    assert m.run("cat /sys/bus/nd/devices/dax0.0/size").strip() == str(4 * 2**30 - 2**21)
    assert m.run("cat /sys/bus/nd/devices/namespace0.0/size").strip() == "4294967296"
    assert m.run("cat /sys/bus/nd/devices/dax0.0/align").strip() == "2097152"
    assert "info block written at [mem 0x100001000, +4 KiB)" in m.output
    out = m.run("nd dax")
    assert '"chardev":"dax0.0"' in out and '"align":2097152' in out, out
    out = m.run("devmem list")
    assert re.search(r"1048576\s+2048 KiB new: .*dax0\.0", out), out

    for design in ("old", "head-template", "new", "template-nt"):
        out = m.run(f"nd rebind dax0.0 {design}", timeout=300)
        name = "new" if design == "new" else design
        assert re.search(rf"dax0\.0: rebind \({name}\): 1048576 struct pages in \d+ cycles", out), out

    # every design on the live memmap; shared in the shared layout mapped for it
    out = m.run(f"devmem compare {devmem}", timeout=900)
    assert ("old, head-template, new, template-nt and shared memmaps: identical "
            "(1048576 struct pages, 2048 pageblocks)") in out, out
    assert "shared        initialised 1048576 pages" in out, out
    assert '"vmemmap":"full"' in m.run("nd dax")

    # the range is the driver's: devmem leaves it alone
    out = m.run(f"devmem destroy {devmem}")
    assert "it is dax0.0's memory" in out, out

    out = m.run("nd destroy-namespace namespace0.0")
    assert "namespace0.0: raw" in out, out
    assert m.run("devmem list").strip() == "no device memory ranges"
    assert m.run("cat /sys/bus/nd/devices/namespace0.0/mode").strip() == "raw"
    assert "Persistent Memory" in m.run("cat /proc/iomem")

    # 4 KiB pages, and back
    out = m.run("nd create-namespace --align=4K", timeout=300)
    assert "align 4 KiB" in out, out
    devmem = re.search(r"devmem(\d+)\)", out).group(1)
    out = m.run(f"devmem compare {devmem}", timeout=600)
    assert "shared        not compared: 4 KiB pages have no compound to share" in out, out
    assert "old, head-template, new and template-nt memmaps: identical" in out, out
    assert "namespace0.0: raw" in m.run("nd destroy-namespace namespace0.0")
    assert m.alive()


def test_pmem_bad_requests_change_nothing(boot):
    m = boot(mem=MEM, extra=NVDIMM)

    before = nd_state(m)
    for cmd, why in [
            ("nd create-namespace --align=3M", "devdax aligns to 4K, 2M or 1G"),
            ("nd create-namespace --size=8589934592", "larger than the region"),
            ("nd create-namespace --size=1073741824", "label-less"),
            ("nd create-namespace -r region3", "no such region"),
            ("nd create-namespace --mode=fsdax", "memlab has raw and devdax"),
            ("nd rebind dax0.0", "is raw"),
            ("nd rebind dax0.0 shared", "is raw"),
            ("nd reconfigure dax0.0 system-ram", "is raw"),
            ("nd reconfigure dax0.0 fsdax", "system-ram or devdax"),
            ("nd reconfigure dax7.0 devdax", "no such dax device"),
            ("nd destroy-namespace namespace9.0", "no such region")]:
        out = m.run(cmd)
        assert why in out, (cmd, out)
        assert nd_state(m) == before, cmd

    out = m.run("nd create-namespace --align=2M", timeout=300)
    assert "devdax" in out, out
    during = nd_state(m)
    out = m.run("nd create-namespace --align=4K")
    assert "in use as dax0.0" in out and "nothing changed" in out, out
    assert nd_state(m) == during
    assert "namespace0.0: raw" in m.run("nd destroy-namespace namespace0.0")
    assert nd_state(m) == before


def test_pmem_without_nvdimm(boot):
    m = boot()
    assert m.run("acpi nfit").strip() == "no NFIT"
    assert m.run("nd list").strip() == "no persistent memory regions"
    assert m.run("nd dax").strip() == "no dax devices"


def meminfo(m, key):
    """A /proc/meminfo value in kB, the pcp lists drained first."""
    m.run("drain")
    return int(re.search(rf"^{key}:\s+(\d+) kB", m.run("cat /proc/meminfo"), re.M).group(1))


def test_pmem_shared_vmemmap(boot):
    """The shared-vmemmap design: a quarter of the memmap written, a
    quarter of the pages held, the live memmap still what the other
    designs write, and everything given back when the layout changes back
    or the namespace goes."""
    m = boot(mem=MEM, extra=NVDIMM)
    free0 = meminfo(m, "MemFree")
    out = m.run("nd create-namespace --mode=devdax --align=2M", timeout=300)
    devmem = re.search(r"devmem(\d+)\)", out).group(1)
    out = m.run("nd rebind dax0.0 old", timeout=300)
    assert "65536 KiB of memmap written" in out, out
    free_full = meminfo(m, "MemFree")
    assert free0 - free_full >= 64 * 1024, (free0, free_full)

    out = m.run("nd rebind dax0.0 shared", timeout=300)
    # 2048 compounds x 128 struct pages x 64 bytes
    assert re.search(r"dax0\.0: rebind \(shared\): 1048576 struct pages in \d+ cycles "
                     r"\(\d+ cycles/page\), 16384 KiB of memmap written", out), out
    free_shared = meminfo(m, "MemFree")
    # 32 sections: 2 MiB of struct pages each became 512 KiB (and a page table)
    assert free_shared - free_full >= 46 * 1024, (free_full, free_shared)
    out = m.run("nd dax")
    assert '"vmemmap":"shared"' in out and '"memmap_pages":4096' in out, out
    assert '"last_init":"shared"' in out, out

    out = m.run(f"devmem compare {devmem}", timeout=600)
    assert "identical (1048576 struct pages" in out, out

    out = m.run("nd rebind dax0.0 new", timeout=300)
    assert "65536 KiB of memmap written" in out, out
    assert meminfo(m, "MemFree") == free_full
    out = m.run("nd rebind dax0.0 shared", timeout=300)
    assert "16384 KiB" in out, out
    assert "namespace0.0: raw" in m.run("nd destroy-namespace namespace0.0")
    assert meminfo(m, "MemFree") == free0

    # 4 KiB pages have no compound to share
    m.run("nd create-namespace --align=4K", timeout=300)
    out = m.run("nd rebind dax0.0 shared")
    assert "needs compound pages" in out and "nothing changed" in out, out
    assert "namespace0.0: raw" in m.run("nd destroy-namespace namespace0.0")
    assert meminfo(m, "MemFree") == free0
    assert m.alive()


def test_pmem_kmem_online_offline(boot):
    """dax_kmem: dax0.0 reconfigured as system-ram is its whole memory blocks
    after the info block's 2 MiB (Linux's dax_kmem_range()): 31 of the 32,
    3968 MiB more MemTotal, in lsmem and /proc/iomem as Linux nests it;
    reconfigured back to
    devdax, MemTotal and MemFree are exactly what they were; while it is
    system-ram, rebind and destroy are refused with nothing changed."""
    m = boot(mem=MEM, extra=NVDIMM)
    m.run("echo online_movable > /sys/devices/system/memory/auto_online_blocks")
    out = m.run("nd create-namespace --mode=devdax --align=2M", timeout=300)
    assert "devdax" in out, out
    total0, free0 = meminfo(m, "MemTotal"), meminfo(m, "MemFree")

    out = m.run("nd reconfigure dax0.0 system-ram", timeout=300)
    assert re.search(r"dax0\.0: system-ram, memory group \d+ \(auto_online_blocks "
                     r"online_movable\)", out), out
    kmem_kb = 31 * 128 * 1024
    m.run("meminit finish", timeout=300)    # MemTotal counts them once their memmap is written
    assert meminfo(m, "MemTotal") == total0 + kmem_kb
    # the kmem blocks' memmaps (31 x 2 MiB) replace the dax device's (32 x 2 MiB)
    assert meminfo(m, "MemFree") == free0 + kmem_kb + 2048
    out = m.run("cat /proc/iomem")
    assert re.search(r"100000000-1ffffffff : Persistent Memory\n"
                     r"  108000000-1ffffffff : dax0\.0\n"
                     r"    108000000-1ffffffff : System RAM \(kmem\)\n", out), out
    out = m.run("lsmem")
    assert re.search(r"0x0000000108000000-0x00000001ffffffff\s+\S+\s+online\s+yes\s+33-63", out), out
    assert "memory32" not in m.run("ls /sys/devices/system/memory")
    assert m.run("cat /sys/devices/system/memory/memory33/state").strip() == "online"
    assert m.run("cat /sys/devices/system/memory/memory33/valid_zones").strip() == "Movable"
    assert '"mode":"system-ram"' in m.run("nd dax")

    before = (m.run("nd dax"), m.run("lsmem"), meminfo(m, "MemFree"))
    for cmd, why in [("nd rebind dax0.0 old", "system-ram (kmem)"),
                     ("nd destroy-namespace namespace0.0", "reconfigure dax0.0 devdax first"),
                     ("nd create-namespace --align=4K", "in use as dax0.0 (system-ram)"),
                     ("nd reconfigure dax0.0 system-ram", "system-ram already")]:
        out = m.run(cmd)
        assert why in out and "nothing changed" in out, (cmd, out)
        assert (m.run("nd dax"), m.run("lsmem"), meminfo(m, "MemFree")) == before, cmd

    out = m.run("nd reconfigure dax0.0 devdax", timeout=300)
    assert re.search(r"dax0\.0: devdax \(devmem\d+\)", out), out
    assert meminfo(m, "MemTotal") == total0
    assert meminfo(m, "MemFree") == free0
    assert "System RAM (kmem)" not in m.run("cat /proc/iomem")
    assert "0x0000000108000000" not in m.run("lsmem")
    assert "namespace0.0: raw" in m.run("nd destroy-namespace namespace0.0")
    assert m.alive()


def reset(m):
    """system_reset through QMP; memlab.py runs QEMU with -no-reboot, which
    set-action overrides for this machine.  The new boot's log."""
    m.qmp().cmd("set-action", reboot="reset")
    m.qmp().cmd("system_reset")
    return m.wait_boot()


def test_pmem_1g_align(boot):
    """1 GiB compound pages, each over 8 sections: every design, the live
    memmap compared, and the shared vmemmap writing 2048x fewer bytes.  The
    info block takes the first 1 GiB compound; after system_reset the
    label-less namespace is devdax again from it, align 1G."""
    m = boot(mem=MEM, extra=NVDIMM)
    free0 = meminfo(m, "MemFree")
    out = m.run("nd create-namespace --mode=devdax --align=1G", timeout=300)
    assert "align 1048576 KiB" in out, out
    devmem = re.search(r"devmem(\d+)\)", out).group(1)
    assert m.run("cat /sys/bus/nd/devices/dax0.0/align").strip() == "1073741824"
    assert m.run("cat /sys/bus/nd/devices/dax0.0/size").strip() == str(3 * 2**30)
    for design in ("old", "head-template", "new", "template-nt"):
        out = m.run(f"nd rebind dax0.0 {design}", timeout=300)
        assert re.search(rf"\({design}\): 1048576 struct pages .* 65536 KiB of memmap written",
                         out), out
    out = m.run(f"devmem compare {devmem}", timeout=600)
    assert "identical (1048576 struct pages" in out, out
    out = m.run("nd rebind dax0.0 shared", timeout=300)
    # 4 compounds x 128 struct pages x 64 bytes = 32 KiB, 2048x fewer than 64 MiB
    assert re.search(r"\(shared\): 1048576 struct pages .* 32 KiB of memmap written", out), out
    out = m.run("nd dax")
    assert '"memmap_pages":8' in out and '"memmap_table_pages":32' in out, out
    out = m.run(f"devmem compare {devmem}", timeout=600)
    assert ("old, head-template, new, template-nt and shared memmaps: identical "
            "(1048576 struct pages") in out, out
    assert "the full designs through the shared layout's aliases" in out, out

    log = reset(m)
    assert ("namespace0.0: info block: devdax, align 1048576 KiB, data offset 1048576 KiB: "
            "dax0.0 on devmem0") in log, log
    assert m.run("cat /sys/bus/nd/devices/namespace0.0/mode").strip() == "dax"
    assert m.run("cat /sys/bus/nd/devices/dax0.0/align").strip() == "1073741824"
    assert m.run("cat /sys/bus/nd/devices/dax0.0/size").strip() == str(3 * 2**30)
    out = m.run("nd rebind dax0.0 old", timeout=300)
    assert "(old): 1048576 struct pages" in out, out
    assert "namespace0.0: raw" in m.run("nd destroy-namespace namespace0.0")
    log = reset(m)
    assert "info block" not in log and "devmem0" not in log, log
    assert m.run("cat /sys/bus/nd/devices/namespace0.0/mode").strip() == "raw"
    assert m.alive()

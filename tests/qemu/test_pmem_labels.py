"""NVDIMM namespace labels and info blocks: QEMU's NVDIMM with
label-size=128K over a shared file backend (so the test reads what the
guest wrote), its label area reached through the DIMM's _DSM run by
memlab's AML interpreter.  An uninitialised area gives a region without a
namespace; create-namespace with a size makes one namespace after another,
each with its own label, devdax ones with an info block 4 KiB into them;
overlapping, oversized and misaligned requests are refused with nothing
changed; after system_reset (QEMU keeps the label area, the end of the
backend, and the namespaces' bytes) each namespace comes back from its
label, the devdax ones devdax again from their info blocks with the same
align; they are reconfigured and destroyed one at a time; a refused info
block and bad label data written into the area from outside are refused
at boot, with nothing overwritten until asked."""

import re

MEM = "2G,slots=4,maxmem=40G"
GIB, MIB = 2**30, 2**20
AREA = 4 * GIB - 128 * 2**10            # the label area: the backend's last 128 KiB


def nvdimm(backing):
    with open(backing, "wb") as f:
        f.truncate(4 * GIB)
    return ["-machine", "nvdimm=on",
            "-object", f"memory-backend-file,id=nv0,size=4G,share=on,mem-path={backing}",
            "-device", "nvdimm,id=nvdimm0,memdev=nv0,label-size=128K"]


def reset(m):
    """system_reset through QMP; memlab.py runs QEMU with -no-reboot, which
    set-action overrides for this machine."""
    m.qmp().cmd("set-action", reboot="reset")
    m.qmp().cmd("system_reset")
    return m.wait_boot()


def media(backing, offset, n=16):
    with open(backing, "rb") as f:
        f.seek(offset)
        return f.read(n)


def nd_state(m):
    """What a refused request must leave as it was."""
    return (m.run("nd list"), m.run("ls /sys/bus/nd/devices"), m.run("devmem list"),
            m.run("cat /sys/bus/nd/devices/nmem0/available_slots"))


def test_pmem_labels_namespaces_info_blocks_reboot(boot, tmp_path):
    backing = tmp_path / "nv0.img"
    m = boot(mem=MEM, extra=nvdimm(backing))
    log = m.boot_log
    assert "has a label area of 131072 bytes" in log, log
    assert "not initialised: no namespace until one is created" in log, log
    region = int(m.run("cat /sys/bus/nd/devices/region0/size"))
    out = m.run("nd list")
    assert '"label_state":"uninitialised"' in out and '"namespaces":[]' in out, out
    assert f'"available_size":{region}' in out, out
    assert m.run("cat /sys/bus/nd/devices/region0/label_state").strip() == "uninitialised"
    assert m.run("ls /sys/bus/nd/devices").split() == ["nmem0", "region0"]
    assert m.run("cat /sys/bus/nd/devices/region0/mapping0").strip() == f"nmem0,0,{region},0"
    assert m.run("cat /sys/bus/nd/devices/nmem0/commands").strip() == \
        "get_config_size get_config_data set_config_data"

    # three namespaces: devdax 1 GiB, raw 512 MiB after it, devdax 4K at 3 GiB
    out = m.run("nd create-namespace --mode=devdax --align=2M -s 1G", timeout=300)
    assert "namespace0.0: devdax, align 2048 KiB" in out, out
    out = m.run("nd create-namespace --mode=raw -s 512M")
    assert re.search(r"namespace0\.1: raw, 536870912 bytes at offset 0x40000000, uuid", out), out
    out = m.run("nd create-namespace --mode=devdax --align=4K --size=256M --offset=3G",
                timeout=300)
    assert "namespace0.2: devdax, align 4 KiB, dax0.2" in out, out
    uuids = [m.run(f"cat /sys/bus/nd/devices/namespace0.{k}/uuid").strip() for k in range(3)]
    for u in uuids:
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
                            u), u
    assert len(set(uuids)) == 3
    assert m.run("ls /sys/bus/nd/devices").split() == [
        "dax0.0", "dax0.1", "dax0.2", "namespace0.0", "namespace0.1", "namespace0.2", "nmem0",
        "region0"]
    out = m.run("nd list")
    assert f'"available_size":{region - (1024 + 512 + 256) * MIB}' in out, out
    assert m.run("cat /sys/bus/nd/devices/dax0.0/size").strip() == str(GIB - 2 * MIB)
    assert m.run("cat /sys/bus/nd/devices/dax0.2/size").strip() == str(256 * MIB - 8192)
    # the info blocks, 4 KiB into each devdax namespace, in the backend
    assert media(backing, 4096) == b"DAXSIGNATURE\0\0\0\0"
    assert media(backing, 3 * GIB + 4096) == b"DAXSIGNATURE\0\0\0\0"
    assert media(backing, GIB + 4096) == bytes(16)         # raw: none
    assert media(backing, 0) == bytes(16)                  # the first 4 KiB left alone
    assert int.from_bytes(media(backing, 4096 + 84, 4), "little") == 2 * MIB     # align
    assert int.from_bytes(media(backing, 4096 + 56, 8), "little") == 2 * MIB     # dataoff
    slots = int(m.run("cat /sys/bus/nd/devices/nmem0/available_slots"))

    # bad requests: refused with the reason, nothing changed
    before = nd_state(m)
    for cmd, why in [
            ("nd create-namespace --mode=raw -s 128M --offset=1G", "overlaps namespace0.1"),
            ("nd create-namespace --mode=raw -s 1G --offset=2560M", "overlaps namespace0.2"),
            ("nd create-namespace --mode=raw -s 4G", "larger than the region"),
            ("nd create-namespace --mode=raw -s 2G", "no free extent of 2147483648 bytes"),
            ("nd create-namespace --mode=raw -s 100M", "whole 128 MiB units"),
            ("nd create-namespace --mode=raw -s 128M --offset=100M", "not a multiple of 128 MiB"),
            ("nd create-namespace --mode=devdax --align=1G -s 128M", "whole 1024 MiB units"),
            ("nd create-namespace --mode=raw -s 128M --offset=4G", "runs past"),
            ("nd create-namespace -e namespace0.0 --align=4K", "in use as dax0.0"),
            ("nd create-namespace -e namespace0.1 -s 128M", "not 134217728"),
            ("nd create-namespace -e namespace0.5", "no such namespace"),
            ("nd destroy-namespace namespace0.4", "no such namespace")]:
        out = m.run(cmd)
        assert why in out and "nothing changed" in out, (cmd, out)
        assert nd_state(m) == before, cmd
    assert int(m.run("cat /sys/bus/nd/devices/nmem0/available_slots")) == slots

    log = reset(m)
    for k in range(3):
        assert f"namespace0.{k} from its label: uuid {uuids[k]}" in log, log
    assert ("namespace0.0: info block: devdax, align 2048 KiB, data offset 2048 KiB: dax0.0 on "
            "devmem0") in log, log
    assert ("namespace0.2: info block: devdax, align 4 KiB, data offset 8 KiB: dax0.2 on "
            "devmem1") in log, log
    assert [m.run(f"cat /sys/bus/nd/devices/namespace0.{k}/uuid").strip()
            for k in range(3)] == uuids
    assert [m.run(f"cat /sys/bus/nd/devices/namespace0.{k}/mode").strip()
            for k in range(3)] == ["dax", "raw", "dax"]
    assert m.run("cat /sys/bus/nd/devices/dax0.0/align").strip() == "2097152"
    assert m.run("cat /sys/bus/nd/devices/dax0.2/align").strip() == "4096"
    assert m.run("cat /sys/bus/nd/devices/dax0.0/size").strip() == str(GIB - 2 * MIB)
    out = m.run("nd dax")
    assert '"chardev":"dax0.0"' in out and '"chardev":"dax0.2"' in out, out
    out = m.run("nd rebind dax0.0 shared", timeout=300)
    assert "dax0.0: rebind (shared): 262144 struct pages" in out, out

    # one at a time: namespace0.1 reconfigured, then destroyed with its label
    out = m.run("nd create-namespace -e namespace0.1 --mode=devdax --align=2M", timeout=300)
    assert "namespace0.1: devdax, align 2048 KiB, dax0.1" in out, out
    assert media(backing, GIB + 4096) == b"DAXSIGNATURE\0\0\0\0"
    out = m.run("nd destroy-namespace namespace0.1")
    assert "namespace0.1: label deleted; region0 has 2 namespaces left" in out, out
    assert media(backing, GIB + 4096) == bytes(16)         # cleared
    assert m.run("ls /sys/bus/nd/devices").split() == [
        "dax0.0", "dax0.2", "namespace0.0", "namespace0.2", "nmem0", "region0"]
    assert m.run("cat /sys/bus/nd/devices/namespace0.0/mode").strip() == "dax"
    out = m.run("nd destroy-namespace namespace0.0")
    assert "namespace0.0: label deleted; region0 has 1 namespace left" in out, out
    assert media(backing, 4096) == bytes(16)
    out = m.run("nd destroy-namespace namespace0.2")
    assert "label deleted; region0 has no namespace" in out, out
    out = m.run("nd list")
    assert '"label_state":"valid"' in out and '"namespaces":[]' in out, out
    assert m.run("devmem list").strip() == "no device memory ranges"

    log = reset(m)
    assert "label area valid, no label: no namespace" in log, log
    assert "info block" not in log, log
    out = m.run("nd destroy-namespace namespace0.0")
    assert "has no namespace" in out, out


def test_pmem_labels_bad_data_refused(boot, tmp_path):
    """Rewritten from outside: an info block's byte, then a label's slot
    field.  The next boot refuses each with the reason and leaves it as it
    is; create-namespace -e --mode=raw clears the refused info block."""
    backing = tmp_path / "nv0.img"
    m = boot(mem=MEM, extra=nvdimm(backing))
    out = m.run("nd create-namespace --mode=devdax --align=2M", timeout=300)
    assert "namespace0.0: devdax" in out, out
    with open(backing, "r+b") as f:
        f.seek(4096 + 300)                  # inside the info block: its checksum breaks
        f.write(b"\1")
    log = reset(m)
    assert "namespace0.0: info block: bad checksum" in log and "raw (the block is left" in log, log
    out = m.run("nd list")
    assert '"mode":"raw"' in out and '"info_problem":"info block: bad checksum' in out, out
    assert media(backing, 4096) == b"DAXSIGNATURE\0\0\0\0"
    out = m.run("nd create-namespace -e namespace0.0 --mode=raw")
    assert "namespace0.0: raw" in out, out
    assert media(backing, 4096) == bytes(16)
    assert "info_problem" not in m.run("nd list")

    with open(backing, "r+b") as f:
        f.seek(AREA + 512 + 120)            # slot 0's label, its slot field
        assert f.read(4) == b"\0\0\0\0"
        f.seek(AREA + 512 + 120)
        f.write((7).to_bytes(4, "little"))
    log = reset(m)
    assert "label area refused: label in slot 0 says slot 7; no namespace" in log, log
    out = m.run("nd list")
    assert '"label_state":"invalid"' in out and '"namespaces":[]' in out, out
    assert "says slot 7" in out, out
    out = m.run("nd create-namespace --mode=devdax --align=2M")
    assert "holds bad data" in out and "nothing changed" in out, out
    assert media(backing, AREA + 512 + 120, 4) == (7).to_bytes(4, "little")   # not overwritten

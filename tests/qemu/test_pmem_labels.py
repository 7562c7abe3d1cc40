"""NVDIMM namespace labels: QEMU's NVDIMM with label-size=128K, its label
area reached through the DIMM's _DSM run by memlab's AML interpreter.  An
uninitialised area gives a region without a namespace; create-namespace
writes the index blocks and a label; after system_reset (QEMU keeps the
label area, the end of the RAM backend) the namespace comes back from its
label with the same UUID and size; destroy-namespace deletes the label;
bad label data written into the area is refused at boot, with no
namespace and nothing overwritten."""

import re

NVDIMM = ["-machine", "nvdimm=on",
          "-object", "memory-backend-ram,id=nv0,size=4G,reserve=off",
          "-device", "nvdimm,id=nvdimm0,memdev=nv0,label-size=128K"]
MEM = "2G,slots=4,maxmem=40G"
REGION = 4 * 2**30 - 2 * 2**20          # QEMU: the backend less its label area, 2 MiB aligned
NS_SIZE = 31 * 128 * 2**20              # whole 128 MiB sections of it


def reset(m):
    """system_reset through QMP; memlab.py runs QEMU with -no-reboot, which
    set-action overrides for this machine."""
    m.qmp().cmd("set-action", reboot="reset")
    m.qmp().cmd("system_reset")
    return m.wait_boot()


def test_pmem_labels_create_reboot_destroy(boot):
    m = boot(mem=MEM, extra=NVDIMM)
    log = m.boot_log
    assert "has a label area of 131072 bytes" in log, log
    assert "not initialised: no namespace until one is created" in log, log
    out = m.run("nd list")
    assert '"label_state":"uninitialised"' in out and '"namespaces":[]' in out, out
    assert f'"available_size":{REGION}' in out, out
    assert m.run("cat /sys/bus/nd/devices/region0/label_state").strip() == "uninitialised"

    out = m.run("nd create-namespace --mode=devdax --align=2M", timeout=300)
    assert "namespace0.0: devdax, align 2048 KiB" in out, out
    uuid = m.run("cat /sys/bus/nd/devices/namespace0.0/uuid").strip()
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
                        uuid), uuid
    out = m.run("nd list")
    assert '"label_state":"valid"' in out and f'"uuid":"{uuid}"' in out, out
    assert f'"size":{NS_SIZE}' in out, out

    log = reset(m)
    assert f"namespace0.0 from its label: uuid {uuid}, {NS_SIZE} bytes, raw" in log, log
    assert m.run("cat /sys/bus/nd/devices/namespace0.0/uuid").strip() == uuid
    out = m.run("nd list")
    assert '"mode":"raw"' in out and f'"uuid":"{uuid}"' in out, out

    # devdax on the namespace the label gave, then destroyed with its label
    out = m.run("nd create-namespace --mode=devdax --align=2M", timeout=300)
    assert "namespace0.0: devdax" in out, out
    assert m.run("cat /sys/bus/nd/devices/namespace0.0/uuid").strip() == uuid
    out = m.run("nd destroy-namespace namespace0.0")
    assert "label deleted; region0 has no namespace" in out, out
    out = m.run("nd list")
    assert '"label_state":"valid"' in out and '"namespaces":[]' in out, out

    log = reset(m)
    assert "label area valid, no label: no namespace" in log, log
    out = m.run("nd destroy-namespace namespace0.0")
    assert "has no namespace" in out, out


def test_pmem_labels_bad_data_refused(boot, tmp_path):
    """The label area is the last 128 KiB of the backend: with a shared
    file backend the test rewrites a label's slot field from outside, and
    the next boot refuses the area."""
    backing = tmp_path / "nv0.img"
    with open(backing, "wb") as f:
        f.truncate(4 * 2**30)
    extra = ["-machine", "nvdimm=on",
             "-object", f"memory-backend-file,id=nv0,size=4G,share=on,mem-path={backing}",
             "-device", "nvdimm,id=nvdimm0,memdev=nv0,label-size=128K"]
    m = boot(mem=MEM, extra=extra)
    out = m.run("nd create-namespace --mode=devdax --align=2M", timeout=300)
    assert "namespace0.0: devdax" in out, out
    area = 4 * 2**30 - 128 * 2**10
    with open(backing, "r+b") as f:
        f.seek(area + 512 + 120)          # slot 0's label, its slot field
        assert f.read(4) == b"\0\0\0\0"
        f.seek(area + 512 + 120)
        f.write((7).to_bytes(4, "little"))
    log = reset(m)
    assert "label area refused: label in slot 0 says slot 7; no namespace" in log, log
    out = m.run("nd list")
    assert '"label_state":"invalid"' in out and '"namespaces":[]' in out, out
    assert "says slot 7" in out, out
    out = m.run("nd create-namespace --mode=devdax --align=2M")
    assert "holds bad data" in out and "nothing changed" in out, out
    with open(backing, "rb") as f:
        f.seek(area + 512 + 120)
        assert f.read(4) == (7).to_bytes(4, "little")    # not overwritten

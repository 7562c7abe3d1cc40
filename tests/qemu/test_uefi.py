"""UEFI as a first-class way to run.  The hybrid ISO boots to the
prompt under OVMF and under SeaBIOS, from the CD and from the image
attached raw as a USB stick (qemu-xhci + usb-storage); under OVMF the
kernel reads the EFI memory map (tag 17, no "Unknown E820 type"), the ACPI
2.0+ RSDP (tag 15) and the XSDT, and keeps the EFI system table pointer;
the RAM totals of a BIOS and a UEFI boot agree.

RAM slack: OVMF keeps its runtime services, its variable store and its
own reserved and NVS areas in RAM below 4 GiB (about 6 MiB on a 2 GiB
q35); SeaBIOS keeps a few hundred KiB.  The two totals must agree within
UEFI_RAM_SLACK.
"""

import re

import pytest

import memlab

MiB = 1 << 20
UEFI_RAM_SLACK = 32 * MiB

RAM_LINE = re.compile(r"^System RAM: (\d+) KiB in \d+ ranges", re.M)

# RAM totals seen by each boot, for the comparison at the end.  Under
# pytest-xdist (make test, --dist loadgroup) the module's tests share one
# worker, so the comparison sees the boots above; run alone (-k) it boots
# what it lacks itself.
_ram = {}

pytestmark = pytest.mark.xdist_group("uefi")


@pytest.fixture(scope="module")
def iso(make_iso):
    return make_iso("")


def boot_and_check(iso, name, firmware, media):
    m = memlab.Machine(iso, name=name, firmware=firmware, media=media)
    try:
        m.start()
        m.wait_boot()
        log = m.boot_log
        assert "Unknown E820 type" not in log
        assert "memlab" in m.run("version")
        out = m.run("memmap")
        assert "Unknown E820 type" not in out
        ram = RAM_LINE.search(out)
        assert ram, out
        _ram[(firmware, media)] = int(ram.group(1)) << 10
        return log, out
    finally:
        m.kill()


@pytest.mark.parametrize("media", ["cdrom", "usb"])
def test_uefi_boots(iso, media, request):
    log, out = boot_and_check(iso, request.node.name, "uefi", media)
    # ACPI 2.0+: the RSDP from tag 15, the XSDT used.
    assert re.search(r"acpi: RSDP rev 2 \(multiboot2 tag 15\), XSDT at 0x", log), log
    assert "ACPI RSDP: from tag 15 (ACPI 2.0+, XSDT)" in out
    # The EFI memory map and the system table, shown by `memmap`.
    assert re.search(r"^memory map: the EFI memory map \(tag 17\), \d+ descriptors$",
                     out, re.M), out
    assert re.search(r"^EFI system table: 0x[0-9a-f]+ \(tag 12, 64-bit\)$", out, re.M), out
    assert "EFI boot services were not exited" not in out


@pytest.mark.parametrize("media", ["cdrom", "usb"])
def test_bios_boots(iso, media, request):
    log, out = boot_and_check(iso, request.node.name, "bios", media)
    assert "ACPI RSDP: from tag 14 (ACPI 1.0, RSDT)" in out
    assert "EFI system table" not in out
    assert "tag 17" not in out


def test_bios_and_uefi_agree_on_ram(iso, request):
    for firmware in ("bios", "uefi"):
        if not any(fw == firmware for fw, _ in _ram):
            boot_and_check(iso, f"{request.node.name}-{firmware}", firmware, "cdrom")
    have = {k: v for k, v in _ram.items()}
    bios = [v for (fw, _), v in have.items() if fw == "bios"]
    uefi = [v for (fw, _), v in have.items() if fw == "uefi"]
    if not bios or not uefi:
        pytest.fail(f"the boots above did not all run: {sorted(have)}", pytrace=False)
    for b in bios:
        for u in uefi:
            assert abs(b - u) <= UEFI_RAM_SLACK, \
                f"BIOS {b >> 10} KiB vs UEFI {u >> 10} KiB of System RAM"
    # both see most of the 2 GiB the machine has
    for v in bios + uefi:
        assert v > 2048 * MiB - 64 * MiB

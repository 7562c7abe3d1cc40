#!/usr/bin/env python3
"""make_acpi_seeds.py - write tests/fuzz/seeds/fuzz_acpi/: Icelake-class
topologies in fuzz_acpi's record mode (mode 3 of tests/fuzz/fuzz_acpi.c),
and NFITs in its built mode (mode 2): QEMU 7.2's for one 4 GiB NVDIMM and
hostile variants of it.

    python3 tests/fuzz/seeds/make_acpi_seeds.py

An input is an 8-byte header (all zero here: an SRAT of revision 3, no
SLIT, no FADT) and 12-byte records; record byte 0 picks the entry kind
(the table in fuzz_acpi.c's "Mode 3" comment) and the other bytes are
its fields.  Each seed is a two-socket machine: MADT local APIC (type 0)
and local x2APIC (type 9) entries with NMI entries (types 4 and 10), and
SRAT processor (type 0), x2APIC (type 2) and memory affinity, well formed
or spoiled as its name says.  Standard library only.
"""
import os
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_acpi")


def rec(kind, r1=0, body=b""):
    b = bytes([kind, r1]) + body
    return b + bytes(12 - len(b))


def ioapic():                       # MADT kind 9: id 0 at 0xfec00000, GSI 0
    return rec(9, 0, bytes([0, 0]) + struct.pack("<II", 0xfec00000, 0))


def lapic(uid, apic_id, flags=1):  # MADT kind 8: type 0
    return rec(8, 0, bytes([uid, apic_id]) + struct.pack("<I", flags))


def madt_type(t, body, length=None):
    """MADT kind 12: an entry of type t (16 bytes), or with bit 7 a lying
    length (which then is r[1], the type byte too)."""
    if length is None:
        return rec(12, t, body)
    return rec(12 | 0x80, length, body)


def x2apic(apic_id, flags=1):      # type 9: reserved, id, flags (UID 0)
    return madt_type(9, bytes(2) + struct.pack("<II", apic_id, flags))


def x2apic_nmi():                   # type 10: flags, UID all, LINT1
    return madt_type(10, struct.pack("<HI", 5, 0xffffffff) + bytes([1]))


def lapic_nmi():                    # type 4: UID 0xff, flags, LINT1
    return madt_type(4, bytes([0xff]) + struct.pack("<H", 5) + bytes([1]))


def srat_mem(pxm, base_mib, size_mib):  # SRAT kind 0: memory, enabled
    return rec(0, 0, bytes([pxm, 1]) + struct.pack("<II", base_mib, size_mib))


def srat_cpu(pxm, apic_id, flags=1):    # SRAT kind 4: type 0, 16 bytes
    return rec(4, 0, bytes([pxm, flags, apic_id]) + bytes(3) + bytes(4))


def srat_x2apic(pxm, apic_id, flags=1):  # SRAT kind 5: type 2, 24 bytes
    return rec(5, 0, bytes([pxm, flags]) + bytes(4) + struct.pack("<I", apic_id))


def machine(*extra):
    recs = [ioapic(), lapic(0, 0), lapic(1, 1), x2apic(256), x2apic(257),
            lapic_nmi(), x2apic_nmi(),
            srat_cpu(0, 0), srat_cpu(0, 1), srat_x2apic(1, 256), srat_x2apic(1, 257),
            srat_mem(0, 0, 1024), srat_mem(1, 1024, 1024)]
    return bytes(8) + b"".join(recs + list(extra))


# QEMU 7.2's NFIT for -machine nvdimm=on with one 4 GiB nvdimm (captured
# from the guest with QMP `xp` at the address `acpi tables` gives), after
# its 36-byte header: 4 reserved bytes, a SPA range (persistent memory,
# [4 GiB, 8 GiB)), a memory device map, a control region.
QEMU_NFIT_BODY = bytes.fromhex(
    "00000000000038000200030000000000"
    "0000000079d3f066f3b47440ac430d33"
    "18b78cdb000000000100000000000000"
    "01000000088000000000000001003000"
    "01000000000000000200030000000000"
    "01000000000000000000000000000000"
    "00000000000001000000000004005000"
    "03008680010001000000000000000000"
    "00000000563412000103000000000000"
    "00000000000000000000000000000000"
    "00000000000000000000000000000000"
    "000000000000000000000000")
NFIT_KIND = 12      # index of "NFIT" in fuzz_acpi.c's kinds[]


def built_nfit(body):
    """Mode 2: flags 0 (an RSDT), one chunk: an NFIT with this body."""
    return bytes(3) + bytes([NFIT_KIND, 0]) + struct.pack("<H", len(body)) + body


def spa(index, base, size):         # a persistent-memory SPA range, 56 bytes
    return (struct.pack("<HHHHIIQ", 0, 56, index, 2, 0, 0, 0)[:16]
            + QEMU_NFIT_BODY[20:36] + struct.pack("<QQQ", base, size, 0x8008))


SEEDS = {
    "icelake_two_sockets_x2apic": machine(),
    # ids listed twice, broadcast ids, disabled entries, a CPU whose domain
    # has no memory and one with no affinity entry at all
    "x2apic_duplicates_and_orphans": machine(
        x2apic(1), lapic(9, 0xff), x2apic(0xffffffff), lapic(4, 3), x2apic(300),
        lapic(6, 4, flags=0), srat_cpu(1, 1), srat_cpu(0, 2, flags=0),
        srat_x2apic(5, 300)),
    # a type 9 MADT entry of 9 bytes: the MADT is malformed, ignored whole
    "madt_short_x2apic": machine(madt_type(9, bytes(10), length=9)),
    # an SRAT processor entry with a lying length of 12
    "srat_short_processor": machine(rec(4 | 0x80, 12, bytes([0, 1, 2]))),
    "nfit_qemu_one_dimm": built_nfit(QEMU_NFIT_BODY),
    # a second range over the first one's second GiB
    "nfit_overlapping_ranges": built_nfit(QEMU_NFIT_BODY + spa(9, 5 << 30, 1 << 30)),
    # the map names SPA range 4, which is not there
    "nfit_map_missing_range": built_nfit(
        QEMU_NFIT_BODY[:72] + b"\x04\x00" + QEMU_NFIT_BODY[74:]),
    # a flush hint structure of length 0 at the end
    "nfit_length_0": built_nfit(QEMU_NFIT_BODY + bytes([6, 0, 0, 0]) + bytes(12)),
}

if __name__ == "__main__":
    os.makedirs(HERE, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")

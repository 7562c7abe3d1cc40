#!/usr/bin/env python3
"""make_multiboot2_seeds.py - write tests/fuzz/seeds/fuzz_multiboot2/: whole
multiboot2 blocks that start fuzz_multiboot2 near the UEFI and screen paths
of arch/x86_64/multiboot2.c: an OVMF-like EFI memory map (tag 17) with the
system table (tag 12), hostile EFI descriptors (overlapping, unaligned,
zero-length, huge), and framebuffer tags (8), sane and absurd.

    python3 tests/fuzz/seeds/make_multiboot2_seeds.py

Standard library only; the layout follows the comment at the top of
arch/x86_64/multiboot2.c.
"""
import os
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_multiboot2")


def tag(t, payload):
    body = struct.pack("<II", t, 8 + len(payload)) + payload
    return body + b"\0" * (-len(body) % 8)


def block(*tags):
    body = b"".join(tags) + struct.pack("<II", 0, 8)
    return struct.pack("<II", 8 + len(body), 0) + body


def efi_mmap(descs, size=48):
    out = struct.pack("<II", size, 1)
    for typ, start, pages, attr in descs:
        d = struct.pack("<IIQQQQ", typ, 0, start, 0, pages, attr)
        out += d + b"\0" * (size - len(d))
    return tag(17, out)


def fb(addr, pitch, w, h, bpp, typ=1, fields=(16, 8, 8, 8, 0, 8)):
    return tag(8, struct.pack("<QIIIBBH", addr, pitch, w, h, bpp, typ, 0) + bytes(fields))


WB = 1 << 3
SEEDS = {
    "ovmf_2g": block(
        efi_mmap([(3, 0, 0xa0, WB), (7, 0x100000, 0x700, WB), (10, 0x800000, 8, WB),
                  (7, 0x808000, 8, WB), (10, 0x810000, 0xf0, WB),
                  (4, 0x900000, 0x7e000, WB), (6, 0x7eaa0000, 0x102, WB),
                  (9, 0x7f76c000, 0x12, WB), (11, 0xb0000000, 0x10000, 0),
                  (11, 0xffc00000, 0x400, 0)]),
        tag(12, struct.pack("<Q", 0x7f9ee018)),
        fb(0xc0000000, 2400, 800, 600, 24)),
    "efi_hostile": block(
        efi_mmap([(7, 0x100000, 0x100, WB), (0, 0x180000, 0x10, 0),
                  (7, 0x300123, 0x10, WB), (7, 0x500000, 0, WB),
                  (7, 0x1000000, 0xffffffffffffffff, WB),
                  (7, 0xfff0000000000000, 0x10, WB), (7, 0x2000, 1, 1 << 18)], size=40)),
    "fb_bios_1280x800": block(fb(0xfd000000, 5120, 1280, 800, 32)),
    "fb_ega_text": block(fb(0xb8000, 160, 80, 25, 16, typ=2, fields=b"")),
    "fb_absurd_pitch": block(fb(0xfd000000, 0xffffffff, 0xffffffff, 0xffffffff, 32)),
    "fb_absurd_bpp": block(fb(0xfd000000, 4096, 1024, 768, 255, fields=(200, 9, 8, 8, 0, 8))),
    "fb_wraps": block(fb(0xfffffffffffff000, 4096, 1024, 768, 32)),
}

os.makedirs(HERE, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
print(f"{len(SEEDS)} seeds in {HERE}")

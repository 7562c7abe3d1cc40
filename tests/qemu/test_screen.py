"""The console on the screen and the PS/2 keyboard.

With a VGA device, GRUB hands over a linear framebuffer (VBE under
SeaBIOS, GOP under OVMF) and memlab draws the console on it.  QMP
`screendump` after boot gives the screen as a PPM; the prompt's pixels
must be exactly the glyphs of "memlab> " from the font table in
drivers/video/font8x8.c (read from that file here: no stored picture),
light grey on black, in 8x16 cells (each font row drawn twice).  QMP
`send-key` types `version` + Enter on the PS/2 keyboard and the serial log
shows the version line: either keyboard feeds the same shell.
"""

import os
import re
import time

import pytest

import memlab

FONT_C = memlab.REPO / "drivers" / "video" / "font8x8.c"
FG = (0xaa, 0xaa, 0xaa)
BG = (0, 0, 0)


def font():
    """{character: [8 row bytes]} from the C table."""
    glyphs = {}
    row = re.compile(r"\{((?:\s*0x[0-9a-fA-F]{2},){7}\s*0x[0-9a-fA-F]{2})\s*\},\s*/\* 0x([0-9a-f]{2})")
    for m in row.finditer(FONT_C.read_text()):
        glyphs[chr(int(m.group(2), 16))] = [int(x, 16) for x in m.group(1).split(",")]
    assert len(glyphs) == 95, f"{FONT_C}: {len(glyphs)} glyphs, not 95"
    return glyphs


def read_ppm(path):
    data = open(path, "rb").read()
    fields, i = [], 0
    while len(fields) < 4:
        while data[i:i + 1].isspace():
            i += 1
        j = i
        while not data[j:j + 1].isspace():
            j += 1
        fields.append(data[i:j])
        i = j
    assert fields[0] == b"P6" and fields[3] == b"255", fields
    w, h = int(fields[1]), int(fields[2])
    return w, h, data[i + 1:i + 1 + w * h * 3]


def cell_matches(px, w, col, row, bits):
    for y in range(16):
        b = bits[y // 2]
        for x in range(8):
            o = ((row * 16 + y) * w + col * 8 + x) * 3
            want = FG if b & (0x80 >> x) else BG
            if tuple(px[o:o + 3]) != want:
                return False
    return True


def prompt_rows(path, text="memlab> "):
    """The character rows whose first cells show text, as drawn."""
    glyphs = font()
    w, h, px = read_ppm(path)
    return [r for r in range(h // 16)
            if all(cell_matches(px, w, c, r, glyphs[ch]) for c, ch in enumerate(text))]


@pytest.fixture(params=["bios", "uefi"])
def screen_machine(request, make_iso):
    m = memlab.Machine(make_iso(""), name=request.node.name,
                       firmware=request.param, vga="VGA")
    try:
        m.start()
        m.wait_boot()
        yield m
    finally:
        m.kill()


def screendump(m):
    path = os.path.join(m.tmpdir, "screen.ppm")     # removed with the machine
    m.qmp().execute("screendump", {"filename": path})
    return path


def screen_rows(m, text):
    """prompt_rows() of a screendump, retried: the screen is drawn when the
    shell waits for input, which may be a little after the serial line."""
    for _ in range(10):
        rows = prompt_rows(screendump(m), text)
        if rows:
            return rows
        time.sleep(0.5 * memlab.SCALE)
    return []


def test_screen_shows_the_prompt(screen_machine):
    m = screen_machine
    assert re.search(r"fbcon: \d+x\d+ framebuffer, (24|32) bpp", m.boot_log), m.boot_log
    m.quiesce(0.5)
    assert screen_rows(m, "memlab> "), "no row of the screen shows the prompt's glyphs"


def test_keyboard_types_into_the_shell(screen_machine):
    m = screen_machine
    assert "i8042: PS/2 keyboard" in m.boot_log
    m.quiesce(0.5)
    q = m.qmp()
    # a fresh prompt first: deferred init's "memmap complete" line came
    # after the boot's prompt, on the prompt's row
    q.execute("send-key", {"keys": [{"type": "qcode", "data": "ret"}]})
    m.wait_prompt()
    for key in list("version") + ["ret"]:
        q.execute("send-key", {"keys": [{"type": "qcode", "data": key}]})
    m.wait_for(re.compile(r"memlab version \S+ \(gcc version"))
    m.wait_prompt()
    # the screen shows the typed line after a prompt, and a new prompt
    assert screen_rows(m, "memlab> version"), "the typed line is not on the screen"

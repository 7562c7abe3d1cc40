/*
 * test_vtcon.c - the screen console's renderer (drivers/video/vtcon.c)
 * drawing into memory: glyphs from the font table where the text is,
 * colours from SGR, scrolling, ESC[K, "\b", and the EGA text surface.
 */
#include "htest.h"
#include <drivers/video.h>
#include <lib/errno.h>

#define W	(8 * 10)	/* 10 columns */
#define H	(16 * 4)	/* 4 rows */

static u32 pix[W * H];
static struct vtcon VT;		/* 128 KiB: static */

static void put(const char *s)
{
	vt_write(&VT, s, strlen(s));
}

static void rgb_surface(void)
{
	struct vt_surface s = {
		.kind = VT_SURFACE_RGB, .base = (u8 *)pix, .pitch = W * 4,
		.width = W, .height = H, .bytes_pp = 4,
		.red_pos = 16, .red_size = 8, .green_pos = 8, .green_size = 8,
		.blue_pos = 0, .blue_size = 8,
	};

	memset(pix, 0xee, sizeof(pix));
	CHECK_EQ(vt_init(&VT, &s), 0);
}

/* Does cell (col, row) show character c in colours fg on bg (0xRRGGBB)? */
static bool cell_is(u32 col, u32 row, char c, u32 fg, u32 bg)
{
	const u8 *g = font_glyph((u8)c);

	for (u32 y = 0; y < 16; y++)
		for (u32 x = 0; x < 8; x++) {
			u32 want = (g[y / 2] & (0x80 >> x)) ? fg : bg;

			if (pix[(row * 16 + y) * W + col * 8 + x] != want)
				return false;
		}
	return true;
}

HTEST(vtcon_draws_glyphs)
{
	rgb_surface();
	put("memlab> ");
	vt_flush(&VT);
	CHECK_EQ(VT.cols, 10);
	CHECK_EQ(VT.rows, 4);
	for (u32 i = 0; i < 8; i++)
		CHECK(cell_is(i, 0, "memlab> "[i], 0xaaaaaa, 0));
	CHECK(cell_is(8, 0, ' ', 0, 0xaaaaaa));		/* the cursor */
	CHECK(cell_is(9, 0, ' ', 0xaaaaaa, 0));
	CHECK(cell_is(0, 1, ' ', 0xaaaaaa, 0));
}

HTEST(vtcon_colours_and_erase)
{
	rgb_surface();
	put("\x1b[31mA\x1b[1;32mB\x1b[0mC");
	vt_flush(&VT);
	CHECK(cell_is(0, 0, 'A', 0xaa0000, 0));
	CHECK(cell_is(1, 0, 'B', 0x55ff55, 0));
	CHECK(cell_is(2, 0, 'C', 0xaaaaaa, 0));
	put("\b\b\x1b[K");
	vt_flush(&VT);
	CHECK(cell_is(0, 0, 'A', 0xaa0000, 0));
	CHECK(cell_is(1, 0, ' ', 0, 0xaaaaaa));		/* cursor on the erased B */
	CHECK(cell_is(2, 0, ' ', 0xaaaaaa, 0));
	put("\x1b[2;3Hx\x1b[44my\x1b[Zz");	/* ESC[Z: swallowed */
	vt_flush(&VT);
	CHECK(cell_is(2, 1, 'x', 0xaaaaaa, 0));
	CHECK(cell_is(3, 1, 'y', 0xaaaaaa, 0x0000aa));
	CHECK(cell_is(4, 1, 'z', 0xaaaaaa, 0x0000aa));
}

HTEST(vtcon_scrolls_and_wraps)
{
	rgb_surface();
	put("1\n2\n3\n4\n5");
	vt_flush(&VT);
	CHECK(cell_is(0, 0, '2', 0xaaaaaa, 0));
	CHECK(cell_is(0, 3, '5', 0xaaaaaa, 0));
	put("\n0123456789ab");	/* 12 characters on a 10-column row */
	vt_flush(&VT);
	CHECK(cell_is(9, 2, '9', 0xaaaaaa, 0));
	CHECK(cell_is(0, 3, 'a', 0xaaaaaa, 0));
	CHECK(cell_is(1, 3, 'b', 0xaaaaaa, 0));
	CHECK(cell_is(0, 1, '5', 0xaaaaaa, 0));
	/* a byte outside the font: the box, not a fault */
	put("\x80");
	vt_flush(&VT);
	CHECK(cell_is(2, 3, (char)0x80, 0xaaaaaa, 0));
}

HTEST(vtcon_ega_text)
{
	static u16 cells[80 * 25];
	struct vt_surface s = {
		.kind = VT_SURFACE_EGA_TEXT, .base = (u8 *)cells, .pitch = 160,
		.width = 80, .height = 25,
	};

	CHECK_EQ(vt_init(&VT, &s), 0);
	put("ok\x1b[34m!");
	vt_flush(&VT);
	CHECK_EQ(cells[0], 0x0700 | 'o');
	CHECK_EQ(cells[1], 0x0700 | 'k');
	CHECK_EQ(cells[2], 0x0100 | '!');	/* blue is EGA colour 1 */
	CHECK_EQ(cells[3], 0x7000 | ' ');	/* cursor, reversed */
}

HTEST(vtcon_refuses_empty_surface)
{
	struct vt_surface s = { .kind = VT_SURFACE_RGB, .base = (u8 *)pix,
				.pitch = 28, .width = 7, .height = 15, .bytes_pp = 4 };

	CHECK_EQ(vt_init(&VT, &s), -EINVAL);
	s.width = 8;
	s.height = 16;
	s.bytes_pp = 5;
	CHECK_EQ(vt_init(&VT, &s), -EINVAL);
}

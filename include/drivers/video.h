/*
 * video.h - the screen console: the built-in font and the text renderer.
 *
 * The renderer (drivers/video/vtcon.c) is portable: it keeps a grid of
 * character cells, interprets the bytes the shell writes (text, "\n", "\r",
 * "\b", "\t" and the VT100/ECMA-48 sequences ESC[K, ESC[J, ESC[nA/B/C/D,
 * ESC[r;cH and ESC[...m colours) and draws the cells that changed onto a
 * surface: a linear RGB framebuffer (8x16 cells from font8x8.c, each font
 * row drawn twice) or an EGA text buffer (16-bit char + attribute cells).
 * The host tests draw into a memory buffer; drivers/video/fbcon.c draws
 * into the boot framebuffer.
 */
#ifndef DRIVERS_VIDEO_H
#define DRIVERS_VIDEO_H

#include <lib/types.h>

#define FONT_FIRST	0x20	/* ' ', the first glyph in the table */
#define FONT_LAST	0x7e	/* '~', the last */
#define FONT_ROWS	8	/* rows of a glyph, one byte each, bit 7 leftmost */
#define VT_CELL_W	8	/* pixels of a character cell on an RGB surface */
#define VT_CELL_H	16	/* each font row drawn twice */
#define VT_MAX_COLS	256	/* a wider screen uses its left 256 columns */
#define VT_MAX_ROWS	128
#define VT_MAX_PARAMS	4	/* CSI parameters kept; more are ignored */

/*
 * font_glyph() - the FONT_ROWS bytes of character c; a hollow box for a byte
 * outside FONT_FIRST..FONT_LAST.  Context: any.
 */
const u8 *font_glyph(u8 c);

enum vt_surface_kind {
	VT_SURFACE_RGB,		/* pixels, bytes_pp 2, 3 or 4 */
	VT_SURFACE_EGA_TEXT,	/* u16 cells: character | attribute << 8 */
};

struct vt_surface {
	enum vt_surface_kind kind;
	u8 *base;			/* first pixel or cell, writable */
	u32 pitch;			/* bytes per row of pixels or cells */
	u32 width, height;		/* pixels, or characters for EGA text */
	u8 bytes_pp;			/* RGB: bytes per pixel */
	u8 red_pos, red_size;		/* RGB: where each colour's bits are */
	u8 green_pos, green_size;
	u8 blue_pos, blue_size;
};

enum vt_esc { VT_ESC_NONE, VT_ESC_START, VT_ESC_CSI };

struct vtcon {
	struct vt_surface s;
	u32 cols, rows;			/* the grid, at most VT_MAX_COLS x VT_MAX_ROWS */
	u32 cx, cy;			/* cursor; cx == cols: the next character wraps */
	u8 fg, bg;			/* current colours, 0-15 (VGA palette order) */
	bool bright;			/* SGR 1: the next foregrounds are bright */
	enum vt_esc esc;
	u32 params[VT_MAX_PARAMS];	/* CSI parameters, 0 when left out */
	u32 nr_params;
	bool dirty;			/* cells changed since the last vt_flush() */
	u32 shown_cx, shown_cy;		/* where the cursor was drawn */
	u16 cells[VT_MAX_ROWS * VT_MAX_COLS];	/* char | fg << 8 | bg << 12 */
	u16 shown[VT_MAX_ROWS * VT_MAX_COLS];	/* what the surface shows */
};

/*
 * vt_init() - a blank grid (light grey on black) sized to s, the cursor at
 * the top left; the first vt_flush() draws every cell.  Returns 0, or
 * -EINVAL if s cannot hold one cell.  Context: any; touches vt only.
 */
int vt_init(struct vtcon *vt, const struct vt_surface *s);

/* vt_write() - interpret len bytes into the grid (nothing drawn yet). */
void vt_write(struct vtcon *vt, const char *s, size_t len);

/*
 * vt_flush() - draw every cell that differs from what the surface shows,
 * and the cursor (the cell under it in reverse colours).  Context: any;
 * writes vt and the surface only.
 */
void vt_flush(struct vtcon *vt);

/* fbcon_init() - the screen console on the boot framebuffer, if any (fbcon.c). */
struct boot_info;
void fbcon_init(const struct boot_info *bi);

#endif

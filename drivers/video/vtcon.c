/*
 * vtcon.c - the screen console's renderer: bytes in, character cells out,
 * cells drawn onto a framebuffer or EGA text surface (see video.h).
 *
 * vt_write() only changes the grid and the cursor; vt_flush() draws what
 * differs from what was drawn last (shown[]), so scrolling a busy boot log
 * costs one redraw per flush, not one per line.  The escape parser follows
 * the ECMA-48 shape (ESC [ parameters final): a sequence it does not know is
 * swallowed whole.  Portable: no kernel calls, so the host tests draw into
 * memory with it.
 */
#include <drivers/video.h>
#include <lib/errno.h>
#include <lib/string.h>

#define DEFAULT_FG	7	/* light grey */
#define DEFAULT_BG	0	/* black */
#define CSI_PARAM_MAX	9999

/* VGA's 16 colours, in the ANSI order SGR 30-37 / 90-97 index them. */
static const u32 palette[16] = {
	0x000000, 0xaa0000, 0x00aa00, 0xaa5500, 0x0000aa, 0xaa00aa, 0x00aaaa, 0xaaaaaa,
	0x555555, 0xff5555, 0x55ff55, 0xffff55, 0x5555ff, 0xff55ff, 0x55ffff, 0xffffff,
};

/* EGA attribute colour numbers (blue is bit 0) for the ANSI order above. */
static const u8 ansi_to_ega[16] = { 0, 4, 2, 6, 1, 5, 3, 7, 8, 12, 10, 14, 9, 13, 11, 15 };

static u16 make_cell(u8 ch, u8 fg, u8 bg)
{
	return (u16)(ch | (fg & 15) << 8 | (bg & 15) << 12);
}

static u16 blank(const struct vtcon *vt)
{
	return make_cell(' ', vt->fg, vt->bg);
}

int vt_init(struct vtcon *vt, const struct vt_surface *s)
{
	u32 cols, rows;

	if (s->kind == VT_SURFACE_RGB) {
		if (s->bytes_pp < 2 || s->bytes_pp > 4)
			return -EINVAL;
		cols = s->width / VT_CELL_W;
		rows = s->height / VT_CELL_H;
	} else {
		cols = s->width;
		rows = s->height;
	}
	if (!s->base || cols == 0 || rows == 0)
		return -EINVAL;
	memset(vt, 0, sizeof(*vt));
	vt->s = *s;
	vt->cols = MIN(cols, (u32)VT_MAX_COLS);
	vt->rows = MIN(rows, (u32)VT_MAX_ROWS);
	vt->fg = DEFAULT_FG;
	vt->bg = DEFAULT_BG;
	for (u32 i = 0; i < vt->rows * vt->cols; i++)
		vt->cells[i] = blank(vt);	/* shown[] is 0: nothing matches */
	vt->dirty = true;
	return 0;
}

/* Blank cells [from, to) of the grid (indexes row * cols + col). */
static void clear_cells(struct vtcon *vt, u32 from, u32 to)
{
	for (u32 i = from; i < to; i++)
		vt->cells[i] = blank(vt);
	vt->dirty = true;
}

static void scroll_up(struct vtcon *vt)
{
	u32 n = vt->cols * (vt->rows - 1);

	memmove(vt->cells, vt->cells + vt->cols, n * sizeof(vt->cells[0]));
	clear_cells(vt, n, n + vt->cols);
}

static void newline(struct vtcon *vt)
{
	vt->cx = 0;
	if (vt->cy + 1 < vt->rows)
		vt->cy++;
	else
		scroll_up(vt);
}

static void put_char(struct vtcon *vt, u8 ch)
{
	if (vt->cx >= vt->cols)
		newline(vt);
	vt->cells[vt->cy * vt->cols + vt->cx] = make_cell(ch, vt->fg, vt->bg);
	vt->cx++;
	vt->dirty = true;
}

static u32 param(const struct vtcon *vt, u32 i, u32 dflt)
{
	return i < vt->nr_params && vt->params[i] ? vt->params[i] : dflt;
}

/* SGR: 0 reset, 1 bright, 22 normal, 30-37/90-97 fg, 39 default, 40-47/100-107 bg, 49. */
static void sgr(struct vtcon *vt)
{
	if (vt->nr_params == 0)
		vt->nr_params = 1;	/* ESC[m is ESC[0m */
	for (u32 i = 0; i < vt->nr_params && i < VT_MAX_PARAMS; i++) {
		u32 p = vt->params[i];

		if (p == 0) {
			vt->fg = DEFAULT_FG;
			vt->bg = DEFAULT_BG;
			vt->bright = false;
		} else if (p == 1) {
			vt->bright = true;
			if (vt->fg < 8)
				vt->fg += 8;
		} else if (p == 22) {
			vt->bright = false;
			if (vt->fg >= 8)
				vt->fg -= 8;
		} else if (p >= 30 && p <= 37) {
			vt->fg = (u8)(p - 30 + (vt->bright ? 8 : 0));
		} else if (p == 39) {
			vt->fg = DEFAULT_FG;
		} else if (p >= 40 && p <= 47) {
			vt->bg = (u8)(p - 40);
		} else if (p == 49) {
			vt->bg = DEFAULT_BG;
		} else if (p >= 90 && p <= 97) {
			vt->fg = (u8)(p - 90 + 8);
		} else if (p >= 100 && p <= 107) {
			vt->bg = (u8)(p - 100 + 8);
		}
	}
}

/* The final byte of ESC [ ... : act on the sequences memlab's shell uses. */
static void csi_final(struct vtcon *vt, u8 c)
{
	u32 n = param(vt, 0, 1), row = vt->cy * vt->cols;
	u32 cx = MIN(vt->cx, vt->cols - 1);

	switch (c) {
	case 'A':
		vt->cy = vt->cy > n ? vt->cy - n : 0;
		break;
	case 'B':
		vt->cy = MIN(vt->cy + n, vt->rows - 1);
		break;
	case 'C':
		vt->cx = MIN(cx + n, vt->cols - 1);
		break;
	case 'D':
		vt->cx = cx > n ? cx - n : 0;
		break;
	case 'G':
		vt->cx = MIN(n, vt->cols) - 1;
		break;
	case 'H':
	case 'f':
		vt->cy = MIN(param(vt, 0, 1), vt->rows) - 1;
		vt->cx = MIN(param(vt, 1, 1), vt->cols) - 1;
		break;
	case 'J':	/* 0: cursor to end, 1: start to cursor, 2: all */
		if (param(vt, 0, 0) == 2)
			clear_cells(vt, 0, vt->rows * vt->cols);
		else if (param(vt, 0, 0) == 1)
			clear_cells(vt, 0, row + cx + 1);
		else
			clear_cells(vt, row + cx, vt->rows * vt->cols);
		break;
	case 'K':	/* 0: cursor to end of line, 1: start to cursor, 2: line */
		if (param(vt, 0, 0) == 2)
			clear_cells(vt, row, row + vt->cols);
		else if (param(vt, 0, 0) == 1)
			clear_cells(vt, row, row + cx + 1);
		else
			clear_cells(vt, row + cx, row + vt->cols);
		break;
	case 'm':
		sgr(vt);
		break;
	default:
		break;	/* known shape, unknown meaning: swallowed */
	}
	vt->dirty = true;
}

static void feed(struct vtcon *vt, u8 c)
{
	if (vt->esc == VT_ESC_START) {
		if (c == '[') {
			vt->esc = VT_ESC_CSI;
			vt->nr_params = 0;
			memset(vt->params, 0, sizeof(vt->params));
		} else {
			vt->esc = VT_ESC_NONE;	/* ESC x: two bytes, ignored */
		}
		return;
	}
	if (vt->esc == VT_ESC_CSI) {
		if (c >= '0' && c <= '9') {
			if (vt->nr_params == 0)
				vt->nr_params = 1;
			if (vt->nr_params <= VT_MAX_PARAMS) {
				u32 *p = &vt->params[vt->nr_params - 1];

				*p = MIN(*p * 10 + (u32)(c - '0'), (u32)CSI_PARAM_MAX);
			}
		} else if (c == ';') {
			if (vt->nr_params == 0)
				vt->nr_params = 1;
			vt->nr_params++;
		} else if (c >= 0x40 && c <= 0x7e) {
			if (vt->nr_params > VT_MAX_PARAMS)
				vt->nr_params = VT_MAX_PARAMS;
			csi_final(vt, c);
			vt->esc = VT_ESC_NONE;
		} else if (c < 0x20 || c > 0x7e) {
			vt->esc = VT_ESC_NONE;	/* not part of a sequence: abandon it */
		}
		return;		/* '<'..'?', ':', intermediates: part of the sequence */
	}
	switch (c) {
	case 0x1b:
		vt->esc = VT_ESC_START;
		break;
	case '\n':
		newline(vt);
		break;
	case '\r':
		vt->cx = 0;
		break;
	case '\b':
		if (vt->cx > 0)
			vt->cx = MIN(vt->cx, vt->cols) - 1;
		break;
	case '\t':
		do
			put_char(vt, ' ');
		while (vt->cx % 8 && vt->cx < vt->cols);
		break;
	case 0x07:	/* bell */
	case 0x00:
		break;
	default:
		if (c >= 0x20)
			put_char(vt, c);
		break;
	}
}

void vt_write(struct vtcon *vt, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		feed(vt, (u8)s[i]);
}

/* 0xRRGGBB in the surface's pixel format. */
static u32 pixel_value(const struct vt_surface *s, u32 rgb)
{
	u32 r = rgb >> 16 & 0xff, g = rgb >> 8 & 0xff, b = rgb & 0xff;

	return (r >> (8 - s->red_size)) << s->red_pos |
	       (g >> (8 - s->green_size)) << s->green_pos |
	       (b >> (8 - s->blue_size)) << s->blue_pos;
}

static void put_pixel(u8 *p, u32 v, u8 bytes_pp)
{
	for (u8 i = 0; i < bytes_pp; i++)
		p[i] = (u8)(v >> (8 * i));
}

static void draw_cell(struct vtcon *vt, u32 col, u32 row, u16 cell)
{
	const struct vt_surface *s = &vt->s;
	u8 ch = cell & 0xff, fg = cell >> 8 & 15, bg = cell >> 12 & 15;

	if (s->kind == VT_SURFACE_EGA_TEXT) {
		u16 v = (u16)(ch | (ansi_to_ega[fg] | ansi_to_ega[bg] << 4) << 8);

		memcpy(s->base + (size_t)row * s->pitch + (size_t)col * 2, &v, 2);
		return;
	}

	const u8 *g = font_glyph(ch);
	u32 fv = pixel_value(s, palette[fg]), bv = pixel_value(s, palette[bg]);

	for (u32 y = 0; y < VT_CELL_H; y++) {
		u8 bits = g[y / (VT_CELL_H / FONT_ROWS)];
		u8 *p = s->base + ((size_t)row * VT_CELL_H + y) * s->pitch +
			(size_t)col * VT_CELL_W * s->bytes_pp;

		for (u32 x = 0; x < VT_CELL_W; x++, p += s->bytes_pp)
			put_pixel(p, (bits & (0x80 >> x)) ? fv : bv, s->bytes_pp);
	}
}

void vt_flush(struct vtcon *vt)
{
	u32 ccx = MIN(vt->cx, vt->cols - 1), ccy = vt->cy;
	bool moved = ccx != vt->shown_cx || ccy != vt->shown_cy;

	if (!vt->dirty && !moved)
		return;
	for (u32 row = 0; row < vt->rows; row++) {
		for (u32 col = 0; col < vt->cols; col++) {
			u32 i = row * vt->cols + col;
			u16 want = vt->cells[i];

			if (row == ccy && col == ccx)	/* the cursor: reverse colours */
				want = make_cell(want & 0xff, want >> 12 & 15, want >> 8 & 15);
			if (vt->shown[i] == want)
				continue;
			draw_cell(vt, col, row, want);
			vt->shown[i] = want;
		}
	}
	vt->shown_cx = ccx;
	vt->shown_cy = ccy;
	vt->dirty = false;
}

/*
 * fbcon.c - the console on the screen: the boot framebuffer (or EGA text
 * buffer) GRUB handed over, drawn by vtcon.c, registered as a console.
 *
 * The framebuffer lies outside RAM (in PCI space, or at 0xb8000 for EGA
 * text), so it is not in the direct map: it is mapped uncached with
 * ioremap(), as the other MMIO is.  Output goes into the cell grid at once
 * and is drawn when the main loop waits for input, when a line ends and
 * the screen was last drawn more than FBCON_FLUSH_NS ago, and on panic
 * (console_flush()), so a long boot log costs a few redraws, not one per
 * line.
 *
 * Context: fbcon_init() at boot after paging_init(); the console hooks as
 * console.h says.
 */
#include <drivers/video.h>
#include <arch/bootinfo.h>
#include <arch/paging.h>
#include <kernel/console.h>
#include <kernel/time.h>
#include <lib/printk.h>

#define FBCON_FLUSH_NS	(100 * 1000 * 1000ULL)	/* 100 ms */

static struct vtcon fbcon_vt;	/* 128 KiB of cells: static, never on a stack */
static u64 fbcon_last_flush;

static void fbcon_idle(struct console *con)
{
	(void)con;
	vt_flush(&fbcon_vt);
	fbcon_last_flush = ktime_ns();
}

static void fbcon_write(struct console *con, const char *s, size_t len)
{
	bool line_end = false;

	vt_write(&fbcon_vt, s, len);
	for (size_t i = 0; i < len && !line_end; i++)
		line_end = s[i] == '\n';
	if (line_end && ktime_ns() - fbcon_last_flush > FBCON_FLUSH_NS)
		fbcon_idle(con);
}

static struct console fbcon_console = {
	.name = "fb0",
	.write = fbcon_write,
	.idle = fbcon_idle,
};

/*
 * fbcon_init() - see video.h.  No framebuffer (none given, or multiboot2.c
 * refused it and said why in a boot note): nothing, and a line says so.
 * Context: boot, after paging_init().
 */
void fbcon_init(const struct boot_info *bi)
{
	const struct boot_framebuffer *fb = &bi->fb;
	struct vt_surface s = { 0 };
	u64 bytes = (u64)fb->pitch * fb->height;

	if (fb->type == BOOT_FB_NONE) {
		pr_info("fbcon: no framebuffer from the boot loader; console on serial only");
		return;
	}
	s.base = ioremap(fb->addr, bytes, IOREMAP_UC);
	if (!s.base) {
		pr_warn("fbcon: cannot map the framebuffer at %#llx (%llu bytes); no screen console",
			(unsigned long long)fb->addr, (unsigned long long)bytes);
		return;
	}
	s.kind = fb->type == BOOT_FB_RGB ? VT_SURFACE_RGB : VT_SURFACE_EGA_TEXT;
	s.pitch = fb->pitch;
	s.width = fb->width;
	s.height = fb->height;
	s.bytes_pp = fb->bpp / 8;
	s.red_pos = fb->red_pos;
	s.red_size = fb->red_size;
	s.green_pos = fb->green_pos;
	s.green_size = fb->green_size;
	s.blue_pos = fb->blue_pos;
	s.blue_size = fb->blue_size;
	if (vt_init(&fbcon_vt, &s)) {
		pr_warn("fbcon: a %ux%u surface holds no character; no screen console",
			fb->width, fb->height);
		return;
	}
	console_register(&fbcon_console);
	if (fb->type == BOOT_FB_RGB)
		pr_info("fbcon: %ux%u framebuffer, %u bpp, at %#llx: %ux%u characters",
			fb->width, fb->height, fb->bpp, (unsigned long long)fb->addr,
			fbcon_vt.cols, fbcon_vt.rows);
	else
		pr_info("fbcon: EGA text %ux%u at %#llx", fb->width, fb->height,
			(unsigned long long)fb->addr);
}

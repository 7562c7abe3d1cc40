/*
 * fuzz_multiboot2.c - libFuzzer target for multiboot2_parse() and
 * fw_memmap_sanitize().
 *
 * Each input is used three times:
 *  1. as a multiboot2 information block of exactly `size` bytes (a heap copy
 *     made by libFuzzer, so ASan catches any read past the end);
 *  2. as the payload of one tag of type data[0] % 24 in an otherwise
 *     well-formed block (a heap buffer of exactly the block's size), so every
 *     tag handler sees arbitrary contents without the fuzzer first having
 *     to find a valid header;
 *  3. as raw memory-map entries, 20 bytes each (u64 start, u64 length,
 *     u32 type; the type folded onto 1..13 most of the time so overlaps of
 *     known types are common), fed straight to fw_memmap_add_raw(), which
 *     reaches the sanitizer far more often than well-formed blocks can.
 * Tag types 8 (framebuffer), 11/12 (EFI system table) and 17 (EFI memory
 * map) are among those of step 2; a framebuffer the parser keeps must be one
 * the screen console can draw on without leaving it (checked below).  The
 * seeds in tests/fuzz/seeds/fuzz_multiboot2/ (written by
 * tests/fuzz/seeds/make_multiboot2_seeds.py) start from OVMF-like and
 * hostile EFI maps and framebuffer tags.
 * After each, the sanitized map must be sorted, non-overlapping, made of
 * non-empty ranges below 2^52, with RAM in whole pages and touching ranges of
 * different types; and every byte it maps must have the type the overlap
 * rule gives, recomputed here independently at every boundary.  A violation
 * is a __builtin_trap().  The map is also dumped (fw_memmap_dump, the
 * /proc/iomem text) so the formatting sees every odd size.
 *
 * Build and run (from the repository root):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Itests/host \
 *     tests/fuzz/fuzz_multiboot2.c arch/x86_64/multiboot2.c \
 *     lib/fw_memmap.c lib/vsnprintf.c lib/printer.c \
 *     -o build/fuzz_multiboot2
 *   build/fuzz_multiboot2 -max_total_time=30
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arch/bootinfo.h>
#include <lib/fw_memmap.h>

#define CHECK(cond)	do { if (!(cond)) __builtin_trap(); } while (0)

static struct boot_info bi;
static struct fw_memmap m;

/* The overlap rule of fw_memmap.c, written again on purpose. */
static int rank(u32 t)
{
	switch (t) {
	case 1:		return 1;
	case 7: case 12: return 2;
	case 3:		return 3;
	case 4:		return 4;
	case 5:		return 6;
	default:	return 5;
	}
}

/* The winning type among the raw entries covering byte x; false if none. */
static bool oracle(const struct fw_memmap *mm, u64 x, u32 *type)
{
	bool found = false;

	for (u32 i = 0; i < mm->nr_raw; i++) {
		const struct fw_range *r = &mm->raw[i];
		u64 end = r->end < r->start ? FW_PHYS_LIMIT : MIN(r->end, FW_PHYS_LIMIT);
		u32 t = r->type;

		if (r->start == r->end || x < r->start || x >= end)
			continue;
		if (!found || rank(t) > rank(*type) ||
		    (rank(t) == rank(*type) && t > *type))
			*type = t;
		found = true;
	}
	return found;
}

/* The sanitized range holding byte x, or NULL. */
static const struct fw_range *lookup(const struct fw_memmap *mm, u64 x)
{
	for (u32 i = 0; i < mm->nr; i++)
		if (x >= mm->map[i].start && x < mm->map[i].end)
			return &mm->map[i];
	return NULL;
}

static void check_point(const struct fw_memmap *mm, u64 x, bool x86_low)
{
	const struct fw_range *r;
	u32 want;
	bool covered;

	if (x >= FW_PHYS_LIMIT)
		return;
	r = lookup(mm, x);
	covered = oracle(mm, x, &want);
	/* What multiboot2_parse() does after sanitizing, as Linux's x86
	 * trim_bios_range(): RAM in page 0 becomes Reserved (or stays a hole
	 * if trimming took it), RAM in 640 KiB - 1 MiB goes. */
	if (!x86_low) {
		/* fw_memmap_sanitize() alone */
	} else if (covered && want == FW_MEM_RAM && x < SZ_4K) {
		CHECK(!r || r->type == FW_MEM_RESERVED);
		return;
	} else if (covered && want == FW_MEM_RAM && x >= 0xa0000 && x < SZ_1M) {
		CHECK(!r);
		return;
	}
	if (r) {
		CHECK(covered && r->type == want);
	} else if (covered && mm->nr_dropped == 0) {
		/* A hole where an entry was: only trimmed RAM may leave one. */
		CHECK(want == FW_MEM_RAM);
	}
}

/* A framebuffer kept by the parser is one that can be drawn on safely. */
static void check_fb(const struct boot_info *b)
{
	const struct boot_framebuffer *fb = &b->fb;
	u64 bytes = (u64)fb->pitch * fb->height;

	if (fb->type == BOOT_FB_NONE)
		return;
	CHECK(fb->type == BOOT_FB_RGB || fb->type == BOOT_FB_EGA_TEXT);
	CHECK(fb->addr != 0 && bytes <= BOOT_FB_MAX_BYTES);
	CHECK(fb->addr + bytes > fb->addr && fb->addr + bytes <= FW_PHYS_LIMIT);
	if (fb->type == BOOT_FB_RGB) {
		CHECK(fb->bpp == 16 || fb->bpp == 24 || fb->bpp == 32);
		CHECK(fb->width >= 8 && fb->height >= 16);
		CHECK((u64)fb->pitch >= (u64)fb->width * (fb->bpp / 8));
		CHECK(fb->red_size >= 1 && fb->red_size <= 8 && fb->red_pos + fb->red_size <= fb->bpp);
		CHECK(fb->green_size >= 1 && fb->green_size <= 8 &&
		      fb->green_pos + fb->green_size <= fb->bpp);
		CHECK(fb->blue_size >= 1 && fb->blue_size <= 8 &&
		      fb->blue_pos + fb->blue_size <= fb->bpp);
	} else {
		CHECK(fb->width >= 1 && fb->height >= 1 && fb->pitch >= fb->width * 2);
	}
}

static void check_map(const struct fw_memmap *mm, bool x86_low)
{
	CHECK(mm->nr <= FW_MEMMAP_MAX);
	CHECK(mm->nr_raw <= FW_MEMMAP_MAX);
	for (u32 i = 0; i < mm->nr; i++) {
		const struct fw_range *r = &mm->map[i];

		CHECK(r->start < r->end);
		CHECK(r->end <= FW_PHYS_LIMIT);
		if (r->type == FW_MEM_RAM)
			CHECK(IS_ALIGNED(r->start, SZ_4K) && IS_ALIGNED(r->end, SZ_4K));
		if (i > 0) {
			CHECK(mm->map[i - 1].end <= r->start);
			CHECK(mm->map[i - 1].end < r->start ||
			      mm->map[i - 1].type != r->type);
		}
	}
	/* Every boundary, raw or sanitized, and the byte before it. */
	for (u32 i = 0; i < mm->nr_raw; i++) {
		check_point(mm, mm->raw[i].start, x86_low);
		check_point(mm, mm->raw[i].end, x86_low);
		if (mm->raw[i].start)
			check_point(mm, mm->raw[i].start - 1, x86_low);
		if (mm->raw[i].end)
			check_point(mm, mm->raw[i].end - 1, x86_low);
	}
	for (u32 i = 0; i < mm->nr; i++) {
		check_point(mm, mm->map[i].start, x86_low);
		check_point(mm, mm->map[i].end - 1, x86_low);
	}
	for (u32 i = 0; i < mm->nr_notes && i < FW_MEMMAP_NOTES; i++)
		CHECK(memchr(mm->notes[i], '\0', FW_NOTE_LEN) != NULL);

	/* The dump and /proc/iomem must format any map without overflow. */
	static char text[1 << 17];
	struct buf_printer bp;

	buf_printer_init(&bp, text, sizeof(text));
	fw_memmap_dump(mm, &bp.p);
	fw_memmap_print_iomem(mm, NULL, 0, &bp.p);
	CHECK(!bp.overflow);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (multiboot2_parse(&bi, data, size, 0x100000) == 0) {
		CHECK(strlen(bi.cmdline) < BOOT_CMDLINE_MAX);
		CHECK(strlen(bi.loader_name) < BOOT_LOADER_MAX);
		CHECK(bi.rsdp_len <= BOOT_RSDP_MAX);
		CHECK(bi.rsdp_tag == 0 || bi.rsdp_tag == 14 || bi.rsdp_tag == 15);
		CHECK(bi.mbi_end - bi.mbi_start <= size);
		CHECK(bi.memmap_tag == 0 || bi.memmap_tag == 4 || bi.memmap_tag == 6 ||
		      bi.memmap_tag == 17);
		check_fb(&bi);
		check_map(&bi.memmap, true);
	}

	if (size >= 1 && size < 65536) {
		size_t tag_size = 8 + size - 1;
		size_t block = 8 + ALIGN_UP(tag_size, 8) + 8;
		u8 *b = calloc(1, block);
		u32 v;

		CHECK(b != NULL);
		v = (u32)block;
		memcpy(b, &v, 4);
		v = data[0] % 24;
		memcpy(b + 8, &v, 4);
		v = (u32)tag_size;
		memcpy(b + 12, &v, 4);
		memcpy(b + 16, data + 1, size - 1);
		CHECK(multiboot2_parse(&bi, b, block, 0) == 0);
		check_fb(&bi);
		check_map(&bi.memmap, true);
		free(b);
	}

	fw_memmap_init(&m);
	for (size_t off = 0; off + 20 <= size; off += 20) {
		u64 start, len;
		u32 type;

		memcpy(&start, data + off, 8);
		memcpy(&len, data + off + 8, 8);
		memcpy(&type, data + off + 16, 4);
		if (type & 0x80000000u)		/* keep some wild types */
			type &= 0x7fffffffu;
		else
			type = type % 13 + 1;
		/* Small addresses most of the time, so entries meet. */
		if (!(start >> 63)) {
			start &= 0xfffff;
			len &= 0x3ffff;
		}
		fw_memmap_add_raw(&m, start, len, type);
	}
	fw_memmap_sanitize(&m);
	check_map(&m, false);
	return 0;
}

/*
 * test_multiboot2.c - multiboot2_parse() on blocks built in a buffer, and
 * cmdline_get().
 *
 * mb_*() helpers lay out a block the way GRUB does: an 8-byte header
 * (total_size, reserved), then tags on 8-byte boundaries, then the end tag.
 * The hostile cases then damage sizes and lengths on purpose; ASan checks
 * that the parser never reads outside the bytes it was given.
 */
#include "htest.h"
#include <lib/errno.h>
#include <stdlib.h>
#include <arch/bootinfo.h>
#include <lib/printer.h>
#include <shell/shell.h>

struct mb {
	u8 buf[16384] __aligned(8);	/* the block */
	size_t len;			/* bytes laid out so far */
};

static struct mb B;
static struct boot_info BI;	/* 16 KiB: static, not on the stack */

static void put_u32(u8 *p, u32 v) { memcpy(p, &v, 4); }
static void put_u64(u8 *p, u64 v) { memcpy(p, &v, 8); }

static void mb_begin(struct mb *b)
{
	memset(b->buf, 0xa5, sizeof(b->buf));	/* garbage in the padding */
	b->len = 8;
}

/* Start a tag of size bytes (header included); returns the tag. */
static u8 *mb_tag(struct mb *b, u32 type, u32 size)
{
	u8 *t = b->buf + b->len;

	put_u32(t, type);
	put_u32(t + 4, size);
	b->len += ALIGN_UP((size_t)size, 8);
	return t;
}

static void mb_string(struct mb *b, u32 type, const char *s)
{
	size_t n = strlen(s) + 1;
	u8 *t = mb_tag(b, type, 8 + n);

	memcpy(t + 8, s, n);
}

static void mb_meminfo(struct mb *b, u32 lower_kib, u32 upper_kib)
{
	u8 *t = mb_tag(b, 4, 16);

	put_u32(t + 8, lower_kib);
	put_u32(t + 12, upper_kib);
}

struct mb_entry {
	u64 base, len;
	u32 type;
};

static void mb_mmap(struct mb *b, u32 entry_size, const struct mb_entry *e,
		    size_t n)
{
	u8 *t = mb_tag(b, 6, 16 + n * entry_size);

	put_u32(t + 8, entry_size);
	put_u32(t + 12, 0);
	for (size_t i = 0; i < n; i++) {
		u8 *p = t + 16 + i * entry_size;

		memset(p, 0x5a, entry_size);	/* extra bytes past 24 */
		put_u64(p, e[i].base);
		put_u64(p + 8, e[i].len);
		put_u32(p + 16, e[i].type);
		put_u32(p + 20, 0);
	}
}

/* An RSDP of len bytes, its first byte set to tag so the copy can be told apart. */
static void mb_rsdp(struct mb *b, u32 type, u32 len)
{
	u8 *t = mb_tag(b, type, 8 + len);

	memcpy(t + 8, "RSD PTR ", 8);
	for (u32 i = 8; i < len; i++)
		t[8 + i] = (u8)(type + i);
}

static size_t mb_end(struct mb *b)
{
	mb_tag(b, 0, 8);
	put_u32(b->buf, (u32)b->len);
	put_u32(b->buf + 4, 0);
	return b->len;
}

static const struct mb_entry qemu_2g[] = {
	{ 0x0, 0x9fc00, 1 },
	{ 0x9fc00, 0x400, 2 },
	{ 0xf0000, 0x10000, 2 },
	{ 0x100000, 0x7fedf000, 1 },
	{ 0x7ffdf000, 0x21000, 2 },
	{ 0xb0000000, 0x10000000, 2 },
	{ 0xfed1c000, 0x4000, 2 },
	{ 0xfffc0000, 0x40000, 2 },
};

/* Is there a kept boot note containing s? */
static bool has_boot_note(const char *s)
{
	for (u32 i = 0; i < BI.nr_notes && i < BOOT_NOTES; i++)
		if (strstr(BI.notes[i], s))
			return true;
	fprintf(stderr, "    no boot note contains \"%s\"; notes:\n", s);
	for (u32 i = 0; i < BI.nr_notes && i < BOOT_NOTES; i++)
		fprintf(stderr, "      %s\n", BI.notes[i]);
	return false;
}

/* Tag 8 as GRUB gives it in EGA text mode: 80x25 at 0xb8000, 38 bytes. */
static u8 *mb_ega_text(struct mb *b)
{
	u8 *t = mb_tag(b, 8, 38);

	put_u64(t + 8, 0xb8000);
	put_u32(t + 16, 160);		/* pitch */
	put_u32(t + 20, 80);
	put_u32(t + 24, 25);
	t[28] = 16;			/* bpp */
	t[29] = 2;			/* EGA text */
	return t;
}

/* Tag 8 for an RGB framebuffer, x8r8g8b8 as OVMF's GOP gives it. */
static u8 *mb_rgb_fb(struct mb *b, u64 addr, u32 pitch, u32 w, u32 h, u8 bpp)
{
	u8 *t = mb_tag(b, 8, 40);

	put_u64(t + 8, addr);
	put_u32(t + 16, pitch);
	put_u32(t + 20, w);
	put_u32(t + 24, h);
	t[28] = bpp;
	t[29] = 1;
	t[32] = 16; t[33] = 8;		/* red */
	t[34] = 8;  t[35] = 8;		/* green */
	t[36] = 0;  t[37] = 8;		/* blue */
	return t;
}

/* The tags GRUB 2.06 gives under SeaBIOS, in its order. */
static size_t build_grub_block(u32 entry_size)
{
	mb_begin(&B);
	mb_string(&B, 1, "console=ttyS0 loglevel=7");
	mb_string(&B, 2, "GRUB 2.06-13+deb12u1");
	mb_tag(&B, 10, 28);		/* APM: known, unused */
	mb_tag(&B, 21, 12);		/* load base address */
	mb_meminfo(&B, 639, 2096000);
	mb_tag(&B, 5, 20);		/* boot device */
	mb_mmap(&B, entry_size, qemu_2g, ARRAY_SIZE(qemu_2g));
	mb_ega_text(&B);		/* framebuffer, size not a multiple of 8 */
	mb_rsdp(&B, 14, 20);
	return mb_end(&B);
}

static void check_qemu_2g_map(void)
{
	CHECK_EQ(BI.memmap.nr_raw, 8);
	/* Page 0 is the BIOS's, as on Linux/x86: one more range, 4 KiB less RAM. */
	CHECK_EQ(BI.memmap.nr, 9);
	CHECK_EQ(BI.memmap.map[0].end, 0x1000);
	CHECK_EQ(BI.memmap.map[0].type, FW_MEM_RESERVED);
	CHECK_EQ(BI.memmap.map[1].start, 0x1000);
	CHECK_EQ(BI.memmap.map[1].end, 0x9f000);
	CHECK_EQ(BI.memmap.map[4].start, 0x100000);
	CHECK_EQ(BI.memmap.map[4].end, 0x7ffdf000);
	CHECK_EQ(fw_memmap_ram_bytes(&BI.memmap), 2096628ULL << 10);
}

HTEST(mb2_grub_block)
{
	size_t len = build_grub_block(24);

	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0x10000), 0);
	CHECK_STREQ(BI.cmdline, "console=ttyS0 loglevel=7");
	CHECK(!BI.cmdline_truncated);
	CHECK_STREQ(BI.loader_name, "GRUB 2.06-13+deb12u1");
	CHECK_EQ(BI.rsdp_tag, 14);
	CHECK_EQ(BI.rsdp_len, 20);
	CHECK(memcmp(BI.rsdp, "RSD PTR ", 8) == 0);
	CHECK_EQ(BI.mbi_start, 0x10000);
	CHECK_EQ(BI.mbi_end, 0x10000 + len);
	CHECK_EQ(BI.nr_tags, 10);	/* 9 tags and the end tag */
	CHECK_EQ(BI.nr_unknown_tags, 0);
	CHECK_EQ(BI.nr_notes, 0);
	check_qemu_2g_map();
}

/* entry_size above 24 (GRUB may add fields): the stride is entry_size. */
HTEST(mb2_entry_size_larger)
{
	static const u32 sizes[] = { 24, 28, 32, 40, 1000 };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		build_grub_block(sizes[i]);
		CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
		check_qemu_2g_map();
		CHECK_EQ(BI.nr_notes, 0);
	}
}

/* entry_size below 24 is rejected; with meminfo present it is the fallback. */
HTEST(mb2_entry_size_too_small)
{
	static const u32 sizes[] = { 0, 8, 20, 23 };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		mb_begin(&B);
		mb_meminfo(&B, 639, 1024);
		u8 *t = mb_tag(&B, 6, 16 + 48);

		put_u32(t + 8, sizes[i]);
		put_u32(t + 12, 0);
		mb_end(&B);
		CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
		CHECK(has_boot_note("is below 24; ignored"));
		CHECK(has_boot_note("no memory map tag: using basic meminfo"));
		CHECK_EQ(BI.memmap.nr, 3);	/* page 0 Reserved, then two RAM ranges */
	}
}

/* A tag that is not a whole number of entries: the tail is ignored. */
HTEST(mb2_mmap_trailing_bytes)
{
	mb_begin(&B);
	u8 *t = mb_tag(&B, 6, 16 + 24 + 10);

	put_u32(t + 8, 24);
	put_u32(t + 12, 0);
	put_u64(t + 16, 0x100000);
	put_u64(t + 24, 0x100000);
	put_u32(t + 32, 1);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.memmap.nr_raw, 1);
	CHECK(has_boot_note("10 bytes after the last whole entry ignored"));
}

/* Tag 15 wins over tag 14 whichever comes first. */
HTEST(mb2_both_rsdp_tags)
{
	for (int order = 0; order < 2; order++) {
		mb_begin(&B);
		mb_rsdp(&B, order ? 15 : 14, order ? 36 : 20);
		mb_rsdp(&B, order ? 14 : 15, order ? 20 : 36);
		mb_end(&B);
		CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
		CHECK_EQ(BI.rsdp_tag, 15);
		CHECK_EQ(BI.rsdp_len, 36);
		CHECK_EQ(BI.rsdp[8], 15 + 8);
		CHECK_EQ(BI.rsdp[35], 15 + 35);
	}
}

HTEST(mb2_rsdp_long_and_short)
{
	mb_begin(&B);
	mb_rsdp(&B, 15, 100);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.rsdp_len, BOOT_RSDP_MAX);
	CHECK(has_boot_note("kept the first 64"));

	mb_begin(&B);
	mb_tag(&B, 14, 8 + 4);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.rsdp_len, 4);
	CHECK(has_boot_note("shorter than an RSDP"));
}

/* No memory map: basic meminfo gives [0, lower) and [1 MiB, 1 MiB + upper). */
HTEST(mb2_meminfo_fallback)
{
	mb_begin(&B);
	mb_meminfo(&B, 639, 2096000);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.memmap.nr_raw, 2);
	CHECK_EQ(BI.memmap.nr, 3);
	CHECK_EQ(BI.memmap.map[0].start, 0);
	CHECK_EQ(BI.memmap.map[0].end, 0x1000);		/* page 0: the BIOS's */
	CHECK_EQ(BI.memmap.map[0].type, FW_MEM_RESERVED);
	CHECK_EQ(BI.memmap.map[1].start, 0x1000);
	CHECK_EQ(BI.memmap.map[1].end, 0x9f000);	/* 639 KiB, trimmed */
	CHECK_EQ(BI.memmap.map[2].start, SZ_1M);
	CHECK_EQ(BI.memmap.map[2].end, SZ_1M + 2096000ULL * 1024);
	CHECK(has_boot_note("using basic meminfo (lower 639 KiB, upper 2096000 KiB)"));

	/* An empty memory map tag does not count as a map. */
	mb_begin(&B);
	mb_mmap(&B, 24, NULL, 0);
	mb_meminfo(&B, 100, 200);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK(has_boot_note("memory map tag: no entries"));
	CHECK_EQ(BI.memmap.nr_raw, 2);
}

HTEST(mb2_no_memory_information)
{
	mb_begin(&B);
	mb_string(&B, 1, "");
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.memmap.nr, 0);
	CHECK_STREQ(BI.cmdline, "");
	CHECK(has_boot_note("no memory map tag and no basic meminfo tag"));
}

/* A second memory map tag is ignored, not merged. */
HTEST(mb2_second_mmap_ignored)
{
	static const struct mb_entry other[] = { { 0x200000000, 0x1000, 1 } };

	mb_begin(&B);
	mb_mmap(&B, 24, qemu_2g, ARRAY_SIZE(qemu_2g));
	mb_mmap(&B, 24, other, 1);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	check_qemu_2g_map();
	CHECK(has_boot_note("a second one was ignored"));
}

HTEST(mb2_cmdline_too_long)
{
	char *s = malloc(2000);

	memset(s, 'a', 1999);
	s[1999] = '\0';
	mb_begin(&B);
	mb_string(&B, 1, s);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK(BI.cmdline_truncated);
	CHECK_EQ(strlen(BI.cmdline), BOOT_CMDLINE_MAX - 1);
	CHECK(has_boot_note("command line cut to 1023 bytes"));

	/* Exactly BOOT_CMDLINE_MAX - 1 characters fit. */
	s[BOOT_CMDLINE_MAX - 1] = '\0';
	mb_begin(&B);
	mb_string(&B, 1, s);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK(!BI.cmdline_truncated);
	CHECK_EQ(strlen(BI.cmdline), BOOT_CMDLINE_MAX - 1);

	/* A long loader name is cut silently. */
	s[200] = '\0';
	mb_begin(&B);
	mb_string(&B, 2, s);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(strlen(BI.loader_name), BOOT_LOADER_MAX - 1);
	free(s);
}

/* A string tag without its NUL: the copy stops at the tag's end. */
HTEST(mb2_string_without_nul)
{
	mb_begin(&B);
	u8 *t = mb_tag(&B, 1, 8 + 5);

	memcpy(t + 8, "abcde", 5);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_STREQ(BI.cmdline, "abcde");
}

/*
 * The block is cut short: total_size says more than max_len.  The parser is
 * given a heap copy of exactly max_len bytes, so ASan catches any read past.
 */
HTEST(mb2_truncated_block)
{
	size_t len = build_grub_block(24);
	size_t cut = 8 + 32 + 24;	/* in the middle of the loader name tag */
	u8 *copy = malloc(cut);

	memcpy(copy, B.buf, cut);
	CHECK_EQ(multiboot2_parse(&BI, copy, cut, 0x1000), 0);
	CHECK_STREQ(BI.cmdline, "console=ttyS0 loglevel=7");
	CHECK_STREQ(BI.loader_name, "");
	CHECK_EQ(BI.mbi_end, 0x1000 + cut);
	CHECK(has_boot_note("is more than the 64 bytes available"));
	CHECK(has_boot_note("past the end at 64: walk stopped"));
	free(copy);

	/* Every cut length, each in a buffer of exactly that size. */
	for (size_t n = 0; n <= len; n++) {
		copy = malloc(n ? n : 1);
		memcpy(copy, B.buf, n);
		int ret = multiboot2_parse(&BI, copy, n, 0);

		CHECK(n < 8 ? ret == -EINVAL : ret == 0);
		free(copy);
	}
}

/* A tag whose size runs past total_size stops the walk; earlier tags count. */
HTEST(mb2_tag_past_total_size)
{
	mb_begin(&B);
	mb_string(&B, 2, "GRUB");
	u8 *t = mb_tag(&B, 1, 16);

	mb_end(&B);
	put_u32(t + 4, 1000);		/* the cmdline tag now claims 1000 bytes */
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_STREQ(BI.loader_name, "GRUB");
	CHECK_STREQ(BI.cmdline, "");
	CHECK_EQ(BI.nr_tags, 1);
	CHECK(has_boot_note("tag type 1 at offset 24 has size 1000, past the end at 48: walk stopped"));
}

/* Sizes below 8 would loop for ever or go backwards: the walk stops. */
HTEST(mb2_tag_size_below_header)
{
	for (u32 size = 0; size < 8; size++) {
		mb_begin(&B);
		mb_string(&B, 2, "GRUB");
		u8 *t = mb_tag(&B, 1, 8);

		mb_meminfo(&B, 1, 2);
		mb_end(&B);
		put_u32(t + 4, size);
		CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
		CHECK_STREQ(BI.loader_name, "GRUB");
		CHECK(has_boot_note("below 8: walk stopped"));
		CHECK(has_boot_note("no memory map tag and no basic meminfo"));
	}
}

HTEST(mb2_missing_end_tag)
{
	mb_begin(&B);
	mb_string(&B, 2, "GRUB");
	put_u32(B.buf, (u32)B.len);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_STREQ(BI.loader_name, "GRUB");
	CHECK(has_boot_note("no end tag before the end of the block at 24"));
}

HTEST(mb2_unknown_tags_counted)
{
	mb_begin(&B);
	mb_tag(&B, 22, 8);
	mb_tag(&B, 0x7fffffff, 20);
	mb_tag(&B, 9, 20);		/* ELF sections: known, unused */
	mb_string(&B, 2, "x");
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.nr_unknown_tags, 2);
	CHECK_EQ(BI.nr_tags, 5);
	CHECK_STREQ(BI.loader_name, "x");
}

HTEST(mb2_unusable_header)
{
	u8 small[8] = { 4, 0, 0, 0, 0, 0, 0, 0 };

	CHECK_EQ(multiboot2_parse(&BI, NULL, 100, 0), -EINVAL);
	CHECK_EQ(multiboot2_parse(&BI, small, 7, 0), -EINVAL);
	CHECK_EQ(multiboot2_parse(&BI, small, 8, 0), -EINVAL);	/* total_size 4 */
	small[0] = 8;
	CHECK_EQ(multiboot2_parse(&BI, small, 8, 0), 0);	/* empty block */
	CHECK(has_boot_note("no end tag"));
}

/* The block need not be aligned: fields are read with memcpy. */
HTEST(mb2_unaligned_block)
{
	static u8 shifted[sizeof(B.buf) + 3];
	size_t len = build_grub_block(24);

	memcpy(shifted + 3, B.buf, len);
	CHECK_EQ(multiboot2_parse(&BI, shifted + 3, len, 0), 0);
	check_qemu_2g_map();
	CHECK_STREQ(BI.loader_name, "GRUB 2.06-13+deb12u1");
}

HTEST(cmdline_get_basic)
{
	const char *cl = "a=1 b c=\"x y\" root=LABEL=x\tlog_level=7  ";
	char buf[32];

	CHECK_EQ(cmdline_get(cl, "a", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "1");
	CHECK_EQ(cmdline_get(cl, "b", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "");
	CHECK_EQ(cmdline_get(cl, "c", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "x y");
	CHECK_EQ(cmdline_get(cl, "root", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "LABEL=x");
	CHECK_EQ(cmdline_get(cl, "log-level", buf, sizeof(buf)), 0);	/* - == _ */
	CHECK_STREQ(buf, "7");
	CHECK_EQ(cmdline_get(cl, "d", buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(cmdline_get(cl, "ro", buf, sizeof(buf)), -ENOENT);	/* no prefixes */
	CHECK_EQ(cmdline_get(cl, "rootx", buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(cmdline_get(cl, "x", buf, sizeof(buf)), -ENOENT);	/* not a value */
	CHECK_EQ(cmdline_get(cl, "", buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(cmdline_get(NULL, "a", buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(cmdline_get("", "a", buf, sizeof(buf)), -ENOENT);
}

HTEST(cmdline_get_last_wins)
{
	char buf[32];

	CHECK_EQ(cmdline_get("a=1 a=2", "a", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "2");
	CHECK_EQ(cmdline_get("a=1 a", "a", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "");
	CHECK_EQ(cmdline_get("a a=3 b=4", "a", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "3");
}

HTEST(cmdline_get_quotes)
{
	char buf[32];

	/* The whole word quoted, as Linux allows. */
	CHECK_EQ(cmdline_get("\"c=x y\" d", "c", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "x y");
	/* An unterminated quote runs to the end. */
	CHECK_EQ(cmdline_get("a=\"x y", "a", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "x y");
	/* A quoted empty value. */
	CHECK_EQ(cmdline_get("a=\"\" b=1", "a", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "");
	/* Spaces inside quotes do not start a new word. */
	CHECK_EQ(cmdline_get("a=\"b=1 c\"", "b", buf, sizeof(buf)), -ENOENT);
}

HTEST(cmdline_get_double_dash_ends)
{
	char buf[8];

	CHECK_EQ(cmdline_get("a=1 -- b=2", "b", buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(cmdline_get("a=1 -- b=2", "a", buf, sizeof(buf)), 0);
	CHECK_EQ(cmdline_get("--x=1", "--x", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "1");
}

HTEST(cmdline_get_small_buffer)
{
	char buf[4];

	CHECK_EQ(cmdline_get("a=123456", "a", buf, sizeof(buf)), -EOVERFLOW);
	CHECK_STREQ(buf, "123");
	CHECK_EQ(cmdline_get("a=123456 a=12", "a", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "12");
	CHECK_EQ(cmdline_get("a=123", "a", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "123");
	/* size 0: presence only, buf untouched */
	CHECK_EQ(cmdline_get("a=123456 b", "a", NULL, 0), 0);
	CHECK_EQ(cmdline_get("a=123456 b", "b", NULL, 0), 0);
	CHECK_EQ(cmdline_get("a=123456 b", "c", NULL, 0), -ENOENT);
}

/* The `memmap` command shows the live boot_info. */
HTEST(memmap_command)
{
	static char out[32768];
	char line[32];
	struct buf_printer bp;

	size_t len = build_grub_block(24);
	char head[256];

	CHECK_EQ(multiboot2_parse(&boot_info, B.buf, sizeof(B.buf), 0x9000), 0);
	snprintf(head, sizeof(head),
		 "boot loader: GRUB 2.06-13+deb12u1\n"
		 "multiboot2 info: [0x9000-0x%zx), 10 tags, 0 unknown\n"
		 "ACPI RSDP: from tag 14 (ACPI 1.0, RSDT), 20 bytes\n"
		 "firmware memory map, as given (8 entries):\n", 0x9000 + len);
	buf_printer_init(&bp, out, sizeof(out));
	strcpy(line, "memmap");
	CHECK_EQ(shell_execute(&bp.p, line), 0);
	CHECK(!bp.overflow);
	CHECK(strncmp(out, head, strlen(head)) == 0);
	CHECK(strstr(out, "System RAM: 2096628 KiB in 2 ranges (524157 pages)\n"));
	if (htest_failures)
		fprintf(stderr, "%s", out);

	buf_printer_init(&bp, out, sizeof(out));
	strcpy(line, "memmap extra");
	CHECK_EQ(shell_execute(&bp.p, line), -EINVAL);
	CHECK_STREQ(out, "usage: memmap [map]\n");
	memset(&boot_info, 0, sizeof(boot_info));
}

/* The GRUB block's EGA text tag is kept as it is. */
HTEST(mb2_framebuffer_ega_text)
{
	build_grub_block(24);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.fb.type, BOOT_FB_EGA_TEXT);
	CHECK_EQ(BI.fb.addr, 0xb8000);
	CHECK_EQ(BI.fb.width, 80);
	CHECK_EQ(BI.fb.height, 25);
	CHECK_EQ(BI.memmap_tag, 6);
}

/* GRUB with no video adapter gives a tag of zeros: no screen, no note. */
HTEST(mb2_framebuffer_none)
{
	mb_begin(&B);
	memset(mb_tag(&B, 8, 38) + 8, 0, 30);	/* B is reused: clear the payload */
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.fb.type, BOOT_FB_NONE);
	for (u32 i = 0; i < BI.nr_notes && i < BOOT_NOTES; i++)
		CHECK(!strstr(BI.notes[i], "framebuffer"));
}

/* A sane RGB framebuffer is kept with its colour fields. */
HTEST(mb2_framebuffer_rgb)
{
	mb_begin(&B);
	mb_rgb_fb(&B, 0x80000000ULL, 4096, 1024, 768, 32);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.fb.type, BOOT_FB_RGB);
	CHECK_EQ(BI.fb.pitch, 4096);
	CHECK_EQ(BI.fb.bpp, 32);
	CHECK_EQ(BI.fb.red_pos, 16);
	CHECK_EQ(BI.fb.blue_size, 8);
}

/* Absurd framebuffers are refused with a note, never kept. */
HTEST(mb2_framebuffer_absurd)
{
	static const struct {
		u64 addr; u32 pitch, w, h; u8 bpp; const char *note;
	} cases[] = {
		{ 0x80000000ULL, 100, 1024, 768, 32, "pitch 100 below 1024 pixels" },
		{ 0x80000000ULL, 4096, 1024, 768, 7, "7 bits per pixel" },
		{ 0x80000000ULL, 0xffffffffu, 1024, 0xffff, 32, "pixels (8x16 to" },
		{ 0x80000000ULL, 0x100000, 16384, 16384, 32, "above" },
		{ 0, 4096, 1024, 768, 32, "outside physical memory" },
		{ 0xfffffffffffff000ULL, 4096, 1024, 768, 32, "outside physical memory" },
		{ 0x80000000ULL, 4096, 0, 768, 32, "pixels (8x16 to" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		mb_begin(&B);
		mb_rgb_fb(&B, cases[i].addr, cases[i].pitch, cases[i].w, cases[i].h,
			  cases[i].bpp);
		mb_end(&B);
		CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
		CHECK_EQ(BI.fb.type, BOOT_FB_NONE);
		CHECK(has_boot_note("framebuffer tag refused"));
		CHECK(has_boot_note(cases[i].note));
	}
	/* colour fields outside the pixel */
	mb_begin(&B);
	mb_rgb_fb(&B, 0x80000000ULL, 4096, 1024, 768, 32)[32] = 30;
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.fb.type, BOOT_FB_NONE);
	CHECK(has_boot_note("do not fit a 32-bit pixel"));
	/* indexed colour, and a tag too short for its own fields */
	mb_begin(&B);
	mb_rgb_fb(&B, 0xa0000, 320, 320, 200, 8)[29] = 0;	/* type 0, indexed */
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK(has_boot_note("indexed colour"));
	mb_begin(&B);
	mb_tag(&B, 8, 20);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.fb.type, BOOT_FB_NONE);
	CHECK(has_boot_note("size 20, below 32"));
}

struct efi_desc { u32 type; u64 start, pages, attr; };

/* Tag 17 with descriptors d[0, n), each desc_size bytes. */
static void mb_efi_mmap(struct mb *b, u32 desc_size, const struct efi_desc *d, size_t n)
{
	u8 *t = mb_tag(b, 17, 16 + desc_size * (u32)n);

	put_u32(t + 8, desc_size);
	put_u32(t + 12, 1);
	for (size_t i = 0; i < n; i++) {
		u8 *e = t + 16 + i * desc_size;

		put_u32(e, d[i].type);
		put_u64(e + 8, d[i].start);
		put_u64(e + 16, 0);
		put_u64(e + 24, d[i].pages);
		put_u64(e + 32, d[i].attr);
	}
}

#define WB FW_EFI_MEMORY_WB

/* An OVMF-like map: types folded as Linux folds them, pieces merged. */
HTEST(mb2_efi_mmap_types)
{
	static const struct efi_desc d[] = {
		{ 3, 0x0, 0xa0, WB },			/* boot services code */
		{ 7, 0x100000, 0x700, WB },		/* conventional */
		{ 4, 0x800000, 0x100, WB },		/* boot services data: merged */
		{ 10, 0x900000, 0x10, WB },		/* ACPI NVS */
		{ 9, 0x910000, 0x10, WB },		/* ACPI reclaim */
		{ 6, 0x920000, 0x10, WB },		/* runtime data */
		{ 8, 0x930000, 0x10, WB },		/* unusable */
		{ 11, 0xffc00000, 0x400, 0 },		/* MMIO */
		{ 14, 0x100000000ULL, 0x100, WB },	/* persistent */
		{ 7, 0x200000000ULL, 0x100, WB | FW_EFI_MEMORY_SP },
		{ 7, 0x300000000ULL, 0x100, 0 },	/* RAM, not WB */
		{ 42, 0x400000000ULL, 0x1, WB },	/* unknown */
	};
	static const u32 want[] = { FW_MEM_RAM, FW_MEM_RAM, FW_MEM_NVS, FW_MEM_ACPI,
		FW_MEM_RESERVED, FW_MEM_BAD, FW_MEM_RESERVED, FW_MEM_PMEM,
		FW_MEM_SOFT_RESERVED, FW_MEM_RESERVED, FW_MEM_RESERVED };

	mb_begin(&B);
	mb_mmap(&B, 24, qemu_2g, ARRAY_SIZE(qemu_2g));	/* tag 6 first: replaced */
	mb_efi_mmap(&B, 48, d, ARRAY_SIZE(d));
	put_u64(mb_tag(&B, 12, 16) + 8, 0x7fb3e018ULL);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.memmap_tag, 17);
	CHECK_EQ(BI.nr_efi_descs, ARRAY_SIZE(d));
	CHECK_EQ(BI.efi_systab, 0x7fb3e018ULL);
	CHECK_EQ(BI.efi_systab_tag, 12);
	CHECK_EQ(BI.memmap.nr_raw, ARRAY_SIZE(want));
	for (u32 i = 0; i < BI.memmap.nr_raw && i < ARRAY_SIZE(want); i++)
		CHECK_EQ(BI.memmap.raw[i].type, want[i]);
	CHECK_EQ(fw_memmap_ram_bytes(&BI.memmap), 0x9f000ULL + 0x800000);	/* page 0 is the BIOS's */
	for (u32 i = 0; i < BI.memmap.nr; i++)
		CHECK(strcmp(fw_mem_type_name(BI.memmap.map[i].type), "Unknown E820 type"));
	/* tag 6 after tag 17 is ignored */
	mb_begin(&B);
	mb_efi_mmap(&B, 40, d, 2);
	mb_mmap(&B, 24, qemu_2g, ARRAY_SIZE(qemu_2g));
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK_EQ(BI.memmap_tag, 17);
	CHECK_EQ(BI.memmap.nr_raw, 2);
	CHECK(has_boot_note("memory map tag 6 after the EFI memory map"));
}

/* Hostile descriptors: overlapping, unaligned, zero-length, huge. */
HTEST(mb2_efi_mmap_hostile)
{
	static const struct efi_desc d[] = {
		{ 7, 0x100000, 0x100, WB },
		{ 0, 0x180000, 0x10, 0 },			/* overlaps the RAM */
		{ 7, 0x300123, 0x10, WB },			/* unaligned */
		{ 7, 0x500000, 0, WB },				/* zero length */
		{ 7, 0x1000000, 0xffffffffffffffffULL, WB },	/* huge: wraps */
		{ 7, 0xfff0000000000000ULL, 0x10, WB },		/* above 2^52 */
	};

	mb_begin(&B);
	mb_efi_mmap(&B, 40, d, ARRAY_SIZE(d));
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	for (u32 i = 0; i < BI.memmap.nr; i++) {
		const struct fw_range *r = &BI.memmap.map[i];

		CHECK(r->start < r->end);
		CHECK(r->end <= FW_PHYS_LIMIT);
		if (r->type == FW_MEM_RAM)
			CHECK(!(r->start & 0xfff) && !(r->end & 0xfff));
	}
	CHECK(BI.memmap.nr_notes > 0);
	/* descriptor size too small, and a tag cut inside a descriptor */
	mb_begin(&B);
	put_u32(mb_tag(&B, 17, 16 + 40) + 8, 24);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK(has_boot_note("descriptor size 24 is below 40"));
	CHECK_EQ(BI.memmap_tag, 0);
	mb_begin(&B);
	put_u32(mb_tag(&B, 17, 16 + 40 + 12) + 8, 40);
	mb_end(&B);
	CHECK_EQ(multiboot2_parse(&BI, B.buf, sizeof(B.buf), 0), 0);
	CHECK(has_boot_note("12 bytes after the last whole descriptor"));
}

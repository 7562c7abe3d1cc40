/*
 * ktest_memmap.c - in-kernel self-tests of the firmware memory map
 * (`selftest memmap`).
 *
 * The cases run fw_memmap_sanitize() and multiboot2_parse() on private
 * fixtures (static structures, too big for the kernel stack) and never touch
 * boot_info, except the last case, which only reads the live map to check
 * that what the kernel booted with is sorted, non-overlapping and has RAM in
 * whole pages.  The host tests (tests/host/test_fw_memmap.c) cover the same
 * code in depth; these show that the kernel build of it behaves the same.
 */
#include <arch/bootinfo.h>
#include <lib/errno.h>
#include <lib/fw_memmap.h>
#include <kernel/ktest.h>
#include <lib/string.h>

static struct fw_memmap fixture;
static struct boot_info bi_fixture;
static u8 mbi_fixture[256] __aligned(8);

static void fixture_build(const struct fw_range *raw, size_t n)
{
	fw_memmap_init(&fixture);
	for (size_t i = 0; i < n; i++)
		fw_memmap_add_raw(&fixture, raw[i].start,
				  raw[i].end - raw[i].start, raw[i].type);
	fw_memmap_sanitize(&fixture);
}

/* The checks every sanitized map must pass. */
static void expect_sane(struct ktest *t, const struct fw_memmap *m)
{
	for (u32 i = 0; i < m->nr; i++) {
		const struct fw_range *r = &m->map[i];

		KTEST_EXPECT(t, r->start < r->end);
		KTEST_EXPECT(t, r->end <= FW_PHYS_LIMIT);
		if (r->type == FW_MEM_RAM) {
			KTEST_EXPECT(t, IS_ALIGNED(r->start, SZ_4K));
			KTEST_EXPECT(t, IS_ALIGNED(r->end, SZ_4K));
		}
		if (i > 0)
			KTEST_EXPECT(t, m->map[i - 1].end <= r->start);
	}
}

/*
 *   RAM      [0x0-----------------0x100000)
 *   Reserved       [0x40000-0x50000)
 * Expect RAM, Reserved, RAM.
 */
static void reserved_splits_ram(struct ktest *t)
{
	static const struct fw_range raw[] = {
		{ 0x40000, 0x50000, FW_MEM_RESERVED },
		{ 0x0, 0x100000, FW_MEM_RAM },
	};

	fixture_build(raw, ARRAY_SIZE(raw));
	KTEST_ASSERT(t, fixture.nr == 3);
	KTEST_EXPECT_EQ(t, fixture.map[0].end, 0x40000);
	KTEST_EXPECT_EQ(t, fixture.map[1].type, FW_MEM_RESERVED);
	KTEST_EXPECT_EQ(t, fixture.map[2].start, 0x50000);
	KTEST_EXPECT_EQ(t, fixture.map[2].type, FW_MEM_RAM);
	KTEST_EXPECT_EQ(t, fixture.nr_notes, 1);
	expect_sane(t, &fixture);
}

/* Unusable > Reserved > NVS > ACPI > PMEM > RAM, on one page. */
static void overlap_priority(struct ktest *t)
{
	static const struct fw_range raw[] = {
		{ 0x1000, 0x2000, FW_MEM_RAM },
		{ 0x1000, 0x2000, FW_MEM_ACPI },
		{ 0x1000, 0x2000, FW_MEM_NVS },
		{ 0x1000, 0x2000, FW_MEM_PMEM },
		{ 0x3000, 0x4000, FW_MEM_NVS },
		{ 0x3000, 0x4000, FW_MEM_RESERVED },
		{ 0x5000, 0x6000, FW_MEM_BAD },
		{ 0x5000, 0x6000, 99 },
	};

	fixture_build(raw, ARRAY_SIZE(raw));
	KTEST_ASSERT(t, fixture.nr == 3);
	KTEST_EXPECT_EQ(t, fixture.map[0].type, FW_MEM_NVS);
	KTEST_EXPECT_EQ(t, fixture.map[1].type, FW_MEM_RESERVED);
	KTEST_EXPECT_EQ(t, fixture.map[2].type, FW_MEM_BAD);
}

/* RAM is trimmed inward to pages; a sliver with no whole page goes. */
static void ram_trimmed_to_pages(struct ktest *t)
{
	static const struct fw_range raw[] = {
		{ 0x0, 0x9fc00, FW_MEM_RAM },
		{ 0x9fc00, 0xa0000, FW_MEM_RESERVED },
		{ 0x100800, 0x101800, FW_MEM_RAM },
	};

	fixture_build(raw, ARRAY_SIZE(raw));
	KTEST_ASSERT(t, fixture.nr == 2);
	KTEST_EXPECT_EQ(t, fixture.map[0].end, 0x9f000);
	KTEST_EXPECT_EQ(t, fixture.map[1].start, 0x9fc00);
	KTEST_EXPECT_EQ(t, fixture.nr_notes, 2);
	KTEST_EXPECT_STREQ(t, fixture.notes[0],
			   "trimmed RAM [0x0-0x9fc00) to [0x0-0x9f000): not page aligned");
}

static void put_u32(u8 *p, u32 v)
{
	memcpy(p, &v, sizeof(v));
}

/* A small block: cmdline, a one-entry memory map, and the end tag. */
static void multiboot2_small_block(struct ktest *t)
{
	u8 *b = mbi_fixture;
	u64 base = 0x100000, len = 0x7fedf000;

	memset(b, 0, sizeof(mbi_fixture));
	put_u32(b + 0, 8 + 16 + 40 + 8);	/* total_size */
	put_u32(b + 8, 1);			/* cmdline tag */
	put_u32(b + 12, 8 + 7);
	memcpy(b + 16, "a=1 b=", 7);
	put_u32(b + 24, 6);			/* memory map tag */
	put_u32(b + 28, 16 + 24);
	put_u32(b + 32, 24);			/* entry_size */
	put_u32(b + 36, 0);			/* entry_version */
	memcpy(b + 40, &base, 8);
	memcpy(b + 48, &len, 8);
	put_u32(b + 56, FW_MEM_RAM);
	/* end tag at 64: type 0, size 8 */
	put_u32(b + 68, 8);

	KTEST_ASSERT(t, multiboot2_parse(&bi_fixture, b, sizeof(mbi_fixture), 0x1234000) == 0);
	KTEST_EXPECT_STREQ(t, bi_fixture.cmdline, "a=1 b=");
	KTEST_EXPECT_EQ(t, bi_fixture.nr_tags, 3);
	KTEST_EXPECT_EQ(t, bi_fixture.nr_notes, 0);
	KTEST_EXPECT_EQ(t, bi_fixture.mbi_end, 0x1234000 + 72);
	KTEST_ASSERT(t, bi_fixture.memmap.nr == 1);
	KTEST_EXPECT_EQ(t, bi_fixture.memmap.map[0].end, 0x7ffdf000);

	/* A size that runs past the end stops the walk, and is noted. */
	put_u32(b + 28, 4096);
	KTEST_ASSERT(t, multiboot2_parse(&bi_fixture, b, sizeof(mbi_fixture), 0) == 0);
	KTEST_EXPECT_EQ(t, bi_fixture.memmap.nr, 0);
	KTEST_EXPECT(t, bi_fixture.nr_notes >= 1);
}

static void cmdline_lookup(struct ktest *t)
{
	char buf[16];

	KTEST_EXPECT_EQ(t, cmdline_get("a=1 b c=\"x y\" a=2", "a", buf, sizeof(buf)), 0);
	KTEST_EXPECT_STREQ(t, buf, "2");
	KTEST_EXPECT_EQ(t, cmdline_get("a=1 b c=\"x y\"", "c", buf, sizeof(buf)), 0);
	KTEST_EXPECT_STREQ(t, buf, "x y");
	KTEST_EXPECT_EQ(t, cmdline_get("a=1 b c=\"x y\"", "b", buf, sizeof(buf)), 0);
	KTEST_EXPECT_STREQ(t, buf, "");
	KTEST_EXPECT_EQ(t, cmdline_get("a=1", "z", buf, sizeof(buf)), -ENOENT);
}

/* The map the kernel booted with: read only. */
static void live_map_is_sane(struct ktest *t)
{
	const struct fw_memmap *m = &boot_info.memmap;

	if (m->nr == 0) {
		ktest_skip(t, "no firmware memory map was given");
		return;
	}
	expect_sane(t, m);
	KTEST_EXPECT(t, fw_memmap_ram_bytes(m) > 0);
}

static const struct ktest_case memmap_cases[] = {
	KTEST_CASE(reserved_splits_ram),
	KTEST_CASE(overlap_priority),
	KTEST_CASE(ram_trimmed_to_pages),
	KTEST_CASE(multiboot2_small_block),
	KTEST_CASE(cmdline_lookup),
	KTEST_CASE(live_map_is_sane),
};

KTEST_SUITE(memmap, "memmap", memmap_cases);

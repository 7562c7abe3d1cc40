/*
 * test_fw_memmap.c - fw_memmap_sanitize(), the dump and the /proc/iomem text.
 *
 * Each case feeds raw entries (start, length, type) as a firmware would and
 * compares the whole sanitized table with the expected one, then checks that
 * the change was noted.  Ranges in comments are half-open [start, end).
 */
#include "htest.h"
#include <lib/fw_memmap.h>
#include <lib/printer.h>

#define RAM	FW_MEM_RAM
#define RES	FW_MEM_RESERVED
#define ACPI	FW_MEM_ACPI
#define NVS	FW_MEM_NVS
#define BAD	FW_MEM_BAD
#define PMEM	FW_MEM_PMEM

struct raw_entry {
	u64 start, len;
	u32 type;
};

static struct fw_memmap M;	/* 10 KiB: static, not on the stack */
static char text[65536];

static void build(const struct raw_entry *e, size_t n)
{
	fw_memmap_init(&M);
	for (size_t i = 0; i < n; i++)
		fw_memmap_add_raw(&M, e[i].start, e[i].len, e[i].type);
	fw_memmap_sanitize(&M);
}

static void print_map(const struct fw_range *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "      [0x%llx-0x%llx) type %u\n",
			(unsigned long long)r[i].start,
			(unsigned long long)r[i].end, r[i].type);
}

/* Compare M.map with want[0, n); on a difference print both tables. */
static void expect_map_at(const struct fw_range *want, size_t n, int line)
{
	bool same = M.nr == n;

	for (size_t i = 0; same && i < n; i++)
		same = M.map[i].start == want[i].start &&
		       M.map[i].end == want[i].end &&
		       M.map[i].type == want[i].type;
	if (same)
		return;
	htest_failures++;
	fprintf(stderr, "  %s:%d: sanitized map differs\n    got:\n", __FILE__, line);
	print_map(M.map, M.nr);
	fprintf(stderr, "    expected:\n");
	print_map(want, n);
}
#define EXPECT_MAP(...)							\
	do {								\
		static const struct fw_range want_[] = { __VA_ARGS__ };	\
		expect_map_at(want_, ARRAY_SIZE(want_), __LINE__);	\
	} while (0)

/* Is there a kept note containing s? */
static bool has_note(const char *s)
{
	for (u32 i = 0; i < M.nr_notes && i < FW_MEMMAP_NOTES; i++)
		if (strstr(M.notes[i], s))
			return true;
	fprintf(stderr, "    no note contains \"%s\"; notes:\n", s);
	for (u32 i = 0; i < M.nr_notes && i < FW_MEMMAP_NOTES; i++)
		fprintf(stderr, "      %s\n", M.notes[i]);
	return false;
}

static const char *dump_text(void)
{
	struct buf_printer bp;

	buf_printer_init(&bp, text, sizeof(text));
	fw_memmap_dump(&M, &bp.p);
	CHECK(!bp.overflow);
	return text;
}

static const char *iomem_text(const struct fw_iomem_child *c, size_t n)
{
	struct buf_printer bp;

	buf_printer_init(&bp, text, sizeof(text));
	fw_memmap_print_iomem(&M, c, n, &bp.p);
	CHECK(!bp.overflow);
	return text;
}

/* The e820 map SeaBIOS gives a q35 guest with 2 GiB (see iomem.txt). */
static const struct raw_entry qemu_2g[] = {
	{ 0x0, 0x9fc00, RAM },
	{ 0x9fc00, 0x400, RES },
	{ 0xf0000, 0x10000, RES },
	{ 0x100000, 0x7fedf000, RAM },
	{ 0x7ffdf000, 0x21000, RES },
	{ 0xb0000000, 0x10000000, RES },
	{ 0xfed1c000, 0x4000, RES },
	{ 0xfffc0000, 0x40000, RES },
};

#define QEMU_2G_SANITIZED						\
	{ 0x0, 0x9f000, RAM },						\
	{ 0x9fc00, 0xa0000, RES },					\
	{ 0xf0000, 0x100000, RES },					\
	{ 0x100000, 0x7ffdf000, RAM },					\
	{ 0x7ffdf000, 0x80000000, RES },				\
	{ 0xb0000000, 0xc0000000, RES },				\
	{ 0xfed1c000, 0xfed20000, RES },				\
	{ 0xfffc0000, 0x100000000, RES }

HTEST(fw_memmap_qemu_2g)
{
	build(qemu_2g, ARRAY_SIZE(qemu_2g));
	EXPECT_MAP(QEMU_2G_SANITIZED);
	/* The only change: the low RAM ends inside a page. */
	CHECK_EQ(M.nr_notes, 1);
	CHECK_STREQ(M.notes[0],
		    "trimmed RAM [0x0-0x9fc00) to [0x0-0x9f000): not page aligned");
	CHECK_EQ(fw_memmap_ram_bytes(&M), 2096632ULL << 10);
	CHECK(strstr(dump_text(),
		     "System RAM: 2096632 KiB in 2 ranges (524158 pages)\n"));
}

HTEST(fw_memmap_dump_exact)
{
	build(qemu_2g, ARRAY_SIZE(qemu_2g));
	CHECK_STREQ(dump_text(),
		"firmware memory map, as given (8 entries):\n"
		"  start              length             type\n"
		"  0x0000000000000000 0x000000000009fc00 1 (System RAM)\n"
		"  0x000000000009fc00 0x0000000000000400 2 (Reserved)\n"
		"  0x00000000000f0000 0x0000000000010000 2 (Reserved)\n"
		"  0x0000000000100000 0x000000007fedf000 1 (System RAM)\n"
		"  0x000000007ffdf000 0x0000000000021000 2 (Reserved)\n"
		"  0x00000000b0000000 0x0000000010000000 2 (Reserved)\n"
		"  0x00000000fed1c000 0x0000000000004000 2 (Reserved)\n"
		"  0x00000000fffc0000 0x0000000000040000 2 (Reserved)\n"
		"sanitized map (8 ranges):\n"
		"  [mem 0x0000000000000000-0x000000000009efff]    636 KiB  System RAM\n"
		"  [mem 0x000000000009fc00-0x000000000009ffff]      1 KiB  Reserved\n"
		"  [mem 0x00000000000f0000-0x00000000000fffff]     64 KiB  Reserved\n"
		"  [mem 0x0000000000100000-0x000000007ffdefff]    1.9 GiB  System RAM\n"
		"  [mem 0x000000007ffdf000-0x000000007fffffff]    132 KiB  Reserved\n"
		"  [mem 0x00000000b0000000-0x00000000bfffffff]    256 MiB  Reserved\n"
		"  [mem 0x00000000fed1c000-0x00000000fed1ffff]     16 KiB  Reserved\n"
		"  [mem 0x00000000fffc0000-0x00000000ffffffff]    256 KiB  Reserved\n"
		"notes (1):\n"
		"  trimmed RAM [0x0-0x9fc00) to [0x0-0x9f000): not page aligned\n"
		"System RAM: 2096632 KiB in 2 ranges (524158 pages)\n");
}

/* q35, 8 GiB, -cpu max: RAM above 4 GiB and the 12 GiB hole below 1 TiB. */
static const struct raw_entry qemu_8g_cpu_max[] = {
	{ 0x0, 0x9fc00, RAM },
	{ 0x9fc00, 0x400, RES },
	{ 0xf0000, 0x10000, RES },
	{ 0x100000, 0x7fedf000, RAM },
	{ 0x7ffdf000, 0x21000, RES },
	{ 0xb0000000, 0x10000000, RES },
	{ 0xfed1c000, 0x4000, RES },
	{ 0xfffc0000, 0x40000, RES },
	{ 0x100000000, 0x180000000, RAM },
	{ 0xfd00000000, 0x300000000, RES },
};

HTEST(fw_memmap_qemu_8g_cpu_max)
{
	build(qemu_8g_cpu_max, ARRAY_SIZE(qemu_8g_cpu_max));
	EXPECT_MAP(QEMU_2G_SANITIZED,
		   { 0x100000000, 0x280000000, RAM },
		   { 0xfd00000000, 0x10000000000, RES });
	CHECK_EQ(M.nr_notes, 1);
	CHECK_EQ(fw_memmap_ram_bytes(&M), (2096632ULL << 10) + 0x180000000ULL);
	CHECK(strstr(dump_text(), "in 3 ranges"));
	CHECK(strstr(dump_text(),
		     "  [mem 0x000000fd00000000-0x000000ffffffffff]     12 GiB  Reserved\n"));
}

HTEST(fw_memmap_unsorted)
{
	struct raw_entry e[ARRAY_SIZE(qemu_8g_cpu_max)];

	/* Reverse order, then swap a few: the result must not change. */
	for (size_t i = 0; i < ARRAY_SIZE(e); i++)
		e[i] = qemu_8g_cpu_max[ARRAY_SIZE(e) - 1 - i];
	struct raw_entry t = e[2]; e[2] = e[7]; e[7] = t;
	build(e, ARRAY_SIZE(e));
	EXPECT_MAP(QEMU_2G_SANITIZED,
		   { 0x100000000, 0x280000000, RAM },
		   { 0xfd00000000, 0x10000000000, RES });
	CHECK_EQ(M.nr_notes, 1);
}

/*
 *   RAM        [0x2000-0x3000)
 *   Reserved [0x1000---------0x10000)
 * Expect only the Reserved range: RAM inside it loses entirely.
 */
HTEST(fw_memmap_ram_inside_reserved)
{
	static const struct raw_entry e[] = {
		{ 0x1000, 0xf000, RES },
		{ 0x2000, 0x1000, RAM },
	};

	build(e, ARRAY_SIZE(e));
	EXPECT_MAP({ 0x1000, 0x10000, RES });
	CHECK(has_note("Reserved [0x1000-0x10000) overlaps RAM [0x2000-0x3000): "
		       "Reserved wins for [0x2000-0x3000)"));
}

/*
 *   RAM      [0x0----------------------0x100000)
 *   Reserved       [0x40000-0x50000)
 * Expect RAM split in two around the Reserved range.
 */
HTEST(fw_memmap_reserved_splits_ram)
{
	static const struct raw_entry e[] = {
		{ 0x0, 0x100000, RAM },
		{ 0x40000, 0x10000, RES },
	};

	build(e, ARRAY_SIZE(e));
	EXPECT_MAP({ 0x0, 0x40000, RAM },
		   { 0x40000, 0x50000, RES },
		   { 0x50000, 0x100000, RAM });
	CHECK(has_note("RAM [0x0-0x100000) overlaps Reserved [0x40000-0x50000): "
		       "Reserved wins for [0x40000-0x50000)"));
	CHECK_EQ(M.nr_notes, 1);
}

/* RAM [0-0x10000) and ACPI [0x8000-0x20000) overlap by half: ACPI wins. */
HTEST(fw_memmap_partial_overlap)
{
	static const struct raw_entry e[] = {
		{ 0x8000, 0x18000, ACPI },
		{ 0x0, 0x10000, RAM },
	};

	build(e, ARRAY_SIZE(e));
	EXPECT_MAP({ 0x0, 0x8000, RAM }, { 0x8000, 0x20000, ACPI });
	CHECK(has_note("ACPI wins for [0x8000-0x10000)"));
}

/* An unaligned ACPI range inside RAM: the RAM on both sides is trimmed. */
HTEST(fw_memmap_unaligned_hole_in_ram)
{
	static const struct raw_entry e[] = {
		{ 0x0, 0x10000, RAM },
		{ 0x8800, 0x400, ACPI },
	};

	build(e, ARRAY_SIZE(e));
	EXPECT_MAP({ 0x0, 0x8000, RAM },
		   { 0x8800, 0x8c00, ACPI },
		   { 0x9000, 0x10000, RAM });
	CHECK(has_note("trimmed RAM [0x0-0x8800) to [0x0-0x8000): not page aligned"));
	CHECK(has_note("trimmed RAM [0x8c00-0x10000) to [0x9000-0x10000): not page aligned"));
}

/* Each pair of the priority order, in both entry orders. */
HTEST(fw_memmap_priority_pairs)
{
	static const u32 order[] = { BAD, RES, NVS, ACPI, PMEM, RAM };

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		for (size_t j = i + 1; j < ARRAY_SIZE(order); j++) {
			struct raw_entry e[2] = {
				{ 0x1000, 0x2000, order[i] },
				{ 0x2000, 0x2000, order[j] },
			};
			struct raw_entry r[2] = { e[1], e[0] };

			/* order[i] wins [0x2000-0x3000) and keeps its own part. */
			build(e, 2);
			CHECK_EQ(M.nr, 2);
			CHECK_EQ(M.map[0].type, order[i]);
			CHECK_EQ(M.map[0].end, 0x3000);
			CHECK_EQ(M.map[1].type, order[j]);
			CHECK_EQ(M.map[1].start, 0x3000);
			build(r, 2);
			CHECK_EQ(M.nr, 2);
			CHECK_EQ(M.map[0].type, order[i]);
			CHECK_EQ(M.map[0].end, 0x3000);
		}
	}
}

/* Six entries over one page: Unusable wins over all of them. */
HTEST(fw_memmap_priority_stack)
{
	static const struct raw_entry e[] = {
		{ 0x1000, 0x1000, RAM },
		{ 0x1000, 0x1000, PMEM },
		{ 0x1000, 0x1000, ACPI },
		{ 0x1000, 0x1000, BAD },
		{ 0x1000, 0x1000, NVS },
		{ 0x1000, 0x1000, RES },
	};

	build(e, ARRAY_SIZE(e));
	EXPECT_MAP({ 0x1000, 0x2000, BAD });
	CHECK_EQ(M.nr_notes, 15);	/* one per pair */
}

/* Unknown types rank with Reserved, keep their number, larger number wins. */
HTEST(fw_memmap_unknown_types)
{
	static const struct raw_entry e[] = {
		{ 0x10000, 0x1000, 9 },
		{ 0x20000, 0x2000, NVS },
		{ 0x21000, 0x2000, 9 },		/* beats NVS */
		{ 0x30000, 0x2000, 0x1234 },
		{ 0x31000, 0x2000, RES },	/* same rank, 0x1234 > 2 */
		{ 0x40000, 0x2000, 0 },
		{ 0x41000, 0x2000, BAD },	/* beats every unknown type */
	};

	build(e, ARRAY_SIZE(e));
	EXPECT_MAP({ 0x10000, 0x11000, 9 },
		   { 0x20000, 0x21000, NVS },
		   { 0x21000, 0x23000, 9 },
		   { 0x30000, 0x32000, 0x1234 },
		   { 0x32000, 0x33000, RES },
		   { 0x40000, 0x41000, 0 },
		   { 0x41000, 0x43000, BAD });
	CHECK(has_note("NVS [0x20000-0x22000) overlaps type 9 [0x21000-0x23000): type 9 wins"));
	CHECK(strstr(dump_text(), "  0x0000000000010000 0x0000000000001000 9 (Unknown E820 type)\n"));
}

/* Same-type overlaps, duplicates and adjacent entries become one range. */
HTEST(fw_memmap_merge_same_type)
{
	static const struct raw_entry e[] = {
		{ 0x0, 0x5000, RAM },
		{ 0x3000, 0x5000, RAM },	/* overlaps the first */
		{ 0x10000, 0x1000, RES },
		{ 0x11000, 0x1000, RES },	/* adjacent */
		{ 0x11000, 0x1000, RES },	/* duplicate */
		{ 0x12000, 0x1000, ACPI },	/* adjacent, other type: kept apart */
	};

	build(e, ARRAY_SIZE(e));
	EXPECT_MAP({ 0x0, 0x8000, RAM },
		   { 0x10000, 0x12000, RES },
		   { 0x12000, 0x13000, ACPI });
	CHECK(has_note("RAM [0x0-0x5000) overlaps RAM [0x3000-0x8000): merged"));
	CHECK(has_note("Reserved [0x10000-0x11000) and [0x11000-0x12000) are adjacent: merged"));
}

/* Two unaligned RAM halves that together make whole pages lose nothing. */
HTEST(fw_memmap_merge_before_trim)
{
	static const struct raw_entry e[] = {
		{ 0x1800, 0x1800, RAM },
		{ 0x1000, 0x800, RAM },
	};

	build(e, ARRAY_SIZE(e));
	EXPECT_MAP({ 0x1000, 0x3000, RAM });
	CHECK_EQ(M.nr_notes, 1);	/* the adjacency, no trimming */
}

HTEST(fw_memmap_zero_length)
{
	static const struct raw_entry e[] = {
		{ 0x5000, 0, RAM },
		{ 0x8000, 0x1000, RES },
		{ 0x8800, 0, NVS },
	};

	build(e, ARRAY_SIZE(e));
	EXPECT_MAP({ 0x8000, 0x9000, RES });
	CHECK(has_note("dropped zero-length RAM entry at 0x5000"));
	CHECK(has_note("dropped zero-length NVS entry at 0x8800"));
	CHECK_EQ(M.nr_notes, 2);
}

HTEST(fw_memmap_wrap_and_phys_limit)
{
	static const struct raw_entry e[] = {
		/* wraps past 2^64: kept up to the 52-bit limit */
		{ 0x10000000000, 0xffffffffffff0000ULL, RES },
		/* starts above the limit: dropped */
		{ 0xfffffffffffff000ULL, 0x2000, RAM },
		{ FW_PHYS_LIMIT, 0x1000, RES },
		/* crosses the limit: cut there */
		{ FW_PHYS_LIMIT - 0x2000, 0x4000, RAM },
		{ 0x1000, 0x1000, RAM },
	};

	build(e, ARRAY_SIZE(e));
	EXPECT_MAP({ 0x1000, 0x2000, RAM },
		   { 0x10000000000, FW_PHYS_LIMIT, RES });
	CHECK(has_note("clipped Reserved at 0x10000000000 length 0xffffffffffff0000: "
		       "wraps past 2^64, kept [0x10000000000-0x10000000000000)"));
	CHECK(has_note("dropped RAM at 0xfffffffffffff000 length 0x2000: above the 52-bit"));
	CHECK(has_note("dropped Reserved at 0x10000000000000 length 0x1000"));
	CHECK(has_note("clipped RAM [0xfffffffffe000-0x10000000002000) to "
		       "[0xfffffffffe000-0x10000000000000): beyond the 52-bit"));
	/* The raw table still shows what was given. */
	CHECK(strstr(dump_text(), "  0xfffffffffffff000 0x0000000000002000 1 (System RAM)\n"));
}

HTEST(fw_memmap_unaligned_ram)
{
	static const struct raw_entry e[] = {
		{ 0x1234, 0x4444, RAM },	/* [0x1234-0x5678) */
		{ 0x7100, 0xe00, RAM },		/* [0x7100-0x7f00): no whole page */
		{ 0x9fc00, 0x400, RES },	/* non-RAM is never trimmed */
	};

	build(e, ARRAY_SIZE(e));
	EXPECT_MAP({ 0x2000, 0x5000, RAM },
		   { 0x9fc00, 0xa0000, RES });
	CHECK(has_note("trimmed RAM [0x1234-0x5678) to [0x2000-0x5000): not page aligned"));
	CHECK(has_note("dropped RAM [0x7100-0x7f00): no whole 4 KiB page in it"));
}

HTEST(fw_memmap_too_many_raw_entries)
{
	fw_memmap_init(&M);
	for (u64 i = 0; i < FW_MEMMAP_MAX + 2; i++)
		fw_memmap_add_raw(&M, i * 0x2000, 0x1000, RES);
	fw_memmap_sanitize(&M);
	CHECK_EQ(M.nr_raw, FW_MEMMAP_MAX);
	CHECK_EQ(M.nr_raw_dropped, 2);
	CHECK_EQ(M.nr, FW_MEMMAP_MAX);
	CHECK_EQ(M.map[FW_MEMMAP_MAX - 1].start, (FW_MEMMAP_MAX - 1) * 0x2000);
	CHECK(has_note("dropped 2 firmware entries beyond the first 128"));
	CHECK(strstr(dump_text(), "  ... and 2 more entries that did not fit\n"));
}

/* 127 holes punched in one RAM range make 255 ranges: 128 fit. */
HTEST(fw_memmap_sanitized_overflow)
{
	fw_memmap_init(&M);
	fw_memmap_add_raw(&M, 0, SZ_1G, RAM);
	for (u64 i = 1; i < FW_MEMMAP_MAX; i++)
		fw_memmap_add_raw(&M, i * 0x10000, 0x1000, RES);
	fw_memmap_sanitize(&M);
	CHECK_EQ(M.nr, FW_MEMMAP_MAX);
	CHECK_EQ(M.nr_dropped, 2 * FW_MEMMAP_MAX - 1 - FW_MEMMAP_MAX);
	for (u32 i = 1; i < M.nr; i++)
		CHECK(M.map[i - 1].end <= M.map[i].start);
	/* 127 overlap notes fill the note array: the rest is counted. */
	CHECK_EQ(M.nr_notes, 127 + 1);
	CHECK(strstr(dump_text(), "  ... and 127 more ranges that did not fit\n"));
	CHECK(strstr(dump_text(), "  ... and 96 more notes not kept\n"));
}

HTEST(fw_memmap_empty)
{
	build(NULL, 0);
	CHECK_EQ(M.nr, 0);
	CHECK_EQ(M.nr_notes, 0);
	CHECK_EQ(fw_memmap_ram_bytes(&M), 0);
	CHECK(strstr(dump_text(), "System RAM: 0 KiB in 0 ranges (0 pages)\n"));
}

/* Sanitizing twice gives the same map and the same notes. */
HTEST(fw_memmap_resanitize)
{
	struct fw_range first[FW_MEMMAP_MAX];
	u32 nr, nr_notes;

	build(qemu_8g_cpu_max, ARRAY_SIZE(qemu_8g_cpu_max));
	nr = M.nr;
	nr_notes = M.nr_notes;
	memcpy(first, M.map, sizeof(first));
	fw_memmap_sanitize(&M);
	CHECK_EQ(M.nr, nr);
	CHECK_EQ(M.nr_notes, nr_notes);
	CHECK(memcmp(first, M.map, nr * sizeof(first[0])) == 0);
}

HTEST(fw_mem_type_names)
{
	CHECK_STREQ(fw_mem_type_name(1), "System RAM");
	CHECK_STREQ(fw_mem_type_name(2), "Reserved");
	CHECK_STREQ(fw_mem_type_name(3), "ACPI Tables");
	CHECK_STREQ(fw_mem_type_name(4), "ACPI Non-volatile Storage");
	CHECK_STREQ(fw_mem_type_name(5), "Unusable memory");
	CHECK_STREQ(fw_mem_type_name(7), "Persistent Memory");
	CHECK_STREQ(fw_mem_type_name(12), "Persistent Memory (legacy)");
	CHECK_STREQ(fw_mem_type_name(0xefffffff), "Soft Reserved");
	CHECK_STREQ(fw_mem_type_name(6), "Unknown E820 type");
	CHECK_STREQ(fw_mem_type_name(0), "Unknown E820 type");
}

/* Kernel image parts as GRUB loads memlab at 1 MiB. */
static const struct fw_iomem_child kernel_parts[] = {
	{ 0x100000, 0x10a345, "Kernel code" },
	{ 0x10b000, 0x10e000, "Kernel rodata" },
	{ 0x10e000, 0x10f2c0, "Kernel data" },
	{ 0x110000, 0x131000, "Kernel bss" },
};

HTEST(iomem_qemu_2g_exact)
{
	build(qemu_2g, ARRAY_SIZE(qemu_2g));
	CHECK_STREQ(iomem_text(kernel_parts, ARRAY_SIZE(kernel_parts)),
		"00000000-0009efff : System RAM\n"
		"0009fc00-0009ffff : Reserved\n"
		"000f0000-000fffff : Reserved\n"
		"00100000-7ffdefff : System RAM\n"
		"  00100000-0010a344 : Kernel code\n"
		"  0010b000-0010dfff : Kernel rodata\n"
		"  0010e000-0010f2bf : Kernel data\n"
		"  00110000-00130fff : Kernel bss\n"
		"7ffdf000-7fffffff : Reserved\n"
		"b0000000-bfffffff : Reserved\n"
		"fed1c000-fed1ffff : Reserved\n"
		"fffc0000-ffffffff : Reserved\n");
}

HTEST(iomem_high_ranges_widen)
{
	build(qemu_8g_cpu_max, ARRAY_SIZE(qemu_8g_cpu_max));
	const char *t = iomem_text(NULL, 0);

	CHECK(strstr(t, "\nfffc0000-ffffffff : Reserved\n"
		        "100000000-27fffffff : System RAM\n"
		        "fd00000000-ffffffffff : Reserved\n"));
	CHECK(!strstr(t, "Kernel"));
}

/* Children outside every range, straddling two, or empty are not printed. */
HTEST(iomem_children_must_fit)
{
	static const struct raw_entry e[] = {
		{ 0x1000, 0x1000, RAM },
		{ 0x2000, 0x1000, RES },
		{ 0x4000, 0x1000, ACPI },
	};
	static const struct fw_iomem_child c[] = {
		{ 0x1800, 0x2800, "straddles" },
		{ 0x3000, 0x3100, "in a hole" },
		{ 0x4000, 0x4000, "empty" },
		{ 0x4100, 0x4200, "inside ACPI" },
		{ 0x1000, 0x2000, "whole RAM" },
	};

	build(e, ARRAY_SIZE(e));
	CHECK_STREQ(iomem_text(c, ARRAY_SIZE(c)),
		"00001000-00001fff : System RAM\n"
		"  00001000-00001fff : whole RAM\n"
		"00002000-00002fff : Reserved\n"
		"00004000-00004fff : ACPI Tables\n"
		"  00004100-000041ff : inside ACPI\n");
}

/*
 * test_hexdump.c - lib/hexdump.c against the tools it imitates: the rows
 * expected below are what util-linux `hexdump -C` and ACPICA `acpidump -f`
 * printed for the same bytes (a 57-byte SSDT compiled by iasl), so a
 * change of layout that acpixtract or a reader would trip over fails here.
 */
#include "htest.h"
#include <lib/hexdump.h>
#include <lib/string.h>

static const u8 ssdt[57] = {
	0x53, 0x53, 0x44, 0x54, 0x39, 0x00, 0x00, 0x00, 0x02, 0x06, 0x54, 0x45,
	0x53, 0x54, 0x00, 0x00, 0x54, 0x31, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x49, 0x4e, 0x54, 0x4c, 0x25, 0x09, 0x20, 0x20,
	0x08, 0x46, 0x4f, 0x4f, 0x5f, 0x0b, 0x34, 0x12, 0x08, 0x5f, 0x53, 0x35,
	0x5f, 0x12, 0x07, 0x04, 0x0a, 0x05, 0x00, 0x00, 0x00
};

static char out[2048];

static const char *dump(enum hexdump_style style, const void *buf, size_t len)
{
	struct buf_printer bp;

	buf_printer_init(&bp, out, sizeof(out));
	hexdump_buffer(&bp.p, style, buf, len);
	return out;
}

HTEST(hexdump_canonical_as_hexdump_C)
{
	CHECK_STREQ(dump(HEXDUMP_CANONICAL, ssdt, sizeof(ssdt)),
		"00000000  53 53 44 54 39 00 00 00  02 06 54 45 53 54 00 00  |SSDT9.....TEST..|\n"
		"00000010  54 31 00 00 00 00 00 00  01 00 00 00 49 4e 54 4c  |T1..........INTL|\n"
		"00000020  25 09 20 20 08 46 4f 4f  5f 0b 34 12 08 5f 53 35  |%.  .FOO_.4.._S5|\n"
		"00000030  5f 12 07 04 0a 05 00 00  00                       |_........|\n"
		"00000039\n");
	CHECK_STREQ(dump(HEXDUMP_CANONICAL, ssdt, 0), "");
}

/* Rows equal to the one before are one "*"; the partial last row is not. */
HTEST(hexdump_canonical_squeezes_repeated_rows)
{
	u8 z[43] = { 0 };

	memcpy(z + 40, "ABC", 3);
	CHECK_STREQ(dump(HEXDUMP_CANONICAL, z, sizeof(z)),
		"00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n"
		"*\n"
		"00000020  00 00 00 00 00 00 00 00  41 42 43                 |........ABC|\n"
		"0000002b\n");
}

HTEST(hexdump_acpi_as_acpidump)
{
	CHECK_STREQ(dump(HEXDUMP_ACPI, ssdt, sizeof(ssdt)),
		"    0000: 53 53 44 54 39 00 00 00 02 06 54 45 53 54 00 00  SSDT9.....TEST..\n"
		"    0010: 54 31 00 00 00 00 00 00 01 00 00 00 49 4E 54 4C  T1..........INTL\n"
		"    0020: 25 09 20 20 08 46 4F 4F 5F 0B 34 12 08 5F 53 35  %.  .FOO_.4.._S5\n"
		"    0030: 5F 12 07 04 0A 05 00 00 00                       _........\n");
}

/* A file's show() writes in pieces of any size: the rows are the same. */
HTEST(hexdump_streams_in_pieces)
{
	char whole[2048];
	struct buf_printer bp;
	struct hexdump_printer h;

	strlcpy(whole, dump(HEXDUMP_CANONICAL, ssdt, sizeof(ssdt)), sizeof(whole));
	buf_printer_init(&bp, out, sizeof(out));
	hexdump_printer_init(&h, &bp.p, HEXDUMP_CANONICAL);
	for (size_t at = 0, step = 1; at < sizeof(ssdt); at += step, step = step % 7 + 1)
		h.p.write(&h.p, (const char *)ssdt + at,
			  at + step > sizeof(ssdt) ? sizeof(ssdt) - at : step);
	hexdump_finish(&h);
	CHECK_STREQ(out, whole);
}

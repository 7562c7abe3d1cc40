/*
 * test_nfit.c - drivers/acpi/nfit.c on the NFIT QEMU 7.2 gives one 4 GiB
 * NVDIMM (-machine nvdimm=on, captured from the guest: 224 bytes), and on
 * hostile variants of it: a structure of length 0 or running past the
 * table, overlapping SPA ranges, a range beyond the physical address
 * space or over RAM, a map naming a range or control region that is not
 * there.  Each must be refused with the reason, leave no range behind,
 * and never read past the table (ASan: the image is a heap buffer of
 * exactly its size).  Also: a range's node from the SRAT's proximity
 * domain, flush hints, and the structures memlab only counts.
 *
 * The suite `nfit` links drivers/acpi/tables.c, srat.c and nfit.c with the
 * ioremap() below, which serves the image at IMG_PHYS.
 */
#include "htest.h"
#include <drivers/acpi.h>
#include <drivers/nfit.h>
#include <arch/bootinfo.h>
#include <arch/paging.h>
#include <kernel/resource.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>
#include <mm/mm_init.h>
#include "platform_stub.h"

#include <stdlib.h>

#define IMG_PHYS	0x7fe0000ULL

/* QEMU 7.2's NFIT for `-device nvdimm,memdev=nv0` with a 4 GiB backend:
 * SPA range 2 (persistent memory, [4 GiB, 8 GiB), proximity 0), a map of
 * handle 1 onto it with control region 3, the control region (vendor
 * 0x8086, serial 0x123456, format 0x301). */
static const u8 qemu_nfit[224] = {
	0x4e, 0x46, 0x49, 0x54, 0xe0, 0x00, 0x00, 0x00, 0x01, 0x22, 0x42, 0x4f, 0x43, 0x48, 0x53, 0x20,
	0x42, 0x58, 0x50, 0x43, 0x20, 0x20, 0x20, 0x20, 0x01, 0x00, 0x00, 0x00, 0x42, 0x58, 0x50, 0x43,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x38, 0x00, 0x02, 0x00, 0x03, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x79, 0xd3, 0xf0, 0x66, 0xf3, 0xb4, 0x74, 0x40,
	0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x08, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x30, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x03, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x50, 0x00, 0x03, 0x00, 0x86, 0x80, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x56, 0x34, 0x12, 0x00, 0x01, 0x03, 0x00, 0x00,
};

#define SPA_AT		40	/* offsets of QEMU's structures */
#define MEMDEV_AT	96
#define DCR_AT		144

static u8 nfit[1024];		/* the NFIT under test, built from qemu_nfit */
static u32 nfit_len;
static u8 *img;
static size_t img_used;
static struct boot_info bi;
static struct mm_boot_params bp;
static struct fw_memmap fw;
static char out[4096];
static struct buf_printer outp;

void *ioremap(phys_addr_t phys, u64 size, enum ioremap_cache cache)
{
	(void)cache;
	if (!img || phys < IMG_PHYS || phys - IMG_PHYS > img_used ||
	    size > img_used - (phys - IMG_PHYS))
		return NULL;
	return img + (phys - IMG_PHYS);
}

static void sum_fix(u8 *t, size_t len, size_t at)
{
	u8 sum = 0;

	t[at] = 0;
	for (size_t i = 0; i < len; i++)
		sum += t[i];
	t[at] = (u8)-sum;
}

/* Start from QEMU's table. */
static void nfit_begin(void)
{
	memset(nfit, 0, sizeof(nfit));
	memcpy(nfit, qemu_nfit, sizeof(qemu_nfit));
	nfit_len = sizeof(qemu_nfit);
	memset(&fw, 0, sizeof(fw));
	fw.map[0] = (struct fw_range){ 0x100000, 0x7ffe0000, FW_MEM_RAM };
	fw.nr = 1;
}

/* Append a structure of `len` bytes (type and length filled in). */
static u8 *nfit_add(u16 type, u16 len)
{
	u8 *s = nfit + nfit_len;

	memset(s, 0, len);
	memcpy(s, &type, 2);
	memcpy(s + 2, &len, 2);
	nfit_len += len;
	return s;
}

/* A SPA range structure (56 bytes) of persistent memory. */
static u8 *add_pm_spa(u16 index, u64 base, u64 len, u32 pxm)
{
	u8 *s = nfit_add(0, 56);
	u16 flags = NFIT_SPA_PXM_VALID;

	memcpy(s + 4, &index, 2);
	memcpy(s + 6, &flags, 2);
	memcpy(s + 12, &pxm, 4);
	memcpy(s + 16, qemu_nfit + SPA_AT + 16, 16);
	memcpy(s + 32, &base, 8);
	memcpy(s + 40, &len, 8);
	return s;
}

/*
 * Boot the tables: RSDP at 0, RSDT at 32, the NFIT, and an SRAT with one
 * memory entry of pxm `srat_pxm` when srat_pxm >= 0.  The NFIT's header
 * length is nfit_len unless header_len is not 0.  Then srat_parse() and
 * nfit_parse(); returns what nfit_parse() did.
 */
static int nfit_boot(u32 header_len, int srat_pxm)
{
	u8 *s;
	u32 rsdt_phys = (u32)IMG_PHYS + 32, e[2], n = 0, len;
	size_t at = 32 + 36 + 8;

	free(img);
	img_used = at + nfit_len + 48 + 40;
	img = calloc(1, img_used);
	len = header_len ? header_len : nfit_len;
	memcpy(nfit + 4, &len, 4);
	sum_fix(nfit, MIN(len, nfit_len), 9);
	memcpy(img + at, nfit, nfit_len);
	e[n++] = (u32)(IMG_PHYS + at);
	at += nfit_len;
	if (srat_pxm >= 0) {
		u32 slen = 48 + 40, pxm = (u32)srat_pxm, flags = 1;
		u64 base = 0, size = 0x80000000ULL;

		s = img + at;
		memcpy(s, "SRAT", 4);
		memcpy(s + 4, &slen, 4);
		s[8] = 3;
		s[48] = 1;
		s[49] = 40;
		memcpy(s + 50, &pxm, 4);
		memcpy(s + 56, &base, 8);
		memcpy(s + 64, &size, 8);
		memcpy(s + 76, &flags, 4);
		sum_fix(s, slen, 9);
		e[n++] = (u32)(IMG_PHYS + at);
	}
	s = img + 32;
	memcpy(s, "RSDT", 4);
	len = 36 + 4 * n;
	memcpy(s + 4, &len, 4);
	s[8] = 1;
	memcpy(s + 36, e, 4 * n);
	sum_fix(s, len, 9);
	memcpy(img, "RSD PTR ", 8);
	memcpy(img + 16, &rsdt_phys, 4);
	sum_fix(img, 20, 8);

	memset(&bi, 0, sizeof(bi));
	memcpy(bi.rsdp, img, 20);
	bi.rsdp_len = 20;
	bi.rsdp_tag = 14;
	printk_set_level(LOG_CRIT);
	acpi_tables_init(&bi);
	memset(&bp, 0, sizeof(bp));
	srat_parse(&bp);
	buf_printer_init(&outp, out, sizeof(out));
	return nfit_parse(&fw);
}

static void nfit_end(void)
{
	printk_set_level(LOG_INFO);
	free(img);
	img = NULL;
}

/* Refused with `why` in the reason, logged, nothing kept, dump says so. */
static void expect_refused(const char *why)
{
	CHECK(nfit_spa(0) == NULL);
	CHECK(nfit_memdev(0) == NULL);
	CHECK_EQ(nfit_type_count(0), 0);
	CHECK(strstr(nfit_problem(), why) != NULL);
	CHECK(strstr(host_last_log, "NFIT ignored: no persistent memory regions") != NULL);
	nfit_dump(&outp.p);
	CHECK(strstr(out, "NFIT refused: ") != NULL);
}

/* QEMU's table: one persistent-memory range at 4 GiB on node 0. */
HTEST(nfit_qemu_table_is_read)
{
	const struct nfit_spa *spa;
	const struct nfit_memdev *d;

	nfit_begin();
	CHECK_EQ(nfit_boot(0, 0), 1);
	spa = nfit_spa(0);
	CHECK(spa != NULL);
	CHECK_EQ(spa->range_index, 2);
	CHECK_EQ(spa->kind, NFIT_SPA_PM);
	CHECK_EQ(spa->base, SZ_4G);
	CHECK_EQ(spa->length, SZ_4G);
	CHECK_EQ(spa->nid, 0);
	CHECK_EQ(spa->attr, 0x8008);
	d = nfit_memdev(0);
	CHECK(d != NULL);
	CHECK_EQ(d->handle, 1);
	CHECK_EQ(d->spa_index, 2);
	CHECK_EQ(d->dcr_index, 3);
	CHECK_EQ(d->region_size, SZ_4G);
	CHECK_EQ(nfit_dcr(0)->vendor, 0x8086);
	CHECK_EQ(nfit_dcr(0)->serial, 0x123456);
	CHECK(nfit_spa(1) == NULL);
	CHECK_EQ(nfit_type_count(0), 1);
	CHECK_EQ(nfit_type_count(1), 1);
	CHECK_EQ(nfit_type_count(4), 1);
	CHECK_EQ(nfit_type_count(6), 0);
	CHECK_EQ(nfit_problem()[0], '\0');
	nfit_dump(&outp.p);
	CHECK(strstr(out, "NFIT, 224 bytes") != NULL);
	CHECK(strstr(out, "SPA range 2: [mem 0x0000000100000000-0x00000001ffffffff] persistent memory") != NULL);
	CHECK(strstr(out, "66F0D379-B4F3-4074-AC43-0D3318B78CDB") != NULL);
	CHECK(strstr(out, "control region 3: vendor 0x8086") != NULL);
	nfit_end();
}

/* The node is the SRAT's for the range's proximity domain. */
HTEST(nfit_range_node_from_srat)
{
	nfit_begin();
	add_pm_spa(7, 16 * SZ_1G, SZ_1G, 5);
	CHECK_EQ(nfit_boot(0, 5), 2);
	CHECK_EQ(nfit_spa(0)->nid, 0);	/* pxm 0 is in no SRAT entry here: node 0 */
	CHECK_EQ(nfit_spa(1)->nid, 0);	/* pxm 5 is the SRAT's first domain: node 0 */
	nfit_end();
}

HTEST(nfit_structure_of_length_0_is_refused)
{
	nfit_begin();
	nfit_add(6, 16);
	memset(nfit + nfit_len - 14, 0, 2);	/* its length: 0 */
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("has length 0");
	nfit_end();
}

HTEST(nfit_structure_past_the_table_is_refused)
{
	nfit_begin();
	nfit_add(6, 24);
	CHECK_EQ(nfit_boot(nfit_len - 8, -1), 0);	/* the header ends inside it */
	expect_refused("past the end of the table");
	nfit_end();
}

HTEST(nfit_short_structure_is_refused)
{
	nfit_begin();
	nfit_add(0, 40);	/* a SPA range of 40 bytes, not 56 */
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("SPA range at offset 224 has length 40");
	nfit_end();
}

HTEST(nfit_overlapping_ranges_are_refused)
{
	nfit_begin();
	add_pm_spa(9, SZ_4G + SZ_1G, SZ_1G, 0);
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("SPA range 9 [mem 0x140000000-0x17fffffff] overlaps SPA range 2");
	nfit_end();
}

HTEST(nfit_range_beyond_the_address_space_is_refused)
{
	nfit_begin();
	add_pm_spa(9, 1ULL << MAX_PHYSMEM_BITS, SZ_1G, 0);
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("beyond the");
	nfit_begin();
	add_pm_spa(9, ~0ULL - SZ_1G, 2 * SZ_1G, 0);
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("wrap past 2^64");
	nfit_end();
}

HTEST(nfit_range_over_ram_is_refused)
{
	nfit_begin();
	fw.map[1] = (struct fw_range){ SZ_4G, SZ_4G + SZ_1G, FW_MEM_RAM };
	fw.nr = 2;
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("overlaps System RAM [mem 0x100000000-0x13fffffff]");
	nfit_end();
}

HTEST(nfit_map_naming_a_missing_range_is_refused)
{
	u16 missing = 4;

	nfit_begin();
	memcpy(nfit + MEMDEV_AT + 12, &missing, 2);
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("names SPA range 4, which is not in the table");
	nfit_begin();
	memcpy(nfit + MEMDEV_AT + 14, &missing, 2);
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("names control region 4, which is not in the table");
	nfit_end();
}

HTEST(nfit_index_0_or_twice_is_refused)
{
	nfit_begin();
	add_pm_spa(0, 16 * SZ_1G, SZ_1G, 0);
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("has index 0");
	nfit_begin();
	add_pm_spa(2, 16 * SZ_1G, SZ_1G, 0);
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("index 2 at offset 224 is used twice");
	nfit_end();
}

/* Flush hints are read; hints that do not fit their structure refuse it;
 * types memlab does not use are counted; a stray byte refuses the table. */
HTEST(nfit_flush_hints_and_other_types)
{
	u8 *f;
	u16 n = 2;
	u64 hint = 0xfed00000;

	nfit_begin();
	f = nfit_add(6, 32);
	memcpy(f + 8, &n, 2);
	memcpy(f + 16, &hint, 8);
	nfit_add(7, 16);
	nfit_add(42, 8);
	CHECK_EQ(nfit_boot(0, -1), 1);
	CHECK_EQ(nfit_flush(0)->nr_hints, 2);
	CHECK_EQ(nfit_flush(0)->first_hint, 0xfed00000);
	CHECK_EQ(nfit_type_count(7), 1);
	nfit_dump(&outp.p);
	CHECK(strstr(out, "other types            1") != NULL);
	CHECK(strstr(out, "flush hints of handle 0: 2, first at 0xfed00000") != NULL);

	nfit_begin();
	f = nfit_add(6, 24);
	n = 3;
	memcpy(f + 8, &n, 2);
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("3 hints do not fit its 24 bytes");

	nfit_begin();
	nfit_len += 2;		/* two stray bytes */
	CHECK_EQ(nfit_boot(0, -1), 0);
	expect_refused("2 stray bytes at offset 224");
	nfit_end();
}

/* No NFIT: nothing, and no problem. */
HTEST(nfit_absent)
{
	nfit_begin();
	memcpy(nfit, "NFIX", 4);
	CHECK_EQ(nfit_boot(0, -1), 0);
	CHECK_EQ(nfit_problem()[0], '\0');
	nfit_dump(&outp.p);
	CHECK(strstr(out, "no NFIT") != NULL);
	nfit_end();
}

/* /proc/iomem: the range as "Persistent Memory", once, even when the
 * firmware map entered it already (e820 type 7). */
HTEST(nfit_range_in_iomem)
{
	struct resource *r;

	nfit_begin();
	CHECK_EQ(nfit_boot(0, -1), 1);
	nfit_iomem_register();
	r = resource_lookup(&iomem_resource, SZ_4G + 4096);
	CHECK(r != NULL);
	CHECK_EQ(r->start, SZ_4G);
	CHECK_EQ(r->end, 2 * SZ_4G - 1);
	CHECK(!strcmp(r->name, "Persistent Memory"));
	nfit_iomem_register();		/* once */
	CHECK(resource_lookup(&iomem_resource, SZ_4G) == r);
	CHECK(r->child == NULL);
	CHECK_EQ(release_resource(r), 0);
	nfit_end();
}

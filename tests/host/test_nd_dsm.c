/*
 * test_nd_dsm.c - label access through _DSM (drivers/nvdimm/nd_dsm.c)
 * evaluated by the AML interpreter on QEMU's real NVDIMM SSDT and DSDT
 * (tests/host/fixtures/acpi/nvdimm), against a fake of the exchange that
 * SSDT performs: it writes the handle, revision, function and input to
 * the DSM page (\MEMA, 0x7ffff000 in the capture) and the page's address
 * to I/O port 0xa18; the fake then puts the reply length and the reply in
 * the page, serving functions 4, 5 and 6 from a label area of its own.
 * Also every bad reply refused: status errors, size 0 or absurd, short.
 */
#include "htest.h"
#include <drivers/aml.h>
#include <drivers/nd_dsm.h>
#include <drivers/nd_label.h>
#include <lib/errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DSM_PAGE	0x7ffff000ull
#define DSM_PORT	0xa18
#define LSA_SIZE	(128u << 10)

static struct {
	u8 page[4096];
	u8 lsa[LSA_SIZE];
	u32 lsa_size;		/* what function 4 says */
	u32 max_xfer;
	u32 force_status;	/* non-zero: every reply has it */
	u32 short_reply;	/* non-zero: function 4/5 replies this long */
	unsigned calls[8];
	u32 last_handle;
	u64 now;
} dev;

static u32 rd32(const u8 *p) { u32 v; memcpy(&v, p, 4); return v; }
static void wr32(u8 *p, u32 v) { memcpy(p, &v, 4); }

/* The fake DSM: the request in the page, the reply over it. */
static void serve(void)
{
	u32 handle = rd32(dev.page), fn = rd32(dev.page + 8);
	const u8 *arg = dev.page + 12;
	u8 out[4096];
	u32 len = 4, st = 0;

	dev.last_handle = handle;
	if (fn < 8)
		dev.calls[fn]++;
	if (fn == 4) {
		wr32(out + 4, dev.lsa_size);
		wr32(out + 8, dev.max_xfer);
		len = 12;
	} else if (fn == 5) {
		u32 off = rd32(arg), n = rd32(arg + 4);

		if ((u64)off + n > dev.lsa_size || n > dev.max_xfer)
			st = 3;
		else {
			memcpy(out + 4, dev.lsa + off, n);
			len = 4 + n;
		}
	} else if (fn == 6) {
		u32 off = rd32(arg), n = rd32(arg + 4);

		if ((u64)off + n > dev.lsa_size || n > dev.max_xfer)
			st = 3;
		else
			memcpy(dev.lsa + off, arg + 8, n);
	} else
		st = 1;
	if (dev.force_status)
		st = dev.force_status, len = 4;
	if (dev.short_reply && (fn == 4 || fn == 5))
		len = dev.short_reply;
	wr32(out, st);
	wr32(dev.page, len + 4);
	memcpy(dev.page + 4, out, len);
}

static int f_mem_read(void *ctx, u64 phys, unsigned w, u64 *val)
{
	(void)ctx;
	if (phys < DSM_PAGE || phys + w > DSM_PAGE + 4096)
		return -1;
	*val = 0;
	memcpy(val, dev.page + (phys - DSM_PAGE), w);
	return 0;
}

static int f_mem_write(void *ctx, u64 phys, unsigned w, u64 val)
{
	(void)ctx;
	if (phys < DSM_PAGE || phys + w > DSM_PAGE + 4096)
		return -1;
	memcpy(dev.page + (phys - DSM_PAGE), &val, w);
	return 0;
}

static int f_io_read(void *ctx, u32 port, unsigned w, u64 *val)
{
	(void)ctx, (void)port, (void)w;
	*val = 0;
	return 0;
}

static int f_io_write(void *ctx, u32 port, unsigned w, u64 val)
{
	(void)ctx;
	if (port == DSM_PORT && w == 4 && val == DSM_PAGE)
		serve();
	return 0;
}

static u64 f_time(void *ctx)
{
	(void)ctx;
	return dev.now += 1000;
}

static const struct aml_platform plat = {
	.mem_read = f_mem_read, .mem_write = f_mem_write,
	.io_read = f_io_read, .io_write = f_io_write, .time_ns = f_time,
};

static u8 arena[4u << 20];
static u8 tables[2][64 << 10];

static struct aml_ns *boot_ns(void)
{
	static const char *const files[2] = {
		"tests/host/fixtures/acpi/nvdimm/dsdt.dat", "tests/host/fixtures/acpi/nvdimm/ssdt.dat",
	};
	struct aml_ns *ns = aml_create(arena, sizeof(arena), &plat, NULL);

	CHECK(ns != NULL);
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "rb");
		size_t n;

		CHECK(f != NULL);
		n = fread(tables[i], 1, sizeof(tables[i]), f);
		fclose(f);
		CHECK_EQ(aml_load_table(ns, tables[i], n), 0);
	}
	memset(&dev, 0, sizeof(dev));
	dev.lsa_size = LSA_SIZE;
	dev.max_xfer = 4084;	/* more than fits: nd_dsm clamps */
	return ns;
}

static char why[200];

HTEST(nd_dsm_label_roundtrip_on_qemu_ssdt)
{
	struct aml_ns *ns = boot_ns();
	struct aml_node *d = nd_dsm_find(ns, 1);
	static u8 buf[LSA_SIZE];
	u32 size, xfer;

	CHECK(d != NULL);
	CHECK(nd_dsm_find(ns, 7) == NULL);
	CHECK_EQ(nd_dsm_label_size(ns, d, &size, &xfer, why, sizeof(why)), 0);
	CHECK_EQ(dev.last_handle, 1);
	CHECK_EQ(size, LSA_SIZE);
	CHECK_EQ(xfer, ND_DSM_MAX_XFER);
	for (u32 i = 0; i < LSA_SIZE; i++)
		dev.lsa[i] = (u8)(i * 7 + 3);
	CHECK_EQ(nd_dsm_label_read(ns, d, 0, buf, 9000, xfer, why, sizeof(why)), 0);
	CHECK_EQ(dev.calls[5], 3);
	CHECK(!memcmp(buf, dev.lsa, 9000));
	/* 4- and 1-byte pieces (the reply an Integer, a Buffer built bytewise) */
	CHECK_EQ(nd_dsm_label_read(ns, d, 100, buf, 4, 4, why, sizeof(why)), 0);
	CHECK(!memcmp(buf, dev.lsa + 100, 4));
	CHECK_EQ(nd_dsm_label_read(ns, d, 5, buf, 1, 1, why, sizeof(why)), 0);
	CHECK_EQ(buf[0], dev.lsa[5]);
	/* write a whole initialised area, read it back through the format */
	{
		static u8 area[LSA_SIZE];
		struct nd_label_dirty dirty;
		struct nd_label_state st;

		memset(area, 0, sizeof(area));
		CHECK_EQ(nd_label_init(area, LSA_SIZE, &dirty), 0);
		for (unsigned i = 0; i < dirty.n; i++)
			CHECK_EQ(nd_dsm_label_write(ns, d, dirty.off[i], area + dirty.off[i],
						    dirty.len[i], xfer, why, sizeof(why)), 0);
		CHECK_EQ(nd_dsm_label_read(ns, d, 0, buf, LSA_SIZE, xfer, why, sizeof(why)), 0);
		CHECK_EQ(nd_label_scan(buf, LSA_SIZE, 0, 1ull << 32, &st, why, sizeof(why)), 0);
		CHECK_EQ(st.seq, 2);
	}
	CHECK_EQ(aml_destroy(ns), 0);
}

HTEST(nd_dsm_bad_replies_refused)
{
	struct aml_ns *ns = boot_ns();
	struct aml_node *d = nd_dsm_find(ns, 2);
	u8 buf[64];
	u32 size, xfer;

	CHECK(d != NULL);
	dev.lsa_size = 0;
	CHECK_EQ(nd_dsm_label_size(ns, d, &size, &xfer, why, sizeof(why)), -ENODEV);
	CHECK_STR_CONTAINS(why, "size 0");
	dev.lsa_size = 0x7fffffff;
	CHECK_EQ(nd_dsm_label_size(ns, d, &size, &xfer, why, sizeof(why)), -EINVAL);
	CHECK_STR_CONTAINS(why, "label area of");
	dev.lsa_size = LSA_SIZE;
	dev.max_xfer = 0;
	CHECK_EQ(nd_dsm_label_size(ns, d, &size, &xfer, why, sizeof(why)), -EINVAL);
	dev.max_xfer = 4000;
	dev.force_status = 4;
	CHECK_EQ(nd_dsm_label_size(ns, d, &size, &xfer, why, sizeof(why)), -EIO);
	CHECK_STR_CONTAINS(why, "status 4 (hardware error)");
	dev.force_status = 0;
	dev.short_reply = 8;
	CHECK_EQ(nd_dsm_label_size(ns, d, &size, &xfer, why, sizeof(why)), -EIO);
	CHECK_STR_CONTAINS(why, "short reply");
	CHECK_EQ(nd_dsm_label_read(ns, d, 0, buf, 16, 16, why, sizeof(why)), -EIO);
	CHECK_STR_CONTAINS(why, "short reply");
	dev.short_reply = 0;
	/* beyond the area: the device says invalid input */
	CHECK_EQ(nd_dsm_label_read(ns, d, LSA_SIZE - 8, buf, 16, 16, why, sizeof(why)), -EIO);
	CHECK_STR_CONTAINS(why, "invalid input");
	CHECK_EQ(aml_destroy(ns), 0);
}

/*
 * test_nd_info.c - what outlives a reboot of an NVDIMM: the devdax info
 * block (drivers/nvdimm/info.c, nd.c's nd_probe_info()) and several
 * labelled namespaces per region; and the DIMMs (nmemN) of the model.
 *
 * The NVDIMM's bytes are a fake media (4 KiB blocks kept by address) and
 * its label area a fake DIMM, both kept across a "reboot": nd_reset(),
 * devmem_reset(), the region added again, the labels attached, the info
 * blocks probed, as the kernel's boot does.
 */
#include "htest.h"
#include "hotplug_fixture.h"
#include <drivers/nd.h>
#include <drivers/nd_info.h>
#include <mm/memremap.h>
#include <mm/mechanisms.h>
#include <mm/sparse.h>
#include <lib/errno.h>
#include <string.h>

#define PMEM_START	HOTPLUG_BASE
#define PMEM_SIZE	(1024 * MiB)
#define SECTION		(128 * MiB)
#define LSA		(16u << 10)

static char why[192];

/* ---- fake media: 4 KiB pages of the NVDIMM by address ---- */

#define MEDIA_PAGES	16
static struct { u64 pa; u8 bytes[4096]; } pages[MEDIA_PAGES];
static unsigned nr_pages, media_writes;
static bool media_fail;

static u8 *media_page(u64 pa, bool make)
{
	for (unsigned i = 0; i < nr_pages; i++)
		if (pages[i].pa == pa)
			return pages[i].bytes;
	if (!make || nr_pages == MEDIA_PAGES)
		return NULL;
	pages[nr_pages].pa = pa;
	memset(pages[nr_pages].bytes, 0, 4096);
	return pages[nr_pages++].bytes;
}

static int fake_read(void *ctx, u64 pa, void *buf, u32 len)
{
	u8 *p = media_page(pa, false);

	(void)ctx;
	CHECK_EQ(len, 4096);
	if (p)
		memcpy(buf, p, len);
	else
		memset(buf, 0, len);	/* never written: zeros, as a fresh backend */
	return 0;
}

static int fake_write(void *ctx, u64 pa, const void *buf, u32 len)
{
	(void)ctx;
	CHECK_EQ(len, 4096);
	if (media_fail)
		return -EIO;
	memcpy(media_page(pa, true), buf, len);
	media_writes++;
	return 0;
}

static const struct nd_media fake_media = { .read = fake_read, .write = fake_write };

/* ---- fake label area ---- */

static u8 copy[LSA], dimm[LSA];
static struct nd_label_dev ld;
static unsigned uuid_seq;

static int label_write(void *ctx, u32 off, const void *buf, u32 len, char *w, size_t ws)
{
	(void)ctx; (void)w; (void)ws;
	memcpy(dimm + off, buf, len);
	return 0;
}

static void label_uuid(void *ctx, u8 u[16])
{
	(void)ctx;
	memset(u, 0, 16);
	u[0] = 0xa0;
	u[15] = (u8)++uuid_seq;
}

/* A boot of the machine with the region at PMEM_START, labelled (the fake
 * DIMM's area as it is) or not; the media as it is. */
static u64 region_size = PMEM_SIZE;

static const struct nd_region *boot_nvdimm(bool labelled, bool fresh)
{
	boot(HOTPLUG_BASE + 2 * GiB, 2 * GiB);
	devmem_reset();
	nd_reset();
	if (fresh) {
		nr_pages = 0;
		memset(dimm, 0, sizeof(dimm));
	}
	media_fail = false;
	media_writes = 0;
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, DESIGN_NEW), 0);
	nd_set_media(&fake_media);
	CHECK_EQ(nd_add_region(PMEM_START, region_size, 0, 1), 0);
	if (labelled) {
		memcpy(copy, dimm, LSA);
		ld = (struct nd_label_dev){ .handle = 1, .area = copy, .size = LSA, .dpa = 0,
					    .write = label_write, .new_uuid = label_uuid };
		CHECK_EQ(nd_attach_labels(0, &ld), 0);
	}
	nd_probe_info();
	return nd_region(0);
}

static u64 le(const u8 *p, unsigned n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

HTEST(nd_info_block_layout_is_linux_nd_pfn_sb)
{
	struct nd_info in = { .major = 1, .minor = 4, .dataoff = SZ_2M, .npfns = 1234,
			      .mode = ND_INFO_MODE_RAM, .align = SZ_2M, .page_size = 4096,
			      .page_struct_size = 64 }, out;
	static u8 blk[ND_INFO_SIZE];

	memset(in.uuid, 0x11, 16);
	memset(in.parent_uuid, 0x22, 16);
	nd_info_encode(&in, blk);
	CHECK(!memcmp(blk, "DAXSIGNATURE\0\0\0\0", 16));
	CHECK_EQ(blk[16], 0x11);
	CHECK_EQ(blk[32], 0x22);
	CHECK_EQ(le(blk + 52, 2), 1);
	CHECK_EQ(le(blk + 54, 2), 4);
	CHECK_EQ(le(blk + 56, 8), SZ_2M);	/* dataoff */
	CHECK_EQ(le(blk + 64, 8), 1234);	/* npfns */
	CHECK_EQ(le(blk + 72, 4), 1);		/* mode: PFN_MODE_RAM */
	CHECK_EQ(le(blk + 84, 4), SZ_2M);	/* align */
	CHECK_EQ(le(blk + 88, 4), 4096);
	CHECK_EQ(le(blk + 92, 2), 64);
	/* the checksum is Fletcher64 of the block with itself zero */
	{
		u64 sum = le(blk + 4088, 8);

		memset(blk + 4088, 0, 8);
		CHECK_EQ(nd_fletcher64(blk, ND_INFO_SIZE), sum);
		memcpy(blk + 4088, &sum, 8);
	}
	CHECK_EQ(nd_info_decode(blk, &out, why, sizeof(why)), 0);
	CHECK_EQ(out.kind, ND_INFO_DAX);
	CHECK_EQ(out.dataoff, SZ_2M);
	CHECK_EQ(out.align, SZ_2M);
	CHECK_EQ(out.npfns, 1234);
	blk[100] ^= 1;
	CHECK_EQ(nd_info_decode(blk, &out, why, sizeof(why)), -EINVAL);
	CHECK_STR_CONTAINS(why, "bad checksum");
	memset(blk, 0, sizeof(blk));
	CHECK_EQ(nd_info_decode(blk, &out, why, sizeof(why)), -ENOENT);
	CHECK_EQ(ND_INFO_DATAOFF(SZ_4K), 8192);
	CHECK_EQ(ND_INFO_DATAOFF(SZ_2M), SZ_2M);
	CHECK_EQ(ND_INFO_DATAOFF(SZ_1G), SZ_1G);
}

/* label-less: create devdax writes the block, a reboot brings devdax back
 * with its align, destroy clears it and the next boot is raw. */
HTEST(nd_info_block_devdax_outlives_reboot_label_less)
{
	static const u64 aligns[] = { SZ_4K, SZ_2M, SZ_1G };

	region_size = 2 * PMEM_SIZE;	/* room after a 1 GiB reservation */
	for (unsigned i = 0; i < ARRAY_SIZE(aligns); i++) {
		u64 align = aligns[i];
		const struct nd_region *r = boot_nvdimm(false, true);
		const u8 *blk;

		CHECK_EQ(r->ns[0].mode, ND_MODE_RAW);
		CHECK_EQ(nd_create_devdax(0, align, 0, why, sizeof(why)), 0);
		CHECK_EQ(r->ns[0].dataoff, ND_INFO_DATAOFF(align));
		CHECK_EQ(nd_dax_size(&r->ns[0]), region_size - ND_INFO_DATAOFF(align));
		/* the memmap still covers the whole namespace, as Linux's pgmap */
		CHECK_EQ(devmem_find(r->ns[0].devmem_id)->nr_pages, region_size >> PAGE_SHIFT);
		blk = media_page(PMEM_START + 4096, false);
		CHECK(blk && !memcmp(blk, "DAXSIGNATURE", 12));
		CHECK_EQ(le(blk + 84, 4), align);
		CHECK_EQ(le(blk + 64, 8), (region_size - ND_INFO_DATAOFF(align)) >> PAGE_SHIFT);
		CHECK(!media_page(PMEM_START, false));	/* the first 4 KiB are left alone */

		r = boot_nvdimm(false, false);
		CHECK_EQ(r->ns[0].mode, ND_MODE_DEVDAX);
		CHECK_EQ(r->ns[0].align, align);
		CHECK(r->ns[0].from_info);
		CHECK_EQ(nd_dax_size(&r->ns[0]), region_size - ND_INFO_DATAOFF(align));
		CHECK(devmem_find(r->ns[0].devmem_id) != NULL);
		CHECK_EQ(media_writes, 0);		/* the boot only reads */
		CHECK_EQ(nd_rebind(0, 0, DESIGN_OLD, why, sizeof(why)), 0);

		if (i == 1)	/* --mode=raw does what destroy-namespace does here */
			CHECK_EQ(nd_create(0, -1, ND_MODE_RAW, 0, 0, ND_OFFSET_ANY, why,
					   sizeof(why)), 0);
		else
			CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
		CHECK_EQ(r->ns[0].mode, ND_MODE_RAW);
		CHECK(devmem_find(0) == NULL);
		CHECK_EQ(media_page(PMEM_START + 4096, false)[0], 0);	/* cleared */
		r = boot_nvdimm(false, false);
		CHECK_EQ(r->ns[0].mode, ND_MODE_RAW);
		CHECK(!r->ns[0].info_problem[0]);
	}
	region_size = PMEM_SIZE;
}

/* A write that fails leaves the namespace raw and its memmap gone. */
HTEST(nd_info_block_write_failure_changes_nothing)
{
	const struct nd_region *r = boot_nvdimm(false, true);

	media_fail = true;
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), -EIO);
	CHECK_STR_CONTAINS(why, "info block");
	CHECK_EQ(r->ns[0].mode, ND_MODE_RAW);
	CHECK(devmem_find(0) == NULL);
	CHECK(!present_section(__pfn_to_section(PMEM_START >> PAGE_SHIFT)));
}

/* Blocks that do not fit: refused at boot with the reason, left as they
 * are, the namespace raw; destroy-namespace clears such a block. */
HTEST(nd_info_block_hostile_refused)
{
	static const char *const reasons[] = {
		"bad checksum", "fsdax", "mode 2", "pages", "another namespace", "data offset",
	};

	for (unsigned i = 0; i < ARRAY_SIZE(reasons); i++) {
		const struct nd_region *r = boot_nvdimm(false, true);
		struct nd_info in;
		u8 *blk;

		CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), 0);
		blk = media_page(PMEM_START + 4096, false);
		CHECK_EQ(nd_info_decode(blk, &in, why, sizeof(why)), 0);
		switch (i) {
		case 0: blk[200] = 1; break;
		case 1: memcpy(blk, "NVDIMM_PFN_INFO\0", 16); break;
		case 2: in.mode = ND_INFO_MODE_PMEM; break;
		case 3: in.npfns++; break;
		case 4: in.parent_uuid[0] = 1; break;
		case 5: in.dataoff = 4096; break;
		}
		if (i >= 2)
			nd_info_encode(&in, blk);
		else if (i == 1) {	/* the PFN signature with a good checksum */
			u64 sum;

			memset(blk + 4088, 0, 8);
			sum = nd_fletcher64(blk, 4096);
			memcpy(blk + 4088, &sum, 8);
		}
		r = boot_nvdimm(false, false);
		CHECK_EQ(r->ns[0].mode, ND_MODE_RAW);
		CHECK_STR_CONTAINS(r->ns[0].info_problem, reasons[i]);
		CHECK(devmem_find(0) == NULL);
		CHECK_EQ(media_writes, 0);		/* left as it is */
		CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
		CHECK_EQ(media_page(PMEM_START + 4096, false)[0], 0);
		CHECK(!r->ns[0].info_problem[0]);
		r = boot_nvdimm(false, false);
		CHECK(!r->ns[0].info_problem[0]);
	}
}

/* Several namespaces in a labelled region: created with sizes (first fit,
 * or at an offset), each with its label and info block, refused when they
 * overlap, do not fit or are not whole sections; a reboot brings each back
 * with its mode; destroyed one at a time. */
HTEST(nd_labelled_region_has_several_namespaces)
{
	const struct nd_region *r = boot_nvdimm(true, true);
	const struct nd_namespace *a, *b, *c;
	struct nd_label_state st;

	CHECK_EQ(nd_create(0, -1, ND_MODE_DEVDAX, SZ_2M, 2 * SECTION, ND_OFFSET_ANY, why,
			   sizeof(why)), 0);
	CHECK_EQ(nd_create(0, -1, ND_MODE_RAW, 0, SECTION, ND_OFFSET_ANY, why, sizeof(why)), 1);
	CHECK_EQ(nd_create(0, -1, ND_MODE_DEVDAX, SZ_4K, SECTION, 6 * SECTION, why, sizeof(why)), 2);
	a = nd_namespace(0, 0);
	b = nd_namespace(0, 1);
	c = nd_namespace(0, 2);
	CHECK(a && b && c);
	CHECK_EQ(a->start, PMEM_START);
	CHECK_EQ(b->start, PMEM_START + 2 * SECTION);
	CHECK_EQ(c->start, PMEM_START + 6 * SECTION);
	CHECK_EQ(a->mode, ND_MODE_DEVDAX);
	CHECK_EQ(b->mode, ND_MODE_RAW);
	CHECK_EQ(c->mode, ND_MODE_DEVDAX);
	CHECK(memcmp(a->uuid, b->uuid, 16) && memcmp(b->uuid, c->uuid, 16));
	CHECK_EQ(nd_available(r), PMEM_SIZE - 4 * SECTION);
	CHECK_EQ(nd_label_scan(dimm, LSA, 0, PMEM_SIZE, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.nlabels, 3);

	/* bad requests: nothing changes */
	media_writes = 0;
	CHECK_EQ(nd_create(0, -1, ND_MODE_RAW, 0, SECTION, 2 * SECTION, why, sizeof(why)), -EEXIST);
	CHECK_STR_CONTAINS(why, "overlaps namespace0.1");
	CHECK_EQ(nd_create(0, -1, ND_MODE_RAW, 0, 2 * SECTION, 5 * SECTION, why, sizeof(why)),
		 -EEXIST);
	CHECK_STR_CONTAINS(why, "overlaps namespace0.2");
	CHECK_EQ(nd_create(0, -1, ND_MODE_RAW, 0, 5 * SECTION, ND_OFFSET_ANY, why, sizeof(why)),
		 -ENOSPC);
	CHECK_STR_CONTAINS(why, "no free extent of 671088640 bytes (the largest is 402653184");
	CHECK_EQ(nd_create(0, -1, ND_MODE_RAW, 0, SECTION, 7 * SECTION + SECTION, why, sizeof(why)),
		 -ENOSPC);
	CHECK_STR_CONTAINS(why, "runs past");
	CHECK_EQ(nd_create(0, -1, ND_MODE_RAW, 0, 64 * MiB, ND_OFFSET_ANY, why, sizeof(why)),
		 -EINVAL);
	CHECK_STR_CONTAINS(why, "whole 128 MiB units");
	CHECK_EQ(nd_create(0, -1, ND_MODE_RAW, 0, SECTION, 3 * SECTION + SZ_2M, why, sizeof(why)),
		 -EINVAL);
	CHECK_STR_CONTAINS(why, "not a multiple");
	CHECK_EQ(nd_create(0, -1, ND_MODE_DEVDAX, SZ_1G, SECTION, ND_OFFSET_ANY, why, sizeof(why)),
		 -EINVAL);
	CHECK_STR_CONTAINS(why, "1024 MiB units");
	CHECK_EQ(nd_create(0, 1, ND_MODE_DEVDAX, SZ_2M, 2 * SECTION, ND_OFFSET_ANY, why,
			   sizeof(why)), -EINVAL);	/* -e with another size */
	CHECK_EQ(nd_create(0, 0, ND_MODE_DEVDAX, SZ_2M, 0, ND_OFFSET_ANY, why, sizeof(why)), -EBUSY);
	CHECK_STR_CONTAINS(why, "in use as dax0.0");
	CHECK_EQ(nd_create(0, 5, ND_MODE_DEVDAX, SZ_2M, 0, ND_OFFSET_ANY, why, sizeof(why)), -ENOENT);
	CHECK_EQ(media_writes, 0);
	CHECK_EQ(nd_available(r), PMEM_SIZE - 4 * SECTION);
	CHECK_EQ(nd_label_scan(dimm, LSA, 0, PMEM_SIZE, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.nlabels, 3);

	/* the rest, the largest free extent: [3, 6) sections */
	CHECK_EQ(nd_create(0, -1, ND_MODE_RAW, 0, 0, ND_OFFSET_ANY, why, sizeof(why)), 3);
	CHECK_EQ(nd_namespace(0, 3)->start, PMEM_START + 3 * SECTION);
	CHECK_EQ(nd_namespace(0, 3)->size, 3 * SECTION);
	/* -e: namespace0.1 reconfigured to devdax */
	CHECK_EQ(nd_create(0, 1, ND_MODE_DEVDAX, SZ_2M, 0, ND_OFFSET_ANY, why, sizeof(why)), 1);

	/* reboot: the namespaces by address, each with its mode and uuid */
	{
		u8 uuid2[16];

		memcpy(uuid2, c->uuid, 16);
		r = boot_nvdimm(true, false);
		CHECK_EQ(nd_namespace(0, 0)->mode, ND_MODE_DEVDAX);
		CHECK_EQ(nd_namespace(0, 0)->align, SZ_2M);
		CHECK_EQ(nd_namespace(0, 1)->mode, ND_MODE_DEVDAX);
		CHECK_EQ(nd_namespace(0, 1)->start, PMEM_START + 2 * SECTION);
		CHECK_EQ(nd_namespace(0, 2)->mode, ND_MODE_RAW);
		CHECK_EQ(nd_namespace(0, 2)->start, PMEM_START + 3 * SECTION);
		CHECK_EQ(nd_namespace(0, 3)->mode, ND_MODE_DEVDAX);
		CHECK_EQ(nd_namespace(0, 3)->align, SZ_4K);
		CHECK(!memcmp(nd_namespace(0, 3)->uuid, uuid2, 16));
		CHECK(nd_namespace(0, 4) == NULL);
	}

	/* -e namespace0.3 --mode=raw: the memmap and info block go, the label stays */
	CHECK_EQ(nd_create(0, 3, ND_MODE_RAW, 0, 0, ND_OFFSET_ANY, why, sizeof(why)), 3);
	CHECK_EQ(nd_namespace(0, 3)->mode, ND_MODE_RAW);
	CHECK_EQ(media_page(PMEM_START + 6 * SECTION + 4096, false)[0], 0);
	CHECK_EQ(nd_label_scan(dimm, LSA, 0, PMEM_SIZE, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.nlabels, 4);
	CHECK_EQ(nd_create(0, 3, ND_MODE_DEVDAX, SZ_4K, 0, ND_OFFSET_ANY, why, sizeof(why)), 3);

	/* destroyed one at a time: the others stay */
	CHECK_EQ(nd_destroy(0, 1, why, sizeof(why)), 0);
	CHECK(nd_namespace(0, 1) == NULL);
	CHECK_EQ(nd_namespace(0, 0)->mode, ND_MODE_DEVDAX);
	CHECK_EQ(nd_namespace(0, 3)->mode, ND_MODE_DEVDAX);
	CHECK_EQ(nd_destroy(0, 1, why, sizeof(why)), -ENOENT);
	/* the lowest free M is taken again, in the hole namespace0.1 left */
	CHECK_EQ(nd_create(0, -1, ND_MODE_RAW, 0, SECTION, ND_OFFSET_ANY, why, sizeof(why)), 1);
	CHECK_EQ(nd_namespace(0, 1)->start, PMEM_START + 2 * SECTION);
	for (int m = 0; m < 4; m++)
		CHECK_EQ(nd_destroy(0, m, why, sizeof(why)), 0);
	CHECK_EQ(nd_available(r), PMEM_SIZE);
	CHECK(devmem_find(0) == NULL && devmem_find(1) == NULL);
	CHECK_EQ(nd_label_scan(dimm, LSA, 0, PMEM_SIZE, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.nlabels, 0);
	r = boot_nvdimm(true, false);
	CHECK(nd_namespace(0, 0) == NULL);
}

/* The DIMMs: one nmem per handle, the region's mappings, Linux's id. */
HTEST(nd_dimms_and_mappings)
{
	struct nd_dimm d = { .handle = 1, .phys_id = 0, .has_dcr = true, .vendor = 0x8086,
			     .device = 1, .serial = 0x123456 };
	const struct nd_region *r;
	char id[16];

	boot(HOTPLUG_BASE + 2 * GiB, 2 * GiB);
	nd_reset();
	CHECK_EQ(nd_add_region(PMEM_START, PMEM_SIZE, 0, 1), 0);
	CHECK_EQ(nd_add_dimm(&d), 0);
	CHECK_EQ(nd_add_dimm(&d), 0);		/* the same handle: the same nmem */
	d.handle = 0x101;
	CHECK_EQ(nd_add_dimm(&d), 1);
	CHECK_EQ(nd_add_mapping(0, 0, 0, PMEM_SIZE), 0);
	CHECK_EQ(nd_add_mapping(0, 7, 0, PMEM_SIZE), -ENOENT);
	CHECK_EQ(nd_add_mapping(3, 0, 0, PMEM_SIZE), -ENOENT);
	r = nd_region(0);
	CHECK_EQ(r->nr_mappings, 1);
	CHECK_EQ(r->mappings[0].dimm, 0);
	CHECK_EQ(r->mappings[0].size, PMEM_SIZE);
	nd_dimm_id(nd_dimm(0), id);
	CHECK_STREQ(id, "8680-56341200");	/* QEMU's, as Linux shows it */
	CHECK_EQ(nd_dimm(1)->handle, 0x101);
	CHECK(nd_dimm(2) == NULL);
}

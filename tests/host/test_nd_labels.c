/*
 * test_nd_labels.c - a region with a label area (drivers/nvdimm/nd.c,
 * nd_attach_labels()) on the simulated machine, its writes going to a
 * fake DIMM: an uninitialised area gives no namespace; create writes the
 * index blocks and a label, the DIMM's copy scans to the same namespace
 * (what the next boot sees); destroy deletes the label; a failed write
 * leaves the region consistent and refusing; bad data is refused and
 * never overwritten.
 */
#include "htest.h"
#include "hotplug_fixture.h"
#include <drivers/nd.h>
#include <mm/memremap.h>
#include <mm/mechanisms.h>
#include <lib/errno.h>
#include <string.h>

#define PMEM_START	HOTPLUG_BASE
#define PMEM_SIZE	(512 * MiB)
#define LSA		(16u << 10)

static u8 copy[LSA], dimm[LSA];	/* nd.c's copy, and what the fake DIMM holds */
static struct nd_label_dev ld;
static bool fail_writes;
static char why[160];

static int fake_write(void *ctx, u32 off, const void *buf, u32 len, char *w, size_t ws)
{
	(void)ctx;
	if (fail_writes) {
		snprintf(w, ws, "_DSM function 6: status 4 (hardware error)");
		return -EIO;
	}
	memcpy(dimm + off, buf, len);
	return 0;
}

static void fake_uuid(void *ctx, u8 u[16])
{
	(void)ctx;
	memset(u, 0x5a, 16);
}

static const struct nd_region *boot_labelled(const u8 *content)
{
	boot(HOTPLUG_BASE + 2 * GiB, 2 * GiB);
	devmem_reset();
	nd_reset();
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, DESIGN_NEW), 0);
	CHECK_EQ(nd_add_region(PMEM_START, PMEM_SIZE, 0, 1), 0);
	memcpy(copy, content, LSA);
	fail_writes = false;
	ld = (struct nd_label_dev){ .handle = 1, .area = copy, .size = LSA, .dpa = 0,
				    .write = fake_write, .new_uuid = fake_uuid };
	CHECK_EQ(nd_attach_labels(0, &ld), 0);
	return nd_region(0);
}

HTEST(nd_labels_create_reboot_destroy)
{
	static u8 blank[LSA];
	const struct nd_region *r = boot_labelled(blank);
	struct nd_label_state st;

	memset(dimm, 0, sizeof(dimm));
	CHECK(!r->ns[0].present);
	CHECK_EQ(r->labels->kind, ND_LABELS_UNINIT);
	CHECK_STREQ(nd_label_kind_name(r), "uninitialised");
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), -ENOENT);
	/* a size of part of a section is refused before anything is written */
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 64 * MiB, why, sizeof(why)), -EINVAL);
	CHECK_EQ(dimm[0], 0);
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 256 * MiB, why, sizeof(why)), 0);
	CHECK(r->ns[0].present);
	CHECK_EQ(r->ns[0].size, 256 * MiB);
	CHECK_EQ(r->ns[0].mode, ND_MODE_DEVDAX);
	CHECK_EQ(r->ns[0].uuid[3], 0x5a);
	/* the DIMM holds what the next boot reads */
	CHECK_EQ(nd_label_scan(dimm, LSA, 0, PMEM_SIZE, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.nlabels, 1);
	CHECK_EQ(st.labels[0].rawsize, 256 * MiB);
	CHECK_STREQ(st.labels[0].name, "namespace0.0");
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
	CHECK(!r->ns[0].present);
	CHECK_EQ(devmem_find(0), NULL);
	CHECK_EQ(nd_label_scan(dimm, LSA, 0, PMEM_SIZE, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.nlabels, 0);

	/* "reboot" with a label: the namespace is back, raw, same uuid */
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), 0);
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);	/* devdax -> raw, label gone */
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), 0);
	CHECK_EQ(r->ns[0].size, PMEM_SIZE);
	memcpy(blank, dimm, LSA);
	devmem_reset();
	r = boot_labelled(blank);
	CHECK(r->ns[0].present);
	CHECK_EQ(r->ns[0].mode, ND_MODE_RAW);
	CHECK_EQ(r->ns[0].size, PMEM_SIZE);
	CHECK_EQ(r->ns[0].uuid[15], 0x5a);
	/* no room for a second namespace; a size other than the labelled
	 * namespace's is refused when reconfiguring it */
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 128 * MiB, why, sizeof(why)), -ENOSPC);
	CHECK_STR_CONTAINS(why, "no free extent of 134217728 bytes");
	CHECK_EQ(nd_create(0, 0, ND_MODE_DEVDAX, SZ_2M, 128 * MiB, ND_OFFSET_ANY, why,
			   sizeof(why)), -EINVAL);
	CHECK_STR_CONTAINS(why, "labelled");
	CHECK_EQ(nd_create(0, 0, ND_MODE_DEVDAX, SZ_2M, 0, ND_OFFSET_ANY, why, sizeof(why)), 0);
	CHECK_EQ(r->ns[0].mode, ND_MODE_DEVDAX);
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
	memset(blank, 0, sizeof(blank));
}

HTEST(nd_labels_failed_write_and_bad_data)
{
	static u8 blank[LSA];
	const struct nd_region *r = boot_labelled(blank);
	struct nd_label_dirty d;
	struct nd_label_state st;
	struct nd_label l = { .dpa = PMEM_SIZE - 4096, .rawsize = 8192 };

	fail_writes = true;
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), -EIO);
	CHECK_STR_CONTAINS(why, "label write failed");
	CHECK(!r->ns[0].present);
	CHECK_EQ(r->ns[0].mode, ND_MODE_RAW);
	CHECK_EQ(devmem_find(0), NULL);			/* the memmap undone */
	CHECK_EQ(r->labels->kind, ND_LABELS_BAD);
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), -EIO);
	CHECK_STR_CONTAINS(why, "does not overwrite");

	/* a label past the DIMM's region: refused at attach */
	memset(blank, 0, sizeof(blank));
	CHECK_EQ(nd_label_init(blank, LSA, &d), 0);
	CHECK_EQ(nd_label_scan(blank, LSA, 0, 1ull << 40, &st, why, sizeof(why)), 0);
	CHECK_EQ(nd_label_add(blank, LSA, &st, &l, &d), 0);
	r = boot_labelled(blank);
	CHECK(!r->ns[0].present);
	CHECK_EQ(r->labels->kind, ND_LABELS_BAD);
	CHECK_STR_CONTAINS(r->labels->problem, "outside");
	memset(dimm, 0, sizeof(dimm));
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), -EIO);
	CHECK_EQ(dimm[0], 0);
	CHECK(!memcmp(copy, blank, LSA));		/* not overwritten */
	memset(blank, 0, sizeof(blank));
}

/*
 * test_nd_label.c - the namespace label format (drivers/nvdimm/label.c):
 * Fletcher64, an initialised area, labels added and deleted through the
 * alternating index blocks, the newer valid index chosen by its sequence
 * number, and corrupt data (a bad checksum, a label outside the DIMM, two
 * labels overlapping, a slot field that lies) refused with a reason.
 */
#include "htest.h"
#include <drivers/nd_label.h>
#include <lib/errno.h>
#include <string.h>

#define AREA	(128u << 10)
#define DPA	(4ull << 30)

static u8 area[AREA];
static char why[160];

static struct nd_label mk(u8 tag, u64 dpa, u64 size)
{
	struct nd_label l = { .dpa = dpa, .rawsize = size, .nlabel = 1, .lbasize = 0 };

	memset(l.uuid, tag, 16);
	strcpy(l.name, "ns");
	return l;
}

static void put32(u8 *p, u32 v)
{
	memcpy(p, &v, 4);
}

HTEST(nd_label_fletcher64)
{
	u32 w[3] = { 1, 2, 3 };

	/* lo = 6, hi = 1 + 3 + 6 */
	CHECK_EQ(nd_fletcher64(w, sizeof(w)), (10ull << 32) | 6);
	CHECK_EQ(nd_fletcher64(w, 0), 0);
}

HTEST(nd_label_init_add_del_roundtrip)
{
	struct nd_label_state st;
	struct nd_label_dirty d;
	struct nd_label l = mk(0xab, 0, 1ull << 30);
	u32 isz, nslot;

	memset(area, 0, sizeof(area));
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), -ENOENT);
	CHECK_EQ(nd_label_geometry(AREA, &isz, &nslot), 0);
	CHECK_EQ(isz, 256);
	CHECK_EQ(nslot, 1016);
	CHECK_EQ(nd_label_init(area, AREA, &d), 0);
	CHECK_EQ(d.n, 2);
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.current, 0);
	CHECK_EQ(st.seq, 2);
	CHECK_EQ(st.nlabels, 0);
	CHECK_EQ(nd_label_add(area, AREA, &st, &l, &d), 0);
	CHECK_EQ(d.n, 2);
	CHECK_EQ(d.off[0], 512);	/* slot 0 */
	CHECK_EQ(d.off[1], 256);	/* index 1, now current */
	CHECK_EQ(st.current, 1);
	CHECK_EQ(st.seq, 3);
	memset(&st, 0, sizeof(st));
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.current, 1);
	CHECK_EQ(st.nlabels, 1);
	CHECK_EQ(st.labels[0].uuid[7], 0xab);
	CHECK_EQ(st.labels[0].rawsize, 1ull << 30);
	CHECK_STREQ(st.labels[0].name, "ns");
	/* a second one goes to slot 1, index 0 current with seq 1 (3 -> 1) */
	l = mk(0xcd, 1ull << 30, 1ull << 30);
	CHECK_EQ(nd_label_add(area, AREA, &st, &l, &d), 0);
	CHECK_EQ(st.current, 0);
	CHECK_EQ(st.seq, 1);
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.nlabels, 2);
	CHECK_EQ(st.labels[1].slot, 1);
	CHECK_EQ(nd_label_del(area, AREA, &st, 0, &d), 0);
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.nlabels, 1);
	CHECK_EQ(st.labels[0].uuid[0], 0xcd);
	CHECK_EQ(nd_label_del(area, AREA, &st, 3, &d), -EINVAL);
}

HTEST(nd_label_newer_valid_index_wins)
{
	struct nd_label_state st;
	struct nd_label_dirty d;
	struct nd_label l = mk(1, 0, 4096);

	memset(area, 0, sizeof(area));
	CHECK_EQ(nd_label_init(area, AREA, &d), 0);
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), 0);
	CHECK_EQ(nd_label_add(area, AREA, &st, &l, &d), 0);	/* index 1 seq 3 */
	/* a torn update: the newer block's checksum breaks, the old one rules */
	area[256 + 100] ^= 0xff;
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.current, 0);
	CHECK_EQ(st.nlabels, 0);
	/* both broken: not initialised */
	area[100] ^= 0xff;
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), -ENOENT);
	CHECK_STR_CONTAINS(why, "no valid index");
	/* seq 0 is never valid */
	CHECK_EQ(nd_label_init(area, AREA, &d), 0);
	put32(area + 20, 0);
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), 0);
	CHECK_EQ(st.current, 1);
}

HTEST(nd_label_bad_labels_refused)
{
	struct nd_label_state st;
	struct nd_label_dirty d;
	struct nd_label l;

	/* outside the DIMM */
	memset(area, 0, sizeof(area));
	CHECK_EQ(nd_label_init(area, AREA, &d), 0);
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), 0);
	l = mk(1, DPA - 4096, 8192);
	CHECK_EQ(nd_label_add(area, AREA, &st, &l, &d), 0);
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), -EINVAL);
	CHECK_STR_CONTAINS(why, "outside");
	/* two overlapping */
	CHECK_EQ(nd_label_init(area, AREA, &d), 0);
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), 0);
	l = mk(1, 0, 1 << 20);
	CHECK_EQ(nd_label_add(area, AREA, &st, &l, &d), 0);
	l = mk(2, 1 << 19, 1 << 20);
	CHECK_EQ(nd_label_add(area, AREA, &st, &l, &d), 0);
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), -EINVAL);
	CHECK_STR_CONTAINS(why, "overlap");
	/* a slot field that lies */
	CHECK_EQ(nd_label_init(area, AREA, &d), 0);
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), 0);
	l = mk(1, 0, 1 << 20);
	CHECK_EQ(nd_label_add(area, AREA, &st, &l, &d), 0);
	put32(area + 512 + 120, 7);
	CHECK_EQ(nd_label_scan(area, AREA, 0, DPA, &st, why, sizeof(why)), -EINVAL);
	CHECK_STR_CONTAINS(why, "says slot 7");
	/* areas too small or too large */
	CHECK_EQ(nd_label_init(area, 512, &d), -EINVAL);
	CHECK_EQ(nd_label_init(area, AREA * 2, &d), -EINVAL);
	CHECK_EQ(nd_label_scan(area, 512, 0, DPA, &st, why, sizeof(why)), -EINVAL);
}

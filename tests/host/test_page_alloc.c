/*
 * test_page_alloc.c - the zoned allocator around the buddy: watermark and
 * lowmem_reserve numbers, allocations stopping at the watermarks, zonelist
 * order across nodes, the checks on free (bad pages), page poisoning, and
 * the small naming helpers.
 */
#include <stdlib.h>
#include "htest.h"
#include "buddy_fixture.h"
#include "platform_stub.h"
#include <mm/platform.h>
#include <mm/mm_init.h>
#include <mm/numa_cpu.h>
#include <lib/errno.h>

#define MiB		(1ULL << 20)

static struct zone *zone_of(int nid, enum zone_type idx)
{
	return &NODE_DATA(nid)->node_zones[idx];
}

/* Node nid online with the given managed pages per zone (no memory behind
 * them: enough for the watermark arithmetic). */
static void fake_node(int nid, const unsigned long managed[MAX_NR_ZONES])
{
	struct pglist_data *pgdat = NODE_DATA(nid);

	pgdat->node_id = nid;
	pgdat->online = true;
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		zone->zone_pgdat = pgdat;
		zone->name = zone_names[z];
		zone->idx = (enum zone_type)z;
		zone_init_free_lists(zone);
		zone->managed_pages = zone->present_pages = zone->spanned_pages = managed[z];
	}
}

/*
 * The zones of a real Linux 6.1 boot (Debian 6.1.0, QEMU -m 2G plus 4 GiB
 * of virtio-mem and a 1 GiB DIMM onlined movable, read from its
 * /proc/zoneinfo): managed pages
 * DMA 3840, DMA32 482678, Movable 1310720.  THP had raised min_free_kbytes
 * to 45056 (11264 pages).  Derivation:
 *   lowmem_pages = 3840 + 482678 + 1310720 = 1797238 (6.1 counts Movable)
 *   min   DMA   11264 * 3840    / 1797238 = 24
 *         DMA32 11264 * 482678  / 1797238 = 3025
 *         Mov.  11264 * 1310720 / 1797238 = 8214
 *   gap = max(min / 4, managed * 10 / 10000): 6, 756, 2053
 *   low = min + gap: 30, 3781, 10267;  high = low + gap: 36, 4537, 12320
 *   lowmem_reserve of DMA (ratio 256): DMA32 482678/256 = 1885, Normal
 *     the same, Movable and Device (482678 + 1310720)/256 = 7005;
 *     of DMA32 (256): Movable 1310720/256 = 5120; of Normal: 0 (no pages)
 *   pcp batch: DMA 3840/1024 = 3, /4 = 0 -> 1, 2^0 - 1 = 0 -> at least 1;
 *     DMA32 and Movable: min(471 or 1280, 256)/4 = 64 -> 96 -> 64 - 1 = 63;
 *     pcp high = the low watermark (one CPU): 30, 3781, 10267
 *   totalreserve = min(3840, 7005 + 36) + (5120 + 4537) + 12320 = 25817
 * Every number but totalreserve is what that kernel printed.
 */
HTEST(watermarks_match_linux_6_1)
{
	static const unsigned long managed[MAX_NR_ZONES] = {
		[ZONE_DMA] = 3840, [ZONE_DMA32] = 482678, [ZONE_MOVABLE] = 1310720,
	};
	struct zone *dma, *dma32, *mov;

	bf_machine(0);
	fake_node(0, managed);
	dma = zone_of(0, ZONE_DMA);
	dma32 = zone_of(0, ZONE_DMA32);
	mov = zone_of(0, ZONE_MOVABLE);
	CHECK_EQ(set_min_free_kbytes(45056), 0);
	CHECK_EQ(get_min_free_kbytes(), 45056);	/* the computed 5580 is smaller */
	CHECK_EQ(dma->watermark[WMARK_MIN], 24);
	CHECK_EQ(dma->watermark[WMARK_LOW], 30);
	CHECK_EQ(dma->watermark[WMARK_HIGH], 36);
	CHECK_EQ(dma32->watermark[WMARK_MIN], 3025);
	CHECK_EQ(dma32->watermark[WMARK_LOW], 3781);
	CHECK_EQ(dma32->watermark[WMARK_HIGH], 4537);
	CHECK_EQ(mov->watermark[WMARK_MIN], 8214);
	CHECK_EQ(mov->watermark[WMARK_LOW], 10267);
	CHECK_EQ(mov->watermark[WMARK_HIGH], 12320);
	CHECK_EQ(zone_of(0, ZONE_NORMAL)->watermark[WMARK_HIGH], 0);
	CHECK_EQ(dma->lowmem_reserve[ZONE_DMA], 0);
	CHECK_EQ(dma->lowmem_reserve[ZONE_DMA32], 1885);
	CHECK_EQ(dma->lowmem_reserve[ZONE_NORMAL], 1885);
	CHECK_EQ(dma->lowmem_reserve[ZONE_MOVABLE], 7005);
	CHECK_EQ(dma->lowmem_reserve[ZONE_DEVICE], 7005);
	CHECK_EQ(dma32->lowmem_reserve[ZONE_NORMAL], 0);
	CHECK_EQ(dma32->lowmem_reserve[ZONE_MOVABLE], 5120);
	CHECK_EQ(zone_of(0, ZONE_NORMAL)->lowmem_reserve[ZONE_MOVABLE], 0);
	CHECK_EQ(zone_pcp(dma, 0)->batch, 1);
	CHECK_EQ(zone_pcp(dma, 0)->high, 30);
	CHECK_EQ(zone_pcp(dma32, 0)->batch, 63);
	CHECK_EQ(zone_pcp(dma32, 0)->high, 3781);
	CHECK_EQ(zone_pcp(mov, 0)->batch, 63);
	CHECK_EQ(zone_pcp(mov, 0)->high, 10267);
	CHECK_EQ(totalreserve_pages, 25817);
	CHECK_EQ(NODE_DATA(0)->totalreserve_pages, 25817);
}

/*
 * pcp high with more CPUs (Linux's zone_highsize()): the same zones, the
 * low watermark shared by the online CPUs of the zone's node.  Listed on
 * node 0: the boot CPU, two APs that come online, one that never does;
 * one online CPU on node 1 (no memory) does not count for node 0.  Four
 * online CPUs on node 0: DMA32 3781 / 4 = 945, Movable 10267 / 4 = 2566,
 * DMA 30 / 4 = 7 (at least 4 * batch 1).  The batch does not change.
 */
HTEST(pcp_high_is_shared_by_the_nodes_online_cpus)
{
	static const unsigned long managed[MAX_NR_ZONES] = {
		[ZONE_DMA] = 3840, [ZONE_DMA32] = 482678, [ZONE_MOVABLE] = 1310720,
	};
	struct numa_cpu c = { .nid = 0, .pxm = -1 };
	struct zone *dma32, *mov;

	bf_machine(0);
	fake_node(0, managed);
	dma32 = zone_of(0, ZONE_DMA32);
	mov = zone_of(0, ZONE_MOVABLE);
	CHECK_EQ(set_min_free_kbytes(45056), 0);
	numa_cpus_reset();
	for (u32 i = 0; i < 5; i++) {
		c.hw_id = i;
		c.boot = i == 0;
		c.nid = i == 4 ? NUMA_NO_NODE : 0;
		CHECK_EQ(numa_cpu_add(&c), (int)i);
	}
	mm_cpus_online_changed();		/* only the boot CPU runs */
	CHECK_EQ(node_nr_online_cpus(0), 1);
	CHECK_EQ(zone_pcp(dma32, 0)->high, 3781);
	numa_cpu_set_online(1, true);
	numa_cpu_set_online(2, true);
	numa_cpu_set_online(4, true);		/* on no node */
	numa_cpu_set_online(99, true);		/* not listed: ignored */
	mm_cpus_online_changed();
	CHECK_EQ(node_nr_online_cpus(0), 3);	/* CPU 3 never came up */
	CHECK_EQ(nr_online_numa_cpus(), 4);
	CHECK_EQ(zone_pcp(dma32, 0)->high, 3781 / 3);
	CHECK_EQ(zone_pcp(dma32, 2)->high, 3781 / 3);
	CHECK_EQ(zone_pcp(mov, 1)->high, 10267 / 3);
	CHECK_EQ(zone_pcp(dma32, 0)->batch, 63);
	numa_cpu_set_online(3, true);
	mm_cpus_online_changed();
	CHECK_EQ(zone_pcp(dma32, 0)->high, 945);
	CHECK_EQ(zone_pcp(mov, 0)->high, 2566);
	CHECK_EQ(zone_pcp(zone_of(0, ZONE_DMA), 0)->high, 7);
	CHECK_EQ(zone_pcp(zone_of(0, ZONE_DMA), 0)->batch, 1);
	/* a zone whose node has no online CPU: every online CPU shares it */
	numa_cpus_reset();
	for (u32 i = 0; i < 2; i++) {
		c.hw_id = i;
		c.boot = i == 0;
		c.nid = 1;
		CHECK(numa_cpu_add(&c) >= 0);
	}
	numa_cpu_set_online(1, true);
	mm_cpus_online_changed();
	CHECK_EQ(node_nr_online_cpus(0), 0);
	CHECK_EQ(zone_pcp(dma32, 0)->high, 3781 / 2);
	numa_cpus_reset();
	mm_cpus_online_changed();
	CHECK_EQ(zone_pcp(dma32, 0)->high, 3781);	/* the fallback: one CPU */
}

/*
 * min_free_kbytes computed (no THP): DMA 3840 + DMA32 482678 managed,
 * lowmem_kbytes = 486518 * 4 = 1946072, int_sqrt(16 * 1946072) = 5580;
 * pages_min 1395: DMA 1395 * 3840 / 486518 = 11, DMA32 1383;
 * gaps max(2, 3) = 3 and max(345, 482) = 482.
 * Computing again subtracts the high watermarks from lowmem (Linux's
 * nr_free_buffer_pages): (3823 + 480331) * 4 * 16 -> int_sqrt = 5566.
 * A tiny machine is clamped to 128 kB.
 */
HTEST(watermarks_min_free_kbytes_computed)
{
	static const unsigned long managed[MAX_NR_ZONES] = {
		[ZONE_DMA] = 3840, [ZONE_DMA32] = 482678,
	};
	static const unsigned long tiny[MAX_NR_ZONES] = { [ZONE_NORMAL] = 100 };

	bf_machine(0);
	fake_node(0, managed);
	CHECK_EQ(set_min_free_kbytes(0), 0);	/* back to automatic */
	CHECK_EQ(get_min_free_kbytes(), 5580);
	CHECK_EQ(zone_of(0, ZONE_DMA)->watermark[WMARK_MIN], 11);
	CHECK_EQ(zone_of(0, ZONE_DMA)->watermark[WMARK_LOW], 14);
	CHECK_EQ(zone_of(0, ZONE_DMA)->watermark[WMARK_HIGH], 17);
	CHECK_EQ(zone_of(0, ZONE_DMA32)->watermark[WMARK_MIN], 1383);
	CHECK_EQ(zone_of(0, ZONE_DMA32)->watermark[WMARK_LOW], 1865);
	CHECK_EQ(zone_of(0, ZONE_DMA32)->watermark[WMARK_HIGH], 2347);
	setup_per_zone_wmarks();
	CHECK_EQ(get_min_free_kbytes(), 5566);
	CHECK_EQ(set_min_free_kbytes(-1), -22);

	bf_machine(0);
	fake_node(0, tiny);
	setup_per_zone_wmarks();
	CHECK_EQ(get_min_free_kbytes(), 128);
	CHECK_EQ(zone_of(0, ZONE_NORMAL)->watermark[WMARK_MIN], 32);
	CHECK_EQ(zone_of(0, ZONE_NORMAL)->watermark[WMARK_LOW], 40);
}

/*
 * watermark_scale_factor sets the gap between the marks, and its setter
 * recomputes them: DMA32's 482678 managed pages get a gap of max(min / 4,
 * 482678 * 100 / 10000) = 4826 at factor 100, back to 482 at 10.  Out of
 * [1, 3000] is refused and changes nothing.
 */
HTEST(watermarks_scale_factor_setter_recomputes)
{
	static const unsigned long managed[MAX_NR_ZONES] = {
		[ZONE_DMA] = 3840, [ZONE_DMA32] = 482678,
	};
	struct zone *dma32;

	bf_machine(0);
	fake_node(0, managed);
	CHECK_EQ(set_min_free_kbytes(0), 0);
	dma32 = zone_of(0, ZONE_DMA32);
	CHECK_EQ(get_watermark_scale_factor(), 10);
	CHECK_EQ(set_watermark_scale_factor(100), 0);
	CHECK_EQ(get_watermark_scale_factor(), 100);
	CHECK_EQ(dma32->watermark[WMARK_LOW] - dma32->watermark[WMARK_MIN], 4826);
	CHECK_EQ(dma32->watermark[WMARK_HIGH] - dma32->watermark[WMARK_LOW], 4826);
	CHECK_EQ(set_watermark_scale_factor(0), -EINVAL);
	CHECK_EQ(set_watermark_scale_factor(3001), -EINVAL);
	CHECK_EQ(get_watermark_scale_factor(), 100);
	CHECK_EQ(set_watermark_scale_factor(10), 0);
	CHECK_EQ(dma32->watermark[WMARK_LOW] - dma32->watermark[WMARK_MIN], 482);
}

/* A 64 MiB node-0 Normal zone, all handed over, watermarks min/low/high. */
static struct zone *wmark_zone(unsigned long min, unsigned long low, unsigned long high)
{
	struct zone *z = zone_of(0, ZONE_NORMAL);

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 16384, MIGRATE_MOVABLE);
	bf_handover(z, 0, 16384);
	z->watermark[WMARK_MIN] = min;
	z->watermark[WMARK_LOW] = low;
	z->watermark[WMARK_HIGH] = high;
	zone_pcp_init(z);
	build_all_zonelists();
	return z;
}

static unsigned alloc_until_failure(gfp_t gfp, unsigned order, struct page **pages, unsigned max)
{
	unsigned n = 0;
	struct page *page;

	while (n < max && (page = alloc_pages(gfp | __GFP_NOWARN, order)))
		pages[n++] = page;
	return n;
}

/*
 * Order-0 allocations without pcp go on while the free pages stay above a
 * watermark: the first pass needs > low, the slow pass > min.  So they
 * stop with exactly min (1000) pages free; __GFP_HIGH halves min and goes
 * on to 500.  Order-3 requests must keep free - 7 > min: with min 1003
 * they stop at 1008 free (without the "- 7" they would go on to 1000).  Through the pcp lists the zone ends with the pcp lists
 * drained and at most min, more than min - batch, pages free.
 */
HTEST(watermarks_stop_allocations)
{
	static struct page *pages[16384];
	struct zone *z = wmark_zone(1000, 2000, 3000);
	unsigned n, n_high;

	n = alloc_until_failure(GFP_KERNEL | __GFP_NOPCP, 0, pages, 16384);
	CHECK_EQ(n, 16384 - 1000);
	CHECK_EQ(zone_nr_free(z), 1000);
	n_high = alloc_until_failure(GFP_KERNEL | __GFP_NOPCP | __GFP_HIGH, 0, pages + n, 16384 - n);
	CHECK_EQ(n_high, 500);
	CHECK_EQ(zone_nr_free(z), 500);
	CHECK(!zone_watermark_ok(z, 0, z->watermark[WMARK_MIN], ZONE_NORMAL, ALLOC_HIGH));
	for (unsigned i = 0; i < n + n_high; i++)
		free_pages(pages[i], 0);
	pcp_drain_zone(z);
	CHECK_EQ(zone_nr_free(z), 16384);
	CHECK_EQ(bf_check_zone(z, NULL), 0);

	z->watermark[WMARK_MIN] = 1003;
	n = alloc_until_failure(GFP_KERNEL | __GFP_NOPCP, 3, pages, 16384);
	CHECK_EQ(zone_nr_free(z), 1008);	/* 1016 - 7 > 1003, but 1008 - 7 is not */
	z->watermark[WMARK_MIN] = 1000;
	for (unsigned i = 0; i < n; i++)
		free_pages(pages[i], 3);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
	pcp_drain_zone(z);

	n = alloc_until_failure(GFP_MOVABLE, 0, pages, 16384);
	CHECK_EQ(zone_pcp_count(z), 0);
	CHECK(zone_nr_free(z) <= 1000 && zone_nr_free(z) > 1000 - (unsigned long)zone_pcp(z, 0)->batch);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
	for (unsigned i = 0; i < n; i++)
		free_pages(pages[i], 0);
	pcp_drain_zone(z);
	CHECK_EQ(zone_nr_free(z), 16384);
}

/* zone_watermark_ok() for order > 0 also wants a free block that large. */
HTEST(watermarks_need_a_large_enough_block)
{
	static struct page *pages[16384];
	struct zone *z = wmark_zone(0, 0, 0);
	unsigned n = 0;
	struct page *page;

	/* Take every page, then give back every other one: 8192 free pages,
	 * none of them with a free buddy. */
	while ((page = zone_alloc_pages(z, GFP_KERNEL | __GFP_NOPCP, 0)))
		pages[n++] = page;
	CHECK_EQ(n, 16384);
	for (unsigned i = 0; i < n; i++)
		if (page_to_pfn(pages[i]) % 2 == 0)
			CHECK_EQ(zone_free_pages(z, pages[i], 0), 0);
	pcp_drain_zone(z);
	CHECK_EQ(zone_nr_free(z), 8192);
	CHECK(zone_watermark_ok(z, 0, 100, ZONE_NORMAL, 0));
	CHECK(!zone_watermark_ok(z, 1, 100, ZONE_NORMAL, 0));
	CHECK(alloc_pages(GFP_KERNEL | __GFP_NOWARN, 1) == NULL);
	CHECK(!zone_watermark_ok(z, 0, 8192, ZONE_NORMAL, 0));	/* free must be > mark */
	CHECK(zone_watermark_ok(z, 0, 8191, ZONE_NORMAL, 0));
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * lowmem_reserve: node 0 has DMA32 [0, 8192) and Normal [8192, 16384),
 * min watermark 100 in both, DMA32's reserve against Normal-capable
 * requests 4000.  GFP_KERNEL allocations drain Normal to 100, then DMA32
 * only down to 100 + 4000; GFP_DMA32 allocations may then take DMA32 down
 * to 100.
 */
HTEST(watermarks_lowmem_reserve_protects_lower_zone)
{
	static struct page *pages[16384];
	struct zone *dma32 = zone_of(0, ZONE_DMA32), *normal = zone_of(0, ZONE_NORMAL);
	unsigned n, n32, wrong_zone;

	bf_machine(64 * MiB);
	bf_zone_init(dma32, 0, ZONE_DMA32, 0, 8192, MIGRATE_MOVABLE);
	bf_zone_init(normal, 0, ZONE_NORMAL, 8192, 16384, MIGRATE_MOVABLE);
	bf_handover(dma32, 0, 8192);
	bf_handover(normal, 8192, 16384);
	for (int w = 0; w < NR_WMARK; w++)
		dma32->watermark[w] = normal->watermark[w] = 100;
	dma32->lowmem_reserve[ZONE_NORMAL] = 4000;
	build_all_zonelists();
	CHECK(NODE_DATA(0)->node_zonelist.zones[0] == normal);
	CHECK(NODE_DATA(0)->node_zonelist.zones[1] == dma32);
	CHECK(NODE_DATA(0)->node_zonelist.zones[2] == NULL);

	n = alloc_until_failure(GFP_KERNEL | __GFP_NOPCP, 0, pages, 16384);
	CHECK_EQ(zone_nr_free(normal), 100);
	CHECK_EQ(zone_nr_free(dma32), 4100);
	n32 = alloc_until_failure(GFP_DMA32 | __GFP_NOPCP, 0, pages + n, 16384 - n);
	CHECK_EQ(n32, 4000);
	CHECK_EQ(zone_nr_free(dma32), 100);
	CHECK_EQ(n, (8192 - 100) + (8192 - 4100));
	wrong_zone = 0;
	for (unsigned i = 0; i < n + n32; i++)
		if (page_zonenum(pages[i]) != (i < 8192 - 100 ? ZONE_NORMAL : ZONE_DMA32))
			wrong_zone++;
	CHECK_EQ(wrong_zone, 0);
	CHECK_EQ(bf_check_zone(dma32, NULL), 0);
	CHECK_EQ(bf_check_zone(normal, NULL), 0);
}

/*
 * Zonelists of three online nodes (node 3 is offline), distances
 *          to 0   1   2
 *   from 0   10  30  20
 *   from 1   20  10  20
 *   from 2   20  30  10
 * Node 0 has DMA, DMA32 and Normal, node 1 Normal and Movable, node 2
 * Normal and an empty Device zone; node 3's Normal is ignored.
 * Expect, own node first, its zones high to low, then by distance with
 * ties by node id:
 *   node 0: N0.Normal N0.DMA32 N0.DMA  N2.Normal  N1.Movable N1.Normal
 *   node 1: N1.Movable N1.Normal  N0.Normal N0.DMA32 N0.DMA  N2.Normal
 *   node 2: N2.Normal  N0.Normal N0.DMA32 N0.DMA  N1.Movable N1.Normal
 */
HTEST(zonelists_order_by_distance)
{
	static const unsigned long n0[MAX_NR_ZONES] = { 100, 200, 300, 0, 0 };
	static const unsigned long n1[MAX_NR_ZONES] = { 0, 0, 300, 400, 0 };
	static const unsigned long n2[MAX_NR_ZONES] = { 0, 0, 300, 0, 0 };
	static const u8 dist[3][3] = { { 10, 30, 20 }, { 20, 10, 20 }, { 20, 30, 10 } };
	struct zone *expect[3][7] = {
		{ zone_of(0, 2), zone_of(0, 1), zone_of(0, 0), zone_of(2, 2), zone_of(1, 3), zone_of(1, 2), NULL },
		{ zone_of(1, 3), zone_of(1, 2), zone_of(0, 2), zone_of(0, 1), zone_of(0, 0), zone_of(2, 2), NULL },
		{ zone_of(2, 2), zone_of(0, 2), zone_of(0, 1), zone_of(0, 0), zone_of(1, 3), zone_of(1, 2), NULL },
	};

	bf_machine(0);
	fake_node(0, n0);
	fake_node(1, n1);
	fake_node(2, n2);
	fake_node(3, n2);
	NODE_DATA(3)->online = false;
	zone_of(2, ZONE_DEVICE)->present_pages = 0;
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			numa_distance[a][b] = dist[a][b];
	build_all_zonelists();
	for (int nid = 0; nid < 3; nid++)
		for (int i = 0; i < 7; i++)
			CHECK(NODE_DATA(nid)->node_zonelist.zones[i] == expect[nid][i]);
	CHECK(NODE_DATA(3)->node_zonelist.zones[0] == NULL);
}

/*
 * Two nodes of 32 MiB each (Normal zones, watermarks 0).  Node 0's eight
 * order-10 blocks go first; the ninth allocation for node 0 comes from
 * node 1, unless __GFP_THISNODE forbids it.  Node 1's own allocations
 * start on node 1.
 */
HTEST(alloc_falls_back_to_the_next_node)
{
	struct zone *z0 = zone_of(0, ZONE_NORMAL), *z1 = zone_of(1, ZONE_NORMAL);
	struct page *page;

	bf_machine(64 * MiB);
	bf_zone_init(z0, 0, ZONE_NORMAL, 0, 8192, MIGRATE_MOVABLE);
	bf_zone_init(z1, 1, ZONE_NORMAL, 8192, 16384, MIGRATE_MOVABLE);
	bf_handover(z0, 0, 8192);
	bf_handover(z1, 8192, 16384);
	numa_distance[0][1] = numa_distance[1][0] = 20;
	numa_distance[0][0] = numa_distance[1][1] = 10;
	build_all_zonelists();
	CHECK(page_to_nid(alloc_pages_node(1, GFP_KERNEL, 0)) == 1);
	for (int i = 0; i < 8; i++) {
		page = alloc_pages_node(0, GFP_KERNEL, 10);
		CHECK(page && page_to_nid(page) == 0);
	}
	CHECK(alloc_pages_node(0, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, 10) == NULL);
	page = alloc_pages(GFP_KERNEL, 10);
	CHECK(page && page_to_nid(page) == 1);
	CHECK_EQ(zone_nr_free(z0), 0);
	CHECK_EQ(bf_check_zone(z0, NULL), 0);
	CHECK_EQ(bf_check_zone(z1, NULL), 0);
}

/* Everything observable about a zone's free state, to prove a rejected
 * free changed nothing. */
struct zone_snapshot {
	unsigned long nr_free, managed;
	int pcp_count;
	struct zone_events ev;
};

static struct zone_snapshot snap(const struct zone *z)
{
	return (struct zone_snapshot){ zone_nr_free(z), z->managed_pages, zone_pcp_count(z), z->ev };
}

static bool same(const struct zone_snapshot *a, const struct zone_snapshot *b)
{
	return a->nr_free == b->nr_free && a->managed == b->managed && a->pcp_count == b->pcp_count &&
	       memcmp(&a->ev, &b->ev, sizeof(a->ev)) == 0;
}

/* free_pages() of a bad page: reported, nothing freed, nothing counted. */
static void expect_rejected(struct zone *z, struct page *page, unsigned order, const char *what)
{
	struct zone_snapshot before = snap(z), after;
	u64 reports = bad_page_reports;

	free_pages(page, order);
	after = snap(z);
	if (!same(&before, &after) || bad_page_reports != reports + 1 ||
	    !strstr(host_last_log, "BUG: Bad page state")) {
		htest_failures++;
		fprintf(stderr, "  %s: not rejected cleanly (reports %llu -> %llu, last log \"%s\")\n",
			what, (unsigned long long)reports, (unsigned long long)bad_page_reports,
			host_last_log);
	}
}

/*
 * Bad frees: double free (page on a pcp list, then in the buddy), an
 * order larger than allocated, a page with refcount 2, a reserved page,
 * a misaligned pfn, an impossible order.  Each is rejected with every
 * counter unchanged and the zone still consistent.
 */
HTEST(free_rejects_bad_pages)
{
	struct zone *z = zone_of(0, ZONE_NORMAL);
	struct page *a, *c, *d, *e;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 16384, MIGRATE_MOVABLE);
	bf_handover(z, 0, 8000);	/* [8000, 16384) stays reserved */
	zone_pcp_init(z);
	build_all_zonelists();

	a = alloc_pages(GFP_KERNEL, 0);
	free_pages(a, 0);
	CHECK(PagePcp(a));
	expect_rejected(z, a, 0, "double free onto pcp");
	pcp_drain_zone(z);
	expect_rejected(z, a, 0, "double free into the buddy");

	d = alloc_pages(GFP_KERNEL | __GFP_NOPCP, 3);
	free_pages(d + 4, 2);		/* the upper half, on its own: fine */
	expect_rejected(z, d, 3, "order larger than what is still allocated");
	free_pages(d, 2);

	c = alloc_pages(GFP_KERNEL, 0);
	c->refcount = 2;
	expect_rejected(z, c, 0, "refcount 2");
	c->refcount = 1;
	free_pages(c, 0);

	expect_rejected(z, pfn_to_page(9000), 0, "reserved page");

	e = alloc_pages(GFP_KERNEL | __GFP_NOPCP, 1);
	expect_rejected(z, e + 1, 1, "misaligned pfn");
	expect_rejected(z, e, MAX_PAGE_ORDER + 1, "order > MAX_PAGE_ORDER");
	free_pages(e, 1);
	pcp_drain_zone(z);
	CHECK_EQ(zone_nr_free(z), 8000);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * free_pages() says what happened: 0 for a good free, -EINVAL for each bad
 * one (double free, refcount 2, reserved, misaligned, impossible order, no
 * memmap), with exactly one report per refused free and the zone's
 * counters where they were.  zone_free_pages() answers the same.
 */
HTEST(free_pages_returns_the_errno)
{
	struct zone *z = zone_of(0, ZONE_NORMAL);
	struct zone_snapshot before, after;
	struct page *a, *c, *e;
	u64 reports;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 16384, MIGRATE_MOVABLE);
	bf_handover(z, 0, 8000);	/* [8000, 16384) stays reserved */
	zone_pcp_init(z);
	build_all_zonelists();

	a = alloc_pages(GFP_KERNEL, 0);
	c = alloc_pages(GFP_KERNEL, 0);
	e = alloc_pages(GFP_KERNEL | __GFP_NOPCP, 1);
	CHECK_EQ(free_pages(a, 0), 0);
	c->refcount = 2;
	reports = bad_page_reports;
	before = snap(z);
	CHECK_EQ(free_pages(a, 0), -EINVAL);			/* double free */
	CHECK_EQ(zone_free_pages(z, a, 0), -EINVAL);
	CHECK_EQ(free_pages(c, 0), -EINVAL);			/* refcount 2 */
	CHECK_EQ(free_pages(pfn_to_page(9000), 0), -EINVAL);	/* reserved */
	CHECK_EQ(free_pages(e + 1, 1), -EINVAL);		/* misaligned */
	CHECK_EQ(free_pages(e, MAX_PAGE_ORDER + 1), -EINVAL);	/* impossible order */
	CHECK_EQ(free_pages(pfn_to_page(1ULL << 30), 0), -EINVAL);	/* no memmap */
	after = snap(z);
	CHECK(same(&before, &after));
	CHECK_EQ(bad_page_reports, reports + 7);
	c->refcount = 1;
	CHECK_EQ(free_pages(c, 0), 0);
	CHECK_EQ(zone_free_pages(z, e, 1), 0);
	CHECK_EQ(bad_page_reports, reports + 7);
	pcp_drain_zone(z);
	CHECK_EQ(zone_nr_free(z), 8000);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/*
 * Poisoning: with it on, a freed page is filled with 0xaa and checked when
 * it is handed out again.  An intact page passes; a page written to while
 * free (byte 0x123) is reported with its pfn and offset and counted.
 * __GFP_ZERO still returns zeros.  Boot hand-over poisons when asked.
 */
HTEST(page_poisoning_detects_writes_to_free_pages)
{
	struct zone *z = zone_of(0, ZONE_NORMAL);
	struct page *page, *again;
	u8 *mem;
	u64 errors = page_poison_errors;
	char expect[64];

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 16384, MIGRATE_MOVABLE);
	bf_handover(z, 0, 1024);
	buddy_free_boot_pages(z, 1024, 10, true);
	CHECK(page_flag_test(pfn_to_page(1024 + 77), PG_poisoned));
	CHECK_EQ(*(u8 *)mm_phys_to_virt(PFN_PHYS(1024 + 77) + 5), PAGE_POISON_BYTE);
	zone_pcp_init(z);
	build_all_zonelists();
	page_poison_enable(true);
	CHECK(page_poison_enabled());

	page = alloc_pages(GFP_KERNEL, 0);
	mem = mm_phys_to_virt(page_to_phys(page));
	memset(mem, 0x5a, PAGE_SIZE);
	free_pages(page, 0);
	CHECK(page_flag_test(page, PG_poisoned));
	CHECK_EQ(mem[0], PAGE_POISON_BYTE);
	again = alloc_pages(GFP_KERNEL, 0);
	CHECK(again == page);			/* hot: head of the pcp list */
	CHECK_EQ(page_poison_errors, errors);
	CHECK(!page_flag_test(page, PG_poisoned));

	free_pages(page, 0);
	mem[0x123] = 0x00;
	again = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	CHECK(again == page);
	CHECK_EQ(page_poison_errors, errors + 1);
	snprintf(expect, sizeof(expect), "pfn 0x%llx at offset 0x123", (unsigned long long)page_to_pfn(page));
	CHECK(strstr(host_last_log, expect) != NULL);
	CHECK_EQ(mem[0x123], 0);
	CHECK_EQ(mem[PAGE_SIZE - 1], 0);
	free_pages(page, 0);
	page_poison_enable(false);
	pcp_drain_zone(z);
	CHECK_EQ(bf_check_zone(z, NULL), 0);
}

/* Impossible requests fail with a log line naming order, mode and node,
 * or silently with __GFP_NOWARN. */
HTEST(alloc_failure_is_logged)
{
	int logs;

	bf_machine(0);
	CHECK(alloc_pages(GFP_KERNEL, MAX_PAGE_ORDER + 1) == NULL);
	CHECK(strstr(host_last_log, "page allocation failure: order:11, mode:0x0(GFP_KERNEL), node:0") != NULL);
	CHECK(alloc_pages_node(5, GFP_MOVABLE | __GFP_ZERO, 0) == NULL);
	CHECK(strstr(host_last_log, "order:0, mode:0x108(GFP_KERNEL|__GFP_MOVABLE|__GFP_ZERO), node:5 (no such node)") != NULL);
	logs = host_log_count;
	CHECK(alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_PAGE_ORDER + 1) == NULL);
	CHECK_EQ(host_log_count, logs);
}

HTEST(gfp_and_names)
{
	struct page p = { .page_type = PAGE_TYPE_NONE };

	CHECK_EQ(gfp_zone(GFP_KERNEL), ZONE_NORMAL);
	CHECK_EQ(gfp_zone(__GFP_DMA), ZONE_DMA);
	CHECK_EQ(gfp_zone(GFP_DMA32 | __GFP_MOVABLE), ZONE_DMA32);
	CHECK_EQ(gfp_zone(GFP_MOVABLE), ZONE_MOVABLE);
	CHECK_EQ(gfp_migratetype(GFP_MOVABLE), MIGRATE_MOVABLE);
	CHECK_EQ(gfp_migratetype(GFP_KERNEL), MIGRATE_UNMOVABLE);
	CHECK_STREQ(migratetype_name(MIGRATE_UNMOVABLE), "Unmovable");
	CHECK_STREQ(migratetype_name(MIGRATE_HIGHATOMIC), "HighAtomic");
	CHECK_STREQ(migratetype_name(MIGRATE_ISOLATE), "Isolate");
	CHECK_STREQ(migratetype_name(42), "Unknown");
	CHECK_STREQ(zone_names[ZONE_DMA32], "DMA32");
	CHECK_STREQ(zone_names[ZONE_MOVABLE], "Movable");
	CHECK_STREQ(page_flag_name(PG_reserved), "reserved");
	CHECK_STREQ(page_type_name(&p), "none");
	page_set_type(&p, PGTY_BUDDY);
	CHECK_STREQ(page_type_name(&p), "buddy");
	page_set_type(&p, PGTY_PCP);
	CHECK_STREQ(page_type_name(&p), "pcp");
}

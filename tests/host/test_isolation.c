/*
 * test_isolation.c - page isolation, migration and offlining of free pages
 * (mm/page_isolation.c, mm/migrate.c) over the buddy fixture.
 *
 * Each test builds node 0's ZONE_NORMAL over [0, pages) of a fresh machine,
 * all pageblocks Movable.  Blocks a test wants "allocated" at a known pfn
 * are left out of the hand-over and made allocated by hand (refcount 1,
 * counted in managed_pages, as if the allocator had handed them out); the
 * rest is handed to the buddy.  Movable blocks belong to a test owner (its
 * own movable_operations) that fills them with a pattern depending on the
 * offset in the block, so a migrated block must still check.
 *
 * Offlined pages: offline_isolated_pages() leaves managed_pages to its
 * caller (the hotplug code lowers it); the tests do the same, so that
 * "free + allocated == managed" keeps holding and the offline pages are
 * exactly the pages managed lost.  bf_check_zone() does not know
 * PageOffline pages, so check_zone() hides them from it for the call.
 */
#include <stdlib.h>
#include "htest.h"
#include "buddy_fixture.h"
#include "test_owner.h"
#include <mm/page_isolation.h>
#include <mm/migrate.h>
#include <lib/errno.h>

#define MiB		(1ULL << 20)
#define NO_PFN		(~0ULL)
#define PB		pageblock_nr_pages

static struct zone *normal_zone(void)
{
	return &NODE_DATA(0)->node_zones[ZONE_NORMAL];
}

/* ---- fixture ---------------------------------------------------------------- */

/*
 * Zone [0, pages) with the blocks in taken[] (sorted, disjoint) allocated
 * and everything else handed to the buddy; pcp sized, zonelists built.
 */
static struct zone *iso_zone(u64 pages, const struct bf_block *taken, unsigned nr_taken)
{
	struct zone *z = normal_zone();
	u64 next = 0;

	bf_machine(64 * MiB);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, pages, MIGRATE_MOVABLE);
	for (unsigned i = 0; i < nr_taken; i++) {
		u64 pfn = taken[i].pfn, nr = 1ULL << taken[i].order;

		bf_handover(z, next, pfn);
		for (u64 p = pfn; p < pfn + nr; p++) {
			ClearPageReserved(pfn_to_page(p));
			pfn_to_page(p)->refcount = 1;
		}
		z->managed_pages += nr;
		next = pfn + nr;
	}
	bf_handover(z, next, pages);
	zone_pcp_init(z);
	build_all_zonelists();
	return z;
}

/* bf_check_zone() with offline pages hidden; also counts them. */
static int check_zone(struct zone *z, u64 *nr_offline)
{
	u64 offline = 0;
	int problems = 0;

	for (u64 pfn = z->zone_start_pfn; pfn < zone_end_pfn(z); pfn++) {
		struct page *p = pfn_to_page(pfn);

		if (!PageOffline(p))
			continue;
		if (p->refcount || PageReserved(p)) {
			fprintf(stderr, "  offline pfn %#llx: refcount %d flags %#lx\n",
				(unsigned long long)pfn, p->refcount, p->flags);
			problems++;
		}
		SetPageReserved(p);
		offline++;
	}
	problems += bf_check_zone(z, NULL);
	for (u64 pfn = z->zone_start_pfn; pfn < zone_end_pfn(z); pfn++)
		if (PageOffline(pfn_to_page(pfn)))
			ClearPageReserved(pfn_to_page(pfn));
	if (nr_offline)
		*nr_offline = offline;
	return problems;
}

/* Free pages of [start, end) in the buddy (walking the blocks). */
static u64 free_pages_in(u64 start, u64 end)
{
	u64 n = 0;

	for (u64 pfn = 0; pfn < end; ) {
		const struct page *p = pfn_to_page(pfn);

		if (PageBuddy(p)) {
			u64 s = MAX(pfn, start), e = MIN(pfn + (1ULL << buddy_order(p)), end);

			if (s < e)
				n += e - s;
			pfn += 1ULL << buddy_order(p);
		} else {
			pfn++;
		}
	}
	return n;
}

/* Pageblocks of [start, end) with the isolate bit set. */
static unsigned isolated_pageblocks(u64 start, u64 end)
{
	unsigned n = 0;

	for (u64 pfn = start; pfn < end; pfn += PB)
		n += get_pageblock_isolate(pfn);
	return n;
}

struct snapshot {
	struct bf_block blocks[4096];
	unsigned nr;
	int mt[64];		/* pageblock migratetypes */
};

static void take_snapshot(struct zone *z, struct snapshot *s)
{
	s->nr = bf_free_blocks(z, s->blocks, ARRAY_SIZE(s->blocks));
	for (unsigned i = 0; i < ARRAY_SIZE(s->mt); i++)
		s->mt[i] = zone_spans_pfn(z, i * PB) ? buddy_list_mt(i * PB) : -1;
}

static bool same_snapshot(struct zone *z, const struct snapshot *s)
{
	static struct snapshot now;

	take_snapshot(z, &now);
	return bf_blocks_equal(s->blocks, s->nr, now.blocks, now.nr) &&
	       !memcmp(s->mt, now.mt, sizeof(now.mt));
}

/* ---- isolation ---------------------------------------------------------------- */

/*
 * Zone [0, 8192), allocated pages at 700 (order 0), 1500 (order 2) and 3000
 * (order 0), none movable.  Isolating [512, 4096) without check flags
 * works; every free page of the range is then on an isolate list, and
 * test_pages_isolated() stops at the first allocated pfn.  Undoing gives
 * back exactly the free blocks and pageblock types of before.  A second
 * round starts with pages on the pcp lists: isolation drains them (none
 * stays on a pcp list) and the result is the same.
 *
 *   0    512       700   1500   3000       4096                 8192
 *   |free|  ISOLATE  A      A      A       |        free          |
 */
HTEST(isolation_undo_restores_free_lists)
{
	static const struct bf_block taken[] = { { 700, 0 }, { 1500, 2 }, { 3000, 0 } };
	static struct snapshot before;
	struct zone *z = iso_zone(8192, taken, ARRAY_SIZE(taken));
	struct page *pages[20];
	u64 failed = 0, in_range;

	take_snapshot(z, &before);
	in_range = free_pages_in(512, 4096);
	CHECK_EQ(in_range, 4096 - 512 - 6);
	CHECK_EQ(start_isolate_page_range(512, 4096, 0, &failed), 0);
	CHECK_EQ(isolated_pageblocks(0, 8192), 7);
	CHECK_EQ(zone_isolated_free_pages(z), in_range);
	CHECK_EQ(zone_nr_free(z), z->managed_pages - 6);
	CHECK_EQ(check_zone(z, NULL), 0);
	CHECK_EQ(test_pages_isolated(512, 4096, &failed), -EBUSY);
	CHECK_EQ(failed, 700);
	CHECK_EQ(test_pages_isolated(1024, 1500, &failed), 0);
	undo_isolate_page_range(512, 4096);
	CHECK_EQ(isolated_pageblocks(0, 8192), 0);
	CHECK_EQ(zone_isolated_free_pages(z), 0);
	CHECK(same_snapshot(z, &before));
	CHECK_EQ(check_zone(z, NULL), 0);

	/* Round two: some free pages wait on the pcp lists. */
	for (unsigned i = 0; i < ARRAY_SIZE(pages); i++)
		pages[i] = zone_alloc_pages(z, GFP_MOVABLE, 0);
	for (unsigned i = 0; i < ARRAY_SIZE(pages); i++)
		CHECK_EQ(zone_free_pages(z, pages[i], 0), 0);
	CHECK(zone_pcp_count(z) > 0);
	CHECK_EQ(start_isolate_page_range(512, 4096, 0, &failed), 0);
	CHECK_EQ(zone_pcp_count(z), 0);
	CHECK_EQ(zone_isolated_free_pages(z), in_range);
	CHECK_EQ(check_zone(z, NULL), 0);
	undo_isolate_page_range(512, 4096);
	CHECK(same_snapshot(z, &before));
	CHECK_EQ(check_zone(z, NULL), 0);
	CHECK_EQ(start_isolate_page_range(512, 4000, 0, &failed), -EINVAL);
	CHECK_EQ(start_isolate_page_range(512, 512, 0, &failed), -EINVAL);
}

/*
 * Free order-10 blocks straddling both edges of [512, 1536): each is split
 * at the pageblock boundary; the halves outside stay Movable, the halves
 * inside go to the isolate list (and do not merge: 512 and 1024 are not
 * buddies).  Undo merges them back into two order-10 blocks.
 *
 *   0        512       1024      1536      2048
 *   |  M  9  | ISO 9   | ISO 9   |  M  9   |
 */
HTEST(isolation_splits_blocks_straddling_the_edges)
{
	struct zone *z = iso_zone(4096, NULL, 0);
	u64 failed;

	CHECK_EQ(buddy_order(pfn_to_page(0)), 10);
	CHECK_EQ(start_isolate_page_range(512, 1536, ISOLATE_MEMORY_OFFLINE, &failed), 0);
	CHECK_EQ(zone_isolated_free_pages(z), 1024);
	CHECK_EQ(z->free_area[9].nr_free_mt[MIGRATE_ISOLATE], 2);
	CHECK_EQ(z->free_area[9].nr_free_mt[MIGRATE_MOVABLE], 2);
	CHECK_EQ(z->free_area[10].nr_free, 2);
	CHECK(PageBuddy(pfn_to_page(1536)) && buddy_order(pfn_to_page(1536)) == 9);
	CHECK_EQ(test_pages_isolated(512, 1536, &failed), 0);
	CHECK_EQ(check_zone(z, NULL), 0);
	undo_isolate_page_range(512, 1536);
	CHECK_EQ(z->free_area[10].nr_free, 4);
	CHECK_EQ(z->free_area[9].nr_free, 0);
	CHECK_EQ(check_zone(z, NULL), 0);
}

/*
 * A page freed into an isolated pageblock goes to the isolate list, not to
 * a pcp list (pcp_free bypasses them), and merges there: the pageblock
 * becomes one order-9 block again.  The same for an order-3 block and for
 * the gfp API's free_pages().
 */
HTEST(isolation_frees_go_to_the_isolate_list)
{
	struct zone *z = iso_zone(2048, NULL, 0);
	struct page *page, *block;
	u64 pfn, pb, failed;

	page = zone_alloc_pages(z, GFP_MOVABLE, 0);
	block = zone_alloc_pages(z, GFP_MOVABLE, 3);
	CHECK(page && block);
	pfn = page_to_pfn(page);
	pb = pageblock_start_pfn(pfn);
	CHECK_EQ(pageblock_start_pfn(page_to_pfn(block)), pb);	/* both from the same pageblock */
	pcp_drain_zone(z);
	CHECK_EQ(start_isolate_page_range(pb, pb + PB, 0, &failed), 0);
	CHECK_EQ(zone_isolated_free_pages(z), PB - 9);
	CHECK_EQ(zone_free_pages(z, page, 0), 0);
	CHECK_EQ(zone_pcp_count(z), 0);
	CHECK_EQ(zone_isolated_free_pages(z), PB - 8);
	free_pages(block, 3);
	CHECK_EQ(zone_pcp_count(z), 0);
	CHECK_EQ(zone_isolated_free_pages(z), PB);
	CHECK(PageBuddy(pfn_to_page(pb)) && buddy_order(pfn_to_page(pb)) == 9);
	CHECK_EQ(z->free_area[9].nr_free_mt[MIGRATE_ISOLATE], 1);
	CHECK_EQ(test_pages_isolated(pb, pb + PB, &failed), 0);
	CHECK_EQ(check_zone(z, NULL), 0);
	undo_isolate_page_range(pb, pb + PB);
	CHECK_EQ(z->free_area[10].nr_free, 2);
	CHECK_EQ(check_zone(z, NULL), 0);
}

/*
 * With the check flags, the first unmovable page fails the isolation:
 * -EBUSY, its pfn, and nothing changed (no isolate bit, the same free
 * lists).  In order of removal:
 *   2600  allocated, no owner            -> "unmovable allocation"
 *   3000  reserved                       -> "reserved page"
 *   1100  movable owner, 1101 pinned     -> "movable allocation ... pinned"
 * A movable owner's block (1100, order 2) is fine; a PGTY_TABLE reserved
 * page (the range's memmap) is fine for offlining, not for contig alloc.
 * A pageblock someone else isolated fails the call and stays isolated.
 */
HTEST(isolation_fails_on_unmovable_pages)
{
	static const struct bf_block taken[] = { { 1100, 2 }, { 2600, 0 }, { 3000, 0 } };
	static struct snapshot before;
	struct zone *z = iso_zone(8192, taken, ARRAY_SIZE(taken));
	struct test_owner owner;
	char why[160];
	u64 failed = 0;

	SetPageReserved(pfn_to_page(3000));	/* boot memory: never given out */
	z->managed_pages--;
	owner_attach(&owner, 1100, 2, 11);
	CHECK_EQ(check_zone(z, NULL), 0);
	take_snapshot(z, &before);

	CHECK_EQ(has_unmovable_pages(0, 8192), 2600);
	CHECK_EQ(start_isolate_page_range(512, 4096, ISOLATE_MEMORY_OFFLINE, &failed), -EBUSY);
	CHECK_EQ(failed, 2600);
	CHECK_EQ(isolated_pageblocks(0, 8192), 0);
	CHECK(same_snapshot(z, &before));
	describe_unmovable(failed, why, sizeof(why));
	CHECK_STREQ(why, "pfn 0xa28: unmovable allocation (refcount 1, no movable owner)");

	free_pages(pfn_to_page(2600), 0);
	pcp_drain_zone(z);	/* the isolation drains: compare with the drained lists */
	take_snapshot(z, &before);
	CHECK_EQ(start_isolate_page_range(512, 4096, ISOLATE_CONTIG_ALLOC, &failed), -EBUSY);
	CHECK_EQ(failed, 3000);
	CHECK(same_snapshot(z, &before));
	describe_unmovable(failed, why, sizeof(why));
	CHECK_STREQ(why, "pfn 0xbb8: reserved page (boot memory or firmware)");

	/* The memmap of the range itself: fine for offline, not for contig. */
	page_set_type(pfn_to_page(3000), PGTY_TABLE);
	CHECK_EQ(has_unmovable_pages(0, 8192), NO_PFN);
	CHECK_EQ(start_isolate_page_range(2560, 3072, ISOLATE_CONTIG_ALLOC, &failed), -EBUSY);
	CHECK_EQ(failed, 3000);
	describe_unmovable(failed, why, sizeof(why));
	CHECK_STREQ(why, "pfn 0xbb8: page table / memmap page");
	CHECK_EQ(start_isolate_page_range(2560, 3072, ISOLATE_MEMORY_OFFLINE, &failed), 0);
	CHECK_EQ(test_pages_isolated(2560, 3072, &failed), 0);
	undo_isolate_page_range(2560, 3072);

	/* A pinned movable block is unmovable. */
	pfn_to_page(1101)->refcount = 2;
	CHECK_EQ(start_isolate_page_range(512, 2048, ISOLATE_MEMORY_OFFLINE, &failed), -EBUSY);
	CHECK_EQ(failed, 1100);
	describe_unmovable(failed, why, sizeof(why));
	CHECK_STREQ(why, "pfn 0x44c: movable allocation (test owner) pinned: pfn 0x44d has refcount 2");
	pfn_to_page(1101)->refcount = 1;
	CHECK_EQ(start_isolate_page_range(512, 2048, ISOLATE_MEMORY_OFFLINE, &failed), 0);
	CHECK_EQ(test_pages_isolated(512, 2048, &failed), -EBUSY);
	CHECK_EQ(failed, 1100);
	describe_unmovable(failed, why, sizeof(why));
	CHECK_STREQ(why, "pfn 0x44c: pageblock 0x400 already isolated (another offline or contiguous allocation)");

	/* Already isolated (by the call above): a second isolation fails and leaves it. */
	CHECK_EQ(start_isolate_page_range(0, 1536, ISOLATE_MEMORY_OFFLINE, &failed), -EBUSY);
	CHECK_EQ(failed, 512);
	CHECK_EQ(isolated_pageblocks(0, 8192), 3);
	CHECK(!get_pageblock_isolate(0));
	undo_isolate_page_range(512, 2048);
	CHECK_EQ(isolated_pageblocks(0, 8192), 0);
	CHECK_EQ(check_zone(z, NULL), 0);
	CHECK(owner_ok(&owner));
}

/* ---- migration and offlining ---------------------------------------------------- */

/*
 * Movable blocks of orders 0, 2, 9 and 10 inside [2048, 4096), an
 * unmovable page outside.  Isolate, migrate_range(), test, offline:
 * every block lands outside the range with its data and owner marks, the
 * old pages end on the isolate list, and offline_isolated_pages() takes
 * exactly the 2048 pages of the range.  Conservation throughout: free +
 * allocated + offline == the managed pages before.  Then the range comes
 * back (undo, and a hand-over as onlining does) and the owners are freed:
 * the zone is one run of order-10 blocks again.
 */
HTEST(migrate_range_moves_owners_then_offline)
{
	static const struct bf_block taken[] = {
		{ 100, 0 }, { 2048, 0 }, { 2100, 2 }, { 2560, 9 }, { 3072, 10 },
	};
	struct test_owner owners[4];
	struct zone *z = iso_zone(8192, taken, ARRAY_SIZE(taken));
	unsigned long managed_before = z->managed_pages, nr_free_before;
	u64 failed = 0, nr = 0, offline = 0;
	struct migrate_dests dests;

	for (unsigned i = 0; i < 4; i++)
		owner_attach(&owners[i], taken[i + 1].pfn, taken[i + 1].order, 1000 + i);
	CHECK_EQ(has_unmovable_pages(2048, 4096), NO_PFN);
	CHECK_EQ(start_isolate_page_range(2048, 4096, ISOLATE_MEMORY_OFFLINE, &failed), 0);
	CHECK_EQ(test_pages_isolated(2048, 4096, &failed), -EBUSY);
	CHECK_EQ(failed, 2048);
	memset(&dests, 0, sizeof(dests));
	CHECK_EQ(migrate_range_to(2048, 4096, &failed, &nr, &dests), 0);
	CHECK_EQ(nr, 1 + 4 + 512 + 1024);
	/* where they landed: the zone is inside memory block 0 */
	CHECK_EQ(dests.nr, 1);
	CHECK_EQ(dests.to[0].block_id, pfn_to_block_id(owners[0].pfn));
	CHECK_EQ(dests.to[0].pages + dests.other_pages, nr);
	for (unsigned i = 0; i < 4; i++) {
		CHECK(owner_ok(&owners[i]));
		CHECK_EQ(owners[i].moves, 1);
		CHECK(owners[i].pfn + (1ULL << owners[i].order) <= 2048 || owners[i].pfn >= 4096);
		CHECK(pfn_to_page(taken[i + 1].pfn)->owner == NULL);
	}
	CHECK_EQ(test_pages_isolated(2048, 4096, &failed), 0);
	CHECK_EQ(zone_isolated_free_pages(z), 2048);
	CHECK_EQ(check_zone(z, NULL), 0);

	nr_free_before = zone_nr_free(z);
	CHECK_EQ(offline_isolated_pages(2048, 4096), 2048);
	z->managed_pages -= 2048;		/* the hotplug code's part */
	CHECK_EQ(zone_nr_free(z), nr_free_before - 2048);
	CHECK_EQ(zone_isolated_free_pages(z), 0);
	CHECK_EQ(check_zone(z, &offline), 0);
	CHECK_EQ(offline, 2048);
	CHECK_EQ(zone_nr_free(z) + (1 + 1 + 4 + 512 + 1024) + offline, managed_before);
	CHECK_EQ(test_pages_isolated(2048, 4096, &failed), 0);	/* offline pages pass */
	CHECK_EQ(offline_isolated_pages(2048, 4096), 0);		/* nothing left to take */
	undo_isolate_page_range(2048, 4096);
	CHECK_EQ(check_zone(z, NULL), 0);

	bf_handover(z, 2048, 4096);		/* online again */
	CHECK_EQ(z->managed_pages, managed_before);
	for (unsigned i = 0; i < 4; i++)
		owner_free(&owners[i]);
	free_pages(pfn_to_page(100), 0);
	pcp_drain_zone(z);
	CHECK_EQ(check_zone(z, &offline), 0);
	CHECK_EQ(offline, 0);
	CHECK_EQ(z->free_area[MAX_PAGE_ORDER].nr_free, 8);
	CHECK_EQ(zone_nr_free(z), 8192);
}

/*
 * An allocated movable order-10 block at 0 straddles the edge of
 * [512, 1536).  migrate_range() meets it at 512 and moves it whole; its old
 * block is freed pageblock by pageblock: [0, 512) to the Movable list,
 * [512, 1024) to the isolate list.
 */
HTEST(migrate_moves_a_block_straddling_the_edge)
{
	static const struct bf_block taken[] = { { 0, 10 } };
	struct zone *z = iso_zone(4096, taken, 1);
	struct test_owner owner;
	u64 failed, nr;

	owner_attach(&owner, 0, 10, 77);
	CHECK_EQ(start_isolate_page_range(512, 1536, ISOLATE_MEMORY_OFFLINE, &failed), 0);
	CHECK_EQ(migrate_range(512, 1536, &failed, &nr), 0);
	CHECK_EQ(nr, 1024);
	CHECK(owner_ok(&owner));
	CHECK(owner.pfn >= 1536);
	CHECK(PageBuddy(pfn_to_page(0)) && buddy_order(pfn_to_page(0)) == 9);
	CHECK_EQ(buddy_list_mt(0), MIGRATE_MOVABLE);
	CHECK_EQ(zone_isolated_free_pages(z), 1024);
	CHECK_EQ(test_pages_isolated(512, 1536, &failed), 0);
	CHECK_EQ(check_zone(z, NULL), 0);
	CHECK_EQ(offline_isolated_pages(512, 1536), 1024);
	z->managed_pages -= 1024;
	CHECK_EQ(check_zone(z, NULL), 0);
	undo_isolate_page_range(512, 1536);
	bf_handover(z, 512, 1536);
	owner_free(&owner);
	pcp_drain_zone(z);
	CHECK_EQ(z->free_area[MAX_PAGE_ORDER].nr_free, 4);
	CHECK_EQ(check_zone(z, NULL), 0);
}

/*
 * No room for a copy: the zone is [0, 2048), a movable order-10 block at 0
 * and an unmovable one at 1024.  migrate_range() fails with -ENOMEM at pfn
 * 0 and the block, its owner and its data are untouched.  With check
 * flags 0 the isolation succeeds over the unmovable block; migrate_range()
 * then stops there with -EBUSY.
 */
HTEST(migrate_fails_cleanly)
{
	static const struct bf_block taken[] = { { 0, 10 }, { 1024, 10 } };
	struct zone *z = iso_zone(2048, taken, 2);
	struct test_owner owner;
	u64 failed = 0, nr = 99;

	owner_attach(&owner, 0, 10, 5);
	CHECK_EQ(start_isolate_page_range(0, 1024, ISOLATE_MEMORY_OFFLINE, &failed), 0);
	CHECK_EQ(migrate_range(0, 1024, &failed, &nr), -ENOMEM);
	CHECK_EQ(failed, 0);
	CHECK_EQ(nr, 0);
	CHECK(owner_ok(&owner) && owner.pfn == 0 && owner.moves == 0);
	undo_isolate_page_range(0, 1024);
	CHECK_EQ(start_isolate_page_range(1024, 2048, 0, &failed), 0);
	CHECK_EQ(migrate_range(1024, 2048, &failed, &nr), -EBUSY);
	CHECK_EQ(failed, 1024);
	undo_isolate_page_range(1024, 2048);
	CHECK_EQ(migrate_block(pfn_to_page(1030), 0, 0, NUMA_NO_NODE), -EBUSY);
	CHECK_EQ(check_zone(z, NULL), 0);
	CHECK(owner_ok(&owner));
}

/*
 * migrate_block() outside any isolation (the shell's `move`): the target
 * must avoid the given range even where the allocator hands out blocks
 * inside it first.  Zone [0, 2048) with the owner's page at 0: the
 * smallest free blocks, which the allocator picks first, are 1, 2, 3, ...
 * Avoiding [0, 16) refuses the first 15 picks and takes pfn 16; avoiding
 * the whole zone fails with -ENOMEM, and every refused block is free again.
 */
HTEST(migrate_block_avoids_the_range)
{
	static const struct bf_block taken[] = { { 0, 0 } };
	struct zone *z = iso_zone(2048, taken, 1);
	struct test_owner owner;
	unsigned long nr_free;

	owner_attach(&owner, 0, 0, 9);
	CHECK_EQ(migrate_block(pfn_to_page(0), 0, 16, 0), 0);
	CHECK(owner_ok(&owner));
	CHECK_EQ(owner.pfn, 16);
	CHECK(pfn_to_page(0)->owner == NULL && pfn_to_page(0)->refcount == 0);
	nr_free = zone_nr_free(z);
	CHECK_EQ(migrate_block(pfn_to_page(16), 0, 2048, NUMA_NO_NODE), -ENOMEM);
	CHECK(owner_ok(&owner) && owner.pfn == 16 && owner.moves == 1);
	CHECK_EQ(zone_nr_free(z), nr_free);
	pcp_drain_zone(z);
	CHECK_EQ(check_zone(z, NULL), 0);
}

/* ---- random sequences ------------------------------------------------------------ */

#define RAND_PAGES	16384
#define RAND_BLOCKS	256

struct rand_block {
	u64 pfn;
	unsigned order;
	bool movable;
	struct test_owner owner;	/* movable ones */
};

struct rand_state {
	struct zone *zone;
	struct rand_block blocks[RAND_BLOCKS];
	unsigned nr_blocks;
	u8 offline_pb[RAND_PAGES / 512];	/* pageblocks offlined (whole) */
	unsigned long managed_before;
	u64 rng;
	unsigned nr_refused, nr_isolated, nr_migrated, nr_offlined, nr_onlined; /* what happened */
};

/* The first pfn of [start, end) the model says is unmovable, or NO_PFN. */
static u64 model_first_unmovable(struct rand_state *s, u64 start, u64 end)
{
	u64 best = NO_PFN;

	for (unsigned i = 0; i < s->nr_blocks; i++) {
		const struct rand_block *b = &s->blocks[i];
		u64 first = MAX(b->pfn, start);

		if (!b->movable && first < MIN(b->pfn + (1ULL << b->order), end))
			best = MIN(best, first);
	}
	for (u64 pfn = start; pfn < end; pfn++)
		if (PageReserved(pfn_to_page(pfn)) && !PageOffline(pfn_to_page(pfn)))
			return MIN(best, pfn);
	return best;
}

static void rand_alloc(struct rand_state *s)
{
	struct rand_block *b;
	unsigned order = (unsigned)(bf_rand(&s->rng) % 100);
	bool movable = bf_rand(&s->rng) % 4 != 0;
	struct page *page;

	order = order < 50 ? 0 : order < 80 ? (unsigned)(bf_rand(&s->rng) % 4) :
		(unsigned)(bf_rand(&s->rng) % (MAX_PAGE_ORDER + 1));
	if (s->nr_blocks == RAND_BLOCKS)
		return;
	page = alloc_pages_node(0, (movable ? GFP_MOVABLE : GFP_KERNEL) | __GFP_NOWARN, order);
	if (!page)
		return;
	b = &s->blocks[s->nr_blocks++];
	b->pfn = page_to_pfn(page);
	b->order = order;
	b->movable = movable;
	if (movable)
		owner_attach(&b->owner, b->pfn, order, bf_rand(&s->rng));
}

static void rand_free(struct rand_state *s)
{
	unsigned i = (unsigned)(bf_rand(&s->rng) % s->nr_blocks);
	struct rand_block *b = &s->blocks[i];

	if (b->movable) {
		CHECK(owner_ok(&b->owner));
		owner_free(&b->owner);
	} else {
		free_pages(pfn_to_page(b->pfn), b->order);
	}
	s->blocks[i] = s->blocks[--s->nr_blocks];
	if (i < s->nr_blocks && s->blocks[i].movable)	/* the owner moved in memory */
		set_owner(s->blocks[i].owner.pfn, s->blocks[i].owner.order, &s->blocks[i].owner);
}

/* Movable blocks follow their owners (after a migration). */
static void rand_sync(struct rand_state *s)
{
	for (unsigned i = 0; i < s->nr_blocks; i++)
		if (s->blocks[i].movable)
			s->blocks[i].pfn = s->blocks[i].owner.pfn;
}

/*
 * Isolate a random range with random flags and check the outcome against
 * the model; then undo, or migrate and undo, or migrate, offline and undo.
 */
static bool rand_isolate(struct rand_state *s)
{
	u64 nr_pb = 1 + bf_rand(&s->rng) % 8, start = (bf_rand(&s->rng) % (RAND_PAGES / PB)) * PB;
	u64 end = MIN(start + nr_pb * PB, (u64)RAND_PAGES), failed = NO_PFN, nr = 0;
	unsigned flags = bf_rand(&s->rng) % 3 ? ISOLATE_MEMORY_OFFLINE : 0;
	u64 unmovable = model_first_unmovable(s, start, end);
	unsigned action = (unsigned)(bf_rand(&s->rng) % 3);
	int err = start_isolate_page_range(start, end, flags, &failed);

	if (flags && unmovable != NO_PFN) {
		if (err != -EBUSY || failed != unmovable || isolated_pageblocks(0, RAND_PAGES)) {
			fprintf(stderr, "  isolate [%#llx, %#llx): %d at %#llx, expected -EBUSY at %#llx\n",
				(unsigned long long)start, (unsigned long long)end, err,
				(unsigned long long)failed, (unsigned long long)unmovable);
			return false;
		}
		s->nr_refused++;
		return true;
	}
	if (err) {
		fprintf(stderr, "  isolate [%#llx, %#llx): %d at %#llx\n", (unsigned long long)start,
			(unsigned long long)end, err, (unsigned long long)failed);
		return false;
	}
	s->nr_isolated++;
	if (check_zone(s->zone, NULL))
		return false;
	if (action == 0)
		goto undo;
	err = migrate_range(start, end, &failed, &nr);
	rand_sync(s);
	if (err == -EBUSY && failed != unmovable) {
		fprintf(stderr, "  migrate [%#llx, %#llx): -EBUSY at %#llx, unmovable at %#llx\n",
			(unsigned long long)start, (unsigned long long)end,
			(unsigned long long)failed, (unsigned long long)unmovable);
		return false;
	}
	if ((!err && unmovable != NO_PFN) || (err && err != -EBUSY && err != -ENOMEM)) {
		fprintf(stderr, "  migrate [%#llx, %#llx): %d\n", (unsigned long long)start,
			(unsigned long long)end, err);
		return false;
	}
	s->nr_migrated += nr > 0;
	if (err)
		goto undo;
	if (test_pages_isolated(start, end, &failed)) {
		fprintf(stderr, "  [%#llx, %#llx) not isolated after migration: pfn %#llx\n",
			(unsigned long long)start, (unsigned long long)end, (unsigned long long)failed);
		return false;
	}
	if (action == 2) {
		u64 already = 0, free_in_range = free_pages_in(start, end);
		unsigned long taken;

		for (u64 pfn = start; pfn < end; pfn += PB)
			already += s->offline_pb[pfn / PB] ? PB : 0;
		taken = offline_isolated_pages(start, end);
		if (taken != free_in_range || taken != end - start - already) {
			fprintf(stderr, "  offline [%#llx, %#llx): took %lu, %llu free, %llu offline already\n",
				(unsigned long long)start, (unsigned long long)end, taken,
				(unsigned long long)free_in_range, (unsigned long long)already);
			return false;
		}
		s->zone->managed_pages -= taken;	/* the hotplug code's part */
		for (u64 pfn = start; pfn < end; pfn += PB)
			s->offline_pb[pfn / PB] = 1;
		s->nr_offlined++;
	}
undo:
	undo_isolate_page_range(start, end);
	return true;
}

/* Online one offline pageblock again, as hotplug onlining would. */
static void rand_online(struct rand_state *s)
{
	u64 pb = bf_rand(&s->rng) % (RAND_PAGES / PB);

	if (!s->offline_pb[pb])
		return;
	bf_handover(s->zone, pb * PB, pb * PB + PB);
	s->offline_pb[pb] = 0;
	s->nr_onlined++;
}

/* Conservation: free + allocated + offline == managed before the run. */
static bool rand_consistent(struct rand_state *s)
{
	u64 offline = 0, allocated = 0;

	if (check_zone(s->zone, &offline))
		return false;
	for (unsigned i = 0; i < s->nr_blocks; i++) {
		allocated += 1ULL << s->blocks[i].order;
		if (s->blocks[i].movable && !owner_ok(&s->blocks[i].owner)) {
			fprintf(stderr, "  owner of block %u (pfn %#llx) lost its data or marks\n", i,
				(unsigned long long)s->blocks[i].owner.pfn);
			return false;
		}
	}
	if (zone_nr_free(s->zone) + allocated + offline != s->managed_before) {
		fprintf(stderr, "  free %lu + allocated %llu + offline %llu != managed before %lu\n",
			zone_nr_free(s->zone), (unsigned long long)allocated,
			(unsigned long long)offline, s->managed_before);
		return false;
	}
	return true;
}

static void random_isolation_run(u64 seed, int steps)
{
	static struct rand_state s;
	static struct snapshot initial;
	bool ok = true;

	memset(&s, 0, sizeof(s));
	s.rng = seed;
	s.zone = normal_zone();
	bf_machine(64 * MiB);
	bf_zone_init(s.zone, 0, ZONE_NORMAL, 0, RAND_PAGES, MIGRATE_MOVABLE);
	/* three boot-reserved pages at 5000..5002, never handed over */
	bf_handover(s.zone, 0, 5000);
	bf_handover(s.zone, 5003, RAND_PAGES);
	zone_pcp_init(s.zone);
	build_all_zonelists();
	s.managed_before = s.zone->managed_pages;
	take_snapshot(s.zone, &initial);

	for (int step = 0; step < steps && ok; step++) {
		unsigned r = (unsigned)(bf_rand(&s.rng) % 100);

		if (r < 40)
			rand_alloc(&s);
		else if (r < 60 && s.nr_blocks)
			rand_free(&s);
		else if (r < 90)
			ok = rand_isolate(&s);
		else
			rand_online(&s);
		if (ok && !rand_consistent(&s)) {
			fprintf(stderr, "  seed %llu: inconsistent after step %d (op %u)\n",
				(unsigned long long)seed, step, r);
			ok = false;
		}
	}
	CHECK(ok);
	CHECK(s.nr_refused && s.nr_isolated && s.nr_migrated && s.nr_offlined && s.nr_onlined);
	while (s.nr_blocks)
		rand_free(&s);
	for (u64 pb = 0; pb < RAND_PAGES / PB; pb++)
		if (s.offline_pb[pb]) {
			bf_handover(s.zone, pb * PB, pb * PB + PB);
			s.offline_pb[pb] = 0;
		}
	pcp_drain_zone(s.zone);
	CHECK(rand_consistent(&s));
	CHECK_EQ(zone_nr_free(s.zone), s.managed_before);
	/* Unmovable allocations stole pageblocks, so compare the blocks only. */
	{
		static struct snapshot now;

		take_snapshot(s.zone, &now);
		CHECK(bf_blocks_equal(initial.blocks, initial.nr, now.blocks, now.nr));
	}
}

HTEST(isolation_random_sequences)
{
	static const u64 seeds[] = { 1, 42, 0xdeadbeef, 20260101 };

	for (unsigned i = 0; i < ARRAY_SIZE(seeds); i++)
		random_isolation_run(seeds[i], 600);
}

/*
 * The retiring variant memory_block_offline() uses: the same pages leave
 * the buddy (same count, same free lists afterwards) but no struct page
 * inside the range is written beyond the free blocks' heads leaving their
 * lists; a free block reaching outside gives its outside part back in both.
 */
HTEST(offline_retire_takes_the_same_pages_without_writing_them)
{
	static const struct bf_block taken[] = { { 100, 0 } };
	static struct page before[2048];
	u64 failed = 0, counts[2][MAX_PAGE_ORDER + 1];
	unsigned long got[2];

	for (int v = 0; v < 2; v++) {
		struct zone *z = iso_zone(8192, taken, ARRAY_SIZE(taken));

		/* [2048+256, 4096-256): free blocks straddle both edges */
		CHECK_EQ(start_isolate_page_range(2048, 4096, ISOLATE_MEMORY_OFFLINE, &failed), 0);
		CHECK_EQ(test_pages_isolated(2304, 3840, &failed), 0);
		memcpy(before, pfn_to_page(2048), sizeof(before));
		got[v] = v ? offline_isolated_pages_retire(2304, 3840) : offline_isolated_pages(2304, 3840);
		for (unsigned o = 0; o <= MAX_PAGE_ORDER; o++)
			counts[v][o] = z->free_area[o].nr_free;
		if (v) {
			/* only the heads of the blocks taken changed (type, private, lru) */
			unsigned changed = 0;

			for (u64 i = 256; i < 1792; i++)
				changed += memcmp(&before[i], pfn_to_page(2048 + i), sizeof(struct page)) != 0;
			CHECK(changed > 0 && changed <= 8);
			CHECK(!PageOffline(pfn_to_page(2304 + 1)));
		} else {
			CHECK(PageOffline(pfn_to_page(2304 + 1)));
		}
		undo_isolate_page_range(2048, 4096);
	}
	CHECK_EQ(got[0], 1536);
	CHECK_EQ(got[1], got[0]);
	CHECK(!memcmp(counts[0], counts[1], sizeof(counts[0])));
}

/* What memory_block_offline() does after the retiring take: the isolate
 * bits go without a free-list walk, and nothing was left on the lists. */
HTEST(retire_isolated_range_clears_the_bits_of_an_emptied_range)
{
	static const struct bf_block taken[] = { { 100, 0 } };
	struct zone *z = iso_zone(8192, taken, ARRAY_SIZE(taken));
	unsigned long nr_free = zone_nr_free(z);
	u64 failed = 0;

	CHECK_EQ(start_isolate_page_range(2048, 4096, ISOLATE_MEMORY_OFFLINE, &failed), 0);
	CHECK_EQ(isolated_pageblocks(0, 8192), 4);
	CHECK_EQ(offline_isolated_pages_retire(2048, 4096), 2048);
	CHECK_EQ(zone_isolated_free_pages(z), 0);
	retire_isolated_range(2048, 4096);
	CHECK_EQ(isolated_pageblocks(0, 8192), 0);
	CHECK_EQ(zone_nr_free(z), nr_free - 2048);
	CHECK_EQ(free_pages_in(0, 2048) + free_pages_in(4096, 8192), nr_free - 2048);
}

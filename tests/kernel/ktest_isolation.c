/*
 * ktest_isolation.c - in-kernel self-tests of page isolation, migration and
 * offlining on the live allocator (`selftest isolation`).
 *
 * Every case leaves the allocator as it found it: the pageblocks it
 * isolates are un-isolated, the pages it offlines are handed back as
 * onlining would, and its own blocks are freed; the global free count is
 * checked to come back exactly (memlab's nr_free counts pcp pages too, so
 * draining does not change it).
 *
 * The cases pick their pageblocks so that the result does not depend on
 * what else is allocated: a pageblock that is one free block (found on the
 * free lists at order >= pageblock_order), or a pageblock that one order-9
 * allocation fills alone.
 *
 * Context: (main), nothing else allocating meanwhile.
 */
#include <kernel/ktest.h>
#include <lib/errno.h>
#include <lib/string.h>
#include "../../mm/buddy_internal.h"
#include <mm/migrate.h>
#include <mm/page_isolation.h>

/*
 * A free block of order >= pageblock_order on a Movable or Unmovable list
 * of some zone, whose first pageblock is entirely inside the zone: its head
 * page (and order), or NULL.
 */
static struct page *find_free_pageblock(struct zone **zonep, unsigned *orderp)
{
	struct zone *zone;

	for_each_zone(zone) {
		if (!managed_zone(zone))
			continue;
		for (unsigned order = pageblock_order; order <= MAX_PAGE_ORDER; order++) {
			for (int mt = 0; mt < MIGRATE_PCPTYPES; mt++) {
				struct list_head *list = &zone->free_area[order].free_list[mt];
				struct page *page;
				u64 pfn;

				if (list_empty(list))
					continue;
				page = list_first_entry(list, struct page, lru);
				pfn = page_to_pfn(page);
				if (!zone_spans_pfn(zone, pfn + pageblock_nr_pages - 1))
					continue;
				*zonep = zone;
				*orderp = order;
				return page;
			}
		}
	}
	return NULL;
}

/*
 * Isolate a pageblock that is one free block: its 512 free pages move to
 * the isolate list, nothing is allocated from it meanwhile, and undoing
 * moves them back and merges the block to its old order.
 */
static void isolate_free_pageblock(struct ktest *t)
{
	unsigned long free_before = global_free_pages(), iso_before;
	struct zone *zone;
	struct page *head, *page;
	unsigned order;
	u64 pb, failed = 0;

	head = find_free_pageblock(&zone, &order);
	if (!head) {
		ktest_skip(t, "no free block of order >= 9");
		return;
	}
	pb = page_to_pfn(head);
	iso_before = zone_isolated_free_pages(zone);
	KTEST_EXPECT_EQ(t, has_unmovable_pages(pb, pb + pageblock_nr_pages), ~0ULL);
	KTEST_ASSERT(t, start_isolate_page_range(pb, pb + pageblock_nr_pages,
						 ISOLATE_MEMORY_OFFLINE, &failed) == 0);
	KTEST_EXPECT(t, get_pageblock_isolate(pb));
	KTEST_EXPECT_EQ(t, zone_isolated_free_pages(zone), iso_before + pageblock_nr_pages);
	KTEST_EXPECT(t, PageBuddy(head) && buddy_order(head) == pageblock_order);
	KTEST_EXPECT_EQ(t, zone_pcp_count(zone), 0);
	KTEST_EXPECT_EQ(t, test_pages_isolated(pb, pb + pageblock_nr_pages, &failed), 0);
	KTEST_EXPECT_EQ(t, global_free_pages(), free_before);

	/* Nothing comes out of the isolated pageblock. */
	page = alloc_pages(GFP_MOVABLE | __GFP_NOWARN, 0);
	KTEST_EXPECT(t, page != NULL);
	if (page) {
		KTEST_EXPECT(t, pageblock_start_pfn(page_to_pfn(page)) != pb);
		free_pages(page, 0);
		pcp_drain_zone(page_zone(page));	/* so the split blocks merge again */
	}

	undo_isolate_page_range(pb, pb + pageblock_nr_pages);
	KTEST_EXPECT(t, !get_pageblock_isolate(pb));
	KTEST_EXPECT_EQ(t, zone_isolated_free_pages(zone), iso_before);
	KTEST_EXPECT(t, PageBuddy(head) && buddy_order(head) == order);
	KTEST_EXPECT_EQ(t, global_free_pages(), free_before);
}

/*
 * The offline step on a free pageblock: offline_isolated_pages() takes its
 * 512 pages out of the buddy (PageOffline, refcount 0, nr_free down by
 * 512); then, as onlining does, managed_pages is lowered and the pages are
 * handed back with buddy_free_boot_pages().
 */
static void offline_free_pageblock_and_back(struct ktest *t)
{
	unsigned long free_before = global_free_pages(), managed_before;
	struct zone *zone;
	struct page *head;
	unsigned order;
	u64 pb, failed = 0;
	int bad = 0;

	head = find_free_pageblock(&zone, &order);
	if (!head) {
		ktest_skip(t, "no free block of order >= 9");
		return;
	}
	pb = page_to_pfn(head);
	managed_before = zone->managed_pages;
	KTEST_ASSERT(t, start_isolate_page_range(pb, pb + pageblock_nr_pages,
						 ISOLATE_MEMORY_OFFLINE, &failed) == 0);
	KTEST_EXPECT_EQ(t, offline_isolated_pages(pb, pb + pageblock_nr_pages), pageblock_nr_pages);
	KTEST_EXPECT_EQ(t, global_free_pages(), free_before - pageblock_nr_pages);
	for (u64 i = 0; i < pageblock_nr_pages; i++)
		if (!PageOffline(head + i) || head[i].refcount)
			bad++;
	KTEST_EXPECT_EQ(t, bad, 0);
	KTEST_EXPECT_EQ(t, test_pages_isolated(pb, pb + pageblock_nr_pages, &failed), 0);
	undo_isolate_page_range(pb, pb + pageblock_nr_pages);

	zone->managed_pages -= pageblock_nr_pages;	/* what offline_pages() does */
	buddy_free_boot_pages(zone, pb, pageblock_order, false);
	KTEST_EXPECT_EQ(t, zone->managed_pages, managed_before);
	KTEST_EXPECT(t, PageBuddy(head) && buddy_order(head) == order);
	KTEST_EXPECT_EQ(t, global_free_pages(), free_before);
}

/* ---- a movable owner of the test's own ------------------------------------- */

struct test_block {
	struct movable_owner mo;	/* first: page->owner points here */
	struct page *head;		/* where the block is now */
	unsigned order;			/* 2^order pages */
	u64 seed;			/* pattern */
};

static bool test_block_of(struct page *page, struct page **head, unsigned *order)
{
	struct test_block *b = (struct test_block *)page->owner;

	if (page < b->head || page >= b->head + (1UL << b->order))
		return false;
	*head = b->head;
	*order = b->order;
	return true;
}

static void test_set_owner(struct page *head, unsigned order, struct test_block *b)
{
	for (unsigned long i = 0; i < (1UL << order); i++)
		head[i].owner = b ? &b->mo : NULL;
}

static void test_moved(struct page *old_head, struct page *new_head, unsigned order)
{
	struct test_block *b = (struct test_block *)old_head->owner;

	test_set_owner(new_head, order, b);
	test_set_owner(old_head, order, NULL);
	b->head = new_head;
}

static const struct movable_operations test_block_ops = {
	.name = "selftest block", .block_of = test_block_of, .moved = test_moved,
};

static u64 pattern_word(u64 seed, u64 word)
{
	return seed ^ ((word + 1) * 0x9e3779b97f4a7c15ULL);
}

/* Allocate a movable block of the test's own, marked and filled. */
static bool test_block_alloc(struct test_block *b, unsigned order, u64 seed)
{
	u64 *mem;

	*b = (struct test_block){ .mo.ops = &test_block_ops, .order = order, .seed = seed };
	b->head = alloc_pages(GFP_MOVABLE | __GFP_NOWARN, order);
	if (!b->head)
		return false;
	test_set_owner(b->head, order, b);
	mem = mm_phys_to_virt(page_to_phys(b->head));
	for (u64 w = 0; w < (PAGE_SIZE << order) / 8; w++)
		mem[w] = pattern_word(seed, w);
	return true;
}

/* The number of words of the block that differ from the pattern. */
static u64 test_block_bad_words(const struct test_block *b)
{
	const u64 *mem = mm_phys_to_virt(page_to_phys(b->head));
	u64 bad = 0;

	for (u64 w = 0; w < (PAGE_SIZE << b->order) / 8; w++)
		bad += mem[w] != pattern_word(b->seed, w);
	return bad;
}

static void test_block_free(struct test_block *b)
{
	test_set_owner(b->head, b->order, NULL);
	free_pages(b->head, b->order);
}

/*
 * migrate_block() of a movable order-2 block: the copy is elsewhere, the
 * data and the owner marks moved with it, the old pages are free.
 */
static void migrate_movable_block(struct ktest *t)
{
	unsigned long free_before = global_free_pages();
	struct test_block b;
	struct page *old;
	u64 old_pfn;

	KTEST_ASSERT(t, test_block_alloc(&b, 2, 0x1234));
	old = b.head;
	old_pfn = page_to_pfn(old);
	KTEST_ASSERT(t, migrate_block(old + 1, old_pfn, old_pfn + 4, NUMA_NO_NODE) == 0);
	KTEST_EXPECT(t, b.head != old);
	KTEST_EXPECT_EQ(t, test_block_bad_words(&b), 0);
	for (unsigned i = 0; i < 4; i++) {
		KTEST_EXPECT(t, b.head[i].owner == &b.mo && b.head[i].refcount == 1);
		KTEST_EXPECT(t, old[i].owner == NULL && old[i].refcount == 0);
	}
	test_block_free(&b);
	KTEST_EXPECT_EQ(t, global_free_pages(), free_before);
}

/*
 * The offline sequence on a pageblock that one movable order-9 block
 * fills: isolation passes (the only page is movable), migrate_range()
 * moves the block out with its data, and the pageblock is then entirely
 * free on the isolate list.  Undo, free, and the free count is back.
 */
static void isolate_and_migrate_pageblock(struct ktest *t)
{
	unsigned long free_before = global_free_pages();
	struct test_block b;
	struct zone *zone;
	u64 pb, failed = 0, nr = 0;

	KTEST_ASSERT(t, test_block_alloc(&b, pageblock_order, 0xfeedface));
	pb = page_to_pfn(b.head);
	zone = page_zone(b.head);
	KTEST_EXPECT_EQ(t, has_unmovable_pages(pb, pb + pageblock_nr_pages), ~0ULL);
	if (start_isolate_page_range(pb, pb + pageblock_nr_pages, ISOLATE_MEMORY_OFFLINE, &failed)) {
		ktest_fail(t, __FILE__, __LINE__, "isolating [0x%llx, +512) failed at pfn 0x%llx",
			   (unsigned long long)pb, (unsigned long long)failed);
		test_block_free(&b);
		return;
	}
	KTEST_EXPECT_EQ(t, migrate_range(pb, pb + pageblock_nr_pages, &failed, &nr), 0);
	KTEST_EXPECT_EQ(t, nr, pageblock_nr_pages);
	KTEST_EXPECT(t, pageblock_start_pfn(page_to_pfn(b.head)) != pb);
	KTEST_EXPECT_EQ(t, test_block_bad_words(&b), 0);
	KTEST_EXPECT_EQ(t, test_pages_isolated(pb, pb + pageblock_nr_pages, &failed), 0);
	KTEST_EXPECT(t, zone_isolated_free_pages(zone) >= pageblock_nr_pages);
	undo_isolate_page_range(pb, pb + pageblock_nr_pages);
	KTEST_EXPECT(t, !get_pageblock_isolate(pb));
	test_block_free(&b);
	KTEST_EXPECT_EQ(t, global_free_pages(), free_before);
}

/*
 * An unmovable order-9 block fills its pageblock: isolation for offlining
 * fails at its first pfn, says why, and leaves the pageblock alone.
 */
static void unmovable_block_refuses_isolation(struct ktest *t)
{
	unsigned long free_before = global_free_pages();
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, pageblock_order);
	char why[160], want[96];
	u64 pb, failed = 0;

	KTEST_ASSERT(t, page != NULL);
	pb = page_to_pfn(page);
	KTEST_EXPECT_EQ(t, start_isolate_page_range(pb, pb + pageblock_nr_pages,
						    ISOLATE_MEMORY_OFFLINE, &failed), -EBUSY);
	KTEST_EXPECT_EQ(t, failed, pb);
	KTEST_EXPECT(t, !get_pageblock_isolate(pb));
	describe_unmovable(failed, why, sizeof(why));
	ksnprintf(want, sizeof(want), "pfn 0x%llx: unmovable allocation (refcount 1, no movable owner)",
		  (unsigned long long)pb);
	KTEST_EXPECT_STREQ(t, why, want);
	KTEST_EXPECT_EQ(t, migrate_block(page, pb, pb + pageblock_nr_pages, NUMA_NO_NODE), -EBUSY);
	free_pages(page, pageblock_order);
	KTEST_EXPECT_EQ(t, global_free_pages(), free_before);
}

static const struct ktest_case isolation_cases[] = {
	KTEST_CASE(isolate_free_pageblock),
	KTEST_CASE(offline_free_pageblock_and_back),
	KTEST_CASE(migrate_movable_block),
	KTEST_CASE(isolate_and_migrate_pageblock),
	KTEST_CASE(unmovable_block_refuses_isolation),
};

KTEST_SUITE(isolation, "isolation", isolation_cases);

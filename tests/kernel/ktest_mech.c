/*
 * ktest_mech.c - the old and new designs of the mechanisms agree on the
 * live kernel: zone contiguity (walk vs counter) for every populated zone,
 * and the auto-movable statistics (zone walk vs cache) for every node and
 * for the whole machine.  Read-only: nothing is changed.
 */
#include <kernel/ktest.h>
#include <mm/mmzone.h>
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>

static void contiguity_walk_equals_counter(struct ktest *t)
{
	struct zone *zone;
	unsigned checked = 0;

	for_each_zone(zone) {
		if (!zone->zone_pgdat || !populated_zone(zone))
			continue;
		KTEST_EXPECT_EQ(t, zone_contiguous_by_walk(zone), zone_contiguous_by_counter(zone));
		KTEST_EXPECT_EQ(t, zone->contiguous, zone_contiguous_by_walk(zone));
		KTEST_EXPECT(t, zone->pages_with_online_memmap <= zone->spanned_pages);
		checked++;
	}
	KTEST_EXPECT(t, checked > 0);
}

static void auto_movable_cache_equals_walk(struct ktest *t)
{
	struct auto_movable_stats walk, cached;

	auto_movable_stats_walk(NUMA_NO_NODE, &walk);
	auto_movable_stats_cached(NUMA_NO_NODE, &cached);
	KTEST_EXPECT_EQ(t, walk.kernel_early_pages, cached.kernel_early_pages);
	KTEST_EXPECT_EQ(t, walk.movable_pages, cached.movable_pages);
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		auto_movable_stats_walk(nid, &walk);
		auto_movable_stats_cached(nid, &cached);
		KTEST_EXPECT_EQ(t, walk.kernel_early_pages, cached.kernel_early_pages);
		KTEST_EXPECT_EQ(t, walk.movable_pages, cached.movable_pages);
	}
}

static void switches_parse(struct ktest *t)
{
	int m = mech_find("contig_free");
	enum mech_design saved;

	KTEST_ASSERT(t, m >= 0);
	saved = mech_design(m);
	KTEST_EXPECT_EQ(t, mech_set_design(m, "old\n", 4), 0);
	KTEST_EXPECT_EQ(t, mech_design(m), DESIGN_OLD);
	KTEST_EXPECT_EQ(t, mech_set_design(m, "template-nt", 11), -22);	/* memmap_init only */
	KTEST_EXPECT_EQ(t, mech_set_design(m, "bogus", 5), -22);
	KTEST_EXPECT_EQ(t, mech_design(m), DESIGN_OLD);
	mech_restore(MECH_CONTIG_FREE, saved);
	KTEST_EXPECT_EQ(t, contig_free_design(), saved);
	KTEST_EXPECT(t, mech_find("nosuch") < 0);
}

static const struct ktest_case mech_cases[] = {
	KTEST_CASE(contiguity_walk_equals_counter),
	KTEST_CASE(auto_movable_cache_equals_walk),
	KTEST_CASE(switches_parse),
};
KTEST_SUITE(mech, "mech", mech_cases);

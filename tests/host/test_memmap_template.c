/*
 * test_memmap_template.c - the three memmap init designs (mm/memmap_init.c)
 * leave byte-identical memmaps, and device memory (mm/memremap.c) works on
 * a simulated machine.
 *
 * The equivalence checks all have the same shape: for each design, fill
 * the memmap of the area with a pattern of its own (and the pageblock
 * migratetypes with a type of its own), run the same sequence of inits
 * with that design, snapshot the struct pages and pageblock flags; then
 * compare every snapshot with the old design's, byte for byte.  A field a
 * design forgets shows up as its pattern.
 *
 *   area: 4 sections at 64 GiB, present, vmemmap populated, no RAM
 *   |--- section 0 ---|--- section 1 ---|--- section 2 ---|--- section 3 ---|
 *        [ range zone Normal nid 3 mt 1 )  [hole)   [range ...)
 *   random ops: memmap_init_range (random zone, nid, migratetype) and
 *   init_unavailable_range (holes), overlapping, any alignment.
 *   Expect: old == template == template-nt.
 *
 * Device ranges: random compound order (0, 9, and others up to a
 * section), aligned random start and length; besides equality, the
 * structure is checked: heads PG_head with refcount 1, tails pointing at
 * their head with refcount 0, the first tail holding the order, every page
 * reserved, ZONE_DEVICE, owned by the pgmap.
 *
 * Whole machines: boot (mm_core_init) with each design and compare the
 * entire memmap after boot; hot-add a range and online it with each design.
 *
 * devmem: create / rebind / compare / destroy over a hot-added offline
 * range (add_memory with MHP_NO_AUTO_ONLINE), the errors, and that the
 * blocks can be onlined and removed afterwards.
 */
#include "htest.h"
#include "mm_host.h"
#include "platform_stub.h"
#include <stdlib.h>
#include <mm/mech_bench.h>
#include <mm/mm_init.h>
#include <mm/memmap_init.h>
#include <mm/memremap.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include "../../mm/internal.h"
#include <mm/memblock.h>
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>
#include <lib/errno.h>

#define AREA_PFN	((64ULL << 30) >> PAGE_SHIFT)	/* far above any simulated RAM */
#define AREA_SECTIONS	4
#define AREA_PAGES	(AREA_SECTIONS * PAGES_PER_SECTION)
#define AREA_BLOCKS	(AREA_PAGES / pageblock_nr_pages)

static const u64 fill_patterns[NR_MEMMAP_DESIGNS] = {
	0x1111111111111111ULL, 0xeeeeeeeeeeeeeeeeULL, 0x7777777777777777ULL,
};
static const int pb_patterns[NR_MEMMAP_DESIGNS] = {
	MIGRATE_UNMOVABLE, MIGRATE_CMA, MIGRATE_HIGHATOMIC,
};
/* What the pages no init touches hold, whatever the design. */
#define COMMON_PATTERN	0x9999999999999999ULL
#define COMMON_PB	MIGRATE_RECLAIMABLE

/* A memmap and the pageblock migratetypes of an area, after one design. */
struct snapshot {
	struct page *pages;	/* malloc'd copy */
	u8 *mt;			/* one migratetype per pageblock */
	u64 nr_pages;
};

static void snapshot_take(struct snapshot *s, u64 start_pfn, u64 nr_pages)
{
	s->nr_pages = nr_pages;
	s->pages = malloc(nr_pages * sizeof(struct page));
	s->mt = malloc(nr_pages / pageblock_nr_pages + 1);
	memcpy(s->pages, pfn_to_page(start_pfn), nr_pages * sizeof(struct page));
	for (u64 i = 0; i < nr_pages / pageblock_nr_pages; i++)
		s->mt[i] = (u8)get_pageblock_migratetype(start_pfn + i * pageblock_nr_pages);
}

static void snapshot_free(struct snapshot *s)
{
	free(s->pages);
	free(s->mt);
}

/* Compare two snapshots; report the first difference. */
static int snapshot_same(const struct snapshot *a, const struct snapshot *b, const char *what,
			 enum mech_design d, u64 start_pfn)
{
	struct memmap_diff diff;

	if (memmap_compare(a->pages, b->pages, a->nr_pages, &diff)) {
		fprintf(stderr, "  %s: %s differs from old at pfn %#llx byte %u: %#x vs %#x\n", what,
			mech_design_name(d), (unsigned long long)(start_pfn + diff.index), diff.byte,
			diff.expect, diff.got);
		return 0;
	}
	for (u64 i = 0; i < a->nr_pages / pageblock_nr_pages; i++)
		if (a->mt[i] != b->mt[i]) {
			fprintf(stderr, "  %s: %s differs from old at pageblock pfn %#llx: %u vs %u\n",
				what, mech_design_name(d),
				(unsigned long long)(start_pfn + i * pageblock_nr_pages), a->mt[i],
				b->mt[i]);
			return 0;
		}
	return 1;
}

/* Fill the whole area with the common patterns. */
static void area_poison_common(void)
{
	memmap_fill_pattern(pfn_to_page(AREA_PFN), AREA_PAGES, COMMON_PATTERN);
	for (u64 pfn = AREA_PFN; pfn < AREA_PFN + AREA_PAGES; pfn += pageblock_nr_pages)
		set_pageblock_migratetype(pfn, COMMON_PB);
}

/* Fill [start_pfn, start_pfn + nr_pages), which an init is about to cover,
 * with design d's patterns (pageblocks: those that start inside it, unless
 * the init is of a hole, which sets no pageblock flags). */
static void area_poison(u64 start_pfn, u64 nr_pages, enum mech_design d, bool pageblocks)
{
	memmap_fill_pattern(pfn_to_page(start_pfn), nr_pages, fill_patterns[d]);
	for (u64 pfn = ALIGN_UP(start_pfn, pageblock_nr_pages);
	     pageblocks && pfn < start_pfn + nr_pages; pfn += pageblock_nr_pages)
		set_pageblock_migratetype(pfn, pb_patterns[d]);
}

/* A machine without RAM whose only memory is the area: present sections
 * with a populated memmap. */
static void area_setup(void)
{
	host_mm_reset(0);
	printk_set_level(LOG_CRIT);
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, DESIGN_NEW), 0);
	mech_set_trace(MECH_MEMMAP_INIT, false);
	CHECK_EQ(sparse_add_present(AREA_PFN, AREA_PFN + AREA_PAGES, 0, false, host_root_alloc, NULL), 0);
	CHECK_EQ(mm_vmemmap_populate(AREA_PFN, AREA_PFN + AREA_PAGES, 0), 0);
	for (u64 nr = pfn_to_section_nr(AREA_PFN); nr < pfn_to_section_nr(AREA_PFN + AREA_PAGES); nr++)
		sparse_set_memmap(nr, 0);
}

static u64 rnd(u64 n)
{
	return n ? (((u64)rand() << 31) ^ (u64)rand()) % n : 0;
}

/* ---- normal ranges and holes --------------------------------------------- */

struct init_op {
	bool hole;		/* init_unavailable_range instead of memmap_init_range */
	u64 start_pfn, end_pfn;	/* [start, end) */
	enum zone_type zone;
	int nid, migratetype;
};

static void run_ops(const struct init_op *ops, int n, enum mech_design d)
{
	for (int i = 0; i < n; i++) {
		if (ops[i].hole)
			CHECK_EQ(init_unavailable_range_design(ops[i].start_pfn, ops[i].end_pfn,
							       ops[i].zone, ops[i].nid, d), 0);
		else
			CHECK_EQ(memmap_init_range_design(ops[i].start_pfn, ops[i].end_pfn,
							  ops[i].zone, ops[i].nid,
							  ops[i].migratetype, d), 0);
	}
}

/* What the old design must have written into one page of a normal range. */
static void check_normal_page(u64 pfn, enum zone_type zone, int nid, bool hole)
{
	struct page *page = pfn_to_page(pfn);

	CHECK_EQ(page_zonenum(page), zone);
	CHECK_EQ(page_to_nid(page), nid);
	CHECK_EQ(PageReserved(page), hole);
	CHECK_EQ(page->refcount, 1);
	CHECK_EQ(page->page_type, PAGE_TYPE_NONE);
	CHECK(page->lru.next == &page->lru && page->lru.prev == &page->lru);
	CHECK(page->owner == NULL);
	CHECK_EQ(page->index, 0);
	CHECK_EQ(page->private, 0);
	CHECK_EQ(page->memlab_debug, 0);
}

HTEST(memmap_template_random_ranges)
{
	area_setup();
	for (unsigned seed = 1; seed <= 40 && !htest_failures; seed++) {
		struct init_op ops[8];
		struct snapshot snap[NR_MEMMAP_DESIGNS];
		int n;

		srand(seed);
		n = 1 + (int)rnd(ARRAY_SIZE(ops));
		for (int i = 0; i < n; i++) {
			u64 a = rnd(AREA_PAGES), b = rnd(AREA_PAGES);

			/* now and then a whole section or a pageblock-aligned range */
			if (rnd(4) == 0) {
				a = ALIGN_DOWN(a, pageblock_nr_pages);
				b = ALIGN_UP(b, pageblock_nr_pages);
			}
			if (a > b) {
				u64 t = a;

				a = b;
				b = t;
			}
			if (a == b)
				b = a + 1;
			ops[i] = (struct init_op){
				.hole = rnd(3) == 0,
				.start_pfn = AREA_PFN + a, .end_pfn = AREA_PFN + MIN(b, AREA_PAGES),
				.zone = (enum zone_type)rnd(ZONE_DEVICE),	/* DMA..Movable */
				.nid = (int)rnd(MAX_NUMNODES),
				.migratetype = (int)rnd(MIGRATE_ISOLATE + 1),
			};
		}
		for (int d = 0; d < NR_MEMMAP_DESIGNS; d++) {
			area_poison_common();
			for (int i = 0; i < n; i++)
				area_poison(ops[i].start_pfn, ops[i].end_pfn - ops[i].start_pfn,
					    (enum mech_design)d, !ops[i].hole);
			run_ops(ops, n, (enum mech_design)d);
			snapshot_take(&snap[d], AREA_PFN, AREA_PAGES);
			if (d == DESIGN_OLD) {
				/* the last op wins on its range: check its first and last page */
				const struct init_op *o = &ops[n - 1];

				check_normal_page(o->start_pfn, o->zone, o->nid, o->hole);
				check_normal_page(o->end_pfn - 1, o->zone, o->nid, o->hole);
			}
		}
		for (int d = DESIGN_NEW; d <= DESIGN_NEW_NT; d++)
			CHECK(snapshot_same(&snap[0], &snap[d], "random ranges", (enum mech_design)d,
					    AREA_PFN));
		for (int d = 0; d < NR_MEMMAP_DESIGNS; d++)
			snapshot_free(&snap[d]);
		if (htest_failures)
			fprintf(stderr, "  (seed %u, %d ops)\n", seed, n);
	}
}

/* The switch picks the design: memmap_init_range() follows mech_design(). */
HTEST(memmap_template_switch)
{
	int m = mech_find("memmap_init");
	struct snapshot a, b;

	area_setup();
	CHECK(m >= 0);
	CHECK_EQ(mech_set_design(m, "old\n", 4), 0);
	area_poison_common();
	area_poison(AREA_PFN + 5, 70000 - 5, DESIGN_OLD, true);
	area_poison(AREA_PFN + 70000, AREA_PAGES - 70000, DESIGN_OLD, false);
	memmap_init_range(AREA_PFN + 5, AREA_PFN + 70000, ZONE_NORMAL, 2, MIGRATE_MOVABLE);
	init_unavailable_range(AREA_PFN + 70000, AREA_PFN + AREA_PAGES, ZONE_NORMAL, 2);
	snapshot_take(&a, AREA_PFN, AREA_PAGES);
	CHECK_EQ(mech_set_design(m, "template-nt", 11), 0);
	CHECK_EQ(mech_design(MECH_MEMMAP_INIT), DESIGN_NEW_NT);
	area_poison_common();
	area_poison(AREA_PFN + 5, 70000 - 5, DESIGN_NEW_NT, true);
	area_poison(AREA_PFN + 70000, AREA_PAGES - 70000, DESIGN_NEW_NT, false);
	memmap_init_range(AREA_PFN + 5, AREA_PFN + 70000, ZONE_NORMAL, 2, MIGRATE_MOVABLE);
	init_unavailable_range(AREA_PFN + 70000, AREA_PFN + AREA_PAGES, ZONE_NORMAL, 2);
	snapshot_take(&b, AREA_PFN, AREA_PAGES);
	CHECK(snapshot_same(&a, &b, "switch", DESIGN_NEW_NT, AREA_PFN));
	/* the untouched first pages still hold the pattern */
	CHECK_EQ(pfn_to_page(AREA_PFN)->flags, COMMON_PATTERN);
	snapshot_free(&a);
	snapshot_free(&b);
	CHECK_EQ(mech_set_design(m, "new", 3), 0);
}

/*
 * The one setter: mech_set() validates (template-nt is memmap_init's
 * only; no id out of range), narrates the switch when tracing, and
 * mech_override()/mech_restore() put the design back as it was.
 */
static int resyncs;
static void count_resync(void)
{
	resyncs++;
}

HTEST(mech_set_override_restore)
{
	enum mech_design saved = DESIGN_OLD, bad = NR_MECH_DESIGNS;
	struct page keep[8];

	area_setup();
	/* the explicit-design twins refuse a design out of range, writing nothing */
	memcpy(keep, pfn_to_page(AREA_PFN), sizeof(keep));
	CHECK_EQ(memmap_init_range_design(AREA_PFN, AREA_PFN + 8, ZONE_NORMAL, 0, 0, bad), -EINVAL);
	CHECK_EQ(init_unavailable_range_design(AREA_PFN, AREA_PFN + 8, ZONE_NORMAL, 0, -1), -EINVAL);
	CHECK_EQ(memmap_init_zone_device_design(AREA_PFN, 8, 0, 0, NULL, bad), -EINVAL);
	CHECK(!memcmp(keep, pfn_to_page(AREA_PFN), sizeof(keep)));
	CHECK_EQ(mech_set(MECH_CONTIG_FREE, DESIGN_NEW_NT), -EINVAL);
	CHECK_EQ(mech_set(NR_MECHS, DESIGN_OLD), -EINVAL);
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, (enum mech_design)7), -EINVAL);
	CHECK_EQ(mech_design(MECH_CONTIG_FREE), DESIGN_NEW);
	CHECK_EQ(mech_override(MECH_MEMMAP_INIT, DESIGN_NEW_NT, &saved), 0);
	CHECK_EQ(saved, DESIGN_NEW);
	CHECK_EQ(memmap_init_design(), DESIGN_NEW_NT);
	mech_restore(MECH_MEMMAP_INIT, saved);
	CHECK_EQ(memmap_init_design(), DESIGN_NEW);
	CHECK_EQ(mech_override(MECH_CONTIG_FREE, DESIGN_NEW_NT, &saved), -EINVAL);
	CHECK_EQ(contig_free_design(), DESIGN_NEW);

	/* old -> new runs the resync hook; new -> new does not */
	mech_register_resync(MECH_CONTIG_FREE, count_resync);
	resyncs = 0;
	CHECK_EQ(mech_set(MECH_CONTIG_FREE, DESIGN_NEW), 0);
	CHECK_EQ(resyncs, 0);
	CHECK_EQ(mech_set(MECH_CONTIG_FREE, DESIGN_OLD), 0);
	CHECK_EQ(mech_set(MECH_CONTIG_FREE, DESIGN_NEW), 0);
	CHECK_EQ(resyncs, 1);
	mech_register_resync(MECH_CONTIG_FREE, NULL);

	mech_set_trace(MECH_MEMMAP_INIT, true);
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, DESIGN_OLD), 0);
	CHECK_STREQ(host_last_log, "[memmap_init] design new -> old");
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, DESIGN_NEW), 0);
	mech_set_trace(MECH_MEMMAP_INIT, false);
}

/*
 * A failed mech_override() still writes *saved, with the design in force:
 * the restore that follows it switches nothing, runs no hook and says
 * nothing, whatever the caller's variable held before.
 */
HTEST(mech_override_failure_restores_nothing)
{
	enum mech_design saved = DESIGN_NEW_NT;	/* not contig_free's: a stale value */

	area_setup();
	CHECK_EQ(mech_override(MECH_CONTIG_FREE, DESIGN_NEW_NT, &saved), -EINVAL);
	CHECK_EQ(saved, DESIGN_NEW);
	mech_restore(MECH_CONTIG_FREE, saved);
	CHECK_EQ(contig_free_design(), DESIGN_NEW);

	/* from old: the failed override and its restore leave it old, no resync */
	CHECK_EQ(mech_set(MECH_CONTIG_FREE, DESIGN_OLD), 0);
	mech_register_resync(MECH_CONTIG_FREE, count_resync);
	mech_set_trace(MECH_CONTIG_FREE, true);
	resyncs = 0;
	host_log_count = 0;
	saved = DESIGN_NEW;
	CHECK_EQ(mech_override(MECH_CONTIG_FREE, (enum mech_design)7, &saved), -EINVAL);
	CHECK_EQ(saved, DESIGN_OLD);
	mech_restore(MECH_CONTIG_FREE, saved);
	CHECK_EQ(contig_free_design(), DESIGN_OLD);
	CHECK_EQ(resyncs, 0);
	CHECK_EQ(host_log_count, 0);
	mech_set_trace(MECH_CONTIG_FREE, false);
	mech_register_resync(MECH_CONTIG_FREE, NULL);
	CHECK_EQ(mech_set(MECH_CONTIG_FREE, DESIGN_NEW), 0);
}

/*
 * The one parser of design names reads exactly the words mech_design_name()
 * writes; mech_set_design() also takes them with a file write's newline.
 */
HTEST(mech_parse_design_words)
{
	for (int d = DESIGN_OLD; d <= DESIGN_NEW_NT; d++) {
		const char *w = mech_design_name((enum mech_design)d);

		CHECK_EQ(mech_parse_design(w, strlen(w)), d);
	}
	CHECK_EQ(mech_parse_design("old\n", 4), -EINVAL);
	CHECK_EQ(mech_parse_design("ol", 2), -EINVAL);
	CHECK_EQ(mech_parse_design("template", 8), -EINVAL);
	CHECK_EQ(mech_parse_design("newer", 3), DESIGN_NEW);	/* len bytes, not the string */
	CHECK_EQ(mech_parse_design("", 0), -EINVAL);
	CHECK_EQ(mech_set_design(MECH_CONTIG_FREE, "old\n", 4), 0);
	CHECK_EQ(contig_free_design(), DESIGN_OLD);
	CHECK_EQ(mech_set_design(MECH_CONTIG_FREE, "new", 3), 0);
	CHECK_EQ(contig_free_design(), DESIGN_NEW);
}

/* The trace narrates one line per section. */
HTEST(memmap_template_trace)
{
	area_setup();
	mech_set_trace(MECH_MEMMAP_INIT, true);
	host_log_count = 0;
	memmap_init_range_design(AREA_PFN, AREA_PFN + 2 * PAGES_PER_SECTION, ZONE_NORMAL, 0,
				 MIGRATE_MOVABLE, DESIGN_NEW);
	CHECK_EQ(host_log_count, 2);
	CHECK_STREQ(host_last_log,
		    "[memmap_init] pfn 0x1008000 +32768 pages: template, 1 slow init + 32767 copies");
	memmap_init_zone_device_design(AREA_PFN, PAGES_PER_SECTION, 0, 9, NULL, DESIGN_NEW_NT);
	CHECK_STREQ(host_last_log,
		    "[memmap_init] pfn 0x1000000 +32768 pages: device, compound order 9: template-nt, "
		    "64 heads + 32704 tails, 2 slow inits + 32766 copies");
	memmap_init_range_design(AREA_PFN + 1, AREA_PFN + 11, ZONE_NORMAL, 0, MIGRATE_MOVABLE,
				 DESIGN_OLD);
	CHECK_STREQ(host_last_log,
		    "[memmap_init] pfn 0x1000001 +10 pages: field by field, 10 slow inits");
	mech_set_trace(MECH_MEMMAP_INIT, false);
}

/* ---- device ranges ------------------------------------------------------- */

static int dummy_pgmap;

/* What every design must have written into a device range (checked on the
 * old design's result; the others are then compared byte for byte). */
static void check_device_range(u64 start_pfn, u64 nr_pages, int nid, unsigned order, void *pgmap)
{
	u64 nr = 1ULL << order;

	for (u64 pfn = start_pfn; pfn < start_pfn + nr_pages && !htest_failures; pfn++) {
		struct page *page = pfn_to_page(pfn);
		u64 head_pfn = ALIGN_DOWN(pfn - start_pfn, nr) + start_pfn;
		struct page *head = pfn_to_page(head_pfn);

		CHECK_EQ(page_zonenum(page), ZONE_DEVICE);
		CHECK_EQ(page_to_nid(page), nid);
		CHECK(PageReserved(page));
		CHECK(page->owner == pgmap);
		CHECK_EQ(page->page_type, PAGE_TYPE_NONE);
		if (pfn == head_pfn) {
			CHECK_EQ(PageHead(page), order > 0);
			CHECK_EQ(page->refcount, 1);
			CHECK(page->lru.next == &page->lru && page->lru.prev == &page->lru);
			CHECK(compound_head(page) == page);
		} else {
			CHECK(!PageHead(page));
			CHECK(PageTail(page));
			CHECK(compound_head(page) == head);
			CHECK_EQ(page->refcount, 0);
			CHECK_EQ(page->compound_info, pfn == head_pfn + 1 ? order : 0);
		}
		if (IS_ALIGNED(pfn, pageblock_nr_pages))
			CHECK_EQ(get_pageblock_migratetype(pfn), MIGRATE_MOVABLE);
		if (htest_failures)
			fprintf(stderr, "  device pfn %#llx (head %#llx, order %u)\n",
				(unsigned long long)pfn, (unsigned long long)head_pfn, order);
	}
}

HTEST(memmap_template_device_ranges)
{
	static const unsigned fixed_orders[] = { 0, 9, 9, 0, 1, 3, 10, 15 };

	area_setup();
	for (unsigned seed = 1; seed <= 24 && !htest_failures; seed++) {
		struct snapshot snap[NR_MEMMAP_DESIGNS];
		unsigned order;
		u64 nr, start, len;
		int nid;

		srand(1000 + seed);
		order = seed <= ARRAY_SIZE(fixed_orders) ? fixed_orders[seed - 1] : (unsigned)rnd(13);
		nr = 1ULL << order;
		start = ALIGN_DOWN(rnd(AREA_PAGES), nr);
		len = ALIGN_UP(1 + rnd(AREA_PAGES - start), nr);
		if (start + len > AREA_PAGES)
			len -= nr;
		if (!len)
			len = nr;
		nid = (int)rnd(MAX_NUMNODES);
		for (int d = 0; d < NR_MEMMAP_DESIGNS; d++) {
			area_poison_common();
			area_poison(AREA_PFN, start + len, (enum mech_design)d, true);
			/* a normal range before it, so the first device page is not the area's */
			if (start)
				memmap_init_range_design(AREA_PFN, AREA_PFN + start, ZONE_NORMAL, nid,
							 MIGRATE_UNMOVABLE, (enum mech_design)d);
			CHECK_EQ(memmap_init_zone_device_design(AREA_PFN + start, len, nid, order,
								&dummy_pgmap, (enum mech_design)d), 0);
			snapshot_take(&snap[d], AREA_PFN, AREA_PAGES);
			if (d == DESIGN_OLD)
				check_device_range(AREA_PFN + start, len, nid, order, &dummy_pgmap);
		}
		for (int d = DESIGN_NEW; d <= DESIGN_NEW_NT; d++)
			CHECK(snapshot_same(&snap[0], &snap[d], "device range", (enum mech_design)d,
					    AREA_PFN));
		for (int d = 0; d < NR_MEMMAP_DESIGNS; d++)
			snapshot_free(&snap[d]);
		if (htest_failures)
			fprintf(stderr, "  (seed %u: order %u, pages [%#llx +%#llx))\n", seed, order,
				(unsigned long long)start, (unsigned long long)len);
	}
}

HTEST(memmap_template_device_errors)
{
	area_setup();
	area_poison_common();
	for (int d = 0; d < NR_MEMMAP_DESIGNS; d++) {
		CHECK_EQ(memmap_init_zone_device_design(AREA_PFN + 1, 512, 0, 9, NULL,
							(enum mech_design)d), -EINVAL);
		CHECK_EQ(memmap_init_zone_device_design(AREA_PFN, 100, 0, 9, NULL,
							(enum mech_design)d), -EINVAL);
		CHECK_EQ(memmap_init_zone_device_design(AREA_PFN, AREA_PAGES, 0,
							MAX_DEVICE_COMPOUND_ORDER + 1, NULL,
							(enum mech_design)d), -EINVAL);
	}
	/* nothing was written */
	CHECK_EQ(pfn_to_page(AREA_PFN)->flags, COMMON_PATTERN);
	CHECK_EQ(pfn_to_page(AREA_PFN + 1)->flags, COMMON_PATTERN);
}

/* memmap_compare() finds the first differing byte. */
HTEST(memmap_template_compare_reports)
{
	static struct page a[4], b[4];
	struct memmap_diff diff;

	memset(a, 0x42, sizeof(a));
	memcpy(b, a, sizeof(b));
	CHECK_EQ(memmap_compare(a, b, 4, &diff), 0);
	((u8 *)&b[2])[45] = 0x43;
	((u8 *)&b[3])[0] = 0;
	CHECK_EQ(memmap_compare(a, b, 4, &diff), 1);
	CHECK_EQ(diff.index, 2);
	CHECK_EQ(diff.byte, 45);
	CHECK_EQ(diff.expect, 0x42);
	CHECK_EQ(diff.got, 0x43);
}

/* ---- whole machines: boot and online with each design --------------------- */

static struct fw_memmap map;
static struct mm_boot_params bp;

#define HOTPLUG_BASE	(4ULL << 30)
#define BOOT_RAM	(384ULL << 20)

/* A machine: boot RAM [0, 384 MiB) with a hole, simulated RAM up to the
 * hot-add window plus hot_bytes. */
static void boot_machine_hot(enum mech_design d, u64 hot_bytes)
{
	host_mm_reset(HOTPLUG_BASE + hot_bytes);
	printk_set_level(LOG_CRIT);
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, d), 0);
	mech_set_trace(MECH_MEMMAP_INIT, false);
	fw_memmap_init(&map);
	memset(&bp, 0, sizeof(bp));
	bp.memmap = &map;
	fw_memmap_add_raw(&map, 0, 0x9fc00, FW_MEM_RAM);
	fw_memmap_add_raw(&map, 0x100000, (200ULL << 20) - 0x100000, FW_MEM_RAM);
	fw_memmap_add_raw(&map, (203ULL << 20) + 0x3000, BOOT_RAM - (203ULL << 20) - 0x3000,
			  FW_MEM_RAM);
	fw_memmap_sanitize(&map);
	mm_core_init(&bp);
	memory_blocks_init_boot();
	memhp_set_default_online_type(MMOP_OFFLINE);
	memhp_set_memmap_on_memory(false);
	devmem_reset();
}

/* The usual one: 512 MiB of hot-add window. */
static void boot_machine(enum mech_design d)
{
	boot_machine_hot(d, 512ULL << 20);
}

HTEST(memmap_template_boot_identical)
{
	struct snapshot snap[NR_MEMMAP_DESIGNS];
	u64 nr = ALIGN_UP(BOOT_RAM >> PAGE_SHIFT, PAGES_PER_SECTION);

	for (int d = 0; d < NR_MEMMAP_DESIGNS; d++) {
		boot_machine((enum mech_design)d);
		snapshot_take(&snap[d], 0, nr);
	}
	/* holes are reserved and initialised */
	CHECK(PageReserved(&snap[DESIGN_OLD].pages[0xa0]));
	CHECK(PageReserved(&snap[DESIGN_OLD].pages[(201ULL << 20) >> PAGE_SHIFT]));
	for (int d = DESIGN_NEW; d <= DESIGN_NEW_NT; d++)
		CHECK(snapshot_same(&snap[0], &snap[d], "boot", (enum mech_design)d, 0));
	for (int d = 0; d < NR_MEMMAP_DESIGNS; d++)
		snapshot_free(&snap[d]);
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, DESIGN_NEW), 0);
}

HTEST(memmap_template_online_identical)
{
	struct snapshot snap[NR_MEMMAP_DESIGNS];
	u64 start_pfn = HOTPLUG_BASE >> PAGE_SHIFT, nr = 2 * PAGES_PER_MEMORY_BLOCK;

	for (int d = 0; d < NR_MEMMAP_DESIGNS; d++) {
		boot_machine(DESIGN_NEW);
		CHECK_EQ(add_memory(0, HOTPLUG_BASE, nr << PAGE_SHIFT, -1, MHP_NO_AUTO_ONLINE), 0);
		CHECK_EQ(mech_set(MECH_MEMMAP_INIT, (enum mech_design)d), 0);
		CHECK_EQ(memory_block_online(find_memory_block_by_id(HOTPLUG_BASE / MEMORY_BLOCK_SIZE),
					     MMOP_ONLINE_MOVABLE), 0);
		CHECK_EQ(memory_block_online(find_memory_block_by_id(HOTPLUG_BASE / MEMORY_BLOCK_SIZE + 1),
					     MMOP_ONLINE_KERNEL), 0);
		snapshot_take(&snap[d], start_pfn, nr);
	}
	CHECK_EQ(page_zonenum(&snap[0].pages[0]), ZONE_MOVABLE);
	for (int d = DESIGN_NEW; d <= DESIGN_NEW_NT; d++)
		CHECK(snapshot_same(&snap[0], &snap[d], "online", (enum mech_design)d, start_pfn));
	for (int d = 0; d < NR_MEMMAP_DESIGNS; d++)
		snapshot_free(&snap[d]);
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, DESIGN_NEW), 0);
}

/* ---- devmem -------------------------------------------------------------- */

#define DIMM_SIZE	(512ULL << 20)
#define DIMM_PFN	(HOTPLUG_BASE >> PAGE_SHIFT)
#define DIMM_PAGES	(DIMM_SIZE >> PAGE_SHIFT)
#define DIMM_BLOCK	(HOTPLUG_BASE / MEMORY_BLOCK_SIZE)

static struct zone *device_zone(int nid)
{
	return &NODE_DATA(nid)->node_zones[ZONE_DEVICE];
}

static bool all_poisoned(u64 start_pfn, u64 nr_pages)
{
	for (u64 pfn = start_pfn; pfn < start_pfn + nr_pages; pfn++)
		if (!page_memmap_poisoned(pfn_to_page(pfn)))
			return false;
	return true;
}

HTEST(devmem_create_rebind_destroy)
{
	struct snapshot snap[NR_MEMMAP_DESIGNS];
	struct pglist_data *pgdat;
	struct memmap_diff diff;
	struct devmem_compare_out cmp;
	u64 node_start, node_spanned;
	bool pb_diff;
	int id, id2;

	boot_machine(DESIGN_NEW);
	pgdat = NODE_DATA(0);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, DIMM_SIZE, -1, MHP_NO_AUTO_ONLINE), 0);
	CHECK(all_poisoned(DIMM_PFN, DIMM_PAGES));
	node_start = pgdat->node_start_pfn;
	node_spanned = pgdat->node_spanned_pages;

	/* errors: not present, not aligned, bad order */
	CHECK_EQ(devmem_create(HOTPLUG_BASE + DIMM_SIZE, MEMORY_BLOCK_SIZE, 0), -EINVAL);
	CHECK_EQ(devmem_create(HOTPLUG_BASE + SZ_2M, MEMORY_BLOCK_SIZE, 0), -EINVAL);
	CHECK_EQ(devmem_create(HOTPLUG_BASE, 0, 0), -EINVAL);
	CHECK_EQ(devmem_create(HOTPLUG_BASE, MEMORY_BLOCK_SIZE, 16), -EINVAL);
	/* an online block cannot become device memory */
	CHECK_EQ(memory_block_online(find_memory_block_by_id(DIMM_BLOCK + 3), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(devmem_create(HOTPLUG_BASE, DIMM_SIZE, 9), -EBUSY);
	/* boot memory is online */
	CHECK_EQ(devmem_create(0, MEMORY_BLOCK_SIZE, 0), -EBUSY);

	/* three offline blocks, 2 MiB compounds */
	id = devmem_create(HOTPLUG_BASE, 3 * MEMORY_BLOCK_SIZE, 9);
	CHECK_EQ(id, 0);
	CHECK(devmem_find(id) != NULL);
	CHECK_EQ(devmem_find(id)->last_init_pages, 3 * PAGES_PER_SECTION);
	CHECK_EQ(devmem_find(id)->last_design, DESIGN_NEW);
	check_device_range(DIMM_PFN, 3 * PAGES_PER_SECTION, 0, 9, devmem_find(id));
	CHECK_EQ(device_zone(0)->zone_start_pfn, DIMM_PFN);
	CHECK_EQ(device_zone(0)->spanned_pages, 3 * PAGES_PER_SECTION);
	CHECK_EQ(device_zone(0)->present_pages, 0);
	CHECK_EQ(device_zone(0)->managed_pages, 0);
	CHECK_EQ(device_zone(0)->pages_with_online_memmap, 0);
	CHECK(zone_end_pfn(device_zone(0)) <= pgdat_end_pfn(pgdat));
	CHECK(pfn_to_online_page(DIMM_PFN) == NULL);
	CHECK_EQ(find_memory_block_by_id(DIMM_BLOCK)->state, MEM_OFFLINE);
	CHECK(devmem_intersects(DIMM_PFN + 5, 1));
	CHECK(!devmem_intersects(DIMM_PFN + 3 * PAGES_PER_SECTION, 1));
	/* overlaps */
	CHECK_EQ(devmem_create(HOTPLUG_BASE + 2 * MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE, 0), -EBUSY);

	/* rebind with each design: the same memmap every time */
	for (int d = 0; d < NR_MEMMAP_DESIGNS; d++) {
		CHECK_EQ(devmem_rebind(id, d), 0);
		CHECK_EQ(devmem_find(id)->last_design, d);
		snapshot_take(&snap[d], DIMM_PFN, 3 * PAGES_PER_SECTION);
	}
	for (int d = DESIGN_NEW; d <= DESIGN_NEW_NT; d++)
		CHECK(snapshot_same(&snap[0], &snap[d], "rebind", (enum mech_design)d, DIMM_PFN));
	for (int d = 0; d < NR_MEMMAP_DESIGNS; d++)
		snapshot_free(&snap[d]);
	CHECK_EQ(devmem_find(id)->nr_inits, 4);
	CHECK_EQ(devmem_rebind(id, -1), 0);
	CHECK_EQ(devmem_rebind(id, -EINVAL), -EINVAL);	/* a parse error is no design */
	CHECK_EQ(devmem_rebind(7, 0), -ENOENT);

	/* compare on the live memmap */
	CHECK_EQ(devmem_compare(id, &diff, &pb_diff, &cmp), 0);
	CHECK(cmp.cycles[0] && cmp.cycles[1] && cmp.cycles[2] && cmp.cycles[DEVMEM_DESIGN_HEAD_TEMPLATE]);
	CHECK_EQ(cmp.shared_err, -EOPNOTSUPP);	/* borrowed blocks: no vmemmap of its own */
	check_device_range(DIMM_PFN, 3 * PAGES_PER_SECTION, 0, 9, devmem_find(id));

	/* a second range of 4 KiB pages on the last offline block */
	id2 = devmem_create(HOTPLUG_BASE + 2 * MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE, 0);
	CHECK_EQ(id2, -EBUSY);		/* block 2 is in range 0 */
	CHECK_EQ(memory_block_offline(find_memory_block_by_id(DIMM_BLOCK + 3)), 0);
	id2 = devmem_create(HOTPLUG_BASE + 3 * MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE, 0);
	CHECK_EQ(id2, 1);
	check_device_range(DIMM_PFN + 3 * PAGES_PER_SECTION, PAGES_PER_SECTION, 0, 0,
			   devmem_find(id2));
	CHECK_EQ(device_zone(0)->spanned_pages, 4 * PAGES_PER_SECTION);
	CHECK_EQ(devmem_compare(id2, &diff, &pb_diff, NULL), 0);

	/* destroy: poisoned, spans back */
	CHECK_EQ(devmem_destroy(id), 0);
	CHECK_EQ(devmem_destroy(id), -ENOENT);
	CHECK(all_poisoned(DIMM_PFN, 3 * PAGES_PER_SECTION));
	CHECK_EQ(device_zone(0)->zone_start_pfn, DIMM_PFN + 3 * PAGES_PER_SECTION);
	CHECK_EQ(device_zone(0)->spanned_pages, PAGES_PER_SECTION);
	CHECK_EQ(devmem_destroy(id2), 0);
	CHECK(all_poisoned(DIMM_PFN, DIMM_PAGES));
	CHECK(zone_is_empty(device_zone(0)));
	CHECK_EQ(pgdat->node_start_pfn, node_start);
	CHECK_EQ(pgdat->node_spanned_pages, node_spanned - 0);

	/* the blocks are ordinary offline memory again: online, offline, remove */
	CHECK_EQ(memory_block_online(find_memory_block_by_id(DIMM_BLOCK), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(page_zonenum(pfn_to_page(DIMM_PFN)), ZONE_MOVABLE);
	CHECK_EQ(memory_block_offline(find_memory_block_by_id(DIMM_BLOCK)), 0);
	CHECK_EQ(remove_memory(HOTPLUG_BASE, DIMM_SIZE), 0);
	CHECK(find_memory_block_by_id(DIMM_BLOCK) == NULL);
}

/*
 * A bad range gets the same errno from devmem_create(), devmem_bench() and
 * add_memory(): -EINVAL when empty or not whole blocks (also when it is
 * beyond the physical address space as well), -ERANGE when whole blocks
 * run past MAX_PHYSMEM_BITS or wrap.  Nothing is created.
 */
HTEST(devmem_and_add_memory_agree_on_bad_ranges)
{
	const u64 top = 1ULL << MAX_PHYSMEM_BITS;
	static const struct { u64 start, size; int err; } bad[] = {
		{ HOTPLUG_BASE, 0, -EINVAL },
		{ HOTPLUG_BASE + SZ_2M, MEMORY_BLOCK_SIZE, -EINVAL },
		{ HOTPLUG_BASE, MEMORY_BLOCK_SIZE + SZ_2M, -EINVAL },
		{ (1ULL << MAX_PHYSMEM_BITS) - SZ_2M, MEMORY_BLOCK_SIZE, -EINVAL },
		{ 1ULL << MAX_PHYSMEM_BITS, MEMORY_BLOCK_SIZE, -ERANGE },
		{ (1ULL << MAX_PHYSMEM_BITS) - MEMORY_BLOCK_SIZE, 2 * MEMORY_BLOCK_SIZE, -ERANGE },
		{ 0 - MEMORY_BLOCK_SIZE, 2 * MEMORY_BLOCK_SIZE, -ERANGE },
	};
	struct memmap_bench b;

	boot_machine(DESIGN_NEW);
	CHECK_EQ(devmem_create(top - MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE, 0), -EINVAL); /* no block */
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(devmem_create(bad[i].start, bad[i].size, 0), bad[i].err);
		CHECK_EQ(devmem_bench(bad[i].start, bad[i].size, 1, false, &b), bad[i].err);
		CHECK_EQ(add_memory(0, bad[i].start, bad[i].size, -1, MHP_NO_AUTO_ONLINE), bad[i].err);
		CHECK(devmem_find(0) == NULL);
	}
}

/* Blocks of two nodes, and self-hosted memmaps, are refused. */
static unsigned devmem_pauses;

static bool count_pause(void)
{
	devmem_pauses++;
	return true;	/* a stop request: create and rebind must finish anyway */
}

/*
 * A device range of more than 64 sections is initialised a section at a
 * time with a pause between two (the shell's job lets the console answer
 * there), even when asked to stop; the memmap is byte for byte what one
 * call over the whole range writes.  A rebind pauses in its poison pass
 * too.
 */
HTEST(devmem_large_range_pauses_and_matches_one_call)
{
	const u64 nr = 65 * PAGES_PER_SECTION;
	struct snapshot parts, whole;
	int id;

	boot_machine_hot(DESIGN_NEW, 65 * MEMORY_BLOCK_SIZE);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, 65 * MEMORY_BLOCK_SIZE, -1, MHP_NO_AUTO_ONLINE), 0);
	mech_bench_set_checkpoint(count_pause);
	devmem_pauses = 0;
	id = devmem_create(HOTPLUG_BASE, 65 * MEMORY_BLOCK_SIZE, 9);
	CHECK_EQ(id, 0);
	CHECK_EQ(devmem_pauses, 64);
	CHECK_EQ(devmem_find(id)->last_init_pages, nr);
	snapshot_take(&parts, DIMM_PFN, nr);
	CHECK_EQ(memmap_init_zone_device_design(DIMM_PFN, nr, 0, 9, devmem_find(id), DESIGN_NEW), 0);
	snapshot_take(&whole, DIMM_PFN, nr);
	CHECK(snapshot_same(&whole, &parts, "a section at a time", DESIGN_NEW, DIMM_PFN));
	snapshot_free(&parts);
	snapshot_free(&whole);
	devmem_pauses = 0;
	CHECK_EQ(devmem_rebind(id, DESIGN_OLD), 0);
	CHECK_EQ(devmem_pauses, 128);
	CHECK_EQ(devmem_find(id)->last_design, DESIGN_OLD);
	mech_bench_set_checkpoint(NULL);
	CHECK_EQ(devmem_destroy(id), 0);
}

HTEST(devmem_refuses_mixed_ranges)
{
	boot_machine(DESIGN_NEW);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, MEMORY_BLOCK_SIZE, -1, MHP_NO_AUTO_ONLINE), 0);
	CHECK_EQ(add_memory(1, HOTPLUG_BASE + MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE, -1,
			    MHP_NO_AUTO_ONLINE), 0);
	CHECK_EQ(devmem_create(HOTPLUG_BASE, 2 * MEMORY_BLOCK_SIZE, 0), -EINVAL);
	CHECK_EQ(devmem_create(HOTPLUG_BASE + MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE, 0), 0);
	CHECK_EQ(device_zone(1)->spanned_pages, PAGES_PER_SECTION);
	CHECK(zone_is_empty(device_zone(0)));
	CHECK_EQ(devmem_destroy(0), 0);
	memhp_set_memmap_on_memory(true);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE + 2 * MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE, -1,
			    MHP_NO_AUTO_ONLINE | MHP_MEMMAP_ON_MEMORY), 0);
	if (find_memory_block_by_id(DIMM_BLOCK + 2)->nr_vmemmap_pages)
		CHECK_EQ(devmem_create(HOTPLUG_BASE + 2 * MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE, 0),
			 -EINVAL);
	memhp_set_memmap_on_memory(false);
}

/* The measurement runs and leaves the offline poison behind. */
HTEST(devmem_bench_runs)
{
	struct memmap_bench b;

	boot_machine(DESIGN_NEW);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, MEMORY_BLOCK_SIZE, -1, MHP_NO_AUTO_ONLINE), 0);
	CHECK_EQ(devmem_bench(HOTPLUG_BASE, MEMORY_BLOCK_SIZE, 2, false, &b), 0);
	CHECK_EQ(b.nr_pages, PAGES_PER_SECTION);
	CHECK_EQ(b.reps, 2);
	CHECK(!b.warm);
	for (int k = 0; k < NR_MEMMAP_BENCH_KINDS; k++) {	/* 2 runs prove nothing */
		CHECK_EQ(memmap_bench_verdict(&b, k, DESIGN_NEW), MEMMAP_BENCH_NO_DIFFERENCE);
		CHECK_EQ(memmap_bench_verdict(&b, k, DESIGN_NEW_NT), MEMMAP_BENCH_NO_DIFFERENCE);
		CHECK(b.wins[k][DESIGN_NEW] + b.losses[k][DESIGN_NEW] <= 2);
		CHECK(b.wins[k][DESIGN_NEW_NT] + b.losses[k][DESIGN_NEW_NT] <= 2);
		CHECK_EQ(b.wins[k][DESIGN_OLD], 0);
	}

	for (int k = 0; k < NR_MEMMAP_BENCH_KINDS; k++)
		for (int d = 0; d < NR_MEMMAP_DESIGNS; d++)
			CHECK(b.init[k][d] > 0);
	CHECK(b.memset_cycles > 0 && b.stream_cycles > 0);
	CHECK(all_poisoned(DIMM_PFN, PAGES_PER_SECTION));
	CHECK_EQ(devmem_bench(HOTPLUG_BASE, MEMORY_BLOCK_SIZE, 1, true, &b), 0);
	CHECK(b.warm);
	CHECK(all_poisoned(DIMM_PFN, PAGES_PER_SECTION));
	CHECK_EQ(devmem_bench(HOTPLUG_BASE + MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE, 2, false, &b), -EINVAL);
	CHECK_EQ(devmem_bench(0, MEMORY_BLOCK_SIZE, 2, false, &b), -EBUSY);
	CHECK_EQ(memory_block_online(find_memory_block_by_id(DIMM_BLOCK), MMOP_ONLINE_MOVABLE), 0);
}

/*
 * The verdicts and the table, from cells set by hand: each template design
 * has its own sign test against per-page (8 of 9 wins: p = 0.020, faster;
 * 9 of 9 losses: slower; 5 of 9: no difference), and both show.
 */
HTEST(memmap_bench_verdicts_per_template_design)
{
	static struct memmap_bench b;
	static char text[4096];
	struct buf_printer bp;

	memset(&b, 0, sizeof(b));
	b.nr_pages = 1000;
	b.reps = 9;
	for (int k = 0; k < NR_MEMMAP_BENCH_KINDS; k++)
		for (int d = 0; d < NR_MEMMAP_DESIGNS; d++)
			b.init[k][d] = 10000 + 1000 * (unsigned)d;
	b.memset_cycles = b.stream_cycles = 10000;
	b.stores_cycles = 10000;
	b.init[MEMMAP_BENCH_DEV_2M][DESIGN_NEW] = 12000;
	b.wins[MEMMAP_BENCH_NORMAL][DESIGN_NEW] = 8;
	b.ratio_permille[MEMMAP_BENCH_NORMAL][DESIGN_NEW] = 1250;
	b.wins[MEMMAP_BENCH_NORMAL][DESIGN_NEW_NT] = 5;
	b.losses[MEMMAP_BENCH_NORMAL][DESIGN_NEW_NT] = 4;
	b.losses[MEMMAP_BENCH_DEV_4K][DESIGN_NEW_NT] = 9;
	b.ratio_permille[MEMMAP_BENCH_DEV_4K][DESIGN_NEW_NT] = 800;
	CHECK_EQ(memmap_bench_verdict(&b, MEMMAP_BENCH_NORMAL, DESIGN_NEW), MEMMAP_BENCH_FASTER);
	CHECK_EQ(memmap_bench_verdict(&b, MEMMAP_BENCH_NORMAL, DESIGN_NEW_NT),
		 MEMMAP_BENCH_NO_DIFFERENCE);
	CHECK_EQ(memmap_bench_verdict(&b, MEMMAP_BENCH_DEV_4K, DESIGN_NEW_NT), MEMMAP_BENCH_SLOWER);
	CHECK_EQ(memmap_bench_verdict(&b, MEMMAP_BENCH_DEV_2M, DESIGN_NEW), MEMMAP_BENCH_NO_DIFFERENCE);

	buf_printer_init(&bp, text, sizeof(text));
	memmap_bench_print(&b, &bp.p);
	CHECK(!bp.overflow);
	CHECK(strstr(text, "  normal (Movable)    10.00      11.00      12.00     1.25x    0.00x"
			   "       1.10x      1.20x\n"));
	CHECK(strstr(text, "  normal (Movable)  template faster in 8 of 9 runs (p=0.020): "
			   "template faster\n"));
	CHECK(strstr(text, "  normal (Movable)  template-nt faster in 5 of 9 runs (p=0.500): "
			   "no significant difference\n"));
	CHECK(strstr(text, "  device 4 KiB      template-nt faster in 0 of 9 runs (p=1.000): "
			   "template-nt SLOWER\n"));
	CHECK(strstr(text, "  device 4 KiB        10.00      11.00      12.00     0.00x    0.80x"));
	CHECK(strstr(text, "  limit: 8-byte stores   10.00 cycles/page (8 constant words per struct "
			   "page; template 1.10-1.20x of it)\n"));
}

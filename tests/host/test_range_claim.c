/*
 * test_range_claim.c - mm's claims on physical ranges (mm/range_claim.c):
 * overlapping claims are refused with the holder's name, a release frees
 * the range, and every mm operation that changes memory refuses claimed
 * memory (-EBUSY) unless the claim's holder is the current one; nothing
 * stays on the list once released.
 */
#include "htest.h"
#include "mm_host.h"
#include "hotplug_check.h"
#include <lib/fw_memmap.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/cma.h>
#include <mm/contig_alloc.h>
#include <mm/memory_hotplug.h>
#include <mm/memremap.h>
#include <mm/mechanisms.h>
#include <mm/range_claim.h>

#define MiB		(1ULL << 20)
#define GiB		(1ULL << 30)
#define BLOCK_PAGES	PAGES_PER_MEMORY_BLOCK
#define HOT		(4 * GiB)		/* block 32 */
#define HOT_PFN		PHYS_PFN(HOT)

/* 8 GiB of simulated memory, 512 MiB of it boot RAM, with a 16 MiB CMA area. */
static void claim_boot(void)
{
	static struct fw_memmap map;
	static struct mm_boot_params bp;

	mech_reset();
	cma_reset();
	devmem_reset();
	host_mm_reset(8 * GiB);
	printk_set_level(LOG_CRIT);
	fw_memmap_init(&map);
	memset(&bp, 0, sizeof(bp));
	bp.memmap = &map;
	fw_memmap_add_raw(&map, 0, 512 * MiB, FW_MEM_RAM);
	fw_memmap_sanitize(&map);
	bp.cma_size = 16 * MiB;
	mm_core_init(&bp);
	memory_blocks_init_boot();
	hotplug_knobs_default();
}

/* Claims meet when their page ranges overlap; the refused one names nothing new. */
HTEST(range_claim_overlap_refused_with_holder_name)
{
	struct range_claim a = { 0 }, b = { 0 };
	const struct range_claim *h;

	CHECK_EQ(range_claims_held(), 0);
	CHECK_EQ(range_claim(&a, 100, 200, "resize of a", &a), 0);
	CHECK_EQ(range_claim(&b, 199, 300, "job [1] b", &b), -EBUSY);
	CHECK(!b.held);
	h = range_claim_holder(150, 151);
	CHECK(h == &a);
	CHECK_STREQ(h->name, "resize of a");
	CHECK(h->owner == &a);
	CHECK(range_claim_holder(200, 300) == NULL);	/* half-open */
	CHECK(range_claim_holder(0, 100) == NULL);
	CHECK(range_claim_holder(150, 150) == NULL);	/* empty */
	CHECK_EQ(range_claim_check(50, 101), -EBUSY);
	CHECK_EQ(range_claim(&b, 200, 300, "job [1] b", &b), 0);	/* beside it: fine */
	CHECK_EQ(range_claims_held(), 2);

	/* a holder moves its own claim over its own range freely */
	CHECK_EQ(range_claim(&a, 120, 180, "resize of a", &a), 0);
	CHECK_EQ(range_claims_held(), 2);
	CHECK(range_claim_holder(100, 120) == NULL);
	CHECK_EQ(range_claim(&a, 150, 250, "resize of a", &a), -EBUSY);	/* into b's */
	CHECK_EQ(a.start_pfn, 120);	/* kept what it held */
	CHECK_EQ(a.end_pfn, 180);

	range_release(&a);
	range_release(&a);		/* twice: no-op */
	CHECK(range_claim_holder(0, 200) == NULL);
	CHECK_EQ(range_claim(&b, 0, 0, "job [1] b", &b), 0);	/* empty: released */
	CHECK(!b.held);
	CHECK_EQ(range_claims_held(), 0);
}

/* The current holder's claim does not count for it; every other does. */
HTEST(range_claim_current_holder_passes)
{
	struct range_claim a = { 0 }, b = { 0 };
	struct range_claim *prev;

	CHECK_EQ(range_claim(&a, 100, 200, "a", NULL), 0);
	CHECK_EQ(range_claim(&b, 300, 400, "b", NULL), 0);
	prev = range_claim_set_current(&a);
	CHECK(prev == NULL);
	CHECK(range_claim_holder(100, 200) == NULL);
	CHECK(range_claim_holder(100, 301) == &b);
	CHECK_EQ(range_claim_check(150, 160), 0);
	CHECK(range_claim_set_current(prev) == &a);
	CHECK(range_claim_holder(100, 200) == &a);
	range_release(&a);
	range_release(&b);
	CHECK_EQ(range_claims_held(), 0);
}

/*
 * Onlining, offlining, adding and removing a block: refused while another
 * holder has its memory, done for the holder itself; nothing changed by a
 * refusal.
 */
HTEST(range_claim_hotplug_operations_refuse_claimed_memory)
{
	struct range_claim c = { 0 };
	struct memory_block *mem;

	claim_boot();
	CHECK_EQ(range_claim(&c, HOT_PFN, HOT_PFN + BLOCK_PAGES, "dimm0 add", &c), 0);
	CHECK_EQ(add_memory(0, HOT, 128 * MiB, -1, MHP_NO_AUTO_ONLINE), -EBUSY);
	CHECK(find_memory_block_by_id(32) == NULL);
	CHECK_STREQ(range_claim_holder(HOT_PFN, HOT_PFN + 1)->name, "dimm0 add");

	range_claim_set_current(&c);
	CHECK_EQ(add_memory(0, HOT, 128 * MiB, -1, MHP_NO_AUTO_ONLINE), 0);
	range_claim_set_current(NULL);
	mem = find_memory_block_by_id(32);
	CHECK(mem != NULL);
	CHECK_EQ(memory_block_online(mem, MMOP_ONLINE_MOVABLE), -EBUSY);
	CHECK_EQ(mem->state, MEM_OFFLINE);
	range_claim_set_current(&c);
	CHECK_EQ(memory_block_online(mem, MMOP_ONLINE_MOVABLE), 0);
	range_claim_set_current(NULL);
	CHECK_EQ(memory_block_offline(mem), -EBUSY);
	CHECK_EQ(mem->state, MEM_ONLINE);
	CHECK_EQ(offline_and_remove_memory(HOT, 128 * MiB), -EBUSY);
	CHECK_EQ(mem->state, MEM_ONLINE);
	range_claim_set_current(&c);
	CHECK_EQ(memory_block_offline(mem), 0);
	range_claim_set_current(NULL);
	CHECK_EQ(remove_memory(HOT, 128 * MiB), -EBUSY);
	CHECK(find_memory_block_by_id(32) != NULL);
	range_claim_set_current(&c);
	CHECK_EQ(remove_memory(HOT, 128 * MiB), 0);
	range_claim_set_current(NULL);
	CHECK(find_memory_block_by_id(32) == NULL);
	hotplug_check_invariants();

	/* released: anyone may change it again */
	range_release(&c);
	CHECK_EQ(add_memory(0, HOT, 128 * MiB, -1, MHP_NO_AUTO_ONLINE), 0);
	CHECK_EQ(memory_block_online(find_memory_block_by_id(32), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(offline_and_remove_memory(HOT, 128 * MiB), 0);
	hotplug_check_invariants();
	CHECK_EQ(range_claims_held(), 0);
}

/* devmem create and destroy of claimed memory: refused, done for the holder. */
HTEST(range_claim_devmem_refuses_claimed_memory)
{
	struct range_claim c = { 0 };
	int id;

	claim_boot();
	CHECK_EQ(add_memory(0, HOT, 256 * MiB, -1, MHP_NO_AUTO_ONLINE), 0);
	CHECK_EQ(range_claim(&c, HOT_PFN + BLOCK_PAGES, HOT_PFN + BLOCK_PAGES + 1, "job [2] devmem", &c), 0);
	CHECK_EQ(devmem_create(HOT, 256 * MiB, 0), -EBUSY);
	CHECK(devmem_find(0) == NULL);
	range_claim_set_current(&c);
	id = devmem_create(HOT, 256 * MiB, 0);
	range_claim_set_current(NULL);
	CHECK(id >= 0);
	CHECK_EQ(devmem_destroy(id), -EBUSY);
	CHECK(devmem_find(id) != NULL);
	range_claim_set_current(&c);
	CHECK_EQ(devmem_destroy(id), 0);
	range_claim_set_current(NULL);
	range_release(&c);
	CHECK_EQ(remove_memory(HOT, 256 * MiB), 0);
	CHECK_EQ(range_claims_held(), 0);
}

/*
 * alloc_contig_range() on claimed memory: -EBUSY at the "check" step with
 * the holder named; the holder gets its pages.  cma_alloc() skips a
 * claimed candidate and takes the next one, and fails when every
 * candidate is claimed.
 */
HTEST(range_claim_contig_and_cma_refuse_claimed_memory)
{
	struct range_claim c = { 0 };
	struct contig_alloc_report why;
	struct cma *cma;
	struct page *p;
	u64 base;

	claim_boot();
	CHECK_EQ(add_memory(0, HOT, 128 * MiB, -1, MHP_NONE), 0);
	CHECK_EQ(memory_block_online(find_memory_block_by_id(32), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(range_claim(&c, HOT_PFN + 512, HOT_PFN + 1024, "job [3] contig alloc", &c), 0);
	CHECK_EQ(alloc_contig_range_explain(HOT_PFN, HOT_PFN + 2048, MIGRATE_MOVABLE, __GFP_NOWARN,
					    false, &why), -EBUSY);
	CHECK_STREQ(why.step, "check");
	CHECK_STREQ(why.why, "job [3] contig alloc is working on that memory");
	CHECK_EQ(alloc_contig_range(HOT_PFN, HOT_PFN + 512, MIGRATE_MOVABLE, __GFP_NOWARN), 0);
	free_contig_range(HOT_PFN, 512);	/* beside the claim: fine */
	range_claim_set_current(&c);
	CHECK_EQ(alloc_contig_range(HOT_PFN + 512, HOT_PFN + 1024, MIGRATE_MOVABLE, __GFP_NOWARN), 0);
	range_claim_set_current(NULL);
	free_contig_range(HOT_PFN + 512, 512);
	range_release(&c);

	CHECK_EQ(cma_area_count, 1);
	cma = &cma_areas[0];
	base = cma->base_pfn;
	/* the first candidate is claimed: the area's next range is taken */
	CHECK_EQ(range_claim(&c, base, base + 1, "job [4] cma", &c), 0);
	p = cma_alloc(cma, 16, 0, true);
	CHECK(p != NULL);
	CHECK(page_to_pfn(p) >= base + 1);
	CHECK(cma_release(cma, p, 16));
	/* all of it claimed: nothing to take */
	CHECK_EQ(range_claim(&c, base, base + cma->count, "job [4] cma", &c), 0);
	CHECK(cma_alloc(cma, 16, 0, true) == NULL);
	range_claim_set_current(&c);
	p = cma_alloc(cma, 16, 0, true);
	range_claim_set_current(NULL);
	CHECK(p != NULL);
	CHECK(cma_release(cma, p, 16));
	range_release(&c);
	CHECK_EQ(range_claims_held(), 0);
	CHECK_EQ(offline_and_remove_memory(HOT, 128 * MiB), 0);
}

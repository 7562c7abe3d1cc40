/*
 * hotplug_fixture.c - the simulated machine and the test allocations of
 * the memory hotplug tests (hotplug_fixture.h).
 */
#include "htest.h"
#include "mm_host.h"
#include "platform_stub.h"
#include "hotplug_check.h"
#include <stdlib.h>
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/memblock.h>
#include <mm/gfp.h>
#include "../../mm/buddy_internal.h"
#include <mm/memory_hotplug.h>
#include "../../mm/internal.h"
#include <mm/migrate.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>
#include <lib/errno.h>
#include "hotplug_fixture.h"

static struct fw_memmap map;
static struct mm_boot_params bp;

struct zone *zone_of(int nid, enum zone_type z)
{
	return &NODE_DATA(nid)->node_zones[z];
}


/*
 * A machine with ram bytes of simulated RAM; the firmware map says RAM is
 * [0, boot_end) on node 0 and, if hole_start < hole_end, not in that hole.
 */
void boot_with_hole(u64 ram, u64 boot_end, u64 hole_start, u64 hole_end)
{
	host_mm_reset(ram);
	printk_set_level(LOG_CRIT);
	fw_memmap_init(&map);
	memset(&bp, 0, sizeof(bp));
	bp.memmap = &map;
	if (hole_start < hole_end) {
		fw_memmap_add_raw(&map, 0, hole_start, FW_MEM_RAM);
		fw_memmap_add_raw(&map, hole_end, boot_end - hole_end, FW_MEM_RAM);
	} else {
		fw_memmap_add_raw(&map, 0, boot_end, FW_MEM_RAM);
	}
	fw_memmap_sanitize(&map);
	mm_core_init(&bp);
	memory_blocks_init_boot();	/* idempotent if mm_core_init did it */
	hotplug_knobs_default();
}

void boot(u64 ram, u64 boot_end)
{
	boot_with_hole(ram, boot_end, 0, 0);
}

struct memory_block *block(unsigned long id)
{
	return find_memory_block_by_id(id);
}

const char *valid_zones(unsigned long id)
{
	static char buf[128];
	struct buf_printer bpr;

	buf_printer_init(&bpr, buf, sizeof(buf));
	memory_block_valid_zones(block(id), &bpr.p);
	return buf;
}
static bool talloc_block_of(struct page *page, struct page **head, unsigned *order)
{
	struct talloc *a = (struct talloc *)page->owner;
	u64 pfn = page_to_pfn(page), first;

	if (!a->head)
		return false;
	first = page_to_pfn(a->head);
	if (pfn < first || pfn >= first + (1ULL << a->order))
		return false;
	*head = a->head;
	*order = a->order;
	return true;
}

static void talloc_mark(struct page *head, unsigned order, struct movable_owner *mo)
{
	for (u64 i = 0; i < (1ULL << order); i++)
		head[i].owner = mo;
}

static void talloc_moved(struct page *old_head, struct page *new_head, unsigned order)
{
	struct talloc *a = (struct talloc *)old_head->owner;

	talloc_mark(new_head, order, &a->mo);
	talloc_mark(old_head, order, NULL);
	a->head = new_head;
	a->moves++;
}

static const struct movable_operations talloc_ops = {
	.name = "hotplug test", .block_of = talloc_block_of, .moved = talloc_moved,
};

static u64 talloc_word(u64 seed, u64 i)
{
	return (seed * 0x100000001b3ULL) ^ (i * 0xc2b2ae3d27d4eb4fULL) ^ i;
}

/* Allocate into a (a free slot that stays put), fill with the pattern. */
bool talloc_get(struct talloc *a, gfp_t gfp, unsigned order, u64 seed)
{
	struct page *page = alloc_pages(gfp | __GFP_NOWARN, order);
	u64 *mem;

	if (!page)
		return false;
	*a = (struct talloc){ .mo.ops = &talloc_ops, .head = page, .order = order, .seed = seed,
			      .movable = (gfp & __GFP_MOVABLE) != 0 };
	if (a->movable)
		talloc_mark(page, order, &a->mo);
	mem = mm_phys_to_virt(page_to_phys(page));
	for (u64 i = 0; i < (PAGE_SIZE << order) / 8; i++)
		mem[i] = talloc_word(seed, i);
	return true;
}

bool talloc_intact(const struct talloc *a)
{
	const u64 *mem = mm_phys_to_virt(page_to_phys(a->head));

	for (u64 i = 0; i < (1ULL << a->order); i++)
		if (a->head[i].refcount != 1 || a->head[i].owner != (a->movable ? &a->mo : NULL))
			return false;
	for (u64 i = 0; i < (PAGE_SIZE << a->order) / 8; i++)
		if (mem[i] != talloc_word(a->seed, i))
			return false;
	return true;
}

void talloc_put(struct talloc *a)
{
	if (a->movable)
		talloc_mark(a->head, a->order, NULL);
	free_pages(a->head, a->order);
	a->head = NULL;
}

bool pfn_in_block(u64 pfn, unsigned long id)
{
	return pfn_to_block_id(pfn) == id;
}

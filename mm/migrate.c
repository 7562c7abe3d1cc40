/*
 * migrate.c - moving allocated blocks to other physical pages: what lets
 * memory with allocations in it be offlined.
 *
 * Linux migrates a folio by allocating a new one, unmapping the old one
 * (replacing its page-table entries with migration entries), copying the
 * data and flags, and pointing every mapping and the page cache at the new
 * folio; a folio with references it cannot account for (a pin) is not
 * moved.  memlab has no page tables to rewrite and no page cache, so the
 * "mappings" are whatever the owner of a block keeps: an owner that wants
 * its memory to be movable embeds a struct movable_owner, sets page->owner
 * on every page of its block, and answers two questions (migrate.h): which
 * block is this page part of (block_of), and "your block moved" (moved).
 *
 * Moving one block (migrate_block):
 *   1. page_movable_block(): the owner, its block, and no pin (refcount 1
 *      on every page, every page marked with the same owner);
 *   2. a target block of the same order: where the owner would rather have
 *      it (ops->alloc_target, optional), else __GFP_MOVABLE from the
 *      zonelist of the preferred node.  A target overlapping the range being emptied is
 *      refused and kept aside while the next one is asked for (so the same
 *      block does not come back), then all refused ones are freed.  When
 *      the range is isolated, as for offlining, the allocator never hands
 *      out its pages anyway: the check is a safety net for callers that
 *      migrate from a range that is not isolated (the shell's `move`);
 *   3. the data is copied through the direct map;
 *   4. the owner's moved() updates its references and page->owner;
 *   5. the old block is freed.  Its pages go where free pages of their
 *      pageblock go: to the isolate list if the pageblock is isolated.  A
 *      block larger than a pageblock is freed pageblock by pageblock, so
 *      that a block straddling the edge of an isolated range puts each part
 *      on the list of its own pageblock (Linux's split_large_buddy() on the
 *      free side does the same).
 * Nothing can fail after step 2, so a failed migration leaves the block
 * and its owner exactly as they were.
 *
 * Context: (main); nothing else allocates or frees meanwhile.
 */
#include <mm/migrate.h>
#include "buddy_internal.h"
#include <mm/memory_hotplug.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

u64 pgmigrate_success, pgmigrate_fail;	/* [m] */

/* Targets refused for overlapping the avoided range before giving up. */
#define MIGRATE_MAX_REFUSED	32

/* Ask the owner for the block, then check that the block agrees, page by page. */
struct movable_owner *page_movable_block(struct page *page, struct page **head, unsigned *order)
{
	struct movable_owner *owner = page_movable_owner(page);
	u64 pfn = page_to_pfn(page), head_pfn, nr;
	struct page *block;
	unsigned block_order;

	MM_BUG_ON(!page || !head || !order, "page %p, head %p, order %p", (void *)page, (void *)head,
		  (void *)order);

	if (!owner || !owner->ops || !owner->ops->block_of(page, &block, &block_order))
		return NULL;
	head_pfn = page_to_pfn(block);
	nr = 1ULL << block_order;
	if (block_order > MAX_PAGE_ORDER || !IS_ALIGNED(head_pfn, nr) || pfn < head_pfn ||
	    pfn >= head_pfn + nr)
		return NULL;
	for (u64 i = 0; i < nr; i++) {
		const struct page *p = block + i;

		if (p->refcount != 1 || p->page_type != PAGE_TYPE_NONE || PageReserved(p) ||
		    p->owner != owner)
			return NULL;
	}
	*head = block;
	*order = block_order;
	return owner;
}

/* Does [pfn, pfn + nr) overlap [start_pfn, end_pfn)? */
static bool overlaps(u64 pfn, u64 nr, u64 start_pfn, u64 end_pfn)
{
	return pfn < end_pfn && start_pfn < pfn + nr;
}

/*
 * A free block of 2^order pages for the copy, outside [avoid_start_pfn,
 * avoid_end_pfn), from nid's zonelist; NULL if the allocator has none.
 */
static struct page *alloc_migration_target(int nid, unsigned order, u64 avoid_start_pfn,
					   u64 avoid_end_pfn)
{
	struct page *refused[MIGRATE_MAX_REFUSED], *target = NULL;
	unsigned nr_refused = 0;

	while (nr_refused < MIGRATE_MAX_REFUSED) {
		target = alloc_pages_node(nid, __GFP_MOVABLE | __GFP_NOWARN, order);
		if (!target || !overlaps(page_to_pfn(target), 1ULL << order, avoid_start_pfn,
					 avoid_end_pfn))
			break;
		refused[nr_refused++] = target;
		target = NULL;
	}
	while (nr_refused)
		free_pages(refused[--nr_refused], order);
	return target;
}

/* Free the old block; larger than a pageblock: one pageblock at a time. */
static void free_old_block(struct page *head, unsigned order)
{
	unsigned piece = MIN(order, (unsigned)pageblock_order);
	u64 nr = 1ULL << order;

	for (u64 i = 0; i < nr; i += 1ULL << piece)
		if (zone_free_pages(page_zone(head + i), head + i, piece))
			pr_err("migrate: the old block at pfn 0x%llx (order %u) could not be freed",
			       (unsigned long long)page_to_pfn(head + i), piece);
}

/* Steps 1-5 of the essay at the top; a node that is not online means the page's own. */
/* migrate_block(), and where the block went in *moved_to (when not NULL). */
static int migrate_block_to(struct page *page, u64 avoid_start_pfn, u64 avoid_end_pfn, int nid,
			    struct page **moved_to)
{
	struct movable_owner *owner;
	struct page *head, *target;
	unsigned order;

	MM_BUG_ON(!page || avoid_start_pfn > avoid_end_pfn, "page %p, avoid [%#llx, %#llx), nid %d",
		  (void *)page, (unsigned long long)avoid_start_pfn, (unsigned long long)avoid_end_pfn, nid);

	owner = page_movable_block(page, &head, &order);
	if (!owner)
		return -EBUSY;
	if (nid < 0 || nid >= MAX_NUMNODES || !NODE_DATA(nid)->online)
		nid = page_to_nid(head);
	target = owner->ops->alloc_target ?
		 owner->ops->alloc_target(head, order, nid, avoid_start_pfn, avoid_end_pfn) : NULL;
	if (!target)
		target = alloc_migration_target(nid, order, avoid_start_pfn, avoid_end_pfn);
	if (!target) {
		pgmigrate_fail += 1ULL << order;
		return -ENOMEM;
	}
	memcpy(mm_phys_to_virt(page_to_phys(target)), mm_phys_to_virt(page_to_phys(head)),
	       PAGE_SIZE << order);
	owner->ops->moved(head, target, order);
	free_old_block(head, order);
	pgmigrate_success += 1ULL << order;
	if (moved_to)
		*moved_to = target;
	return 0;
}

int migrate_block(struct page *page, u64 avoid_start_pfn, u64 avoid_end_pfn, int nid)
{
	return migrate_block_to(page, avoid_start_pfn, avoid_end_pfn, nid, NULL);
}

/* Count 2^order pages that landed at pfn in *d, in the memory block of its
 * first page (a naturally aligned block smaller than a memory block never
 * spans two). */
static void dests_add(struct migrate_dests *d, u64 pfn, unsigned order)
{
	u64 id = pfn_to_block_id(pfn), n = 1ULL << order;

	for (u32 i = 0; i < d->nr; i++)
		if (d->to[i].block_id == id) {
			d->to[i].pages += n;
			return;
		}
	if (d->nr < MIGRATE_DESTS_MAX) {
		d->to[d->nr].block_id = id;
		d->to[d->nr++].pages = n;
		return;
	}
	d->other_pages += n;
}

/* Contract in include/mm/migrate.h. */
void set_block_owner(struct page *head, unsigned order, struct movable_owner *owner,
		     unsigned long index)
{
	for (unsigned long i = 0; i < (1UL << order); i++) {
		head[i].owner = owner;
		head[i].index = index;
	}
}

/*
 * Walk the range as the isolation check does; each movable block met is
 * migrated to its own node's zonelist (other nodes by distance after it),
 * away from the range, and the walk resumes after the old block.
 */
int migrate_range(u64 start_pfn, u64 end_pfn, u64 *failed_pfn, u64 *nr_migrated)
{
	return migrate_range_to(start_pfn, end_pfn, failed_pfn, nr_migrated, NULL);
}

int migrate_range_to(u64 start_pfn, u64 end_pfn, u64 *failed_pfn, u64 *nr_migrated,
		     struct migrate_dests *dests)
{
	u64 pfn = start_pfn, moved = 0;
	int err = 0;

	MM_BUG_ON(start_pfn > end_pfn, "[%#llx, %#llx)", (unsigned long long)start_pfn,
		  (unsigned long long)end_pfn);

	while (pfn < end_pfn) {
		struct page *page, *head, *target;
		unsigned order;
		u64 block_end;

		if (!pfn_valid(pfn)) {
			pfn = pageblock_end_pfn(pfn);
			continue;
		}
		if (free_block_at(pfn, FREE_BLOCK_BUDDY | FREE_BLOCK_PCP, &order)) {
			pfn += 1ULL << order;
			continue;
		}
		page = pfn_to_page(pfn);
		if (PageOffline(page) || page_has_type(page, PGTY_TABLE) ||
		    (page->refcount == 0 && !PageReserved(page))) {
			pfn++;	/* offline, memmap, or inside a free block */
			continue;
		}
		if (!page_movable_block(page, &head, &order)) {
			err = -EBUSY;
			break;
		}
		block_end = page_to_pfn(head) + (1ULL << order);
		err = migrate_block_to(page, start_pfn, end_pfn, page_to_nid(page), &target);
		if (err)
			break;
		moved += 1ULL << order;
		if (dests)
			dests_add(dests, page_to_pfn(target), order);
		pfn = MAX(pfn + 1, block_end);
	}
	if (err && failed_pfn)
		*failed_pfn = pfn;
	if (nr_migrated)
		*nr_migrated = moved;
	return err;
}

/*
 * Why page_movable_block() refused a page that has a movable owner: the
 * owner does not know the page now, a page of the block has an extra
 * reference (pinned), or the block's pages disagree with the owner.
 */
static void describe_unmovable_owner(struct page *page, struct movable_owner *owner,
				     char *buf, size_t size)
{
	unsigned long long p = (unsigned long long)page_to_pfn(page);
	const char *name = owner->ops && owner->ops->name ? owner->ops->name : "?";
	struct page *head;
	unsigned order;

	if (!owner->ops || !owner->ops->block_of(page, &head, &order)) {
		ksnprintf(buf, size, "pfn 0x%llx: allocation its owner (%s) cannot move now", p, name);
		return;
	}
	for (u64 i = 0; order <= MAX_PAGE_ORDER && i < (1ULL << order); i++) {
		if (head[i].refcount > 1) {
			ksnprintf(buf, size, "pfn 0x%llx: movable allocation (%s) pinned: pfn 0x%llx has refcount %d",
				  p, name, (unsigned long long)page_to_pfn(head + i), head[i].refcount);
			return;
		}
	}
	ksnprintf(buf, size, "pfn 0x%llx: movable allocation (%s) whose pages disagree with its owner (order-%u block at pfn 0x%llx)",
		  p, name, order, (unsigned long long)page_to_pfn(head));
}

/* The words for a page the checks reject, or for why its pageblock was refused. */
void describe_unmovable(u64 pfn, char *buf, size_t size)
{
	struct movable_owner *owner;
	struct page *page, *head;
	struct zone *zone;
	unsigned order;
	u64 block = pageblock_start_pfn(pfn);
	unsigned long long p = (unsigned long long)pfn;

	MM_BUG_ON(!buf || !size, "pfn %#llx: buf %p, size %zu", (unsigned long long)pfn, (void *)buf, size);

	if (!pfn_valid(pfn)) {
		ksnprintf(buf, size, "pfn 0x%llx: no memmap (not present memory)", p);
		return;
	}
	if (get_pageblock_migratetype(pfn) == MIGRATE_CMA) {
		ksnprintf(buf, size, "pfn 0x%llx: in a CMA area (CMA pageblocks are never offlined)", p);
		return;
	}
	page = pfn_to_page(pfn);
	zone = page_zone(page);
	if (page_has_type(page, PGTY_TABLE)) {
		const struct memory_block *mem = memmap_on_memory_block_of(pfn);

		if (mem)
			ksnprintf(buf, size, "pfn 0x%llx: memory block %lu's own memmap (memmap_on_memory: its first %lu pages hold its struct pages; they go only with the block)",
				  p, mem->block_id, mem->nr_vmemmap_pages);
		else
			ksnprintf(buf, size, "pfn 0x%llx: page table / memmap page", p);
		return;
	}
	if (PageReserved(page)) {
		ksnprintf(buf, size, "pfn 0x%llx: reserved page (boot memory or firmware)", p);
		return;
	}
	owner = page_movable_owner(page);
	if (page->refcount > 0 && page->page_type == PAGE_TYPE_NONE && !owner) {
		u64 nr;

		if (sparse_memmap_at(pfn, pfn + 1, &nr))
			ksnprintf(buf, size, "pfn 0x%llx: memmap of memory%llu (its struct pages; they go when that block is removed)",
				  p, (unsigned long long)nr);
		else if (mm_page_table_in(PFN_PHYS(pfn), PFN_PHYS(pfn + 1)))
			ksnprintf(buf, size, "pfn 0x%llx: page-table page (maps memory for the kernel; freed when what it maps is removed)",
				  p);
		else
			ksnprintf(buf, size, "pfn 0x%llx: unmovable allocation (refcount %d, no movable owner)",
				  p, page->refcount);
		return;
	}
	if (owner && !page_movable_block(page, &head, &order)) {
		describe_unmovable_owner(page, owner, buf, size);
		return;
	}
	/* The page itself is fine: then its pageblock was the problem. */
	if (get_pageblock_isolate(pfn)) {
		ksnprintf(buf, size, "pfn 0x%llx: pageblock 0x%llx already isolated (another offline or contiguous allocation)",
			  p, (unsigned long long)block);
		return;
	}
	if (!zone_spans_pfn(zone, block) || !zone_spans_pfn(zone, block + pageblock_nr_pages - 1)) {
		ksnprintf(buf, size, "pfn 0x%llx: pageblock 0x%llx crosses the edge of zone %s [0x%lx-0x%lx)",
			  p, (unsigned long long)block, zone->name, zone->zone_start_pfn, zone_end_pfn(zone));
		return;
	}
	if (owner)
		ksnprintf(buf, size, "pfn 0x%llx: movable allocation (%s, order-%u block at pfn 0x%llx)",
			  p, owner->ops->name ? owner->ops->name : "?", order,
			  (unsigned long long)page_to_pfn(head));
	else if (page->refcount == 0 && page->page_type == PAGE_TYPE_NONE)
		ksnprintf(buf, size, "pfn 0x%llx: free page (refcount 0, not on a free list)", p);
	else
		ksnprintf(buf, size, "pfn 0x%llx: %s page (refcount %d)", p, page_type_name(page),
			  page->refcount);
}

/*
 * hotplug_memmap.c - where the struct pages of a hot-added block live, and
 * how they move out of the way when the memory under them goes.
 *
 * add_memory() backs the 32768 struct pages of a hot-added block (2 MiB)
 * with an order-9 block from the page allocator.  In a small guest that
 * block often comes from memory hot-added earlier: blocks added one at a
 * time (virtio-mem, or a DIMM larger than free memory) take the memmap of
 * block N+1 from block N, and a second DIMM takes its memmaps from the
 * first.  Linux leaves such an allocation unmovable, so the block holding
 * it cannot be offlined until the other block is removed: the virtio-mem
 * device that plugged 512 GiB block by block cannot unplug it bottom-up,
 * and two DIMMs holding each other's memmaps (A's in B after A was
 * re-added) cannot be removed at all.
 *
 * memlab makes the memmap a movable allocation instead (migrate.h): every
 * one of its 512 pages names memmap_owner as its owner and carries the
 * number of the section it describes in page->index.  Offlining the block
 * under it migrates it like any movable block: migrate_block() takes a new
 * order-9 block, copies the 2 MiB through the direct map, and calls
 * memmap_moved(), which points the section's part of the vmemmap at the
 * copy (mm_vmemmap_remap()) and records the new backing in the section
 * (sparse_set_memmap()).  Nothing else holds the physical address of a
 * memmap: every struct page is reached through the vmemmap, so the pages
 * described by a moving memmap need not be touched, and its section may
 * be online, offline, or even the one being offlined.  After the move the
 * old 2 MiB are freed, and the block that held them goes offline.
 *
 * Between the copy and the remap nothing writes a struct page of the
 * moving section: migration runs with the allocator to itself (one CPU,
 * (main)), and moved() marks the new pages' owner only after the remap, so
 * those writes land in the copy.
 *
 * Where the copy goes (memmap_alloc_target()): into the block the memmap
 * describes, if that block is online, not the one being emptied, and has
 * a free 2 MiB; else a __GFP_MOVABLE block from the zonelist, as for any
 * movable allocation (it may land in ZONE_MOVABLE, which is allowed
 * because it stays movable).  Inside its own block a memmap goes away
 * with that block: removed bottom-up, a range's memmaps move at most
 * twice each (into their own block, and out of it when it is offlined),
 * instead of hopping into the next block to go at every step.  Memory
 * below 4 GiB is not used on purpose: boot memory is where the unmovable
 * metadata of hotplug (page tables, section roots, file-tree chunks) is
 * kept, and movable memmaps would crowd it out.  The memmap_on_memory case
 * (a block's struct pages in its own first 2 MiB, PGTY_TABLE) is not
 * handled here: those pages go with their block and never move.
 *
 * Context: (main), one hotplug operation at a time.
 */
#include <mm/memory_hotplug.h>
#include <mm/migrate.h>
#include <mm/sparse.h>
#include <mm/platform.h>
#include <mm/contig_alloc.h>
#include "buddy_internal.h"
#include "internal.h"
#include <lib/printk.h>

/* A block's memmap: 32768 struct pages of 64 bytes = 2 MiB = 512 pages. */
_Static_assert((1UL << HOTPLUG_MEMMAP_ORDER) * PAGE_SIZE ==
	       PAGES_PER_MEMORY_BLOCK * sizeof(struct page),
	       "the memmap of a block is one order-9 block");

static bool memmap_block_of(struct page *page, struct page **head, unsigned *order);
static void memmap_moved(struct page *old_head, struct page *new_head, unsigned order);
static struct page *memmap_alloc_target(struct page *head, unsigned order, int nid,
					u64 avoid_start_pfn, u64 avoid_end_pfn);

static const struct movable_operations memmap_movable_ops = {
	.name = "memmap of a hot-added block",
	.block_of = memmap_block_of,
	.moved = memmap_moved,
	.alloc_target = memmap_alloc_target,
};

/* The one owner of every hot-added memmap; page->index names the section. */
static struct movable_owner memmap_owner = { .ops = &memmap_movable_ops };	/* [c] */

/*
 * hotplug_memmap_alloc() - contract in internal.h.  An order-9 kernel
 * block on the node if it has one, else anywhere, marked as the movable
 * memmap of section_nr.
 */
struct page *hotplug_memmap_alloc(int nid, u64 section_nr)
{
	struct page *page = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN,
					     HOTPLUG_MEMMAP_ORDER);

	if (!page)
		page = alloc_pages_node(nid, GFP_KERNEL | __GFP_NOWARN, HOTPLUG_MEMMAP_ORDER);
	if (page)
		set_block_owner(page, HOTPLUG_MEMMAP_ORDER, &memmap_owner, section_nr);
	return page;
}

/* hotplug_memmap_free() - contract in internal.h. */
void hotplug_memmap_free(struct page *head)
{
	MM_BUG_ON(!head || head->owner != &memmap_owner, "memmap block at pfn %#llx: owner %p",
		  head ? (unsigned long long)page_to_pfn(head) : 0ULL, head ? head->owner : NULL);
	set_block_owner(head, HOTPLUG_MEMMAP_ORDER, NULL, 0);
	free_pages(head, HOTPLUG_MEMMAP_ORDER);
}

/* hotplug_memmap_page() - contract in internal.h. */
bool hotplug_memmap_page(const struct page *page, u64 *section_nr)
{
	if (page_movable_owner(page) != &memmap_owner)
		return false;
	if (section_nr)
		*section_nr = page->index;
	return true;
}

/*
 * block_of: the order-9 block around page, if it really is what the
 * section named in page->index is backed by now (a stale or forged mark
 * makes the page unmovable rather than moving the wrong memory).
 */
static bool memmap_block_of(struct page *page, struct page **head, unsigned *order)
{
	u64 head_pfn = ALIGN_DOWN(page_to_pfn(page), 1ULL << HOTPLUG_MEMMAP_ORDER);
	const struct mem_section *ms = __nr_to_section(page->index);

	if (!valid_section(ms) || ms->memmap_pa != PFN_PHYS(head_pfn))
		return false;
	*head = pfn_to_page(head_pfn);
	*order = HOTPLUG_MEMMAP_ORDER;
	return true;
}

/*
 * moved: the 2 MiB were copied to new_head.  Point the section's vmemmap
 * at the copy first (from here on every struct page of the section is read
 * and written there), then the section's record, then the marks.  A remap
 * that fails means the vmemmap is not what the section says: the kernel's
 * picture of memory is broken, so stop with the values.
 */
static void memmap_moved(struct page *old_head, struct page *new_head, unsigned order)
{
	u64 nr = old_head->index, start_pfn = section_nr_to_pfn(nr);
	phys_addr_t old_pa = page_to_phys(old_head), new_pa = page_to_phys(new_head);
	int err;

	MM_BUG_ON(order != HOTPLUG_MEMMAP_ORDER, "memmap of section %llu moved as order %u",
		  (unsigned long long)nr, order);
	err = mm_vmemmap_remap(start_pfn, start_pfn + PAGES_PER_SECTION, old_pa, new_pa);
	MM_BUG_ON(err, "memmap of section %llu: remap %#llx -> %#llx failed: %d",
		  (unsigned long long)nr, (unsigned long long)old_pa, (unsigned long long)new_pa, err);
	sparse_set_memmap(nr, new_pa);
	set_block_owner(new_head, order, &memmap_owner, nr);
	set_block_owner(old_head, order, NULL, 0);
	memhp_stats.memmaps_moved++;
	pr_info("memmap of memory%llu moved from pfn %#llx to pfn %#llx", (unsigned long long)nr,
		(unsigned long long)PHYS_PFN(old_pa), (unsigned long long)PHYS_PFN(new_pa));
}

/*
 * alloc_target: a free, 2 MiB aligned piece of the block the memmap
 * describes (see the top), taken with alloc_contig_range() once the buddy
 * shows it whole and free, so nothing is migrated for it.  NULL if the
 * block is not online, overlaps the range being emptied, or has no such
 * piece.  Context: (main).
 */
static struct page *memmap_alloc_target(struct page *head, unsigned order, int nid,
					u64 avoid_start_pfn, u64 avoid_end_pfn)
{
	u64 start = section_nr_to_pfn(head->index), end = start + PAGES_PER_SECTION;
	u64 nr = 1ULL << order;

	(void)nid;
	if (!online_section(__nr_to_section(head->index)) ||
	    (start < avoid_end_pfn && avoid_start_pfn < end))
		return NULL;
	for (u64 pfn = start; pfn < end; pfn += nr) {
		unsigned o;

		if (!pfn_valid(pfn) || free_block_containing(pfn, &o) == NO_PFN || o < order)
			continue;
		if (!alloc_contig_range(pfn, pfn + nr, MIGRATE_MOVABLE, __GFP_NOWARN))
			return pfn_to_page(pfn);
	}
	return NULL;
}

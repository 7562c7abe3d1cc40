/*
 * memory_hotplug.c - adding and removing memory at run time, and the nodes
 * that come and go with it (Linux's mm/memory_hotplug.c); onlining and
 * offlining, the online half of Linux's linux/drivers/base/memory.c, are in
 * memory_online.c.  This comment is about both.
 *
 * The life of a hot-added memory block, 128 MiB = one section = 32768
 * pages, and what each step changes:
 *
 *   add_memory()      sections present (sparse), 2 MiB of struct pages
 *                     allocated and mapped in the vmemmap, the direct map
 *                     extended, the memmap poisoned, a MEM_OFFLINE block
 *   online            a zone chosen (zone_for_pfn_range, mm/online_policy.c),
 *                     zone and node
 *                     spans grown, the memmap initialised, the pages handed
 *                     to the buddy in the largest aligned chunks, present
 *                     and managed counters up, section online, watermarks
 *                     and pcp sizes recomputed, zone contiguity recomputed
 *   offline           pageblocks isolated, movable pages migrated away, the
 *                     free pages taken out of the buddy, counters down,
 *                     section offline, spans shrunk, memmap poisoned again
 *   remove_memory()   the block forgotten, vmemmap unmapped and its 2 MiB
 *                     freed, direct map shrunk, sections absent
 *
 * Where the memmap of a block lives.  Normally its 2 MiB come from the page
 * allocator (an order-9 block, on the block's node if it has one free), so
 * they exist before the block does: 1/64 of the added size must already be
 * free memory.  For a DIMM much larger than the guest that is impossible in
 * one go (Linux fails there); two ways out:
 *   - auto-online on: when the next block's memmap cannot be allocated,
 *     the blocks added so far are onlined first, and later blocks take
 *     their memmap from them, as virtio-mem makes Linux do by adding and
 *     onlining a block at a time.  Otherwise, as in Linux, all blocks are
 *     added before any is onlined, so that no block holds the memmap of
 *     another block of the same range and the range can be removed whole;
 *   - memmap_on_memory: the first 2 MiB (512 pages, exactly one pageblock)
 *     of the block hold its own struct pages.  Used when the administrator
 *     set the memmap_on_memory knob AND the caller passed
 *     MHP_MEMMAP_ON_MEMORY: the caller knows whether its device may have the
 *     start of every block used that way (the ACPI DIMM driver passes it, as
 *     Linux's acpi_memhotplug does; virtio-mem, which plugs sub-blocks, does
 *     not).  Those 512 pages join the block's zone at online as reserved
 *     memmap pages (PG_reserved, PGTY_TABLE, pageblock Unmovable): they count
 *     in present_pages but never in managed_pages and never reach the buddy,
 *     as in Linux (mhp_init_memmap_on_memory).  So a block onlined with
 *     memmap_on_memory adds 32768 present and 32256 managed pages.
 * A memmap taken from the allocator may so lie in another hot-added block
 * (the next block's in this one, a second DIMM's in the first).  In Linux
 * that pins the holder: it cannot go offline before the other block is
 * removed.  Here the memmap is a movable allocation (hotplug_memmap.c):
 * offlining the holder migrates it and repoints the vmemmap, so every
 * block can be offlined in any order.
 *
 * Zone counters (per zone, and what the host tests check after every step):
 *     present_pages == managed_pages + reserved + offline
 * where reserved counts the PG_reserved pages of present memory in the zone
 * (boot reservations, memmap_on_memory pages) and offline the PageOffline
 * pages of online sections (what an online_page_callback such as
 * virtio-mem's keeps out of the buddy).  Hot-added memory adds to present
 * and managed at online and takes them back at offline; add and remove do
 * not touch zone counters at all.
 *
 * Nodes: add_memory() brings an offline node online (its zones initialised
 * empty, zonelists rebuilt); remove_memory() takes it offline again when no
 * memory block is left on it.  A node with boot memory keeps its early
 * blocks, so it never goes offline.
 *
 * The notifier points of Linux (MEM_GOING_ONLINE, MEM_GOING_OFFLINE) exist
 * as error injection only (memhp_inject_*_error), checked before anything
 * changes, so a failed online or offline leaves everything as it was.
 *
 * Context: (main), one hotplug operation at a time (Linux's
 * mem_hotplug_lock and device_hotplug_lock are implicit).
 */
#include <mm/memory_hotplug.h>
#include <mm/range_claim.h>
#include <mm/memremap.h>
#include <mm/sparse.h>
#include "buddy_internal.h"
#include <mm/mm_init.h>
#include <mm/page_isolation.h>
#include <mm/migrate.h>
#include "internal.h"
#include <lib/errno.h>
#include <lib/string.h>
#include <lib/printk.h>

/* The hotplug lock, [h]: memory_hotplug.h's Locks say who takes it and why. */
static struct rwsem mem_hotplug_lock = RWSEM_INIT("mem_hotplug_lock");

void mem_hotplug_begin(void)
{
	down_write(&mem_hotplug_lock);
}

void mem_hotplug_done(void)
{
	up_write(&mem_hotplug_lock);
}

void get_online_mems(void)
{
	down_read(&mem_hotplug_lock);
}

void put_online_mems(void)
{
	up_read(&mem_hotplug_lock);
}

void mem_hotplug_assert_held_at(const char *file, int line, const char *fn)
{
	if (!rwsem_write_held_here(&mem_hotplug_lock))
		lock_not_held(file, line, fn, mem_hotplug_lock.name, "held for writing");
}

const struct rwsem *mem_hotplug_lock_stats(void)
{
	return &mem_hotplug_lock;
}

static bool memmap_on_memory;	/* [m] written only by memhp_set_memmap_on_memory() */
/* hot-added memory just appears (memhp_default_state=); written only by
 * memhp_set_default_online_type() */
static enum mmop memhp_default_online_type = MMOP_ONLINE;	/* [m] */
/* written only by memhp_set_inject_going_{online,offline}_error() */
static int memhp_inject_going_online_error;	/* [m] */
static int memhp_inject_going_offline_error;	/* [m] */
struct memhp_stats memhp_stats;	/* [m] */

/* Contract in include/mm/memory_hotplug.h. */
bool memhp_get_memmap_on_memory(void)
{
	return memmap_on_memory;
}

/* Contract in include/mm/memory_hotplug.h. */
int memhp_set_memmap_on_memory(bool on)
{
	memmap_on_memory = on;
	return 0;
}

/* Contract in include/mm/memory_hotplug.h. */
int memhp_get_inject_going_online_error(void)
{
	return memhp_inject_going_online_error;
}

/* Contract in include/mm/memory_hotplug.h. */
int memhp_set_inject_going_online_error(int err)
{
	if (err < MEMHP_INJECT_ERROR_MIN || err > 0)
		return -EINVAL;
	memhp_inject_going_online_error = err;
	return 0;
}

/* Contract in include/mm/memory_hotplug.h. */
int memhp_get_inject_going_offline_error(void)
{
	return memhp_inject_going_offline_error;
}

/* Contract in include/mm/memory_hotplug.h. */
int memhp_set_inject_going_offline_error(int err)
{
	if (err < MEMHP_INJECT_ERROR_MIN || err > 0)
		return -EINVAL;
	memhp_inject_going_offline_error = err;
	return 0;
}

/* Contract in include/mm/memory_hotplug.h. */
enum mmop memhp_get_default_online_type(void)
{
	return memhp_default_online_type;
}

/* Contract in include/mm/memory_hotplug.h. */
int memhp_set_default_online_type(enum mmop type)
{
	if (type < MMOP_OFFLINE || type > MMOP_ONLINE_MOVABLE)
		return -EINVAL;
	memhp_default_online_type = type;
	return 0;
}

/* A block's memmap: 32768 struct pages of 64 bytes = 2 MiB = 512 pages. */
#define MEMMAP_PAGES_PER_BLOCK	(PAGES_PER_MEMORY_BLOCK * sizeof(struct page) / PAGE_SIZE)
_Static_assert((1UL << HOTPLUG_MEMMAP_ORDER) == MEMMAP_PAGES_PER_BLOCK,
	       "the memmap of a block is one order-9 block");
_Static_assert(MEMMAP_PAGES_PER_BLOCK == pageblock_nr_pages,
	       "memmap_on_memory needs the memmap to fill whole pageblocks");
_Static_assert(PAGES_PER_MEMORY_BLOCK == PAGES_PER_SECTION, "one block = one section");

/* ---- nodes --------------------------------------------------------------- */

/*
 * Bring nid online for memory about to be added (Linux's
 * __try_online_node): empty spans and counters, zones initialised as
 * mm_core_init() does, zonelists rebuilt.  Returns true if it was offline.
 * Context: (main), mem_hotplug_lock held for writing.
 */
static bool node_online_for_add(int nid)
{
	struct pglist_data *pgdat = NODE_DATA(nid);

	mem_hotplug_assert_held();
	if (pgdat->online)
		return false;
	pgdat->node_id = nid;
	pgdat->node_start_pfn = 0;
	pgdat->node_spanned_pages = 0;
	pgdat->node_present_pages = 0;
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		zone->zone_pgdat = pgdat;
		zone->name = zone_names[z];
		zone->idx = (enum zone_type)z;
		zone_span_write_begin(zone);
		zone_span_set(zone, 0, 0);
		zone_span_write_end(zone);
		zone->present_pages = 0;
		zone->present_early_pages = 0;
		zone->cma_pages = 0;
		zone->contiguous = false;
		zone->pages_with_online_memmap = 0;
		zone_init_free_lists(zone);
	}
	pgdat->online = true;
	build_all_zonelists();
	pr_info("memory: node %d online", nid);
	return true;
}

/*
 * Take nid offline when no memory block is left on it (a node with boot
 * memory always has its early blocks, so only nodes that hotplug brought
 * online can go).  Context: (main); takes mem_hotplug_lock.
 */
static void try_offline_node(int nid)
{
	struct pglist_data *pgdat = NODE_DATA(nid);

	mem_hotplug_begin();
	if (!pgdat->online || memory_blocks_on_node(nid)) {
		mem_hotplug_done();
		return;
	}
	MM_BUG_ON(pgdat->node_present_pages, "node %d: %lu present pages but no memory block",
		  nid, pgdat->node_present_pages);
	pgdat->online = false;
	build_all_zonelists();
	setup_per_zone_wmarks();
	pr_info("memory: node %d offline", nid);
	mem_hotplug_done();
}

/* ---- add and remove ------------------------------------------------------ */

/*
 * Section roots for the range come from memory that existed before the
 * call: pages taken here first (one per 8 GiB window without a root yet)
 * and handed to sparse_add_present() through root_alloc.  Otherwise a
 * root could land in a block this call adds and make it impossible to
 * offline again when the call has to be undone.  Unused ones go back at
 * the end of the call; a root used goes back when the last block of its
 * window is removed (root_release()).
 */
#define ROOT_POOL_SIZE	(MEMORY_BLOCKS_STATIC / SECTIONS_PER_ROOT + 2)

/* The pages one add_memory() call took for roots, on its own stack. */
struct root_pool {
	struct page *page[ROOT_POOL_SIZE];	/* [o] taken, not yet used */
	unsigned nr;				/* [o] entries in page[] */
};

/* sparse_add_present()'s root_alloc: the next page of the pool (ctx). */
static void *root_pool_alloc(void *ctx)
{
	struct root_pool *pool = ctx;
	struct page *page = pool->nr ? pool->page[--pool->nr] : NULL;

	return page ? mm_phys_to_virt(page_to_phys(page)) : NULL;
}

static void root_pool_drain(struct root_pool *pool)
{
	while (pool->nr)
		free_pages(pool->page[--pool->nr], 0);
}

static int root_pool_fill(struct root_pool *pool, u64 first_section, u64 end_section)
{
	u64 nr = first_section;

	for (; nr < end_section; nr = ALIGN_DOWN(nr, SECTIONS_PER_ROOT) + SECTIONS_PER_ROOT) {
		struct page *page;

		if (__nr_to_section(nr))
			continue;
		/* a root lives as long as its window has memory: kept
		 * metadata, out of hot-added memory if it can be */
		page = alloc_pages_kept(__GFP_ZERO | __GFP_NOWARN, 0);
		if (!page || pool->nr == ROOT_POOL_SIZE) {
			if (page)
				free_pages(page, 0);
			root_pool_drain(pool);
			return -ENOMEM;
		}
		pool->page[pool->nr++] = page;
	}
	return 0;
}

/*
 * After a block's sections stopped being present: give its section-table
 * root back to the allocator if it was taken for hot-added memory and no
 * section of its 8 GiB window is present any more.  Context: (main).
 */
static void root_release(u64 section_nr)
{
	void *root = sparse_release_root(section_nr);

	if (root)
		free_pages(pfn_to_page(PHYS_PFN(mm_virt_to_phys(root))), 0);
}

/*
 * Add one block: present sections, direct map, vmemmap backed by
 * memmap_page (NULL: by the block's own first 2 MiB, memmap_on_memory),
 * memmap poisoned, a MEM_OFFLINE block.  Returns 0, or -errno with
 * everything of this block undone except memmap_page, which stays the
 * caller's.  Context: (main), mem_hotplug_lock held for writing
 * (add_memory_block() takes it).
 */
static int add_block_locked(int nid, unsigned long block_id, struct memory_group *group,
			    struct page *memmap_page, struct root_pool *pool, struct memory_block **out)
{
	u64 start_pfn = (u64)block_id * PAGES_PER_MEMORY_BLOCK;
	u64 end_pfn = start_pfn + PAGES_PER_MEMORY_BLOCK;
	phys_addr_t start = PFN_PHYS(start_pfn);
	phys_addr_t memmap_pa = memmap_page ? page_to_phys(memmap_page) : start;
	struct memory_block *mem;
	int err;

	mem_hotplug_assert_held();
	err = sparse_add_present(start_pfn, end_pfn, nid, false, root_pool_alloc, pool);
	if (err) {
		pr_err("add_memory: block %lu at %#llx: no section table entry (error %d)", block_id,
		       (unsigned long long)start, err);
		return err;
	}
	err = mm_direct_map_add(start, MEMORY_BLOCK_SIZE);
	if (err) {
		pr_err("add_memory: block %lu at %#llx: direct map: error %d", block_id,
		       (unsigned long long)start, err);
		goto out_remove_present;
	}
	err = mm_vmemmap_populate(start_pfn, end_pfn, memmap_pa);
	if (err) {
		pr_err("add_memory: block %lu at %#llx: vmemmap: error %d", block_id,
		       (unsigned long long)start, err);
		goto out_direct_map;
	}
	sparse_set_memmap(pfn_to_section_nr(start_pfn), memmap_pa);
	memmap_poison(start_pfn, end_pfn);
	err = memory_block_create(block_id, nid, group, false, &mem);
	if (err)
		goto out_memmap;
	mem->nr_vmemmap_pages = memmap_page ? 0 : MEMMAP_PAGES_PER_BLOCK;
	memhp_stats.added_blocks++;
	memory_block_notify_added(mem);		/* memoryN/ appears */
	*out = mem;
	return 0;

out_memmap:
	sparse_clear_memmap(pfn_to_section_nr(start_pfn));
	mm_vmemmap_depopulate(start_pfn, end_pfn);
out_direct_map:
	mm_direct_map_remove(start, MEMORY_BLOCK_SIZE);
out_remove_present:
	sparse_remove_present(start_pfn, end_pfn);
	root_release(pfn_to_section_nr(start_pfn));
	return err;
}

/*
 * Remove one offline block: the reverse of add_memory_block().  The 2 MiB
 * memmap goes back to the allocator unless the block carried it itself.
 * Context: (main), mem_hotplug_lock held for writing (remove_memory_block()
 * takes it).
 */
static void remove_block_locked(struct memory_block *mem)
{
	mem_hotplug_assert_held();
	u64 start_pfn = memory_block_start_pfn(mem), end_pfn = start_pfn + PAGES_PER_MEMORY_BLOCK;
	u64 section_nr = pfn_to_section_nr(start_pfn);
	phys_addr_t memmap_pa = __nr_to_section(section_nr)->memmap_pa;
	bool self_hosted = mem->nr_vmemmap_pages != 0;
	unsigned long block_id = mem->block_id;

	memory_block_delete(mem);
	memory_block_notify_removed(block_id);	/* memoryN/ goes */
	sparse_clear_memmap(section_nr);
	mm_vmemmap_depopulate(start_pfn, end_pfn);
	if (!self_hosted)
		hotplug_memmap_free(pfn_to_page(PHYS_PFN(memmap_pa)));
	mm_direct_map_remove(PFN_PHYS(start_pfn), MEMORY_BLOCK_SIZE);
	sparse_remove_present(start_pfn, end_pfn);
	root_release(section_nr);
	memhp_stats.removed_blocks++;
}

/* One block added under mem_hotplug_lock: add_block_locked()'s contract. */
static int add_memory_block(int nid, unsigned long block_id, struct memory_group *group,
			    struct page *memmap_page, struct root_pool *pool, struct memory_block **out)
{
	int err;

	mem_hotplug_begin();
	err = add_block_locked(nid, block_id, group, memmap_page, pool, out);
	mem_hotplug_done();
	return err;
}

/* One block removed under mem_hotplug_lock: remove_block_locked()'s contract. */
static void remove_memory_block(struct memory_block *mem)
{
	mem_hotplug_begin();
	remove_block_locked(mem);
	mem_hotplug_done();
}

/*
 * Range checks shared by add and remove: memory_block_range_check(), with
 * the reason logged.  Returns 0, -EINVAL (empty or not whole blocks) or
 * -ERANGE (beyond the physical address space).  Context: (main).
 */
static int check_hotplug_range(const char *what, phys_addr_t start, u64 size)
{
	int err = memory_block_range_check(start, size);

	if (err == -EINVAL)
		pr_err("%s: [%#llx-%#llx): not aligned to the memory block size (%llu MiB)", what,
		       (unsigned long long)start, (unsigned long long)(start + size),
		       (unsigned long long)(MEMORY_BLOCK_SIZE >> 20));
	else if (err)
		pr_err("%s: [%#llx-%#llx): beyond the %d-bit physical address space", what,
		       (unsigned long long)start, (unsigned long long)(start + size), MAX_PHYSMEM_BITS);
	return err;
}

/* Auto-online the blocks [first, end) of this call, in order; failures only logged. */
static void online_added_blocks(unsigned long first, unsigned long end, enum mmop online_type)
{
	for (unsigned long id = first; id < end; id++) {
		int err = memory_block_online(find_memory_block_by_id(id), online_type);

		if (err)
			pr_warn("add_memory: block %lu left offline: online failed with error %d", id, err);
	}
}

/*
 * add_memory() - see memory_hotplug.h.  Checks first (nothing changed on
 * -EINVAL, -ERANGE, -EEXIST, -ENOSPC), then the node, then block by block.
 * Auto-online, when on, happens as in Linux after all blocks are added, so
 * that every memmap comes from memory that existed before and the range
 * can later be removed as a whole; except that when the next block's
 * memmap cannot be allocated, the blocks added so far are onlined first
 * and the allocation is tried again, so later blocks take their memmap
 * from earlier ones (the huge DIMM in a small guest).  A failed auto-online
 * leaves that block offline and is not an error, as in Linux.  On -ENOMEM
 * the blocks of this call are offlined and removed last-first (each
 * block's memmap lies in memory older than the block); a block that
 * something else now holds unmovably stays, logged.  Context: (main).
 */
int add_memory(int nid, phys_addr_t start, u64 size, int mgid, unsigned mhp_flags)
{
	enum mmop online_type = (mhp_flags & MHP_NO_AUTO_ONLINE) ? MMOP_OFFLINE :
				memhp_default_online_type;
	bool use_mom = memmap_on_memory && (mhp_flags & MHP_MEMMAP_ON_MEMORY);
	unsigned long first_block = phys_to_block_id(start), nr_blocks, added = 0, onlined = 0;
	struct memory_group *group = NULL;
	struct root_pool pool = { .nr = 0 };	/* 1 KiB: roots for this call */
	struct memory_block *mem;
	int err;

	err = check_hotplug_range("add_memory", start, size);
	if (err)
		return err;
	if (range_claim_check(PHYS_PFN(start), PHYS_PFN(start + size)))
		return -EBUSY;	/* another holder changes this memory: range_claim.h */
	nr_blocks = (unsigned long)(size / MEMORY_BLOCK_SIZE);
	if (nid < 0 || nid >= MAX_NUMNODES) {
		pr_err("add_memory: node %d does not exist", nid);
		return -EINVAL;
	}
	if (mgid != -1) {
		group = memory_group_find_by_id(mgid);
		if (!group || group->nid != nid) {
			pr_err("add_memory: memory group %d %s", mgid,
			       group ? "belongs to another node" : "does not exist");
			return -EINVAL;
		}
	}
	for (unsigned long i = 0; i < nr_blocks; i++)
		if (present_section(__nr_to_section(first_block + i))) {
			pr_err("add_memory: [%#llx-%#llx): section %lu is already present",
			       (unsigned long long)start, (unsigned long long)(start + size),
			       first_block + i);
			return -EEXIST;
		}
	if (nr_blocks > MEMORY_BLOCKS_STATIC) {
		/* the section roots of one call are taken beforehand, on its stack */
		pr_err("add_memory: [%#llx-%#llx): %lu blocks in one call, at most %u (%u GiB)",
		       (unsigned long long)start, (unsigned long long)(start + size), nr_blocks,
		       MEMORY_BLOCKS_STATIC, (unsigned)(MEMORY_BLOCKS_STATIC * (MEMORY_BLOCK_SIZE >> 20) >> 10));
		return -E2BIG;
	}
	if (nr_blocks > memory_blocks_free_slots()) {
		pr_err("add_memory: %lu blocks, only %lu free memory block slots", nr_blocks,
		       memory_blocks_free_slots());
		return -ENOSPC;
	}
	if (root_pool_fill(&pool, first_block, first_block + nr_blocks)) {
		pr_err("add_memory: no memory for the section table");
		return -ENOMEM;
	}
	mem_hotplug_begin();
	node_online_for_add(nid);
	mem_hotplug_done();

	/* Invariant: blocks [first, first + added) exist; [first, first + onlined) were auto-onlined. */
	for (; added < nr_blocks; added++) {
		unsigned long id = first_block + added;
		struct page *memmap_page = NULL;

		if (!use_mom) {
			memmap_page = hotplug_memmap_alloc(nid, id);
			if (!memmap_page && online_type != MMOP_OFFLINE && onlined < added) {
				online_added_blocks(first_block + onlined, id, online_type);
				onlined = added;
				memmap_page = hotplug_memmap_alloc(nid, id);
			}
			if (!memmap_page) {
				pr_err("add_memory: block %lu at %#llx: no memory for its 2 MiB memmap (enable memmap_on_memory or online blocks as they are added)",
				       id, (unsigned long long)PFN_PHYS((u64)id * PAGES_PER_MEMORY_BLOCK));
				err = -ENOMEM;
				goto undo;
			}
		}
		err = add_memory_block(nid, id, group, memmap_page, &pool, &mem);
		if (err) {
			if (memmap_page)
				hotplug_memmap_free(memmap_page);
			goto undo;
		}
	}
	if (online_type != MMOP_OFFLINE)
		online_added_blocks(first_block + onlined, first_block + added, online_type);
	root_pool_drain(&pool);
	pr_info("add_memory: [mem %#llx-%#llx] node %d: %lu blocks%s", (unsigned long long)start,
		(unsigned long long)(start + size - 1), nid, nr_blocks,
		use_mom ? ", memmap on memory" : "");
	return 0;

undo:
	while (added--) {
		mem = find_memory_block_by_id(first_block + added);
		if (mem->state == MEM_ONLINE && memory_block_offline(mem)) {
			pr_err("add_memory: block %lu cannot be offlined again; it stays", mem->block_id);
			continue;
		}
		remove_memory_block(mem);
	}
	root_pool_drain(&pool);
	try_offline_node(nid);
	return err;
}

/*
 * Every block of [start, start+size) exists and is hot-added memory?
 * -EINVAL with the reason logged otherwise.
 */
static int check_removable_range(const char *what, phys_addr_t start, u64 size)
{
	unsigned long first_block = phys_to_block_id(start);
	int err = check_hotplug_range(what, start, size);

	if (err)
		return err;
	for (unsigned long i = 0; i < size / MEMORY_BLOCK_SIZE; i++) {
		struct memory_block *mem = find_memory_block_by_id(first_block + i);

		if (!mem || mem->early) {
			pr_err("%s: [%#llx-%#llx): memory block %lu %s", what, (unsigned long long)start,
			       (unsigned long long)(start + size), first_block + i,
			       mem ? "is boot memory, which cannot be removed" : "does not exist");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * remove_memory() and remove_memory_quiet() - see memory_hotplug.h:
 * -EINVAL (bad range, missing or boot blocks), -EBUSY (a block is not
 * offline); nothing changed on error.  Nodes left without blocks go
 * offline.  log: the one line saying what was removed.  Context: (main).
 */
static int remove_memory_range(phys_addr_t start, u64 size, bool log)
{
	unsigned long first_block = phys_to_block_id(start), nr_blocks;
	bool nodes[MAX_NUMNODES] = { false };
	int err = check_removable_range("remove_memory", start, size);

	if (err)
		return err;
	if (range_claim_check(PHYS_PFN(start), PHYS_PFN(start + size)))
		return -EBUSY;	/* another holder changes this memory: range_claim.h */
	if (devmem_intersects(PHYS_PFN(start), PHYS_PFN(size))) {
		pr_err("remove_memory: [mem %#llx-%#llx] is in use as device memory (devmem destroy it first)",
		       (unsigned long long)start, (unsigned long long)(start + size - 1));
		return -EBUSY;
	}
	nr_blocks = (unsigned long)(size / MEMORY_BLOCK_SIZE);
	for (unsigned long i = 0; i < nr_blocks; i++) {
		struct memory_block *mem = find_memory_block_by_id(first_block + i);

		if (mem->state != MEM_OFFLINE) {
			pr_err("remove_memory: memory block %lu is not offline", mem->block_id);
			return -EBUSY;
		}
	}
	for (unsigned long i = 0; i < nr_blocks; i++) {
		struct memory_block *mem = find_memory_block_by_id(first_block + i);

		nodes[mem->nid] = true;
		remove_memory_block(mem);
	}
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (nodes[nid])
			try_offline_node(nid);
	if (log)
		remove_memory_log(start, nr_blocks);
	return 0;
}

/* Contract in mm/internal.h. */
void remove_memory_log(phys_addr_t start, unsigned long nr_blocks)
{
	pr_info("remove_memory: [mem %#llx-%#llx]: %lu blocks", (unsigned long long)start,
		(unsigned long long)(start + (u64)nr_blocks * MEMORY_BLOCK_SIZE - 1), nr_blocks);
}

int remove_memory(phys_addr_t start, u64 size)
{
	return remove_memory_range(start, size, true);
}

int remove_memory_quiet(phys_addr_t start, u64 size)
{
	return remove_memory_range(start, size, false);
}

/*
 * Does a block of [start, start+size) keep its memmap in ANOTHER block of
 * the same range?  That happens when a range far larger than free memory
 * was added with auto-online: later blocks took their 2 MiB memmaps from
 * blocks onlined just before (add_memory).  Offlined bottom-up, each block
 * would first have to migrate the next one's memmap (hotplug_memmap.c),
 * often into the block above, which would migrate it again: top-down
 * frees each memmap instead of moving it.  Context: (main).
 */
static bool range_memmaps_nested(phys_addr_t start, u64 size)
{
	for (u64 nr = pfn_to_section_nr(PHYS_PFN(start));
	     nr < pfn_to_section_nr(PHYS_PFN(start + size)); nr++) {
		const struct mem_section *ms = __nr_to_section(nr);
		phys_addr_t own = PFN_PHYS(section_nr_to_pfn(nr));

		if (ms && ms->memmap_pa >= start && ms->memmap_pa < start + size &&
		    (ms->memmap_pa < own || ms->memmap_pa >= own + MEMORY_BLOCK_SIZE))
			return true;
	}
	return false;
}

/*
 * The nested case, top-down, as one struct memory_removal on the stack:
 * offline and remove the highest block first (its memmap, in the block
 * below, goes back to the buddy), then the next.  If a block refuses to go
 * offline, the blocks above it, already removed, are added and onlined
 * again with their old online types (their pages were all free after
 * offlining, so nothing is lost) and the error is returned: the range is
 * whole again, as the caller expects.  Context: (main).
 */
static int offline_and_remove_top_down(phys_addr_t start, u64 size)
{
	struct memory_block *mem = find_memory_block_by_id(phys_to_block_id(start));
	struct memory_removal removal;
	int err;

	err = memory_removal_begin(&removal, "offline_and_remove_memory", start, size, mem->nid,
				   mem->group ? mem->group->id : -1, MHP_NONE);
	while (!err)
		err = memory_removal_step(&removal);
	if (err > 0)
		return 0;
	memory_removal_rollback(&removal);	/* failures logged with the block */
	return err;
}

/*
 * The usual case, bottom-up: offline the online blocks of the range in
 * order, then remove_memory() the whole range.  If a block refuses, the
 * blocks this call offlined are onlined again (with their previous online
 * type, still on the block) and its error is returned; nothing was removed.
 * Which blocks those are is kept in a bitmap on this frame, one bit per
 * block of the range: the range's blocks all exist (check_removable_range()),
 * and offline_and_remove_memory() sends ranges of more than
 * MEMORY_BLOCKS_STATIC blocks top-down, so there are at most that many (1
 * KiB of a 32 KiB stack).
 * Context: (main).
 */
static int offline_and_remove_bottom_up(phys_addr_t start, u64 size)
{
	unsigned long first_block = phys_to_block_id(start);
	unsigned long nr_blocks = (unsigned long)(size / MEMORY_BLOCK_SIZE);
	u64 offlined_here[MEMORY_BLOCKS_STATIC / 64] = { 0 };
	unsigned long i;
	int err = 0;

	MM_BUG_ON(nr_blocks > MEMORY_BLOCKS_STATIC, "%lu blocks, more than the bitmap holds", nr_blocks);
	for (i = 0; i < nr_blocks; i++) {
		struct memory_block *mem = find_memory_block_by_id(first_block + i);

		if (mem->state == MEM_OFFLINE)
			continue;
		err = memory_block_offline(mem);
		if (err)
			break;
		offlined_here[i / 64] |= 1ULL << (i % 64);
	}
	if (!err)
		return remove_memory(start, size);

	for (unsigned long j = 0; j < i; j++) {	/* the blocks below the one that refused */
		struct memory_block *mem;

		if (!(offlined_here[j / 64] & (1ULL << (j % 64))))
			continue;
		mem = find_memory_block_by_id(first_block + j);
		if (memory_block_online(mem, mem->online_type))
			pr_err("offline_and_remove_memory: memory block %lu could not be onlined again",
			       mem->block_id);
	}
	return err;
}

/*
 * offline_and_remove_memory() - offline the online blocks of the range in
 * order (top-down, offline_and_remove_top_down(), if their memmaps are
 * nested); if one fails, online again (with their previous online type)
 * the ones this call offlined and return its error; then remove_memory().
 * Context: (main).
 */
int offline_and_remove_memory(phys_addr_t start, u64 size)
{
	int err = check_removable_range("offline_and_remove_memory", start, size);

	if (err)
		return err;
	/* nested memmaps, or more blocks than the bottom-up bitmap holds */
	if (range_memmaps_nested(start, size) || size / MEMORY_BLOCK_SIZE > MEMORY_BLOCKS_STATIC)
		return offline_and_remove_top_down(start, size);
	return offline_and_remove_bottom_up(start, size);
}

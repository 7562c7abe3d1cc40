/*
 * memory_block.c - memory blocks and memory groups: how hotpluggable memory
 * is described, looked up and counted (Linux's linux/drivers/base/memory.c).
 *
 * A memory block is MEMORY_BLOCK_SIZE (128 MiB, one section) of memory that
 * is onlined and offlined as a whole; /sys/devices/system/memory/memoryN is
 * block N, whose memory starts at N * 128 MiB.  Blocks live in a pool of
 * slots sized from the firmware's map at boot (memory_blocks_size_pool():
 * one slot per 128 MiB up to the end of boot RAM or of the highest SRAT
 * hotplug range, whichever is higher), at least MEMORY_BLOCKS_STATIC, which
 * a static pool provides without any allocation.  Lookups by id go through
 * block_index[], the slots of the existing blocks sorted by block_id: a
 * binary search, at most 13 steps for 8192 blocks (16 for 65536), and the
 * same array gives the blocks in id order for memory_block_next().  Creating
 * or deleting a block shifts the index (a memmove of 4 bytes per later
 * block), which happens once per 128 MiB added or removed, and blocks are
 * mostly added in id order (no shift), so it costs nothing next to
 * initialising 32768 struct pages.
 *
 * Block states and their counters.  The state machine is drawn in
 * memory_hotplug.h; the legal transitions are
 *
 *	(created)          -> MEM_OFFLINE
 *	MEM_OFFLINE        -> MEM_ONLINE          online done
 *	MEM_ONLINE         -> MEM_GOING_OFFLINE   offline starts
 *	MEM_GOING_OFFLINE  -> MEM_OFFLINE         offline done
 *	MEM_GOING_OFFLINE  -> MEM_ONLINE          offline failed, undone
 *	MEM_OFFLINE        -> (deleted)
 *
 * and memory_block_set_state() refuses anything else.  Every block is
 * counted in nr_memory_blocks_in_state[] under its state; the array is
 * written only by block_state_count(), so "the counters equal a recount of
 * the pool" holds by construction, and a count that would go below zero is
 * a bug caught on the spot (virtio_mem.c's virtio_mem_sbm_set_mb_state()
 * is the model).
 *
 * Memory groups describe the device a block came from, for the auto-movable
 * online policy: a static group is a device plugged whole (a DIMM, with its
 * size), a dynamic group grows and shrinks in units (virtio-mem).  Each
 * group keeps how many of its pages are online in kernel zones and in
 * ZONE_MOVABLE; memory_online.c updates those counters when it onlines and
 * offlines.  A group can be unregistered once no block refers to it.
 *
 * Context: (main), one hotplug operation at a time; memory_blocks_init_boot()
 * at (boot).
 */
#include <mm/memory_hotplug.h>
#include "internal.h"
#include <mm/sparse.h>
#include <lib/errno.h>
#include <lib/string.h>
#include <lib/printk.h>

unsigned long nr_memory_blocks_in_state[NR_MEM_STATES];	/* [h] */

/* The static pool, used until (and unless) the map asks for more. */
static struct memory_block static_pool[MEMORY_BLOCKS_STATIC];	/* [h] */
static u32 static_index[MEMORY_BLOCKS_STATIC];	/* [h] */
static u32 static_free[MEMORY_BLOCKS_STATIC];	/* [h] */

static struct memory_block *block_pool = static_pool;	/* [c] the slots, pool_size of them */
static u32 *block_index = static_index;	/* [h] slots of existing blocks, by block_id */
static u32 *free_slots = static_free;	/* [h] stack of released slots */
static u32 pool_size = MEMORY_BLOCKS_STATIC;	/* [c] slots in the pool */
static unsigned long nr_blocks;		/* [h] entries used in block_index[] */
static unsigned nr_free_slots;			/* [h] entries on that stack */
static unsigned pool_high_water;		/* [h] slots [high_water, pool_size) never used */
static unsigned long blocks_on_node[MAX_NUMNODES];	/* [h] */

static struct memory_group groups[MAX_MEMORY_GROUPS];	/* [m] registered with no lock; each field says */
unsigned nr_dynamic_memory_groups;		/* [m] registered dynamic groups (memory_hotplug.h) */
static char group_names[MAX_MEMORY_GROUPS][32];	/* [m] */
static unsigned long blocks_in_group[MAX_MEMORY_GROUPS];	/* [h] */


static const char *const state_names[NR_MEM_STATES] = {
	[MEM_OFFLINE] = "offline",
	[MEM_ONLINE] = "online",
	[MEM_GOING_OFFLINE] = "going-offline",
};

/* Contract in memory_hotplug.h. */
const char *memory_block_state_name(enum memory_block_state state)
{
	return (unsigned)state < NR_MEM_STATES ? state_names[state] : NULL;
}

/* ---- online types -------------------------------------------------------- */

const char *const mmop_names[NR_MMOP] = {
	[MMOP_OFFLINE] = "offline",
	[MMOP_ONLINE] = "online",
	[MMOP_ONLINE_KERNEL] = "online_kernel",
	[MMOP_ONLINE_MOVABLE] = "online_movable",
};

/*
 * mmop_from_string() - the online type a word names, as Linux's
 * mhp_online_type_from_str(): one of the four words exactly, a single
 * trailing newline allowed (what `echo online > state` writes).  Returns
 * the mmop, or -EINVAL.  Context: (any).
 */
int mmop_from_string(const char *s, size_t len)
{
	if (len && s[len - 1] == '\n')
		len--;
	for (unsigned i = 0; i < ARRAY_SIZE(mmop_names); i++)
		if (strlen(mmop_names[i]) == len && !strncmp(s, mmop_names[i], len))
			return (int)i;
	return -EINVAL;
}

const char *mmop_name(enum mmop type)
{
	return (unsigned)type < ARRAY_SIZE(mmop_names) ? mmop_names[type] : "invalid";
}

/* ---- the block pool ------------------------------------------------------ */

/*
 * The one writer of nr_memory_blocks_in_state[]: a block enters (delta 1)
 * or leaves (delta -1) a state.  Context: (main)/(boot).
 */
/* Bumped by every block_state_count(): any block created, removed, onlined
 * or offlined (memory_blocks_generation()). */
static u64 blocks_generation;	/* [h] */

static void block_state_count(enum memory_block_state state, int delta)
{
	MM_BUG_ON((unsigned)state >= NR_MEM_STATES, "state %d", state);
	MM_BUG_ON(delta < 0 && !nr_memory_blocks_in_state[state],
		  "no block is %s, yet one leaves that state", state_names[state]);
	nr_memory_blocks_in_state[state] += (unsigned long)(long)delta;
	blocks_generation++;
}

u64 memory_blocks_generation(void)
{
	return blocks_generation;
}

/* May a block go from old to new?  The table at the top of this file. */
static bool state_change_allowed(enum memory_block_state old, enum memory_block_state new)
{
	switch (old) {
	case MEM_OFFLINE:
		return new == MEM_ONLINE;
	case MEM_ONLINE:
		return new == MEM_GOING_OFFLINE;
	case MEM_GOING_OFFLINE:
		return new == MEM_OFFLINE || new == MEM_ONLINE;
	default:
		return false;
	}
}

/*
 * memory_block_set_state() - move mem to state, keeping the per-state
 * counters in step.  An illegal transition is a bug in the hotplug core
 * and stops the machine with the block and both states.  Context: (main),
 * mem->lock and mem_hotplug_lock (for writing) held.
 */
void memory_block_set_state(struct memory_block *mem, enum memory_block_state state)
{
	mutex_assert_held(&mem->lock);
	mem_hotplug_assert_held();	/* the per-state counts span every block */
	MM_BUG_ON(!mem->in_use, "memory block %lu is not in the pool", mem->block_id);
	MM_BUG_ON(!state_change_allowed(mem->state, state), "memory block %lu: %s -> %s",
		  mem->block_id, state_names[mem->state],
		  (unsigned)state < NR_MEM_STATES ? state_names[state] : "?");
	block_state_count(mem->state, -1);
	block_state_count(state, 1);
	mem->state = state;
}

/* Position in block_index[] of the first block whose id is >= block_id. */
static unsigned index_lower_bound(unsigned long block_id)
{
	unsigned lo = 0, hi = (unsigned)nr_blocks;

	/* Invariant: ids before lo are < block_id, ids from hi on are >= it. */
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (block_pool[block_index[mid]].block_id < block_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * find_memory_block_by_id() - the block with this id, or NULL.  A binary
 * search of block_index[].  Context: (main).
 */
struct memory_block *find_memory_block_by_id(unsigned long block_id)
{
	unsigned pos = index_lower_bound(block_id);

	if (pos < nr_blocks && block_pool[block_index[pos]].block_id == block_id)
		return &block_pool[block_index[pos]];
	return NULL;
}

/*
 * memmap_on_memory_block_of() - the block whose own memmap lives at pfn
 * (memmap_on_memory: the first nr_vmemmap_pages of the block hold its
 * struct pages), or NULL when pfn is no such page.  Context: (main).
 */
struct memory_block *memmap_on_memory_block_of(u64 pfn)
{
	struct memory_block *mem = find_memory_block_by_id(pfn_to_block_id(pfn));

	return mem && pfn % PAGES_PER_MEMORY_BLOCK < mem->nr_vmemmap_pages ? mem : NULL;
}

/*
 * memory_block_next() - the existing block with the smallest id >=
 * *block_id, whose id is stored in *block_id; NULL when there is none.
 * Loop as:  for (id = 0; (mem = memory_block_next(&id)); id++).
 * Context: (main).
 */
struct memory_block *memory_block_next(unsigned long *block_id)
{
	unsigned pos = index_lower_bound(*block_id);
	struct memory_block *mem;

	if (pos >= nr_blocks)
		return NULL;
	mem = &block_pool[block_index[pos]];
	*block_id = mem->block_id;
	return mem;
}

unsigned long memory_blocks_on_node(int nid)
{
	return nid >= 0 && nid < MAX_NUMNODES ? blocks_on_node[nid] : 0;
}

unsigned long memory_blocks_free_slots(void)
{
	return pool_size - nr_blocks;
}

/* Contract in internal.h. */
int memory_block_range_check(phys_addr_t start, u64 size)
{
	if (!size || !IS_ALIGNED(start, MEMORY_BLOCK_SIZE) || !IS_ALIGNED(size, MEMORY_BLOCK_SIZE))
		return -EINVAL;
	if (start + size < start || start + size > (1ULL << MAX_PHYSMEM_BITS))
		return -ERANGE;
	return 0;
}

/*
 * memory_block_create() - take a free slot, fill in id, node, group and
 * the MEM_OFFLINE state, and insert it in the index.  The caller fills in
 * the rest (nr_vmemmap_pages, zone when onlining).  Returns 0, -EEXIST or
 * -ENOSPC, with nothing changed on error.  Context: (main)/(boot).
 */
int memory_block_create(unsigned long block_id, int nid, struct memory_group *group, bool early,
			struct memory_block **out)
{
	unsigned pos = index_lower_bound(block_id);
	struct memory_block *mem;
	unsigned slot;

	MM_BUG_ON(nid < 0 || nid >= MAX_NUMNODES, "memory block %lu: node %d", block_id, nid);
	if (pos < nr_blocks && block_pool[block_index[pos]].block_id == block_id)
		return -EEXIST;
	if (nr_free_slots)
		slot = free_slots[--nr_free_slots];
	else if (pool_high_water < pool_size)
		slot = pool_high_water++;
	else
		return -ENOSPC;

	mem = &block_pool[slot];
	memset(mem, 0, sizeof(*mem));
	mutex_init(&mem->lock, "memory block lock");
	mem->block_id = block_id;
	mem->state = MEM_OFFLINE;
	mem->nid = nid;
	mem->online_type = MMOP_OFFLINE;
	mem->group = group;
	mem->early = early;
	mem->in_use = true;
	block_state_count(MEM_OFFLINE, 1);

	memmove(&block_index[pos + 1], &block_index[pos], (nr_blocks - pos) * sizeof(block_index[0]));
	block_index[pos] = slot;
	nr_blocks++;
	blocks_on_node[nid]++;
	if (group)
		blocks_in_group[group->id]++;
	*out = mem;
	return 0;
}

/*
 * memory_block_delete() - remove an offline block from the index and give
 * its slot back.  Context: (main).
 */
void memory_block_delete(struct memory_block *mem)
{
	unsigned pos = index_lower_bound(mem->block_id);
	unsigned slot = (unsigned)(mem - block_pool);

	MM_BUG_ON(!mem->in_use || mem->state != MEM_OFFLINE, "memory block %lu: in_use %d state %s",
		  mem->block_id, mem->in_use, state_names[mem->state]);
	MM_BUG_ON(pos >= nr_blocks || block_index[pos] != slot, "memory block %lu is not indexed",
		  mem->block_id);
	memmove(&block_index[pos], &block_index[pos + 1], (nr_blocks - pos - 1) * sizeof(block_index[0]));
	nr_blocks--;
	block_state_count(MEM_OFFLINE, -1);
	MM_BUG_ON(!blocks_on_node[mem->nid], "node %d has no blocks", mem->nid);
	blocks_on_node[mem->nid]--;
	if (mem->group) {
		MM_BUG_ON(!blocks_in_group[mem->group->id], "group %d has no blocks", mem->group->id);
		blocks_in_group[mem->group->id]--;
	}
	mem->in_use = false;
	free_slots[nr_free_slots++] = slot;
}

/* ---- memory groups ------------------------------------------------------- */

/* Take a free group slot and fill in what both kinds share; -errno if none. */
static int memory_group_register(int nid, bool is_dynamic, const char *name)
{
	if (nid < 0 || nid >= MAX_NUMNODES)
		return -EINVAL;
	for (int id = 0; id < MAX_MEMORY_GROUPS; id++) {
		struct memory_group *group = &groups[id];

		if (group->in_use)
			continue;
		memset(group, 0, sizeof(*group));
		group->id = id;
		group->nid = nid;
		group->is_dynamic = is_dynamic;
		group->in_use = true;
		strlcpy(group_names[id], name ? name : "", sizeof(group_names[id]));
		group->name = group_names[id];
		blocks_in_group[id] = 0;
		return id;
	}
	return -ENOSPC;
}

/*
 * memory_group_register_static() - a device added whole, of max_pages
 * pages (a DIMM).  memory_group_register_dynamic() - a device that grows
 * in units of unit_pages, a power of two of at least one memory block
 * (virtio-mem), as Linux requires.  The name is copied (31 characters
 * kept).  Return the group id, -EINVAL or -ENOSPC.  Context: (main).
 */
int memory_group_register_static(int nid, unsigned long max_pages, const char *name)
{
	int id;

	if (!max_pages)
		return -EINVAL;
	id = memory_group_register(nid, false, name);
	if (id >= 0)
		groups[id].s.max_pages = max_pages;
	return id;
}

int memory_group_register_dynamic(int nid, unsigned long unit_pages, const char *name)
{
	int id;

	if (!unit_pages || (unit_pages & (unit_pages - 1)) || unit_pages < PAGES_PER_MEMORY_BLOCK)
		return -EINVAL;
	id = memory_group_register(nid, true, name);
	if (id >= 0) {
		groups[id].d.unit_pages = unit_pages;
		nr_dynamic_memory_groups++;
	}
	return id;
}

void memory_group_set_ops(int mgid, const struct memory_group_ops *ops, void *owner)
{
	struct memory_group *group = memory_group_find_by_id(mgid);

	MM_BUG_ON(!group, "no memory group %d", mgid);
	group->ops = ops;
	group->owner = owner;
}

/* memory_group_unregister() - 0, -EINVAL (no such group), -EBUSY (blocks left). */
int memory_group_unregister(int mgid)
{
	struct memory_group *group = memory_group_find_by_id(mgid);

	if (!group)
		return -EINVAL;
	if (blocks_in_group[mgid])
		return -EBUSY;
	if (group->is_dynamic)
		nr_dynamic_memory_groups--;
	group->in_use = false;
	return 0;
}

/*
 * memory_group_next_dynamic() - the registered dynamic group with the
 * smallest id >= *mgid (and *mgid set to it), or NULL.  With no dynamic
 * group registered it returns at once: the auto-movable check walks the
 * dynamic groups on every decision.  Context: (main).
 */
struct memory_group *memory_group_next_dynamic(int *mgid)
{
	if (!nr_dynamic_memory_groups)
		return NULL;
	for (int id = *mgid; id >= 0 && id < MAX_MEMORY_GROUPS; id++)
		if (groups[id].in_use && groups[id].is_dynamic) {
			*mgid = id;
			return &groups[id];
		}
	return NULL;
}

struct memory_group *memory_group_find_by_id(int mgid)
{
	if (mgid < 0 || mgid >= MAX_MEMORY_GROUPS || !groups[mgid].in_use)
		return NULL;
	return &groups[mgid];
}

/* ---- boot memory --------------------------------------------------------- */

/*
 * Which zone of nid holds most of [start_pfn, end_pfn)?  Boot zone spans do
 * not overlap, so the intersection of each span with the block says it.
 * *mixed is set when more than one zone span meets the block: Linux's
 * early_node_zone_for_memory_block() then gives no zone at all.
 */
static struct zone *early_block_zone(int nid, u64 start_pfn, u64 end_pfn, bool *mixed)
{
	struct zone *best = NULL;
	u64 best_pages = 0;
	int zones = 0;

	for (int z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &NODE_DATA(nid)->node_zones[z];
		u64 s = MAX(start_pfn, (u64)zone->zone_start_pfn);
		u64 e = MIN(end_pfn, (u64)zone_end_pfn(zone));

		if (zone_is_empty(zone) || s >= e)
			continue;
		zones++;
		if (e - s > best_pages) {
			best = zone;
			best_pages = e - s;
		}
	}
	*mixed = zones > 1;
	return best;
}

/* Contract in memory_hotplug.h. */
int memory_blocks_size_pool(u64 blocks, void *(*alloc)(u64 bytes))
{
	u64 bytes;
	u8 *mem;

	if (blocks <= MEMORY_BLOCKS_STATIC) {
		block_pool = static_pool;
		block_index = static_index;
		free_slots = static_free;
		pool_size = MEMORY_BLOCKS_STATIC;
		return 0;
	}
	if (blocks > MEMORY_BLOCKS_MAX)
		return -E2BIG;
	bytes = blocks * (sizeof(struct memory_block) + 2 * sizeof(u32));
	mem = alloc(bytes);
	if (!mem) {
		pr_warn("memory: no %llu KiB for a pool of %llu memory blocks; %u blocks at most",
			(unsigned long long)(bytes >> 10), (unsigned long long)blocks,
			MEMORY_BLOCKS_STATIC);
		return -ENOMEM;
	}
	block_pool = (struct memory_block *)mem;
	block_index = (u32 *)(mem + blocks * sizeof(struct memory_block));
	free_slots = block_index + blocks;
	pool_size = (u32)blocks;
	pr_info("memory: a pool of %llu memory blocks (%llu GiB) from the map, %llu KiB",
		(unsigned long long)blocks, (unsigned long long)(blocks * MEMORY_BLOCK_SIZE >> 30),
		(unsigned long long)(bytes >> 10));
	return 0;
}

/* Contract in memory_hotplug.h. */
u64 memory_blocks_pool_size(void)
{
	return pool_size;
}

/*
 * The boot blocks' zones, a run at a time: early_block_zone() of one block
 * and the stretch of pfns around it where that answer holds for every
 * block (inside the zone's span, clear of every other zone's span of the
 * node), so the next blocks of the run take it without looking at the
 * zones again.
 */
struct zone_run {
	int nid;		/* [c] the node of the stretch */
	u64 lo, hi;		/* [c] blocks inside [lo, hi) get zone, not mixed */
	struct zone *zone;	/* [c] NULL: no stretch yet */
};

static struct zone *boot_block_zone(struct zone_run *run, int nid, u64 start, u64 end, bool *mixed)
{
	struct zone *best;

	if (run->zone && run->nid == nid && start >= run->lo && end <= run->hi) {
		*mixed = false;
		return run->zone;
	}
	best = early_block_zone(nid, start, end, mixed);
	run->zone = NULL;
	if (!best || *mixed)
		return best;
	run->nid = nid;
	run->lo = best->zone_start_pfn;
	run->hi = zone_end_pfn(best);
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *other = &NODE_DATA(nid)->node_zones[z];

		if (other == best || zone_is_empty(other))
			continue;
		if (zone_end_pfn(other) <= start)
			run->lo = MAX(run->lo, (u64)zone_end_pfn(other));
		else if (other->zone_start_pfn >= end)
			run->hi = MIN(run->hi, (u64)other->zone_start_pfn);
	}
	run->zone = best;
	return best;
}

/*
 * memory_blocks_init_boot() - see memory_hotplug.h.  Starting from an empty
 * pool also lets the host tests boot a simulated machine many times.
 *
 * The boot's blocks are made in one pass, in id order into the empty
 * pool: slot i is the i-th block and index entry i, each block online
 * from the start, and the per-state, per-node counters added once at the
 * end under mem_hotplug_lock.  That is what memory_block_create() and
 * memory_block_set_state(MEM_ONLINE) per block gave (tests/host/
 * test_memory_blocks_boot.c compares the two), without a binary search,
 * a lock and a state change per block: 32768 blocks (4 TiB) took some
 * 120 ms under TCG that way.  The slots of the pool past the blocks made
 * are not cleared: memory_block_create() clears a slot when it takes it.
 */
void memory_blocks_init_boot(void)
{
	struct zone_run run = { .zone = NULL };
	unsigned long online = 0;
	u64 nr = 0;

	memset(nr_memory_blocks_in_state, 0, sizeof(nr_memory_blocks_in_state));
	memset(block_pool, 0, (size_t)MIN(pool_high_water, pool_size) * sizeof(block_pool[0]));
	memset(blocks_on_node, 0, sizeof(blocks_on_node));
	memset(groups, 0, sizeof(groups));
	nr_dynamic_memory_groups = 0;
	memset(blocks_in_group, 0, sizeof(blocks_in_group));
	nr_blocks = nr_free_slots = pool_high_water = 0;
	memset(&memhp_stats, 0, sizeof(memhp_stats));

	mem_hotplug_begin();
	for (; sparse_next_present(&nr); nr++) {
		struct mem_section *ms = __nr_to_section(nr);
		u64 start_pfn = section_nr_to_pfn(nr);
		struct memory_block *mem;
		bool mixed;

		MM_BUG_ON(ms->nid < 0 || ms->nid >= MAX_NUMNODES, "memory block %llu: node %d",
			  (unsigned long long)nr, ms->nid);
		if (pool_high_water == pool_size) {
			pr_warn("memory: no block for boot section %llu (pool of %u full)",
				(unsigned long long)nr, pool_size);
			break;
		}
		mem = &block_pool[pool_high_water];
		memset(mem, 0, sizeof(*mem));
		mutex_init(&mem->lock, "memory block lock");
		mem->block_id = (unsigned long)nr;
		mem->nid = ms->nid;
		mem->early = true;
		mem->in_use = true;
		mem->zone = boot_block_zone(&run, ms->nid, start_pfn, start_pfn + PAGES_PER_SECTION,
					    &mixed);
		mem->zones_mixed = mixed;
		mem->online_type = mem->zone && mem->zone->idx == ZONE_MOVABLE ?
				   MMOP_ONLINE_MOVABLE : MMOP_ONLINE_KERNEL;
		mem->state = MEM_ONLINE;
		block_index[nr_blocks++] = pool_high_water++;
		blocks_on_node[ms->nid]++;
		online++;
	}
	nr_memory_blocks_in_state[MEM_ONLINE] = online;
	blocks_generation++;
	mem_hotplug_done();
	pr_info("memory: %lu boot memory blocks of %llu MiB", nr_blocks,
		(unsigned long long)(MEMORY_BLOCK_SIZE >> 20));
}

/* ---- views --------------------------------------------------------------- */

/*
 * memory_block_valid_zones() - Linux's show_valid_zones(): an online block
 * shows its zone ("none" if it spans two); an offline one the zone
 * MMOP_ONLINE would choose, then those of online_kernel and online_movable
 * when they differ from it.  No trailing newline.  Context: (main).
 */
void memory_block_valid_zones(struct memory_block *mem, struct printer *p)
{
	u64 start_pfn = memory_block_start_pfn(mem);
	struct zone *def, *zone;

	if (mem->state != MEM_OFFLINE) {
		pr_puts(p, mem->zones_mixed || !mem->zone ? "none" : mem->zone->name);
		return;
	}
	def = zone_for_pfn_range(MMOP_ONLINE, mem->nid, mem->group, start_pfn, PAGES_PER_MEMORY_BLOCK);
	pr_puts(p, def->name);
	zone = zone_for_pfn_range(MMOP_ONLINE_KERNEL, mem->nid, mem->group, start_pfn,
				  PAGES_PER_MEMORY_BLOCK);
	if (zone != def)
		pr_printf(p, " %s", zone->name);
	zone = zone_for_pfn_range(MMOP_ONLINE_MOVABLE, mem->nid, mem->group, start_pfn,
				  PAGES_PER_MEMORY_BLOCK);
	if (zone != def)
		pr_printf(p, " %s", zone->name);
}

/* Do a and b belong on one line of the dump (lsmem's merging rule)? */
static bool blocks_alike(const struct memory_block *a, const struct memory_block *b)
{
	return a->block_id + 1 == b->block_id && a->state == b->state && a->nid == b->nid &&
	       a->zone == b->zone && a->zones_mixed == b->zones_mixed && a->group == b->group &&
	       a->early == b->early &&
	       a->nr_vmemmap_pages == b->nr_vmemmap_pages;
}

static void dump_block_run(struct printer *p, const struct memory_block *first,
			   const struct memory_block *last)
{
	u64 start = (u64)first->block_id * MEMORY_BLOCK_SIZE;
	u64 end = ((u64)last->block_id + 1) * MEMORY_BLOCK_SIZE;

	pr_printf(p, "0x%012llx-0x%012llx %6llu MiB %5lu-%-5lu %-13s %4d %-8s %-16s %s\n",
		  (unsigned long long)start, (unsigned long long)(end - 1),
		  (unsigned long long)((end - start) >> 20), first->block_id, last->block_id,
		  state_names[first->state], first->nid,
		  first->zones_mixed ? "(mixed)" : first->zone ? first->zone->name : "-",
		  first->group ? first->group->name : first->early ? "boot" : "-",
		  first->nr_vmemmap_pages ? "memmap_on_memory" : "");
}

/*
 * memory_hotplug_dump() - for the `memory` command: runs of alike blocks
 * (consecutive, same state, node, zone, group), the counters, the groups,
 * the policy knobs and the statistics.  Context: (main).
 */
void memory_hotplug_dump(struct printer *p)
{
	const struct memory_block *first = NULL, *last = NULL;
	struct memory_block *mem;
	unsigned long id = 0;

	get_online_mems();	/* the blocks stay as they are while listed */
	pr_printf(p, "%-29s %10s %-11s %-13s %4s %-8s %-16s %s\n", "RANGE", "SIZE", "BLOCKS",
		  "STATE", "NODE", "ZONE", "GROUP", "MEMMAP");
	for (; (mem = memory_block_next(&id)); id++) {
		if (first && blocks_alike(last, mem)) {
			last = mem;
			continue;
		}
		if (first)
			dump_block_run(p, first, last);
		first = last = mem;
	}
	if (first)
		dump_block_run(p, first, last);
	pr_printf(p, "blocks: %lu of %u (%lu online, %lu going-offline, %lu offline), block size %llu MiB\n",
		  nr_blocks, pool_size, nr_memory_blocks_in_state[MEM_ONLINE],
		  nr_memory_blocks_in_state[MEM_GOING_OFFLINE], nr_memory_blocks_in_state[MEM_OFFLINE],
		  (unsigned long long)(MEMORY_BLOCK_SIZE >> 20));
	for (int g = 0; g < MAX_MEMORY_GROUPS; g++) {
		const struct memory_group *group = &groups[g];

		if (!group->in_use)
			continue;
		pr_printf(p, "group %d %s: node %d, %s %lu pages, %lu blocks, online %lu kernel + %lu movable pages\n",
			  g, group->name, group->nid, group->is_dynamic ? "dynamic, unit" : "static, max",
			  group->is_dynamic ? group->d.unit_pages : group->s.max_pages, blocks_in_group[g],
			  group->present_kernel_pages, group->present_movable_pages);
	}
	pr_printf(p, "auto_online_blocks: %s  online_policy: %s  auto_movable_ratio: %u  auto_movable_numa_aware: %s  memmap_on_memory: %s\n",
		  mmop_name(memhp_get_default_online_type()),
		  memhp_get_online_policy() == ONLINE_POLICY_AUTO_MOVABLE ? "auto-movable" : "contig-zones",
		  memhp_get_auto_movable_ratio(), memhp_get_auto_movable_numa_aware() ? "Y" : "N",
		  memhp_get_memmap_on_memory() ? "Y" : "N");
	pr_printf(p, "added %llu, removed %llu, onlined %llu, offlined %llu blocks; failures: online %llu, offline %llu; migrated %llu pages, %llu memmaps\n",
		  (unsigned long long)memhp_stats.added_blocks, (unsigned long long)memhp_stats.removed_blocks,
		  (unsigned long long)memhp_stats.onlined_blocks,
		  (unsigned long long)memhp_stats.offlined_blocks,
		  (unsigned long long)memhp_stats.online_failures,
		  (unsigned long long)memhp_stats.offline_failures,
		  (unsigned long long)memhp_stats.migrated_pages,
		  (unsigned long long)memhp_stats.memmaps_moved);
	pr_printf(p, "last block: online %llu cycles, offline %llu cycles\n",
		  (unsigned long long)memhp_stats.last_online_cycles,
		  (unsigned long long)memhp_stats.last_offline_cycles);
	put_online_mems();
}

/* ---- who follows blocks coming and going ------------------------------- */

/* The one listener (views/sysfs_memory.c in the kernel), NULL: nobody. */
static const struct memory_block_notifier *memory_block_listener;	/* [m] */

/* Contract in memory_hotplug.h. */
void register_memory_block_notifier(const struct memory_block_notifier *nb)
{
	memory_block_listener = nb;
}

/* Contract in internal.h. */
void memory_block_notify_added(struct memory_block *mem)
{
	if (memory_block_listener && memory_block_listener->added)
		memory_block_listener->added(mem);
}

/* Contract in internal.h. */
void memory_block_notify_removed(unsigned long block_id)
{
	if (memory_block_listener && memory_block_listener->removed)
		memory_block_listener->removed(block_id);
}

/*
 * memory_hotplug.h - adding, onlining, offlining and removing memory at run
 * time: the one API the ACPI DIMM driver and the virtio-mem driver call.
 *
 * Two phases, as in Linux:
 *   add/remove      physical: sections, memmap (vmemmap), direct map, and the
 *                   memory blocks that describe the range (all offline);
 *   online/offline  logical: a block joins a zone and its pages go to the
 *                   buddy allocator, or its pages are taken back (free ones
 *                   pulled out of the buddy, movable ones migrated away).
 *
 * Memory blocks: the range is cut into blocks of memory_block_size_bytes()
 * (128 MiB = one section); each block is onlined and offlined whole and lies
 * in one zone.  Block states (struct memory_block.state), changed only by
 * memory_block_set_state(), which keeps one counter per state:
 *
 *      add_memory()                     remove_memory()
 *   (none) ------> MEM_OFFLINE <-----------------------+
 *                   |   ^    \________________________/
 *         online    |   | offline done / failed (back to online)
 *                   v   |
 *               MEM_ONLINE ---> MEM_GOING_OFFLINE
 *
 * Memory groups: every added range belongs to a group (its device), which
 * the auto-movable policy looks at: a static group (a DIMM: all of it at
 * once, max_pages) or a dynamic group (virtio-mem: grows in units of
 * unit_pages).
 *
 * Locks (include/lib/lock.h; one CPU, so they assert instead of waiting):
 *   [b]  mem->lock, the memory block's lock (Linux's device lock): its
 *        state, zone and online type.  memory_block_online() and
 *        memory_block_offline() take it; memory_block_set_state() asserts it.
 *   [h]  mem_hotplug_lock (Linux's), held for writing by every step that
 *        changes what memory exists or where it belongs: a block onlined
 *        or offlined, a block added or removed, device memory mapped or
 *        unmapped.  It is taken by the innermost steps only (one block),
 *        so the operations made of steps (add_memory(), remove_memory(),
 *        offline_and_remove_memory(), a removal) never hold it across a
 *        step, a checkpoint or a yield; their ranges are theirs by claim
 *        (range_claim.h).  Readers that walk sections and zones take it
 *        for reading (get_online_mems()).
 * Order: mem->lock, then mem_hotplug_lock, then pcp and zone locks.
 *
 * Context: (main) only.
 */
#ifndef MM_MEMORY_HOTPLUG_H
#define MM_MEMORY_HOTPLUG_H

#include <mm/mmzone.h>
#include <mm/migrate.h>
#include <lib/printer.h>

#define MEMORY_BLOCK_SIZE	(128ULL << 20)	/* = one section */
#define PAGES_PER_MEMORY_BLOCK	(MEMORY_BLOCK_SIZE >> PAGE_SHIFT)
/*
 * The block pool: MEMORY_BLOCKS_STATIC slots (1 TiB of blocks at once)
 * without any allocation; a machine whose map reaches further gets a pool
 * sized from the map at boot (memory_blocks_size_pool()), at most
 * MEMORY_BLOCKS_MAX (the 64 TiB of MAX_PHYSMEM_BITS).
 */
#define MEMORY_BLOCKS_STATIC	8192
#define MEMORY_BLOCKS_MAX	(1UL << (MAX_PHYSMEM_BITS - 27))
#define MAX_MEMORY_GROUPS	64

static inline u64 memory_block_size_bytes(void) { return MEMORY_BLOCK_SIZE; }
static inline unsigned long phys_to_block_id(phys_addr_t pa) { return (unsigned long)(pa / MEMORY_BLOCK_SIZE); }
static inline unsigned long pfn_to_block_id(u64 pfn) { return (unsigned long)(pfn / PAGES_PER_MEMORY_BLOCK); }

/* Online types, the words written to memoryN/state and auto_online_blocks. */
enum mmop {
	MMOP_OFFLINE,		/* "offline" */
	MMOP_ONLINE,		/* "online": the online policy chooses the zone */
	MMOP_ONLINE_KERNEL,	/* "online_kernel": a kernel zone */
	MMOP_ONLINE_MOVABLE,	/* "online_movable": ZONE_MOVABLE */
};

/* The four words, by enum mmop (what auto_online_blocks and state take). */
#define NR_MMOP	4
extern const char *const mmop_names[NR_MMOP];

/* mmop_from_string() - parse "online" etc. (trailing newline allowed); -EINVAL. */
int mmop_from_string(const char *s, size_t len);
const char *mmop_name(enum mmop type);

enum memory_block_state {
	MEM_OFFLINE,		/* added, memmap exists, not in any zone */
	MEM_ONLINE,		/* in a zone, pages managed by the buddy */
	MEM_GOING_OFFLINE,	/* offline in progress */
	NR_MEM_STATES
};

struct memory_group;

struct memory_block {
	struct mutex lock;		/* the block's lock: the [b] fields */
	unsigned long block_id;		/* [h] start address / MEMORY_BLOCK_SIZE */
	enum memory_block_state state;	/* [b] change with memory_block_set_state() only */
	int nid;			/* [h] node of the memory */
	struct zone *zone;		/* [b] the zone while online, else NULL */
	enum mmop online_type;		/* [b] how it was last onlined */
	unsigned long nr_vmemmap_pages;	/* [h] memmap_on_memory: pages at the start holding the block's memmap */
	struct memory_group *group;	/* [h] the device that added it */
	bool early;			/* [h] boot memory (never removed) */
	bool zones_mixed;		/* [h] early block spanning two zones (DMA+DMA32): valid_zones "none", never offlined */
	bool in_use;			/* [h] slot of the block pool is taken */
};

/*
 * mem_hotplug_begin() / mem_hotplug_done() - hold mem_hotplug_lock for
 * writing around one step that changes memory (see Locks above);
 * get_online_mems() / put_online_mems() for reading, around a walk that
 * must see sections, spans and blocks stay as they are.  None of them
 * may be called with the lock already held by the caller (one CPU: that
 * panics, naming the site that holds it).  mem_hotplug_assert_held():
 * for functions whose contract needs the write lock.  Context: (main).
 */
void mem_hotplug_begin(void);
void mem_hotplug_done(void);
void get_online_mems(void);
void put_online_mems(void);
void mem_hotplug_assert_held_at(const char *file, int line, const char *fn);
#define mem_hotplug_assert_held()	mem_hotplug_assert_held_at(__FILE__, __LINE__, __func__)
/* mem_hotplug_lock_stats() - its name, and the times it was taken for
 * reading and for writing (for `locks`). */
const struct rwsem *mem_hotplug_lock_stats(void);

static inline u64 memory_block_start_pfn(const struct memory_block *mem)
{
	return (u64)mem->block_id * PAGES_PER_MEMORY_BLOCK;
}

struct memory_group {
	int id;				/* [m] index, >= 0 */
	int nid;			/* [m] node of all its memory */
	bool is_dynamic;		/* [m] virtio-mem style (units) vs static (DIMM) */
	bool in_use;			/* [m] registered */
	unsigned long present_kernel_pages;	/* [h] online in kernel zones */
	unsigned long present_movable_pages;	/* [h] online in ZONE_MOVABLE */
	union {
		struct { unsigned long max_pages; } s;	/* [m] static: size of the device */
		struct { unsigned long unit_pages; } d;	/* [m] dynamic: unit of growth */
	};
	const char *name;		/* [m] "dimm0", "virtio-mem vmem1", for views */
	const struct memory_group_ops *ops;	/* [m] the driver's answers, or NULL */
	void *owner;			/* [m] passed to ops: the driver's device */
};

/*
 * What mm asks a group's driver before something takes memory of the
 * group for good (devmem_create() turning offline blocks into device
 * memory): the driver may know that part of it is not backed (virtio-mem
 * sub-blocks not plugged) or is about to be given back (a pending unplug).
 */
struct memory_group_ops {
	/* [c] range_held() - 0 if [start_pfn, start_pfn + nr_pages) (half-open,
	 * whole blocks of the group) is backed and staying; else -EBUSY with
	 * the reason in why[0, size).  Context: (main). */
	int (*range_held)(void *owner, u64 start_pfn, u64 nr_pages, char *why, size_t size);
};

/* memory_group_set_ops() - the driver of group mgid answers through ops. */
void memory_group_set_ops(int mgid, const struct memory_group_ops *ops, void *owner);

/*
 * memory_range_in_use() - does the kernel use [start_pfn, start_pfn +
 * nr_pages) (half-open) in a way that forbids a driver to give it back to
 * the host (virtio-mem UNPLUG, ACPI eject)?  Device memory made from it
 * (devmem), and in the parts that are not online: the memmap of a block
 * still added (memmap_on_memory), a page-table page.  Online parts are
 * the offline step's (offline_pages()) or the isolation step's
 * (alloc_contig_range), which a driver takes before it gives memory back
 * and which refuse unmovable, pinned, memmap and page-table pages by name.
 * Returns 0, or -EBUSY with the reason in why[0, size) (e.g. "in use as
 * device memory devmem0 (devmem destroy it first)", "holding the memmap
 * of memory33 (...)").  Drivers ask before the request, never after.
 * Context: (main).
 */
int memory_range_in_use(u64 start_pfn, u64 nr_pages, char *why, size_t size);

/*
 * Policy knobs (/sys/module/memory_hotplug/parameters, auto_online_blocks).
 * The online policy and the auto-movable pair are online_policy.c's,
 * memmap_on_memory and auto_online_blocks' type are memory_hotplug.c's,
 * each private to its file: read
 * through the getters, written only through the setters (the parameter
 * table in mm/memory_hotplug_params.c uses them too).
 */
enum online_policy { ONLINE_POLICY_CONTIG_ZONES, ONLINE_POLICY_AUTO_MOVABLE };

/* memhp_get_default_online_type() - auto_online_blocks: the type hot-added
 * memory is onlined with (MMOP_OFFLINE: none); default MMOP_ONLINE
 * (memhp_default_state=).  Private to memory_hotplug.c.  Context: (main). */
enum mmop memhp_get_default_online_type(void);

/* memhp_get_online_policy() - memory_hotplug.online_policy, default
 * contig-zones.  Context: (main). */
enum online_policy memhp_get_online_policy(void);

/*
 * memhp_set_online_policy() - set how `online` picks a zone for the blocks
 * onlined from now on.  Returns 0, or -EINVAL unless policy is
 * ONLINE_POLICY_CONTIG_ZONES or ONLINE_POLICY_AUTO_MOVABLE (nothing
 * changed).  Context: (boot) or (main).
 */
int memhp_set_online_policy(enum online_policy policy);

/* memhp_get_auto_movable_ratio() - memory_hotplug.auto_movable_ratio: the
 * MOVABLE memory auto-movable allows, in percent of early kernel memory;
 * default 301.  Context: (main). */
unsigned int memhp_get_auto_movable_ratio(void);

/*
 * memhp_set_auto_movable_ratio() - set that ratio, in percent, for the
 * decisions made from now on (blocks already online stay where they are).
 * Returns 0, or -EINVAL if percent is outside [0, 4294967295] (nothing
 * changed).  Context: (boot) or (main).
 */
int memhp_set_auto_movable_ratio(u64 percent);

/* memhp_get_auto_movable_numa_aware() - memory_hotplug.auto_movable_numa_aware:
 * auto-movable checks the ratio per node too; default true.  Context: (main). */
bool memhp_get_auto_movable_numa_aware(void);

/*
 * memhp_set_auto_movable_numa_aware() - set whether auto-movable checks the
 * ratio on the block's node as well as machine-wide.  Every bool is
 * valid: returns 0.  Context: (boot) or (main).
 */
int memhp_set_auto_movable_numa_aware(bool on);

/* memhp_get_memmap_on_memory() - memory_hotplug.memmap_on_memory: a block
 * added with MHP_MEMMAP_ON_MEMORY carries its own memmap; default false.
 * Context: (main). */
bool memhp_get_memmap_on_memory(void);

/*
 * memhp_set_memmap_on_memory() - set memmap_on_memory.  A boot parameter
 * (its sysfs file is read-only); only blocks added afterwards follow it,
 * as a block keeps the memmap it was added with.  Every bool is valid:
 * returns 0.  Context: (boot), or (main) between additions (host tests).
 */
int memhp_set_memmap_on_memory(bool on);

/*
 * memhp_set_default_online_type() - set the type hot-added memory is
 * onlined with from now on (a write of auto_online_blocks,
 * memhp_default_state=).  Returns 0, or -EINVAL if type is outside
 * [MMOP_OFFLINE, MMOP_ONLINE_MOVABLE] (nothing changed).
 * Context: (boot) or (main).
 */
int memhp_set_default_online_type(enum mmop type);

/*
 * default_online_type() - the online type for a block that must go online
 * without a type being named (virtio-mem onlining what it plugged, a write
 * of 1 to memoryN/online): auto_online_blocks' type, or MMOP_ONLINE (the
 * online policy picks the zone) when auto_online_blocks is "offline".
 * Never MMOP_OFFLINE.  Context: (main).
 */
enum mmop default_online_type(void);
/*
 * notifier-error-inject: the error onlining returns at MEM_GOING_ONLINE and
 * offlining at MEM_GOING_OFFLINE instead of going on, a negative errno, or
 * 0 (none, the default).  Private to memory_hotplug.c.
 */
#define MEMHP_INJECT_ERROR_MIN	(-4095)	/* -MAX_ERRNO, the most negative errno */

/* memhp_get_inject_going_online_error() - the error injected at
 * MEM_GOING_ONLINE, or 0.  Context: (main). */
int memhp_get_inject_going_online_error(void);

/*
 * memhp_set_inject_going_online_error() - make every online from now on
 * fail at MEM_GOING_ONLINE with err (0: stop).  Returns 0, or -EINVAL if
 * err is outside [MEMHP_INJECT_ERROR_MIN, 0] (nothing changed).
 * Context: (main).
 */
int memhp_set_inject_going_online_error(int err);

/* memhp_get_inject_going_offline_error() - the error injected at
 * MEM_GOING_OFFLINE, or 0.  Context: (main). */
int memhp_get_inject_going_offline_error(void);

/*
 * memhp_set_inject_going_offline_error() - make every offline from now on
 * fail at MEM_GOING_OFFLINE with err (0: stop).  Returns 0, or -EINVAL if
 * err is outside [MEMHP_INJECT_ERROR_MIN, 0] (nothing changed).
 * Context: (main).
 */
int memhp_set_inject_going_offline_error(int err);

/* Memory groups.  Return the group id, or -ENOSPC / -EINVAL. */
int memory_group_register_static(int nid, unsigned long max_pages, const char *name);
int memory_group_register_dynamic(int nid, unsigned long unit_pages, const char *name);
/* memory_group_unregister() - 0, or -EBUSY while blocks still belong to it. */
int memory_group_unregister(int mgid);
struct memory_group *memory_group_find_by_id(int mgid);
/* memory_group_next_dynamic() - iterate dynamic groups from id *mgid; NULL at the end. */
struct memory_group *memory_group_next_dynamic(int *mgid);

/*
 * memory_groups_have_dynamic() - whether any dynamic group (virtio-mem) is
 * registered.  Inline, because the auto-movable check asks on every
 * decision and usually there is none.  nr_dynamic_memory_groups is
 * memory_block.c's to change.  Context: (main).
 */
extern unsigned nr_dynamic_memory_groups;
static inline bool memory_groups_have_dynamic(void)
{
	return nr_dynamic_memory_groups != 0;
}

/* Flags for add_memory(). */
#define MHP_NONE		0u
#define MHP_MEMMAP_ON_MEMORY	0x1u	/* carve each block's memmap from the block (if allowed) */
#define MHP_NO_AUTO_ONLINE	0x2u	/* leave the blocks offline whatever the policy (driver onlines itself) */

/*
 * add_memory() - add [start, start+size) of node nid, in group mgid (-1:
 * none), as offline memory blocks, then online them if
 * auto_online_blocks (memhp_get_default_online_type()) says so.  start and size must be multiples of
 * the block size (-EINVAL otherwise); the range must not overlap present
 * memory (-EEXIST).  Blocks are added one at a time, each with its own
 * 2 MiB memmap; with auto-online on they are onlined after all are added
 * (as Linux does: no block then holds the memmap of another block of the
 * range, so the range can be removed whole), except that when the next
 * block's memmap cannot be allocated the blocks added so far are onlined
 * first, so later blocks can take their memmap from them (a huge DIMM into
 * a small guest).  memmap_on_memory is used when the knob is set and the
 * caller passes MHP_MEMMAP_ON_MEMORY.  If a block cannot get its memmap
 * (-ENOMEM), everything added by this call is offlined and removed again,
 * and the log says which block failed and why.  Other errors: -EINVAL
 * (node, group), -ERANGE (beyond MAX_PHYSMEM_BITS), -E2BIG (more than
 * MEMORY_BLOCKS_STATIC blocks, 1 TiB, in one call), -ENOSPC (block pool
 * full), -EBUSY (another holder has claimed memory of the range:
 * include/mm/range_claim.h; nothing added).  Returns 0 or -errno.
 */
int add_memory(int nid, phys_addr_t start, u64 size, int mgid, unsigned mhp_flags);

/*
 * remove_memory() - remove [start, start+size) whose blocks are all
 * offline (-EBUSY and nothing changed otherwise, as when another holder
 * has claimed memory of the range: include/mm/range_claim.h).  Returns 0
 * or -errno.
 */
int remove_memory(phys_addr_t start, u64 size);

/*
 * remove_memory_quiet() - remove_memory() without its "remove_memory:"
 * log line: for a caller that removes a range in pieces and logs it once
 * (memory_removal_report()).  Same contract otherwise.
 */
int remove_memory_quiet(phys_addr_t start, u64 size);

/*
 * offline_and_remove_memory() - offline every online block of the range
 * (onlining back the ones already offlined if one fails), then remove it.
 * Returns 0, or the first offline error (-EBUSY with the reason logged).
 */
int offline_and_remove_memory(phys_addr_t start, u64 size);

/*
 * A removal from the top: [start, start + nr_blocks blocks) offlined and
 * removed one block per memory_removal_step(), highest block first (a
 * block's memmap may lie in the block below it, which then only frees it),
 * and put back whole by memory_removal_rollback() if a block refuses.  The
 * caller owns the struct (on its stack, or in its device for a removal
 * that runs as a long operation) and starts it with memory_removal_begin().
 * What each removed block was is kept as runs of blocks in the same state,
 * from the top down: a range onlined one way needs one run, and
 * MEMORY_REMOVAL_RUNS runs cover any range of up to that many blocks.
 * Protected by: (main), one CPU, one hotplug operation at a time; only
 * the memory_removal_*() functions write the fields.
 */
#define MEMORY_REMOVAL_RUNS	32
#define MEMORY_REMOVAL_ABSENT	0xff	/* run_type: no block was there, none comes back */

struct memory_removal_run {
	u16 nr_blocks;			/* [o] consecutive removed blocks in this state */
	u8 online_type;			/* [o] enum mmop they had, or MEMORY_REMOVAL_ABSENT */
	u8 memmap_on_block;		/* [o] they carried their own memmap (memmap_on_memory) */
};

struct memory_removal {
	const char *who;		/* [o] log prefix: "offline_and_remove_memory", "acpi-memhp: slot 3" */
	phys_addr_t start;		/* [o] first byte of the range, block aligned */
	unsigned long nr_blocks;	/* [o] blocks of the range */
	int nid;			/* [o] node the blocks are added back to */
	int mgid;			/* [o] their memory group, -1: none */
	unsigned mhp_flags;		/* [o] add_memory() flags for adding back (MHP_NO_AUTO_ONLINE implied) */
	unsigned long removed;		/* [o] blocks [nr_blocks - removed, nr_blocks) are gone */
	bool quiet;			/* [o] set by the caller: no log line per block removed,
					 * memory_removal_report() logs them in one */
	unsigned long reported;		/* [o] of those, the top ones memory_removal_report() logged */
	unsigned nr_runs;		/* [o] runs[0, nr_runs) used, runs[0] the highest */
	struct memory_removal_run runs[MEMORY_REMOVAL_RUNS];	/* [o] */
};

/*
 * memory_removal_begin() - start a removal of [start, start + size) (whole
 * blocks) of node nid and group mgid (-1: none), nothing removed yet; who
 * prefixes its log lines and must outlive it.  Changes nothing in mm.
 * Returns 0, or -EINVAL (not whole blocks, or more than the block pool holds).
 * Context: (main).
 */
int memory_removal_begin(struct memory_removal *r, const char *who, phys_addr_t start, u64 size,
			 int nid, int mgid, unsigned mhp_flags);

/*
 * memory_removal_step() - offline (if online) and remove the highest block
 * of r not yet removed, remembering its online type and where its memmap
 * was.  A block that does not exist counts as removed and never comes
 * back.  Returns 0 (one block removed), 1 (nothing was left: the removal
 * is complete), or -errno with that block as it was: the offline error
 * (-EBUSY with the first offending page logged by mm, an injected error),
 * remove_memory()'s (the block is onlined again with its type first), or
 * -ENOSPC when a block in yet another state would need a run beyond
 * MEMORY_REMOVAL_RUNS (logged).  The blocks removed before stay removed
 * until memory_removal_rollback().  Context: (main).
 */
int memory_removal_step(struct memory_removal *r);

/*
 * memory_removal_rollback() - add back every block r removed, lowest
 * first, each offline with add_memory() (MHP_NO_AUTO_ONLINE, its memmap on
 * itself again if it was so and memmap_on_memory is still set), then onlined with its old online type (their
 * pages were all free once offline, so no data is lost); r is then empty
 * (removed 0).  A block that cannot be added back or onlined again is
 * logged with its number, range and error, and the others still come
 * back.  Returns 0, or the first such error.  Context: (main).
 */
int memory_removal_rollback(struct memory_removal *r);

/*
 * memory_removal_report() - for a quiet removal: one "remove_memory: [mem
 * A-B]: N blocks" line for the blocks removed since the last report (they
 * are contiguous: the removal goes from the top down), as remove_memory()
 * of that range would log it; nothing when none were.  Context: (main).
 */
void memory_removal_report(struct memory_removal *r);

/* Online or offline one block.  Errors: -EINVAL (wrong state or type,
 * a zone the range cannot join), -EBUSY (unmovable pages when offlining;
 * the first offending pfn and page type are logged; or another holder has
 * claimed the block's memory, asked first: include/mm/range_claim.h),
 * injected errors. */
int memory_block_online(struct memory_block *mem, enum mmop online_type);
int memory_block_offline(struct memory_block *mem);

/* Blocks per state, kept by memory_block_set_state() (mm/internal.h). */
extern unsigned long nr_memory_blocks_in_state[NR_MEM_STATES];

/*
 * memory_blocks_generation() - a number that changes whenever any memory
 * block is created, removed or changes state (online, offline, going
 * offline), and only then: a driver that keeps its own copy of its blocks'
 * states compares it with the value it saw last instead of re-reading
 * every block.  Context: (main).
 */
u64 memory_blocks_generation(void);

/* memory_block_state_name() - "online", "offline", "going-offline" (sysfs's
 * words), or NULL for a value that is no state. */
const char *memory_block_state_name(enum memory_block_state state);

/* Find blocks.  NULL if the block does not exist. */
struct memory_block *find_memory_block_by_id(unsigned long block_id);
/* memmap_on_memory_block_of() - the block whose own memmap holds pfn, or NULL. */
struct memory_block *memmap_on_memory_block_of(u64 pfn);
/* memory_block_next() - iterate existing blocks in id order from *block_id. */
struct memory_block *memory_block_next(unsigned long *block_id);


/*
 * memory_block_valid_zones() - print the zones the block could be onlined
 * to, as Linux's valid_zones ("DMA32 Normal Movable", or the one zone of an
 * online block).  For the sysfs view.
 */
void memory_block_valid_zones(struct memory_block *mem, struct printer *p);

/*
 * zone_for_pfn_range() - the zone a range of nid would be onlined to with
 * online_type, under the current policy and the group's state.
 */
struct zone *zone_for_pfn_range(enum mmop online_type, int nid, struct memory_group *group,
				u64 start_pfn, u64 nr_pages);

/*
 * online_page_callback: how the pages of a block being onlined reach the
 * buddy.  memory_block_online() calls it once per block with the range
 * [start_pfn, end_pfn) (half-open; the block minus its own memmap), memmap
 * initialised, every page refcount 1 and owned by nobody.  The default,
 * generic_online_pages(), gives the whole range to the buddy; virtio-mem
 * sets its own to give only plugged sub-blocks and keep the others out
 * with online_pages_keep_offline().  The watermarks are recomputed after
 * the callback returns.
 */
typedef void (*online_page_callback_t)(u64 start_pfn, u64 end_pfn);

/*
 * online_page_count_t - a deferrable callback's count op: how many pages
 * of [start_pfn, end_pfn) the callback would give to the buddy if it ran
 * now (virtio-mem: those of plugged sub-blocks).  Asked when a block is
 * onlined lazily, to count them as managed and free at once; the
 * callback's promise (below) keeps the answer true until it runs.
 * Context: (main), mem_hotplug_lock held.
 */
typedef u64 (*online_page_count_t)(u64 start_pfn, u64 end_pfn);

/*
 * set_online_page_callback() - let a driver (virtio-mem) decide what
 * happens to onlined pages; only one at a time: -EINVAL if another one is
 * set (or cb is NULL).  restore_online_page_callback() puts the default
 * back, -EINVAL if cb is not the one set.  Context: (main).
 */
int set_online_page_callback(online_page_callback_t cb);
int restore_online_page_callback(online_page_callback_t cb);

/*
 * set_online_page_callback_deferrable() - set_online_page_callback() for a
 * callback that may also run later: with deferred_init_hotplug on, a block
 * is then onlined with its memmap pending as under the default callback,
 * and cb runs at each section's hand-over (mm/deferred_init.c), on any
 * CPU, with mem_resize_lock held (it may only read its own state and call
 * generic_online_pages() / online_pages_keep_offline()).  The driver
 * promises that what cb decides for a pending section does not change
 * until the section is initialised: before it changes its plan there
 * (virtio-mem's plug or unplug of a sub-block) it calls
 * deferred_init_pfn_range() on the range.  count (required: -EINVAL
 * without it) says at the lazy online how many pages cb will give to the
 * buddy, which are counted as managed and free from then on
 * (zone->nr_free_pending until the hand-over).  Context: (main).
 */
int set_online_page_callback_deferrable(online_page_callback_t cb, online_page_count_t count);

/*
 * generic_online_pages() - the default online_page_callback: [start_pfn,
 * end_pfn) (half-open, inside one zone, memmap initialised, refcount 1 or
 * PageOffline) goes to its zone's buddy in the largest aligned chunks,
 * counted in managed_pages, to the tail of the free lists.  Hot-added
 * memory is never poisoned: touching free memory would make plugging
 * hundreds of GiB impossible.  Context: (main), from the online callback.
 */
void generic_online_pages(u64 start_pfn, u64 end_pfn);

/*
 * online_pages_keep_offline() - from an online_page_callback: the pages of
 * [start_pfn, end_pfn) (half-open) stay out of the buddy, PageOffline with
 * refcount 0, not managed, never touched again until fake_online_pages()
 * or offlining.  Linux's virtio-mem does this for unplugged sub-blocks.
 * Context: (main), from the online callback.
 */
void online_pages_keep_offline(u64 start_pfn, u64 end_pfn);

/*
 * fake_online_pages() - PageOffline pages [start_pfn, end_pfn) (half-open)
 * of an online block, in one zone, join the buddy as if they had just been
 * onlined: managed_pages grows and the watermarks and pcp sizes follow.
 * The way back from fake_offline_pages() (virtio-mem plugging a sub-block
 * of an online block).  Context: (main).
 */
void fake_online_pages(u64 start_pfn, u64 end_pfn);

/*
 * fake_offline_pages() - pages [start_pfn, end_pfn) (half-open) of an
 * online block, in one zone, that the caller took from the allocator
 * frozen (alloc_contig_range with refcount 0) leave the buddy's management
 * for good while their block stays online: PageOffline, refcount 0,
 * managed_pages shrinks, watermarks and pcp sizes follow (virtio-mem
 * unplugging a sub-block).  Panics with the numbers if the zone manages
 * fewer pages.  Context: (main).
 */
void fake_offline_pages(u64 start_pfn, u64 end_pfn);

/*
 * Who follows memory blocks: a listener's added() runs right after block
 * mem was created (find_memory_block_by_id() finds it), removed() right
 * after block block_id was deleted.  One listener at a time (the /sys view
 * registers at its init); NULL, or a NULL member, ignores those events.
 */
struct memory_block_notifier {
	void (*added)(struct memory_block *mem);	/* [c] a block was created */
	void (*removed)(unsigned long block_id);	/* [c] a block was deleted */
};

/*
 * register_memory_block_notifier() - nb (or NULL: nobody) is told from now
 * on; it replaces any listener before.  Context: (boot)/(main).
 */
void register_memory_block_notifier(const struct memory_block_notifier *nb);

/* Counters for views and tests. */
struct memhp_stats {
	u64 onlined_blocks, offlined_blocks, added_blocks, removed_blocks;	/* [m] */
	u64 online_failures, offline_failures;	/* [m] */
	u64 migrated_pages;		/* [m] by offlining */
	u64 memmaps_moved;		/* [m] hot-added memmaps migrated (hotplug_memmap.c) */
	u64 last_online_cycles, last_offline_cycles; /* [m] of the last block */
	/* the last offline that migrated pages: which block, and where they went */
	u64 offlines_migrated;		/* [m] offlines that migrated any page (a sequence) */
	u64 last_offline_block;		/* [m] the block of the last of them */
	struct migrate_dests last_offline_dests;	/* [m] its pages' new blocks */
};
extern struct memhp_stats memhp_stats;

/* memory_hotplug_dump() - blocks summarised by range and state, groups, knobs. */
void memory_hotplug_dump(struct printer *p);

/* ---- boot (mm_init.c) and the host tests' machines ------------------------- */

/*
 * memory_blocks_init_boot() - forget every block and group, then describe
 * each present section of boot memory as an early MEM_ONLINE block: node of
 * the section, zone of most of its pages (zones_mixed if the zone spans of
 * two zones meet inside it).  mm_core_init() calls it last.  Context: (boot).
 */
void memory_blocks_init_boot(void);

/*
 * memory_blocks_size_pool() - make the block pool hold blocks slots: the
 * static pool when that is enough, else one allocation of alloc(bytes)
 * (memblock at boot: the pool lives as long as the machine).  Returns 0,
 * -E2BIG (more than MEMORY_BLOCKS_MAX) or -ENOMEM (alloc failed); on error
 * the static pool stays, and blocks past it are logged and left out as
 * before.  memory_blocks_pool_size(): the slots.  Context: (boot), before
 * memory_blocks_init_boot().
 */
int memory_blocks_size_pool(u64 blocks, void *(*alloc)(u64 bytes));
u64 memory_blocks_pool_size(void);


/*
 * The memmap of a block that is not online is "uninitialised": add_memory()
 * and offlining write MEMMAP_POISON_FLAGS into every struct page's flags
 * (also page_type and refcount all-ones, as Linux's 0xff poison), so code
 * that trusts such a memmap sees an impossible zone and node (7, 63) and
 * is caught.  page_memmap_poisoned() tells.
 */
#define MEMMAP_POISON_FLAGS	(~0UL)
static inline bool page_memmap_poisoned(const struct page *page)
{
	return page->flags == MEMMAP_POISON_FLAGS;
}

/*
 * memmap_poison_enable() - whether add_memory() and offlining poison the
 * memmap (Linux does so only with CONFIG_DEBUG_VM).  mm/ starts with it on,
 * the checking behaviour the host tests rely on; the kernel sets it from
 * its memmap_poison= boot parameter, off by default as in production
 * kernels: then an offline block's struct pages keep whatever they held
 * and only the section's online state says they mean nothing.
 * memmap_poison_enabled() tells.  Context: (boot, main).
 */
void memmap_poison_enable(bool on);
bool memmap_poison_enabled(void);

/*
 * The auto-movable policy's inputs (Linux's struct auto_movable_stats):
 * over the populated zones of node nid (NUMA_NO_NODE: of every node),
 * kernel_early_pages = present_early_pages of the kernel zones minus their
 * CMA pages, movable_pages = present pages of ZONE_MOVABLE plus CMA pages.
 * auto_movable_stats_walk() is the old design: it sums over the zones on
 * every call (Linux's "TODO: cache values").  auto_movable_can_online_movable()
 * answers "may nr_pages more go to ZONE_MOVABLE?" for the group (or NULL).
 * Context: (main).
 */
struct auto_movable_stats {
	unsigned long kernel_early_pages;	/* [o] early kernel-zone pages, CMA excluded (online_policy.c's cache: [h]) */
	unsigned long movable_pages;		/* [o] ZONE_MOVABLE present pages plus CMA pages */
};
void auto_movable_stats_walk(int nid, struct auto_movable_stats *stats);	/* old: sum the zones */
/* The new design: cached sums (mechanism 4, see mechanisms.h). */
void auto_movable_stats_cached(int nid, struct auto_movable_stats *stats);
/* auto_movable_stats_zone_changed() - a zone's present (d_present), early
 * present (d_early) or CMA (d_cma) page count changed by these deltas:
 * call right after changing them.  Keeps the cache in step. */
void auto_movable_stats_zone_changed(struct zone *zone, long d_present, long d_early, long d_cma);
/* auto_movable_stats_resync() - rebuild the cache from the walk. */
void auto_movable_stats_resync(void);
extern u64 auto_movable_stat_walks, auto_movable_stat_cache_reads;

bool auto_movable_can_online_movable(int nid, struct memory_group *group, unsigned long nr_pages);

#endif

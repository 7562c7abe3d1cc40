/*
 * memory_removal.c - offlining and removing a range block by block from the
 * top, and adding back what was removed when a block refuses: the one copy
 * used by offline_and_remove_memory() for ranges whose memmaps are nested,
 * by the ACPI DIMM eject (one block per step of a long operation) and by
 * virtio-mem unplugging a whole memory block.  Contracts and the state
 * (struct memory_removal, caller-owned) in include/mm/memory_hotplug.h.
 *
 * Context: (main), one hotplug operation at a time; no state of its own.
 */
#include <mm/memory_hotplug.h>
#include "internal.h"
#include <lib/errno.h>
#include <lib/string.h>
#include <lib/printk.h>

/* Contract in include/mm/memory_hotplug.h. */
int memory_removal_begin(struct memory_removal *r, const char *who, phys_addr_t start, u64 size,
			 int nid, int mgid, unsigned mhp_flags)
{
	memset(r, 0, sizeof(*r));
	if (!size || start % MEMORY_BLOCK_SIZE || size % MEMORY_BLOCK_SIZE ||
	    size / MEMORY_BLOCK_SIZE > memory_blocks_pool_size())
		return -EINVAL;
	r->who = who;
	r->start = start;
	r->nr_blocks = (unsigned long)(size / MEMORY_BLOCK_SIZE);
	r->nid = nid;
	r->mgid = mgid;
	r->mhp_flags = mhp_flags;
	return 0;
}

/*
 * Count one more removed block, in state (online_type, memmap_on_block),
 * below the ones counted so far: the last run grows, or a new one starts.
 * Returns false when a new run is needed and none is left.  Context: (main).
 */
static bool removal_record(struct memory_removal *r, u8 online_type, bool memmap_on_block)
{
	struct memory_removal_run *run = r->nr_runs ? &r->runs[r->nr_runs - 1] : NULL;

	if (run && run->online_type == online_type && run->memmap_on_block == memmap_on_block) {
		run->nr_blocks++;
		return true;
	}
	if (r->nr_runs == MEMORY_REMOVAL_RUNS)
		return false;
	r->runs[r->nr_runs++] = (struct memory_removal_run){
		.nr_blocks = 1, .online_type = online_type, .memmap_on_block = memmap_on_block,
	};
	return true;
}

/*
 * Would a block in state (online_type, memmap_on_block) find room: the
 * last run's state, or a run left?  Asked before the block changes, so a
 * refusal leaves it as it was.  Context: (main).
 */
static bool removal_has_room(const struct memory_removal *r, u8 online_type, bool memmap_on_block)
{
	const struct memory_removal_run *run = r->nr_runs ? &r->runs[r->nr_runs - 1] : NULL;

	return (run && run->online_type == online_type && run->memmap_on_block == memmap_on_block) ||
	       r->nr_runs < MEMORY_REMOVAL_RUNS;
}

/* Contract in include/mm/memory_hotplug.h. */
int memory_removal_step(struct memory_removal *r)
{
	unsigned long i;
	phys_addr_t pa;
	struct memory_block *mem;
	u8 type;
	bool self;
	int err;

	if (r->removed == r->nr_blocks)
		return 1;
	i = r->nr_blocks - 1 - r->removed;
	pa = r->start + (u64)i * MEMORY_BLOCK_SIZE;
	mem = find_memory_block_by_id(phys_to_block_id(pa));
	type = !mem ? MEMORY_REMOVAL_ABSENT :
	       mem->state == MEM_ONLINE ? (u8)mem->online_type : (u8)MMOP_OFFLINE;
	self = mem && mem->nr_vmemmap_pages;
	if (!removal_has_room(r, type, self)) {
		pr_err("%s: memory block %lu: the blocks above it are in %u different states, more than a removal keeps",
		       r->who, phys_to_block_id(pa), (unsigned)MEMORY_REMOVAL_RUNS);
		return -ENOSPC;
	}
	if (mem) {
		if (mem->state == MEM_ONLINE) {
			err = memory_block_offline(mem);
			if (err)
				return err;
		}
		err = r->quiet ? remove_memory_quiet(pa, MEMORY_BLOCK_SIZE) :
				 remove_memory(pa, MEMORY_BLOCK_SIZE);
		if (err) {
			if (type != MMOP_OFFLINE && memory_block_online(mem, (enum mmop)type))
				pr_err("%s: memory block %lu could not be onlined again", r->who,
				       mem->block_id);
			return err;
		}
	}
	removal_record(r, type, self);
	r->removed++;
	return 0;
}

/*
 * Add block pa back offline (its memmap on itself if memmap_on_block),
 * then online it with type unless that is MMOP_OFFLINE.  Logs a failure
 * with the block's number and range.  Returns 0 or the error.
 * Context: (main).
 */
static int removal_add_back(struct memory_removal *r, phys_addr_t pa, u8 type, bool memmap_on_block)
{
	unsigned flags = r->mhp_flags | MHP_NO_AUTO_ONLINE |
			 (memmap_on_block ? MHP_MEMMAP_ON_MEMORY : 0);
	unsigned long id = phys_to_block_id(pa);
	struct memory_block *mem;
	int err = add_memory(r->nid, pa, MEMORY_BLOCK_SIZE, r->mgid, flags);

	if (err) {
		pr_err("%s: memory block %lu [%#llx-%#llx) could not be added back: %s", r->who, id,
		       (unsigned long long)pa, (unsigned long long)(pa + MEMORY_BLOCK_SIZE),
		       err_text(err));
		return err;
	}
	if (type == MMOP_OFFLINE)
		return 0;
	mem = find_memory_block_by_id(id);
	err = mem ? memory_block_online(mem, (enum mmop)type) : -ENOENT;
	if (err)
		pr_err("%s: memory block %lu [%#llx-%#llx) was added back but not onlined again (%s): %s",
		       r->who, id, (unsigned long long)pa, (unsigned long long)(pa + MEMORY_BLOCK_SIZE),
		       mmop_name((enum mmop)type), err_text(err));
	return err;
}

/* Contract in include/mm/memory_hotplug.h. */
int memory_removal_rollback(struct memory_removal *r)
{
	unsigned long i = r->nr_blocks - r->removed;	/* the lowest removed block */
	int first_err = 0;

	/* runs[] go from the top down: the last one holds the lowest blocks */
	for (unsigned k = r->nr_runs; k-- > 0;) {
		const struct memory_removal_run *run = &r->runs[k];

		for (unsigned n = 0; n < run->nr_blocks; n++, i++) {
			int err;

			if (run->online_type == MEMORY_REMOVAL_ABSENT)
				continue;
			err = removal_add_back(r, r->start + (u64)i * MEMORY_BLOCK_SIZE,
					       run->online_type, run->memmap_on_block);
			if (err && !first_err)
				first_err = err;
		}
	}
	r->removed = 0;
	r->reported = 0;
	r->nr_runs = 0;
	return first_err;
}

/* Contract in include/mm/memory_hotplug.h. */
void memory_removal_report(struct memory_removal *r)
{
	unsigned long n = r->removed - r->reported;
	phys_addr_t start = r->start + (u64)(r->nr_blocks - r->removed) * MEMORY_BLOCK_SIZE;

	if (!n)
		return;
	remove_memory_log(start, n);
	r->reported = r->removed;
}

/*
 * memblock.h - the boot-time allocator: lists of physical ranges.
 *
 * Before struct pages exist, memory is two sorted lists of ranges: `memory`
 * (what exists, with its node) and `reserved` (what is taken: the first MiB,
 * the kernel image, the multiboot2 block, early allocations).  Free memory
 * is memory minus reserved.  Allocation searches free memory from the top
 * down below `current_limit` (as Linux does), so low memory (DMA, DMA32)
 * stays free as long as possible.  At the end of boot every free range is
 * handed to the buddy allocator and memblock is not used again, except to
 * look up node ids of boot memory.
 *
 * Both lists are kept sorted, non-overlapping, and with adjacent compatible
 * ranges merged (same node and flags).  Regions live in fixed arrays
 * (MEMBLOCK_MAX_REGIONS each); an insertion that does not fit fails with
 * -ENOSPC and changes nothing.
 *
 * All functions take the memblock instance, so tests build private ones;
 * the kernel's is `memblock`.  Ranges are [base, base + size).
 * Context: (boot).
 */
#ifndef MM_MEMBLOCK_H
#define MM_MEMBLOCK_H

#include <lib/types.h>
#include <lib/printer.h>

#define MEMBLOCK_MAX_REGIONS	256
#define MEMBLOCK_ALLOC_ANYWHERE	(~(phys_addr_t)0)

struct memblock_region {
	phys_addr_t base;	/* [c] first byte */
	phys_addr_t size;	/* [c] bytes */
	int nid;		/* [c] node, or NUMA_NO_NODE (-1) */
	u32 flags;		/* [c] MEMBLOCK_* flags (MEMBLOCK_HOTPLUG, ...) */
};

#define MEMBLOCK_NONE		0x0u
#define MEMBLOCK_HOTPLUG	0x1u	/* SRAT: hotpluggable memory */

struct memblock_type {
	u32 cnt;				/* [c] regions in use */
	const char *name;			/* [c] "memory" or "reserved" */
	struct memblock_region regions[MEMBLOCK_MAX_REGIONS];	/* [c] */
};

struct memblock {
	struct memblock_type memory;		/* [c] what exists */
	struct memblock_type reserved;		/* [c] what is taken */
	phys_addr_t current_limit;		/* [c] allocations end below this */
};

extern struct memblock memblock;

/* memblock_init() - empty both lists; the limit is MEMBLOCK_ALLOC_ANYWHERE. */
void memblock_init(struct memblock *mb);

/*
 * Add memory (nid may be NUMA_NO_NODE); remove it; set its node. 0 or -errno.
 * Common to every function that changes a list: size 0 is a no-op that
 * returns 0; a range whose end would pass 2^64, or a nid outside
 * NUMA_NO_NODE, 0 .. MAX_NUMNODES - 1, is -EINVAL.  Adding over existing
 * memory keeps the node and flags of the bytes already there; set_node
 * never creates memory.
 */
int memblock_add_node(struct memblock *mb, phys_addr_t base, phys_addr_t size, int nid, u32 flags);
int memblock_add(struct memblock *mb, phys_addr_t base, phys_addr_t size);
int memblock_remove(struct memblock *mb, phys_addr_t base, phys_addr_t size);
int memblock_set_node(struct memblock *mb, phys_addr_t base, phys_addr_t size, int nid);

/* Reserve and unreserve ranges (need not be inside memory). 0 or -errno. */
int memblock_reserve(struct memblock *mb, phys_addr_t base, phys_addr_t size);
int memblock_phys_free(struct memblock *mb, phys_addr_t base, phys_addr_t size);

/*
 * memblock_phys_alloc_range() - reserve and return the highest aligned
 * free range of size bytes inside [start, end) and below current_limit, on
 * node nid (NUMA_NO_NODE: any node) and inside one memory region.  align
 * is a power of two >= 1.  Returns the base, or 0 when nothing fits, size
 * is 0, align is bad, or the reserved list is full (0 is never handed
 * out; on x86 the first MiB is reserved anyway).  The memory is not cleared.
 */
phys_addr_t memblock_phys_alloc_range(struct memblock *mb, phys_addr_t size,
				      phys_addr_t align, phys_addr_t start,
				      phys_addr_t end, int nid);

/* memblock_phys_alloc_try_nid() - on nid if possible, else anywhere. */
phys_addr_t memblock_phys_alloc_try_nid(struct memblock *mb, phys_addr_t size,
					phys_addr_t align, int nid);

/*
 * memblock_next_free_range() - iterate over free memory (memory minus
 * reserved), in address order, optionally only node nid.  Start with
 * *idx = 0; each call returns the next range [*start, *end) and its node
 * *out_nid (any of the three may be NULL) and true, or false at the end.
 * The lists must not change meanwhile.
 */
bool memblock_next_free_range(const struct memblock *mb, u64 *idx, int nid,
			      phys_addr_t *start, phys_addr_t *end, int *out_nid);

/* memblock_is_memory() / memblock_is_reserved(): does the list cover addr? */
bool memblock_is_memory(const struct memblock *mb, phys_addr_t addr);
bool memblock_is_reserved(const struct memblock *mb, phys_addr_t addr);
/* memblock_nid_of() - node of the memory region holding addr, or NUMA_NO_NODE. */
int memblock_nid_of(const struct memblock *mb, phys_addr_t addr);

phys_addr_t memblock_phys_mem_size(const struct memblock *mb);	/* sum of memory */
phys_addr_t memblock_reserved_size(const struct memblock *mb);	/* sum of reserved */
phys_addr_t memblock_start_of_DRAM(const struct memblock *mb);
phys_addr_t memblock_end_of_DRAM(const struct memblock *mb);

/* memblock_dump() - both lists, Linux's memblock=debug style. */
void memblock_dump(const struct memblock *mb, struct printer *p);

#endif

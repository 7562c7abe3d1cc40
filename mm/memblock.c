/*
 * memblock.c - the boot-time allocator: two sorted lists of physical ranges.
 *
 * Between the moment the firmware memory map is known and the moment the
 * buddy allocator owns memory, memlab still has to allocate: the memmap
 * (64 bytes of struct page per 4 KiB page), page tables for the direct map,
 * per-node data.  memblock answers with two lists of ranges:
 *
 *   memory     what exists, each range with its node (nid) and flags;
 *   reserved   what is taken: the first MiB, the kernel image, the
 *              multiboot2 block, and everything memblock has handed out.
 *
 * Free memory is memory minus reserved.  Reserved ranges need not lie inside
 * memory (firmware tables often do not).
 *
 * Invariants of both lists, true whenever no function of this file runs:
 *   - regions[0, cnt) are sorted by base, non-empty, and base + size does
 *     not wrap past 2^64;
 *   - no two regions overlap;
 *   - two regions that touch (one ends where the next begins) are not
 *     compatible: in `memory` they differ in nid or flags; in `reserved`
 *     every region has nid NUMA_NO_NODE and flags 0, so touching reserved
 *     regions never exist.
 * So a set of bytes has exactly one list that describes it, and two lists
 * can be compared region by region.
 *
 * How a list changes.  Every change (add, remove, set the node; reserve and
 * free are add and remove on the reserved list) is one walk over the old
 * list that writes the new list, in address order, into a scratch array.
 * Each piece written either extends the previous region (when it touches it
 * and is compatible) or takes the next slot.  If the new list needs more
 * than MEMBLOCK_MAX_REGIONS slots the walk gives up and the caller gets
 * -ENOSPC with the old list untouched; otherwise the scratch array is copied
 * over the old list.  Every overlap case (a new range before, after, inside,
 * across several regions, or touching one) is the same few lines, and the
 * result keeps the invariants because the old list had them and the walk
 * writes in order.  Linux edits its arrays in place instead
 * (memblock_add_range() counts, inserts, then merges; memblock_isolate_range()
 * splits regions at the edges of a range) and doubles an array that fills
 * up.  memlab's arrays are fixed, and building a copy is the simplest way to
 * keep the promise "fails and changes nothing".  A change costs O(cnt) and a
 * copy of at most 6 KiB, which is nothing at boot.
 *
 * Adding memory over memory that exists: the bytes already present keep
 * their nid and flags, only the new bytes take the given ones (as in Linux).
 *
 * Allocation is top-down, Linux's default: free ranges are searched from
 * the highest address down, below mb->current_limit, and the highest aligned
 * fit wins.  Low memory (ZONE_DMA below 16 MiB, ZONE_DMA32 below 4 GiB) thus
 * stays free for the devices that need it for as long as possible.  A free
 * range never spans two memory regions, so an allocation lies on one node.
 *
 * The scratch array is shared by all instances, so the functions that change
 * a list are not reentrant.  memblock is used on one CPU at boot, and the
 * host tests are single-threaded.
 */
#include <mm/memblock.h>
#include <mm/page.h>
#include <lib/errno.h>
#include <lib/printer.h>
#include <lib/string.h>

struct memblock memblock;	/* [c] */

/* Where a change builds the new list before it replaces the old one. */
static struct memblock_region memblock_scratch[MEMBLOCK_MAX_REGIONS];	/* [c] */

/* The first byte after r (never wraps: see the invariants). */
static inline phys_addr_t region_end(const struct memblock_region *r)
{
	return r->base + r->size;
}

/* Is nid a node memblock accepts: NUMA_NO_NODE or 0 .. MAX_NUMNODES - 1? */
static bool nid_valid(int nid)
{
	return nid == NUMA_NO_NODE || (nid >= 0 && nid < MAX_NUMNODES);
}

/* Does a region on node rgn_nid pass the filter nid (NUMA_NO_NODE: all)? */
static bool nid_matches(int nid, int rgn_nid)
{
	return nid == NUMA_NO_NODE || nid == rgn_nid;
}

/* A list under construction: regions in address order, and whether it overflowed. */
struct memblock_builder {
	struct memblock_region *regions;	/* [o] MEMBLOCK_MAX_REGIONS slots */
	u32 cnt;				/* [o] slots in use */
	bool overflow;				/* [o] a piece did not fit */
};

/*
 * Append [base, end) with nid and flags to the list being built.  Pieces
 * arrive in address order.  An empty piece is ignored; a piece that touches
 * the last region and has its nid and flags extends it; any other piece
 * takes the next slot, or sets overflow when there is none.
 */
static void builder_emit(struct memblock_builder *b, phys_addr_t base,
			 phys_addr_t end, int nid, u32 flags)
{
	struct memblock_region *last = b->cnt ? &b->regions[b->cnt - 1] : NULL;

	if (base >= end)
		return;
	MM_BUG_ON(last && base < region_end(last),
		  "piece 0x%llx below the end 0x%llx of the last region",
		  (unsigned long long)base, (unsigned long long)region_end(last));
	if (last && region_end(last) == base && last->nid == nid &&
	    last->flags == flags) {
		last->size += end - base;
		return;
	}
	if (b->cnt == MEMBLOCK_MAX_REGIONS) {
		b->overflow = true;
		return;
	}
	b->regions[b->cnt++] = (struct memblock_region){
		.base = base, .size = end - base, .nid = nid, .flags = flags,
	};
}

/* The three ways a list changes; see memblock_change(). */
enum memblock_op {
	MEMBLOCK_OP_INSERT,	/* cover [base, end); covered bytes keep nid and flags */
	MEMBLOCK_OP_CUT,	/* stop covering [base, end) */
	MEMBLOCK_OP_SET_NID,	/* covered bytes of [base, end) move to node nid */
};

/*
 * Apply op to [base, base + size) of type: walk the old regions in order,
 * write what each becomes (and, for an insertion, the new bytes in the gap
 * before it) into the scratch list, then copy that over the old list.
 * nid and flags are those of inserted bytes; SET_NID uses nid only.
 * Returns 0 (also for size 0, which changes nothing), -EINVAL if the range
 * wraps past 2^64, or -ENOSPC if the result needs more than
 * MEMBLOCK_MAX_REGIONS regions; on error type is unchanged.
 * Context: (boot); not reentrant (the scratch list is shared).
 */
static int memblock_change(struct memblock_type *type, enum memblock_op op,
			   phys_addr_t base, phys_addr_t size, int nid, u32 flags)
{
	struct memblock_builder b = { .regions = memblock_scratch };
	phys_addr_t end = base + size;
	phys_addr_t cursor = base;	/* INSERT: [base, cursor) is written */

	if (size == 0)
		return 0;
	if (end < base)
		return -EINVAL;

	for (u32 i = 0; i < type->cnt; i++) {
		const struct memblock_region *r = &type->regions[i];
		phys_addr_t rbase = r->base, rend = region_end(r);
		phys_addr_t lo = MAX(rbase, base), hi = MIN(rend, end);

		if (op == MEMBLOCK_OP_INSERT) {
			/* The new bytes in the gap below r, then r as it was. */
			builder_emit(&b, cursor, MIN(rbase, end), nid, flags);
			cursor = MAX(cursor, rend);
			builder_emit(&b, rbase, rend, r->nid, r->flags);
			continue;
		}
		if (lo >= hi) {
			/* r lies outside [base, end): unchanged. */
			builder_emit(&b, rbase, rend, r->nid, r->flags);
			continue;
		}
		/* r overlaps [base, end) in [lo, hi): keep what is outside. */
		builder_emit(&b, rbase, lo, r->nid, r->flags);
		if (op == MEMBLOCK_OP_SET_NID)
			builder_emit(&b, lo, hi, nid, r->flags);
		builder_emit(&b, hi, rend, r->nid, r->flags);
	}
	if (op == MEMBLOCK_OP_INSERT)
		builder_emit(&b, cursor, end, nid, flags);	/* above the last region */

	if (b.overflow)
		return -ENOSPC;
	memcpy(type->regions, b.regions, b.cnt * sizeof(b.regions[0]));
	type->cnt = b.cnt;
	return 0;
}

/*
 * memblock_init() - empty both lists and lift the allocation limit.
 * Context: (boot), before any other memblock call on mb.
 */
void memblock_init(struct memblock *mb)
{
	mb->memory.cnt = 0;
	mb->memory.name = "memory";
	mb->reserved.cnt = 0;
	mb->reserved.name = "reserved";
	mb->current_limit = MEMBLOCK_ALLOC_ANYWHERE;
}

/*
 * memblock_add_node() - add [base, base + size) to memory on node nid
 * (NUMA_NO_NODE if unknown) with flags.  Bytes already in memory keep their
 * node and flags.  Returns 0 (size 0 is a no-op), -EINVAL for a range that
 * wraps or a nid outside NUMA_NO_NODE, 0 .. MAX_NUMNODES - 1, or -ENOSPC
 * when the memory list would need more than MEMBLOCK_MAX_REGIONS regions
 * (then nothing changes).  Context: (boot).
 */
int memblock_add_node(struct memblock *mb, phys_addr_t base, phys_addr_t size,
		      int nid, u32 flags)
{
	if (!nid_valid(nid))
		return -EINVAL;
	return memblock_change(&mb->memory, MEMBLOCK_OP_INSERT, base, size,
			       nid, flags);
}

/* memblock_add() - memblock_add_node() with no node and no flags. Context: (boot). */
int memblock_add(struct memblock *mb, phys_addr_t base, phys_addr_t size)
{
	return memblock_add_node(mb, base, size, NUMA_NO_NODE, MEMBLOCK_NONE);
}

/*
 * memblock_remove() - take [base, base + size) out of memory, splitting a
 * region that contains it in two.  Reservations are not touched.  Returns
 * 0, -EINVAL for a wrapping range, or -ENOSPC if a split would need a slot
 * the full list does not have (then nothing changes).  Context: (boot).
 */
int memblock_remove(struct memblock *mb, phys_addr_t base, phys_addr_t size)
{
	return memblock_change(&mb->memory, MEMBLOCK_OP_CUT, base, size,
			       NUMA_NO_NODE, MEMBLOCK_NONE);
}

/*
 * memblock_set_node() - move the memory inside [base, base + size) to node
 * nid (SRAT affinity), splitting regions at the edges of the range and
 * merging the result with its neighbours.  Holes in the range stay holes.
 * Returns 0, -EINVAL (wrapping range, bad nid) or -ENOSPC (nothing
 * changes).  Context: (boot).
 */
int memblock_set_node(struct memblock *mb, phys_addr_t base, phys_addr_t size,
		      int nid)
{
	if (!nid_valid(nid))
		return -EINVAL;
	return memblock_change(&mb->memory, MEMBLOCK_OP_SET_NID, base, size,
			       nid, MEMBLOCK_NONE);
}

/*
 * memblock_reserve() - mark [base, base + size) taken; it need not be
 * memory, and may overlap earlier reservations.  Returns 0, -EINVAL for a
 * wrapping range, or -ENOSPC (nothing changes).  Context: (boot).
 */
int memblock_reserve(struct memblock *mb, phys_addr_t base, phys_addr_t size)
{
	return memblock_change(&mb->reserved, MEMBLOCK_OP_INSERT, base, size,
			       NUMA_NO_NODE, MEMBLOCK_NONE);
}

/*
 * memblock_phys_free() - give [base, base + size) back: remove it from the
 * reserved list (parts that were not reserved are ignored).  Returns 0,
 * -EINVAL for a wrapping range, or -ENOSPC if freeing the middle of a
 * reservation needs a slot the full list does not have.  Context: (boot).
 */
int memblock_phys_free(struct memblock *mb, phys_addr_t base, phys_addr_t size)
{
	return memblock_change(&mb->reserved, MEMBLOCK_OP_CUT, base, size,
			       NUMA_NO_NODE, MEMBLOCK_NONE);
}

/*
 * Gap k of the reserved list: the bytes between reserved regions k - 1 and
 * k, for k in 0 .. cnt.  Gap 0 starts at 0 and gap cnt ends at the top of
 * the address space; gap 0 is empty when a reservation starts at 0.
 */
static void reserved_gap(const struct memblock_type *rsv, u32 k,
			 phys_addr_t *start, phys_addr_t *end)
{
	*start = k ? region_end(&rsv->regions[k - 1]) : 0;
	*end = k < rsv->cnt ? rsv->regions[k].base : MEMBLOCK_ALLOC_ANYWHERE;
}

/*
 * memblock_next_free_range() - the next free range in address order.
 *
 * Free ranges are the intersections of memory regions with the gaps of the
 * reserved list, found by walking both sorted sequences like a merge: a
 * region wholly above the current gap moves the gap on, a gap wholly above
 * the current region moves the region on, and after an overlap whichever of
 * the two ends first is done.  The two positions live in *idx: the memory
 * region in the low 32 bits, the reserved gap in the high 32 bits.  Each
 * range lies in one memory region, so it has one node (*out_nid); with nid
 * other than NUMA_NO_NODE, regions on other nodes (and regions with no node)
 * are skipped.  start, end and out_nid may be NULL.  The lists must not
 * change between calls.  Context: (boot) or (main); reads mb only.
 */
bool memblock_next_free_range(const struct memblock *mb, u64 *idx, int nid,
			      phys_addr_t *start, phys_addr_t *end, int *out_nid)
{
	const struct memblock_type *mem = &mb->memory, *rsv = &mb->reserved;
	u32 ia = (u32)*idx, ib = (u32)(*idx >> 32);

	/* ib <= rsv->cnt holds: the last gap reaches the top of memory. */
	while (ia < mem->cnt && ib <= rsv->cnt) {
		const struct memblock_region *m = &mem->regions[ia];
		phys_addr_t mbase = m->base, mend = region_end(m);
		phys_addr_t gbase, gend;

		if (!nid_matches(nid, m->nid)) {
			ia++;
			continue;
		}
		reserved_gap(rsv, ib, &gbase, &gend);
		if (gend <= mbase) {		/* gap below the region */
			ib++;
			continue;
		}
		if (gbase >= mend) {		/* gap above the region */
			ia++;
			continue;
		}
		if (start)
			*start = MAX(mbase, gbase);
		if (end)
			*end = MIN(mend, gend);
		if (out_nid)
			*out_nid = m->nid;
		if (mend <= gend)
			ia++;
		else
			ib++;
		*idx = (u64)ia | ((u64)ib << 32);
		return true;
	}
	*idx = (u64)mem->cnt | ((u64)rsv->cnt << 32);
	return false;
}

/*
 * The previous free range, walking down from the top: the mirror image of
 * memblock_next_free_range(), with the region index *ia starting at
 * memory.cnt - 1 and the gap index *ib at reserved.cnt.  Used by the
 * allocator only; reads mb.
 */
static bool memblock_prev_free_range(const struct memblock *mb, s32 *ia, s32 *ib,
				     int nid, phys_addr_t *start, phys_addr_t *end)
{
	const struct memblock_type *mem = &mb->memory, *rsv = &mb->reserved;

	/* *ib >= 0 holds: gap 0 starts at 0, below every region's end. */
	while (*ia >= 0) {
		const struct memblock_region *m = &mem->regions[*ia];
		phys_addr_t mbase = m->base, mend = region_end(m);
		phys_addr_t gbase, gend;

		if (!nid_matches(nid, m->nid)) {
			(*ia)--;
			continue;
		}
		reserved_gap(rsv, (u32)*ib, &gbase, &gend);
		if (gbase >= mend) {		/* gap above the region */
			(*ib)--;
			continue;
		}
		if (gend <= mbase) {		/* gap below the region */
			(*ia)--;
			continue;
		}
		*start = MAX(mbase, gbase);
		*end = MIN(mend, gend);
		if (gbase <= mbase)
			(*ia)--;
		else
			(*ib)--;
		return true;
	}
	return false;
}

/*
 * memblock_phys_alloc_range() - reserve and return the highest free,
 * align-aligned [base, base + size) inside [start, end), below
 * mb->current_limit and inside one memory region on node nid (NUMA_NO_NODE:
 * any).  Free ranges are visited from the top down; in each the highest
 * aligned base that fits is tried, so the first fit is the highest one.
 * Returns the base, or 0 when size is 0, align is not a power of two,
 * nothing fits, or the reserved list is full.  0 is never handed out (the
 * search starts at 1 at the lowest).  The memory is not cleared.
 * Context: (boot).
 */
phys_addr_t memblock_phys_alloc_range(struct memblock *mb, phys_addr_t size,
				      phys_addr_t align, phys_addr_t start,
				      phys_addr_t end, int nid)
{
	s32 ia = (s32)mb->memory.cnt - 1, ib = (s32)mb->reserved.cnt;
	phys_addr_t fstart, fend;

	if (size == 0 || align == 0 || (align & (align - 1)))
		return 0;
	start = MAX(start, 1);
	end = MIN(end, mb->current_limit);
	if (start >= end)
		return 0;

	while (memblock_prev_free_range(mb, &ia, &ib, nid, &fstart, &fend)) {
		phys_addr_t lo = MAX(fstart, start), hi = MIN(fend, end);
		phys_addr_t base;

		if (fend <= start)
			break;			/* this range and all below it are too low */
		if (hi <= lo || hi - lo < size)
			continue;
		base = ALIGN_DOWN(hi - size, align);
		if (base < lo)
			continue;
		if (memblock_reserve(mb, base, size))
			return 0;
		return base;
	}
	return 0;
}

/*
 * memblock_phys_alloc_try_nid() - allocate anywhere below current_limit,
 * on node nid if it has room, else on any node.  Returns the base or 0.
 * Context: (boot).
 */
phys_addr_t memblock_phys_alloc_try_nid(struct memblock *mb, phys_addr_t size,
					phys_addr_t align, int nid)
{
	phys_addr_t pa;

	pa = memblock_phys_alloc_range(mb, size, align, 0,
				       MEMBLOCK_ALLOC_ANYWHERE, nid);
	if (!pa && nid != NUMA_NO_NODE)
		pa = memblock_phys_alloc_range(mb, size, align, 0,
					       MEMBLOCK_ALLOC_ANYWHERE,
					       NUMA_NO_NODE);
	return pa;
}

/*
 * The index of the region of type that holds addr, or -1: a binary search,
 * which the sorted, non-overlapping list allows.
 */
static s32 memblock_search(const struct memblock_type *type, phys_addr_t addr)
{
	u32 lo = 0, hi = type->cnt;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		const struct memblock_region *r = &type->regions[mid];

		if (addr < r->base)
			hi = mid;
		else if (addr - r->base >= r->size)
			lo = mid + 1;
		else
			return (s32)mid;
	}
	return -1;
}

/* memblock_is_memory() - is addr in a memory region? Context: (boot) or (main). */
bool memblock_is_memory(const struct memblock *mb, phys_addr_t addr)
{
	return memblock_search(&mb->memory, addr) >= 0;
}

/* memblock_is_reserved() - is addr in a reserved region? Context: (boot) or (main). */
bool memblock_is_reserved(const struct memblock *mb, phys_addr_t addr)
{
	return memblock_search(&mb->reserved, addr) >= 0;
}

/*
 * memblock_nid_of() - the node of the memory region holding addr, or
 * NUMA_NO_NODE if addr is not memory (or its region has no node).
 * Context: (boot) or (main).
 */
int memblock_nid_of(const struct memblock *mb, phys_addr_t addr)
{
	s32 i = memblock_search(&mb->memory, addr);

	return i < 0 ? NUMA_NO_NODE : mb->memory.regions[i].nid;
}

/* Sum of the sizes of type's regions (cannot wrap: they are disjoint). */
static phys_addr_t memblock_type_size(const struct memblock_type *type)
{
	phys_addr_t sum = 0;

	for (u32 i = 0; i < type->cnt; i++)
		sum += type->regions[i].size;
	return sum;
}

/* memblock_phys_mem_size() - bytes of memory. Context: (boot) or (main). */
phys_addr_t memblock_phys_mem_size(const struct memblock *mb)
{
	return memblock_type_size(&mb->memory);
}

/* memblock_reserved_size() - bytes reserved. Context: (boot) or (main). */
phys_addr_t memblock_reserved_size(const struct memblock *mb)
{
	return memblock_type_size(&mb->reserved);
}

/* memblock_start_of_DRAM() - lowest memory address, 0 if none. Context: (boot) or (main). */
phys_addr_t memblock_start_of_DRAM(const struct memblock *mb)
{
	return mb->memory.cnt ? mb->memory.regions[0].base : 0;
}

/*
 * memblock_end_of_DRAM() - the first byte above the highest memory region,
 * 0 if there is none.  Context: (boot) or (main).
 */
phys_addr_t memblock_end_of_DRAM(const struct memblock *mb)
{
	const struct memblock_type *mem = &mb->memory;

	return mem->cnt ? region_end(&mem->regions[mem->cnt - 1]) : 0;
}

/* Print type's count and one line per region, ends inclusive as Linux prints them. */
static void memblock_dump_type(const struct memblock_type *type, struct printer *p)
{
	pr_printf(p, " %s.cnt  = 0x%x\n", type->name, type->cnt);
	for (u32 i = 0; i < type->cnt; i++) {
		const struct memblock_region *r = &type->regions[i];

		pr_printf(p, " %s[0x%x]\t[0x%016llx-0x%016llx], 0x%016llx bytes",
			  type->name, i, (unsigned long long)r->base,
			  (unsigned long long)(region_end(r) - 1),
			  (unsigned long long)r->size);
		if (r->nid != NUMA_NO_NODE)
			pr_printf(p, " on node %d", r->nid);
		pr_printf(p, " flags: 0x%x\n", r->flags);
	}
}

/*
 * memblock_dump() - both lists in the form Linux logs with memblock=debug:
 * a "MEMBLOCK configuration:" header, the two totals, then per list its
 * count and one line per region, e.g.
 *   " memory[0x0]\t[0x0000000000001000-0x000000000009efff], 0x000000000009e000 bytes on node 0 flags: 0x0"
 * (" on node N" only for regions with a node).  The `memblock` shell
 * command prints this.  Context: (boot) or (main); reads mb only.
 */
void memblock_dump(const struct memblock *mb, struct printer *p)
{
	pr_printf(p, "MEMBLOCK configuration:\n");
	pr_printf(p, " memory size = 0x%016llx reserved size = 0x%016llx\n",
		  (unsigned long long)memblock_phys_mem_size(mb),
		  (unsigned long long)memblock_reserved_size(mb));
	memblock_dump_type(&mb->memory, p);
	memblock_dump_type(&mb->reserved, p);
}

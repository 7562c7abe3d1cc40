/*
 * sparse.h - sections: which parts of the physical address space exist and
 * have a memmap (SPARSEMEM with VMEMMAP, x86_64 geometry).
 *
 * The address space is cut into 128 MiB sections; section_nr = pfn >> 15.
 * Each has a struct mem_section with state flags, the map of its 2 MiB
 * subsections that are present, and the flags of its 64 pageblocks.  The
 * table is two-level (as SPARSEMEM_EXTREME): mem_section_roots[] points to
 * 4 KiB root pages of SECTIONS_PER_ROOT sections, allocated on first use, so
 * a 64 TiB address space costs 64 KiB until memory appears.
 *
 * Section states (flags):
 *   SECTION_MARKED_PRESENT  memory exists here (firmware map, or hot-added)
 *   SECTION_HAS_MEM_MAP     struct pages are allocated and mapped (vmemmap)
 *   SECTION_IS_ONLINE       the pages were given to the allocator
 *   SECTION_IS_EARLY        present since boot (pfn_valid for the whole section)
 *   SECTION_MEMMAP_DEFERRED boot memory whose struct pages are not initialised
 *                           yet (deferred_init=new, mm/deferred_init.c): the
 *                           memmap is mapped but says nothing, so pfn_valid()
 *                           is false until deferred init clears the bit
 *   SECTION_MEMMAP_UNWRITTEN an offline hot-added section whose memmap was
 *                           never written: it went offline while still
 *                           pending (deferred_init_hotplug_discard()), so
 *                           it holds neither struct pages nor the offline
 *                           poison; the next online or the removal clears it
 * Transitions: absent -> present -> has-memmap -> online, and back in
 * reverse order on removal; sparse_* functions are the only writers, and
 * they are mm's own (mm/internal.h).
 *
 * Context: (boot) and (main); the section table is read from (any).
 */
#ifndef MM_SPARSE_H
#define MM_SPARSE_H

#include <mm/page.h>
#include <lib/printer.h>

#define SECTION_MARKED_PRESENT	(1UL << 0)
#define SECTION_HAS_MEM_MAP	(1UL << 1)
#define SECTION_IS_ONLINE	(1UL << 2)
#define SECTION_IS_EARLY	(1UL << 3)
#define SECTION_MEMMAP_DEFERRED	(1UL << 4)
#define SECTION_MEMMAP_UNWRITTEN	(1UL << 5)

/* Pageblock flags: 4 bits each, migratetype in bits 0-2, isolate in bit 3. */
#define PB_MIGRATETYPE_BITS	3
#define PB_MIGRATETYPE_MASK	((1u << PB_MIGRATETYPE_BITS) - 1)
#define PB_MIGRATE_ISOLATE_BIT	(1u << 3)
#define PB_BITS			4

struct mem_section {
	unsigned long flags;		/* [h] SECTION_* state bits; MEMMAP_DEFERRED [n] (atomic) */
	u64 subsection_map;		/* [h] bit i: subsection i has memory */
	u64 pageblock_flags[PAGEBLOCKS_PER_SECTION * PB_BITS / 64]; /* [z] [h] 4 bits per pageblock (atomic: a word may span two zones) */
	s32 nid;			/* [h] node the memory belongs to, NUMA_NO_NODE if absent */
	u32 nr_present_pages;		/* [h] pages of memory (holes excluded) */
	phys_addr_t memmap_pa;		/* [h] backing of this section's struct pages, 0 if none */
};

_Static_assert(sizeof(struct mem_section) == 64, "mem_section: 64 per 4 KiB root page");

#define SECTIONS_PER_ROOT	(4096 / sizeof(struct mem_section))
#define NR_SECTION_ROOTS	((NR_MEM_SECTIONS + SECTIONS_PER_ROOT - 1) / SECTIONS_PER_ROOT)

static inline u64 pfn_to_section_nr(u64 pfn) { return pfn >> PFN_SECTION_SHIFT; }
static inline u64 section_nr_to_pfn(u64 nr) { return nr << PFN_SECTION_SHIFT; }
static inline unsigned pfn_to_subsection(u64 pfn)
{
	return (unsigned)((pfn & ~PAGE_SECTION_MASK) >> PFN_SUBSECTION_SHIFT);
}

/*
 * The section table's roots (mm/sparse.c writes them; everything else
 * only reads them, through __nr_to_section()).
 */
extern struct mem_section *mem_section_roots[NR_SECTION_ROOTS];

/*
 * __nr_to_section() - the section, or NULL if its root is not allocated.
 * Inline: pfn_valid() and pfn_to_online_page() run it for every page a
 * walk looks at.
 */
static inline struct mem_section *__nr_to_section(u64 section_nr)
{
	struct mem_section *root;

	if (section_nr >= NR_MEM_SECTIONS)
		return NULL;
	root = mem_section_roots[section_nr / SECTIONS_PER_ROOT];
	return root ? &root[section_nr % SECTIONS_PER_ROOT] : NULL;
}

static inline struct mem_section *__pfn_to_section(u64 pfn)
{
	return pfn < MAX_PFN ? __nr_to_section(pfn_to_section_nr(pfn)) : NULL;
}

static inline bool present_section(const struct mem_section *ms)
{
	return ms && (ms->flags & SECTION_MARKED_PRESENT);
}

static inline bool valid_section(const struct mem_section *ms)
{
	return ms && (ms->flags & SECTION_HAS_MEM_MAP);
}

static inline bool online_section(const struct mem_section *ms)
{
	return ms && (ms->flags & SECTION_IS_ONLINE);
}

static inline bool early_section(const struct mem_section *ms)
{
	return ms && (ms->flags & SECTION_IS_EARLY);
}

static inline bool deferred_section(const struct mem_section *ms)
{
	/* read without mem_resize_lock by pfn_valid() on any CPU */
	return ms && (MM_READ_ONCE(ms->flags) & SECTION_MEMMAP_DEFERRED);
}

static inline bool memmap_unwritten_section(const struct mem_section *ms)
{
	return ms && (MM_READ_ONCE(ms->flags) & SECTION_MEMMAP_UNWRITTEN);
}

/*
 * pfn_valid() - a struct page exists for pfn and may be read (it says
 * nothing about whether the page is online).  True for every pfn of an early
 * section with a memmap; in other sections only where the subsection is
 * present.  False in a section whose memmap init is still deferred
 * (SECTION_MEMMAP_DEFERRED): its struct pages may not be read yet.
 */
static inline bool pfn_valid(u64 pfn)
{
	struct mem_section *ms = __pfn_to_section(pfn);

	if (!valid_section(ms) || (ms->flags & SECTION_MEMMAP_DEFERRED))
		return false;
	return early_section(ms) || (ms->subsection_map >> pfn_to_subsection(pfn)) & 1;
}

/* pfn_to_online_page() - the page if pfn is valid and its section online, else NULL. */
static inline struct page *pfn_to_online_page(u64 pfn)
{
	struct mem_section *ms = __pfn_to_section(pfn);

	if (!online_section(ms) || !pfn_valid(pfn))
		return NULL;
	return pfn_to_page(pfn);
}

/*
 * Pageblock migratetype and isolate bit of the pageblock holding pfn (the
 * writers, set_pageblock_*(), are mm's own: mm/internal.h).
 */
int get_pageblock_migratetype(u64 pfn);
bool get_pageblock_isolate(u64 pfn);

/*
 * pageblock_flags_generation() - a number that changes whenever any
 * pageblock's migratetype or isolate bit does (a write of the value it
 * already has changes nothing): the view channel's zones signature, so a
 * pageblock that changes type without any free count moving (a steal of
 * a block whose free pages move lists, an isolation) is still sent.
 * Context: any; a relaxed read.
 */
u64 pageblock_flags_generation(void);

/*
 * sparse_memmap_at() - does a section's memmap (its 2 MiB of struct pages)
 * live in the pfns [start_pfn, end_pfn)?  Then *section_nr is the first
 * such section and the result true.  Context: (main).
 */
bool sparse_memmap_at(u64 start_pfn, u64 end_pfn, u64 *section_nr);

/* sparse_for_each_present() - iterate: *section_nr is advanced to the next
 * present section at or after it; false when there is none. */
bool sparse_next_present(u64 *section_nr);

/* sparse_reset() - forget every section (host tests only). */
void sparse_reset(void);

/* sparse_dump() - one line per present section: number, range, node, flags. */
void sparse_dump(struct printer *p);

#endif

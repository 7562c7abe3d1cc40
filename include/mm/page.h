/*
 * page.h - struct page and the geometry of physical memory.
 *
 * Geometry (x86_64, as Linux): 4 KiB pages; pageblocks of 512 pages (2 MiB);
 * buddy orders 0..MAX_PAGE_ORDER (10, 4 MiB); sections of 32768 pages
 * (128 MiB) made of 64 subsections of 512 pages; physical addresses up to
 * MAX_PHYSMEM_BITS (46, 64 TiB).
 *
 * struct page: one per 4 KiB page frame, exactly 64 bytes, reached as
 * pfn_to_page(pfn) = mm_vmemmap + pfn.  Fields are valid in these states
 * (letters used in the field comments):
 *   (A) always, once the memmap of the pfn is initialised
 *   (B) while the page heads a free block in the buddy (PageBuddy)
 *   (P) while the page sits on a per-CPU free list (PagePcp)
 *   (U) while the page is allocated: owned by whoever allocated it
 *   (C) compound tail pages (compound_head has bit 0 set)
 * Lock tags (the lock legend, platform.h): a page's fields are its owner's
 * of the time: [z] while it is free in the buddy (zone->lock), [p] while
 * on a pcp list (the pcp lock), [o] whoever allocated it; [h] while its
 * memmap is initialised or retired (zone and node bits, type).
 * Invariants:
 *   - a free buddy block of order k starts at a pfn aligned to 2^k, its head
 *     has page_type PGTY_BUDDY and private = k; its other pages are plain;
 *   - refcount is 0 for free pages (buddy or pcp) and >= 1 for allocated
 *     ones; reserved pages (PG_reserved) have refcount 1 and are never freed;
 *   - zone and node in flags never change while the page is online.
 */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include <lib/types.h>
#include <lib/list.h>
#include <mm/platform.h>

#define PAGE_SHIFT		12
#define PAGE_SIZE		(1ULL << PAGE_SHIFT)
#define PFN_PHYS(pfn)		((phys_addr_t)(pfn) << PAGE_SHIFT)
#define PHYS_PFN(pa)		((u64)((pa) >> PAGE_SHIFT))
#define PFN_UP(pa)		((u64)(((pa) + PAGE_SIZE - 1) >> PAGE_SHIFT))
#define PFN_DOWN(pa)		PHYS_PFN(pa)

#define MAX_PAGE_ORDER		10
#define NR_PAGE_ORDERS		(MAX_PAGE_ORDER + 1)
#define MAX_ORDER_NR_PAGES	(1UL << MAX_PAGE_ORDER)
#define PAGE_ALLOC_COSTLY_ORDER	3	/* pcp lists hold orders 0..3 */

#define pageblock_order		9
#define pageblock_nr_pages	(1UL << pageblock_order)
#define pageblock_start_pfn(pfn) ALIGN_DOWN((u64)(pfn), pageblock_nr_pages)
#define pageblock_end_pfn(pfn)	(pageblock_start_pfn(pfn) + pageblock_nr_pages)

#define SECTION_SIZE_BITS	27
#define PFN_SECTION_SHIFT	(SECTION_SIZE_BITS - PAGE_SHIFT)
#define PAGES_PER_SECTION	(1UL << PFN_SECTION_SHIFT)
#define PAGE_SECTION_MASK	(~(PAGES_PER_SECTION - 1))
#define SUBSECTION_SHIFT	21
#define PFN_SUBSECTION_SHIFT	(SUBSECTION_SHIFT - PAGE_SHIFT)
#define PAGES_PER_SUBSECTION	(1UL << PFN_SUBSECTION_SHIFT)
#define SUBSECTIONS_PER_SECTION	(1UL << (SECTION_SIZE_BITS - SUBSECTION_SHIFT))
#define PAGEBLOCKS_PER_SECTION	(PAGES_PER_SECTION / pageblock_nr_pages)
#define MAX_PHYSMEM_BITS	46
#define NR_MEM_SECTIONS		(1UL << (MAX_PHYSMEM_BITS - SECTION_SIZE_BITS))
#define MAX_PFN			(1ULL << (MAX_PHYSMEM_BITS - PAGE_SHIFT))

_Static_assert(MAX_PAGE_ORDER >= pageblock_order, "a pageblock must fit in a max-order block");
_Static_assert((1UL << MAX_PAGE_ORDER) <= PAGES_PER_SECTION, "a buddy block must fit in a section");

#define MAX_NUMNODES		8
#define NUMA_NO_NODE		(-1)

enum zone_type {
	ZONE_DMA,	/* [0, 16 MiB): ISA DMA */
	ZONE_DMA32,	/* [16 MiB, 4 GiB): 32-bit DMA */
	ZONE_NORMAL,	/* everything else the kernel may use */
	ZONE_MOVABLE,	/* only movable allocations: can be offlined */
	ZONE_DEVICE,	/* device memory with a memmap, never in the buddy */
	MAX_NR_ZONES
};

/* page->flags: the low bits are PG_* flags, the top bits zone and node. */
enum pageflags {
	PG_reserved,	/* not available to the allocator (boot reservations, holes) */
	PG_head,	/* first page of a compound page */
	PG_poisoned,	/* poisoned free page (page poisoning) */
	PG_owner_priv,	/* the allocator's owner uses private */
	PG_isolated,	/* taken off the free lists by isolation (contig alloc, offline) */
	__NR_PAGEFLAGS
};

#define ZONES_WIDTH		3
#define NODES_WIDTH		6
#define ZONES_PGSHIFT		(64 - ZONES_WIDTH)
#define NODES_PGSHIFT		(ZONES_PGSHIFT - NODES_WIDTH)
#define ZONES_MASK		((1UL << ZONES_WIDTH) - 1)
#define NODES_MASK		((1UL << NODES_WIDTH) - 1)
_Static_assert(MAX_NR_ZONES <= (1 << ZONES_WIDTH), "zones must fit in page->flags");
_Static_assert(MAX_NUMNODES <= (1 << NODES_WIDTH), "nodes must fit in page->flags");
_Static_assert(__NR_PAGEFLAGS <= NODES_PGSHIFT, "page flags overlap the node bits");

/*
 * page_type values (the top byte) for pages that are not mapped; a page with
 * no type has page_type == PAGE_TYPE_NONE (that is, mapcount -1).
 */
#define PAGE_TYPE_NONE		0xffffffffu
#define PGTY_BUDDY		0xf0u	/* heads a free block in the buddy */
#define PGTY_PCP		0xf1u	/* on a per-CPU free list (memlab's addition) */
#define PGTY_OFFLINE		0xf2u	/* memory not given to the buddy (offline, unplugged) */
#define PGTY_TABLE		0xf3u	/* a page-table or memmap page */

struct page {
	unsigned long flags;		/* [z] [p] [o] [h] (A) PG_* bits, zone and node in the top bits */
	union {
		struct list_head lru;	/* [z] [p] [o] (B,P) free or pcp list link; (U) owner's list */
		struct {
			unsigned long compound_head; /* [o] (C) head page address | 1 */
			unsigned long compound_info; /* [o] (C, first tail) order in bits 0-7 */
		};
	};
	void *owner;			/* [o] (U) who to tell when the page moves (migration) */
	unsigned long index;		/* [o] (U) owner's data: offset, handle id */
	unsigned long private;		/* [z] [p] [o] (B) buddy order; (P) pcp order; (U) owner's */
	u32 page_type;			/* [z] [p] [o] [h] (A) PGTY_* in the top byte, or PAGE_TYPE_NONE */
	s32 refcount;			/* [z] [p] [o] (A) references; 0 when free */
	unsigned long memlab_debug;	/* [o] (A) free for tracing/debug use; 0 normally */
};

_Static_assert(sizeof(struct page) == 64, "struct page must be exactly 64 bytes");

static inline struct page *pfn_to_page(u64 pfn) { return mm_vmemmap + pfn; }
static inline u64 page_to_pfn(const struct page *page) { return (u64)(page - mm_vmemmap); }
static inline phys_addr_t page_to_phys(const struct page *page) { return PFN_PHYS(page_to_pfn(page)); }

static inline bool page_flag_test(const struct page *p, enum pageflags f) { return p->flags & (1UL << f); }

#define PageReserved(p)		page_flag_test(p, PG_reserved)
#define PageHead(p)		page_flag_test(p, PG_head)

static inline enum zone_type page_zonenum(const struct page *p)
{
	return (enum zone_type)((p->flags >> ZONES_PGSHIFT) & ZONES_MASK);
}

static inline int page_to_nid(const struct page *p)
{
	return (int)((p->flags >> NODES_PGSHIFT) & NODES_MASK);
}

static inline bool page_has_type(const struct page *p, u32 type)
{
	return (MM_READ_ONCE(p->page_type) >> 24) == type;
}

#define PageBuddy(p)	page_has_type(p, PGTY_BUDDY)
#define PagePcp(p)	page_has_type(p, PGTY_PCP)
#define PageOffline(p)	page_has_type(p, PGTY_OFFLINE)

static inline unsigned buddy_order(const struct page *p) { return (unsigned)p->private; }

/*
 * page_private() - the private word of page as it is, for a dump of the
 * struct page: what it means depends on the page's type (buddy order, pcp
 * order, the owner's).  Context: any.
 */
static inline unsigned long page_private(const struct page *p) { return p->private; }

static inline bool PageTail(const struct page *p) { return p->compound_head & 1; }
static inline struct page *compound_head(struct page *p)
{
	return PageTail(p) ? (struct page *)(p->compound_head - 1) : p;
}

/* page_names: "reserved", ... for PG_* bits; type name for page_type. */
const char *page_flag_name(enum pageflags f);
const char *page_type_name(const struct page *p);

#endif

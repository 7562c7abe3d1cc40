/*
 * sparse.c - the section table: which 128 MiB sections have memory, which
 * have a memmap, which are online, and the flags of their pageblocks.
 *
 * The table is two-level.  mem_section_roots[] has one pointer per
 * SECTIONS_PER_ROOT (64) sections; a root is a 4 KiB page holding 64
 * struct mem_section, allocated the first time a section in its range gets
 * memory.  __nr_to_section() is therefore two array lookups, and the table
 * for the whole 64 TiB physical address space costs 64 KiB of pointers
 * until memory shows up.  A root taken at boot stays for good.  A root
 * taken for hot-added memory (root_late) is given back when the last
 * present section of its 64 goes (sparse_release_root()), so that adding
 * and removing memory at ever new addresses keeps nothing.
 *
 * Each function below changes one kind of state and says which; together
 * they are the only writers of struct mem_section.
 */
#include <mm/sparse.h>
#include <lib/errno.h>
#include <lib/string.h>

struct mem_section *mem_section_roots[NR_SECTION_ROOTS];	/* [h] */

/* [h] Bit r: root r was allocated after boot (early == false), so it may be
 * given back.  Written with mem_section_roots[], (boot)/(main). */
static u64 root_late[(NR_SECTION_ROOTS + 63) / 64];

/* Make sure the root holding section_nr exists; NULL if it cannot be had. */
static struct mem_section *section_get_or_alloc(u64 section_nr, bool early,
						void *(*root_alloc)(void *ctx), void *ctx)
{
	u64 r = section_nr / SECTIONS_PER_ROOT;

	if (!mem_section_roots[r]) {
		struct mem_section *root = root_alloc ? root_alloc(ctx) : NULL;

		if (!root)
			return NULL;
		memset(root, 0, 4096);
		for (unsigned i = 0; i < SECTIONS_PER_ROOT; i++)
			root[i].nid = NUMA_NO_NODE;
		mem_section_roots[r] = root;
		if (!early)
			root_late[r / 64] |= 1ULL << (r % 64);
	}
	return __nr_to_section(section_nr);
}

/* Subsection bits of [start_pfn, end_pfn) within one section. */
static u64 subsection_mask(u64 start_pfn, u64 end_pfn)
{
	unsigned first = pfn_to_subsection(start_pfn);
	unsigned last = pfn_to_subsection(end_pfn - 1);
	unsigned n = last - first + 1;

	return (n == 64 ? ~0ULL : ((1ULL << n) - 1)) << first;
}

int sparse_add_present(u64 start_pfn, u64 end_pfn, int nid, bool early,
		       void *(*root_alloc)(void *ctx), void *ctx)
{
	if (start_pfn >= end_pfn)
		return 0;
	if (end_pfn > MAX_PFN)
		return -EINVAL;
	/* First make sure every root exists, so a failure changes nothing. */
	for (u64 nr = pfn_to_section_nr(start_pfn); nr <= pfn_to_section_nr(end_pfn - 1); nr++)
		if (!section_get_or_alloc(nr, early, root_alloc, ctx))
			return -ENOMEM;
	for (u64 pfn = start_pfn; pfn < end_pfn; ) {
		u64 nr = pfn_to_section_nr(pfn);
		u64 sec_end = MIN(section_nr_to_pfn(nr + 1), end_pfn);
		struct mem_section *ms = __nr_to_section(nr);

		ms->flags |= SECTION_MARKED_PRESENT | (early ? SECTION_IS_EARLY : 0);
		ms->subsection_map |= subsection_mask(pfn, sec_end);
		ms->nid = nid;
		ms->nr_present_pages += (u32)(sec_end - pfn);
		pfn = sec_end;
	}
	return 0;
}

void sparse_remove_present(u64 start_pfn, u64 end_pfn)
{
	for (u64 pfn = start_pfn; pfn < end_pfn; ) {
		u64 nr = pfn_to_section_nr(pfn);
		u64 sec_end = MIN(section_nr_to_pfn(nr + 1), end_pfn);
		struct mem_section *ms = __nr_to_section(nr);

		MM_BUG_ON(!present_section(ms), "section %llu", (unsigned long long)nr);
		MM_BUG_ON(ms->nr_present_pages < sec_end - pfn, "section %llu has %u pages, removing %llu",
			  (unsigned long long)nr, ms->nr_present_pages,
			  (unsigned long long)(sec_end - pfn));
		ms->subsection_map &= ~subsection_mask(pfn, sec_end);
		ms->nr_present_pages -= (u32)(sec_end - pfn);
		if (!ms->nr_present_pages) {
			ms->flags = 0;
			ms->subsection_map = 0;
			ms->nid = NUMA_NO_NODE;
			memset(ms->pageblock_flags, 0, sizeof(ms->pageblock_flags));
		}
		pfn = sec_end;
	}
}

void *sparse_release_root(u64 section_nr)
{
	u64 r = section_nr / SECTIONS_PER_ROOT;
	struct mem_section *root = r < NR_SECTION_ROOTS ? mem_section_roots[r] : NULL;

	if (!root || !(root_late[r / 64] & (1ULL << (r % 64))))
		return NULL;
	for (unsigned i = 0; i < SECTIONS_PER_ROOT; i++)
		if (root[i].flags)
			return NULL;
	mem_section_roots[r] = NULL;
	root_late[r / 64] &= ~(1ULL << (r % 64));
	return root;
}

void sparse_set_memmap(u64 section_nr, phys_addr_t memmap_pa)
{
	struct mem_section *ms = __nr_to_section(section_nr);

	MM_BUG_ON(!present_section(ms), "section %llu is not present", (unsigned long long)section_nr);
	ms->flags |= SECTION_HAS_MEM_MAP;
	ms->memmap_pa = memmap_pa;
}

void sparse_clear_memmap(u64 section_nr)
{
	struct mem_section *ms = __nr_to_section(section_nr);

	MM_BUG_ON(online_section(ms), "section %llu is still online", (unsigned long long)section_nr);
	if (ms) {
		ms->flags &= ~(SECTION_HAS_MEM_MAP | SECTION_MEMMAP_UNWRITTEN);
		ms->memmap_pa = 0;
	}
}

void sparse_set_deferred(u64 section_nr, bool deferred)
{
	struct mem_section *ms = __nr_to_section(section_nr);

	MM_BUG_ON(!valid_section(ms), "section %llu has no memmap", (unsigned long long)section_nr);
	/* atomic: pfn_valid() reads the bit on other CPUs without the lock; the
	 * release orders the section's struct pages before it */
	if (deferred)
		__atomic_fetch_or(&ms->flags, SECTION_MEMMAP_DEFERRED, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&ms->flags, ~SECTION_MEMMAP_DEFERRED, __ATOMIC_RELEASE);
}

/* Contract in mm/internal.h. */
void sparse_set_unwritten(u64 section_nr)
{
	struct mem_section *ms = __nr_to_section(section_nr);

	MM_BUG_ON(!valid_section(ms) || deferred_section(ms),
		  "section %llu: memmap %d, pending %d", (unsigned long long)section_nr,
		  valid_section(ms), deferred_section(ms));
	__atomic_fetch_or(&ms->flags, SECTION_MEMMAP_UNWRITTEN, __ATOMIC_RELAXED);
}

/* Online/offline work on whole sections: a section is online when any of
 * its memory is (Linux sets the bit per section, memory blocks are whole
 * sections).  The range is rounded to sections. */
void sparse_set_online(u64 start_pfn, u64 end_pfn)
{
	for (u64 nr = pfn_to_section_nr(start_pfn); start_pfn < end_pfn &&
	     nr <= pfn_to_section_nr(end_pfn - 1); nr++) {
		struct mem_section *ms = __nr_to_section(nr);

		if (valid_section(ms))	/* the online writes it or defers it */
			ms->flags = (ms->flags | SECTION_IS_ONLINE) & ~SECTION_MEMMAP_UNWRITTEN;
	}
}

void sparse_set_offline(u64 start_pfn, u64 end_pfn)
{
	for (u64 nr = pfn_to_section_nr(start_pfn); start_pfn < end_pfn &&
	     nr <= pfn_to_section_nr(end_pfn - 1); nr++) {
		struct mem_section *ms = __nr_to_section(nr);

		if (ms)
			ms->flags &= ~SECTION_IS_ONLINE;
	}
}

/* Where the 4 flag bits of pfn's pageblock live: word and shift. */
static u64 *pageblock_word(u64 pfn, unsigned *shift)
{
	struct mem_section *ms = __pfn_to_section(pfn);
	unsigned idx = (unsigned)((pfn & ~PAGE_SECTION_MASK) >> pageblock_order);

	MM_BUG_ON(!present_section(ms), "pfn %#llx is not in a present section",
		  (unsigned long long)pfn);
	*shift = (idx * PB_BITS) % 64;
	return &ms->pageblock_flags[idx * PB_BITS / 64];
}

/* Bumped by every write that changes a pageblock's flags, any CPU. [a] */
static u64 pageblock_flags_gen;

u64 pageblock_flags_generation(void)
{
	return MM_READ_ONCE(pageblock_flags_gen);
}

int get_pageblock_migratetype(u64 pfn)
{
	unsigned shift;
	u64 *w = pageblock_word(pfn, &shift);

	return (int)((MM_READ_ONCE(*w) >> shift) & PB_MIGRATETYPE_MASK);
}

void set_pageblock_migratetype(u64 pfn, int migratetype)
{
	unsigned shift;
	u64 *w = pageblock_word(pfn, &shift);
	u64 old, new;

	MM_BUG_ON(migratetype < 0 || migratetype > (int)PB_MIGRATETYPE_MASK,
		  "migratetype %d", migratetype);
	old = MM_READ_ONCE(*w);
	/* Atomic: the word's 16 pageblocks may belong to two zones, written
	 * under two zone locks; readers (buddy_list_mt()) take none. */
	do
		new = (old & ~((u64)PB_MIGRATETYPE_MASK << shift)) | ((u64)migratetype << shift);
	while (!__atomic_compare_exchange_n(w, &old, new, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
	if (new != old)
		MM_STAT_ADD(pageblock_flags_gen, 1);
}

bool get_pageblock_isolate(u64 pfn)
{
	unsigned shift;
	u64 *w = pageblock_word(pfn, &shift);

	return (MM_READ_ONCE(*w) >> shift) & PB_MIGRATE_ISOLATE_BIT;
}

void set_pageblock_isolate(u64 pfn, bool isolated)
{
	unsigned shift;
	u64 *w = pageblock_word(pfn, &shift);

	u64 bit = (u64)PB_MIGRATE_ISOLATE_BIT << shift;
	u64 was;

	if (isolated)
		was = __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
	else
		was = __atomic_fetch_and(w, ~bit, __ATOMIC_RELAXED);
	if (!(was & bit) != !isolated)
		MM_STAT_ADD(pageblock_flags_gen, 1);
}

bool sparse_next_present(u64 *section_nr)
{
	for (u64 nr = *section_nr; nr < NR_MEM_SECTIONS; nr++) {
		if (!mem_section_roots[nr / SECTIONS_PER_ROOT]) {
			nr = ALIGN_UP(nr + 1, SECTIONS_PER_ROOT) - 1;	/* skip the empty root */
			continue;
		}
		if (present_section(__nr_to_section(nr))) {
			*section_nr = nr;
			return true;
		}
	}
	return false;
}

bool sparse_memmap_at(u64 start_pfn, u64 end_pfn, u64 *section_nr)
{
	const u64 memmap_pages = PAGES_PER_SECTION * sizeof(struct page) / PAGE_SIZE;

	for (u64 nr = 0; sparse_next_present(&nr); nr++) {
		const struct mem_section *ms = __nr_to_section(nr);
		u64 first = ms->memmap_pa >> PAGE_SHIFT;

		if ((ms->flags & SECTION_HAS_MEM_MAP) && first < end_pfn &&
		    start_pfn < first + memmap_pages) {
			*section_nr = nr;
			return true;
		}
	}
	return false;
}

void sparse_reset(void)
{
	/* Host tests only: the roots came from the test's allocator and
	 * belong to it; forget them. */
	memset(mem_section_roots, 0, sizeof(mem_section_roots));
	memset(root_late, 0, sizeof(root_late));
}

void sparse_dump(struct printer *p)
{
	u64 nr = 0;
	unsigned count = 0;

	pr_printf(p, "%-8s %-37s %4s %6s %-64s %s\n", "section", "pfn range", "node",
		  "pages", "subsections (# present, 2 MiB each, lowest first)", "state");
	for (; sparse_next_present(&nr); nr++) {
		const struct mem_section *ms = __nr_to_section(nr);
		u64 start = section_nr_to_pfn(nr);
		char map[SUBSECTIONS_PER_SECTION + 1];

		for (unsigned i = 0; i < SUBSECTIONS_PER_SECTION; i++)
			map[i] = ms->subsection_map & (1ULL << i) ? '#' : '.';
		map[SUBSECTIONS_PER_SECTION] = '\0';
		pr_printf(p, "%-8llu [0x%014llx-0x%014llx) %4d %6u %s %s%s%s%s%s\n",
			  (unsigned long long)nr, (unsigned long long)start,
			  (unsigned long long)(start + PAGES_PER_SECTION), ms->nid,
			  ms->nr_present_pages, map,
			  "present",
			  ms->flags & SECTION_HAS_MEM_MAP ? ",memmap" : "",
			  ms->flags & SECTION_IS_ONLINE ? ",online" : "",
			  ms->flags & SECTION_IS_EARLY ? ",early" : "",
			  ms->flags & SECTION_MEMMAP_DEFERRED ? ",deferred" : "");
		count++;
	}
	pr_printf(p, "%u present sections of %lu possible (%u MiB each)\n", count,
		  (unsigned long)NR_MEM_SECTIONS, (unsigned)(PAGES_PER_SECTION * PAGE_SIZE >> 20));
}

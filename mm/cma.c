/*
 * cma.c - the Contiguous Memory Allocator (see include/mm/cma.h for the
 * picture and the invariants).
 *
 * Life of an area
 * ---------------
 *   boot, after memblock:  cma_reserve_boot()   memblock_phys_alloc_range()
 *                                                keeps everyone else out;
 *                                                the memmap later marks the
 *                                                pages PG_reserved
 *   boot, after hand-over: cma_activate()       pageblocks -> MIGRATE_CMA,
 *                                                pages -> buddy, bitmap
 *   run time:              cma_alloc()           bitmap range, then
 *                                                alloc_contig_range(CMA)
 *                          cma_release()         free_contig_range(), bitmap
 *
 * Why reserve first and free later, instead of just marking pageblocks?
 * Because boot allocations (the memmap itself, page tables, the kernel's
 * early data) come from memblock and are unmovable: had they landed in the
 * area, it could never be emptied again.  Once the buddy owns the pages,
 * only movable allocations may use them (buddy.c: ALLOC_CMA, and CMA is
 * never a fallback for unmovable requests), so every page the area lends
 * can be taken back by migration.  The buddy even prefers CMA for movable
 * requests when more than half of the zone's free memory is CMA, so the
 * area does not sit idle.
 *
 * The bitmap is the area's own record of what it handed out; the buddy's
 * free lists say nothing about it (a CMA page lent to a movable allocation
 * is "used" for the buddy but free for the bitmap).  One bit covers
 * 2^order_per_bit pages; `cma=` areas use 0, a bit per page, as Linux's
 * default area does.  Candidates are found like Linux's
 * bitmap_find_next_zero_area_off(): the first run of clear bits, long
 * enough, whose first pfn is aligned to 2^align.  When alloc_contig_range()
 * says -EBUSY (a page there is pinned or otherwise unmovable), the search
 * resumes at the next aligned candidate; any other error ends it.
 *
 * Context: see cma.h.  Nothing here takes locks: one CPU, (main).
 */
#include "buddy_internal.h"
#include <mm/cma.h>
#include <mm/mech_bench.h>
#include <mm/memblock.h>
#include <mm/memory_hotplug.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

struct cma cma_areas[MAX_CMA_AREAS];	/* [c] declared at (boot); each field says what changes after */
unsigned cma_area_count;	/* [c] */

/* ---- the bitmap ------------------------------------------------------------ */

static bool bit_test(const u64 *map, u64 bit)
{
	return (map[bit / 64] >> (bit % 64)) & 1;
}

static void bits_set(u64 *map, u64 start, u64 nr, bool value)
{
	for (u64 bit = start; bit < start + nr; bit++) {
		if (value)
			map[bit / 64] |= 1ULL << (bit % 64);
		else
			map[bit / 64] &= ~(1ULL << (bit % 64));
	}
}

/* The first bit >= start in [start, end) whose value is `value`, or end. */
static u64 find_next(const u64 *map, u64 end, u64 start, bool value)
{
	u64 bit = start;

	while (bit < end) {
		u64 word = map[bit / 64] ^ (value ? 0 : ~0ULL);

		word &= ~0ULL << (bit % 64);	/* ignore bits below `bit` */
		if (word) {
			bit = ALIGN_DOWN(bit, 64) + (u64)__builtin_ctzll(word);
			return MIN(bit, end);
		}
		bit = ALIGN_DOWN(bit, 64) + 64;
	}
	return end;
}

/*
 * The first index >= start of nr clear bits in [0, size) with
 * (index + offset) & mask == 0; size (or more) when there is none.
 */
static u64 find_zero_area(const u64 *map, u64 size, u64 start, u64 nr, u64 mask, u64 offset)
{
	for (;;) {
		u64 index = find_next(map, size, start, false), busy;

		index = ((index + offset + mask) & ~mask) - offset;
		if (index + nr > size)
			return size;
		busy = find_next(map, index + nr, index, true);
		if (busy == index + nr)
			return index;
		start = busy + 1;
	}
}

/* Is cma a slot of cma_areas[]? (the entry checks below) */
static bool cma_area_valid(const struct cma *cma)
{
	return cma && cma >= cma_areas && cma < cma_areas + MAX_CMA_AREAS;
}

u64 cma_used_pages(const struct cma *cma)
{
	u64 used = 0;

	MM_BUG_ON(!cma_area_valid(cma), "cma %p is not a slot of cma_areas[%d]", (const void *)cma, MAX_CMA_AREAS);

	if (!cma->bitmap)
		return 0;
	for (u64 w = 0; w < DIV_ROUND_UP(cma->nr_bits, 64); w++)
		used += (u64)__builtin_popcountll(cma->bitmap[w]);
	return used << cma->order_per_bit;
}

u64 cma_maxchunk_pages(const struct cma *cma)
{
	u64 best = 0, bit = 0;

	MM_BUG_ON(!cma_area_valid(cma), "cma %p is not a slot of cma_areas[%d]", (const void *)cma, MAX_CMA_AREAS);

	if (!cma->bitmap)
		return 0;
	while (bit < cma->nr_bits) {
		u64 start = find_next(cma->bitmap, cma->nr_bits, bit, false);
		u64 end = find_next(cma->bitmap, cma->nr_bits, start, true);

		best = MAX(best, end - start);
		bit = end;
	}
	return best << cma->order_per_bit;
}

u64 cma_first_free_range(const struct cma *cma, u64 count)
{
	u64 bits, no;

	MM_BUG_ON(!cma_area_valid(cma), "cma %p is not a slot of cma_areas[%d]", (const void *)cma, MAX_CMA_AREAS);

	if (!cma->active || !count || count > cma->count)
		return ~0ULL;
	bits = ALIGN_UP(count, 1ULL << cma->order_per_bit) >> cma->order_per_bit;
	no = find_zero_area(cma->bitmap, cma->nr_bits, 0, bits, 0, 0);
	return no + bits > cma->nr_bits ? ~0ULL : cma->base_pfn + (no << cma->order_per_bit);
}

/* ---- declaring and activating --------------------------------------------- */

int cma_init_reserved_mem(u64 base_pfn, u64 count, unsigned order_per_bit, const char *name,
			  struct cma **res)
{
	struct cma *cma;

	MM_BUG_ON(!name, "base_pfn %#llx count %llu: no name", (unsigned long long)base_pfn,
		  (unsigned long long)count);

	if (!count || !IS_ALIGNED(base_pfn, pageblock_nr_pages) ||
	    !IS_ALIGNED(count, pageblock_nr_pages) || order_per_bit > pageblock_order ||
	    !name || !*name || strlen(name) >= CMA_MAX_NAME)
		return -EINVAL;
	if (cma_area_count == MAX_CMA_AREAS)
		return -ENOSPC;
	cma = &cma_areas[cma_area_count++];
	memset(cma, 0, sizeof(*cma));
	strlcpy(cma->name, name, sizeof(cma->name));
	cma->base_pfn = base_pfn;
	cma->count = count;
	cma->order_per_bit = order_per_bit;
	cma->nr_bits = count >> order_per_bit;
	if (res)
		*res = cma;
	return 0;
}

void cma_reserve_boot(u64 size)
{
	const phys_addr_t align = pageblock_nr_pages * PAGE_SIZE;
	phys_addr_t base;
	int err;

	if (!size)
		return;
	size = ALIGN_UP(size, align);
	/* Above 4 GiB first, so DMA32 stays for those who need it; then anywhere. */
	base = memblock_phys_alloc_range(&memblock, size, align, SZ_4G, MEMBLOCK_ALLOC_ANYWHERE,
					 NUMA_NO_NODE);
	if (!base)
		base = memblock_phys_alloc_range(&memblock, size, align, 0, MEMBLOCK_ALLOC_ANYWHERE,
						 NUMA_NO_NODE);
	if (!base) {
		pr_err("cma: Failed to reserve %llu MiB: no free range of that size",
		       (unsigned long long)(size >> 20));
		return;
	}
	err = cma_init_reserved_mem(PHYS_PFN(base), size >> PAGE_SHIFT, 0, "cma0", NULL);
	if (err) {
		memblock_phys_free(&memblock, base, size);
		pr_err("cma: cannot declare an area at %#llx: error %d", (unsigned long long)base, err);
		return;
	}
	pr_info("cma: Reserved %llu MiB at 0x%016llx", (unsigned long long)(size >> 20),
		(unsigned long long)base);
}

/* An activation that failed: the pages become ordinary memory (Linux frees them too). */
static void cma_give_up(struct cma *cma, const char *why)
{
	for (u64 pfn = cma->base_pfn; pfn < cma->base_pfn + cma->count; pfn++) {
		struct page *page;

		if (!pfn_valid(pfn))
			continue;
		page = pfn_to_page(pfn);
		if (!PageReserved(page) || page->page_type != PAGE_TYPE_NONE ||
		    !zone_spans_pfn(page_zone(page), pfn))
			continue;
		buddy_free_boot_pages(page_zone(page), pfn, 0, page_poison_enabled());
	}
	pr_err("cma: CMA area %s could not be activated: %s", cma->name, why);
	cma->count = 0;
	cma->nr_bits = 0;
}

int cma_activate_area(struct cma *cma)
{
	u64 end = cma->base_pfn + cma->count, bytes, pfn;
	struct zone *zone = NULL;
	unsigned order = 0;

	MM_BUG_ON(!cma_area_valid(cma), "cma %p is not a slot of cma_areas[%d]", (const void *)cma, MAX_CMA_AREAS);

	if (cma->active || !cma->count)
		return cma->active ? 0 : -EINVAL;
	for (pfn = cma->base_pfn; pfn < end; pfn += pageblock_nr_pages) {
		if (!pfn_valid(pfn)) {
			cma_give_up(cma, "a pageblock has no memmap");
			return -EINVAL;
		}
		if (!zone)
			zone = page_zone(pfn_to_page(pfn));
		if (page_zone(pfn_to_page(pfn)) != zone || !zone_spans_pfn(zone, pfn) ||
		    !zone_spans_pfn(zone, pfn + pageblock_nr_pages - 1)) {
			cma_give_up(cma, "the area spans more than one zone");
			return -EINVAL;
		}
	}
	for (pfn = cma->base_pfn; pfn < end; pfn++) {
		const struct page *page = pfn_to_page(pfn);

		if (!PageReserved(page) || page->page_type != PAGE_TYPE_NONE) {
			cma_give_up(cma, "a page of the area is already in use");
			return -EBUSY;
		}
	}
	bytes = DIV_ROUND_UP(cma->nr_bits, 64) * 8;
	while ((PAGE_SIZE << order) < bytes && order < MAX_PAGE_ORDER)
		order++;
	if ((PAGE_SIZE << order) < bytes)
		cma->bitmap_block = NULL;
	else
		cma->bitmap_block = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN, order);
	if (!cma->bitmap_block) {
		cma_give_up(cma, "no memory for its bitmap");
		return -ENOMEM;
	}
	cma->bitmap = mm_phys_to_virt(page_to_phys(cma->bitmap_block));

	/* Linux's init_cma_reserved_pageblock(), for the whole area. */
	for (pfn = cma->base_pfn; pfn < end; pfn += pageblock_nr_pages)
		set_pageblock_migratetype(pfn, MIGRATE_CMA);
	for (pfn = cma->base_pfn; pfn < end; ) {
		unsigned chunk = MAX_PAGE_ORDER;

		while (chunk && (!IS_ALIGNED(pfn, 1ULL << chunk) || pfn + (1ULL << chunk) > end))
			chunk--;
		buddy_free_boot_pages(zone, pfn, chunk, page_poison_enabled());
		pfn += 1ULL << chunk;
	}
	zone->cma_pages += cma->count;
	auto_movable_stats_zone_changed(zone, 0, 0, (long)cma->count);	/* mechanism 4's cache */
	cma->zone = zone;
	cma->active = true;
	setup_per_zone_wmarks();
	pr_info("cma: %s: %llu pages at pfn 0x%llx activated in zone %s of node %d",
		cma->name, (unsigned long long)cma->count, (unsigned long long)cma->base_pfn,
		zone->name, zone->zone_pgdat ? zone->zone_pgdat->node_id : 0);
	return 0;
}

void cma_activate(void)
{
	for (unsigned i = 0; i < cma_area_count; i++)
		cma_activate_area(&cma_areas[i]);
}

/* ---- allocating and releasing --------------------------------------------- */

/* A candidate range is taken in pieces of at most this many pages, each
 * ending on a MAX_ORDER boundary, with a checkpoint between two of them. */
#define CMA_ALLOC_PIECE	32768ull

/*
 * cma_take() - alloc_contig_range(CMA) of [pfn, pfn + count), in pieces
 * of CMA_ALLOC_PIECE pages: between two pieces mech_bench_checkpoint()
 * lets the shell's job pause (the console answers) or stop.  The caller
 * has set the range's bitmap bits, so no other cma_alloc() takes it
 * meanwhile.  On an error, or -EINTR when asked to stop, the pieces taken
 * are freed again: all or nothing, as one alloc_contig_range() call.
 * Context: (main) or the shell's job.
 */
static int cma_take(u64 pfn, u64 count, struct contig_alloc_report *f)
{
	u64 done = 0;
	int ret = 0;

	while (done < count) {
		u64 from = pfn + done;
		u64 end = MIN(pfn + count, ALIGN_DOWN(from + CMA_ALLOC_PIECE, MAX_ORDER_NR_PAGES));

		ret = alloc_contig_range_explain(from, end, MIGRATE_CMA, __GFP_NOWARN, false, f);
		if (ret)
			break;
		done = end - pfn;
		if (done < count && mech_bench_checkpoint()) {
			ksnprintf(f->why, sizeof(f->why), "interrupted after %llu of %llu pages",
				  (unsigned long long)done, (unsigned long long)count);
			ret = -EINTR;
			break;
		}
	}
	if (ret && done)
		free_contig_range(pfn, done);
	return ret;
}

/*
 * cma_alloc_explain() - cma_alloc(), returning 0/-errno and the reason in
 * words (why, size bytes) instead; *pagep gets the first page.  -EINTR
 * when the shell's job was asked to stop (nothing taken).
 * Context: (main) or the shell's job.
 */
static int cma_alloc_explain(struct cma *cma, u64 count, unsigned align, struct page **pagep,
			     char *why, size_t size)
{
	u64 mask, offset, bitmap_count, start = 0, tries = 0;
	struct contig_alloc_report f = { .why = "" };
	int ret = -ENOMEM;

	*pagep = NULL;
	why[0] = '\0';
	if (!cma || !cma->active) {
		ksnprintf(why, size, "no active CMA area");
		return -ENODEV;
	}
	if (!count || count > cma->count || align > MAX_PAGE_ORDER) {
		if (!count)
			ksnprintf(why, size, "a count of 0 pages");
		else if (align > MAX_PAGE_ORDER)
			ksnprintf(why, size, "alignment order %u > MAX_PAGE_ORDER", align);
		else
			ksnprintf(why, size, "%llu pages: more than the %llu pages of area %s",
				  (unsigned long long)count, (unsigned long long)cma->count, cma->name);
		cma->alloc_pages_fail += count;
		return -EINVAL;
	}
	mask = align > cma->order_per_bit ? (1ULL << (align - cma->order_per_bit)) - 1 : 0;
	offset = (cma->base_pfn & ((1ULL << align) - 1)) >> cma->order_per_bit;
	bitmap_count = ALIGN_UP(count, 1ULL << cma->order_per_bit) >> cma->order_per_bit;

	for (;;) {
		u64 bitmap_no = find_zero_area(cma->bitmap, cma->nr_bits, start, bitmap_count, mask,
					       offset);
		u64 pfn;

		if (bitmap_no + bitmap_count > cma->nr_bits) {
			if (!tries)
				ksnprintf(why, size, "no free range of %llu pages in %s (%llu used, largest free chunk %llu pages)",
					  (unsigned long long)count, cma->name,
					  (unsigned long long)cma_used_pages(cma),
					  (unsigned long long)cma_maxchunk_pages(cma));
			else
				ksnprintf(why, size, "all %llu candidate ranges were busy; the last one: %s",
					  (unsigned long long)tries, f.why);
			ret = tries ? -EBUSY : -ENOMEM;
			break;
		}
		bits_set(cma->bitmap, bitmap_no, bitmap_count, true);
		pfn = cma->base_pfn + (bitmap_no << cma->order_per_bit);
		ret = cma_take(pfn, count, &f);
		if (!ret) {
			*pagep = pfn_to_page(pfn);
			break;
		}
		bits_set(cma->bitmap, bitmap_no, bitmap_count, false);
		tries++;
		if (ret != -EBUSY) {
			ksnprintf(why, size, "%s", f.why);
			break;
		}
		cma->busy_retries++;
		start = bitmap_no + mask + 1;
	}
	if (ret)
		cma->alloc_pages_fail += count;
	else
		cma->alloc_pages_success += count;
	return ret;
}

struct page *cma_alloc(struct cma *cma, u64 count, unsigned align, bool no_warn)
{
	struct page *page;
	char why[200];
	int ret = cma_alloc_explain(cma, count, align, &page, why, sizeof(why));

	if (ret && !no_warn)
		pr_err("cma: %s: alloc failed, req-size: %llu pages, ret: %d (%s)",
		       cma ? cma->name : "?", (unsigned long long)count, ret, why);
	return page;
}

bool cma_release(struct cma *cma, const struct page *pages, u64 count)
{
	u64 pfn, bitmap_no, bitmap_count;

	if (!cma || !cma->active || !pages || !count)
		return false;
	pfn = page_to_pfn(pages);
	if (pfn < cma->base_pfn || pfn + count > cma->base_pfn + cma->count ||
	    !IS_ALIGNED(pfn - cma->base_pfn, 1ULL << cma->order_per_bit))
		return false;
	bitmap_no = (pfn - cma->base_pfn) >> cma->order_per_bit;
	bitmap_count = ALIGN_UP(count, 1ULL << cma->order_per_bit) >> cma->order_per_bit;
	for (u64 bit = bitmap_no; bit < bitmap_no + bitmap_count; bit++)
		if (!bit_test(cma->bitmap, bit)) {
			pr_warn("cma: %s: release of pfn 0x%llx + %llu pages: pfn 0x%llx was never allocated; nothing freed",
				cma->name, (unsigned long long)pfn, (unsigned long long)count,
				(unsigned long long)(cma->base_pfn + (bit << cma->order_per_bit)));
			return false;
		}
	free_contig_range(pfn, count);
	bits_set(cma->bitmap, bitmap_no, bitmap_count, false);
	cma->release_pages_success += count;
	return true;
}

/* ---- the debugfs alloc and free files -------------------------------------- */

u64 cma_debug_allocated(const struct cma *cma)
{
	u64 pages = 0;

	MM_BUG_ON(!cma_area_valid(cma), "cma %p is not a slot of cma_areas[%d]", (const void *)cma, MAX_CMA_AREAS);

	for (unsigned i = 0; i < cma->nr_mem; i++)
		pages += cma->mem[i].nr_pages;
	return pages;
}

int cma_debug_alloc(struct cma *cma, u64 count, char *why, size_t size)
{
	struct page *page;
	int err;

	MM_BUG_ON(!why || !size, "count %llu: why %p, size %zu", (unsigned long long)count, (void *)why, size);

	if (cma && cma->nr_mem == CMA_DEBUG_MAX_ALLOCS) {
		ksnprintf(why, size, "%u allocations are remembered already: free some first",
			  CMA_DEBUG_MAX_ALLOCS);
		return -ENOSPC;
	}
	err = cma_alloc_explain(cma, count, 0, &page, why, size);
	if (err)
		return err;
	cma->mem[cma->nr_mem++] = (struct cma_mem){ page_to_pfn(page), count };
	return 0;
}

int cma_debug_free(struct cma *cma, u64 count, char *why, size_t size)
{
	u64 held;

	MM_BUG_ON(!why || !size, "count %llu: why %p, size %zu", (unsigned long long)count, (void *)why, size);

	why[0] = '\0';
	if (!cma || !cma->active) {
		ksnprintf(why, size, "no active CMA area");
		return -ENODEV;
	}
	held = cma_debug_allocated(cma);
	if (!count || count > held) {
		ksnprintf(why, size, "%llu pages: the alloc file holds %llu pages in %u allocations",
			  (unsigned long long)count, (unsigned long long)held, cma->nr_mem);
		return -EINVAL;
	}
	/* Newest first; a larger allocation gives up its first pages only. */
	while (count) {
		struct cma_mem *mem = &cma->mem[cma->nr_mem - 1];
		u64 n = MIN(mem->nr_pages, count);

		if (n < mem->nr_pages && cma->order_per_bit) {
			ksnprintf(why, size, "%llu pages is not a multiple of the area's %u-page bits",
				  (unsigned long long)count, 1u << cma->order_per_bit);
			return -EINVAL;
		}
		if (!cma_release(cma, pfn_to_page(mem->pfn), n)) {
			ksnprintf(why, size, "cma_release of pfn 0x%llx + %llu pages failed",
				  (unsigned long long)mem->pfn, (unsigned long long)n);
			return -EIO;
		}
		mem->pfn += n;
		mem->nr_pages -= n;
		if (!mem->nr_pages)
			cma->nr_mem--;
		count -= n;
	}
	return 0;
}

/* ---- views ------------------------------------------------------------------ */

void cma_dump(const struct cma *cma, struct printer *p)
{
	MM_BUG_ON(!cma_area_valid(cma), "cma %p is not a slot of cma_areas[%d]", (const void *)cma, MAX_CMA_AREAS);

	if (!cma->count) {
		pr_printf(p, "%s: no area (its declaration or activation failed)\n", cma->name);
		return;
	}
	pr_printf(p, "%s: pfn [0x%llx-0x%llx) phys [0x%llx-0x%llx) %llu pages (%llu MiB) %s%s, order_per_bit %u\n",
		  cma->name, (unsigned long long)cma->base_pfn,
		  (unsigned long long)(cma->base_pfn + cma->count),
		  (unsigned long long)PFN_PHYS(cma->base_pfn),
		  (unsigned long long)PFN_PHYS(cma->base_pfn + cma->count),
		  (unsigned long long)cma->count, (unsigned long long)(cma->count >> (20 - PAGE_SHIFT)),
		  cma->active ? "zone " : "not active", cma->active ? cma->zone->name : "",
		  cma->order_per_bit);
	if (!cma->active)
		return;
	pr_printf(p, "  used %llu pages, maxchunk %llu pages, zone CMA free %lu of %lu pages\n",
		  (unsigned long long)cma_used_pages(cma), (unsigned long long)cma_maxchunk_pages(cma),
		  cma->zone->nr_free_cma, cma->zone->cma_pages);
	pr_printf(p, "  alloc_pages_success %llu, alloc_pages_fail %llu, release_pages_success %llu, busy candidates skipped %llu\n",
		  (unsigned long long)cma->alloc_pages_success, (unsigned long long)cma->alloc_pages_fail,
		  (unsigned long long)cma->release_pages_success, (unsigned long long)cma->busy_retries);
	pr_printf(p, "  debugfs allocations: %u (%llu pages)", cma->nr_mem,
		  (unsigned long long)cma_debug_allocated(cma));
	for (unsigned i = cma->nr_mem; i-- > 0; )
		pr_printf(p, "%s pfn 0x%llx+%llu", i + 1 == cma->nr_mem ? ", newest first:" : ",",
			  (unsigned long long)cma->mem[i].pfn, (unsigned long long)cma->mem[i].nr_pages);
	pr_printf(p, "\n");
}

void cma_reset(void)
{
	memset(cma_areas, 0, sizeof(cma_areas));
	cma_area_count = 0;
}

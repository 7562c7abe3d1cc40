/*
 * pcp.c - per-CPU page lists: a small cache of free pages in front of the
 * buddy allocator.
 *
 * Taking a page from the buddy means the zone lock, a walk up the orders
 * and a split; giving one back means up to ten merge steps, each touching
 * another struct page.  Most allocations and frees are of single pages and
 * come in bursts, so Linux keeps, per zone and per CPU, lists of free pages
 * of orders 0..PAGE_ALLOC_COSTLY_ORDER (3), one list per (order, pcp
 * migratetype): index order * MIGRATE_PCPTYPES + mt.  An allocation takes
 * the first page of its list; when the list is empty it is refilled with
 * `batch` pages' worth taken from the buddy in one go (rmqueue_bulk).  A
 * free puts the page at the head of its list (hot: likely still in the
 * cache); when the lists hold `high` pages or more, `batch` pages' worth
 * go back to the buddy from the tails (cold pages first: free_pcppages_bulk).
 * Each CPU has its own set per zone (zone->pageset[cpu], this_cpu_pcp());
 * memlab starts one CPU, so there is one set per zone today.
 *
 * Pages on a pcp list are free but not in the buddy: refcount 0, page_type
 * PGTY_PCP (memlab's marker; Linux leaves them untyped) and private = order.
 * They are counted in their set's count (pcp->count), and only there:
 * zone_nr_free() (mm's own bookkeeping) adds every set's count to the
 * buddy's zone->nr_free_buddy; zone_nr_free_pages() (mmzone.h), what every
 * view prints as NR_FREE_PAGES, and the watermark check leave them out, as
 * Linux's NR_FREE_PAGES never contained them.
 *
 * Migratetypes: a page goes on the list of its pageblock's type at the time
 * it is freed; CMA and HighAtomic pages use the Movable list; a page whose
 * pageblock is isolated never goes on a list: it goes straight to the
 * buddy's isolate list, so isolation can account every free page.  When a
 * page goes back to the buddy, its pageblock's type is read again (it may
 * have been stolen or isolated since), as Linux does since 6.10.
 *
 * Sizes, as Linux 6.1 computed them (zone_batchsize, zone_highsize):
 *   batch = min(managed_pages / 1024, 1 MiB of pages = 256) / 4, at least
 *           1, then rounded to 2^n - 1 (rounddown_pow_of_two(batch * 1.5)
 *           - 1): 2^n values were found to alias badly in CPU caches.
 *           A zone of 2 GiB: min(512, 256) / 4 = 64 -> 96 -> 64 - 1 = 63.
 *   high  = the zone's low watermark divided by the online CPUs of the
 *           zone's node (all online CPUs if the node has none), at least
 *           4 * batch: full pcp lists together then never push the zone
 *           below the low watermark by themselves.  The APs come online
 *           after the first watermarks, so init/main.c sets them again
 *           once smp_init() has started them (high shrinks).
 * Before watermarks exist (early boot), batch is 1 and high 0, Linux's boot
 * pageset: every free goes straight through to the buddy.  Not modelled:
 * 6.1's adaptive free_factor (draining more when frees come without
 * allocations) and the separate THP-order lists.
 *
 * Locks: a set's lists and count are its pcp lock's (pcp->lock); a page
 * that moves between a list and the buddy moves with zone->lock held too,
 * taken after the pcp lock (rmqueue_bulk, free_pcppages_bulk).  batch and
 * high are written by zone_pcp_init(): at boot, under mem_hotplug_lock,
 * and, with no lock, from the watermark setters and deferred init.
 * Context: (boot) or (main).
 */
#include "buddy_internal.h"
#include <mm/numa_cpu.h>
#include <lib/printk.h>

void pcp_init_lists(struct zone *zone)
{
	/* Every slot, not only mm_nr_cpus(): zones may be set up before the
	 * CPU table is filled. */
	for (unsigned cpu = 0; cpu < MM_NR_CPUS; cpu++) {
		struct per_cpu_pages *pcp = zone_pcp(zone, cpu);

		spin_lock_init(&pcp->lock, "pcp lock");
		for (unsigned i = 0; i < NR_PCP_LISTS; i++)
			INIT_LIST_HEAD(&pcp->lists[i]);
		pcp->count = 0;
		pcp->batch = 1;
		pcp->high = 0;
	}
}

/* The largest power of two <= x (x >= 1). */
static unsigned long rounddown_pow_of_two(unsigned long x)
{
	return 1UL << (63 - __builtin_clzl(x));
}

/* Linux 6.1's zone_batchsize(), spelled out at the top of this file. */
static int zone_batchsize(const struct zone *zone)
{
	unsigned long batch = MIN(MM_READ_ONCE(zone->managed_pages) >> 10,
				  (unsigned long)(SZ_1M / PAGE_SIZE));

	batch /= 4;
	if (batch < 1)
		batch = 1;
	return (int)(rounddown_pow_of_two(batch + batch / 2) - 1);
}

void zone_pcp_init(struct zone *zone)
{
	/* Linux's zone_highsize(): the CPUs of the zone's node share its low
	 * watermark; a node without CPUs is shared by all online CPUs. */
	unsigned long nr_cpus = zone->zone_pgdat ? node_nr_online_cpus(zone->zone_pgdat->node_id) : 0;
	int batch = MAX(zone_batchsize(zone), 1);
	int high;

	if (!nr_cpus)
		nr_cpus = nr_online_numa_cpus();
	high = (int)(zone_wmark(zone, WMARK_LOW) / nr_cpus);
	/* under wmark_lock; each CPU reads its own under its pcp lock only */
	for (unsigned cpu = 0; cpu < MM_NR_CPUS; cpu++) {
		MM_WRITE_ONCE(zone_pcp(zone, cpu)->batch, batch);
		MM_WRITE_ONCE(zone_pcp(zone, cpu)->high, MAX(high, batch * 4));
	}
}

/* Put a page on pcp list idx (head or tail) and count it as free.
 * Context: pcp->lock. */
static void pcp_list_add(struct per_cpu_pages *pcp, struct page *page, unsigned order,
			 unsigned idx, bool to_tail)
{
	spin_assert_held(&pcp->lock);
	if (to_tail)
		list_add_tail(&page->lru, &pcp->lists[idx]);
	else
		list_add(&page->lru, &pcp->lists[idx]);
	page_set_type(page, PGTY_PCP);
	page->private = order;
	pcp->count += 1 << order;
}

/* Take a page off its pcp list; it is no longer counted as free.
 * Context: pcp->lock. */
static void pcp_list_del(struct per_cpu_pages *pcp, struct page *page, unsigned order)
{
	spin_assert_held(&pcp->lock);
	MM_BUG_ON(!PagePcp(page) || page->private != order,
		  "pfn %#llx: page_type %#x private %lu, expected a pcp page of order %u",
		  (unsigned long long)page_to_pfn(page), page->page_type, page->private, order);
	list_del(&page->lru);
	page_clear_type(page);
	page->private = 0;
	pcp->count -= 1 << order;
}

/*
 * Linux's rmqueue_bulk(): move up to count blocks of 2^order pages of
 * migratetype mt from the buddy to pcp list idx, in the order the buddy
 * hands them out (tail insertion keeps them in that order).  Returns the
 * number of blocks moved.  Context: pcp->lock; takes zone->lock.
 */
static int rmqueue_bulk(struct zone *zone, struct per_cpu_pages *pcp, unsigned order, int count,
			unsigned idx, int mt, unsigned alloc_flags)
{
	int moved;

	spin_lock(&zone->lock);
	for (moved = 0; moved < count; moved++) {
		struct page *page = buddy_rmqueue(zone, order, mt, alloc_flags);

		if (!page)
			break;
		pcp_list_add(pcp, page, order, idx, true);
	}
	if (moved)
		zone->ev.pcp_refills++;
	spin_unlock(&zone->lock);
	return moved;
}

struct page *pcp_alloc(struct zone *zone, unsigned order, int mt, unsigned alloc_flags)
{
	struct per_cpu_pages *pcp = this_cpu_pcp(zone);
	unsigned idx = pcp_index(order, mt);
	struct page *page = NULL;

	MM_BUG_ON(order > PAGE_ALLOC_COSTLY_ORDER || mt < 0 || mt >= MIGRATE_PCPTYPES,
		  "order %u migratetype %d", order, mt);
	spin_lock(&pcp->lock);
	if (list_empty(&pcp->lists[idx])) {
		/* Refill: batch pages' worth, in blocks of this order, at least 2. */
		int batch = MM_READ_ONCE(pcp->batch);
		int count = batch > 1 ? MAX(batch >> order, 2) : batch;

		if (!rmqueue_bulk(zone, pcp, order, count, idx, mt, alloc_flags))
			goto out;
	} else {
		MM_STAT_ADD(zone->ev.pcp_hits, 1);	/* one counter for every CPU's lists */
	}
	page = list_first_entry(&pcp->lists[idx], struct page, lru);
	pcp_list_del(pcp, page, order);
out:
	spin_unlock(&pcp->lock);
	return page;
}

/*
 * Linux's free_pcppages_bulk(): give at least `pages` pages (whole list
 * entries, so possibly a few more) from the pcp lists back to the buddy,
 * starting with list first_idx and going round the lists, each from its
 * tail (the coldest pages).  Each page goes to the buddy list of its
 * pageblock's type as it is now.  Context: pcp->lock; takes zone->lock.
 */
static void free_pcppages_bulk(struct zone *zone, struct per_cpu_pages *pcp, int pages,
			       unsigned first_idx)
{
	unsigned idx = first_idx;

	spin_assert_held(&pcp->lock);
	spin_lock(&zone->lock);
	pages = MIN(pages, pcp->count);
	/* pcp->count > 0 while pages > 0, so some list is not empty. */
	while (pages > 0) {
		struct list_head *list = &pcp->lists[idx];
		unsigned order = idx / MIGRATE_PCPTYPES;

		while (pages > 0 && !list_empty(list)) {
			struct page *page = list_last_entry(list, struct page, lru);
			u64 pfn = page_to_pfn(page);

			pcp_list_del(pcp, page, order);
			pages -= 1 << order;
			buddy_free_one(zone, pfn, order, buddy_list_mt(pfn), FPI_NONE);
		}
		idx = (idx + 1) % NR_PCP_LISTS;
	}
	zone->ev.pcp_drains++;
	spin_unlock(&zone->lock);
}

void pcp_free(struct zone *zone, struct page *page, unsigned order, int mt)
{
	struct per_cpu_pages *pcp;
	unsigned idx;

	MM_BUG_ON(order > PAGE_ALLOC_COSTLY_ORDER, "order %u", order);
	if (mt == MIGRATE_ISOLATE) {
		spin_lock(&zone->lock);
		buddy_free_one(zone, page_to_pfn(page), order, mt, FPI_NONE);
		spin_unlock(&zone->lock);
		return;
	}
	if (mt >= MIGRATE_PCPTYPES)
		mt = MIGRATE_MOVABLE;	/* CMA, HighAtomic */
	idx = pcp_index(order, mt);
	pcp = this_cpu_pcp(zone);
	spin_lock(&pcp->lock);
	pcp_list_add(pcp, page, order, idx, false);
	if (pcp->count >= MM_READ_ONCE(pcp->high))
		free_pcppages_bulk(zone, pcp, MM_READ_ONCE(pcp->batch), idx);
	spin_unlock(&pcp->lock);
}

/*
 * Every CPU's lists of the zone go back to the buddy, this CPU taking
 * each set's lock in turn; pcp_drain_each_cpu() below has each CPU drain
 * its own (Linux's drain_all_pages() queues work on every CPU).
 */
void pcp_drain_zone(struct zone *zone)
{
	unsigned cpu;

	for_each_pcp_cpu(cpu) {
		struct per_cpu_pages *pcp = zone_pcp(zone, cpu);

		spin_lock(&pcp->lock);
		if (pcp->count)
			free_pcppages_bulk(zone, pcp, pcp->count, 0);
		spin_unlock(&pcp->lock);
	}
}

/* CPU cpu's lists of zone to the buddy; returns the pages they held. */
static unsigned long drain_cpu_zone(struct zone *zone, unsigned cpu)
{
	struct per_cpu_pages *pcp = zone_pcp(zone, cpu);
	unsigned long pages;

	spin_lock(&pcp->lock);
	pages = (unsigned long)pcp->count;
	if (pages)
		free_pcppages_bulk(zone, pcp, pcp->count, 0);
	spin_unlock(&pcp->lock);
	return pages;
}

/* What a CPU drains on itself (mm_run_on_cpu()'s fn): one zone or all. */
struct drain_here {
	struct zone *zone;	/* [o] NULL: every zone */
	unsigned long pages;	/* [a] written by the draining CPU, read after it returned */
};
static struct drain_here drain_slot[MM_NR_CPUS];	/* [m] one per CPU, outlives a late run */

static void drain_here_fn(void *arg)
{
	struct drain_here *d = arg;
	unsigned cpu = mm_this_cpu();
	unsigned long pages = 0;
	struct zone *zone;

	if (d->zone) {
		pages = drain_cpu_zone(d->zone, cpu);
	} else {
		for_each_zone(zone)
			if (zone->zone_pgdat && zone->zone_pgdat->online)
				pages += drain_cpu_zone(zone, cpu);
	}
	MM_WRITE_ONCE(d->pages, pages);
}

/* Pages on CPU cpu's lists of zone (NULL: every zone), a snapshot. */
static unsigned long cpu_pcp_pages(struct zone *zone, unsigned cpu)
{
	unsigned long pages = 0;
	struct zone *z;

	if (zone)
		return (unsigned long)MM_READ_ONCE(zone_pcp(zone, cpu)->count);
	for_each_zone(z)
		if (z->zone_pgdat && z->zone_pgdat->online)
			pages += (unsigned long)MM_READ_ONCE(zone_pcp(z, cpu)->count);
	return pages;
}

void pcp_drain_each_cpu(struct zone *zone, struct pcp_drain_report *r)
{
	unsigned cpu;

	for_each_pcp_cpu(cpu) {
		struct drain_here *d = &drain_slot[cpu];
		enum pcp_drain_where where = PCP_DRAIN_EMPTY;
		unsigned long pages = 0;
		struct zone *z;

		if (cpu_pcp_pages(zone, cpu)) {
			d->zone = zone;
			MM_WRITE_ONCE(d->pages, 0);
			if (!mm_run_on_cpu(cpu, drain_here_fn, d)) {
				pages = MM_READ_ONCE(d->pages);
				where = PCP_DRAIN_THERE;
			} else if (zone) {
				pages = drain_cpu_zone(zone, cpu);
				where = PCP_DRAIN_FROM_HERE;
			} else {
				for_each_zone(z)
					if (z->zone_pgdat && z->zone_pgdat->online)
						pages += drain_cpu_zone(z, cpu);
				where = PCP_DRAIN_FROM_HERE;
			}
		}
		if (r) {
			r->pages[cpu] = pages;
			r->where[cpu] = (u8)where;
		}
	}
}

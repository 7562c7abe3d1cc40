/*
 * deferred_init.c - mechanism 5: the memmap of boot memory initialised
 * after the prompt, in bounded steps and on demand (see
 * include/mm/deferred_init.h for the two designs and the rules).
 *
 * The unit is a section (128 MiB, 32768 struct pages): a section is either
 * initialised (memmap written, free memory in the buddy) or pending
 * (SECTION_MEMMAP_DEFERRED: memmap mapped but unwritten, nothing in the
 * buddy, pfn_valid() false).  A section changes from pending to
 * initialised in one call, init_section(), which runs the boot's own
 * window functions (mm/mm_init.c) on it: the memmap, the holes, the
 * reserved pages, then the hand-over.  Every call the old design makes
 * for a pfn is made for it here too, clipped to the section, except that
 * the memory pages are born free (init_section()): initialised in the
 * state the old hand-over's reset leaves them in, which that hand-over
 * then skips.  So the struct pages come out the same (the host test
 * compares them byte for byte).  What may differ is the order of blocks on
 * a free list, when a section is handed over ahead of lower ones (the
 * sections with reserved memory at boot, a zone grown on demand).
 *
 * Which sections wait: per node, after the first deferred_init_early bytes
 * of its sections (at least one section), every section in which memblock
 * reserved nothing but boot memory's own memmap.  Other reservations (the
 * page tables and section roots memblock gave out, the kernel, CMA,
 * firmware ranges) keep their section early: their struct pages are
 * PG_reserved and read or freed by whoever owns them.  The memmap's backing
 * has no such owner, and it is 1/64 of RAM (64 sections at 512 GiB), so
 * its sections wait too: their memmap pages get PG_reserved when the
 * section is initialised, and a pending section's pages are counted as
 * its free pages, the ones it will add to MemTotal.  A section holds no
 * allocation while it is pending, so it never needs to be read.
 *
 * Several CPUs (Linux's multithreaded deferred init, padata's chunks of
 * whole sections).  A section is initialised by the CPU that claims it:
 * under mem_resize_lock it must be pending and nobody's claim, and the
 * claim is recorded in claim_of_cpu[] (one section per CPU at a time).
 * The claimer writes the section's struct pages with no lock held (nobody
 * reads them: pfn_valid() stays false while the section is pending, and
 * no other CPU may claim it), collecting the zone counters in a struct
 * memmap_acct; then, under mem_resize_lock again, it adds the counters,
 * clears SECTION_MEMMAP_DEFERRED, hands the free pages to the buddy
 * (zone->lock inside) and drops the claim.  So two CPUs write two sections
 * at once and only the short bookkeeping is serialised.  Who claims:
 * deferred_init_step{,_while}() on CPU 0 (the main loop's slices, lowest
 * first), deferred_init_work_node() on the CPUs of a node (their work
 * queues, kernel/meminit_work.c), and on demand deferred_grow_zone() (an
 * allocation on any CPU) and deferred_init_pfn_range() (an operation on
 * a range): those two need the section done, so when another CPU holds
 * its claim they wait, spinning with the lock dropped, until it is.  A
 * claimer never waits for a claim (it allocates nothing), so the wait
 * ends.  The order in which sections arrive changes only the order of
 * blocks on the free lists; the struct pages are the same bytes.
 *
 * Hot-added memory onlined before its memmap is written
 * (deferred_init_hotplug=1) becomes pending here too; what differs for such
 * a section (its zone, how its memmap is written and its pages reach the
 * buddy, the table and the counting at its online) is in
 * mm/deferred_hotplug.c, through mm/deferred_internal.h.
 *
 * Context: (boot) for the plan; the rest on any CPU, locks as each says.
 */
#include <mm/deferred_init.h>
#include <mm/memblock.h>
#include <mm/mm_init.h>
#include <mm/memmap_init.h>
#include <mm/sparse.h>
#include <mm/mechanisms.h>
#include <mm/platform.h>
#include "buddy_internal.h"
#include "deferred_internal.h"
#include "internal.h"
#include <lib/errno.h>
#include <lib/params.h>
#include <lib/string.h>

/* The boot parameters, written only by the setters below. */
static enum mech_design deferred_init_param = DESIGN_NEW;	/* [c] */
static u64 deferred_init_early = (256ULL << 20);	/* [c] */
struct deferred_init_stats deferred_init_stats;	/* [c] [m] each field says which */

static u64 node_pending_pages[MAX_NUMNODES];	/* [n] (views read it as a snapshot) */
static u64 node_pending_sections[MAX_NUMNODES];	/* [n] */
static u64 pending_sections;	/* [n] all nodes (loops read it as a hint, MM_READ_ONCE) */
static u64 next_section;	/* [n] no unclaimed pending section below this number */
static u64 node_cursor[MAX_NUMNODES];	/* [n] the same, per node, for its workers */
#define NO_CLAIM	(~0ULL)
static u64 claim_of_cpu[MM_NR_CPUS];	/* [n] the section each CPU initialises now, or NO_CLAIM */
static u64 inflight_sections;	/* [n] sections claimed and not yet initialised */
static bool wmarks_stale;	/* [n] a boot section's pages became managed since the watermarks */
u64 deferred_init_cpu_sections[MM_NR_CPUS];	/* [n] sections each CPU initialised */
u64 deferred_init_cpu_cycles[MM_NR_CPUS];	/* [n] and the cycles it spent on them */

_Static_assert(DESIGN_OLD == 0 && DESIGN_NEW == 1, "deferred_init= takes the first two names");

/* Contract in include/mm/deferred_init.h. */
enum mech_design deferred_init_get_design(void)
{
	return deferred_init_param;
}

/* Contract in include/mm/deferred_init.h. */
int deferred_init_set_design(enum mech_design design)
{
	if (design != DESIGN_OLD && design != DESIGN_NEW)
		return -EINVAL;
	deferred_init_param = design;
	return 0;
}

/* Contract in include/mm/deferred_init.h. */
u64 deferred_init_get_early(void)
{
	return deferred_init_early;
}

/* Contract in include/mm/deferred_init.h. */
int deferred_init_set_early(u64 bytes)
{
	deferred_init_early = bytes;
	return 0;
}

/* The parameter table's getter of deferred_init=: the design's index. */
static u64 design_param_get(void)
{
	return deferred_init_param;
}

/* The parameter table's setter of deferred_init=: index 0 or 1 (old, new). */
static int design_param_set(u64 v)
{
	return v > DESIGN_NEW ? -EINVAL : deferred_init_set_design((enum mech_design)v);
}

KERNEL_PARAM(deferred_init,
	.name = "deferred_init", .type = PARAM_ENUM,
	.set = design_param_set, .get = design_param_get,
	.def = DESIGN_NEW, .names = mech_design_names, .nr_names = 2,	/* old, new */
	.help = "boot memmap init: old = all before the prompt, new = early part, the rest after");
KERNEL_PARAM(deferred_init_early,
	.name = "deferred_init_early", .type = PARAM_SIZE,
	.set = deferred_init_set_early, .get = deferred_init_get_early,
	.min = 0, .max = ~0ULL, .def = (256ULL << 20),
	.help = "deferred_init=new: memory of each node initialised at boot (whole sections, at least one)");

/* ---- the queries ---------------------------------------------------------- */

bool pfn_pending(u64 pfn)
{
	return deferred_section(__pfn_to_section(pfn));
}

u64 deferred_init_pending_pages(int nid)
{
	u64 pages = 0;

	if (nid != NUMA_NO_NODE)
		return nid >= 0 && nid < MAX_NUMNODES ? MM_READ_ONCE(node_pending_pages[nid]) : 0;
	for (int n = 0; n < MAX_NUMNODES; n++)
		pages += MM_READ_ONCE(node_pending_pages[n]);
	return pages;
}

u64 deferred_init_pending_sections(void)
{
	return MM_READ_ONCE(pending_sections);
}

/*
 * Pages of nid in [start_pfn, end_pfn) that the boot hand-over gives to
 * the buddy: memblock's free ranges, clipped as boot_handover_window()
 * clips them.  This is what a pending section's pages are counted as: the
 * memory it will add to MemTotal (its memmap pages, if it holds memmap,
 * are reserved like the eager boot's).
 */
static u64 free_pages_of(int nid, u64 start_pfn, u64 end_pfn)
{
	u64 idx = 0, pages = 0;
	phys_addr_t s, e;

	while (memblock_next_free_range(&memblock, &idx, nid, &s, &e, NULL)) {
		u64 lo = MAX(PFN_UP(s), start_pfn), hi = MIN(PFN_DOWN(e), end_pfn);

		if (PFN_UP(s) >= end_pfn)
			break;
		if (lo < hi)
			pages += hi - lo;
	}
	return pages;
}

/* A pending section's pages, counted on its node (ms->nid). */
static u64 section_pending_pages(u64 nr)
{
	const struct mem_section *ms = __nr_to_section(nr);

	if (!early_section(ms))	/* hot-added: all of it goes to the buddy */
		return ms->nr_present_pages;
	return free_pages_of(NUMA_NO_NODE, section_nr_to_pfn(nr), section_nr_to_pfn(nr + 1));
}

u64 deferred_init_zone_pending_pages(const struct zone *zone)
{
	u64 nr, last, pages = 0;
	int nid;

	if (!zone->zone_pgdat || zone_is_empty(zone) || zone->idx == ZONE_DEVICE)
		return 0;
	nid = zone->zone_pgdat->node_id;
	if (!MM_READ_ONCE(node_pending_sections[nid]))
		return 0;
	nr = pfn_to_section_nr(zone->zone_start_pfn);
	last = pfn_to_section_nr(zone_end_pfn(zone) - 1);
	for (; nr <= last && sparse_next_present(&nr) && nr <= last; nr++) {
		u64 lo = section_nr_to_pfn(nr), hi = section_nr_to_pfn(nr + 1);

		const struct mem_section *ms = __nr_to_section(nr);

		if (deferred_section(ms) && !early_section(ms))
			pages += deferred_hotplug_zone_of(nr) == (int)zone->idx ? ms->nr_present_pages : 0;
		else if (deferred_section(ms))
			pages += free_pages_of(nid, MAX(lo, (u64)zone->zone_start_pfn),
					       MIN(hi, (u64)zone_end_pfn(zone)));
	}
	return pages;
}

/* Contract in mm/deferred_internal.h. */
void deferred_pending_add_locked(u64 nr, int nid, u64 pages)
{
	mem_resize_assert_held();
	MM_WRITE_ONCE(node_pending_sections[nid], node_pending_sections[nid] + 1);
	MM_WRITE_ONCE(node_pending_pages[nid], node_pending_pages[nid] + pages);
	MM_WRITE_ONCE(pending_sections, pending_sections + 1);
	next_section = MIN(next_section, nr);
	node_cursor[nid] = MIN(node_cursor[nid], nr);
}

/* ---- the plan, at boot ---------------------------------------------------- */

/*
 * May section nr wait?  Only if memblock reserved nothing in it but boot
 * memory's memmap: every other reservation (page tables, the kernel, CMA,
 * firmware ranges) has an owner that may read or free its struct pages.
 * The memmap's backing has none: no walker asks for those pages as pages
 * while their section is pending (pfn_valid() is false), and nobody frees
 * them.  Bytes, not presence: memblock merges the memmap with a page-table
 * page next to it into one reserved region.
 */
static bool only_memmap_reserved(u64 nr)
{
	phys_addr_t lo = PFN_PHYS(section_nr_to_pfn(nr)), hi = PFN_PHYS(section_nr_to_pfn(nr + 1));
	u64 reserved = 0;

	for (u32 i = 0; i < memblock.reserved.cnt; i++) {
		const struct memblock_region *r = &memblock.reserved.regions[i];
		phys_addr_t s = MAX(r->base, lo), e = MIN(r->base + r->size, hi);

		if (s < e)
			reserved += e - s;
	}
	return reserved == boot_memmap_bytes_in(lo, hi);
}

void deferred_init_plan(void)
{
	const u64 section_bytes = (u64)PAGES_PER_SECTION << PAGE_SHIFT;
	/* rounded up without ALIGN_UP(), which wraps to 0 near ~0 */
	u64 early_sections = MAX(deferred_init_early / section_bytes +
				 (deferred_init_early % section_bytes != 0), 1ULL);
	u64 early_done[MAX_NUMNODES] = { 0 };
	u64 nr = 0;

	/* a previous boot's state (host tests) must not be finished now */
	mech_register_leave_new(MECH_DEFERRED_INIT, NULL);
	memset(&deferred_init_stats, 0, sizeof(deferred_init_stats));
	memset(node_pending_pages, 0, sizeof(node_pending_pages));
	memset(node_pending_sections, 0, sizeof(node_pending_sections));
	memset(node_cursor, 0, sizeof(node_cursor));
	memset(deferred_init_cpu_sections, 0, sizeof(deferred_init_cpu_sections));
	memset(deferred_init_cpu_cycles, 0, sizeof(deferred_init_cpu_cycles));
	for (unsigned c = 0; c < MM_NR_CPUS; c++)
		claim_of_cpu[c] = NO_CLAIM;
	pending_sections = next_section = inflight_sections = 0;
	deferred_hotplug_reset();
	mech_set(MECH_DEFERRED_INIT, deferred_init_param == DESIGN_NEW ? DESIGN_NEW : DESIGN_OLD);
	if (deferred_init_param != DESIGN_NEW)
		return;
	deferred_init_stats.boot_new = true;
	for (; sparse_next_present(&nr); nr++) {
		struct mem_section *ms = __nr_to_section(nr);
		int nid = ms->nid;

		if (!valid_section(ms) || nid < 0 || nid >= MAX_NUMNODES)
			continue;
		if (early_done[nid] < early_sections || !only_memmap_reserved(nr)) {
			early_done[nid]++;
			deferred_init_stats.boot_sections++;
			continue;
		}
		sparse_set_deferred(nr, true);
		node_pending_sections[nid]++;
		node_pending_pages[nid] += section_pending_pages(nr);
		pending_sections++;
	}
	deferred_init_stats.boot_pending_sections = pending_sections;
	deferred_init_stats.boot_pending_pages = deferred_init_pending_pages(NUMA_NO_NODE);
	mech_trace(MECH_DEFERRED_INIT, "boot: %llu sections now, %llu sections (%llu pages) wait",
		   (unsigned long long)deferred_init_stats.boot_sections,
		   (unsigned long long)pending_sections,
		   (unsigned long long)deferred_init_stats.boot_pending_pages);
}

void deferred_init_boot_done(void)
{
	u64 pending = deferred_init_pending_pages(NUMA_NO_NODE);

	/* present - managed counted them as reserved; they are only waiting */
	mm_boot_stats.reserved_pages -= MIN(pending, mm_boot_stats.reserved_pages);
	mech_register_leave_new(MECH_DEFERRED_INIT, deferred_init_finish);
	if (pending_sections)
		pr_info("deferred init: %llu sections (%llu MiB) of boot memory wait for their memmap",
			(unsigned long long)pending_sections,
			(unsigned long long)(pending >> (20 - PAGE_SHIFT)));
}

/* ---- initialising a section ----------------------------------------------- */

/* Does a CPU hold the claim on section nr?  Context: mem_resize_lock. */
static bool section_claimed(u64 nr)
{
	for (unsigned c = 0; c < MM_NR_CPUS; c++)
		if (claim_of_cpu[c] == nr)
			return true;
	return false;
}

/* Contract in mm/deferred_internal.h. */
bool deferred_section_claimed_locked(u64 nr)
{
	mem_resize_assert_held();
	return section_claimed(nr);
}

/* Contract in mm/deferred_internal.h. */
void deferred_pending_drop_locked(u64 nr, int nid, u64 pages)
{
	mem_resize_assert_held();
	MM_BUG_ON(section_claimed(nr), "pending section %llu dropped while a CPU initialises it",
		  (unsigned long long)nr);
	MM_BUG_ON(!node_pending_sections[nid] || !pending_sections,
		  "section %llu of node %d leaves the pending ones: %llu pending on the node, %llu in all",
		  (unsigned long long)nr, nid, (unsigned long long)node_pending_sections[nid],
		  (unsigned long long)pending_sections);
	MM_WRITE_ONCE(node_pending_sections[nid], node_pending_sections[nid] - 1);
	MM_WRITE_ONCE(node_pending_pages[nid], node_pending_pages[nid] - MIN(pages, node_pending_pages[nid]));
	MM_WRITE_ONCE(pending_sections, pending_sections - 1);
	if (!pending_sections)
		deferred_init_stats.done_cycles = mm_cycles();
}

/* Section nr ours if it is pending and nobody's.  Context: mem_resize_lock. */
static bool claim_locked(u64 nr)
{
	unsigned cpu = mm_this_cpu();

	MM_BUG_ON(cpu >= MM_NR_CPUS, "CPU %u claims section %llu: only CPUs below %u run mm", cpu,
		  (unsigned long long)nr, (unsigned)MM_NR_CPUS);
	if (!deferred_section(__nr_to_section(nr)) || section_claimed(nr) || deferred_hotplug_unready(nr))
		return false;
	MM_BUG_ON(claim_of_cpu[cpu] != NO_CLAIM, "CPU %u claims section %llu holding %llu", cpu,
		  (unsigned long long)nr, (unsigned long long)claim_of_cpu[cpu]);
	claim_of_cpu[cpu] = nr;
	inflight_sections++;
	return true;
}

/*
 * claim_next() - the lowest pending section in [*cursor, last] that is
 * nobody's claim (and of node nid, unless NUMA_NO_NODE), claimed for this
 * CPU; NO_CLAIM when there is none.  *cursor moves past every section
 * below it that is initialised or claimed (a claim always ends with the
 * section initialised), so it stays a bound: no unclaimed pending section
 * below it.  Context: mem_resize_lock.
 */
static u64 claim_next(int nid, u64 *cursor, u64 last)
{
	u64 nr = *cursor;

	for (; nr <= last && sparse_next_present(&nr) && nr <= last; nr++) {
		struct mem_section *ms = __nr_to_section(nr);

		if (!deferred_section(ms) || section_claimed(nr)) {
			if (nr == *cursor)
				*cursor = nr + 1;
			continue;
		}
		if ((nid != NUMA_NO_NODE && ms->nid != nid) || deferred_hotplug_unready(nr))
			continue;	/* an unready one stays above the cursor */
		claim_locked(nr);
		if (nr == *cursor)
			*cursor = nr + 1;
		return nr;
	}
	return NO_CLAIM;
}

/*
 * init_claimed() - section nr, which this CPU claimed, from pending to
 * initialised: its memmap through the boot's window (the old design's
 * calls, born free) with no lock held, then under mem_resize_lock the
 * zone counters, pfn_valid() on, its free memory to the buddy, the claim
 * dropped.  why names the caller for the trace.
 *
 * Born free: the eager design, like Linux, writes every struct page twice,
 * once to initialise it (refcount 1) and once in the hand-over (refcount
 * 0, type and PG_reserved cleared) before linking its block into a free
 * list.  Here the hand-over follows at once, with nothing in between that
 * could take a page, so the memory pages are initialised in that second
 * state straight away and the hand-over only links the blocks: each
 * struct page is written once, and the bytes are the eager design's
 * (tests/host/test_deferred_init.c compares the memmaps).  page_poison=on
 * visits every page in the hand-over anyway, so it keeps the two passes.
 * Context: any CPU, no lock held, holding the claim on nr.
 */
static void init_claimed(u64 nr, const char *why)
{
	struct mem_section *ms = __nr_to_section(nr);
	u64 lo = section_nr_to_pfn(nr), hi = section_nr_to_pfn(nr + 1);
	u64 t0 = mm_cycles(), holes = 0, pages, freed, dt, waiting, left, counted = 0;
	bool born_free = !page_poison_enabled();
	struct zone *hot_zone = NULL;
	struct memmap_acct acct;
	unsigned cpu = mm_this_cpu();
	int nid = ms->nid;

	acct.nr = 0;
	acct.overflow = false;
	waiting = section_pending_pages(nr);	/* memblock: constant after boot */
	if (!early_section(ms)) {
		hot_zone = deferred_hotplug_claimed_zone(nr);
		pages = deferred_hotplug_memmap_init(nr, hot_zone, born_free);
	} else {
		pages = boot_memmap_init_window(lo, hi, &holes, born_free, &acct);
	}
	mem_resize_lock();	/* the section's state, the zone's memmap counter, ours */
	MM_BUG_ON(!deferred_section(ms) || claim_of_cpu[cpu] != nr,
		  "section %llu: pending %d, CPU %u's claim %llu", (unsigned long long)nr,
		  deferred_section(ms), cpu, (unsigned long long)claim_of_cpu[cpu]);
	if (hot_zone) {
		freed = deferred_hotplug_handover_locked(nr, hot_zone, born_free, &counted);
	} else if (acct.overflow) {	/* more pieces than acct holds: the same bytes again, counted */
		holes = 0;
		pages = boot_memmap_init_window(lo, hi, &holes, born_free, NULL);
	} else {
		memmap_acct_apply(&acct);
	}
	if (!hot_zone) {
		sparse_set_deferred(nr, false);
		freed = boot_handover_window(lo, hi, born_free);
		wmarks_stale = true;	/* managed grew */
	}
	/* a hot-added section counts all its pages as pending, and those its
	 * online callback frees (virtio-mem's keeps some PageOffline) as
	 * managed and free since its online: exactly those must have come */
	MM_BUG_ON(hot_zone ? freed != counted || freed > waiting : freed != waiting,
		  "section %llu: %llu pages handed over, %llu counted as pending, %llu as free at the online",
		  (unsigned long long)nr, (unsigned long long)freed, (unsigned long long)waiting,
		  (unsigned long long)counted);
	MM_WRITE_ONCE(node_pending_sections[nid], node_pending_sections[nid] - 1);
	MM_WRITE_ONCE(node_pending_pages[nid], node_pending_pages[nid] -
		      MIN(waiting, node_pending_pages[nid]));
	MM_WRITE_ONCE(pending_sections, pending_sections - 1);
	claim_of_cpu[cpu] = NO_CLAIM;
	inflight_sections--;
	deferred_init_cpu_sections[cpu]++;
	dt = mm_cycles() - t0;
	deferred_init_cpu_cycles[cpu] += dt;
	deferred_init_stats.cycles += dt;
	if (!pending_sections)
		deferred_init_stats.done_cycles = mm_cycles();
	left = pending_sections;
	mem_resize_unlock();
	mech_trace(MECH_DEFERRED_INIT,
		   "%s: section %llu [mem %#llx-%#llx] node %d: %llu struct pages (%llu in holes), %llu pages to the buddy, %llu cycles; %llu sections pending",
		   why, (unsigned long long)nr, (unsigned long long)PFN_PHYS(lo),
		   (unsigned long long)PFN_PHYS(hi) - 1, nid, (unsigned long long)(pages + holes),
		   (unsigned long long)holes, (unsigned long long)freed, (unsigned long long)dt,
		   (unsigned long long)left);
}

/*
 * need_section() - section nr initialised before the caller goes on: by
 * this CPU if it is pending and nobody's (true), or by the CPU that holds
 * its claim, waited for with the lock dropped (false, as when it was
 * initialised already).  Context: no lock held.
 */
static bool need_section(u64 nr, const char *why)
{
	mem_resize_lock();
	while (deferred_section(__nr_to_section(nr)) && section_claimed(nr)) {
		mem_resize_unlock();
		lock_cpu_relax();
		mem_resize_lock();
	}
	if (!claim_locked(nr)) {
		mem_resize_unlock();
		return false;
	}
	mem_resize_unlock();
	init_claimed(nr, why);
	return true;
}

/* Watermarks from the new managed pages, as the boot computes them, if a
 * boot section was initialised since the last time (a hot-added one was
 * counted at its online, whose watermarks stand).  Context: no lock held. */
static void refresh_wmarks(void)
{
	bool stale;

	mem_resize_lock();
	stale = wmarks_stale;
	wmarks_stale = false;
	mem_resize_unlock();
	if (stale)
		setup_per_zone_wmarks_as_boot();
}

/* After sections were initialised: watermarks from the new managed pages,
 * and each zone's contiguity (a zone is contiguous once nothing waits). */
static void settle(void)
{
	struct zone *zone;

	refresh_wmarks();
	mem_resize_lock();
	for_each_zone(zone)
		if (zone->zone_pgdat && zone->zone_pgdat->online && zone->idx != ZONE_DEVICE)
			zone_update_contiguous(zone);
	mem_resize_unlock();
}

/* claim_next() from the cursor of nid (or the global one), under the lock;
 * with the global cursor, running out while sections are pending and none
 * is claimed is a bug (a pending section below the cursor). */
static u64 claim_from_cursor(int nid)
{
	u64 nr;

	mem_resize_lock();
	nr = claim_next(nid, nid == NUMA_NO_NODE ? &next_section : &node_cursor[nid], ~0ULL);
	MM_BUG_ON(nr == NO_CLAIM && nid == NUMA_NO_NODE &&
		  pending_sections > inflight_sections + deferred_hotplug_nr_unready(),
		  "deferred init: %llu sections pending (%llu claimed), none found from section %llu",
		  (unsigned long long)pending_sections, (unsigned long long)inflight_sections,
		  (unsigned long long)next_section);
	mem_resize_unlock();
	return nr;
}

u64 deferred_init_step_while(bool (*more)(void *ctx), void *ctx)
{
	u64 done = 0, nr;

	while (MM_READ_ONCE(pending_sections) && (nr = claim_from_cursor(NUMA_NO_NODE)) != NO_CLAIM) {
		init_claimed(nr, "step");
		done++;
		if (!more(ctx))
			break;
	}
	if (done) {
		mem_resize_lock();
		deferred_init_stats.steps++;
		deferred_init_stats.step_sections += done;
		mem_resize_unlock();
		settle();
	}
	return done;
}

u64 deferred_init_work_node(int nid, bool (*more)(void *ctx), void *ctx)
{
	u64 done = 0, nr;

	if (nid < 0 || nid >= MAX_NUMNODES)
		return 0;
	while (MM_READ_ONCE(pending_sections) && (nr = claim_from_cursor(nid)) != NO_CLAIM) {
		init_claimed(nr, "work");
		done++;
		if (more && !more(ctx))
			break;
	}
	if (done) {
		mem_resize_lock();
		deferred_init_stats.work_sections += done;
		mem_resize_unlock();
		settle();
	}
	return done;
}

/* deferred_init_step()'s budget: *left sections more after the first. */
static bool sections_left(void *ctx)
{
	u64 *left = ctx;

	if (!*left)
		return false;
	(*left)--;
	return true;
}

u64 deferred_init_step(u64 max_sections)
{
	u64 left = max_sections ? max_sections - 1 : 0;

	return deferred_init_step_while(sections_left, &left);
}

/* The pending sections of [first, last] (of node nid unless NUMA_NO_NODE),
 * lowest first, each initialised here or waited for (need_section()),
 * until enough(ctx) says so; *got counts both.  Returns those done here. */
static u64 need_sections(u64 first, u64 last, int nid, const char *why,
			 bool (*enough)(void *ctx), void *ctx, u64 *got)
{
	u64 nr = first, done = 0;

	for (; nr <= last && sparse_next_present(&nr) && nr <= last; nr++) {
		struct mem_section *ms = __nr_to_section(nr);

		/* a hint, read again under the lock by need_section() */
		if (!pfn_pending(section_nr_to_pfn(nr)) || (nid != NUMA_NO_NODE && ms->nid != nid))
			continue;
		if (need_section(nr, why))
			done++;
		(*got)++;
		if (enough && enough(ctx))
			break;
	}
	return done;
}

struct grow_ctx {
	struct zone *zone;	/* [o] */
	unsigned order;		/* [o] */
};

/* deferred_grow_zone()'s stop: the zone can serve the order above low. */
static bool zone_grown_enough(void *ctx)
{
	struct grow_ctx *g = ctx;

	refresh_wmarks();
	return zone_watermark_ok(g->zone, g->order, zone_wmark(g->zone, WMARK_LOW), g->zone->idx,
				 ALLOC_CMA);
}

bool deferred_grow_zone(struct zone *zone, unsigned order)
{
	struct grow_ctx g = { zone, order };
	u64 got = 0, grown;
	int nid;

	if (!MM_READ_ONCE(pending_sections) || !zone->zone_pgdat || zone_is_empty(zone))
		return false;
	nid = zone->zone_pgdat->node_id;
	if (!MM_READ_ONCE(node_pending_sections[nid]))	/* claimed ones count until done */
		return false;
	grown = need_sections(pfn_to_section_nr(zone->zone_start_pfn),
			      pfn_to_section_nr(zone_end_pfn(zone) - 1), nid, "grow",
			      zone_grown_enough, &g, &got);
	if (!got)
		return false;
	mem_resize_lock();
	deferred_init_stats.grows++;
	deferred_init_stats.grow_sections += grown;
	mem_resize_unlock();
	mech_trace(MECH_DEFERRED_INIT, "grow: zone %s of node %d, order %u: %llu sections (%llu by other CPUs)",
		   zone->name, nid, order, (unsigned long long)grown,
		   (unsigned long long)(got - grown));
	settle();
	return true;
}

u64 deferred_init_pfn_range(u64 start_pfn, u64 end_pfn)
{
	u64 got = 0, done;

	if (!MM_READ_ONCE(pending_sections) || start_pfn >= end_pfn)
		return 0;
	done = need_sections(pfn_to_section_nr(start_pfn), pfn_to_section_nr(end_pfn - 1),
			     NUMA_NO_NODE, "range", NULL, NULL, &got);
	if (got) {
		mem_resize_lock();
		deferred_init_stats.range_sections += done;
		mem_resize_unlock();
		settle();
	}
	return done;
}

/* Until no CPU initialises a section (claims held by other CPUs end by
 * themselves).  Context: no lock held. */
static void deferred_init_wait_claims(void)
{
	mem_resize_lock();
	while (inflight_sections) {
		mem_resize_unlock();
		lock_cpu_relax();
		mem_resize_lock();
	}
	mem_resize_unlock();
}

void deferred_init_finish(void)
{
	while (MM_READ_ONCE(pending_sections)) {
		if (!deferred_init_step(MM_READ_ONCE(pending_sections)))
			deferred_init_wait_claims();	/* the rest is other CPUs' */
	}
	deferred_init_wait_claims();
	settle();
}

/* ---- the check: the same memmap whoever initialised it ---------------------- */

/* One 64-bit word into an FNV-1a hash, a byte at a time. */
static u64 fnv_word(u64 h, u64 w)
{
	for (unsigned i = 0; i < 8; i++, w >>= 8)
		h = (h ^ (w & 0xff)) * 0x100000001b3ULL;
	return h;
}

void deferred_init_memmap_sum(struct memmap_sum *s)
{
	s->pages = s->reserved = s->pending = 0;
	s->hash = 0xcbf29ce484222325ULL;
	for (u32 i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];

		for (u64 pfn = PFN_UP(r->base); pfn < PFN_DOWN(r->base + r->size); pfn++) {
			const struct page *page;
			u64 w;

			if (!pfn_valid(pfn)) {
				s->pending++;
				continue;
			}
			page = pfn_to_page(pfn);
			w = (u64)page_zonenum(page) | (u64)page_to_nid(page) << 8 |
			    (u64)(PageReserved(page) ? 1 : 0) << 16;
			s->hash = fnv_word(fnv_word(s->hash, pfn), w);
			s->pages++;
			s->reserved += PageReserved(page) ? 1 : 0;
		}
	}
}

/* ---- the view ------------------------------------------------------------- */

/* When CPUs besides CPU 0 initialised sections (their workers, or grows
 * from their allocations): one line with each one's count. */
static void dump_by_cpu(struct printer *p)
{
	u64 by_cpu[MM_NR_CPUS], cycles[MM_NR_CPUS], work;
	bool others = false;

	mem_resize_lock();	/* a snapshot, printed without the lock */
	memcpy(by_cpu, deferred_init_cpu_sections, sizeof(by_cpu));
	memcpy(cycles, deferred_init_cpu_cycles, sizeof(cycles));
	work = deferred_init_stats.work_sections;
	mem_resize_unlock();
	for (unsigned cpu = 1; cpu < MM_NR_CPUS; cpu++)
		others |= by_cpu[cpu] != 0;
	if (!others)
		return;
	pr_printf(p, "  by CPU (%llu sections by node workers):\n", (unsigned long long)work);
	for (unsigned cpu = 0; cpu < MM_NR_CPUS; cpu++)
		if (by_cpu[cpu] || !cpu)
			pr_printf(p, "    cpu %u: %llu sections, %llu cycles per section\n", cpu,
				  (unsigned long long)by_cpu[cpu],
				  (unsigned long long)(cycles[cpu] / MAX(by_cpu[cpu], 1ULL)));
}

void deferred_init_dump(struct printer *p)
{
	const struct deferred_init_stats *s = &deferred_init_stats;
	int nid;

	if (!s->boot_new) {
		pr_printf(p, "deferred init: none, the boot ran deferred_init=old (all boot memory before the prompt)%s\n",
			  mech_design(MECH_DEFERRED_INIT) == DESIGN_NEW ?
			  "; the switch says new: deferred_init=new on the command line does it at boot" : "");
		deferred_hotplug_dump(p);
		return;
	}
	pr_printf(p, "deferred init: deferred_init=new at boot, %llu MiB per node early: %llu sections at boot, %llu waited (%llu pages)\n",
		  (unsigned long long)(deferred_init_early >> 20),
		  (unsigned long long)s->boot_sections, (unsigned long long)s->boot_pending_sections,
		  (unsigned long long)s->boot_pending_pages);
	for_each_online_node(nid) {
		u64 present = NODE_DATA(nid)->node_present_pages;
		u64 pending = MM_READ_ONCE(node_pending_pages[nid]);

		pr_printf(p, "  node %d: %llu pages initialised, %llu pending (%llu sections)\n", nid,
			  (unsigned long long)(present - MIN(pending, present)),
			  (unsigned long long)pending,
			  (unsigned long long)MM_READ_ONCE(node_pending_sections[nid]));
	}
	pr_printf(p, "  %llu steps (%llu sections), %llu grown on demand (%llu sections), %llu sections for ranges, %llu cycles: %s\n",
		  (unsigned long long)s->steps, (unsigned long long)s->step_sections,
		  (unsigned long long)s->grows, (unsigned long long)s->grow_sections,
		  (unsigned long long)s->range_sections, (unsigned long long)s->cycles,
		  MM_READ_ONCE(pending_sections) ? "in progress" : "done");
	deferred_hotplug_dump(p);
	dump_by_cpu(p);
}

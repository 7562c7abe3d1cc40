/*
 * hotplug_check.h - the invariants of a booted simulated machine after
 * memory hotplug (add, online, offline, remove, virtio-mem's PageOffline
 * sub-blocks), checked from the memmap and the free lists without trusting
 * the counters.  Used after every step by test_hotplug.c,
 * test_online_policy.c and test_hotplug_random.c, and by the virtio-mem
 * fuzz target.
 *
 * What hotplug_check_invariants() checks, per zone (the definitions of
 * memory_hotplug.c):
 *   - present_pages == the pages of memory in online blocks whose struct
 *     page says this zone (a recount);
 *   - present_pages == managed_pages + reserved + offline + pending -
 *     pending_free, where reserved counts the PG_reserved pages among them
 *     (boot reservations, memmap_on_memory pages), offline the PageOffline
 *     ones, pending the free pages of boot sections whose memmap init is
 *     still deferred (deferred_init=new; their struct pages are not read,
 *     so their reserved pages, the memmap they may hold, come from
 *     memblock) and every page of hot-added sections onlined lazily
 *     (deferred_init_hotplug=1), and pending_free (zone->nr_free_pending)
 *     those of the latter counted as managed and free at their online,
 *     which must equal the sum the hot-add table keeps per section;
 *   - nr_free == pages of the buddy free lists + pcp count + pending_free,
 *     NR_FREE_PAGES == buddy + pending_free, and every free block lies in
 *     online memory of the zone, in a pageblock that is not isolated;
 *   - no page is lost: managed_pages == nr_free + allocated, where
 *     allocated counts the online, untyped, unreserved pages with a
 *     refcount >= 1 (what the buddy handed out);
 *   - the watermarks and pcp sizes are the ones setup_per_zone_wmarks()
 *     computes from the current managed pages;
 *   - the span starts and ends on online memory of the zone, and covers
 *     every page of the zone;
 *   - `contiguous` equals what a fresh pageblock walk says;
 * per node: present = sum over zones, span = min start .. max end of the
 * non-empty zones; per block: the state counters equal a recount, offline
 * blocks have a poisoned memmap and offline sections, online ones online
 * sections; per group: kernel/movable pages equal a recount; and
 * totalram_pages() is the sum of managed pages.
 *
 * Each broken rule is a failed CHECK (htest.h): htest_failures grows and a
 * line says which.
 */
#ifndef HOST_HOTPLUG_CHECK_H
#define HOST_HOTPLUG_CHECK_H

#include <mm/memory_hotplug.h>
#include <mm/deferred_init.h>

void hotplug_check_invariants(void);

/*
 * hotplug_check_memblock_pages() - pages of memblock memory in [start_pfn,
 * end_pfn), or (reserved) only those of it that memblock reserved: interval
 * arithmetic over the two lists, independent of the free-range walk the
 * kernel counts with.  For pending sections, whose memmap is unreadable.
 */
unsigned long long hotplug_check_memblock_pages(unsigned long long start_pfn,
						unsigned long long end_pfn, bool reserved);

/*
 * hotplug_check_frozen_pages - NULL, or how many pages of zone the caller
 * holds allocated frozen (refcount 0, alloc_contig_range(frozen)): the
 * memmap cannot tell them from the tails of free blocks, so the no-page-
 * lost rule counts them as allocated only on the caller's word.
 */
struct zone;
extern unsigned long long (*hotplug_check_frozen_pages)(const struct zone *zone);

/*
 * hotplug_knobs_default() - the memory hotplug settings as a fresh boot
 * has them (online policy contig-zones, ratio 301, NUMA aware, no
 * memmap_on_memory, new blocks offline, no injected errors), for fixtures
 * that boot a machine again and again in one process.
 */
static inline void hotplug_knobs_default(void)
{
	memhp_set_online_policy(ONLINE_POLICY_CONTIG_ZONES);
	memhp_set_auto_movable_ratio(301);
	memhp_set_auto_movable_numa_aware(true);
	memhp_set_memmap_on_memory(false);
	memhp_set_default_online_type(MMOP_OFFLINE);
	memhp_set_inject_going_online_error(0);
	memhp_set_inject_going_offline_error(0);
	/* the kernel's default is lazy (deferred_init_hotplug=1); the host
	 * suites of other mechanisms check the eager online's pages right
	 * after it, and test_lazy_hotplug.c turns it on for its own */
	deferred_init_hotplug_set(false);
}

/*
 * hotplug_boot() - a fresh machine for hotplug tests: ram_bytes of
 * simulated memory, of which the firmware map gives [0, boot_bytes) as RAM
 * on node 0, booted through mm_core_init() with the hotplug knobs at
 * their defaults and the log quiet (LOG_CRIT).
 */
void hotplug_boot(unsigned long long ram_bytes, unsigned long long boot_bytes);

/*
 * nr_section_roots() - the roots of the section table that exist (boot
 * ones, and those of hot-added windows that still have memory).
 */
unsigned long nr_section_roots(void);

#endif

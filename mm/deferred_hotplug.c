/*
 * deferred_hotplug.c - mechanism 5's hot-add half (deferred_init_hotplug=1,
 * the default): a hot-added block onlined before its memmap is written.
 * The block goes online at once and its section becomes pending as boot
 * memory's pending sections are (SECTION_MEMMAP_DEFERRED: memmap mapped,
 * not written, pfn_valid() false); mm/deferred_init.c's machinery (the
 * claims, the background steps, the APs' work items, deferred_grow_zone(),
 * deferred_init_pfn_range()) writes it later, and calls back here for what
 * differs from a boot section: which zone it belongs to, how its struct
 * pages are written (as the eager online writes them, born free) and how
 * its pages reach the buddy (the online callback it was onlined under).
 *
 * Counting (docs/deferred-init.md, "Counters while it runs"): at the
 * online, deferred_init_hotplug_defer() counts the pages the online
 * callback will give to the buddy (all of them for the default callback,
 * the count op's answer for a driver's deferrable one) as the eager online
 * counts them: the zone's managed_pages (MemTotal) and free, the free
 * ones as zone->nr_free_pending, not in the buddy; the hand-over moves
 * exactly those from nr_free_pending into the buddy (FREE_RANGE_PENDING),
 * managed and free unchanged.  Boot sections keep Linux's boot rule
 * (counted when initialised, in deferred_init.c).
 *
 * The table of pending hot-added sections is indexed by section number
 * (O(1) lookups) and sized from the firmware's map at boot
 * (deferred_init_hotplug_size()).
 *
 * Contracts: include/mm/deferred_init.h (the parameter, the sizing, the
 * queries), mm/internal.h (defer, publish, zone: memory_online.c's side),
 * mm/deferred_internal.h (deferred_init.c's side).  Context: as each
 * function says; the table is [n] mem_resize_lock.
 */
#include <mm/deferred_init.h>
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

/*
 * Hot-added sections whose memmap waits (deferred_init_hotplug=1), indexed
 * by section number: the zone its block was onlined into, which the boot's
 * sections take from the zone spans but a hot-added one cannot (spans of
 * Normal and Movable may overlap), and the pages counted at its online as
 * managed and free (zone->nr_free_pending until the hand-over).  The table
 * covers every section up to the end of the firmware's map (boot RAM or
 * the highest SRAT hotplug range): HP_TABLE_STATIC sections (1 TiB) in a
 * static table, more from memblock at boot (deferred_init_hotplug_size(),
 * as the memory block pool is sized), so every section a correct map can
 * hot-add has its entry.  A section past it is onlined eagerly (logged):
 * nothing is refused.
 */
#define HP_TABLE_STATIC	8192	/* sections: 1 TiB */
struct hp_pending {
	u64 free;	/* [n] pages counted as managed and free at the online (nr_free_pending) */
	int zone;	/* [n] enum zone_type of its block */
	bool used;	/* [n] the section is pending and hot-added: the rest is valid */
	bool ready;	/* [n] its online finished: claimable (deferred_init_hotplug_publish()) */
	bool driver_cb;	/* [n] onlined under a driver's deferrable callback (virtio-mem's), not the default */
};
static struct hp_pending hp_static[HP_TABLE_STATIC];	/* [n] the table unless the map needs more */
static struct hp_pending *hp_table = hp_static;	/* [c] entry nr: section nr */
static u64 hp_table_size = HP_TABLE_STATIC;	/* [c] sections it covers */
static unsigned nr_hp_pending;	/* [n] entries used */
static unsigned nr_hp_unready;	/* [n] entries not ready yet: pending, not claimable */
static u64 nr_hp_past_table;	/* [h] blocks onlined eagerly: past the table (the onlines, mem_hotplug_lock) */
static bool hotplug_lazy = true;	/* [m] deferred_init_hotplug=: on by default */
static void (*hotplug_kick)(void);	/* [c] deferred_init_set_kick(): the background work */

_Static_assert(sizeof(struct hp_pending) == 16, "the hot-add table: 16 bytes a section (deferred_init.h)");

KERNEL_PARAM(deferred_init_hotplug,
	.name = "deferred_init_hotplug", .type = PARAM_BOOL, .value = &hotplug_lazy,
	.max = 1, .def = 1,
	.help = "with deferred_init (mech 5) new: online hot-added blocks at once, their memmap after (0: eager)");

/* Contract in include/mm/deferred_init.h. */
bool deferred_init_hotplug_enabled(void)
{
	return hotplug_lazy && mech_design(MECH_DEFERRED_INIT) == DESIGN_NEW;
}

/* Contract in include/mm/deferred_init.h. */
bool deferred_init_hotplug_get(void)
{
	return hotplug_lazy;
}

/* Contract in include/mm/deferred_init.h. */
void deferred_init_hotplug_set(bool on)
{
	hotplug_lazy = on;
}

/* Contract in include/mm/deferred_init.h. */
void deferred_init_set_kick(void (*kick)(void))
{
	hotplug_kick = kick;
}

/* The entry of pending hot-added section nr, or NULL: O(1), the table is
 * indexed by section.  Context: mem_resize_lock, or a snapshot for the
 * views. */
static struct hp_pending *hp_find(u64 nr)
{
	return nr < hp_table_size && hp_table[nr].used ? &hp_table[nr] : NULL;
}

/* Contract in mm/deferred_internal.h. */
bool deferred_hotplug_unready(u64 nr)
{
	const struct hp_pending *e = nr_hp_unready ? hp_find(nr) : NULL;

	return e && !e->ready;
}

/* Contract in mm/deferred_internal.h. */
int deferred_hotplug_zone_of(u64 nr)
{
	const struct hp_pending *e = hp_find(nr);

	return e ? e->zone : -1;
}

/* Contract in include/mm/deferred_init.h. */
int deferred_init_hotplug_size(u64 end, void *(*alloc)(u64 bytes))
{
	u64 sections = end / ((u64)PAGES_PER_SECTION << PAGE_SHIFT) +
		       (end % ((u64)PAGES_PER_SECTION << PAGE_SHIFT) != 0);
	struct hp_pending *t;

	hp_table = hp_static;
	hp_table_size = HP_TABLE_STATIC;
	if (sections <= HP_TABLE_STATIC)
		return 0;
	if (sections > NR_MEM_SECTIONS)
		sections = NR_MEM_SECTIONS;
	t = alloc(sections * sizeof(*t));
	if (!t) {
		pr_warn("deferred init: no %llu KiB for the hot-add table of %llu sections; %u sections (%llu GiB) at most onlined lazily",
			(unsigned long long)(sections * sizeof(*t) >> 10), (unsigned long long)sections,
			HP_TABLE_STATIC, (unsigned long long)((u64)HP_TABLE_STATIC * PAGES_PER_SECTION >> (30 - PAGE_SHIFT)));
		return -ENOMEM;
	}
	memset(t, 0, sections * sizeof(*t));
	hp_table = t;
	hp_table_size = sections;
	pr_info("deferred init: a hot-add table of %llu sections (%llu GiB) from the map, %llu KiB",
		(unsigned long long)sections,
		(unsigned long long)(sections * PAGES_PER_SECTION >> (30 - PAGE_SHIFT)),
		(unsigned long long)(sections * sizeof(*t) >> 10));
	return 0;
}

/* Contract in include/mm/deferred_init.h. */
u64 deferred_init_zone_pending_free(const struct zone *zone)
{
	u64 pages = 0;

	if (!zone->zone_pgdat || zone_is_empty(zone) || !MM_READ_ONCE(nr_hp_pending))
		return 0;
	for (u64 nr = pfn_to_section_nr(zone->zone_start_pfn);
	     nr <= pfn_to_section_nr(zone_end_pfn(zone) - 1) && nr < hp_table_size; nr++) {
		const struct hp_pending *e = hp_find(nr);

		if (e && e->zone == (int)zone->idx &&
		    __nr_to_section(nr)->nid == zone->zone_pgdat->node_id)
			pages += e->free;
	}
	return pages;
}

/* Contract in mm/deferred_internal.h. */
void deferred_hotplug_reset(void)
{
	nr_hp_pending = nr_hp_unready = 0;
	nr_hp_past_table = 0;
	memset(hp_table, 0, hp_table_size * sizeof(*hp_table));
}

/* Contract in mm/deferred_internal.h. */
unsigned deferred_hotplug_nr_unready(void)
{
	return nr_hp_unready;
}

/* Contract in mm/internal.h. */
int deferred_init_hotplug_zone(u64 pfn)
{
	u64 nr = pfn_to_section_nr(pfn);
	const struct mem_section *ms = __nr_to_section(nr);

	if (!deferred_section(ms) || early_section(ms))
		return -1;
	return deferred_hotplug_zone_of(nr);
}

/* ---- hot-added sections ---------------------------------------------------- */

/* The zone of claimed hot-added section nr (its entry stays while the claim
 * is held: only deferred_hotplug_handover_locked() removes it).  Context: no lock
 * held, holding the claim on nr. */
struct zone *deferred_hotplug_claimed_zone(u64 nr)
{
	struct zone *zone;
	int z;

	mem_resize_lock();
	z = deferred_hotplug_zone_of(nr);
	MM_BUG_ON(z < 0 || z >= MAX_NR_ZONES, "hot-added section %llu pending without a zone (%d)",
		  (unsigned long long)nr, z);
	zone = &NODE_DATA(__nr_to_section(nr)->nid)->node_zones[z];
	mem_resize_unlock();
	return zone;
}

/*
 * hotplug_memmap_init() - the struct pages of claimed hot-added section nr,
 * as the eager online writes them (block_online_locked()'s
 * init_block_memmap(): memmap_init_range(), Movable pageblocks), but born
 * free as the boot's pending sections are (init_claimed()): refcount 0,
 * the state the hand-over's reset would leave, so that the hand-over only
 * links the blocks; with page_poison=on (never deferred, checked again)
 * refcount 1 as the eager online.  Returns the pages written.  Context:
 * no lock held, holding the claim (nobody reads them: pfn_valid() is
 * false).
 */
u64 deferred_hotplug_memmap_init(u64 nr, struct zone *zone, bool born_free)
{
	u64 lo = section_nr_to_pfn(nr), hi = section_nr_to_pfn(nr + 1);

	if (born_free)
		memmap_init_free_range(lo, hi, zone->idx, zone->zone_pgdat->node_id, MIGRATE_MOVABLE);
	else
		memmap_init_range(lo, hi, zone->idx, zone->zone_pgdat->node_id, MIGRATE_MOVABLE);
	return hi - lo;
}

/*
 * hotplug_handover_locked() - the rest of the eager online for claimed
 * section nr, whose struct pages are written: the zone's memmap counter,
 * pfn_valid() on, the pages to the buddy through the online callback the
 * block was onlined under (generic_online_pages(), or virtio-mem's, which
 * gives the plugged sub-blocks to the buddy and keeps the others
 * PageOffline: its plan for the section has not changed since, see
 * set_online_page_callback_deferrable()), the table entry dropped.
 * Returns the pages given to the buddy (this CPU's
 * online_pages_freed_here() around the callback: other CPUs may change the
 * zone's managed pages meanwhile); the section's other pages are
 * PageOffline.  Context: mem_resize_lock held (zone->lock inside).
 */
u64 deferred_hotplug_handover_locked(u64 nr, struct zone *zone, bool born_free, u64 *counted)
{
	u64 lo = section_nr_to_pfn(nr), hi = section_nr_to_pfn(nr + 1);
	u64 freed0 = online_pages_freed_here();
	struct hp_pending *e = hp_find(nr);
	online_page_callback_t cb = e && e->driver_cb ? online_page_callback_get() :
							generic_online_pages;

	MM_BUG_ON(!e, "hot-added section %llu pending without its entry", (unsigned long long)nr);
	/* the driver keeps its callback while it has blocks (it offlines them,
	 * which initialises them, before it restores the default) */
	MM_BUG_ON(cb == generic_online_pages && e->driver_cb,
		  "hot-added section %llu was onlined under a driver's callback, none is set now",
		  (unsigned long long)nr);

	zone_online_memmap_add(zone, lo, hi);
	sparse_set_deferred(nr, false);
	online_pages_born_free(born_free);
	online_pages_counted(true);	/* managed and free since the online */
	cb(lo, hi);
	online_pages_counted(false);
	online_pages_born_free(false);
	*counted = e->free;
	memset(e, 0, sizeof(*e));
	MM_WRITE_ONCE(nr_hp_pending, nr_hp_pending - 1);
	return online_pages_freed_here() - freed0;
}

/* Contract in mm/internal.h. */
bool deferred_init_hotplug_defer(u64 start_pfn, u64 nr_pages, struct zone *zone,
				 online_page_callback_t online_cb, online_page_count_t online_count)
{
	u64 nr = pfn_to_section_nr(start_pfn), free;
	struct mem_section *ms = __nr_to_section(nr);
	int nid = zone->zone_pgdat->node_id;
	bool driver_cb = online_cb != generic_online_pages;

	if (!deferred_init_hotplug_enabled() || nr_pages != PAGES_PER_SECTION ||
	    start_pfn % PAGES_PER_SECTION || !valid_section(ms) || early_section(ms) ||
	    ms->nr_present_pages != PAGES_PER_SECTION || ms->nid != nid ||
	    page_poison_enabled() || (driver_cb && !online_count))
		return false;
	if (nr >= hp_table_size) {	/* past the map: not with a correct one */
		if (!nr_hp_past_table++)
			pr_warn("deferred init: section %llu [mem %#llx] lies past the hot-add table (%llu sections, sized from the map): onlined eagerly",
				(unsigned long long)nr, (unsigned long long)PFN_PHYS(start_pfn),
				(unsigned long long)hp_table_size);
		return false;
	}
	/* what the eager online would give to the buddy; the callback's
	 * promise keeps it so until the hand-over */
	free = driver_cb ? online_count(start_pfn, start_pfn + nr_pages) : nr_pages;
	MM_BUG_ON(free > nr_pages, "section %llu: the online callback would free %llu of %llu pages",
		  (unsigned long long)nr, (unsigned long long)free, (unsigned long long)nr_pages);
	mem_resize_lock();
	if (deferred_section(ms)) {
		mem_resize_unlock();
		return false;
	}
	hp_table[nr] = (struct hp_pending){ free, zone->idx, true, false, driver_cb };
	MM_WRITE_ONCE(nr_hp_pending, nr_hp_pending + 1);
	nr_hp_unready++;
	sparse_set_deferred(nr, true);
	spin_lock(&zone->lock);	/* as the eager online's hand-over counts them */
	MM_WRITE_ONCE(zone->managed_pages, zone->managed_pages + free);	/* read unlocked */
	zone_nr_free_pending_add(zone, (long)free);
	spin_unlock(&zone->lock);
	deferred_pending_add_locked(nr, nid, nr_pages);
	deferred_init_stats.hotplug_sections++;
	mem_resize_unlock();
	mech_trace(MECH_DEFERRED_INIT, "hotplug: section %llu [mem %#llx-%#llx] node %d zone %s: online, %llu pages managed and free, memmap pending",
		   (unsigned long long)nr, (unsigned long long)PFN_PHYS(start_pfn),
		   (unsigned long long)PFN_PHYS(start_pfn + nr_pages) - 1, nid, zone->name,
		   (unsigned long long)free);
	return true;
}

/* Contract in mm/internal.h. */
void deferred_init_hotplug_publish(u64 start_pfn)
{
	struct hp_pending *e;

	mem_resize_lock();
	e = hp_find(pfn_to_section_nr(start_pfn));
	if (e && !e->ready) {
		e->ready = true;
		nr_hp_unready--;
	}
	mem_resize_unlock();
	if (e && hotplug_kick)
		hotplug_kick();
}

/*
 * A pending hot-added section may be dropped unwritten when its block goes
 * offline if its online finished (ready), it belongs to the zone the block
 * is offlined from and no CPU initialises it now.  Context: mem_resize_lock.
 */
static bool hp_discardable(u64 nr, const struct zone *zone)
{
	const struct hp_pending *e = hp_find(nr);

	return e && e->ready && e->zone == (int)zone->idx && deferred_section(__nr_to_section(nr)) &&
	       !deferred_section_claimed_locked(nr);
}

/* Contract in mm/internal.h. */
bool deferred_init_hotplug_discard(u64 start_pfn, u64 end_pfn, struct zone *zone, u64 *counted)
{
	u64 first = pfn_to_section_nr(start_pfn), last = pfn_to_section_nr(end_pfn - 1), free = 0;

	*counted = 0;
	if (!MM_READ_ONCE(nr_hp_pending) || start_pfn % PAGES_PER_SECTION || end_pfn % PAGES_PER_SECTION)
		return false;
	mem_resize_lock();
	for (u64 nr = first; nr <= last; nr++) {
		if (!hp_discardable(nr, zone)) {
			mem_resize_unlock();
			return false;
		}
	}
	for (u64 nr = first; nr <= last; nr++) {
		struct mem_section *ms = __nr_to_section(nr);
		struct hp_pending *e = hp_find(nr);

		deferred_pending_drop_locked(nr, ms->nid, ms->nr_present_pages);
		free += e->free;
		memset(e, 0, sizeof(*e));
		MM_WRITE_ONCE(nr_hp_pending, nr_hp_pending - 1);
		sparse_set_deferred(nr, false);
		sparse_set_unwritten(nr);
		deferred_init_stats.hotplug_discarded++;
	}
	spin_lock(&zone->lock);	/* as the online counted them: managed and nr_free_pending */
	MM_BUG_ON(zone->managed_pages < free, "zone %s: %lu managed pages, %llu counted pending",
		  zone->name, zone->managed_pages, (unsigned long long)free);
	MM_WRITE_ONCE(zone->managed_pages, zone->managed_pages - free);	/* read unlocked */
	zone_nr_free_pending_add(zone, -(long)free);
	spin_unlock(&zone->lock);
	mem_resize_unlock();
	mech_trace(MECH_DEFERRED_INIT, "hotplug: [mem %#llx-%#llx] zone %s: offline with its memmap pending, %llu pages uncounted, memmap never written",
		   (unsigned long long)PFN_PHYS(start_pfn), (unsigned long long)PFN_PHYS(end_pfn) - 1,
		   zone->name, (unsigned long long)free);
	*counted = free;
	return true;
}

/* deferred_init_hotplug=: the line of hot-added memory, once it did work
 * or when the knob is off (not the default). */
void deferred_hotplug_dump(struct printer *p)
{
	const struct deferred_init_stats *s = &deferred_init_stats;

	unsigned long pending_free = 0;
	struct zone *zone;

	if (hotplug_lazy && !s->hotplug_sections && !MM_READ_ONCE(nr_hp_past_table))
		return;
	for_each_zone(zone)
		pending_free += MM_READ_ONCE(zone->nr_free_pending);
	pr_printf(p, "  hot-added: deferred_init_hotplug=%d%s: %llu sections onlined with their memmap pending, %u pending now (%lu pages free, counted in MemTotal and MemFree)\n",
		  hotplug_lazy ? 1 : 0, deferred_init_hotplug_enabled() ? "" : " (inactive: mechanism 5 is old)",
		  (unsigned long long)s->hotplug_sections, (unsigned)MM_READ_ONCE(nr_hp_pending),
		  pending_free);
	if (s->hotplug_discarded)
		pr_printf(p, "  hot-added: %llu of them offlined before their memmap was written (never written)\n",
			  (unsigned long long)s->hotplug_discarded);
	if (MM_READ_ONCE(nr_hp_past_table))
		pr_printf(p, "  hot-added: %llu blocks past the table (%llu sections, from the map) onlined eagerly\n",
			  (unsigned long long)MM_READ_ONCE(nr_hp_past_table),
			  (unsigned long long)hp_table_size);
}

/*
 * test_tsan_mm.c - the locks and the real mm sources on several CPUs, under
 * ThreadSanitizer (the host suite `tsan`, built with -fsanitize=thread
 * instead of ASan; Makefile, HOST_SUITE_tsan).
 *
 * Each pthread is a CPU: it sets host_cpu, which both lock_this_cpu() and
 * mm_this_cpu() return, so it has its own record of held locks and its own
 * pcp lists in every zone.  The CPU table (numa_cpu.h) lists the CPUs
 * first, so that pcp_drain_zone(), zone_pcp_count() and the views cover
 * every set.  Every count is fixed (no timing, no asserts on speed): a
 * slow machine runs the same operations, only interleaved differently.
 * TSan fails the suite on any data race it sees (TSAN_OPTIONS in the
 * Makefile's test-host), and the tests check exact totals afterwards.
 *
 * Threads never call CHECK (its failure count is not atomic): each counts
 * its own problems, and the test checks the counts after pthread_join().
 */
#include <pthread.h>
#include <sched.h>
#include "htest.h"
#include "buddy_fixture.h"
#include "platform_stub.h"
#include <lib/lock.h>
#include <mm/numa_cpu.h>
#include <mm/gfp.h>
#include "mm_host.h"
#include <mm/mm_init.h>
#include <mm/deferred_init.h>
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>

#define NR_ALLOCATORS	3	/* CPUs 1..3 allocate and free */
#define DRAIN_CPU	4	/* CPU 4 drains every CPU's lists */
#define NR_CPUS_USED	5	/* CPU 0 is the test's own thread, idle meanwhile */
#define ROUNDS		4000	/* alloc-or-free steps per allocator */
#define DRAINS		400	/* pcp_drain_zone() calls of the drainer */
#define KEEP		24	/* blocks an allocator holds at most */
#define ZONE_PAGES	16384	/* 64 MiB */

/* List CPUs 0 .. n-1 (hw ids 0 .. n-1, node 0), CPU 0 the boot CPU. */
static void list_cpus(unsigned n)
{
	numa_cpus_reset();
	for (unsigned i = 0; i < n; i++) {
		struct numa_cpu c = { .hw_id = i, .uid = i, .pxm = -1, .nid = 0, .boot = i == 0 };

		numa_cpu_add(&c);
	}
}

/* ---- the locks alone ---------------------------------------------------- */

static struct spinlock t_spin = SPINLOCK_INIT("tsan spinlock");
static struct mutex t_mutex = MUTEX_INIT("tsan mutex");
static struct rwsem t_rwsem = RWSEM_INIT("tsan rwsem");
static u64 spin_count, mutex_count, rw_count;	/* each under its lock */
static unsigned rw_bad;				/* readers that saw a torn pair (under t_spin) */
static u64 rw_a, rw_b;				/* written together under t_rwsem for writing */

struct lock_arg {
	unsigned cpu;
};

/* A CPU: 2000 rounds of each lock; the rwsem round writes rw_a and rw_b
 * together every fourth time and otherwise checks, as a reader, that they
 * match. */
static void *lock_worker(void *p)
{
	const struct lock_arg *a = p;

	host_cpu = a->cpu;
	for (unsigned i = 0; i < 2000; i++) {
		unsigned long flags = spin_lock_irqsave(&t_spin);

		spin_count++;
		spin_unlock_irqrestore(&t_spin, flags);
		mutex_lock(&t_mutex);
		mutex_count++;
		mutex_unlock(&t_mutex);
		if (i % 4 == 0) {
			down_write(&t_rwsem);
			rw_a++;
			rw_b++;
			rw_count++;
			up_write(&t_rwsem);
		} else {
			bool torn;

			down_read(&t_rwsem);
			torn = rw_a != rw_b;
			up_read(&t_rwsem);
			if (torn) {
				spin_lock(&t_spin);
				rw_bad++;
				spin_unlock(&t_spin);
			}
		}
	}
	return NULL;
}

HTEST(tsan_locks_exclude_across_cpus)
{
	pthread_t th[4];
	struct lock_arg args[4];

	for (unsigned i = 0; i < 4; i++) {
		args[i].cpu = i + 1;
		CHECK_EQ(pthread_create(&th[i], NULL, lock_worker, &args[i]), 0);
	}
	for (unsigned i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(spin_count, 4 * 2000);
	CHECK_EQ(mutex_count, 4 * 2000);
	CHECK_EQ(rw_count, 4 * 500);
	CHECK_EQ(rw_a, 4 * 500);
	CHECK_EQ(rw_b, rw_a);
	CHECK_EQ(rw_bad, 0);
	CHECK(!spin_is_locked(&t_spin) && !mutex_is_locked(&t_mutex) && !rwsem_is_locked(&t_rwsem));
	CHECK_EQ(t_spin.nr_taken, spin_count + rw_bad);
	CHECK_EQ(t_rwsem.nr_read + t_rwsem.nr_write, 4 * 2000);
}

/* ---- mm on several CPUs ----------------------------------------------- */

static struct zone *tz;
static u8 owner_of[ZONE_PAGES];		/* CPU + 1 holding each pfn, 0: not ours (atomic) */
static bool via_alloc_pages;		/* alloc_pages()/free_pages() instead of zone_* */
static bool mixed_types;		/* odd CPUs allocate movable, even ones unmovable */

struct mm_arg {
	unsigned cpu;
	u64 seed;
	u64 allocs, frees, failed;	/* what it did */
	u64 allocs_per_order[NR_PCP_ORDERS];
	unsigned problems;		/* a block found owned by another CPU, ... */
};

/* Claim (or release) the pfns of a block for cpu; count a page another
 * CPU claimed already (the same page handed out twice). */
static void claim(struct mm_arg *a, u64 pfn, unsigned order, bool take)
{
	for (u64 i = 0; i < (1ULL << order); i++) {
		u8 want = take ? 0 : (u8)(a->cpu + 1);
		u8 was = __atomic_exchange_n(&owner_of[pfn + i], take ? (u8)(a->cpu + 1) : 0,
					     __ATOMIC_RELAXED);

		if (was != want)
			a->problems++;
	}
}

static struct page *mm_alloc(unsigned cpu, unsigned order)
{
	gfp_t gfp = mixed_types && (cpu & 1) ? GFP_MOVABLE : GFP_KERNEL;

	return via_alloc_pages ? alloc_pages(gfp | __GFP_NOWARN, order) :
				 zone_alloc_pages(tz, gfp, order);
}

static int mm_free(struct page *page, unsigned order)
{
	return via_alloc_pages ? free_pages(page, order) : zone_free_pages(tz, page, order);
}

/* An allocator CPU: ROUNDS steps, each an allocation of order 0..3 while
 * it holds fewer than KEEP blocks and the dice say so, else a free of a
 * random block; at the end it frees what it holds. */
static void *mm_worker(void *p)
{
	struct mm_arg *a = p;
	struct page *held[KEEP];
	unsigned order_of[KEEP], nr = 0;

	host_cpu = a->cpu;
	for (unsigned r = 0; r < ROUNDS + KEEP; r++) {
		u64 x = bf_rand(&a->seed);

		if (r < ROUNDS && nr < KEEP && (nr == 0 || (x & 3) != 0)) {
			unsigned order = (unsigned)((x >> 8) % NR_PCP_ORDERS);
			struct page *page = mm_alloc(a->cpu, order);

			if (!page) {
				a->failed++;
				continue;
			}
			claim(a, page_to_pfn(page) - MM_READ_ONCE(tz->zone_start_pfn), order, true);
			held[nr] = page;
			order_of[nr++] = order;
			a->allocs++;
			a->allocs_per_order[order]++;
		} else if (nr) {
			unsigned i = (unsigned)((x >> 16) % nr);

			claim(a, page_to_pfn(held[i]) - MM_READ_ONCE(tz->zone_start_pfn), order_of[i], false);
			if (mm_free(held[i], order_of[i]))
				a->problems++;
			a->frees++;
			held[i] = held[--nr];
			order_of[i] = order_of[nr];
		}
	}
	return NULL;
}

/* The drainer: every CPU's lists back to the buddy, DRAINS times. */
static void *drain_worker(void *p)
{
	host_cpu = DRAIN_CPU;
	for (unsigned i = 0; i < DRAINS; i++) {
		pcp_drain_zone(tz);
		sched_yield();
	}
	return p;
}

/* The rebuilder: the zonelists rebuilt in place, DRAINS times, while the
 * allocators walk them (alloc_pages(): none may fail for it). */
static void *rebuild_worker(void *p)
{
	host_cpu = DRAIN_CPU;
	for (unsigned i = 0; i < DRAINS; i++) {
		build_all_zonelists();
		sched_yield();
	}
	return p;
}

/* A 64 MiB Normal zone, all free, low watermark 64: pcp high is then
 * 64 pages and batch 3, so the lists fill and drain all the time.  Its
 * pageblocks are unmovable, or, mixed, movable: unmovable allocations
 * then fall back and steal pageblocks (zone->lock) while frees read the
 * pageblock types without it. */
static void mm_zone(bool mixed)
{
	list_cpus(NR_CPUS_USED);
	bf_machine((u64)ZONE_PAGES * PAGE_SIZE);
	tz = &NODE_DATA(0)->node_zones[ZONE_NORMAL];
	bf_zone_init(tz, 0, ZONE_NORMAL, 0, ZONE_PAGES, mixed ? MIGRATE_MOVABLE : MIGRATE_UNMOVABLE);
	mixed_types = mixed;
	bf_handover(tz, 0, ZONE_PAGES);
	tz->watermark[WMARK_MIN] = 32;
	tz->watermark[WMARK_LOW] = 64;
	tz->watermark[WMARK_HIGH] = 96;
	zone_pcp_init(tz);
	build_all_zonelists();
	memset(owner_of, 0, sizeof(owner_of));
}

/* Run the allocators and the drainer, then check every count exactly. */
static void mm_run_with(bool alloc_pages_path, bool mixed, void *(*other)(void *))
{
	pthread_t th[NR_ALLOCATORS], drainer;
	struct mm_arg args[NR_ALLOCATORS] = { 0 };
	unsigned long free0;
	struct zone_events ev0;
	struct zone_numa_events numa0;
	u64 allocs = 0, frees = 0, per_order[NR_PCP_ORDERS] = { 0 };

	mm_zone(mixed);
	via_alloc_pages = alloc_pages_path;
	free0 = zone_nr_free(tz);
	ev0 = tz->ev;
	numa0 = tz->numa;
	CHECK_EQ(free0, ZONE_PAGES);
	CHECK_EQ(mm_nr_cpus(), NR_CPUS_USED);
	for (unsigned i = 0; i < NR_ALLOCATORS; i++) {
		args[i].cpu = i + 1;
		args[i].seed = 0x9e3779b97f4a7c15ULL * (i + 1);
		CHECK_EQ(pthread_create(&th[i], NULL, mm_worker, &args[i]), 0);
	}
	CHECK_EQ(pthread_create(&drainer, NULL, other, NULL), 0);
	for (unsigned i = 0; i < NR_ALLOCATORS; i++)
		pthread_join(th[i], NULL);
	pthread_join(drainer, NULL);

	for (unsigned i = 0; i < NR_ALLOCATORS; i++) {
		CHECK_EQ(args[i].problems, 0);
		CHECK_EQ(args[i].failed, 0);	/* 3 * 24 * 8 pages never run the zone dry */
		CHECK_EQ(args[i].allocs, args[i].frees);
		CHECK(args[i].allocs > ROUNDS / 2);
		allocs += args[i].allocs;
		frees += args[i].frees;
		for (unsigned o = 0; o < NR_PCP_ORDERS; o++)
			per_order[o] += args[i].allocs_per_order[o];
	}
	/* Pages may sit on any CPU's lists: all of them count, and a drain
	 * gives them all back. */
	CHECK_EQ(zone_nr_free(tz), free0);
	pcp_drain_zone(tz);
	CHECK_EQ(zone_pcp_count(tz), 0);
	CHECK_EQ(zone_nr_free(tz), free0);
	CHECK_EQ(zone_nr_free_pages(tz), free0);
	CHECK_EQ(bf_check_zone(tz, NULL), 0);
	for (unsigned o = 0; o < NR_PCP_ORDERS; o++) {
		CHECK_EQ(tz->ev.alloc_pages[o] - ev0.alloc_pages[o], per_order[o]);
		CHECK_EQ(tz->ev.free_pages[o] - ev0.free_pages[o], per_order[o]);
	}
	if (alloc_pages_path)
		CHECK_EQ(tz->numa.hit - numa0.hit, allocs);
	for (unsigned i = 0; i < ZONE_PAGES; i++)
		if (owner_of[i]) {
			CHECK_EQ(owner_of[i], 0);
			break;
		}
	CHECK_EQ(frees, allocs);
	if (mixed)
		CHECK(tz->ev.fallbacks - ev0.fallbacks > 0);
	list_cpus(1);
}

static void mm_run(bool alloc_pages_path, bool mixed)
{
	mm_run_with(alloc_pages_path, mixed, drain_worker);
}

HTEST(tsan_pcp_and_buddy_on_three_cpus_with_a_drainer)
{
	mm_run(false, false);
}

HTEST(tsan_alloc_pages_on_three_cpus_with_a_drainer)
{
	mm_run(true, false);
}

HTEST(tsan_movable_and_unmovable_on_three_cpus_with_a_drainer)
{
	mm_run(true, true);
}

/* The zonelists rebuilt in place (as online and offline do) while three
 * CPUs allocate through them: no allocation fails, nothing races. */
HTEST(tsan_alloc_pages_while_zonelists_are_rebuilt)
{
	mm_run_with(true, false, rebuild_worker);
}

/*
 * The zone span seqlock.  span_worker changes spans as online and offline
 * do (inside zone_span_write_begin/end): the allocators' zone grows past
 * its memory and back (their free path's zone_spans_pfn() reads it with
 * no lock), and a second, unused zone flips between [1000, 2000) and
 * [5000, 5010), its two fields stored apart with a yield between them,
 * while a prober thread asks it about pfn 5500.  A reader that paired one
 * state's start with the other's length would see [5000, 6000) and find
 * pfn 5500 in it; none may.
 */
static struct zone span_flip;
static unsigned span_torn;		/* probes that saw a torn span (atomic) */
static bool span_stop;			/* the allocators are done (atomic) */

static void *span_prober(void *p)
{
	host_cpu = 0;		/* the test's own CPU, idle meanwhile; it takes no lock */
	while (!__atomic_load_n(&span_stop, __ATOMIC_ACQUIRE))
		for (unsigned i = 0; i < 64; i++)
			if (zone_spans_pfn(&span_flip, 5500))
				__atomic_fetch_add(&span_torn, 1, __ATOMIC_RELAXED);
	return p;
}

static void *span_worker(void *p)
{
	pthread_t prober;

	host_cpu = DRAIN_CPU;
	span_torn = 0;
	span_stop = false;
	zone_span_write_begin(&span_flip);
	zone_span_set(&span_flip, 1000, 1000);
	zone_span_write_end(&span_flip);
	CHECK_EQ(pthread_create(&prober, NULL, span_prober, NULL), 0);
	for (unsigned i = 0; i < DRAINS * 8; i++) {
		bool big = i & 1;

		zone_span_write_begin(tz);
		zone_span_set(tz, 0, big ? 2 * ZONE_PAGES : ZONE_PAGES);
		zone_span_write_end(tz);
		zone_span_write_begin(&span_flip);
		if (big) {
			__atomic_store_n(&span_flip.zone_start_pfn, 5000, __ATOMIC_RELEASE);
			sched_yield();		/* the widest window for a torn read */
			__atomic_store_n(&span_flip.spanned_pages, 10, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&span_flip.zone_start_pfn, 1000, __ATOMIC_RELEASE);
			sched_yield();
			__atomic_store_n(&span_flip.spanned_pages, 1000, __ATOMIC_RELEASE);
		}
		zone_span_write_end(&span_flip);
		if (zone_spans_pfn(&span_flip, 5500))
			__atomic_fetch_add(&span_torn, 1, __ATOMIC_RELAXED);
	}
	zone_span_write_begin(tz);
	zone_span_set(tz, 0, ZONE_PAGES);
	zone_span_write_end(tz);
	__atomic_store_n(&span_stop, true, __ATOMIC_RELEASE);
	pthread_join(prober, NULL);
	return p;
}

/* Spans change (grow past the memory and back, as online and offline do)
 * while three CPUs allocate and free in the zone: nothing races, every
 * page is accounted, and no reader sees a start without its length. */
HTEST(tsan_zone_spans_change_while_cpus_allocate)
{
	mm_run_with(true, false, span_worker);
	CHECK_EQ(span_torn, 0);
	CHECK_EQ(tz->span_seq & 1, 0);
}

/* ---- deferred memmap init on several CPUs ----------------------------------- */


#define DI_RAM		(1ULL << 30)	/* 8 sections, node 0 */
#define DI_MAX_PAGES	(3 * PAGES_PER_SECTION)	/* the allocator's array */

static unsigned di_pages;		/* it allocates the boot's free pages and 8192 more */
static unsigned di_head_start;		/* pages it takes before the others start: 2048 short */
static unsigned di_allocated;		/* its progress (atomic) */

/* Until the allocator nears the end of the boot's initialised memory, so
 * that its grows on demand meet the workers' and the steps' claims. */
static void di_wait_head_start(void)
{
	while (__atomic_load_n(&di_allocated, __ATOMIC_ACQUIRE) < di_head_start)
		sched_yield();
}

/* Boot a 1 GiB machine with deferred_init design d, 128 MiB early. */
static void di_boot_tsan(enum mech_design d)
{
	static struct fw_memmap map;
	static struct mm_boot_params bp;

	host_mm_reset(DI_RAM);
	printk_set_level(LOG_CRIT);
	fw_memmap_init(&map);
	memset(&bp, 0, sizeof(bp));
	bp.memmap = &map;
	fw_memmap_add_raw(&map, 0, DI_RAM, FW_MEM_RAM);
	fw_memmap_sanitize(&map);
	bp.reserved[bp.nr_reserved++] = (typeof(bp.reserved[0])){ 1ULL << 20, 3ULL << 20, "kernel image" };
	deferred_init_set_design(d);
	deferred_init_set_early(128ULL << 20);
	mm_core_init(&bp);
}

struct di_arg {
	unsigned cpu;
	u64 done;		/* sections a worker initialised */
	u64 allocs, failed;	/* the allocator's pages */
};

static void *di_worker(void *p)
{
	struct di_arg *a = p;

	host_cpu = a->cpu;
	di_wait_head_start();
	a->done = deferred_init_work_node(0, NULL, NULL);
	return NULL;
}

/* The allocator: order-0 pages until it holds more than the boot's
 * initialised part (di_pages), so that the zone grows on demand (deferred_grow_zone())
 * on this CPU while the workers initialise sections; then frees them. */
static void *di_allocator(void *p)
{
	static struct page *held[DI_MAX_PAGES];
	struct di_arg *a = p;

	host_cpu = a->cpu;
	for (unsigned i = 0; i < di_pages; i++) {
		held[i] = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0);
		if (held[i])
			a->allocs++;
		else
			a->failed++;
		__atomic_store_n(&di_allocated, i + 1, __ATOMIC_RELEASE);
	}
	for (unsigned i = 0; i < di_pages; i++)
		if (held[i])
			free_pages(held[i], 0);
	return NULL;
}

/*
 * Deferred init on four CPUs: CPUs 1 and 2 are workers of node 0, CPU 3
 * allocates (and grows the zone on demand), CPU 0 steps.  Every section is
 * initialised exactly once (the per-CPU counts add up), the sections'
 * claims keep the struct pages from two writers (TSan would see them), and
 * afterwards the managed and free pages are the eager boot's.
 */
HTEST(tsan_deferred_init_workers_grow_and_steps)
{
	struct di_arg w[2] = { { .cpu = 1 }, { .cpu = 2 } }, al = { .cpu = 3 };
	unsigned long eager_managed, eager_free;
	pthread_t th[3];
	u64 steps = 0, by_cpu = 0, pending;
	struct zone *zone;

	list_cpus(4);
	di_boot_tsan(DESIGN_OLD);
	eager_managed = totalram_pages();
	eager_free = global_free_pages();
	di_boot_tsan(DESIGN_NEW);
	pending = deferred_init_pending_sections();
	di_allocated = 0;
	di_pages = (unsigned)global_free_pages() + 8192;
	di_head_start = di_pages - 8192 - 2048;
	CHECK(di_pages <= DI_MAX_PAGES);
	CHECK(pending >= 6);
	CHECK(totalram_pages() < eager_managed);
	CHECK_EQ(pthread_create(&th[0], NULL, di_worker, &w[0]), 0);
	CHECK_EQ(pthread_create(&th[1], NULL, di_worker, &w[1]), 0);
	CHECK_EQ(pthread_create(&th[2], NULL, di_allocator, &al), 0);
	di_wait_head_start();
	while (deferred_init_step(1))
		steps++;
	for (unsigned t = 0; t < 3; t++)
		pthread_join(th[t], NULL);
	deferred_init_finish();
	CHECK_EQ(deferred_init_pending_sections(), 0);
	CHECK_EQ(al.failed, 0);
	CHECK_EQ(al.allocs, di_pages);
	for (unsigned c = 0; c < 4; c++)
		by_cpu += deferred_init_cpu_sections[c];
	CHECK_EQ(by_cpu, pending);
	CHECK_EQ(w[0].done + w[1].done + steps + deferred_init_stats.grow_sections +
		 deferred_init_stats.range_sections, pending);
	for_each_zone(zone)
		pcp_drain_zone(zone);
	CHECK_EQ(totalram_pages(), eager_managed);
	CHECK_EQ(global_free_pages(), eager_free);
	deferred_init_set_design(DESIGN_OLD);
	deferred_init_set_early(256ULL << 20);
	mech_register_leave_new(MECH_DEFERRED_INIT, NULL);
	mech_set(MECH_DEFERRED_INIT, DESIGN_OLD);
	list_cpus(1);
}

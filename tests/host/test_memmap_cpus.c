/*
 * test_memmap_cpus.c - an onlined block's memmap split over several CPUs
 * (mm/memmap_cpus.c) must leave the machine byte for byte as the serial
 * init does: every struct page, every section (its pageblock flags), the
 * zones' counters and the buddy's free lists in list order.  Random adds
 * (positions, sizes, memmap_on_memory or not), random online types,
 * random helper counts, three ways to run a helper (a pthread per chunk,
 * a pthread that starts late, run inline in start()), seeded.  Then the
 * edges: chunks of whole pageblock-flag words, a start() that is refused,
 * a helper that never starts within the bound (taken back, and writes
 * nothing when it runs after), a helper that claims its chunk and then
 * stalls past the bound (logged and waited for, never redone).  Runs in the suite main (ASan) and in tsan (ThreadSanitizer: the
 * helpers are pthreads).
 *
 * Threads never call CHECK: they only run mm's chunk function.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include "htest.h"
#include "mm_host.h"
#include "platform_stub.h"
#include "hotplug_check.h"
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include <mm/buddy.h>
#include <mm/memmap_cpus.h>
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <lib/errno.h>
#include "hotplug_fixture.h"

#define MC_RAM		(8 * GiB)
#define MC_BOOT		(512 * MiB)
#define MC_BLOCKS	16			/* the window above HOTPLUG_BASE */
#define MC_END_PFN	((HOTPLUG_BASE + MC_BLOCKS * MEMORY_BLOCK_SIZE) >> PAGE_SHIFT)
#define MC_MAX_THREADS	64

/* ---- the host's helpers ------------------------------------------------------ */

enum mc_mode {
	MC_THREAD,	/* a pthread per chunk, at once */
	MC_INLINE,	/* start() runs the chunk before it returns (serial helpers) */
	MC_HELD,	/* a pthread that waits for mc_release before it runs (never starts in time) */
	MC_REFUSE,	/* start() refuses: no CPU */
	MC_STALL,	/* a pthread at once that stops just after its claim until mc_release */
};

struct mc_thread {
	pthread_t th;
	void (*fn)(void *arg);
	void *arg;
	unsigned cpu;
	enum mc_mode mode;
};

static enum mc_mode mc_mode;			/* the test's thread only */
static unsigned mc_idle;			/* helpers idle() reports */
static struct mc_thread mc_threads[MC_MAX_THREADS];	/* the test's thread creates and joins */
static unsigned mc_nr_threads;
static int mc_release;				/* atomic: MC_HELD and MC_STALL threads may go */
static int mc_claimed;				/* atomic: an MC_STALL thread has claimed its chunk */
static __thread bool mc_stalls;			/* this thread is an MC_STALL helper */

/*
 * host_cycles_hook in MC_STALL mode.  chunk_helper() reads the clock
 * right after its claim succeeded (the claim's time), so a stalling
 * helper stops there: its chunk claimed, not written, not done.
 */
static void mc_stall_hook(void)
{
	if (!mc_stalls)
		return;
	__atomic_store_n(&mc_claimed, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&mc_release, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void *mc_thread_main(void *p)
{
	struct mc_thread *t = p;

	host_cpu = t->cpu;
	mc_stalls = t->mode == MC_STALL;
	if (t->mode == MC_HELD)
		while (!__atomic_load_n(&mc_release, __ATOMIC_ACQUIRE))
			sched_yield();
	t->fn(t->arg);
	return NULL;
}

/* memmap_cpus_ops.start: a CPU (1, 2, ...) for fn(arg), as mc_mode says. */
static int mc_start(void (*fn)(void *arg), void *arg)
{
	struct mc_thread *t;

	if (mc_mode == MC_REFUSE || mc_nr_threads == MC_MAX_THREADS)
		return -EBUSY;
	t = &mc_threads[mc_nr_threads++];
	t->fn = fn;
	t->arg = arg;
	t->cpu = mc_nr_threads;		/* CPUs 1, 2, ... */
	t->mode = mc_mode;
	if (mc_mode == MC_INLINE) {
		unsigned me = host_cpu;

		host_cpu = t->cpu;
		fn(arg);
		host_cpu = me;
		return (int)t->cpu;
	}
	if (pthread_create(&t->th, NULL, mc_thread_main, t)) {
		mc_nr_threads--;
		return -EAGAIN;
	}
	return (int)t->cpu;
}

static unsigned mc_idle_cpus(void)
{
	return mc_idle;
}

/*
 * The bound's clock.  In MC_STALL mode it stands at 0 until the helper
 * has claimed, so a helper thread slow to start is never taken back (the
 * case under test is the late chunk, not the late start).
 */
static u64 mc_now_ms(void)
{
	struct timespec ts;

	if (mc_mode == MC_STALL && !__atomic_load_n(&mc_claimed, __ATOMIC_ACQUIRE))
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000 + (u64)ts.tv_nsec / 1000000;
}

/*
 * The caller's wait turn.  In MC_STALL mode, once the caller has logged
 * the stalled chunk as late (its own statistic, read on its own thread),
 * the helper may go on.
 */
static void mc_wait(const u64 *word, u64 old)
{
	(void)word;
	(void)old;
	if (mc_mode == MC_STALL && memmap_cpus_stats.late)
		__atomic_store_n(&mc_release, 1, __ATOMIC_RELEASE);
	sched_yield();
}

static void mc_notify(unsigned cpu)
{
	(void)cpu;	/* mc_wait() only yields: nothing to wake */
}

static struct memmap_cpus_ops mc_ops = {
	.start = mc_start, .idle = mc_idle_cpus, .now_ms = mc_now_ms, .wait = mc_wait,
	.notify = mc_notify,
	.timeout_ms = 2000,
};

/* Join every thread started so far (MC_HELD ones released first). */
static void mc_join(void)
{
	__atomic_store_n(&mc_release, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < mc_nr_threads; i++)
		if (mc_threads[i].mode != MC_INLINE)
			pthread_join(mc_threads[i].th, NULL);
	mc_nr_threads = 0;
	__atomic_store_n(&mc_release, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&mc_claimed, 0, __ATOMIC_RELAXED);
}

/* helpers CPUs (0: no ops, the serial design), run as mode says. */
static void mc_use(unsigned helpers, enum mc_mode mode)
{
	mc_join();	/* the CPU numbers start at 1 again */
	mc_mode = mode;
	mc_idle = helpers;
	memmap_cpus_set_ops(helpers ? &mc_ops : NULL);
	memmap_cpus_set_max(MM_NR_CPUS);
	memset(&memmap_cpus_stats, 0, sizeof(memmap_cpus_stats));
}

static void mc_restore(void)
{
	memmap_cpus_set_ops(NULL);
	memmap_cpus_set_max(MM_NR_CPUS);
	mc_ops.timeout_ms = 2000;
	memhp_set_memmap_on_memory(false);
}

/* ---- what the comparison looks at --------------------------------------------- */

struct mc_free { u64 pfn; unsigned order; int mt; };

struct mc_snap {
	struct page *memmap;		/* [0, MC_END_PFN), 0x5a where not online */
	struct mem_section *sections;
	struct zone zones[MAX_NR_ZONES];
	struct mc_free *free;		/* in list order */
	u64 nr_free;
};

static void mc_take(struct mc_snap *s)
{
	u64 nsec = MC_END_PFN / PAGES_PER_SECTION, n = 0, cap = 1 << 14;
	struct zone *zone;

	for_each_zone(zone)
		pcp_drain_zone(zone);
	s->memmap = malloc(MC_END_PFN * sizeof(struct page));
	s->sections = calloc(nsec, sizeof(struct mem_section));
	s->free = malloc(cap * sizeof(*s->free));
	CHECK(s->memmap && s->sections && s->free);
	for (u64 pfn = 0; pfn < MC_END_PFN; pfn++) {
		if (pfn_valid(pfn) && online_section(__pfn_to_section(pfn)))
			s->memmap[pfn] = *pfn_to_page(pfn);
		else
			memset(&s->memmap[pfn], 0x5a, sizeof(struct page));
	}
	for (u64 nr = 0; nr < nsec; nr++)
		if (__nr_to_section(nr))
			s->sections[nr] = *__nr_to_section(nr);
	for (int z = 0; z < MAX_NR_ZONES; z++)
		s->zones[z] = NODE_DATA(0)->node_zones[z];
	for_each_zone(zone)
		for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
			for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
				struct page *p;

				list_for_each_entry(p, &zone->free_area[o].free_list[mt], lru) {
					if (n == cap)
						s->free = realloc(s->free, (cap *= 2) * sizeof(*s->free));
					s->free[n++] = (struct mc_free){ page_to_pfn(p), o, mt };
				}
			}
	s->nr_free = n;
}

static void mc_put(struct mc_snap *s)
{
	free(s->memmap);
	free(s->sections);
	free(s->free);
}

/* Byte for byte the same?  Returns the struct pages that differ. */
static u64 mc_compare(const struct mc_snap *a, const struct mc_snap *b)
{
	u64 differ = 0;

	for (u64 pfn = 0; pfn < MC_END_PFN; pfn++)
		if (memcmp(&a->memmap[pfn], &b->memmap[pfn], sizeof(struct page)) && !differ++)
			fprintf(stderr, "  first differing struct page: pfn %#llx\n", (unsigned long long)pfn);
	for (u64 nr = 0; nr < MC_END_PFN / PAGES_PER_SECTION; nr++)
		CHECK(!memcmp(&a->sections[nr], &b->sections[nr], sizeof(struct mem_section)));
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		const struct zone *x = &a->zones[z], *y = &b->zones[z];

		CHECK_EQ(x->zone_start_pfn, y->zone_start_pfn);
		CHECK_EQ(x->spanned_pages, y->spanned_pages);
		CHECK_EQ(x->present_pages, y->present_pages);
		CHECK_EQ(x->managed_pages, y->managed_pages);
		CHECK_EQ(zone_nr_free(x), zone_nr_free(y));
	}
	CHECK_EQ(a->nr_free, b->nr_free);
	for (u64 i = 0; i < MIN(a->nr_free, b->nr_free); i++)
		if (a->free[i].pfn != b->free[i].pfn || a->free[i].order != b->free[i].order ||
		    a->free[i].mt != b->free[i].mt) {
			CHECK_EQ(a->free[i].pfn, b->free[i].pfn);
			break;
		}
	return differ;
}

/* ---- random plugs ------------------------------------------------------------------ */

struct mc_plan {
	u64 add_start[6], add_blocks[6];
	bool add_mom[6];		/* MHP_MEMMAP_ON_MEMORY */
	unsigned nr_adds;
	enum mmop type[MC_BLOCKS];
};

static void mc_make_plan(struct mc_plan *p, unsigned seed)
{
	bool used[MC_BLOCKS] = { false };

	srand(seed);
	memset(p, 0, sizeof(*p));
	for (unsigned tries = 0; tries < 20 && p->nr_adds < 6; tries++) {
		unsigned at = (unsigned)rand() % MC_BLOCKS, n = 1 + (unsigned)rand() % 4;
		bool free_run = at + n <= MC_BLOCKS;

		for (unsigned i = at; free_run && i < at + n; i++)
			free_run = !used[i];
		if (!free_run)
			continue;
		for (unsigned i = at; i < at + n; i++)
			used[i] = true;
		p->add_start[p->nr_adds] = at;
		p->add_mom[p->nr_adds] = rand() % 3 == 0;
		p->add_blocks[p->nr_adds++] = n;
	}
	for (unsigned b = 0; b < MC_BLOCKS; b++)
		p->type[b] = rand() % 3 ? MMOP_ONLINE_MOVABLE : MMOP_ONLINE;
}

/* Boot, add and online plan p's blocks, each block's memmap on helpers
 * CPUs besides this one (run as mode says); the snapshot after. */
static void mc_run(const struct mc_plan *p, unsigned helpers, enum mc_mode mode, struct mc_snap *s)
{
	boot(MC_RAM, MC_BOOT);
	memhp_set_memmap_on_memory(true);
	mc_use(helpers, mode);
	for (unsigned a = 0; a < p->nr_adds; a++)
		CHECK_EQ(add_memory(0, HOTPLUG_BASE + p->add_start[a] * MEMORY_BLOCK_SIZE,
				    p->add_blocks[a] * MEMORY_BLOCK_SIZE, -1,
				    p->add_mom[a] ? MHP_MEMMAP_ON_MEMORY : MHP_NONE), 0);
	for (unsigned a = 0; a < p->nr_adds; a++)
		for (u64 i = 0; i < p->add_blocks[a]; i++) {
			unsigned long b = BASE_BLOCK + p->add_start[a] + i;

			CHECK_EQ(memory_block_online(block(b), p->type[p->add_start[a] + i]), 0);
			mc_join();
		}
	hotplug_check_invariants();
	mc_take(s);
}

HTEST(memmap_cpus_parallel_online_equals_serial)
{
	static struct mc_plan plan;
	static const enum mech_design designs[] = { DESIGN_OLD, DESIGN_NEW, DESIGN_NEW_NT };
	enum mech_design saved = mech_design(MECH_MEMMAP_INIT);
	u64 helper_chunks = 0;

	for (unsigned seed = 1; seed <= 9; seed++) {
		unsigned helpers = 1 + (unsigned)(seed * 7) % 5;	/* 1..5 */
		enum mc_mode mode = seed % 3 == 0 ? MC_INLINE : MC_THREAD;
		struct mc_snap serial, par;

		CHECK_EQ(mech_set(MECH_MEMMAP_INIT, designs[seed % 3]), 0);
		mc_make_plan(&plan, seed);
		mc_run(&plan, 0, MC_THREAD, &serial);
		CHECK_EQ(memmap_cpus_stats.split, 0);
		mc_run(&plan, helpers, mode, &par);
		CHECK(memmap_cpus_stats.split > 0);
		for (unsigned c = 1; c < MM_NR_CPUS; c++)
			helper_chunks += memmap_cpus_stats.chunks_by_cpu[c];
		CHECK_EQ(memmap_cpus_stats.taken_back + memmap_cpus_stats.not_started, 0);
		CHECK_EQ(mc_compare(&serial, &par), 0);
		mc_put(&serial);
		mc_put(&par);
	}
	CHECK(helper_chunks > 0);
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, saved), 0);
	mc_restore();
}

/* ---- the edges -------------------------------------------------------------------------- */

/* One block onlined movable with helpers CPUs besides this one, run as
 * mode says; mom: its memmap on the block itself. */
static void mc_one_block(unsigned helpers, enum mc_mode mode, bool mom)
{
	boot(MC_RAM, MC_BOOT);
	memhp_set_memmap_on_memory(true);
	mc_use(helpers, mode);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, MEMORY_BLOCK_SIZE, -1,
			    mom ? MHP_MEMMAP_ON_MEMORY : MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(BASE_BLOCK), MMOP_ONLINE_MOVABLE), 0);
}

/*
 * Chunks are whole words of pageblock flags (8192 pfns): a block of 32768
 * pfns over 2 CPUs is 16384 each, over 4 (or more) 8192 each; with its
 * memmap on the block CPU 0's chunk is 512 pages shorter (the block's own
 * memmap, written before).  The parameter caps the helpers; 0 is CPU 0
 * alone.
 */
HTEST(memmap_cpus_chunks_are_whole_flag_words)
{
	mc_one_block(1, MC_INLINE, false);
	CHECK_EQ(memmap_cpus_stats.pages_by_cpu[0], 16384);
	CHECK_EQ(memmap_cpus_stats.pages_by_cpu[1], 16384);
	mc_one_block(7, MC_INLINE, true);
	CHECK_EQ(memmap_cpus_stats.chunks_by_cpu[0], 1);
	CHECK_EQ(memmap_cpus_stats.pages_by_cpu[0], 8192 - 512);
	for (unsigned c = 1; c <= 3; c++)
		CHECK_EQ(memmap_cpus_stats.pages_by_cpu[c], 8192);
	CHECK_EQ(memmap_cpus_stats.chunks_by_cpu[4], 0);	/* 4 words: 4 chunks at most */
	boot(MC_RAM, MC_BOOT);
	mc_use(3, MC_INLINE);
	memmap_cpus_set_max(2);
	CHECK_EQ(memmap_cpus_max(), 2);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, MEMORY_BLOCK_SIZE, -1, MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(BASE_BLOCK), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(memmap_cpus_stats.chunks_by_cpu[3], 0);
	CHECK_EQ(memmap_cpus_stats.pages_by_cpu[0] + memmap_cpus_stats.pages_by_cpu[1] +
		 memmap_cpus_stats.pages_by_cpu[2], 32768);
	memmap_cpus_set_max(0);
	CHECK_EQ(offline_and_remove_memory(HOTPLUG_BASE, MEMORY_BLOCK_SIZE), 0);
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, MEMORY_BLOCK_SIZE, -1, MHP_NONE), 0);
	memset(&memmap_cpus_stats, 0, sizeof(memmap_cpus_stats));
	CHECK_EQ(memory_block_online(block(BASE_BLOCK), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(memmap_cpus_stats.split, 0);
	CHECK_EQ(memmap_cpus_stats.pages_by_cpu[0], 32768);
	mc_restore();
}

/*
 * What goes wrong on the way, each against the serial result: start()
 * refused (CPU 0 does the chunk at once); a helper that does not start
 * within the bound (CPU 0 takes its chunk back; the helper, let go after
 * the online, claims nothing and writes nothing: the machine is the same
 * after it ran).
 */
HTEST(memmap_cpus_refused_and_held_helpers)
{
	struct mc_snap serial, got, after;

	mc_one_block(0, MC_THREAD, false);
	mc_take(&serial);

	mc_one_block(3, MC_REFUSE, false);
	CHECK_EQ(memmap_cpus_stats.not_started, 3);
	CHECK_EQ(memmap_cpus_stats.pages_by_cpu[0], 32768);
	mc_take(&got);
	CHECK_EQ(mc_compare(&serial, &got), 0);
	mc_put(&got);

	mc_ops.timeout_ms = 50;
	mc_one_block(2, MC_HELD, false);
	CHECK_EQ(memmap_cpus_stats.taken_back, 2);
	CHECK_EQ(memmap_cpus_stats.pages_by_cpu[0], 32768);
	mc_take(&got);
	mc_join();	/* the held helpers run now: their claims fail */
	mc_take(&after);
	CHECK_EQ(mc_compare(&serial, &got), 0);
	CHECK_EQ(mc_compare(&got, &after), 0);
	mc_put(&got);
	mc_put(&after);

	mc_restore();
	mc_put(&serial);
}

/*
 * A helper that claimed its chunk and then stops past the bound: the
 * caller logs it ("has not finished ..."), neither takes the chunk back
 * nor goes on, and waits for it however long; once it goes on, the
 * machine is the serial one and the chunk counts as the helper's.
 */
HTEST(memmap_cpus_claimed_chunk_late_is_waited_for)
{
	struct mc_snap serial, got;
	int since;

	mc_one_block(0, MC_THREAD, false);
	mc_take(&serial);

	boot(MC_RAM, MC_BOOT);
	memhp_set_memmap_on_memory(true);
	mc_use(1, MC_STALL);
	mc_ops.timeout_ms = 50;
	host_cycles_hook = mc_stall_hook;
	since = host_log_count;
	CHECK_EQ(add_memory(0, HOTPLUG_BASE, MEMORY_BLOCK_SIZE, -1, MHP_NONE), 0);
	CHECK_EQ(memory_block_online(block(BASE_BLOCK), MMOP_ONLINE_MOVABLE), 0);
	mc_join();
	host_cycles_hook = NULL;
	CHECK_EQ(memmap_cpus_stats.late, 1);
	CHECK_EQ(memmap_cpus_stats.taken_back, 0);
	CHECK_EQ(memmap_cpus_stats.pages_by_cpu[0], 16384);
	CHECK_EQ(memmap_cpus_stats.pages_by_cpu[1], 16384);
	CHECK(host_log_seen("has not finished its chunk", since));
	mc_take(&got);
	CHECK_EQ(mc_compare(&serial, &got), 0);
	mc_put(&got);

	mc_restore();
	mc_put(&serial);
}

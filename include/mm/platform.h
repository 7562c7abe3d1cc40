/*
 * platform.h - everything mm/ needs from the machine, in one place.
 *
 * mm/ is freestanding C that never includes arch/, drivers/ or boot/ headers.
 * What it needs from outside is declared here and implemented twice:
 * arch/x86_64/mm_platform.c for the kernel, tests/host/mm_platform_host.c
 * for the host tests (a malloc'd "physical memory" and an mmap'd vmemmap).
 *
 * Context legend used in mm/ comments:
 *   (boot)    single-threaded boot, interrupts off or not yet used
 *   (main)    the main loop: shell commands, deferred hotplug work, the
 *             shell's job between two of its checkpoints
 *   (any)     also from interrupt or exception context
 * A contract may also name a lock ("Context: zone lock", "mem_hotplug_lock
 * held for writing"); the function then asserts it (include/lib/lock.h).
 * The locks are real (ticket spinlocks; mm/ is never called from
 * interrupt handlers); in the kernel only CPU 0 runs mm's operations; the
 * other CPUs allocate and free in `stress` (shell/cmd_stress.c), initialise
 * deferred sections (mm/deferred_init.c) and parts of an onlined block's
 * memmap (mm/memmap_cpus.c), and drain their own pcp lists
 * (mm_run_on_cpu()); the host tests run it on several
 * (tests/host/test_tsan_mm.c).
 * docs/architecture.md tells the whole lock story.
 *
 * Lock legend.  Every mm global and every field of an mm struct ends its
 * comment with the tag of what protects it (`make check-tree` checks):
 *   [z]  zone->lock of its zone (mmzone.h)
 *   [p]  the pcp lock of the CPU's per_cpu_pages (mmzone.h)
 *   [h]  mem_hotplug_lock, written with it held for writing; read by
 *        (main) code or under get_online_mems() (memory_hotplug.h)
 *   [b]  the memory block's lock, mem->lock (memory_hotplug.h)
 *   [n]  mem_resize_lock: contiguity and deferred init (mmzone.h)
 *   [w]  wmark_lock: the watermarks and what they derive (mmzone.h)
 *   [c]  constant once set: written at (boot), or while the object is
 *        created and before anyone else can see it
 *   [r]  the holder of a range claim over the memory it describes
 *        (range_claim.h)
 *   [o]  owned by one caller at a time: a struct the caller passes in and
 *        reads back, or keeps on its stack (results, cursors)
 *   [m]  the main loop's: written only from (main), one operation at a
 *        time, no lock of its own yet -- these are what more CPUs must
 *        give a lock (counters and tables of one module)
 *   [cpu] this CPU's own data, touched by nobody else
 *   [a]  atomic: a statistics counter bumped with MM_STAT_ADD() from any
 *        CPU with no lock (or under a lock that is not the same on every
 *        CPU, as a pcp lock); read as a snapshot
 * A field may carry two ("[z] [h]": written with both held).
 */
#ifndef MM_PLATFORM_H
#define MM_PLATFORM_H

#include <lib/types.h>
#include <lib/printk.h>

/*
 * mm_vmemmap - the struct page of pfn 0; pfn_to_page(pfn) = mm_vmemmap + pfn.
 * Kernel: 0xffffea0000000000.  Host: the base of a PROT_NONE reservation in
 * which populated sections are made readable and writable.
 */
struct page;
extern struct page *mm_vmemmap;

/*
 * mm_phys_to_virt() - where physical address pa can be read and written.
 * Kernel: the direct map (pa must be in a mapped range: boot RAM, or a range
 * given to mm_direct_map_add()).  Host: inside the simulated memory.
 */
void *mm_phys_to_virt(phys_addr_t pa);

/* mm_virt_to_phys() - inverse of mm_phys_to_virt() for addresses it returned. */
phys_addr_t mm_virt_to_phys(const void *va);

/*
 * mm_vmemmap_populate() - make the struct pages of [start_pfn, end_pfn)
 * (a whole number of 2 MiB subsections' worth of pfns, i.e. multiples of
 * 512 pfns, giving 32 KiB of struct pages each) readable and writable,
 * backed by physical memory at backing_pa .. backing_pa + 64 * nr_pages.
 * backing_pa is chosen by the caller (memblock at boot, the buddy or the
 * hot-added range itself later) and is 4 KiB aligned; when it is 2 MiB
 * aligned and the range is a whole section the kernel maps it with one
 * 2 MiB page.  Returns 0, or -ENOMEM if page tables cannot be allocated.
 * Context: (boot) or (main).
 */
int mm_vmemmap_populate(u64 start_pfn, u64 end_pfn, phys_addr_t backing_pa);

/*
 * mm_vmemmap_populate_shared() - make the struct pages of [start_pfn,
 * end_pfn) (multiples of 64 pfns: whole 4 KiB pages of struct pages)
 * readable and writable, EVERY 4 KiB page of them backed by the one page
 * at backing_pa (4 KiB aligned), so that struct page start_pfn + i and
 * start_pfn + 64 + i are the same bytes: the shared vmemmap of device-dax
 * compound pages (mm/vmemmap_shared.c).  A range of 64 pfns is an
 * ordinary mapping of one page.  Mapped with 4 KiB pages; a page of it
 * already mapped to another address is -EEXIST.  Returns 0, or -ENOMEM /
 * -EEXIST with part of the range possibly mapped: the caller
 * mm_vmemmap_depopulate()s it.  Context: (main).
 */
int mm_vmemmap_populate_shared(u64 start_pfn, u64 end_pfn, phys_addr_t backing_pa);

/*
 * mm_vmemmap_remap() - the struct pages of [start_pfn, end_pfn), populated
 * with backing old_pa, are from now on backed by new_pa, to which the
 * caller copied them (memmap migration, mm/hotplug_memmap.c).  new_pa is
 * aligned as old_pa is (2 MiB for a whole section).  Returns 0, or -EINVAL
 * (the range is not backed by old_pa, or misaligned) or -EFAULT (part of
 * it is not populated), and then nothing changed.
 * Context: (main), one CPU.
 */
int mm_vmemmap_remap(u64 start_pfn, u64 end_pfn, phys_addr_t old_pa, phys_addr_t new_pa);

/*
 * mm_vmemmap_depopulate() - undo mm_vmemmap_populate() or
 * mm_vmemmap_populate_shared() for the range (every CPU's TLB shot down
 * for it); the backing memory is the caller's to free.  Context: (main).
 */
void mm_vmemmap_depopulate(u64 start_pfn, u64 end_pfn);

/*
 * mm_set_pt_allocator() - mm tells the platform where page-table pages come from
 * once memblock exists: alloc returns the physical address of a zeroed
 * 4 KiB page or 0; release gives back a page alloc returned that no longer
 * holds a table (unmapping emptied it) and returns false if it keeps the
 * page out of use instead (one memblock handed out at boot).  release may
 * be NULL (nothing is given back).  Context: (boot).
 */
void mm_set_pt_allocator(phys_addr_t (*alloc)(void), bool (*release)(phys_addr_t pa));

/*
 * mm_page_table_in() - the physical address of a page-table page of the
 * kernel's tables that lies in [start, end), or 0 if none does (so that
 * mm can say why such a page cannot move and refuse to give its range
 * away).  Host: the one address a test set in host_page_table_pa.
 * Context: (main).
 */
phys_addr_t mm_page_table_in(phys_addr_t start, phys_addr_t end);

/*
 * mm_direct_map_add() - make [start, start+size) reachable through
 * mm_phys_to_virt() (hot-added memory).  start and size are multiples of
 * 2 MiB; the kernel maps with pages no larger than 2 MiB so that each
 * memory block can be unmapped on its own.  Returns 0 or -ENOMEM.
 * mm_direct_map_remove() undoes it.  Context: (main).
 */
int mm_direct_map_add(phys_addr_t start, u64 size);
void mm_direct_map_remove(phys_addr_t start, u64 size);

/*
 * mm_this_cpu() - the number of the CPU running the caller, the index of
 * its per-CPU data (the pcp lists of mmzone.h), below MM_NR_CPUS.  Kernel:
 * from the GS per-CPU area (arch/x86_64/mm_platform.c); the APs run mm
 * in `stress`, deferred init's and memmap_cpus' work items and drains.  Host: the calling thread's CPU number (0 unless a test
 * sets it), so host tests run mm on several CPUs.  Context: (any).
 */
unsigned mm_this_cpu(void);

/*
 * mm_run_on_cpu() - run fn(arg) on CPU cpu and wait until it returned, as
 * Linux's drain_all_pages() runs its drain on each CPU: on the calling CPU
 * directly; on another one only while it runs nothing else (its idle loop
 * takes fn as a work item, no lock held, interrupts on).  Returns 0 when
 * fn ran there; -EBUSY when that CPU runs other work, -ENODEV when it is
 * not online, -ETIMEDOUT when it did not answer within a second (fn may
 * still run later: arg must outlive the call); the caller then does the
 * work from where it is.  Host: only the calling thread's CPU (-EBUSY for
 * the others).  Context: (main) or any CPU, no spinlock held.
 */
int mm_run_on_cpu(unsigned cpu, void (*fn)(void *arg), void *arg);

/*
 * MM_READ_ONCE(x) / MM_WRITE_ONCE(x, v) - a relaxed atomic load / store of
 * x, for a field written under its lock and read as a snapshot without
 * it (the watermark check reads the buddy's counters; the buddy reads a
 * page's type, which the pcp code writes under another lock): neither
 * torn nor cached by the compiler, and not a data race to ThreadSanitizer.
 * MM_STAT_ADD(x, n) - add n to an [a] counter from any CPU.
 * Context: (any).
 */
#define MM_READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define MM_WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define MM_STAT_ADD(x, n)	((void)__atomic_fetch_add(&(x), (n), __ATOMIC_RELAXED))

/* mm_cycles() - a cycle counter for measurements (TSC; host: rdtsc too). */
u64 mm_cycles(void);

/* mm_boot_mark() - mm_core_init() finished the step `what` (a string that
 * lives for good): the kernel's boot timeline (`boottime`) notes the time.
 * Host: nothing.  Context: (boot). */
void mm_boot_mark(const char *what);

/*
 * mm_store_nt64() - store v at dst without pulling the line into the cache
 * (a non-temporal store: x86 movnti, an ordinary integer instruction, so
 * the kernel's -mno-sse build can use it).  Such stores are weakly ordered:
 * mm_store_fence() (x86 sfence) makes every earlier one globally visible
 * before any later store.  Inline, because memmap init issues eight per
 * struct page.  These two are the only machine instructions mm/ uses; both
 * the kernel and the host tests run on x86_64, so one definition serves.
 * Context: (any).
 */
static inline void mm_store_nt64(u64 *dst, u64 v)
{
	__asm__ volatile("movnti %1, %0" : "=m"(*dst) : "r"(v));
}

static inline void mm_store_fence(void)
{
	__asm__ volatile("sfence" : : : "memory");
}

/*
 * Logging and stopping: mm/ uses printk.h (pr_info, ...) and panic() like
 * the rest of the kernel; the host tests provide both.  MM_BUG_ON() names
 * the function and prints the values given.
 */
#define MM_BUG_ON(cond, fmt, ...)						\
	do {									\
		if (unlikely(cond))						\
			panic("%s:%d %s(): BUG_ON(%s) " fmt, __FILE__,		\
			      __LINE__, __func__, #cond, ##__VA_ARGS__);	\
	} while (0)

/*
 * MM_WARN_ON() - the tier below MM_BUG_ON(), for a state that must not
 * happen but that mm can step back from (undo an isolation that finds a
 * pageblock outside its zone, roll back a removal that cannot put a block
 * back): log "WARNING: FILE:LINE FN(): COND VALUES" at warning level,
 * count it (mm_nr_warnings()), and evaluate to the condition, so the
 * caller can refuse: if (MM_WARN_ON(x, "...")) return -EINVAL.  The host
 * tests fail a test that warns without saying it expects to.
 */
#define MM_WARN_ON(cond, fmt, ...)						\
	({									\
		bool warn_ = unlikely(cond);					\
		if (warn_)							\
			mm_warn(__FILE__, __LINE__, __func__, #cond, fmt,	\
				##__VA_ARGS__);					\
		warn_;								\
	})

/* mm_warn() - MM_WARN_ON()'s report; mm_nr_warnings(): reports so far. */
void mm_warn(const char *file, int line, const char *fn, const char *cond, const char *fmt, ...)
	__printf(5, 6);
u64 mm_nr_warnings(void);

#endif

/*
 * mm_platform_host.c - include/mm/platform.h for the host tests.
 *
 * Physical memory is an anonymous mapping of the simulated size; the
 * vmemmap is a PROT_NONE reservation in which mm_vmemmap_populate() opens
 * the struct pages of a range (mprotect), so touching the memmap of a range
 * that was never populated crashes the test at once, as it would fault in
 * the kernel.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mm/platform.h>
#include <lib/errno.h>
#include <mm/page.h>
#include <mm/sparse.h>
#include <mm/mmzone.h>
#include <mm/memblock.h>
#include <mm/mm_init.h>
#include <mm/memory_hotplug.h>
#include <mm/gfp.h>
#include "mm_host.h"
#include "platform_stub.h"

struct page *mm_vmemmap;
u64 host_vmemmap_populated_pages;

/*
 * What each 2 MiB subsection's struct pages are backed by, as the kernel's
 * page tables would say (+1, so 0 means "not populated").  The host's
 * struct pages live in the mmap'd vmemmap whatever the backing, so this is
 * bookkeeping only: it lets mm_vmemmap_remap() refuse what the kernel's
 * paging_remap() refuses.
 */
#define HOST_SUBSECTIONS	(HOST_MAX_PHYS >> (PAGE_SHIFT + PFN_SUBSECTION_SHIFT))
static phys_addr_t vmemmap_backing[HOST_SUBSECTIONS];

/* Record that [start_pfn, end_pfn)'s struct pages are backed from pa on,
 * or (populated false) not at all. */
static void record_backing(u64 start_pfn, u64 end_pfn, phys_addr_t pa, bool populated)
{
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn += PAGES_PER_SUBSECTION)
		vmemmap_backing[pfn / PAGES_PER_SUBSECTION] =
			populated ? pa + (pfn - start_pfn) * sizeof(struct page) + 1 : 0;
}

static u8 *ram;
static u64 ram_size;
static void *roots[4096];
static unsigned nr_roots;
static phys_addr_t (*pt_alloc)(void);

#define VMEMMAP_BYTES	((HOST_MAX_PHYS >> PAGE_SHIFT) * sizeof(struct page))

void *mm_phys_to_virt(phys_addr_t pa)
{
	if (pa >= ram_size) {
		fprintf(stderr, "mm_phys_to_virt: %#llx is beyond the simulated RAM (%#llx)\n",
			(unsigned long long)pa, (unsigned long long)ram_size);
		abort();
	}
	return ram + pa;
}

phys_addr_t mm_virt_to_phys(const void *va)
{
	const u8 *p = va;

	if (p < ram || p >= ram + ram_size) {
		fprintf(stderr, "mm_virt_to_phys: %p is not in the simulated RAM\n", va);
		abort();
	}
	return (phys_addr_t)(p - ram);
}

int mm_vmemmap_populate(u64 start_pfn, u64 end_pfn, phys_addr_t backing_pa)
{
	u8 *start = (u8 *)(mm_vmemmap + start_pfn);
	u8 *end = (u8 *)(mm_vmemmap + end_pfn);

	(void)backing_pa;
	if (end_pfn > (HOST_MAX_PHYS >> PAGE_SHIFT) || start_pfn % PAGES_PER_SUBSECTION ||
	    end_pfn % PAGES_PER_SUBSECTION) {
		fprintf(stderr, "mm_vmemmap_populate: bad range [%#llx, %#llx)\n",
			(unsigned long long)start_pfn, (unsigned long long)end_pfn);
		abort();
	}
	if (mprotect(start, (size_t)(end - start), PROT_READ | PROT_WRITE))
		return -12;
	host_vmemmap_populated_pages += end_pfn - start_pfn;
	record_backing(start_pfn, end_pfn, backing_pa, true);
	return 0;
}

int mm_vmemmap_remap(u64 start_pfn, u64 end_pfn, phys_addr_t old_pa, phys_addr_t new_pa)
{
	if (start_pfn % PAGES_PER_SUBSECTION || end_pfn % PAGES_PER_SUBSECTION ||
	    end_pfn <= start_pfn || end_pfn > (HOST_MAX_PHYS >> PAGE_SHIFT) ||
	    old_pa % PAGE_SIZE || new_pa % PAGE_SIZE)
		return -22;
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn += PAGES_PER_SUBSECTION) {
		phys_addr_t b = vmemmap_backing[pfn / PAGES_PER_SUBSECTION];

		if (!b)
			return -14;
		if (b - 1 != old_pa + (pfn - start_pfn) * sizeof(struct page))
			return -22;
	}
	record_backing(start_pfn, end_pfn, new_pa, true);
	return 0;
}

/*
 * The shared vmemmap needs two virtual pages on one physical page, which
 * the anonymous simulated RAM cannot give: such struct pages are mapped
 * from a sparse memfd instead, at the offset of their backing's physical
 * address, so every page mapped from one pa is the same memory (each
 * mapping is a VMA of its own: keep such ranges to a few sections).
 */
static int phys_fd = -1;

int mm_vmemmap_populate_shared(u64 start_pfn, u64 end_pfn, phys_addr_t backing_pa)
{
	const u64 per_page = PAGE_SIZE / sizeof(struct page);

	if (end_pfn > (HOST_MAX_PHYS >> PAGE_SHIFT) || start_pfn % per_page ||
	    end_pfn % per_page || end_pfn <= start_pfn || backing_pa % PAGE_SIZE ||
	    backing_pa >= HOST_MAX_PHYS) {
		fprintf(stderr, "mm_vmemmap_populate_shared: bad range [%#llx, %#llx) pa %#llx\n",
			(unsigned long long)start_pfn, (unsigned long long)end_pfn,
			(unsigned long long)backing_pa);
		abort();
	}
	if (phys_fd < 0) {
		phys_fd = memfd_create("memlab-phys", 0);
		if (phys_fd < 0 || ftruncate(phys_fd, (off_t)HOST_MAX_PHYS)) {
			perror("mm_vmemmap_populate_shared: memfd");
			abort();
		}
	}
	for (u64 pfn = start_pfn; pfn < end_pfn; pfn += per_page)
		if (mmap(mm_vmemmap + pfn, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 phys_fd, (off_t)backing_pa) == MAP_FAILED)
			return -12;
	host_vmemmap_populated_pages += end_pfn - start_pfn;
	return 0;
}

void mm_vmemmap_depopulate(u64 start_pfn, u64 end_pfn)
{
	u8 *start = (u8 *)(mm_vmemmap + start_pfn);
	size_t len = (size_t)((end_pfn - start_pfn) * sizeof(struct page));

	/* back to the reservation, whichever way the range was mapped */
	if (mmap(start, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		 -1, 0) == MAP_FAILED) {
		perror("mm_vmemmap_depopulate");
		abort();
	}
	host_vmemmap_populated_pages -= end_pfn - start_pfn;
	record_backing(start_pfn, end_pfn, 0, false);
}

/*
 * The direct map covers all of the simulated RAM from the start, so adding
 * or removing a range only checks what the kernel's version requires:
 * 2 MiB alignment, and (here) that the range is inside the simulated RAM,
 * so a test that hot-adds memory must give host_mm_reset() enough of it.
 */
static void direct_map_check(const char *fn, phys_addr_t start, u64 size)
{
	if (!size || start % (2ULL << 20) || size % (2ULL << 20) || start + size < start ||
	    start + size > ram_size) {
		fprintf(stderr, "%s: bad range [%#llx, %#llx) (simulated RAM ends at %#llx)\n", fn,
			(unsigned long long)start, (unsigned long long)(start + size),
			(unsigned long long)ram_size);
		abort();
	}
}

int mm_direct_map_add(phys_addr_t start, u64 size)
{
	direct_map_check("mm_direct_map_add", start, size);
	return 0;
}

void mm_direct_map_remove(phys_addr_t start, u64 size)
{
	direct_map_check("mm_direct_map_remove", start, size);
}

void mm_set_pt_allocator(phys_addr_t (*alloc)(void), bool (*release)(phys_addr_t pa))
{
	pt_alloc = alloc;
}

phys_addr_t host_page_table_pa;

phys_addr_t mm_page_table_in(phys_addr_t start, phys_addr_t end)
{
	return host_page_table_pa && host_page_table_pa >= start && host_page_table_pa < end ?
		       host_page_table_pa : 0;
}

/* mm_this_cpu() - platform.h: the calling thread's CPU, host_cpu. */
unsigned mm_this_cpu(void)
{
	return host_cpu;
}

/* mm_run_on_cpu() - platform.h: the calling thread's own CPU only. */
int mm_run_on_cpu(unsigned cpu, void (*fn)(void *arg), void *arg)
{
	if (cpu != host_cpu)
		return -EBUSY;
	fn(arg);
	return 0;
}

void (*host_cycles_hook)(void);

u64 mm_cycles(void)
{
	if (host_cycles_hook)
		host_cycles_hook();
	return __builtin_ia32_rdtsc();
}

void mm_boot_mark(const char *what)
{
	(void)what;
}

void *host_root_alloc(void *ctx)
{
	void *p;

	if (nr_roots == sizeof(roots) / sizeof(roots[0]))
		return NULL;
	p = calloc(1, 4096);
	roots[nr_roots++] = p;
	return p;
}

void host_mm_reset(u64 ram_bytes)
{
	if (!mm_vmemmap) {
		void *v = mmap(NULL, VMEMMAP_BYTES, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (v == MAP_FAILED) {
			perror("host_mm_reset: vmemmap reservation");
			abort();
		}
		mm_vmemmap = v;
	} else if (host_vmemmap_populated_pages) {
		mm_vmemmap_depopulate(0, HOST_MAX_PHYS >> PAGE_SHIFT);
	}
	if (phys_fd >= 0 && (ftruncate(phys_fd, 0) || ftruncate(phys_fd, (off_t)HOST_MAX_PHYS))) {
		perror("host_mm_reset: memfd");	/* drop what the shared vmemmaps wrote */
		abort();
	}
	host_vmemmap_populated_pages = 0;
	memset(vmemmap_backing, 0, sizeof(vmemmap_backing));
	if (ram)
		munmap(ram, ram_size);
	ram = NULL;
	ram_size = ram_bytes;
	if (ram_bytes) {
		ram = mmap(NULL, ram_bytes, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (ram == MAP_FAILED) {
			perror("host_mm_reset: simulated RAM");
			abort();
		}
	}
	sparse_reset();
	register_memory_block_notifier(NULL);	/* a fresh machine: nobody follows its blocks */
	memset(node_data, 0, sizeof(node_data));
	memset(numa_distance, 0, sizeof(numa_distance));
	memset(&mm_boot_stats, 0, sizeof(mm_boot_stats));
	nr_numa_hotplug_blks = 0;
	/* the options of a boot without a command line, whatever the test
	 * before this one set and did not put back (a failed CHECK skips that) */
	page_poison_enable(false);
	memmap_poison_enable(true);
	memblock_init(&memblock);
	for (unsigned i = 0; i < nr_roots; i++)
		free(roots[i]);
	nr_roots = 0;
	pt_alloc = NULL;
}

/* Free the simulated machine at exit, so LeakSanitizer stays quiet. */
__attribute__((destructor)) static void host_mm_fini(void)
{
	for (unsigned i = 0; i < nr_roots; i++)
		free(roots[i]);
	nr_roots = 0;
}

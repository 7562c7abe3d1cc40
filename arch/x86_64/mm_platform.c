/*
 * mm_platform.c - include/mm/platform.h for the kernel: the direct map,
 * the vmemmap at VMEMMAP_BASE and the TSC.
 */
#include <mm/platform.h>
#include <mm/page.h>
#include <arch/paging.h>
#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/cpu_work.h>
#include <arch/time.h>
#include <lib/errno.h>
#include <lib/printk.h>

struct page *mm_vmemmap = (struct page *)VMEMMAP_BASE;

void *mm_phys_to_virt(phys_addr_t pa)
{
	return phys_to_virt(pa);
}

phys_addr_t mm_virt_to_phys(const void *va)
{
	return virt_to_phys(va);
}

int mm_vmemmap_populate(u64 start_pfn, u64 end_pfn, phys_addr_t backing_pa)
{
	u64 va = (u64)(uintptr_t)(mm_vmemmap + start_pfn);
	u64 size = (end_pfn - start_pfn) * sizeof(struct page);

	return paging_map_vmemmap(va, backing_pa, size);
}

int mm_vmemmap_populate_shared(u64 start_pfn, u64 end_pfn, phys_addr_t backing_pa)
{
	u64 va = (u64)(uintptr_t)(mm_vmemmap + start_pfn);
	u64 end = (u64)(uintptr_t)(mm_vmemmap + end_pfn);

	if (!IS_ALIGNED(va, PAGE_SIZE) || !IS_ALIGNED(end, PAGE_SIZE) || end <= va)
		return -EINVAL;
	for (; va < end; va += PAGE_SIZE) {
		int err = paging_map_vmemmap(va, backing_pa, PAGE_SIZE);

		if (err)
			return err;
	}
	return 0;
}

int mm_vmemmap_remap(u64 start_pfn, u64 end_pfn, phys_addr_t old_pa, phys_addr_t new_pa)
{
	u64 va = (u64)(uintptr_t)(mm_vmemmap + start_pfn);
	u64 size = (end_pfn - start_pfn) * sizeof(struct page);

	return paging_remap(va, old_pa, new_pa, size);
}

void mm_vmemmap_depopulate(u64 start_pfn, u64 end_pfn)
{
	u64 va = (u64)(uintptr_t)(mm_vmemmap + start_pfn);
	u64 size = (end_pfn - start_pfn) * sizeof(struct page);
	int err = paging_unmap(va, size);

	BUG_ON(err);
}

void mm_set_pt_allocator(phys_addr_t (*alloc)(void), bool (*release)(phys_addr_t pa))
{
	paging_set_pt_source(alloc, release);
}

phys_addr_t mm_page_table_in(phys_addr_t start, phys_addr_t end)
{
	return paging_table_in(start, end);
}

int mm_direct_map_add(phys_addr_t start, u64 size)
{
	if (!IS_ALIGNED(start, SZ_2M) || !IS_ALIGNED(size, SZ_2M))
		return -EINVAL;
	return paging_map_direct(start, size, false);
}

void mm_direct_map_remove(phys_addr_t start, u64 size)
{
	int err = paging_unmap_direct(start, size);

	if (err)
		panic("mm_direct_map_remove: [%#llx-%#llx) cannot be unmapped: error %d",
		      (unsigned long long)start, (unsigned long long)(start + size), err);
}

/* mm_this_cpu() - platform.h: this CPU's number, from its per-CPU area. */
unsigned mm_this_cpu(void)
{
	return this_cpu()->cpu;
}

/* One item per CPU for mm_run_on_cpu(): the function and argument it
 * runs, set before it is queued (the queue's lock orders them). */
struct run_item {
	struct cpu_work work;
	void (*fn)(void *arg);
	void *arg;
};
static struct run_item run_items[SMP_MAX_CPUS];

static void run_item_fn(struct cpu_work *w)
{
	struct run_item *r = (struct run_item *)w;

	r->fn(r->arg);
}

int mm_run_on_cpu(unsigned cpu, void (*fn)(void *arg), void *arg)
{
	struct run_item *r;
	u64 deadline;
	int err;

	if (cpu == this_cpu()->cpu) {
		fn(arg);
		return 0;
	}
	if (cpu >= SMP_MAX_CPUS || !smp_cpu(cpu) || smp_cpu(cpu)->state != CPU_ONLINE)
		return -ENODEV;
	r = &run_items[cpu];
	if (smp_work_running(cpu) || cpu_work_current(cpu) || cpu_work_queued(cpu) ||
	    (r->work.fn && !cpu_work_done(&r->work)))
		return -EBUSY;
	r->fn = fn;
	r->arg = arg;
	r->work.fn = run_item_fn;
	r->work.name = "mm call";
	err = queue_work_on(cpu, &r->work);
	if (err)
		return err;
	deadline = ktime_ns() + (u64)SMP_CALL_TIMEOUT_MS * 1000000;
	while (!cpu_work_done(&r->work)) {
		if (ktime_ns() > deadline) {
			pr_warn("mm: CPU %u did not run %p within %u ms", cpu, (void *)fn, SMP_CALL_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
		cpu_relax();
	}
	return 0;
}

u64 mm_cycles(void)
{
	return rdtsc();
}

void mm_boot_mark(const char *what)
{
	boot_mark(what);
}

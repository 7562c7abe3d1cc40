/*
 * mm_platform.c - include/mm/platform.h for the kernel: the direct map,
 * the vmemmap at VMEMMAP_BASE and the TSC.
 */
#include <mm/platform.h>
#include <mm/page.h>
#include <arch/paging.h>
#include <arch/cpu.h>

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

void mm_vmemmap_depopulate(u64 start_pfn, u64 end_pfn)
{
	u64 va = (u64)(uintptr_t)(mm_vmemmap + start_pfn);
	u64 size = (end_pfn - start_pfn) * sizeof(struct page);
	int err = paging_unmap(va, size);

	BUG_ON(err);
}

void mm_set_pt_allocator(phys_addr_t (*alloc)(void))
{
	paging_set_pt_source(alloc);
}

u64 mm_cycles(void)
{
	return rdtsc();
}

/*
 * bench_sections.h - sections that exist only for a host benchmark of
 * memmap init: present, with a populated vmemmap, no RAM and no allocator
 * state (like a hot-added range before it is onlined), far above the
 * simulated RAM.  Shared by bench_memmap_init.c and bench_pmem_init.c.
 * Host only; include after the mm headers and ../host/mm_host.h.
 */
#ifndef BENCH_SECTIONS_H
#define BENCH_SECTIONS_H

/* [start_pfn, start_pfn + nr_pages) made so; 0, or -1 if it cannot be. */
static inline int bench_sections(u64 start_pfn, u64 nr_pages)
{
	if (sparse_add_present(start_pfn, start_pfn + nr_pages, 0, false, host_root_alloc, NULL) ||
	    mm_vmemmap_populate(start_pfn, start_pfn + nr_pages, 0))
		return -1;
	for (u64 sec = pfn_to_section_nr(start_pfn); sec < pfn_to_section_nr(start_pfn + nr_pages); sec++)
		sparse_set_memmap(sec, 0);
	return 0;
}

#endif

/*
 * mm_init.h - bringing up the memory core at boot.
 *
 * The platform (init/main.c) describes the machine in neutral terms,
 * struct mm_boot_params, and calls mm_core_init() once.  That builds, in
 * order: memblock from the firmware map and the reservations; nodes from the
 * NUMA ranges; the section table and the vmemmap; zone spans; the memmap,
 * initialised page by page; then hands every free page to the buddy
 * allocator in the largest aligned blocks, computes watermarks, per-CPU
 * list sizes, zonelists and each zone's `contiguous` flag.  After it
 * returns, alloc_pages() works and memblock is closed.
 *
 * Context: (boot).
 */
#ifndef MM_MM_INIT_H
#define MM_MM_INIT_H

#include <lib/types.h>
#include <lib/fw_memmap.h>
#include <lib/printer.h>
#include <mm/page.h>

#define MM_MAX_BOOT_RESERVED	16
#define MM_MAX_NUMA_BLKS	64

/* One NUMA memory range, from an ACPI SRAT memory affinity entry. */
struct numa_memblk {
	phys_addr_t start, end;		/* [c] [start, end) */
	int nid;			/* [c] memlab node id (proximity domains renumbered from 0) */
	bool hotpluggable;		/* [c] SRAT "hot pluggable": may appear later */
};

struct mm_boot_params {
	const struct fw_memmap *memmap;		/* [c] sanitized firmware map */
	struct { phys_addr_t start, end; const char *what; }
		reserved[MM_MAX_BOOT_RESERVED];	/* [c] ranges that are taken: image, info block */
	u32 nr_reserved;	/* [c] */
	struct numa_memblk numa[MM_MAX_NUMA_BLKS]; /* [c] empty: one node */
	u32 nr_numa;	/* [c] */
	u8 distance[MAX_NUMNODES][MAX_NUMNODES];	/* [c] SLIT; 0 = unknown */
	/* [c] kernelcore= / movablecore=: bytes, or percent of memory if *_percent */
	u64 kernelcore, movablecore;
	bool kernelcore_percent, movablecore_percent;	/* [c] */
	bool page_poison;			/* [c] page_poison=1 */
	u64 cma_size;				/* [c] cma=SIZE: bytes of CMA area, 0 = none (mm/cma.c) */
};

/* mm_core_init() - see the top of this file.  Panics with the reason if
 * boot memory cannot even hold its own memmap. */
void mm_core_init(const struct mm_boot_params *bp);

/* The hotpluggable ranges SRAT announced (mm_init_dump() and `numa` show them): */
extern struct numa_memblk numa_hotplug_blks[MM_MAX_NUMA_BLKS];
extern u32 nr_numa_hotplug_blks;

/* Boot statistics for `meminit` and /proc views. */
struct mm_boot_stats {
	u64 memmap_init_cycles;		/* [c] memmap_init(): all struct pages */
	u64 memmap_init_pages;		/* [c] struct pages initialised */
	int memmap_init_design;		/* [c] enum mech_design used at boot */
	u64 handover_cycles;		/* [c] free memblock -> buddy */
	u64 reserved_pages;		/* [c] memory pages left reserved at boot */
	u64 memmap_pages;		/* [c] pages holding the memmap itself */
	u64 zone_movable_pfn[MAX_NUMNODES]; /* [c] where ZONE_MOVABLE starts per node, 0 = none */
};
extern struct mm_boot_stats mm_boot_stats;

/*
 * mm_cpus_online_changed() - CPUs came online (numa_cpu_set_online()):
 * every zone's pcp high and batch are set again, high being the zone's low
 * watermark shared by the online CPUs of its node (mm/pcp.c), as Linux's
 * page_alloc_cpu_online() does.  Context: (main), after mm_setup().
 */
void mm_cpus_online_changed(void);

/* mm_init_dump() - what mm_core_init did, for the `meminit` command. */
void mm_init_dump(struct printer *p);

#endif

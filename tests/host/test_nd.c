/*
 * test_nd.c - the libnvdimm model (drivers/nvdimm/nd.c) on the simulated
 * machine: a label-less region in a physical range that is not RAM, its
 * namespace raw -> devdax (a ZONE_DEVICE range of devmem_create_phys(),
 * compound pages of the align) -> rebound with each memmap init design
 * -> raw again, with the sections, memmaps and free pages as before; and
 * every bad request refused with the reason and nothing changed.
 */
#include "htest.h"
#include "hotplug_fixture.h"
#include "hotplug_check.h"
#include <drivers/nd.h>
#include <mm/memremap.h>
#include <mm/mechanisms.h>
#include <mm/sparse.h>
#include <mm/memory_hotplug.h>
#include <lib/errno.h>

#define PMEM_START	HOTPLUG_BASE		/* 4 GiB: beyond the boot RAM */
#define PMEM_SIZE	(512 * MiB)
#define PMEM_PFN	(PMEM_START >> PAGE_SHIFT)
#define PMEM_PAGES	(PMEM_SIZE >> PAGE_SHIFT)

static char why[160];

static void boot_pmem(void)
{
	boot(HOTPLUG_BASE + 2 * GiB, 2 * GiB);
	devmem_reset();
	nd_reset();
	CHECK_EQ(mech_set(MECH_MEMMAP_INIT, DESIGN_NEW), 0);
	CHECK_EQ(nd_add_region(PMEM_START, PMEM_SIZE, 0, 2), 0);
}

/* No section of the range present, namespace raw, no device range. */
static void expect_raw(void)
{
	const struct nd_region *r = nd_region(0);

	CHECK_EQ(r->ns[0].mode, ND_MODE_RAW);
	CHECK_EQ(r->ns[0].devmem_id, -1);
	CHECK(!strcmp(nd_mode_name(r->ns[0].mode), "raw"));
	CHECK(devmem_find(0) == NULL);
	for (u64 pfn = PMEM_PFN; pfn < PMEM_PFN + PMEM_PAGES; pfn += PAGES_PER_SECTION)
		CHECK(!present_section(__pfn_to_section(pfn)));
}

HTEST(nd_devdax_bind_rebind_destroy)
{
	unsigned long free0;
	const struct nd_region *r;
	const struct dev_pagemap *pgmap;
	struct page *head;

	boot_pmem();
	expect_raw();
	free0 = global_free_pages();
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), 0);
	r = nd_region(0);
	CHECK_EQ(r->ns[0].mode, ND_MODE_DEVDAX);
	CHECK(!strcmp(nd_mode_name(r->ns[0].mode), "devdax"));
	CHECK_EQ(r->ns[0].align, SZ_2M);
	pgmap = devmem_find(r->ns[0].devmem_id);
	CHECK(pgmap && pgmap->own_sections && !strcmp(pgmap->owner, "dax0.0"));
	CHECK_EQ(pgmap->vmemmap_shift, 9);
	CHECK_EQ(pgmap->start_pfn, PMEM_PFN);
	CHECK_EQ(pgmap->nr_pages, PMEM_PAGES);
	CHECK_EQ(pgmap->last_design, DESIGN_NEW);
	/* sections present with a memmap, never online; no memory block */
	CHECK(valid_section(__pfn_to_section(PMEM_PFN)));
	CHECK(pfn_to_online_page(PMEM_PFN) == NULL);
	CHECK(find_memory_block_by_id(PMEM_START / MEMORY_BLOCK_SIZE) == NULL);
	head = pfn_to_page(PMEM_PFN + 512);
	CHECK_EQ(page_zonenum(head), ZONE_DEVICE);
	CHECK(head->owner == (void *)pgmap);
	CHECK_EQ(NODE_DATA(0)->node_zones[ZONE_DEVICE].spanned_pages, PMEM_PAGES);
	CHECK(global_free_pages() < free0);	/* the 2 MiB memmaps */

	for (int d = 0; d < NR_MEMMAP_DESIGNS; d++) {
		CHECK_EQ(nd_rebind(0, 0, d, why, sizeof(why)), 0);
		CHECK_EQ(pgmap->last_design, d);
		CHECK_EQ(pgmap->last_init_pages, PMEM_PAGES);
	}
	CHECK_EQ(r->ns[0].nr_binds, 1 + NR_MEMMAP_DESIGNS);
	CHECK_EQ(nd_rebind(0, 0, 7, why, sizeof(why)), -EINVAL);

	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
	expect_raw();
	CHECK_EQ(NODE_DATA(0)->node_zones[ZONE_DEVICE].spanned_pages, 0);
	CHECK_EQ(global_free_pages(), free0);
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);	/* raw stays raw */
	CHECK_EQ(nd_rebind(0, 0, -1, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "is raw") != NULL);

	/* 4 KiB align: base pages */
	CHECK_EQ(nd_create_devdax(0, SZ_4K, PMEM_SIZE, why, sizeof(why)), 0);
	CHECK_EQ(devmem_find(nd_region(0)->ns[0].devmem_id)->vmemmap_shift, 0);
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
	expect_raw();
	CHECK_EQ(global_free_pages(), free0);
}

HTEST(nd_bad_requests_change_nothing)
{
	boot_pmem();
	CHECK_EQ(nd_create_devdax(1, SZ_2M, 0, why, sizeof(why)), -ENOENT);
	CHECK_EQ(nd_create_devdax(0, 3 * SZ_1M, 0, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "devdax aligns to 4K, 2M or 1G") != NULL);
	expect_raw();
	/* 512 MiB at 4 GiB: not whole 1 GiB compounds */
	CHECK_EQ(nd_create_devdax(0, SZ_1G, 0, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "is not aligned to 1048576 KiB") != NULL);
	expect_raw();
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 2 * PMEM_SIZE, why, sizeof(why)), -ENOSPC);
	CHECK(strstr(why, "larger than the region") != NULL);
	expect_raw();
	CHECK_EQ(nd_create_devdax(0, SZ_2M, PMEM_SIZE / 2, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "label-less") != NULL);
	expect_raw();
	/* in use: devdax already */
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), 0);
	CHECK_EQ(nd_create_devdax(0, SZ_4K, 0, why, sizeof(why)), -EBUSY);
	CHECK(strstr(why, "in use as dax0.0") != NULL);
	CHECK_EQ(nd_region(0)->ns[0].align, SZ_2M);
	CHECK_EQ(devmem_find(nd_region(0)->ns[0].devmem_id)->vmemmap_shift, 9);
	CHECK_EQ(nd_destroy(5, 0, why, sizeof(why)), -ENOENT);
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
	expect_raw();
}

/* A region the firmware got wrong: over boot RAM (present sections), or
 * not whole sections.  Refused; nothing of it made. */
HTEST(nd_region_over_ram_or_unaligned_is_refused)
{
	unsigned long free0;

	boot_pmem();
	CHECK_EQ(nd_add_region(0, SZ_1G, 0, 3), 1);
	CHECK_EQ(nd_add_region(PMEM_START + PMEM_SIZE + SZ_2M, 64 * MiB, 0, 4), 2);
	free0 = global_free_pages();
	CHECK_EQ(nd_create_devdax(1, SZ_2M, 0, why, sizeof(why)), -EEXIST);
	CHECK_EQ(nd_region(1)->ns[0].mode, ND_MODE_RAW);
	CHECK_EQ(nd_create_devdax(2, SZ_2M, 0, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "not whole 128 MiB sections") != NULL);
	CHECK_EQ(global_free_pages(), free0);
	CHECK(devmem_find(0) == NULL);
	CHECK_EQ(nd_add_region(0, 0, 0, 5), -EINVAL);
}

/*
 * dax_kmem: devdax -> system-ram (hot-added in group dax0.0, onlined by
 * auto_online_blocks) -> devdax, with the free pages exactly as before;
 * while system-ram, rebind and destroy are refused, and so is the way
 * back while a page of it is in use and cannot migrate.
 */
HTEST(nd_kmem_online_offline_and_refusals)
{
	unsigned long free_dax, free_ram;
	const struct nd_region *r;
	struct talloc pinned;
	/* the info block's 2 MiB keep the first block out (Linux's dax_kmem_range()) */
	unsigned long first = PMEM_START / MEMORY_BLOCK_SIZE + 1;
	unsigned long nblocks = PMEM_SIZE / MEMORY_BLOCK_SIZE - 1;
	unsigned long memmap = PAGES_PER_SECTION * sizeof(struct page) / PAGE_SIZE;
	u64 ks, kz;

	boot_pmem();
	CHECK_EQ(nd_reconfigure(0, 0, true, why, sizeof(why)), -EINVAL);	/* raw */
	CHECK(strstr(why, "is raw") != NULL);
	CHECK_EQ(nd_create_devdax(0, SZ_2M, 0, why, sizeof(why)), 0);
	CHECK_EQ(nd_reconfigure(0, 0, false, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "devdax already") != NULL);
	CHECK_EQ(memhp_set_default_online_type(MMOP_ONLINE_KERNEL), 0);
	free_dax = global_free_pages();

	CHECK_EQ(nd_reconfigure(0, 0, true, why, sizeof(why)), 0);
	r = nd_region(0);
	CHECK(r->ns[0].kmem && r->ns[0].mgid >= 0 && r->ns[0].devmem_id == -1);
	CHECK(devmem_find(0) == NULL);
	nd_kmem_range(&r->ns[0], &ks, &kz);
	CHECK_EQ(ks, PMEM_START + MEMORY_BLOCK_SIZE);
	CHECK_EQ(kz, PMEM_SIZE - MEMORY_BLOCK_SIZE);
	CHECK(block(first - 1) == NULL);
	for (unsigned long id = first; id < first + nblocks; id++) {
		CHECK(block(id) != NULL);
		CHECK_EQ(block(id)->state, MEM_ONLINE);
		CHECK_EQ(block(id)->group->id, r->ns[0].mgid);
	}
	/* the kmem range's pages became free memory, and the first section's
	 * memmap went with the dax device */
	free_ram = global_free_pages();
	CHECK_EQ(free_ram - free_dax, nblocks * PAGES_PER_MEMORY_BLOCK + memmap);
	hotplug_check_invariants();

	CHECK_EQ(nd_rebind(0, 0, -1, why, sizeof(why)), -EBUSY);
	CHECK(strstr(why, "system-ram") != NULL);
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), -EBUSY);
	CHECK(strstr(why, "reconfigure dax0.0 devdax first") != NULL);
	CHECK_EQ(nd_create_devdax(0, SZ_4K, 0, why, sizeof(why)), -EBUSY);
	CHECK_EQ(nd_reconfigure(0, 0, true, why, sizeof(why)), -EINVAL);

	/* an unmovable page in it: the way back is refused, all stays online */
	CHECK(talloc_get(&pinned, GFP_KERNEL, 0, 3));
	CHECK(page_to_pfn(pinned.head) >= PMEM_PFN + PAGES_PER_SECTION &&
	      page_to_pfn(pinned.head) < PMEM_PFN + PMEM_PAGES);
	CHECK_EQ(nd_reconfigure(0, 0, false, why, sizeof(why)), -EBUSY);
	CHECK(strstr(why, "in use and cannot be migrated") != NULL);
	CHECK(r->ns[0].kmem);
	for (unsigned long id = first; id < first + nblocks; id++)
		CHECK_EQ(block(id)->state, MEM_ONLINE);
	CHECK(talloc_intact(&pinned));
	talloc_put(&pinned);
	hotplug_check_invariants();

	CHECK_EQ(nd_reconfigure(0, 0, false, why, sizeof(why)), 0);
	CHECK(!r->ns[0].kmem && r->ns[0].mgid == -1 && r->ns[0].devmem_id >= 0);
	CHECK(block(first) == NULL);
	CHECK_EQ(global_free_pages(), free_dax);

	/* auto_online_blocks=offline: the blocks wait offline, and go the same way */
	CHECK_EQ(memhp_set_default_online_type(MMOP_OFFLINE), 0);
	CHECK_EQ(nd_reconfigure(0, 0, true, why, sizeof(why)), 0);
	CHECK_EQ(block(first)->state, MEM_OFFLINE);
	CHECK_EQ(global_free_pages(), free_dax + memmap);	/* a 2 MiB memmap per section */
	CHECK_EQ(memory_block_online(block(first), MMOP_ONLINE_MOVABLE), 0);
	CHECK_EQ(nd_reconfigure(0, 0, false, why, sizeof(why)), 0);
	CHECK(block(first) == NULL);
	CHECK_EQ(global_free_pages(), free_dax);
	CHECK_EQ(nd_destroy(0, 0, why, sizeof(why)), 0);
	expect_raw();
}

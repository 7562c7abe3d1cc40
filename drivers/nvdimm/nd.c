/*
 * nd.c - label-less NVDIMM regions and their one namespace, raw or
 * devdax, in the manner of Linux's libnvdimm (nd_region, nd_namespace_io,
 * nd_dax) reduced to what memmap init needs.  The model is in
 * include/drivers/nd.h; the memory side is mm's devmem_create_phys(),
 * devmem_rebind() and devmem_destroy() (include/mm/memremap.h).
 *
 *   region (SPA range) -- namespaceN.0 raw  --create devdax--> devdax, daxN.0
 *                                        <--destroy----------
 *                         devdax: rebind = memmap poisoned, initialised again, timed
 *
 * Every request is checked in full before anything changes, so a refused
 * one leaves the region as it was.
 *
 * Context: (main) only; nd_add_region() at boot.
 */
#include <drivers/nd.h>
#include <mm/memremap.h>
#include <mm/mechanisms.h>
#include <mm/sparse.h>
#include <mm/memory_hotplug.h>
#include <kernel/resource.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

static struct nd_region regions[ND_MAX_REGIONS];
static int nr_regions;

int nd_add_region(u64 start, u64 size, int nid, u16 spa_index)
{
	struct nd_region *r;

	if (!size || start + size < start)
		return -EINVAL;
	if (nr_regions == ND_MAX_REGIONS) {
		pr_warn("nd: more than %d regions; [mem %#llx-%#llx] ignored", ND_MAX_REGIONS,
			(unsigned long long)start, (unsigned long long)(start + size - 1));
		return -ENOSPC;
	}
	r = &regions[nr_regions];
	*r = (struct nd_region){
		.id = nr_regions, .start = start, .size = size, .nid = nid, .spa_index = spa_index,
		.ns = { .mode = ND_MODE_RAW, .size = size, .align = 0, .devmem_id = -1,
			.mgid = -1 },
	};
	pr_info("nd: region%d: [mem %#018llx-%#018llx] node %d, namespace%d.0 raw (label-less)",
		r->id, (unsigned long long)start, (unsigned long long)(start + size - 1), nid, r->id);
	return nr_regions++;
}

const struct nd_region *nd_region(int id)
{
	return id >= 0 && id < nr_regions ? &regions[id] : NULL;
}

void nd_reset(void)
{
	memset(regions, 0, sizeof(regions));
	nr_regions = 0;
}

const char *nd_mode_name(enum nd_mode mode)
{
	return mode == ND_MODE_DEVDAX ? "devdax" : "raw";
}

u64 nd_parse_align(const char *s)
{
	static const struct { const char *name; u64 bytes; } sizes[] = {
		{ "4K", SZ_4K }, { "4k", SZ_4K }, { "4096", SZ_4K },
		{ "2M", SZ_2M }, { "2m", SZ_2M }, { "2097152", SZ_2M },
		{ "1G", SZ_1G }, { "1g", SZ_1G }, { "1073741824", SZ_1G },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++)
		if (!strcmp(s, sizes[i].name))
			return sizes[i].bytes;
	return 0;
}

/* The reason into why (may be NULL), and into the log; returns err. */
static int __printf(4, 5) refuse(int err, char *why, size_t why_size, const char *fmt, ...)
{
	char buf[160];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (why && why_size)
		ksnprintf(why, why_size, "%s", buf);
	pr_warn("nd: %s", buf);
	return err;
}

int nd_create_devdax(int id, u64 align, u64 size, char *why, size_t why_size)
{
	struct nd_region *r = id >= 0 && id < nr_regions ? &regions[id] : NULL;
	u64 section = PFN_PHYS(PAGES_PER_SECTION);
	unsigned order;
	char owner[16];
	int ret;

	if (!r)
		return refuse(-ENOENT, why, why_size, "region%d: no such region", id);
	if (r->ns.mode == ND_MODE_DEVDAX)
		return refuse(-EBUSY, why, why_size, "namespace%d.0 is in use as dax%d.0 (%s); "
			      "%s", id, id, r->ns.kmem ? "system-ram" : "devdax",
			      r->ns.kmem ? "reconfigure it to devdax and destroy it first" :
					   "destroy it first");
	if (align != SZ_4K && align != SZ_2M && align != SZ_1G)
		return refuse(-EINVAL, why, why_size, "align %llu: devdax aligns to 4K, 2M or 1G",
			      (unsigned long long)align);
	if (size > r->size)
		return refuse(-ENOSPC, why, why_size, "region%d: size %llu is larger than the "
			      "region's %llu bytes", id, (unsigned long long)size,
			      (unsigned long long)r->size);
	if (size && size != r->size)
		return refuse(-EINVAL, why, why_size, "region%d is label-less: its one namespace "
			      "is the whole region (%llu bytes), not %llu", id,
			      (unsigned long long)r->size, (unsigned long long)size);
	if (r->start % align || r->size % align)
		return refuse(-EINVAL, why, why_size, "region%d [mem %#llx, +%#llx) is not "
			      "aligned to %llu KiB", id, (unsigned long long)r->start,
			      (unsigned long long)r->size, (unsigned long long)(align >> 10));
	if (r->start % section || r->size % section)
		return refuse(-EINVAL, why, why_size, "region%d [mem %#llx, +%#llx) is not whole "
			      "%llu MiB sections, which memlab's memmap needs", id,
			      (unsigned long long)r->start, (unsigned long long)r->size,
			      (unsigned long long)(section >> 20));
	order = (unsigned)__builtin_ctzll(align) - PAGE_SHIFT;
	ksnprintf(owner, sizeof(owner), "dax%d.0", id);
	ret = devmem_create_phys(r->nid, r->start, r->size, order, owner);
	if (ret < 0)
		return refuse(ret, why, why_size, "region%d: the memmap of dax%d.0 could not be "
			      "made: %s (the log says why)", id, id, err_text(ret));
	r->ns.mode = ND_MODE_DEVDAX;
	r->ns.align = align;
	r->ns.devmem_id = ret;
	r->ns.nr_binds = 1;
	pr_info("nd: namespace%d.0: devdax, align %llu KiB: dax%d.0 on devmem%d", id,
		(unsigned long long)(align >> 10), id, ret);
	return 0;
}

int nd_destroy(int id, char *why, size_t why_size)
{
	struct nd_region *r = id >= 0 && id < nr_regions ? &regions[id] : NULL;
	int err;

	if (!r)
		return refuse(-ENOENT, why, why_size, "region%d: no such region", id);
	if (r->ns.mode == ND_MODE_RAW)
		return 0;
	if (r->ns.kmem)
		return refuse(-EBUSY, why, why_size, "namespace%d.0: dax%d.0 is system-ram (kmem): "
			      "nd reconfigure dax%d.0 devdax first", id, id, id);
	err = devmem_destroy(r->ns.devmem_id);
	if (err)
		return refuse(err, why, why_size, "namespace%d.0: dax%d.0 is in use (%s)", id, id,
			      err_text(err));
	r->ns.mode = ND_MODE_RAW;
	r->ns.align = 0;
	r->ns.devmem_id = -1;
	pr_info("nd: namespace%d.0: raw again", id);
	return 0;
}

int nd_rebind(int id, int d, char *why, size_t why_size)
{
	struct nd_region *r = id >= 0 && id < nr_regions ? &regions[id] : NULL;
	int err;

	if (!r)
		return refuse(-ENOENT, why, why_size, "region%d: no such region", id);
	if (r->ns.mode != ND_MODE_DEVDAX)
		return refuse(-EINVAL, why, why_size, "namespace%d.0 is raw: no dax device to "
			      "rebind", id);
	if (r->ns.kmem)
		return refuse(-EBUSY, why, why_size, "dax%d.0 is system-ram (kmem): its memory is "
			      "the page allocator's, no device memmap to rebind", id);
	if (d == DEVMEM_DESIGN_SHARED &&
	    !vmemmap_shared_order_ok((unsigned)__builtin_ctzll(r->ns.align) - PAGE_SHIFT))
		return refuse(-EINVAL, why, why_size, "dax%d.0: align %llu KiB: the shared vmemmap "
			      "needs compound pages of more than %llu struct pages (align 2M)", id,
			      (unsigned long long)(r->ns.align >> 10),
			      (unsigned long long)vmemmap_shared_unique());
	err = devmem_rebind(r->ns.devmem_id, d);
	if (err)
		return refuse(err, why, why_size, "dax%d.0: rebind: %s", id, err_text(err));
	r->ns.nr_binds++;
	return 0;
}

/* ---- dax_kmem: the namespace's memory as System RAM ------------------------ */

/* Bind the dax device of r again (its align, the switch's design): the
 * last step of giving the memory back, and the undo of a failed add. */
static int dax_bind_again(struct nd_region *r)
{
	char owner[16];
	int ret;

	ksnprintf(owner, sizeof(owner), "dax%d.0", r->id);
	ret = devmem_create_phys(r->nid, r->start, r->size,
				 (unsigned)__builtin_ctzll(r->ns.align) - PAGE_SHIFT, owner);
	if (ret < 0) {
		/* the memory is free of both; the namespace is what is left */
		r->ns.mode = ND_MODE_RAW;
		r->ns.align = 0;
		r->ns.devmem_id = -1;
		return ret;
	}
	r->ns.devmem_id = ret;
	r->ns.nr_binds++;
	return 0;
}

/* The iomem nesting of Linux's dax_kmem: "daxN.0" (not busy) inside the
 * region's resource, "System RAM (kmem)" inside it.  NULL on a conflict. */
static struct resource *kmem_resources_add(struct nd_region *r)
{
	struct resource *parent = resource_lookup(&iomem_resource, r->start), *dax;
	char name[16];

	if (!parent || parent->start > r->start || parent->end < r->start + r->size - 1)
		parent = &iomem_resource;
	ksnprintf(name, sizeof(name), "dax%d.0", r->id);
	dax = request_region(parent, r->start, r->size, name, IORESOURCE_MEM);
	if (!dax)
		return NULL;
	dax->flags &= ~IORESOURCE_BUSY;
	if (!request_region(dax, r->start, r->size, "System RAM (kmem)", IORESOURCE_SYSTEM_RAM)) {
		release_region(parent, r->start, r->size);
		return NULL;
	}
	return dax;
}

static void kmem_resources_remove(struct nd_region *r)
{
	struct resource *dax = r->ns.dax_res, *parent = dax->parent;

	release_region(dax, r->start, r->size);
	release_region(parent, r->start, r->size);
	r->ns.dax_res = NULL;
}

static int kmem_online(struct nd_region *r, char *why, size_t why_size)
{
	char name[16];
	int err, mgid;

	err = devmem_destroy(r->ns.devmem_id);
	if (err)
		return refuse(err, why, why_size, "dax%d.0 is in use (%s)", r->id, err_text(err));
	r->ns.devmem_id = -1;
	ksnprintf(name, sizeof(name), "dax%d.0", r->id);
	mgid = memory_group_register_static(r->nid, (unsigned long)(r->size >> PAGE_SHIFT), name);
	err = mgid < 0 ? mgid : add_memory(r->nid, r->start, r->size, mgid, MHP_NONE);
	if (err) {
		if (mgid >= 0)
			memory_group_unregister(mgid);
		if (dax_bind_again(r))
			return refuse(err, why, why_size, "dax%d.0: add_memory: %s; and the dax "
				      "device could not be bound again: namespace%d.0 is raw", r->id,
				      err_text(err), r->id);
		return refuse(err, why, why_size, "dax%d.0: add_memory: %s (the log says why); "
			      "dax%d.0 bound again", r->id, err_text(err), r->id);
	}
	r->ns.kmem = true;
	r->ns.mgid = mgid;
	r->ns.dax_res = kmem_resources_add(r);
	if (!r->ns.dax_res)
		pr_warn("nd: dax%d.0: System RAM (kmem) not recorded in /proc/iomem", r->id);
	pr_info("nd: dax%d.0: system-ram: [mem %#018llx-%#018llx] hot-added in memory group %d "
		"(auto_online_blocks %s)", r->id, (unsigned long long)r->start,
		(unsigned long long)(r->start + r->size - 1), mgid,
		mmop_name(memhp_get_default_online_type()));
	return 0;
}

static int kmem_offline(struct nd_region *r, char *why, size_t why_size)
{
	int err = offline_and_remove_memory(r->start, r->size);

	if (err)
		return refuse(err, why, why_size, "dax%d.0: its memory is in use and cannot be "
			      "migrated (%s; the log names the page): it stays system-ram", r->id,
			      err_text(err));
	memory_group_unregister(r->ns.mgid);
	if (r->ns.dax_res)
		kmem_resources_remove(r);
	r->ns.kmem = false;
	r->ns.mgid = -1;
	err = dax_bind_again(r);
	if (err)
		return refuse(err, why, why_size, "dax%d.0: the memory is removed, but its memmap "
			      "could not be made again (%s): namespace%d.0 is raw", r->id,
			      err_text(err), r->id);
	pr_info("nd: dax%d.0: devdax again", r->id);
	return 0;
}

int nd_reconfigure(int id, bool system_ram, char *why, size_t why_size)
{
	struct nd_region *r = id >= 0 && id < nr_regions ? &regions[id] : NULL;

	if (!r)
		return refuse(-ENOENT, why, why_size, "dax%d.0: no such dax device", id);
	if (r->ns.mode != ND_MODE_DEVDAX)
		return refuse(-EINVAL, why, why_size, "namespace%d.0 is raw: create-namespace "
			      "--mode=devdax first", id);
	if (system_ram == r->ns.kmem)
		return refuse(-EINVAL, why, why_size, "dax%d.0 is %s already", id,
			      system_ram ? "system-ram" : "devdax");
	return system_ram ? kmem_online(r, why, why_size) : kmem_offline(r, why, why_size);
}

void nd_list_dump(struct printer *p)
{
	if (!nr_regions) {
		pr_printf(p, "no persistent memory regions\n");
		return;
	}
	pr_printf(p, "[\n");
	for (int i = 0; i < nr_regions; i++) {
		const struct nd_region *r = &regions[i];

		pr_printf(p, "  {\n    \"dev\":\"region%d\",\n    \"size\":%llu,\n"
			  "    \"align\":%llu,\n    \"available_size\":0,\n    \"type\":\"pmem\",\n"
			  "    \"numa_node\":%d,\n    \"namespaces\":[\n      {\n"
			  "        \"dev\":\"namespace%d.0\",\n        \"mode\":\"%s\",\n",
			  i, (unsigned long long)r->size, 16ULL << 20, r->nid, i,
			  nd_mode_name(r->ns.mode));
		if (r->ns.mode == ND_MODE_DEVDAX)
			pr_printf(p, "        \"map\":\"mem\",\n        \"size\":%llu,\n"
				  "        \"chardev\":\"dax%d.0\",\n        \"align\":%llu\n",
				  (unsigned long long)r->ns.size, i, (unsigned long long)r->ns.align);
		else
			pr_printf(p, "        \"size\":%llu,\n        \"blockdev\":\"pmem%d\"\n",
				  (unsigned long long)r->ns.size, i);
		pr_printf(p, "      }\n    ]\n  }%s\n", i + 1 < nr_regions ? "," : "");
	}
	pr_printf(p, "]\n");
}

void nd_dax_dump(struct printer *p)
{
	int n = 0;

	for (int i = 0; i < nr_regions; i++) {
		const struct nd_region *r = &regions[i];
		const struct dev_pagemap *pgmap;
		struct vmemmap_cost cost = { 0 };

		if (r->ns.mode != ND_MODE_DEVDAX)
			continue;
		if (r->ns.kmem) {
			pr_printf(p, "%s  {\n    \"chardev\":\"dax%d.0\",\n    \"size\":%llu,\n"
				  "    \"target_node\":%d,\n    \"align\":%llu,\n"
				  "    \"mode\":\"system-ram\",\n    \"memory_group\":%d\n  }",
				  n ? ",\n" : "[\n", i, (unsigned long long)r->ns.size, r->nid,
				  (unsigned long long)r->ns.align, r->ns.mgid);
			n++;
			continue;
		}
		pgmap = devmem_find(r->ns.devmem_id);
		if (pgmap)
			vmemmap_layout_cost(pgmap->shared_vmemmap, pgmap->vmemmap_shift,
					    pgmap->nr_pages, &cost);
		pr_printf(p, "%s  {\n    \"chardev\":\"dax%d.0\",\n    \"size\":%llu,\n"
			  "    \"target_node\":%d,\n    \"align\":%llu,\n    \"mode\":\"devdax\",\n"
			  "    \"devmem\":%d,\n    \"binds\":%llu,\n    \"last_init\":\"%s\",\n"
			  "    \"last_init_cycles\":%llu,\n    \"vmemmap\":\"%s\",\n"
			  "    \"memmap_bytes_written\":%llu,\n    \"memmap_pages\":%llu,\n"
			  "    \"memmap_table_pages\":%llu\n  }", n ? ",\n" : "[\n", i,
			  (unsigned long long)r->ns.size, r->nid, (unsigned long long)r->ns.align,
			  r->ns.devmem_id, (unsigned long long)r->ns.nr_binds,
			  pgmap ? devmem_design_name(pgmap->last_design) : "?",
			  pgmap ? (unsigned long long)pgmap->last_init_cycles : 0ULL,
			  pgmap && pgmap->shared_vmemmap ? "shared" : "full",
			  pgmap ? (unsigned long long)pgmap->last_init_bytes : 0ULL,
			  pgmap ? (unsigned long long)cost.memmap_pages : 0ULL,
			  pgmap ? (unsigned long long)cost.table_pages : 0ULL);
		n++;
	}
	pr_printf(p, n ? "\n]\n" : "no dax devices\n");
}

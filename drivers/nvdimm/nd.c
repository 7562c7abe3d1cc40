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
		.ns = { .present = true, .mode = ND_MODE_RAW, .start = start, .size = size,
			.align = 0, .devmem_id = -1, .mgid = -1 },
	};
	pr_info("nd: region%d: [mem %#018llx-%#018llx] node %d, namespace%d.0 raw (label-less until a label area is found)",
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

/* Write back what a label change dirtied; on a failure the area copy no
 * longer matches the device: the region's labels are marked bad. */
static int labels_write(struct nd_region *r, const struct nd_label_dirty *d, char *why,
			size_t why_size)
{
	struct nd_label_dev *ld = r->labels;

	for (unsigned i = 0; i < d->n; i++) {
		int err = ld->write(ld->ctx, d->off[i], ld->area + d->off[i], d->len[i], why,
				    why_size);

		if (err) {
			ld->kind = ND_LABELS_BAD;
			ksnprintf(ld->problem, sizeof(ld->problem), "a label write failed: %s", why);
			return refuse(err, why, why_size, "region%d: label write failed: %s", r->id,
				      ld->problem);
		}
	}
	return 0;
}

/* A label for [start, start + size) of a labelled region without a
 * namespace: the index blocks first if the area was not initialised. */
static int labels_create(struct nd_region *r, u64 size, char *why, size_t why_size)
{
	struct nd_label_dev *ld = r->labels;
	struct nd_label_dirty d;
	struct nd_label l = { .nlabel = 1, .position = 0, .dpa = ld->dpa, .rawsize = size };
	int err;

	if (ld->kind == ND_LABELS_UNINIT) {
		err = nd_label_init(ld->area, ld->size, &d);
		if (!err)
			err = labels_write(r, &d, why, why_size);
		if (err)
			return err;
		err = nd_label_scan(ld->area, ld->size, ld->dpa, r->size, &ld->st, why, why_size);
		if (err)
			return refuse(err, why, why_size, "region%d: the new index: %s", r->id, why);
		ld->kind = ND_LABELS_OK;
	}
	ld->new_uuid(ld->ctx, l.uuid);
	ksnprintf(l.name, sizeof(l.name), "namespace%d.0", r->id);
	err = nd_label_add(ld->area, ld->size, &ld->st, &l, &d);
	if (err)
		return refuse(err, why, why_size, "region%d: no free label slot", r->id);
	err = labels_write(r, &d, why, why_size);
	if (err)
		return err;
	r->ns.present = true;
	r->ns.start = r->start;
	r->ns.size = size;
	memcpy(r->ns.uuid, l.uuid, 16);
	return 0;
}

int nd_create_devdax(int id, u64 align, u64 size, char *why, size_t why_size)
{
	struct nd_region *r = id >= 0 && id < nr_regions ? &regions[id] : NULL;
	u64 section = PFN_PHYS(PAGES_PER_SECTION);
	bool new_label;
	unsigned order;
	char owner[16];
	u64 start;
	int ret;

	if (!r)
		return refuse(-ENOENT, why, why_size, "region%d: no such region", id);
	if (r->ns.present && r->ns.mode == ND_MODE_DEVDAX)
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
	new_label = r->labels && !r->ns.present;
	if (new_label && r->labels->kind == ND_LABELS_BAD)
		return refuse(-EIO, why, why_size, "region%d: its label area holds bad data (%s); "
			      "memlab does not overwrite it", id, r->labels->problem);
	if (new_label) {
		/* a new namespace: from the region's start, whole sections */
		u64 unit = align > section ? align : section;

		start = r->start;
		if (!size)
			size = r->size / unit * unit;
		if (!size || size % unit)
			return refuse(-EINVAL, why, why_size, "region%d: a namespace of %llu bytes: "
				      "memlab's needs whole %llu MiB units (section and align)", id,
				      (unsigned long long)size, (unsigned long long)(unit >> 20));
	} else {
		start = r->ns.start;
		if (size && size != r->ns.size)
			return refuse(-EINVAL, why, why_size, "region%d %s: its one namespace is "
				      "%llu bytes, not %llu", id, r->labels ? "has a labelled "
				      "namespace" : "is label-less", (unsigned long long)r->ns.size,
				      (unsigned long long)size);
		size = r->ns.size;
	}
	if (start % align || size % align)
		return refuse(-EINVAL, why, why_size, "region%d [mem %#llx, +%#llx) is not "
			      "aligned to %llu KiB", id, (unsigned long long)start,
			      (unsigned long long)size, (unsigned long long)(align >> 10));
	if (start % section || size % section)
		return refuse(-EINVAL, why, why_size, "region%d [mem %#llx, +%#llx) is not whole "
			      "%llu MiB sections, which memlab's memmap needs", id,
			      (unsigned long long)start, (unsigned long long)size,
			      (unsigned long long)(section >> 20));
	order = (unsigned)__builtin_ctzll(align) - PAGE_SHIFT;
	ksnprintf(owner, sizeof(owner), "dax%d.0", id);
	ret = devmem_create_phys(r->nid, start, size, order, owner);
	if (ret < 0)
		return refuse(ret, why, why_size, "region%d: the memmap of dax%d.0 could not be "
			      "made: %s (the log says why)", id, id, err_text(ret));
	if (new_label) {
		int err = labels_create(r, size, why, why_size);

		if (err) {
			devmem_destroy(ret);
			return err;
		}
	}
	r->ns.mode = ND_MODE_DEVDAX;
	r->ns.align = align;
	r->ns.devmem_id = ret;
	r->ns.nr_binds = 1;
	pr_info("nd: namespace%d.0: devdax, align %llu KiB: dax%d.0 on devmem%d", id,
		(unsigned long long)(align >> 10), id, ret);
	return 0;
}

/* The label of a labelled namespace deleted: the namespace is gone. */
static int labels_destroy(struct nd_region *r, char *why, size_t why_size)
{
	struct nd_label_dev *ld = r->labels;
	struct nd_label_dirty d;
	int err;

	if (ld->kind != ND_LABELS_OK || !ld->st.nlabels)
		return refuse(-EIO, why, why_size, "namespace%d.0: no label to delete", r->id);
	err = nd_label_del(ld->area, ld->size, &ld->st, 0, &d);
	if (!err)
		err = labels_write(r, &d, why, why_size);
	if (err)
		return err;
	r->ns.present = false;
	r->ns.size = 0;
	memset(r->ns.uuid, 0, 16);
	pr_info("nd: namespace%d.0: label deleted, no namespace", r->id);
	return 0;
}

int nd_destroy(int id, char *why, size_t why_size)
{
	struct nd_region *r = id >= 0 && id < nr_regions ? &regions[id] : NULL;
	int err;

	if (!r)
		return refuse(-ENOENT, why, why_size, "region%d: no such region", id);
	if (!r->ns.present)
		return refuse(-ENOENT, why, why_size, "region%d has no namespace", id);
	if (r->ns.mode == ND_MODE_RAW)
		return r->labels ? labels_destroy(r, why, why_size) : 0;
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
	return r->labels ? labels_destroy(r, why, why_size) : 0;
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
	ret = devmem_create_phys(r->nid, r->ns.start, r->ns.size,
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
	struct resource *parent = resource_lookup(&iomem_resource, r->ns.start), *dax;
	char name[16];

	if (!parent || parent->start > r->ns.start || parent->end < r->ns.start + r->ns.size - 1)
		parent = &iomem_resource;
	ksnprintf(name, sizeof(name), "dax%d.0", r->id);
	dax = request_region(parent, r->ns.start, r->ns.size, name, IORESOURCE_MEM);
	if (!dax)
		return NULL;
	dax->flags &= ~IORESOURCE_BUSY;
	if (!request_region(dax, r->ns.start, r->ns.size, "System RAM (kmem)", IORESOURCE_SYSTEM_RAM)) {
		release_region(parent, r->ns.start, r->ns.size);
		return NULL;
	}
	return dax;
}

static void kmem_resources_remove(struct nd_region *r)
{
	struct resource *dax = r->ns.dax_res, *parent = dax->parent;

	release_region(dax, r->ns.start, r->ns.size);
	release_region(parent, r->ns.start, r->ns.size);
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
	mgid = memory_group_register_static(r->nid, (unsigned long)(r->ns.size >> PAGE_SHIFT), name);
	err = mgid < 0 ? mgid : add_memory(r->nid, r->ns.start, r->ns.size, mgid, MHP_NONE);
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
		"(auto_online_blocks %s)", r->id, (unsigned long long)r->ns.start,
		(unsigned long long)(r->ns.start + r->ns.size - 1), mgid,
		mmop_name(memhp_get_default_online_type()));
	return 0;
}

static int kmem_offline(struct nd_region *r, char *why, size_t why_size)
{
	int err = offline_and_remove_memory(r->ns.start, r->ns.size);

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

void nd_uuid_format(const u8 u[16], char out[37])
{
	ksnprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		  u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		  u[13], u[14], u[15]);
}

const char *nd_label_kind_name(const struct nd_region *r)
{
	if (!r->labels)
		return "label-less";
	switch (r->labels->kind) {
	case ND_LABELS_UNINIT:	return "uninitialised";
	case ND_LABELS_OK:	return "valid";
	default:		return "invalid";
	}
}

int nd_attach_labels(int id, struct nd_label_dev *ld)
{
	struct nd_region *r = id >= 0 && id < nr_regions ? &regions[id] : NULL;
	char uuid[37];
	int err;

	if (!r)
		return -ENOENT;
	if (r->ns.mode != ND_MODE_RAW)
		return -EBUSY;
	r->labels = ld;
	r->ns.present = false;
	r->ns.size = 0;
	ld->problem[0] = 0;
	err = nd_label_scan(ld->area, ld->size, ld->dpa, r->size, &ld->st, ld->problem,
			    sizeof(ld->problem));
	if (err == -ENOENT) {
		ld->kind = ND_LABELS_UNINIT;
		pr_info("nd: region%d: label area of %u bytes not initialised: no namespace until "
			"one is created", id, ld->size);
		return 0;
	}
	if (err) {
		ld->kind = ND_LABELS_BAD;
		pr_warn("nd: region%d: label area refused: %s; no namespace", id, ld->problem);
		return 0;
	}
	ld->kind = ND_LABELS_OK;
	if (!ld->st.nlabels) {
		pr_info("nd: region%d: label area valid, no label: no namespace", id);
		return 0;
	}
	r->ns.present = true;
	r->ns.start = r->start + (ld->st.labels[0].dpa - ld->dpa);
	r->ns.size = ld->st.labels[0].rawsize;
	memcpy(r->ns.uuid, ld->st.labels[0].uuid, 16);
	nd_uuid_format(r->ns.uuid, uuid);
	pr_info("nd: region%d: namespace%d.0 from its label: uuid %s, %llu bytes, raw", id, id,
		uuid, (unsigned long long)r->ns.size);
	return 0;
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
			  "    \"align\":%llu,\n    \"available_size\":%llu,\n    \"type\":\"pmem\",\n"
			  "    \"numa_node\":%d,\n", i, (unsigned long long)r->size, 16ULL << 20,
			  (unsigned long long)(r->ns.present ? r->size - r->ns.size : r->size), r->nid);
		if (r->labels) {
			pr_printf(p, "    \"label_size\":%u,\n    \"label_state\":\"%s\",\n",
				  r->labels->size, nd_label_kind_name(r));
			if (r->labels->kind == ND_LABELS_BAD)
				pr_printf(p, "    \"label_problem\":\"%s\",\n", r->labels->problem);
		}
		if (!r->ns.present) {
			pr_printf(p, "    \"namespaces\":[]\n  }%s\n", i + 1 < nr_regions ? "," : "");
			continue;
		}
		pr_printf(p, "    \"namespaces\":[\n      {\n"
			  "        \"dev\":\"namespace%d.0\",\n        \"mode\":\"%s\",\n",
			  i, nd_mode_name(r->ns.mode));
		if (r->labels) {
			char uuid[37];

			nd_uuid_format(r->ns.uuid, uuid);
			pr_printf(p, "        \"uuid\":\"%s\",\n", uuid);
		}
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

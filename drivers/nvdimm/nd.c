/*
 * nd.c - NVDIMM regions and their namespaces, raw or devdax, in the manner
 * of Linux's libnvdimm (nvdimm, nd_region, nd_namespace_io/_pmem, nd_dax)
 * reduced to what memmap init needs.  The model is in include/drivers/nd.h;
 * the memory side is mm's devmem_create_phys(), devmem_rebind() and
 * devmem_destroy() (include/mm/memremap.h); labels are
 * drivers/nvdimm/label.c's, info blocks drivers/nvdimm/info.c's.
 *
 *   region (SPA range) -- namespaceN.M raw  --create devdax--> devdax, daxN.M
 *                                          <--destroy----------  (info block at +4 KiB)
 *                         devdax: rebind = memmap poisoned, initialised again, timed
 *
 * Every request is checked in full before anything changes, so a refused
 * one leaves the region as it was; a step that fails half way (a label or
 * info block write) undoes the steps before it.
 *
 * Context: (main) only; nd_add_region() and the probes at boot.
 */
#include <drivers/nd.h>
#include <mm/memremap.h>
#include <mm/mechanisms.h>
#include <mm/sparse.h>
#include <mm/page.h>
#include <mm/platform.h>
#include <mm/memory_hotplug.h>
#include <kernel/resource.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

_Static_assert(sizeof(struct page) == ND_INFO_PAGE_STRUCT,
	       "the info block records Linux's 64-byte struct page");

static struct nd_region regions[ND_MAX_REGIONS];
static int nr_regions;
static struct nd_dimm dimms[ND_MAX_DIMMS];
static int nr_dimms;
static const struct nd_media *media;
static void (*change_hook)(int region);

#define SECTION_BYTES	((u64)PFN_PHYS(PAGES_PER_SECTION))

static struct nd_region *region_of(int id)
{
	return id >= 0 && id < nr_regions ? &regions[id] : NULL;
}

static struct nd_namespace *ns_of(struct nd_region *r, int m)
{
	return r && m >= 0 && m < ND_MAX_NS && r->ns[m].present ? &r->ns[m] : NULL;
}

static void changed(const struct nd_region *r)
{
	if (change_hook)
		change_hook(r->id);
}

void nd_set_change_hook(void (*fn)(int region))
{
	change_hook = fn;
}

void nd_set_media(const struct nd_media *m)
{
	media = m;
}

/* A raw namespace over [start, start + size), present. */
static void ns_init(struct nd_namespace *ns, u64 start, u64 size)
{
	*ns = (struct nd_namespace){ .present = true, .mode = ND_MODE_RAW, .start = start,
				     .size = size, .devmem_id = -1, .mgid = -1 };
}

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
	};
	for (int m = 0; m < ND_MAX_NS; m++)
		r->ns[m] = (struct nd_namespace){ .devmem_id = -1, .mgid = -1 };
	ns_init(&r->ns[0], start, size);
	pr_info("nd: region%d: [mem %#018llx-%#018llx] node %d, namespace%d.0 raw (label-less until a label area is found)",
		r->id, (unsigned long long)start, (unsigned long long)(start + size - 1), nid, r->id);
	return nr_regions++;
}

int nd_add_dimm(const struct nd_dimm *d)
{
	for (int i = 0; i < nr_dimms; i++)
		if (dimms[i].handle == d->handle)
			return i;
	if (nr_dimms == ND_MAX_DIMMS) {
		pr_warn("nd: more than %d DIMMs; handle %#x ignored", ND_MAX_DIMMS, d->handle);
		return -ENOSPC;
	}
	dimms[nr_dimms] = *d;
	dimms[nr_dimms].id = nr_dimms;
	return nr_dimms++;
}

int nd_add_mapping(int id, int dimm, u64 dpa, u64 size)
{
	struct nd_region *r = region_of(id);

	if (!r || dimm < 0 || dimm >= nr_dimms)
		return -ENOENT;
	if (r->nr_mappings == ND_MAX_MAPPINGS)
		return -ENOSPC;
	r->mappings[r->nr_mappings] = (struct nd_mapping){ .dimm = dimm, .dpa = dpa, .size = size,
							   .position = (int)r->nr_mappings };
	r->nr_mappings++;
	return 0;
}

const struct nd_region *nd_region(int id)
{
	return region_of(id);
}

const struct nd_dimm *nd_dimm(int id)
{
	return id >= 0 && id < nr_dimms ? &dimms[id] : NULL;
}

const struct nd_namespace *nd_namespace(int region, int ns)
{
	return ns_of(region_of(region), ns);
}

void nd_dimm_id(const struct nd_dimm *d, char out[16])
{
	u16 v = (u16)(d->vendor >> 8 | d->vendor << 8);
	u32 s = __builtin_bswap32(d->serial);

	ksnprintf(out, 16, "%04x-%08x", v, s);
}

u64 nd_dax_size(const struct nd_namespace *ns)
{
	return ns->mode == ND_MODE_DEVDAX ? ns->size - ns->dataoff : 0;
}

u64 nd_available(const struct nd_region *r)
{
	u64 used = 0;

	for (int m = 0; m < ND_MAX_NS; m++)
		if (r->ns[m].present)
			used += r->ns[m].size;
	return r->size - used;
}

void nd_reset(void)
{
	memset(regions, 0, sizeof(regions));
	nr_regions = 0;
	memset(dimms, 0, sizeof(dimms));
	nr_dimms = 0;
	media = NULL;
	change_hook = NULL;
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

static bool align_ok(u64 align)
{
	return align == SZ_4K || align == SZ_2M || align == SZ_1G;
}

/* The reason into why (may be NULL), and into the log; returns err. */
static int __printf(4, 5) refuse(int err, char *why, size_t why_size, const char *fmt, ...)
{
	char buf[192];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (why && why_size)
		ksnprintf(why, why_size, "%s", buf);
	pr_warn("nd: %s", buf);
	return err;
}

/* ---- info blocks ----------------------------------------------------------- */

static u8 info_buf[ND_INFO_SIZE];	/* (main): one block at a time */

/* Write ns's devdax info block (zero: clear) through the media. */
static int info_write(struct nd_region *r, int m, bool clear, char *why, size_t why_size)
{
	struct nd_namespace *ns = &r->ns[m];
	int err;

	if (!media)
		return 0;
	if (clear) {
		memset(info_buf, 0, sizeof(info_buf));
	} else {
		struct nd_info in = {
			.major = 1, .minor = 4, .dataoff = ns->dataoff,
			.npfns = (ns->size - ns->dataoff) >> PAGE_SHIFT, .mode = ND_INFO_MODE_RAM,
			.align = (u32)ns->align, .page_size = PAGE_SIZE,
			.page_struct_size = ND_INFO_PAGE_STRUCT,
		};

		memcpy(in.uuid, ns->dax_uuid, 16);
		if (r->labels)
			memcpy(in.parent_uuid, ns->uuid, 16);
		nd_info_encode(&in, info_buf);
	}
	err = media->write(media->ctx, ns->start + ND_INFO_OFFSET, info_buf, ND_INFO_SIZE);
	if (err)
		return refuse(-EIO, why, why_size, "namespace%d.%d: the info block at [mem %#llx, "
			      "+4 KiB) could not be %s (%s)", r->id, m,
			      (unsigned long long)(ns->start + ND_INFO_OFFSET),
			      clear ? "cleared" : "written", err_text(err));
	pr_info("nd: namespace%d.%d: info block %s at [mem %#llx, +4 KiB)", r->id, m,
		clear ? "cleared" : "written", (unsigned long long)(ns->start + ND_INFO_OFFSET));
	return 0;
}

/* A random (version 4) uuid for a dax claim: the label area's source, or
 * the cycle counter mixed with the namespace's address. */
static void dax_uuid(struct nd_region *r, int m, u8 out[16])
{
	u64 z = mm_cycles() ^ r->ns[m].start ^ ((u64)m << 56), h[2];

	if (r->labels && r->labels->new_uuid) {
		r->labels->new_uuid(r->labels->ctx, out);
		return;
	}
	for (int i = 0; i < 2; i++) {
		z += 0x9e3779b97f4a7c15ull;
		h[i] = z;
		h[i] = (h[i] ^ (h[i] >> 30)) * 0xbf58476d1ce4e5b9ull;
		h[i] = (h[i] ^ (h[i] >> 27)) * 0x94d049bb133111ebull;
		h[i] ^= h[i] >> 31;
	}
	memcpy(out, h, 16);
	out[6] = (u8)((out[6] & 0x0f) | 0x40);
	out[8] = (u8)((out[8] & 0x3f) | 0x80);
}

/* ---- binding a devdax namespace -------------------------------------------- */

/* The checks of a devdax bind of [start, start + size) at align; 0 or a refusal. */
static int bind_check(struct nd_region *r, int m, u64 start, u64 size, u64 align, char *why,
		      size_t why_size)
{
	if (start % align || size % align)
		return refuse(-EINVAL, why, why_size, "namespace%d.%d [mem %#llx, +%#llx) is not "
			      "aligned to %llu KiB", r->id, m, (unsigned long long)start,
			      (unsigned long long)size, (unsigned long long)(align >> 10));
	if (start % SECTION_BYTES || size % SECTION_BYTES)
		return refuse(-EINVAL, why, why_size, "namespace%d.%d [mem %#llx, +%#llx) is not "
			      "whole %llu MiB sections, which memlab's memmap needs", r->id, m,
			      (unsigned long long)start, (unsigned long long)size,
			      (unsigned long long)(SECTION_BYTES >> 20));
	if (ND_INFO_DATAOFF(align) >= size)
		return refuse(-EINVAL, why, why_size, "namespace%d.%d: %llu bytes leave nothing "
			      "after the info block's %llu KiB", r->id, m, (unsigned long long)size,
			      (unsigned long long)(ND_INFO_DATAOFF(align) >> 10));
	return 0;
}

/* The memmap of ns made (devmem_create_phys()) with compounds of align; the
 * namespace devdax in memory (its info block is the caller's). */
static int bind(struct nd_region *r, int m, u64 align, u64 dataoff, char *why, size_t why_size)
{
	struct nd_namespace *ns = &r->ns[m];
	char owner[16];
	int ret;

	ksnprintf(owner, sizeof(owner), "dax%d.%d", r->id, m);
	ret = devmem_create_phys(r->nid, ns->start, ns->size,
				 (unsigned)__builtin_ctzll(align) - PAGE_SHIFT, owner);
	if (ret < 0)
		return refuse(ret, why, why_size, "namespace%d.%d: the memmap of dax%d.%d could "
			      "not be made: %s (the log says why)", r->id, m, r->id, m,
			      err_text(ret));
	ns->mode = ND_MODE_DEVDAX;
	ns->align = align;
	ns->dataoff = dataoff;
	ns->devmem_id = ret;
	ns->nr_binds = 1;
	ns->info_problem[0] = 0;
	return 0;
}

static void unbind(struct nd_namespace *ns)
{
	if (ns->devmem_id >= 0)
		devmem_destroy(ns->devmem_id);
	ns->mode = ND_MODE_RAW;
	ns->align = 0;
	ns->dataoff = 0;
	ns->devmem_id = -1;
	ns->from_info = false;
}

/* ---- labels ---------------------------------------------------------------- */

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

/* A label for ns[m]'s [start, start + size): the index blocks first if the
 * area was not initialised; the uuid into ns. */
static int labels_create(struct nd_region *r, int m, char *why, size_t why_size)
{
	struct nd_label_dev *ld = r->labels;
	struct nd_namespace *ns = &r->ns[m];
	struct nd_label_dirty d;
	struct nd_label l = { .nlabel = 1, .position = 0, .dpa = ld->dpa + (ns->start - r->start),
			      .rawsize = ns->size };
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
	ksnprintf(l.name, sizeof(l.name), "namespace%d.%d", r->id, m);
	err = nd_label_add(ld->area, ld->size, &ld->st, &l, &d);
	if (err)
		return refuse(err, why, why_size, "region%d: no free label slot", r->id);
	err = labels_write(r, &d, why, why_size);
	if (err)
		return err;
	memcpy(ns->uuid, l.uuid, 16);
	return 0;
}

/* The label of ns[m] deleted. */
static int labels_delete(struct nd_region *r, int m, char *why, size_t why_size)
{
	struct nd_label_dev *ld = r->labels;
	struct nd_namespace *ns = &r->ns[m];
	u64 dpa = ld->dpa + (ns->start - r->start);
	struct nd_label_dirty d;
	unsigned i;
	int err;

	if (ld->kind != ND_LABELS_OK)
		return refuse(-EIO, why, why_size, "namespace%d.%d: no label to delete", r->id, m);
	for (i = 0; i < ld->st.nlabels; i++)
		if (!memcmp(ld->st.labels[i].uuid, ns->uuid, 16) && ld->st.labels[i].dpa == dpa)
			break;
	if (i == ld->st.nlabels)
		return refuse(-EIO, why, why_size, "namespace%d.%d: its label is not in the area",
			      r->id, m);
	err = nd_label_del(ld->area, ld->size, &ld->st, i, &d);
	if (!err)
		err = labels_write(r, &d, why, why_size);
	return err;
}

/* ---- create, reconfigure, destroy ------------------------------------------ */

/* An existing namespace to mode (devdax: at align). */
static int reconfigure(struct nd_region *r, int m, enum nd_mode mode, u64 align, char *why,
		       size_t why_size)
{
	struct nd_namespace *ns = &r->ns[m];
	int err;

	if (ns->kmem || (ns->mode == ND_MODE_DEVDAX && mode == ND_MODE_DEVDAX))
		return refuse(-EBUSY, why, why_size, "namespace%d.%d is in use as dax%d.%d (%s); "
			      "%s", r->id, m, r->id, m, ns->kmem ? "system-ram" : "devdax",
			      ns->kmem ? "reconfigure it to devdax and destroy it first" :
					 "destroy it first");
	if (ns->mode == ND_MODE_DEVDAX) {
		/* devdax -> raw (ndctl create-namespace -e ... -m raw -f): the
		 * memmap and the info block go, the label stays */
		err = devmem_destroy(ns->devmem_id);
		if (err)
			return refuse(err, why, why_size, "namespace%d.%d: dax%d.%d is in use (%s)",
				      r->id, m, r->id, m, err_text(err));
		ns->devmem_id = -1;
		unbind(ns);
		if (info_write(r, m, true, why, why_size))
			pr_warn("nd: namespace%d.%d: raw, but its info block stays: the next boot "
				"makes it devdax again", r->id, m);
		pr_info("nd: namespace%d.%d: raw again", r->id, m);
		return m;
	}
	if (mode == ND_MODE_RAW) {
		/* raw stays raw; a refused info block is cleared */
		if (ns->info_problem[0] && !info_write(r, m, true, why, why_size))
			ns->info_problem[0] = 0;
		return m;
	}
	err = bind_check(r, m, ns->start, ns->size, align, why, why_size);
	if (err)
		return err;
	dax_uuid(r, m, ns->dax_uuid);
	err = bind(r, m, align, ND_INFO_DATAOFF(align), why, why_size);
	if (err)
		return err;
	err = info_write(r, m, false, why, why_size);
	if (err) {
		unbind(ns);
		return err;
	}
	pr_info("nd: namespace%d.%d: devdax, align %llu KiB: dax%d.%d on devmem%d, %llu KiB "
		"reserved for the info block", r->id, m, (unsigned long long)(align >> 10), r->id, m,
		ns->devmem_id, (unsigned long long)(ns->dataoff >> 10));
	return m;
}

/* The free extents of r in whole units: the first that holds size bytes
 * (size 0: the largest) into *start and *len; false if none. */
static bool find_extent(const struct nd_region *r, u64 unit, u64 size, u64 *start, u64 *len)
{
	u64 best = 0, best_start = 0, pos = 0;

	for (;;) {
		u64 next = r->size, a, b;

		/* the first namespace at or after pos */
		for (int m = 0; m < ND_MAX_NS; m++) {
			const struct nd_namespace *ns = &r->ns[m];
			u64 s = ns->start - r->start;

			if (ns->present && s + ns->size > pos && s < next)
				next = s < pos ? pos : s;
		}
		a = (pos + unit - 1) / unit * unit;
		b = next / unit * unit;
		if (b > a) {
			if (size && b - a >= size) {
				*start = a;
				*len = size;
				return true;
			}
			if (!size && b - a > best) {
				best = b - a;
				best_start = a;
			}
		}
		if (next >= r->size)
			break;
		/* past the namespace that begins at next */
		for (int m = 0; m < ND_MAX_NS; m++) {
			const struct nd_namespace *ns = &r->ns[m];

			if (ns->present && ns->start - r->start <= next &&
			    ns->start - r->start + ns->size > next)
				next = ns->start - r->start + ns->size;
		}
		pos = next;
	}
	*start = best_start;
	*len = best;
	return !size && best;
}

/* The largest free extent in whole units (for the messages). */
static u64 largest_extent(const struct nd_region *r, u64 unit)
{
	u64 s, l;

	return find_extent(r, unit, 0, &s, &l) ? l : 0;
}

/* A new labelled namespace. */
static int create_labelled(struct nd_region *r, enum nd_mode mode, u64 align, u64 size,
			   u64 offset, char *why, size_t why_size)
{
	struct nd_label_dev *ld = r->labels;
	u64 unit = SECTION_BYTES, start;
	struct nd_namespace *ns;
	char uuid[37];
	int m, err;

	if (ld->kind == ND_LABELS_BAD)
		return refuse(-EIO, why, why_size, "region%d: its label area holds bad data (%s); "
			      "memlab does not overwrite it", r->id, ld->problem);
	if (mode == ND_MODE_DEVDAX && align > unit)
		unit = align;
	if (r->start % unit)
		return refuse(-EINVAL, why, why_size, "region%d starts at %#llx, not on a %llu MiB "
			      "boundary: memlab's namespaces are whole units", r->id,
			      (unsigned long long)r->start, (unsigned long long)(unit >> 20));
	if (size % unit)
		return refuse(-EINVAL, why, why_size, "region%d: a namespace of %llu bytes: "
			      "memlab's needs whole %llu MiB units (section%s)", r->id,
			      (unsigned long long)size, (unsigned long long)(unit >> 20),
			      unit > SECTION_BYTES ? " and align" : "");
	if (offset != ND_OFFSET_ANY && offset % unit)
		return refuse(-EINVAL, why, why_size, "region%d: offset %#llx is not a multiple "
			      "of %llu MiB (section%s)", r->id, (unsigned long long)offset,
			      (unsigned long long)(unit >> 20), unit > SECTION_BYTES ? " and align" : "");
	for (m = 0; m < ND_MAX_NS && r->ns[m].present; m++)
		;
	if (m == ND_MAX_NS)
		return refuse(-ENOSPC, why, why_size, "region%d has %d namespaces, the most memlab "
			      "keeps", r->id, ND_MAX_NS);
	if (ld->kind == ND_LABELS_OK && ld->st.nlabels >= ld->st.nslot)
		return refuse(-ENOSPC, why, why_size, "region%d: no free label slot (%u of %u used)",
			      r->id, ld->st.nlabels, ld->st.nslot);
	if (offset != ND_OFFSET_ANY) {
		if (offset >= r->size || (size ? size : unit) > r->size - offset)
			return refuse(-ENOSPC, why, why_size, "region%d: [%#llx, +%#llx) runs past "
				      "the region's %llu bytes", r->id, (unsigned long long)offset,
				      (unsigned long long)(size ? size : unit),
				      (unsigned long long)r->size);
		if (!size) {
			/* up to the next namespace or the end */
			u64 end = r->size / unit * unit;

			for (int k = 0; k < ND_MAX_NS; k++) {
				u64 s = r->ns[k].start - r->start;

				if (r->ns[k].present && s >= offset && s < end)
					end = s / unit * unit;
			}
			size = end > offset ? end - offset : unit;
		}
		for (int k = 0; k < ND_MAX_NS; k++) {
			const struct nd_namespace *o = &r->ns[k];
			u64 s = o->start - r->start;

			if (o->present && offset < s + o->size && s < offset + size)
				return refuse(-EEXIST, why, why_size, "region%d: [%#llx, +%#llx) "
					      "overlaps namespace%d.%d [%#llx, +%#llx)", r->id,
					      (unsigned long long)offset, (unsigned long long)size,
					      r->id, k, (unsigned long long)s,
					      (unsigned long long)o->size);
		}
		start = offset;
	} else {
		u64 len;

		if (!find_extent(r, unit, size, &start, &len)) {
			if (!size)
				return refuse(-ENOSPC, why, why_size, "region%d: no free space of "
					      "whole %llu MiB units (available %llu bytes)", r->id,
					      (unsigned long long)(unit >> 20),
					      (unsigned long long)nd_available(r));
			return refuse(-ENOSPC, why, why_size, "region%d: no free extent of %llu "
				      "bytes (the largest is %llu; available %llu)", r->id,
				      (unsigned long long)size,
				      (unsigned long long)largest_extent(r, unit),
				      (unsigned long long)nd_available(r));
		}
		size = len;
	}
	if (mode == ND_MODE_DEVDAX) {
		err = bind_check(r, m, r->start + start, size, align, why, why_size);
		if (err)
			return err;
	}
	ns = &r->ns[m];
	ns_init(ns, r->start + start, size);
	ns->present = false;		/* not until the label is written */
	if (mode == ND_MODE_DEVDAX) {
		dax_uuid(r, m, ns->dax_uuid);
		err = bind(r, m, align, ND_INFO_DATAOFF(align), why, why_size);
		if (err)
			goto fail;
	}
	err = labels_create(r, m, why, why_size);
	if (err) {
		unbind(ns);
		goto fail;
	}
	if (mode == ND_MODE_DEVDAX) {
		err = info_write(r, m, false, why, why_size);
		if (err) {
			char why2[160];

			unbind(ns);
			if (labels_delete(r, m, why2, sizeof(why2)))
				pr_warn("nd: namespace%d.%d: its label stays: %s", r->id, m, why2);
			goto fail;
		}
	}
	ns->present = true;
	nd_uuid_format(ns->uuid, uuid);
	pr_info("nd: namespace%d.%d: [mem %#018llx-%#018llx] labelled, uuid %s, %s", r->id, m,
		(unsigned long long)ns->start, (unsigned long long)(ns->start + size - 1), uuid,
		nd_mode_name(ns->mode));
	changed(r);
	return m;
fail:
	*ns = (struct nd_namespace){ .devmem_id = -1, .mgid = -1 };
	return err;
}

int nd_create(int id, int m, enum nd_mode mode, u64 align, u64 size, u64 offset, char *why,
	      size_t why_size)
{
	struct nd_region *r = region_of(id);
	struct nd_namespace *ns;

	if (!r)
		return refuse(-ENOENT, why, why_size, "region%d: no such region", id);
	if (mode == ND_MODE_DEVDAX && !align_ok(align))
		return refuse(-EINVAL, why, why_size, "align %llu: devdax aligns to 4K, 2M or 1G",
			      (unsigned long long)align);
	if (size > r->size)
		return refuse(-ENOSPC, why, why_size, "region%d: size %llu is larger than the "
			      "region's %llu bytes", id, (unsigned long long)size,
			      (unsigned long long)r->size);
	if (r->labels && m < 0)
		return create_labelled(r, mode, align, size, offset, why, why_size);
	if (!r->labels && m > 0)
		return refuse(-ENOENT, why, why_size, "namespace%d.%d: no such namespace: region%d "
			      "is label-less, its one namespace is namespace%d.0", id, m, id, id);
	if (m < 0)
		m = 0;
	ns = ns_of(r, m);
	if (!ns)
		return refuse(-ENOENT, why, why_size, "namespace%d.%d: no such namespace", id, m);
	if (size && size != ns->size)
		return refuse(-EINVAL, why, why_size, "region%d %s: namespace%d.%d is %llu bytes, "
			      "not %llu", id, r->labels ? "has a labelled namespace" : "is label-less",
			      id, m, (unsigned long long)ns->size, (unsigned long long)size);
	if (offset != ND_OFFSET_ANY && offset != ns->start - r->start)
		return refuse(-EINVAL, why, why_size, "namespace%d.%d starts at offset %#llx of "
			      "region%d, not %#llx", id, m, (unsigned long long)(ns->start - r->start),
			      id, (unsigned long long)offset);
	return reconfigure(r, m, mode, align, why, why_size);
}

int nd_create_devdax(int id, u64 align, u64 size, char *why, size_t why_size)
{
	int ret = nd_create(id, -1, ND_MODE_DEVDAX, align, size, ND_OFFSET_ANY, why, why_size);

	return ret < 0 ? ret : 0;
}

int nd_destroy(int id, int m, char *why, size_t why_size)
{
	struct nd_region *r = region_of(id);
	struct nd_namespace *ns = ns_of(r, m);
	int err;

	if (!r)
		return refuse(-ENOENT, why, why_size, "region%d: no such region", id);
	if (!ns) {
		int n = 0;

		for (int k = 0; k < ND_MAX_NS; k++)
			n += r->ns[k].present;
		if (!n)
			return refuse(-ENOENT, why, why_size, "namespace%d.%d: no such namespace: "
				      "region%d has no namespace", id, m, id);
		return refuse(-ENOENT, why, why_size, "namespace%d.%d: no such namespace in "
			      "region%d", id, m, id);
	}
	if (ns->kmem)
		return refuse(-EBUSY, why, why_size, "namespace%d.%d: dax%d.%d is system-ram (kmem): "
			      "nd reconfigure dax%d.%d devdax first", id, m, id, m, id, m);
	if (ns->mode == ND_MODE_DEVDAX) {
		err = devmem_destroy(ns->devmem_id);
		if (err)
			return refuse(err, why, why_size, "namespace%d.%d: dax%d.%d is in use (%s)",
				      id, m, id, m, err_text(err));
		ns->devmem_id = -1;
		unbind(ns);
		if (info_write(r, m, true, why, why_size))
			pr_warn("nd: namespace%d.%d: raw, but its info block stays: the next boot "
				"makes it devdax again", id, m);
		pr_info("nd: namespace%d.%d: raw again", id, m);
	} else if (ns->info_problem[0] && !info_write(r, m, true, why, why_size)) {
		ns->info_problem[0] = 0;
	}
	if (!r->labels)
		return 0;
	err = labels_delete(r, m, why, why_size);
	if (err)
		return err;
	*ns = (struct nd_namespace){ .devmem_id = -1, .mgid = -1 };
	pr_info("nd: namespace%d.%d: label deleted, namespace gone", id, m);
	changed(r);
	return 0;
}

int nd_rebind(int id, int m, int d, char *why, size_t why_size)
{
	struct nd_region *r = region_of(id);
	struct nd_namespace *ns = ns_of(r, m);
	int err;

	if (!r)
		return refuse(-ENOENT, why, why_size, "region%d: no such region", id);
	if (!ns)
		return refuse(-ENOENT, why, why_size, "dax%d.%d: no such dax device", id, m);
	if (ns->mode != ND_MODE_DEVDAX)
		return refuse(-EINVAL, why, why_size, "namespace%d.%d is raw: no dax device to "
			      "rebind", id, m);
	if (ns->kmem)
		return refuse(-EBUSY, why, why_size, "dax%d.%d is system-ram (kmem): its memory is "
			      "the page allocator's, no device memmap to rebind", id, m);
	if (d == DEVMEM_DESIGN_SHARED &&
	    !vmemmap_shared_order_ok((unsigned)__builtin_ctzll(ns->align) - PAGE_SHIFT))
		return refuse(-EINVAL, why, why_size, "dax%d.%d: align %llu KiB: the shared vmemmap "
			      "needs compound pages of more than %llu struct pages (align 2M)", id, m,
			      (unsigned long long)(ns->align >> 10),
			      (unsigned long long)vmemmap_shared_unique());
	err = devmem_rebind(ns->devmem_id, d);
	if (err)
		return refuse(err, why, why_size, "dax%d.%d: rebind: %s", id, m, err_text(err));
	ns->nr_binds++;
	return 0;
}

/* ---- dax_kmem: the namespace's memory as System RAM ------------------------ */

void nd_kmem_range(const struct nd_namespace *ns, u64 *start, u64 *size)
{
	u64 s = (ns->start + ns->dataoff + MEMORY_BLOCK_SIZE - 1) / MEMORY_BLOCK_SIZE *
		MEMORY_BLOCK_SIZE;
	u64 e = (ns->start + ns->size) / MEMORY_BLOCK_SIZE * MEMORY_BLOCK_SIZE;

	*start = s;
	*size = e > s ? e - s : 0;
}

/* Bind the dax device of ns again (its align, the switch's design): the
 * last step of giving the memory back, and the undo of a failed add. */
static int dax_bind_again(struct nd_region *r, int m)
{
	struct nd_namespace *ns = &r->ns[m];
	char owner[16];
	int ret;

	ksnprintf(owner, sizeof(owner), "dax%d.%d", r->id, m);
	ret = devmem_create_phys(r->nid, ns->start, ns->size,
				 (unsigned)__builtin_ctzll(ns->align) - PAGE_SHIFT, owner);
	if (ret < 0) {
		/* the memory is free of both; the namespace is what is left */
		ns->devmem_id = -1;
		unbind(ns);
		return ret;
	}
	ns->devmem_id = ret;
	ns->nr_binds++;
	return 0;
}

/* The iomem nesting of Linux's dax_kmem: "daxN.M" (not busy) inside the
 * region's resource, "System RAM (kmem)" inside it.  NULL on a conflict. */
static struct resource *kmem_resources_add(struct nd_region *r, int m, u64 start, u64 size)
{
	struct resource *parent = resource_lookup(&iomem_resource, start), *dax;
	char name[16];

	if (!parent || parent->start > start || parent->end < start + size - 1)
		parent = &iomem_resource;
	ksnprintf(name, sizeof(name), "dax%d.%d", r->id, m);
	dax = request_region(parent, start, size, name, IORESOURCE_MEM);
	if (!dax)
		return NULL;
	dax->flags &= ~IORESOURCE_BUSY;
	if (!request_region(dax, start, size, "System RAM (kmem)", IORESOURCE_SYSTEM_RAM)) {
		release_region(parent, start, size);
		return NULL;
	}
	return dax;
}

static void kmem_resources_remove(struct nd_namespace *ns)
{
	struct resource *dax = ns->dax_res, *parent = dax->parent;
	u64 start, size;

	nd_kmem_range(ns, &start, &size);
	release_region(dax, start, size);
	release_region(parent, start, size);
	ns->dax_res = NULL;
}

static int kmem_online(struct nd_region *r, int m, char *why, size_t why_size)
{
	struct nd_namespace *ns = &r->ns[m];
	u64 start, size;
	char name[16];
	int err, mgid;

	nd_kmem_range(ns, &start, &size);
	if (!size)
		return refuse(-EINVAL, why, why_size, "dax%d.%d: no whole %llu MiB memory block "
			      "after the info block's %llu KiB", r->id, m,
			      (unsigned long long)(MEMORY_BLOCK_SIZE >> 20),
			      (unsigned long long)(ns->dataoff >> 10));
	err = devmem_destroy(ns->devmem_id);
	if (err)
		return refuse(err, why, why_size, "dax%d.%d is in use (%s)", r->id, m, err_text(err));
	ns->devmem_id = -1;
	ksnprintf(name, sizeof(name), "dax%d.%d", r->id, m);
	mgid = memory_group_register_static(r->nid, (unsigned long)(size >> PAGE_SHIFT), name);
	err = mgid < 0 ? mgid : add_memory(r->nid, start, size, mgid, MHP_NONE);
	if (err) {
		if (mgid >= 0)
			memory_group_unregister(mgid);
		if (dax_bind_again(r, m))
			return refuse(err, why, why_size, "dax%d.%d: add_memory: %s; and the dax "
				      "device could not be bound again: namespace%d.%d is raw", r->id,
				      m, err_text(err), r->id, m);
		return refuse(err, why, why_size, "dax%d.%d: add_memory: %s (the log says why); "
			      "dax%d.%d bound again", r->id, m, err_text(err), r->id, m);
	}
	ns->kmem = true;
	ns->mgid = mgid;
	ns->dax_res = kmem_resources_add(r, m, start, size);
	if (!ns->dax_res)
		pr_warn("nd: dax%d.%d: System RAM (kmem) not recorded in /proc/iomem", r->id, m);
	pr_info("nd: dax%d.%d: system-ram: [mem %#018llx-%#018llx] hot-added in memory group %d "
		"(auto_online_blocks %s)", r->id, m, (unsigned long long)start,
		(unsigned long long)(start + size - 1), mgid,
		mmop_name(memhp_get_default_online_type()));
	return 0;
}

static int kmem_offline(struct nd_region *r, int m, char *why, size_t why_size)
{
	struct nd_namespace *ns = &r->ns[m];
	u64 start, size;
	int err;

	nd_kmem_range(ns, &start, &size);
	err = offline_and_remove_memory(start, size);
	if (err)
		return refuse(err, why, why_size, "dax%d.%d: its memory is in use and cannot be "
			      "migrated (%s; the log names the page): it stays system-ram", r->id, m,
			      err_text(err));
	memory_group_unregister(ns->mgid);
	if (ns->dax_res)
		kmem_resources_remove(ns);
	ns->kmem = false;
	ns->mgid = -1;
	err = dax_bind_again(r, m);
	if (err)
		return refuse(err, why, why_size, "dax%d.%d: the memory is removed, but its memmap "
			      "could not be made again (%s): namespace%d.%d is raw", r->id, m,
			      err_text(err), r->id, m);
	pr_info("nd: dax%d.%d: devdax again", r->id, m);
	return 0;
}

int nd_reconfigure(int id, int m, bool system_ram, char *why, size_t why_size)
{
	struct nd_region *r = region_of(id);
	struct nd_namespace *ns = ns_of(r, m);

	if (!ns)
		return refuse(-ENOENT, why, why_size, "dax%d.%d: no such dax device", id, m);
	if (ns->mode != ND_MODE_DEVDAX)
		return refuse(-EINVAL, why, why_size, "namespace%d.%d is raw: create-namespace "
			      "--mode=devdax first", id, m);
	if (system_ram == ns->kmem)
		return refuse(-EINVAL, why, why_size, "dax%d.%d is %s already", id, m,
			      system_ram ? "system-ram" : "devdax");
	return system_ram ? kmem_online(r, m, why, why_size) : kmem_offline(r, m, why, why_size);
}

/* ---- boot: labels and info blocks ------------------------------------------ */

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
	struct nd_region *r = region_of(id);
	const struct nd_label *order[ND_LABEL_MAX];
	unsigned n;
	int err;

	if (!r)
		return -ENOENT;
	for (int m = 0; m < ND_MAX_NS; m++)
		if (r->ns[m].present && r->ns[m].mode != ND_MODE_RAW)
			return -EBUSY;
	r->labels = ld;
	for (int m = 0; m < ND_MAX_NS; m++)
		r->ns[m] = (struct nd_namespace){ .devmem_id = -1, .mgid = -1 };
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
	/* namespaceN.0, .1, ... in the order of their addresses */
	n = ld->st.nlabels;
	for (unsigned i = 0; i < n; i++)
		order[i] = &ld->st.labels[i];
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && order[j - 1]->dpa > order[j]->dpa; j--) {
			const struct nd_label *t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (unsigned i = 0; i < n && i < ND_MAX_NS; i++) {
		struct nd_namespace *ns = &r->ns[i];
		char uuid[37];

		ns_init(ns, r->start + (order[i]->dpa - ld->dpa), order[i]->rawsize);
		memcpy(ns->uuid, order[i]->uuid, 16);
		nd_uuid_format(ns->uuid, uuid);
		pr_info("nd: region%d: namespace%d.%u from its label: uuid %s, %llu bytes, raw", id,
			id, i, uuid, (unsigned long long)ns->size);
	}
	return 0;
}

/* Why info block *in does not fit ns[m] of r, into why (empty: it fits). */
static void info_misfit(struct nd_region *r, int m, const struct nd_info *in, char *why,
			size_t why_size)
{
	struct nd_namespace *ns = &r->ns[m];
	static const u8 zero[16];

	why[0] = 0;
	if (in->kind == ND_INFO_PFN)
		ksnprintf(why, why_size, "an fsdax info block (NVDIMM_PFN_INFO): memlab has no "
			  "fsdax");
	else if (in->kind == ND_INFO_BTT)
		ksnprintf(why, why_size, "a BTT (sector mode) info block: memlab has no sector "
			  "mode");
	else if (memcmp(in->parent_uuid, r->labels ? ns->uuid : zero, 16))
		ksnprintf(why, why_size, "info block of another namespace (its parent uuid is "
			  "not this namespace's)");
	else if (in->mode != ND_INFO_MODE_RAM)
		ksnprintf(why, why_size, "info block: mode %u (%s); memlab keeps the memmap in "
			  "RAM (mode 1)", in->mode, in->mode == ND_INFO_MODE_PMEM ? "the memmap in "
			  "the device, --map=dev" : "unknown");
	else if (!align_ok(in->align))
		ksnprintf(why, why_size, "info block: align %u is not 4K, 2M or 1G", in->align);
	else if (in->dataoff < 8192 || in->dataoff >= ns->size ||
		 (ns->start + in->dataoff) % in->align)
		ksnprintf(why, why_size, "info block: data offset %#llx does not fit the "
			  "namespace (>= 8 KiB, below its size, the data aligned to %u)",
			  (unsigned long long)in->dataoff, in->align);
	else if (in->npfns != (ns->size - in->dataoff) >> PAGE_SHIFT)
		ksnprintf(why, why_size, "info block: %llu pages, the namespace has %llu after "
			  "the data offset", (unsigned long long)in->npfns,
			  (unsigned long long)((ns->size - in->dataoff) >> PAGE_SHIFT));
	else if (in->page_size != PAGE_SIZE || in->page_struct_size < ND_INFO_PAGE_STRUCT ||
		 in->start_pad || in->end_trunc)
		ksnprintf(why, why_size, "info block: page size %u, struct page %u, padding "
			  "%u/%u: memlab's are 4096, 64, 0/0", in->page_size, in->page_struct_size,
			  in->start_pad, in->end_trunc);
}

/* ns[m]'s info block read and, when it says devdax and fits, bound. */
static void probe_one(struct nd_region *r, int m)
{
	struct nd_namespace *ns = &r->ns[m];
	struct nd_info in;
	char why[160] = "";
	int err;

	err = media->read(media->ctx, ns->start + ND_INFO_OFFSET, info_buf, ND_INFO_SIZE);
	if (err) {
		pr_warn("nd: namespace%d.%d: info block unreadable (%s); raw", r->id, m,
			err_text(err));
		return;
	}
	err = nd_info_decode(info_buf, &in, why, sizeof(why));
	if (err == -ENOENT)
		return;		/* never claimed, or cleared: raw */
	if (!err)
		info_misfit(r, m, &in, why, sizeof(why));
	if (!err && !why[0])
		err = bind_check(r, m, ns->start, ns->size, in.align, why, sizeof(why));
	if (!err && !why[0]) {
		memcpy(ns->dax_uuid, in.uuid, 16);
		err = bind(r, m, in.align, in.dataoff, why, sizeof(why));
		if (!err) {
			ns->from_info = true;
			pr_info("nd: namespace%d.%d: info block: devdax, align %u KiB, data offset "
				"%llu KiB: dax%d.%d on devmem%d", r->id, m, in.align >> 10,
				(unsigned long long)(in.dataoff >> 10), r->id, m, ns->devmem_id);
			return;
		}
	}
	ksnprintf(ns->info_problem, sizeof(ns->info_problem), "%s", why);
	pr_warn("nd: namespace%d.%d: %s; raw (the block is left as it is)", r->id, m, why);
}

void nd_probe_info(void)
{
	if (!media)
		return;
	for (int id = 0; id < nr_regions; id++)
		for (int m = 0; m < ND_MAX_NS; m++)
			if (regions[id].ns[m].present && regions[id].ns[m].mode == ND_MODE_RAW) {
				regions[id].ns[m].info_problem[0] = 0;
				probe_one(&regions[id], m);
			}
}

/* ---- views ----------------------------------------------------------------- */

static void ns_dump(struct printer *p, const struct nd_region *r, int m, bool last)
{
	const struct nd_namespace *ns = &r->ns[m];

	pr_printf(p, "      {\n        \"dev\":\"namespace%d.%d\",\n        \"mode\":\"%s\",\n",
		  r->id, m, nd_mode_name(ns->mode));
	if (r->labels) {
		char uuid[37];

		nd_uuid_format(ns->uuid, uuid);
		pr_printf(p, "        \"uuid\":\"%s\",\n", uuid);
	}
	if (ns->info_problem[0])
		pr_printf(p, "        \"info_problem\":\"%s\",\n", ns->info_problem);
	if (ns->mode == ND_MODE_DEVDAX)
		pr_printf(p, "        \"map\":\"mem\",\n        \"size\":%llu,\n"
			  "        \"raw_size\":%llu,\n        \"offset\":%llu,\n"
			  "        \"chardev\":\"dax%d.%d\",\n        \"align\":%llu\n",
			  (unsigned long long)nd_dax_size(ns), (unsigned long long)ns->size,
			  (unsigned long long)(ns->start - r->start), r->id, m,
			  (unsigned long long)ns->align);
	else {
		char blk[16];

		/* Linux's pmem block devices: pmemN, then pmemN.1, pmemN.2, ... */
		if (m)
			ksnprintf(blk, sizeof(blk), "pmem%d.%d", r->id, m);
		else
			ksnprintf(blk, sizeof(blk), "pmem%d", r->id);
		pr_printf(p, "        \"size\":%llu,\n        \"offset\":%llu,\n"
			  "        \"blockdev\":\"%s\"\n", (unsigned long long)ns->size,
			  (unsigned long long)(ns->start - r->start), blk);
	}
	pr_printf(p, "      }%s\n", last ? "" : ",");
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
		int n = 0, k = 0;

		pr_printf(p, "  {\n    \"dev\":\"region%d\",\n    \"size\":%llu,\n"
			  "    \"align\":%llu,\n    \"available_size\":%llu,\n    \"type\":\"pmem\",\n"
			  "    \"numa_node\":%d,\n", i, (unsigned long long)r->size, 16ULL << 20,
			  (unsigned long long)nd_available(r), r->nid);
		if (r->labels) {
			pr_printf(p, "    \"label_size\":%u,\n    \"label_state\":\"%s\",\n",
				  r->labels->size, nd_label_kind_name(r));
			if (r->labels->kind == ND_LABELS_BAD)
				pr_printf(p, "    \"label_problem\":\"%s\",\n", r->labels->problem);
		}
		for (int m = 0; m < ND_MAX_NS; m++)
			n += r->ns[m].present;
		if (!n) {
			pr_printf(p, "    \"namespaces\":[]\n  }%s\n", i + 1 < nr_regions ? "," : "");
			continue;
		}
		pr_printf(p, "    \"namespaces\":[\n");
		for (int m = 0; m < ND_MAX_NS; m++)
			if (r->ns[m].present)
				ns_dump(p, r, m, ++k == n);
		pr_printf(p, "    ]\n  }%s\n", i + 1 < nr_regions ? "," : "");
	}
	pr_printf(p, "]\n");
}

void nd_dimms_dump(struct printer *p)
{
	if (!nr_dimms) {
		pr_printf(p, "no NVDIMMs\n");
		return;
	}
	pr_printf(p, "[\n");
	for (int i = 0; i < nr_dimms; i++) {
		const struct nd_dimm *d = &dimms[i];
		char id[16];

		nd_dimm_id(d, id);
		pr_printf(p, "  {\n    \"dev\":\"nmem%d\",\n", i);
		if (d->has_dcr)
			pr_printf(p, "    \"id\":\"%s\",\n", id);
		pr_printf(p, "    \"handle\":%u,\n    \"phys_id\":%u", d->handle, d->phys_id);
		for (int r = 0; r < nr_regions; r++)
			if (regions[r].labels && regions[r].labels->handle == d->handle &&
			    regions[r].labels->kind == ND_LABELS_OK)
				pr_printf(p, ",\n    \"label_slots_free\":%u",
					  regions[r].labels->st.nslot - regions[r].labels->st.nlabels);
		if (d->flags)
			pr_printf(p, ",\n    \"flags\":%#x", d->flags);
		pr_printf(p, "\n  }%s\n", i + 1 < nr_dimms ? "," : "");
	}
	pr_printf(p, "]\n");
}

void nd_dax_dump(struct printer *p)
{
	int n = 0;

	for (int i = 0; i < nr_regions; i++)
		for (int m = 0; m < ND_MAX_NS; m++) {
			const struct nd_namespace *ns = &regions[i].ns[m];
			const struct dev_pagemap *pgmap;
			struct vmemmap_cost cost = { 0 };

			if (!ns->present || ns->mode != ND_MODE_DEVDAX)
				continue;
			if (ns->kmem) {
				u64 ks, kz;

				nd_kmem_range(ns, &ks, &kz);
				pr_printf(p, "%s  {\n    \"chardev\":\"dax%d.%d\",\n    \"size\":%llu,\n"
					  "    \"target_node\":%d,\n    \"align\":%llu,\n"
					  "    \"mode\":\"system-ram\",\n    \"memory_group\":%d,\n"
					  "    \"system_ram\":%llu\n  }",
					  n ? ",\n" : "[\n", i, m, (unsigned long long)nd_dax_size(ns),
					  regions[i].nid, (unsigned long long)ns->align, ns->mgid,
					  (unsigned long long)kz);
				n++;
				continue;
			}
			pgmap = devmem_find(ns->devmem_id);
			if (pgmap)
				vmemmap_layout_cost(pgmap->shared_vmemmap, pgmap->vmemmap_shift,
						    pgmap->nr_pages, &cost);
			pr_printf(p, "%s  {\n    \"chardev\":\"dax%d.%d\",\n    \"size\":%llu,\n"
				  "    \"target_node\":%d,\n    \"align\":%llu,\n    \"mode\":\"devdax\",\n"
				  "    \"devmem\":%d,\n    \"binds\":%llu,\n    \"last_init\":\"%s\",\n"
				  "    \"last_init_cycles\":%llu,\n    \"vmemmap\":\"%s\",\n"
				  "    \"memmap_bytes_written\":%llu,\n    \"memmap_pages\":%llu,\n"
				  "    \"memmap_table_pages\":%llu\n  }", n ? ",\n" : "[\n", i, m,
				  (unsigned long long)nd_dax_size(ns), regions[i].nid,
				  (unsigned long long)ns->align, ns->devmem_id,
				  (unsigned long long)ns->nr_binds,
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

/*
 * nd_acpi.c - label areas of the NFIT's DIMMs read through their _DSM
 * (include/drivers/nd_acpi.h): the copies live in static buffers, one per
 * DIMM with labels, and writes go back through _DSM function 6.
 */
#include <drivers/nd_acpi.h>
#include <drivers/nd.h>
#include <drivers/nd_dsm.h>
#include <drivers/nfit.h>
#include <drivers/acpi.h>
#include <arch/time.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

/* One DIMM's label area: the copy and what reaching it needs. */
struct nd_acpi_area {
	struct nd_label_dev ld;
	struct aml_node *dev;
	u32 xfer;
	u64 uuid_seq;
	u8 data[ND_LABEL_MAX_AREA];
};

static struct nd_acpi_area areas[ND_ACPI_MAX_AREAS];	/* (boot) filled, then (main) */
static unsigned nr_areas;

static int area_write(void *ctx, u32 off, const void *buf, u32 len, char *why, size_t why_size)
{
	struct nd_acpi_area *a = ctx;

	return nd_dsm_label_write(acpi_aml(), a->dev, off, buf, len, a->xfer, why, why_size);
}

static u64 mix64(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A random (version 4) UUID from the clock, the DIMM and a counter. */
static void area_uuid(void *ctx, u8 uuid[16])
{
	struct nd_acpi_area *a = ctx;
	u64 h = mix64(ktime_ns() ^ ((u64)a->ld.handle << 32) ^ ++a->uuid_seq);
	u64 l = mix64(h ^ ktime_ns());

	memcpy(uuid, &h, 8);
	memcpy(uuid + 8, &l, 8);
	uuid[6] = (u8)((uuid[6] & 0x0f) | 0x40);
	uuid[8] = (u8)((uuid[8] & 0x3f) | 0x80);
}

static void probe_region(struct aml_ns *ns, const struct nd_region *r)
{
	const struct nfit_memdev *md = NULL, *m;
	struct nd_acpi_area *a;
	struct aml_node *dev;
	char why[160];
	u32 size, xfer;
	int err;

	for (unsigned i = 0; (m = nfit_memdev(i)); i++)
		if (m->spa_index == r->spa_index) {
			if (md) {
				pr_info("nd: region%d: interleaved over DIMMs: label-less", r->id);
				return;
			}
			md = m;
		}
	if (!md || !(dev = nd_dsm_find(ns, md->handle)))
		return;
	err = nd_dsm_label_size(ns, dev, &size, &xfer, why, sizeof(why));
	if (err == -ENODEV)
		return;		/* no label area: label-less, as before */
	if (err) {
		pr_warn("nd: region%d: DIMM %#x: label area refused: %s; label-less", r->id,
			md->handle, why);
		return;
	}
	if (nr_areas == ND_ACPI_MAX_AREAS) {
		pr_warn("nd: region%d: more than %d DIMMs with labels; label-less", r->id,
			ND_ACPI_MAX_AREAS);
		return;
	}
	a = &areas[nr_areas];
	a->dev = dev;
	a->xfer = xfer;
	err = nd_dsm_label_read(ns, dev, 0, a->data, size, xfer, why, sizeof(why));
	if (err) {
		pr_warn("nd: region%d: DIMM %#x: label area unreadable: %s; label-less", r->id,
			md->handle, why);
		return;
	}
	nr_areas++;
	a->ld = (struct nd_label_dev){
		.handle = md->handle, .area = a->data, .size = size, .dpa = md->dpa,
		.write = area_write, .new_uuid = area_uuid, .ctx = a,
	};
	pr_info("nd: region%d: DIMM %#x has a label area of %u bytes (_DSM, %u-byte transfers)",
		r->id, md->handle, size, xfer);
	nd_attach_labels(r->id, &a->ld);
}

void nd_labels_probe(void)
{
	struct aml_ns *ns = acpi_aml();
	const struct nd_region *r;

	if (!ns)
		return;
	for (int id = 0; (r = nd_region(id)); id++)
		probe_region(ns, r);
}

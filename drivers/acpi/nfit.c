/*
 * nfit.c - the ACPI NFIT: persistent memory ranges and the NVDIMMs behind
 * them (layouts in include/drivers/nfit.h).
 *
 * The firmware is not trusted, as everywhere in drivers/acpi/: every
 * structure is bounds-checked against the table before a field is read,
 * and a table that is malformed or contradicts itself or the machine is
 * refused as a whole, with the reason logged and kept for `acpi nfit`.
 * A refused NFIT means no regions (drivers/nvdimm/nd.c finds none); the
 * rest of the boot does not depend on it.  QEMU's NFIT for one DIMM
 * (-machine nvdimm=on) is 224 bytes: the header, one SPA range of type
 * persistent memory, one memory device map and one control region; its
 * _DSM methods (labels, health) are AML in an SSDT, which memlab cannot
 * run, so every region here is label-less.
 *
 * Context: nfit_parse() at boot; the rest from the main loop.
 */
#include <drivers/nfit.h>
#include <drivers/acpi.h>
#include <kernel/resource.h>
#include <lib/fw_memmap.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <mm/mm_init.h>

#define NFIT_HEADER_LEN	40	/* ACPI header + 4 reserved bytes */

enum {
	NFIT_TYPE_SPA = 0, NFIT_TYPE_MEMDEV = 1, NFIT_TYPE_INTERLEAVE = 2, NFIT_TYPE_SMBIOS = 3,
	NFIT_TYPE_DCR = 4, NFIT_TYPE_BDW = 5, NFIT_TYPE_FLUSH = 6, NFIT_TYPE_CAP = 7,
};

/* The fixed part of each structure type (0-7); 4 for the types memlab skips. */
static const u16 type_min_len[NFIT_NR_TYPES] = { 56, 48, 16, 8, 32, 40, 16, 16 };
static const char *const type_names[NFIT_NR_TYPES] = {
	"SPA range", "memory device map", "interleave", "SMBIOS info",
	"control region", "block data window", "flush hint", "platform capabilities",
};

/* Range type GUIDs (ACPI 6.x, table 5-134), in the byte order of the
 * table: the first three fields little-endian. */
static const struct { u8 guid[16]; const char *name; } spa_kinds[NFIT_SPA_UNKNOWN] = {
	[NFIT_SPA_PM] = { { 0x79, 0xd3, 0xf0, 0x66, 0xf3, 0xb4, 0x74, 0x40,
			    0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb }, "persistent memory" },
	[NFIT_SPA_VOLATILE] = { { 0x4f, 0x94, 0x05, 0x73, 0xda, 0xfd, 0xe3, 0x44,
				  0xb1, 0x6c, 0x3f, 0x22, 0xd2, 0x52, 0xe5, 0xd0 }, "volatile memory" },
	[NFIT_SPA_DCR] = { { 0xf6, 0x01, 0xf7, 0x92, 0xb4, 0x13, 0x5d, 0x40,
			     0x91, 0x0b, 0x29, 0x93, 0x67, 0xe8, 0x23, 0x4c }, "control region" },
	[NFIT_SPA_BDW] = { { 0x30, 0x05, 0xaf, 0x91, 0x86, 0x5d, 0x0e, 0x47,
			     0xa6, 0xb0, 0x0a, 0x2d, 0xb9, 0x40, 0x82, 0x49 }, "block data window" },
	[NFIT_SPA_VDISK] = { { 0x5a, 0x53, 0xab, 0x77, 0xfc, 0x45, 0x4b, 0x62,
			       0x55, 0x60, 0xf7, 0xb2, 0x81, 0xd1, 0xf9, 0x6e }, "virtual disk (volatile)" },
	[NFIT_SPA_VCD] = { { 0x30, 0xbd, 0x5a, 0x3d, 0x75, 0x41, 0xce, 0x87,
			     0x6d, 0x64, 0xd2, 0xad, 0xe5, 0x23, 0xc4, 0xbb }, "virtual CD (volatile)" },
	[NFIT_SPA_PDISK] = { { 0xc9, 0x02, 0xea, 0x5c, 0x07, 0x4d, 0xd3, 0x69,
			       0x26, 0x9f, 0x44, 0x96, 0xfb, 0xe0, 0x96, 0xf9 }, "virtual disk (persistent)" },
	[NFIT_SPA_PCD] = { { 0x88, 0x81, 0x01, 0x08, 0xcd, 0x42, 0x48, 0xbb,
			     0x10, 0x0f, 0x53, 0x87, 0xd5, 0x3d, 0xed, 0x3d }, "virtual CD (persistent)" },
};

static struct nfit_spa spas[NFIT_MAX_SPA];
static struct nfit_memdev memdevs[NFIT_MAX_MEMDEV];
static struct nfit_dcr dcrs[NFIT_MAX_DCR];
static struct nfit_flush flushes[NFIT_MAX_FLUSH];
static unsigned nr_spa, nr_memdev, nr_dcr, nr_flush;
static unsigned type_count[NFIT_NR_TYPES], nr_other;	/* structures by type; types > 7 */
static char problem[160];		/* why the NFIT was refused, "" if not */
static u32 table_len;			/* of the accepted NFIT, 0 if none */

const char *nfit_spa_kind_name(enum nfit_spa_kind kind)
{
	return kind < NFIT_SPA_UNKNOWN ? spa_kinds[kind].name : "unknown type";
}

static enum nfit_spa_kind spa_kind_of(const u8 guid[16])
{
	for (unsigned k = 0; k < NFIT_SPA_UNKNOWN; k++)
		if (!memcmp(guid, spa_kinds[k].guid, 16))
			return (enum nfit_spa_kind)k;
	return NFIT_SPA_UNKNOWN;
}

/* Forget everything kept; the table counts as absent. */
static void nfit_forget(void)
{
	nr_spa = nr_memdev = nr_dcr = nr_flush = nr_other = 0;
	memset(type_count, 0, sizeof(type_count));
	table_len = 0;
}

/* Say why (logged and kept), forget what was read.  Returns 0, nfit_parse's
 * "no ranges". */
static int __printf(1, 2) nfit_reject(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(problem, sizeof(problem), fmt, ap);
	va_end(ap);
	pr_warn("nfit: %s; NFIT ignored: no persistent memory regions", problem);
	nfit_forget();
	return 0;
}

/* Read one SPA range structure at s (length checked): kept, or why not. */
static int read_spa(const u8 *s, u32 off, const struct fw_memmap *m)
{
	struct nfit_spa *spa;
	u64 end;

	if (nr_spa == NFIT_MAX_SPA)
		return nfit_reject("more than %d SPA ranges", NFIT_MAX_SPA);
	spa = &spas[nr_spa];
	memset(spa, 0, sizeof(*spa));
	memcpy(&spa->range_index, s + 4, 2);
	memcpy(&spa->flags, s + 6, 2);
	memcpy(&spa->pxm, s + 12, 4);
	memcpy(spa->guid, s + 16, 16);
	memcpy(&spa->base, s + 32, 8);
	memcpy(&spa->length, s + 40, 8);
	memcpy(&spa->attr, s + 48, 8);
	spa->kind = spa_kind_of(spa->guid);
	end = spa->base + spa->length;
	if (!spa->range_index)
		return nfit_reject("SPA range at offset %u has index 0 (reserved)", off);
	for (unsigned i = 0; i < nr_spa; i++)
		if (spas[i].range_index == spa->range_index)
			return nfit_reject("SPA range index %u at offset %u is used twice",
					   spa->range_index, off);
	if (!spa->length)
		return nfit_reject("SPA range %u at offset %u is empty", spa->range_index, off);
	if (end < spa->base)
		return nfit_reject("SPA range %u: %#llx bytes at %#llx wrap past 2^64",
				   spa->range_index, (unsigned long long)spa->length,
				   (unsigned long long)spa->base);
	if (end > (1ULL << MAX_PHYSMEM_BITS))
		return nfit_reject("SPA range %u [mem %#llx-%#llx] is beyond the %d-bit physical "
				   "address space", spa->range_index, (unsigned long long)spa->base,
				   (unsigned long long)(end - 1), MAX_PHYSMEM_BITS);
	for (unsigned i = 0; i < nr_spa; i++)
		if (spa->base < spas[i].base + spas[i].length && spas[i].base < end)
			return nfit_reject("SPA range %u [mem %#llx-%#llx] overlaps SPA range %u "
					   "[mem %#llx-%#llx]", spa->range_index,
					   (unsigned long long)spa->base, (unsigned long long)(end - 1),
					   spas[i].range_index, (unsigned long long)spas[i].base,
					   (unsigned long long)(spas[i].base + spas[i].length - 1));
	for (u32 i = 0; m && spa->kind != NFIT_SPA_VOLATILE && i < m->nr; i++) {
		const struct fw_range *r = &m->map[i];

		if (r->type == FW_MEM_RAM && spa->base < r->end && r->start < end)
			return nfit_reject("SPA range %u [mem %#llx-%#llx] (%s) overlaps System RAM "
					   "[mem %#llx-%#llx]", spa->range_index,
					   (unsigned long long)spa->base, (unsigned long long)(end - 1),
					   nfit_spa_kind_name(spa->kind), (unsigned long long)r->start,
					   (unsigned long long)(r->end - 1));
	}
	spa->nid = 0;
	if (spa->flags & NFIT_SPA_PXM_VALID) {
		int nid = acpi_pxm_find_node(spa->pxm);

		if (nid != NUMA_NO_NODE)
			spa->nid = nid;
	}
	nr_spa++;
	return 1;
}

static int read_memdev(const u8 *s)
{
	struct nfit_memdev *d;

	if (nr_memdev == NFIT_MAX_MEMDEV)
		return nfit_reject("more than %d memory device maps", NFIT_MAX_MEMDEV);
	d = &memdevs[nr_memdev++];
	memcpy(&d->handle, s + 4, 4);
	memcpy(&d->phys_id, s + 8, 2);
	memcpy(&d->region_id, s + 10, 2);
	memcpy(&d->spa_index, s + 12, 2);
	memcpy(&d->dcr_index, s + 14, 2);
	memcpy(&d->region_size, s + 16, 8);
	memcpy(&d->region_offset, s + 24, 8);
	memcpy(&d->dpa, s + 32, 8);
	memcpy(&d->interleave_index, s + 40, 2);
	memcpy(&d->interleave_ways, s + 42, 2);
	memcpy(&d->state_flags, s + 44, 2);
	return 1;
}

static int read_dcr(const u8 *s, u16 len, u32 off)
{
	struct nfit_dcr *c;

	if (nr_dcr == NFIT_MAX_DCR)
		return nfit_reject("more than %d control regions", NFIT_MAX_DCR);
	c = &dcrs[nr_dcr];
	memcpy(&c->index, s + 4, 2);
	memcpy(&c->vendor, s + 6, 2);
	memcpy(&c->device, s + 8, 2);
	memcpy(&c->revision, s + 10, 2);
	memcpy(&c->subsys_vendor, s + 12, 2);
	memcpy(&c->subsys_device, s + 14, 2);
	memcpy(&c->subsys_revision, s + 16, 2);
	memcpy(&c->serial, s + 24, 4);
	memcpy(&c->format_code, s + 28, 2);
	memcpy(&c->nr_bcw, s + 30, 2);
	if (!c->index)
		return nfit_reject("control region at offset %u has index 0 (reserved)", off);
	if (c->nr_bcw && len < 80)
		return nfit_reject("control region %u at offset %u has %u block windows but "
				   "length %u, not 80", c->index, off, c->nr_bcw, len);
	for (unsigned i = 0; i < nr_dcr; i++)
		if (dcrs[i].index == c->index)
			return nfit_reject("control region index %u at offset %u is used twice",
					   c->index, off);
	nr_dcr++;
	return 1;
}

static int read_flush(const u8 *s, u16 len, u32 off)
{
	struct nfit_flush *f;

	if (nr_flush == NFIT_MAX_FLUSH)
		return nfit_reject("more than %d flush hint structures", NFIT_MAX_FLUSH);
	f = &flushes[nr_flush];
	memcpy(&f->handle, s + 4, 4);
	memcpy(&f->nr_hints, s + 8, 2);
	if ((u32)f->nr_hints * 8 > (u32)len - 16)
		return nfit_reject("flush hint structure at offset %u: %u hints do not fit its "
				   "%u bytes", off, f->nr_hints, len);
	f->first_hint = 0;
	if (f->nr_hints)
		memcpy(&f->first_hint, s + 16, 8);
	nr_flush++;
	return 1;
}

static bool spa_index_exists(u16 index)
{
	for (unsigned i = 0; i < nr_spa; i++)
		if (spas[i].range_index == index)
			return true;
	return false;
}

static bool dcr_index_exists(u16 index)
{
	for (unsigned i = 0; i < nr_dcr; i++)
		if (dcrs[i].index == index)
			return true;
	return false;
}

int nfit_parse(const struct fw_memmap *m)
{
	const struct acpi_sdt_header *h = acpi_find_table("NFIT", 0);
	const u8 *t = (const u8 *)h;
	u32 off;
	u16 len;

	nfit_forget();
	problem[0] = '\0';
	if (!h)
		return 0;
	/* tables.c passed it: at least NFIT_HEADER_LEN bytes */
	for (off = NFIT_HEADER_LEN; off < h->length; off += len) {
		u16 type;
		int ok = 1;

		if (h->length - off < 4)
			return nfit_reject("%u stray bytes at offset %u after the last structure",
					   h->length - off, off);
		memcpy(&type, t + off, 2);
		memcpy(&len, t + off + 2, 2);
		if (len < 4 || len > h->length - off)
			return nfit_reject("structure at offset %u (type %u) has length %u, %s", off,
					   type, len, len == 0 ? "0" : len < 4 ? "less than 4" :
					   "past the end of the table");
		if (type >= NFIT_NR_TYPES) {
			nr_other++;
			continue;
		}
		if (len < type_min_len[type])
			return nfit_reject("%s at offset %u has length %u, less than its %u bytes",
					   type_names[type], off, len, type_min_len[type]);
		type_count[type]++;
		switch (type) {
		case NFIT_TYPE_SPA:	ok = read_spa(t + off, off, m); break;
		case NFIT_TYPE_MEMDEV:	ok = read_memdev(t + off); break;
		case NFIT_TYPE_DCR:	ok = read_dcr(t + off, len, off); break;
		case NFIT_TYPE_FLUSH:	ok = read_flush(t + off, len, off); break;
		default:		break;
		}
		if (!ok)
			return 0;
	}
	/* the maps may come before what they name: checked once all is read */
	for (unsigned i = 0; i < nr_memdev; i++) {
		const struct nfit_memdev *d = &memdevs[i];

		if (d->spa_index && !spa_index_exists(d->spa_index))
			return nfit_reject("memory device map %u (handle %#x) names SPA range %u, "
					   "which is not in the table", i, d->handle, d->spa_index);
		if (!dcr_index_exists(d->dcr_index))
			return nfit_reject("memory device map %u (handle %#x) names control region "
					   "%u, which is not in the table", i, d->handle, d->dcr_index);
	}
	table_len = h->length;
	for (unsigned i = 0; i < nr_spa; i++)
		pr_info("nfit: SPA range %u [mem %#018llx-%#018llx] %s, node %d",
			spas[i].range_index, (unsigned long long)spas[i].base,
			(unsigned long long)(spas[i].base + spas[i].length - 1),
			nfit_spa_kind_name(spas[i].kind), spas[i].nid);
	return (int)nr_spa;
}

const char *nfit_problem(void)
{
	return problem;
}

const struct nfit_spa *nfit_spa(unsigned i)
{
	return i < nr_spa ? &spas[i] : NULL;
}

const struct nfit_memdev *nfit_memdev(unsigned i)
{
	return i < nr_memdev ? &memdevs[i] : NULL;
}

const struct nfit_dcr *nfit_dcr(unsigned i)
{
	return i < nr_dcr ? &dcrs[i] : NULL;
}

const struct nfit_flush *nfit_flush(unsigned i)
{
	return i < nr_flush ? &flushes[i] : NULL;
}

unsigned nfit_type_count(unsigned t)
{
	return t < NFIT_NR_TYPES ? type_count[t] : 0;
}

void nfit_iomem_register(void)
{
	for (unsigned i = 0; i < nr_spa; i++) {
		const struct nfit_spa *spa = &spas[i];
		const struct resource *r = resource_lookup(&iomem_resource, spa->base);

		if (spa->kind != NFIT_SPA_PM)
			continue;
		/* e820 type 7 (or EFI persistent memory) entered it already */
		if (r && r->start <= spa->base && r->end >= spa->base + spa->length - 1 &&
		    !strncmp(r->name, "Persistent Memory", 17))
			continue;
		if (!request_region(&iomem_resource, spa->base, spa->length, "Persistent Memory",
				    IORESOURCE_MEM))
			pr_warn("nfit: SPA range %u [mem %#llx-%#llx] not recorded in /proc/iomem",
				spa->range_index, (unsigned long long)spa->base,
				(unsigned long long)(spa->base + spa->length - 1));
	}
}

static void print_guid(struct printer *p, const u8 g[16])
{
	pr_printf(p, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X",
		  g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11],
		  g[12], g[13], g[14], g[15]);
}

void nfit_dump(struct printer *p)
{
	if (problem[0]) {
		pr_printf(p, "NFIT refused: %s\n", problem);
		return;
	}
	if (!table_len) {
		pr_printf(p, "no NFIT\n");
		return;
	}
	pr_printf(p, "NFIT, %u bytes\n", table_len);
	for (unsigned t = 0; t < NFIT_NR_TYPES; t++)
		pr_printf(p, "  %-22s %u\n", type_names[t], type_count[t]);
	if (nr_other)
		pr_printf(p, "  %-22s %u\n", "other types", nr_other);
	for (unsigned i = 0; i < nr_spa; i++) {
		const struct nfit_spa *s = &spas[i];

		pr_printf(p, "SPA range %u: [mem %#018llx-%#018llx] %s, flags %#x, ", s->range_index,
			  (unsigned long long)s->base, (unsigned long long)(s->base + s->length - 1),
			  nfit_spa_kind_name(s->kind), s->flags);
		if (s->flags & NFIT_SPA_PXM_VALID)
			pr_printf(p, "proximity %u -> node %d, ", s->pxm, s->nid);
		else
			pr_printf(p, "no proximity -> node %d, ", s->nid);
		pr_printf(p, "attributes %#llx\n  type ", (unsigned long long)s->attr);
		print_guid(p, s->guid);
		pr_printf(p, "\n");
	}
	for (unsigned i = 0; i < nr_memdev; i++) {
		const struct nfit_memdev *d = &memdevs[i];

		pr_printf(p, "memory device handle %#x: SPA range %u, control region %u, %llu MiB at "
			  "offset %#llx, DPA %#llx, %u-way, state flags %#x\n", d->handle,
			  d->spa_index, d->dcr_index, (unsigned long long)(d->region_size >> 20),
			  (unsigned long long)d->region_offset, (unsigned long long)d->dpa,
			  d->interleave_ways, d->state_flags);
	}
	for (unsigned i = 0; i < nr_dcr; i++) {
		const struct nfit_dcr *c = &dcrs[i];

		pr_printf(p, "control region %u: vendor %#06x device %#06x revision %#x, serial %#x, "
			  "format %#06x, %u block windows\n", c->index, c->vendor, c->device,
			  c->revision, c->serial, c->format_code, c->nr_bcw);
	}
	for (unsigned i = 0; i < nr_flush; i++)
		pr_printf(p, "flush hints of handle %#x: %u, first at %#llx\n", flushes[i].handle,
			  flushes[i].nr_hints, (unsigned long long)flushes[i].first_hint);
}

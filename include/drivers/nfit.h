/*
 * nfit.h - the ACPI NVDIMM Firmware Interface Table (NFIT), as
 * drivers/acpi/nfit.c reads it: the persistent-memory address ranges the
 * firmware describes, which NVDIMM backs each, and the DIMMs' control
 * regions and flush hints.  drivers/nvdimm/nd.c builds its regions from
 * the ranges.
 *
 * Layouts (ACPI 6.x, 5.2.25): a 36-byte header, 4 reserved bytes, then
 * structures, each starting with a u16 type and a u16 length:
 *   0 System Physical Address (SPA) Range, 56 bytes (64 with ACPI 6.3's
 *     location cookie): range index, flags, proximity domain, the range
 *     type GUID, base, length, memory mapping attributes;
 *   1 Memory Device to SPA Range Map, 48 bytes: the NFIT device handle,
 *     physical and region ids, the SPA range index and control region
 *     index it names, region size and offset, the DIMM physical address,
 *     interleave index and ways, state flags;
 *   2 Interleave, 3 SMBIOS management information, 5 Block Data Window
 *     Region, 7 Platform Capabilities: counted, not used;
 *   4 NVDIMM Control Region, 80 bytes (32 when it has no block control
 *     windows): index, vendor, device, revision and subsystem ids, serial
 *     number, region format interface code, block control windows;
 *   6 Flush Hint Address, 16 bytes + 8 per hint: the device handle and
 *     the hint addresses.
 *
 * Context: nfit_parse() at boot; the getters and the dump from the main loop.
 */
#ifndef DRIVERS_NFIT_H
#define DRIVERS_NFIT_H

#include <lib/types.h>
#include <lib/printer.h>

struct fw_memmap;

#define NFIT_MAX_SPA		16	/* SPA ranges kept; more refuse the table */
#define NFIT_MAX_MEMDEV		32	/* memory device maps kept */
#define NFIT_MAX_DCR		16	/* control regions kept */
#define NFIT_MAX_FLUSH		16	/* flush hint structures kept */
#define NFIT_NR_TYPES		8	/* structure types 0-7 are counted by type */

/* SPA range flags (ACPI 6.x, table 5-134). */
#define NFIT_SPA_MGMT_ONLY	(1u << 0)	/* control region for hot add/online only */
#define NFIT_SPA_PXM_VALID	(1u << 1)	/* the proximity domain field is valid */

/* What a SPA range is, from its range type GUID. */
enum nfit_spa_kind {
	NFIT_SPA_PM,		/* persistent memory */
	NFIT_SPA_VOLATILE,	/* volatile memory */
	NFIT_SPA_DCR,		/* NVDIMM control region */
	NFIT_SPA_BDW,		/* NVDIMM block data window */
	NFIT_SPA_VDISK,		/* virtual disk, volatile */
	NFIT_SPA_VCD,		/* virtual CD, volatile */
	NFIT_SPA_PDISK,		/* virtual disk, persistent */
	NFIT_SPA_PCD,		/* virtual CD, persistent */
	NFIT_SPA_UNKNOWN,	/* a GUID memlab does not know */
};

struct nfit_spa {
	u16 range_index;	/* what memory device maps name; never 0 */
	u16 flags;		/* NFIT_SPA_* */
	u32 pxm;		/* proximity domain (valid with NFIT_SPA_PXM_VALID) */
	int nid;		/* node of pxm from the SRAT; 0 if it has none */
	enum nfit_spa_kind kind;
	u8 guid[16];		/* the range type GUID as the table has it */
	u64 base;		/* first byte */
	u64 length;		/* bytes */
	u64 attr;		/* EFI memory mapping attributes (WB, NV, ...) */
};

struct nfit_memdev {
	u32 handle;		/* NFIT device handle of the DIMM */
	u16 phys_id;		/* NVDIMM physical id (SMBIOS) */
	u16 region_id;		/* NVDIMM region id */
	u16 spa_index;		/* SPA range it maps (0: none) */
	u16 dcr_index;		/* its control region */
	u64 region_size;	/* bytes of the DIMM in this range */
	u64 region_offset;	/* offset of them in the range */
	u64 dpa;		/* DIMM physical address of the region */
	u16 interleave_index;	/* interleave structure (0: none) */
	u16 interleave_ways;	/* DIMMs interleaved in the range */
	u16 state_flags;	/* save/restore/flush failed, not armed, ... */
};

struct nfit_dcr {
	u16 index;		/* what memory device maps name; never 0 */
	u16 vendor, device, revision;
	u16 subsys_vendor, subsys_device, subsys_revision;
	u32 serial;
	u16 format_code;	/* region format interface code */
	u16 nr_bcw;		/* block control windows */
};

struct nfit_flush {
	u32 handle;		/* NFIT device handle of the DIMM */
	u16 nr_hints;		/* hint addresses in the structure */
	u64 first_hint;		/* the first one, 0 if none */
};

/*
 * nfit_parse() - read the NFIT acpi_find_table() gives, if any, against
 * the firmware map m (may be NULL: no RAM to check against).  Starts over
 * on every call.  A table that is malformed (a structure shorter than 4
 * bytes, of length 0, running past the table, or shorter than its type's
 * fixed part; a stray byte after the last one), that memlab cannot hold
 * (more than the NFIT_MAX_* structures), or that contradicts itself or
 * the machine (a SPA range of index 0 or an index twice, empty, wrapping
 * past 2^64 or beyond MAX_PHYSMEM_BITS, overlapping another SPA range or,
 * unless volatile, RAM of m; a memory device map naming a SPA range or a
 * control region that is not there) is refused as a whole: the reason is
 * logged and kept (nfit_problem()), and no range is used; the boot goes
 * on.  Each SPA range's node comes from the SRAT (srat_parse() must have
 * run): its proximity domain's node, or node 0 when the domain is not
 * valid or not in the SRAT.  Returns the number of SPA ranges kept.
 * Context: (boot), after srat_parse().
 */
int nfit_parse(const struct fw_memmap *m);

/* nfit_problem() - why the NFIT was refused, or "" (also with no NFIT). */
const char *nfit_problem(void);

/* The structures kept, i from 0; NULL past the last. */
const struct nfit_spa *nfit_spa(unsigned i);
const struct nfit_memdev *nfit_memdev(unsigned i);
const struct nfit_dcr *nfit_dcr(unsigned i);
const struct nfit_flush *nfit_flush(unsigned i);

/* nfit_type_count() - structures of type t (< NFIT_NR_TYPES) in an accepted NFIT. */
unsigned nfit_type_count(unsigned t);

/* nfit_spa_kind_name() - "persistent memory", "volatile memory", ... */
const char *nfit_spa_kind_name(enum nfit_spa_kind kind);

/*
 * nfit_iomem_register() - each persistent-memory SPA range into
 * /proc/iomem as "Persistent Memory" (Linux's name), unless the firmware
 * map entered it already.  Context: (boot), after iomem_register_boot().
 */
void nfit_iomem_register(void);

/* nfit_dump() - `acpi nfit`: counts by type, each structure decoded. */
void nfit_dump(struct printer *p);

#endif

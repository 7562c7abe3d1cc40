/*
 * nd.h - a model of Linux's libnvdimm for persistent memory, label-less or
 * with a label area: DIMM (nmemN) -> region -> namespaces -> mode
 * (drivers/nvdimm/nd.c).
 *
 * Each persistent-memory SPA range of the NFIT becomes a region (regionN,
 * in NFIT order), mapped by the DIMMs the NFIT's memory device maps name
 * (nmemN, nd_add_dimm(), nd_add_mapping()).  A label-less region has, as
 * in Linux, exactly one namespace covering it all, namespaceN.0.  A region
 * whose DIMM has a label area (read through its _DSM:
 * drivers/nvdimm/nd_acpi.c) has one namespace per label, namespaceN.M
 * (M from 0, in the order of their addresses at boot; a new one takes the
 * lowest free M), each created with a size and destroyed on its own
 * (struct nd_label_dev below).  A namespace is in one of two modes:
 *   raw     no struct pages (Linux gives it a pmem block device; memlab has
 *           no block layer, so it is just the range);
 *   devdax  a device-dax instance daxN.M with a memmap: the namespace's
 *           range is ZONE_DEVICE memory (devmem_create_phys(), mm/memremap.c)
 *           in compound pages of the namespace's align: 4 KiB (order 0),
 *           2 MiB (order 9) or 1 GiB (order 18, each over 8 of memlab's
 *           128 MiB sections).  The memmap lives in RAM (Linux's
 *           --map=mem) and covers the whole namespace, as Linux's pgmap;
 *           an info block at 4 KiB into the namespace records the mode
 *           (include/drivers/nd_info.h), and the dax device is the
 *           namespace less the first ND_INFO_DATAOFF(align) bytes.
 * At boot (nd_probe_info()) a raw namespace whose info block says devdax
 * becomes devdax again, with the align the block records.
 * Linux's create-namespace on a label-less region reconfigures the one
 * namespace; destroy-namespace returns it to raw; so do these.  On a
 * labelled region create-namespace makes a new namespace with a label,
 * create-namespace -e reconfigures one, destroy-namespace deletes it.
 *
 * Context: (main) only; nd_add_region() and the probes at boot.
 */
#ifndef DRIVERS_ND_H
#define DRIVERS_ND_H

#include <lib/types.h>
#include <lib/printer.h>
#include <drivers/nd_label.h>
#include <drivers/nd_info.h>

struct resource;

#define ND_MAX_REGIONS	16
#define ND_MAX_NS	ND_LABEL_MAX	/* namespaces per region */
#define ND_MAX_DIMMS	16
#define ND_MAX_MAPPINGS	8		/* DIMMs per region */
#define ND_OFFSET_ANY	(~0ULL)		/* create: the first free place that fits */

enum nd_mode { ND_MODE_RAW, ND_MODE_DEVDAX };

struct nd_namespace {
	bool present;		/* label-less: always (ns[0]); labelled: while it has a label */
	enum nd_mode mode;
	u64 start;		/* physical: the region's start, or from the label's dpa */
	u64 size;		/* bytes: the whole region (label-less), or the label's rawsize */
	u8 uuid[16];		/* labelled: the label's */
	u64 align;		/* devdax: 4 KiB, 2 MiB or 1 GiB; raw: 0 */
	u64 dataoff;		/* devdax: bytes its info block reserves, ND_INFO_DATAOFF(align) */
	u8 dax_uuid[16];	/* devdax: the info block's own uuid */
	int devmem_id;		/* devdax: its device range (include/mm/memremap.h), else -1 */
	u64 nr_binds;		/* devdax binds and rebinds so far */
	bool from_info;		/* devdax since boot, from its info block */
	bool kmem;		/* devdax reconfigured as system-ram: devmem_id -1, the
				 * kmem range hot-added memory of group mgid */
	int mgid;		/* kmem: its memory group, else -1 */
	struct resource *dax_res;	/* kmem: "daxN.M" in /proc/iomem, holding
					 * "System RAM (kmem)" */
	char info_problem[128];	/* raw because its info block was refused: why */
};

/*
 * A DIMM's label area as the region sees it: an in-memory copy of all of
 * it, read at boot, and the way to write pieces back (the kernel: _DSM
 * function 6, drivers/nvdimm/nd_acpi.c; host tests: a fake).
 */
enum nd_label_kind {
	ND_LABELS_UNINIT,	/* no valid index block: no namespace until one is created */
	ND_LABELS_OK,		/* valid index; a namespace per label */
	ND_LABELS_BAD,		/* refused (problem says why): no namespace, not overwritten */
};

struct nd_label_dev {
	u32 handle;		/* NFIT device handle of the DIMM */
	u8 *area;		/* the copy, size bytes */
	u32 size;
	u64 dpa;		/* DIMM physical address of the region's first byte */
	int (*write)(void *ctx, u32 off, const void *buf, u32 len, char *why, size_t why_size);
	void (*new_uuid)(void *ctx, u8 uuid[16]);
	void *ctx;
	/* nd.c's: */
	enum nd_label_kind kind;
	struct nd_label_state st;
	char problem[160];
};

/* One DIMM of the NFIT (Linux's nmemN): its memory device map and control
 * region, the values as the table has them (little endian). */
struct nd_dimm {
	int id;			/* N of nmemN */
	u32 handle;		/* NFIT device handle */
	u16 phys_id;
	u16 vendor, device, revision, subsys_vendor, subsys_device, subsys_revision;
	u16 format;		/* region format interface code */
	u32 serial;
	u16 flags;		/* the map's state flags: save/restore/flush failed, ... */
	bool has_dcr;		/* a control region named it (else the ids above are 0) */
};

/* A region's piece on one DIMM (Linux's mappingN). */
struct nd_mapping {
	int dimm;		/* nmemN */
	u64 dpa, size;
	int position;
};

struct nd_region {
	int id;			/* N of regionN */
	u64 start, size;	/* the SPA range */
	int nid;		/* its node (the NFIT's proximity domain) */
	u16 spa_index;		/* the NFIT's range index */
	struct nd_namespace ns[ND_MAX_NS];	/* namespaceN.M is ns[M] while present */
	struct nd_label_dev *labels;	/* NULL: label-less */
	struct nd_mapping mappings[ND_MAX_MAPPINGS];
	unsigned nr_mappings;
};

/*
 * The NVDIMM's memory as the info blocks reach it (Linux's
 * nvdimm_read_bytes()/nvdimm_write_bytes()): the kernel maps the bytes
 * write-back (drivers/nvdimm/nd_media.c), host tests keep them in a fake.
 * Each returns 0 or -errno.  Without media (NULL) no info block is read or
 * written: a devdax namespace does not outlive the boot.
 */
struct nd_media {
	int (*read)(void *ctx, u64 pa, void *buf, u32 len);
	int (*write)(void *ctx, u64 pa, const void *buf, u32 len);
	void *ctx;
};

/* nd_set_media() - where info blocks are read and written (kept, not copied). */
void nd_set_media(const struct nd_media *m);

/* nd_media_init() - the kernel's media: the bytes mapped write-back
 * (drivers/nvdimm/nd_media.c).  Context: (boot). */
void nd_media_init(void);

/*
 * nd_attach_labels() - region id has the label area ld (filled but for
 * nd.c's fields; kept by the region): the area is scanned
 * (nd_label_scan()) and the region has one raw namespace per label, in
 * the order of their dpa, or none (an uninitialised area, no label, or bad
 * data: logged with the reason).  -ENOENT (no such region), -EBUSY (a
 * namespace is not raw).  Context: (boot).
 */
int nd_attach_labels(int id, struct nd_label_dev *ld);

/*
 * nd_probe_info() - every raw namespace's info block read: one that says
 * devdax (and fits the namespace: its parent uuid, data offset, pages and
 * align) makes the namespace devdax again, bound with the switch's design;
 * one that does not fit, or an fsdax/sector block, is logged with the
 * reason and the namespace stays raw (info_problem), the block left as it
 * is.  Nothing without media.  Context: (boot), after the labels.
 */
void nd_probe_info(void);

/* nd_label_kind_name() - how `nd list` shows a region's label state. */
const char *nd_label_kind_name(const struct nd_region *r);

/* nd_uuid_format() - a UUID as 8-4-4-4-12 hex digits (37 bytes with the NUL). */
void nd_uuid_format(const u8 uuid[16], char out[37]);

/*
 * nd_add_region() - a persistent-memory range [start, start + size) of
 * node nid, the NFIT's SPA range spa_index, as the next region.  Returns
 * its id, or -ENOSPC (ND_MAX_REGIONS regions already) or -EINVAL (empty).
 * Context: (boot).
 */
int nd_add_region(u64 start, u64 size, int nid, u16 spa_index);

/* nd_add_dimm() - the DIMM *d (its id ignored) as the next nmemN, or the
 * nmemN it already is (same handle); its id, or -ENOSPC.  Context: (boot). */
int nd_add_dimm(const struct nd_dimm *d);

/* nd_add_mapping() - region id has [dpa, dpa + size) of DIMM dimm at the
 * next position.  -ENOENT, -ENOSPC.  Context: (boot). */
int nd_add_mapping(int id, int dimm, u64 dpa, u64 size);

/* nd_region() - region id, or NULL.  nd_dimm() - nmem id, or NULL. */
const struct nd_region *nd_region(int id);
const struct nd_dimm *nd_dimm(int id);

/* nd_namespace() - namespace<region>.<ns> while it is present, or NULL. */
const struct nd_namespace *nd_namespace(int region, int ns);

/* nd_dimm_id() - Linux's nmemN/nfit/id: vendor and serial as the kernel
 * shows them (byte-swapped: Linux reads the JEDEC ids big endian),
 * "%04x-%08x", e.g. QEMU's "8680-56341200"; 14 bytes with the NUL. */
void nd_dimm_id(const struct nd_dimm *d, char out[16]);

/* nd_dax_size() - the dax device's bytes: the namespace less its data offset. */
u64 nd_dax_size(const struct nd_namespace *ns);

/* nd_available() - bytes of region r no namespace holds (Linux's available_size). */
u64 nd_available(const struct nd_region *r);

/* nd_parse_align() - "4K"/"4096", "2M", "1G" (as ndctl reads --align) in bytes, 0 if not a size. */
u64 nd_parse_align(const char *s);

/*
 * nd_create() - ndctl create-namespace on region id, as a mode of mode
 * (devdax: compounds of align, bound with the switch's design, its info
 * block written):
 *   ns -1 on a label-less region, or ns 0: its one namespace reconfigured
 *     (size 0 or the region's; offset ND_OFFSET_ANY or 0);
 *   ns -1 on a labelled region: a new namespace with a new label, of size
 *     bytes (0: the largest free extent, whole units) at offset bytes into
 *     the region (ND_OFFSET_ANY: the first free place that fits), both
 *     whole 128 MiB sections (and whole 1 GiB compounds for align 1G);
 *   ns M >= 0 on a labelled region: namespaceN.M reconfigured (ndctl's
 *     create-namespace -e namespaceN.M), size 0 or its own.
 * Returns the namespace's M, or refuses with the reason in why[0, size)
 * and nothing changed: -ENOENT (no such region or namespace), -EBUSY (the
 * namespace is devdax already: in use as daxN.M), -EINVAL (align not 4 KiB,
 * 2 MiB or 1 GiB; a size or offset not whole units; a range not aligned to
 * align or to the 128 MiB section; a size other than the namespace's when
 * reconfiguring), -ENOSPC (larger than the region, no free extent that
 * large, past the region's end, no label slot), -EEXIST (overlaps
 * namespaceN.K), -EIO (bad label data, a label or info block write that
 * failed), or mm's error from devmem_create_phys().
 * Context: (main) or the shell's job.
 */
int nd_create(int id, int ns, enum nd_mode mode, u64 align, u64 size, u64 offset, char *why,
	      size_t why_size);

/* nd_create_devdax() - nd_create(id, -1, ND_MODE_DEVDAX, align, size,
 * ND_OFFSET_ANY, ...). */
int nd_create_devdax(int id, u64 align, u64 size, char *why, size_t why_size);

/*
 * nd_destroy() - ndctl destroy-namespace namespace<id>.<ns>: a devdax
 * namespace goes back to raw (its memmap poisoned and unmapped:
 * devmem_destroy(); its info block cleared); on a labelled region its
 * label is deleted too, and the namespace is gone.  -ENOENT, or -EBUSY
 * (system-ram, or another operation holds its memory: range_claim.h), with
 * the reason in why; a label-less raw namespace is left as it is (0; a
 * refused info block is cleared).  Context: (main).
 */
int nd_destroy(int id, int ns, char *why, size_t why_size);

/*
 * nd_rebind() - unbind and bind dax<id>.<ns> again: memmap poisoned, then
 * initialised by design d (-1: the switch's, mech_design(MECH_MEMMAP_INIT);
 * DEVMEM_DESIGN_HEAD_TEMPLATE: heads from a template, tails field by field;
 * DEVMEM_DESIGN_SHARED: the shared vmemmap, align 2M or 1G only),
 * timed (devmem_rebind()).  -ENOENT, -EINVAL (not devdax, or a bad design).
 * Context: (main) or the shell's job.
 */
int nd_rebind(int id, int ns, int d, char *why, size_t why_size);

/*
 * nd_reconfigure() - daxctl reconfigure-device --mode=system-ram|devdax of
 * dax<id>.<ns> (Linux's dax_kmem).  system_ram: the dax device lets its
 * memmap go (devmem_destroy()) and its range, from the first memory block
 * after the info block's reservation to the last whole one
 * (nd_kmem_range(), as Linux's dax_kmem_range()), is hot-added through the
 * hotplug core, add_memory() in a static memory group named "daxN.M",
 * onlined as auto_online_blocks says; /proc/iomem shows "System RAM
 * (kmem)" in "daxN.M" in the region's "Persistent Memory".  !system_ram:
 * every block offlined (its pages migrated) and removed, the group gone,
 * and the dax device bound again with the switch's design.  Refused, with
 * the reason in why and nothing changed: -ENOENT, -EINVAL (raw, already in
 * that mode, or no whole memory block), -EBUSY (the range claimed by
 * another operation; or pages that are in use and cannot migrate: the
 * blocks stay online as they were), or add_memory()'s error (the dax
 * device is bound again).  Context: (main) or the shell's job.
 */
int nd_reconfigure(int id, int ns, bool system_ram, char *why, size_t why_size);

/* nd_kmem_range() - what system-ram hot-adds of ns: *start, *size (0: nothing). */
void nd_kmem_range(const struct nd_namespace *ns, u64 *start, u64 *size);

/* nd_mode_name() - "raw", "devdax". */
const char *nd_mode_name(enum nd_mode mode);

/* nd_list_dump() - `ndctl list -RN` style JSON: regions with their namespaces. */
void nd_list_dump(struct printer *p);

/* nd_dimms_dump() - `ndctl list -D` style JSON: the DIMMs. */
void nd_dimms_dump(struct printer *p);

/* nd_dax_dump() - `daxctl list` style JSON: the dax devices. */
void nd_dax_dump(struct printer *p);

/* nd_set_change_hook() - fn(region) is called after a namespace of a
 * region appeared or went (the views make and remove its files); NULL:
 * none.  Context: (main). */
void nd_set_change_hook(void (*fn)(int region));

/* nd_reset() - forget every region and DIMM, and the media (host tests). */
void nd_reset(void);

#endif

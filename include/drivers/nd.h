/*
 * nd.h - a model of Linux's libnvdimm for persistent memory, label-less or
 * with a label area: region -> namespace -> mode (drivers/nvdimm/nd.c).
 *
 * Each persistent-memory SPA range of the NFIT becomes a region (regionN,
 * in NFIT order).  A label-less region has, as in Linux, exactly one
 * namespace covering it all, namespaceN.0.  A region whose DIMM has a
 * label area (read through its _DSM: drivers/nvdimm/nd_acpi.c) has the
 * namespace its first label describes, or none until create-namespace
 * writes a label (struct nd_label_dev below).  A
 * namespace is in one of two modes:
 *   raw     the boot state: no struct pages (Linux gives it a pmem block
 *           device; memlab has no block layer, so it is just the range);
 *   devdax  a device-dax instance daxN.0 with a memmap: the namespace's
 *           range is ZONE_DEVICE memory (devmem_create_phys(), mm/memremap.c)
 *           in compound pages of the namespace's align: 4 KiB (order 0),
 *           2 MiB (order 9) or 1 GiB (order 18, each over 8 of memlab's
 *           128 MiB sections).
 *           The memmap lives in RAM (Linux's --map=mem), and no info block
 *           is written to the NVDIMM, so daxN.0 is the whole namespace.
 * Linux's create-namespace on a label-less region reconfigures the one
 * namespace; destroy-namespace returns it to raw; so do these.  On a
 * labelled region destroy-namespace also deletes the label.
 *
 * Context: (main) only; nd_add_region() at boot.
 */
#ifndef DRIVERS_ND_H
#define DRIVERS_ND_H

#include <lib/types.h>
#include <lib/printer.h>
#include <drivers/nd_label.h>

struct resource;

#define ND_MAX_REGIONS	16

enum nd_mode { ND_MODE_RAW, ND_MODE_DEVDAX };

struct nd_namespace {
	bool present;		/* label-less: always; labelled: while it has a label */
	enum nd_mode mode;
	u64 start;		/* physical: the region's start, or from the label's dpa */
	u64 size;		/* bytes: the whole region (label-less), or the label's rawsize */
	u8 uuid[16];		/* labelled: the label's */
	u64 align;		/* devdax: 4 KiB, 2 MiB or 1 GiB; raw: 0 */
	int devmem_id;		/* devdax: its device range (include/mm/memremap.h), else -1 */
	u64 nr_binds;		/* devdax binds and rebinds so far */
	bool kmem;		/* devdax reconfigured as system-ram: devmem_id -1, the
				 * range hot-added memory of group mgid */
	int mgid;		/* kmem: its memory group, else -1 */
	struct resource *dax_res;	/* kmem: "daxN.0" in /proc/iomem, holding
					 * "System RAM (kmem)" */
};

/*
 * A DIMM's label area as the region sees it: an in-memory copy of all of
 * it, read at boot, and the way to write pieces back (the kernel: _DSM
 * function 6, drivers/nvdimm/nd_acpi.c; host tests: a fake).  The region
 * supports one namespace, the area's first label.
 */
enum nd_label_kind {
	ND_LABELS_UNINIT,	/* no valid index block: no namespace until one is created */
	ND_LABELS_OK,		/* valid index; a namespace if it holds a label */
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

struct nd_region {
	int id;			/* N of regionN */
	u64 start, size;	/* the SPA range */
	int nid;		/* its node (the NFIT's proximity domain) */
	u16 spa_index;		/* the NFIT's range index */
	struct nd_namespace ns;	/* namespaceN.0 */
	struct nd_label_dev *labels;	/* NULL: label-less */
};

/*
 * nd_attach_labels() - region id has the label area ld (filled but for
 * nd.c's fields; kept by the region): the area is scanned
 * (nd_label_scan()) and the namespace is what its first label says, or
 * absent (an uninitialised area, no label, or bad data: logged with the
 * reason).  -ENOENT (no such region), -EBUSY (not raw).  Context: (boot).
 */
int nd_attach_labels(int id, struct nd_label_dev *ld);

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

/* nd_region() - region id, or NULL. */
const struct nd_region *nd_region(int id);

/* nd_parse_align() - "4K"/"4096", "2M", "1G" (as ndctl reads --align) in bytes, 0 if not a size. */
u64 nd_parse_align(const char *s);

/*
 * nd_create_devdax() - ndctl create-namespace --mode=devdax --align=A
 * [--size=S] on region id: its namespace becomes devdax, with a memmap of
 * compounds of align (bind, timed, with the switch's design of memmap
 * init).  size 0 means the whole region.  Refused, with the reason in
 * why[0, size) and nothing changed: -ENOENT (no such region), -EBUSY (the
 * namespace is devdax already: in use as daxN.0), -EINVAL (align not 4 KiB,
 * 2 MiB or 1 GiB; a region not aligned to align or to the 128 MiB section; a size other than the
 * region's: a label-less region has one namespace, all of it), -ENOSPC (a
 * size larger than the region), or mm's error from devmem_create_phys().
 * Context: (main) or the shell's job.
 */
int nd_create_devdax(int id, u64 align, u64 size, char *why, size_t why_size);

/*
 * nd_destroy() - ndctl destroy-namespace: a devdax namespace goes back to
 * raw (its memmap poisoned and unmapped: devmem_destroy()).  -ENOENT, or
 * -EBUSY (another operation holds its memory: range_claim.h), with the
 * reason in why; a raw namespace is left as it is (0).  Context: (main).
 */
int nd_destroy(int id, char *why, size_t why_size);

/*
 * nd_rebind() - unbind and bind daxN.0 again: memmap poisoned, then
 * initialised by design d (-1: the switch's, mech_design(MECH_MEMMAP_INIT);
 * DEVMEM_DESIGN_HEAD_TEMPLATE: heads from a template, tails field by field;
 * DEVMEM_DESIGN_SHARED: the shared vmemmap, align 2M or 1G only),
 * timed (devmem_rebind()).  -ENOENT, -EINVAL (not devdax, or a bad design).
 * Context: (main) or the shell's job.
 */
int nd_rebind(int id, int d, char *why, size_t why_size);

/*
 * nd_reconfigure() - daxctl reconfigure-device --mode=system-ram|devmem of
 * daxN.0 (Linux's dax_kmem).  system_ram: the dax device lets its memmap
 * go (devmem_destroy()) and its range is hot-added through the hotplug
 * core, add_memory() in a static memory group named "daxN.0", onlined as
 * auto_online_blocks says (a block left offline can be onlined through
 * /sys/devices/system/memory); /proc/iomem shows "System RAM (kmem)" in
 * "daxN.0" in the region's "Persistent Memory".  !system_ram: every block
 * offlined (its pages migrated) and removed, the group gone, and the dax
 * device bound again with the switch's design.  Refused, with the reason
 * in why and nothing changed: -ENOENT, -EINVAL (raw, or already in that
 * mode), -EBUSY (the range claimed by another operation; or pages that
 * are in use and cannot migrate: the blocks stay online as they were),
 * or add_memory()'s error (the dax device is bound again).
 * Context: (main) or the shell's job.
 */
int nd_reconfigure(int id, bool system_ram, char *why, size_t why_size);

/* nd_mode_name() - "raw", "devdax". */
const char *nd_mode_name(enum nd_mode mode);

/* nd_list_dump() - `ndctl list -RN` style JSON: regions with their namespaces. */
void nd_list_dump(struct printer *p);

/* nd_dax_dump() - `daxctl list` style JSON: the dax devices. */
void nd_dax_dump(struct printer *p);

/* nd_reset() - forget every region (host tests). */
void nd_reset(void);

#endif

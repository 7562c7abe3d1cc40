/*
 * sysfs_nd.c - /sys/bus/nd/devices/: DIMMs, regions, namespaces and dax
 * devices of drivers/nvdimm/nd.c, with the files and formats Linux's
 * libnvdimm and its NFIT driver have (include/views/nd_views.h lists
 * them).  Every file only reads the model; changes go through the `nd`
 * command.  A namespace's directory and its dax device's come and go with
 * it (nd_set_change_hook()).  Context: (main).
 */
#include <views/nd_views.h>
#include <views/vfs.h>
#include <drivers/nd.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

enum nd_attr {
	REGION_SIZE, REGION_ALIGN, REGION_NUMA_NODE, REGION_MAPPINGS, REGION_AVAILABLE,
	REGION_NSTYPE, REGION_LABELS, REGION_DEVTYPE, REGION_MAPPING,
	NS_MODE, NS_SIZE, NS_UUID, NS_HOLDER, NS_NUMA_NODE, NS_NSTYPE, NS_DEVTYPE,
	DAX_ALIGN, DAX_MODE, DAX_NAMESPACE, DAX_SIZE, DAX_NUMA_NODE, DAX_DEVTYPE,
	DIMM_DEVTYPE, DIMM_SLOTS, DIMM_COMMANDS, DIMM_HANDLE, DIMM_PHYS_ID, DIMM_VENDOR,
	DIMM_DEVICE, DIMM_REV, DIMM_SUBSYS_VENDOR, DIMM_SUBSYS_DEVICE, DIMM_SUBSYS_REV,
	DIMM_SERIAL, DIMM_FORMAT, DIMM_ID, DIMM_FLAGS,
};

struct nd_file { const char *name; enum nd_attr attr; };

static const struct nd_file region_files[] = {
	{ "size", REGION_SIZE }, { "align", REGION_ALIGN }, { "numa_node", REGION_NUMA_NODE },
	{ "mappings", REGION_MAPPINGS }, { "available_size", REGION_AVAILABLE },
	{ "nstype", REGION_NSTYPE }, { "label_state", REGION_LABELS },
	{ "devtype", REGION_DEVTYPE },
};
static const struct nd_file ns_files[] = {
	{ "mode", NS_MODE }, { "size", NS_SIZE }, { "uuid", NS_UUID }, { "holder", NS_HOLDER },
	{ "numa_node", NS_NUMA_NODE }, { "nstype", NS_NSTYPE }, { "devtype", NS_DEVTYPE },
};
static const struct nd_file dax_files[] = {
	{ "align", DAX_ALIGN }, { "mode", DAX_MODE }, { "namespace", DAX_NAMESPACE },
	{ "size", DAX_SIZE }, { "numa_node", DAX_NUMA_NODE }, { "devtype", DAX_DEVTYPE },
};
static const struct nd_file dimm_files[] = {
	{ "devtype", DIMM_DEVTYPE }, { "available_slots", DIMM_SLOTS },
	{ "commands", DIMM_COMMANDS },
	{ "nfit/handle", DIMM_HANDLE }, { "nfit/phys_id", DIMM_PHYS_ID },
	{ "nfit/vendor", DIMM_VENDOR }, { "nfit/device", DIMM_DEVICE }, { "nfit/rev_id", DIMM_REV },
	{ "nfit/subsystem_vendor", DIMM_SUBSYS_VENDOR },
	{ "nfit/subsystem_device", DIMM_SUBSYS_DEVICE },
	{ "nfit/subsystem_rev_id", DIMM_SUBSYS_REV }, { "nfit/serial", DIMM_SERIAL },
	{ "nfit/format", DIMM_FORMAT }, { "nfit/id", DIMM_ID }, { "nfit/flags", DIMM_FLAGS },
};

/* data: attr << 16 | N << 8 | M (M: a namespace, or a mapping's index). */
#define ND_DATA(attr, n, m)	((void *)(uintptr_t)((u32)(attr) << 16 | (u32)(n) << 8 | (u32)(m)))

static bool made[ND_MAX_REGIONS][ND_MAX_NS];	/* (main): its files exist */

static u16 swab16(u16 v)
{
	return (u16)(v >> 8 | v << 8);
}

/* The label area of DIMM d, if one of its regions has it. */
static const struct nd_label_dev *dimm_labels(const struct nd_dimm *d)
{
	const struct nd_region *r;

	for (int id = 0; (r = nd_region(id)); id++)
		if (r->labels && r->labels->handle == d->handle)
			return r->labels;
	return NULL;
}

static int dimm_show(struct printer *p, enum nd_attr attr, const struct nd_dimm *d)
{
	const struct nd_label_dev *ld = dimm_labels(d);
	char id[16];

	switch (attr) {
	case DIMM_DEVTYPE:	pr_printf(p, "nvdimm\n"); break;
	case DIMM_SLOTS:
		pr_printf(p, "%u\n", ld && ld->kind == ND_LABELS_OK ? ld->st.nslot - ld->st.nlabels : 0);
		break;
	case DIMM_COMMANDS:	/* what memlab asks the DSM, by Linux's names */
		pr_printf(p, "%s\n", ld ? "get_config_size get_config_data set_config_data" : "");
		break;
	case DIMM_HANDLE:	pr_printf(p, "%#x\n", d->handle); break;
	case DIMM_PHYS_ID:	pr_printf(p, "%#x\n", d->phys_id); break;
	/* Linux's nfit sysfs reads the JEDEC ids big endian: QEMU's 0x8086 shows 0x8680 */
	case DIMM_VENDOR:	pr_printf(p, "0x%04x\n", swab16(d->vendor)); break;
	case DIMM_DEVICE:	pr_printf(p, "0x%04x\n", swab16(d->device)); break;
	case DIMM_REV:		pr_printf(p, "0x%04x\n", swab16(d->revision)); break;
	case DIMM_SUBSYS_VENDOR: pr_printf(p, "0x%04x\n", swab16(d->subsys_vendor)); break;
	case DIMM_SUBSYS_DEVICE: pr_printf(p, "0x%04x\n", swab16(d->subsys_device)); break;
	case DIMM_SUBSYS_REV:	pr_printf(p, "0x%04x\n", swab16(d->subsys_revision)); break;
	case DIMM_SERIAL:	pr_printf(p, "0x%08x\n", __builtin_bswap32(d->serial)); break;
	case DIMM_FORMAT:	pr_printf(p, "0x%04x\n", d->format); break;
	case DIMM_ID:		nd_dimm_id(d, id); pr_printf(p, "%s\n", id); break;
	case DIMM_FLAGS:
		pr_printf(p, "%s%s%s%s%s%s%s\n", d->flags & 1 ? "save_fail " : "",
			  d->flags & 2 ? "restore_fail " : "", d->flags & 4 ? "flush_fail " : "",
			  d->flags & 8 ? "not_armed " : "", d->flags & 16 ? "smart_event " : "",
			  d->flags & 64 ? "map_fail " : "", d->flags & 32 ? "smart_notify " : "");
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static int nd_attr_show(struct printer *p, void *data)
{
	u32 v = (u32)(uintptr_t)data;
	enum nd_attr attr = (enum nd_attr)(v >> 16);
	int n = (int)(v >> 8 & 0xff), m = (int)(v & 0xff);
	const struct nd_region *r;
	const struct nd_namespace *ns;
	bool dax;

	if (attr >= DIMM_DEVTYPE)
		return nd_dimm(n) ? dimm_show(p, attr, nd_dimm(n)) : -ENODEV;
	if (!(r = nd_region(n)))
		return -ENODEV;
	switch (attr) {
	case REGION_SIZE:	pr_printf(p, "%llu\n", (unsigned long long)r->size); return 0;
	case REGION_ALIGN:	pr_printf(p, "%u\n", 16u << 20); return 0;	/* Linux's default */
	case REGION_NUMA_NODE:	pr_printf(p, "%d\n", r->nid); return 0;
	case REGION_MAPPINGS:	pr_printf(p, "%u\n", r->nr_mappings); return 0;
	case REGION_AVAILABLE:	pr_printf(p, "%llu\n", (unsigned long long)nd_available(r)); return 0;
	case REGION_NSTYPE:	pr_printf(p, "%d\n", r->labels ? 5 : 4); return 0;
	case REGION_LABELS:	pr_printf(p, "%s\n", nd_label_kind_name(r)); return 0;
	case REGION_DEVTYPE:	pr_printf(p, "nd_pmem\n"); return 0;
	case REGION_MAPPING:
		if ((unsigned)m >= r->nr_mappings)
			return -ENODEV;
		/* Linux's mappingN: "nmemX,dpa,size,position" */
		pr_printf(p, "nmem%d,%llu,%llu,%d\n", r->mappings[m].dimm,
			  (unsigned long long)r->mappings[m].dpa,
			  (unsigned long long)r->mappings[m].size, r->mappings[m].position);
		return 0;
	default:
		break;
	}
	if (!(ns = nd_namespace(n, m)))
		return -ENODEV;
	dax = ns->mode == ND_MODE_DEVDAX;
	switch (attr) {
	case NS_MODE:		pr_printf(p, "%s\n", dax ? "dax" : "raw"); break;
	case NS_UUID:
		if (r->labels) {
			char uuid[37];

			nd_uuid_format(ns->uuid, uuid);
			pr_printf(p, "%s\n", uuid);
		} else
			pr_printf(p, "\n");	/* label-less: no uuid */
		break;
	case NS_SIZE:		pr_printf(p, "%llu\n", (unsigned long long)ns->size); break;
	case NS_HOLDER:
		if (dax)
			pr_printf(p, "dax%d.%d\n", n, m);
		else
			pr_printf(p, "\n");
		break;
	case NS_NUMA_NODE:	pr_printf(p, "%d\n", r->nid); break;
	case NS_NSTYPE:		pr_printf(p, "%d\n", r->labels ? 5 : 4); break;
	case NS_DEVTYPE:
		pr_printf(p, "%s\n", r->labels ? "nd_namespace_pmem" : "nd_namespace_io");
		break;
	case DAX_ALIGN:		pr_printf(p, "%llu\n", (unsigned long long)(dax ? ns->align : 2u << 20)); break;
	case DAX_MODE:		pr_printf(p, "%s\n", dax ? "ram" : "none"); break;	/* memmap in RAM */
	case DAX_NAMESPACE:
		if (dax)
			pr_printf(p, "namespace%d.%d\n", n, m);
		else
			pr_printf(p, "\n");
		break;
	case DAX_SIZE:		pr_printf(p, "%llu\n", (unsigned long long)nd_dax_size(ns)); break;
	case DAX_NUMA_NODE:	pr_printf(p, "%d\n", r->nid); break;
	case DAX_DEVTYPE:	pr_printf(p, "nd_dax\n"); break;
	default:
		return -EINVAL;
	}
	return 0;
}

static const struct vfs_file_ops nd_attr_ops = { .show = nd_attr_show };

static void make_files(const char *dir, const struct nd_file *files, unsigned n, int a, int b)
{
	for (unsigned i = 0; i < n; i++) {
		char path[VFS_PATH_MAX];
		int err;

		ksnprintf(path, sizeof(path), "/sys/bus/nd/devices/%s/%s", dir, files[i].name);
		err = vfs_create(path, &nd_attr_ops, ND_DATA(files[i].attr, a, b));
		if (err)
			pr_warn("nd: %s not created: error %d", path, err);
	}
}

/* The namespace and dax directories of region id as its namespaces are. */
static void nd_views_sync(int id)
{
	for (int m = 0; m < ND_MAX_NS; m++) {
		bool present = nd_namespace(id, m) != NULL;
		char dir[32], path[64];

		if (present == made[id][m])
			continue;
		if (present) {
			ksnprintf(dir, sizeof(dir), "namespace%d.%d", id, m);
			make_files(dir, ns_files, ARRAY_SIZE(ns_files), id, m);
			ksnprintf(dir, sizeof(dir), "dax%d.%d", id, m);
			make_files(dir, dax_files, ARRAY_SIZE(dax_files), id, m);
		} else {
			ksnprintf(path, sizeof(path), "/sys/bus/nd/devices/namespace%d.%d", id, m);
			vfs_remove(path);
			ksnprintf(path, sizeof(path), "/sys/bus/nd/devices/dax%d.%d", id, m);
			vfs_remove(path);
		}
		made[id][m] = present;
	}
}

void nd_views_init(void)
{
	const struct nd_region *r;
	char dir[32];

	for (int i = 0; nd_dimm(i); i++) {
		ksnprintf(dir, sizeof(dir), "nmem%d", i);
		make_files(dir, dimm_files, ARRAY_SIZE(dimm_files), i, 0);
	}
	for (int id = 0; (r = nd_region(id)); id++) {
		struct nd_file mapping = { NULL, REGION_MAPPING };

		ksnprintf(dir, sizeof(dir), "region%d", id);
		make_files(dir, region_files, ARRAY_SIZE(region_files), id, 0);
		for (unsigned k = 0; k < r->nr_mappings; k++) {
			char name[16];

			ksnprintf(name, sizeof(name), "mapping%u", k);
			mapping.name = name;
			make_files(dir, &mapping, 1, id, (int)k);
		}
		nd_views_sync(id);
	}
	nd_set_change_hook(nd_views_sync);
}

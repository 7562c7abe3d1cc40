/*
 * sysfs_nd.c - /sys/bus/nd/devices/: regions, namespaces and dax devices
 * of drivers/nvdimm/nd.c, with the files and formats Linux's libnvdimm
 * has (include/views/nd_views.h lists them).  Every file only reads the
 * model; changes go through the `nd` command.  Context: (main).
 */
#include <views/nd_views.h>
#include <views/vfs.h>
#include <drivers/nd.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

enum nd_attr {
	REGION_SIZE, REGION_ALIGN, REGION_NUMA_NODE, REGION_MAPPINGS, REGION_AVAILABLE,
	REGION_NSTYPE,
	NS_MODE, NS_SIZE, NS_UUID, REGION_LABELS, NS_HOLDER, NS_NUMA_NODE, NS_NSTYPE,
	DAX_ALIGN, DAX_MODE, DAX_NAMESPACE, DAX_SIZE, DAX_NUMA_NODE,
};

static const struct { const char *dir; const char *name; enum nd_attr attr; } nd_files[] = {
	{ "region%d", "size", REGION_SIZE },
	{ "region%d", "align", REGION_ALIGN },
	{ "region%d", "numa_node", REGION_NUMA_NODE },
	{ "region%d", "mappings", REGION_MAPPINGS },
	{ "region%d", "available_size", REGION_AVAILABLE },
	{ "region%d", "nstype", REGION_NSTYPE },
	{ "namespace%d.0", "mode", NS_MODE },
	{ "namespace%d.0", "size", NS_SIZE },
	{ "namespace%d.0", "uuid", NS_UUID },
	{ "region%d", "label_state", REGION_LABELS },
	{ "namespace%d.0", "holder", NS_HOLDER },
	{ "namespace%d.0", "numa_node", NS_NUMA_NODE },
	{ "namespace%d.0", "nstype", NS_NSTYPE },
	{ "dax%d.0", "align", DAX_ALIGN },
	{ "dax%d.0", "mode", DAX_MODE },
	{ "dax%d.0", "namespace", DAX_NAMESPACE },
	{ "dax%d.0", "size", DAX_SIZE },
	{ "dax%d.0", "numa_node", DAX_NUMA_NODE },
};

#define ND_NR_FILES	(sizeof(nd_files) / sizeof(nd_files[0]))

/* data: region id * ND_NR_FILES + file index, as a pointer. */
static int nd_attr_show(struct printer *p, void *data)
{
	uintptr_t v = (uintptr_t)data;
	const struct nd_region *r = nd_region((int)(v / ND_NR_FILES));
	bool dax;

	if (!r)
		return -ENODEV;
	dax = r->ns.mode == ND_MODE_DEVDAX;
	switch (nd_files[v % ND_NR_FILES].attr) {
	case REGION_SIZE:	pr_printf(p, "%llu\n", (unsigned long long)r->size); break;
	case REGION_ALIGN:	pr_printf(p, "%u\n", 16u << 20); break;	/* Linux's default */
	case REGION_NUMA_NODE:	pr_printf(p, "%d\n", r->nid); break;
	case REGION_MAPPINGS:	pr_printf(p, "1\n"); break;
	case REGION_AVAILABLE:	pr_printf(p, "%llu\n", (unsigned long long)(r->ns.present ? r->size - r->ns.size : r->size)); break;
	case REGION_NSTYPE:	pr_printf(p, "4\n"); break;	/* ND_DEVICE_NAMESPACE_IO */
	case NS_MODE:		pr_printf(p, "%s\n", dax ? "dax" : "raw"); break;
	case NS_UUID:
		if (r->labels && r->ns.present) {
			char uuid[37];

			nd_uuid_format(r->ns.uuid, uuid);
			pr_printf(p, "%s\n", uuid);
		} else
			pr_printf(p, "\n");	/* label-less: no uuid */
		break;
	case REGION_LABELS:	pr_printf(p, "%s\n", nd_label_kind_name(r)); break;
	case NS_SIZE:		pr_printf(p, "%llu\n", (unsigned long long)r->ns.size); break;
	case NS_HOLDER:		pr_printf(p, dax ? "dax%d.0\n" : "\n", r->id); break;
	case NS_NUMA_NODE:	pr_printf(p, "%d\n", r->nid); break;
	case NS_NSTYPE:		pr_printf(p, "4\n"); break;
	case DAX_ALIGN:		pr_printf(p, "%llu\n", (unsigned long long)(dax ? r->ns.align : 2u << 20)); break;
	case DAX_MODE:		pr_printf(p, "%s\n", dax ? "ram" : "none"); break;	/* memmap in RAM */
	case DAX_NAMESPACE:	pr_printf(p, dax ? "namespace%d.0\n" : "\n", r->id); break;
	case DAX_SIZE:		pr_printf(p, "%llu\n", (unsigned long long)(dax ? r->ns.size : 0)); break;
	case DAX_NUMA_NODE:	pr_printf(p, "%d\n", r->nid); break;
	}
	return 0;
}

static const struct vfs_file_ops nd_attr_ops = { .show = nd_attr_show };

void nd_views_init(void)
{
	for (int id = 0; nd_region(id); id++)
		for (unsigned i = 0; i < ND_NR_FILES; i++) {
			char dir[32], path[96];
			int err;

			ksnprintf(dir, sizeof(dir), nd_files[i].dir, id);
			ksnprintf(path, sizeof(path), "/sys/bus/nd/devices/%s/%s", dir, nd_files[i].name);
			err = vfs_create(path, &nd_attr_ops, (void *)(uintptr_t)(id * ND_NR_FILES + i));
			if (err)
				pr_warn("nd: %s not created: error %d", path, err);
		}
}

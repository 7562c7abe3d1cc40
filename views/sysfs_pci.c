/*
 * views/sysfs_pci.c - /sys/bus/pci/devices/: one directory per function
 * of the table, named as Linux names it, 0000:BB:DD.F (segment 0), each
 * with, in Linux's formats:
 *   vendor     "0x1af4"
 *   device     "0x1058"
 *   class      "0x050000" (class, subclass, programming interface)
 *   numa_node  the node of the function's _PXM (drivers/pci/acpi.c), -1
 *              when the firmware gives none, as Linux prints it
 * Linux makes the entries symlinks into /sys/devices/pci0000:00/...;
 * memlab makes them directories.  They are made when looked at (a
 * directory source over the table), so a hot-added function has one at
 * once; a removed one's directory goes with it (the removal observer
 * drivers/pci calls).  A file of a function that has gone reads -ENOENT.
 *
 * Context: pci_sysfs_init (boot, after vfs_init); the rest (main).
 */
#include <views/pci_views.h>
#include <views/vfs.h>
#include <drivers/pci.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>

#define DEVICES_DIR	"/sys/bus/pci/devices"

static bool sysfs_on;		/* the directory source is set (boot; read in main: no lock) */

/* bdf_key() / of_key() - a function's address packed as file data, and the
 * table's function at that address now (NULL: gone). */
static void *bdf_key(const struct pci_dev *d)
{
	return (void *)(uintptr_t)(((unsigned)d->bus << 8) | ((unsigned)d->dev << 3) | d->fn);
}

static struct pci_dev *of_key(void *data)
{
	unsigned k = (unsigned)(uintptr_t)data;

	return pci_get_bdf(k >> 8, (k >> 3) & 31, k & 7);
}

static int vendor_show(struct printer *p, void *data)
{
	struct pci_dev *d = of_key(data);

	if (!d)
		return -ENOENT;
	pr_printf(p, "0x%04x\n", d->vendor);
	return 0;
}

static int device_show(struct printer *p, void *data)
{
	struct pci_dev *d = of_key(data);

	if (!d)
		return -ENOENT;
	pr_printf(p, "0x%04x\n", d->device);
	return 0;
}

static int class_show(struct printer *p, void *data)
{
	struct pci_dev *d = of_key(data);

	if (!d)
		return -ENOENT;
	pr_printf(p, "0x%02x%02x%02x\n", d->class_code, d->subclass, d->prog_if);
	return 0;
}

static int numa_node_show(struct printer *p, void *data)
{
	struct pci_dev *d = of_key(data);

	if (!d)
		return -ENOENT;
	pr_printf(p, "%d\n", pci_numa_node(d));
	return 0;
}

static const struct vfs_file_ops vendor_ops = { .show = vendor_show };
static const struct vfs_file_ops device_ops = { .show = device_show };
static const struct vfs_file_ops class_ops = { .show = class_show };
static const struct vfs_file_ops numa_node_ops = { .show = numa_node_show };

static void name_of(const struct pci_dev *d, char name[VFS_NAME_MAX])
{
	ksnprintf(name, VFS_NAME_MAX, "0000:%02x:%02x.%x", d->bus, d->dev, d->fn);
}

/* dir_next() - the function whose name sorts first after `after` (names
 * are fixed-width lowercase hex: strcmp() order is address order). */
static bool dir_next(const char *after, char name[VFS_NAME_MAX], bool *is_dir, void *data)
{
	char best[VFS_NAME_MAX] = "", cand[VFS_NAME_MAX];

	(void)data;
	for (unsigned i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device(i);

		if (!d)
			continue;
		name_of(d, cand);
		if (strcmp(cand, after) > 0 && (!best[0] || strcmp(cand, best) < 0))
			strlcpy(best, cand, sizeof(best));
	}
	if (!best[0])
		return false;
	strlcpy(name, best, VFS_NAME_MAX);
	*is_dir = true;
	return true;
}

/* dir_make() - the files of the function called name. */
static int dir_make(const char *name, void *data)
{
	static const struct { const char *name; const struct vfs_file_ops *ops; } files[] = {
		{ "vendor", &vendor_ops }, { "device", &device_ops }, { "class", &class_ops },
		{ "numa_node", &numa_node_ops },
	};
	char cand[VFS_NAME_MAX], path[VFS_PATH_MAX];

	(void)data;
	for (unsigned i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device(i);

		if (!d)
			continue;
		name_of(d, cand);
		if (strcmp(cand, name))
			continue;
		for (unsigned f = 0; f < ARRAY_SIZE(files); f++) {
			int err;

			ksnprintf(path, sizeof(path), DEVICES_DIR "/%s/%s", name, files[f].name);
			err = vfs_create(path, files[f].ops, bdf_key(d));
			if (err && err != -EEXIST)
				return err;
		}
		return 0;
	}
	return -ENOENT;
}

static const struct vfs_dir_source devices_source = { .next = dir_next, .make = dir_make };
static void sysfs_removed(const struct pci_dev *d);

/*
 * pci_sysfs_init() - /sys/bus/pci/devices/ from the table, from now on.
 * A failure is logged; PCI works without it.  Context: (boot), after
 * vfs_init().
 */
void pci_sysfs_init(void)
{
	int err = vfs_set_dir_source(DEVICES_DIR, &devices_source);

	if (err) {
		pr_warn("pci: no " DEVICES_DIR " (%d)", err);
		return;
	}
	sysfs_on = true;
	pci_set_removal_observer(sysfs_removed);
}

/* sysfs_removed() - d leaves the table: its directory, if made, goes.
 * Context: (main). */
static void sysfs_removed(const struct pci_dev *d)
{
	char name[VFS_NAME_MAX], path[VFS_PATH_MAX];

	if (!sysfs_on)
		return;
	name_of(d, name);
	ksnprintf(path, sizeof(path), DEVICES_DIR "/%s", name);
	vfs_remove(path);
}

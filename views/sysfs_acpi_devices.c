/*
 * sysfs_acpi_devices.c - /sys/bus/acpi/devices/: one directory per device
 * of the AML namespace that has a _HID, named as Linux names it: the _HID
 * and an instance number per _HID in namespace order, two hex digits
 * (PNP0C80:00, PNP0C80:01, ..., PNP0A08:00).  Each holds, in the formats of
 * Linux's drivers/acpi/device_sysfs.c:
 *   hid       the _HID ("PNP0C80")
 *   path      the namespace path ("\_SB_.MHPC.MP00")
 *   status    _STA in decimal ("15"), evaluated at each read; only for a
 *             device that has _STA, as in Linux
 *   modalias  "acpi:PNP0C80:" (the _HID only; Linux appends each _CID)
 *   uevent    "MODALIAS=acpi:PNP0C80:"
 * Linux makes these entries symlinks into /sys/devices/LNXSYSTM:00/...;
 * memlab makes them directories.  The devices are those of the namespace
 * at boot (QEMU's memory devices exist for every slot, plugged or not).
 * Context: init (creation), then main (reads).
 */
#include <views/acpi_views.h>
#include <views/vfs.h>
#include <drivers/acpi.h>
#include <drivers/aml.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>

#define DEVICES_DIR	"/sys/bus/acpi/devices"
#define MAX_HIDS	64	/* distinct _HIDs counted; more share no number */

/* The instance counters: one per _HID seen. */
struct hid_count {
	char hid[16];
	unsigned n;
};

struct walk {
	struct hid_count ids[MAX_HIDS];
	unsigned nids;
	unsigned made, failed;
};

static struct aml_ns *view_ns;	/* the namespace the files read */

/* data: the device's struct aml_node. */
static int hid_show(struct printer *p, void *data)
{
	char hid[16];

	if (aml_device_hid(view_ns, data, hid, sizeof(hid)))
		return -EIO;
	pr_printf(p, "%s\n", hid);
	return 0;
}

static int path_show(struct printer *p, void *data)
{
	char path[128];

	aml_node_path(data, path, sizeof(path));
	pr_printf(p, "%s\n", path);
	return 0;
}

static int status_show(struct printer *p, void *data)
{
	u64 sta;

	if (aml_device_status(view_ns, data, &sta))
		return -EIO;
	pr_printf(p, "%llu\n", (unsigned long long)sta);
	return 0;
}

static int modalias_show(struct printer *p, void *data)
{
	char hid[16];

	if (aml_device_hid(view_ns, data, hid, sizeof(hid)))
		return -EIO;
	pr_printf(p, "acpi:%s:\n", hid);
	return 0;
}

static int uevent_show(struct printer *p, void *data)
{
	pr_printf(p, "MODALIAS=");
	return modalias_show(p, data);
}

static const struct vfs_file_ops hid_ops = { .show = hid_show };
static const struct vfs_file_ops path_ops = { .show = path_show };
static const struct vfs_file_ops status_ops = { .show = status_show };
static const struct vfs_file_ops modalias_ops = { .show = modalias_show };
static const struct vfs_file_ops uevent_ops = { .show = uevent_show };

/* The next instance number of hid, or -1 when MAX_HIDS are counted. */
static int next_instance(struct walk *w, const char *hid)
{
	for (unsigned i = 0; i < w->nids; i++)
		if (!strcmp(w->ids[i].hid, hid))
			return (int)w->ids[i].n++;
	if (w->nids == MAX_HIDS)
		return -1;
	strlcpy(w->ids[w->nids].hid, hid, sizeof(w->ids[0].hid));
	w->ids[w->nids].n = 1;
	w->nids++;
	return 0;
}

static int add_device(struct aml_ns *ns, struct aml_node *dev, void *arg)
{
	static const struct { const char *name; const struct vfs_file_ops *ops; } files[] = {
		{ "hid", &hid_ops }, { "path", &path_ops }, { "modalias", &modalias_ops },
		{ "uevent", &uevent_ops }, { "status", &status_ops },
	};
	struct walk *w = arg;
	char hid[16], path[VFS_PATH_MAX];
	int nth;

	if (aml_device_hid(ns, dev, hid, sizeof(hid)) || !hid[0] || strchr(hid, '/'))
		return 0;
	nth = next_instance(w, hid);
	if (nth < 0 || nth > 0xff) {
		w->failed++;
		return 0;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(files); i++) {
		if (files[i].ops == &status_ops && !aml_child(dev, "_STA"))
			continue;
		ksnprintf(path, sizeof(path), DEVICES_DIR "/%s:%02x/%s", hid, (unsigned)nth,
			  files[i].name);
		if (vfs_create(path, files[i].ops, dev)) {
			w->failed++;
			return 0;
		}
	}
	w->made++;
	return 0;
}

void acpi_devices_views_init(void)
{
	static struct walk w;

	view_ns = acpi_aml();
	if (!view_ns)
		return;
	memset(&w, 0, sizeof(w));
	aml_walk_devices(view_ns, add_device, &w);
	if (w.failed)
		pr_warn("acpi: %u devices left out of " DEVICES_DIR " (no room, or too many _HIDs)",
			w.failed);
}

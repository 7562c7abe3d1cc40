/*
 * iomem.c - /proc/iomem and /proc/ioports: the kernel's resource trees
 * (kernel/resource.c) in Linux's format, "start-end : name" with the
 * addresses in lowercase hex, zero-padded to 8 digits (4 for I/O ports),
 * two spaces of indentation per level of nesting.
 *
 * What is in the trees is whatever the kernel has claimed at the moment of
 * reading: the firmware map and the kernel image (boot), PCI windows and
 * BARs (drivers/pci/iomem.c), the APICs and the HPET (drivers/acpi), and
 * hot-added memory (ACPI memory hotplug, virtio-mem).
 */
#include <kernel/resource.h>
#include <views/vfs.h>

/* show() of /proc/iomem. */
static int iomem_show(struct printer *p, void *data)
{
	(void)data;
	resource_print_tree(&iomem_resource, 8, p);
	return 0;
}

/* show() of /proc/ioports. */
static int ioports_show(struct printer *p, void *data)
{
	(void)data;
	resource_print_tree(&ioport_resource, 4, p);
	return 0;
}

static const struct vfs_file_ops iomem_ops = {
	.show = iomem_show,
};

static const struct vfs_file_ops ioports_ops = {
	.show = ioports_show,
};

VFS_FILE(proc_iomem, "/proc/iomem", &iomem_ops, NULL);
VFS_FILE(proc_ioports, "/proc/ioports", &ioports_ops, NULL);

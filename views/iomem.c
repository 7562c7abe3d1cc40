/*
 * iomem.c - /proc/iomem: the sanitized firmware map with the kernel image
 * nested under the System RAM range that holds it, as Linux shows it.
 *
 * Kernel build only: it reads the linker's section symbols (sections.h).
 * The text itself comes from fw_memmap_print_iomem() in fw_memmap.c, which
 * the host tests check.
 */
#include <arch/bootinfo.h>
#include <lib/fw_memmap.h>
#include <arch/sections.h>
#include <views/vfs.h>

/* show() of /proc/iomem: the image parts are physical, half-open ranges. */
static int iomem_show(struct printer *p, void *data)
{
	const struct fw_iomem_child kernel_parts[] = {
		{ kernel_pa(_text), kernel_pa(_etext), "Kernel code" },
		{ kernel_pa(_rodata), kernel_pa(_erodata), "Kernel rodata" },
		{ kernel_pa(_data), kernel_pa(_edata), "Kernel data" },
		{ kernel_pa(_bss), kernel_pa(_ebss), "Kernel bss" },
	};

	(void)data;
	fw_memmap_print_iomem(&boot_info.memmap, kernel_parts,
			      ARRAY_SIZE(kernel_parts), p);
	return 0;
}

static const struct vfs_file_ops iomem_ops = {
	.show = iomem_show,
};

VFS_FILE(proc_iomem, "/proc/iomem", &iomem_ops, NULL);

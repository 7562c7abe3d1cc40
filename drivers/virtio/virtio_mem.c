/*
 * virtio_mem.c - the virtio-mem driver (virtio device 24) in Sub Block Mode,
 * the way Linux's drivers/virtio/virtio_mem.c does it (a Linux file),
 * polled: this file is its probe and removal, the PCI driver.  The
 * protocol is in virtio_mem_proto.c, the sub-block state machine in
 * virtio_mem_sb.c, plugging, unplugging and the resize round in
 * virtio_mem_plug.c, the view in virtio_mem_dump.c.
 *
 * The device offers a region [addr, addr + region_size) of guest-physical
 * memory cut into device blocks of block_size (2 MiB on x86 hosts).  The
 * host sets requested_size; the driver plugs (PLUG) or unplugs (UNPLUG)
 * device blocks until plugged_size equals it.  The kernel manages memory
 * in 128 MiB memory blocks (memory_hotplug.h), so the driver works on two
 * levels: memory blocks added to the kernel or not, and sub-blocks (one
 * device block each) plugged or not.
 *
 * Context: probe from pci_init/pci_rescan; everything else from the poller
 * and the shell, (main).
 */
#include "virtio_mem_internal.h"
#include <drivers/acpi.h>
#include <kernel/resource.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <mm/gfp.h>
#include <mm/mmzone.h>
#include <mm/page.h>

struct vmem_dev vmem_devs[VMEM_MAX_DEVICES];
bool vmem_callback_set;
static bool vmem_poller_registered;

/* ---- probe --------------------------------------------------------------- */

/*
 * vmem_region_overlaps() - -EEXIST if vm's region touches a memory block
 * the kernel already has (boot RAM, a DIMM) or another device's region,
 * with the reason logged; 0 otherwise.  Linux's driver fails the same way
 * when it cannot reserve the region's resource.
 */
static int vmem_region_overlaps(const struct vmem_dev *vm)
{
	u64 end = vm->addr + vm->region_size;
	unsigned long id = (unsigned long)(vm->addr / MEMORY_BLOCK_SIZE);
	struct memory_block *mem = vm->region_size ? memory_block_next(&id) : NULL;

	if (mem && (u64)id * MEMORY_BLOCK_SIZE < end) {
		pr_err("%s: region [%#llx, +%#llx) overlaps memory%lu, which the kernel already has\n",
		       vm->name, (unsigned long long)vm->addr, (unsigned long long)vm->region_size, id);
		return -EEXIST;
	}
	for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
		const struct vmem_dev *o = &vmem_devs[d];

		if (o == vm || !o->in_use || !vm->region_size || !o->region_size ||
		    end <= o->addr || o->addr + o->region_size <= vm->addr)
			continue;
		pr_err("%s: region [%#llx, +%#llx) overlaps the region of %s\n", vm->name,
		       (unsigned long long)vm->addr, (unsigned long long)vm->region_size, o->name);
		return -EEXIST;
	}
	return 0;
}

int vmem_probe(struct pci_dev *pci)
{
	struct vmem_dev *vm = NULL;
	int err;

	for (int d = 0; d < VMEM_MAX_DEVICES && !vm; d++)
		if (!vmem_devs[d].in_use)
			vm = &vmem_devs[d];
	if (!vm) {
		pr_err("virtio-mem: more than %d devices: %02x:%02x.%u ignored\n", VMEM_MAX_DEVICES,
		       pci->bus, pci->dev, pci->fn);
		return -ENOSPC;
	}
	memset(vm, 0, sizeof(*vm));
	ksnprintf(vm->name, sizeof(vm->name), "virtio-mem %02x:%02x.%u", pci->bus, pci->dev, pci->fn);

	err = virtio_pci_setup(&vm->vd, pci,
			       (1ULL << VIRTIO_MEM_F_ACPI_PXM) |
				       (1ULL << VIRTIO_MEM_F_UNPLUGGED_INACCESSIBLE), 0);
	if (err)
		return err;
	if (vm->vd.device_len < VMEM_CFG_LEN) {
		pr_err("%s: device config is %u bytes, needs %u\n", vm->name, vm->vd.device_len,
		       VMEM_CFG_LEN);
		virtio_reset(&vm->vd);
		return -EIO;
	}
	if (vmem_cfg64(vm, VMEM_CFG_BLOCK_SIZE, &vm->block_size) ||
	    vmem_cfg64(vm, VMEM_CFG_ADDR, &vm->addr) ||
	    vmem_cfg64(vm, VMEM_CFG_REGION_SIZE, &vm->region_size)) {
		virtio_reset(&vm->vd);
		return -EIO;
	}
	if (vm->block_size < (2ULL << 20) || vm->block_size > MEMORY_BLOCK_SIZE ||
	    (vm->block_size & (vm->block_size - 1))) {
		pr_err("%s: block size %#llx unsupported: must be a power of two in [2 MiB, 128 MiB]\n",
		       vm->name, (unsigned long long)vm->block_size);
		virtio_reset(&vm->vd);
		return -EINVAL;
	}
	if ((vm->addr | vm->region_size) & (vm->block_size - 1)) {
		pr_err("%s: region [%#llx, +%#llx) is not block aligned\n", vm->name,
		       (unsigned long long)vm->addr, (unsigned long long)vm->region_size);
		virtio_reset(&vm->vd);
		return -EINVAL;
	}
	if (vm->addr + vm->region_size < vm->addr ||
	    vm->addr + vm->region_size > (1ULL << MAX_PHYSMEM_BITS)) {
		pr_err("%s: region [%#llx, +%#llx) ends beyond the %d-bit physical address space\n",
		       vm->name, (unsigned long long)vm->addr, (unsigned long long)vm->region_size,
		       MAX_PHYSMEM_BITS);
		virtio_reset(&vm->vd);
		return -EINVAL;
	}
	err = vmem_region_overlaps(vm);
	if (err) {
		virtio_reset(&vm->vd);
		return err;
	}
	vm->sb_size = vm->block_size;	/* >= 2 MiB = one pageblock */
	vm->sb_per_mb = (unsigned)(MEMORY_BLOCK_SIZE / vm->sb_size);

	u64 first = (vm->addr + MEMORY_BLOCK_SIZE - 1) / MEMORY_BLOCK_SIZE;
	u64 end = (vm->addr + vm->region_size) / MEMORY_BLOCK_SIZE;

	if (vm->addr % MEMORY_BLOCK_SIZE || (vm->addr + vm->region_size) % MEMORY_BLOCK_SIZE)
		pr_warn("%s: region [%#llx, +%#llx) is not 128 MiB aligned: the partial memory blocks are not used\n",
			vm->name, (unsigned long long)vm->addr, (unsigned long long)vm->region_size);
	vm->first_mb_id = first;
	vm->nr_mbs = end > first ? (unsigned)MIN(end - first, (u64)VMEM_MAX_MBS) : 0;
	if (end > first && end - first > VMEM_MAX_MBS)
		pr_warn("%s: region has %llu memory blocks, only the first %u are used\n", vm->name,
			(unsigned long long)(end - first), VMEM_MAX_MBS);

	/* node */
	vm->nid = 0;
	if (virtio_has_feature(&vm->vd, VIRTIO_MEM_F_ACPI_PXM)) {
		u16 pxm = 0;
		int nid;

		if (virtio_cfg_read(&vm->vd, VMEM_CFG_NODE_ID, &pxm, sizeof(pxm))) {
			pr_warn("%s: node id: no stable read: using node 0\n", vm->name);
			nid = 0;
		} else {
			nid = acpi_pxm_to_node(pxm);
		}
		if (nid < 0)
			pr_warn("%s: proximity domain %u has no node: using node 0\n", vm->name, pxm);
		else
			vm->nid = nid;
	}

	/* per-block arrays: a u64 bitmap, a state byte and a memmap count per block */
	u64 meta = (u64)vm->nr_mbs * 10 + 8;
	unsigned order = 0;

	while ((PAGE_SIZE << order) < meta)
		order++;
	vm->meta_pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
	if (!vm->meta_pages) {
		pr_err("%s: no memory for %u memory blocks of state\n", vm->name, vm->nr_mbs);
		virtio_reset(&vm->vd);
		return -ENOMEM;
	}
	vm->meta_order = order;
	vm->mb_plugged = mm_phys_to_virt(page_to_phys(vm->meta_pages));
	vm->mb_state = (u8 *)(vm->mb_plugged + vm->nr_mbs);
	vm->mb_memmaps = vm->mb_state + vm->nr_mbs;
	vm->mb_count[VMEM_MB_UNUSED] = vm->nr_mbs;

	err = virtio_find_vq(&vm->vd, 0);
	if (!err)
		err = virtio_driver_ok(&vm->vd);
	if (err)
		goto fail_meta;

	vmem_read_config(vm);
	if (vm->dev_plugged_size) {
		u16 st = 0;
		int r = vmem_request(vm, VIRTIO_MEM_REQ_UNPLUG_ALL, 0, 0, &st);

		pr_info("%s: %llu MiB plugged at probe: UNPLUG_ALL -> %s\n", vm->name,
			(unsigned long long)(vm->dev_plugged_size >> 20),
			r < 0 ? err_text(r) : virtio_mem_resp_name((u16)r));
		if (r != VIRTIO_MEM_RESP_ACK)
			vm->retry_at = jiffies() + VMEM_RETRY_BUSY;
		vmem_read_config(vm);
	}

	vm->mgid = memory_group_register_dynamic(vm->nid, PAGES_PER_MEMORY_BLOCK, vm->name);
	if (vm->mgid < 0) {
		pr_err("%s: no memory group (%s)\n", vm->name, err_text(vm->mgid));
		err = vm->mgid;
		goto fail_meta;
	}
	memory_group_set_ops(vm->mgid, &vmem_group_ops, vm);
	if (!vmem_callback_set) {
		err = set_online_page_callback_deferrable(vmem_online_page, vmem_online_count);
		if (err) {
			pr_err("%s: another online_page_callback is set\n", vm->name);
			memory_group_unregister(vm->mgid);
			goto fail_meta;
		}
		vmem_callback_set = true;
	}
	if (!vmem_poller_registered) {
		register_poller(&vmem_poller);	/* for good: it skips unused slots */
		vmem_poller_registered = true;
	}
	char res_name[16];	/* /proc/iomem names the region after the virtio device */

	ksnprintf(res_name, sizeof(res_name), "virtio%u", (unsigned)(vm - vmem_devs));
	request_device_region(vm->addr, vm->region_size, res_name);
	vm->in_use = true;
	pci->driver_data = vm;
	pr_info("%s: region [%#llx-%#llx) %llu MiB, block size %llu KiB, node %d, %u memory blocks, features %#llx\n",
		vm->name, (unsigned long long)vm->addr,
		(unsigned long long)(vm->addr + vm->region_size),
		(unsigned long long)(vm->region_size >> 20), (unsigned long long)(vm->block_size >> 10),
		vm->nid, vm->nr_mbs, (unsigned long long)vm->vd.features);
	return 0;

fail_meta:
	free_pages(vm->meta_pages, vm->meta_order);
	vm->meta_pages = NULL;
	virtio_reset(&vm->vd);
	virtio_del_vq(&vm->vd);
	return err;
}

/*
 * vmem_remove() - the device goes away (pci_remove_device; QEMU 7.2 refuses
 * device_del of virtio-mem, so today only the tests get here).  Every
 * memory block the driver added is offlined and removed, whatever the
 * device says: passes over the blocks until one makes no progress, since
 * a block's memmap may live in another block added before it.  Then the
 * device is asked to UNPLUG_ALL (best effort), reset, and the driver's
 * state and queue are freed.  A block that cannot be offlined (unmovable
 * pages) keeps the device's slot, marked broken, so the online_page
 * callback still knows its unplugged sub-blocks; the log says which.
 */
static void vmem_remove(struct pci_dev *pci)
{
	struct vmem_dev *vm = pci->driver_data;
	unsigned left;
	bool progress = true;

	if (!vm)
		return;
	if (vmem_resizing(vm)) {
		/* between slices every block is whole: stop the round here */
		longop_cancel(&vm->op);
		pr_info("%s: removed while resizing: the resize stops at %llu MiB plugged\n", vm->name,
			(unsigned long long)((vm->plugged_sbs * vm->sb_size) >> 20));
	}
	while (progress) {
		progress = false;
		left = 0;
		for (int i = (int)vm->nr_mbs - 1; i >= 0; i--) {
			if (vm->mb_state[i] == VMEM_MB_UNUSED)
				continue;
			struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + (unsigned)i);
			u64 pa = vmem_mb_addr(vm, (unsigned)i);
			int err = mem && mem->state == MEM_ONLINE ?
					  offline_and_remove_memory(pa, MEMORY_BLOCK_SIZE) :
					  remove_memory(pa, MEMORY_BLOCK_SIZE);

			vmem_mb_refresh_state(vm, (unsigned)i);
			if (err)
				left++;
			else
				progress = true;
		}
	}
	if (left) {
		pr_err("%s: removed while %u memory blocks of it cannot be offlined: they stay, the device is marked broken\n",
		       vm->name, left);
		vm->vd.broken = true;
		return;
	}
	if (!vm->vd.broken) {
		int r = vmem_request(vm, VIRTIO_MEM_REQ_UNPLUG_ALL, 0, 0, NULL);

		if (r != VIRTIO_MEM_RESP_ACK)
			pr_warn("%s: UNPLUG_ALL at removal: %s\n", vm->name,
				r < 0 ? err_text(r) : virtio_mem_resp_name((u16)r));
	}
	for (unsigned i = 0; i < vm->nr_mbs; i++)
		vmem_sb_set_plugged(vm, i, 0, vm->sb_per_mb, false);
	memory_group_unregister(vm->mgid);
	virtio_reset(&vm->vd);
	virtio_del_vq(&vm->vd);
	free_pages(vm->meta_pages, vm->meta_order);
	vm->meta_pages = NULL;
	release_region(&iomem_resource, vm->addr, vm->region_size);	/* /proc/iomem */
	vm->in_use = false;
	pci->driver_data = NULL;
	pr_info("%s: removed\n", vm->name);
	for (int d = 0; d < VMEM_MAX_DEVICES; d++)
		if (vmem_devs[d].in_use)
			return;
	/* the last device: onlined memory goes straight to the buddy again,
	 * and another driver may set its own callback */
	restore_online_page_callback(vmem_online_page);
	vmem_callback_set = false;
}

const struct pci_driver vmem_driver = {
	.name = "virtio-mem",
	.vendor = VIRTIO_PCI_VENDOR,
	.device = VIRTIO_ID_MEM_PCI,
	.probe = vmem_probe,
	.remove = vmem_remove,
};

void virtio_mem_init(void)
{
	pci_register_driver(&vmem_driver);
}


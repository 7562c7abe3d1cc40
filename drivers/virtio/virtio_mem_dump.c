/*
 * virtio_mem_dump.c - the `virtio-mem` view of the virtio-mem driver:
 * every device's region, sizes, request counters, status and, per added
 * memory block, its zone, state and plugged sub-blocks; and the answers of
 * `virtio-mem retry` and `virtio-mem state`.
 *
 * Context: (main).
 */
#include "virtio_mem_internal.h"
#include <lib/errno.h>
#include <lib/printer.h>

/* Contract in virtio_mem.h. */
void virtio_mem_dump(struct printer *p)
{
	int shown = 0;

	for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
		struct vmem_dev *vm = &vmem_devs[d];

		if (!vm->in_use)
			continue;
		shown++;
		vmem_read_config(vm);
		vmem_refresh_all(vm);
		pr_printf(p, "%s: node %d, memory group %d%s\n", vm->name, vm->nid, vm->mgid,
			  vm->vd.broken ? ", BROKEN (no more requests)" : "");
		pr_printf(p, "  region:      [0x%llx-0x%llx) %llu MiB\n", (unsigned long long)vm->addr,
			  (unsigned long long)(vm->addr + vm->region_size),
			  (unsigned long long)(vm->region_size >> 20));
		pr_printf(p, "  block size:  %llu KiB (sub-block %llu KiB, %u per memory block)\n",
			  (unsigned long long)(vm->block_size >> 10),
			  (unsigned long long)(vm->sb_size >> 10), vm->sb_per_mb);
		pr_printf(p, "  plugged:     %llu MiB (device: %llu MiB)\n",
			  (unsigned long long)((vm->plugged_sbs * vm->sb_size) >> 20),
			  (unsigned long long)(vm->dev_plugged_size >> 20));
		pr_printf(p, "  requested:   %llu MiB\n", (unsigned long long)(vm->requested_size >> 20));
		if (vmem_resizing(vm))
			pr_printf(p, "  moving:      %s, %llu of %llu MiB done, %llu ms so far\n",
				  vm->op_plug ? "plugging" : "unplugging",
				  (unsigned long long)vm->op.done, (unsigned long long)vm->op.total,
				  (unsigned long long)((ktime_ns() - vm->round_t0) / 1000000));
		pr_printf(p, "  usable:      %llu MiB\n",
			  (unsigned long long)(vm->usable_region_size >> 20));
		pr_printf(p, "  features:    %s%s%s\n",
			  virtio_has_feature(&vm->vd, VIRTIO_F_VERSION_1) ? "VERSION_1" : "",
			  virtio_has_feature(&vm->vd, VIRTIO_MEM_F_ACPI_PXM) ? " ACPI_PXM" : "",
			  virtio_has_feature(&vm->vd, VIRTIO_MEM_F_UNPLUGGED_INACCESSIBLE) ?
				  " UNPLUGGED_INACCESSIBLE" : "");
		pr_printf(p, "  requests:    plug %llu, unplug %llu, nack %llu, busy %llu, error %llu\n",
			  (unsigned long long)vm->plug_reqs, (unsigned long long)vm->unplug_reqs,
			  (unsigned long long)vm->nacks, (unsigned long long)vm->busys,
			  (unsigned long long)vm->errors);
		pr_printf(p, "  last round:  %llu ms\n", (unsigned long long)(vm->last_round_ns / 1000000));
		pr_printf(p, "  status:      %s%s%s\n",
			  vm->halted ? "halted: " :
			  vmem_resizing(vm) ? "resizing" :
			  vm->why[0] ? "stopped short: " : "converged",
			  vm->why, vm->retry_at ? " (retrying)" : "");
		pr_printf(p, "  blocks:");
		for (int s = 0; s < VMEM_MB_NR_STATES; s++)
			pr_printf(p, " %s %lu", vmem_mb_state_names[s], vm->mb_count[s]);
		pr_printf(p, "\n");
		for (unsigned i = 0; i < vm->nr_mbs; i++) {
			if (vm->mb_state[i] == VMEM_MB_UNUSED)
				continue;
			struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + i);
			char bits[VMEM_MAX_SB_PER_MB + 1];

			for (unsigned sb = 0; sb < vm->sb_per_mb; sb++)
				bits[sb] = vmem_sb_plugged(vm, i, sb) ? '#' : '.';
			bits[vm->sb_per_mb] = 0;
			pr_printf(p, "  memory%-6llu %-8s %-16s %2u/%u %s\n",
				  (unsigned long long)(vm->first_mb_id + i),
				  mem && mem->zone ? mem->zone->name : "-",
				  vmem_mb_state_names[vm->mb_state[i]], vmem_mb_nr_plugged(vm, i),
				  vm->sb_per_mb, bits);
		}
	}
	if (!shown)
		pr_printf(p, "virtio-mem: no device\n");
}

static const char *state_name(u16 s)
{
	switch (s) {
	case VIRTIO_MEM_STATE_PLUGGED: return "plugged";
	case VIRTIO_MEM_STATE_UNPLUGGED: return "unplugged";
	case VIRTIO_MEM_STATE_MIXED: return "mixed";
	default: return "invalid";
	}
}

/* Contract in virtio_mem.h. */
int virtio_mem_state(struct printer *out, u64 addr, u64 size)
{
	for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
		struct vmem_dev *vm = &vmem_devs[d];

		if (!vm->in_use || addr < vm->addr || addr >= vm->addr + vm->region_size)
			continue;
		if ((addr | size) % vm->block_size || size / vm->block_size > 0xffff ||
		    addr + size > vm->addr + vm->region_size) {
			pr_printf(out, "virtio-mem state: [%#llx, +%#llx) must be block aligned (%llu KiB), at most 65535 blocks, inside the region\n",
				  (unsigned long long)addr, (unsigned long long)size,
				  (unsigned long long)(vm->block_size >> 10));
			return -EINVAL;
		}
		u16 st = 0;
		int r = vmem_request(vm, VIRTIO_MEM_REQ_STATE, addr, size / vm->block_size, &st);

		if (r < 0) {
			pr_printf(out, "virtio-mem state: request failed: %s\n", err_text(r));
			return r;
		}
		if (r != VIRTIO_MEM_RESP_ACK) {
			pr_printf(out, "virtio-mem state: [%#llx, +%#llx): %s\n",
				  (unsigned long long)addr, (unsigned long long)size,
				  virtio_mem_resp_name((u16)r));
			return -EIO;
		}
		pr_printf(out, "%s: [0x%llx-0x%llx) %s\n", vm->name, (unsigned long long)addr,
			  (unsigned long long)(addr + size), state_name(st));
		return 0;
	}
	pr_printf(out, "virtio-mem state: %#llx is in no virtio-mem region\n",
		  (unsigned long long)addr);
	return -EINVAL;
}

/*
 * virtio_mem_sb.c - the virtio-mem driver's sub-block state machine: per
 * memory block of a device's region its state (enum vmem_mb_state) and
 * its plugged sub-block bitmap, each with its one setter that keeps the
 * counters (mb_count[], plugged_sbs), and the state derived from the
 * kernel's memory block.
 *
 * Memory block states:
 *
 *   UNUSED --plug first sub-blocks + add--> OFFLINE(_PARTIAL) --online--> KERNEL/MOVABLE(_PARTIAL)
 *     ^                                                                         |
 *     +------------ last sub-block unplugged: offline + remove -----------------+
 *
 * Context: (main).
 */
#include "virtio_mem_internal.h"
#include <kernel/resource.h>

const char *const vmem_mb_state_names[VMEM_MB_NR_STATES] = {
	"unused", "offline", "offline-partial", "kernel", "kernel-partial", "movable",
	"movable-partial",
};

/* vmem_mb_set_state() - the only writer of mb_state[]; keeps mb_count[]. */
static void vmem_mb_set_state(struct vmem_dev *vm, unsigned i, enum vmem_mb_state st)
{
	vm->mb_count[vm->mb_state[i]]--;
	vm->mb_state[i] = (u8)st;
	vm->mb_count[st]++;
}

void vmem_sb_set_plugged(struct vmem_dev *vm, unsigned i, unsigned sb, unsigned n, bool on)
{
	for (unsigned k = sb; k < sb + n; k++) {
		u64 bit = 1ULL << k;

		if (on && !(vm->mb_plugged[i] & bit)) {
			vm->mb_plugged[i] |= bit;
			vm->plugged_sbs++;
		} else if (!on && (vm->mb_plugged[i] & bit)) {
			vm->mb_plugged[i] &= ~bit;
			vm->plugged_sbs--;
		}
	}
}

/*
 * vmem_mb_refresh_state() - derive the state of an added block from the
 * kernel's memory block (online? which zone?) and its bitmap.
 */
void vmem_mb_refresh_state(struct vmem_dev *vm, unsigned i)
{
	struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + i);
	bool full = vmem_mb_nr_plugged(vm, i) == vm->sb_per_mb;
	enum vmem_mb_state st;

	if (!mem)
		st = VMEM_MB_UNUSED;
	else if (mem->state != MEM_ONLINE || !mem->zone)
		st = full ? VMEM_MB_OFFLINE : VMEM_MB_OFFLINE_PARTIAL;
	else if (mem->zone->idx == ZONE_MOVABLE)
		st = full ? VMEM_MB_MOVABLE : VMEM_MB_MOVABLE_PARTIAL;
	else
		st = full ? VMEM_MB_KERNEL : VMEM_MB_KERNEL_PARTIAL;
	vmem_mb_set_state(vm, i, st);
	/* /proc/iomem: an added block is System RAM inside the device's region */
	set_system_ram_resource(vmem_mb_addr(vm, i), MEMORY_BLOCK_SIZE, mem != NULL,
				"System RAM (virtio_mem)");
}

/* Blocks may have been onlined or offlined through sysfs meanwhile. */
void vmem_refresh_all(struct vmem_dev *vm)
{
	for (unsigned i = 0; i < vm->nr_mbs; i++)
		if (vm->mb_state[i] != VMEM_MB_UNUSED)
			vmem_mb_refresh_state(vm, i);
	vm->blocks_seen = memory_blocks_generation();
}

struct vmem_dev *vmem_dev_of_pfn(u64 pfn)
{
	u64 pa = PFN_PHYS(pfn);

	for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
		struct vmem_dev *vm = &vmem_devs[d];

		if (vm->in_use && pa >= vmem_mb_addr(vm, 0) && pa < vmem_mb_addr(vm, vm->nr_mbs))
			return vm;
	}
	return NULL;
}

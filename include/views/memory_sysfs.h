/*
 * memory_sysfs.h - the memory hotplug views and controls, in Linux's files.
 *
 * views/sysfs_memory.c shows the memory blocks of the hotplug core
 * (mm/memory_hotplug.h) the way Linux's linux/drivers/base/memory.c does:
 *
 *   /sys/devices/system/memory/block_size_bytes        "8000000" (hex, no 0x)
 *   /sys/devices/system/memory/auto_online_blocks      r/w: offline, online,
 *                                                      online_kernel, online_movable
 *   /sys/devices/system/memory/memoryN/state           r: online, offline, going-offline
 *                                                      w: online, online_kernel,
 *                                                         online_movable, offline
 *   /sys/devices/system/memory/memoryN/online          r/w: 1 or 0
 *   /sys/devices/system/memory/memoryN/valid_zones     "Normal Movable", "Movable", "none"
 *   /sys/devices/system/memory/memoryN/phys_index      block id, "%08lx"
 *   /sys/devices/system/memory/memoryN/removable       1 (legacy)
 *   /sys/devices/system/memory/memoryN/phys_device     0 (legacy, s390 only)
 *   /sys/devices/system/memory/memoryN/node            the node (memlab only: Linux
 *                                                      has a nodeM symlink instead)
 *   /sys/module/memory_hotplug/parameters/{online_policy, auto_movable_ratio,
 *                                          auto_movable_numa_aware, memmap_on_memory}
 *   /sys/kernel/debug/notifier-error-inject/memory/actions/
 *                              {MEM_GOING_ONLINE,MEM_GOING_OFFLINE}/error
 *
 * The static files exist for the whole boot (VFS_FILE).  A memoryN
 * directory exists exactly while block N exists: memory_sysfs_init()
 * registers a memory_block_notifier (mm/memory_hotplug.h) whose hooks
 * create memoryN/ after the hotplug core created a block and remove it
 * after it removed one.  Blocks created before the file tree exists (boot
 * memory) get their directories from the fill memory_sysfs_init() starts,
 * which kmain calls once after vfs_init() and after the boot blocks exist.
 *
 * Context: (main) only, like the hotplug core.
 */
#ifndef VIEWS_MEMORY_SYSFS_H
#define VIEWS_MEMORY_SYSFS_H

#include <mm/memory_hotplug.h>

/*
 * memory_sysfs_init() - start following the add/remove hooks, and create
 * memoryN/ for every block that exists now: one slice (LONGOP_SLICE_NS)
 * here, the rest, if any, in a long operation after the prompt (`work`
 * lists it as "sysfs memory block files" while it runs; the first
 * reader of any vfs file finishes it first, so no reader sees it half
 * done).  Call once, after vfs_init() and after the boot memory blocks
 * were created.  Failures (a full node pool) are logged; the blocks still
 * work, only their files are missing.
 */
void memory_sysfs_init(void);

/*
 * memory_block_state_store() - what a write to memoryN/state does: buf
 * is "online", "online_kernel", "online_movable" or "offline" (one
 * trailing newline allowed).  Returns 0, -EINVAL for another word or a
 * transition that is not possible from the block's state (as Linux:
 * onlining an online block, offlining an offline one), -ENODEV if the
 * block does not exist, or memory_block_online()/offline()'s error
 * (-EBUSY: unmovable pages; an injected notifier error).  The `memory`
 * shell command uses it too, so both paths behave the same.
 */
int memory_block_state_store(unsigned long block_id, const char *buf, size_t len);

#endif

/*
 * sysfs_memory.c - memory blocks as Linux shows them, in
 * /sys/devices/system/memory/, and the memory notifier error injection under
 * /sys/kernel/debug/.  (The memory_hotplug module parameters are files of
 * the parameter table: views/sysfs_params.c.)
 *
 * Each file does what its Linux namesake does (Linux's drivers/base/memory.c
 * and Linux's lib/memory-notifier-error-inject.c), prints the same text and fails
 * with the same errno, so a script written for Linux, such as the logic of
 * Linux's memory-hotplug selftest mem-on-off-test.sh, runs unchanged
 * through the shell's `cat` and `echo >`:
 *
 *   echo online_movable > /sys/devices/system/memory/memory40/state
 *   echo: write error: Invalid argument            (it was online already)
 *
 * The texts, summed up (N = block id, decimal in the directory name):
 *   block_size_bytes     "%lx\n" of the block size: "8000000" for 128 MiB
 *   auto_online_blocks   the online type new blocks get: "offline",
 *                        "online", "online_kernel" or "online_movable"
 *   memoryN/state        "online", "offline" or "going-offline"
 *   memoryN/online       "1" unless the block is offline
 *   memoryN/valid_zones  an online block: its zone ("none" if it spans
 *                        several); an offline block: the zone "online"
 *                        would pick, then the other zones it may join
 *   memoryN/phys_index   "%08lx\n" of N
 *   memoryN/removable    "1": memlab can offline any block (Linux prints 1
 *                        whenever it was built with memory hot-remove)
 *   memoryN/phys_device  "0" (only s390 ever gave it a meaning)
 *   memoryN/nodeM        symlink to ../../node/nodeM, the block's node; and
 *                        node/nodeM/memoryN back to ../../memory/memoryN
 *                        (Linux's register_memory_block_under_node())
 *   memoryN/firmware_node  a DIMM's blocks: symlink to the DIMM's ACPI
 *                        device, ../../../LNXSYSTM:00/LNXSYBUS:00/PNP0A06:00/
 *                        PNP0C80:SS (Linux's acpi_bind_one()); that device
 *                        directory has Linux's `hid` ("PNP0C80") and `path`
 *                        ("\_SB_.MHPC.MPSS", QEMU's name for slot SS), its
 *                        parent PNP0A06:00 is QEMU's memory hotplug
 *                        container \_SB_.MHPC.  memlab numbers the PNP0C80
 *                        devices by slot (hex); Linux numbers them in the
 *                        order it creates them, the same for DIMMs added
 *                        slot after slot.  The directory exists while the
 *                        DIMM has memory blocks.
 *   .../MEM_GOING_ONLINE/error, .../MEM_GOING_OFFLINE/error
 *                        a signed errno ("-12"), 0 = no injection; written
 *                        values are clamped to [-4095, 0] as Linux does
 *
 * Writes to state follow Linux's state_store(): the word must be one of
 * the four (one trailing newline allowed), onlining needs an offline block
 * and offlining an online one, else -EINVAL; the hotplug core's errors pass
 * through (-EBUSY when unmovable pages stop an offline).  Writes to online
 * follow the device core's online_store(): "1" onlines an offline block
 * with default_online_type() (auto_online_blocks, or "online" if that is
 * "offline"), "0" offlines an online block, and asking for the state the
 * block is already in succeeds without doing anything.
 *
 * The per-block files carry the block id, not a pointer, and look the block
 * up on every access, so a file that outlives its block (it cannot, but a
 * hook could be late) answers -ENODEV instead of touching freed memory.
 *
 * Context: (main).
 */
#include <lib/errno.h>
#include <lib/kstrtox.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <views/vfs.h>
#include <mm/range_claim.h>
#include <kernel/time.h>
#include <mm/memory_hotplug.h>
#include <views/memory_sysfs.h>

#define MEMORY_DIR	"/sys/devices/system/memory"
#define INJECT_DIR	"/sys/kernel/debug/notifier-error-inject/memory/actions"

/* Set by memory_sysfs_init(): from then on the hooks create and remove. */
static bool memory_sysfs_ready;

/* ---- /sys/devices/system/memory: the root files -------------------------- */

static int block_size_bytes_show(struct printer *p, void *data)
{
	(void)data;
	pr_printf(p, "%llx\n", (unsigned long long)memory_block_size_bytes());
	return 0;
}

static int auto_online_blocks_show(struct printer *p, void *data)
{
	(void)data;
	pr_printf(p, "%s\n", mmop_name(memhp_get_default_online_type()));
	return 0;
}

static int auto_online_blocks_store(const char *buf, size_t len, void *data)
{
	int type = mmop_from_string(buf, len);

	(void)data;
	if (type < 0)
		return -EINVAL;
	return memhp_set_default_online_type((enum mmop)type);
}

static const struct vfs_file_ops block_size_bytes_ops = { .show = block_size_bytes_show };
static const struct vfs_file_ops auto_online_blocks_ops = {
	.show = auto_online_blocks_show, .store = auto_online_blocks_store,
};
VFS_FILE(memory_block_size_bytes, MEMORY_DIR "/block_size_bytes", &block_size_bytes_ops, NULL);
VFS_FILE(memory_auto_online_blocks, MEMORY_DIR "/auto_online_blocks", &auto_online_blocks_ops,
	 NULL);

/* ---- /sys/devices/system/memory/memoryN/ --------------------------------- */

static struct memory_block *block_of(void *data)
{
	return find_memory_block_by_id((unsigned long)(uintptr_t)data);
}

static const char *block_state_name(enum memory_block_state state)
{
	const char *name = memory_block_state_name(state);

	return name ? name : "ERROR-UNKNOWN-STATE";	/* Linux's word */
}

static int state_show(struct printer *p, void *data)
{
	struct memory_block *mem = block_of(data);

	if (!mem)
		return -ENODEV;
	pr_printf(p, "%s\n", block_state_name(mem->state));
	return 0;
}

/*
 * A long operation (a virtio-mem resize, a DIMM being added or removed)
 * holds this block's memory (its claim in mm: include/mm/range_claim.h):
 * a write to its state waits for it to end (-EBUSY, the log says which
 * operation), asked before the write's other checks.  Context: (main).
 */
static bool block_busy(const struct memory_block *mem)
{
	u64 start_pfn = memory_block_start_pfn(mem);
	const struct range_claim *c = range_claim_holder(start_pfn,
							 start_pfn + PAGES_PER_MEMORY_BLOCK);

	if (c)
		pr_warn("memory%lu: %s is working on this block: try again when `work` no longer lists it",
			mem->block_id, c->name);
	return c != NULL;
}

int memory_block_state_store(unsigned long block_id, const char *buf, size_t len)
{
	struct memory_block *mem = find_memory_block_by_id(block_id);
	int type = mmop_from_string(buf, len);

	if (!mem)
		return -ENODEV;
	if (type < 0)
		return -EINVAL;
	if (block_busy(mem))
		return -EBUSY;
	if (type == MMOP_OFFLINE) {
		/* Linux: device_offline() of an offline device reports "already",
		 * which state_store() turns into -EINVAL; going-offline is not
		 * online either. */
		if (mem->state != MEM_ONLINE)
			return -EINVAL;
		return memory_block_offline(mem);
	}
	if (mem->state != MEM_OFFLINE)
		return -EINVAL;
	return memory_block_online(mem, (enum mmop)type);
}

static int state_store(const char *buf, size_t len, void *data)
{
	return memory_block_state_store((unsigned long)(uintptr_t)data, buf, len);
}

static int online_show(struct printer *p, void *data)
{
	struct memory_block *mem = block_of(data);

	if (!mem)
		return -ENODEV;
	pr_printf(p, "%d\n", mem->state != MEM_OFFLINE);
	return 0;
}

static int online_store(const char *buf, size_t len, void *data)
{
	struct memory_block *mem = block_of(data);
	bool want_online;
	int err = kstrtobool(buf, len, &want_online);

	if (err)
		return err;
	if (!mem)
		return -ENODEV;
	if (block_busy(mem))
		return -EBUSY;
	if (want_online)
		return mem->state == MEM_OFFLINE ? memory_block_online(mem, default_online_type()) : 0;
	return mem->state == MEM_ONLINE ? memory_block_offline(mem) : 0;
}

static int valid_zones_show(struct printer *p, void *data)
{
	struct memory_block *mem = block_of(data);
	char buf[96];
	struct buf_printer bp;

	if (!mem)
		return -ENODEV;
	buf_printer_init(&bp, buf, sizeof(buf));
	memory_block_valid_zones(mem, &bp.p);
	/* one line, whether or not the core ended it */
	while (bp.len && buf[bp.len - 1] == '\n')
		buf[--bp.len] = '\0';
	pr_printf(p, "%s\n", buf);
	return 0;
}

static int phys_index_show(struct printer *p, void *data)
{
	struct memory_block *mem = block_of(data);

	if (!mem)
		return -ENODEV;
	pr_printf(p, "%08lx\n", mem->block_id);
	return 0;
}

static int removable_show(struct printer *p, void *data)
{
	if (!block_of(data))
		return -ENODEV;
	pr_printf(p, "%d\n", 1);
	return 0;
}

static int phys_device_show(struct printer *p, void *data)
{
	if (!block_of(data))
		return -ENODEV;
	pr_printf(p, "%d\n", 0);
	return 0;
}

static int node_link(char *buf, size_t size, void *data)
{
	struct memory_block *mem = block_of(data);

	if (!mem)
		return -ENODEV;
	ksnprintf(buf, size, "../../node/node%d", mem->nid);
	return 0;
}

static int node_memory_link(char *buf, size_t size, void *data)
{
	ksnprintf(buf, size, "../../memory/memory%lu", (unsigned long)(uintptr_t)data);
	return 0;
}

static const struct vfs_file_ops state_ops = { .show = state_show, .store = state_store };
static const struct vfs_file_ops online_ops = { .show = online_show, .store = online_store };
static const struct vfs_file_ops valid_zones_ops = { .show = valid_zones_show };
static const struct vfs_file_ops phys_index_ops = { .show = phys_index_show };
static const struct vfs_file_ops removable_ops = { .show = removable_show };
static const struct vfs_file_ops phys_device_ops = { .show = phys_device_show };
static const struct vfs_file_ops node_link_ops = { .readlink = node_link };
static const struct vfs_file_ops node_memory_link_ops = { .readlink = node_memory_link };

/* ---- firmware_node: the ACPI device of a DIMM's blocks ------------------- */

#define ACPI_MEMHP_DIR	"/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A06:00"
#define MAX_DIMM_SLOTS	256
static bool dimm_dir_made[MAX_DIMM_SLOTS];

/* dimm_slot_of() - the slot of a DIMM's block: drivers/acpi/memhp.c names
 * a DIMM's memory group "dimmS"; -1 for any other block. */
static int dimm_slot_of(const struct memory_block *mem)
{
	const char *n = mem && mem->group ? mem->group->name : NULL;
	unsigned long long slot;

	if (!n || strncmp(n, "dimm", 4) || kstrtoull(n + 4, strlen(n + 4), &slot) ||
	    slot >= MAX_DIMM_SLOTS)
		return -1;
	return (int)slot;
}

/* hid and path of PNP0A06:00 (data NULL) or of PNP0C80:SS (data slot + 1). */
static int acpi_hid_show(struct printer *p, void *data)
{
	pr_printf(p, "%s\n", data ? "PNP0C80" : "PNP0A06");
	return 0;
}

static int acpi_path_show(struct printer *p, void *data)
{
	if (data)
		pr_printf(p, "\\_SB_.MHPC.MP%02X\n", (unsigned)((uintptr_t)data - 1));
	else
		pr_printf(p, "\\_SB_.MHPC\n");
	return 0;
}

static int firmware_node_link(char *buf, size_t size, void *data)
{
	int slot = dimm_slot_of(block_of(data));

	if (slot < 0)
		return -ENODEV;
	ksnprintf(buf, size, "../../../LNXSYSTM:00/LNXSYBUS:00/PNP0A06:00/PNP0C80:%02x",
		  (unsigned)slot);
	return 0;
}

static const struct vfs_file_ops acpi_hid_ops = { .show = acpi_hid_show };
static const struct vfs_file_ops acpi_path_ops = { .show = acpi_path_show };
static const struct vfs_file_ops firmware_node_ops = { .readlink = firmware_node_link };

/* dimm_dir_create() - the ACPI device directory of a DIMM's slot (and of
 * its container), the first time: it exists while the DIMM has blocks. */
static int dimm_dir_create(int slot)
{
	char path[VFS_PATH_MAX];
	void *sd = (void *)(uintptr_t)(slot + 1);
	int err;

	if (slot < 0 || dimm_dir_made[slot])
		return 0;
	vfs_create(ACPI_MEMHP_DIR "/hid", &acpi_hid_ops, NULL);
	vfs_create(ACPI_MEMHP_DIR "/path", &acpi_path_ops, NULL);
	ksnprintf(path, sizeof(path), ACPI_MEMHP_DIR "/PNP0C80:%02x/hid", (unsigned)slot);
	err = vfs_create(path, &acpi_hid_ops, sd);
	if (err && err != -EEXIST)
		return err;
	ksnprintf(path, sizeof(path), ACPI_MEMHP_DIR "/PNP0C80:%02x/path", (unsigned)slot);
	err = vfs_create(path, &acpi_path_ops, sd);
	if (err && err != -EEXIST)
		return err;
	dimm_dir_made[slot] = true;
	return 0;
}

/* firmware_node_create() - memoryN/firmware_node of a DIMM's block (and
 * its ACPI directory if it is not there yet).  0 or vfs_create()'s error. */
static int firmware_node_create(const struct memory_block *mem)
{
	int slot = dimm_slot_of(mem);
	char path[VFS_PATH_MAX];
	int err;

	if (slot < 0)
		return 0;
	err = dimm_dir_create(slot);
	if (err)
		return err;
	ksnprintf(path, sizeof(path), MEMORY_DIR "/memory%lu/firmware_node", mem->block_id);
	err = vfs_create(path, &firmware_node_ops, (void *)(uintptr_t)mem->block_id);
	return err == -EEXIST ? 0 : err;
}

/* firmware_nodes_prune() - remove the ACPI directory of every DIMM that has
 * no memory block left (a block was just removed).  With no DIMM directory
 * made it has nothing to look for: a virtio-mem unplug of thousands of
 * blocks does not walk every block at each one. */
static void firmware_nodes_prune(void)
{
	bool used[MAX_DIMM_SLOTS] = { false }, any = false;
	unsigned long id = 0;
	struct memory_block *mem;
	char path[VFS_PATH_MAX];

	for (int slot = 0; slot < MAX_DIMM_SLOTS; slot++)
		any |= dimm_dir_made[slot];
	if (!any)
		return;
	while ((mem = memory_block_next(&id))) {
		int slot = dimm_slot_of(mem);

		if (slot >= 0)
			used[slot] = true;
		id = mem->block_id + 1;
	}
	for (int slot = 0; slot < MAX_DIMM_SLOTS; slot++) {
		if (!dimm_dir_made[slot] || used[slot])
			continue;
		ksnprintf(path, sizeof(path), ACPI_MEMHP_DIR "/PNP0C80:%02x", (unsigned)slot);
		vfs_remove(path);
		dimm_dir_made[slot] = false;
	}
}

/* The files of one memoryN/ directory (and its nodeM link, made apart). */
static const struct {
	const char *name;
	const struct vfs_file_ops *ops;
} block_files[] = {
	{ "online", &online_ops },
	{ "phys_device", &phys_device_ops },
	{ "phys_index", &phys_index_ops },
	{ "removable", &removable_ops },
	{ "state", &state_ops },
	{ "valid_zones", &valid_zones_ops },
};

static void block_dir_path(char *path, size_t size, unsigned long block_id)
{
	ksnprintf(path, size, MEMORY_DIR "/memory%lu", block_id);
}

/* node/nodeM/memoryN of every node M that may have one. */
static void node_memory_link_remove(unsigned long block_id)
{
	char path[VFS_PATH_MAX];

	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		ksnprintf(path, sizeof(path), "/sys/devices/system/node/node%d/memory%lu", nid,
			  block_id);
		vfs_remove(path);	/* -ENOENT for the other nodes: fine */
	}
}

/* Create memoryN/ and its files (its nodeM link and firmware_node too);
 * on failure remove what was made. */
static int block_dir_create(unsigned long block_id)
{
	char path[VFS_PATH_MAX];
	void *data = (void *)(uintptr_t)block_id;
	struct memory_block *mem = block_of(data);
	int err = 0;

	for (size_t i = 0; i < ARRAY_SIZE(block_files) && !err; i++) {
		ksnprintf(path, sizeof(path), MEMORY_DIR "/memory%lu/%s", block_id,
			  block_files[i].name);
		err = vfs_create(path, block_files[i].ops, data);
		if (err == -EEXIST)
			err = 0;
	}
	if (!err && mem && mem->nid >= 0 && mem->nid < MAX_NUMNODES) {	/* no node: no link */
		ksnprintf(path, sizeof(path), MEMORY_DIR "/memory%lu/node%d", block_id, mem->nid);
		err = vfs_create(path, &node_link_ops, data);
		if (err == -EEXIST)
			err = 0;
	}
	if (!err)
		err = firmware_node_create(mem);
	if (err) {
		block_dir_path(path, sizeof(path), block_id);
		vfs_remove(path);
	}
	return err;
}

/*
 * The block directories and the nodes' memoryN links are made when first
 * looked at (vfs_set_dir_source()), not when the block appears: a 4 TiB
 * machine has 32768 blocks, some 300000 files, which took seconds under
 * TCG after the prompt, and the first reader of any file waited for all
 * of them.  A listing names every block all the same, from the block
 * table (vfs_numbered_next()), and any lookup below memoryN or of
 * nodeM/memoryN makes that block's files; what was made stays until the
 * block goes (the removal hook below).  The sources read the block table
 * at each call, so a block added or removed is listed or not at once.
 */

/* "memory" and a block id, exactly as the directory is named (no leading
 * zeros, no sign): the id, or -1. */
static long block_id_of_name(const char *name)
{
	unsigned long long id;

	if (strncmp(name, "memory", 6) || !name[6] || (name[6] == '0' && name[7]) ||
	    name[6] < '0' || name[6] > '9' || kstrtoull(name + 6, strlen(name + 6), &id) ||
	    id >= MEMORY_BLOCKS_MAX)
		return -1;
	return (long)id;
}

/* ids up to the top of the physical address space */
#define MAX_BLOCK_ID	((u64)MEMORY_BLOCKS_MAX - 1)

/* Has the block table an id in [lo, hi]? */
static bool blocks_in(u64 lo, u64 hi, void *ctx)
{
	unsigned long id = (unsigned long)lo;

	(void)ctx;
	return memory_block_next(&id) && id <= hi;
}

/* Is block n there (and on node ctx - 1, unless ctx is NULL)? */
static bool block_member(u64 n, void *ctx)
{
	struct memory_block *mem = find_memory_block_by_id((unsigned long)n);

	return mem && (!ctx || mem->nid == (int)((uintptr_t)ctx - 1));
}

static bool numbered_next(const char *after, char name[VFS_NAME_MAX], void *ctx)
{
	u64 id;

	if (!vfs_numbered_next("memory", after, MAX_BLOCK_ID, blocks_in, block_member, ctx, &id))
		return false;
	ksnprintf(name, VFS_NAME_MAX, "memory%llu", (unsigned long long)id);
	return true;
}

/* /sys/devices/system/memory: memoryN for every block. */
static bool memory_dir_next(const char *after, char name[VFS_NAME_MAX], bool *is_dir, void *data)
{
	(void)data;
	*is_dir = true;
	return numbered_next(after, name, NULL);
}

static int memory_dir_make(const char *name, void *data)
{
	long id = block_id_of_name(name);

	(void)data;
	if (id < 0 || !find_memory_block_by_id((unsigned long)id))
		return -ENOENT;
	return block_dir_create((unsigned long)id);
}

/* /sys/devices/system/node/nodeM: memoryN for every block of node M
 * (data: M + 1). */
static bool node_dir_next(const char *after, char name[VFS_NAME_MAX], bool *is_dir, void *data)
{
	*is_dir = false;	/* links */
	return numbered_next(after, name, data);
}

static int node_dir_make(const char *name, void *data)
{
	long id = block_id_of_name(name);
	char path[VFS_PATH_MAX];
	int nid = (int)((uintptr_t)data - 1), err;

	if (id < 0 || !block_member((u64)id, data))
		return -ENOENT;
	ksnprintf(path, sizeof(path), "/sys/devices/system/node/node%d/memory%ld", nid, id);
	err = vfs_create(path, &node_memory_link_ops, (void *)(uintptr_t)id);
	return err == -EEXIST ? 0 : err;
}

static const struct vfs_dir_source memory_dir_source = {
	.next = memory_dir_next, .make = memory_dir_make,
};
static struct vfs_dir_source node_dir_source[MAX_NUMNODES];

/* The sources of the memory directory and of node nid's directory (made
 * if missing, as its first memoryN link would have made it). */
static int sources_set(int nid)
{
	char path[VFS_PATH_MAX];
	int err = vfs_set_dir_source(MEMORY_DIR, &memory_dir_source);

	if (err || nid < 0 || nid >= MAX_NUMNODES)
		return err;
	node_dir_source[nid] = (struct vfs_dir_source){
		.next = node_dir_next, .make = node_dir_make, .data = (void *)(uintptr_t)(nid + 1),
	};
	ksnprintf(path, sizeof(path), "/sys/devices/system/node/node%d", nid);
	return vfs_set_dir_source(path, &node_dir_source[nid]);
}

/* The memory_block_notifier: block N's files are there to be looked at
 * (its node's directory has a source, a DIMM's ACPI device exists). */
static void memory_sysfs_block_added(struct memory_block *mem)
{
	int err;

	if (!memory_sysfs_ready || !mem)
		return;
	err = sources_set(mem->nid);
	if (!err)
		err = dimm_dir_create(dimm_slot_of(mem));
	if (err)
		pr_warn("memory_sysfs: no files for memory%lu: %s", mem->block_id, err_text(err));
}

/* ... and what was made of them goes with it. */
static void memory_sysfs_block_removed(unsigned long block_id)
{
	char path[VFS_PATH_MAX];

	if (!memory_sysfs_ready)
		return;
	node_memory_link_remove(block_id);
	block_dir_path(path, sizeof(path), block_id);
	vfs_remove(path);	/* -ENOENT: its files were never made; fine */
	firmware_nodes_prune();
}

static const struct memory_block_notifier memory_sysfs_notifier = {
	.added = memory_sysfs_block_added,
	.removed = memory_sysfs_block_removed,
};

void memory_sysfs_init(void)
{
	unsigned long nr = 0;
	int err = 0;

	memory_sysfs_ready = true;
	register_memory_block_notifier(&memory_sysfs_notifier);
	for (int st = 0; st < NR_MEM_STATES; st++)	/* every block is in one state */
		nr += nr_memory_blocks_in_state[st];
	memset(dimm_dir_made, 0, sizeof(dimm_dir_made));
	err = sources_set(-1);
	for (int nid = 0; nid < MAX_NUMNODES && !err; nid++)
		if (NODE_DATA(nid)->online)	/* a node with blocks is online */
			err = sources_set(nid);
	if (err)
		pr_warn("memory_sysfs: no files for the memory blocks: %s", err_text(err));
	pr_info("memory_sysfs: %lu memory blocks under " MEMORY_DIR
		" (each block's files made when first looked at)", nr);
}

/* ---- notifier error injection -------------------------------------------- */

/* An injection point's getter and setter in the hotplug core. */
struct inject_point {
	int (*get)(void);
	int (*set)(int err);
};
static const struct inject_point going_online = {
	memhp_get_inject_going_online_error, memhp_set_inject_going_online_error,
};
static const struct inject_point going_offline = {
	memhp_get_inject_going_offline_error, memhp_set_inject_going_offline_error,
};

/* data is the struct inject_point of the file: show its error, or 0. */
static int inject_error_show(struct printer *p, void *data)
{
	const struct inject_point *point = data;

	pr_printf(p, "%d\n", point->get());
	return 0;
}

/*
 * A signed number, clamped to [MEMHP_INJECT_ERROR_MIN, 0] (-MAX_ERRNO to
 * 0) as Linux's error injection files clamp it, then the hotplug core's
 * setter.
 */
static int inject_error_store(const char *buf, size_t len, void *data)
{
	const struct inject_point *point = data;
	long long v;
	int err = kstrtoll(buf, len, &v);

	if (err)
		return err;
	if (v > 0)
		v = 0;
	if (v < MEMHP_INJECT_ERROR_MIN)
		v = MEMHP_INJECT_ERROR_MIN;
	return point->set((int)v);
}

static const struct vfs_file_ops inject_error_ops = {
	.show = inject_error_show, .store = inject_error_store,
};
VFS_FILE(memhp_inject_going_online, INJECT_DIR "/MEM_GOING_ONLINE/error", &inject_error_ops,
	 (void *)&going_online);
VFS_FILE(memhp_inject_going_offline, INJECT_DIR "/MEM_GOING_OFFLINE/error", &inject_error_ops,
	 (void *)&going_offline);

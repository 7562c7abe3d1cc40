/*
 * sysfs_memory.c - memory blocks and the hotplug knobs as Linux shows them:
 * /sys/devices/system/memory/, /sys/module/memory_hotplug/parameters/ and
 * the memory notifier error injection under /sys/kernel/debug/.
 *
 * Each file does what its Linux namesake does (drivers/base/memory.c,
 * mm/memory_hotplug.c's module parameters, lib/memory-notifier-error-inject.c),
 * prints the same text and fails with the same errno, so a script written
 * for Linux, such as the logic of tools/testing/selftests/memory-hotplug/
 * mem-on-off-test.sh, runs unchanged through the shell's `cat` and `echo >`:
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
 *   memoryN/node         the node: memlab's stand-in for Linux's memoryN/nodeM
 *                        symlink, since memlab's file tree has no symlinks
 *   online_policy        "contig-zones" or "auto-movable"
 *   auto_movable_ratio   "%u\n", percent of MOVABLE per early kernel memory
 *   auto_movable_numa_aware, memmap_on_memory
 *                        "Y" or "N" as Linux prints bool parameters; writes
 *                        take 1/0, y/n, Y/N (and t/f, on/off) as kstrtobool
 *                        does.  Linux makes memmap_on_memory read-only after
 *                        boot; memlab lets it be written at run time, and
 *                        the new value applies to memory added afterwards
 *   .../MEM_GOING_ONLINE/error, .../MEM_GOING_OFFLINE/error
 *                        a signed errno ("-12"), 0 = no injection; written
 *                        values are clamped to [-4095, 0] as Linux does
 *
 * Writes to state follow Linux's state_store(): the word must be one of
 * the four (one trailing newline allowed), onlining needs an offline block
 * and offlining an online one, else -EINVAL; the hotplug core's errors pass
 * through (-EBUSY when unmovable pages stop an offline).  Writes to online
 * follow the device core's online_store(): "1" onlines an offline block
 * with the default online type (auto_online_blocks, or "online" if that is
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
#include <lib/printk.h>
#include <lib/string.h>
#include <views/vfs.h>
#include <mm/memory_hotplug.h>
#include <views/memory_sysfs.h>

#define MEMORY_DIR	"/sys/devices/system/memory"
#define PARAMS_DIR	"/sys/module/memory_hotplug/parameters"
#define INJECT_DIR	"/sys/kernel/debug/notifier-error-inject/memory/actions"
#define MAX_ERRNO	4095

/* Set by memory_sysfs_init(): from then on the hooks create and remove. */
static bool memory_sysfs_ready;

/* ---- parsing what a write brings ----------------------------------------- */

/*
 * True if buf[0, len) is word, optionally followed by one newline: the way
 * Linux's sysfs_streq() compares what `echo word >` delivers.
 */
static bool sysfs_word_is(const char *buf, size_t len, const char *word)
{
	size_t wlen = strlen(word);

	if (len && buf[len - 1] == '\n')
		len--;
	return len == wlen && !memcmp(buf, word, len);
}

/*
 * Parse an unsigned number the way kstrtoull(s, 0, ...) does: optional '+',
 * "0x" for hex, a leading 0 for octal, else decimal; one trailing newline
 * allowed, nothing else.  Returns 0, -EINVAL, or -ERANGE on overflow.
 */
static int parse_ull(const char *buf, size_t len, unsigned long long *out)
{
	unsigned long long v = 0;
	unsigned base = 10;
	size_t i = 0;

	if (len && buf[len - 1] == '\n')
		len--;
	if (i < len && buf[i] == '+')
		i++;
	if (i + 1 < len && buf[i] == '0' && (buf[i + 1] == 'x' || buf[i + 1] == 'X')) {
		base = 16;
		i += 2;
	} else if (i + 1 < len && buf[i] == '0') {
		base = 8;
		i++;
	}
	if (i >= len)
		return -EINVAL;
	for (; i < len; i++) {
		char c = buf[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
		if (d >= base)
			return -EINVAL;
		if (v > (~0ULL - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* The signed variant (kstrtoll): an optional '-' before the number, or a
 * '+' as parse_ull() takes it, but not both ("-+5" is -EINVAL). */
static int parse_ll(const char *buf, size_t len, long long *out)
{
	unsigned long long v;
	bool neg = len && buf[0] == '-';
	int err;

	if (neg && len > 1 && buf[1] == '+')
		return -EINVAL;
	err = parse_ull(buf + neg, len - neg, &v);
	if (err)
		return err;
	if (neg ? v > (1ULL << 63) : v > (unsigned long long)INT64_MAX)
		return -ERANGE;
	*out = neg ? (long long)(0 - v) : (long long)v;
	return 0;
}

/*
 * kstrtobool's rule: only the first character counts (y/Y/t/T/1 true,
 * n/N/f/F/0 false), except "on"/"off" which need the second.
 */
static int parse_bool(const char *buf, size_t len, bool *out)
{
	if (!len)
		return -EINVAL;
	switch (buf[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*out = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*out = false;
		return 0;
	case 'o': case 'O':
		if (len < 2)
			return -EINVAL;
		if (buf[1] == 'n' || buf[1] == 'N') {
			*out = true;
			return 0;
		}
		if (buf[1] == 'f' || buf[1] == 'F') {
			*out = false;
			return 0;
		}
		return -EINVAL;
	default:
		return -EINVAL;
	}
}

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
	pr_printf(p, "%s\n", mmop_name(memhp_default_online_type));
	return 0;
}

static int auto_online_blocks_store(const char *buf, size_t len, void *data)
{
	int type = mmop_from_string(buf, len);

	(void)data;
	if (type < 0)
		return -EINVAL;
	memhp_default_online_type = (enum mmop)type;
	return 0;
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
	switch (state) {
	case MEM_ONLINE:
		return "online";
	case MEM_OFFLINE:
		return "offline";
	case MEM_GOING_OFFLINE:
		return "going-offline";
	default:
		return "ERROR-UNKNOWN-STATE";
	}
}

static int state_show(struct printer *p, void *data)
{
	struct memory_block *mem = block_of(data);

	if (!mem)
		return -ENODEV;
	pr_printf(p, "%s\n", block_state_name(mem->state));
	return 0;
}

int memory_block_state_store(unsigned long block_id, const char *buf, size_t len)
{
	struct memory_block *mem = find_memory_block_by_id(block_id);
	int type = mmop_from_string(buf, len);

	if (!mem)
		return -ENODEV;
	if (type < 0)
		return -EINVAL;
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

/*
 * The online type a write of "1" uses: the one new memory gets
 * (auto_online_blocks), or plain "online" when new memory stays offline.
 */
static enum mmop default_online_type(void)
{
	return memhp_default_online_type == MMOP_OFFLINE ? MMOP_ONLINE
							 : memhp_default_online_type;
}

static int online_store(const char *buf, size_t len, void *data)
{
	struct memory_block *mem = block_of(data);
	bool want_online;
	int err = parse_bool(buf, len, &want_online);

	if (err)
		return err;
	if (!mem)
		return -ENODEV;
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

static int node_show(struct printer *p, void *data)
{
	struct memory_block *mem = block_of(data);

	if (!mem)
		return -ENODEV;
	pr_printf(p, "%d\n", mem->nid);
	return 0;
}

static const struct vfs_file_ops state_ops = { .show = state_show, .store = state_store };
static const struct vfs_file_ops online_ops = { .show = online_show, .store = online_store };
static const struct vfs_file_ops valid_zones_ops = { .show = valid_zones_show };
static const struct vfs_file_ops phys_index_ops = { .show = phys_index_show };
static const struct vfs_file_ops removable_ops = { .show = removable_show };
static const struct vfs_file_ops phys_device_ops = { .show = phys_device_show };
static const struct vfs_file_ops node_ops = { .show = node_show };

/* The files of one memoryN/ directory, in `ls` order. */
static const struct {
	const char *name;
	const struct vfs_file_ops *ops;
} block_files[] = {
	{ "node", &node_ops },
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

/* Create memoryN/ and its files; on failure remove what was made. */
static int block_dir_create(unsigned long block_id)
{
	char path[VFS_PATH_MAX];
	void *data = (void *)(uintptr_t)block_id;

	for (size_t i = 0; i < ARRAY_SIZE(block_files); i++) {
		int err;

		ksnprintf(path, sizeof(path), MEMORY_DIR "/memory%lu/%s", block_id,
			  block_files[i].name);
		err = vfs_create(path, block_files[i].ops, data);
		if (err && err != -EEXIST) {
			block_dir_path(path, sizeof(path), block_id);
			vfs_remove(path);
			return err;
		}
	}
	return 0;
}

/* The memory_block_notifier: memoryN/ appears with block N. */
static void memory_sysfs_block_added(struct memory_block *mem)
{
	int err;

	if (!memory_sysfs_ready || !mem)
		return;
	err = block_dir_create(mem->block_id);
	if (err)
		pr_warn("memory_sysfs: no files for memory%lu: %s", mem->block_id, err_text(err));
}

/* ... and goes with it. */
static void memory_sysfs_block_removed(unsigned long block_id)
{
	char path[VFS_PATH_MAX];

	if (!memory_sysfs_ready)
		return;
	block_dir_path(path, sizeof(path), block_id);
	vfs_remove(path);	/* -ENOENT: its files were never made; fine */
}

static const struct memory_block_notifier memory_sysfs_notifier = {
	.added = memory_sysfs_block_added,
	.removed = memory_sysfs_block_removed,
};

void memory_sysfs_init(void)
{
	unsigned long id = 0, nr = 0, failed = 0;
	struct memory_block *mem;
	int first_err = 0;

	memory_sysfs_ready = true;
	register_memory_block_notifier(&memory_sysfs_notifier);
	while ((mem = memory_block_next(&id))) {
		int err = block_dir_create(mem->block_id);

		if (err) {
			if (!failed++)
				first_err = err;
		} else {
			nr++;
		}
		id = mem->block_id + 1;
	}
	if (failed)
		pr_warn("memory_sysfs: %lu memory blocks have no files (first error: %s)", failed,
			err_text(first_err));
	pr_info("memory_sysfs: %lu memory blocks under " MEMORY_DIR, nr);
}

/* ---- /sys/module/memory_hotplug/parameters/ ------------------------------ */

static const char *const online_policy_names[] = {
	[ONLINE_POLICY_CONTIG_ZONES] = "contig-zones",
	[ONLINE_POLICY_AUTO_MOVABLE] = "auto-movable",
};

static int online_policy_show(struct printer *p, void *data)
{
	(void)data;
	pr_printf(p, "%s\n", online_policy_names[memhp_online_policy]);
	return 0;
}

static int online_policy_store(const char *buf, size_t len, void *data)
{
	(void)data;
	for (size_t i = 0; i < ARRAY_SIZE(online_policy_names); i++) {
		if (sysfs_word_is(buf, len, online_policy_names[i])) {
			memhp_online_policy = (enum online_policy)i;
			return 0;
		}
	}
	return -EINVAL;
}

static int auto_movable_ratio_show(struct printer *p, void *data)
{
	(void)data;
	pr_printf(p, "%u\n", auto_movable_ratio);
	return 0;
}

static int auto_movable_ratio_store(const char *buf, size_t len, void *data)
{
	unsigned long long v;
	int err = parse_ull(buf, len, &v);

	(void)data;
	if (err)
		return err;
	if (v > 0xffffffffULL)
		return -ERANGE;
	auto_movable_ratio = (unsigned int)v;
	return 0;
}

/* Bool parameters: data points at the bool. */
static int bool_param_show(struct printer *p, void *data)
{
	pr_printf(p, "%c\n", *(bool *)data ? 'Y' : 'N');
	return 0;
}

static int bool_param_store(const char *buf, size_t len, void *data)
{
	bool v;
	int err = parse_bool(buf, len, &v);

	if (err)
		return err;
	*(bool *)data = v;
	return 0;
}

static const struct vfs_file_ops online_policy_ops = {
	.show = online_policy_show, .store = online_policy_store,
};
static const struct vfs_file_ops auto_movable_ratio_ops = {
	.show = auto_movable_ratio_show, .store = auto_movable_ratio_store,
};
static const struct vfs_file_ops bool_param_ops = {
	.show = bool_param_show, .store = bool_param_store,
};
VFS_FILE(memhp_online_policy, PARAMS_DIR "/online_policy", &online_policy_ops, NULL);
VFS_FILE(memhp_auto_movable_ratio, PARAMS_DIR "/auto_movable_ratio", &auto_movable_ratio_ops,
	 NULL);
VFS_FILE(memhp_auto_movable_numa_aware, PARAMS_DIR "/auto_movable_numa_aware", &bool_param_ops,
	 &auto_movable_numa_aware);
VFS_FILE(memhp_memmap_on_memory, PARAMS_DIR "/memmap_on_memory", &bool_param_ops,
	 &memmap_on_memory);

/* ---- notifier error injection -------------------------------------------- */

/* data points at the int the hotplug core returns at that notifier point. */
static int inject_error_show(struct printer *p, void *data)
{
	pr_printf(p, "%d\n", *(int *)data);
	return 0;
}

static int inject_error_store(const char *buf, size_t len, void *data)
{
	long long v;
	int err = parse_ll(buf, len, &v);

	if (err)
		return err;
	if (v > 0)
		v = 0;
	if (v < -MAX_ERRNO)
		v = -MAX_ERRNO;
	*(int *)data = (int)v;
	return 0;
}

static const struct vfs_file_ops inject_error_ops = {
	.show = inject_error_show, .store = inject_error_store,
};
VFS_FILE(memhp_inject_going_online, INJECT_DIR "/MEM_GOING_ONLINE/error", &inject_error_ops,
	 &memhp_inject_going_online_error);
VFS_FILE(memhp_inject_going_offline, INJECT_DIR "/MEM_GOING_OFFLINE/error", &inject_error_ops,
	 &memhp_inject_going_offline_error);

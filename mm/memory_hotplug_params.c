/*
 * memory_hotplug_params.c - the parameters of memory hotplug, in the one
 * parameter table (include/lib/params.h).
 *
 * Linux declares these with module_param() in its mm/memory_hotplug.c, so
 * they are set on the command line as memory_hotplug.NAME= and read and
 * written as /sys/module/memory_hotplug/parameters/NAME; memhp_default_state=
 * is a plain boot parameter that sets what
 * /sys/devices/system/memory/auto_online_blocks shows.  The variables live
 * where the code that reads them lives (memory_hotplug.c, online_policy.c),
 * private to it; this file only describes them, and reads and writes them
 * through their getters and setters (include/mm/memory_hotplug.h), which
 * param_set() calls with values it has already checked against the table.
 *
 * memmap_on_memory is a boot parameter only, as in Linux (module_param
 * with mode 0444): memory_hotplug.memmap_on_memory=1 on the command line;
 * its sysfs file is read-only and a write is refused with "Permission
 * denied", as Linux's sysfs refuses it.
 */
#include <lib/errno.h>
#include <lib/params.h>
#include <mm/memory_hotplug.h>

static const char *const online_policy_names[] = {
	[ONLINE_POLICY_CONTIG_ZONES] = "contig-zones",
	[ONLINE_POLICY_AUTO_MOVABLE] = "auto-movable",
};

/*
 * The table's get and set for each knob: the value as a u64 (bool 0/1, enum
 * index) to the knob's own getter and setter, which return the knob's
 * value and 0 or a negative errno.  Context: (boot) or (main).
 */
static u64 online_policy_get(void)
{
	return (u64)memhp_get_online_policy();
}

/* The table's setter of online_policy (see above). */
static int online_policy_set(u64 v)
{
	return v > ONLINE_POLICY_AUTO_MOVABLE ? -EINVAL : memhp_set_online_policy((enum online_policy)v);
}

/* The table's getter of auto_movable_ratio (see above). */
static u64 auto_movable_ratio_get(void)
{
	return memhp_get_auto_movable_ratio();
}

/* The table's getter of auto_movable_numa_aware (see above). */
static u64 auto_movable_numa_aware_get(void)
{
	return memhp_get_auto_movable_numa_aware();
}

/* The table's setter of auto_movable_numa_aware (see above). */
static int auto_movable_numa_aware_set(u64 v)
{
	return v > 1 ? -EINVAL : memhp_set_auto_movable_numa_aware(v);
}

/* The table's getter of memmap_on_memory (see above). */
static u64 memmap_on_memory_get(void)
{
	return memhp_get_memmap_on_memory();
}

/* The table's setter of memmap_on_memory (see above). */
static int memmap_on_memory_set(u64 v)
{
	return v > 1 ? -EINVAL : memhp_set_memmap_on_memory(v);
}

KERNEL_PARAM(online_policy,
	.module = "memory_hotplug", .name = "online_policy", .type = PARAM_ENUM,
	.set = online_policy_set, .get = online_policy_get, .def = ONLINE_POLICY_CONTIG_ZONES,
	.names = online_policy_names, .nr_names = 2, .writable = true,
	.help = "how `online` picks a zone: contig-zones or auto-movable");
KERNEL_PARAM(auto_movable_ratio,
	.module = "memory_hotplug", .name = "auto_movable_ratio", .type = PARAM_UINT,
	.set = memhp_set_auto_movable_ratio, .get = auto_movable_ratio_get,
	.min = 0, .max = 0xffffffffULL, .def = 301, .writable = true,
	.help = "auto-movable: MOVABLE memory allowed, in percent of kernel memory");
KERNEL_PARAM(auto_movable_numa_aware,
	.module = "memory_hotplug", .name = "auto_movable_numa_aware", .type = PARAM_BOOL,
	.set = auto_movable_numa_aware_set, .get = auto_movable_numa_aware_get,
	.max = 1, .def = 1, .writable = true,
	.help = "auto-movable: apply the ratio per node as well as globally");
KERNEL_PARAM(memmap_on_memory,
	.module = "memory_hotplug", .name = "memmap_on_memory", .type = PARAM_BOOL,
	.set = memmap_on_memory_set, .get = memmap_on_memory_get, .max = 1, .def = 0,
	.help = "place a hot-added block's memmap at the start of the block itself (boot only)");
/* The table's getter of memhp_default_state= (see above). */
static u64 default_online_type_get(void)
{
	return (u64)memhp_get_default_online_type();
}

/* The table's setter of memhp_default_state= (see above). */
static int default_online_type_set(u64 v)
{
	return v > MMOP_ONLINE_MOVABLE ? -EINVAL : memhp_set_default_online_type((enum mmop)v);
}

KERNEL_PARAM(memhp_default_state,
	.name = "memhp_default_state", .type = PARAM_ENUM,
	.set = default_online_type_set, .get = default_online_type_get, .def = MMOP_ONLINE,
	.names = mmop_names, .nr_names = NR_MMOP,
	.help = "the online type hot-added memory gets (auto_online_blocks)");

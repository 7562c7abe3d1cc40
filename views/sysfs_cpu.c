/*
 * sysfs_cpu.c - /sys/devices/system/cpu/ as Linux shows it (the list of
 * files is in include/views/cpu_sysfs.h): which CPUs are online, possible
 * and present, and per CPU its online state and its node.
 */
#include <views/cpu_sysfs.h>
#include <views/vfs.h>
#include <arch/smp.h>
#include <drivers/acpi.h>
#include <mm/numa_cpu.h>
#include <lib/printk.h>
#include <lib/errno.h>

#define CPU_DIR	"/sys/devices/system/cpu"

/* present: the CPUs the MADT lists as enabled, numa_cpu.h's table. */
static unsigned nr_present(void)
{
	return nr_numa_cpus();
}

/*
 * possible: the present ones, and one for each MADT processor entry that
 * is not enabled but may be added later.  Linux's rule
 * (acpi_is_processor_usable()): from MADT revision 5 on, the entries
 * marked online-capable; before, every entry that is not enabled (the
 * flag did not exist; QEMU's MADT, revision 3 or lower, lists the CPUs of
 * -smp N,maxcpus=M past N so).
 */
static unsigned nr_possible(void)
{
	const struct acpi_sdt_header *h = acpi_find_table("APIC", 0);
	bool capable_flag = h && h->revision >= 5;
	unsigned n = nr_present();

	for (unsigned i = 0; i < madt_nr_cpus(); i++) {
		const struct acpi_madt_cpu *c = madt_cpu(i);

		if (c && !(c->flags & MADT_CPU_ENABLED) &&
		    (!capable_flag || (c->flags & MADT_CPU_ONLINE_CAPABLE)))
			n++;
	}
	return n;
}

static bool cpu_is_online(unsigned cpu)
{
	const struct percpu *pc = smp_cpu(cpu);

	return cpu < nr_present() && pc && pc->state == CPU_ONLINE;
}

static bool cpu_is_present(unsigned cpu)
{
	return cpu < nr_present();
}

static bool cpu_is_possible(unsigned cpu)
{
	return cpu < nr_possible();
}

static bool cpu_is_offline(unsigned cpu)
{
	return cpu_is_possible(cpu) && !cpu_is_online(cpu);
}

/* Linux's "%*pbl" of the CPUs below nr_possible() that member() holds. */
static int print_cpu_list(struct printer *p, bool (*member)(unsigned cpu))
{
	unsigned nr = nr_possible();
	bool first = true;

	for (unsigned cpu = 0; cpu < nr; cpu++) {
		unsigned last = cpu;

		if (!member(cpu))
			continue;
		while (last + 1 < nr && member(last + 1))
			last++;
		pr_printf(p, "%s%u", first ? "" : ",", cpu);
		if (last > cpu)
			pr_printf(p, "-%u", last);
		first = false;
		cpu = last;
	}
	pr_printf(p, "\n");
	return 0;
}

static int online_show(struct printer *p, void *data)
{
	(void)data;
	return print_cpu_list(p, cpu_is_online);
}

static int possible_show(struct printer *p, void *data)
{
	(void)data;
	return print_cpu_list(p, cpu_is_possible);
}

static int present_show(struct printer *p, void *data)
{
	(void)data;
	return print_cpu_list(p, cpu_is_present);
}

static int offline_show(struct printer *p, void *data)
{
	(void)data;
	return print_cpu_list(p, cpu_is_offline);
}

static const struct vfs_file_ops online_ops = { .show = online_show };
static const struct vfs_file_ops possible_ops = { .show = possible_show };
static const struct vfs_file_ops present_ops = { .show = present_show };
static const struct vfs_file_ops offline_ops = { .show = offline_show };
VFS_FILE(cpu_online, CPU_DIR "/online", &online_ops, NULL);
VFS_FILE(cpu_possible, CPU_DIR "/possible", &possible_ops, NULL);
VFS_FILE(cpu_present, CPU_DIR "/present", &present_ops, NULL);
VFS_FILE(cpu_offline, CPU_DIR "/offline", &offline_ops, NULL);

/* cpuN/online: 1 while the CPU runs, 0 when it failed, got stuck or stopped. */
static int cpu_online_show(struct printer *p, void *data)
{
	pr_printf(p, "%d\n", cpu_is_online((unsigned)(uintptr_t)data) ? 1 : 0);
	return 0;
}

/* cpuN/nodeM -> ../../node/nodeM */
static int cpu_node_link(char *buf, size_t size, void *data)
{
	ksnprintf(buf, size, "../../node/node%d", (int)(uintptr_t)data);
	return 0;
}

/* nodeM/cpuN -> ../../cpu/cpuN */
static int node_cpu_link(char *buf, size_t size, void *data)
{
	ksnprintf(buf, size, "../../cpu/cpu%u", (unsigned)(uintptr_t)data);
	return 0;
}

static const struct vfs_file_ops cpu_online_ops = { .show = cpu_online_show };
static const struct vfs_file_ops cpu_node_link_ops = { .readlink = cpu_node_link };
static const struct vfs_file_ops node_cpu_link_ops = { .readlink = node_cpu_link };

/* cpu_sysfs_init() - see views/cpu_sysfs.h. */
void cpu_sysfs_init(void)
{
	char path[VFS_PATH_MAX];
	unsigned failed = 0;

	for (unsigned cpu = 0; cpu < nr_present(); cpu++) {
		struct numa_cpu c;

		if (cpu > 0) {
			ksnprintf(path, sizeof(path), CPU_DIR "/cpu%u/online", cpu);
			failed += vfs_create(path, &cpu_online_ops, (void *)(uintptr_t)cpu) != 0;
		}
		if (!numa_cpu_get(cpu, &c) || c.nid < 0)
			continue;	/* no node: no link either way */
		ksnprintf(path, sizeof(path), CPU_DIR "/cpu%u/node%d", cpu, c.nid);
		failed += vfs_create(path, &cpu_node_link_ops, (void *)(uintptr_t)c.nid) != 0;
		ksnprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpu%u", c.nid, cpu);
		failed += vfs_create(path, &node_cpu_link_ops, (void *)(uintptr_t)cpu) != 0;
	}
	if (failed)
		pr_warn("cpu_sysfs: %u files under %s could not be created", failed, CPU_DIR);
}

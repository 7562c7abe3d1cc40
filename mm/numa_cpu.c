/*
 * numa_cpu.c - the CPUs the firmware lists and their nodes (numa_cpu.h).
 *
 * A plain array in CPU-number order.  The firmware's tables are hostile
 * input, so numa_cpu_add() checks what it is given: a hardware id listed
 * twice keeps its first entry, a node id out of range is refused, and a
 * machine with more CPUs than the table holds has the rest counted, never
 * written past the end.
 */
#include <mm/numa_cpu.h>
#include <mm/mmzone.h>
#include <lib/errno.h>
#include <lib/string.h>

static struct numa_cpu numa_cpus[NUMA_MAX_CPUS];	/* [c] */
static unsigned nr_cpus;		/* [c] 0: nothing added, the fallback CPU */
static unsigned nr_dropped;	/* [c] */

void numa_cpus_reset(void)
{
	memset(numa_cpus, 0, sizeof(numa_cpus));
	nr_cpus = 0;
	nr_dropped = 0;
}

/* The first online node, where the fallback CPU is; NUMA_NO_NODE if none. */
static int first_online_node(void)
{
	int nid;

	for_each_online_node(nid)
		return nid;
	return NUMA_NO_NODE;
}

int numa_cpu_add(const struct numa_cpu *cpu)
{
	if (cpu->nid != NUMA_NO_NODE && (cpu->nid < 0 || cpu->nid >= MAX_NUMNODES))
		return -EINVAL;
	for (unsigned i = 0; i < nr_cpus; i++)
		if (numa_cpus[i].hw_id == cpu->hw_id)
			return -EEXIST;
	if (nr_cpus == NUMA_MAX_CPUS) {
		nr_dropped++;
		return -ENOSPC;
	}
	numa_cpus[nr_cpus] = *cpu;
	numa_cpus[nr_cpus].online = cpu->boot;	/* the boot CPU runs; APs once started */
	if (cpu->boot && nr_cpus) {	/* the boot CPU is number 0 */
		struct numa_cpu old0 = numa_cpus[0];

		numa_cpus[0] = numa_cpus[nr_cpus];
		numa_cpus[nr_cpus] = old0;
		nr_cpus++;
		return 0;
	}
	return (int)nr_cpus++;
}

unsigned nr_numa_cpus(void)
{
	return nr_cpus ? nr_cpus : 1;
}

unsigned numa_cpus_dropped(void)
{
	return nr_dropped;
}

bool numa_cpus_listed(void)
{
	return nr_cpus > 0;
}

bool numa_cpu_get(unsigned cpu, struct numa_cpu *out)
{
	if (!nr_cpus) {
		if (cpu)
			return false;
		*out = (struct numa_cpu){ .pxm = -1, .nid = first_online_node(), .boot = true,
					  .online = true };
		return true;
	}
	if (cpu >= nr_cpus)
		return false;
	*out = numa_cpus[cpu];
	return true;
}

void numa_cpu_set_online(unsigned cpu, bool online)
{
	if (cpu < nr_cpus)
		numa_cpus[cpu].online = online;
}

/* Online CPUs with pcp lists; on node nid, or on any node when any_node. */
static unsigned count_online(int nid, bool any_node)
{
	unsigned n = 0;
	struct numa_cpu c;

	for (unsigned cpu = 0; cpu < nr_numa_cpus() && cpu < MM_NR_CPUS; cpu++)
		if (numa_cpu_get(cpu, &c) && c.online && (any_node || (nid != NUMA_NO_NODE && c.nid == nid)))
			n++;
	return n;
}

unsigned node_nr_online_cpus(int nid)
{
	return count_online(nid, false);
}

unsigned nr_online_numa_cpus(void)
{
	unsigned n = count_online(NUMA_NO_NODE, true);

	return n ? n : 1;
}

/* Is CPU number cpu on node nid? */
static bool cpu_on_node(unsigned cpu, int nid)
{
	struct numa_cpu c;

	return nid != NUMA_NO_NODE && numa_cpu_get(cpu, &c) && c.nid == nid;
}

bool node_has_cpus(int nid)
{
	for (unsigned cpu = 0; cpu < nr_numa_cpus(); cpu++)
		if (cpu_on_node(cpu, nid))
			return true;
	return false;
}

void node_cpulist_print(struct printer *p, int nid)
{
	unsigned n = nr_numa_cpus();
	bool first = true;

	for (unsigned cpu = 0; cpu < n; cpu++) {
		unsigned last = cpu;

		if (!cpu_on_node(cpu, nid))
			continue;
		while (last + 1 < n && cpu_on_node(last + 1, nid))
			last++;
		if (last == cpu)
			pr_printf(p, "%s%u", first ? "" : ",", cpu);
		else
			pr_printf(p, "%s%u-%u", first ? "" : ",", cpu, last);
		first = false;
		cpu = last;
	}
}

void node_cpumap_print(struct printer *p, int nid)
{
	unsigned n = nr_numa_cpus();
	unsigned top = (n + 31) / 32;	/* 32-bit groups */

	for (unsigned g = top; g-- > 0;) {
		unsigned bits = g == top - 1 && n % 32 ? n % 32 : 32;
		u32 word = 0;

		for (unsigned b = 0; b < bits; b++)
			if (cpu_on_node(g * 32 + b, nid))
				word |= 1u << b;
		if (g == top - 1)
			pr_printf(p, "%0*x", (int)((bits + 3) / 4), word);
		else
			pr_printf(p, ",%08x", word);
	}
}

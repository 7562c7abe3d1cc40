/*
 * numa_cpu.h - which CPUs the firmware lists, and on which node each one is.
 *
 * mm's operations run on the boot CPU; the others, started by
 * arch/x86_64/smp.c from this table (which marks each one online when it
 * came up), idle, answer calls, and run mm in `stress`, `cpus alloc`,
 * deferred init and drains (docs/smp.md).  The pcp sizes divide by the
 * online CPUs of a node.
 * The ACPI driver fills this table at boot from the MADT (one entry per
 * enabled processor: local APIC or local x2APIC) and the SRAT's processor
 * affinity entries, and the views print it: `numa`, and
 * /sys/devices/system/node/{has_cpu,nodeN/cpulist,nodeN/cpumap}.  mm/ knows
 * a CPU by a number (Linux's logical CPU id: 0 is the boot CPU, the others
 * follow in table order) and the firmware's hardware id (the APIC id on
 * x86), nothing more.
 *
 * Before anything is added (no MADT, or a host test that adds none) the
 * table answers for one CPU, number 0, on the first online node, as it did
 * before memlab read processor affinity.
 *
 * Context: filled at boot (numa_cpus_reset, numa_cpu_add), read from the
 * main loop.
 */
#ifndef MM_NUMA_CPU_H
#define MM_NUMA_CPU_H

#include <lib/types.h>
#include <lib/printer.h>

#define NUMA_MAX_CPUS	1024	/* CPUs listed; more are counted and reported */

struct numa_cpu {
	u32 hw_id;		/* [c] the APIC id (x2APIC id) the firmware gives */
	u32 uid;		/* [c] ACPI processor UID */
	s32 pxm;		/* [c] SRAT proximity domain, -1 without processor affinity */
	int nid;		/* [c] node, NUMA_NO_NODE if its domain has no memory node */
	bool boot;		/* [c] the CPU memlab runs on */
	bool online;		/* [c] running: the boot CPU from its numa_cpu_add(), an
				 * AP once arch/x86_64/smp.c saw it come up */
};

/* numa_cpus_reset() - forget every CPU (the fallback of one CPU again). */
void numa_cpus_reset(void);

/*
 * numa_cpu_add() - list a CPU; returns its number, or -EEXIST when hw_id is
 * listed already (the first entry stays), -EINVAL for a node id out of
 * range (NUMA_NO_NODE is allowed), -ENOSPC past NUMA_MAX_CPUS (counted in
 * numa_cpus_dropped()).  The boot CPU is always number 0: adding it moves
 * the CPU numbered 0 so far to the end.  Context: boot.
 */
int numa_cpu_add(const struct numa_cpu *cpu);

/* nr_numa_cpus() - CPUs listed (1 before any is added). */
unsigned nr_numa_cpus(void);
/* numa_cpus_dropped() - CPUs numa_cpu_add() had no room for. */
unsigned numa_cpus_dropped(void);
/* numa_cpus_listed() - true once the firmware's CPUs were added. */
bool numa_cpus_listed(void);

/* numa_cpu_get() - CPU number cpu (< nr_numa_cpus()), copied into *out;
 * false past the end.  The fallback CPU has hw_id 0, pxm -1. */
bool numa_cpu_get(unsigned cpu, struct numa_cpu *out);

/*
 * numa_cpu_set_online() - CPU number cpu is running (or not): set by the
 * arch's start-up once an AP said it is online.  Out of range is ignored.
 * Context: boot.
 */
void numa_cpu_set_online(unsigned cpu, bool online);

/*
 * node_nr_online_cpus() - how many online CPUs with per-CPU page lists
 * (numbers below MM_NR_CPUS) node nid has; nr_online_numa_cpus() - the
 * same over every node (at least 1: the fallback CPU).  The pcp sizes
 * divide by them (pcp.c).
 */
unsigned node_nr_online_cpus(int nid);
unsigned nr_online_numa_cpus(void);

/* node_has_cpus() - does node nid hold at least one listed CPU? */
bool node_has_cpus(int nid);

/*
 * node_cpulist_print() - node nid's CPUs as Linux prints a cpulist ("%*pbl":
 * "0-1,4"; empty when none), without a newline.
 * node_cpumap_print() - the same as a mask ("%*pb"): nr_numa_cpus() bits in
 * hex, 32-bit groups separated by commas, most significant first, the first
 * group with as many digits as its bits need ("3" for CPUs 0-1 of 4,
 * "00,0000000f" for CPUs 0-3 of 40).
 */
void node_cpulist_print(struct printer *p, int nid);
void node_cpumap_print(struct printer *p, int nid);

#endif

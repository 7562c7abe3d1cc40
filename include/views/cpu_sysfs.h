/*
 * cpu_sysfs.h - Linux's CPU files, in views/sysfs_cpu.c:
 *
 *   /sys/devices/system/cpu/online      CPUs running ("0-3"), a range list
 *   /sys/devices/system/cpu/possible    CPUs there may ever be: the present
 *                                       ones and the MADT's entries that may
 *                                       be added later (numbered after them)
 *   /sys/devices/system/cpu/present     CPUs the MADT lists as enabled
 *   /sys/devices/system/cpu/offline     possible but not online ("" if none)
 *   /sys/devices/system/cpu/cpuN/online 1 or 0, for every present CPU but
 *                                       CPU 0 (Linux's boot CPU cannot be
 *                                       taken offline, so it has none)
 *   /sys/devices/system/cpu/cpuN/nodeM  link to ../../node/nodeM, the CPU's
 *                                       node (none when it has no node)
 *   /sys/devices/system/node/nodeM/cpuN link to ../../cpu/cpuN
 *
 * A range list is Linux's "%*pbl": ascending ranges "a-b" or single
 * numbers, separated by commas, then a newline.  Read-only: memlab has no
 * CPU hotplug.  The CPUs are arch/smp.h's (their state) on the table of
 * include/mm/numa_cpu.h (their nodes).
 *
 * Context: main loop.
 */
#ifndef VIEWS_CPU_SYSFS_H
#define VIEWS_CPU_SYSFS_H

/* cpu_sysfs_init() - create the cpuN directories and their node links
 * (the four lists are static files).  Context: boot, after smp_init(). */
void cpu_sysfs_init(void);

#endif

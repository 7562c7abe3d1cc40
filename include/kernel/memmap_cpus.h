/*
 * memmap_cpus.h - the kernel's way to the APs for mm's parallel memmap
 * init of onlined blocks (include/mm/memmap_cpus.h, kernel/memmap_cpus.c).
 */
#ifndef KERNEL_MEMMAP_CPUS_H
#define KERNEL_MEMMAP_CPUS_H

/*
 * memmap_cpus_init() - give mm the kernel's memmap_cpus_ops: from then on
 * a block's memmap is split over CPU 0 and the idle APs.  Called by
 * meminit_cpus_start() at the end of boot, after smp_init(); calling it
 * again changes nothing.  Context: (main).
 */
void memmap_cpus_init(void);

#endif

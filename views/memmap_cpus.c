/*
 * memmap_cpus.c - /sys/kernel/mm/memlab/memmap_init_cpus: what the memmap
 * inits of onlined blocks so far were split into (mm/memmap_cpus.c,
 * include/mm/memmap_cpus.h): the chunks and struct pages each CPU did,
 * and the chunks CPU 0 did in a helper's place.  memlab's own file; Linux
 * initialises a hot-added block's memmap on one CPU.
 *
 * Context: (main).
 */
#include <mm/memmap_cpus.h>
#include <mm/mmzone.h>
#include <views/vfs.h>
#include <lib/printer.h>

/* The file's text.  Context: (main), which reads the [h] counters. */
static int memmap_cpus_show(struct printer *p, void *data)
{
	const struct memmap_cpus_stats *s = &memmap_cpus_stats;

	pr_printf(p, "helpers at most: %u (memory_hotplug.memmap_init_cpus)\n", memmap_cpus_max());
	pr_printf(p, "ranges: %llu, split over more than one CPU: %llu, %llu cycles on CPU 0 in all\n",
		  (unsigned long long)s->ranges, (unsigned long long)s->split,
		  (unsigned long long)s->cycles);
	pr_printf(p, "cycles waiting for the helpers: %llu; from the start to a helper's claim, summed: %llu\n",
		  (unsigned long long)s->wait_cycles, (unsigned long long)s->claim_cycles);
	for (unsigned cpu = 0; cpu < MM_NR_CPUS; cpu++)
		if (s->chunks_by_cpu[cpu])
			pr_printf(p, "cpu %u: %llu chunks, %llu struct pages\n", cpu,
				  (unsigned long long)s->chunks_by_cpu[cpu],
				  (unsigned long long)s->pages_by_cpu[cpu]);
	pr_printf(p, "no CPU to start: %llu, not started within the bound (CPU 0 did them): %llu, "
		  "not finished within the bound (waited for): %llu\n",
		  (unsigned long long)s->not_started, (unsigned long long)s->taken_back,
		  (unsigned long long)s->late);
	return 0;
}

static const struct vfs_file_ops memmap_cpus_ops = { .show = memmap_cpus_show };
VFS_FILE(memmap_init_cpus, "/sys/kernel/mm/memlab/memmap_init_cpus", &memmap_cpus_ops, NULL);

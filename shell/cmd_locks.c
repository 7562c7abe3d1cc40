/*
 * cmd_locks.c - `locks`: mm's locks, how often each was taken, and which
 * are held now.
 *
 * The global locks come first (mem_hotplug_lock, mem_resize_lock,
 * wmark_lock), then the memory block locks summed, then each populated
 * zone's zone->lock and pcp locks.
 *
 * memlab runs on one CPU, so its locks never wait (include/lib/lock.h):
 * they check that nobody holds them and count.  The counts show which
 * lock each operation goes through: an order-0 allocation takes its CPU's
 * pcp lock (and zone->lock only to refill the list), an order-10 one
 * zone->lock, onlining a block its memory block lock and mem_hotplug_lock
 * for writing, `cat /proc/zoneinfo` mem_hotplug_lock for reading.  The
 * held list is empty at the prompt: no lock is held across a command.
 *
 * Context: (main).
 */
#include <shell/shell.h>
#include <lib/lock.h>
#include <mm/memory_hotplug.h>
#include <mm/mmzone.h>

static int cmd_locks(struct printer *out, int argc, char **argv)
{
	const struct rwsem *hp = mem_hotplug_lock_stats();
	unsigned long id = 0, nr_blocks = 0, nr_locked = 0;
	u64 block_taken = 0;
	struct memory_block *mem;
	int nid;

	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("locks"));
	pr_printf(out, "%-28s %-9s %-8s %s\n", "LOCK", "KIND", "HELD", "TAKEN");
	pr_printf(out, "%-28s %-9s %-8s read %llu, write %llu\n", hp->name, "rwsem",
		  hp->writer ? "write" : hp->readers ? "read" : "no",
		  (unsigned long long)hp->nr_read, (unsigned long long)hp->nr_write);
	for (int i = 0; i < 2; i++) {
		const struct spinlock *l = i ? wmark_lock_stats() : mem_resize_lock_stats();

		pr_printf(out, "%-28s %-9s %-8s %llu\n", l->name, "spinlock",
			  spin_is_locked(l) ? "yes" : "no", (unsigned long long)l->nr_taken);
	}
	for (; (mem = memory_block_next(&id)); id++) {
		nr_blocks++;
		nr_locked += mutex_is_locked(&mem->lock);
		block_taken += mem->lock.nr_taken;
	}
	pr_printf(out, "%-28s %-9s %lu of %-3lu %llu (all %lu blocks)\n", "memory block lock", "mutex",
		  nr_locked, nr_blocks, (unsigned long long)block_taken, nr_blocks);
	for_each_online_node(nid) {
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			const struct zone *zone = &NODE_DATA(nid)->node_zones[z];
			char name[40];
			unsigned cpu;

			if (!populated_zone(zone))
				continue;
			ksnprintf(name, sizeof(name), "node %d %s zone->lock", nid, zone->name);
			pr_printf(out, "%-28s %-9s %-8s %llu\n", name, "spinlock",
				  spin_is_locked(&zone->lock) ? "yes" : "no",
				  (unsigned long long)zone->lock.nr_taken);
			for_each_pcp_cpu(cpu) {
				const struct per_cpu_pages *pcp = zone_pcp(zone, cpu);

				ksnprintf(name, sizeof(name), "node %d %s cpu %u pcp", nid, zone->name, cpu);
				pr_printf(out, "%-28s %-9s %-8s %llu\n", name, "spinlock",
					  spin_is_locked(&pcp->lock) ? "yes" : "no",
					  (unsigned long long)pcp->lock.nr_taken);
			}
		}
	}
	pr_printf(out, "held now: %u\n", lock_nr_held());
	lock_print_held(out);
	return 0;
}

SHELL_COMMAND(locks, .name = "locks", .usage = "locks",
	      .summary = "mm's locks: how often each was taken, which are held",
	      .help = "mem_hotplug_lock (read and write), mem_resize_lock, wmark_lock,\n"
		      "the memory block locks (summed over blocks), each populated zone's\n"
		      "zone->lock and each CPU's pcp lock, with the times each was taken\n"
		      "since boot, then the locks held now (none at the prompt).  The\n"
		      "locks spin, but only CPU 0 runs mm, so they never wait yet\n"
		      "(docs/architecture.md, \"Locks\").",
	      .fn = cmd_locks);

/*
 * cmd_devmem.c - the shell's device-memory command (mm/memremap.c).
 *
 *   devmem [list]                          the device ranges
 *   devmem create START SIZE 4k|2m         offline blocks -> ZONE_DEVICE
 *   devmem rebind ID [old|new|template-nt] memmap torn down and initialised
 *                                          again with that design (default:
 *                                          the memmap_init switch), timed
 *   devmem destroy ID                      back to offline blocks
 *   devmem compare ID                      every design, byte for byte
 *   devmem bench START SIZE [REPS] [warm]  alias of `bench memmap_init`
 *                                          (shell/cmd_bench.c)
 *
 * A typical session after `device_add pc-dimm` with auto_online_blocks
 * "offline" (the DIMM at 4 GiB, 1 GiB):
 *   devmem create 0x100000000 1G 2m
 *   devmem rebind 0 old ; devmem rebind 0 new ; devmem rebind 0 template-nt
 *   devmem compare 0
 *   devmem destroy 0
 *   devmem bench 0x100000000 1G
 *
 * Context: (main).
 */
#include <lib/errno.h>
#include <shell/args.h>
#include <shell/shell.h>
#include <lib/string.h>
#include <kernel/time.h>
#include <mm/memremap.h>
#include <mm/mechanisms.h>
#include "mm_bench.h"

/*
 * A design word of `devmem rebind`: mech_parse_design()'s, and "template",
 * the benchmark tables' name for memmap_init's new design.  The design, or
 * -EINVAL if none of them.
 */
static int parse_design(const char *word)
{
	if (!strcmp(word, "template"))
		word = "new";
	return mech_parse_design(word, strlen(word));
}

static int parse_id(struct printer *out, const char *word, int *id)
{
	u64 v;

	if (shell_arg_u64(out, "devmem", "id", word, 0, DEVMEM_MAX_RANGES - 1,
			  "DEVMEM_MAX_RANGES", &v))
		return -EINVAL;
	*id = (int)v;
	return 0;
}

/* cycles, cycles/page with two decimals, and the time, in one phrase. */
static void print_init_time(struct printer *out, u64 cycles, u64 pages)
{
	u64 per100 = pages ? (cycles * 100 + pages / 2) / pages : 0;
	u64 ns = cycles_to_ns(cycles);

	pr_printf(out, "initialised %llu pages in %llu cycles (%llu.%02llu cycles/page, %llu.%03llu ms)",
		  (unsigned long long)pages, (unsigned long long)cycles,
		  (unsigned long long)(per100 / 100), (unsigned long long)(per100 % 100),
		  (unsigned long long)(ns / 1000000), (unsigned long long)(ns / 1000 % 1000));
}

static int devmem_cmd_create(struct printer *out, int argc, char **argv)
{
	u64 start, size;
	unsigned order;
	int id;

	if (argc != 5)
		return shell_usage(out, shell_find("devmem"));
	if (shell_arg_u64(out, "devmem", "address", argv[2], 0, (1ULL << MAX_PHYSMEM_BITS) - 1,
			  "MAX_PHYSMEM_BITS", &start) ||
	    shell_arg_u64(out, "devmem", "size", argv[3], 1, 1ULL << MAX_PHYSMEM_BITS,
			  "MAX_PHYSMEM_BITS", &size))
		return -EINVAL;
	/* checked before anything is printed: start + size must not pass the end */
	if (size > (1ULL << MAX_PHYSMEM_BITS) - start) {
		pr_printf(out, "devmem: [%#llx, +%llu MiB) runs past the end of physical memory "
			  "(%#llx, MAX_PHYSMEM_BITS %d)\n", (unsigned long long)start,
			  (unsigned long long)(size >> 20), 1ULL << MAX_PHYSMEM_BITS, MAX_PHYSMEM_BITS);
		return -EINVAL;
	}
	if (!strcmp(argv[4], "4k") || !strcmp(argv[4], "4K"))
		order = 0;
	else if (!strcmp(argv[4], "2m") || !strcmp(argv[4], "2M"))
		order = pageblock_order;
	else {
		pr_printf(out, "devmem: %s: compound size is 4k or 2m\n", argv[4]);
		return -EINVAL;
	}
	char head[80];

	ksnprintf(head, sizeof(head), "devmem: cannot create [%#llx-%#llx): ",
		  (unsigned long long)start, (unsigned long long)(start + size));
	if (shell_range_busy(out, start, start + size, head, "that memory", true))
		return -EBUSY;
	shell_claim_range(start, start + size);	/* the job's while the memmap is written */
	id = devmem_create(start, size, order);
	if (id < 0) {
		pr_printf(out, "devmem: cannot create [%#llx-%#llx): %s (see the log line above)\n",
			  (unsigned long long)start, (unsigned long long)(start + size), err_text(id));
		return id;
	}
	pr_printf(out, "devmem%d: created, %s pages: ", id, order ? "2 MiB compound" : "4 KiB");
	print_init_time(out, devmem_find(id)->last_init_cycles, devmem_find(id)->last_init_pages);
	pr_printf(out, " (%s)\n", mech_design_name(devmem_find(id)->last_design));
	return 0;
}

/*
 * -EBUSY, after saying so, when another operation (a `devmem compare`
 * job) holds device memory range id; 0 otherwise (also for no such id:
 * the caller reports that).
 */
static int devmem_held(struct printer *out, const char *what, int id)
{
	const struct dev_pagemap *pgmap = devmem_find(id);
	char head[48];

	if (!pgmap)
		return 0;
	ksnprintf(head, sizeof(head), "devmem: %s %d: ", what, id);
	return shell_range_busy(out, PFN_PHYS(pgmap->start_pfn),
				PFN_PHYS(pgmap->start_pfn + pgmap->nr_pages), head, "it", false);
}

static int devmem_cmd_rebind(struct printer *out, int argc, char **argv)
{
	const struct dev_pagemap *pgmap;
	int id, d = -1, err;

	if (argc != 3 && argc != 4)
		return shell_usage(out, shell_find("devmem"));
	err = parse_id(out, argv[2], &id);
	if (err)
		return err;
	if (argc == 4 && (d = parse_design(argv[3])) < 0) {
		pr_printf(out, "devmem: %s: the design is old, new or template-nt\n", argv[3]);
		return -EINVAL;
	}
	if (devmem_held(out, "rebind", id))
		return -EBUSY;
	pgmap = devmem_find(id);
	if (pgmap)	/* the job's while the memmap is written again */
		shell_claim_range(PFN_PHYS(pgmap->start_pfn),
				  PFN_PHYS(pgmap->start_pfn + pgmap->nr_pages));
	err = devmem_rebind(id, d);
	if (err) {
		pr_printf(out, "devmem: rebind %d: %s\n", id, err_text(err));
		return err;
	}
	pgmap = devmem_find(id);
	pr_printf(out, "devmem%d: rebind (%s): ", id, mech_design_name(pgmap->last_design));
	print_init_time(out, pgmap->last_init_cycles, pgmap->last_init_pages);
	pr_printf(out, "\n");
	return 0;
}

static int devmem_cmd_destroy(struct printer *out, int argc, char **argv)
{
	int id, err;

	if (argc != 3)
		return shell_usage(out, shell_find("devmem"));
	err = parse_id(out, argv[2], &id);
	if (!err && devmem_find(id) && devmem_find(id)->owner[0]) {
		pr_printf(out, "devmem: destroy %d: it is %s's memory (nd destroy-namespace gives it back)\n",
			  id, devmem_find(id)->owner);
		return -EBUSY;
	}
	if (!err && devmem_held(out, "destroy", id))
		return -EBUSY;
	if (!err)
		err = devmem_destroy(id);
	if (err) {
		pr_printf(out, "devmem: destroy %s: %s\n", argv[2], err_text(err));
		return err;
	}
	pr_printf(out, "devmem%d: destroyed; its blocks are offline memory again\n", id);
	return 0;
}

static int devmem_cmd_compare(struct printer *out, int argc, char **argv)
{
	static const int order[] = { DESIGN_OLD, DEVMEM_DESIGN_HEAD_TEMPLATE, DESIGN_NEW,
				     DESIGN_NEW_NT, DEVMEM_DESIGN_SHARED };
	struct devmem_compare_out res;
	struct memmap_diff diff;
	const struct dev_pagemap *pgmap;
	char names[96] = "";
	unsigned nran = 0, k = 0;
	bool pb_diff;
	int id, err;

	if (argc != 3)
		return shell_usage(out, shell_find("devmem"));
	err = parse_id(out, argv[2], &id);
	if (err)
		return err;
	pgmap = devmem_find(id);
	if (pgmap)	/* while it runs, destroy and rebind are refused */
		shell_claim_range(PFN_PHYS(pgmap->start_pfn),
				  PFN_PHYS(pgmap->start_pfn + pgmap->nr_pages));
	err = devmem_compare(id, &diff, &pb_diff, &res);
	if (err == -EINTR) {
		pr_printf(out, "devmem: compare %d: interrupted between two sections; the memmap is initialised again\n",
			  id);
		return err;
	}
	if (err < 0) {
		pr_printf(out, "devmem: compare %d: %s\n", id, err_text(err));
		return err;
	}
	pgmap = devmem_find(id);
	for (unsigned i = 0; i < ARRAY_SIZE(order); i++)
		nran += res.ran[order[i]];
	for (unsigned i = 0; i < ARRAY_SIZE(order); i++) {
		int d = order[i];
		size_t n = strlen(names);

		pr_printf(out, "  %-13s ", devmem_design_name(d));
		if (res.ran[d]) {
			print_init_time(out, res.cycles[d], pgmap->nr_pages);
			if (d == DEVMEM_DESIGN_SHARED)
				pr_printf(out, ", read back through the shared layout");
			ksnprintf(names + n, sizeof(names) - n, "%s%s", k ? (k + 1 == nran ? " and " : ", ") : "",
				  devmem_design_name(d));
			k++;
		} else if (d == DEVMEM_DESIGN_SHARED) {
			pr_printf(out, "not compared: %s", res.shared_err == -EINVAL ?
				  "4 KiB pages have no compound to share" :
				  res.shared_err == -EOPNOTSUPP ?
				  "the range borrows hot-added blocks (no vmemmap of its own)" :
				  res.shared_err ? "no memory for the shared layout" :
				  "an earlier design differed");
		} else {
			pr_printf(out, "not compared: an earlier design differed");
		}
		pr_printf(out, "\n");
	}
	if (err == 0) {
		pr_printf(out, "devmem%d: %s memmaps: identical (%llu struct pages, %llu pageblocks)%s\n",
			  id, names, (unsigned long long)pgmap->nr_pages,
			  (unsigned long long)(pgmap->nr_pages / pageblock_nr_pages),
			  res.in_shared ? "; the full designs through the shared layout's aliases" : "");
		return 0;
	}
	if (pb_diff)
		pr_printf(out, "devmem%d: DIFFERENT (%s): pageblock at pfn %#llx: migratetype %u (old) vs %u\n",
			  id, devmem_design_name(res.design),
			  (unsigned long long)(pgmap->start_pfn + diff.index), diff.expect, diff.got);
	else if (res.shared_premise)
		pr_printf(out, "devmem%d: DIFFERENT (shared): the per-page memmap's pfn %#llx byte %u: %#04x vs %#04x in the struct page whose memory it would share\n",
			  id, (unsigned long long)(pgmap->start_pfn + diff.index), diff.byte,
			  diff.got, diff.expect);
	else
		pr_printf(out, "devmem%d: DIFFERENT (%s): pfn %#llx byte %u: %#04x (old) vs %#04x\n", id,
			  devmem_design_name(res.design),
			  (unsigned long long)(pgmap->start_pfn + diff.index), diff.byte, diff.expect,
			  diff.got);
	return -EIO;
}

static int cmd_devmem(struct printer *out, int argc, char **argv)
{
	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "list"))) {
		devmem_dump(out);
		return 0;
	}
	if (!strcmp(argv[1], "create"))
		return devmem_cmd_create(out, argc, argv);
	if (!strcmp(argv[1], "rebind"))
		return devmem_cmd_rebind(out, argc, argv);
	if (!strcmp(argv[1], "destroy"))
		return devmem_cmd_destroy(out, argc, argv);
	if (!strcmp(argv[1], "compare"))
		return devmem_cmd_compare(out, argc, argv);
	if (!strcmp(argv[1], "bench"))		/* alias: bench memmap_init */
		return bench_memmap_init_cmd(out, "devmem bench", argc - 2, argv + 2);
	return shell_usage(out, shell_find("devmem"));
}

/* Every command that writes the range's memmap grows with it: create,
 * rebind, compare and bench run as jobs (`help jobs`). */
static bool devmem_runs_long(int argc, char **argv)
{
	return argc >= 2 && (!strcmp(argv[1], "create") || !strcmp(argv[1], "rebind") ||
			     !strcmp(argv[1], "compare") || !strcmp(argv[1], "bench"));
}

SHELL_COMMAND(devmem, .name = "devmem",
	      .usage = "devmem [list | create START SIZE 4k|2m | rebind ID [old|new|template-nt] | "
		       "destroy ID | compare ID | bench START SIZE [REPS] [warm]]",
	      .summary = "device memory (ZONE_DEVICE) from offline blocks; memmap init measured",
	      .help = "create turns offline memory blocks (a DIMM hot-added with\n"
		      "auto_online_blocks=offline) into a ZONE_DEVICE range of 4 KiB pages\n"
		      "or 2 MiB compound pages; its memmap is initialised with the design\n"
		      "of /sys/kernel/mm/memlab/memmap_init.  rebind tears the memmap down\n"
		      "and initialises it again (with the design given, else the switch's)\n"
		      "and reports the time, like Linux's dax_pmem rebind measurement.\n"
		      "compare initialises each section with old (per page), then\n"
		      "head-template, new and template-nt, and compares the struct pages\n"
		      "and pageblock flags byte for byte; for a dax device with 2M or 1G\n"
		      "compounds it then maps the shared vmemmap and compares the shared\n"
		      "design, read back through pfn_to_page, with old (and maps the full\n"
		      "one back).\n"
		      "destroy gives the blocks back, offline.  bench is an alias of\n"
		      "`bench memmap_init START SIZE [REPS] [warm]`.  create, rebind,\n"
		      "compare and bench run as jobs (`help jobs`): compare pauses (and\n"
		      "Ctrl-C stops it) between two sections; create and rebind of more\n"
		      "than 64 sections (8 GiB) time each section on its own and pause\n"
		      "between two, but always finish.",
	      .fn = cmd_devmem,
	      .runs_long = devmem_runs_long);

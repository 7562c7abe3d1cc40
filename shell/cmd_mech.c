/*
 * cmd_mech.c - the commands of the four mechanisms' switches (their files,
 * /sys/kernel/mm/memlab/NAME, are views/mech.c):
 *
 *   mech [NAME [old|new|template-nt]]    show or switch
 *   trace NAME on|off                    narrate a mechanism's steps
 *   contiguity                           both contiguity answers per zone
 */
#include <mm/mechanisms.h>
#include <mm/mmzone.h>
#include <shell/shell.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <lib/printk.h>

static int cmd_mech(struct printer *out, int argc, char **argv)
{
	int id, err;

	if (argc == 1) {
		mech_dump(out);
		return 0;
	}
	id = mech_find(argv[1]);
	if (id < 0) {
		pr_printf(out, "mech: %s: no such mechanism (contig_check, memmap_init, contig_free, auto_movable_stats)\n",
			  argv[1]);
		return -ENOENT;
	}
	if (argc == 2) {
		pr_printf(out, "%s: %s\n", mech_name(id), mech_design_name(mech_design(id)));
		return 0;
	}
	if (argc != 3)
		return shell_usage(out, shell_find("mech"));
	err = mech_set_design(id, argv[2], strlen(argv[2]));
	if (err) {
		pr_printf(out, "mech: %s: '%s' is not a design (old, new%s)\n", mech_name(id), argv[2],
			  mech_has_nt(id) ? ", template-nt" : "");
		return err;
	}
	pr_printf(out, "%s: %s\n", mech_name(id), mech_design_name(mech_design(id)));
	return 0;
}

SHELL_COMMAND(mech, .name = "mech", .usage = "mech [NAME [old|new|template-nt]]",
	      .summary = "show or switch the old/new design of each mechanism",
	      .help = "The four mechanisms memlab keeps in two designs:\n"
		      "  contig_check        zone contiguity: walk (old) or counter (new)\n"
		      "  memmap_init         per page (old), template (new), template-nt\n"
		      "  contig_free         free_contig_range page by page or in chunks\n"
		      "  auto_movable_stats  auto-movable check: zone sums or cached\n"
		      "The same switches are /sys/kernel/mm/memlab/<name>.  See `trace`.",
	      .fn = cmd_mech);

static int cmd_trace(struct printer *out, int argc, char **argv)
{
	int id;	/* the one mechanism named, or -1 for all */

	if (argc == 1) {
		for (int i = 0; i < NR_MECHS; i++)
			pr_printf(out, "%-19s %s\n", mech_name(i), mech_tracing_verbose(i) ? "verbose" :
				  mech_tracing(i) ? "on" : "off");
		return 0;
	}
	if (argc != 3 || (strcmp(argv[2], "on") && strcmp(argv[2], "off") &&
			  strcmp(argv[2], "verbose")))
		return shell_usage(out, shell_find("trace"));
	id = !strcmp(argv[1], "all") ? -1 : mech_find(argv[1]);
	if (id < 0 && strcmp(argv[1], "all")) {
		pr_printf(out, "trace: %s: no such mechanism\n", argv[1]);
		return -ENOENT;
	}
	if (!strcmp(argv[2], "verbose")) {
		bool any = false;

		for (int i = 0; i < NR_MECHS; i++)
			if ((id < 0 || id == i) && !mech_set_trace_verbose((enum mech_id)i))
				any = true;
		if (!any) {
			pr_printf(out, "trace: %s has no step-by-step trace (contig_check: every "
				  "pageblock the walk visits; memmap_init: one page's words); "
				  "use `trace %s on`\n",
				  argv[1], argv[1]);
			return -EINVAL;
		}
	} else {
		for (int i = 0; i < NR_MECHS; i++)
			if (id < 0 || id == i)
				mech_set_trace((enum mech_id)i, !strcmp(argv[2], "on"));
	}
	/* trace lines are notices: say so when the console would not show them */
	if (strcmp(argv[2], "off") && printk_get_level() < LOG_NOTICE)
		pr_printf(out, "trace: warning: the console shows messages up to level %d only "
			  "(dmesg -n %d); trace lines are level %d and will reach dmesg, not the "
			  "console: `dmesg -n %d` to see them\n", printk_get_level(),
			  printk_get_level(), LOG_NOTICE, LOG_NOTICE);
	return 0;
}

SHELL_COMMAND(trace, .name = "trace", .usage = "trace [NAME|all on|off|verbose]",
	      .summary = "narrate a mechanism's steps on the console (teaching)",
	      .help = "With trace on, each mechanism prints what it does as it does it:\n"
		      "which pageblocks the contiguity walk visits, which chunks are\n"
		      "freed at which order, how memmap init copies its template, how\n"
		      "the auto-movable check sums its statistics.  `verbose` adds every\n"
		      "step where a mechanism has them: `trace contig_check verbose` prints\n"
		      "one line per pageblock the old design's walk visits, `trace\n"
		      "memmap_init verbose` the words of the first page of each range and\n"
		      "of the next (the template and a copy with its lru fix-up).  Off by\n"
		      "default;\n"
		      "tracing slows the operation it narrates.  Trace lines are kernel\n"
		      "notices (level 5): below `dmesg -n 5` they reach only dmesg, and\n"
		      "`trace NAME on` warns.  While a trace is on, each command's own\n"
		      "output is held until it ends (6 KiB at a time), so the trace lines\n"
		      "it causes come before it, never inside its tables.",
	      .fn = cmd_trace);

/*
 * `contiguity`: both answers for every populated zone, side by side, and
 * what each design has cost so far.  The walk is run here only to compare;
 * zone->contiguous is left as the selected design set it.
 */
static int cmd_contiguity(struct printer *out, int argc, char **argv)
{
	struct zone *zone;
	bool all_agree = true;

	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("contiguity"));
	pr_printf(out, "%-4s %-8s %10s %10s %10s %6s %8s %5s\n", "node", "zone", "spanned",
		  "present", "online_mm", "walk", "counter", "flag");
	for_each_zone(zone) {
		bool walk, counter;

		if (!zone->zone_pgdat || !populated_zone(zone))
			continue;
		walk = zone_contiguous_by_walk(zone);
		counter = zone_contiguous_by_counter(zone);
		all_agree &= walk == counter;
		pr_printf(out, "%-4d %-8s %10lu %10lu %10lu %6s %8s %5d\n",
			  zone->zone_pgdat->node_id, zone->name, zone->spanned_pages,
			  zone->present_pages, zone->pages_with_online_memmap,
			  walk ? "yes" : "no", counter ? "yes" : "no", zone->contiguous);
	}
	pr_printf(out, "designs %s; contig_check=%s; %lu pageblocks walked, %lu counter checks since boot\n",
		  all_agree ? "agree" : "DISAGREE", mech_design_name(contig_check_design()),
		  zone_contig_walk_steps, zone_contig_counter_checks);
	return 0;
}

SHELL_COMMAND(contiguity, .name = "contiguity", .usage = "contiguity",
	      .summary = "zone contiguity: the walk's answer and the counter's, per zone",
	      .help = "For each populated zone: spanned and present pages, the counter\n"
		      "pages_with_online_memmap, whether the old pageblock walk and the\n"
		      "new counter call the zone contiguous, and the flag in use.  The\n"
		      "last line says whether the designs agree and what they have cost\n"
		      "(pageblocks walked vs O(1) checks).  See docs/zone-contiguity.md.",
	      .fn = cmd_contiguity);

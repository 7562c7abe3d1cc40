/*
 * cmd_params.c - `params`: the kernel parameter table (include/lib/params.h),
 * the one list of what the boot command line and /sys/module/ can set.
 *
 *   params          every parameter: full name, type, value, default, where
 *   params NAME     one parameter: also its range or words, help, sysfs path
 */
#include <lib/errno.h>
#include <lib/params.h>
#include <lib/string.h>
#include <shell/shell.h>

#define PARAMS_LISTED	64	/* `params` lists at most this many */

/* "boot" for a plain boot parameter, else its sysfs mode as Linux would set it. */
static const char *param_where(const struct kernel_param *kp)
{
	if (!kp->module)
		return "boot";
	return kp->writable ? "boot, sysfs rw" : "boot, sysfs ro";
}

static void show_one(struct printer *out, const struct kernel_param *kp)
{
	char name[64];

	pr_printf(out, "name:    %s\n", param_full_name(kp, name, sizeof(name)));
	pr_printf(out, "type:    %s\n", param_type_name(kp));
	pr_printf(out, "value:   ");
	param_show(kp, out);
	pr_printf(out, "default: ");
	param_show_value(kp, out, kp->def);
	pr_printf(out, "\n");
	if (kp->type == PARAM_ENUM) {
		pr_printf(out, "words:  ");
		for (unsigned i = 0; i < kp->nr_names; i++)
			pr_printf(out, " %s", kp->names[i]);
		pr_printf(out, "\n");
	} else if (kp->type == PARAM_BOOL) {
		pr_printf(out, "words:   1/0, y/n, Y/N, t/f, on/off\n");
	} else {
		pr_printf(out, "range:   [%llu, %llu]%s\n", (unsigned long long)kp->min,
			  (unsigned long long)kp->max,
			  kp->type == PARAM_SIZE ? " bytes; K/M/G/T suffixes" : "");
	}
	pr_printf(out, "set by:  %s=VALUE on the command line", name);
	if (kp->module)
		pr_printf(out, "; /sys/module/%s/parameters/%s (%s)", kp->module, kp->name,
			  kp->writable ? "read-write" : "read-only");
	pr_printf(out, "\n");
	pr_printf(out, "help:    %s\n", kp->help);
}

static int cmd_params(struct printer *out, int argc, char **argv)
{
	if (argc > 2)
		return shell_usage(out, shell_find("params"));
	if (argc == 2) {
		const struct kernel_param *kp = param_find(argv[1]);

		if (!kp) {
			pr_printf(out, "params: %s: no such parameter (`params` lists them)\n",
				  argv[1]);
			return -ENOENT;
		}
		show_one(out, kp);
		return 0;
	}
	/* by full name: the table is in link order */
	const struct kernel_param *sorted[PARAMS_LISTED];
	unsigned n = 0;

	for_each_kernel_param(kp) {
		char a[64], b[64];
		unsigned i;

		if (n == PARAMS_LISTED)
			break;
		param_full_name(kp, a, sizeof(a));
		for (i = n; i > 0; i--) {
			param_full_name(sorted[i - 1], b, sizeof(b));
			if (strcmp(b, a) <= 0)
				break;
			sorted[i] = sorted[i - 1];
		}
		sorted[i] = kp;
		n++;
	}
	pr_printf(out, "%-40s %-5s %-14s %-14s %s\n", "NAME", "TYPE", "VALUE", "DEFAULT", "SET BY");
	for (unsigned i = 0; i < n; i++) {
		const struct kernel_param *kp = sorted[i];
		char name[64], val[32], def[32];
		struct buf_printer bv, bd;

		buf_printer_init(&bv, val, sizeof(val));
		buf_printer_init(&bd, def, sizeof(def));
		param_show_value(kp, &bv.p, param_get(kp));
		param_show_value(kp, &bd.p, kp->def);
		pr_printf(out, "%-40s %-5s %-14s %-14s %s\n", param_full_name(kp, name, sizeof(name)),
			  param_type_name(kp), val, def, param_where(kp));
	}
	return 0;
}

SHELL_COMMAND(params,
	.name = "params",
	.usage = "params [NAME]",
	.summary = "kernel parameters: command line and /sys/module, one table",
	.help = "Without NAME: every parameter memlab reads from the boot command line,\n"
		"its type, current value, default, and whether /sys/module shows it.\n"
		"With NAME (e.g. memory_hotplug.auto_movable_ratio): its range or words,\n"
		"its help and where it can be set.  The command line and the sysfs file\n"
		"accept the same values: both go through one parser per type.",
	.fn = cmd_params);

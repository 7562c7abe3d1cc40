/*
 * cmd_aml.c - the AML subcommands of `acpi` (shell/cmd_acpi.c hands them
 * over): `acpi ns [PATH]` (the namespace with object types), `acpi eval
 * PATH [ARGS...]` (the result printed as ACPICA's acpiexec prints it),
 * `acpi trace on|off` (every method entered, with arguments and result).
 */
#include <shell/shell.h>
#include <drivers/acpi.h>
#include <drivers/aml.h>
#include <lib/kstrtox.h>
#include <lib/string.h>
#include "internal.h"

static int eval(struct printer *out, struct aml_ns *ns, int argc, char **argv)
{
	struct aml_obj *args[7] = { 0 }, *res = NULL;
	unsigned nargs = 0;
	char full[96];
	int r = 0;

	for (int i = 3; i < argc && nargs < 7; i++) {
		unsigned long long v;
		size_t len = strlen(argv[i]);
		/* the shell has taken the quotes off: a number, else a String */
		if (!kstrtoull(argv[i], len, &v))
			args[nargs++] = aml_new_integer(ns, v);
		else
			args[nargs++] = aml_new_string(ns, argv[i]);
	}
	struct aml_node *n = aml_lookup(ns, NULL, argv[2]);
	if (!r && !n) {
		pr_printf(out, "acpi eval: %s does not exist\n", argv[2]);
		r = -1;
	}
	if (!r) {
		aml_node_path(n, full, sizeof(full));
		if (aml_eval(ns, full, args, nargs, &res)) {
			const struct aml_error *e = aml_last_error(ns);
			pr_printf(out, "acpi eval: %s failed: %s at 0x%x: %s\n", full, e->path,
				  e->offset, e->reason);
			r = -1;
		} else {
			pr_printf(out, "Evaluation of %s returned:\n", full);
			aml_print_result(out, full, res);
		}
	}
	aml_put(ns, res);
	for (unsigned i = 0; i < nargs; i++)
		aml_put(ns, args[i]);
	return r;
}

/* cmd_acpi_aml() - `acpi ns|eval|trace ...`; argv[1] is the subcommand. */
int cmd_acpi_aml(struct printer *out, int argc, char **argv)
{
	struct aml_ns *ns = acpi_aml();

	if (!ns) {
		pr_puts(out, "acpi: no AML namespace\n");
		return -1;
	}
	if (!strcmp(argv[1], "ns")) {
		struct aml_node *from = argc > 2 ? aml_lookup(ns, NULL, argv[2]) : NULL;
		if (argc > 3 || (argc == 3 && !from)) {
			pr_printf(out, "acpi ns: %s does not exist\n", argc > 2 ? argv[2] : "");
			return -1;
		}
		aml_dump_ns(ns, from, out);
		return 0;
	}
	if (!strcmp(argv[1], "eval")) {
		if (argc < 3)
			return shell_usage(out, shell_find("acpi"));
		return eval(out, ns, argc, argv);
	}
	if (argc != 3 || (strcmp(argv[2], "on") && strcmp(argv[2], "off")))
		return shell_usage(out, shell_find("acpi"));
	aml_set_trace(ns, !strcmp(argv[2], "on"));
	pr_printf(out, "acpi trace: %s\n", aml_trace(ns) ? "on" : "off");
	return 0;
}

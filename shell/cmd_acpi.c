/*
 * cmd_acpi.c - the shell commands of the ACPI driver: `acpi` (the tables,
 * one table decoded, the SCI/GPE events, the I/O APIC lines), `acpidump`
 * (every table's bytes as ACPICA's acpidump prints them) and `hotplug`
 * (the DIMM slots of QEMU's ACPI memory hotplug device).  Each prints a
 * dump function of drivers/acpi/ or arch/x86_64/apic.c.
 */
#include <shell/shell.h>
#include <drivers/acpi.h>
#include <drivers/nfit.h>
#include <arch/traps.h>
#include <lib/string.h>
#include <lib/errno.h>
#include "internal.h"

static int cmd_acpi(struct printer *out, int argc, char **argv)
{
	const char *what = argc == 2 ? argv[1] : "tables";

	if (argc >= 2 && (!strcmp(argv[1], "ns") || !strcmp(argv[1], "eval") || !strcmp(argv[1], "trace")))
		return cmd_acpi_aml(out, argc, argv);
	if (argc > 2)
		return shell_usage(out, shell_find("acpi"));
	if (!strcmp(what, "tables"))
		acpi_dump(out);
	else if (!strcmp(what, "madt"))
		madt_dump(out);
	else if (!strcmp(what, "events"))
		acpi_events_dump(out);
	else if (!strcmp(what, "irq"))
		apic_dump(out);
	else if (!strcmp(what, "fadt"))
		acpi_decode_fadt(out);
	else if (!strcmp(what, "srat"))
		acpi_decode_srat(out);
	else if (!strcmp(what, "slit"))
		acpi_decode_slit(out);
	else if (!strcmp(what, "mcfg"))
		acpi_decode_mcfg(out);
	else if (!strcmp(what, "nfit"))
		nfit_dump(out);
	else
		return shell_usage(out, shell_find("acpi"));
	return 0;
}

SHELL_COMMAND(acpi, .name = "acpi", .usage = "acpi [tables|fadt|madt|srat|slit|mcfg|nfit|events|irq] | acpi ns [PATH] | acpi eval PATH [ARGS...] | acpi trace on|off",
	      .summary = "ACPI tables, interrupt controllers, SCI and GPE events",
	      .help = "acpi tables: the root table (RSDT or XSDT) and every table it\n"
		      "  points to, plus the DSDT from the FADT: signature, address,\n"
		      "  length, OEM ids, and `ok` or why it was rejected (bad checksum,\n"
		      "  impossible length, ...). Rejected tables are never used.\n"
		      "acpi fadt|madt|srat|slit|mcfg: one table decoded field by field\n"
		      "  (PM blocks and GPE0; interrupt controllers and overrides; NUMA\n"
		      "  memory ranges; node distances; PCIe configuration space).\n"
		      "acpi nfit: the NVDIMM table: structures counted by type, each\n"
		      "  SPA range (type, node), DIMM map, control region, flush hint;\n"
		      "  or why it was refused.\n"
		      "acpi events: the SCI, the GPE0 block and which GPEs have handlers.\n"
		      "acpi irq: the I/O APIC lines in use, with their trigger mode.\n"
		      "The tables' bytes: `acpidump`, and one file per table in\n"
		      "/sys/firmware/acpi/tables/ (`hexdump -C` shows one); docs/acpi.md.\n"
		      "acpi ns [PATH]: the AML namespace (DSDT and SSDTs) from PATH down,\n"
		      "  each name with its type (docs/aml.md).\n"
		      "acpi eval PATH [ARGS...]: evaluate PATH (run a method with integer\n"
		      "  or \"string\" arguments) and print the result as acpiexec does.\n"
		      "acpi trace on|off: log every method entered, its arguments and result.",
	      .fn = cmd_acpi);

static int cmd_acpidump(struct printer *out, int argc, char **argv)
{
	const char *sig = argc == 2 ? argv[1] : NULL;

	if (argc > 2 || (sig && strlen(sig) != 4))
		return shell_usage(out, shell_find("acpidump"));
	if (acpi_dump_tables(out, sig) == 0) {
		if (sig)
			pr_printf(out, "acpidump: no %s table (`acpi tables` lists them)\n", sig);
		else
			pr_printf(out, "acpidump: no ACPI tables (`acpi tables` says why)\n");
		return -ENOENT;
	}
	return 0;
}

SHELL_COMMAND(acpidump, .name = "acpidump", .usage = "acpidump [SIGNATURE]",
	      .summary = "every ACPI table's bytes, as ACPICA's acpidump prints them",
	      .help = "Prints the root table (RSDT or XSDT), every table it lists, the\n"
		      "DSDT and the FACS in the text format of ACPICA's acpidump: a line\n"
		      "\"SIG @ 0xADDRESS\", then 16 bytes a row in hex and characters.\n"
		      "SIGNATURE (4 characters, any case) prints only those tables;\n"
		      "SSDT prints every SSDT.  Rejected tables are left out.\n"
		      "Save the output on the host and `acpixtract -a FILE` writes one\n"
		      "binary per table (dsdt.dat, ssdt1.dat, ...) for `iasl -d`.",
	      .fn = cmd_acpidump);

static int cmd_hotplug(struct printer *out, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("hotplug"));
	acpi_memhp_dump(out);
	return 0;
}

SHELL_COMMAND(hotplug, .name = "hotplug", .usage = "hotplug",
	      .summary = "the ACPI DIMM slots: state, range, node, last _OST",
	      .help = "Lists the slots of QEMU's ACPI memory hotplug device that have\n"
		      "been used: what memlab did with the DIMM (added, add failed,\n"
		      "remove refused), its range and node, its memory group, the last\n"
		      "_OST event/status reported to QEMU (QMP query-acpi-ospm-status\n"
		      "shows the same), and why the last operation failed.\n"
		      "_OST events: 0x1 device check, 0x3 eject request, 0x103 OSPM\n"
		      "eject; status 0 success, 0x1 failure, 0x81 in use, 0x84 in progress.",
	      .fn = cmd_hotplug);

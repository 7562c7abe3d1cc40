/*
 * test_pci_hotplug_dsdt.c - ACPI PCI hotplug (drivers/pci/hotplug.c) with
 * hostile DSDTs, on the PCI model (host suite `pci`): BSEL numbers of 256
 * and more, BSEL 255 (a bus like any), a BSEL twice, an `_ADR` that is not
 * a number, tables cut inside a name or a number.  Each is reported or
 * taken as QEMU means it, and the selector map stays consistent.
 *
 * The DSDT bytes and the machine are pcihp_machine.h's.
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include "pcihp_machine.h"

/* boot_dsdt() - machine() with these DSDT bytes, booted; the log line
 * count before the boot in *since. */
static void boot_dsdt(const struct aml *a, int *since)
{
	machine();
	pm_set_dsdt(a->b, a->n);
	*since = host_log_count;
	CHECK_EQ(boot(), 0);
}

/*
 * BSEL numbers QEMU never uses (256, 300, Ones) beside a good one: each
 * is reported with the bridge it belongs to and skipped, the good one
 * works.  With only such numbers the reason is printed too, and the
 * slots are polled instead.
 */
HTEST(pcihp_dsdt_bsel_out_of_range_is_reported)
{
	struct aml a = { .n = 0 };
	int since;
	static const u8 ones[] = { 0x08, 'B', 'S', 'E', 'L', 0xff };

	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 256);
	aml_bridge(&a, "S18_", 3, 0);
	aml_bridge(&a, "S20_", 4, 300);
	aml_emit(&a, ones, sizeof(ones));
	boot_dsdt(&a, &since);
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 256 (bridge 00:02.0) out of range (0-255); ignored", since));
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 300 (bridge 00:04.0) out of range (0-255); ignored", since));
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 18446744073709551615 (bridge 00:04.0) out of range (0-255); ignored", since));
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug at cc0 (GPE 1), bsel map from DSDT\n"
			     "bsel 0: bridge 00:03.0 bus 02 down 0 rmv ffffffff\n"
			     "events: up 0 down 0 ejected 0\n");

	a.n = 0;
	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 256);
	boot_dsdt(&a, &since);
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 256 (bridge 00:02.0) out of range (0-255); ignored", since));
	CHECK_EQ(pm.gpe_registered, 0);
	CHECK_EQ(pm.pollers, 1);
}

/*
 * QEMU numbers up to 256 hotplug buses; a selector high in that range
 * (port B on 255) is taken like any other: listed by `pcihp`, and a
 * device_add behind port B arrives through it.
 */
HTEST(pcihp_dsdt_bsel_255_is_a_bus_like_any)
{
	struct aml a = { .n = 0 };
	int since, hot;

	machine();
	pm_pcihp_bsel(0, PM_BSEL_NONE);
	pm_pcihp_bsel(255, m_portb);
	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_bridge(&a, "S18_", 3, 255);
	pm_set_dsdt(a.b, a.n);
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	CHECK(strstr(pcihp(), "bsel 1: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n"
			      "bsel 255: bridge 00:03.0 bus 02 down 0 rmv ffffffff\n") != NULL);
	pm_acpi_plug(hot);
	CHECK_EQ(pm.up[255], 1);
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: device added on bus 02 (bsel 255, slots 1)", since));
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
	CHECK_EQ(pm.up[255], 0);
}

/*
 * One BSEL number twice (after 00:02.0 and after 00:03.0): the second is
 * reported and ignored, the first kept.
 */
HTEST(pcihp_dsdt_bsel_twice_keeps_the_first)
{
	struct aml a = { .n = 0 };
	int since;

	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 0);
	aml_bridge(&a, "S18_", 3, 0);
	boot_dsdt(&a, &since);
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 0 appears again (bridge 00:03.0, first 00:02.0); ignored", since));
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug at cc0 (GPE 1), bsel map from DSDT\n"
			     "bsel 0: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n"
			     "events: up 0 down 0 ejected 0\n");
}

/*
 * An `_ADR` whose value is not an integer (a method, 0x14) before a BSEL:
 * the BSEL must not be paired with the `_ADR` before that one (00:02.0);
 * it is reported and ignored.
 */
HTEST(pcihp_dsdt_adr_not_a_number)
{
	struct aml a = { .n = 0 };
	static const u8 method[] = { 0x14, 0x05, 'X', 'X', 'X', 'X', 0x00 };
	int since;

	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_device(&a, "S18_");
	aml_name(&a, "_ADR");
	aml_emit(&a, method, sizeof(method));
	aml_name(&a, "BSEL");
	aml_integer(&a, 0);
	boot_dsdt(&a, &since);
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 0 follows an _ADR that is not a number; ignored", since));
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug at cc0 (GPE 1), bsel map from DSDT\n"
			     "bsel 1: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n"
			     "events: up 0 down 0 ejected 0\n");
}

/*
 * DSDTs cut short: in the middle of "BSEL", after it with no value, inside
 * a DWord value, and a DSDT that is only its header.  The scanner must not
 * read past the table (ASan watches the exact heap copy) and finds no BSEL:
 * the slots are polled instead.  A BSEL whose value is the table's last
 * byte still counts.
 */
HTEST(pcihp_dsdt_truncated)
{
	static const u8 cuts[][12] = {
		{ 0x08, 'B', 'S' },
		{ 0x08, 'B', 'S', 'E', 'L' },
		{ 0x08, 'B', 'S', 'E', 'L', 0x0c, 0x01, 0x00 },
		{ 0x08, 'B', 'S', 'E', 'L', 0x0a },
	};
	static const size_t lens[] = { 3, 5, 8, 6 };
	int since;

	for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct aml a = { .n = 0 };

		aml_pci0(&a);
		aml_device(&a, "S10_");
		aml_name(&a, "_ADR");
		aml_integer(&a, 0x00020000);
		aml_emit(&a, cuts[i], lens[i]);
		boot_dsdt(&a, &since);
		CHECK_EQ(pm.gpe_registered, 0);
		CHECK_EQ(pm.pollers, 1);
		CHECK_STREQ(pcihp(), "native PCIe hotplug (slot registers polled every 100 ms)\n"
				     "events: up 0 down 0 ejected 0\n");
	}
	machine();
	pm_set_dsdt("", 0);
	CHECK_EQ(boot(), 0);
	CHECK_EQ(pm.pollers, 1);

	{
		struct aml a = { .n = 0 };
		static const u8 last[] = { 0x08, 'B', 'S', 'E', 'L', 0x01 };

		aml_pci0(&a);
		aml_device(&a, "S10_");
		aml_name(&a, "_ADR");
		aml_integer(&a, 0x00020000);
		aml_emit(&a, last, sizeof(last));
		boot_dsdt(&a, &since);
		CHECK_EQ(pm.gpe_registered, 1);
		CHECK(strstr(pcihp(), "bsel 1: bridge 00:02.0 bus 01") != NULL);
	}
}

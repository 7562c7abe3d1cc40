/*
 * test_pci_hotplug_aml.c - ACPI PCI hotplug through the AML (drivers/pci/
 * hotplug_acpi.c, the only ACPI PCI hotplug there is): QEMU's real DSDT (tests/host/fixtures/acpi/bridges/
 * dsdt.dat, captured from QEMU 7.2 q35 with two pcie-root-ports and a
 * pcie-pci-bridge behind the second) runs in the interpreter against the
 * model's register block at 0xcc0 (tests/host/pci_model.c, which knows
 * QEMU's layout because it emulates QEMU).  Device add, device_del and
 * eject, then hostile AML (build/aml/pcihp_hostile.aml): an _EJ0 that
 * never returns, an eject request for a slot without _EJ0, a Notify on a
 * device that is not a slot; and the root bus's windows from a _CRS that
 * is a Method (build/aml/pcihp_crs_method.aml).
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include "pcihp_machine.h"
#include <drivers/aml.h>
#include <stdio.h>

/* bridges() - bridges_machine() booted with its DSDT: ACPI PCI hotplug
 * through the AML. */
static struct aml_ns *bridges(void)
{
	bridges_machine();
	return bridges_boot();
}

static struct pci_dev *find(u8 bus, u8 dev)
{
	for (unsigned i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device(i);

		if (d && d->bus == bus && d->dev == dev && d->fn == 0)
			return d;
	}
	return NULL;
}

HTEST(pcihp_aml_qemu_dsdt_slots_and_view)
{
	struct aml_ns *ns = bridges();
	const char *out = pcihp();

	CHECK(strstr(out, "ACPI PCI hotplug through the AML: \\_GPE._E01 (GPE 1)") != NULL);
	CHECK(strstr(out, "slot \\_SB_.PCI0.S08_.S00_ 01:00 _SUN 0 _EJ0") != NULL);
	CHECK(strstr(out, "slot \\_SB_.PCI0.S10_.S00_.S18_ 03:03 _SUN 3 _EJ0") != NULL);
	CHECK(strstr(out, "events: up 0 down 0 ejected 0") != NULL);
	done(ns);
}

HTEST(pcihp_aml_qemu_dsdt_add_and_eject_on_a_root_port)
{
	struct aml_ns *ns = bridges();
	int y = hot_function(b_port1, 0);

	pm_acpi_plug(y);
	CHECK(gpe1());
	CHECK(find(1, 0) != NULL);
	CHECK_EQ(fx.probes, 1);
	CHECK_EQ(pcihp_ups, 1);
	pm_acpi_unplug_request(y);
	CHECK(gpe1());
	CHECK(find(1, 0) == NULL);
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(pm.ejected[2], 1u);	/* _EJ0 -> PCEJ (BSEL 2, _SUN 0) */
	CHECK_EQ(pcihp_ejects, 1);
	CHECK(strstr(pcihp(), "notify \\_SB_.PCI0.S08_.S00_ 3: ejected") != NULL);
	done(ns);
}

HTEST(pcihp_aml_qemu_dsdt_add_and_eject_behind_the_pci_bridge)
{
	struct aml_ns *ns = bridges();
	int y = hot_function(b_ppb, 3);

	pm_acpi_plug(y);
	CHECK(gpe1());
	CHECK(find(3, 3) != NULL);
	pm_acpi_unplug_request(y);
	CHECK(gpe1());
	CHECK(find(3, 3) == NULL);
	CHECK_EQ(pm.ejected[1], 1u << 3);
	CHECK_EQ(pm.ejected[0], 0u);
	done(ns);
}

/* ---- hostile AML ---------------------------------------------------------------- */

HTEST(pcihp_aml_ej0_that_never_returns_and_a_notify_on_no_slot)
{
	static const struct aml_limits tight = {
		.max_loop_iters = 1000, .max_call_depth = 16, .max_nesting = 40,
		.max_ops = 100000, .max_time_ns = 1000000000ull, .max_sleep_ms = 10,
	};
	struct aml_ns *ns;
	int y, stays;

	machine();		/* the table's S10 (00:02.0) is port A, its BNUM 0 */
	pm_pcihp_bsel(0, m_porta);
	pm_pcihp_bsel(1, m_portb);
	stays = hot_function(m_portb, 0);	/* in the slot without _EJ0 */
	pm.f[stays].absent = false;
	ns = boot_aml("build/aml/pcihp_hostile.aml", &tight);
	CHECK(pcihp_aml_mode);
	printk_set_level(LOG_ERR);
	gpe1();
	y = m_vmem;
	pm_acpi_unplug_request(y);
	CHECK(gpe1());		/* the loop breaks the limit; the work returns */
	printk_set_level(LOG_INFO);
	CHECK_EQ(aml_last_error(ns)->code, AML_ELIMIT);
	CHECK_EQ(fx.removes, 1);	/* released before _EJ0 was asked */
	CHECK(pci_get_bdf(2, 0, 0) != NULL);	/* refused: it stays */
	CHECK(!pm.f[stays].absent);
	CHECK_EQ(pcihp_ejects, 0);
	const char *out = pcihp();
	CHECK(strstr(out, "notify \\_SB_.PCI0.S10_.S00_ 3: _EJ0 failed") != NULL);
	CHECK(strstr(out, "notify \\_SB_.PCI0.S18_.S00_ 3: refused: no _EJ0") != NULL);
	CHECK(strstr(out, "slot \\_SB_.PCI0.S18_.S00_ 02:00 _SUN 0 (not removable)") != NULL);
	CHECK(strstr(out, "notify \\_SB_.BTN_ 3: not a slot: ignored") != NULL);
	CHECK(strstr(out, "notify \\_SB_.BTN_ 1: not PCI: ignored") != NULL);
	/* the namespace still works: the next GPE runs */
	CHECK(gpe1());
	done(ns);
}

/* ---- root windows from _CRS through the interpreter ----------------------------- */

HTEST(pcihp_aml_root_windows_from_a_crs_method)
{
	struct acpi_window w[ACPI_ROOT_WINDOWS_MAX];
	struct aml_ns *ns;

	machine();
	CHECK_EQ(boot(), 0);
	/* no namespace, no Name (_CRS) in the bytes: none */
	CHECK_EQ(acpi_root_windows(w, ACPI_ROOT_WINDOWS_MAX), -ENOENT);
	ns = boot_aml("build/aml/pcihp_crs_method.aml", NULL);
	CHECK_EQ(acpi_root_windows(w, ACPI_ROOT_WINDOWS_MAX), 1);
	CHECK_EQ(w[0].start, 0xc0000000ull);
	CHECK_EQ(w[0].end, 0xfebfffffull);
	CHECK(!w[0].io);
	done(ns);
}

HTEST(pcihp_aml_root_windows_from_qemus_dsdt)
{
	struct acpi_window w[ACPI_ROOT_WINDOWS_MAX];
	struct aml_ns *ns = bridges();
	int n = acpi_root_windows(w, ACPI_ROOT_WINDOWS_MAX);
	bool hole32 = false;

	CHECK(n >= 4);
	for (int i = 0; i < n; i++)
		hole32 |= !w[i].io && w[i].end == 0xfebfffffull;
	CHECK(hole32);
	done(ns);
}

/* QEMU's DSDT with DIMM slots and no root ports: the memory devices have
 * _EJ0 but no _ADR, so there is no PCI slot and the AML is not taken. */
HTEST(pcihp_aml_not_taken_without_pci_slots)
{
	struct aml_ns *ns;

	machine();
	ns = boot_aml("tests/host/fixtures/acpi/dimms/dsdt.dat", NULL);
	CHECK(!pcihp_aml_mode);
	CHECK_EQ(pm.gpe_registered, 0);
	CHECK(strstr(pcihp(), "through the AML") == NULL);
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug off: the namespace has no PCI slot devices (_ADR with _EJ0 or _SUN)\n"
			     "native PCIe hotplug (slot registers polled every 100 ms)\n"
			     "events: up 0 down 0 ejected 0\n");
	done(ns);
}

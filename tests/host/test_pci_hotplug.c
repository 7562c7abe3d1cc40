/*
 * test_pci_hotplug.c - drivers/pci/hotplug.c driven the way QEMU 7.2 drives
 * ACPI PCI hotplug on q35, against the configuration-space model of
 * tests/host/pci_model.h (host suite `pci`):
 *
 *   - the bus selector map from DSDT bytes (`_ADR` then `Name (BSEL, n)`),
 *     and from QEMU's order when there is no DSDT; GPE 1 with UP (the new
 *     function in the table, its BARs inside its root port's windows, its
 *     driver probed), with DOWN (driver remove while the function still
 *     answers, the function out of the table, the slot ejected so QEMU
 *     drops it), both in one event, DOWN for an empty slot or one that is
 *     not removable, a selector that selects nothing;
 *   - a bridge without a bus number, a bridge removed with what is behind
 *     it, a bridge that does not keep the memory window written to it;
 *   - the `pcihp` view when PCI hotplug is off.
 *
 * The recording driver, the DSDT bytes and the machine are
 * pcihp_machine.h's.  Hostile DSDTs are in test_pci_hotplug_dsdt.c, the
 * native PCIe fallback (hotplug_native.c) in test_pci_hotplug_native.c.
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include "pcihp_machine.h"

/* inside() - [base, base+size) lies in [lo, hi]. */
static bool inside(u64 base, u64 size, u64 lo, u64 hi)
{
	return base >= lo && size && base + size - 1 <= hi && base + size > base;
}

/* ---- ACPI PCI hotplug ------------------------------------------------------------ */

/*
 * QEMU's DSDT: BSEL 1 after port A's _ADR, BSEL 0 after port B's.  Expect
 * GPE 1 asked for once, the work scheduled once at init (a device added
 * before anyone listened) and harmless when it runs with nothing pending,
 * and `pcihp` to show each selector's bridge and bus.
 */
HTEST(pcihp_bsel_map_from_the_dsdt)
{
	machine();
	dsdt_qemu();
	CHECK_EQ(boot(), 0);
	CHECK_EQ(pm.gpe_registered, 1);
	CHECK_EQ(pm.gpe, 1);
	CHECK(pm.gpe_work != NULL);
	CHECK_EQ(pm.work_scheduled, 1);
	CHECK_EQ(pm.pollers, 0);
	CHECK(pm.work == pm.gpe_work && pm_run_work());
	CHECK_EQ(table_count(), 4);
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug at cc0 (GPE 1), bsel map from DSDT\n"
			     "bsel 0: bridge 00:03.0 bus 02 down 0 rmv ffffffff\n"
			     "bsel 1: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n"
			     "events: up 0 down 0 ejected 0\n");
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * No DSDT: QEMU's order is guessed, the last root port first (B is bsel
 * 0).  A device_add behind B then arrives through bsel 0.
 */
HTEST(pcihp_bsel_map_guessed_without_a_dsdt)
{
	int hot;

	machine();
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	CHECK(strstr(pcihp(), "bsel map from guess\n"
			      "bsel 0: bridge 00:03.0 bus 02 down 0 rmv ffffffff\n"
			      "bsel 1: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n") != NULL);
	pm_acpi_plug(hot);
	CHECK(gpe1());
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
}

/*
 * device_add behind port B: UP of bsel 0 reads 1, GPE 1.  Expect the
 * function in the table, marked hot-plugged, its BARs inside port B's
 * windows of their kind and programmed, memory decoding and bus mastering
 * on, the driver probed with it; UP cleared by the read; the log naming
 * bus and selector.  A second GPE with nothing pending changes nothing.
 */
HTEST(pcihp_up_adds_the_function_and_probes_it)
{
	int hot, since;
	struct pci_dev *d;

	machine();
	dsdt_qemu();
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	CHECK_EQ(fx.probes, 1);			/* 01:00.0 at boot */
	pm_acpi_plug(hot);
	CHECK_EQ(pm.up[0], 1);
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: device added on bus 02 (bsel 0, slots 1)", since));
	CHECK(host_log_seen("pci-hotplug: rescan found 1 new function(s)", since));
	CHECK_EQ(pm.up[0], 0);
	d = pci_get_bdf(2, 0, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(d->hotplugged);
	CHECK(d->bridge == pci_get_bdf(0, 3, 0));
	CHECK(inside(d->bars[0].base, 4096, 0xfe600000, 0xfe7fffff));
	CHECK(inside(d->bars[4].base, 16384, 0x800000000ULL, 0x8001fffffULL));
	CHECK_EQ(pm_get(&pm.f[hot], 0x10, 4), (u32)d->bars[0].base);
	CHECK_EQ(pm_get(&pm.f[hot], 0x20, 4), (u32)d->bars[4].base | 0xc);
	CHECK_EQ(pm_get(&pm.f[hot], 0x24, 4), (u32)(d->bars[4].base >> 32));
	CHECK_EQ(pm_get(&pm.f[hot], 0x04, 2) & (CMD_MEMORY | CMD_MASTER), CMD_MEMORY | CMD_MASTER);
	CHECK(d->driver == &fake_drv);
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(fx.probed_bus, 2);
	CHECK_EQ(fx.probed_dev, 0);
	CHECK(strstr(pcihp(), "events: up 1 down 0 ejected 0\n") != NULL);

	CHECK(gpe1());
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(table_count(), 5);
	CHECK_EQ(pm.eject_writes, 0);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * device_del of 01:00.0: DOWN of bsel 1 reads 1.  Expect the driver's
 * remove called while the function still answers (vendor 1af4), decoding
 * turned off, the function out of the table, then slot 0 of bsel 1
 * ejected (QEMU drops the device and clears DOWN).  `pcihp` counts it.
 * Then device_add into the same slot: found and probed again.
 */
HTEST(pcihp_down_removes_then_ejects)
{
	int since;

	machine();
	dsdt_qemu();
	CHECK_EQ(boot(), 0);
	CHECK(pci_get_bdf(1, 0, 0) && pci_get_bdf(1, 0, 0)->driver == &fake_drv);
	pm_acpi_unplug_request(m_vmem);
	CHECK(strstr(pcihp(), "bsel 1: bridge 00:02.0 bus 01 down 1 rmv ffffffff\n") != NULL);
	since = host_log_count;
	CHECK(gpe1());
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.removed_bus, 1);
	CHECK_EQ(fx.removed_dev, 0);
	CHECK_EQ(fx.vendor_at_remove, 0x1af4);
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK_EQ(pm_get(&pm.f[m_vmem], 0x04, 2) & (CMD_MEMORY | CMD_IO | CMD_MASTER), 0);
	CHECK(pm.f[m_vmem].absent);
	CHECK_EQ(pm.ejected[1], 1);
	CHECK_EQ(pm.ejected[0], 0);
	CHECK_EQ(pm.eject_writes, 1);
	CHECK_EQ(pm.down[1], 0);
	CHECK(host_log_seen("pci-hotplug: remove request for 01:00 (bsel 1): 1 function(s) released", since));
	CHECK(host_log_seen("pci-hotplug: bsel 1 slot 0 ejected", since));
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug at cc0 (GPE 1), bsel map from DSDT\n"
			     "bsel 0: bridge 00:03.0 bus 02 down 0 rmv ffffffff\n"
			     "bsel 1: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n"
			     "events: up 0 down 1 ejected 1\n");

	pm_acpi_plug(m_vmem);
	CHECK(gpe1());
	CHECK(pci_get_bdf(1, 0, 0) != NULL);
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * UP and DOWN in one event.  Same slot (device_add, then device_del before
 * the guest looked): expect nothing probed, nothing in the table, the slot
 * ejected and both bits clear.  Different selectors (01:00.0 going, a new
 * function behind B coming): expect both done in the one event.
 */
HTEST(pcihp_up_and_down_in_one_event)
{
	int hot;

	machine();
	dsdt_qemu();
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	pm_acpi_plug(hot);
	pm_acpi_unplug_request(hot);
	CHECK(gpe1());
	CHECK(pci_get_bdf(2, 0, 0) == NULL);
	CHECK(pm.f[hot].absent);
	CHECK_EQ(pm.ejected[0], 1);
	CHECK_EQ(pm.up[0], 0);
	CHECK_EQ(pm.down[0], 0);
	CHECK_EQ(fx.probes, 1);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(table_count(), 4);

	machine();
	dsdt_qemu();
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	pm_acpi_plug(hot);
	pm_acpi_unplug_request(m_vmem);
	CHECK(gpe1());
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(pm.ejected[1], 1);
	CHECK_EQ(pm.ejected[0], 0);
	CHECK(strstr(pcihp(), "events: up 1 down 1 ejected 1\n") != NULL);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * DOWN for slot 5 behind B, where nothing is: nothing leaves the table,
 * no driver hears of it, the slot is still ejected (QEMU completes its
 * request) and the log says no function was released.
 */
HTEST(pcihp_down_for_an_empty_slot)
{
	int since;

	machine();
	dsdt_qemu();
	CHECK_EQ(boot(), 0);
	pm.down[0] = 1u << 5;
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: remove request for 02:05 (bsel 0): 0 function(s) released", since));
	CHECK_EQ(table_count(), 4);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(pm.eject_writes, 1);
	CHECK_EQ(pm.ejected[0], 1u << 5);
	CHECK_EQ(pm.down[0], 0);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * DOWN for 01:00.0 where RMV says slot 0 of bsel 1 is not removable (QEMU
 * refuses device_del there; a lying register block might not): the
 * request is refused with the reason, the function stays with its driver,
 * nothing is ejected.  With the RMV bit set the same request goes through.
 */
HTEST(pcihp_down_for_a_slot_that_is_not_removable)
{
	int since;

	machine();
	dsdt_qemu();
	CHECK_EQ(boot(), 0);
	pm.rmv[1] = ~1u;
	pm.down[1] = 1;
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: remove request for bsel 1 slot 0 refused: the slot is not removable (RMV fffffffe)",
			    since));
	CHECK(pci_get_bdf(1, 0, 0) != NULL);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(pm.eject_writes, 0);
	CHECK_EQ(pm.stray_writes, 0);

	pm.rmv[1] = ~0u;
	CHECK(gpe1());
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(pm.ejected[1], 1);
}

/*
 * A DSDT whose BSEL 2 follows the _ADR of 00:09.0, where there is no
 * bridge: `pcihp` shows bus ff; an UP on it rescans and finds nothing
 * new; a DOWN on it is reported with the reason and ejected anyway
 * (QEMU's eject of a selector without a bus does nothing, so DOWN stays).
 */
HTEST(pcihp_bus_selector_that_selects_nothing)
{
	struct aml a = { .n = 0 };
	int since;

	machine();
	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_bridge(&a, "S18_", 3, 0);
	aml_bridge(&a, "S48_", 9, 2);
	pm_set_dsdt(a.b, a.n);
	CHECK_EQ(boot(), 0);
	CHECK(strstr(pcihp(), "bsel 2: bridge 00:09.0 bus ff down 0 rmv ffffffff\n") != NULL);
	pm.up[2] = 1;
	pm.down[2] = 1u << 1;
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: device added on bus ff (bsel 2, slots 1)", since));
	CHECK(host_log_seen("pci-hotplug: rescan found 0 new function(s)", since));
	CHECK(host_log_seen("pci-hotplug: remove request for bsel 2 slot 1: bus unknown; ejecting anyway", since));
	CHECK_EQ(pm.eject_writes, 1);
	CHECK_EQ(table_count(), 4);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(pm.stray_writes, 0);
}

/* ---- bugs and hostile input ------------------------------------------------------------ */

/*
 * A root port whose bus-number registers are read-only (the walk could not
 * number it: its secondary bus reads 0) has BSEL 2.  A DOWN for slot 0 of
 * it must not be taken for slot 0 of bus 0: the host bridge 00:00.0 stays
 * in the table, and the selector shows no bus.
 */
HTEST(pcihp_bridge_without_a_bus_number_is_not_bus_0)
{
	struct aml a = { .n = 0 };
	int ro, since;

	machine();
	ro = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_reg(&pm.f[ro], 0x18, 3, 0);
	pm_pcihp_bsel(2, ro);
	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_bridge(&a, "S18_", 3, 0);
	aml_bridge(&a, "S28_", 5, 2);
	pm_set_dsdt(a.b, a.n);
	CHECK_EQ(boot(), 0);
	CHECK(pci_get_bdf(0, 5, 0) && pci_get_bdf(0, 5, 0)->secondary_bus == 0);
	CHECK(strstr(pcihp(), "bsel 2: bridge 00:05.0 bus ff down 0 rmv ffffffff\n") != NULL);
	pm.down[2] = 1;
	since = host_log_count;
	CHECK(gpe1());
	CHECK(pci_get_bdf(0, 0, 0) != NULL);
	CHECK_EQ(table_count(), 5);
	CHECK(host_log_seen("pci-hotplug: remove request for bsel 2 slot 0: bus unknown; ejecting anyway", since));
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * A switch (bridge 1b36:000e with 1af4:1058 behind it) in the slot of a
 * root port the firmware left unconfigured (00:04.0, BSEL 2): the walk
 * numbers port and switch at boot.  device_del of the switch: the function
 * behind it must go first (its driver's remove called), then the switch;
 * none of them may stay in the table.
 */
HTEST(pcihp_removing_a_bridge_removes_what_is_behind_it)
{
	struct aml a = { .n = 0 };
	int port, sw, leaf;
	struct pci_dev *d;

	machine();
	port = pm_add(-1, 4, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	sw = pm_add(port, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	leaf = pm_add(sw, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(leaf, 0, 4096, 0, 0);
	pm_pcihp_bsel(2, port);
	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_bridge(&a, "S18_", 3, 0);
	aml_bridge(&a, "S20_", 4, 2);
	pm_set_dsdt(a.b, a.n);
	CHECK_EQ(boot(), 0);
	d = pci_get_bdf(0, 4, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_EQ(d->secondary_bus, 3);
	CHECK(pci_get_bdf(3, 0, 0) != NULL);
	CHECK(pci_get_bdf(4, 0, 0) && pci_get_bdf(4, 0, 0)->driver == &fake_drv);
	CHECK_EQ(fx.probes, 2);
	pm_acpi_unplug_request(sw);
	CHECK_EQ(pm.down[2], 1);
	CHECK(gpe1());
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.removed_bus, 4);
	CHECK_EQ(fx.vendor_at_remove, 0x1af4);
	CHECK(pci_get_bdf(3, 0, 0) == NULL);
	CHECK(pci_get_bdf(4, 0, 0) == NULL);
	CHECK_EQ(table_count(), 5);
	CHECK(pm.f[sw].absent && pm.f[leaf].absent);
	CHECK_EQ(pm.ejected[2], 1);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * When PCI hotplug is not on, `pcihp` says so and why, rather than
 * describe a register block nobody listens to: no DSDT and no root port;
 * BSELs but no register block; BSELs but GPE 1 refused.
 */
HTEST(pcihp_view_when_hotplug_is_off)
{
	pm_reset(0, 0xff);
	pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 0x06, 0x00);
	pm_pcihp();
	CHECK_EQ(boot(), 0);
	CHECK_STREQ(pcihp(), "PCI hotplug off: no hotplug buses\n");

	machine();
	dsdt_qemu();
	pm.pcihp_present = false;
	CHECK_EQ(boot(), 0);
	CHECK_EQ(pm.gpe_registered, 0);
	CHECK_STREQ(pcihp(), "PCI hotplug off: no register block at cc0\n");

	machine();
	dsdt_qemu();
	pm.gpe_fails = true;
	CHECK_EQ(boot(), 0);
	CHECK_STREQ(pcihp(), "PCI hotplug off: GPE 1 unavailable\n");

	machine();
	pm_set_dsdt("", 0);
	pm.f[m_porta].slot_pos = 0;
	pm.f[m_porta].cfg[0x34] = 0;
	pm.f[m_portb].cfg[0x34] = 0;
	CHECK_EQ(boot(), 0);
	CHECK_STREQ(pcihp(), "PCI hotplug off: no ACPI PCI hotplug and no hotplug-capable PCIe slots\n");
}

/*
 * A root port whose memory window registers ignore writes (hard-wired
 * closed: base fff0, limit 0000), with a device_add behind it that needs
 * a non-prefetchable window.  Opening one writes the registers, which
 * still read closed: that must be reported as the bridge not keeping the
 * window, not as a window opened (the log would name an address range the
 * bridge does not decode), and the function is left disabled with its
 * BAR unassigned.
 */
HTEST(pcihp_bridge_that_does_not_keep_its_window)
{
	int hot, since;
	struct pci_dev *d;

	machine();
	dsdt_qemu();
	pm_reg(&pm.f[m_portb], 0x20, 4, 0);
	pm_put(&pm.f[m_portb], 0x20, 4, 0x0000fff0);
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	pm_acpi_plug(hot);
	since = host_log_count;
	CHECK(gpe1());
	CHECK(!host_log_seen("opened memory window", since));
	CHECK(host_log_seen("pci 00:03.0: bridge does not keep the memory window fe", since));
	d = pci_get_bdf(2, 0, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_EQ(d->bars[0].base, 0);
	CHECK_EQ(pm_get(&pm.f[hot], 0x04, 2) & CMD_MEMORY, 0);
	CHECK_EQ(fx.probes, 1);
}

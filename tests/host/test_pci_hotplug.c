/*
 * test_pci_hotplug.c - ACPI PCI hotplug (drivers/pci/hotplug.c and
 * hotplug_acpi.c) driven the way QEMU 7.2 drives it on q35: QEMU's real
 * DSDT (tests/host/fixtures/acpi/bridges) runs in the interpreter, its
 * PCNT/PCEJ methods reading and writing the model's register block at
 * 0xcc0 (tests/host/pci_model.c: the test's model of QEMU's device side),
 * against the configuration-space model (host suite `pci`):
 *
 *   - the choice at boot: GPE 1 taken once when the namespace has
 *     \_GPE._E01 and slots, the look scheduled at boot harmless; without
 *     a namespace, or one without the method, ACPI PCI hotplug is off with
 *     the reason in `pcihp` and the native slots are polled;
 *   - device_add (Notify 1: the new function in the table, its BARs inside
 *     its root port's windows, its driver probed), device_del (Notify 3:
 *     driver remove while the function still answers, the function out of
 *     the table, then the slot's _EJ0 so QEMU drops it), both in one
 *     event, an eject request for an empty slot;
 *   - a slot whose bridge is not in the table, a bridge without a bus
 *     number, a bridge removed with what is behind it, a bridge that does
 *     not keep the memory window written to it;
 *   - the `pcihp` view when PCI hotplug is off, and why.
 *
 * The recording driver and the machines are pcihp_machine.h's.  Hostile
 * DSDTs are in test_pci_hotplug_dsdt.c and test_pci_hotplug_aml.c, native
 * PCIe hotplug (hotplug_native.c) in test_pci_hotplug_native.c.
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include <drivers/aml.h>
#include "pcihp_machine.h"

#define NOGPE_DSDT	"build/aml/pcihp_nogpe.aml"

/* inside() - [base, base+size) lies in [lo, hi]. */
static bool inside(u64 base, u64 size, u64 lo, u64 hi)
{
	return base >= lo && size && base + size - 1 <= hi && base + size > base;
}

/* cold_function() - a 1af4:1058 present at boot behind root port 1 (slot
 * 0), BAR0 4 KiB at fe800000 and 64-bit prefetchable BAR4 16 KiB at
 * fc000000, inside the port's windows. */
static int cold_function(void)
{
	int x = pm_add(b_port1, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);

	pm_bar(x, 0, 4096, 0, 0xfe800000);
	pm_bar(x, 4, 16384, 4 | 8, 0xfc000000);
	return x;
}

/* ---- the choice at boot ---------------------------------------------------------- */

/*
 * QEMU's DSDT: GPE 1 asked for once, by the AML path, the work scheduled
 * once at init (a device added before anyone listened) and harmless when
 * it runs with nothing pending; no poller; `pcihp` names the method and
 * the slots with their buses.
 */
HTEST(pcihp_aml_taken_at_boot)
{
	struct aml_ns *ns;

	bridges_machine();
	ns = bridges_boot();
	CHECK_EQ(pm.gpe_registered, 1);
	CHECK_EQ(pm.work_scheduled, 1);
	CHECK_EQ(pm.pollers, 0);
	CHECK_EQ(table_count(), 4);
	CHECK_EQ(fx.probes, 0);
	CHECK(strstr(pcihp(), "ACPI PCI hotplug through the AML: \\_GPE._E01 (GPE 1), ") == pcihp());
	CHECK(strstr(pcihp(), "slot \\_SB_.PCI0.S10_.S00_.S18_ 03:03 _SUN 3 _EJ0\n") != NULL);
	CHECK(strstr(pcihp(), "ACPI PCI hotplug off") == NULL);
	CHECK(gpe1());
	CHECK_EQ(table_count(), 4);
	CHECK_EQ(pm.eject_writes, 0);
	CHECK_EQ(pm.stray_writes, 0);
	done(ns);
}

/*
 * A namespace without GPE 1's method (QEMU with ACPI PCI hotplug off) and
 * no namespace at all: ACPI PCI hotplug is off, `pcihp` says why, GPE 1 is
 * not asked for, the native slots are polled; a device_add signalled the
 * ACPI way reaches nothing (no GPE 1 work).
 */
HTEST(pcihp_without_the_gpe_method_the_slots_are_polled)
{
	struct aml_ns *ns;
	int hot;

	machine();
	hot = hot_function(m_portb, 0);
	ns = boot_aml(NOGPE_DSDT, NULL);
	CHECK(!pcihp_aml_mode);
	CHECK_EQ(pm.gpe_registered, 0);
	CHECK_EQ(pm.pollers, 1);
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug off: the namespace has no \\_GPE._E01 or _L01 (the firmware does no ACPI PCI hotplug)\n"
			     "native PCIe hotplug (slot registers polled every 100 ms)\n"
			     "events: up 0 down 0 ejected 0\n");
	pm_acpi_plug(hot);
	CHECK(!gpe1());
	CHECK(pci_get_bdf(2, 0, 0) == NULL);
	done(ns);

	machine();
	CHECK_EQ(boot(), 0);
	CHECK_EQ(pm.gpe_registered, 0);
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug off: no AML namespace (no DSDT, or it could not be loaded)\n"
			     "native PCIe hotplug (slot registers polled every 100 ms)\n"
			     "events: up 0 down 0 ejected 0\n");
}

/* ---- device_add and device_del -------------------------------------------------- */

/*
 * device_add behind root port 1: UP of bsel 2 reads 1, GPE 1; the AML
 * notifies the slot (device check).  Expect the function in the table,
 * marked hot-plugged, its BARs inside port 1's windows of their kind and
 * programmed, memory decoding and bus mastering on, the driver probed with
 * it; UP cleared by the AML's read.  A second GPE with nothing pending
 * changes nothing.
 */
HTEST(pcihp_up_adds_the_function_and_probes_it)
{
	struct aml_ns *ns;
	int hot, since;
	struct pci_dev *d;

	bridges_machine();
	hot = hot_function(b_port1, 0);
	ns = bridges_boot();
	pm_acpi_plug(hot);
	CHECK_EQ(pm.up[2], 1);
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: Notify (\\_SB_.PCI0.S08_.S00_, 1): device check", since));
	CHECK(host_log_seen("pci-hotplug: rescan found 1 new function(s)", since));
	CHECK_EQ(pm.up[2], 0);
	d = pci_get_bdf(1, 0, 0);
	CHECK(d != NULL);
	if (!d) {
		done(ns);
		return;
	}
	CHECK(d->hotplugged);
	CHECK(d->bridge == pci_get_bdf(0, 1, 0));
	CHECK(inside(d->bars[0].base, 4096, 0xfe800000, 0xfe9fffff));
	CHECK(inside(d->bars[4].base, 16384, 0xfc000000, 0xfc1fffff));
	CHECK_EQ(pm_get(&pm.f[hot], 0x10, 4), (u32)d->bars[0].base);
	CHECK_EQ(pm_get(&pm.f[hot], 0x20, 4), (u32)d->bars[4].base | 0xc);
	CHECK_EQ(pm_get(&pm.f[hot], 0x24, 4), (u32)(d->bars[4].base >> 32));
	CHECK_EQ(pm_get(&pm.f[hot], 0x04, 2) & (CMD_MEMORY | CMD_MASTER), CMD_MEMORY | CMD_MASTER);
	CHECK(d->driver == &fake_drv);
	CHECK_EQ(fx.probes, 1);
	CHECK_EQ(fx.probed_bus, 1);
	CHECK_EQ(fx.probed_dev, 0);
	CHECK(strstr(pcihp(), "events: up 1 down 0 ejected 0\n"
			      "notify \\_SB_.PCI0.S08_.S00_ 1: device check\n") != NULL);

	CHECK(gpe1());
	CHECK_EQ(fx.probes, 1);
	CHECK_EQ(table_count(), 5);
	CHECK_EQ(pm.eject_writes, 0);
	CHECK_EQ(pm.stray_writes, 0);
	done(ns);
}

/*
 * device_del of 01:00.0: DOWN of bsel 2 reads 1, the AML asks for the
 * slot's eject (Notify 3).  Expect the driver's remove called while the
 * function still answers (vendor 1af4), decoding turned off, the function
 * out of the table, then the slot's _EJ0, whose PCEJ ejects slot 0 of bsel
 * 2 (QEMU drops the device and clears DOWN).  `pcihp` counts it.  Then
 * device_add into the same slot: found and probed again.
 */
HTEST(pcihp_down_removes_then_ejects)
{
	struct aml_ns *ns;
	int since, cold;

	bridges_machine();
	cold = cold_function();
	ns = bridges_boot();
	CHECK(pci_get_bdf(1, 0, 0) && pci_get_bdf(1, 0, 0)->driver == &fake_drv);
	pm_acpi_unplug_request(cold);
	since = host_log_count;
	CHECK(gpe1());
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.removed_bus, 1);
	CHECK_EQ(fx.removed_dev, 0);
	CHECK_EQ(fx.vendor_at_remove, 0x1af4);
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK_EQ(pm_get(&pm.f[cold], 0x04, 2) & (CMD_MEMORY | CMD_IO | CMD_MASTER), 0);
	CHECK(pm.f[cold].absent);
	CHECK_EQ(pm.ejected[2], 1);
	CHECK_EQ(pm.ejected[0], 0);
	CHECK_EQ(pm.eject_writes, 1);
	CHECK_EQ(pm.down[2], 0);
	CHECK(host_log_seen("pci-hotplug: eject request for \\_SB_.PCI0.S08_.S00_ (01:00): 1 function(s) released",
			    since));
	CHECK(host_log_seen("pci-hotplug: \\_SB_.PCI0.S08_.S00_ ejected (_EJ0)", since));
	CHECK(strstr(pcihp(), "events: up 0 down 1 ejected 1\n"
			      "notify \\_SB_.PCI0.S08_.S00_ 3: ejected\n") != NULL);

	pm_acpi_plug(cold);
	CHECK(gpe1());
	CHECK(pci_get_bdf(1, 0, 0) != NULL);
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(pm.stray_writes, 0);
	done(ns);
}

/*
 * UP and DOWN in one event.  Same slot (device_add, then device_del before
 * the guest looked): the AML notifies device check, then eject; expect
 * nothing probed, nothing in the table, the slot ejected and both bits
 * clear.  Different buses (01:00.0 going, a new function behind the PCI
 * bridge coming): expect both done in the one event.
 */
HTEST(pcihp_up_and_down_in_one_event)
{
	struct aml_ns *ns;
	int hot, cold;

	bridges_machine();
	hot = hot_function(b_port1, 0);
	ns = bridges_boot();
	pm_acpi_plug(hot);
	pm_acpi_unplug_request(hot);
	CHECK(gpe1());
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK(pm.f[hot].absent);
	CHECK_EQ(pm.ejected[2], 1);
	CHECK_EQ(pm.up[2], 0);
	CHECK_EQ(pm.down[2], 0);
	CHECK_EQ(fx.probes, 0);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(table_count(), 4);
	done(ns);

	bridges_machine();
	cold = cold_function();
	hot = hot_function(b_ppb, 3);
	ns = bridges_boot();
	pm_acpi_plug(hot);
	pm_acpi_unplug_request(cold);
	CHECK(gpe1());
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK(pci_get_bdf(3, 3, 0) != NULL);
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(pm.ejected[2], 1);
	CHECK_EQ(pm.ejected[1], 0);
	CHECK(strstr(pcihp(), "events: up 1 down 1 ejected 1\n") != NULL);
	CHECK_EQ(pm.stray_writes, 0);
	done(ns);
}

/*
 * DOWN for slot 5 behind the PCI bridge, where nothing is: nothing leaves
 * the table, no driver hears of it, the slot is still ejected through its
 * _EJ0 (QEMU completes its request) and the log says no function was
 * released.
 */
HTEST(pcihp_down_for_an_empty_slot)
{
	struct aml_ns *ns;
	int since;

	bridges_machine();
	ns = bridges_boot();
	pm.down[1] = 1u << 5;
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: eject request for \\_SB_.PCI0.S10_.S00_.S28_ (03:05): 0 function(s) released",
			    since));
	CHECK_EQ(table_count(), 4);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(pm.eject_writes, 1);
	CHECK_EQ(pm.ejected[1], 1u << 5);
	CHECK_EQ(pm.down[1], 0);
	CHECK_EQ(pm.stray_writes, 0);
	done(ns);
}

/* ---- bugs and hostile input ------------------------------------------------------------ */

/*
 * The PCI bridge of the DSDT is not there (it does not answer): its slots
 * are listed with "bus ?"; an UP on its selector rescans and finds nothing
 * new; a DOWN is reported with the reason and ejected anyway through the
 * slot's _EJ0 (QEMU's eject of a bus with nothing on it does nothing).
 */
HTEST(pcihp_slot_whose_bridge_is_not_there)
{
	struct aml_ns *ns;
	int since;

	bridges_machine();
	pm.f[b_ppb].absent = true;
	ns = bridges_boot();
	CHECK(strstr(pcihp(), "slot \\_SB_.PCI0.S10_.S00_.S08_ bus ? _SUN 1 _EJ0\n") != NULL);
	pm.up[1] = 1;
	pm.down[1] = 1u << 1;
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: Notify (\\_SB_.PCI0.S10_.S00_.S00_, 1): device check", since));
	CHECK(host_log_seen("pci-hotplug: rescan found 0 new function(s)", since));
	CHECK(host_log_seen("pci-hotplug: eject request for \\_SB_.PCI0.S10_.S00_.S08_: bus unknown; ejecting anyway",
			    since));
	CHECK_EQ(pm.eject_writes, 1);
	CHECK_EQ(table_count(), 3);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(pm.stray_writes, 0);
	done(ns);
}

/*
 * Root port 1's bus-number registers are read-only (the walk could not
 * number it: its secondary bus reads 0).  An eject request for its slot 0
 * must not be taken for slot 0 of bus 0: the host bridge 00:00.0 stays in
 * the table, the slot shows no bus, and the _EJ0 still runs.
 */
HTEST(pcihp_bridge_without_a_bus_number_is_not_bus_0)
{
	struct aml_ns *ns;
	int since;

	bridges_machine();
	pm_put(&pm.f[b_port1], 0x18, 3, 0);
	pm_reg(&pm.f[b_port1], 0x18, 3, 0);
	ns = bridges_boot();
	CHECK(pci_get_bdf(0, 1, 0) && pci_get_bdf(0, 1, 0)->secondary_bus == 0);
	CHECK(strstr(pcihp(), "slot \\_SB_.PCI0.S08_.S00_ bus ? _SUN 0 _EJ0\n") != NULL);
	pm.down[2] = 1;
	since = host_log_count;
	CHECK(gpe1());
	CHECK(pci_get_bdf(0, 0, 0) != NULL);
	CHECK_EQ(table_count(), 4);
	CHECK(host_log_seen("pci-hotplug: eject request for \\_SB_.PCI0.S08_.S00_: bus unknown; ejecting anyway", since));
	CHECK_EQ(pm.ejected[2], 1);
	CHECK_EQ(pm.stray_writes, 0);
	done(ns);
}

/*
 * A switch (bridge 1b36:000e with 1af4:1058 behind it) in root port 1's
 * slot, which the firmware numbered 1-2 (port 2 and its PCI bridge moved
 * to 3-4 and 4).  device_del of the switch: the function behind it must
 * go first (its driver's remove called), then the switch; none of them
 * may stay in the table; the slot's _EJ0 ejects slot 0 of bsel 2.
 */
HTEST(pcihp_removing_a_bridge_removes_what_is_behind_it)
{
	struct aml_ns *ns;
	int sw, leaf;

	bridges_machine();
	pm_buses(b_port1, 0, 1, 2);
	pm_buses(b_port2, 0, 3, 4);
	pm_buses(b_ppb, 3, 4, 4);
	sw = pm_add(b_port1, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_buses(sw, 1, 2, 2);
	leaf = pm_add(sw, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(leaf, 0, 4096, 0, 0);
	ns = bridges_boot();
	CHECK(pci_get_bdf(1, 0, 0) != NULL);
	CHECK(pci_get_bdf(2, 0, 0) && pci_get_bdf(2, 0, 0)->driver == &fake_drv);
	CHECK_EQ(fx.probes, 1);
	pm_acpi_unplug_request(sw);
	CHECK_EQ(pm.down[2], 1);
	CHECK(gpe1());
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.removed_bus, 2);
	CHECK_EQ(fx.vendor_at_remove, 0x1af4);
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK(pci_get_bdf(2, 0, 0) == NULL);
	CHECK_EQ(table_count(), 4);
	CHECK(pm.f[sw].absent && pm.f[leaf].absent);
	CHECK_EQ(pm.ejected[2], 1);
	CHECK_EQ(pm.stray_writes, 0);
	done(ns);
}

/*
 * When PCI hotplug is not on, `pcihp` says so and why, rather than
 * describe slots nobody listens to: PCI not initialised (no MCFG); no
 * namespace and no hotplug-capable slot; QEMU's DSDT but GPE 1 refused
 * (its ports here have no PCIe slot capability either).
 */
HTEST(pcihp_view_when_hotplug_is_off)
{
	struct aml_ns *ns;

	machine();
	pm_set_mcfg(NULL, 0);
	CHECK(boot() != 0);
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug off: PCI not initialised\n"
			     "PCI hotplug off: PCI not initialised\n");

	pm_reset(0, 0xff);
	pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 0x06, 0x00);
	CHECK_EQ(boot(), 0);
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug off: no AML namespace (no DSDT, or it could not be loaded)\n"
			     "PCI hotplug off: no hotplug-capable PCIe slots\n");

	bridges_machine();
	pm.gpe_fails = true;
	ns = boot_aml(BRIDGES_DSDT, NULL);
	CHECK(!pcihp_aml_mode);
	CHECK_EQ(pm.gpe_registered, 1);
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug off: GPE 1 unavailable\n"
			     "PCI hotplug off: no hotplug-capable PCIe slots\n");
	done(ns);
}

/*
 * Root port 1's memory window registers ignore writes (hard-wired closed:
 * base fff0, limit 0000), with a device_add behind it that needs a
 * non-prefetchable window.  Opening one writes the registers, which still
 * read closed: that must be reported as the bridge not keeping the window,
 * not as a window opened (the log would name an address range the bridge
 * does not decode), and the function is left disabled with its BAR
 * unassigned and no driver.
 */
HTEST(pcihp_bridge_that_does_not_keep_its_window)
{
	struct aml_ns *ns;
	int hot, since;
	struct pci_dev *d;

	bridges_machine();
	pm_reg(&pm.f[b_port1], 0x20, 4, 0);
	pm_put(&pm.f[b_port1], 0x20, 4, 0x0000fff0);
	hot = hot_function(b_port1, 0);
	ns = bridges_boot();
	pm_acpi_plug(hot);
	since = host_log_count;
	CHECK(gpe1());
	CHECK(!host_log_seen("opened memory window", since));
	CHECK(host_log_seen("pci 00:01.0: bridge does not keep the memory window fe", since));
	d = pci_get_bdf(1, 0, 0);
	CHECK(d != NULL);
	if (d) {
		CHECK_EQ(d->bars[0].base, 0);
		CHECK_EQ(pm_get(&pm.f[hot], 0x04, 2) & CMD_MEMORY, 0);
	}
	CHECK_EQ(fx.probes, 0);
	done(ns);
}

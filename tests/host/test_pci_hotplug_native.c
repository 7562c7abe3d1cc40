/*
 * test_pci_hotplug_native.c - native PCIe hotplug
 * (drivers/pci/hotplug_native.c, used when the namespace has no GPE 1
 * method), on the
 * PCI model (host suite `pci`): presence detect changed and attention
 * button as QEMU sets them on device_add and device_del, slot power on and
 * off, removal of a boot device, a slot without a power controller, a
 * surprise removal, a power fault.
 *
 * The recording driver and the machine are pcihp_machine.h's; poll() runs
 * the native hotplug poller once.
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include "pcihp_machine.h"

/* poll() - the native hotplug poller runs once, log quiet. */
static bool poll(void)
{
	bool ran;

	printk_set_level(LOG_WARNING);
	ran = pm_poll();
	printk_set_level(LOG_INFO);
	return ran;
}

/* inside() - [base, base+size) lies in [lo, hi]. */
static bool inside(u64 base, u64 size, u64 lo, u64 hi)
{
	return base >= lo && size && base + size - 1 <= hi && base + size > base;
}

/* ---- native PCIe hotplug ----------------------------------------------------------- */

/* native_machine() - machine() (no namespace, so no GPE 1 method: ACPI PCI
 * hotplug off, QEMU signals through the slots) and slot power that gates
 * config access, as in QEMU.  test_pci_hotplug.c checks that a namespace
 * without the method chooses the same. */
static void native_machine(void)
{
	machine();
	pm.slot_power_gates = true;
}

/*
 * Without GPE 1's method the ports' slots are polled.  device_add behind port B (slot
 * powered off): presence detect state, presence detect changed and
 * attention button.  Expect the poll to clear both events, power the slot
 * on with its indicator on, then find the function with BARs inside B's
 * windows and probe it.  device_del: attention button.  Expect remove while
 * the function answers, the function out of the table, the slot powered
 * off with the indicator off (QEMU's cue: it drops the device, clears
 * presence and sets presence detect changed), and the next poll to do
 * nothing more.  Then the same slot used again.
 */
HTEST(pcihp_native_slot_add_and_remove)
{
	int hot, since;
	struct pci_dev *d;
	u64 writes;

	native_machine();
	hot = hot_function(m_portb, 0);
	since = host_log_count;
	CHECK_EQ(boot(), 0);
	CHECK(host_log_seen("pci-hotplug: native PCIe hotplug on 2 slot(s), polled every 100 ms", since));
	CHECK_EQ(pm.gpe_registered, 0);
	CHECK_EQ(pm.pollers, 1);
	CHECK_EQ(table_count(), 4);
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug off: no AML namespace (no DSDT, or it could not be loaded)\n"
			     "native PCIe hotplug (slot registers polled every 100 ms)\n"
			     "events: up 0 down 0 ejected 0\n");
	writes = pm.writes;
	CHECK(poll());
	CHECK_EQ(pm.writes, writes);		/* no event, no write */

	pm_slot_plug(m_portb, hot);
	CHECK(pci_get_bdf(2, 0, 0) == NULL);
	CHECK(poll());
	CHECK_EQ(pm_slot_reg(m_portb, 0x18, 2) & (PM_SLTCTL_PCC | PM_SLTCTL_PIC), PM_SLTCTL_PIC_ON);
	CHECK_EQ(pm_slot_reg(m_portb, 0x1a, 2) & (PM_SLTSTA_PDC | PM_SLTSTA_ABP | PM_SLTSTA_PDS),
		 PM_SLTSTA_PDS);
	d = pci_get_bdf(2, 0, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(d->hotplugged);
	CHECK(inside(d->bars[0].base, 4096, 0xfe600000, 0xfe7fffff));
	CHECK(inside(d->bars[4].base, 16384, 0x800000000ULL, 0x8001fffffULL));
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(fx.probed_bus, 2);
	CHECK(poll());
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(table_count(), 5);

	pm_slot_unplug_request(m_portb);
	CHECK(poll());
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.removed_bus, 2);
	CHECK_EQ(fx.vendor_at_remove, 0x1af4);
	CHECK(pci_get_bdf(2, 0, 0) == NULL);
	CHECK_EQ(pm_slot_reg(m_portb, 0x18, 2) & (PM_SLTCTL_PCC | PM_SLTCTL_PIC),
		 PM_SLTCTL_PCC | PM_SLTCTL_PIC);
	CHECK(pm.f[hot].absent);
	CHECK_EQ(pm_slot_reg(m_portb, 0x1a, 2) & (PM_SLTSTA_PDS | PM_SLTSTA_PDC), PM_SLTSTA_PDC);
	CHECK(poll());
	CHECK_EQ(pm_slot_reg(m_portb, 0x1a, 2) & PM_SLTSTA_PDC, 0);
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.probes, 2);
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug off: no AML namespace (no DSDT, or it could not be loaded)\n"
			     "native PCIe hotplug (slot registers polled every 100 ms)\n"
			     "events: up 1 down 1 ejected 1\n");

	pm_slot_plug(m_portb, hot);
	CHECK(poll());
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
	CHECK_EQ(fx.probes, 3);
	CHECK_EQ(table_count(), 5);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * device_del of the device that was there at boot (port A, slot powered
 * on by the firmware): the same removal path.
 */
HTEST(pcihp_native_removal_of_a_boot_device)
{
	native_machine();
	CHECK_EQ(boot(), 0);
	CHECK(pci_get_bdf(1, 0, 0) != NULL);
	pm_slot_unplug_request(m_porta);
	CHECK(poll());
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.removed_bus, 1);
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK(pm.f[m_vmem].absent);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * A root port whose slot has no power controller (slot control's power
 * bit reads 0 and does not change): device_add sets presence, presence
 * changed and attention button as always.  That is an arrival, not a
 * removal request: expect the function found and probed, and no write that
 * makes QEMU unplug it again.
 */
HTEST(pcihp_native_slot_without_power_controller)
{
	int hot;

	native_machine();
	pm_slot_no_power_controller(m_portb);
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	pm_slot_plug(m_portb, hot);
	CHECK(poll());
	CHECK(!pm.f[hot].absent);
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(pm_slot_reg(m_portb, 0x18, 2) & PM_SLTCTL_PIC, PM_SLTCTL_PIC_ON);

	/* and device_del still works: attention button, power (indicator) off */
	pm_slot_unplug_request(m_portb);
	CHECK(poll());
	CHECK(pci_get_bdf(2, 0, 0) == NULL);
	CHECK(pm.f[hot].absent);
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * Surprise removal: the device behind port A is gone (presence detect
 * state clear, presence detect changed set) without an attention button.
 * Expect its driver's remove and the function out of the table.
 */
HTEST(pcihp_native_surprise_removal)
{
	int since;

	native_machine();
	CHECK_EQ(boot(), 0);
	pm_slot_unplug(m_porta);
	since = host_log_count;
	CHECK(poll());
	CHECK_EQ(fx.removes, 1);
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK(host_log_seen("pci-hotplug: native: device behind 00:02.0 is gone; 1 function(s) released", since));
	CHECK_EQ(pm_slot_reg(m_porta, 0x1a, 2) & PM_SLTSTA_PDC, 0);
	/* pci_remove_device() turns decoding off in a function that is gone:
	 * one write nobody answers, harmless, and the only one */
	CHECK_EQ(pm.stray_writes, 1);
}

/*
 * A power fault on port A's slot: reported once and cleared, nothing
 * removed.  With a device_add on port B in the same poll, B's device
 * still arrives.
 */
HTEST(pcihp_native_power_fault)
{
	int hot, since;

	native_machine();
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	pm_slot_event(m_porta, PM_SLTSTA_PFD);
	pm_slot_plug(m_portb, hot);
	pm_slot_event(m_portb, PM_SLTSTA_PFD);
	since = host_log_count;
	CHECK(poll());
	CHECK(host_log_seen("pci-hotplug: native: power fault on the slot of 00:02.0", since));
	CHECK(host_log_seen("pci-hotplug: native: power fault on the slot of 00:03.0", since));
	CHECK_EQ(pm_slot_reg(m_porta, 0x1a, 2) & PM_SLTSTA_PFD, 0);
	CHECK_EQ(pm_slot_reg(m_portb, 0x1a, 2) & PM_SLTSTA_PFD, 0);
	CHECK(pci_get_bdf(1, 0, 0) != NULL);
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
	CHECK_EQ(fx.removes, 0);
	since = host_log_count;
	CHECK(poll());
	CHECK(!host_log_seen("power fault", since));
}

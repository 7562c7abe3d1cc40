/*
 * drivers/pci/hotplug_native.c - native PCIe hotplug, used when the
 * firmware's AML has no ACPI PCI hotplug (no \_GPE._E01: hotplug.c).
 *
 * With ACPI PCI hotplug switched off (-global
 * ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off) QEMU signals through the
 * root port's PCIe slot registers instead.  memlab polls them every 100 ms
 * rather than wiring the port's interrupt:
 *   slot status (PCIe cap + 0x1a, RW1C): bit0 attention button pressed,
 *     bit1 power fault detected, bit3 presence detect changed, bit6
 *     presence detect state;
 *   slot control (PCIe cap + 0x18): bits 8-9 power indicator (01 on,
 *     11 off), bit 10 power controller (1 = power off).
 * A device appearing in an empty slot has its slot powered on, then the
 * bus is rescanned; an attention button press on an occupied slot
 * (device_del) releases the functions and powers the slot off, which is
 * QEMU's cue to unplug the device.
 *
 * Context: pcihp_native_init (boot); the poller (main).
 */
#include "internal.h"
#include <lib/printk.h>
#include <kernel/workqueue.h>

#define EXP_SLTCAP		0x14
#define EXP_SLTCTL		0x18
#define EXP_SLTSTA		0x1a
#define EXP_FLAGS_SLOT		0x0100
#define SLTCAP_HPC		0x0040
#define SLTSTA_ABP		0x0001
#define SLTSTA_PFD		0x0002
#define SLTSTA_PDC		0x0008
#define SLTSTA_PDS		0x0040
#define SLTCTL_PIC_MASK		0x0300
#define SLTCTL_PIC_ON		0x0100
#define SLTCTL_PIC_OFF		0x0300
#define SLTCTL_PCC_OFF		0x0400

bool pcihp_native_mode;
struct poller pcihp_native_poller;

/* slot_cap() - the PCIe capability of a hotplug-capable root/downstream port, or 0. */
static u8 slot_cap(struct pci_dev *d)
{
	u8 pos;

	if (!d || d->header_type != 1)
		return 0;
	pos = pci_find_capability(d, PCI_CAP_ID_EXP, 0);
	if (!pos || !(pci_read16(d, (u16)(pos + 2)) & EXP_FLAGS_SLOT) ||
	    !(pci_read32(d, (u16)(pos + EXP_SLTCAP)) & SLTCAP_HPC))
		return 0;
	return pos;
}

/* slot_occupied() - some function of the slot is in the table. */
static bool slot_occupied(const struct pcihp_slot *s)
{
	unsigned i;

	for (i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device(i);

		if (d && pcihp_in_slot(d, s))
			return true;
	}
	return false;
}

/*
 * native_poll() - one look at every hotplug-capable port's slot.  Its
 * events (attention button pressed, presence detect changed, power fault
 * detected: reported, nothing else) are cleared
 * by writing back the bits that were set (QEMU undoes a write of one to a
 * clear bit), then what the slot says is compared with the table, not
 * with the slot's power, which a slot without a power controller does not
 * have:
 *   - a device present and none of the slot's functions in the table: an
 *     arrival (QEMU's device_add sets both events).  The slot is powered
 *     on with its indicator on (a power controller that is off, or none),
 *     then the buses are rescanned;
 *   - the slot's functions in the table and the attention button pressed
 *     (device_del): they are released, and the slot is powered off with
 *     its indicator off, which is QEMU's cue to unplug the device;
 *   - the slot's functions in the table and no device present (a surprise
 *     removal): they are released and the slot powered off, so that the
 *     next device arrives the usual way.
 * Context: (main).
 */
static void native_poll(void)
{
	unsigned i;
	bool rescan = false;

	for (i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device(i);
		u8 pos = slot_cap(d);
		struct pcihp_slot ref = { .port = d };
		u16 sta, ctl;
		bool occupied;

		if (!pos)
			continue;
		sta = pci_read16(d, (u16)(pos + EXP_SLTSTA));
		if (!(sta & (SLTSTA_ABP | SLTSTA_PDC | SLTSTA_PFD)))
			continue;
		pci_write16(d, (u16)(pos + EXP_SLTSTA),
			    sta & (SLTSTA_ABP | SLTSTA_PDC | SLTSTA_PFD));
		if (sta & SLTSTA_PFD)
			pr_warn("pci-hotplug: native: power fault on the slot of %02x:%02x.%x",
				d->bus, d->dev, d->fn);
		if (!(sta & (SLTSTA_ABP | SLTSTA_PDC)))
			continue;
		ctl = pci_read16(d, (u16)(pos + EXP_SLTCTL));
		occupied = slot_occupied(&ref);
		if ((sta & SLTSTA_PDS) && !occupied) {
			pr_info("pci-hotplug: native: device present behind %02x:%02x.%x%s",
				d->bus, d->dev, d->fn,
				ctl & SLTCTL_PCC_OFF ? "; powering the slot" : "");
			pci_write16(d, (u16)(pos + EXP_SLTCTL),
				    (u16)((ctl & ~(SLTCTL_PCC_OFF | SLTCTL_PIC_MASK)) | SLTCTL_PIC_ON));
			pcihp_ups++;
			rescan = true;
		} else if (occupied && (sta & SLTSTA_ABP)) {
			unsigned n = pcihp_release_slot(&ref);

			pr_info("pci-hotplug: native: removal requested behind %02x:%02x.%x; %u function(s) released, slot powered off",
				d->bus, d->dev, d->fn, n);
			pci_write16(d, (u16)(pos + EXP_SLTCTL),
				    (u16)(ctl | SLTCTL_PCC_OFF | SLTCTL_PIC_OFF));
			pcihp_downs++;
			pcihp_ejects++;
		} else if (occupied && !(sta & SLTSTA_PDS)) {
			unsigned n = pcihp_release_slot(&ref);

			pr_warn("pci-hotplug: native: device behind %02x:%02x.%x is gone; %u function(s) released",
				d->bus, d->dev, d->fn, n);
			pci_write16(d, (u16)(pos + EXP_SLTCTL),
				    (u16)(ctl | SLTCTL_PCC_OFF | SLTCTL_PIC_OFF));
			pcihp_downs++;
		}
	}
	if (rescan)
		pr_info("pci-hotplug: rescan found %d new function(s)", pci_rescan());
}

/*
 * pcihp_native_init() - poll the slots of every hotplug-capable port, or,
 * when there is none, say so (pcihp_off_reason).  Context: boot.
 */
void pcihp_native_init(void)
{
	unsigned i, ports = 0;

	for (i = 0; i < pci_device_count(); i++)
		if (slot_cap(pci_device(i)))
			ports++;
	if (!ports) {
		pcihp_off_reason = "no hotplug-capable PCIe slots";
		pr_info("pci-hotplug: %s", pcihp_off_reason);
		return;
	}
	pcihp_native_mode = true;
	pcihp_native_poller.fn = native_poll;
	pcihp_native_poller.name = "pcie-hotplug";
	pcihp_native_poller.period = 10;	/* 100 ms */
	register_poller(&pcihp_native_poller);
	pr_info("pci-hotplug: native PCIe hotplug on %u slot(s), polled every 100 ms", ports);
}


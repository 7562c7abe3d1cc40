/*
 * drivers/pci/hotplug.c - PCI hotplug: the choice of mechanism, what both
 * mechanisms share (releasing a slot's functions, the event counters) and
 * the `pcihp` view.
 *
 * Two mechanisms, chosen once at boot after the AML namespace is loaded:
 *   ACPI  the firmware's AML says how (drivers/pci/hotplug_acpi.c): GPE 1's
 *         method \_GPE._E01 (or _L01) runs in the interpreter, the slots
 *         are the namespace's devices, a slot is ejected with its _EJ0.
 *         Which registers the methods touch is the firmware's business;
 *         nothing here knows any machine's hotplug register layout.
 *   native  when the namespace has no such method (QEMU with ACPI PCI
 *         hotplug switched off, or no namespace at all): the PCIe spec's
 *         slot registers of hotplug-capable ports, polled
 *         (drivers/pci/hotplug_native.c).
 * Why ACPI PCI hotplug is off is kept (pcihp_acpi_off_reason) and shown by
 * `pcihp` beside the native state; there is no other fallback.
 *
 * Context: pci_hotplug_init (boot); the rest (main).
 */
#include "internal.h"
#include <lib/printk.h>

const char *pcihp_acpi_off_reason;
const char *pcihp_off_reason;
u64 pcihp_ups, pcihp_downs, pcihp_ejects;

/*
 * pcihp_in_slot() - d is one of the slot's functions or sits below one of them
 * (behind a bridge in the slot).  Follows bridge links up, at most
 * PCI_MAX_DEVICES of them.  Context: (main).
 */
bool pcihp_in_slot(const struct pci_dev *d, const struct pcihp_slot *s)
{
	unsigned hops;

	for (hops = 0; d && hops < PCI_MAX_DEVICES; hops++, d = d->bridge) {
		if (s->port ? d->bridge == s->port : (d->bus == s->bus && d->dev == s->slot))
			return true;
	}
	return false;
}

/* has_children() - some function in the table sits right behind bridge d.
 * Context: (main). */
static bool has_children(const struct pci_dev *d)
{
	unsigned i;

	for (i = 0; i < pci_device_count(); i++) {
		struct pci_dev *c = pci_device(i);

		if (c && c->bridge == d)
			return true;
	}
	return false;
}

/*
 * pcihp_release_slot() - every function of the slot, and everything behind a
 * bridge in it, leaves: driver remove, then the table.  Deepest first:
 * pci_remove_device() cuts the links of what sits behind a bridge, so a
 * bridge that went first would leave its subtree in the table, drivers
 * bound, with no way to find it from the slot.  Each pass removes the
 * functions of the slot that nothing sits behind; a pass that removes
 * nothing ends it.  Returns how many went.  Context: (main).
 */
unsigned pcihp_release_slot(const struct pcihp_slot *s)
{
	unsigned n = 0, pass, i, went;

	for (pass = 0; pass <= PCI_MAX_DEVICES; pass++) {
		went = 0;
		for (i = 0; i < pci_device_count(); i++) {
			struct pci_dev *d = pci_device(i);

			if (d && pcihp_in_slot(d, s) && !has_children(d)) {
				pci_remove_device(d);
				went++;
			}
		}
		n += went;
		if (!went)
			break;
	}
	return n;
}

/*
 * pci_hotplug_init() - choose the mechanism: ACPI PCI hotplug through the
 * AML when the namespace has GPE 1's method and PCI slot devices (and GPE
 * 1 can be had); otherwise the reason is kept and logged, and the native
 * PCIe slots are polled if there are any.  Context: (boot), from
 * pci_acpi_init().
 */
void pci_hotplug_init(void)
{
	if (!pci_ready) {
		pcihp_acpi_off_reason = pcihp_off_reason = "PCI not initialised";
		return;
	}
	pcihp_acpi_off_reason = pcihp_aml_init();
	if (!pcihp_acpi_off_reason)
		return;
	pr_info("pci-hotplug: no ACPI PCI hotplug: %s", pcihp_acpi_off_reason);
	pcihp_native_init();
}

/*
 * pci_hotplug_dump() - the `pcihp` view: the AML mechanism's state, or why
 * ACPI PCI hotplug is off and then the native mechanism's state (or why
 * that is off too).  Context: (main).
 */
void pci_hotplug_dump(struct printer *out)
{
	if (pcihp_aml_mode) {
		pcihp_aml_dump(out, true);
		return;
	}
	pr_printf(out, "ACPI PCI hotplug off: %s\n",
		  pcihp_acpi_off_reason ? pcihp_acpi_off_reason : "PCI hotplug not started");
	if (!pcihp_native_mode) {
		pr_printf(out, "PCI hotplug off: %s\n", pcihp_off_reason ? pcihp_off_reason : "not started");
		return;
	}
	pr_printf(out, "native PCIe hotplug (slot registers polled every 100 ms)\n");
	pr_printf(out, "events: up %llu down %llu ejected %llu\n", (unsigned long long)pcihp_ups,
		  (unsigned long long)pcihp_downs, (unsigned long long)pcihp_ejects);
}

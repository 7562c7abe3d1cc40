/*
 * drivers/pci/hotplug.c - ACPI PCI hotplug as QEMU 7.2 implements it on q35.
 *
 * Which mechanism: on QEMU 7.2 q35, pcie-root-port slots are hot-plugged
 * through ACPI by default (acpi-pci-hotplug-with-bridge-support=on since
 * QEMU 6.1), not through the root port's native PCIe slot registers.
 * Measured: device_add of a virtio-mem-pci on a root port sets GPE0 status
 * bit 1 and an "up" bit in the register block below, and nothing in the
 * root port's slot status.  Linux reaches the block through AML methods
 * (PCNT, PCEJ, ...); memlab has no AML interpreter and does their work in C.
 *
 * The register block (I/O 0x0cc0 on q35, 0x18 bytes, 32-bit accesses) is a
 * window onto one "hotplug bus" at a time, chosen by its bus selector:
 *   +0x00 r: UP     slots with a device added (reading clears it)
 *   +0x04 r: DOWN   slots whose device QEMU wants removed (device_del)
 *   +0x08 w: EJECT  write a slot mask: QEMU unplugs those devices
 *   +0x0c r: RMV    slots that allow hot removal
 *   +0x10 rw: BNUM  bus selector (QEMU's "bsel" of the bus)
 *   +0x14 rw: AIDX  ACPI index of a device (unused here)
 * Bit n of a slot mask is device n on the selected bus.
 *
 * The bus selector numbers are QEMU's own and are published only in the
 * DSDT: every hotplug bus has `Name (BSEL, n)` right after the `_ADR` of
 * the bridge leading to it.  hotplug_init() scans the DSDT bytes for those
 * pairs and keeps bsel -> bridge address (bus 0 only); without the DSDT it
 * falls back to QEMU's measured order (root ports in reverse slot order).
 *
 * On GPE 1 (as work in the main loop): for each bus selector, UP -> rescan
 * (new functions get BARs inside their root port's window, are enabled and
 * probed: pci_rescan); DOWN -> each function of the slot gets its driver's
 * remove and leaves the table, then the slot is ejected (QEMU then emits
 * DEVICE_DELETED).
 *
 * When the DSDT has no BSEL (ACPI PCI hotplug switched off), the root
 * ports' native PCIe slot registers are polled instead
 * (drivers/pci/hotplug_native.c).  The `pcihp` view of both is here.
 *
 * Context: pci_hotplug_init (boot); the rest (main).
 */
#include "internal.h"
#include <drivers/acpi.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <arch/io.h>

#define PCIHP_PORT_Q35		0x0cc0
#define PCIHP_UP		0x00
#define PCIHP_DOWN		0x04
#define PCIHP_EJECT		0x08
#define PCIHP_RMV		0x0c
#define PCIHP_BNUM		0x10
#define GPE_PCI_HOTPLUG		1

struct pcihp_bsel pcihp_bsels[PCIHP_MAX_BSEL];
unsigned pcihp_nr_bsel;
bool pcihp_from_dsdt;
bool pcihp_acpi_mode;
const char *pcihp_off_reason;
u64 pcihp_ups, pcihp_downs, pcihp_ejects;
static void pcihp_work_fn(struct work *w);
struct work pcihp_work = WORK_INIT(pcihp_work_fn, "pci-hotplug");

/* aml_int() - an AML integer (Zero, One, Ones, Byte/Word/DWord/QWord prefix)
 * at p (avail bytes); returns the bytes used, 0 if it is not one. */
static unsigned aml_int(const u8 *p, size_t avail, u64 *v)
{
	unsigned n, i;

	if (avail < 1)
		return 0;
	switch (p[0]) {
	case 0x00: *v = 0; return 1;
	case 0x01: *v = 1; return 1;
	case 0xff: *v = ~0ULL; return 1;
	case 0x0a: n = 1; break;
	case 0x0b: n = 2; break;
	case 0x0c: n = 4; break;
	case 0x0e: n = 8; break;
	default: return 0;
	}
	if (avail < 1 + n)
		return 0;
	*v = 0;
	for (i = 0; i < n; i++)
		*v |= (u64)p[1 + i] << (8 * i);
	return 1 + n;
}

/*
 * map_from_dsdt() - fill pcihp_bsels from `Name (_ADR, a) ... Name (BSEL, n)`
 * pairs: n belongs to the nearest _ADR before it (when that _ADR's value
 * is not a plain integer, n belongs to no known bridge and is skipped
 * with a warning, not given to an earlier _ADR).  A number memlab cannot
 * hold (PCIHP_MAX_BSEL and above) is reported and skipped, and so is a number
 * seen before (the first keeps it).  Returns how many were taken.
 * Context: (boot).
 */
static unsigned map_from_dsdt(void)
{
	const struct acpi_sdt_header *dsdt = acpi_find_table("DSDT", 0);
	const u8 *aml;
	size_t len, i;
	u64 adr = 0, v;
	bool adr_ok = true;	/* no _ADR yet: 0, the root bus */
	unsigned found = 0;
	u8 dev, fn;

	if (!dsdt || dsdt->length <= sizeof(*dsdt))
		return 0;
	aml = (const u8 *)(dsdt + 1);
	len = dsdt->length - sizeof(*dsdt);
	for (i = 0; i + 5 < len; i++) {
		if (aml[i] != 0x08)	/* NameOp */
			continue;
		if (!memcmp(aml + i + 1, "_ADR", 4)) {
			adr_ok = aml_int(aml + i + 5, len - i - 5, &adr) != 0;
			continue;
		}
		if (memcmp(aml + i + 1, "BSEL", 4) || !aml_int(aml + i + 5, len - i - 5, &v))
			continue;
		if (!adr_ok) {
			pr_warn("pci-hotplug: DSDT: BSEL %llu follows an _ADR that is not a number; ignored",
				(unsigned long long)v);
			continue;
		}
		dev = (u8)((adr >> 16) & 0x1f);
		fn = (u8)(adr & 7);
		if (v >= PCIHP_MAX_BSEL) {
			pr_warn("pci-hotplug: DSDT: BSEL %llu (bridge 00:%02x.%x) out of range (0-%u); ignored",
				(unsigned long long)v, dev, fn, PCIHP_MAX_BSEL - 1);
			continue;
		}
		if (pcihp_bsels[v].known) {
			pr_warn("pci-hotplug: DSDT: BSEL %llu appears again (bridge 00:%02x.%x, first 00:%02x.%x); ignored",
				(unsigned long long)v, dev, fn, pcihp_bsels[v].dev, pcihp_bsels[v].fn);
			continue;
		}
		pcihp_bsels[v].known = true;
		pcihp_bsels[v].dev = dev;
		pcihp_bsels[v].fn = fn;
		if (v + 1 > pcihp_nr_bsel)
			pcihp_nr_bsel = (unsigned)v + 1;
		found++;
	}
	return found;
}

/*
 * map_fallback() - QEMU numbers hotplug buses depth first over each bus's
 * child list, which holds bridges newest first: with root ports created in
 * slot order, the last root port is bsel 0.  Context: (boot).
 */
static void map_fallback(void)
{
	unsigned i = pci_device_count();

	while (i-- > 0 && pcihp_nr_bsel < PCIHP_MAX_BSEL) {
		struct pci_dev *d = pci_device(i);

		if (!d || d->bus != 0 || d->header_type != 1)
			continue;
		pcihp_bsels[pcihp_nr_bsel].known = true;
		pcihp_bsels[pcihp_nr_bsel].dev = d->dev;
		pcihp_bsels[pcihp_nr_bsel].fn = d->fn;
		pcihp_nr_bsel++;
	}
}

/*
 * bsel_bus() - the bus number behind selector sel, or -ENOENT: no such
 * selector, no bridge at its address, or a bridge the walk could not
 * number (its secondary bus reads 0, which would be taken for bus 0).
 * Context: (main).
 */
static int bsel_bus(unsigned sel)
{
	unsigned i;

	if (sel >= PCIHP_MAX_BSEL || !pcihp_bsels[sel].known)
		return -ENOENT;
	if (pcihp_bsels[sel].dev == 0 && pcihp_bsels[sel].fn == 0)
		return 0;
	for (i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device(i);

		if (d && d->bus == 0 && d->dev == pcihp_bsels[sel].dev && d->fn == pcihp_bsels[sel].fn &&
		    d->header_type == 1)
			return d->secondary_bus > d->bus ? d->secondary_bus : -ENOENT;
	}
	return -ENOENT;
}

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

/* has_children() - some function in the table sits right behind bridge d. */
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
 * handle_down() - QEMU wants the devices in the slots of `mask` on
 * selector sel gone: each slot's functions are released (pcihp_release_slot),
 * then the slot is ejected, also when the selector's bus is unknown, so
 * that QEMU's request completes.  A slot whose RMV bit is clear is not
 * removable (its DSDT device has no _EJ0, so an ACPI kernel could not
 * eject it either): its request is refused with a warning and its
 * functions stay.  Called with sel selected (BNUM), as pcihp_work_fn()
 * leaves it.  Context: (main).
 */
static void handle_down(unsigned sel, u32 mask)
{
	int bus = bsel_bus(sel);
	unsigned slot;
	u32 rmv = inl(PCIHP_PORT_Q35 + PCIHP_RMV);
	for (slot = 0; slot < 32; slot++) {
		if (!(mask & (1u << slot)))
			continue;
		pcihp_downs++;
		if (!(rmv & (1u << slot))) {
			pr_warn("pci-hotplug: remove request for bsel %u slot %u refused: the slot is not removable (RMV %x)",
				sel, slot, rmv);
			continue;
		}
		if (bus < 0) {
			pr_warn("pci-hotplug: remove request for bsel %u slot %u: bus unknown; ejecting anyway",
				sel, slot);
		} else {
			struct pcihp_slot ref = { .bus = bus, .slot = slot };

			pr_info("pci-hotplug: remove request for %02x:%02x (bsel %u): %u function(s) released",
				bus, slot, sel, pcihp_release_slot(&ref));
		}
		outl(PCIHP_PORT_Q35 + PCIHP_BNUM, sel);
		outl(PCIHP_PORT_Q35 + PCIHP_EJECT, 1u << slot);
		pcihp_ejects++;
		pr_info("pci-hotplug: bsel %u slot %u ejected", sel, slot);
	}
}

/*
 * pcihp_work_fn() - GPE 1 fired: look at every bus selector; rescan once
 * if any slot came up, release and eject slots that are going down.
 * Context: (main).
 */
static void pcihp_work_fn(struct work *w)
{
	bool any_up = false;
	unsigned sel;

	if (pcihp_aml_mode)
		return;	/* scheduled at pci_init, before the AML took GPE 1 over */
	for (sel = 0; sel < pcihp_nr_bsel; sel++) {
		u32 up, down;

		outl(PCIHP_PORT_Q35 + PCIHP_BNUM, sel);
		up = inl(PCIHP_PORT_Q35 + PCIHP_UP);
		down = inl(PCIHP_PORT_Q35 + PCIHP_DOWN);
		if (up) {
			int bus = bsel_bus(sel);

			pr_info("pci-hotplug: device added on bus %02x (bsel %u, slots %x)",
				bus < 0 ? 0xff : bus, sel, up);
			pcihp_ups++;
			any_up = true;
		}
		if (down)
			handle_down(sel, down);
	}
	if (any_up) {
		int n = pci_rescan();

		pr_info("pci-hotplug: rescan found %d new function(s)", n);
	}
}

/*
 * pci_hotplug_init() - choose the mechanism: ACPI PCI hotplug when the
 * DSDT names bus selectors (or, without a DSDT, QEMU's order is guessed)
 * and the register block and GPE 1 are there; native slot polling when
 * the DSDT has no BSEL; otherwise off, with the reason kept for `pcihp`.
 * Context: (boot), from pci_init().
 */
void pci_hotplug_init(void)
{
	unsigned n = map_from_dsdt();

	if (n) {
		pcihp_from_dsdt = true;
	} else if (acpi_find_table("DSDT", 0)) {
		/* QEMU writes BSEL only when ACPI PCI hotplug is on */
		pcihp_native_init();
		return;
	} else {
		map_fallback();
		pr_info("pci-hotplug: no DSDT; guessing QEMU's bus selector order");
	}
	if (!pcihp_nr_bsel) {
		pcihp_off_reason = "no hotplug buses";
		pr_info("pci-hotplug: %s", pcihp_off_reason);
		return;
	}
	if (inl(PCIHP_PORT_Q35 + PCIHP_BNUM) == 0xffffffff) {
		pcihp_off_reason = "no register block at cc0";
		pr_info("pci-hotplug: %s", pcihp_off_reason);
		return;
	}
	if (acpi_gpe_register(GPE_PCI_HOTPLUG, &pcihp_work)) {
		pcihp_off_reason = "GPE 1 unavailable";
		pr_warn("pci-hotplug: %s; no PCI hotplug", pcihp_off_reason);
		return;
	}
	pcihp_acpi_mode = true;
	pr_info("pci-hotplug: ACPI PCI hotplug at %x, %u bus selector(s), GPE %u",
		PCIHP_PORT_Q35, pcihp_nr_bsel, GPE_PCI_HOTPLUG);
	/* a device added before we listened: look now */
	schedule_work(&pcihp_work);
}

/*
 * pci_hotplug_dump() - the `pcihp` view: the mechanism in use and its
 * state, or why PCI hotplug is off.  Context: (main).
 */
void pci_hotplug_dump(struct printer *out)
{
	unsigned sel;

	if (pcihp_aml_mode) {
		pcihp_aml_dump(out, true);
		return;
	}
	if (!pcihp_native_mode && !pcihp_acpi_mode) {
		pr_printf(out, "PCI hotplug off: %s\n", pcihp_off_reason ? pcihp_off_reason : "PCI not initialised");
		return;
	}
	if (pcihp_native_mode) {
		pr_printf(out, "native PCIe hotplug (slot registers polled every 100 ms)\n");
		pr_printf(out, "events: up %llu down %llu ejected %llu\n", (unsigned long long)pcihp_ups,
			  (unsigned long long)pcihp_downs, (unsigned long long)pcihp_ejects);
		return;
	}
	pr_printf(out, "ACPI PCI hotplug at %x (GPE %u), bsel map from %s\n",
		  PCIHP_PORT_Q35, GPE_PCI_HOTPLUG, pcihp_from_dsdt ? "DSDT" : "guess");
	for (sel = 0; sel < pcihp_nr_bsel; sel++) {
		int bus = bsel_bus(sel);

		if (!pcihp_bsels[sel].known)
			continue;
		outl(PCIHP_PORT_Q35 + PCIHP_BNUM, sel);
		pr_printf(out, "bsel %u: bridge 00:%02x.%x bus %02x down %x rmv %x\n", sel,
			  pcihp_bsels[sel].dev, pcihp_bsels[sel].fn, bus < 0 ? 0xff : bus,
			  inl(PCIHP_PORT_Q35 + PCIHP_DOWN), inl(PCIHP_PORT_Q35 + PCIHP_RMV));
	}
	pr_printf(out, "events: up %llu down %llu ejected %llu\n", (unsigned long long)pcihp_ups,
		  (unsigned long long)pcihp_downs, (unsigned long long)pcihp_ejects);
}

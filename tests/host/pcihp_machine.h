/*
 * pcihp_machine.h - what the PCI hotplug tests share (host suite `pci`):
 * a driver that records what happens to it, DSDT bytes built by hand, and
 * the q35 with two root ports that QEMU 7.2 hotplugs into, booted and
 * driven with the log kept quiet.  Used by test_pci_hotplug.c (ACPI PCI
 * hotplug), test_pci_hotplug_dsdt.c (hostile DSDTs) and
 * test_pci_hotplug_native.c (the native PCIe fallback).
 */
#ifndef PCIHP_MACHINE_H
#define PCIHP_MACHINE_H

#include "pci_model.h"

/* ---- a driver that records what happens to it ---------------------------------- */

struct fake_calls {
	unsigned probes, removes;
	u8 probed_bus, probed_dev;	/* the last probed function */
	u8 removed_bus, removed_dev;	/* the last removed one */
	u16 vendor_at_remove;		/* what its vendor id read in remove() */
};
extern struct fake_calls fx;		/* cleared by machine() */
extern const struct pci_driver fake_drv;	/* binds 1af4:1058 */

/* ---- DSDT bytes ------------------------------------------------------------------ */

struct aml {
	u8 b[256];
	size_t n;
};

/* aml_emit() - len bytes onto the end of a. */
void aml_emit(struct aml *a, const void *p, size_t len);
/* aml_integer() - an integer as QEMU's aml_integer() encodes it: Zero, One, or
 * the shortest of BytePrefix, WordPrefix, DWordPrefix. */
void aml_integer(struct aml *a, u32 v);
/* aml_name() - NameOp and a 4-character name; the value follows. */
void aml_name(struct aml *a, const char *name);
/* aml_device() - DeviceOp, a package length and the device's name (the
 * scanner ignores them; they make the bytes look like QEMU's). */
void aml_device(struct aml *a, const char *name);
/* aml_bridge() - Device (name) { Name (_ADR, dev << 16); Name (BSEL, n) } */
void aml_bridge(struct aml *a, const char *name, unsigned dev, u32 bsel);
/* aml_pci0() - Device (PCI0) { Name (_HID, EisaId ("PNP0A08")); Name (_ADR, Zero) } */
void aml_pci0(struct aml *a);

/* ---- the machine -------------------------------------------------------------------- */

/* Indices of the machine's functions in the model. */
extern int m_host, m_porta, m_vmem, m_portb;

/*
 * machine() - a q35 with two root ports, as SeaBIOS leaves it:
 *   00:00.0 host bridge
 *   00:02.0 root port A: buses 1-1, memory fe800000-fe9fffff, prefetchable
 *           fc000000-fc1fffff; slot powered on (it has a device)
 *     01:00.0 1af4:1058 (the fake driver's): BAR0 4 KiB at fe800000, BAR4
 *             64-bit prefetchable 16 KiB at fc000000
 *   00:03.0 root port B: buses 2-2, memory fe600000-fe7fffff, prefetchable
 *           800000000-8001fffff; empty slot, powered off
 * QEMU numbers the hotplug buses newest bridge first: B is bsel 0, A bsel 1.
 * The register block at 0xcc0 answers.  No DSDT yet.
 */
void machine(void);

/* dsdt_qemu() - the DSDT's bytes that matter: PCI0, then port A's device
 * with BSEL 1 and port B's with BSEL 0. */
void dsdt_qemu(void);
/* dsdt_without_bsel() - the same with ACPI PCI hotplug switched off. */
void dsdt_without_bsel(void);

/* hot_function() - a 1af4:1058 behind `parent` at dev, not plugged in yet,
 * with an unassigned 4 KiB BAR0 and 64-bit prefetchable 16 KiB BAR4. */
int hot_function(int parent, u8 dev);

/* boot() - pci_init() with only warnings on stdout, then the fake driver
 * registered (it binds what is there). */
int boot(void);
/* gpe1() - GPE 1 fires and its work runs, log quiet. */
bool gpe1(void);

/* pcihp() - the `pcihp` command's output. */
const char *pcihp(void);
/* table_count() - functions in the table. */
unsigned table_count(void);

#endif

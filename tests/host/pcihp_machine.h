/*
 * pcihp_machine.h - what the PCI hotplug tests share (host suite `pci`):
 * a driver that records what happens to it, the q35 with two root ports
 * that QEMU 7.2 hotplugs into, the machine of QEMU's bridges DSDT fixture,
 * booted (with a namespace or without) and driven with the log kept quiet.
 * Used by test_pci_hotplug.c and test_pci_hotplug_aml.c (ACPI PCI hotplug
 * through the AML), test_pci_hotplug_dsdt.c (hostile DSDTs) and
 * test_pci_hotplug_native.c (native PCIe hotplug).
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
 * The register block at 0xcc0 answers (for AML that uses it).  No
 * namespace: booted as it is, ACPI PCI hotplug is off and the slots polled.
 */
void machine(void);

/* QEMU 7.2's DSDT of bridges_machine() (two root ports, a pcie-pci-bridge). */
#define BRIDGES_DSDT	"tests/host/fixtures/acpi/bridges/dsdt.dat"
extern int b_host, b_port1, b_port2, b_ppb;
/*
 * bridges_machine() - the machine the fixture was captured on, not booted:
 *   00:01.0 root port 1: bus 1 (bsel 2), memory fe800000-fe9fffff,
 *           prefetchable fc000000-fc1fffff
 *   00:02.0 root port 2: buses 2-3 (bsel 0), memory fe400000-fe7fffff,
 *           prefetchable 800000000-8003fffff
 *     02:00.0 pcie-pci-bridge: bus 3 (bsel 1), memory fe400000-fe5fffff,
 *             prefetchable 800000000-8001fffff
 */
void bridges_machine(void);
struct aml_ns;
struct aml_limits;
/* bridges_boot() - booted with the fixture's DSDT; ACPI PCI hotplug must
 * follow the AML; the look it scheduled at boot has run. */
struct aml_ns *bridges_boot(void);
/* boot_aml() - boot() with the namespace of the table in the file at path
 * (NULL, and a failed check, if it cannot be read). */
struct aml_ns *boot_aml(const char *path, const struct aml_limits *lim);
/* done() - the namespace destroyed; all its memory must come back. */
void done(struct aml_ns *ns);

/* hot_function() - a 1af4:1058 behind `parent` at dev, not plugged in yet,
 * with an unassigned 4 KiB BAR0 and 64-bit prefetchable 16 KiB BAR4. */
int hot_function(int parent, u8 dev);

/* boot() - pci_init() with only warnings on stdout, the fake driver
 * registered, then PCI hotplug chosen with the namespace there is (pm.aml). */
int boot(void);
/* gpe1() - GPE 1 fires and its work runs, log quiet. */
bool gpe1(void);

/* pcihp() - the `pcihp` command's output. */
const char *pcihp(void);
/* table_count() - functions in the table. */
unsigned table_count(void);

#endif

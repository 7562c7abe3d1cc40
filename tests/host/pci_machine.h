/*
 * pci_machine.h - what the tests of drivers/pci/ on the PCI model share
 * (host suite `pci`): the q35 machine most tests start from, pci_init()
 * and pci_rescan() with the log kept quiet, the `lspci`, `setpci` and
 * `pcihp` commands into one text buffer, and the checks of the device
 * table.  Used by test_pci.c (enumeration, hostile firmware and devices,
 * setpci) and test_pci_placement.c (where hot-added functions' BARs and
 * windows go, /proc/iomem).
 */
#ifndef PCI_MACHINE_H
#define PCI_MACHINE_H

#include "pci_model.h"
#include <lib/printer.h>

extern char text[8192];		/* the last lspci() or shell() output */

/* lspci() - the `lspci` view into text. */
const char *lspci(void);

/* shell() - one shell line (lspci/setpci/pcihp) into text; its status. */
int shell(const char *line);

/* bdf() - the table's entry for (bus, dev, fn), or NULL. */
struct pci_dev *bdf(unsigned bus, unsigned dev, unsigned fn);

/* Indices of the q35 machine's functions in the model. */
extern int q_host, q_vga, q_rp1, q_nic, q_rp2, q_rp3, q_dev2;

/*
 * q35() - the machine most tests start from, as SeaBIOS leaves it:
 *   00:00.0 host bridge 8086:29c0
 *   00:01.0 vga 1234:1111: BAR0 16 MiB prefetchable at 0xfd000000, BAR2 4 KiB at 0xfebd0000
 *   00:02.0 root port, buses 1-1, memory window fe800000-fe9fffff,
 *           prefetchable fc000000-fc1fffff (64-bit capable, below 4 GiB)
 *     01:00.0 device 1af4:1041: BAR0 I/O 32 at 0xc000, BAR1 4 KiB at
 *             0xfe800000, BAR4 64-bit prefetchable 16 KiB at 0xfc000000
 *   00:03.0 root port, buses 2-2, windows closed (an empty hotplug slot)
 *   00:04.0 root port left unconfigured (bus numbers 0)
 *     (behind it) device 1af4:1042 with a 4 KiB BAR0, unassigned
 */
void q35(void);

/* init_quiet() - pci_init() with only warnings and errors on stdout. */
int init_quiet(void);
/* rescan_quiet() - pci_rescan() likewise. */
int rescan_quiet(void);

/* bars_disjoint() - no two assigned memory BARs in the table overlap. */
bool bars_disjoint(void);
/* table_consistent() - every entry in use is inside the MCFG's buses, a
 * bridge's secondary bus is above its own, and each entry's bridge link
 * is a bridge in use whose bus range holds the entry's bus. */
bool table_consistent(void);
/* id_count() - how many entries of the table are 1af4:`device`. */
unsigned id_count(u16 device);
/*
 * has_device() - the table holds 1af4:`device` exactly once, on `bus`,
 * behind `bridge`.
 */
bool has_device(u16 device, unsigned bus, const struct pci_dev *bridge);

#endif

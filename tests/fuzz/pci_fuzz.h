/*
 * pci_fuzz.h - what the PCI fuzz target's two files share: fuzz_pci.c (the
 * entry point, the topology built from the records, the invariants and
 * the views) and pci_hotplug_events.c (the hotplug part of an input: its
 * setup, the events, and the checks after each).  Both are linked into
 * build/fuzz/fuzz_pci (FUZZ_SRCS_fuzz_pci in the Makefile).
 */
#ifndef PCI_FUZZ_H
#define PCI_FUZZ_H

#include "pci_model.h"

/* ---- fuzz_pci.c -------------------------------------------------------------- */

extern bool verbose;			/* FUZZ_VERBOSE=1: say what broke */
extern u64 stray_budget;		/* stray writes check() accepts */
extern bool hot[PM_MAX_FUNCS];		/* appears after pci_init() */
extern u8 bars_before[PM_MAX_FUNCS][24];	/* the model's BAR registers as built */
extern bool noted[PCI_MAX_DEVICES];	/* remember_bases() has seen the entry */
extern char out[16384];			/* what the views wrote */

/* fail() - an invariant broke: say which (FUZZ_VERBOSE=1) and trap. */
void fail(const char *what);
/* add_bar() - a BAR on model function x as a record's bytes describe it. */
void add_bar(int x, u8 spec, u8 lg, u8 where);
/* check() - the invariants of the table and the model (see fuzz_pci.c). */
void check(bool after_setpci);
/* remember_bases() - which BARs have an address the kernel did not give. */
void remember_bases(void);
/* views() - lspci, and lspci -v of every function, into out. */
void views(void);

/* ---- pci_hotplug_events.c ------------------------------------------------------ */

extern unsigned nr_slot_ports;		/* ports with slots (hp_setup()) */
extern bool unseen_removal;		/* functions left that no poll has seen go */

/*
 * hp_setup() - the firmware and slots before the boot: the DSDT image of
 * the shape (QEMU's bridges DSDT, cut, patched, or none), the model's
 * selectors as the DSDT numbers them, the register block, slot power as
 * QEMU leaves it.  Returns the events (after any patch bytes) and their
 * count in *n.
 */
const u8 *hp_setup(const u8 *p, size_t len, unsigned *n);
/*
 * hp_boot() - after the boot part of a hotplug-mode input: the fake
 * driver registered, the namespace loaded and PCI hotplug chosen, the
 * table's first picture, and whether the model is one whose entries must
 * stay reachable (compare_maps()).
 */
void hp_boot(void);
/*
 * hp_run() - the events of a hotplug-mode input, each followed by
 * hp_check(); the work pending from pci_hotplug_init() runs first, as the
 * main loop would.
 */
void hp_run(const u8 *p, unsigned n);

#endif

/*
 * views/pci_views.h - the PCI views of the tree (views/sysfs_pci.c).
 */
#ifndef VIEWS_PCI_VIEWS_H
#define VIEWS_PCI_VIEWS_H

/* pci_sysfs_init() - /sys/bus/pci/devices/ from drivers/pci's table, from
 * now on.  Context: boot, after vfs_init(). */
void pci_sysfs_init(void);

#endif

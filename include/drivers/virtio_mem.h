/*
 * virtio_mem.h - the virtio-mem driver (drivers/virtio/virtio_mem.c).
 *
 * virtio_mem_init() registers the PCI driver (1af4:1058); kmain calls it
 * BEFORE pci_init() so cold-plugged devices are probed during enumeration
 * and hot-added ones on pci_rescan().  Resizing then runs from a poller
 * (every 100 ms) that reads requested_size from the device config.
 *
 * Context: (boot) for init, (main) for the rest.
 */
#ifndef DRIVERS_VIRTIO_MEM_H
#define DRIVERS_VIRTIO_MEM_H

#include <lib/printer.h>

void virtio_mem_init(void);

/* virtio_mem_dump() - the `virtio-mem` view: every device and its memory blocks. */
void virtio_mem_dump(struct printer *p);

#endif

/*
 * virtio_mem_rename.h - for a second host test file that compiles the
 * virtio-mem driver and its fake device in (test_virtio.c is the first):
 * the functions of drivers/virtio/virtio_pci.c, virtio_mem.c and
 * tests/host/virtio_mem_fake.h that are not static get this file's own
 * names, so both copies link into the one host-tests binary, each with its
 * own statics.  Include it first, before any header (kernel/time.h and
 * drivers/virtio.h declare some of these names).
 *
 * The copy's `virtio-mem` shell command is the one registered; test_virtio.c
 * keeps its copy out of the command table (it calls cmd_virtio_mem()
 * directly).
 */
#ifndef HOST_VIRTIO_MEM_RENAME_H
#define HOST_VIRTIO_MEM_RENAME_H

/* virtio_mem_fake.h: the PCI function and the services the driver needs */
#define pci_read8		mcm_pci_read8
#define pci_read16		mcm_pci_read16
#define pci_read32		mcm_pci_read32
#define pci_enable_device	mcm_pci_enable_device
#define pci_find_capability	mcm_pci_find_capability
#define pci_map_bar		mcm_pci_map_bar
#define pci_register_driver	mcm_pci_register_driver
#define jiffies			mcm_jiffies
#define ktime_ns		mcm_ktime_ns
#define register_poller		mcm_register_poller
#define acpi_pxm_to_node	mcm_acpi_pxm_to_node

/* drivers/virtio/virtio_pci.c */
#define virtio_cfg_generation	mcm_virtio_cfg_generation
#define virtio_cfg_read		mcm_virtio_cfg_read
#define virtio_del_vq		mcm_virtio_del_vq
#define virtio_driver_ok	mcm_virtio_driver_ok
#define virtio_find_vq		mcm_virtio_find_vq
#define virtio_isr_read		mcm_virtio_isr_read
#define virtio_pci_setup	mcm_virtio_pci_setup
#define virtio_reset		mcm_virtio_reset
#define virtio_vq_request	mcm_virtio_vq_request

/* drivers/virtio/virtio_mem.c */
#define virtio_mem_dump		mcm_virtio_mem_dump
#define virtio_mem_init		mcm_virtio_mem_init

#endif

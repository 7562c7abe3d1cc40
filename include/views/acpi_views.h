/*
 * acpi_views.h - the firmware's ACPI tables in sysfs (views/sysfs_acpi.c),
 * as Linux shows them under /sys/firmware/acpi/tables/: one binary file
 * per table (the tables of acpi_table_by_index(), include/drivers/acpi.h),
 * named by its signature; when the firmware gave several tables of one
 * signature they are SIG1, SIG2, ... in the order found (QEMU's SSDTs).
 * Each file's contents are the table's bytes and its size is the table's
 * length.  Context: (main).
 */
#ifndef VIEWS_ACPI_VIEWS_H
#define VIEWS_ACPI_VIEWS_H

/*
 * acpi_tables_views_init() - create the files.  Call once after vfs_init()
 * and acpi_tables_init().  A file that cannot be created is logged and
 * skipped.
 */
void acpi_tables_views_init(void);

/*
 * acpi_devices_views_init() - /sys/bus/acpi/devices/HID:NN/ for each device
 * of the AML namespace with a _HID (views/sysfs_acpi_devices.c).  Call once
 * after vfs_init() and acpi_aml_init(); nothing without a namespace.
 */
void acpi_devices_views_init(void);

#endif

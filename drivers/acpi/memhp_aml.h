/*
 * memhp_aml.h - memhp.c's DIMM slots through the AML (drivers/acpi/
 * memhp_aml.c): each call evaluates a method of the slot's PNP0C80 device.
 * Context: boot, then main loop.
 */
#ifndef DRIVERS_ACPI_MEMHP_AML_H
#define DRIVERS_ACPI_MEMHP_AML_H

#include <lib/types.h>

#define MEMHP_AML_MAX_SLOTS	256

/* memhp_aml_init() - find the PNP0C80 devices; the number found (0: none,
 * or no namespace: memory hotplug is off). */
unsigned memhp_aml_init(void);
/* memhp_aml_has() - a device has _UID slot. */
bool memhp_aml_has(unsigned slot);
/* memhp_aml_present() - _STA says present. */
bool memhp_aml_present(unsigned slot);
/* memhp_aml_range() - _CRS's memory range and _PXM (0 when absent); 0 or -1. */
int memhp_aml_range(unsigned slot, u64 *base, u64 *size, u32 *pxm);
/* memhp_aml_ost() - the device's _OST(event, status, info): info is the
 * status information (Arg2), a String; "" or NULL for none. */
void memhp_aml_ost(unsigned slot, u32 event, u32 status, const char *info);
void memhp_aml_eject(unsigned slot);
/* memhp_aml_scan() - run the GPE's method once; each Notify(device, value)
 * it made is then handed to event().  Returns how many were handed on. */
unsigned memhp_aml_scan(unsigned gpe, void (*event)(unsigned slot, u64 value));
/* What the evaluations above cost since boot: their time, the opcodes
 * they executed, and their region accesses (port I/O and the like: the
 * part a driver reading the registers itself would also make) with the
 * time those took; ns - io_ns is interpretation. */
struct memhp_aml_cost {
	u64 ns, ops, io, io_ns;
};
/* memhp_aml_spent() - the sums since boot. */
void memhp_aml_spent(struct memhp_aml_cost *out);
/* memhp_aml_scan_began() - ktime_ns() and memhp_aml_spent() when the
 * last memhp_aml_scan()'s method run began (its events see this scan's);
 * 0 and zeroes before the first since memhp_aml_init(). */
void memhp_aml_scan_began(u64 *when_ns, struct memhp_aml_cost *spent);

#endif

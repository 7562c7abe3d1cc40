/*
 * nd_acpi.h - the kernel's glue between the NFIT, the AML namespace and
 * the regions of drivers/nvdimm/nd.c: each region's DIMM asked for a label
 * area through its _DSM (drivers/nvdimm/nd_acpi.c).
 */
#ifndef DRIVERS_ND_ACPI_H
#define DRIVERS_ND_ACPI_H

/*
 * nd_labels_probe() - for each region backed by one DIMM (no interleave):
 * the DIMM's device under ACPI0012 (its _ADR the NFIT handle), _DSM
 * function 4; a label area (ND_LABEL_MAX_AREA at most; ND_ACPI_MAX_AREAS
 * DIMMs) is read whole and attached (nd_attach_labels()).  A DIMM without
 * one (function 4 not supported, size 0) leaves its region label-less;
 * any other refusal is logged with its reason and the region stays
 * label-less.  Context: (boot), after acpi_aml_init() and the regions.
 */
void nd_labels_probe(void);

#define ND_ACPI_MAX_AREAS	2

#endif

/*
 * nd_dsm.h - an NVDIMM's label area through its _DSM, evaluated by the AML
 * interpreter (drivers/nvdimm/nd_dsm.c).
 *
 * The NVDIMM devices are children of the root device ACPI0012; each has
 * _ADR = its NFIT device handle and a _DSM of the Intel NVDIMM DSM
 * interface, UUID 4309ac30-0d11-11e4-9191-0800200c9a66, revision 1:
 *   Arg0 the UUID (16 bytes, ToUUID order), Arg1 1, Arg2 the function,
 *   Arg3 a Package of one Buffer: the input (or an empty Package);
 *   the result a Buffer: a u32 status (0 success, 1 not supported,
 *   2 no such device, 3 invalid input, 4 hardware error, 5 retry,
 *   6 unknown, 7 function specific), then the output.
 *   4 Get Namespace Label Size: out u32 size, u32 max transfer
 *   5 Get Namespace Label Data: in u32 offset, u32 length; out the data
 *   6 Set Namespace Label Data: in u32 offset, u32 length, the data
 * Every reply is checked: a short one, a status other than 0, a label
 * area of size 0 or beyond ND_LABEL_MAX_AREA, a max transfer of 0, each
 * refused with the reason in why.
 *
 * Context: whatever context may run AML (the kernel: boot, the main loop).
 */
#ifndef DRIVERS_ND_DSM_H
#define DRIVERS_ND_DSM_H

#include <drivers/aml.h>

/* The largest transfer memlab asks for, whatever the DIMM allows: what
 * fits QEMU's 4 KiB DSM page with a write's 20 bytes of header. */
#define ND_DSM_MAX_XFER	4076u

/* nd_dsm_find() - the NVDIMM device of NFIT handle `handle` under the
 * ACPI0012 root, or NULL. */
struct aml_node *nd_dsm_find(struct aml_ns *ns, u32 handle);

/* nd_dsm_label_size() - function 4: the label area's size and max
 * transfer (clamped to ND_DSM_MAX_XFER).  -ENODEV (the DIMM has no label
 * area: size 0, or function 4 not supported), -EIO, -EINVAL. */
int nd_dsm_label_size(struct aml_ns *ns, struct aml_node *dev, u32 *size, u32 *xfer,
		      char *why, size_t why_size);

/* nd_dsm_label_read() / _write() - functions 5 and 6 over [off, off + len)
 * in pieces of xfer bytes.  -EIO with the reason on any refused piece
 * (what was written before it stays written). */
int nd_dsm_label_read(struct aml_ns *ns, struct aml_node *dev, u32 off, void *buf, u32 len,
		      u32 xfer, char *why, size_t why_size);
int nd_dsm_label_write(struct aml_ns *ns, struct aml_node *dev, u32 off, const void *buf,
		       u32 len, u32 xfer, char *why, size_t why_size);

#endif

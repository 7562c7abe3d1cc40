/*
 * memhp_qemu.h - QEMU's memory hotplug device (the 24-byte I/O block at
 * 0xa00 that the MHPC methods of QEMU's DSDT use), as a model on the host:
 * MSEL selects a slot; base, size and proximity read back; the status
 * byte's enabled, insert and remove bits; MOEV/MOSC for _OST, MEJ for
 * _EJ0.  Every _OST the methods write is recorded.  The memory hotplug host
 * tests (test_memhp_aml.c) and the interpreter's host benchmark
 * (tests/bench/bench_memhp_aml.c) run QEMU's DSDT against it.
 *
 * The model knows QEMU's registers; the kernel does not (it runs the AML).
 * Context: host, one thread.
 */
#ifndef TESTS_HOST_MEMHP_QEMU_H
#define TESTS_HOST_MEMHP_QEMU_H

#include <drivers/aml.h>

#define MEMHP_QEMU_PORT		0xa00
#define MEMHP_QEMU_SLOTS	8	/* the dimms fixture's MDNR */
#define MEMHP_QEMU_DSDT		"tests/host/fixtures/acpi/dimms/dsdt.dat"

struct qdimm {
	bool present, ins, rmv;
	u64 base, size;
	u32 pxm;
	unsigned ejects;
};

struct memhp_qemu {
	struct qdimm d[MEMHP_QEMU_SLOTS];
	u32 sel;
	u32 ost_ev;
	struct { u32 slot, ev, st, nio; } ost[64];	/* nio: accesses up to it, its own included */
	unsigned nost;
	bool garbage_crs;	/* base/size read back as 0xffffffff */
	bool io_fails;		/* every access to the block is refused */
	unsigned nio;		/* accesses to the block */
};

/* The model's state: the tests set and check it directly. */
extern struct memhp_qemu q;

/* The platform's port and PCI/memory callbacks over the model (other
 * ports, memory and PCI read as nothing); the caller adds time, log,
 * notify and so on. */
void memhp_qemu_platform(struct aml_platform *plat);
/* A DIMM in slot, its insert bit set (QEMU's device_add). */
void memhp_qemu_plug(unsigned slot, u64 base, u64 size);

#endif

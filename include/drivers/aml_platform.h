/*
 * aml_platform.h - everything the AML interpreter needs from its host.
 *
 * The interpreter (drivers/acpi/aml/) is freestanding: it touches no
 * hardware, keeps no globals and allocates only from the arena it is given.
 * Whatever it needs from the machine goes through one struct aml_platform,
 * passed to aml_create() and kept for the life of the namespace.  The kernel
 * fills it in drivers/acpi/aml_kernel.c (port I/O, the direct map and
 * ioremap, the PCI config mechanism, the TSC, printk); the host tests fill it
 * with a fake machine that records every access (tests/host/aml_fake.c).
 *
 * Every callback receives `ctx` first.  A callback left NULL means "not
 * available": the operation fails with a reason (a region access) or does
 * nothing (log, notify, stall).
 *
 * Widths are in bytes.  Values are returned zero-extended.
 *
 * Context: whatever context the caller of aml_eval() is in; the interpreter
 * never calls back from another CPU or an interrupt of its own.
 */
#ifndef DRIVERS_AML_PLATFORM_H
#define DRIVERS_AML_PLATFORM_H

#include <lib/types.h>

struct aml_node;

struct aml_platform {
	void *ctx;		/* handed back to every callback */

	/* SystemIO: port I/O of width 1, 2 or 4.  0 on success. */
	int (*io_read)(void *ctx, u32 port, unsigned width, u64 *val);
	int (*io_write)(void *ctx, u32 port, unsigned width, u64 val);

	/* SystemMemory: physical memory of width 1, 2, 4 or 8, mapped
	 * uncached by the host as it sees fit.  0 on success. */
	int (*mem_read)(void *ctx, u64 phys, unsigned width, u64 *val);
	int (*mem_write)(void *ctx, u64 phys, unsigned width, u64 val);

	/* PCI_Config: width 1, 2 or 4 at offset `off` of seg:bus:dev.fn. */
	int (*pci_read)(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off,
			unsigned width, u64 *val);
	int (*pci_write)(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off,
			 unsigned width, u64 val);

	/* Stall (busy wait) and Sleep, already bounded by the interpreter
	 * (struct aml_limits). */
	void (*stall_us)(void *ctx, u32 us);
	void (*sleep_ms)(void *ctx, u32 ms);

	/* Monotonic nanoseconds, for the wall-time limit and Timer. */
	u64 (*time_ns)(void *ctx);

	/* Monotonic nanoseconds read around each region access, for the
	 * time struct aml_stats says the accesses took (the kernel: the TSC,
	 * as time_ns).  NULL: accesses are counted, not timed. */
	u64 (*io_clock_ns)(void *ctx);

	/* One line of interpreter output, without its newline. */
	void (*log)(void *ctx, const char *line);

	/* Notify(device, value): delivered as it executes. */
	void (*notify)(void *ctx, struct aml_node *node, u64 value);

	/* The firmware global lock, for fields with the Lock rule and
	 * Acquire(\_GL): true once held.  Release with acquire == false. */
	bool (*global_lock)(void *ctx, bool acquire);
};

#endif

/*
 * arch/io.h for the host: port I/O without the instructions.
 *
 * A driver compiled for the host (tests/host/test_acpi.c,
 * tests/fuzz/fuzz_acpi.c) reaches its device registers through the same
 * inb()..outl() names as in the kernel; here every access goes to
 * host_port_in() / host_port_out(), which the test program defines: a
 * model of the device, or a sink that answers with fixed values.
 *
 * Memory-mapped registers likewise: mmio_read32() / mmio_write32() go to
 * host_mmio_read32() / host_mmio_write32(), defined by a test program that
 * compiles such a driver (tests/host/test_apic.c); the pointer is whatever
 * that program's ioremap() returned, plus the register's offset, so the
 * model tells devices and registers apart by address.  The 8- and 16-bit
 * forms go to host_mmio_read8/16() and host_mmio_write8/16() (PCI
 * configuration space through ECAM: tests/host/pci_model.h); a program
 * that never uses them need not define them.
 */
#ifndef ARCH_IO_H
#define ARCH_IO_H

#include <lib/types.h>

/* host_port_in() - the value a `width`-byte (1, 2, 4) read of port gives. */
u32 host_port_in(u16 port, unsigned width);
/* host_port_out() - a `width`-byte write of v to port. */
void host_port_out(u16 port, unsigned width, u32 v);

static inline void outb(u16 port, u8 v) { host_port_out(port, 1, v); }
static inline void outw(u16 port, u16 v) { host_port_out(port, 2, v); }
static inline void outl(u16 port, u32 v) { host_port_out(port, 4, v); }
static inline u8 inb(u16 port) { return (u8)host_port_in(port, 1); }
static inline u16 inw(u16 port) { return (u16)host_port_in(port, 2); }
static inline u32 inl(u16 port) { return host_port_in(port, 4); }
/* host_mmio_read32() - the value a 32-bit read of the register at reg gives. */
u32 host_mmio_read32(const volatile u32 *reg);
/* host_mmio_write32() - a 32-bit write of v to the register at reg. */
void host_mmio_write32(volatile u32 *reg, u32 v);

/* host_mmio_read16/8(), host_mmio_write16/8() - the same for narrower registers. */
u16 host_mmio_read16(const volatile u16 *reg);
void host_mmio_write16(volatile u16 *reg, u16 v);
u8 host_mmio_read8(const volatile u8 *reg);
void host_mmio_write8(volatile u8 *reg, u8 v);

static inline u32 mmio_read32(const volatile u32 *reg) { return host_mmio_read32(reg); }
static inline void mmio_write32(volatile u32 *reg, u32 v) { host_mmio_write32(reg, v); }
static inline u16 mmio_read16(const volatile u16 *reg) { return host_mmio_read16(reg); }
static inline void mmio_write16(volatile u16 *reg, u16 v) { host_mmio_write16(reg, v); }
static inline u8 mmio_read8(const volatile u8 *reg) { return host_mmio_read8(reg); }
static inline void mmio_write8(volatile u8 *reg, u8 v) { host_mmio_write8(reg, v); }
static inline void io_wait(void) { outb(0x80, 0); }

#endif

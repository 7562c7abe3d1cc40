/*
 * arch/io.h for the host: port I/O without the instructions.
 *
 * A driver compiled for the host (tests/host/test_acpi.c,
 * tests/fuzz/fuzz_acpi.c) reaches its device registers through the same
 * inb()..outl() names as in the kernel; here every access goes to
 * host_port_in() / host_port_out(), which the test program defines: a
 * model of the device, or a sink that answers with fixed values.
 */
#ifndef ARCH_IO_H
#define ARCH_IO_H

#include <kernel/types.h>

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
static inline void io_wait(void) { outb(0x80, 0); }

#endif

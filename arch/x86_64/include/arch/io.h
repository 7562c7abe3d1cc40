/*
 * arch/io.h - x86 port I/O, and 32-bit accesses to memory-mapped device
 * registers.
 *
 * Drivers reach device registers only through these names, so that the
 * host tests can compile a driver with tests/host/arch/io.h instead, which
 * sends every access to a model of the device.
 *
 * Context: any.
 */
#ifndef ARCH_IO_H
#define ARCH_IO_H

#include <lib/types.h>

static inline void outb(u16 port, u8 v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outw(u16 port, u16 v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outl(u16 port, u32 v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }

static inline u8 inb(u16 port)
{
	u8 v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u16 inw(u16 port)
{
	u16 v;

	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u32 inl(u16 port)
{
	u32 v;

	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/*
 * mmio_read32() / mmio_write32() - one 32-bit access to a register of a
 * device mapped uncached (ioremap).  Volatile: the compiler neither merges,
 * splits, drops nor reorders it with other device accesses.  The 8- and
 * 16-bit forms are the same for narrower registers (PCI configuration
 * space through ECAM).
 */
static inline u32 mmio_read32(const volatile u32 *reg) { return *reg; }
static inline void mmio_write32(volatile u32 *reg, u32 v) { *reg = v; }
static inline u16 mmio_read16(const volatile u16 *reg) { return *reg; }
static inline void mmio_write16(volatile u16 *reg, u16 v) { *reg = v; }
static inline u8 mmio_read8(const volatile u8 *reg) { return *reg; }
static inline void mmio_write8(volatile u8 *reg, u8 v) { *reg = v; }

/* io_wait() - a short delay for old devices (a write to the unused port 0x80). */
static inline void io_wait(void) { outb(0x80, 0); }

#endif

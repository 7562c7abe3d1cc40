/*
 * arch/io.h - x86 port I/O.
 *
 * Context: any.
 */
#ifndef ARCH_IO_H
#define ARCH_IO_H

#include <kernel/types.h>

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

/* io_wait() - a short delay for old devices (a write to the unused port 0x80). */
static inline void io_wait(void) { outb(0x80, 0); }

#endif

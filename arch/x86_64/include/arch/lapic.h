/*
 * arch/lapic.h - where a local APIC register is, in either of its modes.
 *
 * In xAPIC mode the local APIC's registers are 32-bit MMIO words at the
 * APIC base (ID at +0x20, TPR +0x80, EOI +0xb0, SVR +0xf0, LVT LINT0
 * +0x350).  In x2APIC mode (IA32_APIC_BASE bit 10, set by firmware that
 * hands over that way) the MMIO window is gone and each register is an
 * MSR: 0x800 + (offset >> 4), so EOI is MSR 0x80b.  The ID register then
 * holds the full 32-bit x2APIC id instead of an 8-bit id in bits 24-31.
 * apic.c reaches every register through lapic_reg_loc(), so the choice of
 * path is made in one place, and the host tests check the mapping.
 *
 * An inter-processor interrupt is one write of the interrupt command
 * register (ICR): in xAPIC mode two MMIO words, the destination APIC id in
 * bits 24-31 of ICR high (+0x310) first, then ICR low (+0x300), whose
 * write sends; in x2APIC mode one 64-bit write of MSR 0x830 with the
 * 32-bit destination in bits 32-63.  ICR low holds the vector (bits 0-7),
 * the delivery mode (bits 8-10: 0 fixed, 4 NMI, 5 INIT, 6 start-up), the
 * delivery status (bit 12, xAPIC only: 1 while the IPI is still pending)
 * and the level (bit 14: 1 assert).  lapic_icr() builds the value.
 */
#ifndef ARCH_LAPIC_H
#define ARCH_LAPIC_H

#include <lib/types.h>

#define MSR_APIC_BASE		0x1b
#define APIC_BASE_X2APIC	(1ULL << 10)	/* EXTD: x2APIC mode */
#define APIC_BASE_ENABLE	(1ULL << 11)
#define X2APIC_MSR_BASE		0x800

#define LAPIC_ID		0x20
#define LAPIC_TPR		0x80
#define LAPIC_EOI		0xb0
#define LAPIC_SVR		0xf0
#define LAPIC_ICR_LOW		0x300
#define LAPIC_ICR_HIGH		0x310
#define LAPIC_LVT_LINT0		0x350
#define LAPIC_LVT_MASKED	(1u << 16)

#define ICR_FIXED		(0u << 8)
#define ICR_NMI			(4u << 8)
#define ICR_INIT		(5u << 8)
#define ICR_STARTUP		(6u << 8)
#define ICR_PENDING		(1u << 12)	/* delivery status (xAPIC) */
#define ICR_ASSERT		(1u << 14)

enum lapic_mode {
	LAPIC_XAPIC,		/* MMIO */
	LAPIC_X2APIC,		/* MSRs */
};

/* One register's place: an MSR number (msr true) or an MMIO byte offset. */
struct lapic_reg_loc {
	bool msr;
	u32 index;
};

/* lapic_reg_loc() - where register reg (its xAPIC offset) is in mode. */
static inline struct lapic_reg_loc lapic_reg_loc(enum lapic_mode mode, u32 reg)
{
	if (mode == LAPIC_X2APIC)
		return (struct lapic_reg_loc){ .msr = true, .index = X2APIC_MSR_BASE + (reg >> 4) };
	return (struct lapic_reg_loc){ .msr = false, .index = reg };
}

/* lapic_mode_of() - the mode an IA32_APIC_BASE value says the APIC is in. */
static inline enum lapic_mode lapic_mode_of(u64 apic_base)
{
	return apic_base & APIC_BASE_X2APIC ? LAPIC_X2APIC : LAPIC_XAPIC;
}

/* lapic_id_of() - the APIC id in an ID register value read in mode. */
static inline u32 lapic_id_of(enum lapic_mode mode, u32 id_reg)
{
	return mode == LAPIC_X2APIC ? id_reg : id_reg >> 24;
}

/*
 * lapic_icr() - the ICR value that sends `low` (mode | vector | level) to
 * APIC id dest: in x2APIC mode the whole 64-bit MSR value; in xAPIC mode
 * ICR high in bits 32-63 (dest << 24) and ICR low in bits 0-31.  A
 * start-up IPI's vector is the page number of its real-mode entry
 * (lapic_sipi_vector()).
 */
static inline u64 lapic_icr(enum lapic_mode mode, u32 dest, u32 low)
{
	if (mode == LAPIC_X2APIC)
		return ((u64)dest << 32) | low;
	return ((u64)((dest & 0xff) << 24) << 32) | low;
}

/* lapic_sipi_vector() - the start-up vector of a real-mode entry at phys:
 * its 4 KiB page number; -1 unless phys is page aligned and below 1 MiB. */
static inline int lapic_sipi_vector(u64 phys)
{
	if (phys & 0xfff || phys >= 0x100000)
		return -1;
	return (int)(phys >> 12);
}

#endif

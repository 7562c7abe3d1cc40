/*
 * test_lapic_regs.c - the local APIC's register path (arch/x86_64/include/
 * arch/lapic.h): which MSR or MMIO offset each register is in each mode.
 * QEMU's TCG cannot run the local APIC in x2APIC mode, so this mapping is
 * checked here; apic.c's use of it is checked in test_apic.c.
 */
#include "htest.h"
#include <arch/lapic.h>

/*
 * The register path (arch/lapic.h): in xAPIC mode a register is its MMIO
 * offset; in x2APIC mode MSR 0x800 + offset / 16 (Intel SDM vol. 3,
 * "x2APIC Register Address Space": ID 0x802, TPR 0x808, EOI 0x80b, SVR
 * 0x80f, ICR 0x830, LVT timer 0x832, LINT0 0x835, initial count 0x838).
 * The mode comes from IA32_APIC_BASE bit 10; the ID register holds the id
 * in bits 24-31 (xAPIC) or all 32 bits (x2APIC).
 */
HTEST(apic_x2apic_register_path)
{
	static const struct { u32 reg, msr; } regs[] = {
		{ 0x20, 0x802 }, { 0x30, 0x803 }, { 0x80, 0x808 }, { 0xb0, 0x80b },
		{ 0xf0, 0x80f }, { 0x300, 0x830 }, { 0x320, 0x832 }, { 0x350, 0x835 },
		{ 0x380, 0x838 }, { 0x390, 0x839 }, { 0x3e0, 0x83e },
	};

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		struct lapic_reg_loc x = lapic_reg_loc(LAPIC_X2APIC, regs[i].reg);
		struct lapic_reg_loc m = lapic_reg_loc(LAPIC_XAPIC, regs[i].reg);

		CHECK(x.msr);
		CHECK_EQ(x.index, regs[i].msr);
		CHECK(!m.msr);
		CHECK_EQ(m.index, regs[i].reg);
	}
	CHECK_EQ(lapic_mode_of(0xfee00900), LAPIC_XAPIC);	/* enabled, BSP */
	CHECK_EQ(lapic_mode_of(0xfee00d00), LAPIC_X2APIC);	/* + EXTD */
	CHECK_EQ(lapic_id_of(LAPIC_XAPIC, 3u << 24), 3);
	CHECK_EQ(lapic_id_of(LAPIC_X2APIC, 3), 3);
	CHECK_EQ(lapic_id_of(LAPIC_X2APIC, 0x12345), 0x12345);
}

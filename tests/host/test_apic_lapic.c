/*
 * test_apic_lapic.c - the local APIC side of arch/x86_64/apic.c on the
 * model machine (apic_machine.h): x2APIC mode through MSRs, an x2APIC id
 * that does not fit the I/O APIC, and the local APIC timer's calibration
 * and start.  The MADT-to-I/O-APIC routing is in test_apic.c.
 */
#include "apic_machine.h"

/*
 * Firmware that hands over in x2APIC mode (MSR 0x1b bits 10 and 11 set):
 * apic_init() never touches the MMIO window, programs SVR, TPR and LINT0
 * through MSRs 0x80f, 0x808, 0x835, keeps the mode bit, routes the timer
 * to the x2APIC id (5) in the I/O APIC's destination field, and an EOI is
 * a write of 0 to MSR 0x80b.
 */
HTEST(apic_x2apic_mode_uses_msrs)
{
	char text[256];
	struct buf_printer bp;

	machine_reset();
	boot_cpu.has_x2apic = true;
	apic_base_msr = LAPIC_PHYS | (1 << 8) | (1 << 10) | (1 << 11);
	x2apic_msrs[0x02] = 5;			/* x2APIC id */
	x2apic_msrs[0x0b] = 0xdead;		/* the EOI write must land */
	madt_q35();
	CHECK(apic_machine_init());
	CHECK(apic_enabled());
	CHECK_EQ(lapic_mmio_accesses, 0);
	CHECK(apic_base_msr & (1 << 10));
	CHECK(apic_base_msr & APIC_BASE_ENABLE);
	CHECK_EQ(x2apic_msrs[0x0f], 0x100 | APIC_SPURIOUS_VECTOR);
	CHECK_EQ(x2apic_msrs[0x08], 0);
	CHECK_EQ(x2apic_msrs[0x35], LAPIC_LVT_MASKED);
	CHECK_EQ(route_isa_irq(0), 0);
	CHECK_EQ(models[0].rte[2 * 2], 34);
	CHECK_EQ(models[0].rte[2 * 2 + 1], 5u << 24);
	lapic_eoi();
	CHECK_EQ(x2apic_msrs[0x0b], 0);
	CHECK_EQ(lapic_mmio_accesses, 0);
	buf_printer_init(&bp, text, sizeof(text));
	apic_dump(&bp.p);
	CHECK(strstr(text, "local APIC id 5 (x2APIC mode: registers through MSRs)") != NULL);

	/* and back in xAPIC mode the same calls go to MMIO, never to the MSRs */
	machine_reset();
	madt_q35();
	CHECK(apic_machine_init());
	lapic_eoi();
	CHECK_EQ(x2apic_msr_writes, 0);
	CHECK(lapic_mmio_accesses > 0);
}

/*
 * An x2APIC id above 255 does not fit the I/O APIC's destination byte;
 * without interrupt remapping apic_init() refuses and the 8259s stay
 * (nothing masked, no MSR written).
 */
HTEST(apic_x2apic_id_too_big_keeps_8259s)
{
	machine_reset();
	apic_base_msr = LAPIC_PHYS | (1 << 8) | (1 << 10) | (1 << 11);
	x2apic_msrs[0x02] = 256;
	madt_q35();
	CHECK(!apic_machine_init());
	CHECK(!apic_enabled());
	CHECK_EQ(port_writes, 0);
	CHECK_EQ(x2apic_msr_writes, 0);
	CHECK_EQ(lapic_mmio_accesses, 0);
}

/*
 * The local APIC timer: calibrated against 2 ms of TSC time with divide by
 * 16 (QEMU's 1 GHz bus gives 62500 counts a millisecond), then each CPU's
 * start programs it periodic at LAPIC_TIMER_HZ on LAPIC_TIMER_VECTOR; a
 * timer that does not count gives no tick, and nothing is started; nor is
 * anything without a local APIC in use.
 */
HTEST(apic_local_timer_calibrated_and_started)
{
	machine_reset();
	boot_cpu.tsc_khz = 2000000;
	madt_q35();
	CHECK(apic_machine_init());
	timer_counts_per_ms = 62500;
	printk_set_level(LOG_CRIT);
	CHECK_EQ(lapic_timer_calibrate(), 62500000u / LAPIC_TIMER_HZ);
	printk_set_level(LOG_INFO);
	CHECK_EQ(lapic_timer_hz(), 62500000u);
	CHECK_EQ(lapic_regs[0x380 / 4], 0);		/* stopped after the measurement */
	CHECK(lapic_regs[0x320 / 4] & LAPIC_LVT_MASKED);
	lapic_timer_start();
	CHECK_EQ(lapic_regs[0x3e0 / 4], 0x3);		/* divide by 16 */
	CHECK_EQ(lapic_regs[0x320 / 4], (1u << 17) | LAPIC_TIMER_VECTOR);	/* periodic, unmasked */
	CHECK_EQ(lapic_regs[0x380 / 4], 62500000u / LAPIC_TIMER_HZ);

	/* a timer that never counts down */
	machine_reset();
	boot_cpu.tsc_khz = 2000000;
	madt_q35();
	CHECK(apic_machine_init());
	printk_set_level(LOG_CRIT);
	CHECK_EQ(lapic_timer_calibrate(), 0);
	printk_set_level(LOG_INFO);
	lapic_timer_start();
	CHECK_EQ(lapic_regs[0x380 / 4], 0);
	CHECK_EQ(lapic_regs[0x320 / 4] & LAPIC_LVT_MASKED, LAPIC_LVT_MASKED);
}

HTEST(apic_local_timer_needs_an_apic)
{
	machine_reset();
	boot_cpu.tsc_khz = 2000000;
	timer_counts_per_ms = 62500;
	CHECK(!apic_init(NULL));
	CHECK_EQ(lapic_timer_calibrate(), 0);
	CHECK_EQ(lapic_mmio_accesses, 0);
}

/*
 * test_apic.c - the MADT (drivers/acpi/madt.c) and the APICs
 * (arch/x86_64/apic.c) together: from MADT bytes to I/O APIC redirection
 * entries.  q35's MADT, override polarity and trigger flags, overrides
 * that cannot be right (ISA IRQ above 15, a GSI beyond memlab's vectors
 * or no I/O APIC's), an override onto another IRQ's identity GSI (that
 * IRQ is left without a line), two I/O APICs, the local APIC address
 * override, and MADTs that leave the 8259s in charge.  Each checks what the model
 * devices were told, and that nothing panics.
 *
 * The test parses its MADT with madt_parse() and hands madt_info to
 * apic_init(), as init/main.c does, on the model machine of
 * apic_machine.h; the local APIC's own tests are in test_apic_lapic.c.
 */
#include "apic_machine.h"

/*
 * q35: the timer (IRQ 0) arrives on GSI 2, the SCI (IRQ 9) and the PCI
 * IRQs 5, 10, 11 are level, active-high.  Expect every one of the 24 pins
 * masked by apic_init(), the 8259s masked, the local APIC enabled (MSR
 * and spurious-vector register) with LINT0 masked; then the timer and the
 * serial IRQ 4 routed to vectors 34 and 36 (edge, high), the SCI to 41
 * (level), each to local APIC id 0 and unmasked.
 */
HTEST(apic_q35_madt)
{
	char text[2048];
	struct buf_printer bp;

	machine_reset();
	lapic_regs[LAPIC_ID / 4] = 0;
	madt_q35();
	CHECK(apic_machine_init());
	CHECK(apic_enabled());
	CHECK_EQ(madt_info.nr_cpus, 1);
	CHECK_EQ(madt_info.nr_overrides, 5);
	expect_all_masked(&models[0], 24);
	CHECK_EQ(models[0].stray_writes, 0);
	CHECK_EQ(pic_masks[0], 0xff);
	CHECK_EQ(pic_masks[1], 0xff);
	CHECK(apic_base_msr & APIC_BASE_ENABLE);
	CHECK_EQ(lapic_regs[LAPIC_SVR / 4], 0x100 | APIC_SPURIOUS_VECTOR);
	CHECK_EQ(lapic_regs[LAPIC_TPR / 4], 0);
	CHECK_EQ(lapic_regs[LAPIC_LVT_LINT0 / 4], LAPIC_LVT_MASKED);

	expect_isa_irq(0, 2, false, false);
	expect_isa_irq(4, 4, false, false);
	expect_isa_irq(9, 9, true, false);
	expect_no_line(2, 0);		/* the cascade: GSI 2 is the timer's */
	CHECK_EQ(route_isa_irq(0), 0);
	CHECK_EQ(route_isa_irq(4), 0);
	CHECK_EQ(route_isa_irq(9), 0);
	CHECK_EQ(models[0].rte[2 * 2], 34);
	CHECK_EQ(models[0].rte[2 * 4], 36);
	CHECK_EQ(models[0].rte[2 * 9], 41 | RTE_LEVEL);
	CHECK_EQ(models[0].rte[2 * 2 + 1], 0);
	CHECK_EQ(models[0].rte[2 * 0], RTE_MASKED);	/* GSI 0: nothing */

	lapic_eoi();
	CHECK_EQ(lapic_regs[LAPIC_EOI / 4], 0);
	buf_printer_init(&bp, text, sizeof(text));
	apic_dump(&bp.p);
	CHECK_STREQ(text, "interrupts: local APIC id 0 + I/O APIC; line = GSI, vector = 32 + GSI\n"
			  "  GSI  2 -> vector  34, edge, active-high, 2 interrupts\n"
			  "  GSI  4 -> vector  36, edge, active-high, 4 interrupts\n"
			  "  GSI  9 -> vector  41, level, active-high, 9 interrupts\n"
			  "  ISA IRQ 2: no line, GSI 2 carries IRQ 0 (MADT override)\n");
}

/*
 * Override flags: polarity in bits 0-1 (0 bus default = high for ISA, 1
 * high, 3 low), trigger in bits 2-3 (0 default = edge, 1 edge, 3 level);
 * the reserved values 2 read as the default.  Expect each redirection
 * entry to carry exactly those bits, to local APIC id 3.
 */
HTEST(apic_override_polarity_and_trigger)
{
	static const struct { u8 irq; u16 flags; u32 rte; } cases[] = {
		{ 1, 0x0, 33 },
		{ 3, 0x3, 35 | RTE_ACTIVE_LOW },
		{ 4, 0xf, 36 | RTE_ACTIVE_LOW | RTE_LEVEL },
		{ 5, 0xd, 37 | RTE_LEVEL },
		{ 6, 0x5, 38 },
		{ 7, 0x2, 39 },			/* reserved polarity */
		{ 8, 0x8, 40 },			/* reserved trigger */
		{ 12, 0xc, 44 | RTE_LEVEL },
	};

	machine_reset();
	lapic_regs[LAPIC_ID / 4] = 3u << 24;
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 3, 1);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		madt_override(cases[i].irq, cases[i].irq, cases[i].flags);
	madt_end();
	CHECK(apic_machine_init());
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned gsi = cases[i].irq;

		CHECK_EQ(route_isa_irq(cases[i].irq), 0);
		CHECK_EQ(models[0].rte[2 * gsi], cases[i].rte);
		CHECK_EQ(models[0].rte[2 * gsi + 1], 3u << 24);
	}
}

/*
 * The ACPI SCI's defaults are level, active-low (ACPI: a shareable, level,
 * active-low interrupt), where the ISA defaults are edge, active-high:
 * with no override for its IRQ, and where an override's flags say
 * "conforms", the SCI keeps its own defaults, not the ISA ones; flags that
 * name a polarity or trigger win.  IRQ 9 overridden to GSI 20 with default
 * flags (a firmware that moved the SCI), IRQ 10 to itself as q35 does
 * (0xd: level, high), IRQ 11 edge-high (0x5), IRQ 7 with none.
 */
HTEST(apic_sci_defaults_are_level_active_low)
{
	unsigned gsi;
	bool level, low;

	machine_reset();
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_override(9, 20, 0x0);
	madt_override(10, 10, 0xd);
	madt_override(11, 11, 0x5);
	madt_end();
	CHECK(apic_machine_init());
	apic_irq_to_gsi(9, true, true, &gsi, &level, &low);
	CHECK_EQ(gsi, 20);
	CHECK(level && low);
	apic_irq_to_gsi(10, true, true, &gsi, &level, &low);
	CHECK_EQ(gsi, 10);
	CHECK(level && !low);
	apic_irq_to_gsi(11, true, true, &gsi, &level, &low);
	CHECK_EQ(gsi, 11);
	CHECK(!level && !low);
	apic_irq_to_gsi(7, true, true, &gsi, &level, &low);
	CHECK_EQ(gsi, 7);
	CHECK(level && low);
	/* the same table through the ISA defaults */
	expect_isa_irq(9, 20, false, false);
	expect_isa_irq(7, 7, false, false);
	/* routed as idt.c's irq_register_sci() does: pin 20, level, low */
	apic_irq_to_gsi(9, true, true, &gsi, &level, &low);
	CHECK_EQ(ioapic_route(gsi, IRQ_BASE + gsi, level, low), 0);
	CHECK_EQ(models[0].rte[2 * 20], (IRQ_BASE + 20) | RTE_LEVEL | RTE_ACTIVE_LOW);
}

/*
 * Overrides that collide: a second override for IRQ 9 (to GSI 20), and
 * IRQ 10 sent to GSI 2, which IRQ 0's override already took.  One handler
 * per line, so each later one is dropped with its reason and the first
 * wins: IRQ 9 stays on GSI 9 (level, high), IRQ 10 keeps GSI 10.
 */
HTEST(apic_colliding_overrides_first_wins)
{
	int logs;

	machine_reset();
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_override(0, 2, 0);
	madt_override(9, 9, 0xd);
	madt_override(9, 20, 0xf);
	madt_override(10, 2, 0xd);
	madt_end();
	logs = host_log_count;
	CHECK(apic_machine_init());
	CHECK(host_log_seen("MADT override IRQ 9 -> GSI 20: the IRQ already has an override; ignored",
			    logs));
	CHECK(host_log_seen("MADT override IRQ 10 -> GSI 2: another IRQ already goes to that GSI; ignored",
			    logs));
	CHECK_EQ(madt_info.nr_overrides, 2);
	expect_isa_irq(0, 2, false, false);
	expect_isa_irq(9, 9, true, false);
	expect_isa_irq(10, 10, false, false);
	CHECK_EQ(models[0].stray_writes, 0);
}

/*
 * Overrides that cannot be right, between good ones: ISA IRQ 16 and 200,
 * a GSI no I/O APIC serves (24 pins: GSI 24-31 are nobody's), a GSI
 * beyond memlab's 32 vectors, a GSI far away.  Expect each dropped with
 * its reason, the good ones kept in order and applied, the dropped IRQs
 * on their own GSI, and routing them through the I/O APIC to work.
 */
HTEST(apic_bad_overrides_are_dropped)
{
	int logs;

	machine_reset();
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_override(16, 16, 0);
	madt_override(0, 2, 0);
	madt_override(200, 2, 0xf);
	madt_override(3, 24, 0xf);
	madt_override(9, 9, 0xd);
	madt_override(4, 40, 0);
	madt_override(6, 0xffffffff, 0);
	madt_end();
	logs = host_log_count;
	CHECK(apic_machine_init());
	CHECK(host_log_seen("MADT override IRQ 16 -> GSI 16: not an ISA IRQ; ignored", logs));
	CHECK(host_log_seen("MADT override IRQ 200 -> GSI 2: not an ISA IRQ; ignored", logs));
	CHECK(host_log_seen("MADT override IRQ 3 -> GSI 24: no I/O APIC serves that GSI; ignored",
			    logs));
	CHECK(host_log_seen("MADT override IRQ 4 -> GSI 40: GSI beyond memlab's vectors; ignored",
			    logs));
	CHECK(host_log_seen("MADT override IRQ 6 -> GSI 4294967295: GSI beyond", logs));
	CHECK_EQ(madt_info.nr_overrides, 2);
	CHECK_EQ(madt_info.overrides[0].bus_irq, 0);
	CHECK_EQ(madt_info.overrides[1].bus_irq, 9);

	expect_isa_irq(0, 2, false, false);
	expect_isa_irq(9, 9, true, false);
	expect_isa_irq(3, 3, false, false);
	expect_isa_irq(4, 4, false, false);
	expect_isa_irq(6, 6, false, false);
	for (unsigned irq = 0; irq < 16; irq++)
		CHECK_EQ(route_isa_irq(irq), irq == 2 ? -EBUSY : 0);
	CHECK_EQ(models[0].rte[2 * 2], 34);		/* IRQ 0 */
	CHECK_EQ(models[0].rte[2 * 3], 35);		/* IRQ 3: its own, edge, high */
	CHECK_EQ(models[0].rte[2 * 4], 36);
	CHECK_EQ(models[0].rte[2 * 9], 41 | RTE_LEVEL);
	CHECK_EQ(models[0].stray_writes, 0);
	for (unsigned pin = 16; pin < 24; pin++)
		CHECK_EQ(models[0].rte[2 * pin], RTE_MASKED);
}

/*
 * Two I/O APICs: 16 pins for GSI 0-15, 8 pins for GSI 16-23 at another
 * address.  Expect both masked whole, an override to GSI 18 routed on the
 * second one's pin 2, and a GSI past both refused by ioapic_route()
 * without a write.
 */
HTEST(apic_two_ioapics)
{
	int logs;

	machine_reset();
	models[0].version = 0x000f0020;			/* 16 pins */
	models[1].phys = IOAPIC_PHYS + 0x1000;
	models[1].version = 0x00070020;			/* 8 pins */
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_ioapic(1, (u32)models[1].phys, 16);
	madt_override(5, 18, 0xf);
	madt_end();
	logs = host_log_count;
	CHECK(apic_machine_init());
	CHECK(host_log_seen("; 2 I/O APIC(s), first with 16 pins; 8259s masked", logs));
	expect_all_masked(&models[0], 16);
	expect_all_masked(&models[1], 8);
	CHECK_EQ(models[0].rte[2 * 16], 0xa5a5a5a5);	/* no such pin: untouched */
	CHECK_EQ(route_isa_irq(5), 0);
	CHECK_EQ(models[1].rte[2 * 2], 50 | RTE_LEVEL | RTE_ACTIVE_LOW);
	CHECK_EQ(models[0].rte[2 * 5], RTE_MASKED);
	CHECK_EQ(ioapic_route(24, 56, false, false), -1);
	CHECK_EQ(models[0].stray_writes + models[1].stray_writes, 0);
	CHECK_EQ(ioapic_route(23, 55, false, false), 0);	/* the second one's 8th pin */
	CHECK_EQ(models[1].rte[2 * 7], 55);
}

/*
 * The local APIC address override (type 5, 64 bits) replaces the header's
 * address.  Expect the local APIC programmed at the new address, and the
 * LINT1 NMI entry (type 4) skipped without effect.
 */
HTEST(apic_lapic_address_override)
{
	machine_reset();
	lapic_phys = 0x1fee00000ULL;
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_lapic_nmi();
	madt_lapic_addr_override(0x1fee00000ULL);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_end();
	CHECK(apic_machine_init());
	CHECK_EQ(madt_info.lapic_addr, 0x1fee00000ULL);
	CHECK_EQ(lapic_regs[LAPIC_SVR / 4], 0x100 | APIC_SPURIOUS_VECTOR);
}

/*
 * MADTs that leave the 8259s in charge: none, no I/O APIC, a CPU without
 * an APIC, a local APIC at 0 (address override to 0), an I/O APIC that
 * cannot be mapped, a malformed entry (an override cut to 8 bytes).
 * Expect apic_init() false, the 8259s not masked, no redirection entry
 * written.
 */
HTEST(apic_8259s_stay)
{
	for (unsigned k = 0; k < 6; k++) {
		machine_reset();
		madt_begin(LAPIC_PHYS);
		madt_lapic(0, 0, 1);
		if (k != 1)
			madt_ioapic(0, k == 4 ? IOAPIC_PHYS + 0x1000 : IOAPIC_PHYS, 0);
		if (k == 2)
			boot_cpu.has_apic = false;
		if (k == 3)
			madt_lapic_addr_override(0);
		madt_override(0, 2, 0);
		if (k == 5) {
			static const u8 cut[8] = { 2, 8, 0, 9, 9, 0, 0, 0 };

			madt_entry(cut, sizeof(cut));
		}
		madt_end();
		if (k == 0) {
			free(madt_tab);
			madt_tab = NULL;
		}
		CHECK(!apic_machine_init());
		CHECK(!apic_enabled());
		CHECK_EQ(port_writes, 0);
		CHECK_EQ(models[0].rte[0], 0xa5a5a5a5);
		CHECK(!(apic_base_msr & APIC_BASE_ENABLE));
	}
	free(madt_tab);
	madt_tab = NULL;
}

/*
 * Bug: an I/O APIC entry at an address where nothing answers (reads give
 * all ones) was taken as an I/O APIC with 256 pins: overrides to its GSIs
 * were kept, and with no other I/O APIC the 8259s were masked, every
 * interrupt lost.  Expect it ignored with the reason: alone, the 8259s
 * stay; beside a real one, an override to its GSIs is dropped.
 */
HTEST(apic_ioapic_that_does_not_answer_is_ignored)
{
	int logs;

	machine_reset();
	models[0].all_ones = true;
	madt_q35();
	logs = host_log_count;
	CHECK(!apic_machine_init());
	CHECK(!apic_enabled());
	CHECK_EQ(port_writes, 0);
	CHECK(host_log_seen("apic: no I/O APIC answers at 0xfec00000 (id 0, GSI base 0); ignored",
			    logs));

	machine_reset();
	models[1].phys = IOAPIC_PHYS + 0x1000;
	models[1].all_ones = true;
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_ioapic(1, (u32)models[1].phys, 24);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_override(3, 25, 0);
	madt_override(0, 2, 0);
	madt_end();
	logs = host_log_count;
	CHECK(apic_machine_init());
	CHECK(host_log_seen("; 1 I/O APIC(s), first with 24 pins; 8259s masked", logs));
	CHECK_EQ(madt_info.nr_overrides, 1);
	expect_isa_irq(3, 3, false, false);
	CHECK_EQ(route_isa_irq(3), 0);
	CHECK_EQ(models[0].rte[2 * 3], 35);
	free(madt_tab);
	madt_tab = NULL;
}

/*
 * lines_distinct() - every ISA IRQ that has a line has its own: no two
 * IRQs map to one GSI (one handler per line).
 */
static bool lines_distinct(void)
{
	unsigned owner[NR_IRQ_LINES];

	for (unsigned g = 0; g < NR_IRQ_LINES; g++)
		owner[g] = ~0u;
	for (unsigned irq = 0; irq < 16; irq++) {
		unsigned gsi;
		bool level, low;

		if (apic_isa_irq_to_gsi(irq, &gsi, &level, &low))
			continue;
		if (gsi >= NR_IRQ_LINES || owner[gsi] != ~0u) {
			printf("  IRQ %u -> GSI %u, which IRQ %u has\n", irq, gsi,
			       gsi < NR_IRQ_LINES ? owner[gsi] : ~0u);
			return false;
		}
		owner[gsi] = irq;
	}
	return true;
}

/*
 * An override onto another IRQ's identity GSI: IRQ 9 -> GSI 4 (level,
 * high), and IRQ 4 has no override, so by identity it would be on GSI 4
 * too.  The override names the wire; the identity mapping is a default.
 * Expect the override kept, IRQ 9 on GSI 4, IRQ 4 (and IRQ 2, displaced by
 * IRQ 0 -> GSI 2) without a line, each said in the log, no two IRQs on one
 * GSI, routing IRQ 4 refused without touching GSI 4's entry (IRQ 9's), and
 * the dump naming both.  GSI 9, IRQ 9's own, carries nothing.
 */
HTEST(apic_override_onto_an_identity_gsi_takes_it)
{
	char text[2048];
	struct buf_printer bp;
	int logs;

	machine_reset();
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_override(0, 2, 0);
	madt_override(9, 4, 0xd);
	madt_end();
	logs = host_log_count;
	CHECK(apic_machine_init());
	CHECK_EQ(madt_info.nr_overrides, 2);
	CHECK(host_log_seen("apic: ISA IRQ 4 has no line of its own: the MADT's override sends IRQ 9 to GSI 4; IRQ 4 is not routed",
			    logs));
	CHECK(host_log_seen("apic: ISA IRQ 2 has no line of its own: the MADT's override sends IRQ 0 to GSI 2",
			    logs));
	expect_isa_irq(9, 4, true, false);
	expect_isa_irq(0, 2, false, false);
	expect_isa_irq(3, 3, false, false);
	expect_no_line(4, 9);
	expect_no_line(2, 0);
	CHECK_EQ(apic_gsi_owner(9), -1);
	CHECK(lines_distinct());
	CHECK_EQ(route_isa_irq(9), 0);
	CHECK_EQ(route_isa_irq(4), -EBUSY);
	CHECK_EQ(models[0].rte[2 * 4], 36 | RTE_LEVEL);
	CHECK_EQ(models[0].rte[2 * 9], RTE_MASKED);
	buf_printer_init(&bp, text, sizeof(text));
	apic_dump(&bp.p);
	CHECK(strstr(text, "  ISA IRQ 2: no line, GSI 2 carries IRQ 0 (MADT override)\n") != NULL);
	CHECK(strstr(text, "  ISA IRQ 4: no line, GSI 4 carries IRQ 9 (MADT override)\n") != NULL);
	CHECK(strstr(text, "  GSI  4 -> vector  36, level, active-high, 4 interrupts\n") != NULL);
}

/*
 * The same override, IRQ 9 -> GSI 4, where IRQ 4 has an override of its
 * own (to GSI 20): GSI 4 is nobody else's, so every IRQ keeps a line.
 * Then a swap, IRQ 3 -> GSI 4 and IRQ 4 -> GSI 3: both fine.  And the SCI's
 * view: with IRQ 5 -> GSI 9 and the SCI on IRQ 9 without an override, the
 * SCI has no line either.
 */
HTEST(apic_identity_gsi_free_when_its_irq_is_overridden_too)
{
	unsigned gsi;
	bool level, low;
	int logs;

	machine_reset();
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_override(9, 4, 0xd);
	madt_override(4, 20, 0);
	madt_end();
	logs = host_log_count;
	CHECK(apic_machine_init());
	CHECK(!host_log_seen("has no line", logs));
	expect_isa_irq(9, 4, true, false);
	expect_isa_irq(4, 20, false, false);
	CHECK(lines_distinct());

	machine_reset();
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_override(3, 4, 0);
	madt_override(4, 3, 0);
	madt_end();
	CHECK(apic_machine_init());
	expect_isa_irq(3, 4, false, false);
	expect_isa_irq(4, 3, false, false);
	CHECK(lines_distinct());

	machine_reset();
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_override(5, 9, 0xd);
	madt_end();
	CHECK(apic_machine_init());
	CHECK_EQ(apic_irq_to_gsi(9, true, true, &gsi, &level, &low), -EBUSY);
	CHECK_EQ(gsi, 9);
	CHECK_EQ(apic_gsi_owner(9), 5);
	CHECK(lines_distinct());
}

/* ---- x2APIC mode ------------------------------------------------------------ */

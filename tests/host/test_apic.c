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
 * The suite `apic` links the real madt.c and apic.c with the fakes below.
 * The test parses its MADT with madt_parse() and hands madt_info to
 * apic_init(), as init/main.c does.  acpi_find_table() returns the test's
 * MADT in a heap buffer of exactly its length (ASan).  ioremap() returns
 * windows of the model devices below; their registers are reached only
 * through mmio_read32/mmio_write32 (tests/host/arch/io.h), which come here:
 *  - local APIC: 1 KiB of plain registers, ID at 0x20;
 *  - I/O APIC: the index register at +0x00 selects, the window at +0x10
 *    reads or writes the selected register: 0x00 id, 0x01 version (max
 *    redirection entry in bits 16-23, read-only), 0x10 + 2 pin / + 1 the
 *    low / high half of pin's redirection entry.  A write elsewhere is
 *    counted as a stray write.
 * The 8259 ports and the APIC base MSR are recorded too.  The register
 * numbers and bits below are the hardware's (Intel SDM, 82093AA).
 */
#include "htest.h"
#include <drivers/acpi.h>
#include <arch/traps.h>
#include <arch/cpu.h>
#include <arch/io.h>
#include <arch/paging.h>
#include <arch/lapic.h>
#include <lib/printk.h>
#include <lib/errno.h>
#include "platform_stub.h"

#define RTE_ACTIVE_LOW		(1u << 13)
#define RTE_LEVEL		(1u << 15)
#define RTE_MASKED		(1u << 16)

#include <stdlib.h>

#define LAPIC_PHYS	0xfee00000ULL
#define IOAPIC_PHYS	0xfec00000ULL
#define MAX_PINS	256
#define NR_MODEL_IOAPICS 3

struct ioapic_model {
	u64 phys;			/* where the MADT may say it is; 0: absent */
	u32 window[8];			/* the mapped 0x20 bytes (addresses only) */
	u32 index;			/* the selected register */
	u32 id;				/* register 0x00 */
	u32 version;			/* register 0x01 */
	u32 rte[2 * MAX_PINS];		/* registers 0x10... */
	unsigned stray_writes;		/* to registers that do not exist */
	bool all_ones;			/* nothing answers: every read gives ~0 */
};

static u8 *madt_tab;			/* what acpi_find_table("APIC") gives */
static u32 lapic_regs[0x400 / 4];	/* the local APIC's registers */
static u64 lapic_phys;			/* where the model local APIC is */
static struct ioapic_model models[NR_MODEL_IOAPICS];
static u64 apic_base_msr;		/* MSR 0x1b */
static u32 x2apic_msrs[0x100];		/* MSRs 0x800-0x8ff: x2APIC mode registers */
static unsigned x2apic_msr_writes;	/* to 0x800-0x8ff */
u64 host_rdtsc(void) { static u64 tsc; return tsc += 1000; }	/* apic.c's IPI wait */
static unsigned lapic_mmio_accesses;	/* to the local APIC's MMIO window */
static u8 pic_masks[2];			/* last writes to ports 0x21, 0xa1 */
static unsigned port_writes;		/* host_port_out() calls */

struct cpu_info boot_cpu;

const struct acpi_sdt_header *acpi_find_table(const char *sig, unsigned n)
{
	return !n && !memcmp(sig, "APIC", 4) ? (const void *)madt_tab : NULL;
}

void *ioremap(phys_addr_t phys, u64 size, enum ioremap_cache cache)
{
	CHECK_EQ(cache, IOREMAP_UC);
	if (phys == lapic_phys && size <= sizeof(lapic_regs))
		return lapic_regs;
	for (unsigned i = 0; i < NR_MODEL_IOAPICS; i++)
		if (models[i].phys && phys == models[i].phys && size <= sizeof(models[i].window))
			return models[i].window;
	return NULL;
}

static struct ioapic_model *model_of(const volatile u32 *reg, unsigned *off)
{
	for (unsigned i = 0; i < NR_MODEL_IOAPICS; i++)
		if (reg >= models[i].window && reg < models[i].window + 8) {
			*off = (unsigned)(reg - models[i].window) * 4;
			return &models[i];
		}
	return NULL;
}

u32 host_mmio_read32(const volatile u32 *reg)
{
	struct ioapic_model *m;
	unsigned off, pins;

	if (reg >= lapic_regs && reg < lapic_regs + sizeof(lapic_regs) / 4) {
		lapic_mmio_accesses++;
		return lapic_regs[reg - lapic_regs];
	}
	m = model_of(reg, &off);
	CHECK(m != NULL);
	if (!m || m->all_ones)
		return ~0u;
	if (off == 0x00)
		return m->index;
	CHECK_EQ(off, 0x10);
	pins = ((m->version >> 16) & 0xff) + 1;
	if (m->index == 0x00)
		return m->id;
	if (m->index == 0x01)
		return m->version;
	if (m->index >= 0x10 && m->index < 0x10 + 2 * pins)
		return m->rte[m->index - 0x10];
	return 0;
}

void host_mmio_write32(volatile u32 *reg, u32 v)
{
	struct ioapic_model *m;
	unsigned off, pins;

	if (reg >= lapic_regs && reg < lapic_regs + sizeof(lapic_regs) / 4) {
		lapic_mmio_accesses++;
		lapic_regs[reg - lapic_regs] = v;
		return;
	}
	m = model_of(reg, &off);
	CHECK(m != NULL);
	if (!m || m->all_ones)
		return;
	if (off == 0x00) {
		m->index = v;
		return;
	}
	CHECK_EQ(off, 0x10);
	pins = ((m->version >> 16) & 0xff) + 1;
	if (m->index == 0x00)
		m->id = v;
	else if (m->index >= 0x10 && m->index < 0x10 + 2 * pins)
		m->rte[m->index - 0x10] = v;
	else
		m->stray_writes++;
}

/* MSR 0x1b, and in x2APIC mode (bit 10 of it) the registers 0x800-0x8ff. */
u64 host_rdmsr(u32 msr)
{
	if (msr >= 0x800 && msr < 0x900) {
		CHECK(apic_base_msr & (1 << 10));	/* #GP outside x2APIC mode */
		return x2apic_msrs[msr - 0x800];
	}
	CHECK_EQ(msr, MSR_APIC_BASE);
	return apic_base_msr;
}

void host_wrmsr(u32 msr, u64 v)
{
	if (msr >= 0x800 && msr < 0x900) {
		CHECK(apic_base_msr & (1 << 10));
		CHECK(msr != 0x80b || v == 0);		/* EOI: only 0 is allowed */
		x2apic_msrs[msr - 0x800] = (u32)v;
		x2apic_msr_writes++;
		return;
	}
	CHECK_EQ(msr, MSR_APIC_BASE);
	/* the mode bit cannot be cleared while the APIC stays enabled */
	CHECK(!(apic_base_msr & (1 << 10)) || (v & (1 << 10)));
	apic_base_msr = v;
}

u32 host_port_in(u16 port, unsigned width) { return 0; }

void host_port_out(u16 port, unsigned width, u32 v)
{
	port_writes++;
	CHECK(port == 0x21 || port == 0xa1);
	pic_masks[port == 0xa1] = (u8)v;
}

u64 irq_count(unsigned irq) { return irq; }

/* ---- MADT images ----------------------------------------------------------- */

static u8 scratch[1024];
static u32 madt_len;

/* Start a MADT: local APIC at lapic, PCAT_COMPAT (8259s present). */
static void madt_begin(u32 lapic)
{
	u32 pcat = 1;

	memset(scratch, 0, sizeof(scratch));
	memcpy(scratch, "APIC", 4);
	scratch[8] = 3;
	memcpy(scratch + 36, &lapic, 4);
	memcpy(scratch + 40, &pcat, 4);
	madt_len = 44;
}

static void madt_entry(const u8 *e, u8 len)
{
	memcpy(scratch + madt_len, e, len);
	madt_len += len;
}

static void madt_lapic(u8 cpu, u8 apic_id, u32 flags)
{
	u8 e[8] = { 0, 8, cpu, apic_id };

	memcpy(e + 4, &flags, 4);
	madt_entry(e, sizeof(e));
}

static void madt_ioapic(u8 id, u32 addr, u32 gsi_base)
{
	u8 e[12] = { 1, 12, id, 0 };

	memcpy(e + 4, &addr, 4);
	memcpy(e + 8, &gsi_base, 4);
	madt_entry(e, sizeof(e));
}

static void madt_override(u8 irq, u32 gsi, u16 flags)
{
	u8 e[10] = { 2, 10, 0, irq };

	memcpy(e + 4, &gsi, 4);
	memcpy(e + 8, &flags, 2);
	madt_entry(e, sizeof(e));
}

/* Local APIC NMI: LINT1 of every processor (0xff), as QEMU gives it. */
static void madt_lapic_nmi(void)
{
	static const u8 e[6] = { 4, 6, 0xff, 0, 0, 1 };

	madt_entry(e, sizeof(e));
}

static void madt_lapic_addr_override(u64 addr)
{
	u8 e[12] = { 5, 12 };

	memcpy(e + 4, &addr, 8);
	madt_entry(e, sizeof(e));
}

/* Finish the MADT into an exact heap buffer. */
static void madt_end(void)
{
	memcpy(scratch + 4, &madt_len, 4);
	free(madt_tab);
	madt_tab = malloc(madt_len);
	memcpy(madt_tab, scratch, madt_len);
}

/* The machine before apic_init(): a CPU with an APIC, a local APIC with id
 * 0 at LAPIC_PHYS, I/O APIC 0 (24 pins, QEMU's version 0x11) at IOAPIC_PHYS,
 * every redirection entry garbage; apic.c's state as at boot. */
static void machine_reset(void)
{
	memset(&boot_cpu, 0, sizeof(boot_cpu));
	boot_cpu.has_apic = true;
	memset(lapic_regs, 0, sizeof(lapic_regs));
	lapic_phys = LAPIC_PHYS;
	memset(models, 0, sizeof(models));
	models[0].phys = IOAPIC_PHYS;
	models[0].version = 0x00170011;
	for (unsigned i = 0; i < NR_MODEL_IOAPICS; i++)
		memset(models[i].rte, 0xa5, sizeof(models[i].rte));
	apic_base_msr = LAPIC_PHYS | (1 << 8);	/* BSP, not yet enabled */
	memset(x2apic_msrs, 0, sizeof(x2apic_msrs));
	x2apic_msr_writes = 0;
	lapic_mmio_accesses = 0;
	pic_masks[0] = pic_masks[1] = 0;
	port_writes = 0;
}

static bool init(void)
{
	bool ok;

	printk_set_level(LOG_CRIT);
	ok = apic_init(madt_parse() ? &madt_info : NULL);
	printk_set_level(LOG_INFO);
	return ok;
}

/* What irq_register(irq) does through the I/O APIC (arch/x86_64/idt.c). */
static int route_isa_irq(unsigned irq)
{
	unsigned gsi;
	bool level, low;

	if (apic_isa_irq_to_gsi(irq, &gsi, &level, &low))
		return -EBUSY;
	CHECK(gsi < NR_IRQ_LINES);
	return ioapic_route(gsi, IRQ_BASE + gsi, level, low);
}

static void expect_all_masked(const struct ioapic_model *m, unsigned pins)
{
	for (unsigned pin = 0; pin < pins; pin++)
		if (m->rte[2 * pin] != RTE_MASKED) {
			CHECK_EQ(pin, ~0u);	/* names the pin in the report */
			CHECK_EQ(m->rte[2 * pin], RTE_MASKED);
			return;
		}
}

/* expect_no_line() - ISA IRQ irq has no line: its GSI (irq) carries `owner`. */
static void expect_no_line(unsigned irq, unsigned owner)
{
	unsigned g;
	bool l, a;

	CHECK_EQ(apic_isa_irq_to_gsi(irq, &g, &l, &a), -EBUSY);
	CHECK_EQ(g, irq);
	CHECK_EQ(apic_gsi_owner(irq), owner);
}

static void expect_isa_irq(unsigned irq, unsigned gsi, bool level, bool active_low)
{
	unsigned g;
	bool l, a;

	CHECK_EQ(apic_isa_irq_to_gsi(irq, &g, &l, &a), 0);
	CHECK_EQ(g, gsi);
	CHECK_EQ(l, level);
	CHECK_EQ(a, active_low);
}

/* QEMU q35's MADT for one CPU. */
static void madt_q35(void)
{
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_override(0, 2, 0);
	madt_override(5, 5, 0xd);
	madt_override(9, 9, 0xd);
	madt_override(10, 10, 0xd);
	madt_override(11, 11, 0xd);
	madt_lapic_nmi();
	madt_end();
}

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
	CHECK(init());
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
	CHECK(init());
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
	CHECK(init());
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
	CHECK(init());
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
	CHECK(init());
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
	CHECK(init());
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
	CHECK(init());
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
		CHECK(!init());
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
	CHECK(!init());
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
	CHECK(init());
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
	CHECK(init());
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
	CHECK(init());
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
	CHECK(init());
	expect_isa_irq(3, 4, false, false);
	expect_isa_irq(4, 3, false, false);
	CHECK(lines_distinct());

	machine_reset();
	madt_begin(LAPIC_PHYS);
	madt_lapic(0, 0, 1);
	madt_ioapic(0, IOAPIC_PHYS, 0);
	madt_override(5, 9, 0xd);
	madt_end();
	CHECK(init());
	CHECK_EQ(apic_irq_to_gsi(9, true, true, &gsi, &level, &low), -EBUSY);
	CHECK_EQ(gsi, 9);
	CHECK_EQ(apic_gsi_owner(9), 5);
	CHECK(lines_distinct());
}

/* ---- x2APIC mode ------------------------------------------------------------ */


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
	CHECK(init());
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
	CHECK(init());
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
	CHECK(!init());
	CHECK(!apic_enabled());
	CHECK_EQ(port_writes, 0);
	CHECK_EQ(x2apic_msr_writes, 0);
	CHECK_EQ(lapic_mmio_accesses, 0);
}

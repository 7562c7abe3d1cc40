/*
 * apic_machine.c - the model machine of the `apic` suite (test_apic.c,
 * test_apic_lapic.c): the MADT images a test builds, and the devices the
 * real madt.c and apic.c drive, reached through the host's MMIO, MSR and
 * port hooks (tests/host/arch/io.h).  What each model does is described in
 * apic_machine.h.
 */
#include "apic_machine.h"
#include <stdlib.h>

u8 *madt_tab;			/* what acpi_find_table("APIC") gives */
u32 lapic_regs[0x400 / 4];	/* the local APIC's registers */
u64 lapic_phys;			/* where the model local APIC is */
struct ioapic_model models[NR_MODEL_IOAPICS];
u64 apic_base_msr;		/* MSR 0x1b */
u32 x2apic_msrs[0x100];		/* MSRs 0x800-0x8ff: x2APIC mode registers */
unsigned x2apic_msr_writes;	/* to 0x800-0x8ff */
u64 host_rdtsc(void) { static u64 tsc; return tsc += 1000; }	/* apic.c's IPI wait */
/* The local APIC timer model: udelay(us) lets a counting timer (initial
 * count set) run down by timer_counts_per_ms per millisecond, in MMIO or
 * x2APIC registers alike. */
u32 timer_counts_per_ms;
void udelay(u64 usecs)
{
	u32 *init = &lapic_regs[0x380 / 4], *cur = &lapic_regs[0x390 / 4];
	u64 ran = usecs * timer_counts_per_ms / 1000;

	if (*init)
		*cur = *init > ran ? (u32)(*init - ran) : 0;
}
unsigned lapic_mmio_accesses;	/* to the local APIC's MMIO window */
u8 pic_masks[2];			/* last writes to ports 0x21, 0xa1 */
unsigned port_writes;		/* host_port_out() calls */

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
void madt_begin(u32 lapic)
{
	u32 pcat = 1;

	memset(scratch, 0, sizeof(scratch));
	memcpy(scratch, "APIC", 4);
	scratch[8] = 3;
	memcpy(scratch + 36, &lapic, 4);
	memcpy(scratch + 40, &pcat, 4);
	madt_len = 44;
}

void madt_entry(const u8 *e, u8 len)
{
	memcpy(scratch + madt_len, e, len);
	madt_len += len;
}

void madt_lapic(u8 cpu, u8 apic_id, u32 flags)
{
	u8 e[8] = { 0, 8, cpu, apic_id };

	memcpy(e + 4, &flags, 4);
	madt_entry(e, sizeof(e));
}

void madt_ioapic(u8 id, u32 addr, u32 gsi_base)
{
	u8 e[12] = { 1, 12, id, 0 };

	memcpy(e + 4, &addr, 4);
	memcpy(e + 8, &gsi_base, 4);
	madt_entry(e, sizeof(e));
}

void madt_override(u8 irq, u32 gsi, u16 flags)
{
	u8 e[10] = { 2, 10, 0, irq };

	memcpy(e + 4, &gsi, 4);
	memcpy(e + 8, &flags, 2);
	madt_entry(e, sizeof(e));
}

/* Local APIC NMI: LINT1 of every processor (0xff), as QEMU gives it. */
void madt_lapic_nmi(void)
{
	static const u8 e[6] = { 4, 6, 0xff, 0, 0, 1 };

	madt_entry(e, sizeof(e));
}

void madt_lapic_addr_override(u64 addr)
{
	u8 e[12] = { 5, 12 };

	memcpy(e + 4, &addr, 8);
	madt_entry(e, sizeof(e));
}

/* Finish the MADT into an exact heap buffer. */
void madt_end(void)
{
	memcpy(scratch + 4, &madt_len, 4);
	free(madt_tab);
	madt_tab = malloc(madt_len);
	memcpy(madt_tab, scratch, madt_len);
}

/* The machine before apic_init(): a CPU with an APIC, a local APIC with id
 * 0 at LAPIC_PHYS, I/O APIC 0 (24 pins, QEMU's version 0x11) at IOAPIC_PHYS,
 * every redirection entry garbage; apic.c's state as at boot. */
void machine_reset(void)
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
	timer_counts_per_ms = 0;
}

bool apic_machine_init(void)
{
	bool ok;

	printk_set_level(LOG_CRIT);
	ok = apic_init(madt_parse() ? &madt_info : NULL);
	printk_set_level(LOG_INFO);
	return ok;
}

/* What irq_register(irq) does through the I/O APIC (arch/x86_64/idt.c). */
int route_isa_irq(unsigned irq)
{
	unsigned gsi;
	bool level, low;

	if (apic_isa_irq_to_gsi(irq, &gsi, &level, &low))
		return -EBUSY;
	CHECK(gsi < NR_IRQ_LINES);
	return ioapic_route(gsi, IRQ_BASE + gsi, level, low);
}

void expect_all_masked(const struct ioapic_model *m, unsigned pins)
{
	for (unsigned pin = 0; pin < pins; pin++)
		if (m->rte[2 * pin] != RTE_MASKED) {
			CHECK_EQ(pin, ~0u);	/* names the pin in the report */
			CHECK_EQ(m->rte[2 * pin], RTE_MASKED);
			return;
		}
}

/* expect_no_line() - ISA IRQ irq has no line: its GSI (irq) carries `owner`. */
void expect_no_line(unsigned irq, unsigned owner)
{
	unsigned g;
	bool l, a;

	CHECK_EQ(apic_isa_irq_to_gsi(irq, &g, &l, &a), -EBUSY);
	CHECK_EQ(g, irq);
	CHECK_EQ(apic_gsi_owner(irq), owner);
}

void expect_isa_irq(unsigned irq, unsigned gsi, bool level, bool active_low)
{
	unsigned g;
	bool l, a;

	CHECK_EQ(apic_isa_irq_to_gsi(irq, &g, &l, &a), 0);
	CHECK_EQ(g, gsi);
	CHECK_EQ(l, level);
	CHECK_EQ(a, active_low);
}

/* QEMU q35's MADT for one CPU. */
void madt_q35(void)
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


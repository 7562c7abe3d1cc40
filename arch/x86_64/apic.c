/*
 * apic.c - the local APIC and the I/O APIC.
 *
 * The 8259s can deliver only ISA IRQs 0-15, edge-triggered unless the
 * chipset is told otherwise.  The I/O APIC takes every global system
 * interrupt (GSI) line, level or edge, either polarity, and sends it as a
 * vector to a local APIC, which the CPU acknowledges with an EOI write.
 * When the firmware describes an I/O APIC (the ACPI driver's MADT parse,
 * handed over by init/main.c as a struct irq_topology), apic_init() masks
 * the 8259s and routes everything through the APICs: ISA IRQ n goes to the
 * GSI the overrides say (with their polarity and trigger), each GSI g to
 * vector 32 + g.
 *
 * The local APIC's registers are memory-mapped (uncached, through
 * ioremap) at the MADT's address (EOI at +0xb0, spurious-vector register
 * +0xf0) in xAPIC mode, or MSRs (0x800 + offset / 16; EOI 0x80b) when the
 * firmware handed over in x2APIC mode (IA32_APIC_BASE bit 10): lapic_read()
 * and lapic_write() pick the path (arch/lapic.h).  memlab never switches
 * modes itself.  The I/O APIC is an index/data pair (+0x00 select, +0x10
 * window) whose redirection entry for pin p is registers 0x10 + 2p (low)
 * and 0x11 + 2p; its destination field holds an 8-bit APIC id, so in
 * x2APIC mode a boot CPU whose id is above 255 (which needs interrupt
 * remapping, not done here) leaves the 8259s in charge.
 *
 * Context: apic_init (boot); eoi (interrupt).
 */
#include <arch/traps.h>
#include <arch/cpu.h>
#include <arch/io.h>
#include <arch/paging.h>
#include <arch/lapic.h>
#include <arch/time.h>
#include <lib/printk.h>
#include <lib/errno.h>

#define IOAPIC_VER		0x01
#define IOAPIC_REDTBL(pin)	(0x10 + 2 * (pin))
#define RTE_ACTIVE_LOW		(1u << 13)
#define RTE_LEVEL		(1u << 15)
#define RTE_MASKED		(1u << 16)

struct ioapic {
	volatile u32 *regs;	/* mapped registers */
	u32 gsi_base;		/* first GSI */
	u32 nr_pins;		/* redirection entries */
	u8 id;			/* from the MADT */
};

static volatile u32 *lapic;		/* xAPIC mode: the mapped registers */
static enum lapic_mode lapic_mode;
static struct ioapic ioapics[APIC_MAX_IOAPICS];
static struct irq_topology no_topology;
static struct irq_topology *topo = &no_topology;	/* apic_init()'s, overrides kept */
static unsigned nr_ioapics;
static bool enabled;

/* Local APIC register reg (its xAPIC offset), through the mode's path. */
static u32 lapic_read(u32 reg)
{
	struct lapic_reg_loc loc = lapic_reg_loc(lapic_mode, reg);

	return loc.msr ? (u32)rdmsr(loc.index) : mmio_read32(&lapic[loc.index / 4]);
}

static void lapic_write(u32 reg, u32 v)
{
	struct lapic_reg_loc loc = lapic_reg_loc(lapic_mode, reg);

	if (loc.msr)
		wrmsr(loc.index, v);
	else
		mmio_write32(&lapic[loc.index / 4], v);
}

/* This CPU's APIC id, in either mode. */
static u32 lapic_id(void)
{
	return lapic_id_of(lapic_mode, lapic_read(LAPIC_ID));
}

static u32 ioapic_read(struct ioapic *io, u32 reg)
{
	mmio_write32(&io->regs[0], reg);
	return mmio_read32(&io->regs[4]);
}

static void ioapic_write(struct ioapic *io, u32 reg, u32 v)
{
	mmio_write32(&io->regs[0], reg);
	mmio_write32(&io->regs[4], v);
}

/*
 * lapic_send_ipi() - see traps.h.  In x2APIC mode the write is the
 * sending; xAPIC mode writes the destination first, then the low word.
 */
int lapic_send_ipi(u32 dest, u32 low)
{
	u64 icr = lapic_icr(lapic_mode, dest, low);

	if (lapic_mode == LAPIC_X2APIC) {
		wrmsr(lapic_reg_loc(lapic_mode, LAPIC_ICR_LOW).index, icr);
		return 0;
	}
	lapic_write(LAPIC_ICR_HIGH, (u32)(icr >> 32));
	lapic_write(LAPIC_ICR_LOW, (u32)icr);
	for (u64 start = rdtsc(), limit = 10 * (boot_cpu.tsc_khz ? boot_cpu.tsc_khz : 1000000);
	     lapic_read(LAPIC_ICR_LOW) & ICR_PENDING;)
		if (rdtsc() - start > limit)
			return -ETIMEDOUT;
	return 0;
}

bool lapic_x2apic(void)
{
	return lapic_mode == LAPIC_X2APIC;
}

u32 lapic_cpu_id(void)
{
	return lapic_id();
}

/*
 * lapic_ap_setup() - see traps.h.  After INIT an AP's APIC is enabled in
 * xAPIC mode (its MMIO window at the same address as every other CPU's:
 * each CPU sees its own APIC there), so lapic_read() and lapic_write()
 * serve it as they serve the boot CPU once the mode matches.
 */
bool lapic_ap_setup(void)
{
	u32 a, b, c, d;
	u64 base = rdmsr(MSR_APIC_BASE) | APIC_BASE_ENABLE;

	cpuid_count(1, 0, &a, &b, &c, &d);
	if (lapic_mode == LAPIC_X2APIC && (c & (1u << 21)))
		base |= APIC_BASE_X2APIC;	/* xAPIC -> x2APIC: set EXTD with EN */
	wrmsr(MSR_APIC_BASE, base);
	lapic_write(LAPIC_SVR, 0x100 | APIC_SPURIOUS_VECTOR);
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_LVT_LINT0, LAPIC_LVT_MASKED);
	return lapic_mode_of(rdmsr(MSR_APIC_BASE)) == LAPIC_X2APIC;
}

bool apic_enabled(void)
{
	return enabled;
}

/* ---- the local APIC timer -------------------------------------------------- */

#define LAPIC_LVT_TIMER		0x320
#define LAPIC_TIMER_INIT	0x380
#define LAPIC_TIMER_CUR		0x390
#define LAPIC_TIMER_DIV		0x3e0
#define LVT_TIMER_PERIODIC	(1u << 17)
#define TIMER_DIV_16		0x3	/* divide configuration: bus clock / 16 */
#define CALIBRATE_US		2000	/* 2 ms: some 125000 counts under QEMU */

static u32 timer_count;		/* count per tick; 0: no timer (set once at boot) */
static u64 timer_hz;		/* input rate after the divider */

/*
 * The timer counts down from its initial count at the bus clock divided by
 * the divide configuration; the SDM gives no rate for it (QEMU's counts at
 * 1 GHz before the divider), so it is measured: a one-shot count from the
 * top, masked, over 2 ms of TSC time (udelay()).  Every CPU's timer has
 * the same input clock, so the boot CPU's measurement serves all.
 */
u32 lapic_timer_calibrate(void)
{
	u32 left, counted;

	timer_count = 0;
	timer_hz = 0;
	if (!enabled || !boot_cpu.tsc_khz)
		return 0;
	lapic_write(LAPIC_TIMER_DIV, TIMER_DIV_16);
	lapic_write(LAPIC_LVT_TIMER, LAPIC_LVT_MASKED | LAPIC_TIMER_VECTOR);
	lapic_write(LAPIC_TIMER_INIT, 0xffffffff);
	udelay(CALIBRATE_US);
	left = lapic_read(LAPIC_TIMER_CUR);
	lapic_write(LAPIC_TIMER_INIT, 0);	/* stop it */
	counted = 0xffffffff - left;
	if (!left || counted < 1000) {
		pr_warn("apic: the local APIC timer counted %u in %u us; no local timer tick",
			counted, CALIBRATE_US);
		return 0;
	}
	timer_hz = (u64)counted * (1000000 / CALIBRATE_US);
	timer_count = (u32)(timer_hz / LAPIC_TIMER_HZ);
	pr_info("apic: local APIC timer at %llu kHz (bus / 16), a tick of %u counts every %u ms "
		"on each CPU (vector %#x)", (unsigned long long)(timer_hz / 1000), timer_count,
		1000 / LAPIC_TIMER_HZ, LAPIC_TIMER_VECTOR);
	return timer_count;
}

void lapic_timer_start(void)
{
	if (!timer_count)
		return;
	lapic_write(LAPIC_TIMER_DIV, TIMER_DIV_16);
	lapic_write(LAPIC_LVT_TIMER, LVT_TIMER_PERIODIC | LAPIC_TIMER_VECTOR);
	lapic_write(LAPIC_TIMER_INIT, timer_count);
}

u64 lapic_timer_hz(void)
{
	return timer_hz;
}

void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

static struct ioapic *ioapic_for_gsi(unsigned gsi, unsigned *pin)
{
	for (unsigned i = 0; i < nr_ioapics; i++)
		if (gsi >= ioapics[i].gsi_base && gsi < ioapics[i].gsi_base + ioapics[i].nr_pins) {
			*pin = gsi - ioapics[i].gsi_base;
			return &ioapics[i];
		}
	return NULL;
}

/*
 * apic_gsi_owner() - the IRQ that one of the MADT's overrides (those
 * apic_init() kept: at most one per GSI) sends to `gsi`, or -1.
 * Context: any.
 */
int apic_gsi_owner(unsigned gsi)
{
	for (u32 i = 0; i < topo->nr_overrides; i++)
		if (topo->overrides[i].gsi == gsi)
			return topo->overrides[i].bus_irq;
	return -1;
}

/*
 * apic_irq_to_gsi() - where IRQ irq arrives on the I/O APICs, and how: the
 * MADT's override for it if there is one (apic_init() keeps one at most),
 * else GSI = irq.  Polarity and trigger are the override's where its flags
 * name them;
 * where they say "conforms to the bus" (0; the reserved value 2 is read
 * the same way), or there is no override, the caller's defaults apply:
 * edge, active-high for an ISA device; level, active-low for the ACPI SCI.
 * An IRQ without an override whose own GSI is where an override sends
 * another IRQ has no line: the override names a wire, the identity mapping
 * is only a default, and one line cannot carry two IRQs' handlers (q35:
 * IRQ 0 -> GSI 2 leaves IRQ 2, the cascade, without one; Linux likewise
 * leaves such an IRQ unmapped, "IRQ2 used by override").  Returns 0, or
 * -EBUSY for such an IRQ, with *gsi its own GSI (apic_gsi_owner() says
 * whose it is) and the defaults in *level and *active_low.
 * Context: any.
 */
int apic_irq_to_gsi(unsigned irq, bool def_level, bool def_low, unsigned *gsi, bool *level,
		    bool *active_low)
{
	*gsi = irq;
	*level = def_level;
	*active_low = def_low;
	for (u32 i = 0; i < topo->nr_overrides; i++) {
		const struct irq_override *o = &topo->overrides[i];
		u16 polarity = o->flags & 3, trigger = o->flags & 0xc;

		if (o->bus_irq != irq)
			continue;
		*gsi = o->gsi;
		*active_low = polarity == IRQ_POLARITY_LOW ? true :
			      polarity == IRQ_POLARITY_HIGH ? false : def_low;
		*level = trigger == IRQ_TRIGGER_LEVEL ? true :
			 trigger == IRQ_TRIGGER_EDGE ? false : def_level;
		return 0;
	}
	return apic_gsi_owner(irq) >= 0 ? -EBUSY : 0;
}

/* apic_isa_irq_to_gsi() - apic_irq_to_gsi() with the ISA defaults. */
int apic_isa_irq_to_gsi(unsigned irq, unsigned *gsi, bool *level, bool *active_low)
{
	return apic_irq_to_gsi(irq, false, false, gsi, level, active_low);
}

int ioapic_route(unsigned gsi, unsigned vector, bool level, bool active_low)
{
	unsigned pin;
	struct ioapic *io = ioapic_for_gsi(gsi, &pin);
	u32 low = vector | (level ? RTE_LEVEL : 0) | (active_low ? RTE_ACTIVE_LOW : 0);

	if (!io) {
		pr_err("ioapic: no I/O APIC serves GSI %u; vector %u not routed", gsi, vector);
		return -1;
	}
	ioapic_write(io, IOAPIC_REDTBL(pin) + 1, lapic_id() << 24);	/* apic_init: < 256 */
	ioapic_write(io, IOAPIC_REDTBL(pin), low);
	return 0;
}

/*
 * Drop the MADT's interrupt source overrides that cannot be right: an ISA
 * IRQ above 15, a GSI that no I/O APIC serves or that memlab has no vector
 * for, a second override for an IRQ already overridden, or a second IRQ
 * sent to a GSI an earlier override already took (one handler per line:
 * the second IRQ would take the first one's place).  The first of two
 * wins.  A dropped IRQ keeps its identity mapping (GSI = IRQ), which every
 * I/O APIC with 16 pins or more serves; routing to a GSI nobody serves
 * would lose the interrupt (the timer's, the console's).  (Unless a kept
 * override sends another IRQ to that GSI: then the IRQ has no line, see
 * apic_irq_to_gsi().)
 */
static void drop_bad_overrides(void)
{
	u32 kept = 0;
	unsigned pin;

	for (u32 i = 0; i < topo->nr_overrides; i++) {
		const struct irq_override *o = &topo->overrides[i];
		const char *why = NULL;

		if (o->bus_irq >= 16)
			why = "not an ISA IRQ";
		else if (o->gsi >= NR_IRQ_LINES)
			why = "GSI beyond memlab's vectors";
		else if (!ioapic_for_gsi(o->gsi, &pin))
			why = "no I/O APIC serves that GSI";
		for (u32 k = 0; !why && k < kept; k++) {
			if (topo->overrides[k].bus_irq == o->bus_irq)
				why = "the IRQ already has an override";
			else if (topo->overrides[k].gsi == o->gsi)
				why = "another IRQ already goes to that GSI";
		}
		if (why) {
			pr_warn("apic: MADT override IRQ %u -> GSI %u: %s; ignored", o->bus_irq, o->gsi,
				why);
			continue;
		}
		topo->overrides[kept++] = *o;
	}
	topo->nr_overrides = kept;
}

/*
 * report_lineless_irqs() - say which ISA IRQs have no line because an
 * override sends another IRQ to their own GSI (apic_irq_to_gsi()): on q35
 * IRQ 2, the cascade, which nothing uses; on a machine whose MADT sends
 * IRQ 9 to GSI 4, the serial port's IRQ 4, whose driver then polls.
 * Context: apic_init (boot), after drop_bad_overrides().
 */
static void report_lineless_irqs(void)
{
	for (unsigned irq = 0; irq < NR_IRQS; irq++) {
		unsigned gsi;
		bool level, low;

		if (apic_isa_irq_to_gsi(irq, &gsi, &level, &low) == 0)
			continue;
		pr_info("apic: ISA IRQ %u has no line of its own: the MADT's override sends IRQ %d to GSI %u; IRQ %u is not routed",
			irq, apic_gsi_owner(gsi), gsi, irq);
	}
}

bool apic_init(struct irq_topology *t)
{
	/* start over: the 8259s until this call says otherwise */
	lapic = NULL;
	lapic_mode = LAPIC_XAPIC;
	nr_ioapics = 0;
	enabled = false;
	topo = &no_topology;
	if (!t || !boot_cpu.has_apic)
		return false;
	topo = t;
	lapic_mode = lapic_mode_of(rdmsr(MSR_APIC_BASE));
	if (lapic_mode == LAPIC_X2APIC) {
		u32 id = lapic_id();

		if (id > 0xff) {
			pr_warn("apic: x2APIC id %u does not fit the I/O APIC's 8-bit destination "
				"(no interrupt remapping); staying with the 8259 PICs", id);
			lapic_mode = LAPIC_XAPIC;
			topo = &no_topology;
			return false;
		}
	} else {
		lapic = ioremap(topo->lapic_addr, 0x400, IOREMAP_UC);
		if (!lapic)
			return false;
	}
	for (u32 i = 0; i < topo->nr_ioapics && nr_ioapics < APIC_MAX_IOAPICS; i++) {
		struct ioapic *io = &ioapics[nr_ioapics];
		u32 ver;

		io->regs = ioremap(topo->ioapics[i].addr, 0x20, IOREMAP_UC);
		if (!io->regs)
			continue;
		io->gsi_base = topo->ioapics[i].gsi_base;
		io->id = topo->ioapics[i].id;
		/* all ones: no device decodes the address (a wrong MADT entry);
		 * taken at its word it would claim 256 GSIs and lose them */
		ver = ioapic_read(io, IOAPIC_VER);
		if (ver == 0xffffffff) {
			pr_warn("apic: no I/O APIC answers at %#x (id %u, GSI base %u); ignored",
				topo->ioapics[i].addr, io->id, io->gsi_base);
			continue;
		}
		io->nr_pins = ((ver >> 16) & 0xff) + 1;
		for (u32 pin = 0; pin < io->nr_pins; pin++)
			ioapic_write(io, IOAPIC_REDTBL(pin), RTE_MASKED);
		nr_ioapics++;
	}
	if (!nr_ioapics)
		return false;
	drop_bad_overrides();
	report_lineless_irqs();

	/* the 8259s stay programmed (vectors 32-47) but fully masked */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | APIC_BASE_ENABLE);
	lapic_write(LAPIC_SVR, 0x100 | APIC_SPURIOUS_VECTOR);	/* software enable */
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_LVT_LINT0, LAPIC_LVT_MASKED);		/* no ExtINT from the 8259 */
	enabled = true;
	if (lapic_mode == LAPIC_X2APIC)
		pr_info("apic: local APIC id %u in x2APIC mode (registers through MSRs); "
			"%u I/O APIC(s), first with %u pins; 8259s masked", lapic_id(), nr_ioapics,
			ioapics[0].nr_pins);
	else
		pr_info("apic: local APIC id %u at %#llx; %u I/O APIC(s), first with %u pins; "
			"8259s masked", lapic_id(), (unsigned long long)topo->lapic_addr, nr_ioapics,
			ioapics[0].nr_pins);
	return true;
}

void apic_dump(struct printer *p)
{
	if (!enabled) {
		pr_printf(p, "interrupts: 8259 PICs (no usable MADT / I/O APIC)\n");
		return;
	}
	pr_printf(p, "interrupts: local APIC id %u%s + I/O APIC; line = GSI, vector = 32 + GSI\n",
		  lapic_id(), lapic_mode == LAPIC_X2APIC ? " (x2APIC mode: registers through MSRs)" : "");
	for (unsigned i = 0; i < nr_ioapics; i++) {
		struct ioapic *io = &ioapics[i];

		for (u32 pin = 0; pin < io->nr_pins; pin++) {
			u32 low = ioapic_read(io, IOAPIC_REDTBL(pin));

			if (low & RTE_MASKED)
				continue;
			pr_printf(p, "  GSI %2u -> vector %3u, %s, %s, %llu interrupts\n",
				  io->gsi_base + pin, low & 0xff, low & RTE_LEVEL ? "level" : "edge",
				  low & RTE_ACTIVE_LOW ? "active-low" : "active-high",
				  (unsigned long long)irq_count(io->gsi_base + pin));
		}
	}
	for (unsigned irq = 0; irq < NR_IRQS; irq++) {
		unsigned gsi;
		bool level, low;

		if (apic_isa_irq_to_gsi(irq, &gsi, &level, &low))
			pr_printf(p, "  ISA IRQ %u: no line, GSI %u carries IRQ %d (MADT override)\n",
				  irq, gsi, apic_gsi_owner(gsi));
	}
}

/*
 * madt.c - the interrupt controllers, from the ACPI MADT ("APIC" table).
 *
 * The MADT gives the local APIC's address, one entry per CPU (type 0,
 * local APIC, 8-bit APIC id; type 9, local x2APIC, 32-bit id, for the CPUs
 * whose id does not fit in 8 bits), the NMI wiring of the CPUs' LINT pins
 * (types 4 and 10, the same split), one entry per I/O APIC (its id, MMIO
 * address and first GSI), and interrupt source overrides: ISA IRQ n
 * arrives on GSI m with a given polarity and trigger mode (on q35: IRQ 0
 * -> GSI 2; IRQ 9, the SCI, level/active-high).  Entries are
 * bounds-checked; a malformed MADT is reported and ignored as a whole (the
 * 8259 PICs stay in use).  CPU entries that make no sense (an id listed
 * twice, the broadcast id 0xff or 0xffffffff) are skipped with a warning:
 * the interrupt routing does not depend on them.
 *
 * Context: (boot).
 */
#include <drivers/acpi.h>
#include <lib/printk.h>
#include <lib/string.h>

struct irq_topology madt_info;
static struct acpi_madt_cpu madt_cpus[MADT_MAX_CPUS];
static unsigned nr_madt_cpus, nr_madt_cpus_dropped;
static struct acpi_madt_nmi madt_nmis[MADT_MAX_NMIS];
static unsigned nr_madt_nmis;

/*
 * A processor entry (type 0 or 9) at offset off: listed unless its id is
 * the broadcast id or is listed already.  Enabled ones are counted in
 * madt_info.nr_cpus.
 */
static void add_cpu(u8 type, u32 apic_id, u32 uid, u32 flags, u32 off)
{
	u32 broadcast = type == MADT_LOCAL_APIC ? 0xff : 0xffffffff;

	if (apic_id == broadcast) {
		pr_warn("madt: processor entry at offset %u (UID %u) has the broadcast id %#x; "
			"skipped", off, uid, apic_id);
		return;
	}
	for (unsigned i = 0; i < nr_madt_cpus; i++)
		if (madt_cpus[i].apic_id == apic_id) {
			pr_warn("madt: APIC id %u listed twice (UIDs %u and %u); the second is "
				"skipped", apic_id, madt_cpus[i].uid, uid);
			return;
		}
	if (nr_madt_cpus == MADT_MAX_CPUS) {
		if (!nr_madt_cpus_dropped++)
			pr_warn("madt: more than %d processor entries; APIC id %u and the rest "
				"are not listed", MADT_MAX_CPUS, apic_id);
		return;
	}
	madt_cpus[nr_madt_cpus++] = (struct acpi_madt_cpu){
		.apic_id = apic_id, .uid = uid, .flags = flags, .type = type };
	if (flags & MADT_CPU_ENABLED)
		madt_info.nr_cpus++;
}

/* An NMI entry (type 4 or 10): kept for the view, the first MADT_MAX_NMIS. */
static void add_nmi(u8 type, u32 uid, u16 flags, u8 lint)
{
	if (nr_madt_nmis < MADT_MAX_NMIS)
		madt_nmis[nr_madt_nmis++] = (struct acpi_madt_nmi){
			.uid = uid, .flags = flags, .lint = lint, .type = type };
}

unsigned madt_nr_cpus(void)
{
	return nr_madt_cpus;
}

const struct acpi_madt_cpu *madt_cpu(unsigned i)
{
	return i < nr_madt_cpus ? &madt_cpus[i] : NULL;
}

static void add_override(u8 bus_irq, u32 gsi, u16 flags)
{
	if (madt_info.nr_overrides == APIC_MAX_OVERRIDES) {
		pr_warn("madt: more than %d interrupt overrides; ignoring IRQ %u", APIC_MAX_OVERRIDES,
			bus_irq);
		return;
	}
	madt_info.overrides[madt_info.nr_overrides++] =
		(struct irq_override){ .bus_irq = bus_irq, .gsi = gsi, .flags = flags };
}

/* The length ACPI gives each entry type memlab reads, 0 for the others. */
static u8 madt_entry_len(u8 type)
{
	switch (type) {
	case MADT_LOCAL_APIC:	return 8;
	case 1:	return 12;	/* I/O APIC */
	case 2:	return 10;	/* interrupt source override */
	case 4:	return 6;	/* local APIC NMI */
	case 5:	return 12;	/* local APIC address override */
	case MADT_LOCAL_X2APIC:	return 16;
	case 10: return 12;	/* local x2APIC NMI */
	default: return 0;
	}
}

/* Forget the last parse: no controllers, no CPUs, no NMI entries. */
static void madt_reset(void)
{
	memset(&madt_info, 0, sizeof(madt_info));
	nr_madt_cpus = nr_madt_cpus_dropped = nr_madt_nmis = 0;
}

/*
 * madt_parse() - see acpi.h.  Starts over on every call.  A malformed MADT
 * (an entry shorter than 2 bytes or than its type's length, or running past
 * the table) is ignored as a whole, with the reason: the 8259s are a safe
 * fallback, a half-read interrupt routing is not.
 */
bool madt_parse(void)
{
	const struct acpi_sdt_header *h = acpi_find_table("APIC", 0);
	const u8 *t = (const u8 *)h;
	u32 off;
	u8 len;

	madt_reset();
	if (!h) {
		pr_info("madt: no MADT; staying with the 8259 PICs");
		return false;
	}
	/* tables.c passed it: at least 44 bytes */
	memcpy(&madt_info.lapic_addr, t + 36, 4);
	memcpy(&madt_info.flags, t + 40, 4);
	for (off = 44; off < h->length; off += len) {
		u8 type;

		if (h->length - off < 2) {
			pr_warn("madt: %u stray byte at offset %u after the last entry; "
				"MADT ignored, staying with the 8259 PICs", h->length - off, off);
			goto reject;
		}
		type = t[off];
		len = t[off + 1];
		if (len < 2 || len > h->length - off || len < madt_entry_len(type)) {
			pr_warn("madt: entry at offset %u (type %u) has length %u (%s); "
				"MADT ignored, staying with the 8259 PICs", off, type, len,
				len > h->length - off ? "past the end of the table" : "too short");
			goto reject;
		}
		switch (type) {
		case MADT_LOCAL_APIC: {	/* UID, APIC id, flags */
			u32 flags;

			memcpy(&flags, t + off + 4, 4);
			add_cpu(type, t[off + 3], t[off + 2], flags, off);
			break;
		}
		case MADT_LOCAL_X2APIC: {	/* 2 reserved, x2APIC id, flags, UID */
			u32 id, flags, uid;

			memcpy(&id, t + off + 4, 4);
			memcpy(&flags, t + off + 8, 4);
			memcpy(&uid, t + off + 12, 4);
			add_cpu(type, id, uid, flags, off);
			break;
		}
		case 4: {	/* local APIC NMI: UID (0xff: all), flags, LINT# */
			u16 flags;

			memcpy(&flags, t + off + 3, 2);
			add_nmi(type, t[off + 2] == 0xff ? 0xffffffff : t[off + 2], flags, t[off + 5]);
			break;
		}
		case 10: {	/* local x2APIC NMI: flags, UID (all ones: all), LINT# */
			u16 flags;
			u32 uid;

			memcpy(&flags, t + off + 2, 2);
			memcpy(&uid, t + off + 4, 4);
			add_nmi(type, uid, flags, t[off + 8]);
			break;
		}
		case 1:	/* I/O APIC */
			if (madt_info.nr_ioapics == APIC_MAX_IOAPICS) {
				pr_warn("madt: more than %d I/O APICs; ignoring id %u",
					APIC_MAX_IOAPICS, t[off + 2]);
				break;
			}
			madt_info.ioapics[madt_info.nr_ioapics].id = t[off + 2];
			memcpy(&madt_info.ioapics[madt_info.nr_ioapics].addr, t + off + 4, 4);
			memcpy(&madt_info.ioapics[madt_info.nr_ioapics].gsi_base, t + off + 8, 4);
			madt_info.nr_ioapics++;
			break;
		case 2: {	/* interrupt source override */
			u32 gsi;
			u16 flags;

			memcpy(&gsi, t + off + 4, 4);
			memcpy(&flags, t + off + 8, 2);
			add_override(t[off + 3], gsi, flags);
			break;
		}
		case 5:	/* local APIC address override (64-bit) */
			memcpy(&madt_info.lapic_addr, t + off + 4, 8);
			break;
		default:
			break;
		}
	}
	return madt_info.nr_ioapics > 0 && madt_info.lapic_addr;
reject:
	madt_reset();
	return false;
}

/* MPS INTI flags, as an override or an NMI entry gives them. */
static const char *const pol[] = { "bus default", "active-high", "reserved", "active-low" };
static const char *const trig[] = { "bus default", "edge", "reserved", "level" };

void madt_dump(struct printer *p)
{
	pr_printf(p, "MADT: local APIC at %#llx, %u CPUs, flags %#x%s\n",
		  (unsigned long long)madt_info.lapic_addr, madt_info.nr_cpus, madt_info.flags,
		  madt_info.flags & 1 ? " (8259s present)" : "");
	for (u32 i = 0; i < madt_info.nr_ioapics; i++)
		pr_printf(p, "  I/O APIC id %u at %#x, GSI base %u\n", madt_info.ioapics[i].id,
			  madt_info.ioapics[i].addr, madt_info.ioapics[i].gsi_base);
	for (u32 i = 0; i < madt_info.nr_overrides; i++) {
		const struct irq_override *o = &madt_info.overrides[i];

		pr_printf(p, "  override: ISA IRQ %u -> GSI %u, %s, %s\n", o->bus_irq, o->gsi,
			  pol[o->flags & 3], trig[(o->flags >> 2) & 3]);
	}
	for (unsigned i = 0; i < nr_madt_cpus; i++) {
		const struct acpi_madt_cpu *c = &madt_cpus[i];

		pr_printf(p, "  %s: APIC id %u, UID %u, %s\n",
			  c->type == MADT_LOCAL_APIC ? "local APIC" : "local x2APIC", c->apic_id,
			  c->uid, c->flags & MADT_CPU_ENABLED ? "enabled" :
			  c->flags & MADT_CPU_ONLINE_CAPABLE ? "online-capable (not present)" :
			  "disabled");
	}
	if (nr_madt_cpus_dropped)
		pr_printf(p, "  ... %u more processor entries not listed\n", nr_madt_cpus_dropped);
	for (unsigned i = 0; i < nr_madt_nmis; i++) {
		const struct acpi_madt_nmi *n = &madt_nmis[i];

		if (n->uid == 0xffffffff)
			pr_printf(p, "  %s NMI: all processors, LINT%u, %s, %s\n",
				  n->type == 4 ? "local APIC" : "local x2APIC", n->lint,
				  pol[n->flags & 3], trig[(n->flags >> 2) & 3]);
		else
			pr_printf(p, "  %s NMI: UID %u, LINT%u, %s, %s\n",
				  n->type == 4 ? "local APIC" : "local x2APIC", n->uid, n->lint,
				  pol[n->flags & 3], trig[(n->flags >> 2) & 3]);
	}
}

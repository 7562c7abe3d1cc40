/*
 * madt.c - the interrupt controllers, from the ACPI MADT ("APIC" table).
 *
 * The MADT gives the local APIC's address, one entry per CPU (local APIC),
 * one per I/O APIC (its id, MMIO address and first GSI), and interrupt
 * source overrides: ISA IRQ n arrives on GSI m with a given polarity and
 * trigger mode (on q35: IRQ 0 -> GSI 2; IRQ 9, the SCI, level/active-high).
 * Entries are bounds-checked; a malformed MADT is reported and ignored as
 * a whole (the 8259 PICs stay in use).
 *
 * Context: (boot).
 */
#include <drivers/acpi.h>
#include <lib/printk.h>
#include <lib/string.h>

struct irq_topology madt_info;

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
	case 0:	return 8;	/* processor local APIC */
	case 1:	return 12;	/* I/O APIC */
	case 2:	return 10;	/* interrupt source override */
	case 5:	return 12;	/* local APIC address override */
	default: return 0;
	}
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

	memset(&madt_info, 0, sizeof(madt_info));
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
		case 0:	/* processor local APIC */
			if (t[off + 4] & 1)
				madt_info.nr_cpus++;
			break;
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
	memset(&madt_info, 0, sizeof(madt_info));
	return false;
}

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
		static const char *const pol[] = { "bus default", "active-high", "reserved", "active-low" };
		static const char *const trig[] = { "bus default", "edge", "reserved", "level" };

		pr_printf(p, "  override: ISA IRQ %u -> GSI %u, %s, %s\n", o->bus_irq, o->gsi,
			  pol[o->flags & 3], trig[(o->flags >> 2) & 3]);
	}
}

/*
 * madt.c - the interrupt controllers, from the ACPI MADT ("APIC" table).
 *
 * The MADT gives the local APIC's address, one entry per CPU (local APIC),
 * one per I/O APIC (its id, MMIO address and first GSI), and interrupt
 * source overrides: ISA IRQ n arrives on GSI m with a given polarity and
 * trigger mode (on q35: IRQ 0 -> GSI 2; IRQ 9, the SCI, level/active-high).
 * Entries are bounds-checked; malformed ones are reported and skipped.
 *
 * Context: (boot).
 */
#include <drivers/acpi.h>
#include <kernel/printk.h>
#include <kernel/string.h>

struct madt_info madt_info;

static void add_override(u8 bus_irq, u32 gsi, u16 flags)
{
	if (madt_info.nr_overrides == MADT_MAX_OVERRIDES) {
		pr_warn("madt: more than %d interrupt overrides; ignoring IRQ %u", MADT_MAX_OVERRIDES,
			bus_irq);
		return;
	}
	madt_info.overrides[madt_info.nr_overrides++] =
		(struct madt_override){ .bus_irq = bus_irq, .gsi = gsi, .flags = flags };
}

bool madt_parse(void)
{
	const struct acpi_sdt_header *h = acpi_find_table("APIC", 0);
	const u8 *t = (const u8 *)h;
	u32 off;

	memset(&madt_info, 0, sizeof(madt_info));
	if (!h || h->length < 44) {
		pr_info("madt: no MADT; staying with the 8259 PICs");
		return false;
	}
	memcpy(&madt_info.lapic_addr, t + 36, 4);
	memcpy(&madt_info.flags, t + 40, 4);
	for (off = 44; off + 2 <= h->length; off += t[off + 1]) {
		u8 type = t[off], len = t[off + 1];

		if (len < 2 || off + len > h->length) {
			pr_warn("madt: entry at offset %u (length %u) runs past the table; stopping",
				off, len);
			break;
		}
		switch (type) {
		case 0:	/* processor local APIC */
			if (len >= 8 && (t[off + 4] & 1))
				madt_info.nr_cpus++;
			break;
		case 1:	/* I/O APIC */
			if (len < 12 || madt_info.nr_ioapics == MADT_MAX_IOAPICS)
				break;
			madt_info.ioapics[madt_info.nr_ioapics].id = t[off + 2];
			memcpy(&madt_info.ioapics[madt_info.nr_ioapics].addr, t + off + 4, 4);
			memcpy(&madt_info.ioapics[madt_info.nr_ioapics].gsi_base, t + off + 8, 4);
			madt_info.nr_ioapics++;
			break;
		case 2: {	/* interrupt source override */
			u32 gsi;
			u16 flags;

			if (len < 10)
				break;
			memcpy(&gsi, t + off + 4, 4);
			memcpy(&flags, t + off + 8, 2);
			add_override(t[off + 3], gsi, flags);
			break;
		}
		case 5:	/* local APIC address override (64-bit) */
			if (len >= 12)
				memcpy(&madt_info.lapic_addr, t + off + 4, 8);
			break;
		default:
			break;
		}
	}
	return madt_info.nr_ioapics > 0 && madt_info.lapic_addr;
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
		const struct madt_override *o = &madt_info.overrides[i];
		static const char *const pol[] = { "bus default", "active-high", "reserved", "active-low" };
		static const char *const trig[] = { "bus default", "edge", "reserved", "level" };

		pr_printf(p, "  override: ISA IRQ %u -> GSI %u, %s, %s\n", o->bus_irq, o->gsi,
			  pol[o->flags & 3], trig[(o->flags >> 2) & 3]);
	}
}

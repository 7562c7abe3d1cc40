/*
 * drivers/pci/config.c - PCI Express configuration space through ECAM.
 *
 * The MCFG table tells where the memory-mapped configuration space (ECAM)
 * of segment 0 lives and which buses it decodes.  Only those buses are
 * mapped, uncached: 1 MiB per bus, 4 KiB per function.  Here: the MCFG
 * parser, the mapping, the register accessors and the capability walk.
 *
 * Context: pci_ecam_init (boot); the accessors (any).
 */
#include "internal.h"
#include <drivers/acpi.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <arch/paging.h>
#include <arch/io.h>

struct pci_ecam pci_ecam;			/* segment 0, from the MCFG */
volatile u8 *pci_ecam_virt;			/* its mapping */

/*
 * pci_mcfg_parse() - find segment 0 in an MCFG table of `len` bytes.  The
 * table is trusted for nothing: its own length field must fit in len, the
 * entries must fit in the table, the bus range must be ordered, the base
 * must be 1 MiB aligned and the mapping must not wrap.  Returns 0 with *out
 * filled, -ENOENT if no entry is for segment 0, -EINVAL if the table is
 * malformed; on an error, why (size bytes) says what is wrong, with the
 * values.  Pure: no I/O.  Context: (any).
 */
static int pci_mcfg_parse(const void *table, size_t len, struct pci_ecam *out, char *why, size_t size)
{
	const u8 *t = table;
	u32 tlen;
	size_t off;

	if (!t || len < PCI_MCFG_HEADER_LEN || memcmp(t, "MCFG", 4) != 0) {
		ksnprintf(why, size, "not an MCFG of at least %u bytes", PCI_MCFG_HEADER_LEN);
		return -EINVAL;
	}
	memcpy(&tlen, t + 4, 4);
	if (tlen < PCI_MCFG_HEADER_LEN || tlen > len) {
		ksnprintf(why, size, "length %u outside [%u, %zu]", tlen, PCI_MCFG_HEADER_LEN, len);
		return -EINVAL;
	}
	for (off = PCI_MCFG_HEADER_LEN; off + PCI_MCFG_ENTRY_LEN <= tlen;
	     off += PCI_MCFG_ENTRY_LEN) {
		u64 base;
		u16 seg;
		u8 start = t[off + 10], end = t[off + 11];

		memcpy(&base, t + off, 8);
		memcpy(&seg, t + off + 8, 2);
		if (seg != 0)
			continue;
		if (end < start || (base & 0xfffff) || base == 0) {
			ksnprintf(why, size, "segment 0: base %#llx (must be nonzero, 1 MiB aligned), "
				  "buses %u-%u", (unsigned long long)base, start, end);
			return -EINVAL;
		}
		/* ECAM addresses are relative to bus 0, even for start > 0 */
		if (base + (((u64)end + 1) << 20) < base) {
			ksnprintf(why, size, "segment 0: base %#llx + %u buses wraps past 2^64",
				  (unsigned long long)base, end + 1);
			return -EINVAL;
		}
		out->base = base;
		out->start_bus = start;
		out->end_bus = end;
		return 0;
	}
	ksnprintf(why, size, "no entry for segment 0 in %u entries",
		  (unsigned)((tlen - PCI_MCFG_HEADER_LEN) / PCI_MCFG_ENTRY_LEN));
	return -ENOENT;
}

/*
 * pci_cap_find_raw() - capability walk over a config space image (`cfg`,
 * at least 256 bytes).  Returns the offset of the first capability with
 * id cap_id after `start` (0: from the head), or 0.  The walk stops at a
 * pointer below 0x40, after CAP_WALK_LIMIT steps (a loop), and sets
 * *broken when it had to cut the list (broken may be NULL).  Reads cfg
 * only, through the mmio accessors.  Context: (any).
 */
static u8 pci_cap_find_raw(const volatile u8 *cfg, u8 cap_id, u8 start, bool *broken)
{
	unsigned steps = 0;
	u8 pos;

	if (broken)
		*broken = false;
	if (!(mmio_read8(cfg + CFG_STATUS) & STATUS_CAP_LIST))
		return 0;
	if (start && (start < 0x40 || start > 0xfc))
		return 0;
	pos = start ? mmio_read8(cfg + start + 1) : mmio_read8(cfg + CFG_CAP_PTR);
	pos &= 0xfc;
	while (pos) {
		if (pos < 0x40 || ++steps > CAP_WALK_LIMIT) {
			if (broken)
				*broken = true;
			return 0;
		}
		if (cap_id == 0xff || mmio_read8(cfg + pos) == cap_id)
			return pos;
		pos = mmio_read8(cfg + pos + 1) & 0xfc;
	}
	return 0;
}

/* --- configuration space access -------------------------------------------- */

/* pci_cfg_of() - see internal.h: (bus, dev, fn)'s 4 KiB, or NULL. */
volatile u8 *pci_cfg_of(unsigned bus, unsigned dev, unsigned fn)
{
	if (!pci_ecam_virt || bus < pci_ecam.start_bus || bus > pci_ecam.end_bus || dev > 31 || fn > 7)
		return NULL;
	return pci_ecam_virt + (((u64)(bus - pci_ecam.start_bus) << 20) | (dev << 15) | (fn << 12));
}

/*
 * pci_read8() .. pci_write32() - one access to a register of d's
 * configuration space through ECAM (arch/io.h's mmio accessors, which the
 * host tests send to a model); offsets past the 4 KiB read as all ones and
 * are not written.  Context: (any).
 */
u8 pci_read8(const struct pci_dev *d, u16 off)
{
	return off < 4096 ? mmio_read8(d->cfg + off) : 0xff;
}

u16 pci_read16(const struct pci_dev *d, u16 off)
{
	return off < 4095 ? mmio_read16((const volatile u16 *)(d->cfg + (off & ~1u))) : 0xffff;
}

u32 pci_read32(const struct pci_dev *d, u16 off)
{
	return off < 4093 ? mmio_read32((const volatile u32 *)(d->cfg + (off & ~3u))) : 0xffffffff;
}

void pci_write8(struct pci_dev *d, u16 off, u8 v)
{
	if (off < 4096)
		mmio_write8(d->cfg + off, v);
}

void pci_write16(struct pci_dev *d, u16 off, u16 v)
{
	if (off < 4095)
		mmio_write16((volatile u16 *)(d->cfg + (off & ~1u)), v);
}

void pci_write32(struct pci_dev *d, u16 off, u32 v)
{
	if (off < 4093)
		mmio_write32((volatile u32 *)(d->cfg + (off & ~3u)), v);
}

/*
 * pci_find_capability() - pci_cap_find_raw() on d's configuration space; a
 * list it had to cut is logged.  Context: (any).
 */
u8 pci_find_capability(const struct pci_dev *d, u8 cap_id, u8 start)
{
	bool broken;
	u8 pos = pci_cap_find_raw(d->cfg, cap_id, start, &broken);

	if (broken)
		pr_warn("pci %02x:%02x.%x: capability list loops or points below 0x40; cut",
			d->bus, d->dev, d->fn);
	return pos;
}

int pci_ecam_init(void)
{
	const struct acpi_sdt_header *mcfg = acpi_find_table("MCFG", 0);
	char why[96];
	u64 span;
	int err;

	if (!mcfg) {
		pr_warn("pci: no MCFG table; no PCI (needs -machine q35)");
		return -ENODEV;
	}
	err = pci_mcfg_parse(mcfg, mcfg->length, &pci_ecam, why, sizeof(why));
	if (err) {
		pr_err("pci: MCFG unusable: %s; no PCI", why);
		return err;
	}
	span = ((u64)pci_ecam.end_bus - pci_ecam.start_bus + 1) << 20;
	pci_ecam_virt = ioremap(pci_ecam.base + ((u64)pci_ecam.start_bus << 20), span, IOREMAP_UC);
	if (!pci_ecam_virt) {
		pr_err("pci: cannot map ECAM %llx (+%llx)", (unsigned long long)pci_ecam.base,
		       (unsigned long long)span);
		return -ENOMEM;
	}
	pr_info("pci: ECAM at %llx, buses %02x-%02x",
		(unsigned long long)pci_ecam.base, pci_ecam.start_bus, pci_ecam.end_bus);
	return 0;
}

/*
 * pci_config_read() / pci_config_write() - one register of function
 * (bus, dev, fn) by address, `width` bytes (1, 2 or 4) at `off`, for the
 * `setpci` command.  The access must lie inside the 4 KiB and be aligned
 * to its width; a written value must fit the width.  After a write to a
 * bridge the table's copy of its windows and bus numbers is refreshed.
 * 0, -ENODEV (no such function in the table) or -EINVAL (a width, offset
 * or value outside those rules: nothing is accessed).  Context: (main).
 */
int pci_config_read(unsigned bus, unsigned dev, unsigned fn, u16 off, unsigned width, u32 *val)
{
	struct pci_dev *d = pci_get_bdf(bus, dev, fn);

	if ((width != 1 && width != 2 && width != 4) || off % width || off + width > 4096)
		return -EINVAL;
	if (!d)
		return -ENODEV;
	*val = width == 1 ? pci_read8(d, off) : width == 2 ? pci_read16(d, off) : pci_read32(d, off);
	return 0;
}

int pci_config_write(unsigned bus, unsigned dev, unsigned fn, u16 off, unsigned width, u32 val)
{
	struct pci_dev *d = pci_get_bdf(bus, dev, fn);

	if ((width != 1 && width != 2 && width != 4) || off % width || off + width > 4096 ||
	    (width < 4 && val >> (8 * width)))
		return -EINVAL;
	if (!d)
		return -ENODEV;
	if (width == 1)
		pci_write8(d, off, (u8)val);
	else if (width == 2)
		pci_write16(d, off, (u16)val);
	else
		pci_write32(d, off, val);
	if (d->header_type == 1)
		pci_read_windows(d);
	pci_resources_sync();
	return 0;
}

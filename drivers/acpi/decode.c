/*
 * decode.c - `acpi fadt|srat|slit|mcfg`: the tables memlab reads, decoded
 * field by field for a reader, straight from the checked table bytes.  Every
 * entry is bounds-checked against the table length before it is read, and a
 * view shows at most DECODE_MAX_ENTRIES entries.  The views only read:
 * they never number a node (acpi_pxm_find_node, not acpi_pxm_to_node).
 */
#include <drivers/acpi.h>
#include <lib/string.h>
#include <mm/page.h>		/* NUMA_NO_NODE */

void acpi_decode_fadt(struct printer *p)
{
	const struct acpi_fadt *f = (const void *)acpi_find_table("FACP", 0);

	/* tables.c passes only FADTs with every field up to flags (116 bytes) */
	if (!f || f->h.length < offsetof(struct acpi_fadt, reset_reg)) {
		pr_printf(p, "no usable FADT\n");
		return;
	}
	pr_printf(p, "FADT revision %u, %u bytes\n", f->h.revision, f->h.length);
	pr_printf(p, "  SCI interrupt:   %u\n", f->sci_int);
	pr_printf(p, "  SMI command:     %#x (ACPI enable %#x, disable %#x)\n", f->smi_cmd,
		  f->acpi_enable, f->acpi_disable);
	pr_printf(p, "  PM1a event:      %#x (%u bytes)   PM1a control: %#x (%u bytes)\n",
		  f->pm1a_evt_blk, f->pm1_evt_len, f->pm1a_cnt_blk, f->pm1_cnt_len);
	pr_printf(p, "  PM timer:        %#x (%u bytes)\n", f->pm_tmr_blk, f->pm_tmr_len);
	pr_printf(p, "  GPE0 block:      %#x (%u bytes: status then enable)\n", f->gpe0_blk,
		  f->gpe0_blk_len);
	pr_printf(p, "  DSDT:            %#x\n", f->dsdt);
	pr_printf(p, "  flags:           %#x\n", f->flags);
	if (f->h.length >= offsetof(struct acpi_fadt, reset_value) + 1)
		pr_printf(p, "  reset register:  space %u address %#llx value %#x%s\n",
			  f->reset_reg.space_id, (unsigned long long)f->reset_reg.address,
			  f->reset_value, f->flags & (1u << 10) ? "" : " (not supported)");
}

#define DECODE_MAX_ENTRIES	256	/* a view, not a dump of a 16 MiB table */

/* The rest of a processor affinity line: disabled, or the node it is on. */
static void decode_cpu_node(struct printer *p, u32 pxm, u32 flags)
{
	int nid = acpi_pxm_find_node(pxm);

	if (!(flags & 1))
		pr_printf(p, " (disabled)\n");
	else if (nid == NUMA_NO_NODE)
		pr_printf(p, " -> no node (no memory in that domain)\n");
	else
		pr_printf(p, " -> node %d\n", nid);
}

void acpi_decode_srat(struct printer *p)
{
	const struct acpi_sdt_header *h = acpi_find_table("SRAT", 0);
	const u8 *t = (const u8 *)h;
	unsigned shown = 0;
	u32 off;

	if (!h) {
		pr_printf(p, "no SRAT: one node\n");
		return;
	}
	pr_printf(p, "SRAT revision %u, %u bytes\n", h->revision, h->length);
	for (off = 48; off + 2 <= h->length && t[off + 1] >= 2 &&
	     t[off + 1] <= h->length - off; off += t[off + 1]) {
		u8 type = t[off], len = t[off + 1];

		if (shown++ == DECODE_MAX_ENTRIES) {
			pr_printf(p, "  ... (only the first %u entries are shown)\n",
				  DECODE_MAX_ENTRIES);
			return;
		}
		if (type == 0 && len >= 16) {	/* local APIC affinity */
			u32 flags, pxm = t[off + 2];

			memcpy(&flags, t + off + 4, 4);
			if (h->revision > 1)
				pxm |= (u32)t[off + 9] << 8 | (u32)t[off + 10] << 16 |
				       (u32)t[off + 11] << 24;
			pr_printf(p, "  processor: APIC id %u, proximity %u", t[off + 3], pxm);
			decode_cpu_node(p, pxm, flags);
		} else if (type == 2 && len >= 24) {	/* x2APIC affinity */
			u32 flags, pxm, id;

			memcpy(&pxm, t + off + 4, 4);
			memcpy(&id, t + off + 8, 4);
			memcpy(&flags, t + off + 12, 4);
			pr_printf(p, "  processor: x2APIC id %u, proximity %u", id, pxm);
			decode_cpu_node(p, pxm, flags);
		} else if (type == 1 && len >= 40) {
			u32 pxm, flags;
			u64 base, size;
			int nid;

			memcpy(&pxm, t + off + 2, 4);
			memcpy(&base, t + off + 8, 8);
			memcpy(&size, t + off + 16, 8);
			memcpy(&flags, t + off + 28, 4);
			if (h->revision <= 1)
				pxm &= 0xff;
			pr_printf(p, "  memory: [mem 0x%016llx-0x%016llx] proximity %u%s%s%s",
				  (unsigned long long)base, (unsigned long long)(base + size - !!size),
				  pxm, flags & 1 ? "" : " disabled", flags & 2 ? " hotpluggable" : "",
				  flags & 4 ? " non-volatile" : "");
			/* a lookup: showing the table must not number new nodes */
			nid = acpi_pxm_find_node(pxm);
			if (nid == NUMA_NO_NODE)
				pr_printf(p, " -> no node\n");
			else
				pr_printf(p, " -> node %d\n", nid);
		} else {
			pr_printf(p, "  entry type %u, %u bytes\n", type, len);
		}
	}
	if (off < h->length)
		pr_printf(p, "  malformed entry at offset %u (%u bytes left): the SRAT is ignored\n",
			  off, h->length - off);
}

void acpi_decode_slit(struct printer *p)
{
	const struct acpi_sdt_header *h = acpi_find_table("SLIT", 0);
	const u8 *t = (const u8 *)h;
	u64 n;

	if (!h) {
		pr_printf(p, "no SLIT: distances are 10 (local) and 20 (remote)\n");
		return;
	}
	memcpy(&n, t + sizeof(*h), 8);
	if (!n || n > 256 || sizeof(*h) + 8 + n * n > h->length) {
		pr_printf(p, "SLIT: %llu localities do not fit in %u bytes\n",
			  (unsigned long long)n, h->length);
		return;
	}
	if (n > 64) {
		pr_printf(p, "SLIT: %llu localities, too many to show\n", (unsigned long long)n);
		return;
	}
	pr_printf(p, "SLIT: %llu localities (proximity domains)\n", (unsigned long long)n);
	for (u64 a = 0; a < n; a++) {
		pr_printf(p, "  %3llu:", (unsigned long long)a);
		for (u64 b = 0; b < n; b++)
			pr_printf(p, " %3u", t[sizeof(*h) + 8 + a * n + b]);
		pr_printf(p, "\n");
	}
}

void acpi_decode_mcfg(struct printer *p)
{
	const struct acpi_sdt_header *h = acpi_find_table("MCFG", 0);
	const u8 *t = (const u8 *)h;

	if (!h) {
		pr_printf(p, "no MCFG: no PCI Express configuration space\n");
		return;
	}
	pr_printf(p, "MCFG: %u entries\n", (h->length - 44) / 16);
	for (u32 off = 44; off + 16 <= h->length; off += 16) {
		u64 base;
		u16 seg;
		u8 start_bus = t[off + 10], end_bus = t[off + 11];

		if ((off - 44) / 16 == DECODE_MAX_ENTRIES) {
			pr_printf(p, "  ... (only the first %u entries are shown)\n",
				  DECODE_MAX_ENTRIES);
			return;
		}
		memcpy(&base, t + off, 8);
		memcpy(&seg, t + off + 8, 2);
		if (end_bus < start_bus)
			pr_printf(p, "  segment %u, buses %u-%u: the end bus is below the start bus\n",
				  seg, start_bus, end_bus);
		else	/* 32 devices x 8 functions x 4 KiB: 1 MiB per bus */
			pr_printf(p, "  segment %u, buses %u-%u, ECAM at %#llx (%u MiB)\n", seg,
				  start_bus, end_bus, (unsigned long long)base,
				  end_bus - start_bus + 1u);
	}
}

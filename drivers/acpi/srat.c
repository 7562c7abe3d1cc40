/*
 * srat.c - NUMA topology from the ACPI SRAT (memory affinity) and SLIT
 * (distances).
 *
 * The SRAT lists memory ranges with a proximity domain (pxm) and flags:
 * enabled, hot-pluggable, non-volatile.  memlab numbers nodes in the order
 * their proximity domains first appear, as Linux does, and gives mm/ plain
 * (start, end, nid, hotpluggable) ranges.  QEMU with maxmem= adds one
 * hot-pluggable entry for the whole device-memory window; it describes no
 * RAM at boot and is kept for the hotplug code.  The SLIT, when present,
 * gives the distance between domains (10 = local).
 *
 * Every entry is bounds-checked against the table length; malformed ones
 * are reported and skipped.  Context: (boot).
 */
#include <drivers/acpi.h>
#include <mm/mm_init.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#define SRAT_HEADER_LEN		48	/* ACPI header + 12 reserved bytes */
#define SRAT_MEMORY_AFFINITY	1
#define SRAT_MEM_ENABLED	(1u << 0)
#define SRAT_MEM_HOTPLUGGABLE	(1u << 1)
#define SRAT_MEM_NONVOLATILE	(1u << 2)

static u32 pxm_of_node[MAX_NUMNODES];
static int nr_pxm_nodes;

/* The node for proximity domain pxm, allocating the next free id. */
int acpi_pxm_to_node(u32 pxm)
{
	for (int nid = 0; nid < nr_pxm_nodes; nid++)
		if (pxm_of_node[nid] == pxm)
			return nid;
	if (nr_pxm_nodes == MAX_NUMNODES)
		return NUMA_NO_NODE;
	pxm_of_node[nr_pxm_nodes] = pxm;
	return nr_pxm_nodes++;
}

/* node -> pxm, for views; -1 if the node came from no SRAT entry. */
long acpi_node_to_pxm(int nid)
{
	return nid >= 0 && nid < nr_pxm_nodes ? (long)pxm_of_node[nid] : -1;
}

static void parse_slit(struct mm_boot_params *bp)
{
	const struct acpi_sdt_header *h = acpi_find_table("SLIT", 0);
	const u8 *t = (const u8 *)h;
	u64 n;

	if (!h || h->length < sizeof(*h) + 8)
		return;
	memcpy(&n, t + sizeof(*h), 8);
	if (n == 0 || n > 256 || sizeof(*h) + 8 + n * n > h->length) {
		pr_warn("srat: SLIT with %llu localities does not fit its %u bytes; ignored",
			(unsigned long long)n, h->length);
		return;
	}
	for (int a = 0; a < nr_pxm_nodes; a++)
		for (int b = 0; b < nr_pxm_nodes; b++)
			if (pxm_of_node[a] < n && pxm_of_node[b] < n)
				bp->distance[a][b] = t[sizeof(*h) + 8 + pxm_of_node[a] * n +
						       pxm_of_node[b]];
}

/*
 * srat_parse() - fill bp->numa[] from the SRAT and bp->distance from the
 * SLIT.  Without an SRAT nothing is filled (one node).  Returns the number
 * of ranges found.
 */
int srat_parse(struct mm_boot_params *bp)
{
	const struct acpi_sdt_header *h = acpi_find_table("SRAT", 0);
	const u8 *t = (const u8 *)h;
	u32 off;

	if (!h)
		return 0;
	if (h->length < SRAT_HEADER_LEN) {
		pr_warn("srat: table of %u bytes is shorter than its header; ignored", h->length);
		return 0;
	}
	for (off = SRAT_HEADER_LEN; off + 2 <= h->length; off += t[off + 1]) {
		u8 type = t[off], len = t[off + 1];
		u32 pxm, flags;
		u64 base, size;
		int nid;

		if (len < 2 || off + len > h->length) {
			pr_warn("srat: entry at offset %u has length %u past the table end; stopping",
				off, len);
			break;
		}
		if (type != SRAT_MEMORY_AFFINITY)
			continue;
		if (len < 40) {
			pr_warn("srat: memory affinity entry at offset %u is %u bytes, not 40; skipped",
				off, len);
			continue;
		}
		memcpy(&pxm, t + off + 2, 4);
		memcpy(&base, t + off + 8, 8);
		memcpy(&size, t + off + 16, 8);
		memcpy(&flags, t + off + 28, 4);
		if (h->revision <= 1)
			pxm &= 0xff;	/* ACPI 2.0: only the low byte was defined */
		if (!(flags & SRAT_MEM_ENABLED) || !size)
			continue;
		if (base + size < base) {
			pr_warn("srat: range at %#llx of %#llx bytes wraps; skipped",
				(unsigned long long)base, (unsigned long long)size);
			continue;
		}
		nid = acpi_pxm_to_node(pxm);
		if (nid == NUMA_NO_NODE) {
			pr_warn("srat: proximity domain %u: more than %d nodes; range skipped",
				pxm, MAX_NUMNODES);
			continue;
		}
		if (bp->nr_numa == MM_MAX_NUMA_BLKS) {
			pr_warn("srat: more than %d memory ranges; the rest are ignored",
				MM_MAX_NUMA_BLKS);
			break;
		}
		bp->numa[bp->nr_numa++] = (struct numa_memblk){
			.start = base, .end = base + size, .nid = nid,
			.hotpluggable = flags & SRAT_MEM_HOTPLUGGABLE,
		};
		pr_info("ACPI: SRAT: Node %d PXM %u [mem 0x%08llx-0x%08llx]%s%s", nid, pxm,
			(unsigned long long)base, (unsigned long long)(base + size - 1),
			flags & SRAT_MEM_HOTPLUGGABLE ? " hotplug" : "",
			flags & SRAT_MEM_NONVOLATILE ? " non-volatile" : "");
	}
	parse_slit(bp);
	return (int)bp->nr_numa;
}

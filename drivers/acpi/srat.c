/*
 * srat.c - NUMA topology from the ACPI SRAT (memory affinity) and SLIT
 * (distances).
 *
 * The SRAT lists memory ranges with a proximity domain (pxm) and flags:
 * enabled, hot-pluggable, non-volatile; and processors by APIC id with
 * their domain (type 0 for an 8-bit local APIC id, type 2 for a 32-bit
 * x2APIC id), which drivers/acpi/numa_cpus.c joins to the MADT's list.  memlab numbers nodes in the order
 * their proximity domains first appear, as Linux does, and gives mm/ plain
 * (start, end, nid, hotpluggable) ranges.  QEMU with maxmem= adds one
 * hot-pluggable entry for the whole device-memory window; it describes no
 * RAM at boot and is kept for the hotplug code.  The SLIT, when present,
 * gives the distance between domains (10 = local).
 *
 * Every entry is bounds-checked against the table length.  A malformed
 * SRAT is ignored as a whole (one node), with the reason in the log; a
 * malformed SLIT too (default distances).  Context: (boot).
 */
#include <drivers/acpi.h>
#include <mm/mm_init.h>
#include <lib/printk.h>
#include <lib/string.h>

#define SRAT_HEADER_LEN		48	/* ACPI header + 12 reserved bytes */
#define SLIT_HEADER_LEN		44	/* ACPI header + number of localities */
#define SRAT_MEMORY_AFFINITY	1
#define SRAT_MEMORY_LEN		40
#define SRAT_MEM_ENABLED	(1u << 0)
#define SRAT_MEM_HOTPLUGGABLE	(1u << 1)
#define SRAT_MEM_NONVOLATILE	(1u << 2)
#define SRAT_CPU_AFFINITY	0	/* local APIC: pxm low byte, id, flags, pxm high */
#define SRAT_CPU_LEN		16
#define SRAT_X2APIC_AFFINITY	2	/* x2APIC: pxm, id, flags */
#define SRAT_X2APIC_LEN		24
#define SRAT_CPU_ENABLED	(1u << 0)

struct srat_cpu {
	u32 apic_id;
	u32 pxm;
};

static struct srat_cpu srat_cpus[SRAT_MAX_CPUS];
static unsigned nr_srat_cpus, nr_srat_cpus_dropped;

static u32 pxm_of_node[MAX_NUMNODES];
static int nr_pxm_nodes;

/* The node already given to proximity domain pxm, or NUMA_NO_NODE. */
int acpi_pxm_find_node(u32 pxm)
{
	for (int nid = 0; nid < nr_pxm_nodes; nid++)
		if (pxm_of_node[nid] == pxm)
			return nid;
	return NUMA_NO_NODE;
}

/* The node for proximity domain pxm, allocating the next free id. */
int acpi_pxm_to_node(u32 pxm)
{
	int nid = acpi_pxm_find_node(pxm);

	if (nid != NUMA_NO_NODE)
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

long srat_cpu_pxm(u32 apic_id)
{
	for (unsigned i = 0; i < nr_srat_cpus; i++)
		if (srat_cpus[i].apic_id == apic_id)
			return srat_cpus[i].pxm;
	return -1;
}

/*
 * A processor affinity entry: kept unless disabled (ACPI: ignore it), or
 * its APIC id has an entry already (the first one stays: two domains for
 * one CPU cannot both be right), or the table is full (counted, one
 * warning).
 */
static void add_srat_cpu(u32 apic_id, u32 pxm, u32 flags, u32 off)
{
	if (!(flags & SRAT_CPU_ENABLED))
		return;
	if (srat_cpu_pxm(apic_id) >= 0) {
		pr_warn("srat: processor entry at offset %u: APIC id %u has a proximity domain "
			"already (%ld); this one (%u) is skipped", off, apic_id,
			srat_cpu_pxm(apic_id), pxm);
		return;
	}
	if (nr_srat_cpus == SRAT_MAX_CPUS) {
		if (!nr_srat_cpus_dropped++)
			pr_warn("srat: more than %d processor entries; APIC id %u and the rest have "
				"no affinity", SRAT_MAX_CPUS, apic_id);
		return;
	}
	srat_cpus[nr_srat_cpus++] = (struct srat_cpu){ .apic_id = apic_id, .pxm = pxm };
}

/*
 * Distances from the SLIT, for the nodes the SRAT made: all or nothing.
 * ACPI: the matrix is n x n bytes, row = from, column = to; 10 on the
 * diagonal (local), more than 10 elsewhere (255: unreachable); 0-9 are
 * reserved.  A SLIT that breaks a rule, or that does not cover every
 * proximity domain the SRAT uses, is ignored with the reason.
 */
static void parse_slit(struct mm_boot_params *bp)
{
	const struct acpi_sdt_header *h = acpi_find_table("SLIT", 0);
	const u8 *t = (const u8 *)h, *m;
	u64 n;

	if (!h || !nr_pxm_nodes)
		return;
	m = t + SLIT_HEADER_LEN;
	memcpy(&n, t + sizeof(*h), 8);		/* 44 bytes: checked by tables.c */
	if (n == 0 || n > 256 || n * n > h->length - SLIT_HEADER_LEN) {
		pr_warn("srat: SLIT with %llu localities does not fit its %u bytes; SLIT ignored",
			(unsigned long long)n, h->length);
		return;
	}
	for (u64 a = 0; a < n; a++)
		for (u64 b = 0; b < n; b++) {
			u8 d = m[a * n + b];

			if (a == b ? d != 10 : d <= 10) {
				pr_warn("srat: SLIT distance from locality %llu to %llu is %u, not %s; "
					"SLIT ignored", (unsigned long long)a, (unsigned long long)b,
					d, a == b ? "10" : "more than 10");
				return;
			}
		}
	for (int nid = 0; nid < nr_pxm_nodes; nid++)
		if (pxm_of_node[nid] >= n) {
			pr_warn("srat: SLIT has %llu localities but node %d is proximity domain %u; "
				"SLIT ignored", (unsigned long long)n, nid, pxm_of_node[nid]);
			return;
		}
	for (int a = 0; a < nr_pxm_nodes; a++)
		for (int b = 0; b < nr_pxm_nodes; b++)
			bp->distance[a][b] = m[pxm_of_node[a] * n + pxm_of_node[b]];
}

/* Say why (one line), and forget a half-read SRAT: no ranges, no nodes,
 * no distances.  Returns 0, srat_parse's "no SRAT". */
static int __printf(2, 3) srat_reject(struct mm_boot_params *bp, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pr_warn("srat: %s; SRAT ignored: no NUMA information, one node", why);
	bp->nr_numa = 0;
	memset(bp->numa, 0, sizeof(bp->numa));
	memset(bp->distance, 0, sizeof(bp->distance));
	memset(pxm_of_node, 0, sizeof(pxm_of_node));
	nr_pxm_nodes = 0;
	nr_srat_cpus = nr_srat_cpus_dropped = 0;
	return 0;
}

/*
 * srat_parse() - fill bp->numa[] from the SRAT and bp->distance from the
 * SLIT; see acpi.h.  Starts over: earlier nodes, ranges and distances are
 * forgotten.  An SRAT that is malformed (an entry shorter than 2 bytes or
 * running past the table, a memory entry shorter than 40 bytes), or that
 * memlab cannot represent (a range that wraps past 2^64, more than
 * MAX_NUMNODES proximity domains or MM_MAX_NUMA_BLKS ranges, ranges of two
 * nodes that overlap, a processor entry shorter than its type's 16 or 24
 * bytes), is ignored as a whole with the reason: one node, rather than a
 * guess.  Processor entries are collected for srat_cpu_pxm(); they number
 * no node (a domain with CPUs and no memory gets none).  Disabled and empty entries are skipped, as ACPI
 * says; so is a range beyond MAX_PHYSMEM_BITS, with a warning.
 */
int srat_parse(struct mm_boot_params *bp)
{
	const struct acpi_sdt_header *h = acpi_find_table("SRAT", 0);
	const u8 *t = (const u8 *)h;
	u64 nonvolatile = 0;	/* bit i: bp->numa[i] is non-volatile */
	u32 off;
	u8 len;

	_Static_assert(MM_MAX_NUMA_BLKS <= 64, "one bit per range in nonvolatile");
	memset(pxm_of_node, 0, sizeof(pxm_of_node));
	nr_pxm_nodes = 0;
	nr_srat_cpus = nr_srat_cpus_dropped = 0;
	bp->nr_numa = 0;
	memset(bp->distance, 0, sizeof(bp->distance));
	if (!h)
		return 0;
	/* tables.c passed it: at least SRAT_HEADER_LEN bytes */
	for (off = SRAT_HEADER_LEN; off < h->length; off += len) {
		u8 type;
		u32 pxm, flags;
		u64 base, size, end;
		int nid;

		if (h->length - off < 2)
			return srat_reject(bp, "%u stray byte at offset %u after the last entry",
					   h->length - off, off);
		type = t[off];
		len = t[off + 1];
		if (len < 2 || len > h->length - off)
			return srat_reject(bp, "entry at offset %u (type %u) has length %u, %s",
					   off, type, len, len < 2 ? "less than 2" :
					   "past the end of the table");
		if (type == SRAT_CPU_AFFINITY || type == SRAT_X2APIC_AFFINITY) {
			u8 need = type == SRAT_CPU_AFFINITY ? SRAT_CPU_LEN : SRAT_X2APIC_LEN;
			u32 id;

			if (len < need)
				return srat_reject(bp, "processor entry at offset %u (type %u) has "
						   "length %u, not %u", off, type, len, need);
			if (type == SRAT_CPU_AFFINITY) {
				id = t[off + 3];
				memcpy(&flags, t + off + 4, 4);
				pxm = t[off + 2];
				if (h->revision > 1)	/* ACPI 3.0 added bits 8-31 */
					pxm |= (u32)t[off + 9] << 8 | (u32)t[off + 10] << 16 |
					       (u32)t[off + 11] << 24;
			} else {
				memcpy(&pxm, t + off + 4, 4);
				memcpy(&id, t + off + 8, 4);
				memcpy(&flags, t + off + 12, 4);
			}
			add_srat_cpu(id, pxm, flags, off);
			continue;
		}
		if (type != SRAT_MEMORY_AFFINITY)
			continue;
		if (len < SRAT_MEMORY_LEN)
			return srat_reject(bp, "memory entry at offset %u has length %u, not %u",
					   off, len, SRAT_MEMORY_LEN);
		memcpy(&pxm, t + off + 2, 4);
		memcpy(&base, t + off + 8, 8);
		memcpy(&size, t + off + 16, 8);
		memcpy(&flags, t + off + 28, 4);
		if (h->revision <= 1)
			pxm &= 0xff;	/* ACPI 2.0: only the low byte was defined */
		if (!(flags & SRAT_MEM_ENABLED) || !size)
			continue;
		end = base + size;
		if (end < base)
			return srat_reject(bp, "memory entry at offset %u: %#llx bytes at %#llx "
					   "wrap past 2^64", off, (unsigned long long)size,
					   (unsigned long long)base);
		if (end > (1ULL << MAX_PHYSMEM_BITS)) {
			pr_warn("srat: [mem %#llx-%#llx] (pxm %u) is beyond the %d-bit physical "
				"address space; skipped", (unsigned long long)base,
				(unsigned long long)(end - 1), pxm, MAX_PHYSMEM_BITS);
			continue;
		}
		nid = acpi_pxm_to_node(pxm);
		if (nid == NUMA_NO_NODE)
			return srat_reject(bp, "proximity domain %u at offset %u: more than %d domains",
					   pxm, off, MAX_NUMNODES);
		for (u32 i = 0; i < bp->nr_numa; i++) {
			const struct numa_memblk *o = &bp->numa[i];

			if (o->nid != nid && base < o->end && o->start < end)
				return srat_reject(bp, "[mem %#llx-%#llx] of pxm %u overlaps "
						   "[mem %#llx-%#llx] of pxm %u",
						   (unsigned long long)base,
						   (unsigned long long)(end - 1), pxm,
						   (unsigned long long)o->start,
						   (unsigned long long)(o->end - 1), pxm_of_node[o->nid]);
		}
		if (bp->nr_numa == MM_MAX_NUMA_BLKS)
			return srat_reject(bp, "more than %d memory ranges", MM_MAX_NUMA_BLKS);
		if (flags & SRAT_MEM_NONVOLATILE)
			nonvolatile |= 1ULL << bp->nr_numa;
		bp->numa[bp->nr_numa++] = (struct numa_memblk){
			.start = base, .end = end, .nid = nid,
			.hotpluggable = flags & SRAT_MEM_HOTPLUGGABLE,
		};
	}
	for (u32 i = 0; i < bp->nr_numa; i++) {
		const struct numa_memblk *b = &bp->numa[i];

		pr_info("ACPI: SRAT: Node %d PXM %u [mem 0x%08llx-0x%08llx]%s%s", b->nid,
			pxm_of_node[b->nid], (unsigned long long)b->start,
			(unsigned long long)(b->end - 1), b->hotpluggable ? " hotplug" : "",
			nonvolatile & (1ULL << i) ? " non-volatile" : "");
	}
	parse_slit(bp);
	return (int)bp->nr_numa;
}

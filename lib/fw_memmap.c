/*
 * fw_memmap.c - the firmware memory map: recorded raw, then sanitized.
 *
 * A firmware memory map (e820, handed over in the multiboot2 memory-map tag)
 * is a list of (start, length, type).  Real firmware gives lists that are
 * unsorted, overlap, repeat themselves, contain zero-length entries, run past
 * the top of the address space or cut RAM in the middle of a page.  The rest
 * of memlab wants one clean answer to "what is at physical address X", so
 * fw_memmap_sanitize() rebuilds m->map from m->raw in three steps:
 *
 *  1. clip   Every raw entry becomes a half-open range [start, end) inside
 *            [0, 2^52): 52 bits is the architectural limit of x86_64
 *            physical addresses.  Zero-length entries and entries wholly
 *            above the limit are dropped; entries whose start + length wraps
 *            past 2^64, or that end above the limit, are cut at the limit.
 *
 *  2. sweep  The start and the end of every clipped entry are collected and
 *            sorted.  Between two consecutive boundaries the set of entries
 *            covering the bytes cannot change, so each such elementary
 *            interval gets one type: that of the winning entry among those
 *            covering it (rule below), or none (a hole).  Intervals are
 *            emitted in address order and merged with the previous range
 *            when they touch it and have its type, so adjacent entries of
 *            one type become one range.
 *
 *  3. trim   Each RAM range is shrunk inward to whole 4 KiB pages.  What is
 *            cut off becomes a hole: it is not RAM, and nothing else owns it.
 *
 * Who wins an overlap.  Each byte gets the type of the most restrictive
 * entry covering it, so memlab never hands out memory that any entry says is
 * not free RAM:
 *
 *     Unusable (5)  >  Reserved (2), and every unknown type
 *                   >  ACPI Non-volatile Storage (4)
 *                   >  ACPI Tables (3)
 *                   >  Persistent Memory (7, 12)
 *                   >  System RAM (1)
 *
 * Unknown types rank with Reserved but keep their number, so the map still
 * says what the firmware said.  Between two different types of one rank the
 * larger number wins, so the result never depends on the order of the
 * entries.  (Linux's e820__update_table() lets the larger type number win
 * everywhere; the order above differs only for NVS over Reserved.)
 *
 * Every change is recorded as a note in words with the range it concerns,
 * for the `memmap` shell command (fw_memmap_dump).  The sanitized map can
 * also be printed alone the way Linux prints /proc/iomem
 * (fw_memmap_print_iomem), with nested ranges passed in, which the host
 * tests and the fuzz target use to check the map's text; the kernel's
 * /proc/iomem prints the resource tree (kernel/resource.c) instead, whose
 * top level kernel/resource_boot.c builds from this map.
 *
 * Nothing here allocates: the sweep needs one array of 2 * FW_MEMMAP_MAX
 * boundaries on the stack (2 KiB) and O(n^2) time for n raw entries, which is
 * nothing for n <= 128.  Safe before any allocator exists.
 */
#include <lib/fw_memmap.h>
#include <lib/printer.h>
#include <lib/string.h>

/* Rank of a type in the overlap rule above; higher wins. */
static int type_rank(u32 type)
{
	switch (type) {
	case FW_MEM_RAM:	return 1;
	case FW_MEM_PMEM:
	case FW_MEM_PRAM:	return 2;
	case FW_MEM_ACPI:	return 3;
	case FW_MEM_NVS:	return 4;
	case FW_MEM_BAD:	return 6;
	default:		return 5;	/* Reserved and unknown types */
	}
}

/* Does type a win over type b for a byte both cover? */
static bool type_beats(u32 a, u32 b)
{
	int ra = type_rank(a), rb = type_rank(b);

	return ra != rb ? ra > rb : a > b;
}

/*
 * fw_mem_type_name() - the name Linux prints in /proc/iomem for an e820
 * type (Linux's arch/x86/kernel/e820.c, e820_type_to_string()).
 */
const char *fw_mem_type_name(u32 type)
{
	switch (type) {
	case FW_MEM_RAM:		return "System RAM";
	case FW_MEM_RESERVED:		return "Reserved";
	case FW_MEM_ACPI:		return "ACPI Tables";
	case FW_MEM_NVS:		return "ACPI Non-volatile Storage";
	case FW_MEM_BAD:		return "Unusable memory";
	case FW_MEM_PMEM:		return "Persistent Memory";
	case FW_MEM_PRAM:		return "Persistent Memory (legacy)";
	case FW_MEM_SOFT_RESERVED:	return "Soft Reserved";
	default:			return "Unknown E820 type";
	}
}

u32 fw_mem_type_from_efi(u32 efi_type, u64 attr)
{
	switch (efi_type) {
	case 1:		/* EfiLoaderCode */
	case 2:		/* EfiLoaderData */
	case 3:		/* EfiBootServicesCode */
	case 4:		/* EfiBootServicesData */
	case 7:		/* EfiConventionalMemory */
		if (efi_type == 7 && (attr & FW_EFI_MEMORY_SP))
			return FW_MEM_SOFT_RESERVED;
		return (attr & FW_EFI_MEMORY_WB) ? FW_MEM_RAM : FW_MEM_RESERVED;
	case 8:		return FW_MEM_BAD;	/* EfiUnusableMemory */
	case 9:		return FW_MEM_ACPI;	/* EfiACPIReclaimMemory */
	case 10:	return FW_MEM_NVS;	/* EfiACPIMemoryNVS */
	case 14:	return FW_MEM_PMEM;	/* EfiPersistentMemory */
	default:	return FW_MEM_RESERVED;	/* runtime services, MMIO, PAL code, ... */
	}
}

/* The short name used in notes: "RAM", "Reserved", ... or "type 9". */
static const char *type_short(u32 type, char *buf, size_t size)
{
	switch (type) {
	case FW_MEM_RAM:	return "RAM";
	case FW_MEM_RESERVED:	return "Reserved";
	case FW_MEM_ACPI:	return "ACPI";
	case FW_MEM_NVS:	return "NVS";
	case FW_MEM_BAD:	return "Unusable";
	case FW_MEM_PMEM:	return "PMEM";
	case FW_MEM_PRAM:	return "PRAM";
	default:
		ksnprintf(buf, size, "type %u", type);
		return buf;
	}
}

/* Append a note to m; past FW_MEMMAP_NOTES notes are only counted. */
static void __printf(2, 3) note(struct fw_memmap *m, const char *fmt, ...)
{
	va_list ap;

	if (m->nr_notes < FW_MEMMAP_NOTES) {
		va_start(ap, fmt);
		kvsnprintf(m->notes[m->nr_notes], FW_NOTE_LEN, fmt, ap);
		va_end(ap);
	}
	m->nr_notes++;
}

void fw_memmap_init(struct fw_memmap *m)
{
	memset(m, 0, sizeof(*m));
}

/*
 * fw_memmap_add_raw() - record an entry as given.  The end is stored modulo
 * 2^64, which loses nothing: len == 0 gives end == start, and a wrapping
 * entry (len > 0) gives end < start, since len < 2^64.
 */
void fw_memmap_add_raw(struct fw_memmap *m, u64 start, u64 len, u32 type)
{
	if (m->nr_raw >= FW_MEMMAP_MAX) {
		m->nr_raw_dropped++;
		return;
	}
	m->raw[m->nr_raw].start = start;
	m->raw[m->nr_raw].end = start + len;
	m->raw[m->nr_raw].type = type;
	m->nr_raw++;
}

enum clip_result {
	CLIP_OK,	/* [*start, *end) is the entry as given */
	CLIP_EMPTY,	/* zero length: dropped */
	CLIP_ABOVE,	/* starts at or above FW_PHYS_LIMIT: dropped */
	CLIP_WRAP,	/* start + len wraps past 2^64: cut at FW_PHYS_LIMIT */
	CLIP_LIMIT,	/* ends above FW_PHYS_LIMIT: cut there */
};

/*
 * Step 1 for one raw entry: its clipped range in *start, *end, valid unless
 * the result is CLIP_EMPTY or CLIP_ABOVE.  Pure, so the note pass and the
 * sweep can both call it.
 */
static enum clip_result clip_raw(const struct fw_range *r, u64 *start, u64 *end)
{
	*start = r->start;
	*end = r->end;
	if (r->end == r->start)
		return CLIP_EMPTY;
	if (r->start >= FW_PHYS_LIMIT)
		return CLIP_ABOVE;
	if (r->end < r->start) {
		*end = FW_PHYS_LIMIT;
		return CLIP_WRAP;
	}
	if (r->end > FW_PHYS_LIMIT) {
		*end = FW_PHYS_LIMIT;
		return CLIP_LIMIT;
	}
	return CLIP_OK;
}

/* Note what step 1 does to each raw entry. */
static void note_clipping(struct fw_memmap *m)
{
	char tb[16];
	u64 s, e;

	for (u32 i = 0; i < m->nr_raw; i++) {
		const struct fw_range *r = &m->raw[i];
		const char *t = type_short(r->type, tb, sizeof(tb));

		switch (clip_raw(r, &s, &e)) {
		case CLIP_OK:
			break;
		case CLIP_EMPTY:
			note(m, "dropped zero-length %s entry at 0x%llx",
			     t, (unsigned long long)r->start);
			break;
		case CLIP_ABOVE:
			note(m, "dropped %s at 0x%llx length 0x%llx: above the %d-bit physical address limit",
			     t, (unsigned long long)r->start,
			     (unsigned long long)(r->end - r->start), FW_PHYS_ADDR_BITS);
			break;
		case CLIP_WRAP:
			note(m, "clipped %s at 0x%llx length 0x%llx: wraps past 2^64, kept [0x%llx-0x%llx)",
			     t, (unsigned long long)r->start,
			     (unsigned long long)(r->end - r->start),
			     (unsigned long long)s, (unsigned long long)e);
			break;
		case CLIP_LIMIT:
			note(m, "clipped %s [0x%llx-0x%llx) to [0x%llx-0x%llx): beyond the %d-bit physical address limit",
			     t, (unsigned long long)r->start, (unsigned long long)r->end,
			     (unsigned long long)s, (unsigned long long)e, FW_PHYS_ADDR_BITS);
			break;
		}
	}
}

/*
 * Note every pair of clipped raw entries that overlap, and every pair of
 * one type that touch, saying which type the overlap goes to.  Notes only:
 * the sweep does the work.
 */
static void note_overlaps(struct fw_memmap *m)
{
	char ta[16], tb[16];
	u64 as, ae, bs, be;

	for (u32 i = 0; i < m->nr_raw; i++) {
		const struct fw_range *a = &m->raw[i];
		enum clip_result ca = clip_raw(a, &as, &ae);

		if (ca == CLIP_EMPTY || ca == CLIP_ABOVE)
			continue;
		for (u32 j = i + 1; j < m->nr_raw; j++) {
			const struct fw_range *b = &m->raw[j];
			enum clip_result cb = clip_raw(b, &bs, &be);
			u64 lo = MAX(as, bs), hi = MIN(ae, be);
			const char *na, *nb;

			if (cb == CLIP_EMPTY || cb == CLIP_ABOVE)
				continue;
			na = type_short(a->type, ta, sizeof(ta));
			nb = type_short(b->type, tb, sizeof(tb));
			if (lo < hi && a->type != b->type) {
				note(m, "%s [0x%llx-0x%llx) overlaps %s [0x%llx-0x%llx): %s wins for [0x%llx-0x%llx)",
				     na, (unsigned long long)as, (unsigned long long)ae,
				     nb, (unsigned long long)bs, (unsigned long long)be,
				     type_beats(a->type, b->type) ? na : nb,
				     (unsigned long long)lo, (unsigned long long)hi);
			} else if (lo < hi) {
				note(m, "%s [0x%llx-0x%llx) overlaps %s [0x%llx-0x%llx): merged",
				     na, (unsigned long long)as, (unsigned long long)ae,
				     nb, (unsigned long long)bs, (unsigned long long)be);
			} else if (lo == hi && a->type == b->type) {
				note(m, "%s [0x%llx-0x%llx) and [0x%llx-0x%llx) are adjacent: merged",
				     na, (unsigned long long)MIN(as, bs),
				     (unsigned long long)lo, (unsigned long long)lo,
				     (unsigned long long)MAX(ae, be));
			}
		}
	}
}

/*
 * Append [start, end) of type to m->map, or extend the last range when it
 * ends at start with the same type.  When map[] is full the range is only
 * counted in m->nr_dropped (sweep() notes the total).
 */
static void emit(struct fw_memmap *m, u64 start, u64 end, u32 type)
{
	struct fw_range *last = m->nr ? &m->map[m->nr - 1] : NULL;

	if (last && last->end == start && last->type == type) {
		last->end = end;
		return;
	}
	if (m->nr >= FW_MEMMAP_MAX) {
		m->nr_dropped++;
		return;
	}
	m->map[m->nr].start = start;
	m->map[m->nr].end = end;
	m->map[m->nr].type = type;
	m->nr++;
}

/*
 * Step 2.  bounds[] gets the start and end of every clipped entry, sorted by
 * insertion sort and de-duplicated; then each elementary interval
 * [bounds[k], bounds[k+1]) goes to the winning type among the entries that
 * cover all of it, if any.
 */
static void sweep(struct fw_memmap *m)
{
	u64 bounds[2 * FW_MEMMAP_MAX];
	u32 nb = 0, n = 0;
	u64 s, e;

	for (u32 i = 0; i < m->nr_raw; i++) {
		enum clip_result c = clip_raw(&m->raw[i], &s, &e);

		if (c == CLIP_EMPTY || c == CLIP_ABOVE)
			continue;
		bounds[nb++] = s;
		bounds[nb++] = e;
	}

	/* Insertion sort; bounds[0, i) is sorted at the top of each pass. */
	for (u32 i = 1; i < nb; i++) {
		u64 v = bounds[i];
		u32 j = i;

		for (; j > 0 && bounds[j - 1] > v; j--)
			bounds[j] = bounds[j - 1];
		bounds[j] = v;
	}
	/* Drop duplicates: bounds[0, n) holds the distinct values seen so far. */
	for (u32 i = 0; i < nb; i++) {
		if (n == 0 || bounds[n - 1] != bounds[i])
			bounds[n++] = bounds[i];
	}

	for (u32 k = 0; k + 1 < n; k++) {
		u64 lo = bounds[k], hi = bounds[k + 1];
		bool covered = false;
		u32 best = 0;

		for (u32 i = 0; i < m->nr_raw; i++) {
			u32 t = m->raw[i].type;
			enum clip_result c = clip_raw(&m->raw[i], &s, &e);

			if (c == CLIP_EMPTY || c == CLIP_ABOVE)
				continue;
			/* No boundary lies inside (lo, hi): covering lo means covering all. */
			if (s > lo || e <= lo)
				continue;
			if (!covered || type_beats(t, best))
				best = t;
			covered = true;
		}
		if (covered)
			emit(m, lo, hi, best);
	}
	if (m->nr_dropped)
		note(m, "sanitized map full: dropped %u ranges above 0x%llx",
		     m->nr_dropped, (unsigned long long)m->map[m->nr - 1].end);
}

/* Step 3: shrink RAM to whole pages, dropping ranges with no whole page. */
static void trim_ram(struct fw_memmap *m)
{
	u32 n = 0;

	for (u32 i = 0; i < m->nr; i++) {
		struct fw_range r = m->map[i];

		if (r.type == FW_MEM_RAM) {
			u64 s = ALIGN_UP(r.start, SZ_4K);
			u64 e = ALIGN_DOWN(r.end, SZ_4K);

			if (s >= e) {
				note(m, "dropped RAM [0x%llx-0x%llx): no whole 4 KiB page in it",
				     (unsigned long long)r.start,
				     (unsigned long long)r.end);
				continue;
			}
			if (s != r.start || e != r.end)
				note(m, "trimmed RAM [0x%llx-0x%llx) to [0x%llx-0x%llx): not page aligned",
				     (unsigned long long)r.start,
				     (unsigned long long)r.end,
				     (unsigned long long)s, (unsigned long long)e);
			r.start = s;
			r.end = e;
		}
		m->map[n++] = r;
	}
	m->nr = n;
}

/*
 * fw_memmap_sanitize() - rebuild m->map, m->nr_dropped and the notes from
 * m->raw (see the top of the file).  May be called again after more raw
 * entries are added: it starts from scratch each time.
 */
void fw_memmap_sanitize(struct fw_memmap *m)
{
	m->nr = 0;
	m->nr_dropped = 0;
	m->nr_notes = 0;

	if (m->nr_raw_dropped)
		note(m, "dropped %u firmware entries beyond the first %d",
		     m->nr_raw_dropped, FW_MEMMAP_MAX);
	note_clipping(m);
	note_overlaps(m);
	sweep(m);
	trim_ram(m);
}

/*
 * fw_memmap_retype() - see fw_memmap.h.  The map stays sorted and without
 * overlaps: each range of type `from` that meets [start, end) is cut into
 * the part before, the part inside (retyped, or dropped when to == 0) and
 * the part after; then touching ranges of one type are merged again.
 * Context: any; no allocation.
 */
void fw_memmap_retype(struct fw_memmap *m, u64 start, u64 end, u32 from, u32 to,
		      const char *why)
{
	struct fw_range out[FW_MEMMAP_MAX];
	u32 n = 0, i;
	bool changed = false;

	if (start >= end)
		return;
	for (i = 0; i < m->nr; i++) {
		struct fw_range r = m->map[i];
		struct fw_range part[3];
		u32 np = 0;

		if (r.type != from || r.end <= start || r.start >= end) {
			part[np++] = r;
		} else {
			u64 lo = MAX(r.start, start), hi = MIN(r.end, end);

			changed = true;
			if (r.start < lo)
				part[np++] = (struct fw_range){ r.start, lo, r.type };
			if (to)
				part[np++] = (struct fw_range){ lo, hi, to };
			if (hi < r.end)
				part[np++] = (struct fw_range){ hi, r.end, r.type };
		}
		for (u32 k = 0; k < np; k++) {
			if (n && out[n - 1].end == part[k].start && out[n - 1].type == part[k].type) {
				out[n - 1].end = part[k].end;
			} else if (n < FW_MEMMAP_MAX) {
				out[n++] = part[k];
			} else {
				m->nr_dropped++;
			}
		}
	}
	if (!changed)
		return;
	memcpy(m->map, out, n * sizeof(out[0]));
	m->nr = n;
	note(m, "%s [0x%llx-0x%llx): %s", to ? "retyped" : "removed", (unsigned long long)start,
	     (unsigned long long)end, why);
}

u64 fw_memmap_ram_bytes(const struct fw_memmap *m)
{
	u64 bytes = 0;

	for (u32 i = 0; i < m->nr; i++) {
		if (m->map[i].type == FW_MEM_RAM)
			bytes += m->map[i].end - m->map[i].start;
	}
	return bytes;
}

/*
 * "636 KiB", "2 GiB", "1.9 GiB": the largest binary unit the size reaches,
 * with one decimal (truncated) when it is not a whole number of that unit.
 */
static void format_size(char *buf, size_t size, u64 bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int u = 0;
	u64 rem;

	while (u + 1 < ARRAY_SIZE(units) && (bytes >> (10 * (u + 1))) != 0)
		u++;
	rem = bytes & ((1ULL << (10 * u)) - 1);
	if (rem == 0)
		ksnprintf(buf, size, "%llu %s",
			  (unsigned long long)(bytes >> (10 * u)), units[u]);
	else
		ksnprintf(buf, size, "%llu.%llu %s",
			  (unsigned long long)(bytes >> (10 * u)),
			  (unsigned long long)((rem >> (10 * u - 10)) * 10 >> 10),
			  units[u]);
}

/*
 * fw_memmap_dump() - the raw table (start, length, type as given), the
 * sanitized table in Linux's "[mem 0x...-0x...]" form with sizes, the notes,
 * and a System RAM summary.  Reads m only; lock-free.
 */
void fw_memmap_dump(const struct fw_memmap *m, struct printer *p)
{
	u64 ram = fw_memmap_ram_bytes(m);
	u32 nr_ram = 0;
	char sz[24];

	pr_printf(p, "firmware memory map, as given (%u entries):\n", m->nr_raw);
	pr_printf(p, "  %-18s %-18s type\n", "start", "length");
	for (u32 i = 0; i < m->nr_raw; i++) {
		const struct fw_range *r = &m->raw[i];

		pr_printf(p, "  0x%016llx 0x%016llx %u (%s)\n",
			  (unsigned long long)r->start,
			  (unsigned long long)(r->end - r->start),
			  r->type, fw_mem_type_name(r->type));
	}
	if (m->nr_raw_dropped)
		pr_printf(p, "  ... and %u more entries that did not fit\n",
			  m->nr_raw_dropped);

	pr_printf(p, "sanitized map (%u ranges):\n", m->nr);
	for (u32 i = 0; i < m->nr; i++) {
		const struct fw_range *r = &m->map[i];

		format_size(sz, sizeof(sz), r->end - r->start);
		pr_printf(p, "  [mem 0x%016llx-0x%016llx] %10s  %s\n",
			  (unsigned long long)r->start,
			  (unsigned long long)(r->end - 1), sz,
			  fw_mem_type_name(r->type));
		if (r->type == FW_MEM_RAM)
			nr_ram++;
	}
	if (m->nr_dropped)
		pr_printf(p, "  ... and %u more ranges that did not fit\n",
			  m->nr_dropped);

	if (m->nr_notes) {
		pr_printf(p, "notes (%u):\n", m->nr_notes);
		for (u32 i = 0; i < m->nr_notes && i < FW_MEMMAP_NOTES; i++)
			pr_printf(p, "  %s\n", m->notes[i]);
		if (m->nr_notes > FW_MEMMAP_NOTES)
			pr_printf(p, "  ... and %u more notes not kept\n",
				  m->nr_notes - FW_MEMMAP_NOTES);
	} else {
		pr_printf(p, "notes: none, the firmware map was already clean\n");
	}
	pr_printf(p, "System RAM: %llu KiB in %u ranges (%llu pages)\n",
		  (unsigned long long)(ram >> 10), nr_ram,
		  (unsigned long long)(ram / SZ_4K));
}

/*
 * fw_memmap_print_iomem() - see fw_memmap.h.  Linux prints at least 8 hex
 * digits for an address space that ends above 64 KiB, and more when the
 * value needs them ("fd00000000-ffffffffff : Reserved"); "%08llx" does both.
 * Reads m and children only; lock-free.
 */
void fw_memmap_print_iomem(const struct fw_memmap *m,
			   const struct fw_iomem_child *children,
			   size_t nr_children, struct printer *p)
{
	for (u32 i = 0; i < m->nr; i++) {
		const struct fw_range *r = &m->map[i];

		pr_printf(p, "%08llx-%08llx : %s\n",
			  (unsigned long long)r->start,
			  (unsigned long long)(r->end - 1),
			  fw_mem_type_name(r->type));
		for (size_t c = 0; c < nr_children; c++) {
			const struct fw_iomem_child *ch = &children[c];

			if (ch->start >= ch->end || ch->start < r->start ||
			    ch->end > r->end)
				continue;
			pr_printf(p, "  %08llx-%08llx : %s\n",
				  (unsigned long long)ch->start,
				  (unsigned long long)(ch->end - 1), ch->name);
		}
	}
}

/*
 * fuzz_memblock.c - libFuzzer target for mm/memblock.c.
 *
 * The input is a program for a private struct memblock.  Its first byte
 * chooses a window of 1024 units: the unit size (1 byte, 4 KiB or 2 MiB),
 * where the window lies (at 0, at 1 GiB, at 0x1001 for 1-byte units, or
 * ending at the top of the address space), and whether either list starts
 * full (256 regions).  Every following 6 bytes are one operation:
 *
 *   byte 0      operation (mod 12): add_node, add, remove, reserve,
 *               phys_free, set_node, alloc_range, alloc_try_nid, set
 *               current_limit, an invalid call, a cut strictly inside an
 *               existing region (remove, set_node or phys_free: a split),
 *               or a "comb": up to 256 additions or reservations (bit 7)
 *               of 1 to 4 units, 0 to 3 units apart, on changing nodes,
 *               which fills a region array in one operation;
 *   bytes 1-4   two 16-bit numbers a and b: the range of units [a, a + len)
 *               clipped to the window, len being b & 7 if b's top bit is
 *               clear and b & 0x7fff if it is set; for an allocation, the
 *               size and the [start, end) bounds;
 *   byte 5      node, flags and alignment bits.
 *
 * A model keeps one state per unit (memory or not, node, flags, reserved),
 * updated by the rules memblock documents; an operation that would leave
 * more than MEMBLOCK_MAX_REGIONS runs in a list must fail with -ENOSPC and
 * change nothing.  After every memblock call:
 *   - both lists must be sorted, non-overlapping, non-empty, not wrapping,
 *     and touching compatible regions merged;
 *   - both lists must equal the model's runs, region by region;
 *   - free-range iteration (all nodes, and one node) must equal the model;
 *   - a lookup at one address and both totals must agree with the model;
 *   - return values must be the model's (allocations: the highest aligned
 *     fit in one memory region, found by brute force).
 * A violation is __builtin_trap(); the sanitizers catch the rest.  The
 * dump is printed into a small buffer at the end of each input.
 *
 * Build and run (the Makefile's test-fuzz does this with all HOST_SRCS):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Itests/host \
 *     -DHOST_TEST tests/fuzz/fuzz_memblock.c mm/memblock.c lib/vsnprintf.c \
 *     lib/printer.c lib/errno.c lib/strlcpy.c \
 *     tests/host/platform_stub.c -o build/fuzz_memblock
 *   build/fuzz_memblock -max_total_time=60
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <mm/memblock.h>
#include <mm/page.h>
#include <lib/errno.h>
#include <lib/printer.h>

#define CHECK(cond)	do { if (!(cond)) __builtin_trap(); } while (0)

#define NO		NUMA_NO_NODE
#define TOP		(~(phys_addr_t)0)
#define UNITS		1024
#define ABSENT		(-2)		/* model: not memory */

struct fz_model {
	phys_addr_t origin, gran;	/* unit u is [origin + u*gran, + gran) */
	s8 nid[UNITS];			/* ABSENT, NUMA_NO_NODE or a node */
	u8 flags[UNITS];		/* memory flags */
	u8 rsv[UNITS];			/* reserved */
};

static struct memblock fz_mb;
static struct fz_model fm, fm_saved;
static u32 fz_run[UNITS + 1];

static phys_addr_t addr_of(u32 u)
{
	return fm.origin + (phys_addr_t)u * fm.gran;
}

static bool is_mem(u32 u)
{
	return fm.nid[u] != ABSENT;
}

static bool is_free(u32 u)
{
	return is_mem(u) && !fm.rsv[u];
}

/* Units u and u + 1 are in one memory region (given both are memory). */
static bool same_region(u32 u)
{
	return fm.nid[u] == fm.nid[u + 1] && fm.flags[u] == fm.flags[u + 1];
}

/* The invariants of one list, independent of the model. */
static void check_type(const struct memblock_type *t, bool reserved)
{
	CHECK(t->cnt <= MEMBLOCK_MAX_REGIONS);
	for (u32 i = 0; i < t->cnt; i++) {
		const struct memblock_region *r = &t->regions[i];

		CHECK(r->size > 0 && r->base + r->size > r->base);
		if (reserved)
			CHECK(r->nid == NO && r->flags == 0);
		if (i + 1 < t->cnt) {
			const struct memblock_region *n = &t->regions[i + 1];

			CHECK(r->base + r->size <= n->base);
			CHECK(r->base + r->size < n->base || r->nid != n->nid ||
			      r->flags != n->flags);
		}
	}
}

/* Runs of one list in the model. */
static u32 model_regions(bool reserved)
{
	u32 cnt = 0;

	for (u32 u = 0; u < UNITS; u++) {
		bool in = reserved ? fm.rsv[u] : is_mem(u);
		bool cont = u > 0 && (reserved ? fm.rsv[u - 1] : is_mem(u - 1) && same_region(u - 1));

		cnt += in && !cont;
	}
	return cnt;
}

/* The list must be exactly the model's runs. */
static void check_against_model(const struct memblock_type *t, bool reserved)
{
	u32 i = 0;

	for (u32 u = 0; u < UNITS; ) {
		u32 v = u + 1;

		if (!(reserved ? fm.rsv[u] : is_mem(u))) {
			u++;
			continue;
		}
		while (v < UNITS && (reserved ? fm.rsv[v] : is_mem(v) && same_region(v - 1)))
			v++;
		CHECK(i < t->cnt);
		CHECK(t->regions[i].base == addr_of(u));
		CHECK(t->regions[i].size == addr_of(v) - addr_of(u));
		CHECK(t->regions[i].nid == (reserved ? NO : fm.nid[u]));
		CHECK(t->regions[i].flags == (reserved ? 0 : fm.flags[u]));
		i++;
		u = v;
	}
	CHECK(i == t->cnt);
}

/* Free-range iteration on node nid must be the model's free runs. */
static void check_free(int nid)
{
	u64 idx = 0;
	phys_addr_t s, e;
	int rnid;

	for (u32 u = 0; u < UNITS; ) {
		u32 v = u + 1;

		if (!is_free(u) || (nid != NO && fm.nid[u] != nid)) {
			u++;
			continue;
		}
		while (v < UNITS && is_free(v) && same_region(v - 1))
			v++;
		CHECK(memblock_next_free_range(&fz_mb, &idx, nid, &s, &e, &rnid));
		CHECK(s == addr_of(u) && e == addr_of(v) && rnid == fm.nid[u]);
		u = v;
	}
	CHECK(!memblock_next_free_range(&fz_mb, &idx, nid, &s, &e, &rnid));
	CHECK(!memblock_next_free_range(&fz_mb, &idx, nid, NULL, NULL, NULL));
}

/* Lookups at unit u (plus an offset inside it) and the totals. */
static void check_lookups(u32 u, phys_addr_t off)
{
	phys_addr_t a = addr_of(u) + off % fm.gran;
	u32 mem = 0, rsv = 0;

	CHECK(memblock_is_memory(&fz_mb, a) == is_mem(u));
	CHECK(memblock_is_reserved(&fz_mb, a) == !!fm.rsv[u]);
	CHECK(memblock_nid_of(&fz_mb, a) == (is_mem(u) ? fm.nid[u] : NO));
	for (u32 v = 0; v < UNITS; v++) {
		mem += is_mem(v);
		rsv += fm.rsv[v];
	}
	CHECK(memblock_phys_mem_size(&fz_mb) == mem * fm.gran);
	CHECK(memblock_reserved_size(&fz_mb) == rsv * fm.gran);
}

/*
 * libFuzzer keeps an input only if it reaches new branches, and nothing in
 * memblock branches on how full a list is.  These branches make each fill
 * level of each list (and each kind of change refused with -ENOSPC) new
 * coverage, so inputs that get closer to a full list are kept and grown.
 */
static volatile u32 fz_sink;
#define FZ_LEVEL(cnt, n)	do { if ((cnt) >= (n)) fz_sink = (n); } while (0)
#define FZ_LEVELS(cnt)							\
	do {								\
		FZ_LEVEL(cnt, 16); FZ_LEVEL(cnt, 32); FZ_LEVEL(cnt, 48);	\
		FZ_LEVEL(cnt, 64); FZ_LEVEL(cnt, 96); FZ_LEVEL(cnt, 128);	\
		FZ_LEVEL(cnt, 160); FZ_LEVEL(cnt, 192); FZ_LEVEL(cnt, 224); \
		FZ_LEVEL(cnt, 240); FZ_LEVEL(cnt, 248); FZ_LEVEL(cnt, 252); \
		FZ_LEVEL(cnt, 255); FZ_LEVEL(cnt, 256);			\
	} while (0)

/* Everything after one memblock call. */
static void check_all(u32 u, phys_addr_t off, int nid)
{
	FZ_LEVELS(fz_mb.memory.cnt);
	FZ_LEVELS(fz_mb.reserved.cnt);
	check_type(&fz_mb.memory, false);
	check_type(&fz_mb.reserved, true);
	check_against_model(&fz_mb.memory, false);
	check_against_model(&fz_mb.reserved, true);
	check_free(NO);
	check_free(nid);
	check_lookups(u % UNITS, off);
}

/* The kinds of list change. */
enum fz_change { FZ_ADD, FZ_REMOVE, FZ_SET_NODE, FZ_RESERVE, FZ_FREE };

/*
 * Apply one change to units [u0, u1) in the model and in memblock; the
 * model predicts -ENOSPC when the result has too many runs.  Everything is
 * checked afterwards unless quick (then only the return value).
 */
static void do_change_quick(enum fz_change kind, u32 u0, u32 u1, int nid,
			    u32 flags, bool quick)
{
	phys_addr_t base = addr_of(u0), size = addr_of(u1) - addr_of(u0);
	int want = 0, got = 0;

	fm_saved = fm;
	for (u32 u = u0; u < u1; u++) {
		switch (kind) {
		case FZ_ADD:
			if (!is_mem(u)) {
				fm.nid[u] = (s8)nid;
				fm.flags[u] = (u8)flags;
			}
			break;
		case FZ_REMOVE:
			fm.nid[u] = ABSENT;
			break;
		case FZ_SET_NODE:
			if (is_mem(u))
				fm.nid[u] = (s8)nid;
			break;
		case FZ_RESERVE:
			fm.rsv[u] = 1;
			break;
		case FZ_FREE:
			fm.rsv[u] = 0;
			break;
		}
	}
	if (model_regions(kind >= FZ_RESERVE) > MEMBLOCK_MAX_REGIONS) {
		want = -ENOSPC;
		fm = fm_saved;
		switch (kind) {		/* new coverage per kind: see fz_sink */
		case FZ_ADD:		fz_sink = 1; break;
		case FZ_REMOVE:		fz_sink = 2; break;
		case FZ_SET_NODE:	fz_sink = 3; break;
		case FZ_RESERVE:	fz_sink = 4; break;
		case FZ_FREE:		fz_sink = 5; break;
		}
	}
	switch (kind) {
	case FZ_ADD:
		got = flags || nid != NO || (u0 & 1) ?
			memblock_add_node(&fz_mb, base, size, nid, flags) :
			memblock_add(&fz_mb, base, size);
		break;
	case FZ_REMOVE:
		got = memblock_remove(&fz_mb, base, size);
		break;
	case FZ_SET_NODE:
		got = memblock_set_node(&fz_mb, base, size, nid);
		break;
	case FZ_RESERVE:
		got = memblock_reserve(&fz_mb, base, size);
		break;
	case FZ_FREE:
		got = memblock_phys_free(&fz_mb, base, size);
		break;
	}
	CHECK(got == want);
	if (!quick)
		check_all(u0, size, nid);
}

static void do_change(enum fz_change kind, u32 u0, u32 u1, int nid, u32 flags)
{
	do_change_quick(kind, u0, u1, nid, flags, false);
}

/* The highest valid base for an allocation of k units, or 0 (brute force). */
static phys_addr_t model_alloc(u32 k, phys_addr_t align, phys_addr_t start,
			       phys_addr_t end, int nid)
{
	end = MIN(end, fz_mb.current_limit);
	fz_run[UNITS] = 0;
	for (u32 u = UNITS; u-- > 0; )
		fz_run[u] = !is_free(u) ? 0 :
			(u + 1 < UNITS && is_free(u + 1) && same_region(u)) ? fz_run[u + 1] + 1 : 1;
	for (u32 u = UNITS; u-- > 0; ) {
		phys_addr_t a = addr_of(u);

		if (fz_run[u] < k || (a & (align - 1)) || a < MAX(start, 1) ||
		    addr_of(u + k - 1) + fm.gran > end)
			continue;
		if (nid != NO && fm.nid[u] != nid)
			continue;
		return a;
	}
	return 0;
}

/*
 * The model's allocation: the highest fit, reserved in the model, or 0
 * when nothing fits or reserving it would overflow the reserved list (a
 * new region past MEMBLOCK_MAX_REGIONS), and then the model is unchanged.
 */
static phys_addr_t model_take(u32 k, phys_addr_t align, phys_addr_t start, phys_addr_t end,
			      int nid)
{
	phys_addr_t want = model_alloc(k, align, start, end, nid);

	if (!want)
		return 0;
	fm_saved = fm;
	memset(&fm.rsv[(want - fm.origin) / fm.gran], 1, k);
	if (model_regions(true) > MEMBLOCK_MAX_REGIONS) {
		fm = fm_saved;
		fz_sink = 6;
		return 0;
	}
	return want;
}

/*
 * Allocate in memblock and in the model; the results must match.  try_nid
 * falls back to any node whenever the node's attempt fails, also when it
 * found room but the reserved list had none for a new region (the
 * fallback's block may then merge with a neighbour and need none).
 */
static void do_alloc(bool try_nid, u32 k, phys_addr_t align, phys_addr_t start,
		     phys_addr_t end, int nid)
{
	phys_addr_t want, got;

	if (try_nid) {
		want = model_take(k, align, 0, TOP, nid);
		if (!want && nid != NO)
			want = model_take(k, align, 0, TOP, NO);
		got = memblock_phys_alloc_try_nid(&fz_mb, (phys_addr_t)k * fm.gran, align, nid);
	} else {
		want = model_take(k, align, start, end, nid);
		got = memblock_phys_alloc_range(&fz_mb, (phys_addr_t)k * fm.gran, align,
						start, end, nid);
	}
	CHECK(got == want);
	check_all(k, align, nid);
}

/* Calls that must fail (or do nothing) and leave memblock untouched. */
static void do_invalid(u32 a, u32 b, u8 arg)
{
	static struct memblock before;
	phys_addr_t base = TOP - (a & 0xff);
	phys_addr_t wrap = (a & 0xff) + 1 + b;		/* base + wrap > TOP */
	phys_addr_t ok = addr_of(a % UNITS);

	before = fz_mb;
	switch (arg % 8) {
	case 0: CHECK(memblock_add_node(&fz_mb, base, wrap, 0, 0) == -EINVAL); break;
	case 1: CHECK(memblock_remove(&fz_mb, base, wrap) == -EINVAL); break;
	case 2: CHECK(memblock_reserve(&fz_mb, base, wrap) == -EINVAL); break;
	case 3: CHECK(memblock_phys_free(&fz_mb, base, wrap) == -EINVAL); break;
	case 4: CHECK(memblock_set_node(&fz_mb, base, wrap, 1) == -EINVAL); break;
	case 5: CHECK(memblock_add_node(&fz_mb, ok, fm.gran, MAX_NUMNODES + (b & 7), 0) == -EINVAL); break;
	case 6: CHECK(memblock_reserve(&fz_mb, base, 0) == 0); break;
	default:
		CHECK(memblock_phys_alloc_range(&fz_mb, fm.gran, 3 + 2 * (phys_addr_t)b, 0, TOP, NO) == 0);
		CHECK(memblock_phys_alloc_range(&fz_mb, 0, 1, 0, TOP, NO) == 0);
		break;
	}
	CHECK(memcmp(&before, &fz_mb, sizeof(before)) == 0);
}

/*
 * Cut a piece strictly inside a region of one list (remove or set_node on
 * memory, phys_free on reserved): the change that needs a new slot, so the
 * one that must fail when the list is full.  The region is the first of at
 * least 3 units from index a % cnt on.
 */
static void do_split(u32 a, u32 b, u8 arg)
{
	bool reserved = arg & 1;
	const struct memblock_type *t = reserved ? &fz_mb.reserved : &fz_mb.memory;
	const struct memblock_region *r;
	u32 u0, len = 0, s, e;

	for (u32 i = 0; i < t->cnt && len < 3; i++) {
		r = &t->regions[(a + i) % t->cnt];
		u0 = (u32)((r->base - fm.origin) / fm.gran);
		len = (u32)(r->size / fm.gran);
	}
	if (len < 3)
		return;
	s = u0 + 1 + b % (len - 2);			/* s in [u0 + 1, u0 + len - 1) */
	e = s + 1 + (b >> 8) % (u0 + len - 1 - s);	/* e in (s, u0 + len - 1] */
	if (reserved)
		do_change(FZ_FREE, s, e, NO, 0);
	else if (arg & 2)
		do_change(FZ_SET_NODE, s, e, (int)((arg >> 2) % 5) - 1, 0);
	else
		do_change(FZ_REMOVE, s, e, NO, 0);
}

/*
 * Set up the window from the configuration byte: bits 0-1 the unit size,
 * bits 2-3 the place, bits 4-5 whether the memory and reserved lists start
 * full (so that most changes meet MEMBLOCK_MAX_REGIONS).
 */
static void fz_setup(u8 c)
{
	static const phys_addr_t grans[] = { 1, SZ_4K, SZ_2M, 1 };
	phys_addr_t g = grans[c & 3];

	memset(&fm, 0, sizeof(fm));
	memset(fm.nid, ABSENT, sizeof(fm.nid));
	fm.gran = g;
	switch ((c >> 2) & 3) {
	case 0:
		fm.origin = (c & 3) == 3 ? 0x1001 : 0;
		break;
	case 1:
		fm.origin = SZ_1G;
		break;
	default:	/* the window ends at the highest unit boundary below 2^64 */
		fm.origin = ALIGN_DOWN(TOP - UNITS * g, g);
		break;
	}
	memblock_init(&fz_mb);

	/*
	 * Prefill, in one or both lists, 256 regions written straight into
	 * the arrays (building them with 512 checked calls would slow every
	 * input down); check_all() then verifies them against the model like
	 * any other state.  Memory: units [4i, 4i + 3) on changing nodes and
	 * flags.  Reserved: unit 4i + 1, so that a reservation in the middle
	 * of a gap needs a slot.
	 */
	for (u32 i = 0; i < MEMBLOCK_MAX_REGIONS && (c & 0x30); i++) {
		u32 u = 4 * i;
		int nid = (int)(i % 3) - 1;
		u32 flags = i & 1 ? MEMBLOCK_HOTPLUG : 0;

		if (c & 0x10) {
			fz_mb.memory.regions[i] = (struct memblock_region){
				addr_of(u), 3 * g, nid, flags };
			fz_mb.memory.cnt = i + 1;
			for (u32 v = u; v < u + 3; v++) {
				fm.nid[v] = (s8)nid;
				fm.flags[v] = (u8)flags;
			}
		}
		if (c & 0x20) {
			fz_mb.reserved.regions[i] = (struct memblock_region){
				addr_of(u + 1), g, NO, 0 };
			fz_mb.reserved.cnt = i + 1;
			fm.rsv[u + 1] = 1;
		}
	}
	check_all(0, 0, NO);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	fz_setup(data[0]);
	data++;
	size--;

	for (; size >= 6; data += 6, size -= 6) {
		u32 a = data[1] | (u32)data[2] << 8, b = data[3] | (u32)data[4] << 8;
		u8 arg = data[5];
		u32 len = b & 0x8000 ? b & 0x7fff : b & 7;	/* short half the time */
		u32 lo = a % (UNITS + 1), hi = MIN(lo + len, UNITS);
		int nid = (int)((arg & 7) % 5) - 1;		/* NO, 0 .. 3 */
		u32 flags = arg & 8 ? MEMBLOCK_HOTPLUG : 0;
		phys_addr_t align = fm.gran == 1 ? 1ULL << (arg >> 4) :
				    fm.gran << ((arg >> 4) % 6);

		switch (data[0] % 12) {
		case 0: do_change(FZ_ADD, lo, hi, nid, flags); break;
		case 1: do_change(FZ_ADD, lo, hi, NO, 0); break;
		case 2: do_change(FZ_REMOVE, lo, hi, nid, 0); break;
		case 3: do_change(FZ_RESERVE, lo, hi, nid, 0); break;
		case 4: do_change(FZ_FREE, lo, hi, nid, 0); break;
		case 5: do_change(FZ_SET_NODE, lo, hi, nid, 0); break;
		case 6:
		case 7: {
			u32 k = 1 + (a % (arg & 0x80 ? UNITS : 16));
			bool any = b & 1;

			do_alloc(data[0] % 12 == 7, k, align,
				 any ? 0 : addr_of(lo), any ? TOP : addr_of(hi), nid);
			break;
		}
		case 8:
			fz_mb.current_limit = arg & 1 ? TOP : addr_of(a % (UNITS + 1));
			check_all(a, b, nid);
			break;
		case 9:
			do_invalid(a, b, arg);
			break;
		case 10:
			do_split(a, b, arg);
			break;
		default: {
			/*
			 * A comb: count teeth of width units, gap units apart,
			 * from lo, on changing nodes; each call's return value
			 * is checked, the whole state once at the end.
			 */
			u32 width = 1 + (b >> 2) % 4, gap = b % 4, count = 1 + arg;
			bool reserve = data[0] & 0x80;

			for (u32 i = 0, u = lo; i < count && u + width <= UNITS;
			     i++, u += width + gap)
				do_change_quick(reserve ? FZ_RESERVE : FZ_ADD, u, u + width,
						(int)((i + b) % 5) - 1, 0, true);
			check_all(lo, b, nid);
			break;
		}
		}
	}

	{
		static char buf[2048];
		struct buf_printer bp;

		buf_printer_init(&bp, buf, sizeof(buf));
		memblock_dump(&fz_mb, &bp.p);
		CHECK(bp.len < sizeof(buf));
	}
	return 0;
}

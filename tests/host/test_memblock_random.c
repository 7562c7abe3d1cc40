/*
 * test_memblock_random.c - mm/memblock.c under randomized operations.
 *
 * Each case runs a few thousand operations from a fixed seed and compares
 * memblock after every operation with a model that keeps one state per
 * unit of a small address window: 4 KiB units over 64 MiB, and 1-byte
 * units for unaligned ranges, at the bottom of the address space and at
 * its very top.  The hand-drawn cases are in test_memblock.c and
 * test_memblock_alloc.c; the memblock under test is memblock_check.h's.
 */
#include "htest.h"
#include "memblock_check.h"
#include <mm/memblock.h>
#include <mm/page.h>
#include <lib/errno.h>
#include <lib/printer.h>

/* ------------------------------------------------------------------------ */
/* Randomized operations against a model                                       */

/*
 * The model: a window of n units of gran bytes from origin.  Each unit is
 * either not memory (nid == MODEL_ABSENT) or memory with a node and flags,
 * and reserved or not.  Every range the test uses is a whole number of
 * units inside the window, so memblock's lists must be exactly the runs of
 * equal units.
 */
#define MODEL_MAX_UNITS	16384
#define MODEL_ABSENT	(-2)

struct model {
	phys_addr_t origin, gran;	/* unit u is [origin + u*gran, + gran) */
	u32 n;				/* units in the window */
	s8 nid[MODEL_MAX_UNITS];	/* MODEL_ABSENT, NUMA_NO_NODE or a node */
	u8 flags[MODEL_MAX_UNITS];	/* memory flags */
	u8 rsv[MODEL_MAX_UNITS];	/* reserved */
};

static struct model M, M_saved;
static u32 model_run[MODEL_MAX_UNITS + 1];

static phys_addr_t unit_addr(u32 u)
{
	return M.origin + (phys_addr_t)u * M.gran;
}

static bool unit_free(u32 u)
{
	return M.nid[u] != MODEL_ABSENT && !M.rsv[u];
}

/* Do units u and u + 1 belong to one memory region (both memory, same nid and flags)? */
static bool same_mem(u32 u)
{
	return M.nid[u] == M.nid[u + 1] && M.flags[u] == M.flags[u + 1];
}

/* Regions the model's memory (or reserved) list has: runs of equal units. */
static u32 model_count(bool reserved)
{
	u32 cnt = 0;

	for (u32 u = 0; u < M.n; u++) {
		bool in = reserved ? M.rsv[u] : M.nid[u] != MODEL_ABSENT;
		bool cont = u > 0 && (reserved ? M.rsv[u - 1] : same_mem(u - 1));

		if (in && !cont)
			cnt++;
	}
	return cnt;
}

/* Compare one list of mb with the model's runs; print the first difference. */
static bool model_compare_type(const struct memblock_type *t, bool reserved)
{
	u32 i = 0;

	for (u32 u = 0; u < M.n; ) {
		bool in = reserved ? M.rsv[u] : M.nid[u] != MODEL_ABSENT;
		u32 v = u + 1;

		if (!in) {
			u++;
			continue;
		}
		while (v < M.n && (reserved ? M.rsv[v] : same_mem(v - 1)))
			v++;
		if (i >= t->cnt) {
			fprintf(stderr, "    %s: model run [0x%llx-0x%llx) missing\n", t->name,
				(unsigned long long)unit_addr(u), (unsigned long long)unit_addr(v));
			return false;
		}
		const struct memblock_region *r = &t->regions[i++];
		int nid = reserved ? NO : M.nid[u];
		u32 flags = reserved ? 0 : M.flags[u];

		if (r->base != unit_addr(u) || r->size != unit_addr(v) - unit_addr(u) ||
		    r->nid != nid || r->flags != flags) {
			fprintf(stderr, "    %s[%u] = [0x%llx-0x%llx) nid %d flags %u, model [0x%llx-0x%llx) nid %d flags %u\n",
				t->name, i - 1, (unsigned long long)r->base,
				(unsigned long long)(r->base + r->size), r->nid, r->flags,
				(unsigned long long)unit_addr(u), (unsigned long long)unit_addr(v),
				nid, flags);
			return false;
		}
		u = v;
	}
	if (i != t->cnt) {
		fprintf(stderr, "    %s has %u regions, model %u\n", t->name, t->cnt, i);
		return false;
	}
	return true;
}

/* Compare the free-range iteration on node nid with the model. */
static bool model_compare_free(int nid)
{
	u64 idx = 0;
	phys_addr_t s, e;
	int rnid;

	for (u32 u = 0; u < M.n; ) {
		u32 v = u + 1;

		if (!unit_free(u) || (nid != NO && M.nid[u] != nid)) {
			u++;
			continue;
		}
		while (v < M.n && unit_free(v) && same_mem(v - 1))
			v++;
		if (!memblock_next_free_range(&mb, &idx, nid, &s, &e, &rnid) ||
		    s != unit_addr(u) || e != unit_addr(v) || rnid != M.nid[u]) {
			fprintf(stderr, "    free range on nid %d: model [0x%llx-0x%llx) nid %d\n",
				nid, (unsigned long long)unit_addr(u),
				(unsigned long long)unit_addr(v), M.nid[u]);
			return false;
		}
		u = v;
	}
	if (memblock_next_free_range(&mb, &idx, nid, &s, &e, &rnid)) {
		fprintf(stderr, "    extra free range [0x%llx-0x%llx) on nid %d\n",
			(unsigned long long)s, (unsigned long long)e, nid);
		return false;
	}
	return true;
}

/*
 * What memblock_phys_alloc_range() must return, found the slow way: the
 * highest unit u such that its address is aligned, at least max(start, 1),
 * and u .. u + k - 1 are free units of one memory region on a matching node
 * ending at or below min(end, current_limit).
 */
static phys_addr_t model_alloc(u32 k, phys_addr_t align, phys_addr_t start,
			       phys_addr_t end, int nid)
{
	end = MIN(end, mb.current_limit);
	model_run[M.n] = 0;
	for (u32 u = M.n; u-- > 0; )
		model_run[u] = !unit_free(u) ? 0 :
			(u + 1 < M.n && unit_free(u + 1) && same_mem(u)) ? model_run[u + 1] + 1 : 1;
	for (u32 u = M.n; u-- > 0; ) {
		phys_addr_t a = unit_addr(u);

		if (model_run[u] < k || (a & (align - 1)) || a < MAX(start, 1) ||
		    unit_addr(u + k - 1) + M.gran > end)
			continue;
		if (nid != NO && M.nid[u] != nid)
			continue;
		return a;
	}
	return 0;
}

/* xorshift64*: the test's own generator, so runs repeat everywhere. */
static u64 rng_state;

static u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static u32 rnd_below(u32 n)
{
	return (u32)(rnd() % n);
}

/*
 * A random range of units: mostly short, so that the lists grow long and
 * fill up; now and then long, so that they merge and empty again.  While
 * fragmenting, always short.
 */
static void rnd_units(u32 *u0, u32 *len, bool fragment)
{
	u32 r = fragment ? 0 : rnd_below(100);
	u32 max = r < 90 ? 4 : r < 98 ? M.n / 64 : M.n;

	*len = 1 + rnd_below(max);
	if (*len > M.n)
		*len = M.n;
	*u0 = rnd_below(M.n - *len + 1);
}

/* Statistics of a run, to check the random walk reached every outcome. */
struct model_stats {
	u32 ops;		/* operations done */
	u32 enospc_memory;	/* changes of the memory list refused with -ENOSPC */
	u32 enospc_reserved;	/* same for the reserved list */
	u32 allocs;		/* allocations that succeeded */
	u32 alloc_fails;	/* allocations that found nothing */
	u32 alloc_full;		/* allocations that found room but no reserved slot */
};

/*
 * One random operation on mb and on the model; compares return values and
 * then the whole state.  While fragmenting, ranges are short and removals
 * become additions, so that both lists run into MEMBLOCK_MAX_REGIONS.
 * Returns false (after printing why) on a mismatch.
 */
static bool model_step(struct model_stats *st, bool fragment)
{
	u32 op = rnd_below(100), u0, len;
	int nid = (int)rnd_below(5) - 1;	/* NO, 0 .. 3 */
	u32 flags = rnd_below(4) == 0 ? HP : 0;
	int want = 0, got;
	bool reserved_list = false;
	phys_addr_t base, size;

	rnd_units(&u0, &len, fragment);
	if (fragment && op >= 22 && op < 32)
		op = 4;				/* remove -> add_node */
	if (fragment && op >= 58 && op < 70)
		op = 40;			/* phys_free -> reserve */
	base = unit_addr(u0);
	size = (phys_addr_t)len * M.gran;
	M_saved = M;
	st->ops++;

	if (op < 4) {
		/* Invalid or empty inputs: nothing changes. */
		saved = mb;
		if (op == 0)
			CHECK_EQ(memblock_add(&mb, base, 0), 0);
		else if (op == 1)
			CHECK_EQ(memblock_reserve(&mb, TOP - rnd_below(100), 100 + rnd_below(100)), -EINVAL);
		else if (op == 2)
			CHECK_EQ(memblock_remove(&mb, TOP - rnd_below(100), 100 + rnd_below(100)), -EINVAL);
		else
			CHECK_EQ(memblock_set_node(&mb, base, size, 9), -EINVAL);
		if (memcmp(&mb, &saved, sizeof(mb)) != 0) {
			fprintf(stderr, "    invalid op %u changed memblock\n", op);
			return false;
		}
		return true;
	}
	if (op < 70) {
		const char *what;

		if (op < 22) {
			what = "add_node";
			for (u32 u = u0; u < u0 + len; u++)
				if (M.nid[u] == MODEL_ABSENT) {
					M.nid[u] = (s8)nid;
					M.flags[u] = (u8)flags;
				}
			got = memblock_add_node(&mb, base, size, nid, flags);
		} else if (op < 32) {
			what = "remove";
			for (u32 u = u0; u < u0 + len; u++)
				M.nid[u] = MODEL_ABSENT;
			got = memblock_remove(&mb, base, size);
		} else if (op < 40) {
			what = "set_node";
			for (u32 u = u0; u < u0 + len; u++)
				if (M.nid[u] != MODEL_ABSENT)
					M.nid[u] = (s8)nid;
			got = memblock_set_node(&mb, base, size, nid);
		} else if (op < 58) {
			what = "reserve";
			reserved_list = true;
			memset(&M.rsv[u0], 1, len);
			got = memblock_reserve(&mb, base, size);
		} else {
			what = "phys_free";
			reserved_list = true;
			memset(&M.rsv[u0], 0, len);
			got = memblock_phys_free(&mb, base, size);
		}
		if (model_count(reserved_list) > MEMBLOCK_MAX_REGIONS) {
			want = -ENOSPC;
			M = M_saved;
			if (reserved_list)
				st->enospc_reserved++;
			else
				st->enospc_memory++;
		}
		if (got != want) {
			fprintf(stderr, "    %s [0x%llx-0x%llx) nid %d: got %d, want %d\n", what,
				(unsigned long long)base, (unsigned long long)(base + size),
				nid, got, want);
			return false;
		}
	} else if (op < 95) {
		/* Allocation: random size, alignment, range, node, limit. */
		u32 k = 1 + rnd_below(rnd_below(4) ? 8 : M.n / 8);
		u32 align_shift = rnd_below(M.gran == 1 ? 9 : 10);
		phys_addr_t align = M.gran << (M.gran == 1 ? align_shift : align_shift % 4 * 3);
		phys_addr_t start = 0, end = TOP, pa, want_pa;
		bool try_nid = op >= 88;

		if (rnd_below(3) == 0) {
			u32 a = rnd_below(M.n + 1), b = rnd_below(M.n + 1);

			start = unit_addr(MIN(a, b));
			end = unit_addr(MAX(a, b));
		}
		if (rnd_below(8) == 0)
			mb.current_limit = rnd_below(2) ? TOP : unit_addr(rnd_below(M.n + 1));
		if (try_nid) {
			start = 0;
			end = TOP;
			want_pa = model_alloc(k, align, start, end, nid);
			if (!want_pa && nid != NO)
				want_pa = model_alloc(k, align, start, end, NO);
			pa = memblock_phys_alloc_try_nid(&mb, (phys_addr_t)k * M.gran, align, nid);
		} else {
			want_pa = model_alloc(k, align, start, end, nid);
			pa = memblock_phys_alloc_range(&mb, (phys_addr_t)k * M.gran, align,
						       start, end, nid);
		}
		if (want_pa) {
			u32 u = (u32)((want_pa - M.origin) / M.gran);

			memset(&M.rsv[u], 1, k);
			if (model_count(true) > MEMBLOCK_MAX_REGIONS) {
				want_pa = 0;
				M = M_saved;
				st->alloc_full++;
			}
		}
		if (want_pa)
			st->allocs++;
		else
			st->alloc_fails++;
		if (pa != want_pa) {
			fprintf(stderr, "    alloc%s %u units align 0x%llx [0x%llx-0x%llx) nid %d limit 0x%llx: got 0x%llx, want 0x%llx\n",
				try_nid ? " try_nid" : "", k, (unsigned long long)align,
				(unsigned long long)start, (unsigned long long)end, nid,
				(unsigned long long)mb.current_limit,
				(unsigned long long)pa, (unsigned long long)want_pa);
			return false;
		}
	} else {
		/* Lookups at random units. */
		for (int i = 0; i < 8; i++) {
			u32 u = rnd_below(M.n);
			phys_addr_t a = unit_addr(u) + rnd() % M.gran;

			if (memblock_is_memory(&mb, a) != (M.nid[u] != MODEL_ABSENT) ||
			    memblock_is_reserved(&mb, a) != !!M.rsv[u] ||
			    memblock_nid_of(&mb, a) != (M.nid[u] == MODEL_ABSENT ? NO : M.nid[u])) {
				fprintf(stderr, "    lookup of 0x%llx differs\n", (unsigned long long)a);
				return false;
			}
		}
	}

	if (!mb_ok(&mb) || !model_compare_type(&mb.memory, false) ||
	    !model_compare_type(&mb.reserved, true) || !model_compare_free(NO) ||
	    !model_compare_free((int)rnd_below(4)))
		return false;
	return true;
}

/* Run nr_ops random operations over a window; fold the statistics into st. */
static void model_run_ops(u64 seed, phys_addr_t origin, phys_addr_t gran, u32 n,
			  u32 nr_ops, struct model_stats *st)
{
	reset();
	memset(&M, 0, sizeof(M));
	M.origin = origin;
	M.gran = gran;
	M.n = n;
	memset(M.nid, MODEL_ABSENT, sizeof(M.nid));
	rng_state = seed;
	for (u32 i = 0; i < nr_ops; i++) {
		if (!model_step(st, i / 500 % 2 == 1)) {
			htest_failures++;
			fprintf(stderr, "  %s: seed %llu window 0x%llx gran 0x%llx: mismatch at op %u\n",
				__FILE__, (unsigned long long)seed, (unsigned long long)origin,
				(unsigned long long)gran, i);
			return;
		}
	}
}

/*
 * 4 KiB units over [0, 64 MiB) (address 0 inside the window) and over
 * [4 GiB, 4 GiB + 64 MiB): page-granular ranges as at boot.  Expect every
 * operation to agree with the model, and the walks to have met -ENOSPC on
 * both lists, allocations that succeed, that find nothing, and that find
 * room but no reserved slot.
 */
HTEST(memblock_random_pages)
{
	struct model_stats st = { 0 };

	model_run_ops(1, 0, SZ_4K, 16384, 2500, &st);
	model_run_ops(2, 0, SZ_4K, 16384, 2500, &st);
	model_run_ops(3, 4 * SZ_1G, SZ_4K, 16384, 1000, &st);
	CHECK(st.enospc_memory > 0);
	CHECK(st.enospc_reserved > 0);
	CHECK(st.allocs > 0);
	CHECK(st.alloc_fails > 0);
	CHECK(st.alloc_full > 0);
}

/*
 * 1-byte units: unaligned bases and sizes, over [0x1001, 0x2001), over the
 * very top of the address space, [2^64 - 1 - 4096, 2^64 - 1), and over
 * [0, 2048).  Expect the same as for pages.
 */
HTEST(memblock_random_bytes)
{
	struct model_stats st = { 0 };

	model_run_ops(4, 0x1001, 1, 4096, 3000, &st);
	model_run_ops(5, TOP - 4096, 1, 4096, 3000, &st);
	model_run_ops(6, 0, 1, 2048, 3000, &st);
	CHECK(st.enospc_memory > 0);
	CHECK(st.enospc_reserved > 0);
	CHECK(st.allocs > 0);
	CHECK(st.alloc_fails > 0);
	CHECK(st.alloc_full > 0);
}

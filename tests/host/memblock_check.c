/*
 * memblock_check.c - the memblock under test and the checks of its lists
 * (memblock_check.h), shared by the test_memblock*.c files.
 */
#include "memblock_check.h"

struct memblock mb;
struct memblock saved;

void reset(void)
{
	memblock_init(&mb);
}

/* Are the invariants of mm/memblock.c true of t? Says why not on stderr. */
static bool type_ok(const struct memblock_type *t, bool reserved)
{
	if (t->cnt > MEMBLOCK_MAX_REGIONS) {
		fprintf(stderr, "    %s.cnt %u too large\n", t->name, t->cnt);
		return false;
	}
	for (u32 i = 0; i < t->cnt; i++) {
		const struct memblock_region *r = &t->regions[i];
		const struct memblock_region *n = &t->regions[i + 1];

		if (r->size == 0 || r->base + r->size < r->base) {
			fprintf(stderr, "    %s[%u] empty or wraps\n", t->name, i);
			return false;
		}
		if (reserved && (r->nid != NO || r->flags)) {
			fprintf(stderr, "    %s[%u] has nid %d flags %u\n", t->name, i,
				r->nid, r->flags);
			return false;
		}
		if (!reserved && r->nid != NO && (r->nid < 0 || r->nid >= MAX_NUMNODES)) {
			fprintf(stderr, "    %s[%u] has nid %d\n", t->name, i, r->nid);
			return false;
		}
		if (i + 1 == t->cnt)
			continue;
		if (r->base + r->size > n->base) {
			fprintf(stderr, "    %s[%u] and [%u] overlap or are unsorted\n",
				t->name, i, i + 1);
			return false;
		}
		if (r->base + r->size == n->base && r->nid == n->nid &&
		    r->flags == n->flags) {
			fprintf(stderr, "    %s[%u] and [%u] touch and are not merged\n",
				t->name, i, i + 1);
			return false;
		}
	}
	return true;
}

bool mb_ok(const struct memblock *m)
{
	return type_ok(&m->memory, false) && type_ok(&m->reserved, true);
}

static void print_regions(const struct memblock_region *r, u32 n)
{
	for (u32 i = 0; i < n; i++)
		fprintf(stderr, "      [0x%llx-0x%llx) nid %d flags %u\n",
			(unsigned long long)r[i].base,
			(unsigned long long)(r[i].base + r[i].size), r[i].nid,
			r[i].flags);
}

/* Compare t with want[0, n); on a difference print both lists. */
void expect_type_at(const struct memblock_type *t, const struct memblock_region *want,
		    u32 n, const char *file, int line)
{
	bool same = t->cnt == n;

	for (u32 i = 0; same && i < n; i++)
		same = t->regions[i].base == want[i].base &&
		       t->regions[i].size == want[i].size &&
		       t->regions[i].nid == want[i].nid &&
		       t->regions[i].flags == want[i].flags;
	if (!mb_ok(&mb)) {
		htest_failures++;
		fprintf(stderr, "  %s:%d: invariants broken\n", file, line);
	}
	if (same)
		return;
	htest_failures++;
	fprintf(stderr, "  %s:%d: %s list differs\n    got:\n", file, line, t->name);
	print_regions(t->regions, t->cnt);
	fprintf(stderr, "    expected:\n");
	print_regions(want, n);
}


/*
 * test_owner.c - the host tests' movable owner (see test_owner.h).
 */
#include "test_owner.h"
#include <mm/gfp.h>

static bool test_block_of(struct page *page, struct page **head, unsigned *order)
{
	struct test_owner *o = (struct test_owner *)page->owner;
	u64 pfn = page_to_pfn(page);

	if (!o->live || pfn < o->pfn || pfn >= o->pfn + (1ULL << o->order))
		return false;
	*head = pfn_to_page(o->pfn);
	*order = o->order;
	return true;
}

void set_owner(u64 pfn, unsigned order, struct test_owner *o)
{
	for (u64 i = 0; i < (1ULL << order); i++)
		pfn_to_page(pfn + i)->owner = o ? &o->mo : NULL;
}

static void test_moved(struct page *old_head, struct page *new_head, unsigned order)
{
	struct test_owner *o = (struct test_owner *)old_head->owner;

	set_owner(page_to_pfn(new_head), order, o);
	set_owner(page_to_pfn(old_head), order, NULL);
	o->pfn = page_to_pfn(new_head);
	o->moves++;
}

static const struct movable_operations test_owner_ops = {
	.name = "test owner", .block_of = test_block_of, .moved = test_moved,
};

static u64 pattern_word(u64 seed, u64 word)
{
	return seed ^ ((word + 1) * 0x9e3779b97f4a7c15ULL);
}

void owner_attach(struct test_owner *o, u64 pfn, unsigned order, u64 seed)
{
	u64 *mem = mm_phys_to_virt(PFN_PHYS(pfn));

	*o = (struct test_owner){ .mo.ops = &test_owner_ops, .pfn = pfn, .order = order,
				  .seed = seed, .live = true };
	set_owner(pfn, order, o);
	for (u64 w = 0; w < (PAGE_SIZE << order) / 8; w++)
		mem[w] = pattern_word(seed, w);
}

bool owner_ok(const struct test_owner *o)
{
	const u64 *mem = mm_phys_to_virt(PFN_PHYS(o->pfn));

	for (u64 i = 0; i < (1ULL << o->order); i++) {
		const struct page *p = pfn_to_page(o->pfn + i);

		if (p->owner != &o->mo || p->refcount != 1)
			return false;
	}
	for (u64 w = 0; w < (PAGE_SIZE << o->order) / 8; w++)
		if (mem[w] != pattern_word(o->seed, w))
			return false;
	return true;
}

void owner_free(struct test_owner *o)
{
	set_owner(o->pfn, o->order, NULL);
	free_pages(pfn_to_page(o->pfn), o->order);
	o->live = false;
}

/*
 * range_claim.c - the list of claimed physical ranges and the check the mm
 * operations make against it (contracts in include/mm/range_claim.h).
 *
 * A handful of holders exist at a time (one shell job, a resize per
 * virtio-mem device, a DIMM add and a DIMM eject), so the list is walked
 * from its head on every question.
 */
#include <mm/range_claim.h>
#include <lib/errno.h>

static struct range_claim *claims;	/* [m] held claims; (main), one CPU */
static struct range_claim *current_holder;	/* [m] whose work runs now; (main), one CPU */

/* Does c's range meet [start_pfn, end_pfn)? */
static bool claim_meets(const struct range_claim *c, u64 start_pfn, u64 end_pfn)
{
	return start_pfn < c->end_pfn && c->start_pfn < end_pfn;
}

/* The held claim other than skip that meets [start_pfn, end_pfn), or NULL. */
static const struct range_claim *claim_find(const struct range_claim *skip, u64 start_pfn,
					    u64 end_pfn)
{
	if (start_pfn >= end_pfn)
		return NULL;
	for (const struct range_claim *c = claims; c; c = c->next)
		if (c != skip && claim_meets(c, start_pfn, end_pfn))
			return c;
	return NULL;
}

int range_claim(struct range_claim *c, u64 start_pfn, u64 end_pfn, const char *name, void *owner)
{
	if (start_pfn >= end_pfn) {
		range_release(c);
		return 0;
	}
	if (claim_find(c, start_pfn, end_pfn))
		return -EBUSY;
	c->start_pfn = start_pfn;
	c->end_pfn = end_pfn;
	c->name = name;
	c->owner = owner;
	if (!c->held) {
		c->held = true;
		c->next = claims;
		claims = c;
	}
	return 0;
}

void range_release(struct range_claim *c)
{
	if (!c->held)
		return;
	for (struct range_claim **pp = &claims; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	c->held = false;
	c->next = NULL;
	c->start_pfn = c->end_pfn = 0;
}

const struct range_claim *range_claim_holder(u64 start_pfn, u64 end_pfn)
{
	return claim_find(current_holder, start_pfn, end_pfn);
}

int range_claim_check(u64 start_pfn, u64 end_pfn)
{
	return range_claim_holder(start_pfn, end_pfn) ? -EBUSY : 0;
}

struct range_claim *range_claim_set_current(struct range_claim *c)
{
	struct range_claim *prev = current_holder;

	current_holder = c;
	return prev;
}

unsigned range_claims_held(void)
{
	unsigned n = 0;

	for (const struct range_claim *c = claims; c; c = c->next)
		n++;
	return n;
}

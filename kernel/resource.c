/*
 * resource.c - the resource tree of the physical address space and of the
 * I/O port space (see include/kernel/resource.h for the rules).
 *
 * Each level of the tree is a singly linked list of siblings sorted by
 * start; a range that meets a sibling is refused, one that lies inside a
 * non-busy resource may go down into it.  Resources that callers embed in
 * their own structures (a PCI function's BARs) and resources taken from the
 * pool below (request_region(), hot-added System RAM) live in the same
 * tree; only pool entries are ever freed here.
 *
 * Every walk is a loop over parent/sibling/child pointers, never a
 * recursion, and is bounded by the number of resources in the tree.
 */
#include <kernel/resource.h>
#include <lib/errno.h>
#include <lib/printer.h>
#include <lib/printk.h>
#include <lib/string.h>

struct resource iomem_resource = {
	.start = 0, .end = (1ULL << 52) - 1, .name = "PCI mem", .flags = IORESOURCE_MEM,
};

struct resource ioport_resource = {
	.start = 0, .end = 0xffff, .name = "PCI IO", .flags = IORESOURCE_IO,
};

/* The pool: firmware ranges, hot-added memory, regions drivers request. */
#define RESOURCE_POOL_SIZE	512
struct pool_resource {
	struct resource r;
	char name[RESOURCE_NAME_LEN];
	bool used;
};
static struct pool_resource pool[RESOURCE_POOL_SIZE];
static unsigned pool_used;

/* pool_alloc() - a zeroed pool entry holding a copy of name, or NULL. */
static struct resource *pool_alloc(u64 start, u64 end, const char *name, u32 flags)
{
	for (unsigned i = 0; i < RESOURCE_POOL_SIZE; i++) {
		struct pool_resource *pr = &pool[i];

		if (pr->used)
			continue;
		memset(pr, 0, sizeof(*pr));
		pr->used = true;
		strlcpy(pr->name, name ? name : "", sizeof(pr->name));
		pr->r.start = start;
		pr->r.end = end;
		pr->r.name = pr->name;
		pr->r.flags = flags;
		pool_used++;
		return &pr->r;
	}
	pr_err("resource: pool of %u entries full; %s [%llx-%llx] not recorded",
	       RESOURCE_POOL_SIZE, name, (unsigned long long)start, (unsigned long long)end);
	return NULL;
}

/* pool_of() - the pool entry r is, or NULL for a caller's own resource. */
static struct pool_resource *pool_of(struct resource *r)
{
	uintptr_t a = (uintptr_t)r, lo = (uintptr_t)&pool[0], hi = (uintptr_t)&pool[RESOURCE_POOL_SIZE];

	if (a < lo || a >= hi)
		return NULL;
	return &pool[(a - lo) / sizeof(pool[0])];
}

/* pool_free() - give a pool entry back (r out of any tree already). */
static void pool_free(struct resource *r)
{
	struct pool_resource *pr = pool_of(r);

	if (pr && pr->used) {
		pr->used = false;
		pool_used--;
	}
}

struct resource *resource_new(u64 start, u64 end, const char *name, u32 flags)
{
	if (start > end)
		return NULL;
	return pool_alloc(start, end, name, flags);
}

void resource_free(struct resource *r)
{
	if (!r || !pool_of(r))
		return;
	if (r->parent)
		release_resource(r);
	pool_free(r);
}

unsigned resource_pool_used(void)
{
	return pool_used;
}

/* meets() - do the closed ranges of a and [start, end] share an address? */
static bool meets(const struct resource *a, u64 start, u64 end)
{
	return a->start <= end && a->end >= start;
}

/* request_resource_conflict() - as request_resource(); NULL on success,
 * else the child of parent r meets (or parent itself when r does not fit
 * in it). */
static struct resource *request_resource_conflict(struct resource *parent, struct resource *r)
{
	struct resource **pp;

	if (r->start > r->end || r->start < parent->start || r->end > parent->end)
		return parent;
	for (pp = &parent->child; *pp && (*pp)->end < r->start; pp = &(*pp)->sibling)
		;
	if (*pp && (*pp)->start <= r->end)
		return *pp;
	r->sibling = *pp;
	r->parent = parent;
	*pp = r;
	return NULL;
}

int request_resource(struct resource *parent, struct resource *r)
{
	if (r->parent || r->start > r->end)
		return -EINVAL;
	struct resource *c = request_resource_conflict(parent, r);

	if (!c)
		return 0;
	return c == parent ? -EINVAL : -EBUSY;
}

/*
 * insert_resource() - see resource.h.  Down through every resource that
 * contains r strictly; at that level, the siblings r meets must all lie
 * inside r, and they become r's children in their order.
 */
int insert_resource(struct resource *parent, struct resource *r)
{
	struct resource **pp, **first, *c, *last;

	if (r->parent || r->start > r->end || r->start < parent->start || r->end > parent->end)
		return -EINVAL;
	for (;;) {
		for (pp = &parent->child; *pp && (*pp)->end < r->start; pp = &(*pp)->sibling)
			;
		c = *pp;
		if (!c || c->start > r->end)
			return request_resource(parent, r);
		if (c->start <= r->start && c->end >= r->end &&
		    (c->start != r->start || c->end != r->end)) {
			parent = c;	/* c holds r whole: one level down */
			continue;
		}
		break;
	}
	/* Every sibling r meets must be inside it. */
	first = pp;
	for (last = c; last; last = last->sibling) {
		if (last->start > r->end)
			break;
		if (last->start < r->start || last->end > r->end)
			return -EBUSY;
	}
	/* Adopt [c, ...] up to the one before `last`. */
	r->child = *first;
	r->parent = parent;
	for (c = *first; ; c = c->sibling) {
		c->parent = r;
		if (c->sibling == last) {
			c->sibling = NULL;
			break;
		}
	}
	r->sibling = last;
	*first = r;
	return 0;
}

int release_resource(struct resource *r)
{
	struct resource *parent = r->parent, **pp, *c;

	if (!parent)
		return -EINVAL;
	for (pp = &parent->child; *pp && *pp != r; pp = &(*pp)->sibling)
		;
	if (!*pp)
		return -EINVAL;
	if (r->child) {
		/* The children take r's place, in their order. */
		*pp = r->child;
		for (c = r->child; ; c = c->sibling) {
			c->parent = parent;
			if (!c->sibling)
				break;
		}
		c->sibling = r->sibling;
	} else {
		*pp = r->sibling;
	}
	r->parent = r->sibling = r->child = NULL;
	return 0;
}

/*
 * place_region() - put r (not in a tree) under root as __request_region
 * does: into every non-busy resource that holds it whole.  NULL, or the
 * resource it meets (root if it does not fit in root).
 */
static struct resource *place_region(struct resource *root, struct resource *r)
{
	struct resource *parent = root, *c;

	for (;;) {
		c = request_resource_conflict(parent, r);
		if (!c)
			return NULL;
		if (c == parent || (c->flags & IORESOURCE_BUSY) ||
		    c->start > r->start || c->end < r->end)
			return c;
		parent = c;
	}
}

struct resource *request_region(struct resource *root, u64 start, u64 n,
				const char *name, u32 flags)
{
	struct resource *r, *c;

	if (!n || start + n - 1 < start) {
		pr_warn("resource: %s: empty or wrapping range %#llx+%#llx refused", name,
			(unsigned long long)start, (unsigned long long)n);
		return NULL;
	}
	r = pool_alloc(start, start + n - 1, name, flags | IORESOURCE_BUSY);
	if (!r)
		return NULL;
	c = place_region(root, r);
	if (c) {
		pr_warn("resource: %s [%llx-%llx] conflicts with %s [%llx-%llx]", name,
			(unsigned long long)r->start, (unsigned long long)r->end, c->name,
			(unsigned long long)c->start, (unsigned long long)c->end);
		pool_free(r);
		return NULL;
	}
	return r;
}

struct resource *request_mem_region(u64 start, u64 n, const char *name)
{
	return request_region(&iomem_resource, start, n, name, IORESOURCE_MEM);
}

/* next_in_tree() - depth-first successor of r below root, or NULL. */
static struct resource *next_in_tree(const struct resource *root, struct resource *r, int *depth)
{
	if (r->child) {
		(*depth)++;
		return r->child;
	}
	while (!r->sibling) {
		r = r->parent;
		(*depth)--;
		if (!r || r == root)
			return NULL;
	}
	return r->sibling;
}

/* find_exact() - the resource under root with exactly [start, end], or NULL. */
static struct resource *find_exact(struct resource *root, u64 start, u64 end, bool pool_only)
{
	int depth = 0;

	for (struct resource *r = root->child; r; r = next_in_tree(root, r, &depth))
		if (r->start == start && r->end == end && (!pool_only || pool_of(r)))
			return r;
	return NULL;
}

int release_region(struct resource *root, u64 start, u64 n)
{
	struct resource *r;

	if (!n)
		return -ENOENT;
	r = find_exact(root, start, start + n - 1, true);
	if (!r)
		return -ENOENT;
	release_resource(r);
	pool_free(r);
	return 0;
}

struct resource *resource_lookup(struct resource *root, u64 addr)
{
	struct resource *found = NULL, *r = root->child;

	while (r) {
		if (r->start <= addr && addr <= r->end) {
			found = r;
			r = r->child;
		} else {
			r = r->sibling;
		}
	}
	return found;
}

/* prev_sibling() - the sibling before r, or NULL if r is the first. */
static struct resource *prev_sibling(struct resource *r)
{
	struct resource *c = r->parent->child;

	if (c == r)
		return NULL;
	while (c && c->sibling != r)
		c = c->sibling;
	return c;
}

/* mergeable() - may a and b (neighbours, a below b) become one resource? */
static bool mergeable(const struct resource *a, const struct resource *b)
{
	return a && b && pool_of((struct resource *)a) && pool_of((struct resource *)b) &&
	       a->end + 1 == b->start && a->flags == b->flags && !a->child && !b->child &&
	       !strcmp(a->name, b->name);
}

int add_system_ram_resource(u64 start, u64 n, const char *name, bool merge)
{
	struct resource *r = request_region(&iomem_resource, start, n, name, IORESOURCE_SYSTEM_RAM);
	struct resource *prev, *next;

	if (!r)
		return -EBUSY;
	if (!merge)
		return 0;
	prev = prev_sibling(r);
	if (mergeable(prev, r)) {
		prev->end = r->end;
		release_resource(r);
		pool_free(r);
		r = prev;
	}
	next = r->sibling;
	if (mergeable(r, next)) {
		r->end = next->end;
		release_resource(next);
		pool_free(next);
	}
	return 0;
}

int release_mem_region_adjustable(u64 start, u64 n)
{
	u64 end = start + n - 1;
	struct resource *r, *tail;

	if (!n || end < start)
		return -ENOENT;
	for (r = resource_lookup(&iomem_resource, start); r; r = r->parent)
		if ((r->flags & IORESOURCE_SYSRAM) && (r->flags & IORESOURCE_BUSY))
			break;
	if (!r || r == &iomem_resource || r->end < end)
		return -ENOENT;
	for (struct resource *c = r->child; c; c = c->sibling)
		if (meets(c, start, end))
			return -EBUSY;	/* something inside the range is claimed */
	if (r->start == start && r->end == end) {
		release_resource(r);
		pool_free(r);
	} else if (r->start == start) {
		r->start = end + 1;
	} else if (r->end == end) {
		r->end = start - 1;
	} else {
		tail = pool_alloc(end + 1, r->end, r->name, r->flags);
		if (!tail)
			return -ENOMEM;
		/* Children above the hole move to the tail. */
		struct resource **pp = &r->child;

		while (*pp && (*pp)->start < start)
			pp = &(*pp)->sibling;
		tail->child = *pp;
		*pp = NULL;
		for (struct resource *c = tail->child; c; c = c->sibling)
			c->parent = tail;
		r->end = start - 1;
		tail->parent = r->parent;
		tail->sibling = r->sibling;
		r->sibling = tail;
	}
	return 0;
}

/* ram_resource_at() - the BUSY System RAM resource named `name` holding
 * [start, end] whole, or NULL. */
static struct resource *ram_resource_at(u64 start, u64 end, const char *name)
{
	for (struct resource *r = resource_lookup(&iomem_resource, start); r && r != &iomem_resource;
	     r = r->parent)
		if ((r->flags & IORESOURCE_SYSRAM) && (r->flags & IORESOURCE_BUSY))
			return r->end >= end && !strcmp(r->name, name) ? r : NULL;
	return NULL;
}

void set_system_ram_resource(u64 start, u64 n, bool present, const char *name)
{
	struct resource *r;

	if (!n || start + n - 1 < start)
		return;
	r = ram_resource_at(start, start + n - 1, name);
	if (present && !r)
		add_system_ram_resource(start, n, name, true);
	else if (!present && r)
		release_mem_region_adjustable(start, n);
}

struct resource *request_device_region(u64 start, u64 n, const char *name)
{
	struct resource *r = request_mem_region(start, n, name);

	if (r)
		r->flags &= ~IORESOURCE_BUSY;
	return r;
}

void resource_print_tree(const struct resource *root, int width, struct printer *p)
{
	int depth = 0;

	for (struct resource *r = root->child; r; r = next_in_tree(root, r, &depth))
		pr_printf(p, "%*s%0*llx-%0*llx : %s\n", depth * 2, "", width,
			  (unsigned long long)r->start, width, (unsigned long long)r->end,
			  r->name ? r->name : "");
}

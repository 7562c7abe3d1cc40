/*
 * aml_namespace.c - the tree of names: nodes, paths, and the lookup rules
 * of ACPI 6.5 5.3: a single NameSeg without prefix is searched in the
 * current scope and then in each parent up to the root; any other path is
 * taken as written from the root ('\\'), from a parent ('^' per level) or
 * from the current scope.
 *
 * Children are kept in creation order (the namespace dump shows them in
 * table order, as acpiexec does).
 */
#include "aml_internal.h"

static void name_forget(struct aml_ns *ns, const struct aml_node *n);

/* The bucket of ns->name_gen counting creations of nodes called name. */
static unsigned name_bucket(u32 name)
{
	return (unsigned)((name * 0x9e3779b1u) >> 26);
}
_Static_assert(AML_NAME_GENS == 1 << 6, "name_bucket() takes 6 bits");

/* aml_node_child() - the child of parent named `name`, or NULL. */
struct aml_node *aml_node_child(struct aml_node *parent, u32 name)
{
	for (struct aml_node *n = parent ? parent->child : NULL; n; n = n->next)
		if (n->name == name)
			return n;
	return NULL;
}

/* aml_node_new() - a new child of parent, last among its siblings.  NULL
 * when out of arena.  The caller checks the name is not taken. */
struct aml_node *aml_node_new(struct aml_ns *ns, struct aml_node *parent, u32 name)
{
	struct aml_node *n = aml_alloc(ns, sizeof(*n));

	if (!n)
		return NULL;
	/* a name may now resolve to n: cached lookups that could are stale */
	ns->node_gen++;
	ns->name_gen[name_bucket(name)]++;
	n->name = name;
	n->parent = parent;
	if (parent) {
		struct aml_node **pp = &parent->child;
		while (*pp)
			pp = &(*pp)->next;
		*pp = n;
	}
	return n;
}

/* aml_node_delete() - unlink n and free it, its object and its subtree
 * (iteratively: deepest first, no recursion). */
void aml_node_delete(struct aml_ns *ns, struct aml_node *n)
{
	if (n->parent) {
		struct aml_node **pp = &n->parent->child;
		while (*pp && *pp != n)
			pp = &(*pp)->next;
		if (*pp)
			*pp = n->next;
	}
	n->parent = NULL;
	n->next = NULL;
	struct aml_node *cur = n;
	while (cur) {
		if (cur->child) {
			struct aml_node *c = cur->child;
			cur->child = c->next;
			c->next = NULL;
			c->parent = cur;	/* to come back up */
			cur = c;
			continue;
		}
		struct aml_node *up = cur == n ? NULL : cur->parent;
		if (cur->cached)
			name_forget(ns, cur);	/* no cached lookup may hand it out */
		aml_put(ns, cur->obj);
		aml_free(ns, cur);
		cur = up;
	}
}

/*
 * aml_name_parse() - decode a NameString at *p (before end).  Returns the
 * scope its prefixes lead to from `scope` in *prefix_scope (NULL when '^'
 * climbs above the root), up to 32 NameSegs in segs[*nseg], and whether the
 * upward search applies.  A NullName gives *nseg == 0.  Advances *p.
 */
int aml_name_parse(const u8 **p, const u8 *end, struct aml_node *scope,
		   struct aml_node **prefix_scope, u32 *segs, unsigned *nseg, bool *search)
{
	const u8 *s = *p;
	struct aml_node *sc = scope;
	bool prefixed = false;
	unsigned count;

	if (s < end && *s == '\\') {
		while (sc && sc->parent)
			sc = sc->parent;
		s++;
		prefixed = true;
	} else {
		while (s < end && *s == '^') {
			sc = sc ? sc->parent : NULL;
			s++;
			prefixed = true;
		}
	}
	if (s >= end)
		return AML_EPARSE;
	if (*s == 0x00) {
		count = 0;
		s++;
	} else if (*s == 0x2e) {
		count = 2;
		s++;
	} else if (*s == 0x2f) {
		if (s + 1 >= end)
			return AML_EPARSE;
		count = s[1];
		s += 2;
		if (count > AML_MAX_SEGS)
			return AML_EPARSE;
	} else {
		count = 1;
	}
	if ((size_t)(end - s) < 4 * (size_t)count)
		return AML_EPARSE;
	for (unsigned i = 0; i < count; i++, s += 4) {
		for (unsigned k = 0; k < 4; k++) {
			u8 ch = s[k];
			bool ok = (ch >= 'A' && ch <= 'Z') || ch == '_' || (k && ch >= '0' && ch <= '9');
			if (!ok)
				return AML_EPARSE;
		}
		segs[i] = NAME4(s[0], s[1], s[2], s[3]);
	}
	*p = s;
	*prefix_scope = sc;
	*nseg = count;
	*search = !prefixed && count == 1;
	return AML_OK;
}

/* aml_resolve() - the node segs name from scope, searching upward when
 * `search` (see aml_name_parse()), or NULL. */
struct aml_node *aml_resolve(struct aml_node *scope, const u32 *segs, unsigned nseg, bool search)
{
	if (!scope)
		return NULL;
	if (nseg == 0)
		return scope;
	if (search && nseg == 1) {
		for (struct aml_node *s = scope; s; s = s->parent) {
			struct aml_node *n = aml_node_child(s, segs[0]);
			if (n)
				return n;
		}
		return NULL;
	}
	struct aml_node *n = scope;
	for (unsigned i = 0; n && i < nseg; i++)
		n = aml_node_child(n, segs[i]);
	return n;
}

/* aml_lookup() - a path in ASL text form ("\\_SB.PCI0", "_S5", "^FOO")
 * from scope (NULL: the root), with the same rules.  NULL if absent or
 * malformed.  Segments shorter than four characters are padded with '_'. */
struct aml_node *aml_lookup(struct aml_ns *ns, struct aml_node *scope, const char *path)
{
	struct aml_node *sc = scope ? scope : ns->root;
	bool prefixed = false;
	u32 segs[AML_MAX_SEGS];
	unsigned n = 0;

	if (*path == '\\') {
		sc = ns->root;
		path++;
		prefixed = true;
	}
	while (*path == '^') {
		sc = sc ? sc->parent : NULL;
		path++;
		prefixed = true;
	}
	while (*path) {
		char seg[4] = { '_', '_', '_', '_' };
		unsigned k = 0;
		while (*path && *path != '.') {
			if (k == 4)
				return NULL;
			char ch = *path++;
			if (ch >= 'a' && ch <= 'z')
				ch = (char)(ch - 'a' + 'A');
			seg[k++] = ch;
		}
		if (!k || n == AML_MAX_SEGS)
			return NULL;
		segs[n++] = NAME4(seg[0], seg[1], seg[2], seg[3]);
		if (*path == '.')
			path++;
	}
	return aml_resolve(sc, segs, n, !prefixed && n == 1);
}

struct aml_obj *aml_node_object(const struct aml_node *n)
{
	return n ? n->obj : NULL;
}

/* aml_path_str() - "\\_SB_.PCI0.S00_" (the root: "\\"). */
void aml_path_str(const struct aml_node *n, char *buf, size_t size)
{
	const struct aml_node *chain[64];
	unsigned depth = 0;
	size_t len = 0;

	if (!size)
		return;
	for (const struct aml_node *c = n; c && c->parent && depth < 64; c = c->parent)
		chain[depth++] = c;
	if (len + 1 < size)
		buf[len++] = '\\';
	while (depth--) {
		if (len + 5 >= size)
			break;
		memcpy(buf + len, &chain[depth]->name, 4);
		len += 4;
		if (depth)
			buf[len++] = '.';
	}
	buf[len] = 0;
}

void aml_node_path(const struct aml_node *n, char *buf, size_t size)
{
	aml_path_str(n, buf, size);
}

/* The pair of cache slots of the NameString at p met in scope. */
static struct aml_name_slot *name_slots(struct aml_ns *ns, const u8 *p, const struct aml_node *scope)
{
	u64 h = ((u64)(uintptr_t)p ^ ((u64)(uintptr_t)scope >> 4)) * 0x9e3779b97f4a7c15ull;

	return &ns->names[(h >> (64 - 7)) * 2];
}
_Static_assert(AML_NAME_CACHE == 2 << 7, "name_slots() takes 7 bits of the hash");

/* The creation count a kept lookup of `node` (last segment `last`)
 * depends on. */
static u64 name_gen_of(const struct aml_ns *ns, const struct aml_node *node, u32 last)
{
	return node ? ns->name_gen[name_bucket(last)] : ns->node_gen;
}

static bool slot_hit(const struct aml_ns *ns, const struct aml_name_slot *e, const struct aml_state *st)
{
	if (e->p != st->p || e->scope != st->scope || e->gen != name_gen_of(ns, e->node, e->last) ||
	    (size_t)(st->end - st->p) < e->len)
		return false;
	for (unsigned i = 0; i < e->len; i++)	/* at most AML_NAME_BYTES: no call */
		if (e->bytes[i] != st->p[i])
			return false;
	return true;
}

/* name_forget() - drop the kept lookups that hold n (as their node or
 * their scope): n is being deleted.  Context: any; ns only. */
static void name_forget(struct aml_ns *ns, const struct aml_node *n)
{
	for (unsigned i = 0; i < AML_NAME_CACHE; i++)
		if (ns->names[i].p && (ns->names[i].node == n || ns->names[i].scope == n))
			ns->names[i].p = NULL;
}

/*
 * aml_name_at() - decode the NameString at st->p and resolve it (NULL if
 * absent); *last gets its last NameSeg (0 for a NullName).  Separate and
 * not inlined, so the segment array is off the stack while the
 * interpreter recurses.  AML_EPARSE if the name is malformed.
 *
 * The code's names are resolved again each time they run (a While's body,
 * a method called per slot), so each result is kept, per call site: the
 * same bytes at the same place in the same scope name the same node until
 * a node is created that the lookup could find instead: one of the found
 * node's name (a nearer one for the upward search), or any when nothing
 * was found.  Only nodes that outlive every method are kept (the table's,
 * not a method's temporaries, deleted when it returns), so no deletion
 * but the namespace's own can make a kept node stale; name_forget()
 * covers that too.  A kept result is only taken when the bytes still
 * match, so code that changes under the interpreter is resolved anew.
 * Each site has two slots; a new result goes into the first, pushing the
 * first's into the second.
 */
static __noinline int name_miss(struct aml_ns *ns, struct aml_state *st, struct aml_name_slot *e,
				struct aml_node **node, u32 *last);

__noinline int aml_name_at(struct aml_ns *ns, struct aml_state *st, struct aml_node **node, u32 *last)
{
	struct aml_name_slot *e = name_slots(ns, st->p, st->scope);

	for (unsigned i = 0; i < 2; i++)
		if (slot_hit(ns, &e[i], st)) {
			st->p += e[i].len;
			*node = e[i].node;
			*last = e[i].last;
			return AML_OK;
		}
	return name_miss(ns, st, e, node, last);
}

/* aml_name_at() without a kept result: decode, resolve, keep it when it
 * may be kept (e: the site's pair of slots).  Out of line: its segment
 * array stays off the hit path's frame. */
static __noinline int name_miss(struct aml_ns *ns, struct aml_state *st, struct aml_name_slot *e,
				struct aml_node **node, u32 *last)
{
	struct aml_node *ps;
	u32 segs[AML_MAX_SEGS];
	unsigned nseg;
	bool search;
	const u8 *p = st->p;

	if (aml_name_parse(&st->p, st->end, st->scope, &ps, segs, &nseg, &search))
		return AML_EPARSE;
	*last = nseg ? segs[nseg - 1] : 0;
	*node = nseg ? aml_resolve(ps, segs, nseg, search) : NULL;
	size_t len = (size_t)(st->p - p);
	if (len <= AML_NAME_BYTES && st->scope && !st->scope->temp && !(*node && (*node)->temp)) {
		e[1] = e[0];
		e[0].p = p;
		e[0].scope = st->scope;
		e[0].node = *node;
		e[0].gen = name_gen_of(ns, *node, *last);
		e[0].last = *last;
		e[0].len = (u8)len;
		memcpy(e[0].bytes, p, len);
		st->scope->cached = true;
		if (*node)
			(*node)->cached = true;
	}
	return AML_OK;
}

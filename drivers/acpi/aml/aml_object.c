/*
 * aml_object.c - the arena every object and node comes from, and the
 * objects' life: creation, refcounts, deep copies.
 *
 * The arena is the caller's block of memory.  Blocks are powers of two from
 * 16 bytes, each with an 8-byte header holding its class; a freed block
 * goes on its class's free list and is reused by the next request of that
 * class, fresh blocks are cut from the top.  The arena never grows: an
 * allocation that does not fit fails, and the evaluation fails with
 * AML_ENOMEM.  So hostile AML (a Buffer of 4 GiB, a While that concatenates
 * for ever) costs at most the arena.
 */
#include "aml_internal.h"

struct aml_block { u64 cls; };

/* aml_alloc() - n zeroed bytes, or NULL once the arena is full (the
 * rest of the block, up to its power of two, is not zeroed: nobody may
 * use it).  Context: any; ns->arena only. */
void *aml_alloc(struct aml_ns *ns, size_t n)
{
	struct aml_arena *a = &ns->arena;
	unsigned cls;
	size_t size;

	if (n > ((size_t)16 << (AML_NR_CLASSES - 1)) - sizeof(struct aml_block))
		return NULL;
	/* the smallest 16 << cls that holds n and the header */
	size_t units = (n + sizeof(struct aml_block) + 15) >> 4;	/* >= 1 */
	cls = units <= 1 ? 0 : 64 - (unsigned)__builtin_clzll((u64)units - 1);
	size = (size_t)16 << cls;
	struct aml_block *b = a->free[cls];
	if (b) {
		a->free[cls] = *(void **)(b + 1);
	} else {
		if ((size_t)(a->end - a->brk) < size)
			return NULL;
		b = (struct aml_block *)a->brk;
		a->brk += size;
	}
	b->cls = cls;
	a->in_use += size;
	if (a->in_use > a->peak)
		a->peak = a->in_use;
	memset(b + 1, 0, n);
	return b + 1;
}

/* aml_free() - give back a block of aml_alloc() (NULL is ignored). */
void aml_free(struct aml_ns *ns, void *p)
{
	if (!p)
		return;
	struct aml_block *b = (struct aml_block *)p - 1;
	unsigned cls = (unsigned)b->cls;

	ns->arena.in_use -= (size_t)16 << cls;
	*(void **)p = ns->arena.free[cls];
	ns->arena.free[cls] = b;
}

/* aml_int_mask() - all ones for 64-bit integers, 0xffffffff for a DSDT of
 * revision < 2. */
u64 aml_int_mask(const struct aml_ns *ns)
{
	return ns->int32 ? 0xffffffffull : ~0ull;
}

/* aml_obj_new() - an object of `type` with one reference, zeroed. */
struct aml_obj *aml_obj_new(struct aml_ns *ns, u8 type)
{
	struct aml_obj *o = aml_alloc(ns, sizeof(*o));

	if (o) {
		o->type = type;
		o->refs = 1;
		ns->stats.objects++;
	}
	return o;
}

struct aml_obj *aml_get(struct aml_obj *o)
{
	if (o)
		o->refs++;
	return o;
}

struct aml_obj *aml_new_integer(struct aml_ns *ns, u64 v)
{
	struct aml_obj *o = aml_obj_new(ns, AML_INTEGER);

	if (o)
		o->integer = v & aml_int_mask(ns);
	return o;
}

/*
 * aml_int_shared_any() - an Integer of value v (masked to the integer width)
 * with a reference for the caller: for 0, 1 and Ones the namespace's own
 * (ns->k_int, put by aml_destroy()), else a new one.  Only for values
 * nobody changes afterwards: the interpreter never changes an Integer
 * once it is made (Store and the operators make new ones), so constants
 * and the results of comparisons can be one object each, not one per
 * evaluation.  NULL when out of arena.
 */
struct aml_obj *aml_int_shared_any(struct aml_ns *ns, u64 v)
{
	u64 mask = aml_int_mask(ns);
	unsigned k;

	v &= mask;
	k = v == 0 ? 0 : v == 1 ? 1 : v == mask ? 2 : 3;
	if (k == 3)
		return aml_new_integer(ns, v);
	struct aml_obj *o = ns->k_int[k];
	if (!o || o->integer != v) {	/* Ones of another width (a revision 1 DSDT loaded since) */
		o = aml_new_integer(ns, v);
		if (!o)
			return NULL;
		aml_put(ns, ns->k_int[k]);	/* its other holders keep theirs */
		ns->k_int[k] = o;
	}
	return aml_get(o);
}

/* aml_new_buffer() - a String or Buffer of len bytes copied from data (or
 * zeroed when data is NULL).  A String gets its NUL after len. */
struct aml_obj *aml_new_buffer(struct aml_ns *ns, u8 type, const void *data, u32 len)
{
	struct aml_obj *o = aml_obj_new(ns, type);

	if (!o)
		return NULL;
	o->buf.data = aml_alloc(ns, (size_t)len + 1);
	if (!o->buf.data) {
		aml_free(ns, o);
		return NULL;
	}
	o->buf.len = len;
	if (data)
		memcpy(o->buf.data, data, len);
	return o;
}

struct aml_obj *aml_new_string(struct aml_ns *ns, const char *s)
{
	return aml_new_buffer(ns, AML_STRING, s, (u32)strlen(s));
}

/* aml_new_buffer_of() - the public Buffer constructor of aml.h. */
struct aml_obj *aml_new_buffer_of(struct aml_ns *ns, const void *data, u32 len)
{
	return aml_new_buffer(ns, AML_BUFFER, data, len);
}

/* aml_new_package_of() - a Package of the n objects, each taking a
 * reference of its own (the caller keeps its own). */
struct aml_obj *aml_new_package_of(struct aml_ns *ns, struct aml_obj *const *elems, u32 n)
{
	struct aml_obj *o = aml_new_package(ns, n);

	for (u32 i = 0; o && i < n; i++)
		o->pkg.elems[i] = elems[i] ? aml_get(elems[i]) : NULL;
	return o;
}

/* aml_new_package() - a Package of count Uninitialized (NULL) elements. */
struct aml_obj *aml_new_package(struct aml_ns *ns, u32 count)
{
	struct aml_obj *o = aml_obj_new(ns, AML_PACKAGE);

	if (!o)
		return NULL;
	o->pkg.elems = aml_alloc(ns, (size_t)(count ? count : 1) * sizeof(*o->pkg.elems));
	if (!o->pkg.elems) {
		aml_free(ns, o);
		return NULL;
	}
	o->pkg.count = count;
	return o;
}

/* Drop one reference of o; at zero, o joins the dead list. */
static void drop(struct aml_obj *o, struct aml_obj **dead)
{
	if (o && --o->refs == 0) {
		o->dead_next = *dead;
		*dead = o;
	}
}

/* aml_put() - drop one reference; the last frees the object and drops what
 * it holds (package elements, a field's region, a reference's target).
 * Freed objects go through an explicit list, so a package nested a
 * thousand deep costs no C stack. */
void aml_put(struct aml_ns *ns, struct aml_obj *o)
{
	struct aml_obj *dead = o;

	if (!o || --o->refs)
		return;		/* the common case: not the last reference */
	o->dead_next = NULL;
	while (dead) {
		o = dead;
		dead = o->dead_next;
		switch (o->type) {
		case AML_STRING:
		case AML_BUFFER:
			aml_free(ns, o->buf.data);
			break;
		case AML_PACKAGE:
			for (u32 i = 0; i < o->pkg.count; i++)
				drop(o->pkg.elems[i], &dead);
			aml_free(ns, o->pkg.elems);
			break;
		case AML_FIELD_UNIT:
			drop(o->field.region, &dead);
			drop(o->field.index, &dead);
			drop(o->field.data, &dead);
			drop(o->field.bank, &dead);
			break;
		case AML_BUFFER_FIELD:
			drop(o->bfield.buf, &dead);
			break;
		case AML_REFERENCE:
			drop(o->ref.target, &dead);
			break;
		}
		aml_free(ns, o);
	}
}

/*
 * aml_copy() - an object with o's value: String and Buffer by value, a
 * Package element by element (nested packages up to `depth` levels;
 * deeper ones fail), anything else shares o (a new reference).  An Integer
 * is shared too: none changes once made (see aml_int_shared()), so a copy
 * could not be told from it.  NULL when out of arena or too deep.
 */
struct aml_obj *aml_copy(struct aml_ns *ns, const struct aml_obj *o, u32 depth)
{
	struct aml_obj *n;

	switch (o->type) {
	case AML_STRING:
	case AML_BUFFER:
		return aml_new_buffer(ns, o->type, o->buf.data, o->buf.len);
	case AML_PACKAGE:
		if (!depth)
			return NULL;
		n = aml_new_package(ns, o->pkg.count);
		for (u32 i = 0; n && i < o->pkg.count; i++) {
			if (!o->pkg.elems[i])
				continue;
			n->pkg.elems[i] = aml_copy(ns, o->pkg.elems[i], depth - 1);
			if (!n->pkg.elems[i]) {
				aml_put(ns, n);
				return NULL;
			}
		}
		return n;
	default:
		return aml_get((struct aml_obj *)o);
	}
}

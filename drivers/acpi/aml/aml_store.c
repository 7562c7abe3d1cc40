/*
 * aml_store.c - where values go: Targets and SuperNames (Local, Arg, a
 * name, a reference from Index or RefOf, Debug), Store with the implicit
 * conversion of ACPI 6.5 19.3.5.8 (a named Integer, String or Buffer keeps
 * its type; a field unit or buffer field is written), CopyObject's
 * replacement, and reading a reference back (DerefOf).
 */
#include "aml_internal.h"
#include <lib/printer.h>

/*
 * aml_parse_supername() - decode a SuperName: LocalX, ArgX, Debug, a name
 * (which must exist), or a term that yields a reference (Index, RefOf,
 * DerefOf, a method call).  t->ref holds a reference the caller drops
 * with aml_target_put().
 */
int aml_parse_supername(struct aml_ctx *c, struct aml_state *st, struct aml_target *t)
{
	const u8 *at = st->p;

	memset(t, 0, sizeof(*t));
	if (st->p >= st->end)
		return aml_fail(c, at, AML_EPARSE, "target missing");
	u8 b = *st->p;
	if (b >= 0x60 && b <= 0x67) {
		t->kind = T_LOCAL;
		t->index = b - 0x60;
		st->p++;
		return AML_OK;
	}
	if (b >= 0x68 && b <= 0x6e) {
		t->kind = T_ARG;
		t->index = b - 0x68;
		st->p++;
		return AML_OK;
	}
	if (b == 0x5b && st->p + 1 < st->end && st->p[1] == 0x31) {
		t->kind = T_DEBUG;
		st->p += 2;
		return AML_OK;
	}
	if (b == 0x00) {
		t->kind = T_NONE;
		st->p++;
		return AML_OK;
	}
	if (aml_is_name_start(b)) {
		struct aml_node *n;
		u32 last;
		if (aml_name_at(c->ns, st, &n, &last))
			return aml_fail(c, at, AML_EPARSE, "bad target name");
		if (!n)
			return aml_fail(c, at, AML_ENOENT, "target does not exist");
		/* a method's name is the method, not a call (ObjectType, RefOf) */
		t->kind = T_NODE;
		t->node = n;
		return AML_OK;
	}
	struct aml_obj *v = NULL;
	int r = aml_eval_term(c, st, &v);
	if (r)
		return r;
	if (!v || v->type != AML_REFERENCE) {
		aml_put(c->ns, v);
		return aml_fail(c, at, AML_ETYPE, "target is not a reference");
	}
	t->kind = T_REF;
	t->ref = v;
	return AML_OK;
}

/* aml_parse_target() - a Target: a SuperName or NullName. */
int aml_parse_target(struct aml_ctx *c, struct aml_state *st, struct aml_target *t)
{
	return aml_parse_supername(c, st, t);
}

void aml_target_put(struct aml_ctx *c, struct aml_target *t)
{
	aml_put(c->ns, t->ref);
	t->ref = NULL;
}

/* The value a node holds, as an operand: fields read. */
static int node_value(struct aml_ctx *c, struct aml_node *n, struct aml_obj **out, const u8 *at)
{
	if (!n->obj)
		return aml_fail(c, at, AML_ETYPE, "name without an object");
	if (n->obj->type == AML_FIELD_UNIT)
		return aml_field_read(c, n->obj, out, at);
	if (n->obj->type == AML_BUFFER_FIELD)
		return aml_bfield_read(c, n->obj, out, at);
	*out = aml_get(n->obj);
	return AML_OK;
}

/* aml_deref() - the value a reference refers to (DerefOf). */
int aml_deref(struct aml_ctx *c, struct aml_obj *ref, struct aml_obj **out, const u8 *at)
{
	switch (ref->ref.kind) {
	case AML_REF_NODE:
		return node_value(c, ref->ref.node, out, at);
	case AML_REF_OBJ:
		*out = aml_get(ref->ref.target);
		return AML_OK;
	}
	struct aml_obj *t = ref->ref.target;
	if (t->type == AML_PACKAGE) {
		if (ref->ref.index >= t->pkg.count)
			return aml_fail(c, at, AML_ETYPE, "Index %u past the package", ref->ref.index);
		if (!t->pkg.elems[ref->ref.index])
			return aml_fail(c, at, AML_ETYPE, "package element %u uninitialized",
					ref->ref.index);
		struct aml_obj *e = t->pkg.elems[ref->ref.index];
		if (e->type == AML_REFERENCE && e->ref.kind == AML_REF_NODE)
			return node_value(c, e->ref.node, out, at);
		*out = aml_get(e);
		return AML_OK;
	}
	if (ref->ref.index >= t->buf.len)
		return aml_fail(c, at, AML_ETYPE, "Index %u past the buffer", ref->ref.index);
	*out = aml_new_integer(c->ns, t->buf.data[ref->ref.index]);
	return *out ? AML_OK : aml_fail(c, at, AML_ENOMEM, "out of arena");
}

/* aml_target_read() - the current value at a target (Increment, SizeOf). */
int aml_target_read(struct aml_ctx *c, struct aml_target *t, struct aml_obj **out, const u8 *at)
{
	struct aml_frame *f = c->frame;

	*out = NULL;
	switch (t->kind) {
	case T_LOCAL:
	case T_ARG: {
		struct aml_obj *v = f ? (t->kind == T_LOCAL ? f->locals[t->index] : f->args[t->index]) : NULL;
		if (!v)
			return aml_fail(c, at, AML_ETYPE, "%s%u has no value",
					t->kind == T_LOCAL ? "Local" : "Arg", t->index);
		if (t->kind == T_ARG && v->type == AML_REFERENCE)
			return aml_deref(c, v, out, at);
		*out = aml_get(v);
		return AML_OK;
	}
	case T_NODE:
		return node_value(c, t->node, out, at);
	case T_REF:
		return aml_deref(c, t->ref, out, at);
	}
	return aml_fail(c, at, AML_ETYPE, "target has no value");
}

/* v converted to the type `like` has (Integer, String, Buffer); other
 * types take v as it is (copied). */
static int convert_like(struct aml_ctx *c, const struct aml_obj *old, u8 like, struct aml_obj *v,
			struct aml_obj **out, const u8 *at)
{
	u64 x;
	int r;

	switch (like) {
	case AML_INTEGER:
		if ((r = aml_to_integer(c, v, &x, at)))
			return r;
		*out = aml_new_integer(c->ns, x);
		break;
	case AML_STRING:
		if (v->type == AML_BUFFER) {
			u32 n = 0;
			while (n < v->buf.len && v->buf.data[n])
				n++;
			*out = aml_new_buffer(c->ns, AML_STRING, v->buf.data, n);
			break;
		}
		if ((r = aml_to_string(c, v, out, at)))
			return r;
		if (*out == v) {
			aml_put(c->ns, v);
			*out = aml_copy(c->ns, v, 1);
		}
		break;
	case AML_BUFFER: {
		/* a named Buffer keeps its length: the value truncated or
		 * zero-padded (ACPI 6.5 19.3.5.8) */
		struct aml_obj *b = NULL;
		if (v->type == AML_STRING)
			b = aml_new_buffer(c->ns, AML_BUFFER, v->buf.data, v->buf.len);
		else if ((r = aml_to_buffer(c, v, &b, at)))
			return r;
		if (!b)
			return aml_fail(c, at, AML_ENOMEM, "out of arena");
		*out = aml_new_buffer(c->ns, AML_BUFFER, NULL, old->buf.len);
		if (*out)
			memcpy((*out)->buf.data, b->buf.data, MIN(b->buf.len, old->buf.len));
		aml_put(c->ns, b);
		break;
	}
	default:
		*out = aml_copy(c->ns, v, 16);
		break;
	}
	return *out ? AML_OK : aml_fail(c, at, AML_ENOMEM, "out of arena");
}

/* Store v into node n: fields written, Integer/String/Buffer converted to
 * the node's type, anything else replaced (copied). */
static int store_node(struct aml_ctx *c, struct aml_node *n, struct aml_obj *v, const u8 *at,
		      bool convert)
{
	struct aml_obj *o = n->obj, *nv;
	int r;

	if (o && convert && o->type == AML_FIELD_UNIT)
		return aml_field_write(c, o, v, at);
	if (o && convert && o->type == AML_BUFFER_FIELD)
		return aml_bfield_write(c, o, v, at);
	if (o && (o->type == AML_METHOD || o->type == AML_DEVICE || o->type == AML_REGION ||
		  o->type == AML_MUTEX || o->type == AML_EVENT || o->type == AML_SCOPE ||
		  o->type == AML_PROCESSOR || o->type == AML_THERMAL || o->type == AML_POWER)) {
		char p[96];
		aml_path_str(n, p, sizeof(p));
		return aml_fail(c, at, AML_ETYPE, "cannot store into %s (type %u)", p, o->type);
	}
	r = convert_like(c, o, convert && o ? o->type : 0xff, v, &nv, at);
	if (r)
		return r;
	aml_put(c->ns, n->obj);
	n->obj = nv;
	return AML_OK;
}

/* Debug: the value, one line through the platform log. */
static void store_debug(struct aml_ctx *c, struct aml_obj *v)
{
	if (v->type == AML_INTEGER)
		aml_log(c->ns, "aml: Debug: 0x%llx", (unsigned long long)v->integer);
	else if (v->type == AML_STRING)
		aml_log(c->ns, "aml: Debug: \"%s\"", (const char *)v->buf.data);
	else
		aml_log(c->ns, "aml: Debug: object of type %u", v->type);
}

/* True if o is or holds (in nested packages, up to depth levels) a
 * reference that keeps an object alive (Index, RefOf of a value): one
 * stored into a package element could make a cycle of references that
 * would never be freed.  Bounded like aml_copy(). */
static bool holds_counted_ref(const struct aml_obj *o, unsigned depth)
{
	if (!o)
		return false;
	if (o->type == AML_REFERENCE)
		return o->ref.kind != AML_REF_NODE;
	if (o->type != AML_PACKAGE)
		return false;
	if (!depth)
		return true;
	for (u32 i = 0; i < o->pkg.count; i++)
		if (holds_counted_ref(o->pkg.elems[i], depth - 1))
			return true;
	return false;
}

/* Store through a reference (Index or RefOf result). */
static int store_ref(struct aml_ctx *c, struct aml_obj *ref, struct aml_obj *v, const u8 *at)
{
	if (ref->ref.kind == AML_REF_NODE)
		return store_node(c, ref->ref.node, v, at, true);
	struct aml_obj *t = ref->ref.target;
	if (ref->ref.kind == AML_REF_OBJ)
		return aml_fail(c, at, AML_ETYPE, "store through a reference to a local value");
	if (t->type == AML_PACKAGE) {
		if (ref->ref.index >= t->pkg.count)
			return aml_fail(c, at, AML_ETYPE, "Index %u past the package", ref->ref.index);
		if (holds_counted_ref(v, 16))
			return aml_fail(c, at, AML_ETYPE,
					"a package element may refer only to a named object (no Index or RefOf of a value)");
		struct aml_obj *nv = aml_copy(c->ns, v, 16);
		if (!nv)
			return aml_fail(c, at, AML_ENOMEM, "out of arena");
		aml_put(c->ns, t->pkg.elems[ref->ref.index]);
		t->pkg.elems[ref->ref.index] = nv;
		return AML_OK;
	}
	u64 x;
	int r = aml_to_integer(c, v, &x, at);
	if (r)
		return r;
	if (ref->ref.index >= t->buf.len)
		return aml_fail(c, at, AML_ETYPE, "Index %u past the buffer", ref->ref.index);
	t->buf.data[ref->ref.index] = (u8)x;
	return AML_OK;
}

/*
 * aml_store() - Store (v, target) (v borrowed).  Locals and Args take a copy
 * (an Arg holding a reference is stored through); names convert.
 */
int aml_store(struct aml_ctx *c, struct aml_obj *v, struct aml_target *t, const u8 *at)
{
	struct aml_frame *f = c->frame;
	struct aml_obj **slot;

	if (t->kind == T_NONE)
		return AML_OK;
	if (!v)
		return aml_fail(c, at, AML_ETYPE, "Store of no value");
	switch (t->kind) {
	case T_DEBUG:
		store_debug(c, v);
		return AML_OK;
	case T_LOCAL:
	case T_ARG:
		if (!f)
			return aml_fail(c, at, AML_EPARSE, "Local or Arg outside a method");
		slot = t->kind == T_LOCAL ? &f->locals[t->index] : &f->args[t->index];
		if (t->kind == T_ARG && *slot && (*slot)->type == AML_REFERENCE)
			return store_ref(c, *slot, v, at);
		struct aml_obj *nv = v->type == AML_REFERENCE ? aml_get(v) : aml_copy(c->ns, v, 16);
		if (!nv)
			return aml_fail(c, at, AML_ENOMEM, "out of arena");
		aml_put(c->ns, *slot);
		*slot = nv;
		return AML_OK;
	case T_NODE:
		return store_node(c, t->node, v, at, true);
	case T_REF:
		return store_ref(c, t->ref, v, at);
	}
	return AML_OK;
}

/* aml_copy_object() - CopyObject (v, target): the target takes v's type. */
int aml_copy_object(struct aml_ctx *c, struct aml_obj *v, struct aml_target *t, const u8 *at)
{
	if (t->kind == T_NODE && v)
		return store_node(c, t->node, v, at, false);
	return aml_store(c, v, t, at);
}

/* aml_ref_of() - RefOf (target): a reference object for it. */
int aml_ref_of(struct aml_ctx *c, struct aml_target *t, struct aml_obj **out, const u8 *at)
{
	if (t->kind == T_REF) {
		*out = aml_get(t->ref);
		return AML_OK;
	}
	struct aml_obj *r = aml_obj_new(c->ns, AML_REFERENCE);
	if (!r)
		return aml_fail(c, at, AML_ENOMEM, "out of arena");
	if (t->kind == T_NODE) {
		r->ref.kind = AML_REF_NODE;
		r->ref.node = t->node;
	} else {
		struct aml_obj *v = NULL;
		int e = aml_target_read(c, t, &v, at);
		if (e) {
			aml_put(c->ns, r);
			return e;
		}
		if (v->type == AML_REFERENCE) {
			aml_put(c->ns, r);
			*out = v;
			return AML_OK;
		}
		r->ref.kind = AML_REF_OBJ;
		r->ref.target = v;
	}
	*out = r;
	return AML_OK;
}

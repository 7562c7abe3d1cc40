/*
 * aml_ops.c - the expression opcodes (ACPI 6.5 19.6, 20.2.5.4): data
 * (constants, String, Buffer, Package), Locals and Args, integer
 * arithmetic and logic, comparisons, Store and CopyObject, references
 * (RefOf, CondRefOf, DerefOf, Index), SizeOf, ObjectType, Match, the
 * conversions, Create*Field, Notify, and the mutex and event operators.
 *
 * Each operator evaluates its operands in encoding order, stores into its
 * Target when it has one, and returns its value.
 */
#include "aml_internal.h"

static int nomem(struct aml_ctx *c, const u8 *at)
{
	return aml_fail(c, at, AML_ENOMEM, "out of arena");
}

/* One operand as an Integer. */
static int operand_int(struct aml_ctx *c, struct aml_state *st, const u8 *at, u64 *v)
{
	struct aml_obj *o = NULL;
	int r = aml_eval_term(c, st, &o);

	if (!r)
		r = aml_to_integer(c, o, v, at);
	aml_put(c->ns, o);
	return r;
}

/* One operand with a value. */
static int operand(struct aml_ctx *c, struct aml_state *st, const u8 *at, struct aml_obj **o)
{
	int r = aml_eval_term(c, st, o);

	if (!r && !*o)
		r = aml_fail(c, at, AML_ETYPE, "operand has no value");
	return r;
}

/* Store res into the Target that follows and return it in *out. */
static int finish(struct aml_ctx *c, struct aml_state *st, const u8 *at, struct aml_obj *res,
		  struct aml_obj **out)
{
	struct aml_target t;
	int r;

	if (!res)
		return nomem(c, at);
	r = aml_parse_target(c, st, &t);
	if (!r)
		r = aml_store(c, res, &t, at);
	aml_target_put(c, &t);
	if (r) {
		aml_put(c->ns, res);
		return r;
	}
	*out = res;
	return AML_OK;
}

static u64 ones(struct aml_ctx *c)
{
	return aml_int_mask(c->ns);
}

/* Binary integer operators with a Target (Add .. Mod). */
static __noinline int op_binary(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op,
		     struct aml_obj **out)
{
	u64 a, b, v = 0;
	int r = operand_int(c, st, at, &a);

	if (!r)
		r = operand_int(c, st, at, &b);
	if (r)
		return r;
	switch (op) {
	case 0x72: v = a + b; break;
	case 0x74: v = a - b; break;
	case 0x77: v = a * b; break;
	case 0x79: v = b >= 64 ? 0 : a << b; break;
	case 0x7a: v = b >= 64 ? 0 : a >> b; break;
	case 0x7b: v = a & b; break;
	case 0x7c: v = ~(a & b); break;
	case 0x7d: v = a | b; break;
	case 0x7e: v = ~(a | b); break;
	case 0x7f: v = a ^ b; break;
	case 0x85:
		if (!b)
			return aml_fail(c, at, AML_ETYPE, "Mod by zero");
		v = a % b;
		break;
	}
	return finish(c, st, at, aml_int_shared(c->ns, v & ones(c)), out);
}

/* Divide (dividend, divisor, remainder, quotient) */
static __noinline int op_divide(struct aml_ctx *c, struct aml_state *st, const u8 *at, struct aml_obj **out)
{
	u64 a, b;
	int r = operand_int(c, st, at, &a);

	if (!r)
		r = operand_int(c, st, at, &b);
	if (r)
		return r;
	if (!b)
		return aml_fail(c, at, AML_ETYPE, "Divide by zero");
	struct aml_obj *rem = aml_new_integer(c->ns, a % b), *q = NULL;
	r = finish(c, st, at, rem, &q);
	if (r)
		return r;
	aml_put(c->ns, q);
	return finish(c, st, at, aml_new_integer(c->ns, a / b), out);
}

/* Not, FindSetLeftBit, FindSetRightBit, ToBCD, FromBCD */
static __noinline int op_unary(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op,
		    struct aml_obj **out)
{
	u64 a, v = 0;
	int r = operand_int(c, st, at, &a);

	if (r)
		return r;
	switch (op) {
	case 0x80: v = ~a; break;
	case 0x81:
		for (unsigned i = 64; i; i--)
			if (a >> (i - 1) & 1) { v = i; break; }
		break;
	case 0x82:
		for (unsigned i = 0; i < 64; i++)
			if (a >> i & 1) { v = i + 1; break; }
		break;
	case 0x5b29:	/* ToBCD */
		for (unsigned sh = 0; a && sh < 64; sh += 4, a /= 10)
			v |= (a % 10) << sh;
		break;
	case 0x5b28:	/* FromBCD */
		for (u64 m = 1; a; a >>= 4, m *= 10)
			v += (a & 15) * m;
		break;
	}
	return finish(c, st, at, aml_int_shared(c->ns, v & ones(c)), out);
}

/* Compare a with b: integers, or Strings/Buffers byte by byte. */
static int compare(struct aml_ctx *c, struct aml_obj *a, struct aml_obj *b, int *cmp, const u8 *at)
{
	int r;

	if (a->type == AML_STRING || a->type == AML_BUFFER) {
		struct aml_obj *y = NULL;
		if (a->type == AML_STRING)
			r = b->type == AML_BUFFER ? (y = aml_new_buffer(c->ns, AML_STRING, b->buf.data, b->buf.len)) ? 0 : nomem(c, at)
						  : aml_to_string(c, b, &y, at);
		else
			r = b->type == AML_STRING ? (y = aml_new_buffer(c->ns, AML_BUFFER, b->buf.data, b->buf.len)) ? 0 : nomem(c, at)
						  : aml_to_buffer(c, b, &y, at);
		if (r)
			return r;
		u32 n = MIN(a->buf.len, y->buf.len);
		int d = memcmp(a->buf.data, y->buf.data, n);
		*cmp = d ? d : (a->buf.len > y->buf.len) - (a->buf.len < y->buf.len);
		aml_put(c->ns, y);
		return AML_OK;
	}
	u64 x, y;
	if ((r = aml_to_integer(c, a, &x, at)) || (r = aml_to_integer(c, b, &y, at)))
		return r;
	*cmp = (x > y) - (x < y);
	return AML_OK;
}

/* LAnd LOr LNot LEqual LGreater LLess (and LNot of the last three). */
static __noinline int op_logic(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op,
		    struct aml_obj **out)
{
	bool v;
	int r;

	if (op == 0x92) {
		u8 next = st->p < st->end ? *st->p : 0;
		if (next == 0x93 || next == 0x94 || next == 0x95) {
			struct aml_obj *inner = NULL;
			r = aml_eval_term(c, st, &inner);
			if (r)
				return r;
			v = !inner->integer;
			aml_put(c->ns, inner);
		} else {
			u64 a;
			if ((r = operand_int(c, st, at, &a)))
				return r;
			v = !a;
		}
	} else if (op == 0x90 || op == 0x91) {
		u64 a, b;
		if ((r = operand_int(c, st, at, &a)) || (r = operand_int(c, st, at, &b)))
			return r;
		v = op == 0x90 ? (a && b) : (a || b);
	} else {
		struct aml_obj *a = NULL, *b = NULL;
		int cmp = 0;
		r = operand(c, st, at, &a);
		if (!r)
			r = operand(c, st, at, &b);
		if (!r)
			r = compare(c, a, b, &cmp, at);
		aml_put(c->ns, a);
		aml_put(c->ns, b);
		if (r)
			return r;
		v = op == 0x93 ? cmp == 0 : op == 0x94 ? cmp > 0 : cmp < 0;
	}
	*out = aml_int_shared(c->ns, v ? ones(c) : 0);
	return *out ? AML_OK : nomem(c, at);
}

/* Buffer (size) {bytes}, Package (n) {...}, VarPackage (term) {...} */
static __noinline int op_data(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op,
		   struct aml_obj **out)
{
	const u8 *start = st->p;
	u32 len;
	u64 n;
	int r;

	if (aml_pkglen(&st->p, st->end, &len))
		return aml_fail(c, at, AML_EPARSE, "bad length");
	const u8 *end = start + len;
	struct aml_state in = { .p = st->p, .end = end, .scope = st->scope };
	st->p = end;
	if (op == 0x12) {
		if (in.p >= end)
			return aml_fail(c, at, AML_EPARSE, "Package without a count");
		n = *in.p++;
	} else if ((r = operand_int(c, &in, at, &n))) {
		return r;
	}
	if (op == 0x11) {
		if (n > 0x1000000)
			return aml_fail(c, at, AML_ENOMEM, "Buffer of %llu bytes refused",
					(unsigned long long)n);
		*out = aml_new_buffer(c->ns, AML_BUFFER, NULL, (u32)n);
		if (!*out)
			return nomem(c, at);
		memcpy((*out)->buf.data, in.p, MIN((size_t)(end - in.p), (size_t)n));
		return AML_OK;
	}
	u32 have;
	if (n > 0x10000)
		return aml_fail(c, at, AML_ENOMEM, "Package of %llu elements refused",
				(unsigned long long)n);
	struct aml_obj *pkg = aml_new_package(c->ns, (u32)n);
	if (!pkg)
		return nomem(c, at);
	for (have = 0; in.p < end; have++) {
		struct aml_obj *e = NULL;
		const u8 *eat = in.p;
		if (aml_is_name_start(*in.p)) {
			/* a name element: a reference to the node, resolved now */
			struct aml_node *nd;
			u32 last;
			if (aml_name_at(c->ns, &in, &nd, &last)) {
				aml_put(c->ns, pkg);
				return aml_fail(c, eat, AML_EPARSE, "bad name in a Package");
			}
			if (nd) {
				e = aml_obj_new(c->ns, AML_REFERENCE);
				if (e) {
					e->ref.kind = AML_REF_NODE;
					e->ref.node = nd;
				}
			} else {
				char s[5] = { 0 };
				memcpy(s, &last, 4);
				e = aml_new_string(c->ns, s);
			}
			if (!e)
				r = nomem(c, eat);
			else
				r = AML_OK;
		} else {
			r = aml_eval_term(c, &in, &e);
		}
		if (!r && have >= n)
			r = aml_fail(c, eat, AML_EPARSE, "Package holds more than its %llu elements",
				     (unsigned long long)n);
		if (r) {
			aml_put(c->ns, e);
			aml_put(c->ns, pkg);
			return r;
		}
		pkg->pkg.elems[have] = e;
	}
	*out = pkg;
	return AML_OK;
}

/* Index (source, index, target): a reference to an element. */
static __noinline int op_index(struct aml_ctx *c, struct aml_state *st, const u8 *at, struct aml_obj **out)
{
	struct aml_obj *src = NULL;
	u64 i;
	int r = operand(c, st, at, &src);

	if (!r)
		r = operand_int(c, st, at, &i);
	if (!r && src->type != AML_PACKAGE && src->type != AML_BUFFER && src->type != AML_STRING)
		r = aml_fail(c, at, AML_ETYPE, "Index of type %u", src->type);
	if (!r) {
		u32 n = src->type == AML_PACKAGE ? src->pkg.count : src->buf.len;
		if (i >= n)
			r = aml_fail(c, at, AML_ETYPE, "Index %llu past the end (%u)",
				     (unsigned long long)i, n);
	}
	if (r) {
		aml_put(c->ns, src);
		return r;
	}
	struct aml_obj *ref = aml_obj_new(c->ns, AML_REFERENCE);
	if (!ref) {
		aml_put(c->ns, src);
		return nomem(c, at);
	}
	ref->ref.kind = AML_REF_ELEM;
	ref->ref.target = src;
	ref->ref.index = (u32)i;
	return finish(c, st, at, ref, out);
}

/* Match (pkg, op1, obj1, op2, obj2, start) */
static bool match_one(u8 mop, u64 e, u64 v)
{
	switch (mop) {
	case 0: return true;
	case 1: return e == v;
	case 2: return e <= v;
	case 3: return e < v;
	case 4: return e >= v;
	case 5: return e > v;
	}
	return false;
}

static __noinline int op_match(struct aml_ctx *c, struct aml_state *st, const u8 *at, struct aml_obj **out)
{
	struct aml_obj *pkg = NULL;
	u64 v1, v2, start;
	u8 m1, m2;
	int r = operand(c, st, at, &pkg);

	if (r)
		return r;
	if (pkg->type != AML_PACKAGE || st->end - st->p < 1) {
		aml_put(c->ns, pkg);
		return aml_fail(c, at, AML_ETYPE, "Match of a non-Package");
	}
	m1 = *st->p++;
	r = operand_int(c, st, at, &v1);
	if (!r && st->p < st->end)
		m2 = *st->p++;
	else
		m2 = 0, r = r ? r : aml_fail(c, at, AML_EPARSE, "Match truncated");
	if (!r)
		r = operand_int(c, st, at, &v2);
	if (!r)
		r = operand_int(c, st, at, &start);
	u64 found = ones(c);
	for (u64 i = start; !r && i < pkg->pkg.count; i++) {
		struct aml_obj *e = pkg->pkg.elems[i];
		if (!e || e->type != AML_INTEGER)
			continue;
		if (match_one(m1, e->integer, v1) && match_one(m2, e->integer, v2)) {
			found = i;
			break;
		}
	}
	aml_put(c->ns, pkg);
	if (r)
		return r;
	*out = aml_new_integer(c->ns, found);
	return *out ? AML_OK : nomem(c, at);
}

/* CreateBit/Byte/Word/DWord/QWordField (buf, index, name), CreateField
 * (buf, bit index, bits, name) */
static __noinline int op_create_field(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op,
			   struct aml_obj **out)
{
	struct aml_obj *buf = NULL;
	u64 idx, bits;
	struct aml_node *n;
	int r = operand(c, st, at, &buf);

	if (!r)
		r = operand_int(c, st, at, &idx);
	if (!r && op == 0x5b13)
		r = operand_int(c, st, at, &bits);
	if (r) {
		aml_put(c->ns, buf);
		return r;
	}
	switch (op) {
	case 0x8d: bits = 1; break;
	case 0x8c: bits = 8; idx *= 8; break;
	case 0x8b: bits = 16; idx *= 8; break;
	case 0x8a: bits = 32; idx *= 8; break;
	case 0x8f: bits = 64; idx *= 8; break;
	}
	if (buf->type != AML_BUFFER || !bits || bits > 0x100000 ||
	    idx + bits > (u64)buf->buf.len * 8) {
		aml_put(c->ns, buf);
		return aml_fail(c, at, AML_ETYPE, "buffer field [%llu, +%llu) outside the buffer",
				(unsigned long long)idx, (unsigned long long)bits);
	}
	int made = aml_def_node(c, st, at, &n);
	if (made < 0) {
		aml_put(c->ns, buf);
		return made;
	}
	struct aml_obj *f = aml_obj_new(c->ns, AML_BUFFER_FIELD);
	if (!f) {
		aml_put(c->ns, buf);
		return nomem(c, at);
	}
	f->bfield.buf = buf;
	f->bfield.bit_off = idx;
	f->bfield.bit_len = (u32)bits;
	f->flags = op == 0x5b13;	/* CreateField: reads as a Buffer */
	if (made == 1) {
		aml_put(c->ns, n->obj);	/* re-created each time a method runs it */
	}
	n->obj = f;
	(void)out;
	return AML_OK;
}

/* The type a target's object has for ObjectType(). */
static u8 type_of(struct aml_ctx *c, struct aml_target *t)
{
	struct aml_obj *o = NULL;

	if (t->kind == T_NODE)
		o = t->node->obj;
	else if (t->kind == T_LOCAL || t->kind == T_ARG)
		o = c->frame ? (t->kind == T_LOCAL ? c->frame->locals[t->index] : c->frame->args[t->index]) : NULL;
	else if (t->kind == T_DEBUG)
		return AML_DEBUG;
	else if (t->kind == T_REF)
		o = t->ref->ref.kind == AML_REF_NODE ? t->ref->ref.node->obj :
		    t->ref->ref.kind == AML_REF_OBJ ? t->ref->ref.target :
		    t->ref->ref.target->type == AML_PACKAGE ? t->ref->ref.target->pkg.elems[t->ref->ref.index] :
		    NULL;
	if (!o)
		return t->kind == T_REF ? AML_BUFFER_FIELD : AML_UNINIT;
	if (o->type == AML_SCOPE)
		return AML_UNINIT;
	if (o->type == AML_REFERENCE && o->ref.kind == AML_REF_NODE && o->ref.node->obj)
		return o->ref.node->obj->type > AML_DEBUG ? 0 : o->ref.node->obj->type;
	return o->type > AML_DEBUG ? AML_UNINIT : o->type;
}

/* Ops that take a SuperName first: Store's and CopyObject's target,
 * RefOf, CondRefOf, Increment, Decrement, SizeOf, ObjectType, Notify,
 * Acquire, Release, Signal, Wait, Reset. */
static __noinline int op_super(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op,
		    struct aml_obj **out)
{
	struct aml_target t;
	struct aml_obj *v = NULL;
	u64 x = 0;
	int r;

	if (op == 0x5b12 && st->p < st->end && aml_is_name_start(*st->p)) {
		/* CondRefOf of a name that may not exist */
		const u8 *save = st->p;
		struct aml_node *nd;
		u32 last;
		if (aml_name_at(c->ns, st, &nd, &last))
			return aml_fail(c, at, AML_EPARSE, "bad name");
		if (!nd) {
			struct aml_target dummy;
			r = aml_parse_target(c, st, &dummy);
			aml_target_put(c, &dummy);
			if (r)
				return r;
			*out = aml_new_integer(c->ns, 0);
			return *out ? AML_OK : nomem(c, at);
		}
		st->p = save;
	}
	if ((r = aml_parse_supername(c, st, &t)))
		return r;
	switch (op) {
	case 0x71:	/* RefOf */
		r = aml_ref_of(c, &t, out, at);
		break;
	case 0x5b12:	/* CondRefOf */
		r = aml_ref_of(c, &t, &v, at);
		if (!r) {
			struct aml_target dst;
			r = aml_parse_target(c, st, &dst);
			if (!r)
				r = aml_store(c, v, &dst, at);
			aml_target_put(c, &dst);
			aml_put(c->ns, v);
			v = NULL;
			if (!r)
				*out = aml_new_integer(c->ns, ones(c));
		}
		break;
	case 0x75:
	case 0x76:	/* Increment, Decrement */
		r = aml_target_read(c, &t, &v, at);
		if (!r)
			r = aml_to_integer(c, v, &x, at);
		aml_put(c->ns, v);
		v = NULL;
		if (!r) {
			*out = aml_new_integer(c->ns, (op == 0x75 ? x + 1 : x - 1) & ones(c));
			r = *out ? aml_store(c, *out, &t, at) : nomem(c, at);
		}
		break;
	case 0x87:	/* SizeOf */
		r = aml_target_read(c, &t, &v, at);
		if (!r) {
			if (v->type == AML_STRING || v->type == AML_BUFFER)
				x = v->buf.len;
			else if (v->type == AML_PACKAGE)
				x = v->pkg.count;
			else
				r = aml_fail(c, at, AML_ETYPE, "SizeOf of type %u", v->type);
		}
		aml_put(c->ns, v);
		v = NULL;
		if (!r)
			*out = aml_new_integer(c->ns, x);
		break;
	case 0x8e:	/* ObjectType */
		*out = aml_new_integer(c->ns, type_of(c, &t));
		break;
	case 0x86:	/* Notify (object, value) */
		r = operand_int(c, st, at, &x);
		if (!r && t.kind == T_NODE && c->ns->plat.notify)
			c->ns->plat.notify(c->ns->plat.ctx, t.node, x);
		break;
	default:	/* mutexes and events: aml_sync.c */
		r = aml_sync_op(c, st, at, op, &t, out);
		break;
	}
	aml_target_put(c, &t);
	if (!r && (op == 0x71 || op == 0x5b12 || op == 0x75 || op == 0x76 || op == 0x87 ||
		   op == 0x8e || op == 0x5b23 || op == 0x5b25) && !*out)
		r = nomem(c, at);
	return r;
}

/*
 * aml_op_expr() - every opcode that is not a definition or control flow:
 * op is the opcode (0x5bxx for extended ones), st->p just after it.
 */
int aml_op_expr(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op, struct aml_obj **out)
{
	struct aml_ns *ns = c->ns;
	struct aml_obj *a = NULL, *b = NULL;
	struct aml_target t;
	u64 x, y;
	int r;

	if (op >= 0x60 && op <= 0x6e) {	/* Local0-7, Arg0-6 */
		t.kind = op < 0x68 ? T_LOCAL : T_ARG;
		t.index = (u8)(op < 0x68 ? op - 0x60 : op - 0x68);
		t.ref = NULL;
		return aml_target_read(c, &t, out, at);
	}
	switch (op) {
	case 0x00: case 0x01: case 0xff:
		*out = aml_int_shared(ns, op == 0x00 ? 0 : op == 0x01 ? 1 : ~0ull);
		return *out ? AML_OK : nomem(c, at);
	case 0x0a: case 0x0b: case 0x0c: case 0x0e: {
		unsigned n = op == 0x0a ? 1 : op == 0x0b ? 2 : op == 0x0c ? 4 : 8;
		if ((size_t)(st->end - st->p) < n)
			return aml_fail(c, at, AML_EPARSE, "constant truncated");
		x = 0;
		for (unsigned i = 0; i < n; i++)
			x |= (u64)st->p[i] << (8 * i);
		st->p += n;
		*out = aml_int_shared(ns, x);
		return *out ? AML_OK : nomem(c, at);
	}
	case 0x0d: {
		const u8 *s = st->p;
		while (s < st->end && *s)
			s++;
		if (s >= st->end)
			return aml_fail(c, at, AML_EPARSE, "String without its NUL");
		*out = aml_new_buffer(ns, AML_STRING, st->p, (u32)(s - st->p));
		st->p = s + 1;
		return *out ? AML_OK : nomem(c, at);
	}
	case 0x11: case 0x12: case 0x13:
		return op_data(c, st, at, op, out);
	case 0x5b30:	/* Revision */
		*out = aml_new_integer(ns, 0x20200925);
		return *out ? AML_OK : nomem(c, at);
	case 0x5b33:	/* Timer, 100 ns units */
		*out = aml_new_integer(ns, ns->plat.time_ns ? ns->plat.time_ns(ns->plat.ctx) / 100 : 0);
		return *out ? AML_OK : nomem(c, at);
	case 0x5b31:	/* Debug as a value */
		*out = aml_obj_new(ns, AML_DEBUG);
		return *out ? AML_OK : nomem(c, at);
	case 0x72: case 0x74: case 0x77: case 0x79: case 0x7a: case 0x7b:
	case 0x7c: case 0x7d: case 0x7e: case 0x7f: case 0x85:
		return op_binary(c, st, at, op, out);
	case 0x78:
		return op_divide(c, st, at, out);
	case 0x80: case 0x81: case 0x82: case 0x5b28: case 0x5b29:
		return op_unary(c, st, at, op, out);
	case 0x90: case 0x91: case 0x92: case 0x93: case 0x94: case 0x95:
		return op_logic(c, st, at, op, out);
	case 0x70:	/* Store (value, target) */
	case 0x9d:	/* CopyObject (value, name) */
		if ((r = operand(c, st, at, &a)))
			return r;
		r = aml_parse_supername(c, st, &t);
		if (!r)
			r = op == 0x70 ? aml_store(c, a, &t, at) : aml_copy_object(c, a, &t, at);
		aml_target_put(c, &t);
		if (r) {
			aml_put(ns, a);
			return r;
		}
		*out = a;
		return AML_OK;
	case 0x71: case 0x5b12: case 0x75: case 0x76: case 0x87: case 0x8e: case 0x86:
	case 0x5b23: case 0x5b24: case 0x5b25: case 0x5b26: case 0x5b27:
		return op_super(c, st, at, op, out);
	case 0x83:	/* DerefOf */
		if ((r = operand(c, st, at, &a)))
			return r;
		if (a->type == AML_REFERENCE) {
			r = aml_deref(c, a, out, at);
		} else if (a->type == AML_STRING) {
			struct aml_node *n = aml_lookup(ns, st->scope, (const char *)a->buf.data);
			if (!n || !n->obj)
				r = aml_fail(c, at, AML_ENOENT, "DerefOf \"%s\": no such name",
					     (const char *)a->buf.data);
			else
				*out = aml_get(n->obj);
		} else {
			r = aml_fail(c, at, AML_ETYPE, "DerefOf of type %u", a->type);
		}
		aml_put(ns, a);
		return r;
	case 0x88:
		return op_index(c, st, at, out);
	case 0x89:
		return op_match(c, st, at, out);
	case 0x8a: case 0x8b: case 0x8c: case 0x8d: case 0x8f: case 0x5b13:
		return op_create_field(c, st, at, op, out);
	case 0x73: case 0x84:	/* Concatenate, ConcatenateResTemplate */
		if ((r = operand(c, st, at, &a)) || (r = operand(c, st, at, &b)))
			goto done;
		r = op == 0x73 ? aml_concat(c, a, b, out, at) : aml_concat_res(c, a, b, out, at);
		if (!r) {
			struct aml_obj *res = *out;
			*out = NULL;
			r = finish(c, st, at, res, out);
		}
		goto done;
	case 0x96: case 0x97: case 0x98: case 0x99: case 0x9c:
		if ((r = operand(c, st, at, &a)))
			return r;
		y = ~0ull;
		if (op == 0x9c && (r = operand_int(c, st, at, &y)))
			goto done;
		r = aml_convert_op(c, op, a, y, out, at);
		if (!r) {
			struct aml_obj *res = *out;
			*out = NULL;
			r = finish(c, st, at, res, out);
		}
		goto done;
	case 0x9e:	/* Mid (source, index, length, target) */
		if ((r = operand(c, st, at, &a)) || (r = operand_int(c, st, at, &x)) ||
		    (r = operand_int(c, st, at, &y)))
			goto done;
		r = aml_mid(c, a, x, y, out, at);
		if (!r) {
			struct aml_obj *res = *out;
			*out = NULL;
			r = finish(c, st, at, res, out);
		}
		goto done;
	case 0x5b32:	/* Fatal (type, code, arg) */
		if (st->end - st->p < 5)
			return aml_fail(c, at, AML_EPARSE, "Fatal truncated");
		x = st->p[1] | (u32)st->p[2] << 8 | (u32)st->p[3] << 16 | (u32)st->p[4] << 24;
		st->p += 5;
		if ((r = operand_int(c, st, at, &y)))
			return r;
		return aml_fail(c, at, AML_EFATAL, "Fatal (code 0x%llx, arg 0x%llx)",
				(unsigned long long)x, (unsigned long long)y);
	case 0x5b1f: case 0x5b20: case 0x5b2a: case 0x5b88:
		return aml_fail(c, at, AML_EPARSE, "opcode 0x%x (Load, LoadTable, Unload, DataTableRegion) not supported", op);
	}
	return aml_fail(c, at, AML_EPARSE, "unknown opcode 0x%x", op);
done:
	aml_put(ns, a);
	aml_put(ns, b);
	return r;
}

/*
 * aml_exec.c - running AML: the term dispatcher, blocks, control flow
 * (If/Else/While/Break/Continue/Return), method calls with their frames,
 * and the limits that bound all of it.
 *
 * The interpreter walks the byte code directly; there is no parse tree.
 * aml_eval_term() executes one term and hands back its value, calling
 * itself for the operands.  That recursion is bounded by
 * limits.max_nesting (terms inside terms, method calls included), checked
 * on entry, so hostile AML cannot run the C stack out: the deepest chain is
 * max_nesting frames of aml_eval_term() and the operator it calls.
 *
 * Named objects (Name, Method, Device, OperationRegion, ...) are created in
 * the current scope as the code runs, whether at table load or inside a
 * method; those a method creates are deleted when it returns.
 */
#include "aml_internal.h"
#include <lib/printer.h>
#include <stdarg.h>

/*
 * The C stack an evaluation can take is bounded by the nesting limit: each
 * level of terms costs at most about 450 bytes (aml_eval_term() 80, the
 * largest operator 256, the helpers below it), each method call 350 more
 * (its frame), and a call takes two levels.  40 levels and 16 calls stay
 * under 24 KiB of the kernel's 32 KiB stack.
 */
const struct aml_limits aml_default_limits = {
	.max_loop_iters = 100000,
	.max_call_depth = 16,
	.max_nesting = 40,
	.max_ops = 5000000,
	.max_time_ns = 2000000000ull,
	.max_sleep_ms = 100,
};

/* aml_log() - one line through the platform. */
void aml_log(struct aml_ns *ns, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!ns->plat.log)
		return;
	va_start(ap, fmt);
	kvsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ns->plat.log(ns->plat.ctx, line);
}

/*
 * aml_fail() - record why the evaluation stops: the running method's path,
 * the offset of `at` in its table, and the reason.  The first failure of an
 * evaluation wins (the callers unwinding above it keep it).  Returns code.
 */
int aml_fail(struct aml_ctx *c, const u8 *at, int code, const char *fmt, ...)
{
	struct aml_error *e = &c->ns->err;
	va_list ap;

	if (e->code)
		return code;
	e->code = code;
	if (c->frame && c->frame->method)
		aml_path_str(c->frame->method, e->path, sizeof(e->path));
	else
		ksnprintf(e->path, sizeof(e->path), "table %u", c->table_idx);
	e->offset = at && c->table ? (u32)(at - c->table) : 0;
	va_start(ap, fmt);
	kvsnprintf(e->reason, sizeof(e->reason), fmt, ap);
	va_end(ap);
	return code;
}

/* Per-term accounting: the opcode budget and, every 4096 opcodes, the
 * wall-time budget; the namespace's count of opcodes executed. */
static int account(struct aml_ctx *c, const u8 *at)
{
	struct aml_ns *ns = c->ns;

	ns->stats.ops++;
	if (++c->ops > ns->lim.max_ops)
		return aml_fail(c, at, AML_ELIMIT, "ran %llu opcodes: gave up",
				(unsigned long long)ns->lim.max_ops);
	if (!(c->ops & 4095) && ns->plat.time_ns &&
	    ns->plat.time_ns(ns->plat.ctx) - c->start_ns > ns->lim.max_time_ns)
		return aml_fail(c, at, AML_ELIMIT, "ran %llu ms: gave up",
				(unsigned long long)(ns->lim.max_time_ns / 1000000));
	return AML_OK;
}

/* aml_exec_block() - run the terms of [st->p, st->end), dropping their
 * values.  Returns AML_OK, a flow result (Break/Continue/Return) or an
 * error. */
int aml_exec_block(struct aml_ctx *c, struct aml_state *st)
{
	while (st->p < st->end) {
		struct aml_obj *v = NULL;
		int r = aml_eval_term(c, st, &v);
		aml_put(c->ns, v);
		if (r)
			return r;
	}
	return AML_OK;
}

/* Run `len` bytes at p as a nested block in scope; st continues after. */
static int run_sub(struct aml_ctx *c, const u8 *p, const u8 *end, struct aml_node *scope)
{
	struct aml_state sub = { .p = p, .end = end, .scope = scope };

	return aml_exec_block(c, &sub);
}

/* If (pred) {...} [Else {...}] at at (the If opcode). */
static __noinline int op_if(struct aml_ctx *c, struct aml_state *st, const u8 *at)
{
	const u8 *start = st->p;
	u32 len;
	u64 pred;
	struct aml_obj *v = NULL;

	if (aml_pkglen(&st->p, st->end, &len))
		return aml_fail(c, at, AML_EPARSE, "bad If length");
	const u8 *end = start + len;
	struct aml_state ps = { .p = st->p, .end = end, .scope = st->scope };
	int r = aml_eval_term(c, &ps, &v);
	if (!r)
		r = aml_to_integer(c, v, &pred, at);
	aml_put(c->ns, v);
	if (r)
		return r;
	const u8 *body = ps.p;
	st->p = end;
	const u8 *else_body = NULL, *else_end = NULL;
	if (st->p < st->end && *st->p == 0xa1) {
		const u8 *e = st->p + 1;
		if (aml_pkglen(&e, st->end, &len))
			return aml_fail(c, st->p, AML_EPARSE, "bad Else length");
		else_end = st->p + 1 + len;
		else_body = e;
		st->p = else_end;
	}
	if (pred)
		return run_sub(c, body, end, st->scope);
	if (else_body)
		return run_sub(c, else_body, else_end, st->scope);
	return AML_OK;
}

/* While (pred) {...}: at most limits.max_loop_iters rounds. */
static __noinline int op_while(struct aml_ctx *c, struct aml_state *st, const u8 *at)
{
	const u8 *start = st->p;
	u32 len;

	if (aml_pkglen(&st->p, st->end, &len))
		return aml_fail(c, at, AML_EPARSE, "bad While length");
	const u8 *end = start + len, *pred_at = st->p;
	st->p = end;
	for (u32 iter = 0;; iter++) {
		struct aml_state ps = { .p = pred_at, .end = end, .scope = st->scope };
		struct aml_obj *v = NULL;
		u64 pred;
		int r = aml_eval_term(c, &ps, &v);
		if (!r)
			r = aml_to_integer(c, v, &pred, at);
		aml_put(c->ns, v);
		if (r)
			return r;
		if (!pred)
			return AML_OK;
		if (iter >= c->ns->lim.max_loop_iters)
			return aml_fail(c, at, AML_ELIMIT, "While loop at 0x%x ran %u iterations: gave up",
					(unsigned)(at - c->table), iter);
		r = run_sub(c, ps.p, end, st->scope);
		if (r == AML_FLOW_BREAK)
			return AML_OK;
		if (r && r != AML_FLOW_CONTINUE)
			return r;
	}
}

/* Delete the nodes a frame created, newest first. */
static void drop_temps(struct aml_ns *ns, struct aml_frame *f)
{
	while (f->temps) {
		struct aml_node *n = f->temps;
		f->temps = n->tmp_next;
		aml_node_delete(ns, n);
	}
}

static void trace_obj(struct aml_ns *ns, char *buf, size_t size, const struct aml_obj *o)
{
	if (!o)
		ksnprintf(buf, size, "none");
	else if (o->type == AML_INTEGER)
		ksnprintf(buf, size, "0x%llx", (unsigned long long)o->integer);
	else if (o->type == AML_STRING)
		ksnprintf(buf, size, "\"%.40s\"", (const char *)o->buf.data);
	else if (o->type == AML_BUFFER)
		ksnprintf(buf, size, "Buffer[%u]", o->buf.len);
	else if (o->type == AML_PACKAGE)
		ksnprintf(buf, size, "Package[%u]", o->pkg.count);
	else
		ksnprintf(buf, size, "type %u", o->type);
	(void)ns;
}

/* Trace lines (acpi trace on): each method entered, with its arguments,
 * and left, with its result. */
static __noinline void trace_enter(struct aml_ns *ns, struct aml_node *m, struct aml_obj **args,
				   unsigned nargs)
{
	char path[96], line[200], a[48];
	size_t len;

	aml_path_str(m, path, sizeof(path));
	len = (size_t)ksnprintf(line, sizeof(line), "aml: enter %s(", path);
	for (unsigned i = 0; i < nargs && len < sizeof(line); i++) {
		trace_obj(ns, a, sizeof(a), args[i]);
		len += (size_t)ksnprintf(line + len, sizeof(line) - len, "%s%s", i ? ", " : "", a);
	}
	aml_log(ns, "%s)", line);
}

static __noinline void trace_leave(struct aml_ns *ns, struct aml_node *m, int r,
				   const struct aml_obj *res)
{
	char path[96], a[48];

	aml_path_str(m, path, sizeof(path));
	trace_obj(ns, a, sizeof(a), res);
	if (r)
		aml_log(ns, "aml: leave %s: failed (%d)", path, r);
	else
		aml_log(ns, "aml: leave %s = %s", path, a);
}

static __noinline int too_deep(struct aml_ctx *c, struct aml_node *m)
{
	char path[96];

	aml_path_str(m, path, sizeof(path));
	return aml_fail(c, m->obj->method.code, AML_ELIMIT,
			"call depth %u reached calling %s: gave up", c->depth, path);
}

/*
 * aml_call() - run method node m with args[0..nargs) (borrowed; the frame
 * takes its own references).  *result gets the returned object (or NULL).
 * Objects the method creates are deleted when it returns, whatever the
 * outcome.  Fails with AML_ELIMIT beyond limits.max_call_depth.
 */
int aml_call(struct aml_ctx *c, struct aml_node *m, struct aml_obj **args, unsigned nargs,
	     struct aml_obj **result)
{
	struct aml_ns *ns = c->ns;
	struct aml_obj *mo = m->obj;
	struct aml_frame f;
	int r;

	*result = NULL;
	if (mo == ns->osi_method) {
		return aml_osi(c, nargs ? args[0] : NULL, result);
	}
	if (c->depth >= ns->lim.max_call_depth)
		return too_deep(c, m);
	ns->stats.calls++;
	memset(&f, 0, sizeof(f));
	f.method = m;
	f.up = c->frame;
	for (unsigned i = 0; i < nargs && i < 7; i++)
		f.args[i] = aml_get(args[i]);
	if (ns->trace)
		trace_enter(ns, m, args, nargs);
	const u8 *saved_table = c->table;
	u32 saved_idx = c->table_idx;
	c->table = ns->tables[mo->method.table];
	c->table_idx = mo->method.table;
	c->frame = &f;
	c->depth++;
	struct aml_state st = { .p = mo->method.code, .end = mo->method.code + mo->method.len,
				.scope = m };
	r = aml_exec_block(c, &st);
	c->depth--;
	c->frame = f.up;
	c->table = saved_table;
	c->table_idx = saved_idx;
	if (r == AML_FLOW_RETURN || r == AML_OK) {
		*result = f.ret;
		f.ret = NULL;
		r = AML_OK;
	} else if (r > 0) {
		r = aml_fail(c, mo->method.code, AML_EPARSE, "Break or Continue outside a While");
	}
	aml_put(ns, f.ret);
	for (unsigned i = 0; i < 7; i++)
		aml_put(ns, f.args[i]);
	for (unsigned i = 0; i < 8; i++)
		aml_put(ns, f.locals[i]);
	drop_temps(ns, &f);
	if (ns->trace)
		trace_leave(ns, m, r, *result);
	return r;
}

/* A name in term position: a method call (its arguments follow) or the
 * named object's value (fields read). */
static __noinline int name_term(struct aml_ctx *c, struct aml_state *st, const u8 *at, struct aml_obj **out)
{
	struct aml_node *n;
	u32 last;

	if (aml_name_at(c->ns, st, &n, &last))
		return aml_fail(c, at, AML_EPARSE, "bad name");
	if (!last) {
		*out = NULL;	/* NullName as a value: nothing */
		return AML_OK;
	}
	if (!n || !n->obj) {
		char s[5] = { 0 };
		memcpy(s, &last, 4);
		return aml_fail(c, at, AML_ENOENT, "%s does not exist", s);
	}
	struct aml_obj *o = n->obj;
	if (o->type == AML_METHOD) {
		struct aml_obj *args[7] = { 0 };
		unsigned argc = o->method.flags & 7;
		int r = AML_OK;
		for (unsigned i = 0; i < argc && !r; i++)
			r = aml_eval_term(c, st, &args[i]);
		if (!r)
			r = aml_call(c, n, args, argc, out);
		for (unsigned i = 0; i < argc; i++)
			aml_put(c->ns, args[i]);
		return r;
	}
	if (o->type == AML_FIELD_UNIT)
		return aml_field_read(c, o, out, at);
	if (o->type == AML_BUFFER_FIELD)
		return aml_bfield_read(c, o, out, at);
	*out = aml_get(o);
	return AML_OK;
}

/*
 * Create the node a definition names (its last segment, in the scope its
 * other segments lead to).  A name that exists already: AML_ENOENT with a
 * reason, and the caller skips the definition.  Inside a method the node is
 * the frame's temporary.
 */
int aml_def_node(struct aml_ctx *c, struct aml_state *st, const u8 *at, struct aml_node **out)
{
	struct aml_node *ps, *parent, *n;
	u32 segs[AML_MAX_SEGS];
	unsigned nseg;
	bool search;
	char s[5] = { 0 };

	if (aml_name_parse(&st->p, st->end, st->scope, &ps, segs, &nseg, &search) || !nseg)
		return aml_fail(c, at, AML_EPARSE, "bad name in a definition");
	parent = aml_resolve(ps, segs, nseg - 1, false);
	memcpy(s, &segs[nseg - 1], 4);
	if (!parent)
		return aml_fail(c, at, AML_ENOENT, "scope of %s does not exist", s);
	n = aml_node_child(parent, segs[nseg - 1]);
	if (n) {
		*out = n;
		return 1;	/* exists: the caller decides */
	}
	n = aml_node_new(c->ns, parent, segs[nseg - 1]);
	if (!n)
		return aml_fail(c, at, AML_ENOMEM, "out of arena creating %s", s);
	if (c->frame && c->frame->method) {
		n->temp = true;
		n->tmp_next = c->frame->temps;
		c->frame->temps = n;
	}
	*out = n;
	return AML_OK;
}

/* Attach o to a freshly defined node; a node that existed keeps its
 * object (the duplicate is logged, as ACPICA does, and skipped). */
static int attach(struct aml_ctx *c, struct aml_node *n, int made, struct aml_obj *o, const u8 *at)
{
	if (made == 1) {
		char p[96];
		aml_path_str(n, p, sizeof(p));
		if (c->loading && (!n->obj || n->obj->type == AML_SCOPE || n->obj->type == o->type)) {
			/* a scope made before its device (or a repeated External) */
			if (!n->obj || n->obj->type == AML_SCOPE) {
				aml_put(c->ns, n->obj);
				n->obj = o;
				return AML_OK;
			}
		}
		aml_log(c->ns, "aml: %s exists already (offset 0x%x): definition skipped", p,
			(unsigned)(at - c->table));
		aml_put(c->ns, o);
		return AML_OK;
	}
	/* a definition nested in its own value (a Name in its Package) may
	 * have filled the node meanwhile: the outer one wins */
	aml_put(c->ns, n->obj);
	n->obj = o;
	if (o->type == AML_METHOD)
		c->ns->stats.methods++;
	if (o->type == AML_DEVICE)
		c->ns->stats.devices++;
	return AML_OK;
}

/* Name (name, value) */
static __noinline int op_name(struct aml_ctx *c, struct aml_state *st, const u8 *at)
{
	struct aml_node *n;
	struct aml_obj *v = NULL;
	int made = aml_def_node(c, st, at, &n);

	if (made < 0)
		return made;
	int r = aml_eval_term(c, st, &v);
	if (r)
		return r;
	if (!v)
		return aml_fail(c, at, AML_ETYPE, "Name without a value");
	return attach(c, n, made, v, at);
}

/* Method, Device, Processor, PowerResource, ThermalZone, Scope: a PkgLength
 * then a name, then fixed fields, then a body. */
static __noinline int op_scoped(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op)
{
	const u8 *start = st->p;
	u32 len;
	struct aml_node *n;

	if (aml_pkglen(&st->p, st->end, &len))
		return aml_fail(c, at, AML_EPARSE, "bad length");
	const u8 *end = start + len;
	struct aml_state hs = { .p = st->p, .end = end, .scope = st->scope };
	st->p = end;
	if (op == 0x10) {	/* Scope: must exist */
		struct aml_node *ps;
		u32 segs[AML_MAX_SEGS];
		unsigned nseg;
		bool search;
		if (aml_name_parse(&hs.p, hs.end, hs.scope, &ps, segs, &nseg, &search))
			return aml_fail(c, at, AML_EPARSE, "bad Scope name");
		n = aml_resolve(ps, segs, nseg, search);
		if (!n)
			return aml_fail(c, at, AML_ENOENT, "Scope of a name that does not exist");
		return run_sub(c, hs.p, end, n);
	}
	int made = aml_def_node(c, &hs, at, &n);
	if (made < 0)
		return made;
	u8 type;
	switch (op) {
	case 0x14: type = AML_METHOD; break;
	case 0x5b82: type = AML_DEVICE; break;
	case 0x5b83: type = AML_PROCESSOR; break;
	case 0x5b84: type = AML_POWER; break;
	default: type = AML_THERMAL; break;
	}
	size_t fixed = op == 0x14 ? 1 : op == 0x5b83 ? 6 : op == 0x5b84 ? 3 : 0;
	if ((size_t)(end - hs.p) < fixed)
		return aml_fail(c, at, AML_EPARSE, "definition shorter than its fields");
	struct aml_obj *o = aml_obj_new(c->ns, type);
	if (!o)
		return aml_fail(c, at, AML_ENOMEM, "out of arena");
	if (op == 0x14) {
		o->method.flags = hs.p[0];
		o->method.code = hs.p + 1;
		o->method.len = (u32)(end - hs.p - 1);
		o->method.table = c->table_idx;
	} else if (op == 0x5b83) {
		o->proc.proc_id = hs.p[0];
		o->proc.pblk = (u32)hs.p[1] | (u32)hs.p[2] << 8 | (u32)hs.p[3] << 16 | (u32)hs.p[4] << 24;
		o->proc.pblk_len = hs.p[5];
	} else if (op == 0x5b84) {
		o->power.level = hs.p[0];
		o->power.order = (u16)(hs.p[1] | hs.p[2] << 8);
	}
	hs.p += fixed;
	attach(c, n, made, o, at);
	if (op == 0x14 || !n->obj || n->obj->type != type)
		return AML_OK;
	return run_sub(c, hs.p, end, n);
}

/* Alias (source, alias): the alias shares the source's object. */
static __noinline int op_alias(struct aml_ctx *c, struct aml_state *st, const u8 *at)
{
	struct aml_node *ps, *src, *n;
	u32 segs[AML_MAX_SEGS];
	unsigned nseg;
	bool search;

	if (aml_name_parse(&st->p, st->end, st->scope, &ps, segs, &nseg, &search))
		return aml_fail(c, at, AML_EPARSE, "bad Alias source");
	src = aml_resolve(ps, segs, nseg, search);
	int made = aml_def_node(c, st, at, &n);
	if (made < 0)
		return made;
	if (!src || !src->obj)
		return aml_fail(c, at, AML_ENOENT, "Alias of a name that does not exist");
	return attach(c, n, made, aml_get(src->obj), at);
}

/* Mutex, Event, OperationRegion, External. */
static __noinline int op_simple_def(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op)
{
	struct aml_node *n;

	if (op == 0x15) {	/* External (name, type, argc): resolved when used */
		struct aml_node *ps;
		u32 segs[AML_MAX_SEGS];
		unsigned nseg;
		bool search;
		if (aml_name_parse(&st->p, st->end, st->scope, &ps, segs, &nseg, &search) ||
		    st->end - st->p < 2)
			return aml_fail(c, at, AML_EPARSE, "bad External");
		st->p += 2;
		return AML_OK;
	}
	int made = aml_def_node(c, st, at, &n);
	if (made < 0)
		return made;
	struct aml_obj *o;
	if (op == 0x5b01 || op == 0x5b02) {
		if (op == 0x5b01 && st->p >= st->end)
			return aml_fail(c, at, AML_EPARSE, "Mutex without flags");
		o = aml_obj_new(c->ns, op == 0x5b01 ? AML_MUTEX : AML_EVENT);
		if (o && op == 0x5b01)
			o->mutex.sync = *st->p & 15;
		if (op == 0x5b01)
			st->p++;
	} else {	/* OperationRegion (name, space, offset, length) */
		struct aml_obj *off = NULL, *len = NULL;
		u64 voff, vlen;
		if (st->p >= st->end)
			return aml_fail(c, at, AML_EPARSE, "OperationRegion without space");
		u8 space = *st->p++;
		int r = aml_eval_term(c, st, &off);
		if (!r)
			r = aml_eval_term(c, st, &len);
		if (!r)
			r = aml_to_integer(c, off, &voff, at);
		if (!r)
			r = aml_to_integer(c, len, &vlen, at);
		aml_put(c->ns, off);
		aml_put(c->ns, len);
		if (r)
			return r;
		o = aml_obj_new(c->ns, AML_REGION);
		if (o) {
			o->region.space = space;
			o->region.base = voff;
			o->region.len = vlen;
			o->region.node = n;
		}
	}
	if (!o)
		return aml_fail(c, at, AML_ENOMEM, "out of arena");
	return attach(c, n, made, o, at);
}

/* Return, Break, Continue, Fatal, Sleep, Stall and the mutex/event ops. */
static __noinline int op_flow(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op, struct aml_obj **out)
{
	struct aml_obj *v = NULL;
	int r;

	switch (op) {
	case 0xa4:	/* Return */
		r = aml_eval_term(c, st, &v);
		if (r)
			return r;
		if (!c->frame) {
			aml_put(c->ns, v);
			return aml_fail(c, at, AML_EPARSE, "Return outside a method");
		}
		aml_put(c->ns, c->frame->ret);
		/* a returned name keeps its value as of now */
		c->frame->ret = v ? aml_copy(c->ns, v, 16) : NULL;
		aml_put(c->ns, v);
		if (v && !c->frame->ret)
			return aml_fail(c, at, AML_ENOMEM, "out of arena");
		return AML_FLOW_RETURN;
	case 0xa5:
		return AML_FLOW_BREAK;
	case 0x9f:
		return AML_FLOW_CONTINUE;
	}
	/* Sleep (ms), Stall (us): bounded */
	u64 n;
	r = aml_eval_term(c, st, &v);
	if (!r)
		r = aml_to_integer(c, v, &n, at);
	aml_put(c->ns, v);
	if (r)
		return r;
	struct aml_ns *ns = c->ns;
	if (op == 0x5b22) {
		if (n > ns->lim.max_sleep_ms)
			n = ns->lim.max_sleep_ms;
		if (ns->plat.sleep_ms)
			ns->plat.sleep_ms(ns->plat.ctx, (u32)n);
	} else {
		if (n > 100)
			n = 100;
		if (ns->plat.stall_us)
			ns->plat.stall_us(ns->plat.ctx, (u32)n);
	}
	(void)out;
	return AML_OK;
}

/*
 * aml_eval_term() - execute the term at st->p and advance past it; *out
 * gets its value (a new reference) or NULL.  Statements return a flow
 * result or AML_OK.  Bounded by limits.max_nesting.
 */
int aml_eval_term(struct aml_ctx *c, struct aml_state *st, struct aml_obj **out)
{
	const u8 *at = st->p;
	int r;

	*out = NULL;
	if (st->p >= st->end)
		return aml_fail(c, at, AML_EPARSE, "term missing at the end of a block");
	if (c->nest >= c->ns->lim.max_nesting)
		return aml_fail(c, at, AML_ELIMIT, "terms nested %u deep: gave up", c->nest);
	r = account(c, at);
	if (r)
		return r;
	u16 op = *st->p;
	/* the commonest terms, without the operator's frame: a Local or an
	 * Arg holding a plain value, Zero, One, Ones (aml_op_expr() does the
	 * rest, and the cases here that fail) */
	if (op >= 0x60 && op <= 0x6e && c->frame) {
		struct aml_obj *v = op < 0x68 ? c->frame->locals[op - 0x60] : c->frame->args[op - 0x68];
		if (v && (op < 0x68 || v->type != AML_REFERENCE)) {
			st->p++;
			*out = aml_get(v);
			return AML_OK;
		}
	} else if (op == 0x00 || op == 0x01 || op == 0xff) {
		*out = aml_int_shared(c->ns, op == 0x00 ? 0 : op == 0x01 ? 1 : ~0ull);
		if (*out) {
			st->p++;
			return AML_OK;
		}
	}
	if (aml_is_name_start((u8)op)) {
		c->nest++;
		r = name_term(c, st, at, out);
		c->nest--;
		return r;
	}
	st->p++;
	if (op == 0x5b) {
		if (st->p >= st->end)
			return aml_fail(c, at, AML_EPARSE, "ExtOpPrefix at the end");
		op = 0x5b00 | *st->p++;
	}
	c->nest++;
	switch (op) {
	case 0x08: r = op_name(c, st, at); break;
	case 0x10: case 0x14: case 0x5b82: case 0x5b83: case 0x5b84: case 0x5b85:
		r = op_scoped(c, st, at, op);
		break;
	case 0x06: r = op_alias(c, st, at); break;
	case 0x15: case 0x5b01: case 0x5b02: case 0x5b80:
		r = op_simple_def(c, st, at, op);
		break;
	case 0x5b81: case 0x5b86: case 0x5b87:
		r = aml_def_field(c, st, at, (u8)op);
		break;
	case 0xa0: r = op_if(c, st, at); break;
	case 0xa1: r = aml_fail(c, at, AML_EPARSE, "Else without If"); break;
	case 0xa2: r = op_while(c, st, at); break;
	case 0xa3: case 0xcc: r = AML_OK; break;	/* Noop, BreakPoint */
	case 0xa4: case 0xa5: case 0x9f: case 0x5b21: case 0x5b22:
		r = op_flow(c, st, at, op, out);
		break;
	default:
		r = aml_op_expr(c, st, at, op, out);
		break;
	}
	c->nest--;
	if (r && *out) {
		aml_put(c->ns, *out);
		*out = NULL;
	}
	return r;
}

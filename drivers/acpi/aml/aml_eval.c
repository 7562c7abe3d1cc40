/*
 * aml_eval.c - the interpreter's public entry points: creating a
 * namespace, loading tables into it, evaluating a path, the typed helpers,
 * the boot walk of _STA and _INI, finding devices by _HID/_CID, and the
 * operating system's answers (\_OSI, \_OS, \_REV).
 */
#include "aml_internal.h"
#include <lib/printer.h>

/*
 * _OSI: the strings Linux answers true, so firmware takes the paths it
 * takes under Linux (which claims every Windows version it knows, because
 * vendors test their AML against Windows): each Windows version from 2000
 * to 2022 and the feature strings below.  "Linux" is false, as in Linux
 * since 2.6.23: firmware that checks it tends to take untested paths.
 */
static const char *const osi_true[] = {
	"Windows 2000", "Windows 2001", "Windows 2001 SP1", "Windows 2001.1",
	"Windows 2001 SP2", "Windows 2001.1 SP1", "Windows 2006", "Windows 2006.1",
	"Windows 2006 SP1", "Windows 2006 SP2", "Windows 2009", "Windows 2012",
	"Windows 2013", "Windows 2015", "Windows 2016", "Windows 2017",
	"Windows 2017.2", "Windows 2018", "Windows 2018.2", "Windows 2019",
	"Windows 2020", "Windows 2021", "Windows 2022",
	"Module Device", "Processor Device", "3.0 Thermal Model",
	"3.0 _SCP Extensions", "Processor Aggregator Device",
	"Extended Address Space Descriptor",
};

/* aml_osi() - \_OSI (string): Ones if the string is in osi_true. */
int aml_osi(struct aml_ctx *c, struct aml_obj *arg, struct aml_obj **out)
{
	bool yes = false;

	if (!arg || arg->type != AML_STRING)
		return aml_fail(c, NULL, AML_ETYPE, "_OSI of a non-String");
	for (unsigned i = 0; i < ARRAY_SIZE(osi_true); i++)
		if (!strcmp((const char *)arg->buf.data, osi_true[i]))
			yes = true;
	*out = aml_new_integer(c->ns, yes ? 0xffffffffull : 0);
	return *out ? AML_OK : aml_fail(c, NULL, AML_ENOMEM, "out of arena");
}

static struct aml_node *predefined(struct aml_ns *ns, const char *name, struct aml_obj *o)
{
	struct aml_node *n = aml_node_new(ns, ns->root, NAME4(name[0], name[1], name[2], name[3]));

	if (n)
		n->obj = o;
	else
		aml_put(ns, o);
	return n;
}

struct aml_ns *aml_create(void *arena, size_t size, const struct aml_platform *plat,
			  const struct aml_limits *lim)
{
	struct aml_ns boot = { 0 }, *ns;

	boot.arena.base = boot.arena.brk = (u8 *)ALIGN_UP((uintptr_t)arena, 16);
	boot.arena.end = (u8 *)arena + size;
	if (boot.arena.end < boot.arena.base + 4096)
		return NULL;
	ns = aml_alloc(&boot, sizeof(*ns));
	if (!ns)
		return NULL;
	*ns = boot;
	ns->self_bytes = ns->arena.in_use;
	ns->plat = *plat;
	ns->lim = lim ? *lim : aml_default_limits;
	ns->root = aml_node_new(ns, NULL, NAME4('\\', '_', '_', '_'));
	if (!ns->root)
		return NULL;
	ns->root->obj = aml_obj_new(ns, AML_SCOPE);
	/* \_SB and \_TZ are Devices, as ACPICA makes them (ObjectType 6) */
	static const char *const scopes[] = { "_GPE", "_PR_", "_SB_", "_SI_", "_TZ_" };
	for (unsigned i = 0; i < ARRAY_SIZE(scopes); i++)
		if (!predefined(ns, scopes[i], aml_obj_new(ns, i == 2 || i == 4 ? AML_DEVICE : AML_SCOPE)))
			return NULL;
	predefined(ns, "_OS_", aml_new_string(ns, "Microsoft Windows NT"));
	predefined(ns, "_REV", aml_new_integer(ns, 2));
	struct aml_obj *gl = aml_obj_new(ns, AML_MUTEX);
	predefined(ns, "_GL_", gl);
	ns->osi_method = aml_obj_new(ns, AML_METHOD);
	if (!ns->osi_method)
		return NULL;
	ns->osi_method->method.flags = 1;
	if (!predefined(ns, "_OSI", ns->osi_method))
		return NULL;
	ns->stats.objects = 0;
	return ns;
}

size_t aml_destroy(struct aml_ns *ns)
{
	aml_node_delete(ns, ns->root);
	ns->root = NULL;
	for (unsigned i = 0; i < ARRAY_SIZE(ns->k_int); i++) {
		aml_put(ns, ns->k_int[i]);
		ns->k_int[i] = NULL;
	}
	return ns->arena.in_use - ns->self_bytes;
}

static void ctx_init(struct aml_ns *ns, struct aml_ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->ns = ns;
	c->start_ns = ns->plat.time_ns ? ns->plat.time_ns(ns->plat.ctx) : 0;
	/* no failure yet: what aml_last_error() shows as empty (aml_fail()
	 * fills every field of the next one) */
	ns->err.code = 0;
	ns->err.path[0] = ns->err.reason[0] = 0;
	ns->err.offset = 0;
}

int aml_load_table(struct aml_ns *ns, const void *table, size_t len)
{
	const u8 *t = table;
	struct aml_ctx c;

	ctx_init(ns, &c);
	if (len < 36 || ns->ntables == AML_MAX_TABLES)
		return aml_fail(&c, NULL, AML_EPARSE, "table too short or too many tables");
	u32 tl = (u32)t[4] | (u32)t[5] << 8 | (u32)t[6] << 16 | (u32)t[7] << 24;
	if (tl < 36 || tl > len)
		return aml_fail(&c, NULL, AML_EPARSE, "table length %u impossible", tl);
	if (!memcmp(t, "DSDT", 4) && t[8] < 2)
		ns->int32 = true;
	c.table = t;
	c.table_idx = ns->ntables;
	c.loading = true;
	ns->tables[ns->ntables] = t;
	ns->table_len[ns->ntables++] = tl;
	ns->stats.tables++;
	struct aml_state st = { .p = t + 36, .end = t + tl, .scope = ns->root };
	int r = aml_exec_block(&c, &st);
	if (ns->plat.time_ns)
		ns->stats.load_ns += ns->plat.time_ns(ns->plat.ctx) - c.start_ns;
	return r > 0 ? aml_fail(&c, st.p, AML_EPARSE, "control flow at table level") : r;
}

/* Evaluate node n: run a method, read a field, or take the object. */
static int eval_node(struct aml_ns *ns, struct aml_ctx *c, struct aml_node *n,
		     struct aml_obj *const *args, unsigned nargs, struct aml_obj **result)
{
	*result = NULL;
	if (!n->obj)
		return aml_fail(c, NULL, AML_ETYPE, "name without an object");
	if (nargs > 7)
		return aml_fail(c, NULL, AML_EFATAL, "more than 7 arguments");
	switch (n->obj->type) {
	case AML_METHOD:
		return aml_call(c, n, (struct aml_obj **)args, nargs, result);
	case AML_FIELD_UNIT:
		c->table = NULL;
		return aml_field_read(c, n->obj, result, NULL);
	case AML_BUFFER_FIELD:
		return aml_bfield_read(c, n->obj, result, NULL);
	}
	(void)ns;
	*result = aml_get(n->obj);
	return AML_OK;
}

int aml_eval_at(struct aml_ns *ns, struct aml_node *scope, const char *path,
		struct aml_obj *const *args, unsigned nargs, struct aml_obj **result)
{
	struct aml_ctx c;
	struct aml_obj *res = NULL;
	struct aml_node *n = aml_lookup(ns, scope, path);
	int r;

	ctx_init(ns, &c);
	if (!n) {
		aml_fail(&c, NULL, AML_ENOENT, "%s does not exist", path);
		return AML_ENOENT;
	}
	r = eval_node(ns, &c, n, args, nargs, &res);
	if (r || !result)
		aml_put(ns, res);
	else
		*result = res;
	return r;
}

int aml_eval(struct aml_ns *ns, const char *path, struct aml_obj *const *args,
	     unsigned nargs, struct aml_obj **result)
{
	return aml_eval_at(ns, NULL, path, args, nargs, result);
}

int aml_eval_integer(struct aml_ns *ns, struct aml_node *scope, const char *path, u64 *out)
{
	struct aml_obj *o = NULL;
	struct aml_ctx c;
	int r = aml_eval_at(ns, scope, path, NULL, 0, &o);

	if (r)
		return r;
	ctx_init(ns, &c);
	r = aml_to_integer(&c, o, out, NULL);
	aml_put(ns, o);
	return r;
}

int aml_device_status(struct aml_ns *ns, struct aml_node *dev, u64 *sta)
{
	*sta = 0xf;
	if (!aml_node_child(dev, NAME4('_', 'S', 'T', 'A')))
		return AML_OK;
	return aml_eval_integer(ns, dev, "_STA", sta);
}

static bool is_device_like(const struct aml_node *n)
{
	return n->obj && (n->obj->type == AML_DEVICE || n->obj->type == AML_PROCESSOR ||
			  n->obj->type == AML_THERMAL);
}

static bool is_container(const struct aml_node *n)
{
	return !n->obj || is_device_like(n) || n->obj->type == AML_SCOPE ||
	       n->obj->type == AML_POWER;
}

/* The next node after n in depth-first order, into its children only when
 * `down`; NULL after the last. */
static struct aml_node *next_node(struct aml_node *n, bool down)
{
	if (down && n->child)
		return n->child;
	while (n) {
		if (n->next)
			return n->next;
		n = n->parent;
	}
	return NULL;
}

/* One line per failed method of the walk: the path evaluated, then where
 * it failed (the innermost method) and why. */
static void report_failure(struct aml_ns *ns, struct aml_stats *st, struct aml_node *dev,
			   const char *name)
{
	const struct aml_error *e = &ns->err;
	char path[96];

	st->failures++;
	aml_path_str(dev, path, sizeof(path));
	aml_log(ns, "aml: %s%s%s failed: %s at 0x%x: %s", path, dev->parent ? "." : "", name,
		e->path, e->offset, e->reason);
}

static void run_ini(struct aml_ns *ns, struct aml_node *dev, struct aml_stats *st)
{
	if (!aml_node_child(dev, NAME4('_', 'I', 'N', 'I')))
		return;
	st->ini_run++;
	if (aml_eval_at(ns, dev, "_INI", NULL, 0, NULL))
		report_failure(ns, st, dev, "_INI");
}

void aml_init_devices(struct aml_ns *ns, struct aml_stats *out)
{
	struct aml_stats *st = &ns->stats;
	u64 t0 = ns->plat.time_ns ? ns->plat.time_ns(ns->plat.ctx) : 0;

	st->ini_run = st->sta_run = st->failures = 0;
	if (aml_lookup(ns, NULL, "\\_PIC")) {
		struct aml_obj *one = aml_new_integer(ns, 1);
		if (one && aml_eval(ns, "\\_PIC", &one, 1, NULL))
			report_failure(ns, st, ns->root, "_PIC");
		aml_put(ns, one);
	}
	struct aml_node *sb = aml_lookup(ns, NULL, "\\_SB");
	if (sb)
		run_ini(ns, sb, st);
	for (struct aml_node *n = ns->root->child; n;) {
		bool down = is_container(n);
		if (is_device_like(n)) {
			u64 sta = 0xf;
			if (aml_node_child(n, NAME4('_', 'S', 'T', 'A'))) {
				st->sta_run++;
				if (aml_device_status(ns, n, &sta)) {
					report_failure(ns, st, n, "_STA");
					sta = 0;
				}
			}
			if ((sta & 1) && n != sb)
				run_ini(ns, n, st);
			down = (sta & 9) != 0;
		}
		n = next_node(n, down);
	}
	if (ns->plat.time_ns)
		st->init_ns = ns->plat.time_ns(ns->plat.ctx) - t0;
	if (out)
		*out = *st;
}

/* Decode a compressed EISA id (_HID as an Integer) to "PNP0C80". */
static void eisa_id(u64 v, char out[8])
{
	u32 x = (u32)v;
	u32 b = (x >> 24) | ((x >> 8) & 0xff00) | ((x << 8) & 0xff0000) | (x << 24);
	static const char hex[] = "0123456789ABCDEF";

	out[0] = (char)('@' + ((b >> 26) & 0x1f));
	out[1] = (char)('@' + ((b >> 21) & 0x1f));
	out[2] = (char)('@' + ((b >> 16) & 0x1f));
	for (int i = 0; i < 4; i++)
		out[3 + i] = hex[(b >> (12 - 4 * i)) & 15];
	out[7] = 0;
}

/* aml_device_hid() - see include/drivers/aml.h.  Context: as aml_eval(). */
int aml_device_hid(struct aml_ns *ns, struct aml_node *dev, char *buf, size_t size)
{
	struct aml_obj *o = NULL;
	char id[8];
	int r = -1;

	if (!size || !aml_child(dev, "_HID") || aml_eval_at(ns, dev, "_HID", NULL, 0, &o))
		return -1;
	if (o && o->type == AML_INTEGER) {
		eisa_id(o->integer, id);
		strlcpy(buf, id, size);
		r = 0;
	} else if (o && o->type == AML_STRING) {
		strlcpy(buf, (const char *)o->buf.data, size);
		r = 0;
	}
	aml_put(ns, o);
	return r;
}

static bool id_matches(const struct aml_obj *o, const char *hid)
{
	char id[8];

	if (!o)
		return false;
	if (o->type == AML_INTEGER) {
		eisa_id(o->integer, id);
		return !strcmp(id, hid);
	}
	if (o->type == AML_STRING)
		return !strcmp((const char *)o->buf.data, hid);
	if (o->type == AML_PACKAGE)
		for (u32 i = 0; i < o->pkg.count; i++)
			if (o->pkg.elems[i] && o->pkg.elems[i]->type != AML_PACKAGE &&
			    id_matches(o->pkg.elems[i], hid))
				return true;
	return false;
}

int aml_walk_devices(struct aml_ns *ns,
		     int (*fn)(struct aml_ns *ns, struct aml_node *dev, void *arg), void *arg)
{
	for (struct aml_node *n = ns->root->child; n; n = next_node(n, is_container(n))) {
		if (!is_device_like(n))
			continue;
		int r = fn(ns, n, arg);
		if (r)
			return r;
	}
	return 0;
}

struct aml_node *aml_child(struct aml_node *n, const char *name)
{
	char seg[4] = { '_', '_', '_', '_' };

	for (unsigned i = 0; i < 4 && name[i]; i++)
		seg[i] = name[i];
	return aml_node_child(n, NAME4(seg[0], seg[1], seg[2], seg[3]));
}

int aml_walk_hid(struct aml_ns *ns, const char *hid,
		 int (*fn)(struct aml_ns *ns, struct aml_node *dev, void *arg), void *arg)
{
	for (struct aml_node *n = ns->root->child; n; n = next_node(n, is_container(n))) {
		if (!n->obj || n->obj->type != AML_DEVICE)
			continue;
		bool match = false;
		static const char *const ids[] = { "_HID", "_CID" };
		for (unsigned i = 0; i < 2 && !match; i++) {
			struct aml_obj *o = NULL;
			if (!aml_node_child(n, NAME4(ids[i][0], ids[i][1], ids[i][2], ids[i][3])))
				continue;
			if (!aml_eval_at(ns, n, ids[i], NULL, 0, &o))
				match = id_matches(o, hid);
			aml_put(ns, o);
		}
		if (match) {
			int r = fn(ns, n, arg);
			if (r)
				return r;
		}
	}
	return 0;
}

const struct aml_error *aml_last_error(const struct aml_ns *ns)
{
	return &ns->err;
}

void aml_set_trace(struct aml_ns *ns, bool on)
{
	ns->trace = on;
}

bool aml_trace(const struct aml_ns *ns)
{
	return ns->trace;
}

const struct aml_stats *aml_get_stats(const struct aml_ns *ns)
{
	return &ns->stats;
}

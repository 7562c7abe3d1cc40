/*
 * aml_internal.h - what the interpreter's files share: the namespace state,
 * nodes, the evaluation context with its method frames, and each file's
 * entry points.  Not for users of the interpreter (include/drivers/aml.h).
 */
#ifndef DRIVERS_ACPI_AML_INTERNAL_H
#define DRIVERS_ACPI_AML_INTERNAL_H

#include <drivers/aml.h>
#include <lib/string.h>

#define AML_NR_CLASSES	22	/* arena size classes: 16 B << 0..21 (32 MiB) */
#define AML_MAX_TABLES	32
#define AML_MAX_SEGS	16	/* NameSegs in one path (a longer path is refused) */
#define __noinline	__attribute__((noinline))	/* keeps big frames off the recursion */

/* A name in the namespace.  Nodes are owned by the tree; a node created by
 * a running method is temporary (tmp_next links it into the frame). */
struct aml_node {
	u32 name;			/* four characters, little endian */
	bool cached;			/* a name cache slot holds it (node or scope) */
	bool temp;			/* created by a running method */
	struct aml_node *parent, *child, *next;
	struct aml_obj *obj;		/* NULL for a bare scope */
	struct aml_node *tmp_next;	/* next temporary of the same frame */
};

/* The bounded arena: power-of-two classes, bump allocation, free lists. */
struct aml_arena {
	u8 *base, *brk, *end;
	void *free[AML_NR_CLASSES];
	size_t in_use;			/* bytes handed out and not freed */
	size_t peak;
};

/* A resolved NameString of the code: the bytes at p, met in scope, name
 * node (NULL: nothing), neither of them a method's temporary.  Kept until
 * a node is created that could change it: for a node found, one of its
 * last segment's name (gen is that name's bucket of name_gen then); for
 * nothing found, any (gen is node_gen then).  See aml_name_at(). */
#define AML_NAME_CACHE	256	/* slots, in pairs */
#define AML_NAME_BYTES	14	/* longer NameStrings are not kept */
#define AML_NAME_GENS	64	/* creation counters, by name */
struct aml_name_slot {
	const u8 *p;
	struct aml_node *scope, *node;
	u64 gen;
	u32 last;
	u8 len;
	u8 bytes[AML_NAME_BYTES];
};

struct aml_ns {
	struct aml_arena arena;
	size_t self_bytes;		/* this struct's own block */
	struct aml_platform plat;
	struct aml_limits lim;
	struct aml_node *root;
	struct aml_obj *osi_method;	/* \_OSI, answered natively */
	bool int32;			/* DSDT revision < 2 */
	bool trace;
	u32 ntables;
	const u8 *tables[AML_MAX_TABLES];	/* start of each loaded table */
	u32 table_len[AML_MAX_TABLES];
	struct aml_error err;
	struct aml_stats stats;
	struct aml_ctx *ctx;		/* the running evaluation, if any */
	struct aml_obj *k_int[3];	/* the shared Integers 0, 1, Ones (aml_int_shared()) */
	u64 node_gen;			/* nodes created so far */
	u64 name_gen[AML_NAME_GENS];	/* ... by the bucket of their name */
	struct aml_name_slot names[AML_NAME_CACHE];	/* resolved call sites */
};

/* One method activation. */
struct aml_frame {
	struct aml_node *method;	/* NULL at table load */
	struct aml_obj *args[7];
	struct aml_obj *locals[8];
	struct aml_node *temps;		/* nodes this call created */
	struct aml_obj *ret;
	struct aml_frame *up;
};

/* One evaluation (aml_eval() or a table load). */
struct aml_ctx {
	struct aml_ns *ns;
	struct aml_frame *frame;
	u32 depth;			/* method calls */
	u32 nest;			/* C recursion */
	u64 ops;
	u64 start_ns;
	const u8 *table;		/* start of the table of the running code */
	u32 table_idx;
	bool loading;
};

/* Execution state of a block of code. */
struct aml_state {
	const u8 *p, *end;
	struct aml_node *scope;
};

/* Flow results besides AML_OK and errors (never escape aml_exec.c). */
enum { AML_FLOW_BREAK = 1, AML_FLOW_CONTINUE = 2, AML_FLOW_RETURN = 3 };

#define NAME4(a, b, c, d) ((u32)(a) | (u32)(b) << 8 | (u32)(c) << 16 | (u32)(d) << 24)

/* aml_object.c */
void *aml_alloc(struct aml_ns *ns, size_t n);
void aml_free(struct aml_ns *ns, void *p);
struct aml_obj *aml_obj_new(struct aml_ns *ns, u8 type);
struct aml_obj *aml_get(struct aml_obj *o);
struct aml_obj *aml_new_buffer(struct aml_ns *ns, u8 type, const void *data, u32 len);
struct aml_obj *aml_new_package(struct aml_ns *ns, u32 count);
struct aml_obj *aml_copy(struct aml_ns *ns, const struct aml_obj *o, u32 depth);
u64 aml_int_mask(const struct aml_ns *ns);
struct aml_obj *aml_int_shared_any(struct aml_ns *ns, u64 v);
/* aml_int_shared() - see aml_int_shared_any() (aml_object.c); inline for
 * a value whose shared Integer exists. */
static inline struct aml_obj *aml_int_shared(struct aml_ns *ns, u64 v)
{
	u64 mask = ns->int32 ? 0xffffffffull : ~0ull;
	unsigned k;

	v &= mask;
	k = v == 0 ? 0 : v == 1 ? 1 : v == mask ? 2 : 3;
	if (k < 3 && ns->k_int[k] && ns->k_int[k]->integer == v) {
		ns->k_int[k]->refs++;
		return ns->k_int[k];
	}
	return aml_int_shared_any(ns, v);
}

/* aml_namespace.c */
struct aml_node *aml_node_child(struct aml_node *parent, u32 name);
struct aml_node *aml_node_new(struct aml_ns *ns, struct aml_node *parent, u32 name);
void aml_node_delete(struct aml_ns *ns, struct aml_node *n);
int aml_name_parse(const u8 **p, const u8 *end, struct aml_node *scope,
		   struct aml_node **prefix_scope, u32 *segs, unsigned *nseg, bool *search);
int aml_name_at(struct aml_ns *ns, struct aml_state *st, struct aml_node **node, u32 *last);
struct aml_node *aml_resolve(struct aml_node *scope, const u32 *segs, unsigned nseg, bool search);
void aml_path_str(const struct aml_node *n, char *buf, size_t size);

/* aml_exec.c */
int aml_fail(struct aml_ctx *c, const u8 *at, int code, const char *fmt, ...) __printf(4, 5);
int aml_exec_block(struct aml_ctx *c, struct aml_state *st);
int aml_call(struct aml_ctx *c, struct aml_node *m, struct aml_obj **args, unsigned nargs,
	     struct aml_obj **result);
void aml_log(struct aml_ns *ns, const char *fmt, ...) __printf(2, 3);
int aml_def_node(struct aml_ctx *c, struct aml_state *st, const u8 *at, struct aml_node **out);
int aml_osi(struct aml_ctx *c, struct aml_obj *arg, struct aml_obj **out);

/* aml_ops.c: the expression operators */
int aml_eval_term(struct aml_ctx *c, struct aml_state *st, struct aml_obj **out);
int aml_to_integer_any(struct aml_ctx *c, const struct aml_obj *o, u64 *v, const u8 *at);
/* aml_to_integer() - o as an Integer (aml_to_integer_any(), aml_convert.c);
 * inline for the common case, an Integer already. */
static inline int aml_to_integer(struct aml_ctx *c, const struct aml_obj *o, u64 *v, const u8 *at)
{
	if (o && o->type == AML_INTEGER) {
		*v = o->integer;
		return AML_OK;
	}
	return aml_to_integer_any(c, o, v, at);
}
int aml_to_buffer(struct aml_ctx *c, struct aml_obj *o, struct aml_obj **out, const u8 *at);
int aml_to_string(struct aml_ctx *c, struct aml_obj *o, struct aml_obj **out, const u8 *at);
int aml_op_expr(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op, struct aml_obj **out);

/* aml_convert.c */
int aml_convert_op(struct aml_ctx *c, u16 op, struct aml_obj *o, u64 maxlen,
		   struct aml_obj **out, const u8 *at);
int aml_concat(struct aml_ctx *c, struct aml_obj *a, struct aml_obj *b, struct aml_obj **out,
	       const u8 *at);
int aml_concat_res(struct aml_ctx *c, struct aml_obj *a, struct aml_obj *b, struct aml_obj **out,
		   const u8 *at);
int aml_mid(struct aml_ctx *c, struct aml_obj *src, u64 idx, u64 len, struct aml_obj **out,
	    const u8 *at);

/* aml_store.c: targets and Store */
struct aml_target {
	u8 kind;			/* T_NONE, T_LOCAL, T_ARG, T_NODE, T_REF, T_DEBUG */
	u8 index;
	struct aml_node *node;
	struct aml_obj *ref;		/* T_REF: an AML_REFERENCE (held) */
};
enum { T_NONE, T_LOCAL, T_ARG, T_NODE, T_REF, T_DEBUG };
int aml_parse_target(struct aml_ctx *c, struct aml_state *st, struct aml_target *t);
int aml_parse_supername(struct aml_ctx *c, struct aml_state *st, struct aml_target *t);
void aml_target_put(struct aml_ctx *c, struct aml_target *t);
int aml_store(struct aml_ctx *c, struct aml_obj *v, struct aml_target *t, const u8 *at);
int aml_target_read(struct aml_ctx *c, struct aml_target *t, struct aml_obj **out, const u8 *at);
int aml_deref(struct aml_ctx *c, struct aml_obj *ref, struct aml_obj **out, const u8 *at);
int aml_copy_object(struct aml_ctx *c, struct aml_obj *v, struct aml_target *t, const u8 *at);
int aml_ref_of(struct aml_ctx *c, struct aml_target *t, struct aml_obj **out, const u8 *at);

/* aml_sync.c */
int aml_sync_op(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op,
		struct aml_target *t, struct aml_obj **out);

/* aml_region.c */
int aml_field_read(struct aml_ctx *c, struct aml_obj *f, struct aml_obj **out, const u8 *at);
int aml_field_write(struct aml_ctx *c, struct aml_obj *f, struct aml_obj *v, const u8 *at);
int aml_bfield_read(struct aml_ctx *c, struct aml_obj *f, struct aml_obj **out, const u8 *at);
int aml_bfield_write(struct aml_ctx *c, struct aml_obj *f, struct aml_obj *v, const u8 *at);
int aml_def_field(struct aml_ctx *c, struct aml_state *st, const u8 *at, u8 op);

/* aml_parse.c: byte stream helpers */
int aml_pkglen(const u8 **p, const u8 *end, u32 *len);
int aml_pkglen_raw(const u8 **p, const u8 *end, u32 *len);

/* aml_is_name_start() - a byte that begins a NameString: a lead name
 * character, '\\', '^', DualNamePrefix or MultiNamePrefix.  Inline: the
 * dispatcher asks it of every term. */
static inline bool aml_is_name_start(u8 b)
{
	return (u8)(b - 'A') <= 'Z' - 'A' || b == '_' || b == '\\' || b == '^' ||
	       b == 0x2e || b == 0x2f;
}

#endif

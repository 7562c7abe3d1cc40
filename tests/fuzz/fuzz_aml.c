/*
 * fuzz_aml.c - libFuzzer target for the AML interpreter (drivers/acpi/aml/).
 *
 * The input is AML: a whole table when it starts with "DSDT" or "SSDT" and
 * its length field fits (its length is then trusted up to the input's
 * end), otherwise the body of an SSDT this target wraps in a header.  The
 * table is copied into a heap buffer of exactly its size, so ASan reports
 * any read past it.  On the fake machine of tests/host/aml_fake.c (regions
 * read what was written, 0 elsewhere) the namespace is built in a 1 MiB
 * arena with small limits, the boot walk runs (\_PIC, _STA, _INI), and then
 * every method is evaluated with Integer arguments (at most 64 methods).
 *
 * Checked after each input: no crash or sanitizer report; the namespace is
 * a tree (every child's parent is its parent, no node reached twice); and
 * after aml_destroy() the arena is empty (every object's refcount came back
 * to zero).  Seeds: the compiled test tables of tests/host/aml/
 * (tests/fuzz/seeds/fuzz_aml/).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "aml_fake.h"
#include "../../drivers/acpi/aml/aml_internal.h"

#define ARENA_BYTES	(1u << 20)

static u8 arena[ARENA_BYTES] __attribute__((aligned(16)));
static struct aml_fake fake;

/* The tree is consistent: parents match, bounded size, no cycle. */
static void check_tree(struct aml_ns *ns)
{
	unsigned count = 0, depth = 0;
	struct aml_node *n = ns->root;

	while (n) {
		if (++count > 1000000)
			abort();
		for (struct aml_node *c = n->child; c; c = c->next)
			if (c->parent != n)
				abort();
		if (n->child) {
			n = n->child;
			depth++;
			continue;
		}
		while (n && n != ns->root && !n->next) {
			n = n->parent;
			depth--;
		}
		n = n && n != ns->root ? n->next : NULL;
	}
	(void)depth;
}

/* Evaluate every method (depth first), up to `budget` of them. */
static void eval_all(struct aml_ns *ns, unsigned budget)
{
	struct aml_node *n = ns->root;
	struct aml_obj *args[7];

	for (unsigned i = 0; i < 7; i++)
		args[i] = aml_new_integer(ns, i == 0 ? 1 : i * 0x11);
	while (n && budget) {
		if (n->obj && n->obj->type == AML_METHOD && n->obj != ns->osi_method) {
			char path[96];
			struct aml_obj *res = NULL;
			aml_node_path(n, path, sizeof(path));
			budget--;
			bool ok = true;
			for (unsigned i = 0; i < 7; i++)
				ok &= args[i] != NULL;
			size_t before = ns->arena.in_use;
			int r = ok ? aml_eval(ns, path, args, n->obj->method.flags & 7, &res) : -1;
			if (fake.echo)
				fprintf(stderr, "fuzz_aml: %s: %d (%s), arena %+ld\n", path, r, r ? ns->err.reason : "ok",
				       (long)(ns->arena.in_use - before));
			if (!r) {
				char text[4096];
				struct buf_printer bp;
				buf_printer_init(&bp, text, sizeof(text));
				aml_print_result(&bp.p, path, res);
			}
			aml_put(ns, res);
			check_tree(ns);
		}
		/* a method's own temporaries are gone: do not walk into it */
		if (n->child && !(n->obj && n->obj->type == AML_METHOD)) {
			n = n->child;
			continue;
		}
		while (n && n != ns->root && !n->next)
			n = n->parent;
		n = n && n != ns->root ? n->next : NULL;
	}
	for (unsigned i = 0; i < 7; i++)
		aml_put(ns, args[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct aml_limits lim = {
		.max_loop_iters = 64, .max_call_depth = 8, .max_nesting = 40,
		.max_ops = 20000, .max_time_ns = ~0ull, .max_sleep_ms = 1,
	};
	size_t len;
	u8 *table;

	if (size > (1u << 16))
		return 0;
	bool whole = size >= 36 && (!memcmp(data, "DSDT", 4) || !memcmp(data, "SSDT", 4));
	if (whole) {
		len = size;
		table = malloc(len);
		memcpy(table, data, len);
	} else {
		len = size + 36;
		table = malloc(len);
		memset(table, 0, 36);
		memcpy(table, "SSDT", 4);
		table[8] = 2;
		memcpy(table + 36, data, size);
	}
	table[4] = (u8)len;
	table[5] = (u8)(len >> 8);
	table[6] = (u8)(len >> 16);
	table[7] = 0;
	memset(&fake, 0, sizeof(fake));
	fake.echo = getenv("FUZZ_VERBOSE") != NULL;
	struct aml_platform plat = aml_fake_platform(&fake);
	struct aml_ns *ns = aml_create(arena, sizeof(arena), &plat, &lim);
	if (!ns)
		abort();
	int r = aml_load_table(ns, table, len);
	if (fake.echo)
		fprintf(stderr, "fuzz_aml: load: %d (%s at 0x%x), arena %zu\n", r, r ? ns->err.reason : "ok",
		       ns->err.offset, ns->arena.in_use);
	check_tree(ns);
	aml_init_devices(ns, NULL);
	check_tree(ns);
	eval_all(ns, 64);
	if (aml_destroy(ns) != 0)
		abort();	/* a refcount went wrong: an object outlived its namespace */
	free(table);
	return 0;
}

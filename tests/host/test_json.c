/*
 * test_json.c - lib/json.c: the writer (commas at every level, escaping of
 * quotes, backslashes and control bytes, the extremes of 64-bit numbers,
 * nesting up to JSON_MAX_DEPTH and the error flag of misuse) and the
 * flat-object reader (every value kind, escapes, white space, and each
 * malformed input refused with its reason, reading no byte past the end).
 */
#include "htest.h"
#include <stdlib.h>
#include <lib/json.h>
#include <lib/printer.h>

static char out[1024];
static struct buf_printer bp;

static struct json_writer *writer(void)
{
	static struct json_writer w;

	buf_printer_init(&bp, out, sizeof(out));
	json_writer_init(&w, &bp.p);
	return &w;
}

HTEST(json_writer_nesting_and_commas)
{
	struct json_writer *w = writer();

	json_object_begin(w);
	json_kv_u64(w, "v", 1);
	json_kv_string(w, "type", "snapshot");
	json_key(w, "zones");
	json_array_begin(w);
	for (int i = 0; i < 2; i++) {
		json_object_begin(w);
		json_kv_i64(w, "node", i);
		json_key(w, "free_blocks");
		json_array_begin(w);
		json_u64(w, 3);
		json_u64(w, 0);
		json_array_end(w);
		json_object_end(w);
	}
	json_array_end(w);
	json_kv_bool(w, "early", true);
	json_kv_bool(w, "mixed", false);
	json_key(w, "zone");
	json_null(w);
	json_kv_string(w, "group", NULL);
	json_key(w, "empty");
	json_array_begin(w);
	json_array_end(w);
	json_key(w, "o");
	json_object_begin(w);
	json_object_end(w);
	json_object_end(w);
	CHECK(!w->error);
	CHECK_STREQ(out, "{\"v\":1,\"type\":\"snapshot\",\"zones\":[{\"node\":0,\"free_blocks\":[3,0]},"
		    "{\"node\":1,\"free_blocks\":[3,0]}],\"early\":true,\"mixed\":false,"
		    "\"zone\":null,\"group\":null,\"empty\":[],\"o\":{}}");
}

HTEST(json_writer_numbers)
{
	struct json_writer *w = writer();

	json_array_begin(w);
	json_u64(w, 0);
	json_u64(w, ~0ULL);
	json_i64(w, -1);
	json_i64(w, INT64_MIN);
	json_i64(w, INT64_MAX);
	json_bool(w, true);
	json_array_end(w);
	CHECK(!w->error);
	CHECK_STREQ(out, "[0,18446744073709551615,-1,-9223372036854775808,9223372036854775807,true]");
}

HTEST(json_writer_escapes)
{
	struct json_writer *w = writer();

	json_array_begin(w);
	json_string(w, "a\"b\\c/d");
	json_string(w, "\n\r\t\b\f");
	json_string(w, "\x01\x1f x\x7f");
	json_string(w, "caf\xc3\xa9");
	json_string(w, "");
	json_array_end(w);
	CHECK(!w->error);
	CHECK_STREQ(out, "[\"a\\\"b\\\\c/d\",\"\\n\\r\\t\\b\\f\",\"\\u0001\\u001f x\x7f\","
		    "\"caf\xc3\xa9\",\"\"]");
	w = writer();
	json_object_begin(w);
	json_kv_string(w, "k\"ey", "v");
	json_object_end(w);
	CHECK_STREQ(out, "{\"k\\\"ey\":\"v\"}");
}

HTEST(json_writer_misuse_sets_error)
{
	struct json_writer *w = writer();

	json_object_begin(w);
	json_u64(w, 1);			/* a value without its key */
	CHECK(w->error);
	json_kv_u64(w, "later", 2);	/* nothing more is written */
	CHECK_STREQ(out, "{");

	w = writer();
	json_array_begin(w);
	json_key(w, "k");		/* a key in an array */
	CHECK(w->error);

	w = writer();
	json_array_begin(w);
	json_object_end(w);		/* the wrong end */
	CHECK(w->error);

	w = writer();
	json_array_end(w);		/* an end without a begin */
	CHECK(w->error);

	w = writer();
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		json_array_begin(w);
	CHECK(!w->error);
	json_array_begin(w);		/* one level too deep */
	CHECK(w->error);
	CHECK_EQ(strlen(out), JSON_MAX_DEPTH);
}

static int parse(const char *s, struct json_field *f, unsigned max, const char **why)
{
	size_t n = strlen(s);
	char *copy = malloc(n ? n : 1);	/* exactly n bytes: ASan sees a read past the end */
	int r;

	memcpy(copy, s, n);
	*why = NULL;
	r = json_parse_flat(copy, n, f, max, why);
	free(copy);
	return r;
}

HTEST(json_parse_flat_values)
{
	struct json_field f[8];
	const struct json_field *x;
	const char *why;
	int n = parse(" { \"req\" : \"alloc\",\"order\":10, \"neg\":-42,\"zero\":-0,"
		      "\"t\":true,\"f\":false,\"n\":null,\"e\":\"a\\\"\\\\\\/\\n\\u0041\"}\r\n",
		      f, 8, &why);

	CHECK_EQ(n, 8);
	CHECK(why == NULL);
	x = json_field_find(f, n, "req");
	CHECK(x && x->kind == JSON_STRING && !strcmp(x->str, "alloc"));
	x = json_field_find(f, n, "order");
	CHECK(x && x->kind == JSON_INT && !x->negative && x->mag == 10);
	x = json_field_find(f, n, "neg");
	CHECK(x && x->kind == JSON_INT && x->negative && x->mag == 42);
	x = json_field_find(f, n, "zero");
	CHECK(x && x->kind == JSON_INT && !x->negative && x->mag == 0);
	x = json_field_find(f, n, "t");
	CHECK(x && x->kind == JSON_BOOL && x->b);
	x = json_field_find(f, n, "f");
	CHECK(x && x->kind == JSON_BOOL && !x->b);
	x = json_field_find(f, n, "n");
	CHECK(x && x->kind == JSON_NULL);
	x = json_field_find(f, n, "e");
	CHECK(x && !strcmp(x->str, "a\"\\/\nA"));
	CHECK(json_field_find(f, n, "missing") == NULL);
	CHECK_EQ(parse("{}", f, 8, &why), 0);
	CHECK_EQ(parse("{\"big\":18446744073709551615}", f, 8, &why), 1);
	CHECK(f[0].mag == ~0ULL);
}

HTEST(json_parse_flat_refusals)
{
	static const struct { const char *in, *why; } cases[] = {
		{ "", "expected '{'" },
		{ "[1]", "expected '{'" },
		{ "{", "expected a key" },
		{ "{\"a\"", "expected ':'" },
		{ "{\"a\":", "expected a value" },
		{ "{\"a\":1", "expected ',' or '}'" },
		{ "{\"a\":1,}", "expected a key" },
		{ "{\"a\":1 \"b\":2}", "expected ',' or '}'" },
		{ "{a:1}", "expected a key" },
		{ "{\"a\":{}}", "nested values are not supported" },
		{ "{\"a\":[1]}", "nested values are not supported" },
		{ "{\"a\":1.5}", "numbers must be integers" },
		{ "{\"a\":1e3}", "numbers must be integers" },
		{ "{\"a\":01}", "leading zero in a number" },
		{ "{\"a\":-}", "bad number" },
		{ "{\"a\":18446744073709551616}", "number out of range" },
		{ "{\"a\":tru}", "expected a value" },
		{ "{\"a\":\"x}", "unterminated string" },
		{ "{\"a\":\"x\\", "unterminated string" },
		{ "{\"a\":\"\\q\"}", "bad escape" },
		{ "{\"a\":\"\\u00\"}", "bad \\u escape" },
		{ "{\"a\":\"\\u00e9\"}", "\\u escape outside ASCII" },
		{ "{\"a\":\"\\u0000\"}", "\\u escape outside ASCII" },
		{ "{\"a\":\"\x01\"}", "control character in a string" },
		{ "{\"a\":1,\"a\":2}", "duplicate key" },
		{ "{\"a\":1} x", "bytes after the object" },
		{ "{\"a\":1}{}", "bytes after the object" },
		{ "{\"aaaaaaaaaaaaaaaaaaaaaaaaa\":1}", "key too long" },
		{ "{\"a\":\"0123456789012345678901234567890123456789012345678\"}", "string too long" },
	};
	struct json_field f[4];
	const char *why;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = parse(cases[i].in, f, 4, &why);

		if (n != -1 || !why || strcmp(why, cases[i].why)) {
			htest_failures++;
			fprintf(stderr, "  %s: got %d \"%s\", expected -1 \"%s\"\n", cases[i].in, n,
				why ? why : "(null)", cases[i].why);
		}
	}
	CHECK_EQ(parse("{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5}", f, 4, &why), -1);
	CHECK_STREQ(why, "too many fields");
}

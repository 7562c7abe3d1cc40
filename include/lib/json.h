/*
 * json.h - a small JSON writer over a struct printer, and a reader of one
 * flat JSON object (the view channel's requests).
 *
 * The writer keeps, per nesting level, whether a comma is due, so callers
 * only say what comes next: json_object_begin(), json_key(), a value, ...
 * Strings are escaped as RFC 8259 asks: '"', '\\' and every byte below
 * 0x20 (\n, \r, \t, \b, \f by name, the others as \u00XX); bytes from 0x80
 * up pass through unchanged (memlab's strings are ASCII).  Numbers are
 * integers in decimal.  Misuse (more than JSON_MAX_DEPTH levels, an end
 * without a begin, a key outside an object) sets `error` and writes
 * nothing more, so a bug shows as one flag instead of broken output.
 *
 * The reader takes one object whose values are strings, integers, true,
 * false or null (no nesting, no fractions, no exponents) and fills an array
 * of fields.  It never reads outside [s, s + len), needs no NUL, and
 * rejects duplicate keys, trailing bytes other than white space, keys and
 * strings longer than its buffers, and integers beyond 64 bits.
 *
 * Context: (any); no allocation, no global state.
 */
#ifndef LIB_JSON_H
#define LIB_JSON_H

#include <lib/types.h>
#include <lib/printer.h>

#define JSON_MAX_DEPTH	8

struct json_writer {
	struct printer *out;		/* where the text goes */
	unsigned depth;			/* open objects and arrays */
	bool comma[JSON_MAX_DEPTH + 1];	/* a value was written at this level */
	bool in_object[JSON_MAX_DEPTH + 1]; /* this level is an object */
	bool after_key;			/* a key was written, its value is due */
	bool error;			/* misuse seen: nothing more is written */
};

/* json_writer_init() - start writing values to out.  Context: (any). */
void json_writer_init(struct json_writer *w, struct printer *out);

/*
 * json_object_begin() / json_object_end() / json_array_begin() /
 * json_array_end() - open or close a container at the current place (after
 * a key inside an object, or as an element of an array, or at the top).
 * Context: (any).
 */
void json_object_begin(struct json_writer *w);
void json_object_end(struct json_writer *w);
void json_array_begin(struct json_writer *w);
void json_array_end(struct json_writer *w);

/* json_key() - the key of the next member of the open object.  Context: (any). */
void json_key(struct json_writer *w, const char *key);

/*
 * json_string() / json_u64() / json_i64() / json_bool() / json_null() - one
 * value (json_string(NULL) writes null).  The json_kv_*() forms write a
 * key and its value.  Context: (any).
 */
void json_string(struct json_writer *w, const char *s);
void json_u64(struct json_writer *w, u64 v);
void json_i64(struct json_writer *w, s64 v);
void json_bool(struct json_writer *w, bool v);
void json_null(struct json_writer *w);
void json_kv_string(struct json_writer *w, const char *key, const char *s);
void json_kv_u64(struct json_writer *w, const char *key, u64 v);
void json_kv_i64(struct json_writer *w, const char *key, s64 v);
void json_kv_bool(struct json_writer *w, const char *key, bool v);

/* ---- the flat-object reader ---------------------------------------------- */

#define JSON_KEY_MAX	24	/* bytes of a key, with its NUL */
#define JSON_STR_MAX	48	/* bytes of a string value, with its NUL */

enum json_kind { JSON_STRING, JSON_INT, JSON_BOOL, JSON_NULL };

struct json_field {
	char key[JSON_KEY_MAX];
	enum json_kind kind;
	char str[JSON_STR_MAX];		/* JSON_STRING: the unescaped text */
	bool negative;			/* JSON_INT: sign ... */
	u64 mag;			/* ... and magnitude (-0 is 0) */
	bool b;				/* JSON_BOOL */
};

/*
 * json_parse_flat() - parse the object in [s, s + len) into fields[0,
 * max).  Returns the number of fields (0 for "{}"), or -1 with a short
 * reason in *why (a string constant: "expected '{'", "nested values are
 * not supported", "duplicate key", ...).  \uXXXX escapes are accepted for
 * code points below 0x80 only.  Context: (any).
 */
int json_parse_flat(const char *s, size_t len, struct json_field *fields, unsigned max,
		    const char **why);

/* json_field_find() - the field named key among fields[0, n), or NULL.  Context: (any). */
const struct json_field *json_field_find(const struct json_field *fields, int n, const char *key);

#endif

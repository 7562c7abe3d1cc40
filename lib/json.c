/*
 * json.c - the JSON writer over a printer and the flat-object reader
 * (include/lib/json.h).  The view channel writes every message with the
 * writer and reads every request with the reader.
 *
 * Context: (any).
 */
#include <lib/json.h>
#include <lib/string.h>

void json_writer_init(struct json_writer *w, struct printer *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

/*
 * Before a value or a container: the comma if one is due at this level.
 * Returns false (and sets error) when a value is not allowed here: inside
 * an object without its key.
 */
static bool value_start(struct json_writer *w)
{
	if (w->error)
		return false;
	if (w->in_object[w->depth]) {
		if (!w->after_key) {
			w->error = true;
			return false;
		}
		w->after_key = false;
		return true;
	}
	if (w->comma[w->depth])
		w->out->write(w->out, ",", 1);
	w->comma[w->depth] = true;
	return true;
}

static void container_begin(struct json_writer *w, bool object)
{
	if (!value_start(w))
		return;
	if (w->depth == JSON_MAX_DEPTH) {
		w->error = true;
		return;
	}
	w->out->write(w->out, object ? "{" : "[", 1);
	w->depth++;
	w->comma[w->depth] = false;
	w->in_object[w->depth] = object;
}

static void container_end(struct json_writer *w, bool object)
{
	if (w->error)
		return;
	if (!w->depth || w->in_object[w->depth] != object || w->after_key) {
		w->error = true;
		return;
	}
	w->depth--;
	w->out->write(w->out, object ? "}" : "]", 1);
}

void json_object_begin(struct json_writer *w) { container_begin(w, true); }
void json_object_end(struct json_writer *w) { container_end(w, true); }
void json_array_begin(struct json_writer *w) { container_begin(w, false); }
void json_array_end(struct json_writer *w) { container_end(w, false); }

/* The escaped text of s between quotes. */
static void write_quoted(struct printer *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	out->write(out, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[6] = { '\\', 0 };
		size_t n = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		out->write(out, run, (size_t)(s - run));
		run = s + 1;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		default:
			esc[1] = 'u'; esc[2] = '0'; esc[3] = '0';
			esc[4] = hex[c >> 4]; esc[5] = hex[c & 15];
			n = 6;
		}
		out->write(out, esc, n);
	}
	out->write(out, run, (size_t)(s - run));
	out->write(out, "\"", 1);
}

void json_key(struct json_writer *w, const char *key)
{
	if (w->error)
		return;
	if (!w->in_object[w->depth] || w->after_key) {
		w->error = true;
		return;
	}
	if (w->comma[w->depth])
		w->out->write(w->out, ",", 1);
	w->comma[w->depth] = true;
	write_quoted(w->out, key);
	w->out->write(w->out, ":", 1);
	w->after_key = true;
}

void json_string(struct json_writer *w, const char *s)
{
	if (!s) {
		json_null(w);
		return;
	}
	if (value_start(w))
		write_quoted(w->out, s);
}

/* The decimal digits of v, with a '-' first if negative. */
static void write_number(struct printer *out, bool negative, u64 v)
{
	char buf[24];
	size_t i = sizeof(buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (negative)
		buf[--i] = '-';
	out->write(out, buf + i, sizeof(buf) - i);
}

void json_u64(struct json_writer *w, u64 v)
{
	if (value_start(w))
		write_number(w->out, false, v);
}

void json_i64(struct json_writer *w, s64 v)
{
	if (value_start(w))
		write_number(w->out, v < 0, v < 0 ? 0 - (u64)v : (u64)v);
}

void json_bool(struct json_writer *w, bool v)
{
	if (value_start(w))
		w->out->write(w->out, v ? "true" : "false", v ? 4 : 5);
}

void json_null(struct json_writer *w)
{
	if (value_start(w))
		w->out->write(w->out, "null", 4);
}

void json_kv_string(struct json_writer *w, const char *key, const char *s)
{
	json_key(w, key);
	json_string(w, s);
}

void json_kv_u64(struct json_writer *w, const char *key, u64 v)
{
	json_key(w, key);
	json_u64(w, v);
}

void json_kv_i64(struct json_writer *w, const char *key, s64 v)
{
	json_key(w, key);
	json_i64(w, v);
}

void json_kv_bool(struct json_writer *w, const char *key, bool v)
{
	json_key(w, key);
	json_bool(w, v);
}

/* ---- the reader ----------------------------------------------------------- */

struct cursor {
	const char *s, *end;
	const char *why;
};

static void skip_space(struct cursor *c)
{
	while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r'))
		c->s++;
}

static bool fail(struct cursor *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return false;
}

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* A string at c->s (the opening quote), unescaped into buf[0, size). */
static bool read_string(struct cursor *c, char *buf, size_t size, const char *too_long)
{
	size_t n = 0;

	if (c->s >= c->end || *c->s != '"')
		return fail(c, "expected a string");
	c->s++;
	for (;;) {
		char ch;

		if (c->s >= c->end)
			return fail(c, "unterminated string");
		ch = *c->s++;
		if (ch == '"')
			break;
		if ((unsigned char)ch < 0x20)
			return fail(c, "control character in a string");
		if (ch == '\\') {
			if (c->s >= c->end)
				return fail(c, "unterminated string");
			ch = *c->s++;
			switch (ch) {
			case '"': case '\\': case '/': break;
			case 'n': ch = '\n'; break;
			case 'r': ch = '\r'; break;
			case 't': ch = '\t'; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'u': {
				unsigned cp = 0;

				if (c->end - c->s < 4)
					return fail(c, "bad \\u escape");
				for (int i = 0; i < 4; i++) {
					int d = hex_digit(c->s[i]);

					if (d < 0)
						return fail(c, "bad \\u escape");
					cp = cp * 16 + (unsigned)d;
				}
				c->s += 4;
				if (cp == 0 || cp >= 0x80)
					return fail(c, "\\u escape outside ASCII");
				ch = (char)cp;
				break;
			}
			default:
				return fail(c, "bad escape");
			}
		}
		if (n + 1 >= size)
			return fail(c, too_long);
		buf[n++] = ch;
	}
	buf[n] = '\0';
	return true;
}

static bool match_word(struct cursor *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->s) < n || memcmp(c->s, word, n))
		return false;
	c->s += n;
	return true;
}

/* A value at c->s into f. */
static bool read_value(struct cursor *c, struct json_field *f)
{
	char ch;

	if (c->s >= c->end)
		return fail(c, "expected a value");
	ch = *c->s;
	if (ch == '"') {
		f->kind = JSON_STRING;
		return read_string(c, f->str, sizeof(f->str), "string too long");
	}
	if (ch == '{' || ch == '[')
		return fail(c, "nested values are not supported");
	if (match_word(c, "true")) {
		f->kind = JSON_BOOL;
		f->b = true;
		return true;
	}
	if (match_word(c, "false")) {
		f->kind = JSON_BOOL;
		return true;
	}
	if (match_word(c, "null")) {
		f->kind = JSON_NULL;
		return true;
	}
	if (ch == '-' || (ch >= '0' && ch <= '9')) {
		u64 v = 0;
		const char *digits;

		f->kind = JSON_INT;
		f->negative = ch == '-';
		if (f->negative)
			c->s++;
		digits = c->s;
		while (c->s < c->end && *c->s >= '0' && *c->s <= '9') {
			unsigned d = (unsigned)(*c->s - '0');

			if (v > (~0ULL - d) / 10)
				return fail(c, "number out of range");
			v = v * 10 + d;
			c->s++;
		}
		if (c->s == digits)
			return fail(c, "bad number");
		if (c->s - digits > 1 && *digits == '0')
			return fail(c, "leading zero in a number");
		if (c->s < c->end && (*c->s == '.' || *c->s == 'e' || *c->s == 'E'))
			return fail(c, "numbers must be integers");
		f->mag = v;
		if (!v)
			f->negative = false;
		return true;
	}
	return fail(c, "expected a value");
}

int json_parse_flat(const char *s, size_t len, struct json_field *fields, unsigned max,
		    const char **why)
{
	struct cursor c = { .s = s, .end = s + len };
	int n = 0;

	skip_space(&c);
	if (c.s >= c.end || *c.s != '{') {
		*why = "expected '{'";
		return -1;
	}
	c.s++;
	skip_space(&c);
	if (c.s < c.end && *c.s == '}') {
		c.s++;
		goto done;
	}
	for (;;) {
		struct json_field f;

		memset(&f, 0, sizeof(f));
		skip_space(&c);
		if (c.s >= c.end || *c.s != '"') {
			fail(&c, "expected a key");
			break;
		}
		if (!read_string(&c, f.key, sizeof(f.key), "key too long"))
			break;
		skip_space(&c);
		if (c.s >= c.end || *c.s != ':') {
			fail(&c, "expected ':'");
			break;
		}
		c.s++;
		skip_space(&c);
		if (!read_value(&c, &f))
			break;
		if (json_field_find(fields, n, f.key)) {
			fail(&c, "duplicate key");
			break;
		}
		if ((unsigned)n >= max) {
			fail(&c, "too many fields");
			break;
		}
		fields[n++] = f;
		skip_space(&c);
		if (c.s < c.end && *c.s == ',') {
			c.s++;
			continue;
		}
		if (c.s < c.end && *c.s == '}') {
			c.s++;
			goto done;
		}
		fail(&c, "expected ',' or '}'");
		break;
	}
	*why = c.why;
	return -1;
done:
	skip_space(&c);
	if (c.s != c.end) {
		*why = "bytes after the object";
		return -1;
	}
	return n;
}

const struct json_field *json_field_find(const struct json_field *fields, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(fields[i].key, key))
			return &fields[i];
	return NULL;
}

/*
 * aml_convert.c - the data conversions of ACPI 6.5 19.3.5: the implicit
 * ones operators apply to their operands (a String read as hex digits, a
 * Buffer's first 8 bytes as an Integer, ...) and the explicit ToInteger,
 * ToBuffer, ToString, ToHexString, ToDecimalString, plus the operators that
 * build strings and buffers: Concatenate, ConcatenateResTemplate, Mid.
 * Each returns a new object; none modifies its operand.
 */
#include "aml_internal.h"
#include <lib/printer.h>

static unsigned int_bytes(const struct aml_ns *ns)
{
	return ns->int32 ? 4 : 8;
}

/* Parse s[0..len) as an integer: hex digits (implicit conversion, or a
 * "0x" prefix), else decimal; stops at the first other character. */
static u64 parse_digits(const u8 *s, u32 len, bool hex)
{
	u64 v = 0;
	u32 i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		hex = true;
		i += 2;
	}
	for (; i < len; i++) {
		u8 ch = s[i];
		unsigned d;
		if (ch >= '0' && ch <= '9')
			d = ch - '0';
		else if (hex && ch >= 'a' && ch <= 'f')
			d = ch - 'a' + 10;
		else if (hex && ch >= 'A' && ch <= 'F')
			d = ch - 'A' + 10;
		else
			break;
		v = hex ? v << 4 | d : v * 10 + d;
	}
	return v;
}

/*
 * aml_to_integer_any() - o as an Integer: itself, a String's hex digits, a
 * Buffer's first 8 (4 for 32-bit tables) bytes little endian.  AML_ETYPE for
 * any other type or no value, with at as the place.
 */
int aml_to_integer_any(struct aml_ctx *c, const struct aml_obj *o, u64 *v, const u8 *at)
{
	if (!o)
		return aml_fail(c, at, AML_ETYPE, "operand has no value");
	switch (o->type) {
	case AML_INTEGER:
		*v = o->integer;
		return AML_OK;
	case AML_STRING:
		*v = parse_digits(o->buf.data, o->buf.len, true) & aml_int_mask(c->ns);
		return AML_OK;
	case AML_BUFFER: {
		u64 x = 0;
		for (u32 i = 0; i < o->buf.len && i < int_bytes(c->ns); i++)
			x |= (u64)o->buf.data[i] << (8 * i);
		*v = x;
		return AML_OK;
	}
	}
	return aml_fail(c, at, AML_ETYPE, "object of type %u used as an Integer", o->type);
}

static int nomem(struct aml_ctx *c, const u8 *at)
{
	return aml_fail(c, at, AML_ENOMEM, "out of arena");
}

/* aml_to_buffer() - o as a Buffer: an Integer's 8 (4) bytes, a String's
 * bytes and its NUL (an empty String: an empty Buffer), a Buffer itself. */
int aml_to_buffer(struct aml_ctx *c, struct aml_obj *o, struct aml_obj **out, const u8 *at)
{
	struct aml_ns *ns = c->ns;

	if (!o)
		return aml_fail(c, at, AML_ETYPE, "operand has no value");
	if (o->type == AML_BUFFER) {
		*out = aml_get(o);
		return AML_OK;
	}
	if (o->type == AML_INTEGER) {
		u8 b[8];
		for (unsigned i = 0; i < 8; i++)
			b[i] = (u8)(o->integer >> (8 * i));
		*out = aml_new_buffer(ns, AML_BUFFER, b, int_bytes(ns));
	} else if (o->type == AML_STRING) {
		*out = aml_new_buffer(ns, AML_BUFFER, o->buf.data, o->buf.len ? o->buf.len + 1 : 0);
	} else {
		return aml_fail(c, at, AML_ETYPE, "object of type %u used as a Buffer", o->type);
	}
	return *out ? AML_OK : nomem(c, at);
}

/* Render an Integer or Buffer as text: hex (Integer: 16 or 8 digits;
 * Buffer: "0x01,0x02" or implicit "01 02") or decimal. */
static struct aml_obj *render(struct aml_ns *ns, const struct aml_obj *o, bool hex, bool implicit)
{
	if (o->type == AML_INTEGER) {
		char s[24];
		if (hex && implicit)
			ksnprintf(s, sizeof(s), ns->int32 ? "%08llX" : "%016llX",
				  (unsigned long long)o->integer);
		else if (hex)
			ksnprintf(s, sizeof(s), "0x%llX", (unsigned long long)o->integer);
		else
			ksnprintf(s, sizeof(s), "%llu", (unsigned long long)o->integer);
		return aml_new_string(ns, s);
	}
	u32 per = hex ? (implicit ? 3 : 5) : 4;
	struct aml_obj *s = aml_new_buffer(ns, AML_STRING, NULL, o->buf.len * per);
	if (!s)
		return NULL;
	u32 len = 0;
	for (u32 i = 0; i < o->buf.len; i++) {
		char piece[8];
		int n;
		if (hex && implicit)
			n = ksnprintf(piece, sizeof(piece), "%s%02X", i ? " " : "", o->buf.data[i]);
		else if (hex)
			n = ksnprintf(piece, sizeof(piece), "%s0x%02X", i ? "," : "", o->buf.data[i]);
		else
			n = ksnprintf(piece, sizeof(piece), "%s%u", i ? "," : "", o->buf.data[i]);
		memcpy(s->buf.data + len, piece, (size_t)n);
		len += (u32)n;
	}
	s->buf.len = len;
	s->buf.data[len] = 0;
	return s;
}

/* aml_to_string() - o as a String for an operator (implicit conversion):
 * an Integer in hex digits, a Buffer as "01 02 ..", a String itself. */
int aml_to_string(struct aml_ctx *c, struct aml_obj *o, struct aml_obj **out, const u8 *at)
{
	if (!o)
		return aml_fail(c, at, AML_ETYPE, "operand has no value");
	if (o->type == AML_STRING) {
		*out = aml_get(o);
		return AML_OK;
	}
	if (o->type != AML_INTEGER && o->type != AML_BUFFER)
		return aml_fail(c, at, AML_ETYPE, "object of type %u used as a String", o->type);
	*out = render(c->ns, o, true, true);
	return *out ? AML_OK : nomem(c, at);
}

/*
 * aml_convert_op() - ToInteger (0x99), ToBuffer (0x96), ToHexString (0x98),
 * ToDecimalString (0x97), ToString (0x9c, with its length limit `maxlen`)
 * of o.
 */
int aml_convert_op(struct aml_ctx *c, u16 op, struct aml_obj *o, u64 maxlen,
		   struct aml_obj **out, const u8 *at)
{
	struct aml_ns *ns = c->ns;
	u64 v;
	int r;

	if (!o)
		return aml_fail(c, at, AML_ETYPE, "operand has no value");
	switch (op) {
	case 0x99:
		if (o->type == AML_STRING)
			v = parse_digits(o->buf.data, o->buf.len, false) & aml_int_mask(ns);
		else if ((r = aml_to_integer(c, o, &v, at)))
			return r;
		*out = aml_new_integer(ns, v);
		break;
	case 0x96:
		return aml_to_buffer(c, o, out, at);
	case 0x97:
	case 0x98:
		if (o->type == AML_STRING) {
			*out = aml_get(o);
			return AML_OK;
		}
		if (o->type != AML_INTEGER && o->type != AML_BUFFER)
			return aml_fail(c, at, AML_ETYPE, "cannot convert type %u to a String", o->type);
		*out = render(ns, o, op == 0x98, false);
		break;
	default: {	/* ToString (Buffer, Length) */
		if (o->type != AML_BUFFER)
			return aml_fail(c, at, AML_ETYPE, "ToString of a non-Buffer");
		u32 n = 0;
		while (n < o->buf.len && n < maxlen && o->buf.data[n])
			n++;
		*out = aml_new_buffer(ns, AML_STRING, o->buf.data, n);
		break;
	}
	}
	return *out ? AML_OK : nomem(c, at);
}

/* Concatenate (a, b): the result has a's type (an Integer makes a Buffer
 * of both integers), b converted to it. */
int aml_concat(struct aml_ctx *c, struct aml_obj *a, struct aml_obj *b, struct aml_obj **out,
	       const u8 *at)
{
	struct aml_ns *ns = c->ns;
	struct aml_obj *x = NULL, *y = NULL;
	int r;

	if (!a || !b)
		return aml_fail(c, at, AML_ETYPE, "Concatenate of no value");
	if (a->type == AML_STRING) {
		x = aml_get(a);
		r = aml_to_string(c, b, &y, at);
	} else if (a->type == AML_INTEGER || a->type == AML_BUFFER) {
		r = aml_to_buffer(c, a, &x, at);
		if (!r) {
			if (b->type == AML_STRING)
				y = aml_new_buffer(ns, AML_BUFFER, b->buf.data, b->buf.len);
			else if (b->type == AML_INTEGER && a->type == AML_INTEGER) {
				r = aml_to_buffer(c, b, &y, at);
			} else
				r = aml_to_buffer(c, b, &y, at);
			if (!r && !y)
				r = nomem(c, at);
		}
	} else {
		return aml_fail(c, at, AML_ETYPE, "Concatenate of type %u", a->type);
	}
	if (!r) {
		u32 la = x->buf.len, lb = y->buf.len;
		*out = aml_new_buffer(ns, x->type, NULL, la + lb);
		if (*out) {
			memcpy((*out)->buf.data, x->buf.data, la);
			memcpy((*out)->buf.data + la, y->buf.data, lb);
		} else {
			r = nomem(c, at);
		}
	}
	aml_put(ns, x);
	aml_put(ns, y);
	return r;
}

/* The length of a resource template without its End Tag (0x79 and the
 * checksum byte), found by walking the descriptors. */
static u32 res_body_len(const struct aml_obj *b)
{
	u32 i = 0;

	while (i < b->buf.len) {
		u8 t = b->buf.data[i];
		if (t == 0x79)
			return i;
		if (t & 0x80) {
			if (i + 3 > b->buf.len)
				break;
			i += 3 + (b->buf.data[i + 1] | (u32)b->buf.data[i + 2] << 8);
		} else {
			i += 1 + (t & 7);
		}
	}
	return b->buf.len < i ? b->buf.len : i;
}

/* ConcatenateResTemplate (a, b): both buffers without their End Tags, then
 * one End Tag with checksum 0. */
int aml_concat_res(struct aml_ctx *c, struct aml_obj *a, struct aml_obj *b, struct aml_obj **out,
		   const u8 *at)
{
	if (!a || !b || a->type != AML_BUFFER || b->type != AML_BUFFER)
		return aml_fail(c, at, AML_ETYPE, "ConcatenateResTemplate of a non-Buffer");
	u32 la = res_body_len(a), lb = res_body_len(b);
	*out = aml_new_buffer(c->ns, AML_BUFFER, NULL, la + lb + 2);
	if (!*out)
		return nomem(c, at);
	memcpy((*out)->buf.data, a->buf.data, la);
	memcpy((*out)->buf.data + la, b->buf.data, lb);
	(*out)->buf.data[la + lb] = 0x79;
	return AML_OK;
}

/* Mid (src, index, length): the part of a String or Buffer, clipped. */
int aml_mid(struct aml_ctx *c, struct aml_obj *src, u64 idx, u64 len, struct aml_obj **out,
	    const u8 *at)
{
	if (!src || (src->type != AML_STRING && src->type != AML_BUFFER))
		return aml_fail(c, at, AML_ETYPE, "Mid of a non-String, non-Buffer");
	if (idx > src->buf.len)
		idx = src->buf.len;
	if (len > src->buf.len - idx)
		len = src->buf.len - idx;
	*out = aml_new_buffer(c->ns, src->type, src->buf.data + idx, (u32)len);
	return *out ? AML_OK : nomem(c, at);
}

/*
 * aml_region.c - OperationRegions and their fields (ACPI 6.5 19.6.46,
 * 19.6.48, 19.6.64, 19.6.7): Field, IndexField and BankField definitions,
 * and reading and writing a field unit through the platform in access-width
 * units, with the Lock rule and the update rules (Preserve, WriteAsOnes,
 * WriteAsZeros).  Buffer fields (CreateField) share the bit copying.
 *
 * Spaces: SystemMemory, SystemIO, PCI_Config (bus from the _BBN and
 * segment from the _SEG found up the tree, device and function from the
 * region's device _ADR).  Other spaces fail with a reason.
 */
#include "aml_internal.h"

/* Field flags, ACPI 6.5 20.2.5.2 */
#define ACC_TYPE(f)	((f) & 0x0f)
#define FLAG_LOCK	0x10
#define UPDATE(f)	(((f) >> 5) & 3)

/* The access unit of a field, in bytes. */
static unsigned access_bytes(const struct aml_obj *f)
{
	switch (ACC_TYPE(f->field.flags)) {
	case 2: return 2;
	case 3: return 4;
	case 4: return 8;
	case 0: {	/* AnyAcc: the smallest aligned unit holding the field */
		for (unsigned w = 1; w <= 4; w <<= 1) {
			u64 unit = w * 8;
			if (f->field.bit_off / unit == (f->field.bit_off + f->field.bit_len - 1) / unit)
				return w;
		}
		return 1;
	}
	default: return 1;
	}
}

/* Evaluate name under dev and each of its parents (first found), as an
 * Integer; *v keeps dflt when none has it. */
static int up_int(struct aml_ctx *c, struct aml_node *dev, u32 name, u64 dflt, u64 *v,
		  const u8 *at, bool climb)
{
	*v = dflt;
	for (struct aml_node *d = dev; d; d = climb ? d->parent : NULL) {
		struct aml_node *n = aml_node_child(d, name);
		if (!n || !n->obj)
			continue;
		struct aml_obj *o = NULL;
		int r;
		if (n->obj->type == AML_METHOD)
			r = aml_call(c, n, NULL, 0, &o);
		else
			o = aml_get(n->obj), r = AML_OK;
		if (!r)
			r = aml_to_integer(c, o, v, at);
		aml_put(c->ns, o);
		return r;
	}
	return AML_OK;
}

/* One access of w bytes at byte offset off of region rg. */
static int region_access(struct aml_ctx *c, struct aml_obj *rg, u64 off, unsigned w, u64 *val,
			 bool write, const u8 *at)
{
	struct aml_platform *pl = &c->ns->plat;
	u64 addr = rg->region.base + off;
	int r = -1;

	if (off + w > rg->region.len)
		return aml_fail(c, at, AML_EIO, "access of %u bytes at 0x%llx past the region (0x%llx bytes)",
				w, (unsigned long long)off, (unsigned long long)rg->region.len);
	u64 t0 = pl->io_clock_ns ? pl->io_clock_ns(pl->ctx) : 0;
	switch (rg->region.space) {
	case AML_SPACE_MEMORY:
		if (write ? !pl->mem_write : !pl->mem_read)
			break;
		r = write ? pl->mem_write(pl->ctx, addr, w, *val) : pl->mem_read(pl->ctx, addr, w, val);
		break;
	case AML_SPACE_IO:
		if (w > 4 || addr > 0xffff || (write ? !pl->io_write : !pl->io_read))
			break;
		r = write ? pl->io_write(pl->ctx, (u32)addr, w, *val) : pl->io_read(pl->ctx, (u32)addr, w, val);
		break;
	case AML_SPACE_PCI: {
		u64 adr, bbn, seg;
		struct aml_node *dev = rg->region.node ? rg->region.node->parent : NULL;
		if (w > 4 || addr > 0xfff || (write ? !pl->pci_write : !pl->pci_read))
			break;
		if ((r = up_int(c, dev, NAME4('_', 'A', 'D', 'R'), 0, &adr, at, false)) ||
		    (r = up_int(c, dev, NAME4('_', 'B', 'B', 'N'), 0, &bbn, at, true)) ||
		    (r = up_int(c, dev, NAME4('_', 'S', 'E', 'G'), 0, &seg, at, true)))
			return r;
		if (pl->io_clock_ns)	/* the _ADR/_BBN/_SEG evaluations are not the access */
			t0 = pl->io_clock_ns(pl->ctx);
		r = write ? pl->pci_write(pl->ctx, (u16)seg, (u8)bbn, (u8)(adr >> 16), (u8)adr, (u16)addr, w, *val)
			  : pl->pci_read(pl->ctx, (u16)seg, (u8)bbn, (u8)(adr >> 16), (u8)adr, (u16)addr, w, val);
		break;
	}
	default:
		return aml_fail(c, at, AML_EIO, "region space %u not supported", rg->region.space);
	}
	c->ns->stats.io_accesses++;
	if (pl->io_clock_ns)
		c->ns->stats.io_ns += pl->io_clock_ns(pl->ctx) - t0;
	if (r)
		return aml_fail(c, at, AML_EIO, "%s of %u bytes at 0x%llx in space %u refused",
				write ? "write" : "read", w, (unsigned long long)addr, rg->region.space);
	return AML_OK;
}

/* One unit of field f: for an IndexField, the index register is written
 * with the unit's byte offset and the data register carries the value;
 * for a BankField the bank register is set first. */
static int unit_access(struct aml_ctx *c, struct aml_obj *f, u64 off, unsigned w, u64 *val,
		       bool write, const u8 *at)
{
	int r;

	if (f->field.kind == AML_FIELD_INDEX) {
		struct aml_obj *iv = aml_new_integer(c->ns, off), *dv = NULL;
		if (!iv)
			return aml_fail(c, at, AML_ENOMEM, "out of arena");
		r = aml_field_write(c, f->field.index, iv, at);
		aml_put(c->ns, iv);
		if (r)
			return r;
		if (write) {
			dv = aml_new_integer(c->ns, *val);
			r = dv ? aml_field_write(c, f->field.data, dv, at) : AML_ENOMEM;
		} else {
			r = aml_field_read(c, f->field.data, &dv, at);
			if (!r)
				r = aml_to_integer(c, dv, val, at);
		}
		aml_put(c->ns, dv);
		return r;
	}
	if (f->field.kind == AML_FIELD_BANK) {
		struct aml_obj *bv = aml_new_integer(c->ns, f->field.bank_value);
		if (!bv)
			return aml_fail(c, at, AML_ENOMEM, "out of arena");
		r = aml_field_write(c, f->field.bank, bv, at);
		aml_put(c->ns, bv);
		if (r)
			return r;
	}
	return region_access(c, f->field.region, off, w, val, write, at);
}

/* Copy nbits bits from src at bit sbit to dst at bit dbit (byte arrays);
 * whole bytes at once when all three are byte multiples (the buffer
 * fields of CreateDWordField and the like). */
static void copy_bits(u8 *dst, u64 dbit, const u8 *src, u64 sbit, u64 nbits)
{
	if (!((dbit | sbit | nbits) & 7)) {
		memmove(dst + (dbit >> 3), src + (sbit >> 3), nbits >> 3);
		return;
	}
	for (u64 i = 0; i < nbits; i++) {
		u64 s = sbit + i, d = dbit + i;
		if (src[s >> 3] >> (s & 7) & 1)
			dst[d >> 3] |= (u8)(1u << (d & 7));
		else
			dst[d >> 3] &= (u8)~(1u << (d & 7));
	}
}

/* The result object for a field's bits: an Integer when they fit in one,
 * else a Buffer. */
static struct aml_obj *bits_object(struct aml_ns *ns, u32 bit_len)
{
	if (bit_len <= (ns->int32 ? 32u : 64u))
		return aml_new_integer(ns, 0);
	return aml_new_buffer(ns, AML_BUFFER, NULL, (bit_len + 7) / 8);
}

static void bits_store(struct aml_ns *ns, struct aml_obj *o, const u8 *bytes, u32 bit_len)
{
	if (o->type == AML_INTEGER) {
		u64 v = 0;
		for (u32 i = 0; i < (bit_len + 7) / 8; i++)
			v |= (u64)bytes[i] << (8 * i);
		o->integer = v & aml_int_mask(ns);
	} else {
		memcpy(o->buf.data, bytes, (bit_len + 7) / 8);
	}
}

static bool lock_field(struct aml_ctx *c, struct aml_obj *f)
{
	if (!(f->field.flags & FLAG_LOCK) || !c->ns->plat.global_lock)
		return false;
	return c->ns->plat.global_lock(c->ns->plat.ctx, true);
}

static void unlock_field(struct aml_ctx *c, bool held)
{
	if (held)
		c->ns->plat.global_lock(c->ns->plat.ctx, false);
}

/* The low n bits (n <= 64). */
static u64 low_bits(unsigned n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* A field read whose bits fit one Integer: each unit's share shifted into
 * place, no byte arrays.  Same units, same order as the general case.
 * The value is a shared Integer (aml_int_shared(): a bit reads as the
 * namespace's 0 or 1, nothing allocated). */
static int field_read_int(struct aml_ctx *c, struct aml_obj *f, struct aml_obj **out, const u8 *at)
{
	unsigned w = access_bytes(f);
	u64 unit_bits = w * 8, off = f->field.bit_off, end = off + f->field.bit_len;
	u64 acc = 0;
	int r = AML_OK;

	bool held = lock_field(c, f);
	for (u64 u = off / unit_bits; u <= (end - 1) / unit_bits && !r; u++) {
		u64 v = 0;
		u64 lo = MAX(u * unit_bits, off), hi = MIN((u + 1) * unit_bits, end);
		r = unit_access(c, f, u * w, w, &v, false, at);
		acc |= ((v >> (lo - u * unit_bits)) & low_bits((unsigned)(hi - lo))) << (lo - off);
	}
	unlock_field(c, held);
	if (r)
		return r;
	*out = aml_int_shared(c->ns, acc);
	return *out ? AML_OK : aml_fail(c, at, AML_ENOMEM, "out of arena");
}

/* aml_field_read() - read field unit f: each access unit it touches, its
 * bits gathered into an Integer or Buffer. */
int aml_field_read(struct aml_ctx *c, struct aml_obj *f, struct aml_obj **out, const u8 *at)
{
	if (f->field.bit_len <= (c->ns->int32 ? 32u : 64u))
		return field_read_int(c, f, out, at);
	unsigned w = access_bytes(f);
	u64 unit_bits = w * 8;
	u64 first = f->field.bit_off / unit_bits, last = (f->field.bit_off + f->field.bit_len - 1) / unit_bits;
	struct aml_obj *o = bits_object(c->ns, f->field.bit_len);
	u8 *bytes = aml_alloc(c->ns, (f->field.bit_len + 7) / 8 + 8);
	int r = AML_OK;

	if (!o || !bytes) {
		aml_put(c->ns, o);
		aml_free(c->ns, bytes);
		return aml_fail(c, at, AML_ENOMEM, "out of arena");
	}
	bool held = lock_field(c, f);
	for (u64 u = first; u <= last && !r; u++) {
		u64 v = 0;
		u8 raw[8];
		r = unit_access(c, f, u * w, w, &v, false, at);
		for (unsigned i = 0; i < 8; i++)
			raw[i] = (u8)(v >> (8 * i));
		u64 lo = MAX(u * unit_bits, f->field.bit_off);
		u64 hi = MIN((u + 1) * unit_bits, f->field.bit_off + f->field.bit_len);
		if (!r)
			copy_bits(bytes, lo - f->field.bit_off, raw, lo - u * unit_bits, hi - lo);
	}
	unlock_field(c, held);
	if (!r)
		bits_store(c->ns, o, bytes, f->field.bit_len);
	aml_free(c->ns, bytes);
	if (r) {
		aml_put(c->ns, o);
		return r;
	}
	*out = o;
	return AML_OK;
}

/* v's bytes for a write of nbytes (an Integer little endian, a Buffer or
 * String as is, zero-padded). */
static u8 *value_bytes(struct aml_ctx *c, struct aml_obj *v, u32 nbytes, const u8 *at, int *r)
{
	u8 *b = aml_alloc(c->ns, (size_t)nbytes + 8);

	*r = AML_OK;
	if (!b) {
		*r = aml_fail(c, at, AML_ENOMEM, "out of arena");
		return NULL;
	}
	if (v->type == AML_INTEGER) {
		for (u32 i = 0; i < 8 && i < nbytes; i++)
			b[i] = (u8)(v->integer >> (8 * i));
	} else if (v->type == AML_BUFFER || v->type == AML_STRING) {
		memcpy(b, v->buf.data, MIN(nbytes, v->buf.len));
	} else {
		aml_free(c->ns, b);
		*r = aml_fail(c, at, AML_ETYPE, "write of type %u to a field", v->type);
		return NULL;
	}
	return b;
}

/* A field write of an Integer into at most 64 bits: the general case's
 * units and update rules, with the value's bits shifted into each unit. */
static int field_write_int(struct aml_ctx *c, struct aml_obj *f, u64 val, const u8 *at)
{
	unsigned w = access_bytes(f);
	u64 unit_bits = w * 8, off = f->field.bit_off, end = off + f->field.bit_len;
	int r = AML_OK;

	bool held = lock_field(c, f);
	for (u64 u = off / unit_bits; u <= (end - 1) / unit_bits && !r; u++) {
		u64 lo = MAX(u * unit_bits, off), hi = MIN((u + 1) * unit_bits, end);
		unsigned sh = (unsigned)(lo - u * unit_bits);
		u64 m = low_bits((unsigned)(hi - lo));
		u64 old = 0;
		if (hi - lo != unit_bits) {
			if (UPDATE(f->field.flags) == 0)
				r = unit_access(c, f, u * w, w, &old, false, at);
			else if (UPDATE(f->field.flags) == 1)
				old = ~0ull;
		}
		u64 nv = ((old & ~(m << sh)) | (((val >> (lo - off)) & m) << sh)) & low_bits(8 * w);
		if (!r)
			r = unit_access(c, f, u * w, w, &nv, true, at);
	}
	unlock_field(c, held);
	return r;
}

/* aml_field_write() - write v into field unit f: whole units written, the
 * bits of a unit outside the field kept (Preserve: read first), set or
 * cleared as its update rule says. */
int aml_field_write(struct aml_ctx *c, struct aml_obj *f, struct aml_obj *v, const u8 *at)
{
	if (v->type == AML_INTEGER && f->field.bit_len <= 64)
		return field_write_int(c, f, v->integer, at);
	unsigned w = access_bytes(f);
	u64 unit_bits = w * 8;
	u64 first = f->field.bit_off / unit_bits, last = (f->field.bit_off + f->field.bit_len - 1) / unit_bits;
	int r;
	u8 *bytes = value_bytes(c, v, (f->field.bit_len + 7) / 8, at, &r);

	if (!bytes)
		return r;
	bool held = lock_field(c, f);
	for (u64 u = first; u <= last && !r; u++) {
		u64 lo = MAX(u * unit_bits, f->field.bit_off);
		u64 hi = MIN((u + 1) * unit_bits, f->field.bit_off + f->field.bit_len);
		u64 old = 0;
		bool whole = hi - lo == unit_bits;
		if (!whole) {
			if (UPDATE(f->field.flags) == 0)
				r = unit_access(c, f, u * w, w, &old, false, at);
			else if (UPDATE(f->field.flags) == 1)
				old = ~0ull;
		}
		u8 raw[8];
		for (unsigned i = 0; i < 8; i++)
			raw[i] = (u8)(old >> (8 * i));
		copy_bits(raw, lo - u * unit_bits, bytes, lo - f->field.bit_off, hi - lo);
		u64 nv = 0;
		for (unsigned i = 0; i < w; i++)
			nv |= (u64)raw[i] << (8 * i);
		if (!r)
			r = unit_access(c, f, u * w, w, &nv, true, at);
	}
	unlock_field(c, held);
	aml_free(c->ns, bytes);
	return r;
}

/* The bits [off, off + n) of bytes d as an Integer (n <= 64): whole
 * bytes at once where they are aligned. */
static u64 bits_get(const u8 *d, u64 off, u32 n)
{
	u64 v = 0;

	for (u32 i = 0; i < n;) {
		u64 b = off + i;
		if (!(b & 7) && n - i >= 8) {
			v |= (u64)d[b >> 3] << i;
			i += 8;
		} else {
			v |= (u64)(d[b >> 3] >> (b & 7) & 1) << i;
			i++;
		}
	}
	return v;
}

/* Set the bits [off, off + n) of bytes d to the low n bits of v (n <= 64). */
static void bits_put(u8 *d, u64 off, u32 n, u64 v)
{
	for (u32 i = 0; i < n;) {
		u64 b = off + i;
		if (!(b & 7) && n - i >= 8) {
			d[b >> 3] = (u8)(v >> i);
			i += 8;
		} else {
			if (v >> i & 1)
				d[b >> 3] |= (u8)(1u << (b & 7));
			else
				d[b >> 3] &= (u8)~(1u << (b & 7));
			i++;
		}
	}
}

/* aml_bfield_read()/aml_bfield_write() - a buffer field's bits.  A sized
 * field (Create*Field) that fits an Integer, and an Integer written into
 * one of at most 64 bits, go without a byte array (the same bits). */
int aml_bfield_read(struct aml_ctx *c, struct aml_obj *f, struct aml_obj **out, const u8 *at)
{
	if (!f->flags && f->bfield.bit_len <= (c->ns->int32 ? 32u : 64u)) {
		*out = aml_int_shared(c->ns, bits_get(f->bfield.buf->buf.data, f->bfield.bit_off,
						      f->bfield.bit_len));
		return *out ? AML_OK : aml_fail(c, at, AML_ENOMEM, "out of arena");
	}
	/* CreateField's fields read as a Buffer whatever their size (as
	 * ACPICA does); the sized Create*Field ones as Integers */
	struct aml_obj *o = f->flags ? aml_new_buffer(c->ns, AML_BUFFER, NULL, (f->bfield.bit_len + 7) / 8)
				     : bits_object(c->ns, f->bfield.bit_len);
	u8 *bytes = aml_alloc(c->ns, (f->bfield.bit_len + 7) / 8 + 8);

	if (!o || !bytes) {
		aml_put(c->ns, o);
		aml_free(c->ns, bytes);
		return aml_fail(c, at, AML_ENOMEM, "out of arena");
	}
	copy_bits(bytes, 0, f->bfield.buf->buf.data, f->bfield.bit_off, f->bfield.bit_len);
	bits_store(c->ns, o, bytes, f->bfield.bit_len);
	aml_free(c->ns, bytes);
	*out = o;
	return AML_OK;
}

int aml_bfield_write(struct aml_ctx *c, struct aml_obj *f, struct aml_obj *v, const u8 *at)
{
	int r;

	if (v->type == AML_INTEGER && f->bfield.bit_len <= 64) {
		bits_put(f->bfield.buf->buf.data, f->bfield.bit_off, f->bfield.bit_len, v->integer);
		return AML_OK;
	}
	u8 *bytes = value_bytes(c, v, (f->bfield.bit_len + 7) / 8, at, &r);

	if (!bytes)
		return r;
	copy_bits(f->bfield.buf->buf.data, f->bfield.bit_off, bytes, 0, f->bfield.bit_len);
	aml_free(c->ns, bytes);
	return AML_OK;
}

/* Resolve a name that must be a field unit or region. */
static int name_obj(struct aml_ctx *c, struct aml_state *st, const u8 *at, u8 type,
		    struct aml_obj **out)
{
	struct aml_node *ps, *n;
	u32 segs[AML_MAX_SEGS];
	unsigned nseg;
	bool search;

	if (aml_name_parse(&st->p, st->end, st->scope, &ps, segs, &nseg, &search))
		return aml_fail(c, at, AML_EPARSE, "bad name in a field definition");
	n = aml_resolve(ps, segs, nseg, search);
	if (!n || !n->obj || n->obj->type != type ||
	    (type == AML_FIELD_UNIT && n->obj->field.kind != AML_FIELD_NORMAL))
		return aml_fail(c, at, AML_ENOENT, "field definition names no %s",
				type == AML_REGION ? "OperationRegion" : "plain field unit");
	*out = n->obj;
	return AML_OK;
}

/*
 * aml_def_field() - Field (0x81), IndexField (0x86), BankField (0x87):
 * the header, then the field list: named units (NameSeg + width in
 * bits), reserved gaps (Offset()), AccessAs changes.  op is the second
 * opcode byte.
 */
int aml_def_field(struct aml_ctx *c, struct aml_state *st, const u8 *at, u8 op)
{
	const u8 *start = st->p;
	u32 len;
	struct aml_obj *region = NULL, *index = NULL, *data = NULL, *bank = NULL;
	u64 bank_value = 0;
	int r;

	if (aml_pkglen(&st->p, st->end, &len))
		return aml_fail(c, at, AML_EPARSE, "bad field length");
	const u8 *end = start + len;
	struct aml_state fs = { .p = st->p, .end = end, .scope = st->scope };
	st->p = end;
	if (op == 0x86) {
		if ((r = name_obj(c, &fs, at, AML_FIELD_UNIT, &index)) ||
		    (r = name_obj(c, &fs, at, AML_FIELD_UNIT, &data)))
			return r;
	} else {
		if ((r = name_obj(c, &fs, at, AML_REGION, &region)))
			return r;
		if (op == 0x87) {
			struct aml_obj *bv = NULL;
			if ((r = name_obj(c, &fs, at, AML_FIELD_UNIT, &bank)))
				return r;
			r = aml_eval_term(c, &fs, &bv);
			if (!r)
				r = aml_to_integer(c, bv, &bank_value, at);
			aml_put(c->ns, bv);
			if (r)
				return r;
		}
	}
	if (fs.p >= end)
		return aml_fail(c, at, AML_EPARSE, "field without flags");
	u8 flags = *fs.p++;
	u64 bit = 0;
	while (fs.p < end) {
		const u8 *eat = fs.p;
		u8 b = *fs.p;
		u32 bits;
		if (b == 0x00) {	/* ReservedField */
			fs.p++;
			if (aml_pkglen_raw(&fs.p, end, &bits))
				return aml_fail(c, eat, AML_EPARSE, "bad reserved field");
			bit += bits;
			continue;
		}
		if (b == 0x01 || b == 0x03) {	/* AccessField, ExtendedAccessField */
			unsigned n = b == 0x01 ? 3 : 4;
			if (end - fs.p < (long)n)
				return aml_fail(c, eat, AML_EPARSE, "bad AccessAs");
			flags = (u8)((flags & 0xf0) | (fs.p[1] & 0x0f));
			fs.p += n;
			continue;
		}
		if (b == 0x02)
			return aml_fail(c, eat, AML_EPARSE, "Connection fields not supported");
		if (end - fs.p < 4)
			return aml_fail(c, eat, AML_EPARSE, "field name truncated");
		const u8 *nm = fs.p;
		fs.p += 4;
		if (aml_pkglen_raw(&fs.p, end, &bits))
			return aml_fail(c, eat, AML_EPARSE, "bad field width");
		struct aml_node *node;
		struct aml_state ns1 = { .p = nm, .end = nm + 4, .scope = st->scope };
		int made = aml_def_node(c, &ns1, eat, &node);
		if (made < 0)
			return made;
		struct aml_obj *f = aml_obj_new(c->ns, AML_FIELD_UNIT);
		if (!f)
			return aml_fail(c, eat, AML_ENOMEM, "out of arena");
		f->field.kind = op == 0x86 ? AML_FIELD_INDEX : op == 0x87 ? AML_FIELD_BANK : AML_FIELD_NORMAL;
		f->field.flags = flags;
		f->field.region = aml_get(region);
		f->field.index = aml_get(index);
		f->field.data = aml_get(data);
		f->field.bank = aml_get(bank);
		f->field.bank_value = bank_value;
		f->field.bit_off = bit;
		f->field.bit_len = bits;
		bit += bits;
		if (!bits) {
			aml_put(c->ns, f);
			continue;
		}
		if (made == 1) {
			aml_put(c->ns, f);
			continue;
		}
		node->obj = f;
	}
	return AML_OK;
}

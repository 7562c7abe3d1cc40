/*
 * label.c - the namespace label area format of include/drivers/nd_label.h:
 * Fletcher64, the two index blocks and their sequence numbers, the free
 * bitmap and the labels, on an in-memory copy of the area.  Everything
 * read from the area is checked before it is used: the area came from a
 * device and may hold anything.
 */
#include <drivers/nd_label.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

static const char index_sig[16] = "NAMESPACE_INDEX";

static u64 get_le(const u8 *p, unsigned n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void put_le(u8 *p, unsigned n, u64 v)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		p[i] = (u8)v;
}

u64 nd_fletcher64(const void *buf, size_t len)
{
	const u8 *p = buf;
	u32 lo = 0, hi = 0;

	for (size_t i = 0; i + 4 <= len; i += 4) {
		lo += (u32)get_le(p + i, 4);
		hi += lo;
	}
	return (u64)hi << 32 | lo;
}

/* The checksum of a block whose checksum field is at csum_off, as if that
 * field held 0. */
static u64 block_sum(const u8 *blk, u32 len, u32 csum_off)
{
	u64 all = nd_fletcher64(blk, len);
	u32 lo = (u32)all, hi = (u32)(all >> 32);
	u32 w0 = (u32)get_le(blk + csum_off, 4), w1 = (u32)get_le(blk + csum_off + 4, 4);
	u32 k0 = len / 4 - csum_off / 4, k1 = k0 - 1;	/* words from each to the end */

	/* remove the two words: lo loses them, hi loses each k times */
	lo -= w0 + w1;
	hi -= w0 * k0 + w1 * k1;
	return (u64)hi << 32 | lo;
}

int nd_label_geometry(u32 size, u32 *index_size, u32 *nslot)
{
	u32 n, isz;

	if (size < ND_LABEL_MIN_AREA || size > ND_LABEL_MAX_AREA)
		return -EINVAL;
	for (n = size / (ND_LABEL_SIZE + 1);; n--) {
		isz = (ND_NSINDEX_HDR + (n + 7) / 8 + 255) & ~255u;
		if (2 * isz + n * ND_LABEL_SIZE <= size)
			break;
	}
	*index_size = isz;
	*nslot = n;
	return 0;
}

static u32 seq_next(u32 seq)
{
	static const u32 next[4] = { 0, 2, 3, 1 };

	return next[seq & 3];
}

/* The index block i (its myoff i * isz) with seq and the free bitmap of
 * the current one (NULL: every slot free). */
static void write_index(u8 *area, u32 isz, u32 nslot, unsigned i, u32 seq, const u8 *free_from,
			struct nd_label_dirty *dirty)
{
	u8 *b = area + i * isz;
	u8 bitmap[ND_LABEL_MAX_AREA / ND_LABEL_SIZE / 8 + 8];
	u32 nbytes = (nslot + 7) / 8;

	if (free_from)
		memcpy(bitmap, free_from + ND_NSINDEX_HDR, nbytes);
	else {
		memset(bitmap, 0, nbytes);
		for (u32 s = 0; s < nslot; s++)
			bitmap[s / 8] |= (u8)(1u << (s % 8));
	}
	memset(b, 0, isz);
	memcpy(b, index_sig, 16);
	b[19] = 0;			/* 128-byte labels */
	put_le(b + 20, 4, seq);
	put_le(b + 24, 8, (u64)i * isz);
	put_le(b + 32, 8, isz);
	put_le(b + 40, 8, (u64)(1 - i) * isz);
	put_le(b + 48, 8, 2ull * isz);
	put_le(b + 56, 4, nslot);
	put_le(b + 60, 2, 1);
	put_le(b + 62, 2, 1);
	memcpy(b + ND_NSINDEX_HDR, bitmap, nbytes);
	put_le(b + 64, 8, nd_fletcher64(b, isz));
	dirty->off[dirty->n] = i * isz;
	dirty->len[dirty->n++] = isz;
}

int nd_label_init(u8 *area, u32 size, struct nd_label_dirty *dirty)
{
	u32 isz, nslot;

	if (nd_label_geometry(size, &isz, &nslot))
		return -EINVAL;
	dirty->n = 0;
	write_index(area, isz, nslot, 0, 2, NULL, dirty);
	write_index(area, isz, nslot, 1, 1, NULL, dirty);
	return 0;
}

/* Index block i of the area valid?  Fills its geometry. */
static bool index_valid(const u8 *area, u32 size, unsigned i, u32 *isz, u32 *lsize, u32 *nslot,
			u32 *seq, u16 *minor)
{
	const u8 *b0 = area, *b;
	u64 mysize = get_le(b0 + 32, 8);

	/* block 0 gives the block size, as both must be equal */
	if (mysize < ND_NSINDEX_HDR + 1 || mysize % 256 || 2 * mysize > size)
		return false;
	*isz = (u32)mysize;
	b = area + i * *isz;
	if (memcmp(b, index_sig, 16) || get_le(b + 32, 8) != mysize)
		return false;
	if (get_le(b + 24, 8) != (u64)i * *isz || get_le(b + 40, 8) != (u64)(1 - i) * *isz)
		return false;
	*seq = (u32)get_le(b + 20, 4);
	*minor = (u16)get_le(b + 62, 2);
	if ((*seq & 3) == 0 || *seq > 3 || get_le(b + 60, 2) != 1 || (*minor != 1 && *minor != 2))
		return false;
	*lsize = b[19] == 0 ? 128 : b[19] == 1 ? 256 : 0;
	if (!*lsize || (*minor == 1 && *lsize != 128))
		return false;
	*nslot = (u32)get_le(b + 56, 4);
	if (!*nslot || ND_NSINDEX_HDR + (*nslot + 7) / 8 > *isz ||
	    get_le(b + 48, 8) != 2ull * *isz ||
	    2ull * *isz + (u64)*nslot * *lsize > size)
		return false;
	return block_sum(b, *isz, 64) == get_le(b + 64, 8);
}

static bool slot_free(const u8 *idx, u32 s)
{
	return idx[ND_NSINDEX_HDR + s / 8] & (1u << (s % 8));
}

static void decode_label(const u8 *p, struct nd_label *l)
{
	memcpy(l->uuid, p, 16);
	memcpy(l->name, p + 16, 64);
	l->name[64] = 0;
	l->flags = (u32)get_le(p + 80, 4);
	l->nlabel = (u16)get_le(p + 84, 2);
	l->position = (u16)get_le(p + 86, 2);
	l->isetcookie = get_le(p + 88, 8);
	l->lbasize = get_le(p + 96, 8);
	l->dpa = get_le(p + 104, 8);
	l->rawsize = get_le(p + 112, 8);
	l->slot = (u32)get_le(p + 120, 4);
}

int nd_label_scan(const u8 *area, u32 size, u64 dpa_base, u64 dpa_size,
		  struct nd_label_state *st, char *why, size_t why_size)
{
	u32 isz[2], lsz[2], ns[2], seq[2];
	u16 minor[2];
	bool ok[2];
	const u8 *idx;
	int c;

	if (size < ND_LABEL_MIN_AREA) {
		ksnprintf(why, why_size, "label area of %u bytes: too small", size);
		return -EINVAL;
	}
	for (unsigned i = 0; i < 2; i++)
		ok[i] = index_valid(area, size, i, &isz[i], &lsz[i], &ns[i], &seq[i], &minor[i]);
	if (!ok[0] && !ok[1]) {
		ksnprintf(why, why_size, "no valid index block: label area not initialised");
		return -ENOENT;
	}
	if (ok[0] && ok[1])
		c = seq_next(seq[1]) == seq[0] ? 0 : 1;
	else
		c = ok[0] ? 0 : 1;
	memset(st, 0, sizeof(*st));
	st->current = c;
	st->seq = seq[c];
	st->index_size = isz[c];
	st->label_size = lsz[c];
	st->nslot = ns[c];
	st->minor = minor[c];
	idx = area + c * isz[c];
	for (u32 s = 0; s < st->nslot; s++) {
		const u8 *p = area + 2 * st->index_size + s * st->label_size;
		struct nd_label *l;

		if (slot_free(idx, s))
			continue;
		if (st->nlabels == ND_LABEL_MAX) {
			ksnprintf(why, why_size, "more than %d labels", ND_LABEL_MAX);
			return -ENOSPC;
		}
		l = &st->labels[st->nlabels];
		decode_label(p, l);
		if (st->label_size == 256 && block_sum(p, 256, 248) != get_le(p + 248, 8)) {
			ksnprintf(why, why_size, "label in slot %u: bad checksum", s);
			return -EINVAL;
		}
		if (l->slot != s) {
			ksnprintf(why, why_size, "label in slot %u says slot %u", s, l->slot);
			return -EINVAL;
		}
		if (!l->rawsize || l->dpa + l->rawsize < l->dpa || l->dpa < dpa_base ||
		    l->dpa + l->rawsize > dpa_base + dpa_size) {
			ksnprintf(why, why_size, "label in slot %u: dpa %#llx size %#llx is outside "
				  "the DIMM's [%#llx, %#llx)", s, (unsigned long long)l->dpa,
				  (unsigned long long)l->rawsize, (unsigned long long)dpa_base,
				  (unsigned long long)(dpa_base + dpa_size));
			return -EINVAL;
		}
		for (unsigned j = 0; j < st->nlabels; j++) {
			const struct nd_label *o = &st->labels[j];

			if (l->dpa < o->dpa + o->rawsize && o->dpa < l->dpa + l->rawsize) {
				ksnprintf(why, why_size, "labels in slots %u and %u overlap", o->slot, s);
				return -EINVAL;
			}
		}
		st->nlabels++;
	}
	return 0;
}

/* A new index in the other block: the current one's bitmap with slot s
 * taken (take) or freed, the next seq. */
static void flip_index(u8 *area, struct nd_label_state *st, u32 s, bool take,
		       struct nd_label_dirty *dirty)
{
	u8 *cur = area + st->current * st->index_size;
	unsigned next = 1 - (unsigned)st->current;
	u8 *nb = area + next * st->index_size;

	if (take)
		cur[ND_NSINDEX_HDR + s / 8] &= (u8)~(1u << (s % 8));
	else
		cur[ND_NSINDEX_HDR + s / 8] |= (u8)(1u << (s % 8));
	/* the old block keeps its own bitmap: restore it after copying */
	write_index(area, st->index_size, st->nslot, next, seq_next(st->seq), cur, dirty);
	cur[ND_NSINDEX_HDR + s / 8] ^= (u8)(1u << (s % 8));
	(void)nb;
	st->current = (int)next;
	st->seq = seq_next(st->seq);
}

int nd_label_add(u8 *area, u32 size, struct nd_label_state *st, const struct nd_label *l,
		 struct nd_label_dirty *dirty)
{
	const u8 *cur = area + st->current * st->index_size;
	u32 s;
	u8 *p;

	(void)size;
	dirty->n = 0;
	if (st->nlabels == ND_LABEL_MAX || st->label_size != ND_LABEL_SIZE)
		return -ENOSPC;
	for (s = 0; s < st->nslot && !slot_free(cur, s); s++)
		;
	if (s == st->nslot)
		return -ENOSPC;
	p = area + 2 * st->index_size + s * st->label_size;
	memset(p, 0, st->label_size);
	memcpy(p, l->uuid, 16);
	memcpy(p + 16, l->name, strlen(l->name) < 64 ? strlen(l->name) : 64);
	put_le(p + 80, 4, l->flags);
	put_le(p + 84, 2, l->nlabel);
	put_le(p + 86, 2, l->position);
	put_le(p + 88, 8, l->isetcookie);
	put_le(p + 96, 8, l->lbasize);
	put_le(p + 104, 8, l->dpa);
	put_le(p + 112, 8, l->rawsize);
	put_le(p + 120, 4, s);
	dirty->off[0] = (u32)(p - area);
	dirty->len[0] = st->label_size;
	dirty->n = 1;
	flip_index(area, st, s, true, dirty);
	st->labels[st->nlabels] = *l;
	st->labels[st->nlabels++].slot = s;
	return 0;
}

int nd_label_del(u8 *area, u32 size, struct nd_label_state *st, unsigned i,
		 struct nd_label_dirty *dirty)
{
	(void)size;
	dirty->n = 0;
	if (i >= st->nlabels)
		return -EINVAL;
	flip_index(area, st, st->labels[i].slot, false, dirty);
	st->labels[i] = st->labels[--st->nlabels];
	return 0;
}

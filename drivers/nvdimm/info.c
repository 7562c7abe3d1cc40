/*
 * info.c - the devdax info block of include/drivers/nd_info.h: encoded
 * field by field in little endian, decoded with its signature, checksum
 * and version checked (it comes from a device and may hold anything).
 */
#include <drivers/nd_info.h>
#include <drivers/nd_label.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

static const char dax_sig[16] = "DAXSIGNATURE\0\0\0";
static const char pfn_sig[16] = "NVDIMM_PFN_INFO";
static const char btt_sig[16] = "BTT_ARENA_INFO";

#define CSUM_OFF	4088u

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

/* Fletcher64 of the block with its checksum field taken as 0. */
static u64 info_sum(const u8 blk[ND_INFO_SIZE])
{
	static u8 tmp[ND_INFO_SIZE];	/* (main) only, as every caller */

	memcpy(tmp, blk, ND_INFO_SIZE);
	memset(tmp + CSUM_OFF, 0, 8);
	return nd_fletcher64(tmp, ND_INFO_SIZE);
}

void nd_info_encode(const struct nd_info *in, u8 blk[ND_INFO_SIZE])
{
	memset(blk, 0, ND_INFO_SIZE);
	memcpy(blk, dax_sig, 16);
	memcpy(blk + 16, in->uuid, 16);
	memcpy(blk + 32, in->parent_uuid, 16);
	put_le(blk + 48, 4, in->flags);
	put_le(blk + 52, 2, in->major);
	put_le(blk + 54, 2, in->minor);
	put_le(blk + 56, 8, in->dataoff);
	put_le(blk + 64, 8, in->npfns);
	put_le(blk + 72, 4, in->mode);
	put_le(blk + 76, 4, in->start_pad);
	put_le(blk + 80, 4, in->end_trunc);
	put_le(blk + 84, 4, in->align);
	put_le(blk + 88, 4, in->page_size);
	put_le(blk + 92, 2, in->page_struct_size);
	put_le(blk + CSUM_OFF, 8, info_sum(blk));
}

int nd_info_decode(const u8 blk[ND_INFO_SIZE], struct nd_info *out, char *why, size_t why_size)
{
	memset(out, 0, sizeof(*out));
	if (!memcmp(blk, dax_sig, 16))
		out->kind = ND_INFO_DAX;
	else if (!memcmp(blk, pfn_sig, 16))
		out->kind = ND_INFO_PFN;
	else if (!memcmp(blk, btt_sig, 16))
		out->kind = ND_INFO_BTT;
	else
		return -ENOENT;
	if (out->kind != ND_INFO_BTT && info_sum(blk) != get_le(blk + CSUM_OFF, 8)) {
		ksnprintf(why, why_size, "info block: bad checksum (%#llx, the bytes give %#llx)",
			  (unsigned long long)get_le(blk + CSUM_OFF, 8),
			  (unsigned long long)info_sum(blk));
		return -EINVAL;
	}
	memcpy(out->uuid, blk + 16, 16);
	memcpy(out->parent_uuid, blk + 32, 16);
	out->flags = (u32)get_le(blk + 48, 4);
	out->major = (u16)get_le(blk + 52, 2);
	out->minor = (u16)get_le(blk + 54, 2);
	out->dataoff = get_le(blk + 56, 8);
	out->npfns = get_le(blk + 64, 8);
	out->mode = (u32)get_le(blk + 72, 4);
	out->start_pad = (u32)get_le(blk + 76, 4);
	out->end_trunc = (u32)get_le(blk + 80, 4);
	out->align = (u32)get_le(blk + 84, 4);
	out->page_size = (u32)get_le(blk + 88, 4);
	out->page_struct_size = (u16)get_le(blk + 92, 2);
	if (out->kind != ND_INFO_BTT && out->major != 1) {
		ksnprintf(why, why_size, "info block: version %u.%u (memlab reads 1.x)", out->major,
			  out->minor);
		return -EINVAL;
	}
	return 0;
}

/*
 * nd_info.h - the info block that records a namespace's devdax mode on the
 * NVDIMM itself (drivers/nvdimm/info.c), so that the mode outlives a
 * reboot as Linux's does.  Linux writes such a block (its struct
 * nd_pfn_sb) 4 KiB into a namespace claimed by fsdax (PFN_SIG)
 * or devdax (DAX_SIG); memlab writes the devdax one with the same layout,
 * so that the fields mean what Linux's mean:
 *
 *   offset  size  field
 *      0     16   signature "DAXSIGNATURE\0\0\0\0" (fsdax: "NVDIMM_PFN_INFO\0")
 *     16     16   uuid of the dax claim (random)
 *     32     16   parent_uuid: the namespace's label uuid (label-less: zero)
 *     48      4   flags (0)
 *     52      2   version_major (1)     54  2  version_minor (4)
 *     56      8   dataoff: the dax device's first byte, from the namespace's
 *     64      8   npfns: its pages, (size - dataoff) / 4096
 *     72      4   mode: 1 the memmap in RAM (--map=mem), 2 in the device
 *     76      4   start_pad (0)         80  4  end_trunc (0)
 *     84      4   align: 4096, 2097152 or 1073741824
 *     88      4   page_size (4096)      92  2  page_struct_size (64)
 *     94   3994   zero
 *   4088      8   checksum: Fletcher64 (nd_fletcher64) of the 4096 bytes, itself 0
 * Little endian.  The block lives at [start + 4096, start + 8192) of the
 * namespace; the first 4 KiB are left alone (Linux: room for a partition
 * table or a BTT's).  With the memmap in RAM Linux's data offset is the
 * 8 KiB rounded up to the align, ND_INFO_DATAOFF(): 8 KiB, 2 MiB or 1 GiB.
 *
 * Context: any; no state.
 */
#ifndef DRIVERS_ND_INFO_H
#define DRIVERS_ND_INFO_H

#include <lib/types.h>

#define ND_INFO_OFFSET		4096u		/* where the block lives in the namespace */
#define ND_INFO_SIZE		4096u
#define ND_INFO_MODE_RAM	1u		/* Linux's PFN_MODE_RAM: --map=mem */
#define ND_INFO_MODE_PMEM	2u		/* PFN_MODE_PMEM: --map=dev */
#define ND_INFO_PAGE_STRUCT	64u		/* Linux's MAX_STRUCT_PAGE_SIZE */

/* ND_INFO_DATAOFF() - the bytes at the start of a namespace that its dax
 * device does not get: 8 KiB (the first 4 KiB and the block) rounded up to
 * the align, as Linux's nd_pfn_init() computes it for --map=mem. */
#define ND_INFO_DATAOFF(align)	(((8192ull) + (align) - 1) / (align) * (align))

enum nd_info_kind { ND_INFO_DAX, ND_INFO_PFN, ND_INFO_BTT };

struct nd_info {
	enum nd_info_kind kind;		/* decode: what the signature said */
	u8 uuid[16], parent_uuid[16];
	u32 flags;
	u16 major, minor;
	u64 dataoff, npfns;
	u32 mode, start_pad, end_trunc, align, page_size;
	u16 page_struct_size;
};

/* nd_info_encode() - the 4096 bytes of a devdax block for *in (its kind
 * ignored: DAXSIGNATURE), checksum included. */
void nd_info_encode(const struct nd_info *in, u8 blk[ND_INFO_SIZE]);

/*
 * nd_info_decode() - read blk: -ENOENT when it holds no info block at all
 * (no known signature: a namespace never claimed, or cleared); the fields
 * into *out and 0 for a block whose signature, checksum and version are
 * good (out->kind says which claim: only ND_INFO_DAX is memlab's); -EINVAL
 * with the reason in why[0, why_size) for a bad checksum or version.
 * The fields are not checked against a namespace: the caller does that.
 */
int nd_info_decode(const u8 blk[ND_INFO_SIZE], struct nd_info *out, char *why, size_t why_size);

#endif

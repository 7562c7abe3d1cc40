/*
 * nd_label.h - the namespace label area of an NVDIMM in the format Linux's
 * libnvdimm uses (v1.1, read also v1.2), on an in-memory copy of the whole
 * area (drivers/nvdimm/label.c).  Nothing here touches a device: the
 * caller reads the area (drivers/nvdimm/nd_dsm.c: _DSM function 5), hands
 * it in, and writes back the byte ranges a change reports dirty (_DSM 6).
 *
 * Layout (little endian): two index blocks, then nslot label slots.
 *   index block (index_size bytes, a multiple of 256):
 *     0 sig "NAMESPACE_INDEX\0"   16 flags[3]   19 labelsize (0: 128-byte
 *     labels, 1: 256)   20 seq (2 bits, 1..3; 0 is invalid)   24 myoff
 *     32 mysize   40 otheroff   48 labeloff   56 nslot   60 major (1)
 *     62 minor (1 or 2)   64 checksum (Fletcher64 of the block, itself 0)
 *     72 free bitmap: bit s set = slot s free
 *   label (128 bytes; v1.2: 256 with a Fletcher64 at 248):
 *     0 uuid[16]  16 name[64]  80 flags  84 nlabel  86 position
 *     88 isetcookie  96 lbasize  104 dpa  112 rawsize  120 slot
 * The current index is the valid one, or of two valid ones the newer:
 * seq b is newer than a when b follows a in 1 -> 2 -> 3 -> 1 (a tie: the
 * second).  An update writes the other block with the next seq, so a
 * write torn half way leaves the old index current.
 *
 * Context: any; no state beyond what the caller passes.
 */
#ifndef DRIVERS_ND_LABEL_H
#define DRIVERS_ND_LABEL_H

#include <lib/types.h>

#define ND_LABEL_MIN_AREA	1024		/* smaller: not a label area */
#define ND_LABEL_MAX_AREA	(128u << 10)	/* the most memlab keeps per DIMM */
#define ND_LABEL_MAX		8		/* labels kept per area */
#define ND_LABEL_SIZE		128		/* what memlab writes (v1.1) */
#define ND_NSINDEX_HDR		72

struct nd_label {
	u8 uuid[16];
	char name[65];		/* NUL-terminated copy of the 64 bytes */
	u32 flags;
	u16 nlabel, position;
	u64 isetcookie, lbasize, dpa, rawsize;
	u32 slot;
};

/* What nd_label_scan() found: the current index and the labels it uses. */
struct nd_label_state {
	int current;		/* 0 or 1 */
	u32 seq;		/* of the current index */
	u32 index_size, label_size, nslot;
	u16 minor;
	unsigned nlabels;
	struct nd_label labels[ND_LABEL_MAX];
};

/* Byte ranges of the area a change wrote, for the caller to write back. */
struct nd_label_dirty {
	unsigned n;
	u32 off[2], len[2];
};

/* nd_fletcher64() - Linux's nd_fletcher64: 32-bit words (len a multiple of
 * 4), lo += word, hi += lo, each mod 2^32; hi << 32 | lo. */
u64 nd_fletcher64(const void *buf, size_t len);

/* nd_label_geometry() - index_size and nslot of an area of size bytes with
 * v1.1 labels; -EINVAL if size is below ND_LABEL_MIN_AREA or above
 * ND_LABEL_MAX_AREA. */
int nd_label_geometry(u32 size, u32 *index_size, u32 *nslot);

/*
 * nd_label_init() - write two empty index blocks (seq 2 and 1: index 0
 * current) into area[0, size), every slot free; *dirty the two blocks.
 * -EINVAL for a size nd_label_geometry() refuses.
 */
int nd_label_init(u8 *area, u32 size, struct nd_label_dirty *dirty);

/*
 * nd_label_scan() - the current index of area[0, size) and its labels, each
 * checked: -ENOENT when neither index block is valid (an uninitialised
 * area: no namespace until one is created); -EINVAL, with the reason in
 * why[0, why_size), for a label whose slot field is not its slot, whose
 * [dpa, dpa + rawsize) is empty, wraps or leaves [dpa_base, dpa_base +
 * dpa_size), that overlaps another label, or of a bad v1.2 checksum;
 * -ENOSPC for more than ND_LABEL_MAX labels.  Fills *st on 0.
 */
int nd_label_scan(const u8 *area, u32 size, u64 dpa_base, u64 dpa_size,
		  struct nd_label_state *st, char *why, size_t why_size);

/*
 * nd_label_add() - put *l into a free slot (its slot field set to it):
 * the label written, then the other index block with the next seq and the
 * slot taken; st updated to the new current index.  -ENOSPC if no slot is
 * free or st holds ND_LABEL_MAX labels.  st from nd_label_scan() of area.
 */
int nd_label_add(u8 *area, u32 size, struct nd_label_state *st, const struct nd_label *l,
		 struct nd_label_dirty *dirty);

/* nd_label_del() - free the slot of st->labels[i] in a new index block
 * (the next seq); -EINVAL for a bad i. */
int nd_label_del(u8 *area, u32 size, struct nd_label_state *st, unsigned i,
		 struct nd_label_dirty *dirty);

#endif

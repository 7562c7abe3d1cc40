/*
 * fuzz_nd.c - libFuzzer target for what an NVDIMM hands memlab at boot:
 * the devdax info block (nd_info_decode(), drivers/nvdimm/info.c) and the
 * label area (nd_label_scan(), drivers/nvdimm/label.c).
 *
 * The input is used twice:
 *  1. its first 4096 bytes (zero-padded) as an info block, once as they
 *     are and once with a good checksum and the DAXSIGNATURE written over
 *     them (so the field checks are reached without the fuzzer first
 *     finding a Fletcher64); a block that decodes must encode and decode
 *     again to the same fields;
 *  2. the whole input (at least ND_LABEL_MIN_AREA bytes, at most
 *     ND_LABEL_MAX_AREA) as a label area, scanned against a DIMM range of
 *     dpa [0, 2^36); labels it accepts must lie in that range, in their
 *     own slots, and not overlap.  A second scan in a heap copy of exactly
 *     that size catches a read past the area.
 * A violation is a __builtin_trap().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <drivers/nd_info.h>
#include <drivers/nd_label.h>

static void fuzz_info(uint8_t *blk)
{
	struct nd_info a, b;
	static uint8_t again[ND_INFO_SIZE];
	char why[160];

	if (nd_info_decode(blk, &a, why, sizeof(why)) || a.kind != ND_INFO_DAX)
		return;
	nd_info_encode(&a, again);
	if (nd_info_decode(again, &b, why, sizeof(why)) || b.kind != ND_INFO_DAX ||
	    a.dataoff != b.dataoff || a.npfns != b.npfns || a.align != b.align ||
	    a.mode != b.mode || memcmp(a.parent_uuid, b.parent_uuid, 16) ||
	    a.page_struct_size != b.page_struct_size || a.start_pad != b.start_pad)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t blk[ND_INFO_SIZE];
	struct nd_label_state st;
	char why[160];

	memset(blk, 0, sizeof(blk));
	memcpy(blk, data, size < sizeof(blk) ? size : sizeof(blk));
	fuzz_info(blk);
	memcpy(blk, "DAXSIGNATURE\0\0\0\0", 16);
	blk[52] = 1;
	blk[53] = 0;
	{
		uint64_t sum;

		memset(blk + 4088, 0, 8);
		sum = nd_fletcher64(blk, ND_INFO_SIZE);
		memcpy(blk + 4088, &sum, 8);
	}
	fuzz_info(blk);

	if (size >= ND_LABEL_MIN_AREA && size <= ND_LABEL_MAX_AREA) {
		uint8_t *area = malloc(size);

		if (!area)
			return 0;
		memcpy(area, data, size);
		if (!nd_label_scan(area, (uint32_t)size, 0, 1ull << 36, &st, why, sizeof(why))) {
			if (st.nlabels > ND_LABEL_MAX)
				__builtin_trap();
			for (unsigned i = 0; i < st.nlabels; i++) {
				const struct nd_label *l = &st.labels[i];

				if (!l->rawsize || l->dpa + l->rawsize > 1ull << 36 || l->slot >= st.nslot)
					__builtin_trap();
				for (unsigned j = 0; j < i; j++)
					if (l->dpa < st.labels[j].dpa + st.labels[j].rawsize &&
					    st.labels[j].dpa < l->dpa + l->rawsize)
						__builtin_trap();
			}
		}
		free(area);
	}
	return 0;
}

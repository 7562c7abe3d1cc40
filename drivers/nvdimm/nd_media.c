/*
 * nd_media.c - the kernel's way to the NVDIMM's bytes for the info blocks
 * of drivers/nvdimm/nd.c (struct nd_media): the block's page mapped
 * write-back in the ioremap area once (ioremap() never unmaps, so each
 * address is mapped the first time and kept in a small table), then plain
 * loads and stores, as Linux's pmem driver reads and writes a namespace
 * through its memremap()ed range.  QEMU's NVDIMM is host memory: a store
 * is on the backend when it retires, so no flush (Linux's
 * memcpy_flushcache() and the flush hints) is needed here.
 * Context: (boot) and (main).
 */
#include <drivers/nd.h>
#include <arch/paging.h>
#include <lib/errno.h>
#include <lib/string.h>

#define NR_MAPS	32

static struct { u64 pa; u32 len; u8 *va; } maps[NR_MAPS];	/* (main) */
static unsigned nr_maps;

static u8 *media_map(u64 pa, u32 len)
{
	u8 *va;

	for (unsigned i = 0; i < nr_maps; i++)
		if (maps[i].pa <= pa && pa + len <= maps[i].pa + maps[i].len)
			return maps[i].va + (pa - maps[i].pa);
	va = ioremap(pa, len, IOREMAP_WB);
	if (va && nr_maps < NR_MAPS)
		maps[nr_maps++] = (typeof(maps[0])){ .pa = pa, .len = len, .va = va };
	return va;
}

static int media_read(void *ctx, u64 pa, void *buf, u32 len)
{
	u8 *va = media_map(pa, len);

	(void)ctx;
	if (!va)
		return -ENOMEM;
	memcpy(buf, va, len);
	return 0;
}

static int media_write(void *ctx, u64 pa, const void *buf, u32 len)
{
	u8 *va = media_map(pa, len);

	(void)ctx;
	if (!va)
		return -ENOMEM;
	memcpy(va, buf, len);
	return 0;
}

static const struct nd_media kernel_media = { .read = media_read, .write = media_write };

void nd_media_init(void)
{
	nd_set_media(&kernel_media);
}

/*
 * trampoline.c - where the trampoline page goes, and putting the code and
 * its parameters there: the arithmetic of arch/x86_64/smp_trampoline.asm's
 * page, without touching hardware, so the host tests check it
 * (tests/host/test_smp.c).  smp.c does the rest.
 */
#include <arch/smp.h>
#include <arch/lapic.h>
#include <lib/string.h>

static phys_addr_t trampoline_page;

/* Does [a, a + 4 KiB) overlap any of the nr ranges of avoid? */
static bool page_avoided(phys_addr_t a, const phys_addr_t (*avoid)[2], unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		if (a < avoid[i][1] && avoid[i][0] < a + SZ_4K)
			return true;
	return false;
}

/*
 * smp_trampoline_pick() - see arch/smp.h.  Conventional memory only
 * (below 640 KiB: above it are the video window, option ROMs and the
 * BIOS), never page 0 (the real-mode interrupt table and, on a BIOS, the
 * data area).  The highest page, so the multiboot2 block GRUB may have put
 * low and anything near the bottom stays clear.  A RAM range of the map
 * counts only for its whole pages.
 */
phys_addr_t smp_trampoline_pick(const struct fw_memmap *map, const phys_addr_t (*avoid)[2],
				unsigned nr)
{
	phys_addr_t best = 0;

	for (u32 i = 0; map && i < map->nr; i++) {
		const struct fw_range *r = &map->map[i];
		phys_addr_t lo, hi;

		if (r->type != FW_MEM_RAM)
			continue;
		lo = MAX(ALIGN_UP(r->start, SZ_4K), TRAMPOLINE_LOW);
		hi = MIN(ALIGN_DOWN(r->end, SZ_4K), TRAMPOLINE_HIGH);
		for (phys_addr_t a = hi; a >= lo + SZ_4K; a -= SZ_4K)
			if (!page_avoided(a - SZ_4K, avoid, nr)) {
				best = MAX(best, a - SZ_4K);
				break;
			}
	}
	trampoline_page = best;
	return best;
}

phys_addr_t smp_trampoline_phys(void)
{
	return trampoline_page;
}

/* trampoline_install() - see arch/smp.h. */
struct trampoline_params *trampoline_install(void *page, phys_addr_t phys, const void *code,
					     size_t len, size_t params_off, int *vector)
{
	struct trampoline_params *tp;
	int v = lapic_sipi_vector(phys);

	if (v < 0 || !phys || len > SZ_4K - 64 || params_off + sizeof(*tp) > len)
		return NULL;
	memcpy(page, code, len);
	tp = (struct trampoline_params *)((u8 *)page + params_off);
	memset((void *)tp, 0, sizeof(*tp));
	*vector = v;
	return tp;
}

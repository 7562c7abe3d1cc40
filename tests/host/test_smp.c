/*
 * test_smp.c - the arithmetic of the AP trampoline page
 * (arch/x86_64/trampoline.c): which page smp_trampoline_pick() chooses
 * from a firmware map (conventional memory only, whole pages of RAM, never
 * page 0, clear of the ranges to avoid, the highest that fits), and what
 * trampoline_install() writes (the code copied, the parameter block
 * cleared at its offset, the start-up vector) or refuses (a page that is
 * not page aligned or not below 1 MiB, code that leaves no room for the
 * trampoline's stack, a parameter block past the code); and the ICR values
 * of the INIT, start-up and call IPIs in both APIC modes (arch/lapic.h).
 *
 * The suite `smp` links the real trampoline.c; the bring-up itself needs
 * the hardware and is tested under QEMU (tests/qemu/test_smp.py).
 */
#include "htest.h"
#include <arch/smp.h>
#include <arch/lapic.h>
#include <lib/string.h>

static struct fw_memmap map;

static void map_reset(void)
{
	memset(&map, 0, sizeof(map));
}

static void map_add(u64 start, u64 end, u32 type)
{
	map.map[map.nr++] = (struct fw_range){ .start = start, .end = end, .type = type };
}

/* SeaBIOS on q35: RAM [0, 0x9fc00), the EBDA and BIOS above. */
HTEST(smp_trampoline_pick_seabios_map)
{
	map_reset();
	map_add(0, 0x9fc00, FW_MEM_RAM);
	map_add(0x9fc00, 0xa0000, FW_MEM_RESERVED);
	map_add(0xf0000, 0x100000, FW_MEM_RESERVED);
	map_add(0x100000, 0x7ffe0000, FW_MEM_RAM);
	/* the last whole page below 0x9fc00 */
	CHECK_EQ(smp_trampoline_pick(&map, NULL, 0), 0x9e000);
	CHECK_EQ(smp_trampoline_phys(), 0x9e000);
}

/* A range to avoid (the multiboot2 block put low) pushes the page down. */
HTEST(smp_trampoline_pick_avoids_ranges)
{
	const phys_addr_t avoid[2][2] = { { 0x9d000, 0x9f000 }, { 0x9c800, 0x9c900 } };

	map_reset();
	map_add(0, 0x9fc00, FW_MEM_RAM);
	CHECK_EQ(smp_trampoline_pick(&map, avoid, 1), 0x9c000);
	CHECK_EQ(smp_trampoline_pick(&map, avoid, 2), 0x9b000);
}

/* OVMF's low memory: pieces of RAM between reserved ranges; the highest
 * whole RAM page below 640 KiB wins, whatever range it is in. */
HTEST(smp_trampoline_pick_fragmented_map)
{
	map_reset();
	map_add(0, 0x8000, FW_MEM_RAM);
	map_add(0x8000, 0x9000, FW_MEM_RESERVED);
	map_add(0x9000, 0x80800, FW_MEM_RAM);
	map_add(0x80800, 0xa0000, FW_MEM_NVS);
	CHECK_EQ(smp_trampoline_pick(&map, NULL, 0), 0x7f000);
}

/* Nothing fits: no RAM below 640 KiB but page 0 and partial pages. */
HTEST(smp_trampoline_pick_none)
{
	const phys_addr_t avoid[1][2] = { { 0x1000, 0xa0000 } };

	map_reset();
	map_add(0, 0x1000, FW_MEM_RAM);		/* page 0 only: never used */
	map_add(0x1800, 0x2400, FW_MEM_RAM);	/* no whole page */
	map_add(0x100000, 0x200000, FW_MEM_RAM);	/* above 1 MiB */
	CHECK_EQ(smp_trampoline_pick(&map, NULL, 0), 0);
	CHECK_EQ(smp_trampoline_phys(), 0);
	CHECK_EQ(smp_trampoline_pick(NULL, NULL, 0), 0);
	map_reset();
	map_add(0, 0x9fc00, FW_MEM_RAM);
	CHECK_EQ(smp_trampoline_pick(&map, avoid, 1), 0);	/* all of it avoided */
}

HTEST(smp_trampoline_install)
{
	static u8 page[4096];
	u8 code[0x160];
	struct trampoline_params *tp;
	int vector = -1;

	for (unsigned i = 0; i < sizeof(code); i++)
		code[i] = (u8)(i * 7 + 1);
	memset(page, 0xee, sizeof(page));
	tp = trampoline_install(page, 0x9e000, code, sizeof(code), 0x128, &vector);
	CHECK(tp != NULL);
	CHECK_EQ(vector, 0x9e);
	CHECK_EQ((u8 *)tp - page, 0x128);
	CHECK_EQ(memcmp(page, code, 0x128), 0);	/* the code up to the block */
	CHECK_EQ(tp->stage, 0);				/* the block cleared */
	CHECK_EQ(tp->apic_id, 0);
	CHECK_EQ(tp->boot_cr3, 0);
	CHECK_EQ(page[sizeof(code)], 0xee);		/* nothing past the code */
	/* the layout smp_trampoline.asm's header gives */
	CHECK_EQ(offsetof(struct trampoline_params, efer), 12);
	CHECK_EQ(offsetof(struct trampoline_params, kernel_cr3), 16);
	CHECK_EQ(offsetof(struct trampoline_params, entry), 40);
	CHECK_EQ(offsetof(struct trampoline_params, boot_cr3), 48);
	CHECK_EQ(sizeof(struct trampoline_params), 56);

	/* refusals write nothing */
	memset(page, 0xee, sizeof(page));
	vector = -1;
	CHECK(!trampoline_install(page, 0x9e800, code, sizeof(code), 0x128, &vector));
	CHECK(!trampoline_install(page, 0x100000, code, sizeof(code), 0x128, &vector));
	CHECK(!trampoline_install(page, 0, code, sizeof(code), 0x128, &vector));
	CHECK(!trampoline_install(page, 0x9e000, code, sizeof(code), 0x140, &vector));
	CHECK(!trampoline_install(page, 0x9e000, page, 4096 - 32, 0x128, &vector));
	CHECK_EQ(vector, -1);
	CHECK_EQ(page[0], 0xee);
}

/* ICR values: xAPIC puts the 8-bit destination in ICR high bits 24-31
 * (bits 56-63 of the pair), x2APIC the 32-bit one in bits 32-63. */
HTEST(smp_icr_values)
{
	CHECK_EQ(lapic_icr(LAPIC_XAPIC, 7, ICR_INIT | ICR_ASSERT), (7ULL << 56) | 0x4500);
	CHECK_EQ(lapic_icr(LAPIC_XAPIC, 3, ICR_STARTUP | ICR_ASSERT | 0x9e), (3ULL << 56) | 0x469e);
	CHECK_EQ(lapic_icr(LAPIC_XAPIC, 0x1ff, ICR_NMI | ICR_ASSERT), (0xffULL << 56) | 0x4400);
	CHECK_EQ(lapic_icr(LAPIC_X2APIC, 300, ICR_FIXED | ICR_ASSERT | 0xf0), (300ULL << 32) | 0x40f0);
	CHECK_EQ(lapic_reg_loc(LAPIC_X2APIC, LAPIC_ICR_LOW).index, 0x830);
	CHECK_EQ(lapic_sipi_vector(0x9e000), 0x9e);
	CHECK_EQ(lapic_sipi_vector(0x9e800), -1);	/* not page aligned */
	CHECK_EQ(lapic_sipi_vector(0x100000), -1);	/* not below 1 MiB */
}

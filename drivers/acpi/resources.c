/*
 * drivers/acpi/resources.c - the ranges the ACPI tables name, entered into
 * the resource tree as Linux names them: "IOAPIC N" (1 KiB per I/O APIC of
 * the MADT), "Local APIC" (4 KiB at the MADT's local APIC address), "HPET N"
 * (1 KiB per HPET table), and the FADT's fixed-hardware I/O blocks in
 * /proc/ioports ("ACPI PM1a_EVT_BLK", ..., "ACPI GPE0_BLK").
 *
 * Context: boot, once, after madt_parse().
 */
#include <drivers/acpi.h>
#include <kernel/resource.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <arch/traps.h>

#define IOAPIC_MMIO_SIZE	0x400
#define LAPIC_MMIO_SIZE		0x1000
#define HPET_MMIO_SIZE		0x400
#define HPET_ADDRESS_OFFSET	44	/* the base address GAS's address, after block id and GAS head */

/* io_block() - one FADT I/O block of len ports at port, if the FADT has it. */
static void io_block(u32 port, u8 len, const char *name)
{
	if (port && len && port + len <= 0x10000)
		request_region(&ioport_resource, port, len, name, IORESOURCE_IO);
}

/*
 * acpi_resources_init() - enter the APICs, the HPETs and the FADT's I/O
 * blocks into the resource trees.  Conflicts are logged by
 * request_region() and leave the range out.  Context: boot.
 */
void acpi_resources_init(void)
{
	char name[RESOURCE_NAME_LEN];
	const struct acpi_sdt_header *h;
	const struct acpi_fadt *f;

	for (u32 i = 0; i < madt_info.nr_ioapics; i++) {
		ksnprintf(name, sizeof(name), "IOAPIC %u", i);
		request_mem_region(madt_info.ioapics[i].addr, IOAPIC_MMIO_SIZE, name);
	}
	for (unsigned n = 0; (h = acpi_find_table("HPET", n)) != NULL; n++) {
		u64 addr;

		if (h->length < HPET_ADDRESS_OFFSET + 8)
			continue;
		memcpy(&addr, (const u8 *)h + HPET_ADDRESS_OFFSET, sizeof(addr));
		ksnprintf(name, sizeof(name), "HPET %u", n);
		if (addr)
			request_mem_region(addr, HPET_MMIO_SIZE, name);
	}
	if (madt_info.lapic_addr)
		request_mem_region(madt_info.lapic_addr, LAPIC_MMIO_SIZE, "Local APIC");
	f = (const void *)acpi_find_table("FACP", 0);
	if (!f || f->h.length < offsetof(struct acpi_fadt, gpe1_base))
		return;
	io_block(f->pm1a_evt_blk, f->pm1_evt_len, "ACPI PM1a_EVT_BLK");
	io_block(f->pm1b_evt_blk, f->pm1_evt_len, "ACPI PM1b_EVT_BLK");
	io_block(f->pm1a_cnt_blk, f->pm1_cnt_len, "ACPI PM1a_CNT_BLK");
	io_block(f->pm1b_cnt_blk, f->pm1_cnt_len, "ACPI PM1b_CNT_BLK");
	io_block(f->pm2_cnt_blk, f->pm2_cnt_len, "ACPI PM2_CNT_BLK");
	io_block(f->pm_tmr_blk, f->pm_tmr_len, "ACPI PM_TMR");
	io_block(f->gpe0_blk, f->gpe0_blk_len, "ACPI GPE0_BLK");
	io_block(f->gpe1_blk, f->gpe1_blk_len, "ACPI GPE1_BLK");
}

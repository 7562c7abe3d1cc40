/*
 * apic_machine.h - the model machine of the `apic` suite, shared by
 * test_apic.c (MADT to I/O APIC routing) and test_apic_lapic.c (x2APIC
 * mode, the local APIC timer).  The suite links the real madt.c and
 * apic.c with these fakes.  acpi_find_table() returns the test's MADT in
 * a heap buffer of exactly its length (ASan).  ioremap() returns windows
 * of the model devices; their registers are reached only through
 * mmio_read32/mmio_write32 (tests/host/arch/io.h), which come here:
 *  - local APIC: 1 KiB of plain registers, ID at 0x20; its timer counts
 *    down from the initial count (0x380) into the current count (0x390)
 *    by timer_counts_per_ms while udelay() waits;
 *  - I/O APIC: the index register at +0x00 selects, the window at +0x10
 *    reads or writes the selected register: 0x00 id, 0x01 version (max
 *    redirection entry in bits 16-23, read-only), 0x10 + 2 pin / + 1 the
 *    low / high half of pin's redirection entry.  A write elsewhere is
 *    counted as a stray write.
 * The 8259 ports, the APIC base MSR and the x2APIC MSRs are recorded too.
 * The register numbers and bits are the hardware's (Intel SDM, 82093AA).
 */
#ifndef TESTS_HOST_APIC_MACHINE_H
#define TESTS_HOST_APIC_MACHINE_H

#include "htest.h"
#include <drivers/acpi.h>
#include <arch/traps.h>
#include <arch/cpu.h>
#include <arch/io.h>
#include <arch/paging.h>
#include <arch/lapic.h>
#include <lib/printk.h>
#include <lib/errno.h>
#include "platform_stub.h"
#include <stdlib.h>

#define RTE_ACTIVE_LOW		(1u << 13)
#define RTE_LEVEL		(1u << 15)
#define RTE_MASKED		(1u << 16)


#define LAPIC_PHYS	0xfee00000ULL
#define IOAPIC_PHYS	0xfec00000ULL
#define MAX_PINS	256
#define NR_MODEL_IOAPICS 3

struct ioapic_model {
	u64 phys;			/* where the MADT may say it is; 0: absent */
	u32 window[8];			/* the mapped 0x20 bytes (addresses only) */
	u32 index;			/* the selected register */
	u32 id;				/* register 0x00 */
	u32 version;			/* register 0x01 */
	u32 rte[2 * MAX_PINS];		/* registers 0x10... */
	unsigned stray_writes;		/* to registers that do not exist */
	bool all_ones;			/* nothing answers: every read gives ~0 */
};


extern u8 *madt_tab;			/* what acpi_find_table("APIC") gives */
extern u32 lapic_regs[0x400 / 4];	/* the local APIC's registers */
extern u64 lapic_phys;			/* where the model local APIC is */
extern struct ioapic_model models[NR_MODEL_IOAPICS];
extern u64 apic_base_msr;		/* MSR 0x1b */
extern u32 x2apic_msrs[0x100];		/* MSRs 0x800-0x8ff: x2APIC mode registers */
extern unsigned x2apic_msr_writes;	/* to 0x800-0x8ff */
extern u32 timer_counts_per_ms;		/* the local APIC timer's rate in udelay() */
extern unsigned lapic_mmio_accesses;	/* to the local APIC's MMIO window */
extern u8 pic_masks[2];			/* last writes to ports 0x21, 0xa1 */
extern unsigned port_writes;		/* host_port_out() calls */

/* MADT images: begin, entries, end (into madt_tab). */
void madt_begin(u32 lapic);
void madt_entry(const u8 *e, u8 len);	/* any raw entry */
void madt_lapic(u8 cpu, u8 apic_id, u32 flags);
void madt_ioapic(u8 id, u32 addr, u32 gsi_base);
void madt_override(u8 irq, u32 gsi, u16 flags);
void madt_lapic_nmi(void);
void madt_lapic_addr_override(u64 addr);
void madt_end(void);
void madt_q35(void);		/* QEMU q35's MADT, finished */

/* The machine before apic_init(), and apic_init() on madt_tab. */
void machine_reset(void);
bool apic_machine_init(void);

/* What irq_register(irq) does through the I/O APIC; checks of the result. */
int route_isa_irq(unsigned irq);
void expect_all_masked(const struct ioapic_model *m, unsigned pins);
void expect_no_line(unsigned irq, unsigned owner);
void expect_isa_irq(unsigned irq, unsigned gsi, bool level, bool active_low);

#endif

/*
 * power.c - power off and reset.
 *
 * Power off is ACPI S5: write SLP_TYP (from the DSDT's \_S5 package) with
 * SLP_EN into the PM1 control registers named by the FADT.  memlab has no
 * AML interpreter, so \_S5 is found by scanning the DSDT for the name "_S5_"
 * followed by a package whose first element is a byte constant, checking
 * every length on the way.  If that fails, the well-known QEMU/Bochs ports
 * are tried, then the CPU halts with a message.  On QEMU, S5 makes QEMU exit
 * with status 0.
 *
 * Reset tries, in order: the FADT reset register, the PCI reset control
 * register 0xcf9 (q35, and most chipsets), the keyboard controller's reset
 * line, and last a triple fault (an empty IDT plus an exception).  Under
 * -no-reboot, QEMU exits instead of resetting.
 *
 * Context: main loop; does not return.
 */
#include <drivers/acpi.h>
#include <lib/printk.h>
#include <kernel/time.h>
#include <lib/string.h>
#include <arch/io.h>
#include <arch/cpu.h>

#define SLP_EN		(1u << 13)
#define FADT_RESET_REG_SUP (1u << 10)

/*
 * Find \_S5's SLP_TYPa in the AML of the DSDT. Returns 0 and *slp_typ, or
 * -1 if no well-formed "_S5_" package is found: one with at least one
 * element, the first a byte constant that fits the 3-bit SLP_TYP field (a
 * wider one cut to 3 bits would name another sleep state).
 */
static int dsdt_find_s5(const struct acpi_sdt_header *dsdt, u8 *slp_typ)
{
	const u8 *aml = (const u8 *)(dsdt + 1);
	size_t len = dsdt->length - sizeof(*dsdt);

	for (size_t i = 0; i + 4 < len; i++) {
		size_t j;

		if (memcmp(aml + i, "_S5_", 4))
			continue;
		j = i + 4;
		if (j >= len || aml[j] != 0x12)		/* PackageOp */
			continue;
		j++;
		if (j >= len)
			continue;
		j += 1 + (aml[j] >> 6);			/* PkgLength: 1-4 bytes */
		if (j >= len || !aml[j])		/* NumElements: none */
			continue;
		j++;
		if (j >= len)
			continue;
		if (aml[j] == 0x0a && j + 1 < len) {	/* BytePrefix value */
			if (aml[j + 1] > 7) {
				pr_warn("power: \\_S5 gives SLP_TYP %u, not a 3-bit sleep type; ignored",
					aml[j + 1]);
				continue;
			}
			*slp_typ = aml[j + 1];
			return 0;
		}
		if (aml[j] == 0x00 || aml[j] == 0x01) {	/* ZeroOp / OneOp */
			*slp_typ = aml[j];
			return 0;
		}
	}
	return -1;
}

void machine_poweroff(void) __noreturn;
void machine_poweroff(void)
{
	const struct acpi_fadt *fadt = (const void *)acpi_find_table("FACP", 0);
	const struct acpi_sdt_header *dsdt = acpi_find_table("DSDT", 0);
	u8 slp_typ;

	irq_disable();
	if (fadt && (fadt->pm1a_cnt_blk > 0xfffe || fadt->pm1b_cnt_blk > 0xfffe)) {
		/* a 2-byte register must lie in the 64 KiB I/O space: cut to 16
		 * bits, the port would be some other device's */
		pr_warn("power: FADT PM1a_CNT %#x / PM1b_CNT %#x outside the I/O port space; not used",
			fadt->pm1a_cnt_blk, fadt->pm1b_cnt_blk);
		fadt = NULL;
	}
	if (fadt && fadt->pm1a_cnt_blk && dsdt && !dsdt_find_s5(dsdt, &slp_typ)) {
		pr_info("power: ACPI S5 (SLP_TYP %u) through PM1a_CNT %#x", slp_typ,
			fadt->pm1a_cnt_blk);
		outw((u16)fadt->pm1a_cnt_blk, (u16)((slp_typ & 7) << 10) | SLP_EN);
		if (fadt->pm1b_cnt_blk)
			outw((u16)fadt->pm1b_cnt_blk, (u16)((slp_typ & 7) << 10) | SLP_EN);
		udelay(100000);
		pr_warn("power: ACPI S5 did not power off; trying QEMU/Bochs ports");
	} else {
		pr_warn("power: no FADT or no \\_S5 in the DSDT; trying QEMU/Bochs ports");
	}
	outw(0x604, 0x2000);	/* QEMU q35 and newer i440fx */
	outw(0xb004, 0x2000);	/* Bochs, old QEMU */
	udelay(100000);
	pr_emerg("power: could not power off; halting. It is now safe to turn off the machine.");
	cpu_halt_forever();
}

void machine_reboot(void) __noreturn;
void machine_reboot(void)
{
	const struct acpi_fadt *fadt = (const void *)acpi_find_table("FACP", 0);
	bool reset_reg = fadt && fadt->h.length >= offsetof(struct acpi_fadt, reset_value) + 1 &&
			 (fadt->flags & FADT_RESET_REG_SUP) && fadt->reset_reg.space_id == 1 &&
			 fadt->reset_reg.address;

	irq_disable();
	if (reset_reg && fadt->reset_reg.address > 0xffff) {
		/* cut to 16 bits, the port would be some other device's */
		pr_warn("reboot: FADT reset register %#llx is outside the I/O port space; not used",
			(unsigned long long)fadt->reset_reg.address);
	} else if (reset_reg) {
		pr_info("reboot: ACPI reset register %#llx <- %#x",
			(unsigned long long)fadt->reset_reg.address, fadt->reset_value);
		outb((u16)fadt->reset_reg.address, fadt->reset_value);
		udelay(50000);
	}

	pr_info("reboot: PCI reset control 0xcf9");
	outb(0xcf9, 0x02);
	udelay(10);
	outb(0xcf9, 0x06);
	udelay(50000);
	pr_info("reboot: keyboard controller reset line");
	for (int i = 0; i < 100000 && (inb(0x64) & 0x02); i++)
		cpu_relax();
	outb(0x64, 0xfe);
	udelay(50000);
	pr_info("reboot: triple fault");
	cpu_triple_fault();
}

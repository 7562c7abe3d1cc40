/*
 * power.c - power off and reset.
 *
 * Power off is ACPI S5: run the firmware's preparation (\_PTS, through the
 * prepare hook), then write SLP_TYP (from the AML's \_S5 package) with
 * SLP_EN into the PM1 control registers named by the FADT.  The ACPI driver
 * finds them (drivers/acpi/sleep.c) and hands them over with
 * power_set_firmware(); this file only checks that the ports fit the I/O
 * space and writes them.  If that fails, the well-known QEMU/Bochs ports
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
#include <arch/power.h>
#include <lib/printk.h>
#include <arch/time.h>
#include <lib/string.h>
#include <arch/io.h>
#include <arch/cpu.h>

#define SLP_EN		(1u << 13)

static struct power_firmware fw;	/* zero: no ACPI description */

void power_set_firmware(const struct power_firmware *pf)
{
	fw = *pf;
}

void machine_poweroff(void)
{
	bool pm1_ok = fw.have_fadt;

	if (fw.prepare)
		fw.prepare();
	irq_disable();
	if (pm1_ok && (fw.pm1a_cnt > 0xfffe || fw.pm1b_cnt > 0xfffe)) {
		/* a 2-byte register must lie in the 64 KiB I/O space: cut to 16
		 * bits, the port would be some other device's */
		pr_warn("power: FADT PM1a_CNT %#x / PM1b_CNT %#x outside the I/O port space; not used",
			fw.pm1a_cnt, fw.pm1b_cnt);
		pm1_ok = false;
	}
	if (pm1_ok && fw.pm1a_cnt && fw.have_s5) {
		pr_info("power: ACPI S5 (SLP_TYP %u) through PM1a_CNT %#x", fw.s5_slp_typ,
			fw.pm1a_cnt);
		outw((u16)fw.pm1a_cnt, (u16)((fw.s5_slp_typ & 7) << 10) | SLP_EN);
		if (fw.pm1b_cnt)
			outw((u16)fw.pm1b_cnt, (u16)((fw.s5_slp_typb & 7) << 10) | SLP_EN);
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

void machine_reboot(void)
{
	irq_disable();
	if (fw.have_reset_reg && fw.reset_port > 0xffff) {
		/* cut to 16 bits, the port would be some other device's */
		pr_warn("reboot: FADT reset register %#llx is outside the I/O port space; not used",
			(unsigned long long)fw.reset_port);
	} else if (fw.have_reset_reg) {
		pr_info("reboot: ACPI reset register %#llx <- %#x",
			(unsigned long long)fw.reset_port, fw.reset_value);
		outb((u16)fw.reset_port, fw.reset_value);
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

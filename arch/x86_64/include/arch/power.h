/*
 * arch/power.h - power off and reset (arch/x86_64/power.c).
 *
 * power.c writes the registers; what they are is the firmware's word, read
 * by the ACPI driver (drivers/acpi/sleep.c: the FADT's PM1 control blocks
 * and reset register; the AML's \_S5 sleep types and \_PTS) and handed over as a
 * struct power_firmware, so arch needs no ACPI.  Without it (no ACPI, or a
 * table rejected) power.c uses the fixed QEMU/Bochs and chipset ports only.
 */
#ifndef ARCH_POWER_H
#define ARCH_POWER_H

#include <lib/types.h>

struct power_firmware {
	bool have_fadt;		/* the rest of pm1*_cnt is meaningful */
	u32 pm1a_cnt;		/* PM1a control port (I/O), 0: none */
	u32 pm1b_cnt;		/* PM1b control port (I/O), 0: none */
	bool have_s5;		/* \_S5 found and well formed */
	u8 s5_slp_typ;		/* its SLP_TYPa, 0-7 */
	u8 s5_slp_typb;		/* its SLP_TYPb (PM1b), 0-7 */
	void (*prepare)(void);	/* run first (the AML's \_PTS), or NULL */
	bool have_reset_reg;	/* a reset register in I/O space, supported */
	u64 reset_port;		/* its address (checked against 16 bits here) */
	u8 reset_value;		/* the byte to write */
};

/*
 * power_set_firmware() - what the firmware says about S5 and reset; copied.
 * Context: boot.
 */
void power_set_firmware(const struct power_firmware *pf);

/* machine_poweroff() - ACPI S5, then the QEMU/Bochs ports; QEMU exits with
 * 0.  Halts if nothing works.  Context: main loop; does not return. */
void machine_poweroff(void) __noreturn;

/* machine_reboot() - the ACPI reset register, 0xcf9, the keyboard
 * controller, a triple fault (QEMU -no-reboot exits instead of resetting).
 * Context: main loop; does not return. */
void machine_reboot(void) __noreturn;

#endif

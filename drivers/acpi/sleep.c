/*
 * sleep.c - what the firmware says about powering off and resetting: the
 * FADT's PM1 control blocks and reset register, and the sleep type of the
 * DSDT's \_S5 object, handed to arch/x86_64/power.c (which writes them).
 *
 * memlab has no AML interpreter, so \_S5 is found by scanning the DSDT for
 * the name "_S5_" followed by a package whose first element is a byte
 * constant, checking every length on the way.
 *
 * Context: boot.
 */
#include <drivers/acpi.h>
#include <arch/power.h>
#include <lib/printk.h>
#include <lib/string.h>

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

void acpi_power_init(void)
{
	const struct acpi_fadt *fadt = (const void *)acpi_find_table("FACP", 0);
	const struct acpi_sdt_header *dsdt = acpi_find_table("DSDT", 0);
	struct power_firmware pf = { 0 };

	if (fadt) {
		pf.have_fadt = true;
		pf.pm1a_cnt = fadt->pm1a_cnt_blk;
		pf.pm1b_cnt = fadt->pm1b_cnt_blk;
		pf.have_reset_reg = fadt->h.length >= offsetof(struct acpi_fadt, reset_value) + 1 &&
				    (fadt->flags & FADT_RESET_REG_SUP) &&
				    fadt->reset_reg.space_id == 1 && fadt->reset_reg.address;
		if (pf.have_reset_reg) {
			pf.reset_port = fadt->reset_reg.address;
			pf.reset_value = fadt->reset_value;
		}
	}
	if (dsdt && !dsdt_find_s5(dsdt, &pf.s5_slp_typ))
		pf.have_s5 = true;
	power_set_firmware(&pf);
}

/*
 * sleep.c - what the firmware says about powering off and resetting: the
 * FADT's PM1 control blocks and reset register, and, from the AML, the
 * sleep types of \_S5 and the \_PTS method to run before, handed to
 * arch/x86_64/power.c (which writes the registers).
 *
 * acpi_power_init() takes the FADT at boot, before any AML runs; once the
 * namespace is loaded acpi_power_use_aml() evaluates \_S5 with the
 * interpreter (a Name or a Method: SLP_TYPa and SLP_TYPb, its first two
 * elements) and keeps the namespace for \_PTS (5), run by power.c's
 * prepare hook just before the PM1 write.
 *
 * Context: boot; the hook: main loop (poweroff).
 */
#include <drivers/acpi.h>
#include <drivers/aml.h>
#include <arch/power.h>
#include <lib/printk.h>
#include <lib/string.h>

#define FADT_RESET_REG_SUP (1u << 10)

static struct power_firmware pf;	/* what was handed to power.c */
static struct aml_ns *sleep_ns;		/* for \_PTS; NULL until acpi_power_use_aml() */

void acpi_power_init(void)
{
	const struct acpi_fadt *fadt = (const void *)acpi_find_table("FACP", 0);

	memset(&pf, 0, sizeof(pf));
	sleep_ns = NULL;
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
	power_set_firmware(&pf);
}

/* power.c's prepare hook: \_PTS (5), "prepare to sleep", if the firmware
 * has one; a failure is logged and the power off goes on. */
static void prepare_s5(void)
{
	struct aml_obj *five;

	if (!sleep_ns || !aml_lookup(sleep_ns, NULL, "\\_PTS"))
		return;
	five = aml_new_integer(sleep_ns, 5);
	if (five && aml_eval(sleep_ns, "\\_PTS", &five, 1, NULL)) {
		const struct aml_error *e = aml_last_error(sleep_ns);
		pr_warn("power: \\_PTS(5) failed: %s at 0x%x: %s", e->path, e->offset, e->reason);
	} else {
		pr_info("power: \\_PTS(5) ran");
	}
	aml_put(sleep_ns, five);
}

/* One sleep type of \_S5: an Integer that fits the 3-bit SLP_TYP field (a
 * wider one cut to 3 bits would name another sleep state). */
static int slp_typ(const struct aml_obj *e, u8 *out)
{
	if (!e || e->type != AML_INTEGER)
		return -1;
	if (e->integer > 7) {
		pr_warn("power: \\_S5 gives SLP_TYP %llu, not a 3-bit sleep type; ignored",
			(unsigned long long)e->integer);
		return -1;
	}
	*out = (u8)e->integer;
	return 0;
}

/*
 * acpi_power_use_aml() - \_S5 from the namespace: a Package of at least one
 * Integer (SLP_TYPa; SLP_TYPb is the second, or the first again).  Without
 * one, or when it is malformed, power off uses the fallback ports.
 */
void acpi_power_use_aml(struct aml_ns *ns)
{
	struct aml_obj *s5 = NULL;

	sleep_ns = ns;
	pf.prepare = prepare_s5;
	pf.have_s5 = false;
	if (ns && !aml_eval(ns, "\\_S5", NULL, 0, &s5) && s5 && s5->type == AML_PACKAGE &&
	    s5->pkg.count >= 1 && !slp_typ(s5->pkg.elems[0], &pf.s5_slp_typ)) {
		pf.s5_slp_typb = pf.s5_slp_typ;
		if (s5->pkg.count < 2 || !slp_typ(s5->pkg.elems[1], &pf.s5_slp_typb))
			pf.have_s5 = true;
	}
	if (ns && s5)
		aml_put(ns, s5);
	power_set_firmware(&pf);
}

/*
 * params.c - apply the parameter table (include/lib/params.h) to the boot
 * command line.  Each parameter is looked up by its full name with
 * cmdline_get(), so the command line's own rules hold (the last occurrence
 * wins, '-' and '_' are the same in names, quotes group words), and the
 * value goes through param_set(), the same function a write to
 * /sys/module/MODULE/parameters/NAME uses: both paths accept the same text.
 */
#include <arch/bootinfo.h>
#include <kernel/params.h>
#include <lib/errno.h>
#include <lib/params.h>
#include <lib/printk.h>
#include <lib/string.h>

#define PARAM_VALUE_MAX	64	/* longest value read; longer is refused */

/* The current value of kp as text, for the "keeping ..." part of a warning. */
static const char *value_text(const struct kernel_param *kp, char *buf, size_t size)
{
	struct buf_printer bp;

	buf_printer_init(&bp, buf, size);
	param_show_value(kp, &bp.p, param_get(kp));
	return buf;
}

int params_apply_cmdline(const char *cmdline)
{
	int refused = 0;

	for_each_kernel_param(kp) {
		char name[64], val[PARAM_VALUE_MAX], why[96], cur[32];
		int err;

		param_full_name(kp, name, sizeof(name));
		err = cmdline_get(cmdline, name, val, sizeof(val));
		if (err == -ENOENT)
			continue;
		if (err == -EOVERFLOW) {
			pr_warn("%s=%s...: longer than %d characters; keeping %s", name, val,
				PARAM_VALUE_MAX - 1, value_text(kp, cur, sizeof(cur)));
			refused++;
			continue;
		}
		if (!val[0] && kp->type == PARAM_BOOL) {
			strlcpy(val, "Y", sizeof(val));	/* a bare bool parameter: true */
		} else if (!val[0]) {
			pr_warn("%s: needs a value; keeping %s", name,
				value_text(kp, cur, sizeof(cur)));
			refused++;
			continue;
		}
		err = param_set(kp, val, strlen(val));
		if (err) {
			pr_warn("%s=%s: %s; keeping %s", name, val,
				param_error(kp, err, why, sizeof(why)),
				value_text(kp, cur, sizeof(cur)));
			refused++;
		}
	}
	return refused;
}

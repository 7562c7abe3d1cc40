/*
 * args.c - reading the numeric arguments of shell commands (see
 * include/shell/args.h): one reader and one set of messages for all.
 */
#include <lib/errno.h>
#include <shell/args.h>
#include <shell/shell.h>
#include <lib/string.h>

/* The out-of-range line for word, as args.h shows it; returns -ERANGE. */
static int shell_arg_range_error(struct printer *out, const char *cmd, const char *what,
			  const char *word, u64 min, u64 max, const char *why)
{
	if (min == max)
		pr_printf(out, "%s: %s %s is out of range: it must be %llu", cmd, what, word,
			  (unsigned long long)min);
	else if (!strstr(what, "address") && !strstr(what, "pfn"))
		pr_printf(out, "%s: %s %s is out of range: %llu-%llu", cmd, what, word,
			  (unsigned long long)min, (unsigned long long)max);
	else
		pr_printf(out, "%s: %s %s is out of range: %#llx-%#llx", cmd, what, word,
			  (unsigned long long)min, (unsigned long long)max);
	if (why)
		pr_printf(out, " (%s)", why);
	pr_printf(out, "\n");
	return -ERANGE;
}

int shell_arg_u64(struct printer *out, const char *cmd, const char *what, const char *word,
		  u64 min, u64 max, const char *why, u64 *val)
{
	u64 v;
	int err = parse_u64(word, &v);

	if (err == -ERANGE)
		return shell_arg_range_error(out, cmd, what, word, min, max, why);
	if (err) {
		pr_printf(out, "%s: %s '%s' is not a number\n", cmd, what, word);
		return -EINVAL;
	}
	if (v < min || v > max)
		return shell_arg_range_error(out, cmd, what, word, min, max, why);
	*val = v;
	return 0;
}

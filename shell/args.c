/*
 * args.c - reading the numeric arguments of shell commands (see
 * include/shell/args.h): one reader and one set of messages for all.
 */
#include <lib/errno.h>
#include <shell/args.h>
#include <shell/shell.h>
#include <lib/string.h>
#include <lib/kstrtox.h>

/* One reader for commands and views: lib/kstrtox.c's arg_u64(). */
int shell_arg_u64(struct printer *out, const char *cmd, const char *what, const char *word,
		  u64 min, u64 max, const char *why, u64 *val)
{
	return arg_u64(out, cmd, what, word, min, max, why, val);
}

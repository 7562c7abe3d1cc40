/*
 * kstrtox.h - numbers and booleans from text, by the rules Linux's kstrto*()
 * helpers apply to what arrives from a sysfs write or the command line.
 *
 * Every parser takes buf[0, len) (no NUL needed) and allows exactly one
 * trailing newline, the one `echo` appends; anything else that is not part
 * of the number is -EINVAL.  Overflow of the target type is -ERANGE.  On an
 * error *out is not written.
 *
 * Context: any.
 */
#ifndef LIB_KSTRTOX_H
#define LIB_KSTRTOX_H

#include <lib/types.h>

/*
 * kstrtoull() - an unsigned number as kstrtoull(s, 0, ...) reads it: an
 * optional '+', then "0x"/"0X" for hex, a leading 0 for octal, else
 * decimal.  Returns 0, -EINVAL or -ERANGE.
 */
int kstrtoull(const char *buf, size_t len, unsigned long long *out);

/*
 * kstrtoll() - the signed variant: an optional '-' before the number, or a
 * '+' as kstrtoull() takes it, but not both ("-+5" is -EINVAL).
 */
int kstrtoll(const char *buf, size_t len, long long *out);

/*
 * kstrtobool() - only the first character counts (y/Y/t/T/1 true,
 * n/N/f/F/0 false), except "on"/"off", which need the second.
 */
int kstrtobool(const char *buf, size_t len, bool *out);

/*
 * memparse() - a size with an optional K/M/G/T/P/E suffix (either case,
 * powers of 1024), the number read as kstrtoull() reads it: "512M",
 * "0x1000", "2G".  Returns 0, -EINVAL or -ERANGE.
 */
int memparse(const char *buf, size_t len, unsigned long long *out);

/*
 * parse_u64() - the NUL-terminated s as a number the way the shell and the
 * boot code read one: decimal or 0x hex, with an optional K/M/G/T suffix
 * (binary units), nothing after it.  The whole string is checked before
 * overflow is reported, so "12x" is -EINVAL even when the digits alone
 * would overflow.  Returns 0, -EINVAL or -ERANGE; *out only on success.
 */
int parse_u64(const char *s, u64 *out);

/*
 * sysfs_streq() - true if buf[0, len) is word, optionally followed by one
 * newline: the way Linux compares what `echo word >` delivers.
 */
bool sysfs_streq(const char *buf, size_t len, const char *word);

struct printer;

/*
 * arg_u64() - read word with parse_u64() as argument `what` of `who` (a
 * command, or a file as "cma: cma0: alloc"), in [min, max]; on an error
 * print one line to out naming both and, for a number too large or too
 * small (64-bit overflow included), the range and why it is that range:
 *
 *   alloc: order 'x' is not a number
 *   alloc: order 99999999999999999999 is out of range: 0-10 (MAX_PAGE_ORDER)
 *
 * (hex bounds when what names an address or a pfn).  Returns 0 with *val
 * set, -EINVAL or -ERANGE.  The shell's shell_arg_u64() is this function;
 * views that take numbers use it too, so every number reads one way.
 */
int arg_u64(struct printer *out, const char *who, const char *what, const char *word,
	    u64 min, u64 max, const char *why, u64 *val);

#endif

/*
 * args.h - the numeric arguments of shell commands, read one way.
 *
 * Every command that takes a number reads it with shell_arg_u64(), so a
 * malformed, overflowing or out-of-range number gets the same kind of
 * answer everywhere: one line naming the command, the argument and, for a
 * number that is too large or too small, the range it must lie in:
 *
 *   alloc: order 'x' is not a number
 *   alloc: order 99999999999999999999 is out of range: 0-10 (MAX_PAGE_ORDER)
 *   alloc: count 0 is out of range: 1-4096 (the handle table's size)
 *   contig alloc: pfn 0x400000000 is out of range: 0-0x3ffffffff (MAX_PHYSMEM_BITS)
 *
 * A range is printed in decimal, or in hex when the argument is an address
 * or a pfn (its name says so).
 * A number is decimal or 0x hex, with an optional K, M, G or T suffix
 * (binary units), as parse_u64() reads it; a number too large for 64 bits
 * is out of range like any other, never wrapped.
 *
 * Context: main loop only (a shell command).
 */
#ifndef SHELL_ARGS_H
#define SHELL_ARGS_H

#include <lib/types.h>
#include <lib/printer.h>

/*
 * shell_arg_u64() - read word as argument `what` (a lower-case noun:
 * "order", "count", "handle") of command cmd, in [min, max].  why, if not
 * NULL, says where the range comes from and is printed in parentheses
 * after it.  Returns 0 with *val set, or prints the line above and returns
 * -EINVAL (not a number) or -ERANGE (outside [min, max]); *val is then
 * unchanged.
 */
int shell_arg_u64(struct printer *out, const char *cmd, const char *what, const char *word,
		  u64 min, u64 max, const char *why, u64 *val);

#endif

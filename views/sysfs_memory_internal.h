/*
 * sysfs_memory_internal.h - the parsers of views/sysfs_memory.c, for its
 * host test (tests/host/test_sysfs_memory.c), which checks them against
 * Linux's kstrto*() and sysfs_streq() rules value by value.  Nothing else
 * includes this header.
 *
 * Each parses buf[0, len), what a write to a sysfs file brings, with at
 * most one trailing newline.  Context: any (pure functions).
 */
#ifndef VIEWS_SYSFS_MEMORY_INTERNAL_H
#define VIEWS_SYSFS_MEMORY_INTERNAL_H

#include <lib/types.h>

/* sysfs_word_is() - buf is word, optionally followed by one newline. */
bool sysfs_word_is(const char *buf, size_t len, const char *word);

/* parse_ull() - kstrtoull(s, 0, ...): 0, -EINVAL, or -ERANGE. */
int parse_ull(const char *buf, size_t len, unsigned long long *out);

/* parse_ll() - kstrtoll(s, 0, ...): 0, -EINVAL, or -ERANGE. */
int parse_ll(const char *buf, size_t len, long long *out);

/* parse_bool() - kstrtobool(): 1/y/Y/on, 0/n/N/off; 0 or -EINVAL. */
int parse_bool(const char *buf, size_t len, bool *out);

#endif

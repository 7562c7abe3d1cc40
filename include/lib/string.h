/*
 * string.h - the C string and memory functions the kernel provides.
 *
 * Same names and contracts as ISO C, so portable code (mm/, kernel/) builds
 * against the host libc in tests and against lib/string.c in the kernel.
 */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include <lib/types.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);

/*
 * strlcpy() - copy src into dst[0, size) and always NUL-terminate (size>0).
 * Returns strlen(src); a result >= size means the copy was truncated.
 */
size_t strlcpy(char *dst, const char *src, size_t size);

#endif

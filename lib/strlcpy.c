/*
 * strlcpy.c - bounded string copy (not in every C library, so ours is
 * built for the host tests too).
 */
#include <lib/string.h>

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

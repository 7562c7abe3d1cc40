/*
 * string.c - the C memory and string functions for the kernel.
 *
 * The compiler emits calls to memcpy/memset/memmove/memcmp on its own (struct
 * copies, zeroing), so these must exist with exactly these names.  The bulk
 * functions use `rep movsq`/`rep stosq` for the 8-byte part: under QEMU's TCG
 * byte-wise `rep stosb` is slow (it runs one byte per step), and on real
 * hardware these are close to the best simple loops.  The host tests use the C library instead.
 *
 * Context: any.
 */
#include <lib/string.h>

void *memcpy(void *dst, const void *src, size_t n)
{
	void *ret = dst;
	size_t q = n >> 3, r = n & 7;

	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(q) : : "memory");
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(r) : : "memory");
	return ret;
}

void *memset(void *dst, int c, size_t n)
{
	void *ret = dst;
	u64 pattern = 0x0101010101010101ULL * (u8)c;
	size_t q = n >> 3, r = n & 7;

	__asm__ volatile("rep stosq" : "+D"(dst), "+c"(q) : "a"(pattern) : "memory");
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(r) : "a"(pattern) : "memory");
	return ret;
}

void *memmove(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (d == s || n == 0)
		return dst;
	if (d < s || d >= s + n)
		return memcpy(dst, src, n);
	/* Overlap with dst above src: copy backwards, byte by byte. */
	while (n--)
		d[n] = s[n];
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const u8 *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	if (!n)
		return (char *)haystack;
	for (; *haystack; haystack++)
		if (*haystack == *needle && !strncmp(haystack, needle, n))
			return (char *)haystack;
	return NULL;
}

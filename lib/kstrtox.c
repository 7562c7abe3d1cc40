/*
 * kstrtox.c - numbers and booleans from text (see include/lib/kstrtox.h).
 *
 * These are the rules a write to a sysfs file and a parameter on the
 * kernel command line both follow, so that the two paths accept the same
 * values and fail the same way (lib/params.c).
 */
#include <lib/errno.h>
#include <lib/kstrtox.h>
#include <lib/printer.h>
#include <lib/string.h>

/* len without the one trailing newline `echo` appends. */
static size_t strip_newline(const char *buf, size_t len)
{
	return len && buf[len - 1] == '\n' ? len - 1 : len;
}

int kstrtoull(const char *buf, size_t len, unsigned long long *out)
{
	unsigned long long v = 0;
	unsigned base = 10;
	size_t i = 0;

	len = strip_newline(buf, len);
	if (i < len && buf[i] == '+')
		i++;
	if (i + 1 < len && buf[i] == '0' && (buf[i + 1] == 'x' || buf[i + 1] == 'X')) {
		base = 16;
		i += 2;
	} else if (i + 1 < len && buf[i] == '0') {
		base = 8;
		i++;
	}
	if (i >= len)
		return -EINVAL;
	for (; i < len; i++) {
		char c = buf[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
		if (d >= base)
			return -EINVAL;
		if (v > (~0ULL - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

int kstrtoll(const char *buf, size_t len, long long *out)
{
	unsigned long long v;
	bool neg = len && buf[0] == '-';
	int err;

	if (neg && len > 1 && buf[1] == '+')
		return -EINVAL;
	err = kstrtoull(buf + neg, len - neg, &v);
	if (err)
		return err;
	if (neg ? v > (1ULL << 63) : v > (unsigned long long)INT64_MAX)
		return -ERANGE;
	*out = neg ? (long long)(0 - v) : (long long)v;
	return 0;
}

int kstrtobool(const char *buf, size_t len, bool *out)
{
	if (!len)
		return -EINVAL;
	switch (buf[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*out = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*out = false;
		return 0;
	case 'o': case 'O':
		if (len < 2)
			return -EINVAL;
		if (buf[1] == 'n' || buf[1] == 'N') {
			*out = true;
			return 0;
		}
		if (buf[1] == 'f' || buf[1] == 'F') {
			*out = false;
			return 0;
		}
		return -EINVAL;
	default:
		return -EINVAL;
	}
}

int memparse(const char *buf, size_t len, unsigned long long *out)
{
	static const char suffixes[] = "kmgtpe";
	unsigned long long v;
	unsigned shift = 0;
	int err;

	len = strip_newline(buf, len);
	if (len) {
		char c = buf[len - 1];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		for (unsigned i = 0; suffixes[i]; i++)
			if (c == suffixes[i]) {
				shift = 10 * (i + 1);
				break;
			}
	}
	/* "0x1e" is a hex number, not 0x1 exabytes: in a hex number a suffix
	 * that is also a hex digit (only E is) is a digit. */
	if (shift == 60 && len > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
		shift = 0;
	err = kstrtoull(buf, shift ? len - 1 : len, &v);
	if (err)
		return err;
	if (shift && v > (~0ULL >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

bool sysfs_streq(const char *buf, size_t len, const char *word)
{
	size_t wlen = strlen(word);

	len = strip_newline(buf, len);
	return len == wlen && !memcmp(buf, word, len);
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The whole string is checked before overflow is reported, so "12x" is
 * -EINVAL even when the digits alone would overflow.  *out is written only
 * on success.
 */
int parse_u64(const char *s, u64 *out)
{
	unsigned int base = 10, shift = 0, digits = 0;
	bool overflow = false;
	u64 v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++) {
		int d = digit_value(*s);

		if (d < 0 || (unsigned int)d >= base)
			break;
		digits++;
		if (v > (UINT64_MAX - (u64)d) / base)
			overflow = true;
		else
			v = v * base + (u64)d;
	}
	if (!digits)
		return -EINVAL;

	switch (*s) {
	case 'K': case 'k': shift = 10; break;
	case 'M': case 'm': shift = 20; break;
	case 'G': case 'g': shift = 30; break;
	case 'T': case 't': shift = 40; break;
	}
	if (shift)
		s++;
	if (*s)
		return -EINVAL;
	if (overflow || (shift && v > (UINT64_MAX >> shift)))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

/* The out-of-range line for word, as kstrtox.h shows it; returns -ERANGE. */
static int arg_range_error(struct printer *out, const char *who, const char *what,
			   const char *word, u64 min, u64 max, const char *why)
{
	if (min == max)
		pr_printf(out, "%s: %s %s is out of range: it must be %llu", who, what, word,
			  (unsigned long long)min);
	else if (!strstr(what, "address") && !strstr(what, "pfn"))
		pr_printf(out, "%s: %s %s is out of range: %llu-%llu", who, what, word,
			  (unsigned long long)min, (unsigned long long)max);
	else
		pr_printf(out, "%s: %s %s is out of range: %#llx-%#llx", who, what, word,
			  (unsigned long long)min, (unsigned long long)max);
	if (why)
		pr_printf(out, " (%s)", why);
	pr_printf(out, "\n");
	return -ERANGE;
}

int arg_u64(struct printer *out, const char *who, const char *what, const char *word,
	    u64 min, u64 max, const char *why, u64 *val)
{
	u64 v;
	int err = parse_u64(word, &v);

	if (err == -ERANGE)
		return arg_range_error(out, who, what, word, min, max, why);
	if (err) {
		pr_printf(out, "%s: %s '%s' is not a number\n", who, what, word);
		return -EINVAL;
	}
	if (v < min || v > max)
		return arg_range_error(out, who, what, word, min, max, why);
	*val = v;
	return 0;
}

/*
 * cmdline.c - look up "key=value" parameters in the kernel command line.
 *
 * The command line is a list of words separated by white space.  A word is
 * "key=value" or a bare "key" (a flag).  As in Linux:
 *  - double quotes group spaces into one word and are removed, so
 *    c="x y" has the value `x y` and "c=x y" does too;
 *  - the first '=' splits key from value, even inside quotes;
 *  - '-' and '_' are the same character in keys (mem_debug == mem-debug);
 *  - when a key appears more than once, the last occurrence wins;
 *  - a bare "--" ends the kernel's parameters (the rest was meant for init).
 * Nothing is modified and nothing is allocated: the value is written straight
 * into the caller's buffer each time the key matches, so the last match is
 * what remains.
 */
#include <arch/bootinfo.h>
#include <lib/errno.h>
#include <lib/string.h>

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Does key character k match command-line character c? */
static bool key_char_eq(char k, char c)
{
	if (k == '-')
		k = '_';
	if (c == '-')
		c = '_';
	return k == c;
}

/*
 * cmdline_get() - see bootinfo.h.  Each word is read once, left to right,
 * with a quote state; the key part is compared to key on the fly (ki is the
 * number of key characters matched so far, or -1 after a mismatch).
 */
int cmdline_get(const char *cmdline, const char *key, char *buf, size_t size)
{
	const char *p = cmdline;
	bool found = false, cut = false;

	if (!key || !*key)
		return -EINVAL;
	if (!p)
		return -ENOENT;

	for (;;) {
		bool in_quote = false, in_value = false, match = false;
		long ki = 0;
		size_t vlen = 0;

		while (is_space(*p))
			p++;
		if (!*p)
			break;
		if (p[0] == '-' && p[1] == '-' && (p[2] == '\0' || is_space(p[2])))
			break;

		for (; *p; p++) {
			char c = *p;

			if (c == '"') {
				in_quote = !in_quote;
				continue;
			}
			if (is_space(c) && !in_quote)
				break;
			if (!in_value) {
				if (c == '=') {
					in_value = true;
					match = ki >= 0 && key[ki] == '\0';
					if (match) {
						found = true;
						cut = false;
					}
				} else if (ki >= 0 && key[ki] && key_char_eq(key[ki], c)) {
					ki++;
				} else {
					ki = -1;
				}
				continue;
			}
			if (!match)
				continue;
			if (vlen + 1 < size)
				buf[vlen++] = c;
			else if (size)
				cut = true;
		}

		/* A bare key is a flag with the empty value. */
		if (!in_value && ki >= 0 && key[ki] == '\0') {
			match = true;
			found = true;
			cut = false;
		}
		if (match && size)
			buf[vlen] = '\0';
	}

	if (!found)
		return -ENOENT;
	return cut ? -EOVERFLOW : 0;
}

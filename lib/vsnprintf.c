/*
 * vsnprintf.c - memlab's one printf formatter.
 *
 * kvsnprintf() implements the subset of C's printf that kernel code uses
 * (see printer.h for the list).  It never allocates and never writes past
 * buf[size-1]; it returns the length the whole output would have had, so
 * callers can detect truncation exactly as with snprintf.
 *
 * Context: any (no locks, no allocation, bounded stack).
 */
#include <lib/printer.h>

/*
 * Where formatted bytes go: either a caller's buffer (kvsnprintf, which
 * truncates), or a small staging buffer flushed into a printer whenever it
 * fills (pr_vprintf, which never truncates).
 */
struct out {
	char *buf;		/* destination or staging buffer */
	size_t size;		/* bytes in buf (NUL included for kvsnprintf) */
	size_t len;		/* bytes produced so far */
	size_t staged;		/* bytes waiting in buf (printer mode) */
	struct printer *sink;	/* NULL in buffer mode */
};

static void out_char(struct out *o, char c)
{
	if (o->sink) {
		o->buf[o->staged++] = c;
		if (o->staged == o->size) {
			o->sink->write(o->sink, o->buf, o->staged);
			o->staged = 0;
		}
	} else if (o->len + 1 < o->size) {
		o->buf[o->len] = c;
	}
	o->len++;
}

static void out_repeat(struct out *o, char c, int n)
{
	while (n-- > 0)
		out_char(o, c);
}

/* Conversion flags parsed from one %... specifier. */
struct spec {
	bool left;	/* '-': pad on the right */
	bool zero;	/* '0': pad numbers with zeros */
	bool plus;	/* '+': sign for positive numbers */
	bool space;	/* ' ': space for positive numbers */
	bool alt;	/* '#': 0x / 0 prefix */
	int width;	/* minimum field width, -1 if none */
	int prec;	/* precision, -1 if none */
};

static void out_string(struct out *o, const struct spec *sp, const char *s)
{
	int len = 0;

	if (!s)
		s = "(null)";
	while (s[len] && (sp->prec < 0 || len < sp->prec))
		len++;
	if (!sp->left)
		out_repeat(o, ' ', sp->width - len);
	for (int i = 0; i < len; i++)
		out_char(o, s[i]);
	if (sp->left)
		out_repeat(o, ' ', sp->width - len);
}

/*
 * Print the magnitude `v` in `base` with the sign/prefix the spec asks for.
 * Digits are produced into a small local array (64 binary digits at most).
 */
static void out_number(struct out *o, const struct spec *sp, u64 v, bool neg,
		       unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[66];
	int n = 0, prefix_len = 0, zeros = 0, total;
	char prefix[3];

	if (v == 0 && sp->prec == 0)
		n = 0;	/* "%.0d" of 0 prints nothing */
	else
		do {
			tmp[n++] = digits[v % base];
			v /= base;
		} while (v);

	if (neg)
		prefix[prefix_len++] = '-';
	else if (sp->plus)
		prefix[prefix_len++] = '+';
	else if (sp->space)
		prefix[prefix_len++] = ' ';
	if (sp->alt && base == 16 && n > 0 && !(n == 1 && tmp[0] == '0')) {
		prefix[prefix_len++] = '0';
		prefix[prefix_len++] = upper ? 'X' : 'x';
	} else if (sp->alt && base == 8 && (n == 0 || tmp[n - 1] != '0')) {
		prefix[prefix_len++] = '0';
	}

	if (sp->prec > n)
		zeros = sp->prec - n;
	total = prefix_len + zeros + n;
	if (sp->zero && !sp->left && sp->prec < 0 && sp->width > total) {
		zeros += sp->width - total;
		total = sp->width;
	}
	if (!sp->left)
		out_repeat(o, ' ', sp->width - total);
	for (int i = 0; i < prefix_len; i++)
		out_char(o, prefix[i]);
	out_repeat(o, '0', zeros);
	while (n > 0)
		out_char(o, tmp[--n]);
	if (sp->left)
		out_repeat(o, ' ', sp->width - total);
}

/* Length modifiers, widest last. */
enum length { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE, LEN_PTRDIFF, LEN_MAX };

static s64 arg_signed(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_CHAR: return (signed char)va_arg(*ap, int);
	case LEN_SHORT: return (short)va_arg(*ap, int);
	case LEN_LONG: return va_arg(*ap, long);
	case LEN_LLONG: return va_arg(*ap, long long);
	case LEN_SIZE: return (s64)va_arg(*ap, size_t);
	case LEN_PTRDIFF: return va_arg(*ap, ptrdiff_t);
	case LEN_MAX: return va_arg(*ap, intmax_t);
	default: return va_arg(*ap, int);
	}
}

static u64 arg_unsigned(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_CHAR: return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_SHORT: return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_LONG: return va_arg(*ap, unsigned long);
	case LEN_LLONG: return va_arg(*ap, unsigned long long);
	case LEN_SIZE: return va_arg(*ap, size_t);
	case LEN_PTRDIFF: return (u64)va_arg(*ap, ptrdiff_t);
	case LEN_MAX: return va_arg(*ap, uintmax_t);
	default: return va_arg(*ap, unsigned int);
	}
}

/* format() - run fmt with the arguments in ap into o. */
static void format(struct out *o_, const char *fmt, va_list ap_in)
{
	struct out o = *o_;
	va_list ap;

	va_copy(ap, ap_in);
	for (const char *f = fmt; *f; f++) {
		struct spec sp = { .width = -1, .prec = -1 };
		enum length len = LEN_INT;

		if (*f != '%') {
			out_char(&o, *f);
			continue;
		}
		f++;
		for (;; f++) {	/* flags */
			if (*f == '-') sp.left = true;
			else if (*f == '0') sp.zero = true;
			else if (*f == '+') sp.plus = true;
			else if (*f == ' ') sp.space = true;
			else if (*f == '#') sp.alt = true;
			else break;
		}
		if (*f == '*') {
			sp.width = va_arg(ap, int);
			if (sp.width < 0) {
				sp.left = true;
				sp.width = -sp.width;
			}
			f++;
		} else {
			while (*f >= '0' && *f <= '9') {
				sp.width = (sp.width < 0 ? 0 : sp.width) * 10 + (*f - '0');
				if (sp.width > 4096)
					sp.width = 4096;
				f++;
			}
		}
		if (*f == '.') {
			f++;
			sp.prec = 0;
			if (*f == '*') {
				sp.prec = va_arg(ap, int);
				f++;
			} else {
				while (*f >= '0' && *f <= '9') {
					sp.prec = sp.prec * 10 + (*f - '0');
					if (sp.prec > 4096)
						sp.prec = 4096;
					f++;
				}
			}
		}
		if (*f == 'h') {
			len = LEN_SHORT;
			if (*++f == 'h') { len = LEN_CHAR; f++; }
		} else if (*f == 'l') {
			len = LEN_LONG;
			if (*++f == 'l') { len = LEN_LLONG; f++; }
		} else if (*f == 'z') { len = LEN_SIZE; f++; }
		else if (*f == 't') { len = LEN_PTRDIFF; f++; }
		else if (*f == 'j') { len = LEN_MAX; f++; }

		switch (*f) {
		case 'd':
		case 'i': {
			s64 v = arg_signed(&ap, len);
			u64 mag = v < 0 ? (u64)0 - (u64)v : (u64)v;

			out_number(&o, &sp, mag, v < 0, 10, false);
			break;
		}
		case 'u':
			out_number(&o, &sp, arg_unsigned(&ap, len), false, 10, false);
			break;
		case 'x':
		case 'X':
			out_number(&o, &sp, arg_unsigned(&ap, len), false, 16, *f == 'X');
			break;
		case 'o':
			out_number(&o, &sp, arg_unsigned(&ap, len), false, 8, false);
			break;
		case 'c': {
			char c = (char)va_arg(ap, int);

			if (!sp.left)
				out_repeat(&o, ' ', sp.width - 1);
			out_char(&o, c);
			if (sp.left)
				out_repeat(&o, ' ', sp.width - 1);
			break;
		}
		case 's':
			out_string(&o, &sp, va_arg(ap, const char *));
			break;
		case 'p': {
			struct spec ps = { .alt = false, .width = -1, .prec = 16 };

			out_char(&o, '0');
			out_char(&o, 'x');
			out_number(&o, &ps, (u64)(uintptr_t)va_arg(ap, void *), false, 16, false);
			break;
		}
		case '%':
			out_char(&o, '%');
			break;
		case '\0':
			f--;	/* a lone '%' at the end: stop at the NUL */
			break;
		default:	/* unknown conversion: print it as is */
			out_char(&o, '%');
			out_char(&o, *f);
			break;
		}
	}
	va_end(ap);
	*o_ = o;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { .buf = buf, .size = size };

	format(&o, fmt, ap);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

void pr_vprintf(struct printer *p, const char *fmt, va_list ap)
{
	char stage[128];
	struct out o = { .buf = stage, .size = sizeof(stage), .sink = p };

	format(&o, fmt, ap);
	if (o.staged)
		p->write(p, stage, o.staged);
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

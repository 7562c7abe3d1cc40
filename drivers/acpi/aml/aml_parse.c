/*
 * aml_parse.c - the encodings every opcode shares: PkgLength (the lead
 * bytes of names are aml_is_name_start(), inline in aml_internal.h).  Bounds are checked against the end of the
 * enclosing block, so a length that points outside fails here.
 */
#include "aml_internal.h"

/* aml_pkglen_raw() - the value of a PkgLength encoding at *p, unchecked
 * against what follows (a field's width in bits); advances *p. */
int aml_pkglen_raw(const u8 **p, const u8 *end, u32 *len)
{
	const u8 *s = *p;

	if (s >= end)
		return AML_EPARSE;
	unsigned extra = s[0] >> 6;
	u32 v;

	if ((size_t)(end - s) < 1 + extra)
		return AML_EPARSE;
	if (!extra) {
		v = s[0] & 0x3f;
	} else {
		v = s[0] & 0x0f;
		for (unsigned i = 0; i < extra; i++)
			v |= (u32)s[1 + i] << (4 + 8 * i);
	}
	*len = v;
	*p = s + 1 + extra;
	return AML_OK;
}

/*
 * aml_pkglen() - decode a PkgLength at *p (ACPI 6.5 20.2.4): the lead
 * byte's bits 7-6 count the bytes that follow (0-3); with none, bits 5-0
 * are the length, otherwise bits 3-0 are its low nibble and each following
 * byte adds 8 bits.  *len counts from the first byte of the PkgLength.
 * Advances *p past it.  AML_EPARSE if it does not fit before end or
 * claims more than is left.  Context: any.
 */
int aml_pkglen(const u8 **p, const u8 *end, u32 *len)
{
	const u8 *s = *p;
	u32 v;

	if (aml_pkglen_raw(p, end, &v))
		return AML_EPARSE;
	if (v < (u32)(*p - s) || v > (u32)(end - s)) {
		*p = s;
		return AML_EPARSE;
	}
	*len = v;
	return AML_OK;
}

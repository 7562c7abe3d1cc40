/*
 * kallsyms.c - look up function names in the table tools/kallsyms.sh makes.
 *
 * It lives in arch/ because the table is part of the kernel image as this
 * architecture links it (the .kallsyms section that linker.ld places last in
 * .rodata, bounded by _etext of arch/sections.h), and because its first
 * user is traps.c: an exception report must name functions at any moment,
 * before kmain has set anything up, so traps.c calls it directly instead of
 * through a hook registered later.
 *
 * Table layout (see tools/kallsyms.sh): kallsyms_num entries, addresses
 * sorted ascending in kallsyms_addrs[], and for each the offset of its
 * NUL-terminated name in kallsyms_names.  Lookup is a binary search for the
 * last address <= addr.
 */
#include <arch/kallsyms.h>
#include <arch/sections.h>

extern const u64 kallsyms_num;
extern const u64 kallsyms_addrs[];
extern const u32 kallsyms_offsets[];
extern const char kallsyms_names[];

u64 kallsyms_count(void)
{
	return kallsyms_num;
}

const char *kallsyms_lookup(u64 addr, u64 *offset, u64 *size)
{
	u64 lo = 0, hi = kallsyms_num, next;

	if (!kallsyms_num || addr < kallsyms_addrs[0] ||
	    addr >= (u64)(uintptr_t)_etext)
		return NULL;
	/* invariant: kallsyms_addrs[lo] <= addr, and addr < kallsyms_addrs[hi] if hi < num */
	while (hi - lo > 1) {
		u64 mid = lo + (hi - lo) / 2;

		if (kallsyms_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	next = lo + 1 < kallsyms_num ? kallsyms_addrs[lo + 1] : (u64)(uintptr_t)_etext;
	*offset = addr - kallsyms_addrs[lo];
	*size = next - kallsyms_addrs[lo];
	return &kallsyms_names[kallsyms_offsets[lo]];
}

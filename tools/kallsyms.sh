#!/bin/sh
# kallsyms.sh - write the .kallsyms table (assembly) for an ELF's functions.
#
# Usage: tools/kallsyms.sh NM ELF > kallsyms.S
#        tools/kallsyms.sh NM --empty > kallsyms.S   (the first link's table)
#
# Only text symbols (nm types t/T/w/W) are listed, sorted by address, one
# name per address (the first nm prints).  Layout: see arch/x86_64/kallsyms.c.
set -eu
NM=$1
ELF=$2

{
	if [ "$ELF" = "--empty" ]; then
		:
	else
		"$NM" -n --defined-only "$ELF" | awk '$2 ~ /^[tTwW]$/ && $3 !~ /^\.L/ && $3 !~ /^\$/ { print $1, $3 }'
	fi
} | awk '
BEGIN { n = 0; last = "" }
{
	# Several names at one address: prefer one without a leading "_"
	# (linker-script markers such as _text) over the function itself.
	if ($1 == last) {
		if (name[n - 1] ~ /^_/ && $2 !~ /^_/) name[n - 1] = $2
		next
	}
	last = $1
	addr[n] = $1; name[n] = $2; n++
}
END {
	print "\t.section .kallsyms, \"a\""
	print "\t.balign 8"
	print "\t.globl kallsyms_num, kallsyms_addrs, kallsyms_offsets, kallsyms_names"
	print "kallsyms_num:\n\t.quad " n
	print "kallsyms_addrs:"
	for (i = 0; i < n; i++) print "\t.quad 0x" addr[i]
	print "kallsyms_offsets:"
	off = 0
	for (i = 0; i < n; i++) { print "\t.long " off; off += length(name[i]) + 1 }
	print "kallsyms_names:"
	for (i = 0; i < n; i++) print "\t.asciz \"" name[i] "\""
	print "\t.balign 8"
}'

#!/bin/sh
# mkiso.sh - build a BIOS-bootable GRUB ISO that boots a memlab kernel.
#
# Usage: tools/mkiso.sh KERNEL.elf OUT.iso [CMDLINE]
#
# The ISO holds the kernel and a grub.cfg (from iso/grub.cfg) whose
# multiboot2 line carries CMDLINE.  Only the GRUB modules needed to read
# the ISO and load a multiboot2 kernel are installed, which keeps the ISO
# small (a few MiB) and grub-mkrescue fast.
set -eu
ELF=$1
OUT=$2
CMDLINE=${3:-}
HERE=$(cd "$(dirname "$0")/.." && pwd)

case "$CMDLINE" in
*'
'*) echo "mkiso.sh: the command line must be one line" >&2; exit 1 ;;
esac

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/memlab-iso.XXXXXX")
LOG="$STAGE.log"	# outside the tree being packed
trap 'rm -rf "$STAGE" "$LOG"' EXIT
mkdir -p "$STAGE/boot/grub"
cp "$ELF" "$STAGE/boot/memlab.elf"
# Escape the characters sed treats specially in a replacement.
ESCAPED=$(printf '%s' "$CMDLINE" | sed -e 's/[\\&|]/\\&/g')
sed "s|@CMDLINE@|$ESCAPED|" "$HERE/iso/grub.cfg" > "$STAGE/boot/grub/grub.cfg"

mkdir -p "$(dirname "$OUT")"
grub-mkrescue -o "$OUT.tmp" "$STAGE" \
	--install-modules="multiboot2 normal configfile iso9660 biosdisk part_msdos" \
	--modules="multiboot2 normal iso9660 biosdisk" \
	--locales= --fonts= --themes= --compress=xz \
	> "$LOG" 2>&1 || { cat "$LOG" >&2; rm -f "$OUT.tmp"; exit 1; }
mv "$OUT.tmp" "$OUT"

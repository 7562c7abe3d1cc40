#!/bin/sh
# mkiso.sh - build a hybrid GRUB ISO that boots a memlab kernel.
#
# Usage: tools/mkiso.sh KERNEL.elf OUT.iso [CMDLINE]
#
# The ISO holds the kernel and a grub.cfg (from iso/grub.cfg) whose
# multiboot2 line carries CMDLINE.  grub-mkrescue writes one image that boots
# from a CD and, written raw, from a USB stick, for every GRUB platform whose
# modules are installed:
#
#   grub-pc-bin          legacy BIOS (El Torito, and an MBR for a stick)
#   grub-efi-amd64-bin   UEFI (an EFI system partition image, mtools)
#
# Without grub-efi-amd64-bin the image is BIOS-only, and this script says so
# in one line.  The module lists below name only modules that exist on every
# platform: grub-mkrescue applies them to each platform it builds, and a
# module of one platform only (biosdisk) would break the other one.  Each
# platform's core image already carries its own disk driver (biosdisk on
# BIOS, efidisk on UEFI).  all_video brings the platform's framebuffer
# drivers (vbe or efi_gop), which the multiboot2 framebuffer request needs.
#
# Testing hook, as in deps.sh: MKISO_FAKE_MISSING="grub-efi-amd64-bin"
# builds as if that package were not installed (tests/qemu/test_iso.py).
set -eu
ELF=$1
OUT=$2
CMDLINE=${3:-}
HERE=$(cd "$(dirname "$0")/.." && pwd)
GRUB_LIB=/usr/lib/grub

case "$CMDLINE" in
*'
'*) echo "mkiso.sh: the command line must be one line" >&2; exit 1 ;;
esac

if [ ! -f "$GRUB_LIB/i386-pc/moddep.lst" ]; then
	echo "mkiso.sh: GRUB's BIOS modules are missing ($GRUB_LIB/i386-pc): apt-get install grub-pc-bin" >&2
	exit 1
fi
# -d names one platform's directory: grub-mkrescue then builds that one only.
ONLY=
case " ${MKISO_FAKE_MISSING:-} " in
*" grub-efi-amd64-bin "*) ONLY="-d $GRUB_LIB/i386-pc" ;;
esac
if [ -z "$ONLY" ] && [ -f "$GRUB_LIB/x86_64-efi/moddep.lst" ]; then
	PLATFORMS="BIOS and UEFI"
else
	PLATFORMS="BIOS only"
	echo "mkiso.sh: $OUT boots under legacy BIOS only (install grub-efi-amd64-bin for UEFI)"
fi

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/memlab-iso.XXXXXX")
LOG="$STAGE.log"	# outside the tree being packed
trap 'rm -rf "$STAGE" "$LOG"' EXIT
mkdir -p "$STAGE/boot/grub"
cp "$ELF" "$STAGE/boot/memlab.elf"
# Escape the characters sed treats specially in a replacement.
ESCAPED=$(printf '%s' "$CMDLINE" | sed -e 's/[\\&|]/\\&/g')
sed "s|@CMDLINE@|$ESCAPED|" "$HERE/iso/grub.cfg" > "$STAGE/boot/grub/grub.cfg"
printf '%s\n' "$PLATFORMS" > "$STAGE/boot/platforms.txt"

# The UEFI image's built-in configuration loads every partition map GRUB
# knows; installing them all (a few KiB) keeps that boot free of errors.
PARTS="part_acorn part_amiga part_apple part_bsd part_dfly part_dvh part_gpt part_msdos part_plan part_sun part_sunpc"

mkdir -p "$(dirname "$OUT")"
# shellcheck disable=SC2086  # ONLY is an option and its argument
grub-mkrescue -o "$OUT.tmp" $ONLY "$STAGE" \
	--install-modules="multiboot2 normal configfile iso9660 $PARTS all_video test" \
	--modules="multiboot2 normal iso9660 part_msdos part_gpt" \
	--locales= --fonts= --themes= --compress=xz \
	> "$LOG" 2>&1 || { cat "$LOG" >&2; rm -f "$OUT.tmp"; exit 1; }
mv "$OUT.tmp" "$OUT"

#!/usr/bin/env bash
# deps.sh - make sure the Debian packages memlab needs are installed.
#
#   tools/deps.sh build|run|test|bench [EXTRA-PACKAGE ...]
#
#   build  compile the kernel and make the GRUB ISO
#   run    build + QEMU               (make run, make debug)
#   test   run + grub-efi-amd64-bin and ovmf (the ISO's UEFI half, booted
#          under OVMF), python3, pytest, pytest-xdist (make test runs the
#          QEMU scenarios two at a time), gdb (tests/qemu/test_gdb.py runs
#          tools/memlab_gdb.py against QEMU's gdb server), clang with its
#          libFuzzer runtime, chromium (tests/qemu/test_view.py loads the
#          memory page of tools/memview.py in headless chromium) and
#          acpica-tools (iasl compiles the AML interpreter's test tables;
#          acpiexec is the reference its results are compared with)
#   bench  test + python3-matplotlib (make bench draws its CSV series as
#          SVG plots with tools/bench_plot.py; make test never needs it)
#          and valgrind (build/bench-pmem_init counts instructions under
#          its callgrind tool)
#          (make test: host tests use gcc's ASan/UBSan runtimes, which come
#          with gcc on Debian; the fuzz tier links -fsanitize=fuzzer, which
#          needs libclang-rt-NN-dev, only a Recommends of clang)
#
# Each package is checked with dpkg-query.  Nothing is printed when all are
# present.  When some are missing: as root, `apt-get update` once and then
# `apt-get install -y --no-install-recommends` them; otherwise print the exact
# `sudo apt-get install ...` line and exit 1.
#
# Exit status: 0 all present (or installed), 1 missing and not root, 2 usage
# or apt-get failure.
#
# Testing hooks (for checking this script itself):
#   DEPS_FAKE_MISSING="pkg ..."  treat these packages as missing
#   DEPS_FAKE_NONROOT=1          behave as if not running as root
#   DEPS_DRY_RUN=1               print the apt-get commands instead of running them

set -u

prog=tools/deps.sh

build_pkgs="gcc make binutils nasm xorriso grub-pc-bin grub-common mtools"
run_pkgs="$build_pkgs qemu-system-x86"
# libclang-rt-NN-dev must match clang's version: 14 on Debian 12.
clang_ver=14
for v in $(dpkg-query -W -f='${Package}\n' 'clang-[0-9]*' 2>/dev/null | sed -n 's/^clang-\([0-9][0-9]*\)$/\1/p'); do
	[ "$(dpkg-query -W -f='${Status}' "clang-$v" 2>/dev/null)" = "install ok installed" ] && clang_ver=$v
done
test_pkgs="$run_pkgs grub-efi-amd64-bin ovmf python3 python3-pytest python3-pytest-xdist clang libclang-rt-$clang_ver-dev gdb chromium nodejs acpica-tools"
bench_pkgs="$test_pkgs python3-matplotlib valgrind"

usage() {
	echo "usage: $prog build|run|test|bench [EXTRA-PACKAGE ...]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
case "$1" in
build) want=$build_pkgs ;;
run)   want=$run_pkgs ;;
test)  want=$test_pkgs ;;
bench) want=$bench_pkgs ;;
-h|--help)
	sed -n '2,35s/^# \{0,1\}//p' "$0"
	exit 0 ;;
*)     usage ;;
esac
what=$1
shift
want="$want $*"

# installed PKG: true if dpkg knows PKG as installed (and not faked missing).
installed() {
	case " ${DEPS_FAKE_MISSING:-} " in
	*" $1 "*) return 1 ;;
	esac
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

if ! command -v dpkg-query >/dev/null 2>&1; then
	# Not Debian: we cannot check packages, so check the main programs.
	cmds="gcc make ld nasm xorriso grub-mkrescue"
	case $what in
	run)  cmds="$cmds qemu-system-x86_64" ;;
	test|bench) cmds="$cmds qemu-system-x86_64 python3" ;;
	esac
	lack=
	for c in $cmds; do
		command -v "$c" >/dev/null 2>&1 || lack="$lack $c"
	done
	if [ -n "$lack" ]; then
		echo "$prog: dpkg-query not found (not a Debian system?); missing programs:$lack" >&2
		echo "$prog: install the equivalents of: $want" >&2
		exit 1
	fi
	exit 0
fi

missing=
for p in $want; do
	case " $missing " in *" $p "*) continue ;; esac
	installed "$p" || missing="$missing $p"
done
missing=${missing# }
[ -z "$missing" ] && exit 0

uid=$(id -u)
[ "${DEPS_FAKE_NONROOT:-0}" = 1 ] && uid=1000

if [ "$uid" != 0 ]; then
	echo "$prog: missing Debian packages for '$what': $missing" >&2
	echo "$prog: install them as root with:" >&2
	echo "sudo apt-get install $missing"
	exit 1
fi

run() {
	echo "$prog: $*" >&2
	[ "${DEPS_DRY_RUN:-0}" = 1 ] && return 0
	"$@"
}

echo "$prog: installing missing Debian packages for '$what': $missing" >&2
export DEBIAN_FRONTEND=noninteractive
run apt-get update -q || { echo "$prog: apt-get update failed" >&2; exit 2; }
# shellcheck disable=SC2086  # word splitting of the package list is wanted
run apt-get install -y --no-install-recommends $missing || {
	echo "$prog: apt-get install failed" >&2
	exit 2
}
exit 0

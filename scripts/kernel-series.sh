#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The patch series for Linux 6.12, patches/linux-6.12/, as media maintainers
# receive it: generated from the overlay, never edited by hand.
#
#   kernel-series.sh --write   regenerate patches/linux-6.12/
#   kernel-series.sh --checkout N
#                              commit the series and leave the tree at its
#                              patch N, to edit files 6.12 already has
#   kernel-series.sh --refresh N
#                              after such edits: rewrite patch N's .diff from
#                              that commit and the edits
#   kernel-series.sh --check   fail unless patches/linux-6.12/ is what the
#                              sources give, byte for byte, and unless the
#                              series, applied with git am onto pristine 6.12,
#                              reproduces every kernel file of the overlay;
#                              leaves the tree with the series applied
#
# The sources, in patches/series/, one patch each, in review order:
#   NN-name.msg    the commit message (subject, blank line, body; the
#                  Signed-off-by is added)
#   NN-name.files  the overlay files the patch carries whole, one a line (new
#                  files, or a file of 6.12 the overlay holds in full); a line
#                  ending in / stands for every file of the overlay under it
#   NN-name.diff   changes to files of 6.12 the overlay does not hold
#   cover-letter   the cover letter: its first paragraph is the subject
# Every kernel file of the overlay (include/, drivers/, rust/kernel/ but the
# core's Cargo side, Documentation/userspace-api/media/v4l/ and drivers/) must be carried
# by exactly one patch.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/kernel-tree.sh
. "$here/scripts/kernel-tree.sh"
series=$here/patches/series
committed=$here/patches/linux-$kernel_version

mode=${1:-}
case $mode in
--write | --check) ;;
--checkout | --refresh)
	[ -n "${2:-}" ] || { echo "usage: $0 $mode N" >&2; exit 2; }
	;;
*)
	echo "usage: $0 --write|--check|--checkout N|--refresh N" >&2
	exit 2
	;;
esac

die() {
	echo "kernel-series: $*" >&2
	exit 1
}

# Kernel files of the overlay, as tracked by git.
overlay_files() {
	git -C "$here" ls-files -- include drivers rust/kernel 'Documentation/userspace-api/media/v4l/*.rst' \
		'Documentation/userspace-api/media/drivers/*.rst' |
		grep -vE '^rust/kernel/media/h264enc/(Cargo\.toml|cbindgen\.toml|examples/|tests/)'
}

# The overlay files a .files list names, one a line.
carried_files() {
	local line
	while read -r line; do
		[ -n "$line" ] || continue
		case $line in
		*/) git -C "$here" ls-files -- "$line" ;;
		*) echo "$line" ;;
		esac
	done <"$1"
}

# Every kernel file of the overlay is carried by one patch, and every carried
# file exists.
check_coverage() {
	local all carried dup
	carried=$(for f in "$series"/*.files; do carried_files "$f"; done | sort)
	dup=$(echo "$carried" | uniq -d)
	[ -z "$dup" ] || die "carried by more than one patch: $dup"
	all=$(overlay_files | sort)
	missing=$(comm -23 <(echo "$all") <(echo "$carried"))
	[ -z "$missing" ] || die "kernel files of the overlay in no patch of patches/series/: $missing"
	extra=$(comm -13 <(echo "$all") <(echo "$carried"))
	[ -z "$extra" ] || die "patches/series/ names files the overlay does not have: $extra"
}

# Commits the series onto pristine 6.12 and writes it with format-patch to $1.
generate() {
	local out=$1 msg base f
	kernel_pristine_tree
	kernel_git checkout -q -B series pristine
	for msg in "$series"/[0-9][0-9]-*.msg; do
		base=${msg%.msg}
		if [ -f "$base.files" ]; then
			carried_files "$base.files" | while read -r f; do
				install -D -m 0644 "$here/$f" "$kernel_src/$f"
			done
		fi
		if [ -f "$base.diff" ]; then
			kernel_git apply --whitespace=error-all "$base.diff" ||
				die "$(basename "$base.diff") does not apply to 6.12"
		fi
		kernel_git add -f -A .
		kernel_git commit -q -s -F "$msg"
	done
	kernel_git config branch.series.description "$(cat "$series/cover-letter")"
	rm -rf "$out"
	mkdir -p "$out"
	kernel_git format-patch -q --cover-letter --cover-from-description=subject \
		--zero-commit --no-signature --no-renames -o "$out" pristine..series
}

# The source files of patch $1 (a number), without extension.
patch_base() {
	local base
	base=$(find "$series" -name "$(printf '%02d' "$1")-*.msg" | head -1)
	[ -n "$base" ] || die "no patch $1 in patches/series/"
	echo "${base%.msg}"
}

check_coverage
case $mode in
--checkout)
	base=$(patch_base "$2")
	generate "$(mktemp -d)"
	kernel_git checkout -q --detach "series~$(($(find "$series" -name '[0-9][0-9]-*.msg' | wc -l) - $2))"
	echo "kernel-series: $kernel_src is at patch $2, $(kernel_git log -1 --format=%s)"
	exit 0
	;;
--refresh)
	base=$(patch_base "$2")
	[ "$(kernel_git log -1 --format=%B | sed '/^Signed-off-by:/d;${/^$/d}')" = "$(cat "$base.msg")" ] ||
		die "$kernel_src is not at patch $2 (scripts/kernel-series.sh --checkout $2)"
	carried=$([ -f "$base.files" ] && carried_files "$base.files" || true)
	mapfile -t changed < <({ kernel_git diff --name-only HEAD~1 HEAD; kernel_git diff --name-only HEAD; } |
		sort -u | grep -vxF -e "$carried" || true)
	if [ ${#changed[@]} -gt 0 ]; then
		kernel_git diff HEAD~1 -- "${changed[@]}" >"$base.diff"
	else
		rm -f "$base.diff"
	fi
	echo "kernel-series: rewrote $(basename "$base").diff (${#changed[@]} files); now run --write"
	exit 0
	;;
esac
if [ "$mode" = --write ]; then
	generate "$committed"
	echo "kernel-series: wrote $(find "$committed" -name '*.patch' | wc -l) patches to patches/linux-$kernel_version/"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
generate "$tmp/series"
if ! diff -r "$committed" "$tmp/series" >"$tmp/diff"; then
	head -40 "$tmp/diff" >&2
	die "patches/linux-$kernel_version/ is not what the sources give: run scripts/kernel-series.sh --write"
fi
echo "kernel-series: patches/linux-$kernel_version/ is what patches/series/ and the overlay give"

# As a maintainer applies it.
kernel_pristine_tree
kernel_git checkout -q -B applied pristine
mapfile -t patches < <(find "$committed" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort)
kernel_git am -q "${patches[@]}" || die "git am of the series onto pristine 6.12 failed"
n=0
while read -r f; do
	cmp -s "$here/$f" "$kernel_src/$f" || die "after git am, $f differs from the overlay"
	n=$((n + 1))
done < <(overlay_files)
echo "kernel-series: git am of ${#patches[@]} patches onto pristine $kernel_version reproduces all $n kernel files of the overlay"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The project as a patch series for Linux 6.12 (Debian's linux-source-6.12),
# built and run with the toolchain 6.12 wants: clang/LLVM 19 (LLVM=1),
# Debian's rustc-web, bindgen-cli 0.69 on libclang 19.
#   1. the series: patches/linux-6.12/ is what the overlay gives, and git am
#      of it onto pristine 6.12 reproduces every kernel file of the overlay
#      (scripts/kernel-series.sh --check)
#   2. checkpatch --strict on every patch and on include/media/h264enc.h: no
#      error, warning or check; kernel-doc -Wall on the overlay's C files; the
#      media documentation (make SPHINXDIRS=userspace-api/media htmldocs)
#      builds the series' pages with no warning that names them or the
#      series' identifiers
#   3. each patch builds on its own: the x86_64 configuration below, W=1, at
#      every commit of the series, the directories the series touches
#   4. x86_64 kernel, CONFIG_RUST with overflow checks, W=1, LLVM=1: the
#      core as kernel::media::h264enc, hantro with the H.264 encoder, whose
#      h264enc_* calls modpost resolves against vmlinux; no warning in the
#      series' files
#   5. the same for ARCH=arm64 with the STM32MP25 VENC
#   6. make rustfmtcheck, and clippy over the kernel crate (CLIPPY=1)
#   7. KUnit under UML: the control validation's suite
#   8. QEMU (TCG) boot of the x86_64 kernel (/init is scripts/kernel-vm-init.sh):
#      the KUnit suites of the core (built in) and of the backend (in
#      hantro-vpu.ko) pass, the modules load, v4l2-compliance runs on vim2m and
#      vivid with no failure but the named version-skew ones
# Each step prints its time. Work files live in $H264ENC_KERNEL_DIR (default
# ~/.cache/h264enc-kernel): the pristine tree, bindgen and the build
# directories stay between runs, so a second run rebuilds only what changed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/kernel-tree.sh
. "$here/scripts/kernel-tree.sh"
work=$kernel_work
src=$kernel_src
x86=$work/build-x86_64
arm=$work/build-arm64
kobj=$work/kunit
jobs=$(nproc)

t_all=$(date +%s)
t_step=$t_all
step() {
	local now
	now=$(date +%s)
	[ -n "${step_name:-}" ] && echo "kernel-check: ${step_name}: $((now - t_step)) s"
	step_name=$1
	t_step=$now
}
die() {
	echo "kernel-check: $*" >&2
	exit 1
}

# shellcheck source=scripts/kernel-build.sh
. "$here/scripts/kernel-build.sh"

step "toolchain"
kernel_toolchain || die "cannot install the toolchain"
"$kernel_bindgen" --version
# rustavailable runs in the tree: unpack it first (a fresh machine has none).
kernel_pristine_tree
kmake -s O="$work/rustavailable" rustavailable >"$work/rustavailable.log" 2>&1 || {
	cat "$work/rustavailable.log" >&2
	die "Linux $kernel_version does not accept the Rust toolchain"
}
/usr/bin/rustc --version
clang --version | head -1

step "series"
"$here/scripts/kernel-series.sh" --check
# The tree is now pristine 6.12 with the series applied by git am (branch
# "applied"): one commit a patch.
mapfile -t commits < <(kernel_git rev-list --reverse pristine..applied)
mapfile -t patches < <(find "$here/patches/linux-$kernel_version" -name '[0-9]*.patch' ! -name '0000-*' | sort)

step "checkpatch"
checkpatch=("$src/scripts/checkpatch.pl" --strict --no-tree --show-types --color=never)
total() { grep -E '^total: ' | tail -1; }
sum_err=0 sum_warn=0 sum_chk=0
for p in "${patches[@]}" "$here/include/media/h264enc.h"; do
	case $p in
	*.patch) out=$(cd "$src" && "${checkpatch[@]}" "$p" 2>&1 || true) ;;
	*) out=$(cd "$src" && "${checkpatch[@]}" -f "$p" 2>&1 || true) ;;
	esac
	t=$(echo "$out" | total)
	read -r e w c < <(echo "$t" | sed -E 's/total: ([0-9]+) errors?, ([0-9]+) warnings?, ([0-9]+) checks?.*/\1 \2 \3/')
	[ -n "$t" ] || { echo "$out" >&2; die "checkpatch printed no total for $(basename "$p")"; }
	echo "kernel-check: checkpatch $(basename "$p"): $t"
	sum_err=$((sum_err + e)) sum_warn=$((sum_warn + w)) sum_chk=$((sum_chk + c))
	if [ "$e$w$c" != "000" ]; then
		echo "$out" >&2
		die "checkpatch --strict is not clean on $(basename "$p")"
	fi
done
echo "kernel-check: checkpatch --strict: $sum_err errors, $sum_warn warnings, $sum_chk checks on ${#patches[@]} patches and include/media/h264enc.h"

step "kernel-doc"
# Every C file and header of the overlay: kernel-doc -Wall finds nothing to
# say (undocumented members or parameters, missing Return: sections). Of a
# file 6.12 has (the overlay holds some whole), only what its 6.12 version
# does not already say counts, line numbers aside.
kdoc() { "$src/scripts/kernel-doc" -none -Wall "$1" 2>&1 | sed -E 's/^[^:]*:[0-9]+: //' | sort || true; }
mapfile -t cfiles < <(git -C "$here" ls-files -- include drivers rust/kernel | grep -E '\.[ch]$')
for f in "${cfiles[@]}"; do
	w=$(kdoc "$here/$f")
	if [ -n "$w" ] && kernel_git cat-file -e "pristine:$f" 2>/dev/null; then
		kernel_git show "pristine:$f" >"$work/kdoc-pristine"
		w=$(comm -23 <(echo "$w") <(kdoc "$work/kdoc-pristine"))
	fi
	[ -z "$w" ] || { echo "$w" >&2; die "kernel-doc warns on $f"; }
done
echo "kernel-check: kernel-doc -Wall: no warning on ${#cfiles[@]} C files and headers"

step "media documentation (htmldocs)"
# The kernel's own build of the media uAPI book, with the series applied: the
# specification, the control reference and hantro's page must be built, and
# no warning may name them or the identifiers they define. The tree has
# warnings of its own (labels of other books, dot(1) missing without
# Graphviz). htmldocs also generates the netlink specs' pages first, with
# tools/net/ynl/ynl-gen-rst.py, which needs PyYAML.
command -v sphinx-build >/dev/null || die "sphinx-build not found (python3-sphinx)"
python3 -c 'import yaml' 2>/dev/null || die "htmldocs needs PyYAML (python3-yaml)"
docs=$work/htmldocs
dlog=$work/htmldocs.log
rm -rf "$docs"
if ! kmake O="$docs" SPHINXDIRS=userspace-api/media htmldocs >"$dlog" 2>&1; then
	tail -40 "$dlog" >&2
	die "make SPHINXDIRS=userspace-api/media htmldocs failed"
fi
grep -q "SKIP *Sphinx" "$dlog" && { cat "$dlog" >&2; die "htmldocs skipped Sphinx"; }
for page in v4l/dev-stateless-encoder v4l/ext-ctrls-codec-stateless-encode drivers/hantro \
	v4l/dev-mem2mem v4l/vidioc-queryctrl; do
	[ -s "$docs/Documentation/output/userspace-api/media/$page.html" ] ||
		die "htmldocs did not build $page.html"
done
grep -q 'href="dev-stateless-encoder.html"' "$docs/Documentation/output/userspace-api/media/v4l/dev-mem2mem.html" ||
	die "the stateless encoder specification is not in the index (dev-mem2mem.rst)"
grep -q 'id="c.v4l2_ctrl_h264_encode_feedback"' \
	"$docs/Documentation/output/userspace-api/media/v4l/ext-ctrls-codec-stateless-encode.html" ||
	die "htmldocs did not declare struct v4l2_ctrl_h264_encode_feedback"
# A warning and the two lines after it (Sphinx continues some on them).
doc_ours='dev-stateless-encoder|ext-ctrls-codec-stateless-encode|drivers/hantro|hantro-media|v4l2-h264-enc|stateless.encoder|h264.encode|hantro_h1|ENCODE_FEEDBACK|ENCODE_PARAMS|ENCODE_RC'
w=$(grep -E -A2 "(WARNING|ERROR|CRITICAL|SEVERE)" "$dlog" | grep -iE "$doc_ours" || true)
[ -z "$w" ] || { echo "$w" >&2; die "htmldocs warns about the series' documentation"; }
echo "kernel-check: htmldocs (userspace-api/media): the series' pages built," \
	"$(grep -cE "(WARNING|ERROR)" "$dlog" || true) warnings of the tree, none about the series"

# The files of the series: warnings that name them fail the builds. The tree
# has clang and rustc warnings of its own elsewhere.
ours='(include/uapi/linux/(v4l2-controls|videodev2|hantro-media)\.h|include/media/(v4l2-)?h264enc?\.h|include/media/v4l2-h264-enc\.h|rust/kernel/media/|rust/kernel/lib\.rs|drivers/media/platform/verisilicon/|drivers/media/v4l2-core/|drivers/media/test-drivers/hantro-h1-emu/)'
# C diagnostics name the file on their own line, rustc's on the "-->" line after.
our_warnings() {
	{
		grep -E "^[^ ]+:[0-9]+:[0-9]+: (warning|error)" "$1" || true
		grep -E -A3 "^(warning|error)" "$1" | grep -E "^ *--> " || true
	} | grep -E "$ours" || true
}

step "config"
kernel_configure "$x86" x86_64 check
kernel_want_config "$x86" RUST=y RUST_OVERFLOW_CHECKS=y MEDIA_H264ENC_CORE=y VIDEO_HANTRO=m \
	VIDEO_HANTRO_H264_ENC=y VIDEO_HANTRO_STM32MP25=y MEDIA_H264ENC_CORE_KUNIT_TEST=y \
	VIDEO_HANTRO_H264_ENC_KUNIT_TEST=y V4L2_H264_ENC_CTRLS_KUNIT_TEST=y VIDEO_VIM2M=m VIDEO_VIVID=m \
	VIDEO_HANTRO_H1_EMU=m || die "the x86_64 configuration is not the one the check needs"
grep -E '^CONFIG_(RUSTC|BINDGEN|CC)_VERSION_TEXT' "$x86/.config"

step "each patch builds on its own (x86_64, W=1)"
# Commit by commit, in the one build directory the full build then reuses:
# the whole configuration each time (olddefconfig drops the options the
# commit does not have yet), the directories the series touches.
for i in "${!commits[@]}"; do
	kernel_git checkout -q --detach "${commits[$i]}"
	cp "$x86/series.config" "$x86/.config"
	kmake -s O="$x86" olddefconfig >/dev/null 2>&1
	log=$x86/patch-$((i + 1)).log
	if ! kmake O="$x86" -j"$jobs" W=1 prepare drivers/media/v4l2-core/ \
		drivers/media/platform/verisilicon/ drivers/media/test-drivers/ rust/ >"$log" 2>&1; then
		tail -40 "$log" >&2
		die "patch $((i + 1)) ($(kernel_git log -1 --format=%s)) does not build"
	fi
	w=$(our_warnings "$log")
	[ -z "$w" ] || { echo "$w" >&2; die "patch $((i + 1)) builds with warnings in our files"; }
	echo "kernel-check: patch $((i + 1))/${#commits[@]} builds, 0 warnings: $(kernel_git log -1 --format=%s)"
done
kernel_git checkout -q applied
cp "$x86/series.config" "$x86/.config"

# Builds vmlinux and the modules in $1 for $2 with W=1 and checks them.
full_build() {
	local dir=$1 arch=$2 image=$3 log=$1/build.log sym ko
	if ! kmake O="$dir" ARCH="$arch" -j"$jobs" W=1 "$image" modules >"$log" 2>&1; then
		tail -60 "$log" >&2
		die "the $arch build failed"
	fi
	w=$(our_warnings "$log")
	[ -z "$w" ] || { echo "$w" >&2; die "warnings in our files in the $arch build"; }
	for sym in h264enc_init h264enc_plan_frame h264enc_complete_frame; do
		grep -qP "\t$sym\tvmlinux\tEXPORT_SYMBOL_GPL" "$dir/Module.symvers" ||
			die "$arch: vmlinux does not export $sym"
	done
	ko=$dir/drivers/media/platform/verisilicon/hantro-vpu.ko
	# Not piped into grep -q: with pipefail, llvm-nm's SIGPIPE would fail it.
	undefined=$(llvm-nm -u "$ko")
	grep -q " U h264enc_plan_frame$" <<<"$undefined" || die "$arch: hantro-vpu.ko does not call the core"
	echo "kernel-check: $arch: $(grep -cE '^ +(CC|RUSTC)' "$log" || true) compilations with W=1, 0 warnings in our files;" \
		"$(find "$dir" -name '*.ko' | wc -l) modules; hantro-vpu.ko links h264enc_* from vmlinux"
}

step "x86_64 kernel (Rust, overflow checks, W=1)"
full_build "$x86" x86_64 bzImage

step "arm64 kernel (Rust, overflow checks, W=1, STM32MP25)"
kernel_configure "$arm" arm64 check
kernel_want_config "$arm" RUST=y RUST_OVERFLOW_CHECKS=y MEDIA_H264ENC_CORE=y VIDEO_HANTRO=m \
	VIDEO_HANTRO_STM32MP25=y VIDEO_HANTRO_H264_ENC=y || die "the arm64 configuration is not the one the check needs"
full_build "$arm" arm64 Image

step "rustfmtcheck and clippy"
kmake -s O="$x86" rustfmtcheck >"$work/rustfmt.log" 2>&1 || {
	cat "$work/rustfmt.log" >&2
	die "rustfmtcheck found unformatted Rust"
}
# 6.12 builds the kernel crate in prepare: remove it so CLIPPY=1 lints it.
rm -f "$x86/rust/kernel.o"
clog=$work/clippy.log
kmake O="$x86" -j"$jobs" CLIPPY=1 prepare >"$clog" 2>&1 || {
	tail -60 "$clog" >&2
	die "the CLIPPY=1 build failed"
}
grep -q "CLIPPY.*rust/kernel.o" "$clog" || die "CLIPPY=1 did not lint the kernel crate"
w=$(our_warnings "$clog")
[ -z "$w" ] || { cat "$clog" >&2; die "clippy warns about our code"; }
echo "kernel-check: rustfmtcheck clean; clippy: 0 warnings in rust/kernel/media/"

step "KUnit (UML)"
kunitconfig=$work/.kunitconfig
cat >"$kunitconfig" <<-EOF
	CONFIG_KUNIT=y
	CONFIG_MEDIA_SUPPORT=y
	CONFIG_MEDIA_SUPPORT_FILTER=y
	CONFIG_MEDIA_TEST_SUPPORT=y
	CONFIG_VIDEO_DEV=y
	CONFIG_V4L2_H264_ENC_CTRLS_KUNIT_TEST=y
EOF
klog=$work/kunit.log
if ! "$src/tools/testing/kunit/kunit.py" run --kunitconfig="$kunitconfig" \
	--build_dir="$kobj" --jobs="$jobs" >"$klog" 2>&1 </dev/null; then
	cat "$klog" >&2
	die "KUnit failed"
fi
grep -E "v4l2-h264-enc-ctrls|Testing complete" "$klog" | tail -4
grep -q "\[PASSED\] v4l2-h264-enc-ctrls" "$klog" || {
	cat "$klog" >&2
	die "the v4l2-h264-enc-ctrls suite did not pass"
}

step "initramfs"
ir=$work/initramfs
rm -rf "$ir"
mkdir -p "$ir"/{bin,dev,proc,sys,tmp,usr/bin}
cp /bin/busybox "$ir/bin/busybox"
cp /usr/bin/v4l2-compliance "$ir/usr/bin/"
ldd /usr/bin/v4l2-compliance | grep -o '/[^ ]*' | while read -r lib; do
	install -D "$lib" "$ir$lib"
done
kmake -s O="$x86" INSTALL_MOD_PATH="$ir" modules_install >"$work/modules-install.log" 2>&1
install -m 0755 "$here/scripts/kernel-vm-init.sh" "$ir/init"
(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"

step "QEMU boot"
vmlog=$work/vm.log
# The guest's clock: without ACPI it has no HPET or PM timer, and under TCG
# on a loaded host its PIT calibration of the TSC fails, so it falls back to
# jiffies (4 ms). CLOCK_MONOTONIC then gives two buffers queued in one tick
# the same timestamp, and v4l2-compliance, which matches capture to output
# buffers by timestamp, fails. The guest's TSC runs at the host's rate under
# TCG: give it that frequency.
tsc_khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
[ "${tsc_khz:-0}" -gt 0 ] || tsc_khz=1000000
timeout 600 qemu-system-x86_64 -accel tcg -m 512 -nographic -no-reboot \
	-kernel "$x86/arch/x86/boot/bzImage" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 tsc_early_khz=$tsc_khz tsc=reliable" \
	</dev/null >"$vmlog" 2>&1 || true
tr -d '\r' <"$vmlog" >"$vmlog.txt"
vmfail() {
	cat "$vmlog.txt" >&2
	die "$*"
}
grep -q "^vm-check: done" "$vmlog.txt" || vmfail "the VM did not finish its checks"
grep -q "^clocksource: Switched to clocksource tsc\$" "$vmlog.txt" ||
	vmfail "the guest's clocksource is not the TSC (timestamps would collide)"
# KUnit: every case of each suite ran and passed (cases counted in the sources).
grep -E "^ *not ok " "$vmlog.txt" >&2 && vmfail "a KUnit test failed"
for suite in h264enc-core:rust/kernel/media/h264enc_test.c \
	hantro-h1-h264-enc:drivers/media/platform/verisilicon/hantro_h1_h264_enc_test.c \
	v4l2-h264-enc-ctrls:drivers/media/v4l2-core/v4l2-h264-enc-ctrls-test.c; do
	name=${suite%%:*}
	cases=$(grep -c "KUNIT_CASE(" "$here/${suite#*:}")
	ran=$(sed -n "/# Subtest: $name\$/,/^ *ok [0-9]* $name\$/p" "$vmlog.txt" | grep -cE "^ +ok [0-9]+ " || true)
	grep -qE "^ *ok [0-9]+ $name\$" "$vmlog.txt" || vmfail "KUnit suite $name did not pass"
	[ "$ran" -eq "$cases" ] || vmfail "KUnit suite $name: $ran of $cases cases passed"
	echo "kernel-check: KUnit $name (booted x86_64): $ran/$cases passed"
done
for m in hantro-vpu vim2m vivid; do
	grep -q "^vm-check: module $m loaded" "$vmlog.txt" || vmfail "module $m did not load"
done
# shellcheck source=scripts/compliance-skew.sh
. "$here/scripts/compliance-skew.sh"
unexpected() {
	grep "^vm-compliance $1: " "$vmlog.txt" | sed "s/^vm-compliance $1: //" | compliance_unexpected
}
for run in vim2m vim2m-streaming vivid-vid-cap vivid-vid-cap-streaming; do
	other=$(unexpected "$run")
	[ -z "$other" ] || vmfail "v4l2-compliance $run: $other"
	out=$(grep "^vm-compliance $run: " "$vmlog.txt" | sed "s/^vm-compliance $run: //")
	total=$(echo "$out" | grep -E "^Total for .*Failed: [0-9]+" | tail -1)
	[ -n "$total" ] || vmfail "v4l2-compliance $run printed no result"
	fails=$(echo "$out" | grep -oE "fail: .*" || true)
	echo "kernel-check: v4l2-compliance $run: ${total#Total for }" \
		"($(echo "$fails" | grep -c . || true) known version-skew failures)"
done

step ""
echo "kernel-check: passed in $(($(date +%s) - t_all)) s"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The project inside a real kernel tree, Debian's linux-source-6.1:
#   1. unpack the tree (fresh each run: the overlay and patches change it)
#   2. copy the overlay's new files in and apply patches/linux-6.1/*.patch
#   3. configure a small x86_64 kernel (tinyconfig + media + hantro, COMPILE_TEST)
#      and build drivers/media/v4l2-core/ and drivers/media/platform/verisilicon/
#      plus the H.264 backend object with W=1: any warning or error fails
#   4. scripts/checkpatch.pl --strict on every C file and header of ours and
#      on every patch: any error, warning or check fails
#   5. KUnit under UML (tools/testing/kunit/kunit.py): the suite of the
#      control validation (drivers/media/v4l2-core/v4l2-h264-enc-ctrls-test.c)
#   6. a kernel with CONFIG_RUST, built with LLVM=1 by Debian's rustc 1.63 and
#      bindgen 0.56 (Linux 6.1's toolchain): the Rust core as the kernel
#      crate's module kernel::media::h264enc, hantro with the H.264 encoder
#      linked against it (modpost resolves h264enc_*), vim2m and vivid, and
#      the two KUnit suites UML cannot run (6.1's UML has no Rust): the core
#      through its C API (rust/kernel/media/h264enc_test.c, built in) and the
#      backend's helpers (hantro_h1_h264_enc_test.c, in hantro-vpu.ko);
#      any warning in our code fails
#   7. make rustfmtcheck and a CLIPPY=1 build of rust/ with the 1.63 tools
#   8. QEMU (TCG) boot of that kernel with an initramfs (busybox,
#      v4l2-compliance, the modules; /init is scripts/kernel-vm-init.sh):
#      both KUnit suites pass, the modules load, v4l2-compliance passes on
#      vim2m and vivid (vivid: only the failures of the v4l-utils 1.22 /
#      kernel 6.1 format-name skew are tolerated, by exact message)
# Each step prints its time. Work files live in $H264ENC_KERNEL_DIR
# (default ~/.cache/h264enc-kernel); the LLVM build directory and bindgen
# stay there between runs, so a second run rebuilds only what changed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${H264ENC_KERNEL_DIR:-$HOME/.cache/h264enc-kernel}
src=$work/linux
obj=$work/build
kobj=$work/kunit
robj=$work/rbuild
tarball=/usr/src/linux-source-6.1.tar.xz
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

step "packages"
need=()
for p in linux-source-6.1 bc bison flex libelf-dev libssl-dev cpio dwarves python3 patch \
	rustc rust-src rustfmt rust-clippy clang llvm lld kmod qemu-system-x86 v4l-utils busybox-static; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "kernel-check: missing packages: ${need[*]}; run as root or install them" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

step "tree"
mkdir -p "$work"
rm -rf "$src" "$work/linux-source-6.1"
tar -xJf "$tarball" -C "$work"
mv "$work/linux-source-6.1" "$src"

step "overlay and patches"
overlay=(
	include/uapi/linux/v4l2-h264-enc.h
	include/media/v4l2-h264-enc.h
	include/media/h264enc.h
	rust/kernel/media/Kconfig
	rust/kernel/media/mod.rs
	rust/kernel/media/h264enc_test.c
	drivers/media/v4l2-core/v4l2-h264-enc-ctrls.c
	drivers/media/v4l2-core/v4l2-h264-enc-ctrls-test.c
	drivers/media/platform/verisilicon/hantro_h1_h264_enc.c
	drivers/media/platform/verisilicon/hantro_h1_h264_enc.h
	drivers/media/platform/verisilicon/hantro_h1_h264_enc_test.c
	drivers/media/platform/verisilicon/hantro_h1_h264_regs.h
)
for f in "${overlay[@]}"; do
	install -D -m 0644 "$here/$f" "$src/$f"
done
# The core's sources (its Cargo manifest and tests stay out of the tree).
(cd "$here" && find rust/kernel/media/h264enc/src -name '*.rs') | while read -r f; do
	install -D -m 0644 "$here/$f" "$src/$f"
done
patches=("$here"/patches/linux-6.1/*.patch)
for p in "${patches[@]}"; do
	patch -d "$src" -p1 --quiet --forward --no-backup-if-mismatch < "$p"
done

step "config"
rm -rf "$obj"
make -s -C "$src" O="$obj" tinyconfig >"$work/config.log" 2>&1
cfg() { "$src/scripts/config" --file "$obj/.config" "$@"; }
cfg -e 64BIT -e MODULES -e MODULE_UNLOAD -e PCI -e TTY -e PRINTK
cfg -e MEDIA_SUPPORT -d MEDIA_SUPPORT_FILTER -e MEDIA_PLATFORM_SUPPORT -e MEDIA_TEST_SUPPORT \
	-e VIDEO_DEV -e MEDIA_CONTROLLER -e MEDIA_CONTROLLER_REQUEST_API \
	-e V4L2_MEM2MEM_DEV -e VIDEOBUF2_DMA_CONTIG -e COMPILE_TEST \
	-e MEDIA_PLATFORM_DRIVERS -e V4L_PLATFORM_DRIVERS -e V4L_MEM2MEM_DRIVERS \
	-m VIDEO_HANTRO -e VIDEO_HANTRO_IMX8M -e VIDEO_HANTRO_SAMA5D4 -e VIDEO_HANTRO_ROCKCHIP \
	-e VIDEO_HANTRO_SUNXI
make -s -C "$src" O="$obj" olddefconfig
grep -q '^CONFIG_VIDEO_HANTRO=m' "$obj/.config" || { echo "kernel-check: VIDEO_HANTRO not configured" >&2; exit 1; }

step "W=1 build"
log=$work/build.log
w1() {
	if ! make -C "$src" O="$obj" -j"$jobs" W=1 "$@" >>"$log" 2>&1; then
		cat "$log" >&2
		echo "kernel-check: the build failed" >&2
		exit 1
	fi
}
: >"$log"
# As configured: the patches must not break hantro without the encoder.
w1 drivers/media/v4l2-core/ drivers/media/platform/verisilicon/
# With the encoder: VIDEO_HANTRO_H264_ENC depends on the Rust core
# (MEDIA_H264ENC_CORE, RUST), which this configuration lacks, so the
# directory is compiled again with the option (and its KUnit test, which
# the backend includes) defined for the compiler.
rm -f "$obj"/drivers/media/platform/verisilicon/*.o
w1 KCFLAGS="-DCONFIG_VIDEO_HANTRO_H264_ENC=1 -DCONFIG_VIDEO_HANTRO_H264_ENC_KUNIT_TEST=1" \
	drivers/media/platform/verisilicon/ \
	drivers/media/platform/verisilicon/hantro_h1_h264_enc.o
if grep -E "warning:|error:" "$log" >&2; then
	echo "kernel-check: the W=1 build has warnings" >&2
	exit 1
fi
for o in v4l2-core/v4l2-h264-enc-ctrls.o platform/verisilicon/hantro_h1_h264_enc.o; do
	[ -s "$obj/drivers/media/$o" ] || { echo "kernel-check: $o was not built" >&2; exit 1; }
done
echo "kernel-check: $(grep -c ' CC ' "$log") compilations with W=1, 0 warnings"

step "checkpatch"
checkpatch=("$src/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types)
# include/media/h264enc.h is cbindgen's output (C API of the Rust core, kept
# equal to the code by its c_header test), not hand-written kernel C; Rust
# sources are checked by rustfmtcheck and clippy (step 7).
files=()
for f in "${overlay[@]}"; do
	case $f in
	include/media/h264enc.h | *.rs) ;;
	*) files+=("$src/$f") ;;
	esac
done
if ! (cd "$src" && "${checkpatch[@]}" -f "${files[@]}" && "${checkpatch[@]}" "${patches[@]}"); then
	echo "kernel-check: checkpatch --strict is not clean" >&2
	exit 1
fi
echo "kernel-check: checkpatch --strict clean on ${#files[@]} files and ${#patches[@]} patches"

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
	echo "kernel-check: KUnit failed" >&2
	exit 1
fi
grep -E "v4l2-h264-enc-ctrls|Testing complete|passed" "$klog" | tail -8
grep -q "\[PASSED\] v4l2-h264-enc-ctrls" "$klog" || {
	cat "$klog" >&2
	echo "kernel-check: the v4l2-h264-enc-ctrls suite did not pass" >&2
	exit 1
}

step "Rust toolchain"
bindgen_root=$work/tools/bindgen-0.56
if [ ! -x "$bindgen_root/bin/bindgen" ]; then
	cargo install bindgen --version 0.56.0 --locked --root "$bindgen_root" \
		>"$work/bindgen-install.log" 2>&1 || {
		cat "$work/bindgen-install.log" >&2
		echo "kernel-check: cannot install bindgen 0.56.0" >&2
		exit 1
	}
fi
# Debian's rustc, rustdoc, rustfmt and clippy-driver (1.63) before rustup's.
rpath=$bindgen_root/bin:/usr/bin:$PATH
kr() { PATH=$rpath make -C "$src" O="$robj" LLVM=1 "$@"; }
kr -s rustavailable >"$work/rustavailable.log" 2>&1 || {
	cat "$work/rustavailable.log" >&2
	echo "kernel-check: the kernel does not accept the Rust toolchain" >&2
	exit 1
}

step "Rust config"
mkdir -p "$robj"
kr -s tinyconfig >"$work/rconfig.log" 2>&1
rcfg() { "$src/scripts/config" --file "$robj/.config" "$@"; }
# No ACPI or PCI: QEMU's legacy serial port and reset need neither, and they
# are a quarter of the build.
rcfg -e 64BIT -e MODULES -e MODULE_UNLOAD -e TTY -e SERIAL_8250 -e SERIAL_8250_CONSOLE \
	-e BLK_DEV_INITRD -e RD_GZIP -e DEVTMPFS -e PROC_FS -e SYSFS -e PRINTK \
	-e BINFMT_ELF -e BINFMT_SCRIPT -e TMPFS -e SHMEM -e MULTIUSER -e FUTEX -e EPOLL \
	-e POSIX_TIMERS -e FILE_LOCKING -e UNIX98_PTYS
rcfg -e MEDIA_SUPPORT -d MEDIA_SUPPORT_FILTER -e MEDIA_PLATFORM_SUPPORT -e MEDIA_TEST_SUPPORT \
	-e VIDEO_DEV -e MEDIA_CONTROLLER -e MEDIA_CONTROLLER_REQUEST_API \
	-e V4L2_MEM2MEM_DEV -e VIDEOBUF2_DMA_CONTIG -e COMPILE_TEST \
	-e MEDIA_PLATFORM_DRIVERS -e V4L_PLATFORM_DRIVERS -e V4L_MEM2MEM_DRIVERS \
	-m VIDEO_HANTRO -e VIDEO_HANTRO_IMX8M -e VIDEO_HANTRO_SAMA5D4 -e VIDEO_HANTRO_ROCKCHIP \
	-e VIDEO_HANTRO_SUNXI -e V4L_TEST_DRIVERS -m VIDEO_VIM2M -e FB -m VIDEO_VIVID
rcfg -e RUST -e MEDIA_H264ENC_CORE -e VIDEO_HANTRO_H264_ENC -e KUNIT \
	-e MEDIA_H264ENC_CORE_KUNIT_TEST -e VIDEO_HANTRO_H264_ENC_KUNIT_TEST
kr -s olddefconfig >>"$work/rconfig.log" 2>&1
for want in RUST=y MEDIA_H264ENC_CORE=y VIDEO_HANTRO=m VIDEO_HANTRO_H264_ENC=y \
	MEDIA_H264ENC_CORE_KUNIT_TEST=y VIDEO_HANTRO_H264_ENC_KUNIT_TEST=y VIDEO_VIM2M=m VIDEO_VIVID=m; do
	grep -q "^CONFIG_$want\$" "$robj/.config" || {
		echo "kernel-check: the Rust kernel lacks CONFIG_$want" >&2
		exit 1
	}
done
grep -E '^CONFIG_(RUSTC|BINDGEN)_VERSION_TEXT' "$robj/.config"

step "Rust kernel build (LLVM=1)"
rlog=$work/rbuild.log
if ! kr -j"$jobs" bzImage modules >"$rlog" 2>&1; then
	tail -60 "$rlog" >&2
	echo "kernel-check: the LLVM=1 kernel build failed" >&2
	exit 1
fi
# The tree itself has a few clang warnings (frame sizes in fs/ and lib/, a
# stable feature in rust/alloc); ours must have none.
ours='(rust/kernel/media/|rust/kernel/lib\.rs|drivers/media/platform/verisilicon/|drivers/media/v4l2-core/)'
# C diagnostics name the file on their own line, rustc's on the "-->" line after.
if {
	grep -E "^[^ ]+:[0-9]+:[0-9]+: (warning|error)" "$rlog"
	grep -E -A3 "^(warning|error)" "$rlog" | grep -E "^ *--> "
} | grep -E "$ours" >&2; then
	echo "kernel-check: warnings in our code in the LLVM=1 build" >&2
	exit 1
fi
# modpost resolved the core's C API for hantro from the kernel crate.
for sym in h264enc_init h264enc_plan_frame h264enc_complete_frame; do
	grep -qP "\t$sym\tvmlinux\tEXPORT_SYMBOL_GPL" "$robj/Module.symvers" || {
		echo "kernel-check: vmlinux does not export $sym" >&2
		exit 1
	}
done
hko=$robj/drivers/media/platform/verisilicon/hantro-vpu.ko
PATH=$rpath llvm-nm -u "$hko" | grep -q " U h264enc_plan_frame$" || {
	echo "kernel-check: hantro-vpu.ko does not call the Rust core" >&2
	exit 1
}
echo "kernel-check: bzImage $(stat -c %s "$robj/arch/x86/boot/bzImage") bytes," \
	"$(find "$robj" -name '*.ko' | wc -l) modules; hantro-vpu.ko links h264enc_* from vmlinux"

step "rustfmtcheck and CLIPPY=1"
kr -s rustfmtcheck >"$work/rustfmt.log" 2>&1 || {
	cat "$work/rustfmt.log" >&2
	echo "kernel-check: rustfmtcheck found unformatted Rust" >&2
	exit 1
}
# The nll warning is rust/alloc's (vendored, not ours) under rustc 1.63.
rm -f "$robj/rust/kernel.o"
if ! kr -j"$jobs" CLIPPY=1 rust/ >"$work/clippy.log" 2>&1 ||
	grep -E "^(warning|error)" "$work/clippy.log" |
	grep -vE "feature .nll. has been stable|^warning: [0-9]+ warnings? emitted" >&2; then
	cat "$work/clippy.log" >&2
	echo "kernel-check: clippy is not clean on the kernel crate" >&2
	exit 1
fi

step "initramfs"
ir=$work/initramfs
rm -rf "$ir"
mkdir -p "$ir"/{bin,dev,proc,sys,tmp,usr/bin}
cp /bin/busybox "$ir/bin/busybox"
cp /usr/bin/v4l2-compliance "$ir/usr/bin/"
ldd /usr/bin/v4l2-compliance | grep -o '/[^ ]*' | while read -r lib; do
	install -D "$lib" "$ir$lib"
done
kr -s INSTALL_MOD_PATH="$ir" modules_install >"$work/modules-install.log" 2>&1
install -m 0755 "$here/scripts/kernel-vm-init.sh" "$ir/init"
(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"

step "QEMU boot"
vmlog=$work/vm.log
# The guest's clock: without ACPI it has no HPET or PM timer, and under TCG
# on a loaded host its PIT calibration of the TSC fails, so it falls back to
# jiffies (4 ms). CLOCK_MONOTONIC then gives two buffers queued in one tick
# the same timestamp, and v4l2-compliance, which matches capture to output
# buffers by timestamp, fails (reproduced with clocksource=jiffies). The
# guest's TSC runs at the host's rate under TCG: give it that frequency.
tsc_khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
[ "${tsc_khz:-0}" -gt 0 ] || tsc_khz=1000000
timeout 600 qemu-system-x86_64 -accel tcg -m 512 -nographic -no-reboot \
	-kernel "$robj/arch/x86/boot/bzImage" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 tsc_early_khz=$tsc_khz tsc=reliable" \
	</dev/null >"$vmlog" 2>&1 || true
tr -d '\r' <"$vmlog" >"$vmlog.txt"
vmfail() {
	cat "$vmlog.txt" >&2
	echo "kernel-check: $*" >&2
	exit 1
}
grep -q "^vm-check: done" "$vmlog.txt" || vmfail "the VM did not finish its checks"
grep -q "^clocksource: Switched to clocksource tsc\$" "$vmlog.txt" ||
	vmfail "the guest's clocksource is not the TSC (timestamps would collide)"
# KUnit: every case of both suites ran and passed (cases counted in the sources).
grep -E "^ *not ok " "$vmlog.txt" >&2 && vmfail "a KUnit test failed"
for suite in h264enc-core:rust/kernel/media/h264enc_test.c \
	hantro-h1-h264-enc:drivers/media/platform/verisilicon/hantro_h1_h264_enc_test.c; do
	name=${suite%%:*}
	cases=$(grep -c "KUNIT_CASE(" "$here/${suite#*:}")
	ran=$(sed -n "/# Subtest: $name\$/,/^ *ok [0-9]* $name\$/p" "$vmlog.txt" | grep -cE "^ +ok [0-9]+ " || true)
	grep -qE "^ *ok [0-9]+ $name\$" "$vmlog.txt" || vmfail "KUnit suite $name did not pass"
	[ "$ran" -eq "$cases" ] || vmfail "KUnit suite $name: $ran of $cases cases passed"
	echo "kernel-check: KUnit $name: $ran/$cases passed"
done
for m in hantro-vpu vim2m vivid; do
	grep -q "^vm-check: module $m loaded" "$vmlog.txt" || vmfail "module $m did not load"
done
# v4l2-compliance 1.22.1 expects the format names of its own kernel: with
# 6.1's "Y/UV 4:2:0" for NV12 it fails the format tests that compare names.
# Those failures, and only those, are tolerated (vivid; vim2m has no NV12).
skew="^fail: v4l2-test-formats\\.cpp\\(263\\): fmtdesc\\.description mismatch: was 'Y/UV 4:2:0', expected 'Y/CbCr 4:2:0'\$"
# A run's failures other than those; empty when it passed.
unexpected() {
	grep "^vm-compliance $1: " "$vmlog.txt" | sed "s/^vm-compliance $1: //" |
		grep -oE "fail: .*" | grep -vE "$skew" || true
}
for run in vim2m vim2m-streaming vivid-vid-cap vivid-vid-cap-streaming; do
	other=$(unexpected "$run")
	[ -z "$other" ] || vmfail "v4l2-compliance $run: $other"
	out=$(grep "^vm-compliance $run: " "$vmlog.txt" | sed "s/^vm-compliance $run: //")
	total=$(echo "$out" | grep -E "^Total for .*Failed: [0-9]+" | tail -1)
	[ -n "$total" ] || vmfail "v4l2-compliance $run printed no result"
	fails=$(echo "$out" | grep -oE "fail: .*" || true)
	echo "kernel-check: v4l2-compliance $run: ${total#Total for }" \
		"($(echo "$fails" | grep -c . || true) known format-name failures)"
done

step ""
echo "kernel-check: passed in $(($(date +%s) - t_all)) s"

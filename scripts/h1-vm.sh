#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs a command in a virtual machine whose kernel (Linux 6.12 with the
# series, a debug configuration) has the hantro driver bound to an emulated
# H1, played by the project's software H1; try the real driver without a
# board:
#
#   scripts/h1-vm.sh [--share DIR]... -- COMMAND [ARGS...]
#
# The guest sees the host's files read-only at the same paths, each DIR
# read-write, and runs COMMAND as root in the current directory with
# H1_DEVICE set to the encoder's video node and the project's programs on
# PATH (h264enc, h1-emu, v4l2-compliance, v4l2-ctl, gst-launch-1.0 with the
# project's plugin). It prints the command's output and exits with its
# status; 3 when the kernel log holds a WARNING, BUG, Oops, lockdep or KASAN
# report, a kmemleak report, or "sleeping function called from invalid
# context". H1_VM_DMESG=FILE keeps the guest's kernel log, H1_VM_KMEMLEAK=FILE
# what kmemleak reported after the command (two scans); H1_VM_EMU_ARGS
# adds options to h1-emu (e.g. --fault-at 3:timeout --verbose), whose output
# the command finds in $H1_EMU_LOG.
#
# What is missing is built and cached in ~/.cache/h264enc-kernel (the
# H264ENC_KERNEL_DIR of scripts/kernel-check.sh; do not run both at once):
# the tree with the series (patches/linux-6.12/), the kernel and its modules,
# the initramfs; the workspace's release binaries.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/kernel-tree.sh
. "$here/scripts/kernel-tree.sh"
# shellcheck source=scripts/kernel-build.sh
. "$here/scripts/kernel-build.sh"
vm=$kernel_work/build-vm

shares=()
while [ $# -gt 0 ]; do
	case $1 in
	--share)
		[ $# -ge 2 ] || { echo "h1-vm: --share needs a directory" >&2; exit 2; }
		[ -d "$2" ] || { echo "h1-vm: $2 is not a directory" >&2; exit 2; }
		shares+=("$(cd "$2" && pwd)")
		shift 2
		;;
	--)
		shift
		break
		;;
	*)
		echo "usage: $0 [--share DIR]... -- COMMAND [ARGS...]" >&2
		exit 2
		;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--share DIR]... -- COMMAND [ARGS...]" >&2; exit 2; }

log() { [ -n "${H1_VM_QUIET:-}" ] || echo "h1-vm: $*" >&2; }

kernel_toolchain >&2

# The kernel: pristine 6.12 with the committed series, in the VM
# configuration. Built again only when the series or this script's kernel
# configuration changed, so that a built kernel runs without the tree (which
# kernel-check.sh may be using).
want=$(cat "$here"/patches/linux-"$kernel_version"/*.patch "$here/scripts/kernel-build.sh" | sha256sum | cut -c1-16)
if [ "$(cat "$vm/h1-vm.stamp" 2>/dev/null)" != "$want" ] || [ ! -f "$vm/arch/x86/boot/bzImage" ]; then
	log "applying the series to Linux $kernel_version"
	kernel_pristine_tree
	kernel_git checkout -q -B vm pristine
	mapfile -t patches < <(find "$here/patches/linux-$kernel_version" -name '[0-9]*.patch' ! -name '0000-*' | sort)
	kernel_git am -q "${patches[@]}"
	kernel_configure "$vm" x86_64 vm
	kernel_want_config "$vm" VIDEO_HANTRO=m VIDEO_HANTRO_H264_ENC=y VIDEO_HANTRO_H1_EMU=m 9P_FS=y \
		PROVE_LOCKING=y DEBUG_ATOMIC_SLEEP=y KASAN=y DEBUG_KMEMLEAK=y RUST_OVERFLOW_CHECKS=y \
		MEDIA_H264ENC_CORE=y DMA_CMA=y
	log "building the kernel (build-vm)"
	if ! kmake O="$vm" -j"$(nproc)" bzImage modules >"$vm/build.log" 2>&1; then
		tail -40 "$vm/build.log" >&2
		echo "h1-vm: the kernel build failed" >&2
		exit 1
	fi
	rm -f "$vm/initramfs.cpio.gz"
	echo "$want" >"$vm/h1-vm.stamp"
fi
release=$(cat "$vm/include/config/kernel.release")

ir=$vm/initramfs
if [ ! -f "$vm/initramfs.cpio.gz" ] || [ "$vm/arch/x86/boot/bzImage" -nt "$vm/initramfs.cpio.gz" ] ||
	[ "$here/scripts/h1-vm-init.sh" -nt "$vm/initramfs.cpio.gz" ]; then
	rm -rf "$ir"
	mkdir -p "$ir"/{bin,dev,proc,sys,tmp}
	cp /bin/busybox "$ir/bin/busybox"
	# The modules as modules_install lays them out, without the tree.
	mods=$ir/lib/modules/$release
	(cd "$vm" && find . -name '*.ko' ! -path './initramfs/*') | while read -r ko; do
		install -D -m 0644 "$vm/$ko" "$mods/kernel/$ko"
	done
	cp "$vm/modules.order" "$vm/modules.builtin" "$vm/modules.builtin.modinfo" "$mods/"
	depmod -b "$ir" "$release"
	install -m 0755 "$here/scripts/h1-vm-init.sh" "$ir/init"
	(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) >"$vm/initramfs.cpio.gz"
fi

log "building the workspace (release)"
(cd "$here" && cargo build --release --quiet -p h264enc-cli -p hantro-h1-emu -p gst-v4l2slh264enc)

ctl=$(mktemp -d /tmp/h1-vm.XXXXXX)
trap 'rm -rf "$ctl"' EXIT
{
	printf 'exec'
	printf ' %q' "$@"
	printf '\n'
} >"$ctl/cmd"
pwd >"$ctl/cwd"
echo "$here/target/release:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" >"$ctl/path"
echo "$here/target/release" >"$ctl/gst"
echo "$here/target/release/h1-emu" >"$ctl/h1emu"
echo "${H1_VM_EMU_ARGS:-}" >"$ctl/h1emu-args"
virtfs=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$ctl,mount_tag=ctl,security_model=none")
for i in "${!shares[@]}"; do
	echo "${shares[$i]}" >"$ctl/share$i"
	virtfs+=(-virtfs "local,path=${shares[$i]},mount_tag=share$i,security_model=none")
done
# The guest's /tmp is its own; the project and the current directory stay
# visible (read-only) at their paths wherever they are.
ro=()
for d in "$here" "$PWD"; do
	case $d in /tmp/?* | /run/?*) ro+=("$d") ;; esac
done
for i in "${!ro[@]}"; do
	echo "${ro[$i]}" >"$ctl/ro$i"
	virtfs+=(-virtfs "local,path=${ro[$i]},mount_tag=ro$i,security_model=none,readonly=on,multidevs=remap")
done

# See kernel-check.sh: under TCG the guest needs the TSC's frequency.
tsc_khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
[ "${tsc_khz:-0}" -gt 0 ] || tsc_khz=1000000
log "booting $release"
timeout "${H1_VM_TIMEOUT:-1800}" qemu-system-x86_64 -accel tcg -smp 2 -m 1536 -nographic -no-reboot \
	-kernel "$vm/arch/x86/boot/bzImage" -initrd "$vm/initramfs.cpio.gz" "${virtfs[@]}" \
	-append "console=ttyS0 panic=-1 tsc_early_khz=$tsc_khz tsc=reliable memmap=1M\$0x18000000 cma=256M h1vm.ctl=$ctl h1vm.shares=${#shares[@]} h1vm.ro=${#ro[@]}" \
	</dev/null >"$ctl/console" 2>&1 || true

[ -f "$ctl/stdout" ] && cat "$ctl/stdout"
[ -f "$ctl/stderr" ] && cat "$ctl/stderr" >&2
if [ -n "${H1_VM_DMESG:-}" ] && [ -f "$ctl/dmesg" ]; then
	cp "$ctl/dmesg" "$H1_VM_DMESG"
fi
if [ -n "${H1_VM_KMEMLEAK:-}" ] && [ -f "$ctl/kmemleak" ]; then
	cp "$ctl/kmemleak" "$H1_VM_KMEMLEAK"
fi
if [ ! -f "$ctl/status" ]; then
	tail -40 "$ctl/console" >&2
	echo "h1-vm: the guest did not finish (console above)" >&2
	exit 1
fi
splat='WARNING:|BUG:|Oops|INFO: possible .*locking|possible circular locking|inconsistent lock state|KASAN:|sleeping function called from invalid context|unreferenced object'
if grep -qE "$splat" "$ctl/dmesg" "$ctl/kmemleak" 2>/dev/null; then
	grep -hE -A3 "$splat" "$ctl/dmesg" "$ctl/kmemleak" 2>/dev/null | head -60 >&2
	echo "h1-vm: the kernel log holds a report (above)" >&2
	exit 3
fi
exit "$(cat "$ctl/status")"

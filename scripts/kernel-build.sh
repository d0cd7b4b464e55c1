# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by scripts/kernel-check.sh and scripts/h1-vm.sh (after
# kernel-tree.sh): the toolchain Linux 6.12 is built with here, and the
# configurations of the project's kernels.

# clang 19 first on PATH; Debian's rustc-web by full path, not rustup's from
# PATH. bindgen loads libclang at run time and takes the newest it finds
# unless told: pin it to the clang the kernel is built with.
export LIBCLANG_PATH=/usr/lib/llvm-19/lib
export PATH=/usr/lib/llvm-19/bin:$PATH
kernel_bindgen=$kernel_work/tools/bindgen-0.69.5/bin/bindgen
kernel_tools=(LLVM=1 RUSTC=/usr/bin/rustc HOSTRUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
	RUSTFMT=/usr/bin/rustfmt CLIPPY_DRIVER=/usr/bin/clippy-driver BINDGEN="$kernel_bindgen")

# The Debian packages the kernel builds and the VM need. rustc-web,
# rust-web-src, rustfmt-web and rust-web-clippy replace Debian's rustc 1.63
# family (they conflict with it): 6.12 needs rustc >= 1.78. python3-yaml:
# make htmldocs generates the netlink pages first, with a script that needs it.
kernel_packages=("$kernel_package" bc bison flex libelf-dev libssl-dev cpio dwarves python3 patch git
	clang-19 lld-19 llvm-19 libclang-19-dev rustc-web rust-web-src rustfmt-web rust-web-clippy
	kmod qemu-system-x86 v4l-utils busybox-static python3-yaml)

kmake() { make -C "$kernel_src" "${kernel_tools[@]}" "$@"; }

# Installs what is missing: the packages, and bindgen-cli (6.12 wants bindgen
# >= 0.65.1; Debian has 0.60), built once with cargo and cached.
kernel_toolchain() {
	local need=() p
	for p in "${kernel_packages[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
	done
	if [ ${#need[@]} -gt 0 ]; then
		if [ "$(id -u)" -ne 0 ]; then
			echo "missing packages: ${need[*]}; run as root or install them" >&2
			return 1
		fi
		DEBIAN_FRONTEND=noninteractive apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
	fi
	if [ ! -x "$kernel_bindgen" ]; then
		mkdir -p "$kernel_work"
		cargo install bindgen-cli --version 0.69.5 --locked --root "$kernel_work/tools/bindgen-0.69.5" \
			>"$kernel_work/bindgen-install.log" 2>&1 || {
			cat "$kernel_work/bindgen-install.log" >&2
			echo "cannot install bindgen-cli 0.69.5" >&2
			return 1
		}
	fi
}

# Writes the configuration of a small kernel to $1/.config for ARCH $2:
# the media stack, hantro with every SoC (COMPILE_TEST) and the H.264
# encoder, CONFIG_RUST with overflow checks, the KUnit suites; flavour $3:
#   check  x86_64 or arm64, for builds, KUnit and v4l2-compliance on vim2m
#          and vivid;
#   vm     x86_64, the kernel of scripts/h1-vm.sh: the emulated H1, 9p to
#          share the host's files, and the debug options that find locking,
#          sleeping-in-atomic, memory and leak bugs.
# Also saves it as $1/series.config.
kernel_configure() {
	local dir=$1 arch=$2 flavour=$3
	mkdir -p "$dir"
	kmake -s O="$dir" ARCH="$arch" tinyconfig >"$dir/config.log" 2>&1
	local c=("$kernel_src/scripts/config" --file "$dir/.config")
	"${c[@]}" -e 64BIT -e MODULES -e MODULE_UNLOAD -e TTY -e PRINTK -e BLK_DEV_INITRD -e RD_GZIP \
		-e DEVTMPFS -e PROC_FS -e SYSFS -e BINFMT_ELF -e BINFMT_SCRIPT -e TMPFS -e SHMEM \
		-e MULTIUSER -e FUTEX -e EPOLL -e POSIX_TIMERS -e FILE_LOCKING -e UNIX98_PTYS
	# 64-bit kernels warn at 2 KiB frames by default; the project's budget is
	# 1 KiB, as on 32-bit (check-core.sh holds the core to it too).
	"${c[@]}" --set-val FRAME_WARN 1024
	"${c[@]}" -e MEDIA_SUPPORT -d MEDIA_SUPPORT_FILTER -e MEDIA_PLATFORM_SUPPORT -e MEDIA_TEST_SUPPORT \
		-e VIDEO_DEV -e MEDIA_CONTROLLER -e MEDIA_CONTROLLER_REQUEST_API \
		-e V4L2_MEM2MEM_DEV -e VIDEOBUF2_DMA_CONTIG -e COMPILE_TEST \
		-e MEDIA_PLATFORM_DRIVERS -e V4L_PLATFORM_DRIVERS -e V4L_MEM2MEM_DRIVERS \
		-m VIDEO_HANTRO -e VIDEO_HANTRO_IMX8M -e VIDEO_HANTRO_SAMA5D4 -e VIDEO_HANTRO_ROCKCHIP \
		-e VIDEO_HANTRO_SUNXI -e VIDEO_HANTRO_STM32MP25
	"${c[@]}" -e RUST -e RUST_OVERFLOW_CHECKS -e MEDIA_H264ENC_CORE -e VIDEO_HANTRO_H264_ENC -e KUNIT \
		-e MEDIA_H264ENC_CORE_KUNIT_TEST -e VIDEO_HANTRO_H264_ENC_KUNIT_TEST \
		-e V4L2_H264_ENC_CTRLS_KUNIT_TEST
	case $arch-$flavour in
	x86_64-check)
		# No ACPI or PCI: QEMU's legacy serial port and reset need neither.
		"${c[@]}" -e SERIAL_8250 -e SERIAL_8250_CONSOLE -e V4L_TEST_DRIVERS -m VIDEO_VIM2M \
			-e FB -m VIDEO_VIVID -m VIDEO_HANTRO_H1_EMU
		;;
	x86_64-vm)
		"${c[@]}" -e SERIAL_8250 -e SERIAL_8250_CONSOLE -e V4L_TEST_DRIVERS -m VIDEO_HANTRO_H1_EMU \
			-e PCI -e VIRTIO_MENU -e VIRTIO -e VIRTIO_PCI -e NET -e NET_9P -e NET_9P_VIRTIO \
			-e NETWORK_FILESYSTEMS -e 9P_FS -e UNIX -e SYSVIPC -e POSIX_MQUEUE \
			-e SIGNALFD -e TIMERFD -e EVENTFD -e AIO -e IO_URING -e ADVISE_SYSCALLS -e MEMBARRIER \
			-e DEBUG_KERNEL -e PROVE_LOCKING -e DEBUG_ATOMIC_SLEEP -e KASAN -e KASAN_INLINE \
			-e DEBUG_KMEMLEAK -e DEBUG_KMEMLEAK_AUTO_SCAN -e STACKTRACE -e DEBUG_FS \
			-e CMA -e DMA_CMA
		;;
	arm64-check)
		: # COMPILE_TEST gives the STM32MP25 VENC
		;;
	esac
	kmake -s O="$dir" ARCH="$arch" olddefconfig >>"$dir/config.log" 2>&1
	cp "$dir/.config" "$dir/series.config"
}

# Fails unless $1/.config has every CONFIG_$2... (e.g. RUST=y).
kernel_want_config() {
	local dir=$1 want
	shift
	for want in "$@"; do
		grep -q "^CONFIG_$want\$" "$dir/.config" || {
			echo "$(basename "$dir") lacks CONFIG_$want" >&2
			return 1
		}
	done
}

#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# /init of the virtual machine of scripts/h1-vm.sh: mounts the host's root
# read-only (9p) and the shared directories read-write at their own paths,
# loads the emulated H1 and hantro, starts the software H1 (h1-emu), runs the
# command in the host's root as root, scans for leaks, leaves the command's
# output, status and the kernel log in the control directory, and powers off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug

arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^h1vm\.$1=//p"; }
ctl=$(arg ctl)
shares=$(arg shares)
opts=trans=virtio,version=9p2000.L,msize=262144

mkdir -p /host
mount -t 9p -o "$opts,ro" hostroot /host
for d in proc sys dev; do
	mount -o bind "/$d" "/host/$d"
done
mount -t tmpfs tmpfs /host/tmp
mount -t tmpfs tmpfs /host/run
# Mounts the $2 exports tagged $1N at the host paths in /ctl/$1N, options $3.
mount_exports() {
	i=0
	while [ "$i" -lt "$2" ]; do
		path=$(cat "/ctl/$1$i")
		mkdir -p "/host$path" 2>/dev/null
		mount -t 9p -o "$3" "$1$i" "/host$path"
		i=$((i + 1))
	done
}
# The control directory, first where the initramfs can read it, then at its
# path in the host's root.
mkdir -p /ctl
mount -t 9p -o "$opts" ctl /ctl
mount_exports ro "$(arg ro)" "$opts,ro"
mkdir -p "/host$ctl"
mount -o bind /ctl "/host$ctl"
mount_exports share "$shares" "$opts"
out=/host$ctl

fail() {
	echo "h1-vm: $*" >>"$out/stderr"
	echo 125 >"$out/status"
	dmesg >"$out/dmesg"
	reboot -f
}

modprobe hantro-h1-emu || fail "the emulated H1 did not load"
modprobe hantro-vpu || fail "hantro did not load"
node=
for d in /sys/class/video4linux/video*; do
	grep -q -- "-enc$" "$d/name" 2>/dev/null && node=/dev/${d##*/}
done
[ -n "$node" ] || fail "hantro registered no encoder node"

# The software H1 plays the hardware until the command is done.
# shellcheck disable=SC2046 # the options are words
chroot /host "$(cat "$out/h1emu")" --device /dev/hantro-h1-emu $(cat "$out/h1emu-args") \
	>"$out/h1-emu.log" 2>&1 &
emu=$!

chroot /host /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 PATH="$(cat "$out/path")" \
	H1_DEVICE="$node" H1_EMU_LOG="$ctl/h1-emu.log" GST_PLUGIN_PATH="$(cat "$out/gst")" \
	/bin/sh -c 'cd "$1" && shift && exec "$@"' h1-vm "$(cat "$out/cwd")" /bin/bash "$ctl/cmd" \
	</dev/null >"$out/stdout" 2>"$out/stderr"
status=$?

kill "$emu" 2>/dev/null
wait "$emu" 2>/dev/null
# Two scans: kmemleak reports an object only once it was seen unreferenced twice.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$out/kmemleak"
fi
dmesg >"$out/dmesg"
echo "$status" >"$out/status"
sync
reboot -f

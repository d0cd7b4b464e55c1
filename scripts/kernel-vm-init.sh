#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# /init of the initramfs scripts/kernel-check.sh boots under QEMU: loads the
# modules (hantro-vpu runs its KUnit suite as it loads), runs v4l2-compliance
# on vim2m and vivid, and powers off. The host reads the serial console: each
# check prints a line starting with "vm-check:".
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

echo "vm-check: kernel $(uname -r)"
for m in hantro-vpu vim2m vivid; do
	if modprobe "$m"; then
		echo "vm-check: module $m loaded"
	else
		echo "vm-check: module $m failed to load"
	fi
done
grep -q "^hantro_vpu " /proc/modules && echo "vm-check: hantro_vpu in /proc/modules"

# Node of a driver: the video device whose sysfs name matches.
node() {
	for d in /sys/class/video4linux/video*; do
		if grep -q "$1" "$d/name"; then
			echo "/dev/${d##*/}"
			return
		fi
	done
}
compliance() {
	# $1: label, then v4l2-compliance arguments
	label=$1
	shift
	timeout 120 v4l2-compliance "$@" >/tmp/out 2>&1
	echo "vm-check: compliance $label rc=$?"
	sed "s/^/vm-compliance $label: /" /tmp/out
}
vim2m=$(node vim2m)
compliance vim2m -d "$vim2m"
compliance vim2m-streaming -d "$vim2m" -s 10
vivid=$(node "vivid-000-vid-cap")
compliance vivid-vid-cap -d "$vivid"
compliance vivid-vid-cap-streaming -d "$vivid" -s 10
echo "vm-check: done"
# QEMU runs with -no-reboot: rebooting ends it.
reboot -f

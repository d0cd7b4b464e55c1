#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The real driver on the emulated H1, in the debug kernel of scripts/h1-vm.sh
# (part of the test command):
#   1. v4l2-compliance, without and with streaming, on the encoder node: no
#      failure but the named v4l-utils 1.22 skew (scripts/compliance-skew.sh);
#   2. no WARNING, BUG, lockdep, KASAN or kmemleak report and no sleeping in
#      atomic context in the guest's kernel log (h1-vm.sh exits 3).
# The KUnit suites of the core, the control validation and the backend run
# again in that kernel as it boots and loads hantro; every case must pass.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/compliance-skew.sh
. "$here/scripts/compliance-skew.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() {
	echo "h1-vm-check: $*" >&2
	exit 1
}

t0=$(date +%s)
rc=0
H1_VM_DMESG=$out/dmesg H1_VM_QUIET=1 "$here/scripts/h1-vm.sh" --share "$out" -- sh -c '
	cd "$1"
	v4l2-compliance -d "$H1_DEVICE" >compliance.txt 2>&1
	echo "$?" >compliance.rc
	v4l2-compliance -d "$H1_DEVICE" -s 10 >compliance-streaming.txt 2>&1
	echo "$?" >compliance-streaming.rc
' h1-vm-check "$out" || rc=$?
[ "$rc" -ne 3 ] || fail "the guest's kernel log holds a report (above)"
[ "$rc" -eq 0 ] || fail "the VM run failed (exit $rc)"
echo "h1-vm-check: VM run in $(($(date +%s) - t0)) s"

grep -E "^ *not ok " "$out/dmesg" >&2 && fail "a KUnit case failed in the debug kernel"
for suite in h264enc-core v4l2-h264-enc-ctrls hantro-h1-h264-enc; do
	grep -qE "^ *ok [0-9]+ $suite\$" "$out/dmesg" || fail "KUnit suite $suite did not pass in the debug kernel"
done
echo "h1-vm-check: KUnit h264enc-core, v4l2-h264-enc-ctrls, hantro-h1-h264-enc pass in the debug kernel"

for run in compliance compliance-streaming; do
	[ -s "$out/$run.txt" ] || fail "$run printed nothing"
	total=$(grep -E "^Total for .*Failed: [0-9]+" "$out/$run.txt" | tail -1)
	[ -n "$total" ] || { cat "$out/$run.txt" >&2; fail "$run printed no result"; }
	other=$(compliance_unexpected <"$out/$run.txt")
	if [ -n "$other" ]; then
		cat "$out/$run.txt" >&2
		fail "v4l2-compliance on the encoder ($run): $other"
	fi
	echo "h1-vm-check: v4l2-compliance ($run): ${total#Total for }" \
		"($(grep -c "fail: " "$out/$run.txt" || true) known version-skew failures)"
done

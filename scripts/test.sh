#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The README's test command: set up, then run every test and lint of the
# project. Exits non-zero on the first failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
"$here/scripts/setup.sh"

step() { printf '\n== %s\n' "$*"; }

step "rustfmt"
cargo fmt --all -- --check

step "clippy (workspace, warnings are errors)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "product crates depend on no test crate"
"$here/scripts/check-product-deps.py"

step "structure: no import cycle between files, no hand-written file over 800 lines"
"$here/scripts/check-structure.py" --self-test
"$here/scripts/check-structure.py"

step "kernel-ready rules of the core"
"$here/scripts/check-core.sh"

step "per-frame cost of the core"
"$here/scripts/bench-core.sh"

step "uAPI header: C, C++, one layout on -m32/-m64, no padding"
"$here/tools/testing/uapi/check-uapi.sh"

step "uAPI specification: Sphinx -W, every struct field documented"
"$here/Documentation/userspace-api/media/check-docs.sh"

step "test content is deterministic"
"$here/tools/testing/content/check-determinism.sh"

step "cargo test (workspace; the control and C-API fuzzer runs ${H264ENC_FUZZ_SECONDS:=600} s)"
export H264ENC_FUZZ_SECONDS
cargo test --workspace --release -- --nocapture 2>&1 | tee /tmp/h264enc-cargo-test.log | grep -E '^(test result|error|failures:|---- )|^fuzz:|configurations byte-exact' || true
if grep -qE '^test result: FAILED|^error' /tmp/h264enc-cargo-test.log || ! grep -q '^test result' /tmp/h264enc-cargo-test.log; then
	cat /tmp/h264enc-cargo-test.log | tail -60
	exit 1
fi
passed=$(awk '/^test result/ {p += $4; f += $6} END {print p}' /tmp/h264enc-cargo-test.log)
failed=$(awk '/^test result/ {p += $4; f += $6} END {print f}' /tmp/h264enc-cargo-test.log)
echo "cargo: $passed passed, $failed failed"

step "kernel: the series on linux-source-6.12: checkpatch, each patch builds, x86_64 and arm64 Rust builds, KUnit, QEMU boot"
"$here/scripts/kernel-check.sh"

step "the real driver on the emulated H1 in a debug kernel (QEMU): faults, v4l2-compliance, the encode matrix, load, gst-launch, KUnit, no splat or leak"
"$here/scripts/h1-vm-check.sh"

step "all tests passed"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Enforces the kernel-ready rules of the Rust core (DESIGN.md), each by a check
# that fails the run:
#   - it compiles with Debian's rustc-web, the rustc scripts/kernel-check.sh
#     builds Linux 6.12 with (the workspace's rustc builds it too, as a Cargo
#     crate), and that toolchain's rustfmt leaves it unchanged (the kernel's
#     make rustfmtcheck, which kernel-check.sh runs in the tree);
#   - no std, no alloc, no floating point in its sources;
#   - the optimized, freestanding staticlib of its C API references no
#     core::panicking symbol (no panic path survived optimization), also when
#     built with overflow checks on, as CONFIG_RUST_OVERFLOW_CHECKS=y builds it;
#   - unsafe code only in the C-API module (the compiler enforces it through
#     #![deny(unsafe_code)]; this checks the attribute is still there);
#   - the largest stack frame of its code stays under a kernel-stack budget:
#     1 KiB for everything on the per-frame path, 2 KiB for h264enc_init, which
#     runs once in process context (STREAMON) and builds the 1 KiB encoder state
#     by value.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
core="$here/rust/kernel/media/h264enc"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
budget=${H264ENC_STACK_BUDGET:-1024}
init_budget=${H264ENC_INIT_STACK_BUDGET:-2048}

# 1. The kernel's rustc (Debian's rustc-web; scripts/setup.sh installs it).
krustc=/usr/bin/rustc
if ! [ -x "$krustc" ] || ! dpkg-query -W -f='${Status}' rustc-web 2>/dev/null | grep -q "install ok installed"; then
	echo "core: Debian's rustc-web is not installed (scripts/setup.sh installs it)" >&2
	exit 1
fi
"$krustc" --edition 2021 --crate-type lib --crate-name h264enc \
	--cfg 'feature="freestanding"' -O -C panic=abort -C overflow-checks=on \
	--out-dir "$out/krustc" "$core/src/lib.rs"
echo "core: compiles with $("$krustc" --version), overflow checks on"
if ! /usr/bin/rustfmt --check --edition 2021 "$core/src/lib.rs" "$here/rust/kernel/media/mod.rs"; then
	echo "core: not formatted as the kernel's rustfmt (rustfmt-web) wants" >&2
	exit 1
fi

# 2. Sources: no std, alloc or float outside tests.
# In the kernel the file is a module of the no_std kernel crate (CONFIG_RUST).
if ! grep -q '^#!\[cfg_attr(not(CONFIG_RUST), no_std)\]' "$core/src/lib.rs"; then
	echo "core: lib.rs lost #![cfg_attr(not(CONFIG_RUST), no_std)]" >&2; fail=1
fi
if ! grep -q '^#!\[deny(unsafe_code)\]' "$core/src/lib.rs"; then
	echo "core: lib.rs lost #![deny(unsafe_code)]" >&2; fail=1
fi
hits=$(grep -rnE '\bf32\b|\bf64\b|extern crate (std|alloc)|\bstd::|\balloc::' "$core/src" | grep -vE '^\S+:[0-9]+:\s*//' || true)
if [ -n "$hits" ]; then
	echo "core: std, alloc or float in the kernel core:" >&2
	echo "$hits" >&2
	fail=1
fi
echo "core: no_std, no alloc, no float in sources"

# 3. The optimized staticlib: one object for the crate, no panicking symbol.
cargo rustc --quiet --manifest-path "$core/Cargo.toml" --release --features freestanding \
	--target-dir "$out/target" --crate-type staticlib -- -C panic=abort -C codegen-units=1 \
	--emit "obj=$out/h264enc.o,link"
panics=$(nm -C "$out/h264enc.o" | grep -E 'core::panicking|panic_bounds_check|slice_index_fail|slice_(start|end)_index_len_fail|core::option::expect_failed|core::result::unwrap_failed' || true)
if [ -n "$panics" ]; then
	echo "core: the optimized C-API object references panic paths:" >&2
	echo "$panics" >&2
	fail=1
else
	echo "core: no panic symbol in the optimized object ($(nm "$out/h264enc.o" | grep -c ' T ') functions)"
fi
# The kernel builds Rust with CONFIG_RUST_OVERFLOW_CHECKS=y by default: the same
# object with overflow checks on must not gain a panic path either (every
# arithmetic on untrusted values is checked, saturating or wrapping by intent).
cargo rustc --quiet --manifest-path "$core/Cargo.toml" --release --features freestanding \
	--target-dir "$out/target-ovf" --crate-type staticlib -- -C panic=abort -C codegen-units=1 \
	-C overflow-checks=on --emit "obj=$out/h264enc-ovf.o,link"
panics=$(nm -C "$out/h264enc-ovf.o" | grep -E 'core::panicking|panic_const|panic_bounds_check|slice_index_fail|slice_(start|end)_index_len_fail|core::option::expect_failed|core::result::unwrap_failed' || true)
if [ -n "$panics" ]; then
	echo "core: with overflow checks on, the optimized object references panic paths:" >&2
	echo "$panics" >&2
	fail=1
else
	echo "core: no panic symbol in the optimized object with overflow checks on"
fi
floats=$(objdump -d --no-show-raw-insn "$out/h264enc.o" | grep -cE '\s(addss|addsd|mulss|mulsd|divss|divsd|cvtsi2s[sd]|cvtts[sd]2si|sqrts[sd]|fld|fstp)\s' || true)
if [ "$floats" -ne 0 ]; then
	echo "core: $floats floating-point instructions in the optimized object" >&2
	fail=1
else
	echo "core: no floating-point instruction in the optimized object"
fi

# 4. Stack frames: `sub $N,%rsp` in every function's prologue.
frames=$(objdump -d --no-show-raw-insn "$out/h264enc.o" | awk '
	/^[0-9a-f]+ <.*>:$/ { fn = $2 }
	/sub +\$0x[0-9a-f]+,%rsp/ { match($0, /\$0x[0-9a-f]+/); print substr($0, RSTART + 3, RLENGTH - 3), fn }' |
	while read -r hex fn; do echo "$((16#$hex)) $fn"; done | sort -n)
init=$(echo "$frames" | awk '$2 == "<h264enc_init>:" { print $1 }' | tail -1)
largest=$(echo "$frames" | grep -v '<h264enc_init>:' | tail -1)
largest=${largest:-0 none}
size=${largest%% *}
echo "core: largest stack frame on the per-frame path $size bytes in ${largest#* } (budget $budget); h264enc_init ${init:-0} bytes (budget $init_budget)"
if [ "$size" -gt "$budget" ] || [ "${init:-0}" -gt "$init_budget" ]; then
	echo "core: a stack frame exceeds its budget" >&2
	fail=1
fi
exit $fail

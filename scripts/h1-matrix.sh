#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The long byte-exact matrix of the software H1: deblocking modes x slices x
# QP x content at CIF and 720p; the test command runs it at small sizes.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh"
cd "$here"
H1_MATRIX=full cargo test --release -p hantro-h1-model --test decode_exact matrix_large -- --nocapture

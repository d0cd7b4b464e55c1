#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds the stateless encoder documentation with warnings as errors, and
# checks that every field of every stateless encode struct of the uAPI
# (v4l2_ctrl_h264_encode_*, in v4l2-controls.h) has kernel-doc and a row in
# the control reference.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sphinx-build -q -W --keep-going -b html "$here" "$out/html"
echo "docs: sphinx-build -W: no warnings"
python3 - "$top/include/uapi/linux/v4l2-controls.h" "$here/v4l/ext-ctrls-codec-stateless-encode.rst" <<'PY'
import re, sys
header = open(sys.argv[1]).read()
rst = open(sys.argv[2]).read()
missing = []
count = 0
for m in re.finditer(r'/\*\*\n \* struct (\w+) - .*?\*/\nstruct \1 \{(.*?)\n\};', header, re.S):
    name, body = m.group(1), m.group(2)
    if not name.startswith('v4l2_ctrl_h264_encode_'):
        continue
    doc = m.group(0)
    for f in re.findall(r'^\s*(?:__[us]\d+|struct \w+) (\w+)(?:\[\w+\])?;', body, re.M):
        count += 1
        if f'@{f}:' not in doc:
            missing.append(f'{name}.{f}: no kernel-doc')
        table = rst[rst.find(f'list-table:: struct {name}'):]
        table = table[:table.find('\n\n.. ', 10) if '\n\n.. ' in table[10:] else len(table)]
        if f'``{f}``' not in table and f'``{f}[' not in table:
            missing.append(f'{name}.{f}: not in the control reference')
if count == 0:
    missing.append('no struct found in the header')
if missing:
    print('\n'.join('docs: ' + m for m in missing))
    sys.exit(1)
print(f'docs: all {count} fields of the uAPI structs have kernel-doc and a reference row')
PY

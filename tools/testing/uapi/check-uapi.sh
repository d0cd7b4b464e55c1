#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The uAPI headers as the series leaves them (videodev2.h with v4l2-controls.h,
# hantro-media.h) compile on their own as C (gnu11) and C++ with warnings as
# errors, and every struct has one layout on 32 and 64 bits with no padding.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# What make headers_install (scripts/headers_install.sh) makes of the headers
# the series changes: userspace never sees linux/compiler.h or __user.
mkdir -p "$out/uapi/linux"
for h in videodev2.h v4l2-controls.h; do
	sed -E -e 's/([[:space:](])(__user|__force|__iomem)[[:space:]]/\1/g' \
		-e 's@^#include <linux/compiler(|_types).h>@@' \
		"$top/include/uapi/linux/$h" >"$out/uapi/linux/$h"
done
inc="-I$out/uapi -I$top/include/uapi"
printf '#include <linux/videodev2.h>\n#include <linux/hantro-media.h>\n' > "$out/t.c"
gcc -std=gnu11 -Wall -Wextra -Werror -pedantic -Wno-variadic-macros $inc -c "$out/t.c" -o "$out/t.o"
cp "$out/t.c" "$out/t.cpp"
g++ -Wall -Wextra -Werror $inc -c "$out/t.cpp" -o "$out/tpp.o"
gcc -m64 -Wall -Werror $inc "$here/layout.c" -o "$out/l64"
gcc -m32 -Wall -Werror $inc "$here/layout.c" -o "$out/l32"
"$out/l64" > "$out/64.txt" || { echo "uapi: implicit padding on 64-bit:"; cat "$out/64.txt"; exit 1; }
"$out/l32" > "$out/32.txt" || { echo "uapi: implicit padding on 32-bit:"; cat "$out/32.txt"; exit 1; }
if ! cmp -s "$out/64.txt" "$out/32.txt"; then
	echo "uapi: layouts differ between -m32 and -m64:"
	diff "$out/32.txt" "$out/64.txt"
	exit 1
fi
grep ' size ' "$out/64.txt" | sed 's/^/uapi: /'
echo "uapi: compiles as C and C++, identical layout on -m32/-m64, no padding"

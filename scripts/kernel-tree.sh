# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by scripts/kernel-series.sh and scripts/kernel-check.sh: the Linux
# 6.12 tree the project is a series against, and the identity its commits
# carry.
#
# Debian's linux-source-6.12 is unpacked once into a git repository whose
# first commit, tagged "pristine", is the tarball as it is; every run resets
# the work tree to that commit instead of unpacking 150 MB again. Builds use
# separate O= directories, so the tree holds sources only.

kernel_version=6.12
kernel_package=linux-source-$kernel_version
kernel_tarball=/usr/src/$kernel_package.tar.xz
kernel_work=${H264ENC_KERNEL_DIR:-$HOME/.cache/h264enc-kernel}
kernel_src=$kernel_work/linux

# The series' author and committer, and one fixed date: the same sources give
# the same patches, byte for byte, on every machine.
kernel_git() {
	GIT_AUTHOR_NAME="Seed 0f86a4f3 maintainers" \
		GIT_AUTHOR_EMAIL="maintainers@users.noreply.a-seed-0f86a4f3.example" \
		GIT_COMMITTER_NAME="Seed 0f86a4f3 maintainers" \
		GIT_COMMITTER_EMAIL="maintainers@users.noreply.a-seed-0f86a4f3.example" \
		GIT_AUTHOR_DATE="2026-12-04T12:00:00Z" GIT_COMMITTER_DATE="2026-12-04T12:00:00Z" \
		git -C "$kernel_src" -c core.autocrlf=false -c core.abbrev=12 -c diff.noprefix=false \
		-c diff.mnemonicPrefix=false -c format.signOff=false "$@"
}

# Version of the installed package, recorded in the pristine commit so that a
# new Debian upload makes a new pristine tree.
kernel_package_version() {
	dpkg-query -W -f='${Version}' "$kernel_package"
}

# Makes $kernel_src the pristine tree, clean, on a detached HEAD.
kernel_pristine_tree() {
	local want subject
	want="Linux $(kernel_package_version) ($kernel_package)"
	subject=$(git -C "$kernel_src" log -1 --format=%s pristine 2>/dev/null || true)
	if [ "$subject" != "$want" ]; then
		rm -rf "$kernel_src" "$kernel_work/$kernel_package"
		mkdir -p "$kernel_work"
		tar -xJf "$kernel_tarball" -C "$kernel_work"
		mv "$kernel_work/$kernel_package" "$kernel_src"
		kernel_git init -q
		# Debian's tarball has a root .gitignore that ignores every top-level
		# entry: add by force.
		kernel_git add -f -A .
		kernel_git commit -q -m "$want"
		kernel_git tag pristine
	fi
	# Edits left in the tree (kernel-series.sh --checkout) are dropped.
	kernel_git reset -q --hard
	kernel_git clean -q -fdx
	kernel_git checkout -q --detach pristine
}

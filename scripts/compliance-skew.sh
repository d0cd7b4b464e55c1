# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by scripts/kernel-check.sh and scripts/h1-vm-check.sh: the
# v4l2-compliance failures that come from Debian 12's v4l-utils 1.22.1 being
# older than Linux 6.12's uAPI, each with its cause. They are tolerated by
# exact message; any other failure fails the checks.
# (v4l-utils 1.26 reports none of them.)
compliance_skew=(
	# Since 6.8 the first reserved word of struct v4l2_create_buffers is
	# max_num_buffers ("media: core: Report the maximum possible number of
	# buffers for the queue"); 1.22 fills the struct with 0xff and expects
	# all six reserved words back as zero.
	"^fail: v4l2-test-buffers\\.cpp\\(703\\): check_0\\(crbufs\\.reserved, sizeof\\(crbufs\\.reserved\\)\\)\$"
	# The previous failure ends 1.22's REQBUFS test on the capture queue of a
	# mem2mem device, so its buffer capabilities are those of that queue, which
	# does not take requests; the request test then runs on the output queue,
	# which does, and fails.
	"^fail: v4l2-test-buffers\\.cpp\\(2271\\): !supports_requests\$"
	# vivid's INTEGER array control VIVID_CID_S32_ARRAY (0x0098f90f, "vivid:
	# add INTEGER and INTEGER64 test control arrays", 6.2): 1.22 treats any
	# control of a simple type as a scalar (it counts it, reads it with
	# G_CTRL, range-checks its payload pointer).
	"^fail: v4l2-test-controls\\.cpp\\(324\\): expected 8 private controls, got 7\$"
	"^fail: v4l2-test-controls\\.cpp\\(366\\): qctrl\\.step \\|\\| qctrl\\.minimum \\|\\| qctrl\\.maximum \\|\\| qctrl\\.default_value\$"
	"^fail: v4l2-test-controls\\.cpp\\(473\\): g_ctrl returned an error \\(22\\)\$"
	"^fail: v4l2-test-controls\\.cpp\\(593\\): returned control value out of range\$"
	"^fail: v4l2-test-controls\\.cpp\\(706\\): invalid control 0098f90f\$"
	# "media: v4l2-ioctl.c: Unify YCbCr/YUV terms in format descriptions"
	# (6.2) names NV12 "Y/UV 4:2:0" and NV12M "Y/UV 4:2:0 (N-C)"; 1.22
	# compares with its own table.
	"^fail: v4l2-test-formats\\.cpp\\(263\\): fmtdesc\\.description mismatch: was 'Y/UV 4:2:0( \\(N-C\\))?', expected 'Y/CbCr 4:2:0( \\(N-C\\))?'\$"
)

# On the stateless encoder only: what v4l2-compliance (1.22 and its current
# master alike) does not know about stateless encoders. Its
# determine_codec_mask() takes any mem2mem node with V4L2_PIX_FMT_H264 on
# CAPTURE for a stateful encoder (it keeps a STATELESS_ENCODER class, under
# "#if 0", for a *_SLICE CAPTURE format no encoder has), and applies the
# stateful encoder's rules (dev-encoder.rst):
compliance_stateless_encoder=(
	# A node may serve one kind of codec; hantro's encoder node codes JPEG
	# (a JPEG encoder to v4l2-compliance) and H.264, so its codec mask has
	# two bits (QUERYCAP, on both opens).
	"^fail: v4l2-compliance\\.cpp\\(702\\): found_bit\$"
	# A stateful encoder must say how many source buffers it holds before
	# it codes; a stateless one holds none but the request's.
	"^fail: v4l2-test-controls\\.cpp\\(922\\): node->controls\\.find\\(V4L2_CID_MIN_BUFFERS_FOR_OUTPUT\\) == node->controls\\.end\\(\\)\$"
	# A stateful encoder's drain ends with V4L2_EVENT_EOS; stateless codecs
	# have no EOS event (master fails a stateless decoder or encoder that
	# offers one), the LAST flag ends the drain. The streaming test fails
	# on it, select and epoll.
	"^fail: v4l2-test-buffers\\.cpp\\(1145\\): !got_eos && !got_source_change\$"
	"^fail: v4l2-test-buffers\\.cpp\\(1455\\): captureBufs\\(node, node_m2m_cap, q, m2m_q, frame_count, pollmode, capture_count\\)\$"
	# With a codec mask, the JPEG encoder's raw formats are checked for
	# V4L2_COLORSPACE_SRGB; hantro (6.12 as it is, not this series) gives
	# them V4L2_COLORSPACE_JPEG. With the series' old private fourcc the
	# mask was empty and the check never ran.
	"^fail: v4l2-test-formats\\.cpp\\(818\\): fmt_raw\\.g_colorspace\\(\\) != V4L2_COLORSPACE_SRGB\$"
)

# The failures in v4l2-compliance's output on standard input that are not
# known, one a line; nothing when there are none. --encoder: the output is
# that of the stateless encoder's node.
compliance_unexpected() {
	local re known=("${compliance_skew[@]}")
	[ "${1:-}" != --encoder ] || known+=("${compliance_stateless_encoder[@]}")
	re=$(
		IFS='|'
		echo "${known[*]}"
	)
	grep -oE "fail: .*" | grep -vE "$re" || true
}

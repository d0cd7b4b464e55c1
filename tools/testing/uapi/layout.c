// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prints the size and every field offset of the new uAPI structs; built with
 * -m32 and -m64, the outputs must be identical, and the sizes must equal the
 * sums of the field sizes (no implicit padding).
 */
#include <stddef.h>
#include <stdio.h>
#include <linux/videodev2.h>

#define FIELD(s, f) \
	printf("%s.%s %zu %zu\n", #s, #f, offsetof(struct s, f), sizeof(((struct s *)0)->f)); \
	sum += sizeof(((struct s *)0)->f)
#define END(s) \
	printf("%s size %zu fields %zu\n", #s, sizeof(struct s), sum); \
	if (sum != sizeof(struct s)) bad = 1; \
	sum = 0

int main(void)
{
	size_t sum = 0;
	int bad = 0;

	FIELD(v4l2_ctrl_h264_encode_params, reference_ts);
	FIELD(v4l2_ctrl_h264_encode_params, flags);
	FIELD(v4l2_ctrl_h264_encode_params, reserved);
	END(v4l2_ctrl_h264_encode_params);
	FIELD(v4l2_ctrl_h264_encode_rc, flags);
	FIELD(v4l2_ctrl_h264_encode_rc, qp);
	FIELD(v4l2_ctrl_h264_encode_rc, reserved);
	END(v4l2_ctrl_h264_encode_rc);
	FIELD(v4l2_ctrl_h264_encode_feedback, dpb);
	FIELD(v4l2_ctrl_h264_encode_feedback, frame_bytes);
	FIELD(v4l2_ctrl_h264_encode_feedback, filler_bytes);
	FIELD(v4l2_ctrl_h264_encode_feedback, target_bits);
	FIELD(v4l2_ctrl_h264_encode_feedback, cpb_fullness);
	FIELD(v4l2_ctrl_h264_encode_feedback, qp_avg_q8);
	FIELD(v4l2_ctrl_h264_encode_feedback, frame_num);
	FIELD(v4l2_ctrl_h264_encode_feedback, pic_order_cnt);
	FIELD(v4l2_ctrl_h264_encode_feedback, flags);
	FIELD(v4l2_ctrl_h264_encode_feedback, error);
	FIELD(v4l2_ctrl_h264_encode_feedback, slice_type);
	FIELD(v4l2_ctrl_h264_encode_feedback, nal_ref_idc);
	FIELD(v4l2_ctrl_h264_encode_feedback, temporal_id);
	FIELD(v4l2_ctrl_h264_encode_feedback, passes);
	FIELD(v4l2_ctrl_h264_encode_feedback, reserved);
	END(v4l2_ctrl_h264_encode_feedback);
	/* The decoder's DPB entry, which the feedback reuses. */
	FIELD(v4l2_h264_dpb_entry, reference_ts);
	FIELD(v4l2_h264_dpb_entry, pic_num);
	FIELD(v4l2_h264_dpb_entry, frame_num);
	FIELD(v4l2_h264_dpb_entry, fields);
	FIELD(v4l2_h264_dpb_entry, reserved);
	FIELD(v4l2_h264_dpb_entry, top_field_order_cnt);
	FIELD(v4l2_h264_dpb_entry, bottom_field_order_cnt);
	FIELD(v4l2_h264_dpb_entry, flags);
	END(v4l2_h264_dpb_entry);
	return bad;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the stateless H.264 encode control validation: each rule
 * accepts a valid value and refuses every way of breaking it with -EINVAL.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <media/v4l2-h264-enc.h>

static const struct v4l2_ctrl_h264_sps valid_sps = {
	.profile_idc = 66,
	.chroma_format_idc = 1,
	.log2_max_frame_num_minus4 = 12,
	.pic_order_cnt_type = 2,
	.max_num_ref_frames = 1,
	.pic_width_in_mbs_minus1 = 79,
	.pic_height_in_map_units_minus1 = 44,
	.flags = V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY,
};

static const struct v4l2_ctrl_h264_pps valid_pps = {
	.flags = V4L2_H264_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT,
};

static void encode_params(struct kunit *test)
{
	struct v4l2_ctrl_h264_encode_params p = {};

	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), 0);
	p.flags = V4L2_H264_ENCODE_FLAG_FORCE_IDR | V4L2_H264_ENCODE_FLAG_SCENE_CHANGE;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), 0);
	p.flags = V4L2_H264_ENCODE_FLAG_REFERENCE_TS;
	p.reference_ts = 33333333;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), 0);

	/* A reference and an IDR picture at once. */
	p.flags |= V4L2_H264_ENCODE_FLAG_FORCE_IDR;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), -EINVAL);
	/* A reference timestamp without its flag. */
	p.flags = 0;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), -EINVAL);
	p.reference_ts = 0;
	/* An unknown flag. */
	p.flags = 0x80000000;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), -EINVAL);
	p.flags = 0;
	/* Each reserved word. */
	for (unsigned int i = 0; i < ARRAY_SIZE(p.reserved); i++) {
		p.reserved[i] = 1;
		KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), -EINVAL);
		p.reserved[i] = 0;
	}
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), 0);
}

static void encode_rc(struct kunit *test)
{
	struct v4l2_ctrl_h264_encode_rc rc = {};

	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_rc(&rc), 0);
	rc.flags = V4L2_H264_ENCODE_RC_FLAG_QP;
	for (rc.qp = 0; rc.qp <= 51; rc.qp++)
		KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_rc(&rc), 0);
	/* QP 52 and above. */
	rc.qp = 52;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_rc(&rc), -EINVAL);
	rc.qp = 255;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_rc(&rc), -EINVAL);
	/* A QP without V4L2_H264_ENCODE_RC_FLAG_QP. */
	rc.flags = 0;
	rc.qp = 30;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_rc(&rc), -EINVAL);
	rc.qp = 0;
	/* An unknown flag. */
	rc.flags = 2;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_rc(&rc), -EINVAL);
	rc.flags = 0;
	for (unsigned int i = 0; i < ARRAY_SIZE(rc.reserved); i++) {
		rc.reserved[i] = 1;
		KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_rc(&rc), -EINVAL);
		rc.reserved[i] = 0;
	}
}

/*
 * An SPS is over 1 KiB (offset_for_ref_frame[255]): the tests keep their
 * copies on the heap, not in a kernel stack frame.
 */
static struct v4l2_ctrl_h264_sps *sps_copy(struct kunit *test)
{
	struct v4l2_ctrl_h264_sps *s = kunit_kmalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	*s = valid_sps;
	return s;
}

static void sps(struct kunit *test)
{
	struct v4l2_ctrl_h264_sps *s = sps_copy(test);
	static const u8 profiles[] = { 66, 77, 100 };

	for (unsigned int i = 0; i < ARRAY_SIZE(profiles); i++) {
		s->profile_idc = profiles[i];
		KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_sps(s), 0);
	}
	s->pic_order_cnt_type = 0;
	s->log2_max_pic_order_cnt_lsb_minus4 = 12;
	s->max_num_ref_frames = V4L2_H264_NUM_DPB_ENTRIES;
	s->seq_parameter_set_id = 31;
	s->pic_width_in_mbs_minus1 = 255;
	s->pic_height_in_map_units_minus1 = 255;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_sps(s), 0);

#define REFUSED(field, value) do {					\
		*s = valid_sps;						\
		(*s).field = value;					\
		KUNIT_EXPECT_EQ_MSG(test, v4l2_h264_enc_validate_sps(s), \
				    -EINVAL, #field " = " #value);	\
	} while (0)
	REFUSED(profile_idc, 88);
	REFUSED(profile_idc, 110);
	REFUSED(chroma_format_idc, 0);
	REFUSED(chroma_format_idc, 2);
	REFUSED(bit_depth_luma_minus8, 2);
	REFUSED(bit_depth_chroma_minus8, 2);
	REFUSED(seq_parameter_set_id, 32);
	REFUSED(log2_max_frame_num_minus4, 13);
	REFUSED(pic_order_cnt_type, 1);
	REFUSED(log2_max_pic_order_cnt_lsb_minus4, 13);
	REFUSED(max_num_ref_frames, 0);
	REFUSED(max_num_ref_frames, V4L2_H264_NUM_DPB_ENTRIES + 1);
	REFUSED(flags, 0);
	REFUSED(flags, V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY |
		V4L2_H264_SPS_FLAG_SEPARATE_COLOUR_PLANE);
	REFUSED(flags, V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY |
		V4L2_H264_SPS_FLAG_QPPRIME_Y_ZERO_TRANSFORM_BYPASS);
	REFUSED(flags, V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY |
		V4L2_H264_SPS_FLAG_GAPS_IN_FRAME_NUM_VALUE_ALLOWED);
	REFUSED(pic_width_in_mbs_minus1, 256);
	REFUSED(pic_height_in_map_units_minus1, 256);
#undef REFUSED
}

static void pps(struct kunit *test)
{
	struct v4l2_ctrl_h264_sps *high = sps_copy(test);
	struct v4l2_ctrl_h264_pps p = valid_pps;

	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_pps(&p, &valid_sps), 0);
	p.pic_init_qp_minus26 = -26;
	p.chroma_qp_index_offset = 12;
	p.second_chroma_qp_index_offset = -12;
	p.num_ref_idx_l0_default_active_minus1 = 31;
	p.flags |= V4L2_H264_PPS_FLAG_CONSTRAINED_INTRA_PRED;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_pps(&p, &valid_sps), 0);
	/* CABAC and the 8x8 transform need their profiles. */
	high->profile_idc = 100;
	p = valid_pps;
	p.flags |= V4L2_H264_PPS_FLAG_ENTROPY_CODING_MODE |
		   V4L2_H264_PPS_FLAG_TRANSFORM_8X8_MODE;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_pps(&p, high), 0);
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_pps(&p, &valid_sps), -EINVAL);
	high->profile_idc = 77;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_pps(&p, high), -EINVAL);
	p.flags &= ~V4L2_H264_PPS_FLAG_TRANSFORM_8X8_MODE;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_pps(&p, high), 0);

#define REFUSED(field, value) do {					\
		p = valid_pps;						\
		p.field = value;					\
		KUNIT_EXPECT_EQ_MSG(test,				\
				    v4l2_h264_enc_validate_pps(&p, &valid_sps), \
				    -EINVAL, #field " = " #value);	\
	} while (0)
	REFUSED(num_slice_groups_minus1, 1);
	REFUSED(weighted_bipred_idc, 1);
	REFUSED(num_ref_idx_l0_default_active_minus1, 32);
	REFUSED(num_ref_idx_l1_default_active_minus1, 32);
	REFUSED(pic_init_qp_minus26, -27);
	REFUSED(pic_init_qp_minus26, 26);
	REFUSED(pic_init_qs_minus26, -27);
	REFUSED(pic_init_qs_minus26, 26);
	REFUSED(chroma_qp_index_offset, -13);
	REFUSED(chroma_qp_index_offset, 13);
	REFUSED(second_chroma_qp_index_offset, -13);
	REFUSED(second_chroma_qp_index_offset, 13);
	REFUSED(flags, 0);
	REFUSED(flags, V4L2_H264_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT |
		V4L2_H264_PPS_FLAG_WEIGHTED_PRED);
	REFUSED(flags, V4L2_H264_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT |
		V4L2_H264_PPS_FLAG_REDUNDANT_PIC_CNT_PRESENT);
	REFUSED(flags, V4L2_H264_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT |
		V4L2_H264_PPS_FLAG_BOTTOM_FIELD_PIC_ORDER_IN_FRAME_PRESENT);
	REFUSED(flags, V4L2_H264_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT |
		V4L2_H264_PPS_FLAG_SCALING_MATRIX_PRESENT);
#undef REFUSED
}

static void compound(struct kunit *test)
{
	struct v4l2_ctrl_h264_encode_params p = { .flags = 0x40000000 };
	struct v4l2_ctrl_h264_encode_rc rc = { .qp = 60 };
	struct v4l2_ctrl_h264_encode_feedback fb = {};
	const u32 params = V4L2_CTRL_TYPE_H264_ENCODE_PARAMS;
	const u32 rct = V4L2_CTRL_TYPE_H264_ENCODE_RC;
	const u32 feedback = V4L2_CTRL_TYPE_H264_ENCODE_FEEDBACK;

	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_compound(params, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_compound(rct, &rc), -EINVAL);
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_compound(feedback, &fb), 0);
	p.flags = 0;
	rc.qp = 0;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_compound(params, &p), 0);
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_compound(rct, &rc), 0);
	/* A type that is not one of the encode controls. */
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_compound(V4L2_CTRL_TYPE_H264_SPS, &p),
			-EINVAL);
}

static struct kunit_case v4l2_h264_enc_ctrls_cases[] = {
	KUNIT_CASE(encode_params),
	KUNIT_CASE(encode_rc),
	KUNIT_CASE(sps),
	KUNIT_CASE(pps),
	KUNIT_CASE(compound),
	{}
};

static struct kunit_suite v4l2_h264_enc_ctrls_suite = {
	.name = "v4l2-h264-enc-ctrls",
	.test_cases = v4l2_h264_enc_ctrls_cases,
};

kunit_test_suite(v4l2_h264_enc_ctrls_suite);

MODULE_DESCRIPTION("KUnit tests of the stateless H.264 encode control validation");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the stateless H.264 encode control validation: each rule
 * accepts a valid value and refuses every way of breaking it with -EINVAL.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <media/v4l2-h264-enc.h>

static void encode_params(struct kunit *test)
{
	struct v4l2_ctrl_h264_encode_params p = {};

	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), 0);
	p.flags = V4L2_H264_ENCODE_FLAG_FORCE_IDR | V4L2_H264_ENCODE_FLAG_SCENE_CHANGE;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), 0);
	p.flags = V4L2_H264_ENCODE_FLAG_REFERENCE_TS;
	p.reference_ts = 33333333;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), 0);
	p.flags |= V4L2_H264_ENCODE_FLAG_MARK_LONG_TERM;
	KUNIT_EXPECT_EQ(test, v4l2_h264_enc_validate_params(&p), 0);
	p.flags &= ~V4L2_H264_ENCODE_FLAG_MARK_LONG_TERM;

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

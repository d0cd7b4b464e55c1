// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the Rust H.264 encoder core (kernel::media::h264enc),
 * through its C API, as a C driver uses it.
 *
 * The slices below are what the H1 writes for the plans of this configuration:
 * 32x32 Constrained Baseline, CQP 26, poc type 2, 16-bit frame_num, two frames.
 * They come from the software model of the H1 (tools/h1/model), the
 * hardware's stand-in, not from the core: the core only reads them, as it reads
 * what the silicon writes.
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <media/h264enc.h>

static const u8 h264enc_test_idr_slice[] = {
	0x00, 0x00, 0x00, 0x01, 0x65, 0x88, 0x80, 0x00, 0x4f, 0xc5, 0x80, 0x45,
	0x81, 0x99, 0xbf, 0x70, 0x6a, 0x00, 0x02, 0x04, 0xea, 0x3a, 0x0b, 0xe2,
	0x4e, 0x0e, 0x82, 0xe3, 0xa0, 0xbe, 0x24, 0xe3, 0xee, 0xdb, 0x9f, 0xc7,
	0x3f, 0x91, 0x16, 0x01, 0x16, 0x06, 0x66, 0xf5, 0xb8, 0xe8, 0x2e, 0x3a,
	0x0b, 0xe2, 0x4e, 0x0e, 0x82, 0xe3, 0xa0, 0xbe, 0x24, 0xe3, 0xf6, 0xdb,
	0x9f, 0xc7, 0x00, 0x1f, 0x23, 0x19, 0x1d, 0x0e, 0x60, 0x83, 0x7b, 0x6c,
	0x10, 0x46, 0xd6, 0xdb, 0x6b, 0x7e, 0xfb, 0xb7, 0xbb, 0x7b, 0xb7, 0x37,
	0x83, 0x52, 0x5f, 0xda, 0x7f, 0x6e, 0xfb, 0xb7, 0xe0, 0x92, 0x82, 0xd6,
	0xa6, 0xae, 0x5d, 0x97, 0x49, 0xff, 0xf0, 0x00, 0x5e, 0x41, 0x73, 0xf8,
	0x4d, 0x1e, 0xba, 0x7f, 0xd7, 0x7d, 0xff, 0xff, 0x67, 0xbe, 0xd8, 0x12,
	0x18, 0x34, 0x54, 0xa3, 0xd3, 0x37, 0xb5, 0x98, 0xff, 0xe0, 0x6f, 0xcc,
	0xf1, 0x57, 0x5a, 0x46, 0x30, 0x92, 0xa7, 0x28, 0x45, 0x78,
};

static const u8 h264enc_test_p_slice[] = {
	0x00, 0x00, 0x00, 0x01, 0x41, 0x9a, 0x00, 0x02, 0x3f, 0x33, 0xf8, 0xac,
	0xde, 0xdc, 0xde, 0x00, 0x08, 0x7a, 0x86, 0x9e, 0x4a, 0x8d, 0xc4, 0xa9,
	0x76, 0xc4, 0xe8, 0xb9, 0x29, 0xa4, 0x55, 0xf9, 0xaf, 0x15, 0xe0, 0x44,
	0xe4, 0x62, 0xa1, 0x15, 0xdd, 0x11, 0xde, 0x00, 0x0b, 0xb0, 0xc8, 0x4f,
	0x94, 0xac, 0x5e, 0x6f, 0xfd, 0xf8, 0x1b, 0xf6, 0xf8,
};

#define TEST_MBS	4	/* 32x32 */
#define TEST_QP		26

static const struct h264enc_config test_cfg = {
	.width = 32,
	.height = 32,
	.fps_num = 30,
	.fps_den = 1,
	.profile_idc = 66,
	.level_idc = 10,
	.poc_type = 2,
	.log2_max_frame_num_minus4 = 12,
	.temporal_layers = 1,
	.rc_mode = H264ENC_RC_CQP,
	.aud = 1,
	.qp_i = TEST_QP,
	.qp_p = TEST_QP,
	.qp_min = 10,
	.qp_max = 51,
	.max_qp_step = 4,
	.max_refs_per_frame = 1,
};

static struct h264enc_ctx *test_ctx(struct kunit *test)
{
	struct h264enc_ctx *ctx = kunit_kzalloc(test, H264ENC_CTX_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, h264enc_init(ctx, &test_cfg), 0);
	return ctx;
}

/* Hardware feedback for one slice NAL unit of @len bytes, coded at TEST_QP. */
static void test_feedback(struct h264enc_hw_feedback *fb, u32 len)
{
	memset(fb, 0, sizeof(*fb));
	fb->stream_bits = len * 8;
	fb->qp_sum = TEST_QP * TEST_MBS;
	fb->slices = 1;
}

static void test_plan(struct kunit *test, struct h264enc_ctx *ctx,
		      struct h264enc_frame_plan *plan, u64 ts)
{
	struct h264enc_frame_params fp = { .timestamp = ts };

	KUNIT_ASSERT_EQ(test, h264enc_plan_frame(ctx, &fp, plan), 0);
}

static int test_complete(struct h264enc_ctx *ctx, const u8 *slice, u32 len,
			 struct h264enc_frame_status *st)
{
	struct h264enc_hw_feedback fb;

	test_feedback(&fb, len);
	return h264enc_complete_frame(ctx, &fb, slice, len, &len, 1, st);
}

/* Invalid configurations and null pointers are refused, never dereferenced. */
static void h264enc_core_test_init(struct kunit *test)
{
	struct h264enc_ctx *ctx = kunit_kzalloc(test, H264ENC_CTX_SIZE, GFP_KERNEL);
	struct h264enc_config cfg = test_cfg;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_EXPECT_EQ(test, h264enc_init(NULL, &cfg), -EINVAL);
	KUNIT_EXPECT_EQ(test, h264enc_init(ctx, NULL), -EINVAL);
	cfg.width = 8;
	KUNIT_EXPECT_EQ(test, h264enc_init(ctx, &cfg), -EINVAL);
	cfg = test_cfg;
	cfg.qp_min = 40;
	cfg.qp_max = 20;
	KUNIT_EXPECT_EQ(test, h264enc_init(ctx, &cfg), -EINVAL);
	KUNIT_EXPECT_EQ(test, h264enc_init(ctx, &test_cfg), 0);
	KUNIT_EXPECT_EQ(test, h264enc_slices_per_picture(ctx), 1);
	KUNIT_EXPECT_GE(test, h264enc_num_rec_slots(ctx), 2);
	KUNIT_EXPECT_EQ(test, h264enc_plan_frame(ctx, NULL, NULL), -EINVAL);
}

/*
 * The first access unit starts with an AUD, then the SPS: nal_unit_type 7,
 * nal_ref_idc 3, profile_idc 66 with constraint_set0/1 (Constrained
 * Baseline, A.2.1) and level_idc 10 (7.3.2.1.1), then the PPS (type 8).
 */
static void h264enc_core_test_headers(struct kunit *test)
{
	static const u8 aud_sps[] = {
		0x00, 0x00, 0x00, 0x01, 0x09, 0x10,
		0x00, 0x00, 0x00, 0x01, 0x67, 0x42, 0xc0, 0x0a,
	};
	struct h264enc_ctx *ctx = test_ctx(test);
	struct h264enc_frame_plan plan;
	u8 *buf = kunit_kzalloc(test, H264ENC_MAX_HEADER_BYTES, GFP_KERNEL);
	int len, pps = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	test_plan(test, ctx, &plan, 0);
	KUNIT_EXPECT_EQ(test, h264enc_write_headers(ctx, buf, 8), -ENOSPC);
	len = h264enc_write_headers(ctx, buf, H264ENC_MAX_HEADER_BYTES);
	KUNIT_ASSERT_GT(test, len, (int)sizeof(aud_sps));
	for (i = 0; i < sizeof(aud_sps); i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], aud_sps[i], "header byte %d", i);
	for (i = 0; i + 4 < (unsigned int)len; i++)
		if (!buf[i] && !buf[i + 1] && buf[i + 2] == 1 && (buf[i + 3] & 0x1f) == 8)
			pps++;
	KUNIT_EXPECT_EQ(test, pps, 1);
}

/* An IDR then a P frame predicted from it, completed with the H1's slices. */
static void h264enc_core_test_frames(struct kunit *test)
{
	struct h264enc_ctx *ctx = test_ctx(test);
	struct h264enc_frame_plan idr, p;
	struct h264enc_frame_status st;
	struct h264enc_stats stats;

	test_plan(test, ctx, &idr, 0);
	KUNIT_EXPECT_EQ(test, idr.slice_type, 2);
	KUNIT_EXPECT_EQ(test, idr.idr, 1);
	KUNIT_EXPECT_EQ(test, idr.frame_num, 0);
	KUNIT_EXPECT_EQ(test, idr.qp, TEST_QP);
	KUNIT_EXPECT_EQ(test, idr.nal_ref_idc, 3);
	KUNIT_ASSERT_EQ(test, test_complete(ctx, h264enc_test_idr_slice,
					    sizeof(h264enc_test_idr_slice), &st), 0);
	KUNIT_EXPECT_EQ(test, st.idr, 1);
	KUNIT_EXPECT_EQ(test, st.slice_type, 2);

	test_plan(test, ctx, &p, 33333);
	KUNIT_EXPECT_EQ(test, p.slice_type, 0);
	KUNIT_EXPECT_EQ(test, p.idr, 0);
	KUNIT_EXPECT_EQ(test, p.frame_num, 1);
	KUNIT_EXPECT_EQ(test, p.ref_slot, idr.rec_slot);
	KUNIT_EXPECT_NE(test, p.rec_slot, idr.rec_slot);
	KUNIT_ASSERT_EQ(test, test_complete(ctx, h264enc_test_p_slice,
					    sizeof(h264enc_test_p_slice), &st), 0);
	KUNIT_EXPECT_EQ(test, st.slice_type, 0);

	KUNIT_ASSERT_EQ(test, h264enc_get_stats(ctx, &stats), 0);
	KUNIT_EXPECT_EQ(test, stats.frames, 2);
	KUNIT_EXPECT_EQ(test, stats.errors, 0);
}

/*
 * What the hardware wrote is checked against the plan: a slice header that
 * disagrees, a NAL table that disagrees with the bits written, or a QP sum
 * outside the plan's bounds drop the frame, and the stream goes on from the
 * last good one (the next plan is the same frame again). Both count as
 * dropped frames in the statistics.
 */
static void h264enc_core_test_bad_hardware(struct kunit *test)
{
	struct h264enc_ctx *ctx = test_ctx(test);
	struct h264enc_frame_plan plan, again;
	struct h264enc_frame_status st;
	struct h264enc_hw_feedback fb;
	struct h264enc_stats stats;
	u32 len = sizeof(h264enc_test_idr_slice), short_len = len - 1;
	u8 *bad = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bad);

	/* The P slice where the IDR was planned: wrong nal_unit_type. */
	test_plan(test, ctx, &plan, 0);
	KUNIT_EXPECT_LT(test, test_complete(ctx, h264enc_test_p_slice,
					    sizeof(h264enc_test_p_slice), &st), 0);

	/* A truncated slice header. */
	test_plan(test, ctx, &again, 0);
	KUNIT_EXPECT_EQ(test, again.frame_num, plan.frame_num);
	KUNIT_EXPECT_EQ(test, again.idr, 1);
	memcpy(bad, h264enc_test_idr_slice, len);
	KUNIT_EXPECT_LT(test, test_complete(ctx, bad, 6, &st), 0);

	/* The NAL table says one byte less than the bits written. */
	test_plan(test, ctx, &again, 0);
	test_feedback(&fb, len);
	KUNIT_EXPECT_EQ(test, h264enc_complete_frame(ctx, &fb, bad, len,
						     &short_len, 1, &st), -EPROTO);

	/* A QP sum below qp_min for every macroblock. */
	test_plan(test, ctx, &again, 0);
	test_feedback(&fb, len);
	fb.qp_sum = 0;
	KUNIT_EXPECT_EQ(test, h264enc_complete_frame(ctx, &fb, bad, len, &len, 1, &st),
			-EPROTO);

	/* Completing without a plan. */
	KUNIT_EXPECT_EQ(test, test_complete(ctx, bad, len, &st), -EBUSY);

	/* An aborted frame (hardware timeout) changes nothing either. */
	test_plan(test, ctx, &again, 0);
	KUNIT_EXPECT_EQ(test, h264enc_abort_frame(ctx), 0);
	test_plan(test, ctx, &again, 0);
	KUNIT_EXPECT_EQ(test, again.idr, 1);
	KUNIT_EXPECT_EQ(test, test_complete(ctx, bad, len, &st), 0);

	/* Four frames refused and one aborted were dropped; one completed. */
	KUNIT_ASSERT_EQ(test, h264enc_get_stats(ctx, &stats), 0);
	KUNIT_EXPECT_EQ(test, stats.frames, 1);
	KUNIT_EXPECT_EQ(test, stats.errors, 5);
}

/*
 * A coding is verified before its statistics decide anything: one that is
 * not the plan drops the frame. A constant-QP picture that is the plan is
 * kept: it has no HRD to keep, and it is not a skipped picture.
 */
static void h264enc_core_test_replan(struct kunit *test)
{
	struct h264enc_ctx *ctx = test_ctx(test);
	struct h264enc_frame_plan plan, again;
	struct h264enc_hw_feedback fb;
	u32 len = sizeof(h264enc_test_idr_slice);
	struct h264enc_frame_status st;
	struct h264enc_stats stats;
	u8 au[64];

	KUNIT_EXPECT_EQ(test, h264enc_replan_frame(NULL, &fb, h264enc_test_idr_slice, len,
						   &len, 1, &again), -EINVAL);
	test_feedback(&fb, len);
	KUNIT_EXPECT_EQ(test, h264enc_replan_frame(ctx, &fb, h264enc_test_idr_slice, len,
						   &len, 1, &again), -EBUSY);
	test_plan(test, ctx, &plan, 0);
	KUNIT_EXPECT_EQ(test, h264enc_replan_frame(ctx, NULL, h264enc_test_idr_slice, len,
						   &len, 1, &again), -EINVAL);
	KUNIT_EXPECT_EQ(test, h264enc_replan_frame(ctx, &fb, h264enc_test_idr_slice, len,
						   &len, 1, &again), 0);
	/* A picture the replan keeps is not completed as a skipped one. */
	KUNIT_EXPECT_EQ(test, h264enc_complete_skipped(NULL, au, sizeof(au), &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, h264enc_complete_skipped(ctx, NULL, sizeof(au), &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, h264enc_complete_skipped(ctx, au, sizeof(au), &st), -EBUSY);
	/* The P slice where the IDR was planned: dropped, as by completion. */
	len = sizeof(h264enc_test_p_slice);
	test_feedback(&fb, len);
	KUNIT_EXPECT_LT(test, h264enc_replan_frame(ctx, &fb, h264enc_test_p_slice, len,
						   &len, 1, &again), 0);
	KUNIT_EXPECT_EQ(test, h264enc_abort_frame(ctx), -EBUSY);
	KUNIT_ASSERT_EQ(test, h264enc_get_stats(ctx, &stats), 0);
	KUNIT_EXPECT_EQ(test, stats.errors, 1);
}

/* Filler NAL units (7.3.2.7) have exactly the size asked for. */
static void h264enc_core_test_filler(struct kunit *test)
{
	u8 buf[16];

	memset(buf, 0, sizeof(buf));
	KUNIT_ASSERT_EQ(test, h264enc_write_filler(buf, sizeof(buf), 8), 8);
	KUNIT_EXPECT_EQ(test, buf[4] & 0x1f, 12);
	KUNIT_EXPECT_EQ(test, buf[7], 0x80);
	KUNIT_EXPECT_EQ(test, buf[8], 0);
	KUNIT_EXPECT_LT(test, h264enc_write_filler(buf, 4, 8), 0);
}

static struct kunit_case h264enc_core_test_cases[] = {
	KUNIT_CASE(h264enc_core_test_init),
	KUNIT_CASE(h264enc_core_test_headers),
	KUNIT_CASE(h264enc_core_test_frames),
	KUNIT_CASE(h264enc_core_test_bad_hardware),
	KUNIT_CASE(h264enc_core_test_replan),
	KUNIT_CASE(h264enc_core_test_filler),
	{}
};

static struct kunit_suite h264enc_core_test_suite = {
	.name = "h264enc-core",
	.test_cases = h264enc_core_test_cases,
};

kunit_test_suite(h264enc_core_test_suite);

MODULE_DESCRIPTION("KUnit tests of the Rust H.264 encoder core");
MODULE_LICENSE("GPL");

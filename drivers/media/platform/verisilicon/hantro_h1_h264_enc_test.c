// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the pure helpers of the Hantro H1 H.264 encoder backend:
 * register fields packed from a frame plan, feedback decoded from registers,
 * the CAPTURE payload. Included by hantro_h1_h264_enc.c, whose helpers are
 * static, when CONFIG_VIDEO_HANTRO_H264_ENC_KUNIT_TEST is set; the suite runs
 * when hantro-vpu is loaded.
 *
 * Expected register values are written out in hex from the H1 register map
 * (ENC_CTRL2 bits 16-31, H264_EXT bits 0-16, two checkpoint fields per
 * register with the even one in the upper half).
 */

#include <kunit/test.h>

/* The partial 64-bit word after the headers goes into STR_HDR_REM. */
static void hantro_h264_enc_test_hdr_rem(struct kunit *test)
{
	static const u8 buf[16] = {
		0, 0, 0, 1, 9, 0x10, 0, 0,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	};
	struct hantro_h264_enc_hdr_rem r;

	hantro_h264_enc_hdr_rem(buf, 13, &r);
	KUNIT_EXPECT_EQ(test, r.offset, 8);
	KUNIT_EXPECT_EQ(test, r.msb, 0x11223344);
	KUNIT_EXPECT_EQ(test, r.lsb, 0x55000000);
	KUNIT_EXPECT_EQ(test, r.bits, 40);

	hantro_h264_enc_hdr_rem(buf, 15, &r);
	KUNIT_EXPECT_EQ(test, r.lsb, 0x55667700);
	KUNIT_EXPECT_EQ(test, r.bits, 56);

	/* Aligned headers: nothing to rewrite. */
	hantro_h264_enc_hdr_rem(buf, 16, &r);
	KUNIT_EXPECT_EQ(test, r.offset, 16);
	KUNIT_EXPECT_EQ(test, r.msb, 0);
	KUNIT_EXPECT_EQ(test, r.lsb, 0);
	KUNIT_EXPECT_EQ(test, r.bits, 0);
}

/* Checkpoint ladder: pairs of 16-bit fields, signed fields masked to width. */
static void hantro_h264_enc_test_pack_rc(struct kunit *test)
{
	struct h264enc_frame_plan plan = { 0 };
	struct hantro_h264_enc_rc_regs r;
	unsigned int i;

	for (i = 0; i < H264ENC_CHECKPOINTS; i++)
		plan.checkpoint_targets[i] = 0x1000 + i;
	plan.checkpoint_word_err[0] = -3;
	plan.checkpoint_word_err[1] = 40;
	plan.checkpoint_word_err[5] = -1;
	plan.checkpoint_delta_qp[0] = -3;
	plan.checkpoint_delta_qp[1] = 2;
	plan.checkpoint_delta_qp[6] = 3;
	plan.mad_threshold = 63;
	plan.mad_qp_adjust = -2;

	hantro_h264_enc_pack_rc(&plan, &r);
	KUNIT_EXPECT_EQ(test, r.checkpoint[0], 0x10001001);
	KUNIT_EXPECT_EQ(test, r.checkpoint[4], 0x10081009);
	KUNIT_EXPECT_EQ(test, r.word_err[0], 0xfffd0028);
	KUNIT_EXPECT_EQ(test, r.word_err[1], 0);
	KUNIT_EXPECT_EQ(test, r.word_err[2], 0x0000ffff);
	KUNIT_EXPECT_EQ(test, r.delta_qp, 0x0300002d);
	KUNIT_EXPECT_EQ(test, r.mad, 0xefc00000);

	/* A plan without in-frame control programs nothing. */
	memset(&plan, 0, sizeof(plan));
	hantro_h264_enc_pack_rc(&plan, &r);
	KUNIT_EXPECT_EQ(test, r.checkpoint[0] | r.word_err[0] | r.delta_qp | r.mad, 0);
}

/* ENC_CTRL2 and SLICE_EXT from the plan and the configuration. */
static void hantro_h264_enc_test_ctrl_regs(struct kunit *test)
{
	struct h264enc_frame_plan plan = { .max_mvs_per_2mb = 16 };
	struct h264enc_config cfg = {
		.slice_mb_rows = 3,
		.disable_deblocking_filter_idc = 2,
		.log2_max_frame_num_minus4 = 12,
		.poc_type = 2,
	};

	/* Level 3.1 and up (MaxMvsPer2Mb 16): no sub-8x8 partitions. */
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_ctrl2(&plan, &cfg), 0x81810000);
	plan.max_mvs_per_2mb = 32;
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_ctrl2(&plan, &cfg), 0x81830000);
	plan.max_mvs_per_2mb = 0;	/* no limit */
	cfg.entropy_cabac = 1;
	cfg.cabac_init_idc = 2;
	cfg.transform_8x8 = 1;
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_ctrl2(&plan, &cfg), 0x81b70000);

	plan.nal_ref_idc = 3;
	plan.slice_type = 2;
	plan.idr = 1;
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_slice_ext(&plan, &cfg), 0xc3);
	plan.idr = 0;	/* an intra picture that is not IDR */
	plan.mark_long_term = 1;
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_slice_ext(&plan, &cfg), 0x100c7);
	plan.slice_type = 0;
	plan.mark_long_term = 0;
	plan.nal_ref_idc = 2;
	cfg.poc_type = 0;
	cfg.log2_max_frame_num_minus4 = 0;
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_slice_ext(&plan, &cfg), 0xc102);
}

/* Checkpoint results are cumulative words; their 16-bit fields wrap. */
static void hantro_h264_enc_test_checkpoint_bits(struct kunit *test)
{
	u32 bits[H264ENC_CHECKPOINTS] = {
		100 * 32, 60000 * 32, 200 * 32, 300 * 32, 300 * 32,
	};

	hantro_h264_enc_checkpoint_bits(bits);
	KUNIT_EXPECT_EQ(test, bits[0], 3200);
	KUNIT_EXPECT_EQ(test, bits[1], 1920000);
	KUNIT_EXPECT_EQ(test, bits[2], (200 + 0x10000) * 32);
	KUNIT_EXPECT_EQ(test, bits[3], (300 + 0x10000) * 32);
	KUNIT_EXPECT_EQ(test, bits[4], (300 + 0x10000) * 32);
	/* Checkpoints not reached read 0 and wrap once more: the core ignores them. */
	KUNIT_EXPECT_EQ(test, bits[5], 0x20000 * 32);
}

/* The NAL size table ends at a zero entry or at its size. */
static void hantro_h264_enc_test_count_nals(struct kunit *test)
{
	static const u32 table[] = { 120, 96, 0, 44 };

	KUNIT_EXPECT_EQ(test, hantro_h264_enc_count_nals(table, 4), 2);
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_count_nals(table, 1), 1);
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_count_nals(table + 2, 2), 0);
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_count_nals(table + 3, 1), 1);
}

/* The payload is headers plus slices; a stream past the buffer is refused. */
static void hantro_h264_enc_test_payload(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_payload(100, 10, 720), 100);
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_payload(100, 10, 0), 10);
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_payload(100, 10, 728), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_payload(100, 101, 0), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_payload(100, 10, U32_MAX), -EOVERFLOW);
}

/*
 * The OUTPUT formats the backend codes, as IN_IMG_CTRL FMT selects them:
 * 4:2:0 planar and semi-planar in one or more planes, packed 4:2:2, and
 * RGB, whose swaps and MSB positions find each component.
 */
static void hantro_h264_enc_test_input(struct kunit *test)
{
	const struct hantro_h1_h264_enc_input *in;

	in = hantro_h1_h264_enc_input(V4L2_PIX_FMT_YUV420M);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_EXPECT_EQ(test, in->fmt, ROCKCHIP_VPU_ENC_FMT_YUV420P);
	KUNIT_EXPECT_EQ(test, in->planes, 3);
	in = hantro_h1_h264_enc_input(V4L2_PIX_FMT_NV12);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_EXPECT_EQ(test, in->fmt, ROCKCHIP_VPU_ENC_FMT_YUV420SP);
	in = hantro_h1_h264_enc_input(V4L2_PIX_FMT_UYVY);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_EXPECT_EQ(test, in->fmt, ROCKCHIP_VPU_ENC_FMT_UYVY422);
	KUNIT_EXPECT_EQ(test, in->bytes_per_pixel, 2);
	/* rgb565le: R in bits 15..11 of the little-endian value, no byte swap. */
	in = hantro_h1_h264_enc_input(V4L2_PIX_FMT_RGB565);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_EXPECT_EQ(test, in->fmt, ROCKCHIP_VPU_ENC_FMT_RGB565);
	KUNIT_EXPECT_EQ(test, in->msb_r, 15);
	KUNIT_EXPECT_EQ(test, in->swap & H1_REG_AXI_CTRL_INPUT_SWAP8, 0);
	/* B G R X in memory: R in bits 23..16 of the little-endian word. */
	in = hantro_h1_h264_enc_input(V4L2_PIX_FMT_XBGR32);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_EXPECT_EQ(test, in->fmt, ROCKCHIP_VPU_ENC_FMT_RGB888);
	KUNIT_EXPECT_EQ(test, in->msb_r, 23);
	KUNIT_EXPECT_EQ(test, in->msb_b, 7);
	KUNIT_EXPECT_EQ(test, in->swap, H1_REG_AXI_CTRL_INPUT_SWAP32);
	KUNIT_EXPECT_NULL(test, hantro_h1_h264_enc_input(V4L2_PIX_FMT_RGB24));
	KUNIT_EXPECT_NULL(test, hantro_h1_h264_enc_input(V4L2_PIX_FMT_H264));
}

/* The conversion registers: MPP's coefficients, the MSB positions above F. */
static void hantro_h264_enc_test_rgb_regs(struct kunit *test)
{
	const struct hantro_h1_h264_enc_input *in =
		hantro_h1_h264_enc_input(V4L2_PIX_FMT_XBGR32);
	u32 regs[3];

	KUNIT_ASSERT_NOT_NULL(test, in);
	hantro_h1_h264_enc_rgb_regs(in, 6, regs);
	KUNIT_EXPECT_EQ(test, regs[0], 38443u << 16 | 19589);
	KUNIT_EXPECT_EQ(test, regs[1], 37008u << 16 | 7504);
	KUNIT_EXPECT_EQ(test, regs[2], 7u << 26 | 15u << 21 | 23u << 16 | 46740);
	hantro_h1_h264_enc_rgb_regs(in, 1, regs);
	KUNIT_EXPECT_EQ(test, regs[0], 46871u << 16 | 13933);
}

/* The CABAC table: per QP the I-slice states, then the P-slice ones. */
static void hantro_h264_enc_test_cabac_table(struct kunit *test)
{
	u8 *t = kunit_kzalloc(test, H1_REG_CABAC_TBL_SIZE, GFP_KERNEL);
	const u8 *qp30_i, *qp30_p;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, hantro_h264_enc_cabac_table(t, 1), 0);
	qp30_i = t + 60 * H1_REG_CABAC_TBL_STRIDE;
	qp30_p = qp30_i + H1_REG_CABAC_TBL_STRIDE;
	/* ctxIdx 60 is (m, n) = (0, 41) everywhere: pStateIdx 22, valMPS 0. */
	KUNIT_EXPECT_EQ(test, qp30_i[60], 22 << 1);
	KUNIT_EXPECT_EQ(test, qp30_p[60], 22 << 1);
	/* ctxIdx 11 (mb_skip_flag) of cabac_init_idc 1 is (22, 25): 66 at QP 30. */
	KUNIT_EXPECT_EQ(test, qp30_p[11], (66 - 64) << 1 | 1);
	/* ctxIdx 3 (I-slice mb_type) is (20, -15): 22 at QP 30; 0 at QP 0 clips to 1. */
	KUNIT_EXPECT_EQ(test, qp30_i[3], (63 - 22) << 1);
	KUNIT_EXPECT_EQ(test, t[3], (63 - 1) << 1);
	/* The four spare bytes of each block stay zero. */
	KUNIT_EXPECT_EQ(test, qp30_p[460] | qp30_p[463], 0);
	KUNIT_EXPECT_EQ(test, hantro_h264_enc_cabac_table(t, 3), -EINVAL);
}

static struct kunit_case hantro_h264_enc_test_cases[] = {
	KUNIT_CASE(hantro_h264_enc_test_hdr_rem),
	KUNIT_CASE(hantro_h264_enc_test_pack_rc),
	KUNIT_CASE(hantro_h264_enc_test_ctrl_regs),
	KUNIT_CASE(hantro_h264_enc_test_checkpoint_bits),
	KUNIT_CASE(hantro_h264_enc_test_count_nals),
	KUNIT_CASE(hantro_h264_enc_test_payload),
	KUNIT_CASE(hantro_h264_enc_test_input),
	KUNIT_CASE(hantro_h264_enc_test_rgb_regs),
	KUNIT_CASE(hantro_h264_enc_test_cabac_table),
	{}
};

static struct kunit_suite hantro_h264_enc_test_suite = {
	.name = "hantro-h1-h264-enc",
	.test_cases = hantro_h264_enc_test_cases,
};

kunit_test_suite(hantro_h264_enc_test_suite);

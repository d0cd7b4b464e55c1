// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hantro H1 H.264 stateless encoder backend: its V4L2 controls.
 *
 * The configuration the core is set up with at VIDIOC_STREAMON (and the
 * controls it comes from, busy while streaming), the per-frame parameters of
 * each request and the checks of a request before it is queued, the bit rate
 * and key-frame controls that act while streaming, and the feedback control.
 */

#include <linux/kernel.h>
#include <linux/string.h>
#include <media/media-request.h>
#include <media/v4l2-ctrls.h>
#include <media/v4l2-h264-enc.h>
#include <media/videobuf2-v4l2.h>
#include "hantro.h"
#include "hantro_h1_regs.h"
#include "hantro_hw.h"

static s32 hantro_h264_enc_ctrl(struct hantro_ctx *ctx, u32 id, s32 def)
{
	s32 *v = hantro_get_ctrl(ctx, id);

	return v ? *v : def;
}

#define HANTRO_H264_ENC_LAYERS V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_LAYER

static const u32 hantro_h264_enc_layer_br[] = {
	V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L0_BR,
	V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L1_BR,
	V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L2_BR,
};

/* profile_idc of the V4L2_CID_MPEG_VIDEO_H264_PROFILE menu entries offered. */
static u8 hantro_h264_enc_profile_idc(s32 profile)
{
	switch (profile) {
	case V4L2_MPEG_VIDEO_H264_PROFILE_MAIN:
		return 77;
	case V4L2_MPEG_VIDEO_H264_PROFILE_HIGH:
		return 100;
	default:
		/*
		 * Baseline is coded as Constrained Baseline (no FMO, ASO or
		 * redundant slices), which every Baseline decoder decodes.
		 */
		return 66;
	}
}

/* level_idc of a V4L2_CID_MPEG_VIDEO_H264_LEVEL menu entry (Table A-1); not 1b. */
static u8 hantro_h264_enc_level_idc(s32 level)
{
	static const u8 idc[] = {
		[V4L2_MPEG_VIDEO_H264_LEVEL_1_0] = 10,
		[V4L2_MPEG_VIDEO_H264_LEVEL_1_1] = 11,
		[V4L2_MPEG_VIDEO_H264_LEVEL_1_2] = 12,
		[V4L2_MPEG_VIDEO_H264_LEVEL_1_3] = 13,
		[V4L2_MPEG_VIDEO_H264_LEVEL_2_0] = 20,
		[V4L2_MPEG_VIDEO_H264_LEVEL_2_1] = 21,
		[V4L2_MPEG_VIDEO_H264_LEVEL_2_2] = 22,
		[V4L2_MPEG_VIDEO_H264_LEVEL_3_0] = 30,
		[V4L2_MPEG_VIDEO_H264_LEVEL_3_1] = 31,
		[V4L2_MPEG_VIDEO_H264_LEVEL_3_2] = 32,
		[V4L2_MPEG_VIDEO_H264_LEVEL_4_0] = 40,
		[V4L2_MPEG_VIDEO_H264_LEVEL_4_1] = 41,
		[V4L2_MPEG_VIDEO_H264_LEVEL_4_2] = 42,
		[V4L2_MPEG_VIDEO_H264_LEVEL_5_0] = 50,
		[V4L2_MPEG_VIDEO_H264_LEVEL_5_1] = 51,
	};

	return level >= 0 && level < ARRAY_SIZE(idc) ? idc[level] : 0;
}

/*
 * V4L2_CID_MPEG_VIDEO_CONSTANT_QUALITY, 1 (lowest) to 100 (best), as a
 * constant QP: 1 is QP 51, 100 is QP 0, linear between.
 */
static u8 hantro_h264_enc_quality_qp(s32 quality)
{
	quality = clamp(quality, 1, 100);
	return 51 - ((quality - 1) * 51 + 49) / 99;
}

/* colour_primaries (Table E-3) of a V4L2 colorspace; 2 is unspecified. */
static u8 hantro_h264_enc_primaries(u32 colorspace)
{
	switch (colorspace) {
	case V4L2_COLORSPACE_REC709:
	case V4L2_COLORSPACE_SRGB:
	case V4L2_COLORSPACE_JPEG:
		return 1;
	case V4L2_COLORSPACE_470_SYSTEM_M:
		return 4;
	case V4L2_COLORSPACE_470_SYSTEM_BG:
		return 5;
	case V4L2_COLORSPACE_SMPTE170M:
		return 6;
	case V4L2_COLORSPACE_SMPTE240M:
		return 7;
	case V4L2_COLORSPACE_BT2020:
		return 9;
	case V4L2_COLORSPACE_DCI_P3:
		return 11;
	default:
		return 2;
	}
}

/* transfer_characteristics (Table E-4) of a V4L2 transfer function. */
static u8 hantro_h264_enc_transfer(u32 xfer_func)
{
	switch (xfer_func) {
	case V4L2_XFER_FUNC_709:
		return 1;
	case V4L2_XFER_FUNC_SRGB:
		return 13;
	case V4L2_XFER_FUNC_SMPTE240M:
		return 7;
	case V4L2_XFER_FUNC_NONE:
		return 8;
	case V4L2_XFER_FUNC_SMPTE2084:
		return 16;
	default:
		return 2;
	}
}

/* matrix_coefficients (Table E-5) of a V4L2 Y'CbCr encoding. */
static u8 hantro_h264_enc_matrix(u32 ycbcr_enc)
{
	switch (ycbcr_enc) {
	case V4L2_YCBCR_ENC_601:
	case V4L2_YCBCR_ENC_XV601:
		return 6;
	case V4L2_YCBCR_ENC_709:
	case V4L2_YCBCR_ENC_XV709:
		return 1;
	case V4L2_YCBCR_ENC_SMPTE240M:
		return 7;
	case V4L2_YCBCR_ENC_BT2020:
		return 9;
	case V4L2_YCBCR_ENC_BT2020_CONST_LUM:
		return 10;
	default:
		return 2;
	}
}

/*
 * The VUI's video signal type from the OUTPUT format's colorimetry, its
 * _DEFAULT values resolved for the colorspace; none for a default or raw
 * colorspace. The H1 codes Y'CbCr samples as they are. RGB it converts
 * with the BT.709 matrix when the Y'CbCr encoding is BT.709 and with the
 * BT.601 one otherwise, to full range: the stream always says which, and
 * an RGB source of no colorspace is sRGB.
 */
static void hantro_h264_enc_colour(const struct v4l2_pix_format_mplane *fmt,
				   bool rgb, struct h264enc_config *cfg)
{
	u32 xfer = fmt->xfer_func, enc = fmt->ycbcr_enc, quant = fmt->quantization;
	u32 colorspace = fmt->colorspace;

	if (rgb && (colorspace == V4L2_COLORSPACE_DEFAULT ||
		    colorspace == V4L2_COLORSPACE_RAW))
		colorspace = V4L2_COLORSPACE_SRGB;
	if (colorspace == V4L2_COLORSPACE_DEFAULT ||
	    colorspace == V4L2_COLORSPACE_RAW)
		return;
	if (xfer == V4L2_XFER_FUNC_DEFAULT)
		xfer = V4L2_MAP_XFER_FUNC_DEFAULT(colorspace);
	if (enc == V4L2_YCBCR_ENC_DEFAULT)
		enc = V4L2_MAP_YCBCR_ENC_DEFAULT(colorspace);
	if (quant == V4L2_QUANTIZATION_DEFAULT)
		quant = V4L2_MAP_QUANTIZATION_DEFAULT(false, colorspace, enc);
	if (rgb) {
		if (enc != V4L2_YCBCR_ENC_709)
			enc = V4L2_YCBCR_ENC_601;
		quant = V4L2_QUANTIZATION_FULL_RANGE;
	}
	cfg->colour_primaries = hantro_h264_enc_primaries(colorspace);
	cfg->transfer_characteristics = hantro_h264_enc_transfer(xfer);
	cfg->matrix_coefficients = hantro_h264_enc_matrix(enc);
	cfg->full_range = quant == V4L2_QUANTIZATION_FULL_RANGE;
}

#define H1_SWAP_ALL	(H1_REG_AXI_CTRL_INPUT_SWAP8 | H1_REG_AXI_CTRL_INPUT_SWAP16 | \
			 H1_REG_AXI_CTRL_INPUT_SWAP32)
#define H1_SWAP_16_32	(H1_REG_AXI_CTRL_INPUT_SWAP16 | H1_REG_AXI_CTRL_INPUT_SWAP32)

/*
 * The H1 swaps each 64-bit word it reads (little-endian) and takes pixels
 * from its most significant end: with 16 and 32-bit swaps a 16-bit pixel
 * is its little-endian value, with the 32-bit swap alone a 32-bit pixel is.
 * The MSB positions count in that value, as Rockchip MPP's vepu_common.c
 * gives them for the same layouts.
 */
static const struct hantro_h1_h264_enc_input hantro_h1_h264_enc_inputs[] = {
	{ V4L2_PIX_FMT_YUV420, ROCKCHIP_VPU_ENC_FMT_YUV420P, 3, 1, H1_SWAP_ALL },
	{ V4L2_PIX_FMT_YUV420M, ROCKCHIP_VPU_ENC_FMT_YUV420P, 3, 1, H1_SWAP_ALL },
	{ V4L2_PIX_FMT_NV12, ROCKCHIP_VPU_ENC_FMT_YUV420SP, 2, 1, H1_SWAP_ALL },
	{ V4L2_PIX_FMT_NV12M, ROCKCHIP_VPU_ENC_FMT_YUV420SP, 2, 1, H1_SWAP_ALL },
	{ V4L2_PIX_FMT_YUYV, ROCKCHIP_VPU_ENC_FMT_YUYV422, 1, 2, H1_SWAP_ALL },
	{ V4L2_PIX_FMT_UYVY, ROCKCHIP_VPU_ENC_FMT_UYVY422, 1, 2, H1_SWAP_ALL },
	/* rrrrrggg gggbbbbb as a little-endian 16-bit value. */
	{ V4L2_PIX_FMT_RGB565, ROCKCHIP_VPU_ENC_FMT_RGB565, 1, 2, H1_SWAP_16_32, 15, 10, 4 },
	/* Bytes B G R X, R G B X, X R G B and X B G R. */
	{ V4L2_PIX_FMT_XBGR32, ROCKCHIP_VPU_ENC_FMT_RGB888, 1, 4,
	  H1_REG_AXI_CTRL_INPUT_SWAP32, 23, 15, 7 },
	{ V4L2_PIX_FMT_RGBX32, ROCKCHIP_VPU_ENC_FMT_RGB888, 1, 4,
	  H1_REG_AXI_CTRL_INPUT_SWAP32, 7, 15, 23 },
	{ V4L2_PIX_FMT_XRGB32, ROCKCHIP_VPU_ENC_FMT_RGB888, 1, 4,
	  H1_REG_AXI_CTRL_INPUT_SWAP32, 15, 23, 31 },
	{ V4L2_PIX_FMT_BGRX32, ROCKCHIP_VPU_ENC_FMT_RGB888, 1, 4,
	  H1_REG_AXI_CTRL_INPUT_SWAP32, 31, 23, 15 },
};

/**
 * hantro_h1_h264_enc_input() - how the H1 reads an OUTPUT format
 * @pixelformat: the V4L2 pixel format of the OUTPUT queue
 *
 * The H1 reads 4:2:0 planar and semi-planar pictures, packed 4:2:2 YUYV and
 * UYVY ones, which it codes as 4:2:0, and RGB ones, which it converts to
 * full-range Y'CbCr 4:2:0 as it reads them.
 *
 * Return: the input format, or NULL for a format the backend does not code.
 */
const struct hantro_h1_h264_enc_input *hantro_h1_h264_enc_input(u32 pixelformat)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hantro_h1_h264_enc_inputs); i++)
		if (hantro_h1_h264_enc_inputs[i].fourcc == pixelformat)
			return &hantro_h1_h264_enc_inputs[i];
	return NULL;
}

/*
 * The conversion coefficients of RGB input (Rockchip MPP's, in 2^-16):
 * A, B, C of Y = A R + B G + C B, E of Cb = E (B - Y) + 128 and F of
 * Cr = F (R - Y) + 128, for BT.601 and BT.709, full range.
 */
static const u16 hantro_h264_enc_rgb_601[] = { 19589, 38443, 7504, 37008, 46740 };
static const u16 hantro_h264_enc_rgb_709[] = { 13933, 46871, 4732, 35317, 41615 };

/**
 * hantro_h1_h264_enc_rgb_regs() - the conversion registers of an RGB input
 * @in: the input format, one of the RGB ones
 * @matrix_coefficients: the stream's matrix_coefficients: 1 (BT.709) selects
 *	the BT.709 conversion, anything else the BT.601 one
 * @regs: filled with the values of H1_REG_RGB_YUV_COEFF(0),
 *	H1_REG_RGB_YUV_COEFF(1) and H1_REG_RGB_MASK_MSB
 */
void hantro_h1_h264_enc_rgb_regs(const struct hantro_h1_h264_enc_input *in,
				 u8 matrix_coefficients, u32 regs[3])
{
	const u16 *k = matrix_coefficients == 1 ? hantro_h264_enc_rgb_709 :
						    hantro_h264_enc_rgb_601;

	regs[0] = H1_REG_RGB_YUV_COEFF_A(k[0]) | H1_REG_RGB_YUV_COEFF_B(k[1]);
	regs[1] = H1_REG_RGB_YUV_COEFF_C(k[2]) | H1_REG_RGB_YUV_COEFF_E(k[3]);
	regs[2] = H1_REG_RGB_MASK_MSB_COEFF_F(k[4]) |
		  H1_REG_RGB_MASK_MSB_R(in->msb_r) |
		  H1_REG_RGB_MASK_MSB_G(in->msb_g) |
		  H1_REG_RGB_MASK_MSB_B(in->msb_b);
}

/**
 * hantro_h1_h264_enc_config() - the stream's configuration
 * @ctx: the hantro context
 * @cfg: filled with the core's configuration
 *
 * Takes the configuration from the formats, the frame interval and the
 * stateful codec controls of @ctx, for the core at VIDIOC_STREAMON. The
 * driver writes the SPS and PPS itself: what no control expresses it chooses
 * (pic_order_cnt_type 2, as pictures are coded in output order, and
 * log2_max_frame_num_minus4 12).
 *
 * Return: 0, or -EINVAL when they cannot make a stream.
 */
int hantro_h1_h264_enc_config(struct hantro_ctx *ctx, struct h264enc_config *cfg)
{
	const struct hantro_h1_h264_enc_input *in;
	s32 mode, slice_mode, max_mb, cpb_kb, qp, val;
	unsigned int i;

	in = hantro_h1_h264_enc_input(ctx->src_fmt.pixelformat);
	if (!in)
		return -EINVAL;

	memset(cfg, 0, sizeof(*cfg));
	cfg->width = ctx->dst_fmt.width;
	cfg->height = ctx->dst_fmt.height;
	/* Frames per second: the inverse of the OUTPUT frame interval. */
	cfg->fps_num = ctx->timeperframe.denominator;
	cfg->fps_den = ctx->timeperframe.numerator;
	hantro_h264_enc_colour(&ctx->src_fmt, in->fmt >= ROCKCHIP_VPU_ENC_FMT_RGB565, cfg);
	val = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_PROFILE,
				   V4L2_MPEG_VIDEO_H264_PROFILE_CONSTRAINED_BASELINE);
	cfg->profile_idc = hantro_h264_enc_profile_idc(val);
	val = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_LEVEL,
				   V4L2_MPEG_VIDEO_H264_LEVEL_4_0);
	cfg->level_idc = hantro_h264_enc_level_idc(val);
	if (!cfg->level_idc)
		return -EINVAL;
	cfg->poc_type = 2;
	cfg->log2_max_frame_num_minus4 = 12;
	cfg->entropy_cabac = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_ENTROPY_MODE, 0) ==
			     V4L2_MPEG_VIDEO_H264_ENTROPY_MODE_CABAC;
	if (cfg->entropy_cabac)
		cfg->cabac_init_idc =
			hantro_h264_enc_ctrl(ctx, V4L2_CID_STATELESS_H264_ENCODE_CABAC_INIT_IDC,
					     0);
	cfg->transform_8x8 =
		!!hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_8X8_TRANSFORM, 0);
	cfg->constrained_intra_pred =
		!!hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_CONSTRAINED_INTRA_PREDICTION,
				       0);
	cfg->chroma_qp_index_offset =
		hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_CHROMA_QP_INDEX_OFFSET, 0);
	cfg->aud = !!hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_AU_DELIMITER, 1);
	cfg->omit_param_sets =
		!hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_PREPEND_SPSPPS_TO_IDR, 1);

	cfg->disable_deblocking_filter_idc =
		hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_LOOP_FILTER_MODE, 0);
	cfg->slice_alpha_c0_offset_div2 =
		hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_LOOP_FILTER_ALPHA, 0);
	cfg->slice_beta_offset_div2 =
		hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_LOOP_FILTER_BETA, 0);
	slice_mode = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_MULTI_SLICE_MODE, 0);
	max_mb = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_MULTI_SLICE_MAX_MB, 0);
	if (slice_mode == V4L2_MPEG_VIDEO_MULTI_SLICE_MODE_MAX_MB && max_mb > 0)
		/* The H1 cuts slices at macroblock rows. */
		cfg->slice_mb_rows = max_t(u32, 1, max_mb / DIV_ROUND_UP(cfg->width, 16));
	cfg->idr_period = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_GOP_SIZE, 0);
	cfg->temporal_layers = 1;
	if (hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING, 0))
		cfg->temporal_layers = hantro_h264_enc_ctrl(ctx, HANTRO_H264_ENC_LAYERS, 1);
	cfg->ltr_count = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_LTR_COUNT, 0);
	cfg->ltr_period =
		hantro_h264_enc_ctrl(ctx, V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD, 0);

	cfg->qp_i = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_I_FRAME_QP, 26);
	cfg->qp_p = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_P_FRAME_QP, 28);
	cfg->qp_min = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_MIN_QP, 0);
	cfg->qp_max = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_MAX_QP, 51);
	cfg->max_qp_step = 4;
	cfg->max_refs_per_frame = 1;

	/* Without frame-level rate control a request may bring its own QP. */
	if (!hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE, 1)) {
		cfg->rc_mode = H264ENC_RC_CLIENT;
		return 0;
	}
	mode = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_BITRATE_MODE,
				    V4L2_MPEG_VIDEO_BITRATE_MODE_VBR);
	switch (mode) {
	case V4L2_MPEG_VIDEO_BITRATE_MODE_CBR:
		cfg->rc_mode = H264ENC_RC_CBR;
		cfg->filler = !!hantro_h264_enc_ctrl(ctx,
				V4L2_CID_STATELESS_H264_ENCODE_FILLER, 0);
		break;
	case V4L2_MPEG_VIDEO_BITRATE_MODE_VBR:
		cfg->rc_mode = H264ENC_RC_VBR;
		break;
	case V4L2_MPEG_VIDEO_BITRATE_MODE_CQ:
		/* Constant quality: P pictures 2 QP above I pictures, as x264's ipratio. */
		val = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_CONSTANT_QUALITY, 50);
		qp = hantro_h264_enc_quality_qp(val);
		cfg->rc_mode = H264ENC_RC_CQ;
		cfg->qp_i = qp;
		cfg->qp_p = min(qp + 2, 51);
		/* The peak bounds every one-second window; the QP rises only there. */
		cfg->max_bitrate =
			hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_BITRATE_PEAK, 0);
		return 0;
	default:
		return -EINVAL;
	}
	cfg->bitrate = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_BITRATE, 0);
	cfg->max_bitrate = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_BITRATE_PEAK, 0);
	cpb_kb = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_H264_CPB_SIZE, 0);
	cfg->cpb_size = cpb_kb > 0 ? (u32)cpb_kb * 8000 : 0;
	/*
	 * Each temporal layer's own rate, when the client splits the bit
	 * rate between them; the core refuses a split that does not add up
	 * to the bit rate or names a layer the pattern does not have.
	 */
	for (i = 0; i < ARRAY_SIZE(hantro_h264_enc_layer_br); i++)
		if (i < cfg->temporal_layers && cfg->temporal_layers > 1)
			cfg->layer_bitrate[i] =
				hantro_h264_enc_ctrl(ctx, hantro_h264_enc_layer_br[i], 0);
	return 0;
}

/*
 * The controls the stream is configured from at VIDIOC_STREAMON: the core and
 * the CABAC table are set up from them once, so they cannot change while
 * streaming (-EBUSY). The bit rates and FORCE_KEY_FRAME can, and the
 * per-frame controls come with every request.
 */
static const u32 hantro_h264_enc_stream_ctrls[] = {
	V4L2_CID_MPEG_VIDEO_H264_PROFILE,
	V4L2_CID_MPEG_VIDEO_H264_LEVEL,
	V4L2_CID_MPEG_VIDEO_H264_ENTROPY_MODE,
	V4L2_CID_MPEG_VIDEO_H264_8X8_TRANSFORM,
	V4L2_CID_MPEG_VIDEO_H264_CONSTRAINED_INTRA_PREDICTION,
	V4L2_CID_MPEG_VIDEO_H264_CHROMA_QP_INDEX_OFFSET,
	V4L2_CID_MPEG_VIDEO_AU_DELIMITER,
	V4L2_CID_MPEG_VIDEO_PREPEND_SPSPPS_TO_IDR,
	V4L2_CID_MPEG_VIDEO_LTR_COUNT,
	V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD,
	V4L2_CID_STATELESS_H264_ENCODE_FILLER,
	V4L2_CID_STATELESS_H264_ENCODE_CABAC_INIT_IDC,
	V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE,
	V4L2_CID_MPEG_VIDEO_BITRATE_MODE,
	V4L2_CID_MPEG_VIDEO_CONSTANT_QUALITY,
	V4L2_CID_MPEG_VIDEO_H264_CPB_SIZE,
	V4L2_CID_MPEG_VIDEO_H264_MIN_QP,
	V4L2_CID_MPEG_VIDEO_H264_MAX_QP,
	V4L2_CID_MPEG_VIDEO_H264_I_FRAME_QP,
	V4L2_CID_MPEG_VIDEO_H264_P_FRAME_QP,
	V4L2_CID_MPEG_VIDEO_GOP_SIZE,
	V4L2_CID_MPEG_VIDEO_H264_LOOP_FILTER_MODE,
	V4L2_CID_MPEG_VIDEO_H264_LOOP_FILTER_ALPHA,
	V4L2_CID_MPEG_VIDEO_H264_LOOP_FILTER_BETA,
	V4L2_CID_MPEG_VIDEO_MULTI_SLICE_MODE,
	V4L2_CID_MPEG_VIDEO_MULTI_SLICE_MAX_MB,
	V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING,
	V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_TYPE,
	V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_LAYER,
	V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L0_BR,
	V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L1_BR,
	V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L2_BR,
};

/**
 * hantro_h1_h264_enc_grab_ctrls() - make the configuration's controls busy
 * @ctx: the hantro context
 * @grab: true while streaming, false when it ends
 */
void hantro_h1_h264_enc_grab_ctrls(struct hantro_ctx *ctx, bool grab)
{
	struct v4l2_ctrl *ctrl;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hantro_h264_enc_stream_ctrls); i++) {
		ctrl = v4l2_ctrl_find(&ctx->ctrl_handler,
				      hantro_h264_enc_stream_ctrls[i]);
		if (ctrl)
			v4l2_ctrl_grab(ctrl, grab);
	}
}

/**
 * hantro_h1_h264_enc_set_feedback() - set the feedback of the frame's request
 * @ctx: the hantro context
 * @fb: what the frame gave
 *
 * Context: Process context: it takes the control handler's mutex. The request
 * gets the value when its job finishes.
 */
void hantro_h1_h264_enc_set_feedback(struct hantro_ctx *ctx,
				     const struct v4l2_ctrl_h264_encode_feedback *fb)
{
	struct v4l2_ctrl *ctrl;

	ctrl = v4l2_ctrl_find(&ctx->ctrl_handler,
			      V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK);
	if (ctrl)
		v4l2_ctrl_s_ctrl_compound(ctrl, V4L2_CTRL_TYPE_H264_ENCODE_FEEDBACK, fb);
}

/**
 * hantro_h1_h264_enc_set_stats() - set the H1 statistics of the frame's request
 * @ctx: the hantro context
 * @stats: the H1's statistics of the frame, zero for a failed frame
 *
 * Context: Process context: it takes the control handler's mutex. The request
 * gets the value when its job finishes, with the feedback.
 */
void hantro_h1_h264_enc_set_stats(struct hantro_ctx *ctx,
				  const u32 stats[HANTRO_H1_H264_ENC_STATS_LEN])
{
	struct v4l2_ctrl *ctrl;

	ctrl = v4l2_ctrl_find(&ctx->ctrl_handler, V4L2_CID_HANTRO_H1_H264_ENC_STATS);
	if (ctrl)
		v4l2_ctrl_s_ctrl_compound(ctrl, V4L2_CTRL_TYPE_U32, stats);
}

/**
 * hantro_h1_h264_enc_update_bitrate() - apply a new bit rate
 * @ctx: the hantro context, with no frame planned
 *
 * A new V4L2_CID_MPEG_VIDEO_BITRATE (VBR: or _PEAK) takes effect at the next
 * frame, which the core makes an IDR picture with the new HRD parameters;
 * in constant quality a new _PEAK bounds the windows from the next frame on.
 *
 * Return: 0, or the core's errno for a bit rate the stream cannot signal.
 */
int hantro_h1_h264_enc_update_bitrate(struct hantro_ctx *ctx)
{
	struct h264enc_config *cfg = &ctx->h264_enc.cfg;
	u32 bitrate, peak;
	int ret;

	switch (cfg->rc_mode) {
	case H264ENC_RC_CBR:
		bitrate = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_BITRATE, 0);
		peak = cfg->max_bitrate;
		break;
	case H264ENC_RC_VBR:
		bitrate = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_BITRATE, 0);
		peak = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_BITRATE_PEAK, 0);
		break;
	case H264ENC_RC_CQ:
		/* Constant quality's peak; no HRD, so no IDR picture either. */
		bitrate = cfg->bitrate;
		peak = hantro_h264_enc_ctrl(ctx, V4L2_CID_MPEG_VIDEO_BITRATE_PEAK, 0);
		break;
	default:
		return 0;
	}
	if (bitrate == cfg->bitrate && peak == cfg->max_bitrate)
		return 0;
	ret = h264enc_set_bitrate(ctx->h264_enc.core, bitrate, peak);
	if (ret)
		return ret;
	cfg->bitrate = bitrate;
	cfg->max_bitrate = peak;
	return 0;
}

/**
 * hantro_h1_h264_enc_frame_params() - the parameters of the next frame
 * @ctx: the hantro context, with the frame's request applied
 * @src: the frame's source buffer
 * @fp: filled from the request's per-frame controls and a pressed
 *	V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME
 */
void hantro_h1_h264_enc_frame_params(struct hantro_ctx *ctx,
				     const struct vb2_v4l2_buffer *src,
				     struct h264enc_frame_params *fp)
{
	const struct v4l2_ctrl_h264_encode_params *params;
	const struct v4l2_ctrl_h264_encode_rc *rc;

	params = hantro_get_ctrl(ctx, V4L2_CID_STATELESS_H264_ENCODE_PARAMS);
	rc = hantro_get_ctrl(ctx, V4L2_CID_STATELESS_H264_ENCODE_RC);
	memset(fp, 0, sizeof(*fp));
	fp->timestamp = src->vb2_buf.timestamp;
	if (params) {
		if (params->flags & V4L2_H264_ENCODE_FLAG_FORCE_IDR)
			fp->flags |= H264ENC_FRAME_FORCE_IDR;
		if (params->flags & V4L2_H264_ENCODE_FLAG_SCENE_CHANGE)
			fp->flags |= H264ENC_FRAME_SCENE_CHANGE;
		if (params->flags & V4L2_H264_ENCODE_FLAG_MARK_LONG_TERM)
			fp->flags |= H264ENC_FRAME_MARK_LONG_TERM;
		if (params->flags & V4L2_H264_ENCODE_FLAG_REFERENCE_TS) {
			fp->flags |= H264ENC_FRAME_REFERENCE_TS;
			fp->reference_ts = params->reference_ts;
		}
	}
	if (xchg(&ctx->h264_enc.force_key_frame, false))
		fp->flags |= H264ENC_FRAME_FORCE_IDR;
	if (rc && (rc->flags & V4L2_H264_ENCODE_RC_FLAG_QP)) {
		fp->flags |= H264ENC_FRAME_QP;
		fp->qp = rc->qp;
	}
}

/**
 * hantro_h1_h264_enc_request_validate() - check a request before it is queued
 * @req: the request
 *
 * A request of the stateless H.264 encoder must set both per-frame controls,
 * V4L2_CID_STATELESS_H264_ENCODE_PARAMS and V4L2_CID_STATELESS_H264_ENCODE_RC:
 * a control the request leaves out would keep the previous frame's value (a
 * forced IDR picture would repeat). Requests for other codecs pass.
 *
 * Return: 0, or -ENOENT when a per-frame control is missing.
 */
int hantro_h1_h264_enc_request_validate(struct media_request *req)
{
	static const u32 per_frame[] = {
		V4L2_CID_STATELESS_H264_ENCODE_PARAMS,
		V4L2_CID_STATELESS_H264_ENCODE_RC,
	};
	struct media_request_object *obj;
	struct v4l2_ctrl_handler *hdl;
	struct hantro_ctx *ctx = NULL;
	unsigned int i;
	int ret = 0;

	list_for_each_entry(obj, &req->objects, list) {
		if (vb2_request_object_is_buffer(obj)) {
			struct vb2_buffer *vb =
				container_of(obj, struct vb2_buffer, req_obj);

			ctx = vb2_get_drv_priv(vb->vb2_queue);
			break;
		}
	}
	/* vb2_request_validate() refuses a request without a buffer. */
	if (!ctx || !hantro_is_h264_encoder(ctx))
		return 0;
	hdl = v4l2_ctrl_request_hdl_find(req, &ctx->ctrl_handler);
	if (!hdl) {
		dev_dbg(ctx->dev->dev, "h264 encode: a request without controls\n");
		return -ENOENT;
	}
	for (i = 0; i < ARRAY_SIZE(per_frame); i++) {
		if (!v4l2_ctrl_request_hdl_ctrl_find(hdl, per_frame[i])) {
			dev_dbg(ctx->dev->dev, "h264 encode: a request without control %#x\n",
				per_frame[i]);
			ret = -ENOENT;
			break;
		}
	}
	v4l2_ctrl_request_hdl_put(hdl);
	return ret;
}

/**
 * hantro_h1_h264_enc_force_key_frame() - V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME
 * @ctx: the hantro context
 *
 * The next frame planned is an IDR picture.
 */
void hantro_h1_h264_enc_force_key_frame(struct hantro_ctx *ctx)
{
	if (hantro_is_h264_encoder(ctx))
		WRITE_ONCE(ctx->h264_enc.force_key_frame, true);
}

/**
 * hantro_h1_h264_enc_report_dpb() - the feedback's DPB
 * @enc: the encoder state
 * @fb: the feedback whose @dpb is filled
 *
 * The reference pictures the core holds after the last completed frame, in
 * the decoder's DPB entry form: the pictures a client may name next.
 */
void hantro_h1_h264_enc_report_dpb(struct hantro_h264_enc_hw_ctx *enc,
				   struct v4l2_ctrl_h264_encode_feedback *fb)
{
	struct h264enc_dpb_entry e;
	u32 i;

	memset(fb->dpb, 0, sizeof(fb->dpb));
	for (i = 0; i < ARRAY_SIZE(fb->dpb); i++) {
		struct v4l2_h264_dpb_entry *d = &fb->dpb[i];

		if (h264enc_get_dpb_entry(enc->core, i, &e))
			break;
		d->reference_ts = e.timestamp;
		d->frame_num = e.frame_num;
		d->pic_num = e.long_term ? e.long_term_frame_idx : e.frame_num;
		d->fields = V4L2_H264_FRAME_REF;
		d->top_field_order_cnt = e.pic_order_cnt;
		d->bottom_field_order_cnt = e.pic_order_cnt;
		d->flags = V4L2_H264_DPB_ENTRY_FLAG_VALID | V4L2_H264_DPB_ENTRY_FLAG_ACTIVE;
		if (e.long_term)
			d->flags |= V4L2_H264_DPB_ENTRY_FLAG_LONG_TERM;
	}
}

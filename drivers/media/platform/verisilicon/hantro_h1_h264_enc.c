// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hantro H1 H.264 stateless encoder backend.
 *
 * Mechanism only: the Rust core (include/media/h264enc.h) decides the picture
 * type, references, frame_num, POC and QP of every frame and writes the
 * parameter sets and SEI; this file turns its frame plan into H1 register
 * values, hands the hardware's feedback back to the core, and assembles the
 * CAPTURE payload: core headers, the slices the hardware wrote, filler.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <media/v4l2-ctrls.h>
#include <media/v4l2-mem2mem.h>
#include <media/videobuf2-dma-contig.h>
#include <media/v4l2-h264-enc.h>
#include "hantro.h"
#include "hantro_hw.h"
#include "hantro_h1_regs.h"

/* Worst case of the H1's CAVLC/CABAC output, per macroblock, for sizing checks. */
#define HANTRO_H264_ENC_MIN_BYTES_PER_MB	64

static u32 mbs(u32 samples)
{
	return DIV_ROUND_UP(samples, 16);
}

static int hantro_h264_enc_alloc(struct hantro_ctx *ctx,
				 struct hantro_h264_enc_buf *buf, size_t size)
{
	buf->cpu = dma_alloc_coherent(ctx->dev->dev, size, &buf->dma, GFP_KERNEL);
	if (!buf->cpu)
		return -ENOMEM;
	buf->size = size;
	return 0;
}

static void hantro_h264_enc_free(struct hantro_ctx *ctx,
				 struct hantro_h264_enc_buf *buf)
{
	if (buf->cpu)
		dma_free_coherent(ctx->dev->dev, buf->size, buf->cpu, buf->dma);
	buf->cpu = NULL;
}

/*
 * Fills the H1's CABAC context table (H1_REG_CABAC_TBL_SIZE bytes): the
 * core gives the states of each slice type and QP (9.3.1.1).
 */
static int hantro_h264_enc_cabac_table(u8 *table, u8 cabac_init_idc)
{
	unsigned int qp, inter;
	int ret;

	for (qp = 0; qp < 52; qp++) {
		for (inter = 0; inter < 2; inter++) {
			ret = h264enc_cabac_init_states(!inter, cabac_init_idc, qp,
							table, H1_REG_CABAC_TBL_STRIDE);
			if (ret)
				return ret;
			table += H1_REG_CABAC_TBL_STRIDE;
		}
	}
	return 0;
}

/**
 * hantro_h1_h264_enc_init() - start an H.264 encoding session
 * @ctx: the hantro context
 *
 * Configures the Rust core from the formats and controls, and allocates the
 * reconstruction buffers, the NAL size table and, for CABAC, the context table.
 * The controls of the configuration are grabbed until the session ends.
 *
 * Return: 0 or a negative errno.
 */
int hantro_h1_h264_enc_init(struct hantro_ctx *ctx)
{
	struct hantro_h264_enc_hw_ctx *enc = &ctx->h264_enc;
	struct h264enc_config *cfg = &enc->cfg;
	u32 w = mbs(ctx->dst_fmt.width), h = mbs(ctx->dst_fmt.height);
	size_t rec_size = (size_t)w * h * 384;
	unsigned int i;
	int ret;

	ret = hantro_h1_h264_enc_config(ctx, cfg);
	if (ret)
		return ret;
	enc->core = kzalloc(sizeof(*enc->core), GFP_KERNEL);
	if (!enc->core)
		return -ENOMEM;
	ret = h264enc_init(enc->core, cfg);
	if (ret)
		goto err_core;
	ret = h264enc_num_rec_slots(enc->core);
	if (ret < 0 || ret > HANTRO_H264_ENC_MAX_REC) {
		ret = -EINVAL;
		goto err_core;
	}
	enc->num_rec = ret;
	for (i = 0; i < enc->num_rec; i++) {
		ret = hantro_h264_enc_alloc(ctx, &enc->rec[i], rec_size);
		if (ret)
			goto err_bufs;
	}
	ret = hantro_h264_enc_alloc(ctx, &enc->nal_table, ALIGN((h + 1) * 4, 8));
	if (ret)
		goto err_bufs;
	if (cfg->entropy_cabac) {
		ret = hantro_h264_enc_alloc(ctx, &enc->cabac_table,
					    H1_REG_CABAC_TBL_SIZE);
		if (!ret)
			ret = hantro_h264_enc_cabac_table(enc->cabac_table.cpu,
							  cfg->cabac_init_idc);
		if (ret)
			goto err_tables;
	}
	enc->pending = false;
	enc->force_key_frame = false;
	hantro_h1_h264_enc_grab_ctrls(ctx, true);
	return 0;

err_tables:
	hantro_h264_enc_free(ctx, &enc->cabac_table);
	hantro_h264_enc_free(ctx, &enc->nal_table);
err_bufs:
	while (i--)
		hantro_h264_enc_free(ctx, &enc->rec[i]);
err_core:
	kfree(enc->core);
	enc->core = NULL;
	return ret;
}

/**
 * hantro_h1_h264_enc_exit() - end an H.264 encoding session
 * @ctx: the hantro context
 */
void hantro_h1_h264_enc_exit(struct hantro_ctx *ctx)
{
	struct hantro_h264_enc_hw_ctx *enc = &ctx->h264_enc;
	unsigned int i;

	hantro_h1_h264_enc_grab_ctrls(ctx, false);
	for (i = 0; i < enc->num_rec; i++)
		hantro_h264_enc_free(ctx, &enc->rec[i]);
	enc->num_rec = 0;
	hantro_h264_enc_free(ctx, &enc->nal_table);
	hantro_h264_enc_free(ctx, &enc->cabac_table);
	kfree(enc->core);
	enc->core = NULL;
}

/*
 * Programs the source picture; returns the input swaps of H1_REG_AXI_CTRL
 * its format reads with.
 */
static u32 hantro_h264_enc_set_input(struct hantro_dev *vpu,
				     struct hantro_ctx *ctx,
				     struct vb2_buffer *src)
{
	static const u32 in_plane[] = {
		H1_REG_ADDR_IN_PLANE_0, H1_REG_ADDR_IN_PLANE_1, H1_REG_ADDR_IN_PLANE_2,
	};
	const struct v4l2_pix_format_mplane *fmt = &ctx->src_fmt;
	u32 stride = fmt->plane_fmt[0].bytesperline;
	u32 over_r = mbs(ctx->dst_fmt.width) * 16 - ctx->dst_fmt.width;
	u32 over_b = mbs(ctx->dst_fmt.height) * 16 - ctx->dst_fmt.height;
	/* The configuration took only formats the H1 reads. */
	const struct hantro_h1_h264_enc_input *in =
		hantro_h1_h264_enc_input(fmt->pixelformat);
	static const u32 rgb_reg[] = {
		H1_REG_RGB_YUV_COEFF(0), H1_REG_RGB_YUV_COEFF(1), H1_REG_RGB_MASK_MSB,
	};
	u32 rgb[ARRAY_SIZE(rgb_reg)];
	unsigned int i;
	dma_addr_t plane[3];

	plane[0] = vb2_dma_contig_plane_dma_addr(src, 0);
	if (fmt->num_planes > 1) {
		for (i = 1; i < fmt->num_planes && i < 3; i++)
			plane[i] = vb2_dma_contig_plane_dma_addr(src, i);
	} else if (in->planes > 1) {
		/* One buffer: chroma follows luma at the format's plane sizes. */
		plane[1] = plane[0] + stride * ctx->dst_fmt.height;
		plane[2] = plane[1] + stride / 2 * ctx->dst_fmt.height / 2;
	}
	for (i = 0; i < in->planes; i++)
		vepu_write_relaxed(vpu, plane[i], in_plane[i]);
	if (in->fmt >= ROCKCHIP_VPU_ENC_FMT_RGB565) {
		hantro_h1_h264_enc_rgb_regs(in, ctx->h264_enc.cfg.matrix_coefficients, rgb);
		for (i = 0; i < ARRAY_SIZE(rgb_reg); i++)
			vepu_write_relaxed(vpu, rgb[i], rgb_reg[i]);
	}
	/* ROW_LEN counts pixels of the first plane. */
	vepu_write_relaxed(vpu, H1_REG_IN_IMG_CTRL_ROW_LEN(stride / in->bytes_per_pixel) |
			   H1_REG_IN_IMG_CTRL_OVRFLR_D4(over_r / 4) |
			   H1_REG_IN_IMG_CTRL_OVRFLB(over_b) |
			   H1_REG_IN_IMG_CTRL_FMT(in->fmt),
			   H1_REG_IN_IMG_CTRL);
	return in->swap;
}

/**
 * struct hantro_h264_enc_hdr_rem - where the H1 continues after the headers
 * @offset: 8-byte aligned offset of the first word the hardware writes
 * @msb: first four bytes of that word (STR_HDR_REM_MSB)
 * @lsb: last four bytes of that word (STR_HDR_REM_LSB)
 * @bits: bits of the word already written (RLC_STR_OFFS)
 */
struct hantro_h264_enc_hdr_rem {
	u32 offset;
	u32 msb;
	u32 lsb;
	u32 bits;
};

/*
 * The H1 writes 64-bit words: it rewrites the partial last word of the
 * @len header bytes in @buf from the remainder registers.
 */
static void hantro_h264_enc_hdr_rem(const u8 *buf, u32 len,
				    struct hantro_h264_enc_hdr_rem *r)
{
	u8 rem[8] = { 0 };

	r->offset = len & ~7u;
	memcpy(rem, buf + r->offset, len - r->offset);
	r->msb = (u32)rem[0] << 24 | (u32)rem[1] << 16 | (u32)rem[2] << 8 | rem[3];
	r->lsb = (u32)rem[4] << 24 | (u32)rem[5] << 16 | (u32)rem[6] << 8 | rem[7];
	r->bits = (len - r->offset) * 8;
}

/* Programs the output: the hardware continues after the core's headers. */
static int hantro_h264_enc_set_output(struct hantro_dev *vpu,
				      struct hantro_ctx *ctx,
				      struct vb2_buffer *dst)
{
	struct hantro_h264_enc_hw_ctx *enc = &ctx->h264_enc;
	u8 *buf = vb2_plane_vaddr(dst, 0);
	size_t size = vb2_plane_size(dst, 0);
	struct hantro_h264_enc_hdr_rem rem;
	int ret;

	ret = h264enc_write_headers(enc->core, buf, size);
	if (ret < 0)
		return ret;
	enc->header_bytes = ret;
	hantro_h264_enc_hdr_rem(buf, enc->header_bytes, &rem);
	enc->hw_offset = rem.offset;
	if (size < enc->hw_offset + 8 +
		   (size_t)mbs(ctx->dst_fmt.width) * mbs(ctx->dst_fmt.height) *
		   HANTRO_H264_ENC_MIN_BYTES_PER_MB / 16)
		return -ENOSPC;
	vepu_write_relaxed(vpu, rem.msb, H1_REG_STR_HDR_REM_MSB);
	vepu_write_relaxed(vpu, rem.lsb, H1_REG_STR_HDR_REM_LSB);
	vepu_write_relaxed(vpu, FIELD_PREP(H1_REG_RLC_CTRL_STR_OFFS_MASK, rem.bits),
			   H1_REG_RLC_CTRL);
	vepu_write_relaxed(vpu, vb2_dma_contig_plane_dma_addr(dst, 0) +
			   enc->hw_offset, H1_REG_ADDR_OUTPUT_STREAM);
	vepu_write_relaxed(vpu, size - enc->hw_offset, H1_REG_STR_BUF_LIMIT);
	memset(enc->nal_table.cpu, 0, enc->nal_table.size);
	vepu_write_relaxed(vpu, enc->nal_table.dma, H1_REG_ADDR_OUTPUT_CTRL);
	if (enc->cabac_table.cpu)
		vepu_write_relaxed(vpu, enc->cabac_table.dma,
				   H1_REG_ADDR_CABAC_TBL);
	return 0;
}

/**
 * struct hantro_h264_enc_rc_regs - in-frame rate control register values
 * @checkpoint: checkpoint targets, two 16-bit fields per register
 * @word_err: checkpoint error thresholds, two 16-bit fields per register
 * @delta_qp: QP changes for each error band, 4 bits each
 * @mad: MAD threshold and QP adjustment
 */
struct hantro_h264_enc_rc_regs {
	u32 checkpoint[5];
	u32 word_err[3];
	u32 delta_qp;
	u32 mad;
};

/*
 * Packs the core's checkpoint ladder and MAD adjustment into register fields:
 * two checkpoints per register, the even one in the upper half (CHECK1).
 */
static void hantro_h264_enc_pack_rc(const struct h264enc_frame_plan *plan,
				    struct hantro_h264_enc_rc_regs *r)
{
	const s8 *dqp = plan->checkpoint_delta_qp;
	unsigned int i;
	u32 v;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < H264ENC_CHECKPOINTS; i++) {
		v = plan->checkpoint_targets[i];
		r->checkpoint[i / 2] |= (i & 1) ? H1_REG_CHECKPOINT_CHECK0(v) :
						  H1_REG_CHECKPOINT_CHECK1(v);
	}
	for (i = 0; i < ARRAY_SIZE(plan->checkpoint_word_err); i++) {
		v = (u32)plan->checkpoint_word_err[i];
		r->word_err[i / 2] |= (i & 1) ? H1_REG_CHKPT_WORD_ERR_CHK0(v) :
						H1_REG_CHKPT_WORD_ERR_CHK1(v);
	}
	r->delta_qp = H1_REG_CHKPT_DELTA_QP_CHK0(dqp[0]) |
		      H1_REG_CHKPT_DELTA_QP_CHK1(dqp[1]) |
		      H1_REG_CHKPT_DELTA_QP_CHK2(dqp[2]) |
		      H1_REG_CHKPT_DELTA_QP_CHK3(dqp[3]) |
		      H1_REG_CHKPT_DELTA_QP_CHK4(dqp[4]) |
		      H1_REG_CHKPT_DELTA_QP_CHK5(dqp[5]) |
		      H1_REG_CHKPT_DELTA_QP_CHK6(dqp[6]);
	r->mad = H1_REG_MAD_CTRL_MAD_THRESHOLD(plan->mad_threshold) |
		 H1_REG_MAD_CTRL_QP_ADJUST((u32)plan->mad_qp_adjust);
}

/* Programs the in-frame rate control: checkpoint ladder and MAD adjustment. */
static void hantro_h264_enc_set_inframe_rc(struct hantro_dev *vpu,
					   const struct h264enc_frame_plan *plan)
{
	struct hantro_h264_enc_rc_regs r;
	unsigned int i;

	hantro_h264_enc_pack_rc(plan, &r);
	for (i = 0; i < ARRAY_SIZE(r.checkpoint); i++)
		vepu_write_relaxed(vpu, r.checkpoint[i], H1_REG_CHECKPOINT(i));
	for (i = 0; i < ARRAY_SIZE(r.word_err); i++)
		vepu_write_relaxed(vpu, r.word_err[i], H1_REG_CHKPT_WORD_ERR(i));
	vepu_write_relaxed(vpu, r.delta_qp, H1_REG_CHKPT_DELTA_QP);
	vepu_write_relaxed(vpu, r.mad, H1_REG_MAD_CTRL);
}

/* ENC_CTRL2: slices, deblocking, entropy coding, transform and partitions. */
static u32 hantro_h264_enc_ctrl2(const struct h264enc_frame_plan *plan,
				 const struct h264enc_config *cfg)
{
	/* Sub-8x8 partitions give 16 vectors per macroblock (Table A-1). */
	bool inter4x4 = !plan->max_mvs_per_2mb || plan->max_mvs_per_2mb >= 32;

	return FIELD_PREP(H1_REG_ENC_CTRL2_H264_SLICE_SIZE_MASK, cfg->slice_mb_rows) |
	       H1_REG_ENC_CTRL2_DEBLOCKING_FILTER_MODE(cfg->disable_deblocking_filter_idc) |
	       H1_REG_ENC_CTRL2_H264_STREAM_MODE |
	       (cfg->entropy_cabac ? H1_REG_ENC_CTRL2_ENTROPY_CODING_MODE |
		H1_REG_ENC_CTRL2_CABAC_INIT_IDC(cfg->cabac_init_idc) : 0) |
	       (cfg->transform_8x8 ? H1_REG_ENC_CTRL2_TRANS8X8_MODE_EN : 0) |
	       (inter4x4 ? H1_REG_ENC_CTRL2_H264_INTER4X4_MODE : 0);
}

/* H264_EXT: the slice header fields of the 2023 RFC's extension register. */
static u32 hantro_h264_enc_slice_ext(const struct h264enc_frame_plan *plan,
				     const struct h264enc_config *cfg)
{
	return H1_REG_H264_EXT_NAL_REF_IDC(plan->nal_ref_idc) |
	       H1_REG_H264_EXT_LOG2_MAX_FRAME_NUM_M4(cfg->log2_max_frame_num_minus4) |
	       (cfg->poc_type == 0 ? H1_REG_H264_EXT_POC_TYPE0 |
		H1_REG_H264_EXT_LOG2_MAX_POC_LSB_M4(12) : 0) |
	       (plan->mark_long_term ? H1_REG_H264_EXT_MARK_LONG_TERM : 0) |
	       (plan->slice_type == 2 && !plan->idr ? H1_REG_H264_EXT_NON_IDR_INTRA : 0);
}

/* Programs the slice header and coding registers from the core's plan. */
static void hantro_h264_enc_set_params(struct hantro_dev *vpu,
				       struct hantro_ctx *ctx,
				       const struct h264enc_frame_plan *plan,
				       const struct h264enc_config *cfg)
{
	struct hantro_h264_enc_hw_ctx *enc = &ctx->h264_enc;
	const struct hantro_h264_enc_buf *rec = &enc->rec[plan->rec_slot];
	size_t luma = (size_t)mbs(ctx->dst_fmt.width) * mbs(ctx->dst_fmt.height) * 256;

	vepu_write_relaxed(vpu, rec->dma, H1_REG_ADDR_REC_LUMA);
	vepu_write_relaxed(vpu, rec->dma + luma, H1_REG_ADDR_REC_CHROMA);
	if (plan->ref_slot < enc->num_rec) {
		const struct hantro_h264_enc_buf *ref = &enc->rec[plan->ref_slot];

		vepu_write_relaxed(vpu, ref->dma, H1_REG_ADDR_REF_LUMA);
		vepu_write_relaxed(vpu, ref->dma + luma, H1_REG_ADDR_REF_CHROMA);
	}
	/* The signed fields are two's complement of their width. */
	vepu_write_relaxed(vpu, H1_REG_ENC_CTRL0_INIT_QP(26) |
			   FIELD_PREP(H1_REG_ENC_CTRL0_SLICE_ALPHA_MASK,
				      cfg->slice_alpha_c0_offset_div2) |
			   FIELD_PREP(H1_REG_ENC_CTRL0_SLICE_BETA_MASK,
				      cfg->slice_beta_offset_div2) |
			   FIELD_PREP(H1_REG_ENC_CTRL0_CHROMA_QP_OFFSET_MASK,
				      cfg->chroma_qp_index_offset) |
			   H1_REG_ENC_CTRL0_IDR_PICID(plan->idr_pic_id) |
			   (cfg->constrained_intra_pred ?
			    H1_REG_ENC_CTRL0_CONSTR_INTRA_PRED : 0),
			   H1_REG_ENC_CTRL0);
	vepu_write_relaxed(vpu, H1_REG_ENC_CTRL1_FRAME_NUM(plan->frame_num) |
			   H1_REG_ENC_CTRL1_PPS_ID(0), H1_REG_ENC_CTRL1);
	vepu_write_relaxed(vpu, hantro_h264_enc_ctrl2(plan, cfg), H1_REG_ENC_CTRL2);
	/* 16x8, 8x16 and 8x8 partitions stay within every level's MaxMvsPer2Mb. */
	vepu_write_relaxed(vpu, H1_REG_ENC_CTRL3_MUTIMV_EN, H1_REG_ENC_CTRL3);
	vepu_write_relaxed(vpu, H1_REG_QP_VAL_LUM(plan->qp) |
			   H1_REG_QP_VAL_MIN(plan->qp_min) |
			   H1_REG_QP_VAL_MAX(plan->qp_max) |
			   H1_REG_QP_VAL_CHECKPOINT_DISTAN(plan->checkpoint_distance),
			   H1_REG_QP_VAL);
	hantro_h264_enc_set_inframe_rc(vpu, plan);
	vepu_write_relaxed(vpu, hantro_h264_enc_slice_ext(plan, cfg), H1_REG_H264_EXT);
	vepu_write_relaxed(vpu, plan->poc_lsb, H1_REG_H264_POC);
	vepu_write_relaxed(vpu, H1_REG_H264_REF_MOD_IDC_PLUS1(plan->ref_mod_idc_plus1) |
			   H1_REG_H264_REF_MOD_VALUE(plan->ref_mod_value),
			   H1_REG_H264_REF_MOD);
}

/*
 * A failed frame: the stream state is as if it had not been queued, and its
 * feedback gives the reason (@err, a negative errno).
 */
static void hantro_h264_enc_fail(struct hantro_ctx *ctx, int err)
{
	static const u32 no_stats[HANTRO_H1_H264_ENC_STATS_LEN];
	struct hantro_h264_enc_hw_ctx *enc = &ctx->h264_enc;

	if (enc->pending) {
		h264enc_abort_frame(enc->core);
		enc->pending = false;
	}
	memset(&enc->feedback, 0, sizeof(enc->feedback));
	enc->feedback.error = -err;
	/* The stream is as if the frame had not been queued: so is its DPB. */
	hantro_h1_h264_enc_report_dpb(enc, &enc->feedback);
	hantro_h1_h264_enc_set_feedback(ctx, &enc->feedback);
	hantro_h1_h264_enc_set_stats(ctx, no_stats);
}

/*
 * Programs the planned frame (enc->plan) and starts the hardware: the
 * headers, the source, the parameters, then the watchdog and the enable bit.
 */
static int hantro_h264_enc_start(struct hantro_ctx *ctx,
				 struct vb2_v4l2_buffer *src,
				 struct vb2_v4l2_buffer *dst)
{
	struct hantro_h264_enc_hw_ctx *enc = &ctx->h264_enc;
	struct hantro_dev *vpu = ctx->dev;
	u32 in_swap;
	int ret;

	ret = hantro_h264_enc_set_output(vpu, ctx, &dst->vb2_buf);
	if (ret)
		return ret;
	in_swap = hantro_h264_enc_set_input(vpu, ctx, &src->vb2_buf);
	hantro_h264_enc_set_params(vpu, ctx, &enc->plan, &enc->cfg);
	/* For this codec it only arms the watchdog: the IRQ handler cancels it. */
	hantro_end_prepare_run(ctx);
	/*
	 * As the JPEG encoder: bursts of 16, the byte order of the buses; the
	 * input's as its format reads.
	 */
	vepu_write_relaxed(vpu, H1_REG_AXI_CTRL_OUTPUT_SWAP16 |
			   H1_REG_AXI_CTRL_BURST_LEN(16) |
			   H1_REG_AXI_CTRL_OUTPUT_SWAP32 |
			   H1_REG_AXI_CTRL_OUTPUT_SWAP8 | in_swap, H1_REG_AXI_CTRL);
	vepu_write(vpu, H1_REG_ENC_CTRL_EN_BIT | H1_REG_ENC_CTRL_ENC_MODE_H264 |
		   (enc->plan.slice_type == 2 ? H1_REG_ENC_PIC_INTRA :
						H1_REG_ENC_PIC_INTER) |
		   H1_REG_ENC_CTRL_WIDTH(mbs(ctx->dst_fmt.width)) |
		   H1_REG_ENC_CTRL_HEIGHT(mbs(ctx->dst_fmt.height)) |
		   H1_REG_ENC_CTRL_NAL_MODE_BIT | H1_REG_ENC_CTRL_TIMEOUT_EN,
		   H1_REG_ENC_CTRL);
	return 0;
}

/**
 * hantro_h1_h264_enc_run() - encode the next frame
 * @ctx: the hantro context
 *
 * Applies the frame's request, asks the core for the frame plan and programs
 * it: the configuration is the one taken at VIDIOC_STREAMON.
 *
 * Return: 0, or a negative errno when the frame cannot be started (the job
 * then ends with an error, its feedback says why, and the stream state is
 * unchanged).
 */
int hantro_h1_h264_enc_run(struct hantro_ctx *ctx)
{
	struct hantro_h264_enc_hw_ctx *enc = &ctx->h264_enc;
	struct hantro_dev *vpu = ctx->dev;
	struct vb2_v4l2_buffer *src, *dst;
	struct h264enc_frame_params fp;
	int ret;

	src = hantro_get_src_buf(ctx);
	dst = hantro_get_dst_buf(ctx);
	hantro_start_prepare_run(ctx);

	/* A frame the hardware never finished (timeout) is dropped first. */
	if (enc->pending) {
		h264enc_abort_frame(enc->core);
		enc->pending = false;
	}
	hantro_h1_h264_enc_frame_params(ctx, src, &fp);
	ret = hantro_h1_h264_enc_update_bitrate(ctx);
	if (!ret)
		ret = h264enc_plan_frame(enc->core, &fp, &enc->plan);
	if (ret)
		goto err;
	enc->pending = true;
	ret = hantro_h264_enc_start(ctx, src, dst);
	if (ret)
		goto err;
	return 0;

err:
	/*
	 * No hantro_end_prepare_run(): it arms the watchdog, which would then
	 * fire on a later frame. The request completes when the job finishes.
	 */
	dev_dbg(vpu->dev, "h264 encode: frame not started (%d)\n", ret);
	hantro_h264_enc_fail(ctx, ret);
	return ret;
}

/*
 * Checkpoint results are cumulative 16-bit counts of 32-bit words, read as
 * bits (H1_REG_CHECKPOINT_RESULT): a result smaller than the one before means
 * the field wrapped. Unwraps @bits in place.
 */
static void hantro_h264_enc_checkpoint_bits(u32 *bits)
{
	u32 i, wrap = 0, prev = 0;

	for (i = 0; i < H264ENC_CHECKPOINTS; i++) {
		if (bits[i] < prev)
			wrap += 0x10000 * 32;
		prev = bits[i];
		bits[i] += wrap;
	}
}

/* Entries of the NAL size table before its terminating zero, at most @max. */
static u32 hantro_h264_enc_count_nals(const u32 *table, u32 max)
{
	u32 n = 0;

	while (n < max && table[n])
		n++;
	return n;
}

/*
 * Bytes of the CAPTURE payload before filler: the core's headers, then the
 * slices the hardware reports; -EOVERFLOW if they claim more than the buffer.
 */
static int hantro_h264_enc_payload(size_t size, u32 header_bytes, u32 stream_bits)
{
	if (header_bytes > size || stream_bits / 8 > size - header_bytes)
		return -EOVERFLOW;
	return header_bytes + stream_bits / 8;
}

/* The feedback flags of a completed frame: its type and its HRD verdict. */
static u32 hantro_h264_enc_feedback_flags(const struct h264enc_frame_status *st)
{
	u32 flags = 0;

	if (st->idr)
		flags |= V4L2_H264_ENCODE_FEEDBACK_FLAG_IDR;
	if (st->long_term)
		flags |= V4L2_H264_ENCODE_FEEDBACK_FLAG_LONG_TERM;
	if (st->hrd_flags & H264ENC_HRD_UNDERFLOW)
		flags |= V4L2_H264_ENCODE_FEEDBACK_FLAG_HRD_UNDERFLOW;
	if (st->hrd_flags & H264ENC_HRD_OVERFLOW)
		flags |= V4L2_H264_ENCODE_FEEDBACK_FLAG_HRD_OVERFLOW;
	if (st->skipped)
		flags |= V4L2_H264_ENCODE_FEEDBACK_FLAG_SKIPPED;
	return flags;
}

/* The H1's statistics of a frame, as V4L2_CID_HANTRO_H1_H264_ENC_STATS has them. */
static void hantro_h264_enc_stats(const struct h264enc_hw_feedback *hw,
				  u32 stats[HANTRO_H1_H264_ENC_STATS_LEN])
{
	u32 i;

	stats[HANTRO_H1_H264_ENC_STAT_QP_SUM] = hw->qp_sum;
	stats[HANTRO_H1_H264_ENC_STAT_RLC_COUNT] = hw->rlc_count;
	stats[HANTRO_H1_H264_ENC_STAT_MAD_COUNT] = hw->mad_count;
	for (i = 0; i < H264ENC_CHECKPOINTS; i++)
		stats[HANTRO_H1_H264_ENC_STAT_CHECKPOINT(i)] = hw->checkpoints[i];
}

/*
 * A picture that no coding fits in the CPB: the core writes its access unit
 * at @buf as a copy of its reference picture, and the reconstruction that
 * later pictures predict from is that picture's. Returns the bytes written
 * or a negative errno.
 */
static int hantro_h264_enc_skip(struct hantro_h264_enc_hw_ctx *enc, u8 *buf,
				size_t size, struct h264enc_frame_status *st)
{
	const struct h264enc_frame_plan *plan = &enc->plan;
	int ret;

	if (plan->ref_slot >= enc->num_rec || plan->rec_slot >= enc->num_rec) {
		h264enc_abort_frame(enc->core);
		return -EPROTO;
	}
	memcpy(enc->rec[plan->rec_slot].cpu, enc->rec[plan->ref_slot].cpu,
	       enc->rec[plan->rec_slot].size);
	ret = h264enc_complete_skipped(enc->core, buf, size, st);
	/* Refused arguments leave the frame planned: drop it as any failure. */
	if (ret < 0)
		h264enc_abort_frame(enc->core);
	return ret;
}

/* hantro_h264_enc_done(): the frame is being coded again. */
#define HANTRO_H264_ENC_RESTARTED	1

/*
 * A frame the hardware completed: hands the feedback registers, the slices and
 * the NAL size table to the core, which verifies them against the plan and
 * updates the stream state; appends the filler the core asks for and sets the
 * payload, flags and feedback. Returns -EPROTO for a frame the core refuses,
 * or HANTRO_H264_ENC_RESTARTED when the core asked for another coding of it,
 * which the hardware has begun.
 */
static int hantro_h264_enc_done(struct hantro_ctx *ctx)
{
	struct hantro_h264_enc_hw_ctx *enc = &ctx->h264_enc;
	struct hantro_dev *vpu = ctx->dev;
	struct vb2_v4l2_buffer *dst = hantro_get_dst_buf(ctx);
	struct v4l2_ctrl_h264_encode_feedback *fb = &enc->feedback;
	struct h264enc_hw_feedback hw = { 0 };
	struct h264enc_frame_status st;
	u32 stats[HANTRO_H1_H264_ENC_STATS_LEN];
	u8 *buf = vb2_plane_vaddr(&dst->vb2_buf, 0);
	size_t size = vb2_plane_size(&dst->vb2_buf, 0);
	const u32 *table = enc->nal_table.cpu;
	u32 max_nals = enc->nal_table.size / 4 - 1, nals;
	u32 i, reg;
	int ret, payload;

	if (!enc->pending)
		return -EPROTO;
	enc->pending = false;
	hw.stream_bits = vepu_read(vpu, H1_REG_STR_BUF_LIMIT);
	reg = vepu_read(vpu, H1_REG_MAD_CTRL);
	hw.qp_sum = FIELD_GET(H1_REG_MAD_CTRL_QP_SUM_DIV2_MASK, reg) * 2;
	reg = vepu_read(vpu, H1_REG_RLC_CTRL);
	hw.rlc_count = FIELD_GET(H1_REG_RLC_CTRL_RLC_SUM_MASK, reg) * 4;
	hw.mad_count = H1_REG_MB_CNT_OUT(vepu_read(vpu, H1_REG_MB_CTRL));
	reg = vepu_read(vpu, H1_REG_ENC_CTRL5);
	hw.slices = FIELD_GET(H1_REG_ENC_CTRL5_COMPLETE_SLICES_MASK, reg);
	/* H1_REG_CHECKPOINT_RESULT() takes the half of checkpoint i, in bits. */
	for (i = 0; i < H264ENC_CHECKPOINTS; i++) {
		reg = vepu_read(vpu, H1_REG_CHECKPOINT(i / 2));
		hw.checkpoints[i] = H1_REG_CHECKPOINT_RESULT(reg);
	}
	hantro_h264_enc_checkpoint_bits(hw.checkpoints);
	nals = hantro_h264_enc_count_nals(table, max_nals);

	/* The hardware's slices start right after the core's headers. */
	payload = hantro_h264_enc_payload(size, enc->header_bytes, hw.stream_bits);
	if (payload < 0) {
		ret = payload;
		h264enc_abort_frame(enc->core);
	} else {
		/*
		 * A picture that would break the HRD is coded again, coarser;
		 * a P picture that was a scene cut, as an IDR picture.
		 */
		ret = h264enc_replan_frame(enc->core, &hw, buf + enc->header_bytes,
					   hw.stream_bits / 8, table, nals,
					   &enc->plan);
		if (ret == H264ENC_REPLAN_CODE_AGAIN) {
			enc->pending = true;
			ret = hantro_h264_enc_start(ctx, hantro_get_src_buf(ctx), dst);
			return ret ? ret : HANTRO_H264_ENC_RESTARTED;
		}
		if (ret == H264ENC_REPLAN_SKIP) {
			/* No hardware statistics describe the picture. */
			memset(&hw, 0, sizeof(hw));
			payload = hantro_h264_enc_skip(enc, buf, size, &st);
			ret = min(payload, 0);
		} else if (!ret)
			ret = h264enc_complete_frame(enc->core, &hw,
						     buf + enc->header_bytes,
						     hw.stream_bits / 8, table,
						     nals, &st);
	}
	if (ret) {
		dev_warn(vpu->dev, "h264 encode: frame dropped, the hardware's output is not the plan's (%d)\n",
			 ret);
		return -EPROTO;
	}
	if (st.filler_bytes) {
		ret = h264enc_write_filler(buf + payload, size - payload, st.filler_bytes);
		if (ret > 0)
			payload += ret;
	}
	vb2_set_plane_payload(&dst->vb2_buf, 0, payload);
	dst->flags &= ~(V4L2_BUF_FLAG_KEYFRAME | V4L2_BUF_FLAG_PFRAME);
	dst->flags |= st.idr ? V4L2_BUF_FLAG_KEYFRAME : V4L2_BUF_FLAG_PFRAME;

	memset(fb, 0, sizeof(*fb));
	fb->frame_bytes = payload;
	fb->filler_bytes = st.filler_bytes;
	fb->target_bits = st.target_bits;
	fb->cpb_fullness = st.cpb_fullness;
	fb->qp_avg_q8 = st.qp_avg_q8;
	fb->frame_num = st.frame_num;
	fb->pic_order_cnt = st.pic_order_cnt;
	fb->flags = hantro_h264_enc_feedback_flags(&st);
	/* The core's slice_type % 5 values are V4L2_H264_SLICE_TYPE_P and _I. */
	fb->slice_type = st.slice_type;
	fb->nal_ref_idc = st.nal_ref_idc;
	fb->temporal_id = st.temporal_id;
	fb->passes = st.passes;
	hantro_h1_h264_enc_report_dpb(enc, fb);
	hantro_h1_h264_enc_set_feedback(ctx, fb);
	hantro_h264_enc_stats(&hw, stats);
	hantro_h1_h264_enc_set_stats(ctx, stats);
	return 0;
}

/**
 * hantro_h1_h264_enc_finish() - finish a frame after the hardware's interrupt
 * @ctx: the hantro context
 * @result: VB2_BUF_STATE_DONE if the hardware reported a finished frame
 *
 * Context: Process context (hantro's done work item): it sets controls.
 *
 * Return: the state of the job's buffers: VB2_BUF_STATE_DONE, or
 * VB2_BUF_STATE_ERROR with an empty CAPTURE buffer when the hardware reported
 * an error or the core refused its output; the feedback then says why.
 * VB2_BUF_STATE_ACTIVE when the frame would have broken the HRD and the
 * hardware is coding it again at a coarser QP: the job goes on, and its next
 * interrupt finishes it.
 */
enum vb2_buffer_state hantro_h1_h264_enc_finish(struct hantro_ctx *ctx,
						enum vb2_buffer_state result)
{
	struct vb2_v4l2_buffer *dst = hantro_get_dst_buf(ctx);
	u32 status = ctx->dev->enc_irq_status;
	int ret;

	if (result == VB2_BUF_STATE_DONE) {
		ret = hantro_h264_enc_done(ctx);
		if (ret == HANTRO_H264_ENC_RESTARTED)
			return VB2_BUF_STATE_ACTIVE;
	} else {
		ret = status & H1_REG_INTERRUPT_BUFFER_FULL ? -ENOSPC : -EIO;
		dev_warn(ctx->dev->dev, "h264 encode: the hardware reported an error (status %#x)\n",
			 status);
	}
	if (!ret)
		return VB2_BUF_STATE_DONE;
	hantro_h264_enc_fail(ctx, ret);
	vb2_set_plane_payload(&dst->vb2_buf, 0, 0);
	return VB2_BUF_STATE_ERROR;
}

/**
 * hantro_h1_h264_enc_reset() - the hardware did not finish in time
 * @ctx: the hantro context
 *
 * Context: Process context (hantro's watchdog work item): it sets controls.
 *
 * Drops the frame in flight, whose feedback says ETIMEDOUT; the stream
 * continues from the last good frame.
 */
void hantro_h1_h264_enc_reset(struct hantro_ctx *ctx)
{
	vb2_set_plane_payload(&hantro_get_dst_buf(ctx)->vb2_buf, 0, 0);
	hantro_h264_enc_fail(ctx, -ETIMEDOUT);
}

#if IS_ENABLED(CONFIG_VIDEO_HANTRO_H264_ENC_KUNIT_TEST)
#include "hantro_h1_h264_enc_test.c"
#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Harness stand-in for the hantro driver's core structures: only the fields
 * and helpers the H.264 encoder backend uses, with the 6.1 names.
 */
#ifndef KSHIM_HANTRO_H_
#define KSHIM_HANTRO_H_

#include <kshim.h>
#include <linux/videodev2.h>
#include "hantro_h1_h264_enc.h"

struct hantro_dev {
	struct device *dev;
	void *host;
	u32 enc_irq_status;
};

struct hantro_ctx {
	struct hantro_dev *dev;
	struct v4l2_pix_format_mplane src_fmt;
	struct v4l2_pix_format_mplane dst_fmt;
	struct v4l2_fract timeperframe;
	struct v4l2_ctrl_handler ctrl_handler;
	struct vb2_v4l2_buffer *src;
	struct vb2_v4l2_buffer *dst;
	struct hantro_h264_enc_hw_ctx h264_enc;
};

void vepu_write_relaxed(struct hantro_dev *vpu, u32 val, u32 reg);
void vepu_write(struct hantro_dev *vpu, u32 val, u32 reg);
u32 vepu_read(struct hantro_dev *vpu, u32 reg);

static inline struct vb2_v4l2_buffer *hantro_get_src_buf(struct hantro_ctx *ctx)
{
	return ctx->src;
}

static inline struct vb2_v4l2_buffer *hantro_get_dst_buf(struct hantro_ctx *ctx)
{
	return ctx->dst;
}

static inline void *hantro_get_ctrl(struct hantro_ctx *ctx, u32 id)
{
	struct v4l2_ctrl *c = v4l2_ctrl_find(&ctx->ctrl_handler, id);

	return c ? c->p_cur.p : NULL;
}

/* The harness's context is always the H.264 encoder's. */
static inline bool hantro_is_h264_encoder(const struct hantro_ctx *ctx)
{
	(void)ctx;
	return true;
}

static inline void hantro_start_prepare_run(struct hantro_ctx *ctx)
{
	(void)ctx;
}

static inline void hantro_end_prepare_run(struct hantro_ctx *ctx)
{
	(void)ctx;
}

#endif /* KSHIM_HANTRO_H_ */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hantro H1 H.264 stateless encoder backend: per-context state.
 */
#ifndef HANTRO_H1_H264_ENC_H_
#define HANTRO_H1_H264_ENC_H_

#include <linux/hantro-media.h>
#include <linux/types.h>
#include <linux/videodev2.h>
#include <media/h264enc.h>
#include <media/videobuf2-core.h>

struct hantro_ctx;

/* Reconstruction buffers: the core asks for at most 16 references plus one. */
#define HANTRO_H264_ENC_MAX_REC	17

/**
 * struct hantro_h264_enc_buf - a DMA buffer of the encoder
 * @cpu: kernel virtual address
 * @dma: bus address
 * @size: size in bytes
 */
struct hantro_h264_enc_buf {
	void *cpu;
	dma_addr_t dma;
	size_t size;
};

/**
 * struct hantro_h264_enc_hw_ctx - H.264 encoder state of a hantro context
 * @core: the Rust core's state (struct h264enc_ctx, H264ENC_CTX_SIZE bytes)
 * @rec: reconstruction buffers, luma then interleaved chroma
 * @num_rec: number of @rec buffers in use
 * @nal_table: NAL size table the hardware fills
 * @cabac_table: CABAC context states the hardware loads (CABAC only)
 * @plan: the frame being encoded
 * @header_bytes: bytes the core wrote at the start of the CAPTURE buffer
 * @hw_offset: 8-byte aligned offset where the hardware writes
 * @pending: a frame was planned and not yet completed or aborted
 * @force_key_frame: V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME was pressed since the
 *	last frame was planned
 * @cfg: the stream's configuration, taken from the formats and controls at
 *	VIDIOC_STREAMON (those controls are grabbed while streaming), with the
 *	bit rates the core runs at
 * @feedback: what the last frame gave, for V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK
 */
struct hantro_h264_enc_hw_ctx {
	struct h264enc_ctx *core;
	struct hantro_h264_enc_buf rec[HANTRO_H264_ENC_MAX_REC];
	unsigned int num_rec;
	struct hantro_h264_enc_buf nal_table;
	struct hantro_h264_enc_buf cabac_table;
	struct h264enc_frame_plan plan;
	u32 header_bytes;
	u32 hw_offset;
	bool pending;
	bool force_key_frame;
	struct h264enc_config cfg;
	struct v4l2_ctrl_h264_encode_feedback feedback;
};

struct media_request;

int hantro_h1_h264_enc_init(struct hantro_ctx *ctx);
void hantro_h1_h264_enc_exit(struct hantro_ctx *ctx);
int hantro_h1_h264_enc_run(struct hantro_ctx *ctx);
enum vb2_buffer_state hantro_h1_h264_enc_finish(struct hantro_ctx *ctx,
						enum vb2_buffer_state result);
void hantro_h1_h264_enc_reset(struct hantro_ctx *ctx);

/**
 * struct hantro_h1_h264_enc_input - how the H1 reads an OUTPUT format
 * @fourcc: the V4L2 pixel format
 * @fmt: the value of H1_REG_IN_IMG_CTRL_FMT
 * @planes: planes the H1 reads: 3, 2, or 1 for the packed formats
 * @bytes_per_pixel: bytes of a pixel in the first plane
 * @swap: the input swaps of H1_REG_AXI_CTRL: every swap for YUV, which
 *	reads bytes in memory order; for RGB those that bring a pixel's bits
 *	into the order @msb_r, @msb_g and @msb_b count them in
 * @msb_r: RGB only: bit position of the most significant bit of R
 * @msb_g: the same for G
 * @msb_b: the same for B
 */
struct hantro_h1_h264_enc_input {
	u32 fourcc;
	u8 fmt;
	u8 planes;
	u8 bytes_per_pixel;
	u32 swap;
	u8 msb_r;
	u8 msb_g;
	u8 msb_b;
};

/* hantro_h1_h264_enc_ctrls.c */
struct vb2_v4l2_buffer;
const struct hantro_h1_h264_enc_input *hantro_h1_h264_enc_input(u32 pixelformat);
void hantro_h1_h264_enc_rgb_regs(const struct hantro_h1_h264_enc_input *in,
				 u8 matrix_coefficients, u32 regs[3]);
void hantro_h1_h264_enc_report_dpb(struct hantro_h264_enc_hw_ctx *enc,
				   struct v4l2_ctrl_h264_encode_feedback *fb);
int hantro_h1_h264_enc_config(struct hantro_ctx *ctx, struct h264enc_config *cfg);
void hantro_h1_h264_enc_grab_ctrls(struct hantro_ctx *ctx, bool grab);
void hantro_h1_h264_enc_frame_params(struct hantro_ctx *ctx,
				     const struct vb2_v4l2_buffer *src,
				     struct h264enc_frame_params *fp);
int hantro_h1_h264_enc_update_bitrate(struct hantro_ctx *ctx);
void hantro_h1_h264_enc_set_feedback(struct hantro_ctx *ctx,
				     const struct v4l2_ctrl_h264_encode_feedback *fb);
void hantro_h1_h264_enc_set_stats(struct hantro_ctx *ctx,
				  const u32 stats[HANTRO_H1_H264_ENC_STATS_LEN]);
int hantro_h1_h264_enc_request_validate(struct media_request *req);
void hantro_h1_h264_enc_force_key_frame(struct hantro_ctx *ctx);

#endif /* HANTRO_H1_H264_ENC_H_ */

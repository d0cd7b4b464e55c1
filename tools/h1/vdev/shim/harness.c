// SPDX-License-Identifier: GPL-2.0-only
/*
 * The virtual device above the driver: what the V4L2 core, the control
 * framework and v4l2-mem2mem do around the real hantro H1 H.264 backend
 * (drivers/media/platform/verisilicon/hantro_h1_h264_enc.c) and the real
 * control validation (drivers/media/v4l2-core/v4l2-h264-enc-ctrls.c),
 * behind the small API of vdev.h: format, controls, one request per frame.
 * The kernel below the driver is kernel.c.
 */
#include "hantro.h"
#include "hantro_h1_regs.h"
#include <media/v4l2-h264-enc.h>
#include "vdev.h"

struct vdev {
	struct device device;
	struct hantro_dev vpu;
	struct hantro_ctx ctx;
	struct vb2_queue src_queue;
	struct vb2_v4l2_buffer src, dst;
	void *host;
	bool started;
	u32 fourcc;
	size_t in_size, out_size;
	struct v4l2_ctrl_h264_encode_params params;
	struct v4l2_ctrl_h264_encode_rc rc;
	struct v4l2_ctrl_h264_encode_feedback feedback;
	u32 stats[HANTRO_H1_H264_ENC_STATS_LEN];
};

static struct v4l2_ctrl *add_ctrl(struct vdev *v, u32 id, u32 type, void *p, u32 size, s32 def)
{
	struct v4l2_ctrl_handler *h = &v->ctx.ctrl_handler;
	struct v4l2_ctrl *c = &h->ctrls[h->count++];

	c->id = id;
	c->type = type;
	c->size = size;
	c->val = def;
	c->p_cur.p = p ? p : &c->val;
	return c;
}

/* A control the request @h sets (its value is applied when the job runs). */
static void add_ctrl_to(struct v4l2_ctrl_handler *h, u32 id)
{
	h->ctrls[h->count++].id = id;
}

/*
 * The integer, boolean, menu and button controls of hantro_drv.c's H.264
 * encoder table, with their ranges and the menu entries it skips.
 */
static const struct {
	u32 id;
	s32 min, max, def;
	u64 skip;
} int_ctrls[] = {
	{ V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_BASELINE,
	  V4L2_MPEG_VIDEO_H264_PROFILE_HIGH, V4L2_MPEG_VIDEO_H264_PROFILE_CONSTRAINED_BASELINE,
	  1ULL << V4L2_MPEG_VIDEO_H264_PROFILE_EXTENDED },
	{ V4L2_CID_MPEG_VIDEO_H264_LEVEL, V4L2_MPEG_VIDEO_H264_LEVEL_1_0,
	  V4L2_MPEG_VIDEO_H264_LEVEL_5_1, V4L2_MPEG_VIDEO_H264_LEVEL_4_0,
	  1ULL << V4L2_MPEG_VIDEO_H264_LEVEL_1B },
	{ V4L2_CID_MPEG_VIDEO_H264_ENTROPY_MODE, 0, 1, 0 },
	{ V4L2_CID_MPEG_VIDEO_H264_8X8_TRANSFORM, 0, 1, 0 },
	{ V4L2_CID_MPEG_VIDEO_H264_CONSTRAINED_INTRA_PREDICTION, 0, 1, 0 },
	{ V4L2_CID_MPEG_VIDEO_H264_CHROMA_QP_INDEX_OFFSET, -12, 12, 0 },
	{ V4L2_CID_MPEG_VIDEO_AU_DELIMITER, 0, 1, 1 },
	{ V4L2_CID_MPEG_VIDEO_PREPEND_SPSPPS_TO_IDR, 0, 1, 1 },
	{ V4L2_CID_MPEG_VIDEO_LTR_COUNT, 0, 1, 0 },
	{ V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE, 0, 1, 1 },
	{ V4L2_CID_MPEG_VIDEO_BITRATE_MODE, V4L2_MPEG_VIDEO_BITRATE_MODE_VBR,
	  V4L2_MPEG_VIDEO_BITRATE_MODE_CQ, V4L2_MPEG_VIDEO_BITRATE_MODE_VBR },
	{ V4L2_CID_MPEG_VIDEO_CONSTANT_QUALITY, 1, 100, 50 },
	{ V4L2_CID_MPEG_VIDEO_BITRATE, 1000, 400000000, 2000000 },
	{ V4L2_CID_MPEG_VIDEO_BITRATE_PEAK, 1000, 400000000, 2000000 },
	{ V4L2_CID_MPEG_VIDEO_H264_CPB_SIZE, 0, 1000000, 0 },
	{ V4L2_CID_MPEG_VIDEO_H264_MIN_QP, 0, 51, 0 },
	{ V4L2_CID_MPEG_VIDEO_H264_MAX_QP, 0, 51, 51 },
	{ V4L2_CID_MPEG_VIDEO_H264_I_FRAME_QP, 0, 51, 26 },
	{ V4L2_CID_MPEG_VIDEO_H264_P_FRAME_QP, 0, 51, 28 },
	{ V4L2_CID_MPEG_VIDEO_GOP_SIZE, 0, 65535, 0 },
	{ V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME, 0, 1, 0 },
	{ V4L2_CID_MPEG_VIDEO_H264_LOOP_FILTER_MODE, 0, 2, 0 },
	{ V4L2_CID_MPEG_VIDEO_H264_LOOP_FILTER_ALPHA, -6, 6, 0 },
	{ V4L2_CID_MPEG_VIDEO_H264_LOOP_FILTER_BETA, -6, 6, 0 },
	{ V4L2_CID_MPEG_VIDEO_MULTI_SLICE_MODE, 0, 1, 0 },
	{ V4L2_CID_MPEG_VIDEO_MULTI_SLICE_MAX_MB, 1, 65535, 1 },
	{ V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING, 0, 1, 0 },
	{ V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_TYPE, V4L2_MPEG_VIDEO_H264_HIERARCHICAL_CODING_P,
	  V4L2_MPEG_VIDEO_H264_HIERARCHICAL_CODING_P, V4L2_MPEG_VIDEO_H264_HIERARCHICAL_CODING_P },
	{ V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_LAYER, 1, 3, 1 },
	{ V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L0_BR, 0, 400000000, 0 },
	{ V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L1_BR, 0, 400000000, 0 },
	{ V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L2_BR, 0, 400000000, 0 },
	{ V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD, 0, 1024, 0 },
	{ V4L2_CID_STATELESS_H264_ENCODE_FILLER, 0, 1, 0 },
	{ V4L2_CID_STATELESS_H264_ENCODE_CABAC_INIT_IDC, 0, 2, 0 },
};

struct vdev *vdev_create(void *host)
{
	struct vdev *v = calloc(1, sizeof(*v));
	unsigned int i;

	if (!v)
		return NULL;
	v->host = host;
	v->device.host = host;
	v->vpu.dev = &v->device;
	v->vpu.host = host;
	v->ctx.dev = &v->vpu;
	v->ctx.src = &v->src;
	v->src_queue.drv_priv = &v->ctx;
	v->src.vb2_buf.vb2_queue = &v->src_queue;
	v->src.vb2_buf.req_obj.is_buffer = true;
	v->ctx.dst = &v->dst;
	v->ctx.timeperframe.numerator = 1;
	v->ctx.timeperframe.denominator = 30;
	for (i = 0; i < sizeof(int_ctrls) / sizeof(int_ctrls[0]); i++)
		add_ctrl(v, int_ctrls[i].id, 0, NULL, sizeof(s32), int_ctrls[i].def);
	add_ctrl(v, V4L2_CID_STATELESS_H264_ENCODE_PARAMS, V4L2_CTRL_TYPE_H264_ENCODE_PARAMS,
		 &v->params, sizeof(v->params), 0);
	add_ctrl(v, V4L2_CID_STATELESS_H264_ENCODE_RC, V4L2_CTRL_TYPE_H264_ENCODE_RC,
		 &v->rc, sizeof(v->rc), 0);
	add_ctrl(v, V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK, V4L2_CTRL_TYPE_H264_ENCODE_FEEDBACK,
		 &v->feedback, sizeof(v->feedback), 0);
	/* hantro_drv.c: an array of HANTRO_H1_H264_ENC_STATS_LEN u32, read-only. */
	add_ctrl(v, V4L2_CID_HANTRO_H1_H264_ENC_STATS, V4L2_CTRL_TYPE_U32, v->stats,
		 sizeof(v->stats), 0);
	return v;
}

static void free_buf(struct vdev *v, struct vb2_buffer *b)
{
	if (b->planes[0].cpu)
		dma_free_coherent(&v->device, b->planes[0].size, b->planes[0].cpu, b->planes[0].dma);
	b->planes[0].cpu = NULL;
}

int vdev_stop(struct vdev *v)
{
	if (v->started)
		hantro_h1_h264_enc_exit(&v->ctx);
	v->started = false;
	free_buf(v, &v->src.vb2_buf);
	free_buf(v, &v->dst.vb2_buf);
	return 0;
}

void vdev_destroy(struct vdev *v)
{
	if (!v)
		return;
	vdev_stop(v);
	free(v);
}

int vdev_set_format(struct vdev *v, u32 width, u32 height, u32 fourcc, u32 fps_num, u32 fps_den)
{
	struct v4l2_pix_format_mplane *src = &v->ctx.src_fmt, *dst = &v->ctx.dst_fmt;
	u32 mbw = DIV_ROUND_UP(width, 16), mbh = DIV_ROUND_UP(height, 16);
	const struct hantro_h1_h264_enc_input *in;
	u32 bpl;

	if (v->started)
		return -EBUSY;
	/* H.264 crops in units of two samples: even widths and heights. */
	if (width < 16 || height < 16 || width > 4080 || height > 4080 || width % 2 || height % 2)
		return -EINVAL;
	in = hantro_h1_h264_enc_input(fourcc);
	if (!in || fourcc == V4L2_PIX_FMT_YUV420M || fourcc == V4L2_PIX_FMT_NV12M)
		return -EINVAL;
	if (!fps_num || !fps_den)
		return -EINVAL;
	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	src->width = mbw * 16;
	src->height = mbh * 16;
	src->pixelformat = fourcc;
	src->num_planes = 1;
	/*
	 * Rows as wide as the H1 reads (its overfill counts 4 pixels), which
	 * the client pads; packed 4:2:2 and RGB: one plane.
	 */
	bpl = ALIGN(width, 4) * in->bytes_per_pixel;
	src->plane_fmt[0].bytesperline = bpl;
	src->plane_fmt[0].sizeimage = in->planes == 1 ? bpl * height : bpl * height * 3 / 2;
	dst->width = width;
	dst->height = height;
	dst->pixelformat = V4L2_PIX_FMT_H264;
	dst->num_planes = 1;
	v->fourcc = fourcc;
	v->in_size = src->plane_fmt[0].sizeimage;
	v->ctx.timeperframe.numerator = fps_den;
	v->ctx.timeperframe.denominator = fps_num;
	return 0;
}

int vdev_set_colorimetry(struct vdev *v, u32 colorspace, u32 xfer_func, u32 ycbcr_enc,
			 u32 quantization)
{
	struct v4l2_pix_format_mplane *src = &v->ctx.src_fmt;

	if (v->started)
		return -EBUSY;
	/* hantro_set_fmt_out(): the OUTPUT format keeps them, CAPTURE gets a copy. */
	src->colorspace = colorspace;
	src->xfer_func = xfer_func;
	src->ycbcr_enc = ycbcr_enc;
	src->quantization = quantization;
	v->ctx.dst_fmt.colorspace = colorspace;
	v->ctx.dst_fmt.xfer_func = xfer_func;
	v->ctx.dst_fmt.ycbcr_enc = ycbcr_enc;
	v->ctx.dst_fmt.quantization = quantization;
	return 0;
}

int vdev_set_ctrl(struct vdev *v, u32 id, const void *data, u32 size)
{
	struct v4l2_ctrl *c = v4l2_ctrl_find(&v->ctx.ctrl_handler, id);
	unsigned int i;
	int ret = 0;

	if (!c || size != c->size)
		return -EINVAL;
	if (id == V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK ||
	    id == V4L2_CID_HANTRO_H1_H264_ENC_STATS)
		return -EACCES;
	/* v4l2-ctrls-api.c: a grabbed control is busy before it is validated. */
	if (c->grabbed)
		return -EBUSY;
	switch (c->type) {
	case V4L2_CTRL_TYPE_H264_ENCODE_PARAMS:
	case V4L2_CTRL_TYPE_H264_ENCODE_RC:
		ret = v4l2_h264_enc_validate_compound(c->type, data);
		break;
	default:
		for (i = 0; i < sizeof(int_ctrls) / sizeof(int_ctrls[0]); i++) {
			s32 val;

			if (int_ctrls[i].id != id)
				continue;
			memcpy(&val, data, sizeof(val));
			/* v4l2_ctrl_new_custom(): a skipped menu entry is -EINVAL. */
			if (val < int_ctrls[i].min || val > int_ctrls[i].max)
				ret = -ERANGE;
			else if (val < 64 && (int_ctrls[i].skip & (1ULL << val)))
				ret = -EINVAL;
		}
		break;
	}
	if (ret)
		return ret;
	memcpy(c->p_cur.p, data, size);
	/* hantro_drv.c's s_ctrl: the button is noted for the next frame. */
	if (id == V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME)
		hantro_h1_h264_enc_force_key_frame(&v->ctx);
	return 0;
}

int vdev_start(struct vdev *v)
{
	int ret;

	if (v->started || !v->in_size)
		return -EINVAL;
	ret = hantro_h1_h264_enc_init(&v->ctx);
	if (ret)
		return ret;
	v->started = true;
	return 0;
}

/* As VIDIOC_S_EXT_CTRLS while streaming: the driver applies it at the next frame. */
int vdev_set_bitrate(struct vdev *v, u32 bitrate, u32 peak)
{
	int ret;

	if (!v->started)
		return -EINVAL;
	ret = vdev_set_ctrl(v, V4L2_CID_MPEG_VIDEO_BITRATE_PEAK, &peak, sizeof(peak));
	if (!ret)
		ret = vdev_set_ctrl(v, V4L2_CID_MPEG_VIDEO_BITRATE, &bitrate, sizeof(bitrate));
	return ret;
}

static int ensure_buf(struct vdev *v, struct vb2_buffer *b, size_t size)
{
	if (b->planes[0].cpu && b->planes[0].size == size)
		return 0;
	free_buf(v, b);
	b->planes[0].cpu = dma_alloc_coherent(&v->device, size, &b->planes[0].dma, GFP_KERNEL);
	if (!b->planes[0].cpu)
		return -ENOMEM;
	b->planes[0].size = size;
	b->num_planes = 1;
	return 0;
}

int vdev_encode(struct vdev *v, const u8 *frame, u32 frame_len, u64 timestamp,
		const struct v4l2_ctrl_h264_encode_params *params,
		const struct v4l2_ctrl_h264_encode_rc *rc,
		u8 *out, u32 out_size, struct vdev_result *res)
{
	struct media_request req;
	struct v4l2_ctrl_handler *req_hdl;
	enum vb2_buffer_state state;
	u32 status;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	if (!v->started || frame_len != v->in_size)
		return -EINVAL;
	/*
	 * The request: the source buffer and the per-frame controls it sets
	 * (a null pointer: left out). Their values are validated when set,
	 * the request when queued: before anything reaches the hardware.
	 */
	if (params)
		ret = v4l2_h264_enc_validate_compound(V4L2_CTRL_TYPE_H264_ENCODE_PARAMS, params);
	if (!ret && rc)
		ret = v4l2_h264_enc_validate_compound(V4L2_CTRL_TYPE_H264_ENCODE_RC, rc);
	if (ret)
		return ret;
	req_hdl = calloc(1, sizeof(*req_hdl));
	if (!req_hdl)
		return -ENOMEM;
	req_hdl->req_parent = &v->ctx.ctrl_handler;
	if (params)
		add_ctrl_to(req_hdl, V4L2_CID_STATELESS_H264_ENCODE_PARAMS);
	if (rc)
		add_ctrl_to(req_hdl, V4L2_CID_STATELESS_H264_ENCODE_RC);
	INIT_LIST_HEAD(&req.objects);
	list_add(&req_hdl->req_obj.list, &req.objects);
	list_add(&v->src.vb2_buf.req_obj.list, &req.objects);
	ret = hantro_h1_h264_enc_request_validate(&req);
	free(req_hdl);
	if (ret)
		return ret;
	/* v4l2_ctrl_request_setup() when the job runs. */
	memcpy(&v->params, params, sizeof(v->params));
	memcpy(&v->rc, rc, sizeof(v->rc));
	ret = ensure_buf(v, &v->src.vb2_buf, v->in_size);
	if (!ret)
		ret = ensure_buf(v, &v->dst.vb2_buf, out_size);
	if (ret)
		return ret;
	memcpy(v->src.vb2_buf.planes[0].cpu, frame, frame_len);
	v->src.vb2_buf.timestamp = timestamp;
	v->dst.flags = 0;
	v->dst.vb2_buf.planes[0].payload = 0;
	vdev_host_reg_write(v->host, H1_REG_INTERRUPT, 0);

	ret = hantro_h1_h264_enc_run(&v->ctx);
	state = ret ? VB2_BUF_STATE_ERROR : VB2_BUF_STATE_ACTIVE;
	/* The model ran when the enable bit was written; a frame coded again runs again. */
	while (state == VB2_BUF_STATE_ACTIVE) {
		/* The interrupt handler of the H1 (rockchip_vpu_hw.c) in userspace. */
		status = vdev_host_reg_read(v->host, H1_REG_INTERRUPT);
		v->vpu.enc_irq_status = status;
		vdev_host_reg_write(v->host, H1_REG_INTERRUPT, 0);
		vdev_host_reg_write(v->host, H1_REG_AXI_CTRL, 0);
		if (!(status & H1_REG_INTERRUPT_BIT)) {
			/* No interrupt: the watchdog fires, resets the core and the job fails. */
			hantro_h1_h264_enc_reset(&v->ctx);
			state = VB2_BUF_STATE_ERROR;
		} else {
			/* hantro's done work item. */
			state = hantro_h1_h264_enc_finish(&v->ctx, (status & H1_REG_INTERRUPT_FRAME_RDY) ?
							  VB2_BUF_STATE_DONE : VB2_BUF_STATE_ERROR);
		}
	}
	res->feedback = v->feedback;
	memcpy(res->stats, v->stats, sizeof(res->stats));
	if (state == VB2_BUF_STATE_ERROR) {
		/* vb2_buffer_done(VB2_BUF_STATE_ERROR) */
		res->error = -(int)v->feedback.error;
		res->flags = V4L2_BUF_FLAG_ERROR;
		return 0;
	}
	res->flags = v->dst.flags;
	res->payload = v->dst.vb2_buf.planes[0].payload;
	res->rec_slot = v->ctx.h264_enc.plan.rec_slot;
	if (res->payload > out_size)
		return -EOVERFLOW;
	memcpy(out, v->dst.vb2_buf.planes[0].cpu, res->payload);
	return 0;
}

int vdev_read_recon(struct vdev *v, u32 slot, u8 *i420, u32 len)
{
	struct hantro_h264_enc_hw_ctx *enc = &v->ctx.h264_enc;
	u32 w = v->ctx.dst_fmt.width, h = v->ctx.dst_fmt.height;
	u32 stride = DIV_ROUND_UP(w, 16) * 16, rows = DIV_ROUND_UP(h, 16) * 16;
	const u8 *luma, *chroma;
	u32 x, y, c;

	if (!v->started || slot >= enc->num_rec || len != w * h * 3 / 2)
		return -EINVAL;
	luma = enc->rec[slot].cpu;
	chroma = luma + (size_t)stride * rows;
	for (y = 0; y < h; y++)
		memcpy(i420 + y * w, luma + y * stride, w);
	for (c = 0; c < 2; c++)
		for (y = 0; y < h / 2; y++)
			for (x = 0; x < w / 2; x++)
				i420[w * h + c * (w / 2) * (h / 2) + y * (w / 2) + x] =
					chroma[y * stride + 2 * x + c];
	return 0;
}

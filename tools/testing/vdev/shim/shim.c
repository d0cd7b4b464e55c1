// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel API stand-ins and the virtual device flow around the real hantro H1
 * H.264 backend (drivers/media/platform/verisilicon/hantro_h1_h264_enc.c) and
 * the real control validation (drivers/media/v4l2-core/v4l2-h264-enc-ctrls.c).
 */
#include <stdarg.h>
#include "hantro.h"
#include "hantro_h1_regs.h"
#include <media/v4l2-h264-enc.h>
#include "vdev.h"

struct vdev {
	struct device device;
	struct hantro_dev vpu;
	struct hantro_ctx ctx;
	struct vb2_v4l2_buffer src, dst;
	void *host;
	bool started;
	u32 fourcc;
	size_t in_size, out_size;
	struct v4l2_ctrl_h264_encode_params params;
	struct v4l2_ctrl_h264_encode_rc rc;
	struct v4l2_ctrl_h264_encode_feedback feedback;
	struct v4l2_ctrl_h264_sps sps;
	struct v4l2_ctrl_h264_pps pps;
};

void kshim_log(struct device *dev, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vdev_host_log(dev->host, msg);
}

void *dma_alloc_coherent(struct device *dev, size_t size, dma_addr_t *dma, gfp_t gfp)
{
	(void)gfp;
	return vdev_host_dma_alloc(dev->host, size, dma);
}

void dma_free_coherent(struct device *dev, size_t size, void *cpu, dma_addr_t dma)
{
	(void)size;
	(void)dma;
	vdev_host_dma_free(dev->host, cpu);
}

void vepu_write_relaxed(struct hantro_dev *vpu, u32 val, u32 reg)
{
	vdev_host_reg_write(vpu->host, reg, val);
}

void vepu_write(struct hantro_dev *vpu, u32 val, u32 reg)
{
	vdev_host_reg_write(vpu->host, reg, val);
}

u32 vepu_read(struct hantro_dev *vpu, u32 reg)
{
	return vdev_host_reg_read(vpu->host, reg);
}

struct v4l2_ctrl *v4l2_ctrl_find(struct v4l2_ctrl_handler *hdl, u32 id)
{
	unsigned int i;

	for (i = 0; i < hdl->count; i++)
		if (hdl->ctrls[i].id == id)
			return &hdl->ctrls[i];
	return NULL;
}

int v4l2_ctrl_s_ctrl_compound(struct v4l2_ctrl *ctrl, u32 type, const void *p)
{
	if (ctrl->type != type)
		return -EINVAL;
	memcpy(ctrl->p_cur.p, p, ctrl->size);
	return 0;
}

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

/* Integer controls the backend reads, with their ranges. */
static const struct {
	u32 id;
	s32 min, max, def;
} int_ctrls[] = {
	{ V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE, 0, 1, 1 },
	{ V4L2_CID_MPEG_VIDEO_BITRATE_MODE, 0, 2, V4L2_MPEG_VIDEO_BITRATE_MODE_CQ },
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
	{ V4L2_CID_MPEG_VIDEO_MULTI_SLICE_MODE, 0, 2, 0 },
	{ V4L2_CID_MPEG_VIDEO_MULTI_SLICE_MAX_MB, 1, 65535, 1 },
	{ V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_LAYER, 0, 3, 1 },
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
	v->ctx.dst = &v->dst;
	v->ctx.timeperframe.numerator = 1;
	v->ctx.timeperframe.denominator = 30;
	for (i = 0; i < sizeof(int_ctrls) / sizeof(int_ctrls[0]); i++)
		add_ctrl(v, int_ctrls[i].id, 0, NULL, sizeof(s32), int_ctrls[i].def);
	v->sps.profile_idc = 66;
	v->sps.chroma_format_idc = 1;
	v->sps.log2_max_frame_num_minus4 = 12;
	v->sps.pic_order_cnt_type = 2;
	v->sps.max_num_ref_frames = 1;
	v->sps.flags = V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY;
	v->pps.flags = V4L2_H264_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT;
	add_ctrl(v, V4L2_CID_STATELESS_H264_SPS, V4L2_CTRL_TYPE_H264_SPS, &v->sps, sizeof(v->sps), 0);
	add_ctrl(v, V4L2_CID_STATELESS_H264_PPS, V4L2_CTRL_TYPE_H264_PPS, &v->pps, sizeof(v->pps), 0);
	add_ctrl(v, V4L2_CID_STATELESS_H264_ENCODE_PARAMS, V4L2_CTRL_TYPE_H264_ENCODE_PARAMS,
		 &v->params, sizeof(v->params), 0);
	add_ctrl(v, V4L2_CID_STATELESS_H264_ENCODE_RC, V4L2_CTRL_TYPE_H264_ENCODE_RC,
		 &v->rc, sizeof(v->rc), 0);
	add_ctrl(v, V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK, V4L2_CTRL_TYPE_H264_ENCODE_FEEDBACK,
		 &v->feedback, sizeof(v->feedback), 0);
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

	if (v->started)
		return -EBUSY;
	/* The H1 reads whole macroblocks, a width multiple of 4, even heights. */
	if (width < 16 || height < 16 || width > 4080 || height > 4080 || width % 4 || height % 2)
		return -EINVAL;
	if (fourcc != V4L2_PIX_FMT_YUV420 && fourcc != V4L2_PIX_FMT_NV12)
		return -EINVAL;
	if (!fps_num || !fps_den)
		return -EINVAL;
	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	src->width = mbw * 16;
	src->height = mbh * 16;
	src->pixelformat = fourcc;
	src->num_planes = 1;
	src->plane_fmt[0].bytesperline = width;
	src->plane_fmt[0].sizeimage = width * height * 3 / 2;
	dst->width = width;
	dst->height = height;
	dst->pixelformat = V4L2_PIX_FMT_H264_SLICE_ENC;
	dst->num_planes = 1;
	v->fourcc = fourcc;
	v->in_size = (size_t)width * height * 3 / 2;
	v->ctx.timeperframe.numerator = fps_den;
	v->ctx.timeperframe.denominator = fps_num;
	return 0;
}

int vdev_set_ctrl(struct vdev *v, u32 id, const void *data, u32 size)
{
	struct v4l2_ctrl *c = v4l2_ctrl_find(&v->ctx.ctrl_handler, id);
	unsigned int i;
	int ret = 0;

	if (!c || size != c->size)
		return -EINVAL;
	if (id == V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK)
		return -EACCES;
	switch (c->type) {
	case V4L2_CTRL_TYPE_H264_SPS:
		ret = v4l2_h264_enc_validate_sps(data);
		if (!ret && v->started)
			ret = -EBUSY;
		break;
	case V4L2_CTRL_TYPE_H264_PPS:
		ret = v4l2_h264_enc_validate_pps(data, &v->sps);
		if (!ret && v->started)
			ret = -EBUSY;
		break;
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
			if (val < int_ctrls[i].min || val > int_ctrls[i].max)
				ret = -ERANGE;
		}
		break;
	}
	if (ret)
		return ret;
	memcpy(c->p_cur.p, data, size);
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

int vdev_set_bitrate(struct vdev *v, u32 bitrate, u32 peak)
{
	if (!v->started)
		return -EINVAL;
	return h264enc_set_bitrate(v->ctx.h264_enc.core, bitrate, peak);
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
	static const struct v4l2_ctrl_h264_encode_params no_params;
	static const struct v4l2_ctrl_h264_encode_rc no_rc;
	u32 status;
	int ret;

	memset(res, 0, sizeof(*res));
	if (!v->started || frame_len != v->in_size)
		return -EINVAL;
	/* The request's controls are validated before anything reaches the hardware. */
	ret = vdev_set_ctrl(v, V4L2_CID_STATELESS_H264_ENCODE_PARAMS,
			    params ? params : &no_params, sizeof(*params));
	if (!ret)
		ret = vdev_set_ctrl(v, V4L2_CID_STATELESS_H264_ENCODE_RC, rc ? rc : &no_rc,
				    sizeof(*rc));
	if (ret)
		return ret;
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
	if (ret) {
		res->error = ret;
		res->flags = V4L2_BUF_FLAG_ERROR;
		return 0;
	}
	/* The interrupt handler of the H1 (rockchip_vpu_hw.c) in userspace. */
	status = vdev_host_reg_read(v->host, H1_REG_INTERRUPT);
	vdev_host_reg_write(v->host, H1_REG_INTERRUPT, 0);
	if (!(status & H1_REG_INTERRUPT_BIT)) {
		/* No interrupt: the watchdog fires, resets the core and the job fails. */
		hantro_h1_h264_enc_reset(&v->ctx);
		res->error = -ETIMEDOUT;
		res->flags = V4L2_BUF_FLAG_ERROR;
		return 0;
	}
	if (!(status & H1_REG_INTERRUPT_FRAME_RDY)) {
		hantro_h1_h264_enc_reset(&v->ctx);
		res->error = (status & H1_REG_INTERRUPT_BUFFER_FULL) ? -ENOSPC : -EIO;
		res->flags = V4L2_BUF_FLAG_ERROR;
		return 0;
	}
	hantro_h1_h264_enc_done(&v->ctx);
	res->flags = v->dst.flags;
	res->payload = v->dst.vb2_buf.planes[0].payload;
	res->rec_slot = v->ctx.h264_enc.plan.rec_slot;
	if (res->flags & V4L2_BUF_FLAG_ERROR) {
		res->error = -EPROTO;
		return 0;
	}
	if (res->payload > out_size)
		return -EOVERFLOW;
	memcpy(out, v->dst.vb2_buf.planes[0].cpu, res->payload);
	res->feedback = v->feedback;
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

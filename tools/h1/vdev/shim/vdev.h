/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The virtual H.264 encoder device: the hantro H1 H.264 backend running over
 * the software H1, behind a small in-process API with the semantics of the
 * V4L2 stateless encode interface (format, controls, one request per frame).
 */
#ifndef VDEV_H_
#define VDEV_H_

#include <stddef.h>
#include <stdint.h>
#include <linux/hantro-media.h>
#include <linux/videodev2.h>

struct vdev;

/**
 * struct vdev_result - a completed request
 * @payload: bytes of the access unit in the CAPTURE buffer
 * @flags: V4L2_BUF_FLAG_KEYFRAME, _PFRAME or _ERROR
 * @error: 0, or the negative errno that ended the request
 * @rec_slot: reconstruction buffer the frame was written to
 * @feedback: the V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK of the request
 * @stats: the V4L2_CID_HANTRO_H1_H264_ENC_STATS of the request
 */
struct vdev_result {
	uint32_t payload;
	uint32_t flags;
	int32_t error;
	uint32_t rec_slot;
	struct v4l2_ctrl_h264_encode_feedback feedback;
	uint32_t stats[HANTRO_H1_H264_ENC_STATS_LEN];
};

struct vdev *vdev_create(void *host);
void vdev_destroy(struct vdev *v);
int vdev_set_format(struct vdev *v, uint32_t width, uint32_t height,
		    uint32_t fourcc, uint32_t fps_num, uint32_t fps_den);
/* The colorimetry fields of the OUTPUT format (VIDIOC_S_FMT takes them with it). */
int vdev_set_colorimetry(struct vdev *v, uint32_t colorspace, uint32_t xfer_func,
			 uint32_t ycbcr_enc, uint32_t quantization);
int vdev_set_ctrl(struct vdev *v, uint32_t id, const void *data, uint32_t size);
int vdev_start(struct vdev *v);
int vdev_stop(struct vdev *v);
int vdev_encode(struct vdev *v, const uint8_t *frame, uint32_t frame_len,
		uint64_t timestamp,
		const struct v4l2_ctrl_h264_encode_params *params,
		const struct v4l2_ctrl_h264_encode_rc *rc,
		uint8_t *out, uint32_t out_size, struct vdev_result *res);
int vdev_read_recon(struct vdev *v, uint32_t slot, uint8_t *i420, uint32_t len);
int vdev_set_bitrate(struct vdev *v, uint32_t bitrate, uint32_t peak);

/* Implemented by the host (the Rust side): registers and bus memory. */
void *vdev_host_dma_alloc(void *host, size_t size, uint64_t *dma);
void vdev_host_dma_free(void *host, void *cpu);
void vdev_host_reg_write(void *host, uint32_t reg, uint32_t val);
uint32_t vdev_host_reg_read(void *host, uint32_t reg);
void vdev_host_log(void *host, const char *msg);

#endif /* VDEV_H_ */

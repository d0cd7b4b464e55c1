/* SPDX-License-Identifier: ((GPL-2.0+ WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * V4L2 stateless H.264 encoding: controls of the per-frame encode parameters,
 * the per-frame rate-control override and the encode feedback.
 *
 * Sequence and picture parameters reuse V4L2_CID_STATELESS_H264_SPS and
 * V4L2_CID_STATELESS_H264_PPS; rate-control policy reuses the stateful codec
 * controls (V4L2_CID_MPEG_VIDEO_BITRATE_MODE, _BITRATE, _BITRATE_PEAK,
 * _H264_CPB_SIZE, _H264_MIN_QP, _H264_MAX_QP, _H264_I_FRAME_QP,
 * _H264_P_FRAME_QP, _GOP_SIZE, _FORCE_KEY_FRAME, _FRAME_RC_ENABLE). See
 * Documentation/userspace-api/media/v4l/dev-stateless-encoder.rst.
 *
 * This header is written to be folded into v4l2-controls.h and videodev2.h.
 */

#ifndef _UAPI_LINUX_V4L2_H264_ENC_H
#define _UAPI_LINUX_V4L2_H264_ENC_H

#include <linux/types.h>
#include <linux/videodev2.h>

/* Compound control types (to join enum v4l2_ctrl_type). */
#define V4L2_CTRL_TYPE_H264_ENCODE_PARAMS	0x0210
#define V4L2_CTRL_TYPE_H264_ENCODE_RC		0x0211
#define V4L2_CTRL_TYPE_H264_ENCODE_FEEDBACK	0x0212

#define V4L2_CID_STATELESS_H264_ENCODE_PARAMS	(V4L2_CID_CODEC_STATELESS_BASE + 8)

/* Code this frame as an IDR picture. */
#define V4L2_H264_ENCODE_FLAG_FORCE_IDR		0x00000001
/* The client saw a scene change before this frame. */
#define V4L2_H264_ENCODE_FLAG_SCENE_CHANGE	0x00000002
/* Predict from the picture whose source buffer had @reference_ts. */
#define V4L2_H264_ENCODE_FLAG_REFERENCE_TS	0x00000004

/**
 * struct v4l2_ctrl_h264_encode_params - per-frame H.264 encode parameters
 * @reference_ts: timestamp, in nanoseconds, of the OUTPUT (source) buffer of
 *	the picture to predict from; used with V4L2_H264_ENCODE_FLAG_REFERENCE_TS,
 *	it must name a picture the encoder still holds for reference.
 * @flags: combination of V4L2_H264_ENCODE_FLAG_* flags.
 * @reserved: must be zero.
 *
 * The driver decides the picture type, frame_num, picture order count,
 * reference marking and slice QP; these parameters are hints and overrides.
 */
struct v4l2_ctrl_h264_encode_params {
	__u64 reference_ts;
	__u32 flags;
	__u32 reserved[5];
};

#define V4L2_CID_STATELESS_H264_ENCODE_RC	(V4L2_CID_CODEC_STATELESS_BASE + 9)

/* @qp is the QP of this frame (client-driven rate control). */
#define V4L2_H264_ENCODE_RC_FLAG_QP		0x00000001

/**
 * struct v4l2_ctrl_h264_encode_rc - per-frame rate-control override
 * @flags: combination of V4L2_H264_ENCODE_RC_FLAG_* flags.
 * @qp: QP of the frame, 0..51, with V4L2_H264_ENCODE_RC_FLAG_QP. Required on
 *	every frame when V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE is 0 (client-driven
 *	rate control); refused otherwise.
 * @reserved: must be zero.
 */
struct v4l2_ctrl_h264_encode_rc {
	__u32 flags;
	__u8 qp;
	__u8 reserved[11];
};

#define V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK	(V4L2_CID_CODEC_STATELESS_BASE + 10)

/* The frame is an IDR picture. */
#define V4L2_H264_ENCODE_FEEDBACK_FLAG_IDR	0x00000001
/* The CPB model of the HRD underflowed at least once so far. */
#define V4L2_H264_ENCODE_FEEDBACK_FLAG_UNDERFLOW	0x00000002
/* The CPB model of the HRD overflowed at least once so far. */
#define V4L2_H264_ENCODE_FEEDBACK_FLAG_OVERFLOW	0x00000004

/**
 * struct v4l2_ctrl_h264_encode_feedback - what encoding a frame gave
 * @frame_bits: bits of the access unit in the CAPTURE buffer, filler included.
 * @filler_bytes: bytes of filler data appended to keep a CBR stream exact.
 * @target_bits: bits the rate controller aimed for, 0 without a target.
 * @cpb_fullness: HRD CPB fullness before the next frame's removal, in bits.
 * @qp_avg_q8: average QP of the frame's macroblocks, in 1/256 units.
 * @qp_sum: hardware statistic: sum of the macroblock QPs.
 * @rlc_count: hardware statistic: coded non-zero coefficients.
 * @mad_count: hardware statistic: macroblocks under the MAD threshold.
 * @flags: combination of V4L2_H264_ENCODE_FEEDBACK_FLAG_* flags.
 * @slice_type: slice_type % 5 of the frame's slices (0 P, 2 I).
 * @nal_ref_idc: nal_ref_idc of the frame's slices.
 * @temporal_id: temporal layer of the frame.
 * @reserved0: must be zero.
 * @frame_num: frame_num of the frame's slices.
 * @error: 0 for a coded frame. For a frame that failed, whose buffers come
 *	back with V4L2_BUF_FLAG_ERROR, the positive errno of the reason:
 *	ENOSPC the CAPTURE buffer cannot hold the frame, ETIMEDOUT the hardware
 *	did not finish, EIO the hardware reported an error, EPROTO what the
 *	hardware wrote is not the frame the driver asked for, ENOENT the
 *	reference named by reference_ts is no longer held, EINVAL the frame
 *	cannot be coded with its parameters.
 * @reserved: must be zero.
 *
 * The driver sets this control in the request of the frame when it completes;
 * read it with VIDIOC_G_EXT_CTRLS on the completed request.
 */
struct v4l2_ctrl_h264_encode_feedback {
	__u32 frame_bits;
	__u32 filler_bytes;
	__u32 target_bits;
	__u32 cpb_fullness;
	__u32 qp_avg_q8;
	__u32 qp_sum;
	__u32 rlc_count;
	__u32 mad_count;
	__u32 flags;
	__u8 slice_type;
	__u8 nal_ref_idc;
	__u8 temporal_id;
	__u8 reserved0;
	__u32 frame_num;
	__u32 error;
	__u32 reserved[3];
};

/*
 * Integer control: frames between P frames that predict from the long-term
 * reference (marked on every IDR picture), for error recovery; 0 disables
 * long-term references. Range 0..1024.
 */
#define V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD	(V4L2_CID_CODEC_STATELESS_BASE + 11)

/*
 * Boolean control: in CBR mode, append filler data so the stream never
 * overflows the HRD buffer and its rate is exactly the signalled one.
 */
#define V4L2_CID_STATELESS_H264_ENCODE_FILLER	(V4L2_CID_CODEC_STATELESS_BASE + 12)

/*
 * Integer control: cabac_init_idc of the P slices, 0..2, which selects the
 * initial CABAC context values (Tables 9-13 to 9-33); ignored with CAVLC.
 */
#define V4L2_CID_STATELESS_H264_ENCODE_CABAC_INIT_IDC	(V4L2_CID_CODEC_STATELESS_BASE + 13)

#endif /* _UAPI_LINUX_V4L2_H264_ENC_H */

/* SPDX-License-Identifier: ((GPL-2.0+ WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * V4L2 stateless H.264 encoding: controls of the per-frame encode parameters,
 * the per-frame rate-control override and the encode feedback.
 *
 * The sequence-level settings are the stateful codec controls that express
 * them (V4L2_CID_MPEG_VIDEO_H264_PROFILE, _H264_LEVEL, _H264_ENTROPY_MODE,
 * _BITRATE_MODE, _BITRATE, _GOP_SIZE, ...): the encoder writes the SPS and
 * PPS itself. See
 * Documentation/userspace-api/media/v4l/dev-stateless-encoder.rst.
 *
 * This header is written to be folded into v4l2-controls.h and videodev2.h.
 */

#ifndef _UAPI_LINUX_V4L2_H264_ENC_H
#define _UAPI_LINUX_V4L2_H264_ENC_H

#include <linux/types.h>
#include <linux/videodev2.h>

/*
 * Compound control types (to join enum v4l2_ctrl_type). The values and the
 * control IDs below are not those of earlier stateless encoder proposals
 * (types 0x0125-0x0127, 0x0206-0x0208 and 0x0210-0x0211, IDs
 * V4L2_CID_CODEC_STATELESS_BASE + 8 to + 10), so that no application written
 * for one of them mistakes these controls for its own.
 */
#define V4L2_CTRL_TYPE_H264_ENCODE_PARAMS	0x0218
#define V4L2_CTRL_TYPE_H264_ENCODE_RC		0x0219
#define V4L2_CTRL_TYPE_H264_ENCODE_FEEDBACK	0x021a

#define V4L2_CID_STATELESS_H264_ENCODE_PARAMS	(V4L2_CID_CODEC_STATELESS_BASE + 32)

/* Code this frame as an IDR picture. */
#define V4L2_H264_ENCODE_FLAG_FORCE_IDR		0x00000001
/* The client saw a scene change before this frame. */
#define V4L2_H264_ENCODE_FLAG_SCENE_CHANGE	0x00000002
/* Predict from the picture whose source buffer had @reference_ts. */
#define V4L2_H264_ENCODE_FLAG_REFERENCE_TS	0x00000004
/*
 * Mark this frame long-term, in place of the long-term picture the encoder
 * holds (V4L2_CID_MPEG_VIDEO_LTR_COUNT 1; not a non-reference frame).
 */
#define V4L2_H264_ENCODE_FLAG_MARK_LONG_TERM	0x00000008

/**
 * struct v4l2_ctrl_h264_encode_params - per-frame H.264 encode parameters
 * @reference_ts: timestamp, in nanoseconds, of the OUTPUT (source) buffer of
 *	the picture to predict from; used with V4L2_H264_ENCODE_FLAG_REFERENCE_TS,
 *	it must name a picture the encoder still holds for reference.
 * @flags: combination of V4L2_H264_ENCODE_FLAG_* flags.
 * @reserved: must be zero.
 *
 * The driver decides the picture type, frame_num, picture order count,
 * reference marking and slice QP; these parameters override its choice for
 * this frame: an IDR picture, the reference, long-term marking.
 */
struct v4l2_ctrl_h264_encode_params {
	__u64 reference_ts;
	__u32 flags;
	__u32 reserved[5];
};

#define V4L2_CID_STATELESS_H264_ENCODE_RC	(V4L2_CID_CODEC_STATELESS_BASE + 33)

/* @qp is the QP of this frame (client-driven rate control). */
#define V4L2_H264_ENCODE_RC_FLAG_QP		0x00000001

/**
 * struct v4l2_ctrl_h264_encode_rc - per-frame rate-control override
 * @flags: combination of V4L2_H264_ENCODE_RC_FLAG_* flags.
 * @qp: QP of the frame, 0..51, with V4L2_H264_ENCODE_RC_FLAG_QP, in place of
 *	V4L2_CID_MPEG_VIDEO_H264_I_FRAME_QP or _P_FRAME_QP when
 *	V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE is 0 (client-driven rate control).
 *	With frame-level rate control on, a frame with this flag fails with
 *	EINVAL in its feedback.
 * @reserved: must be zero.
 */
struct v4l2_ctrl_h264_encode_rc {
	__u32 flags;
	__u8 qp;
	__u8 reserved[11];
};

#define V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK	(V4L2_CID_CODEC_STATELESS_BASE + 34)

/* The frame is an IDR picture. */
#define V4L2_H264_ENCODE_FEEDBACK_FLAG_IDR		0x00000001
/* The frame is marked "used for long-term reference". */
#define V4L2_H264_ENCODE_FEEDBACK_FLAG_LONG_TERM	0x00000002
/* This access unit had not fully arrived in the CPB at its removal time. */
#define V4L2_H264_ENCODE_FEEDBACK_FLAG_HRD_UNDERFLOW	0x00000004
/* The CPB overflowed while this access unit arrived. */
#define V4L2_H264_ENCODE_FEEDBACK_FLAG_HRD_OVERFLOW	0x00000008

/**
 * struct v4l2_ctrl_h264_encode_feedback - what encoding a frame gave
 * @dpb: the reference pictures the encoder holds after this frame's
 *	reference marking, the pictures a later request may name with
 *	reference_ts; entries in use have V4L2_H264_DPB_ENTRY_FLAG_VALID and
 *	V4L2_H264_DPB_ENTRY_FLAG_ACTIVE (and V4L2_H264_DPB_ENTRY_FLAG_LONG_TERM
 *	for a long-term picture), reference_ts the timestamp of the picture's
 *	OUTPUT buffer, fields V4L2_H264_FRAME_REF, frame_num its FrameNum,
 *	pic_num its FrameNum (short-term) or LongTermFrameIdx (long-term), and
 *	top_field_order_cnt and bottom_field_order_cnt its PicOrderCnt; the
 *	other entries are zero.
 * @frame_bytes: bytes of the access unit in the CAPTURE buffer (its
 *	bytesused), filler included.
 * @filler_bytes: bytes of filler data in the access unit.
 * @target_bits: bits the driver's rate control aimed for, 0 without a target.
 * @cpb_fullness: fullness of the HRD's CPB, in bits, after this access unit
 *	was removed and before the next one is (0 without HRD parameters).
 * @qp_avg_q8: average QP of the frame's macroblocks, in 1/256 units.
 * @frame_num: frame_num of the frame's slices.
 * @pic_order_cnt: PicOrderCnt of the frame (clause 8.2.1 of ITU-T H.264).
 * @flags: combination of V4L2_H264_ENCODE_FEEDBACK_FLAG_* flags; the HRD
 *	flags judge this access unit alone.
 * @error: 0 for a coded frame. For a frame that failed, whose buffers come
 *	back with V4L2_BUF_FLAG_ERROR, the positive errno of the reason:
 *	ENOSPC the CAPTURE buffer cannot hold the frame, ETIMEDOUT the hardware
 *	did not finish, EIO the hardware reported an error, EPROTO what the
 *	hardware wrote is not the frame the driver asked for, ENOENT the
 *	reference named by reference_ts is no longer held, EINVAL the frame
 *	cannot be coded with its parameters. The other fields are then zero but
 *	@dpb, which is unchanged: a failed frame leaves the stream as it was.
 * @slice_type: slice type of the frame's slices, V4L2_H264_SLICE_TYPE_P or
 *	V4L2_H264_SLICE_TYPE_I.
 * @nal_ref_idc: nal_ref_idc of the frame's slices (0: not a reference).
 * @temporal_id: temporal layer of the frame, 0 for the base layer.
 * @reserved0: must be zero.
 * @reserved: must be zero.
 *
 * The driver sets this control in the request of the frame when it completes;
 * read it with VIDIOC_G_EXT_CTRLS on the completed request. Statistics of a
 * particular encoder are in controls of that driver (for the Hantro H1,
 * V4L2_CID_HANTRO_H1_H264_ENC_STATS in linux/hantro-media.h).
 */
struct v4l2_ctrl_h264_encode_feedback {
	struct v4l2_h264_dpb_entry dpb[V4L2_H264_NUM_DPB_ENTRIES];
	__u32 frame_bytes;
	__u32 filler_bytes;
	__u32 target_bits;
	__u32 cpb_fullness;
	__u32 qp_avg_q8;
	__u32 frame_num;
	__s32 pic_order_cnt;
	__u32 flags;
	__u32 error;
	__u8 slice_type;
	__u8 nal_ref_idc;
	__u8 temporal_id;
	__u8 reserved0;
	__u32 reserved[4];
};

/*
 * Integer control: frames between P frames that predict from the long-term
 * reference, for error recovery; 0 for only when a request names it. The
 * long-term reference is every IDR picture when V4L2_CID_MPEG_VIDEO_LTR_COUNT
 * is 1, which a period > 0 needs. Range 0..1024.
 */
#define V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD	(V4L2_CID_CODEC_STATELESS_BASE + 35)

/*
 * Boolean control: in CBR mode, append filler data so the stream never
 * overflows the HRD buffer and its rate is exactly the signalled one.
 */
#define V4L2_CID_STATELESS_H264_ENCODE_FILLER	(V4L2_CID_CODEC_STATELESS_BASE + 36)

/*
 * Integer control: cabac_init_idc of the P slices, 0..2, which selects the
 * initial CABAC context values (Tables 9-13 to 9-33); ignored with CAVLC.
 */
#define V4L2_CID_STATELESS_H264_ENCODE_CABAC_INIT_IDC	(V4L2_CID_CODEC_STATELESS_BASE + 37)

#endif /* _UAPI_LINUX_V4L2_H264_ENC_H */

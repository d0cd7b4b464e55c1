// SPDX-License-Identifier: GPL-2.0-only
/*
 * Validation of the V4L2 stateless H.264 encode controls: what
 * std_validate_compound() does for the new compound types.
 */

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/string.h>
#include <linux/types.h>
#include <media/v4l2-h264-enc.h>

#define V4L2_H264_ENCODE_FLAGS_ALL \
	(V4L2_H264_ENCODE_FLAG_FORCE_IDR | V4L2_H264_ENCODE_FLAG_SCENE_CHANGE | \
	 V4L2_H264_ENCODE_FLAG_REFERENCE_TS | V4L2_H264_ENCODE_FLAG_MARK_LONG_TERM)

/**
 * v4l2_h264_enc_validate_params() - validate per-frame encode parameters
 * @p: the control value
 *
 * Unknown flags, non-zero reserved fields and a reference timestamp without
 * V4L2_H264_ENCODE_FLAG_REFERENCE_TS are refused; an IDR request cannot also
 * name a reference.
 *
 * Return: 0 or -EINVAL.
 */
int v4l2_h264_enc_validate_params(const struct v4l2_ctrl_h264_encode_params *p)
{
	if (p->flags & ~V4L2_H264_ENCODE_FLAGS_ALL)
		return -EINVAL;
	if (memchr_inv(p->reserved, 0, sizeof(p->reserved)))
		return -EINVAL;
	if (!(p->flags & V4L2_H264_ENCODE_FLAG_REFERENCE_TS) && p->reference_ts)
		return -EINVAL;
	if ((p->flags & V4L2_H264_ENCODE_FLAG_REFERENCE_TS) &&
	    (p->flags & V4L2_H264_ENCODE_FLAG_FORCE_IDR))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_GPL(v4l2_h264_enc_validate_params);

/**
 * v4l2_h264_enc_validate_rc() - validate a per-frame rate-control override
 * @rc: the control value
 *
 * Return: 0 or -EINVAL when a flag is unknown, a reserved byte is set, the QP
 * is above 51 or given without V4L2_H264_ENCODE_RC_FLAG_QP.
 */
int v4l2_h264_enc_validate_rc(const struct v4l2_ctrl_h264_encode_rc *rc)
{
	if (rc->flags & ~V4L2_H264_ENCODE_RC_FLAG_QP)
		return -EINVAL;
	if (memchr_inv(rc->reserved, 0, sizeof(rc->reserved)))
		return -EINVAL;
	if (rc->qp > 51)
		return -EINVAL;
	if (!(rc->flags & V4L2_H264_ENCODE_RC_FLAG_QP) && rc->qp)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_GPL(v4l2_h264_enc_validate_rc);

/**
 * v4l2_h264_enc_validate_compound() - validate one of the new compound controls
 * @type: V4L2_CTRL_TYPE_H264_ENCODE_* control type
 * @p: the control value
 *
 * The hook std_validate_compound() calls for the new types. The feedback
 * control is read-only for applications and always valid.
 *
 * Return: 0 or -EINVAL.
 */
int v4l2_h264_enc_validate_compound(u32 type, const void *p)
{
	switch (type) {
	case V4L2_CTRL_TYPE_H264_ENCODE_PARAMS:
		return v4l2_h264_enc_validate_params(p);
	case V4L2_CTRL_TYPE_H264_ENCODE_RC:
		return v4l2_h264_enc_validate_rc(p);
	case V4L2_CTRL_TYPE_H264_ENCODE_FEEDBACK:
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_GPL(v4l2_h264_enc_validate_compound);

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Validation of the V4L2 stateless H.264 encode controls.
 */
#ifndef _MEDIA_V4L2_H264_ENC_H
#define _MEDIA_V4L2_H264_ENC_H

#include <linux/videodev2.h>

int v4l2_h264_enc_validate_params(const struct v4l2_ctrl_h264_encode_params *p);
int v4l2_h264_enc_validate_rc(const struct v4l2_ctrl_h264_encode_rc *rc);
int v4l2_h264_enc_validate_compound(u32 type, const void *p);

#endif /* _MEDIA_V4L2_H264_ENC_H */

/* SPDX-License-Identifier: ((GPL-2.0+ WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * Controls of the Hantro (VeriSilicon) video codec driver.
 *
 * See Documentation/userspace-api/media/drivers/hantro.rst.
 */

#ifndef _UAPI_LINUX_HANTRO_MEDIA_H
#define _UAPI_LINUX_HANTRO_MEDIA_H

#include <linux/v4l2-controls.h>

/*
 * V4L2_CID_HANTRO_H1_H264_ENC_STATS: read-only array of
 * HANTRO_H1_H264_ENC_STATS_LEN __u32 values, what the H1 encoder's registers
 * reported for a frame of the H.264 stateless encoder. The driver sets it in
 * the request of the frame when it completes, with
 * V4L2_CID_STATELESS_H264_ENCODE_FEEDBACK; read it with VIDIOC_G_EXT_CTRLS on
 * the completed request. All values are zero for a frame that failed.
 */
#define V4L2_CID_HANTRO_H1_H264_ENC_STATS	(V4L2_CID_CODEC_HANTRO_BASE + 0)

/* Index of the sum of the macroblock QPs (the H1 counts it halved). */
#define HANTRO_H1_H264_ENC_STAT_QP_SUM		0
/* Index of the number of non-zero coefficients coded (in fours). */
#define HANTRO_H1_H264_ENC_STAT_RLC_COUNT	1
/* Index of the number of macroblocks under the MAD threshold. */
#define HANTRO_H1_H264_ENC_STAT_MAD_COUNT	2
/*
 * Index of the bits of macroblock data written when checkpoint @i, 0 to 9,
 * was reached (0 for a checkpoint the frame did not use).
 */
#define HANTRO_H1_H264_ENC_STAT_CHECKPOINT(i)	(3 + (i))
/* Number of values of V4L2_CID_HANTRO_H1_H264_ENC_STATS. */
#define HANTRO_H1_H264_ENC_STATS_LEN		13

#endif /* _UAPI_LINUX_HANTRO_MEDIA_H */

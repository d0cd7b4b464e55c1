// SPDX-License-Identifier: GPL-2.0-only
/*
 * Validation of the V4L2 stateless H.264 encode controls: what
 * std_validate_compound() does for the new compound types, and the subset of
 * the stateless H.264 SPS and PPS an encoder accepts.
 */

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/string.h>
#include <linux/types.h>
#include <media/v4l2-h264-enc.h>

#define V4L2_H264_ENCODE_FLAGS_ALL \
	(V4L2_H264_ENCODE_FLAG_FORCE_IDR | V4L2_H264_ENCODE_FLAG_SCENE_CHANGE | \
	 V4L2_H264_ENCODE_FLAG_REFERENCE_TS)

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
 * v4l2_h264_enc_validate_sps() - validate a stateless H.264 SPS for encoding
 * @sps: the control value
 *
 * An encoder codes progressive 8-bit 4:2:0 frames of the constrained
 * baseline, main or high profile with picture order count type 0 or 2.
 *
 * Return: 0 or -EINVAL.
 */
int v4l2_h264_enc_validate_sps(const struct v4l2_ctrl_h264_sps *sps)
{
	if (sps->profile_idc != 66 && sps->profile_idc != 77 &&
	    sps->profile_idc != 100)
		return -EINVAL;
	if (sps->chroma_format_idc != 1 || sps->bit_depth_luma_minus8 ||
	    sps->bit_depth_chroma_minus8)
		return -EINVAL;
	if (sps->seq_parameter_set_id > 31)
		return -EINVAL;
	if (sps->log2_max_frame_num_minus4 > 12)
		return -EINVAL;
	if (sps->pic_order_cnt_type != 0 && sps->pic_order_cnt_type != 2)
		return -EINVAL;
	if (sps->log2_max_pic_order_cnt_lsb_minus4 > 12)
		return -EINVAL;
	if (sps->max_num_ref_frames < 1 ||
	    sps->max_num_ref_frames > V4L2_H264_NUM_DPB_ENTRIES)
		return -EINVAL;
	if (!(sps->flags & V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY))
		return -EINVAL;
	if (sps->flags & (V4L2_H264_SPS_FLAG_SEPARATE_COLOUR_PLANE |
			  V4L2_H264_SPS_FLAG_QPPRIME_Y_ZERO_TRANSFORM_BYPASS |
			  V4L2_H264_SPS_FLAG_GAPS_IN_FRAME_NUM_VALUE_ALLOWED))
		return -EINVAL;
	if (sps->pic_width_in_mbs_minus1 > 255 ||
	    sps->pic_height_in_map_units_minus1 > 255)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_GPL(v4l2_h264_enc_validate_sps);

/**
 * v4l2_h264_enc_validate_pps() - validate a stateless H.264 PPS for encoding
 * @pps: the control value
 * @sps: the SPS it refers to, for the profile checks
 *
 * Return: 0 or -EINVAL.
 */
int v4l2_h264_enc_validate_pps(const struct v4l2_ctrl_h264_pps *pps,
			       const struct v4l2_ctrl_h264_sps *sps)
{
	if (pps->num_slice_groups_minus1 || pps->weighted_bipred_idc)
		return -EINVAL;
	if (pps->num_ref_idx_l0_default_active_minus1 > 31 ||
	    pps->num_ref_idx_l1_default_active_minus1 > 31)
		return -EINVAL;
	if (pps->pic_init_qp_minus26 < -26 || pps->pic_init_qp_minus26 > 25 ||
	    pps->pic_init_qs_minus26 < -26 || pps->pic_init_qs_minus26 > 25)
		return -EINVAL;
	if (pps->chroma_qp_index_offset < -12 || pps->chroma_qp_index_offset > 12 ||
	    pps->second_chroma_qp_index_offset < -12 ||
	    pps->second_chroma_qp_index_offset > 12)
		return -EINVAL;
	if (pps->flags & (V4L2_H264_PPS_FLAG_WEIGHTED_PRED |
			  V4L2_H264_PPS_FLAG_REDUNDANT_PIC_CNT_PRESENT |
			  V4L2_H264_PPS_FLAG_BOTTOM_FIELD_PIC_ORDER_IN_FRAME_PRESENT |
			  V4L2_H264_PPS_FLAG_SCALING_MATRIX_PRESENT))
		return -EINVAL;
	if (!(pps->flags & V4L2_H264_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT))
		return -EINVAL;
	if ((pps->flags & V4L2_H264_PPS_FLAG_ENTROPY_CODING_MODE) &&
	    sps->profile_idc == 66)
		return -EINVAL;
	if ((pps->flags & V4L2_H264_PPS_FLAG_TRANSFORM_8X8_MODE) &&
	    sps->profile_idc != 100)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_GPL(v4l2_h264_enc_validate_pps);

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

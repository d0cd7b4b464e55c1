/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hantro H1 registers of the H.264 encoder.
 *
 * Offsets and fields of the public H1 map (hantro_h1_regs.h) the H.264 mode
 * uses, under H1_H264_ names so this header stands beside the upstream one.
 * The slice-header controls at 0x300 are not in any public map; the software
 * model defines them (tools/testing/h1-model/SLICE_HEADER.md) and they must
 * be checked against the silicon's documentation before use on hardware.
 */
#ifndef HANTRO_H1_H264_REGS_H_
#define HANTRO_H1_H264_REGS_H_

#define H1_H264_REG_INTERRUPT			0x004
#define     H1_H264_IRQ_BIT			BIT(0)
#define     H1_H264_IRQ_DIS			BIT(1)
#define     H1_H264_IRQ_FRAME_RDY		BIT(2)
#define     H1_H264_IRQ_BUS_ERROR		BIT(3)
#define     H1_H264_IRQ_BUFFER_FULL		BIT(5)
#define     H1_H264_IRQ_TIMEOUT			BIT(6)
#define H1_H264_REG_ADDR_OUTPUT_STREAM		0x014
#define H1_H264_REG_ADDR_OUTPUT_CTRL		0x018
#define H1_H264_REG_ADDR_REF_LUMA		0x01c
#define H1_H264_REG_ADDR_REF_CHROMA		0x020
#define H1_H264_REG_ADDR_REC_LUMA		0x024
#define H1_H264_REG_ADDR_REC_CHROMA		0x028
#define H1_H264_REG_ADDR_IN_PLANE(i)		(0x02c + (i) * 4)
#define H1_H264_REG_ENC_CTRL			0x038
#define     H1_H264_ENC_CTRL_EN			BIT(0)
#define     H1_H264_ENC_CTRL_MODE_H264		(3 << 1)
#define     H1_H264_ENC_CTRL_PIC(x)		(((x) & 0x3) << 3)
#define     H1_H264_ENC_CTRL_PIC_INTER		H1_H264_ENC_CTRL_PIC(0)
#define     H1_H264_ENC_CTRL_PIC_INTRA		H1_H264_ENC_CTRL_PIC(1)
#define     H1_H264_ENC_CTRL_HEIGHT(x)		((x) << 10)
#define     H1_H264_ENC_CTRL_WIDTH(x)		((x) << 19)
#define     H1_H264_ENC_CTRL_NAL_MODE		BIT(29)
#define     H1_H264_ENC_CTRL_TIMEOUT_EN		BIT(31)
#define H1_H264_REG_IN_IMG_CTRL			0x03c
#define     H1_H264_IN_IMG_FMT(x)		((x) << 2)
#define     H1_H264_IN_FMT_YUV420P		0
#define     H1_H264_IN_FMT_YUV420SP		1
#define     H1_H264_IN_IMG_OVRFLB(x)		((x) << 6)
#define     H1_H264_IN_IMG_OVRFLR_D4(x)		((x) << 10)
#define     H1_H264_IN_IMG_ROW_LEN(x)		((x) << 12)
#define H1_H264_REG_ENC_CTRL0			0x040
#define     H1_H264_CTRL0_CONSTR_INTRA_PRED	BIT(0)
#define     H1_H264_CTRL0_IDR_PICID(x)		(((x) & 0xf) << 1)
#define     H1_H264_CTRL0_CHROMA_QP_OFFSET(x)	(((x) & 0x1f) << 13)
#define     H1_H264_CTRL0_SLICE_BETA(x)		(((x) & 0xf) << 18)
#define     H1_H264_CTRL0_SLICE_ALPHA(x)	(((x) & 0xf) << 22)
#define     H1_H264_CTRL0_INIT_QP(x)		(((x) & 0x3f) << 26)
#define H1_H264_REG_ENC_CTRL1			0x044
#define     H1_H264_CTRL1_FRAME_NUM(x)		((x) & 0xffff)
#define     H1_H264_CTRL1_PPS_ID(x)		(((x) & 0xff) << 24)
#define H1_H264_REG_ENC_CTRL2			0x048
#define     H1_H264_CTRL2_STREAM_MODE		BIT(16)
#define     H1_H264_CTRL2_INTER4X4_MODE		BIT(17)
#define     H1_H264_CTRL2_ENTROPY_CABAC		BIT(18)
#define     H1_H264_CTRL2_CABAC_INIT_IDC(x)	(((x) & 0x3) << 19)
#define     H1_H264_CTRL2_TRANS8X8		BIT(21)
#define     H1_H264_CTRL2_DISABLE_QUARTER_PIXMV	BIT(22)
#define     H1_H264_CTRL2_SLICE_SIZE(x)		(((x) & 0x7f) << 23)
#define     H1_H264_CTRL2_DEBLOCKING_FILTER_MODE(x) (((x) & 0x3) << 30)
#define H1_H264_REG_ENC_CTRL3			0x04c
#define     H1_H264_CTRL3_MUTIMV_EN		BIT(30)
#define H1_H264_REG_ENC_CTRL5			0x054
#define     H1_H264_CTRL5_COMPLETE_SLICES(x)	(((x) >> 16) & 0xff)
#define H1_H264_REG_STR_HDR_REM_MSB		0x058
#define H1_H264_REG_STR_HDR_REM_LSB		0x05c
#define H1_H264_REG_STR_BUF_LIMIT		0x060
/*
 * CABAC context table: for each SliceQP_Y 0..51, the initial context states
 * of I slices then those of P slices, H1_H264_CABAC_STRIDE bytes each.
 */
#define H1_H264_REG_ADDR_CABAC_TBL		0x0cc
#define H1_H264_CABAC_STRIDE			464
#define H1_H264_CABAC_TABLE_SIZE		(52 * 2 * H1_H264_CABAC_STRIDE)
#define H1_H264_REG_MAD_CTRL			0x064
#define     H1_H264_MAD_QP_SUM_DIV2(x)		((x) & 0x1fffff)
#define     H1_H264_MAD_THRESHOLD(x)		(((x) & 0x3f) << 22)
#define     H1_H264_MAD_QP_ADJUST(x)		(((x) & 0xf) << 28)
#define H1_H264_REG_QP_VAL			0x06c
#define     H1_H264_QP_VAL_CHECKPOINT_DISTAN(x)	((x) & 0xfff)
#define     H1_H264_QP_VAL_MIN(x)		(((x) & 0x3f) << 14)
#define     H1_H264_QP_VAL_MAX(x)		(((x) & 0x3f) << 20)
#define     H1_H264_QP_VAL_LUM(x)		(((x) & 0x3f) << 26)
/* Checkpoint targets and results, two per register, even index in bits 31:16. */
#define H1_H264_REG_CHECKPOINT(i)		(0x070 + ((i) / 2) * 4)
#define     H1_H264_CHECKPOINT_SHIFT(i)		(((i) & 1) ? 0 : 16)
/* Word-error thresholds, signed 16-bit, paired like the checkpoints. */
#define H1_H264_REG_CHKPT_WORD_ERR(i)		(0x084 + ((i) / 2) * 4)
#define H1_H264_REG_CHKPT_DELTA_QP		0x090
#define     H1_H264_CHKPT_DELTA_QP(i, x)	(((x) & 0xf) << ((i) * 4))
#define H1_H264_REG_RLC_CTRL			0x094
#define     H1_H264_RLC_SUM(x)			((x) & 0x7fffff)
#define     H1_H264_RLC_STR_OFFS(x)		(((x) & 0x3f) << 23)
#define H1_H264_REG_MB_CTRL			0x098
#define     H1_H264_MB_CNT_OUT(x)		((x) & 0xffff)
#define H1_H264_REG_SLICE_EXT			0x300
#define     H1_H264_EXT_NAL_REF_IDC(x)		((x) & 0x3)
#define     H1_H264_EXT_NON_IDR_INTRA		BIT(2)
#define     H1_H264_EXT_LOG2_MAX_FRAME_NUM_M4(x) (((x) & 0xf) << 4)
#define     H1_H264_EXT_POC_TYPE0		BIT(8)
#define     H1_H264_EXT_LOG2_MAX_POC_LSB_M4(x)	(((x) & 0xf) << 12)
#define     H1_H264_EXT_MARK_LONG_TERM		BIT(16)
#define H1_H264_REG_POC				0x304
#define H1_H264_REG_REF_MOD			0x308
#define     H1_H264_REF_MOD_IDC_PLUS1(x)	((x) & 0x3)
#define     H1_H264_REF_MOD_VALUE(x)		(((x) & 0xffff) << 16)

#endif /* HANTRO_H1_H264_REGS_H_ */

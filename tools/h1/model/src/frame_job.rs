//! The registers of one frame, decoded and checked before the core reads
//! memory: what to code, from which input, with which slice header.

use crate::cabac::NUM_CONTEXTS;
use crate::deblock::DeblockParams;
use crate::mb::FrameParams;
use crate::memory::Memory;
use crate::picture::InputFormat;
use crate::ratectl;
use crate::regs::*;
use crate::rgb::RgbInput;
use crate::simd::Dsp;
use crate::slice::SliceHeader;

/// Largest picture the model codes, in macroblocks per side (the H1's 4080 samples).
pub const MAX_MBS_PER_SIDE: u32 = 255;

/// One frame as the registers describe it.
pub struct FrameJob {
    pub params: FrameParams,
    /// The slice header of every slice but for first_mb_in_slice.
    pub header: SliceHeader,
    pub fmt: InputFormat,
    /// Bus addresses of the input planes.
    pub input: [u32; 3],
    /// Input row length in pixels.
    pub row_len: usize,
    /// Picture size in samples and in macroblocks.
    pub width: usize,
    pub height: usize,
    pub mb_w: usize,
    pub mb_h: usize,
    /// Start codes before each NAL unit (byte stream format, Annex B).
    pub byte_stream: bool,
    pub cabac: bool,
}

impl FrameJob {
    /// Decodes the registers, for an H1 that runs the functions `dsp`; the
    /// interrupt status of a configuration error otherwise.
    pub fn from_regs(regs: &Registers, dsp: &'static Dsp) -> Result<Self, u32> {
        let ctrl = regs.read(ENC_CTRL);
        if (ctrl >> ENC_CTRL_MODE_SHIFT) & 3 != ENC_MODE_H264 {
            return Err(IRQ_CONFIG_ERROR);
        }
        // Other swaps would scramble every word the core reads or writes: the
        // model refuses them rather than code garbage. Only RGB input, whose
        // pixel words the swaps and MSB positions describe, takes others.
        let axi = regs.read(AXI_CTRL);
        let output_swaps = AXI_OUTPUT_SWAP8 | AXI_OUTPUT_SWAP16 | AXI_OUTPUT_SWAP32;
        if axi & output_swaps != output_swaps {
            return Err(IRQ_CONFIG_ERROR);
        }
        let mb_w = regs.field(ENC_CTRL, ENC_CTRL_WIDTH_SHIFT, 9) as usize;
        let mb_h = regs.field(ENC_CTRL, ENC_CTRL_HEIGHT_SHIFT, 9) as usize;
        if mb_w == 0
            || mb_h == 0
            || mb_w > MAX_MBS_PER_SIDE as usize
            || mb_h > MAX_MBS_PER_SIDE as usize
        {
            return Err(IRQ_CONFIG_ERROR);
        }
        let intra = regs.field(ENC_CTRL, ENC_CTRL_PIC_SHIFT, 2) == PIC_INTRA;
        let fmt = match regs.field(IN_IMG_CTRL, IN_IMG_FMT_SHIFT, 4) {
            IN_FMT_YUV420P => InputFormat::I420,
            IN_FMT_YUV420SP => InputFormat::Nv12,
            IN_FMT_YUYV422 => InputFormat::Yuyv,
            IN_FMT_UYVY422 => InputFormat::Uyvy,
            rgb => {
                let coeff = [regs.read(RGB_YUV_COEFF0), regs.read(RGB_YUV_COEFF1)];
                let mask = regs.read(RGB_MASK_MSB);
                let input = RgbInput::from_regs(rgb, axi, coeff, mask).ok_or(IRQ_CONFIG_ERROR)?;
                InputFormat::Rgb(input)
            }
        };
        if !matches!(fmt, InputFormat::Rgb(_)) && axi & AXI_CPU_BYTE_ORDER != AXI_CPU_BYTE_ORDER {
            return Err(IRQ_CONFIG_ERROR);
        }
        let row_len = regs.field(IN_IMG_CTRL, IN_IMG_ROW_LEN_SHIFT, 14) as usize;
        let over_r = regs.field(IN_IMG_CTRL, IN_IMG_OVRFLR_D4_SHIFT, 2) as usize * 4;
        let over_b = regs.field(IN_IMG_CTRL, IN_IMG_OVRFLB_SHIFT, 4) as usize;
        let width = mb_w * 16 - over_r;
        let height = mb_h * 16 - over_b;
        if row_len < width || height == 0 {
            return Err(IRQ_CONFIG_ERROR);
        }
        let qp = regs.field(QP_VAL, QP_VAL_LUM_SHIFT, 6) as i32;
        let qp_min = regs.field(QP_VAL, QP_VAL_MIN_SHIFT, 6) as i32;
        let qp_max = regs.field(QP_VAL, QP_VAL_MAX_SHIFT, 6) as i32;
        let init_qp = regs.field(ENC_CTRL0, CTRL0_INIT_QP_SHIFT, 6) as i32;
        if qp > 51 || qp_max > 51 || qp_min > qp_max || init_qp > 51 {
            return Err(IRQ_CONFIG_ERROR);
        }
        let range = regs.read(H264_SEARCH_RANGE);
        let deblock_idc = regs.field(ENC_CTRL2, CTRL2_DEBLOCKING_FILTER_MODE_SHIFT, 2);
        if deblock_idc > 2 {
            return Err(IRQ_CONFIG_ERROR);
        }
        let alpha = regs.sfield(ENC_CTRL0, CTRL0_SLICE_ALPHA_SHIFT, 4);
        let beta = regs.sfield(ENC_CTRL0, CTRL0_SLICE_BETA_SHIFT, 4);
        if !(-6..=6).contains(&alpha) || !(-6..=6).contains(&beta) {
            return Err(IRQ_CONFIG_ERROR);
        }
        let chroma_qp_offset = regs.sfield(ENC_CTRL0, CTRL0_CHROMA_QP_OFFSET_SHIFT, 5);
        let params = FrameParams {
            intra,
            qp,
            qp_min,
            qp_max,
            chroma_qp_offset,
            constrained_intra_pred: regs.read(ENC_CTRL0) & CTRL0_CONSTR_INTRA_PRED != 0,
            slice_rows: regs.field(ENC_CTRL2, CTRL2_SLICE_SIZE_SHIFT, 7) as usize,
            disable_qpel: regs.read(ENC_CTRL2) & CTRL2_DISABLE_QUARTER_PIXMV != 0,
            multi_mv: regs.read(ENC_CTRL3) & CTRL3_MUTIMV_EN != 0,
            inter4x4: regs.read(ENC_CTRL3) & CTRL3_MUTIMV_EN != 0
                && regs.read(ENC_CTRL2) & CTRL2_INTER4X4_MODE != 0,
            search_range: [
                match range & 0xffff {
                    0 => 32,
                    r => r as i32,
                },
                match range >> 16 {
                    0 => 16,
                    r => r as i32,
                },
            ],
            inframe: ratectl::InFrameRc::from_regs(regs),
            cabac_init: None,
            transform_8x8: regs.read(ENC_CTRL2) & CTRL2_TRANS8X8 != 0,
            deblock: DeblockParams {
                idc: deblock_idc,
                offset_a: alpha * 2,
                offset_b: beta * 2,
                chroma_qp_offset,
            },
            dsp,
        };
        let cabac_init_idc = regs.field(ENC_CTRL2, CTRL2_CABAC_INIT_IDC_SHIFT, 2);
        let cabac = regs.read(ENC_CTRL2) & CTRL2_ENTROPY_CABAC != 0;
        if cabac && cabac_init_idc > 2 {
            return Err(IRQ_CONFIG_ERROR);
        }
        let ext = regs.read(H264_SLICE_EXT);
        let log2_max_frame_num = ((ext >> EXT_LOG2_MAX_FRAME_NUM_M4_SHIFT) & 0xf) + 4;
        if log2_max_frame_num > 16 {
            return Err(IRQ_CONFIG_ERROR);
        }
        let ref_mod = regs.read(H264_REF_MOD);
        let header = SliceHeader {
            nal_ref_idc: ext & EXT_NAL_REF_IDC_MASK,
            idr: intra && ext & EXT_NON_IDR_INTRA == 0,
            intra,
            first_mb_in_slice: 0,
            pps_id: regs.field(ENC_CTRL1, CTRL1_PPS_ID_SHIFT, 8),
            frame_num: regs.read(ENC_CTRL1) & CTRL1_FRAME_NUM_MASK,
            log2_max_frame_num,
            idr_pic_id: regs.field(ENC_CTRL0, CTRL0_IDR_PICID_SHIFT, 4),
            poc_lsb: (ext & EXT_POC_TYPE0 != 0).then(|| {
                (
                    regs.read(H264_POC) & 0xffff,
                    ((ext >> EXT_LOG2_MAX_POC_LSB_M4_SHIFT) & 0xf) + 4,
                )
            }),
            num_ref_idx_override: None,
            ref_mod: match ref_mod & REF_MOD_IDC_PLUS1_MASK {
                0 => None,
                idc => Some((idc - 1, ref_mod >> REF_MOD_VALUE_SHIFT)),
            },
            mark_long_term: ext & EXT_MARK_LONG_TERM != 0,
            cabac_init_idc: (cabac && !intra).then_some(cabac_init_idc),
            slice_qp_delta: qp - init_qp,
            disable_deblocking_filter_idc: deblock_idc,
            alpha_div2: alpha,
            beta_div2: beta,
        };
        if header.idr && header.nal_ref_idc == 0 {
            return Err(IRQ_CONFIG_ERROR);
        }

        Ok(FrameJob {
            params,
            header,
            fmt,
            input: [
                regs.read(ADDR_IN_PLANE_0),
                regs.read(ADDR_IN_PLANE_1),
                regs.read(ADDR_IN_PLANE_2),
            ],
            row_len,
            width,
            height,
            mb_w,
            mb_h,
            byte_stream: regs.read(ENC_CTRL2) & CTRL2_STREAM_MODE != 0,
            cabac,
        })
    }
}

/// The CABAC context states of the slice QP and slice type, from the
/// driver's table in memory (9.3.1.1).
pub fn load_cabac_init(
    regs: &Registers,
    mem: &mut dyn Memory,
    qp: i32,
    intra: bool,
) -> Result<[u8; NUM_CONTEXTS], u32> {
    let mut t = [0u8; NUM_CONTEXTS];
    let off = (qp as usize * 2 + usize::from(!intra)) * CABAC_TABLE_STRIDE;
    mem.read(regs.read(ADDR_CABAC_TBL).wrapping_add(off as u32), &mut t)
        .map_err(|_| IRQ_BUS_ERROR)?;
    // 9.3.1.1 never gives pStateIdx 63 (end_of_slice_flag, ctxIdx 276,
    // is not read from the table): such a table is not one a driver computed.
    if t.iter().enumerate().any(|(i, &v)| i != 276 && v >> 1 > 62) {
        return Err(IRQ_CONFIG_ERROR);
    }
    Ok(t)
}

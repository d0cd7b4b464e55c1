//! The H1 register file: offsets and fields the model decodes.
//!
//! Offsets and field positions are those of the driver's register map,
//! `drivers/media/platform/verisilicon/hantro_h1_regs.h` (the public H1 map of
//! Linux plus the H.264 fields); the H.264 slice-header controls that no public
//! map defines live in an extension block at 0x300 (see `SLICE_HEADER.md`
//! beside this crate). Each constant names the define of that header it
//! stands for, and the unit test `regs::c_header` evaluates those defines and
//! checks every constant against them; the few the header has no define for
//! say why.

#[cfg(test)]
mod c_header;
#[cfg(test)]
mod check;
#[cfg(test)]
use check::Check::*;

/// Defines the constants, each with what `hantro_h1_regs.h` must say of it
/// (see [`check::Check`]), and, for the test, the list of them all.
macro_rules! registers {
    ($($(#[$meta:meta])* pub const $name:ident: $ty:ty = $value:expr => $($check:expr),+;)*) => {
        $($(#[$meta])* pub const $name: $ty = $value;)*

        /// Every constant above: its name, its value and its checks.
        #[cfg(test)]
        const C_HEADER: &[(&str, u64, &[check::Check])] =
            &[$((stringify!($name), $name as u64, &[$($check),+])),*];
    };
}

registers! {
    /// Number of 32-bit registers the model implements (0x000..0x3ff).
    pub const NUM_REGS: usize = 256 => Model("the size of the model's register file");

    pub const INTERRUPT: usize = 0x004 => Is("H1_REG_INTERRUPT");
    pub const IRQ_BIT: u32 = 1 << 0 => Is("H1_REG_INTERRUPT_BIT");
    pub const IRQ_DIS: u32 = 1 << 1 => Is("H1_REG_INTERRUPT_DIS_BIT");
    pub const IRQ_FRAME_RDY: u32 = 1 << 2 => Is("H1_REG_INTERRUPT_FRAME_RDY");
    pub const IRQ_BUS_ERROR: u32 = 1 << 3 => Is("H1_REG_INTERRUPT_BUS_ERROR");
    pub const IRQ_BUFFER_FULL: u32 = 1 << 5 => Is("H1_REG_INTERRUPT_BUFFER_FULL");
    pub const IRQ_TIMEOUT: u32 = 1 << 6 => Is("H1_REG_INTERRUPT_TIMEOUT");
    /// Model-specific: a register combination the model cannot code (an invalid configuration).
    pub const IRQ_CONFIG_ERROR: u32 = 1 << 7 => Model("the model's own status, no silicon has it");

    pub const AXI_CTRL: usize = 0x008 => Is("H1_REG_AXI_CTRL");
    pub const AXI_OUTPUT_SWAP16: u32 = 1 << 15 => Is("H1_REG_AXI_CTRL_OUTPUT_SWAP16");
    pub const AXI_INPUT_SWAP16: u32 = 1 << 14 => Is("H1_REG_AXI_CTRL_INPUT_SWAP16");
    pub const AXI_OUTPUT_SWAP32: u32 = 1 << 3 => Is("H1_REG_AXI_CTRL_OUTPUT_SWAP32");
    pub const AXI_INPUT_SWAP32: u32 = 1 << 2 => Is("H1_REG_AXI_CTRL_INPUT_SWAP32");
    pub const AXI_OUTPUT_SWAP8: u32 = 1 << 1 => Is("H1_REG_AXI_CTRL_OUTPUT_SWAP8");
    pub const AXI_INPUT_SWAP8: u32 = 1 << 0 => Is("H1_REG_AXI_CTRL_INPUT_SWAP8");
    /// Model-specific: every swap of both directions, the byte order of a
    /// little-endian CPU's buffers, the only one the model reads and writes.
    pub const AXI_CPU_BYTE_ORDER: u32 = AXI_OUTPUT_SWAP16 | AXI_INPUT_SWAP16 | AXI_OUTPUT_SWAP32
        | AXI_INPUT_SWAP32 | AXI_OUTPUT_SWAP8 | AXI_INPUT_SWAP8
        => Model("the swaps the JPEG encoder and the H.264 backend program");

    pub const ADDR_OUTPUT_STREAM: usize = 0x014 => Is("H1_REG_ADDR_OUTPUT_STREAM");
    pub const ADDR_OUTPUT_CTRL: usize = 0x018 => Is("H1_REG_ADDR_OUTPUT_CTRL");
    pub const ADDR_REF_LUMA: usize = 0x01c => Is("H1_REG_ADDR_REF_LUMA");
    pub const ADDR_REF_CHROMA: usize = 0x020 => Is("H1_REG_ADDR_REF_CHROMA");
    pub const ADDR_REC_LUMA: usize = 0x024 => Is("H1_REG_ADDR_REC_LUMA");
    pub const ADDR_REC_CHROMA: usize = 0x028 => Is("H1_REG_ADDR_REC_CHROMA");
    pub const ADDR_IN_PLANE_0: usize = 0x02c => Is("H1_REG_ADDR_IN_PLANE_0");
    pub const ADDR_IN_PLANE_1: usize = 0x030 => Is("H1_REG_ADDR_IN_PLANE_1");
    pub const ADDR_IN_PLANE_2: usize = 0x034 => Is("H1_REG_ADDR_IN_PLANE_2");

    pub const ENC_CTRL: usize = 0x038 => Is("H1_REG_ENC_CTRL");
    pub const ENC_CTRL_EN: u32 = 1 << 0 => Is("H1_REG_ENC_CTRL_EN_BIT");
    pub const ENC_CTRL_MODE_SHIFT: u32 = 1 => LowBit("H1_REG_ENC_CTRL_ENC_MODE_VP8");
    pub const ENC_MODE_H264: u32 = 3
        => ValueAt("H1_REG_ENC_CTRL_ENC_MODE_H264", ENC_CTRL_MODE_SHIFT);
    pub const ENC_CTRL_PIC_SHIFT: u32 = 3 => LowBit("H1_REG_ENC_PIC_INTRA");
    pub const PIC_INTER: u32 = 0 => ValueAt("H1_REG_ENC_PIC_INTER", ENC_CTRL_PIC_SHIFT);
    pub const PIC_INTRA: u32 = 1 => ValueAt("H1_REG_ENC_PIC_INTRA", ENC_CTRL_PIC_SHIFT);
    pub const ENC_CTRL_HEIGHT_SHIFT: u32 = 10 => Shift("H1_REG_ENC_CTRL_HEIGHT");
    pub const ENC_CTRL_WIDTH_SHIFT: u32 = 19 => Shift("H1_REG_ENC_CTRL_WIDTH");
    pub const ENC_CTRL_NAL_MODE: u32 = 1 << 29 => Is("H1_REG_ENC_CTRL_NAL_MODE_BIT");
    pub const ENC_CTRL_TIMEOUT_EN: u32 = 1 << 31 => Is("H1_REG_ENC_CTRL_TIMEOUT_EN");

    pub const IN_IMG_CTRL: usize = 0x03c => Is("H1_REG_IN_IMG_CTRL");
    pub const IN_IMG_FMT_SHIFT: u32 = 2 => Shift("H1_REG_IN_IMG_CTRL_FMT");
    pub const IN_FMT_YUV420P: u32 = 0
        => Model("ROCKCHIP_VPU_ENC_FMT_YUV420P of enum hantro_enc_fmt, hantro_hw.h");
    pub const IN_FMT_YUV420SP: u32 = 1
        => Model("ROCKCHIP_VPU_ENC_FMT_YUV420SP of enum hantro_enc_fmt, hantro_hw.h");
    pub const IN_FMT_YUYV422: u32 = 2
        => Model("ROCKCHIP_VPU_ENC_FMT_YUYV422 of enum hantro_enc_fmt, hantro_hw.h");
    pub const IN_FMT_UYVY422: u32 = 3
        => Model("ROCKCHIP_VPU_ENC_FMT_UYVY422 of enum hantro_enc_fmt, hantro_hw.h");
    /// The RGB input formats: the series adds them to `enum hantro_enc_fmt`
    /// with the codes of Rockchip MPP's `enum VepuFormat_e`
    /// (`mpp/hal/vpu/common/vepu_common.h`), the user-space driver of the
    /// same H1 on RK3288.
    pub const IN_FMT_RGB565: u32 = 4
        => Model("ROCKCHIP_VPU_ENC_FMT_RGB565 of enum hantro_enc_fmt, hantro_hw.h");
    pub const IN_FMT_RGB555: u32 = 5
        => Model("ROCKCHIP_VPU_ENC_FMT_RGB555 of enum hantro_enc_fmt, hantro_hw.h");
    pub const IN_FMT_RGB444: u32 = 6
        => Model("ROCKCHIP_VPU_ENC_FMT_RGB444 of enum hantro_enc_fmt, hantro_hw.h");
    pub const IN_FMT_RGB888: u32 = 7
        => Model("ROCKCHIP_VPU_ENC_FMT_RGB888 of enum hantro_enc_fmt, hantro_hw.h");
    pub const IN_FMT_RGB101010: u32 = 8
        => Model("ROCKCHIP_VPU_ENC_FMT_RGB101010 of enum hantro_enc_fmt, hantro_hw.h");
    pub const IN_IMG_OVRFLB_SHIFT: u32 = 6 => Shift("H1_REG_IN_IMG_CTRL_OVRFLB");
    pub const IN_IMG_OVRFLR_D4_SHIFT: u32 = 10 => Shift("H1_REG_IN_IMG_CTRL_OVRFLR_D4");
    pub const IN_IMG_ROW_LEN_SHIFT: u32 = 12 => Shift("H1_REG_IN_IMG_CTRL_ROW_LEN");

    pub const ENC_CTRL0: usize = 0x040 => Is("H1_REG_ENC_CTRL0");
    pub const CTRL0_CONSTR_INTRA_PRED: u32 = 1 << 0 => Is("H1_REG_ENC_CTRL0_CONSTR_INTRA_PRED");
    pub const CTRL0_IDR_PICID_SHIFT: u32 = 1 => Shift("H1_REG_ENC_CTRL0_IDR_PICID");
    pub const CTRL0_CHROMA_QP_OFFSET_SHIFT: u32 = 13
        => Shift("H1_REG_ENC_CTRL0_CHROMA_QP_OFFSET"),
        LowBit("H1_REG_ENC_CTRL0_CHROMA_QP_OFFSET_MASK");
    pub const CTRL0_SLICE_BETA_SHIFT: u32 = 18
        => Shift("H1_REG_ENC_CTRL0_SLICE_BETA"),
        LowBit("H1_REG_ENC_CTRL0_SLICE_BETA_MASK");
    pub const CTRL0_SLICE_ALPHA_SHIFT: u32 = 22
        => Shift("H1_REG_ENC_CTRL0_SLICE_ALPHA"),
        LowBit("H1_REG_ENC_CTRL0_SLICE_ALPHA_MASK");
    pub const CTRL0_INIT_QP_SHIFT: u32 = 26 => Shift("H1_REG_ENC_CTRL0_INIT_QP");

    pub const ENC_CTRL1: usize = 0x044 => Is("H1_REG_ENC_CTRL1");
    pub const CTRL1_FRAME_NUM_MASK: u32 = 0xffff => Unmasked("H1_REG_ENC_CTRL1_FRAME_NUM");
    pub const CTRL1_INTRA_PRED_MODE_SHIFT: u32 = 16 => Shift("H1_REG_ENC_CTRL1_INTRA_PRED_MODE");
    pub const CTRL1_PPS_ID_SHIFT: u32 = 24 => Shift("H1_REG_ENC_CTRL1_PPS_ID");

    pub const ENC_CTRL2: usize = 0x048 => Is("H1_REG_ENC_CTRL2");
    pub const CTRL2_INTRA16X16_MODE_MASK: u32 = 0xffff
        => Unmasked("H1_REG_ENC_CTRL2_INTRA16X16_MODE");
    pub const CTRL2_STREAM_MODE: u32 = 1 << 16 => Is("H1_REG_ENC_CTRL2_H264_STREAM_MODE");
    pub const CTRL2_INTER4X4_MODE: u32 = 1 << 17 => Is("H1_REG_ENC_CTRL2_H264_INTER4X4_MODE");
    pub const CTRL2_ENTROPY_CABAC: u32 = 1 << 18 => Is("H1_REG_ENC_CTRL2_ENTROPY_CODING_MODE");
    pub const CTRL2_CABAC_INIT_IDC_SHIFT: u32 = 19 => Shift("H1_REG_ENC_CTRL2_CABAC_INIT_IDC");
    pub const CTRL2_TRANS8X8: u32 = 1 << 21 => Is("H1_REG_ENC_CTRL2_TRANS8X8_MODE_EN");
    pub const CTRL2_DISABLE_QUARTER_PIXMV: u32 = 1 << 22
        => Is("H1_REG_ENC_CTRL2_DISABLE_QUARTER_PIXMV");
    pub const CTRL2_SLICE_SIZE_SHIFT: u32 = 23
        => Shift("H1_REG_ENC_CTRL2_H264_SLICE_SIZE"),
        LowBit("H1_REG_ENC_CTRL2_H264_SLICE_SIZE_MASK");
    pub const CTRL2_DEBLOCKING_FILTER_MODE_SHIFT: u32 = 30
        => Shift("H1_REG_ENC_CTRL2_DEBLOCKING_FILTER_MODE");

    pub const ENC_CTRL3: usize = 0x04c => Is("H1_REG_ENC_CTRL3");
    pub const CTRL3_MUTIMV_EN: u32 = 1 << 30 => Is("H1_REG_ENC_CTRL3_MUTIMV_EN");

    pub const ENC_CTRL5: usize = 0x054 => Is("H1_REG_ENC_CTRL5");
    pub const CTRL5_COMPLETE_SLICES_SHIFT: u32 = 16
        => Shift("H1_REG_ENC_CTRL5_COMPLETE_SLICES"),
        LowBit("H1_REG_ENC_CTRL5_COMPLETE_SLICES_MASK");

    pub const STR_HDR_REM_MSB: usize = 0x058 => Is("H1_REG_STR_HDR_REM_MSB");
    pub const STR_HDR_REM_LSB: usize = 0x05c => Is("H1_REG_STR_HDR_REM_LSB");
    pub const STR_BUF_LIMIT: usize = 0x060 => Is("H1_REG_STR_BUF_LIMIT");

    /// CABAC context table: per SliceQP_Y 0..51, the initial states of I slices then
    /// those of P slices (for the programmed cabac_init_idc), each
    /// [`CABAC_TABLE_STRIDE`] bytes of `pStateIdx << 1 | valMPS` per ctxIdx.
    pub const ADDR_CABAC_TBL: usize = 0x0cc => Is("H1_REG_ADDR_CABAC_TBL");
    pub const CABAC_TABLE_STRIDE: usize = 464 => Is("H1_REG_CABAC_TBL_STRIDE");
    /// Bytes of the whole table.
    pub const CABAC_TABLE_SIZE: usize = 52 * 2 * CABAC_TABLE_STRIDE => Is("H1_REG_CABAC_TBL_SIZE");

    /// RGB to YCbCr conversion: coefficients A (low half) and B (high half)
    /// of Y = A R + B G + C B, in units of 2^-16. Linux has the offsets; the
    /// fields are those of Rockchip MPP's `hal_h264e_vepu1_reg_tbl.h`
    /// (`VEPU_REG_RGB2YUV_CONVERSION_COEF1..` and `VEPU_REG_RGB_MASK_MSB`).
    pub const RGB_YUV_COEFF0: usize = 0x0d4 => Is("H1_REG_RGB_YUV_COEFF(0)");
    /// Coefficients C (low half) and E (high half): Cb = E (B - Y) + 128.
    pub const RGB_YUV_COEFF1: usize = 0x0d8 => Is("H1_REG_RGB_YUV_COEFF(1)");
    /// Coefficient F (low half, Cr = F (R - Y) + 128) and the bit positions of
    /// the most significant bits of R, G and B in the pixel word.
    pub const RGB_MASK_MSB: usize = 0x0dc => Is("H1_REG_RGB_MASK_MSB");
    pub const RGB_R_MSB_SHIFT: u32 = 16 => Shift("H1_REG_RGB_MASK_MSB_R");
    pub const RGB_G_MSB_SHIFT: u32 = 21 => Shift("H1_REG_RGB_MASK_MSB_G");
    pub const RGB_B_MSB_SHIFT: u32 = 26 => Shift("H1_REG_RGB_MASK_MSB_B");

    pub const MAD_CTRL: usize = 0x064 => Is("H1_REG_MAD_CTRL");
    pub const MAD_QP_SUM_DIV2_MASK: u32 = 0x1f_ffff
        => Is("H1_REG_MAD_CTRL_QP_SUM_DIV2_MASK"),
        Unmasked("H1_REG_MAD_CTRL_QP_SUM_DIV2");
    pub const MAD_THRESHOLD_SHIFT: u32 = 22 => Shift("H1_REG_MAD_CTRL_MAD_THRESHOLD");
    pub const MAD_QP_ADJUST_SHIFT: u32 = 28 => Shift("H1_REG_MAD_CTRL_QP_ADJUST");

    pub const QP_VAL: usize = 0x06c => Is("H1_REG_QP_VAL");
    pub const QP_VAL_CHECKPOINT_DISTAN_MASK: u32 = 0xfff
        => Unmasked("H1_REG_QP_VAL_CHECKPOINT_DISTAN");
    pub const QP_VAL_MIN_SHIFT: u32 = 14 => Shift("H1_REG_QP_VAL_MIN");
    pub const QP_VAL_MAX_SHIFT: u32 = 20 => Shift("H1_REG_QP_VAL_MAX");
    pub const QP_VAL_LUM_SHIFT: u32 = 26 => Shift("H1_REG_QP_VAL_LUM");

    /// CHECKPOINT(i): checkpoint targets and results, two per register (even index in the upper half).
    pub const CHECKPOINT_BASE: usize = 0x070 => Is("H1_REG_CHECKPOINT(0)");
    /// CHKPT_WORD_ERR(i): word-error thresholds, two per register, signed 16-bit.
    pub const CHKPT_WORD_ERR_BASE: usize = 0x084 => Is("H1_REG_CHKPT_WORD_ERR(0)");
    /// CHKPT_DELTA_QP: seven signed 4-bit QP deltas.
    pub const CHKPT_DELTA_QP: usize = 0x090 => Is("H1_REG_CHKPT_DELTA_QP");

    pub const RLC_CTRL: usize = 0x094 => Is("H1_REG_RLC_CTRL");
    pub const RLC_SUM_MASK: u32 = 0x7f_ffff
        => Is("H1_REG_RLC_CTRL_RLC_SUM_MASK"),
        Unmasked("H1_REG_RLC_CTRL_RLC_SUM");
    pub const RLC_STR_OFFS_SHIFT: u32 = 23
        => Is("H1_REG_RLC_CTRL_STR_OFFS_SHIFT"),
        LowBit("H1_REG_RLC_CTRL_STR_OFFS_MASK");

    pub const MB_CTRL: usize = 0x098 => Is("H1_REG_MB_CTRL");
    pub const MB_CNT_OUT_MASK: u32 = 0xffff => Mask("H1_REG_MB_CNT_OUT");

    /// Extension block: H.264 slice-header controls (model-defined, see SLICE_HEADER.md).
    pub const H264_SLICE_EXT: usize = 0x300 => Is("H1_REG_H264_EXT");
    pub const EXT_NAL_REF_IDC_MASK: u32 = 0x3 => Mask("H1_REG_H264_EXT_NAL_REF_IDC");
    pub const EXT_NON_IDR_INTRA: u32 = 1 << 2 => Is("H1_REG_H264_EXT_NON_IDR_INTRA");
    pub const EXT_LOG2_MAX_FRAME_NUM_M4_SHIFT: u32 = 4
        => Shift("H1_REG_H264_EXT_LOG2_MAX_FRAME_NUM_M4");
    pub const EXT_POC_TYPE0: u32 = 1 << 8 => Is("H1_REG_H264_EXT_POC_TYPE0");
    pub const EXT_LOG2_MAX_POC_LSB_M4_SHIFT: u32 = 12
        => Shift("H1_REG_H264_EXT_LOG2_MAX_POC_LSB_M4");
    pub const EXT_MARK_LONG_TERM: u32 = 1 << 16 => Is("H1_REG_H264_EXT_MARK_LONG_TERM");
    pub const H264_POC: usize = 0x304 => Is("H1_REG_H264_POC");
    pub const H264_REF_MOD: usize = 0x308 => Is("H1_REG_H264_REF_MOD");
    pub const REF_MOD_IDC_PLUS1_MASK: u32 = 0x3 => Mask("H1_REG_H264_REF_MOD_IDC_PLUS1");
    pub const REF_MOD_VALUE_SHIFT: u32 = 16 => Shift("H1_REG_H264_REF_MOD_VALUE");

    /// Search range of the integer motion search (samples): horizontal, vertical.
    pub const H264_SEARCH_RANGE: usize = 0x30c
        => Model("the driver does not program it: 0 is the model's default range");
}

/// The register file of one H1 core.
#[derive(Clone)]
pub struct Registers(pub [u32; NUM_REGS]);

impl Default for Registers {
    fn default() -> Self {
        Registers([0; NUM_REGS])
    }
}

impl Registers {
    /// Reads the register at byte offset `off`.
    pub fn read(&self, off: usize) -> u32 {
        self.0.get(off / 4).copied().unwrap_or(0)
    }

    /// Writes the register at byte offset `off`; offsets outside the file are ignored.
    pub fn write(&mut self, off: usize, v: u32) {
        if let Some(r) = self.0.get_mut(off / 4) {
            *r = v;
        }
    }

    /// Reads a field of `width` bits at `shift`.
    pub fn field(&self, off: usize, shift: u32, width: u32) -> u32 {
        (self.read(off) >> shift) & ((1u32 << width) - 1)
    }

    /// Reads a signed two's complement field.
    pub fn sfield(&self, off: usize, shift: u32, width: u32) -> i32 {
        let v = self.field(off, shift, width) as i32;
        (v << (32 - width)) >> (32 - width)
    }
}

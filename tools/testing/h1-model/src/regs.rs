//! The H1 register file: offsets and fields the model decodes.
//!
//! Offsets and field positions follow the public `hantro_h1_regs.h`; the H.264
//! slice-header controls that no public map defines live in an extension block
//! at 0x300 (see `SLICE_HEADER.md` beside this crate). The C driver's header
//! `drivers/media/platform/verisilicon/hantro_h1_h264_regs.h` defines the same
//! values.

/// Number of 32-bit registers the model implements (0x000..0x3ff).
pub const NUM_REGS: usize = 256;

pub const INTERRUPT: usize = 0x004;
pub const IRQ_BIT: u32 = 1 << 0;
pub const IRQ_DIS: u32 = 1 << 1;
pub const IRQ_FRAME_RDY: u32 = 1 << 2;
pub const IRQ_BUS_ERROR: u32 = 1 << 3;
pub const IRQ_BUFFER_FULL: u32 = 1 << 5;
pub const IRQ_TIMEOUT: u32 = 1 << 6;
/// Model-specific: a register combination the model cannot code (an invalid configuration).
pub const IRQ_CONFIG_ERROR: u32 = 1 << 7;

pub const ADDR_OUTPUT_STREAM: usize = 0x014;
pub const ADDR_OUTPUT_CTRL: usize = 0x018;
pub const ADDR_REF_LUMA: usize = 0x01c;
pub const ADDR_REF_CHROMA: usize = 0x020;
pub const ADDR_REC_LUMA: usize = 0x024;
pub const ADDR_REC_CHROMA: usize = 0x028;
pub const ADDR_IN_PLANE_0: usize = 0x02c;
pub const ADDR_IN_PLANE_1: usize = 0x030;
pub const ADDR_IN_PLANE_2: usize = 0x034;

pub const ENC_CTRL: usize = 0x038;
pub const ENC_CTRL_EN: u32 = 1 << 0;
pub const ENC_CTRL_MODE_SHIFT: u32 = 1;
pub const ENC_MODE_H264: u32 = 3;
pub const ENC_CTRL_PIC_SHIFT: u32 = 3;
pub const PIC_INTER: u32 = 0;
pub const PIC_INTRA: u32 = 1;
pub const ENC_CTRL_HEIGHT_SHIFT: u32 = 10;
pub const ENC_CTRL_WIDTH_SHIFT: u32 = 19;
pub const ENC_CTRL_NAL_MODE: u32 = 1 << 29;
pub const ENC_CTRL_TIMEOUT_EN: u32 = 1 << 31;

pub const IN_IMG_CTRL: usize = 0x03c;
pub const IN_IMG_FMT_SHIFT: u32 = 2;
pub const IN_FMT_YUV420P: u32 = 0;
pub const IN_FMT_YUV420SP: u32 = 1;
pub const IN_IMG_OVRFLB_SHIFT: u32 = 6;
pub const IN_IMG_OVRFLR_D4_SHIFT: u32 = 10;
pub const IN_IMG_ROW_LEN_SHIFT: u32 = 12;

pub const ENC_CTRL0: usize = 0x040;
pub const CTRL0_CONSTR_INTRA_PRED: u32 = 1 << 0;
pub const CTRL0_IDR_PICID_SHIFT: u32 = 1;
pub const CTRL0_CHROMA_QP_OFFSET_SHIFT: u32 = 13;
pub const CTRL0_SLICE_BETA_SHIFT: u32 = 18;
pub const CTRL0_SLICE_ALPHA_SHIFT: u32 = 22;
pub const CTRL0_INIT_QP_SHIFT: u32 = 26;

pub const ENC_CTRL1: usize = 0x044;
pub const CTRL1_FRAME_NUM_MASK: u32 = 0xffff;
pub const CTRL1_INTRA_PRED_MODE_SHIFT: u32 = 16;
pub const CTRL1_PPS_ID_SHIFT: u32 = 24;

pub const ENC_CTRL2: usize = 0x048;
pub const CTRL2_INTRA16X16_MODE_MASK: u32 = 0xffff;
pub const CTRL2_STREAM_MODE: u32 = 1 << 16;
pub const CTRL2_INTER4X4_MODE: u32 = 1 << 17;
pub const CTRL2_ENTROPY_CABAC: u32 = 1 << 18;
pub const CTRL2_CABAC_INIT_IDC_SHIFT: u32 = 19;
pub const CTRL2_TRANS8X8: u32 = 1 << 21;
pub const CTRL2_DISABLE_QUARTER_PIXMV: u32 = 1 << 22;
pub const CTRL2_SLICE_SIZE_SHIFT: u32 = 23;
pub const CTRL2_DEBLOCKING_FILTER_MODE_SHIFT: u32 = 30;

pub const ENC_CTRL3: usize = 0x04c;
pub const CTRL3_MUTIMV_EN: u32 = 1 << 30;

pub const ENC_CTRL5: usize = 0x054;
pub const CTRL5_COMPLETE_SLICES_SHIFT: u32 = 16;

pub const STR_HDR_REM_MSB: usize = 0x058;
pub const STR_HDR_REM_LSB: usize = 0x05c;
pub const STR_BUF_LIMIT: usize = 0x060;

/// CABAC context table: per SliceQP_Y 0..51, the initial states of I slices then
/// those of P slices (for the programmed cabac_init_idc), each
/// [`CABAC_TABLE_STRIDE`] bytes of `pStateIdx << 1 | valMPS` per ctxIdx.
pub const ADDR_CABAC_TBL: usize = 0x0cc;
pub const CABAC_TABLE_STRIDE: usize = 464;
/// Bytes of the whole table.
pub const CABAC_TABLE_SIZE: usize = 52 * 2 * CABAC_TABLE_STRIDE;

pub const MAD_CTRL: usize = 0x064;
pub const MAD_QP_SUM_DIV2_MASK: u32 = 0x1f_ffff;
pub const MAD_THRESHOLD_SHIFT: u32 = 22;
pub const MAD_QP_ADJUST_SHIFT: u32 = 28;

pub const QP_VAL: usize = 0x06c;
pub const QP_VAL_CHECKPOINT_DISTAN_MASK: u32 = 0xfff;
pub const QP_VAL_MIN_SHIFT: u32 = 14;
pub const QP_VAL_MAX_SHIFT: u32 = 20;
pub const QP_VAL_LUM_SHIFT: u32 = 26;

/// CHECKPOINT(i): checkpoint targets and results, two per register (even index in the upper half).
pub const CHECKPOINT_BASE: usize = 0x070;
/// CHKPT_WORD_ERR(i): word-error thresholds, two per register, signed 16-bit.
pub const CHKPT_WORD_ERR_BASE: usize = 0x084;
/// CHKPT_DELTA_QP: seven signed 4-bit QP deltas.
pub const CHKPT_DELTA_QP: usize = 0x090;

pub const RLC_CTRL: usize = 0x094;
pub const RLC_SUM_MASK: u32 = 0x7f_ffff;
pub const RLC_STR_OFFS_SHIFT: u32 = 23;

pub const MB_CTRL: usize = 0x098;
pub const MB_CNT_OUT_MASK: u32 = 0xffff;

/// Extension block: H.264 slice-header controls (model-defined, see SLICE_HEADER.md).
pub const H264_SLICE_EXT: usize = 0x300;
pub const EXT_NAL_REF_IDC_MASK: u32 = 0x3;
pub const EXT_NON_IDR_INTRA: u32 = 1 << 2;
pub const EXT_LOG2_MAX_FRAME_NUM_M4_SHIFT: u32 = 4;
pub const EXT_POC_TYPE0: u32 = 1 << 8;
pub const EXT_LOG2_MAX_POC_LSB_M4_SHIFT: u32 = 12;
pub const EXT_MARK_LONG_TERM: u32 = 1 << 16;
pub const EXT_NUM_REF_FRAMES_SHIFT: u32 = 20;
pub const H264_POC: usize = 0x304;
pub const H264_REF_MOD: usize = 0x308;
pub const REF_MOD_IDC_PLUS1_MASK: u32 = 0x3;
pub const REF_MOD_VALUE_SHIFT: u32 = 16;

/// Search range of the integer motion search (samples): horizontal, vertical.
pub const H264_SEARCH_RANGE: usize = 0x30c;

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

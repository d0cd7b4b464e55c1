//! What the registers ask of a frame, and what the core reports back about it.

use crate::cabac::NUM_CONTEXTS;
use crate::deblock::DeblockParams;
use crate::ratectl::InFrameRc;
use crate::simd::Dsp;

/// How the model codes one frame, decoded from the registers.
#[derive(Clone, Debug)]
pub struct FrameParams {
    pub intra: bool,
    pub qp: i32,
    pub qp_min: i32,
    pub qp_max: i32,
    pub chroma_qp_offset: i32,
    pub constrained_intra_pred: bool,
    /// Macroblock rows per slice, 0 for one slice.
    pub slice_rows: usize,
    pub disable_qpel: bool,
    /// 16x8, 8x16 and 8x8 partitions (MUTIMV_EN).
    pub multi_mv: bool,
    /// 8x4, 4x8 and 4x4 sub-macroblock partitions too (H264_INTER4X4_MODE).
    pub inter4x4: bool,
    /// Search range of the integer motion search, in samples (horizontal, vertical).
    pub search_range: [i32; 2],
    /// In-frame rate control (checkpoints, MAD) as programmed.
    pub inframe: InFrameRc,
    /// CABAC: the initial context states of every slice (from the driver's
    /// table, for the slice QP and type); CAVLC when absent.
    pub cabac_init: Option<[u8; NUM_CONTEXTS]>,
    /// The 8x8 transform may be used (TRANS8X8_MODE_EN; transform_8x8_mode_flag).
    pub transform_8x8: bool,
    /// The deblocking filter's controls, as the slice headers carry them.
    pub deblock: DeblockParams,
    /// The hot functions of the H1's CPU level.
    pub dsp: &'static Dsp,
}

impl FrameParams {
    /// The slice that macroblock row `mby` belongs to.
    pub fn slice_of_row(&self, mby: usize) -> usize {
        match self.slice_rows {
            0 => 0,
            rows => mby / rows,
        }
    }

    /// The first macroblock row of slice `slice`.
    pub fn first_row_of_slice(&self, slice: usize) -> usize {
        slice * self.slice_rows
    }
}

/// Statistics of a coded frame, as the H1 reports them.
#[derive(Clone, Debug, Default)]
pub struct FrameStats {
    /// Sum of QP_Y over all macroblocks.
    pub qp_sum: u32,
    /// Number of non-zero levels coded (run-length coded coefficients).
    pub rlc_count: u32,
    pub intra_mbs: u32,
    pub skip_mbs: u32,
    /// P macroblocks with motion per mb_type (16x16, 16x8, 8x16, 8x8).
    pub part_counts: [u32; 4],
    /// 8x8 blocks of P_8x8 macroblocks per sub_mb_type (8x8, 8x4, 4x8, 4x4).
    pub sub_counts: [u32; 4],
    /// P macroblocks coded with the 8x8 transform.
    pub t8x8_mbs: u32,
    /// Intra_8x8 macroblocks.
    pub i8x8_mbs: u32,
    /// CABAC bins of all slices (BinCountsInNALunits of 7.4.2.10).
    pub bins: u64,
    /// cabac_zero_words appended to meet the bound on bins per byte (7.4.2.10).
    pub cabac_zero_words: u32,
}

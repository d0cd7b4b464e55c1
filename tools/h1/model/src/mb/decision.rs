//! What was decided for one macroblock: the value that passes from the
//! decision to the reconstruction and the syntax writer.

use super::partition::PartMode;

/// The motion chosen for a P macroblock.
#[derive(Clone, Copy, Debug)]
pub struct InterMb {
    pub mode: PartMode,
    /// Vector of each 4x4 block, raster order, in quarter samples.
    pub mv: [[i32; 2]; 16],
    /// SATD of the prediction plus lambda times the bits of types and vectors.
    pub cost: u32,
}

/// How the macroblock is predicted.
#[derive(Clone, Copy, Debug)]
pub enum MbKind {
    /// P_Skip with its predicted vector (8.4.1.1).
    Skip { mv: [i32; 2] },
    /// A P macroblock with motion.
    Inter(InterMb),
    /// Intra_16x16 with its Intra16x16PredMode.
    I16x16(u8),
    /// Intra_4x4, or Intra_8x8 when the luma carries 8x8 levels: the
    /// prediction mode of each 4x4 block (raster; an 8x8 block's mode
    /// repeated over its four 4x4 blocks).
    INxN([u8; 16]),
}

/// Luma residual and levels of one macroblock.
#[derive(Clone)]
pub struct LumaCoding {
    /// Levels per 4x4 block (raster block index), in raster coefficient order.
    pub levels: [[i32; 16]; 16],
    /// Intra16x16 DC levels, raster.
    pub dc: [i32; 16],
    /// The luma bits of coded_block_pattern.
    pub cbp: u32,
    /// Reconstructed 16x16 samples.
    pub rec: [u8; 256],
    /// The 8x8 transform codes the luma: its levels per 8x8 block (raster
    /// block index, raster coefficient order) instead of `levels`.
    pub levels8: Option<Box<[[i32; 64]; 4]>>,
}

impl LumaCoding {
    /// No residual over the prediction `rec`.
    pub fn none(rec: [u8; 256]) -> Self {
        LumaCoding {
            levels: [[0; 16]; 16],
            dc: [0; 16],
            cbp: 0,
            rec,
            levels8: None,
        }
    }
}

/// Chroma residual and levels of one macroblock.
#[derive(Clone)]
pub struct ChromaCoding {
    /// DC levels of Cb and Cr (raster 2x2).
    pub dc: [[i32; 4]; 2],
    /// AC levels, [Cb, Cr] x raster 2x2 blocks, raster coefficient order.
    pub ac: [[[i32; 16]; 4]; 2],
    /// The chroma part of coded_block_pattern: 0, 1 (DC) or 2 (DC and AC).
    pub cbp: u32,
    /// Reconstructed 8x8 samples of Cb and Cr.
    pub rec: [[u8; 64]; 2],
}

impl ChromaCoding {
    /// No residual over the prediction `rec`.
    pub fn none(rec: [[u8; 64]; 2]) -> Self {
        ChromaCoding {
            dc: [[0; 4]; 2],
            ac: [[[0; 16]; 4]; 2],
            cbp: 0,
            rec,
        }
    }
}

/// Everything decided for one macroblock.
#[derive(Clone)]
pub struct MbDecision {
    pub kind: MbKind,
    /// QP_Y the residual was quantized with (unused by P_Skip).
    pub qp: i32,
    pub luma: LumaCoding,
    pub chroma: ChromaCoding,
    /// intra_chroma_pred_mode of intra macroblocks.
    pub chroma_mode: u8,
    /// The MAD adjustment of the in-frame rate control set `qp`.
    pub mad: bool,
}

impl MbDecision {
    /// coded_block_pattern: luma in bits 3..0, chroma in bits 5..4.
    pub fn cbp(&self) -> u32 {
        self.luma.cbp | (self.chroma.cbp << 4)
    }

    /// Whether mb_qp_delta is present (7.3.5): with a residual or in Intra_16x16.
    pub fn has_qp_delta(&self) -> bool {
        match self.kind {
            MbKind::Skip { .. } => false,
            MbKind::I16x16(_) => true,
            _ => self.cbp() != 0,
        }
    }

    /// transform_size_8x8_flag as coded, or as inferred (0) when absent.
    pub fn transform_8x8(&self) -> bool {
        match self.kind {
            MbKind::Skip { .. } | MbKind::I16x16(_) => false,
            MbKind::Inter(_) => self.luma.levels8.is_some() && self.luma.cbp != 0,
            MbKind::INxN(_) => self.luma.levels8.is_some(),
        }
    }
}

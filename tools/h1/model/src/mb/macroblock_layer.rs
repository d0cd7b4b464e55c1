//! macroblock_layer() (7.3.5) of a decided macroblock, once for both entropy
//! coders: the order and presence of its syntax elements live here, how each
//! element is coded in the [`EntropyWriter`] of the slice.

use super::decision::{ChromaCoding, LumaCoding, MbDecision, MbKind};
use super::params::FrameParams;
use super::partition::{Part, PartMode};
use super::reconstruct::Derived;
use super::state::PicView;
use crate::bitwriter::BitWriter;

/// Codes the syntax elements of macroblocks in one slice: CAVLC (9.2, and
/// Exp-Golomb codes) or CABAC (9.3). `pic` holds the macroblock being
/// written, already reconstructed, and its neighbours; `idx` is its address.
pub trait EntropyWriter {
    /// Bits written so far in the slice.
    fn bit_len(&self) -> usize;

    /// A P_Skip macroblock: mb_skip_flag 1, or one more in mb_skip_run.
    fn mb_skip(&mut self, pic: &PicView, idx: usize);

    /// A coded macroblock of a P slice: mb_skip_flag 0, or the mb_skip_run before it.
    fn mb_coded(&mut self, pic: &PicView, idx: usize);

    /// mb_type of an intra macroblock, numbered as in an I slice (Table 7-11).
    fn mb_type_intra(&mut self, pic: &PicView, idx: usize, mb_type: u32);

    /// mb_type of a P macroblock with motion and, for P_8x8, its sub_mb_types.
    fn mb_type_p(&mut self, mode: PartMode);

    /// mvd_l0 of partition `part` of a P macroblock.
    fn mvd(&mut self, pic: &PicView, idx: usize, part: &Part, mvd: [i32; 2]);

    /// transform_size_8x8_flag.
    fn transform_size_8x8_flag(&mut self, pic: &PicView, idx: usize, t8: bool);

    /// prev_intra_pred_mode_flag and rem_intra_pred_mode of one block.
    fn intra_pred_mode(&mut self, rem: Option<u8>);

    /// intra_chroma_pred_mode.
    fn intra_chroma_pred_mode(&mut self, pic: &PicView, idx: usize, mode: u8);

    /// coded_block_pattern of an intra or inter macroblock.
    fn coded_block_pattern(&mut self, pic: &PicView, idx: usize, cbp: u32, intra: bool);

    /// mb_qp_delta, or that the macroblock has none.
    fn mb_qp_delta(&mut self, delta: Option<i32>);

    /// The luma residual (7.3.5.3): with the Intra16x16DCLevel block when `i16`.
    fn residual_luma(&mut self, pic: &PicView, idx: usize, luma: &LumaCoding, i16: bool);

    /// The chroma residual (7.3.5.3).
    fn residual_chroma(&mut self, pic: &PicView, idx: usize, chroma: &ChromaCoding);

    /// After each macroblock: end_of_slice_flag in CABAC.
    fn end_of_mb(&mut self, last_in_slice: bool);

    /// Ends the slice's data; returns its bits and the number of CABAC bins.
    fn finish(self) -> (BitWriter, u64);
}

/// Writes macroblock `idx` as `d` decided it.
pub fn write<W: EntropyWriter>(
    w: &mut W,
    p: &FrameParams,
    pic: &PicView,
    idx: usize,
    d: &MbDecision,
    derived: &Derived,
) {
    match d.kind {
        MbKind::Skip { .. } => {
            w.mb_skip(pic, idx);
            w.mb_qp_delta(None);
            return;
        }
        _ if !p.intra => w.mb_coded(pic, idx),
        _ => {}
    }
    let cbp = d.cbp();
    match d.kind {
        MbKind::Inter(inter) => {
            w.mb_type_p(inter.mode);
            for (i, part) in inter.mode.parts().iter().enumerate() {
                w.mvd(pic, idx, part, derived.mvd[i]);
            }
            w.coded_block_pattern(pic, idx, cbp, false);
            if p.transform_8x8 && d.luma.cbp != 0 && inter.mode.min_part_8x8() {
                w.transform_size_8x8_flag(pic, idx, d.transform_8x8());
            }
        }
        MbKind::I16x16(mode) => {
            let ac = if d.luma.cbp != 0 { 12 } else { 0 };
            w.mb_type_intra(pic, idx, 1 + u32::from(mode) + 4 * d.chroma.cbp + ac);
            w.intra_chroma_pred_mode(pic, idx, d.chroma_mode);
        }
        MbKind::INxN(_) => {
            w.mb_type_intra(pic, idx, 0);
            let t8 = d.transform_8x8();
            if p.transform_8x8 {
                w.transform_size_8x8_flag(pic, idx, t8);
            }
            for &rem in &derived.rem_modes[..if t8 { 4 } else { 16 }] {
                w.intra_pred_mode(rem);
            }
            w.intra_chroma_pred_mode(pic, idx, d.chroma_mode);
            w.coded_block_pattern(pic, idx, cbp, true);
        }
        // Written above.
        MbKind::Skip { .. } => {}
    }
    w.mb_qp_delta(derived.qp_delta);
    w.residual_luma(pic, idx, &d.luma, matches!(d.kind, MbKind::I16x16(_)));
    w.residual_chroma(pic, idx, &d.chroma);
}

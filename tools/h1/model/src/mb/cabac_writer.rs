//! The macroblock syntax in CABAC (9.3), with the neighbour conditions of
//! context selection (9.3.3.1.1): which of the left (A) and upper (B)
//! macroblocks and blocks are available and what they coded.

use super::decision::{ChromaCoding, LumaCoding};
use super::macroblock_layer::EntropyWriter;
use super::partition::{Part, PartMode};
use super::state::{MbInfo, PicView, CBF_CHROMA_AC, CBF_CHROMA_DC, CBF_LUMA_DC};
use crate::bitwriter::BitWriter;
use crate::cabac::{CabacEncoder, NUM_CONTEXTS};
use crate::cabac_syntax::{self as se, BlockCat};
use crate::tables::{BLK_TO_RASTER, ZIGZAG_4X4};
use crate::transform8x8::ZIGZAG_8X8;

/// A slice's macroblocks in CABAC.
pub struct CabacWriter {
    e: Box<CabacEncoder>,
    /// Whether the previous macroblock in decoding order had a non-zero mb_qp_delta.
    prev_qp_delta_nz: bool,
    p_slice: bool,
}

impl CabacWriter {
    /// A slice whose contexts start from `init` (9.3.1.1).
    pub fn new(init: [u8; NUM_CONTEXTS], p_slice: bool) -> Self {
        CabacWriter {
            e: Box::new(CabacEncoder::new(init)),
            prev_qp_delta_nz: false,
            p_slice,
        }
    }
}

/// Macroblocks A and B of the macroblock at `idx` in its slice.
fn ab<'v>(pic: &'v PicView<'_>, idx: usize) -> (Option<&'v MbInfo>, Option<&'v MbInfo>) {
    let w = pic.mb_w();
    let (x, y) = ((idx % w) as i32, (idx / w) as i32);
    let slice = pic.mb_at(idx).slice;
    (pic.mb(x - 1, y, slice), pic.mb(x, y - 1, slice))
}

/// The macroblock and block index of the block at (x, y) in units of a
/// `n`x`n` grid of the macroblock `idx`, reaching into A or B (one step).
fn block_of<'v>(
    pic: &'v PicView<'_>,
    idx: usize,
    x: i32,
    y: i32,
    n: i32,
) -> Option<(&'v MbInfo, usize)> {
    let cur = pic.mb_at(idx);
    let (a, b) = ab(pic, idx);
    let (m, x, y) = match (x < 0, y < 0) {
        (false, false) => (Some(cur), x, y),
        (true, _) => (a, x + n, y),
        (_, true) => (b, x, y + n),
    };
    m.map(|m| (m, (y * n + x) as usize))
}

/// absMvdComp of the 4x4 block at (x4, y4) relative to the macroblock
/// `idx`: 0 outside the slice and for skipped and intra macroblocks,
/// whose stored differences are 0 (9.3.3.1.1.7).
fn abs_mvd(pic: &PicView, idx: usize, x4: i32, y4: i32, c: usize) -> u32 {
    block_of(pic, idx, x4, y4, 4).map_or(0, |(m, r)| u32::from(m.mvd[r][c]))
}

/// condTermFlagA + 2 * condTermFlagB of a coded_block_flag (9.3.3.1.1.9),
/// for the block whose flag is bit `bit` of [`MbInfo::cbf`] and whose
/// neighbours are bits `bit_a` of A (or of the current macroblock when
/// `a_inside`) and `bit_b` likewise. An unavailable neighbour counts 1 for
/// intra macroblocks, 0 for inter ones.
fn cbf_cond(pic: &PicView, idx: usize, a: (bool, u32), b: (bool, u32)) -> usize {
    let cur = pic.mb_at(idx);
    let (ma, mb) = ab(pic, idx);
    let flag = |inside: bool, bit: u32, n: Option<&MbInfo>| -> usize {
        let m = if inside { Some(cur) } else { n };
        m.map_or(usize::from(cur.intra), |m| ((m.cbf >> bit) & 1) as usize)
    };
    flag(a.0, a.1, ma) + 2 * flag(b.0, b.1, mb)
}

/// The neighbours of raster block `r` of a grid `w` blocks wide in the
/// flags of [`MbInfo::cbf`] from bit `base`: (inside the macroblock, bit).
fn cbf_neighbours(base: u32, r: u32, w: u32) -> ((bool, u32), (bool, u32)) {
    let (bx, by) = (r % w, r / w);
    let a = if bx > 0 {
        (true, base + r - 1)
    } else {
        (false, base + r + w - 1)
    };
    let b = if by > 0 {
        (true, base + r - w)
    } else {
        (false, base + r + w * (w - 1))
    };
    (a, b)
}

impl CabacWriter {
    /// residual_block_cabac() of `coeffs` (scan order); the number of levels
    /// it codes is the one the reconstruction stored.
    fn block(&mut self, cat: BlockCat, cond: usize, coeffs: &[i32], total: u8) {
        let n = se::residual_block(&mut self.e, cat, cond, coeffs);
        debug_assert_eq!(n, total);
    }
}

impl EntropyWriter for CabacWriter {
    fn bit_len(&self) -> usize {
        self.e.bit_len()
    }

    /// mb_skip_flag (9.3.3.1.1.1: neighbours that are available and not skipped).
    fn mb_skip(&mut self, pic: &PicView, idx: usize) {
        let (a, b) = ab(pic, idx);
        let cond = |n: Option<&MbInfo>| usize::from(n.is_some_and(|m| !m.skip));
        se::mb_skip_flag(&mut self.e, cond(a) + cond(b), true);
    }

    fn mb_coded(&mut self, pic: &PicView, idx: usize) {
        let (a, b) = ab(pic, idx);
        let cond = |n: Option<&MbInfo>| usize::from(n.is_some_and(|m| !m.skip));
        se::mb_skip_flag(&mut self.e, cond(a) + cond(b), false);
    }

    /// mb_type of an intra macroblock (9.3.3.1.1.3: in I slices, neighbours
    /// that are not I_NxN).
    fn mb_type_intra(&mut self, pic: &PicView, idx: usize, mb_type: u32) {
        let (a, b) = ab(pic, idx);
        let cond = |n: Option<&MbInfo>| usize::from(n.is_some_and(|m| !m.i4x4));
        se::mb_type_intra(&mut self.e, self.p_slice, cond(a) + cond(b), mb_type);
    }

    fn mb_type_p(&mut self, mode: PartMode) {
        se::mb_type_p(&mut self.e, mode.mb_type());
        if let PartMode::P8x8(subs) = mode {
            for s in subs {
                se::sub_mb_type_p(&mut self.e, s as u32);
            }
        }
    }

    /// mvd_l0 with the sum of the neighbours' absMvdComp (9.3.3.1.1.7).
    fn mvd(&mut self, pic: &PicView, idx: usize, p: &Part, mvd: [i32; 2]) {
        for (c, &d) in mvd.iter().enumerate() {
            let sum = abs_mvd(pic, idx, p.x4() as i32 - 1, p.y4() as i32, c)
                + abs_mvd(pic, idx, p.x4() as i32, p.y4() as i32 - 1, c);
            se::mvd(&mut self.e, c == 1, sum, d);
        }
    }

    /// transform_size_8x8_flag (9.3.3.1.1.10: neighbours that use the 8x8 transform).
    fn transform_size_8x8_flag(&mut self, pic: &PicView, idx: usize, t8: bool) {
        let (a, b) = ab(pic, idx);
        let cond = |n: Option<&MbInfo>| usize::from(n.is_some_and(|m| m.t8x8));
        se::transform_size_8x8_flag(&mut self.e, cond(a) + cond(b), t8);
    }

    fn intra_pred_mode(&mut self, rem: Option<u8>) {
        se::intra4x4_pred_mode(&mut self.e, rem);
    }

    /// intra_chroma_pred_mode (9.3.3.1.1.8: intra neighbours with a mode other than DC).
    fn intra_chroma_pred_mode(&mut self, pic: &PicView, idx: usize, mode: u8) {
        let (a, b) = ab(pic, idx);
        let cond =
            |n: Option<&MbInfo>| usize::from(n.is_some_and(|m| m.intra && m.chroma_mode != 0));
        se::intra_chroma_pred_mode(&mut self.e, cond(a) + cond(b), mode);
    }

    /// coded_block_pattern (9.3.3.1.1.4).
    fn coded_block_pattern(&mut self, pic: &PicView, idx: usize, cbp: u32, _: bool) {
        let (a, b) = ab(pic, idx);
        // Luma: condTermFlagN is 0 for an unavailable neighbour and for a coded
        // 8x8 block of a macroblock that is not skipped, else 1.
        let luma_bit = |n: Option<&MbInfo>, b8: usize| -> usize {
            n.map_or(0, |m| usize::from(m.skip || (m.cbp >> b8) & 1 == 0))
        };
        let luma_cond = |b8: usize, sofar: u32| -> usize {
            let ca = if b8 & 1 == 1 {
                usize::from((sofar >> (b8 - 1)) & 1 == 0)
            } else {
                luma_bit(a, b8 + 1)
            };
            let cb = if b8 >= 2 {
                usize::from((sofar >> (b8 - 2)) & 1 == 0)
            } else {
                luma_bit(b, b8 + 2)
            };
            ca + 2 * cb
        };
        let chroma = |n: Option<&MbInfo>, min: u8| -> usize {
            usize::from(n.is_some_and(|m| !m.skip && m.cbp >> 4 >= min))
        };
        let chroma_cond = [
            chroma(a, 1) + 2 * chroma(b, 1),
            chroma(a, 2) + 2 * chroma(b, 2),
        ];
        se::coded_block_pattern(&mut self.e, cbp, luma_cond, chroma_cond);
    }

    /// mb_qp_delta, whose context looks at the previous macroblock's (9.3.3.1.1.5).
    fn mb_qp_delta(&mut self, delta: Option<i32>) {
        if let Some(d) = delta {
            se::mb_qp_delta(&mut self.e, self.prev_qp_delta_nz, d);
        }
        self.prev_qp_delta_nz = delta.is_some_and(|d| d != 0);
    }

    /// The Intra16x16DCLevel block, then the 4x4 blocks of each coded 8x8
    /// block; or with the 8x8 transform one LumaLevel8x8 block per coded 8x8
    /// block, without coded_block_flag (4:2:0, 7.3.5.3.3).
    fn residual_luma(&mut self, pic: &PicView, idx: usize, luma: &LumaCoding, i16: bool) {
        let nz = pic.mb_at(idx).nz;
        if let Some(l8) = luma.levels8.as_deref() {
            for (b8, lv) in l8.iter().enumerate() {
                if luma.cbp & (1 << b8) != 0 {
                    let scan: [i32; 64] = core::array::from_fn(|k| lv[ZIGZAG_8X8[k]]);
                    let total = (0..4).map(|i| nz[BLK_TO_RASTER[b8 * 4 + i]]).sum();
                    self.block(BlockCat::Luma8x8, 0, &scan, total);
                }
            }
            return;
        }
        if i16 {
            let cond = cbf_cond(pic, idx, (false, CBF_LUMA_DC), (false, CBF_LUMA_DC));
            let scan: [i32; 16] = core::array::from_fn(|k| luma.dc[ZIGZAG_4X4[k]]);
            let total = scan.iter().filter(|&&v| v != 0).count() as u8;
            self.block(BlockCat::LumaDc, cond, &scan, total);
        }
        for blk_idx in 0..16 {
            if luma.cbp & (1 << (blk_idx / 4)) == 0 {
                continue;
            }
            let r = BLK_TO_RASTER[blk_idx];
            let (a, b) = cbf_neighbours(0, r as u32, 4);
            let cond = cbf_cond(pic, idx, a, b);
            let lv = &luma.levels[r];
            if i16 {
                let scan: [i32; 15] = core::array::from_fn(|k| lv[ZIGZAG_4X4[k + 1]]);
                self.block(BlockCat::LumaAc, cond, &scan, nz[r]);
            } else {
                let scan: [i32; 16] = core::array::from_fn(|k| lv[ZIGZAG_4X4[k]]);
                self.block(BlockCat::Luma4x4, cond, &scan, nz[r]);
            }
        }
    }

    /// Both DC blocks when the chroma pattern is not 0, then every AC block when it is 2.
    fn residual_chroma(&mut self, pic: &PicView, idx: usize, chroma: &ChromaCoding) {
        if chroma.cbp == 0 {
            return;
        }
        for (c, dc) in chroma.dc.iter().enumerate() {
            let bit = CBF_CHROMA_DC + c as u32;
            let cond = cbf_cond(pic, idx, (false, bit), (false, bit));
            let total = dc.iter().filter(|&&v| v != 0).count() as u8;
            self.block(BlockCat::ChromaDc, cond, dc, total);
        }
        if chroma.cbp < 2 {
            return;
        }
        for (c, ac) in chroma.ac.iter().enumerate() {
            let base = CBF_CHROMA_AC + 4 * c as u32;
            for (blk, lv) in ac.iter().enumerate() {
                let (a, b) = cbf_neighbours(base, blk as u32, 2);
                let cond = cbf_cond(pic, idx, a, b);
                let scan: [i32; 15] = core::array::from_fn(|k| lv[ZIGZAG_4X4[k + 1]]);
                self.block(BlockCat::ChromaAc, cond, &scan, pic.mb_at(idx).nzc[c][blk]);
            }
        }
    }

    /// end_of_slice_flag.
    fn end_of_mb(&mut self, last_in_slice: bool) {
        self.e.terminate(last_in_slice);
    }

    fn finish(self) -> (BitWriter, u64) {
        let bins = self.e.bins;
        (self.e.finish(), bins)
    }
}

//! The macroblock syntax in CAVLC (9.2) and Exp-Golomb codes (9.1).

use super::decision::{ChromaCoding, LumaCoding};
use super::macroblock_layer::EntropyWriter;
use super::partition::{Part, PartMode};
use super::state::PicView;
use crate::bitwriter::BitWriter;
use crate::cavlc::write_block;
use crate::tables::{BLK_TO_RASTER, CBP_INTER_CODE, CBP_INTRA_CODE, ZIGZAG_4X4};
use crate::transform8x8::ZIGZAG_8X8;

/// A slice's macroblocks in CAVLC.
pub struct CavlcWriter {
    bw: BitWriter,
    /// mb_skip_run so far.
    skip_run: u32,
    /// mb_type of intra macroblocks is offset by 5 in P slices (Table 7-13).
    p_slice: bool,
}

impl CavlcWriter {
    /// The writer of a slice, a P slice when `p_slice`.
    pub fn new(p_slice: bool) -> Self {
        CavlcWriter {
            bw: BitWriter::new(),
            skip_run: 0,
            p_slice,
        }
    }
}

/// nC from the TotalCoeff of the blocks left (A) and above (B) (9.2.1).
fn nc_from(na: Option<u8>, nb: Option<u8>) -> i32 {
    match (na, nb) {
        (Some(a), Some(b)) => (a as i32 + b as i32 + 1) >> 1,
        (Some(a), None) => a as i32,
        (None, Some(b)) => b as i32,
        (None, None) => 0,
    }
}

/// nC of the luma 4x4 block at raster (bx, by) of macroblock `idx` (9.2.1).
fn nc_luma(pic: &PicView, idx: usize, bx: usize, by: usize) -> i32 {
    let cur = pic.mb_at(idx);
    let (mbx, mby) = ((idx % pic.mb_w()) as i32, (idx / pic.mb_w()) as i32);
    let na = if bx > 0 {
        Some(cur.nz[by * 4 + bx - 1])
    } else {
        pic.mb(mbx - 1, mby, cur.slice).map(|m| m.nz[by * 4 + 3])
    };
    let nb = if by > 0 {
        Some(cur.nz[(by - 1) * 4 + bx])
    } else {
        pic.mb(mbx, mby - 1, cur.slice).map(|m| m.nz[12 + bx])
    };
    nc_from(na, nb)
}

/// nC of chroma AC block (bx, by) of component `c` of macroblock `idx` (9.2.1).
fn nc_chroma(pic: &PicView, idx: usize, c: usize, bx: usize, by: usize) -> i32 {
    let cur = pic.mb_at(idx);
    let (mbx, mby) = ((idx % pic.mb_w()) as i32, (idx / pic.mb_w()) as i32);
    let na = if bx > 0 {
        Some(cur.nzc[c][by * 2])
    } else {
        pic.mb(mbx - 1, mby, cur.slice)
            .map(|m| m.nzc[c][by * 2 + 1])
    };
    let nb = if by > 0 {
        Some(cur.nzc[c][bx])
    } else {
        pic.mb(mbx, mby - 1, cur.slice).map(|m| m.nzc[c][2 + bx])
    };
    nc_from(na, nb)
}

impl CavlcWriter {
    /// residual_block_cavlc() of `coeffs` (scan order) with its nC; the
    /// TotalCoeff it codes is the one the reconstruction stored.
    fn block(&mut self, coeffs: &[i32], nc: i32, total: u8) {
        let written = write_block(&mut self.bw, coeffs, nc);
        debug_assert_eq!(written, total);
    }

    /// The luma of an 8x8-transform macroblock: each 8x8 block as four
    /// interleaved 16-coefficient lists, list i4x4 in the place of 4x4 block
    /// 4 * i8x8 + i4x4 (7.3.5.3.2).
    fn residual_luma8(&mut self, pic: &PicView, idx: usize, l8: &[[i32; 64]; 4], cbp: u32) {
        for (b8, lv) in l8.iter().enumerate() {
            if cbp & (1 << b8) == 0 {
                continue;
            }
            for i4 in 0..4 {
                let r = BLK_TO_RASTER[b8 * 4 + i4];
                let list: [i32; 16] = core::array::from_fn(|k| lv[ZIGZAG_8X8[4 * k + i4]]);
                let nc = nc_luma(pic, idx, r % 4, r / 4);
                self.block(&list, nc, pic.mb_at(idx).nz[r]);
            }
        }
    }
}

impl EntropyWriter for CavlcWriter {
    fn bit_len(&self) -> usize {
        self.bw.bit_len()
    }

    fn mb_skip(&mut self, _: &PicView, _: usize) {
        self.skip_run += 1;
    }

    fn mb_coded(&mut self, _: &PicView, _: usize) {
        self.bw.ue(self.skip_run);
        self.skip_run = 0;
    }

    fn mb_type_intra(&mut self, _: &PicView, _: usize, mb_type: u32) {
        self.bw.ue(if self.p_slice { 5 } else { 0 } + mb_type);
    }

    fn mb_type_p(&mut self, mode: PartMode) {
        self.bw.ue(mode.mb_type());
        if let PartMode::P8x8(subs) = mode {
            for s in subs {
                self.bw.ue(s as u32);
            }
        }
    }

    fn mvd(&mut self, _: &PicView, _: usize, _: &Part, mvd: [i32; 2]) {
        self.bw.se(mvd[0]);
        self.bw.se(mvd[1]);
    }

    fn transform_size_8x8_flag(&mut self, _: &PicView, _: usize, t8: bool) {
        self.bw.flag(t8);
    }

    fn intra_pred_mode(&mut self, rem: Option<u8>) {
        self.bw.flag(rem.is_none());
        if let Some(r) = rem {
            self.bw.put(3, r as u32);
        }
    }

    fn intra_chroma_pred_mode(&mut self, _: &PicView, _: usize, mode: u8) {
        self.bw.ue(mode as u32);
    }

    fn coded_block_pattern(&mut self, _: &PicView, _: usize, cbp: u32, intra: bool) {
        let table = if intra {
            &CBP_INTRA_CODE
        } else {
            &CBP_INTER_CODE
        };
        self.bw.ue(table[cbp as usize] as u32);
    }

    fn mb_qp_delta(&mut self, delta: Option<i32>) {
        if let Some(d) = delta {
            self.bw.se(d);
        }
    }

    fn residual_luma(&mut self, pic: &PicView, idx: usize, luma: &LumaCoding, i16: bool) {
        if let Some(l8) = luma.levels8.as_deref() {
            self.residual_luma8(pic, idx, l8, luma.cbp);
            return;
        }
        if i16 {
            let nc = nc_luma(pic, idx, 0, 0);
            let scan: [i32; 16] = core::array::from_fn(|k| luma.dc[ZIGZAG_4X4[k]]);
            let total = scan.iter().filter(|&&v| v != 0).count() as u8;
            self.block(&scan, nc, total);
        }
        for blk_idx in 0..16 {
            if luma.cbp & (1 << (blk_idx / 4)) == 0 {
                continue;
            }
            let r = BLK_TO_RASTER[blk_idx];
            let nc = nc_luma(pic, idx, r % 4, r / 4);
            let lv = &luma.levels[r];
            let total = pic.mb_at(idx).nz[r];
            if i16 {
                let scan: [i32; 15] = core::array::from_fn(|k| lv[ZIGZAG_4X4[k + 1]]);
                self.block(&scan, nc, total);
            } else {
                let scan: [i32; 16] = core::array::from_fn(|k| lv[ZIGZAG_4X4[k]]);
                self.block(&scan, nc, total);
            }
        }
    }

    fn residual_chroma(&mut self, pic: &PicView, idx: usize, chroma: &ChromaCoding) {
        if chroma.cbp == 0 {
            return;
        }
        for dc in &chroma.dc {
            let total = dc.iter().filter(|&&v| v != 0).count() as u8;
            self.block(dc, -1, total);
        }
        if chroma.cbp < 2 {
            return;
        }
        for c in 0..2 {
            for b in 0..4 {
                let nc = nc_chroma(pic, idx, c, b % 2, b / 2);
                let scan: [i32; 15] = core::array::from_fn(|k| chroma.ac[c][b][ZIGZAG_4X4[k + 1]]);
                self.block(&scan, nc, pic.mb_at(idx).nzc[c][b]);
            }
        }
    }

    fn end_of_mb(&mut self, _: bool) {}

    fn finish(mut self) -> (BitWriter, u64) {
        if self.skip_run > 0 {
            self.bw.ue(self.skip_run);
        }
        (self.bw, 0)
    }
}

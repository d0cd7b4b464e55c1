//! The neighbour conditions of CABAC context selection (9.3.3.1.1) for the
//! macroblock coder: which of the left (A) and upper (B) macroblocks and
//! blocks are available and what they coded.

use crate::cabac::CabacEncoder;
use crate::cabac_syntax::{self as se, BlockCat};
use crate::encoder::{FrameCoder, MbInfo};
use crate::inter_mb::{InterMb, PartMode};
use crate::tables::{BLK_TO_RASTER, ZIGZAG_4X4};
use crate::transform8x8::ZIGZAG_8X8;

/// Bits of [`MbInfo::cbf`]: coded_block_flag of the luma 4x4 blocks (raster,
/// AC blocks for Intra_16x16), of the DC blocks, and of the chroma AC blocks.
pub const CBF_LUMA_DC: u32 = 16;
pub const CBF_CHROMA_DC: u32 = 17;
pub const CBF_CHROMA_AC: u32 = 19;

impl FrameCoder<'_> {
    /// Macroblocks A and B of the macroblock at `idx` in its slice.
    fn ab(&self, idx: usize) -> (Option<&MbInfo>, Option<&MbInfo>) {
        let w = self.mb_w();
        let (x, y) = ((idx % w) as i32, (idx / w) as i32);
        let slice = self.mbs[idx].slice;
        (self.mb(x - 1, y, slice), self.mb(x, y - 1, slice))
    }

    /// mb_skip_flag (9.3.3.1.1.1: neighbours that are available and not skipped).
    pub(crate) fn cabac_skip_flag(&self, e: &mut CabacEncoder, idx: usize, skip: bool) {
        let (a, b) = self.ab(idx);
        let cond = |n: Option<&MbInfo>| usize::from(n.is_some_and(|m| !m.skip));
        se::mb_skip_flag(e, cond(a) + cond(b), skip);
    }

    /// mb_type of an intra macroblock (9.3.3.1.1.3: in I slices, neighbours
    /// that are not I_NxN).
    pub(crate) fn cabac_mb_type_intra(&self, e: &mut CabacEncoder, idx: usize, mb_type: u32) {
        let (a, b) = self.ab(idx);
        let cond = |n: Option<&MbInfo>| usize::from(n.is_some_and(|m| !m.i4x4));
        se::mb_type_intra(e, !self.p.intra, cond(a) + cond(b), mb_type);
    }

    /// mb_type, sub_mb_type and the motion vector differences of a P macroblock
    /// (7.3.5.1, 7.3.5.2), storing each partition's motion and |mvd|.
    pub(crate) fn cabac_inter_pred(
        &mut self,
        e: &mut CabacEncoder,
        slice: i32,
        mbx: usize,
        mby: usize,
        m: &InterMb,
    ) {
        se::mb_type_p(e, m.mode.mb_type());
        if let PartMode::P8x8(subs) = m.mode {
            for s in subs {
                se::sub_mb_type_p(e, s as u32);
            }
        }
        let idx = mby * self.mb_w() + mbx;
        let mut done = 0u16;
        for p in m.mode.parts().iter() {
            let mv = m.mv[p.y4() * 4 + p.x4()];
            let mvp = self.part_mvp(slice, mbx, mby, p, done);
            let d = [mv[0] - mvp[0], mv[1] - mvp[1]];
            for (c, &dc) in d.iter().enumerate() {
                let sum = self.abs_mvd(idx, p.x4() as i32 - 1, p.y4() as i32, c)
                    + self.abs_mvd(idx, p.x4() as i32, p.y4() as i32 - 1, c);
                se::mvd(e, c == 1, sum, dc);
            }
            let stored = [
                d[0].unsigned_abs().min(255) as u8,
                d[1].unsigned_abs().min(255) as u8,
            ];
            for y in p.y4()..p.y4() + p.h4() {
                for x in p.x4()..p.x4() + p.w4() {
                    self.mbs[idx].mvd[y * 4 + x] = stored;
                }
            }
            self.set_part_motion(mbx, mby, p, mv);
            done |= p.mask();
        }
    }

    /// absMvdComp of the 4x4 block at (x4, y4) relative to the macroblock
    /// `idx`: 0 outside the slice and for skipped and intra macroblocks,
    /// whose stored differences are 0 (9.3.3.1.1.7).
    fn abs_mvd(&self, idx: usize, x4: i32, y4: i32, c: usize) -> u32 {
        self.block_of(idx, x4, y4, 4)
            .map_or(0, |(m, r)| u32::from(m.mvd[r][c]))
    }

    /// The macroblock and block index of the block at (x, y) in units of a
    /// `n`x`n` grid of the macroblock `idx`, reaching into A or B (one step).
    fn block_of(&self, idx: usize, x: i32, y: i32, n: i32) -> Option<(&MbInfo, usize)> {
        let cur = &self.mbs[idx];
        let (a, b) = self.ab(idx);
        let (m, x, y) = match (x < 0, y < 0) {
            (false, false) => (Some(cur), x, y),
            (true, _) => (a, x + n, y),
            (_, true) => (b, x, y + n),
        };
        m.map(|m| (m, (y * n + x) as usize))
    }

    /// intra_chroma_pred_mode (9.3.3.1.1.8: intra neighbours with a mode other than DC).
    pub(crate) fn cabac_chroma_pred_mode(&self, e: &mut CabacEncoder, idx: usize, mode: u8) {
        let (a, b) = self.ab(idx);
        let cond =
            |n: Option<&MbInfo>| usize::from(n.is_some_and(|m| m.intra && m.chroma_mode != 0));
        se::intra_chroma_pred_mode(e, cond(a) + cond(b), mode);
    }

    /// transform_size_8x8_flag (9.3.3.1.1.10: neighbours that use the 8x8 transform).
    pub(crate) fn cabac_transform_size_8x8_flag(&self, e: &mut CabacEncoder, idx: usize, t8: bool) {
        let (a, b) = self.ab(idx);
        let cond = |n: Option<&MbInfo>| usize::from(n.is_some_and(|m| m.t8x8));
        se::transform_size_8x8_flag(e, cond(a) + cond(b), t8);
    }

    /// coded_block_pattern (9.3.3.1.1.4).
    pub(crate) fn cabac_cbp(&self, e: &mut CabacEncoder, idx: usize, cbp: u32) {
        let (a, b) = self.ab(idx);
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
        se::coded_block_pattern(e, cbp, luma_cond, chroma_cond);
    }

    /// condTermFlagA + 2 * condTermFlagB of a coded_block_flag (9.3.3.1.1.9),
    /// for the block whose flag is bit `bit` of [`MbInfo::cbf`] and whose
    /// neighbours are bits `bit_a` of A (or of the current macroblock when
    /// `a_inside`) and `bit_b` likewise. Flags of blocks not coded are 0, and an
    /// unavailable neighbour counts 1 for intra macroblocks, 0 for inter ones.
    fn cbf_cond(&self, idx: usize, a: (bool, u32), b: (bool, u32)) -> usize {
        let cur = &self.mbs[idx];
        let (ma, mb) = self.ab(idx);
        let flag = |inside: bool, bit: u32, n: Option<&MbInfo>| -> usize {
            let m = if inside { Some(cur) } else { n };
            m.map_or(usize::from(cur.intra), |m| ((m.cbf >> bit) & 1) as usize)
        };
        flag(a.0, a.1, ma) + 2 * flag(b.0, b.1, mb)
    }

    /// The luma residual of a macroblock (7.3.5.3): the Intra16x16DCLevel block,
    /// then the 4x4 blocks of each coded 8x8 block.
    pub(crate) fn cabac_luma_residual(
        &mut self,
        e: &mut CabacEncoder,
        idx: usize,
        levels: &[[i32; 16]; 16],
        dc: Option<&[i32; 16]>,
        cbp: u32,
    ) {
        if let Some(dc) = dc {
            let cond = self.cbf_cond(idx, (false, CBF_LUMA_DC), (false, CBF_LUMA_DC));
            let mut scan = [0i32; 16];
            for (k, &r) in ZIGZAG_4X4.iter().enumerate() {
                scan[k] = dc[r];
            }
            let n = se::residual_block(e, BlockCat::LumaDc, cond, &scan);
            self.mbs[idx].cbf |= u32::from(n != 0) << CBF_LUMA_DC;
            self.stats.rlc_count += u32::from(n);
        }
        for blk_idx in 0..16 {
            let r = BLK_TO_RASTER[blk_idx];
            if cbp & (1 << (blk_idx / 4)) == 0 {
                self.mbs[idx].nz[r] = 0;
                continue;
            }
            let (bx, by) = (r % 4, r / 4);
            let a = if bx > 0 {
                (true, r as u32 - 1)
            } else {
                (false, r as u32 + 3)
            };
            let b = if by > 0 {
                (true, r as u32 - 4)
            } else {
                (false, r as u32 + 12)
            };
            let cond = self.cbf_cond(idx, a, b);
            let lv = &levels[r];
            let n = if dc.is_some() {
                let mut scan = [0i32; 15];
                for k in 1..16 {
                    scan[k - 1] = lv[ZIGZAG_4X4[k]];
                }
                se::residual_block(e, BlockCat::LumaAc, cond, &scan)
            } else {
                let mut scan = [0i32; 16];
                for (k, &z) in ZIGZAG_4X4.iter().enumerate() {
                    scan[k] = lv[z];
                }
                se::residual_block(e, BlockCat::Luma4x4, cond, &scan)
            };
            self.mbs[idx].cbf |= u32::from(n != 0) << r;
            self.mbs[idx].nz[r] = n;
            self.stats.rlc_count += u32::from(n);
        }
    }

    /// The luma residual of an 8x8-transform macroblock: one LumaLevel8x8 block
    /// per coded 8x8 block, without coded_block_flag (4:2:0, 7.3.5.3.3), whose
    /// flag neighbours infer as 1 for each of its 4x4 blocks (7.4.5.3.3).
    pub(crate) fn cabac_luma_residual8(
        &mut self,
        e: &mut CabacEncoder,
        idx: usize,
        l8: &[[i32; 64]; 4],
        cbp: u32,
    ) {
        for (b8, lv) in l8.iter().enumerate() {
            let coded = cbp & (1 << b8) != 0;
            let n = if coded {
                let scan: [i32; 64] = core::array::from_fn(|k| lv[ZIGZAG_8X8[k]]);
                se::residual_block(e, BlockCat::Luma8x8, 0, &scan)
            } else {
                0
            };
            for i4 in 0..4 {
                let r = BLK_TO_RASTER[b8 * 4 + i4];
                self.mbs[idx].cbf |= u32::from(coded) << r;
                self.mbs[idx].nz[r] = n;
            }
            self.stats.rlc_count += u32::from(n);
        }
    }

    /// The chroma residual of a macroblock (7.3.5.3): both DC blocks when the
    /// chroma pattern is not 0, then every AC block when it is 2.
    pub(crate) fn cabac_chroma_residual(
        &mut self,
        e: &mut CabacEncoder,
        idx: usize,
        dc: &[[i32; 4]; 2],
        ac: &[[[i32; 16]; 4]; 2],
        cbp_chroma: u32,
    ) {
        if cbp_chroma == 0 {
            return;
        }
        for (c, dc) in dc.iter().enumerate() {
            let bit = CBF_CHROMA_DC + c as u32;
            let cond = self.cbf_cond(idx, (false, bit), (false, bit));
            let n = se::residual_block(e, BlockCat::ChromaDc, cond, dc);
            self.mbs[idx].cbf |= u32::from(n != 0) << bit;
            self.stats.rlc_count += u32::from(n);
        }
        if cbp_chroma < 2 {
            return;
        }
        for (c, ac) in ac.iter().enumerate() {
            let base = CBF_CHROMA_AC + 4 * c as u32;
            for (blk, lv) in ac.iter().enumerate() {
                let (bx, by) = (blk as u32 % 2, blk as u32 / 2);
                let a = if bx > 0 {
                    (true, base + blk as u32 - 1)
                } else {
                    (false, base + blk as u32 + 1)
                };
                let b = if by > 0 {
                    (true, base + blk as u32 - 2)
                } else {
                    (false, base + blk as u32 + 2)
                };
                let cond = self.cbf_cond(idx, a, b);
                let mut scan = [0i32; 15];
                for k in 1..16 {
                    scan[k - 1] = lv[ZIGZAG_4X4[k]];
                }
                let n = se::residual_block(e, BlockCat::ChromaAc, cond, &scan);
                self.mbs[idx].cbf |= u32::from(n != 0) << (base + blk as u32);
                self.mbs[idx].nzc[c][blk] = n;
                self.stats.rlc_count += u32::from(n);
            }
        }
    }
}

//! Motion decision of a P macroblock: the search of each partition, the
//! choice among P_L0_16x16, P_L0_L0_16x8, P_L0_L0_8x16 and P_8x8 (with 8x4,
//! 4x8 and 4x4 sub-macroblock partitions when the INTER4X4 register bit
//! allows them), and the motion-compensated prediction of the choice.

use super::decision::InterMb;
use super::params::FrameParams;
use super::partition::{sub_parts, Part, PartMode, Parts, SubMode, WHOLE};
use super::state::{LocalMotion, PicView};
use crate::bitwriter::{se_bits, ue_bits};
use crate::inter::SadFn;
use crate::refpic::RefPicture;

/// A 16x16 cost (SATD plus lambda-weighted bits) under this many lambdas plus
/// [`PARTITION_THRESHOLD`] is not searched further with smaller partitions.
const PARTITION_THRESHOLD_LAMBDAS: u32 = 256;
const PARTITION_THRESHOLD: u32 = 1024;

/// The motion search of the macroblocks of one slice against one reference.
pub struct MotionSearch<'a> {
    pub p: &'a FrameParams,
    pub pic: &'a PicView<'a>,
    pub rp: &'a RefPicture,
    pub slice: i32,
}

/// Cost of the integer vector `mv` (SAD, by the CPU level's `sad`).
#[allow(clippy::too_many_arguments)]
fn int_sad(
    sad: SadFn,
    rp: &RefPicture,
    px: i32,
    py: i32,
    mv: [i32; 2],
    w: usize,
    h: usize,
    src: &[u8],
) -> u32 {
    match rp.full_block(px + (mv[0] >> 2), py + (mv[1] >> 2), w, h) {
        Some((r, s)) => sad(src, 16, r, s, w, h),
        None => {
            let mut tmp = [0u8; 256];
            rp.luma(px, py, mv, w, h, &mut tmp, 16);
            sad(src, 16, &tmp, 16, w, h)
        }
    }
}

/// Moves `best` (vector, cost) to the cheapest of the in-range points
/// `best + d` for `d` in `deltas`, all measured from where `best` started.
#[inline(always)]
fn try_around(
    best: &mut ([i32; 2], u32),
    deltas: &[[i32; 2]],
    in_range: impl Fn([i32; 2]) -> bool,
    cost: impl Fn([i32; 2]) -> u32,
) {
    let centre = best.0;
    for d in deltas {
        let mv = [centre[0] + d[0], centre[1] + d[1]];
        if in_range(mv) {
            let k = cost(mv);
            if k < best.1 {
                *best = (mv, k);
            }
        }
    }
}

impl MotionSearch<'_> {
    /// Integer search by diamond descent from the best start, then half- and
    /// quarter-sample refinement by SATD. Returns the vector and its cost.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        mbx: usize,
        mby: usize,
        part: &Part,
        src: &[u8; 256],
        mvp: [i32; 2],
        starts: &[[i32; 2]],
        lam: u32,
    ) -> ([i32; 2], u32) {
        let (w, h) = (part.w4() * 4, part.h4() * 4);
        let (px, py) = (
            (mbx * 16 + part.x4() * 4) as i32,
            (mby * 16 + part.y4() * 4) as i32,
        );
        let blk = &src[part.y4() * 64 + part.x4() * 4..];
        let [rx, ry] = self.p.search_range;
        let in_range = |mv: [i32; 2]| mv[0].abs() <= rx * 4 && mv[1].abs() <= ry * 4;
        let bits = |mv: [i32; 2]| se_bits(mv[0] - mvp[0]) + se_bits(mv[1] - mvp[1]);
        let sad = self.p.dsp.sad;
        let cost = |mv: [i32; 2]| int_sad(sad, self.rp, px, py, mv, w, h, blk) + lam * bits(mv);
        let round = |v: [i32; 2]| [(v[0] + 2) & !3, (v[1] + 2) & !3];
        let mut best = ([0, 0], cost([0, 0]));
        for s in starts.iter().chain(core::iter::once(&mvp)) {
            let c = round(*s);
            if c != best.0 && in_range(c) {
                let k = cost(c);
                if k < best.1 {
                    best = (c, k);
                }
            }
        }
        let big = part.w4() * part.h4() >= 8;
        let rounds = if big { 2 } else { 1 };
        for _ in 0..rounds {
            // Diamond descent, at most 16 steps.
            for _ in 0..16 {
                let centre = best.0;
                try_around(
                    &mut best,
                    &[[4, 0], [-4, 0], [0, 4], [0, -4]],
                    in_range,
                    cost,
                );
                if best.0 == centre {
                    break;
                }
            }
            // A good match (under two per sample) is not a local minimum worth leaving.
            if !big || best.1 < (w * h * 2) as u32 {
                break;
            }
            // A ring two and four samples out, to leave local minima.
            let centre = best.0;
            const RING: [[i32; 2]; 8] = [
                [8, 8],
                [8, -8],
                [-8, 8],
                [-8, -8],
                [16, 0],
                [-16, 0],
                [0, 16],
                [0, -16],
            ];
            try_around(&mut best, &RING, in_range, cost);
            if best.0 == centre {
                break;
            }
        }
        // Fractional refinement by SAD; the partition's cost is the SATD of the winner.
        let mut pred = [0u8; 256];
        let sub_cost =
            |mv: [i32; 2]| -> u32 { self.rp.sad(px, py, mv, w, h, blk, 16) + lam * bits(mv) };
        let mut bestf = best;
        let steps: &[i32] = if self.p.disable_qpel { &[2] } else { &[2, 1] };
        // A cross at each step: the diagonals rarely win and cost as much.
        for &st in steps {
            let cross = [[0, -st], [-st, 0], [st, 0], [0, st]];
            try_around(&mut bestf, &cross, in_range, sub_cost);
        }
        self.rp.luma(px, py, bestf.0, w, h, &mut pred, 16);
        (
            bestf.0,
            (self.p.dsp.satd)(blk, 16, &pred, 16, w, h) + lam * bits(bestf.0),
        )
    }

    /// Searches the partitions of `parts` in order, each predicted from those
    /// before it; leaves their motion in place. Returns the vectors and cost.
    #[allow(clippy::too_many_arguments)]
    fn search_parts(
        &self,
        mbx: usize,
        mby: usize,
        parts: &[Part],
        src: &[u8; 256],
        starts: &[[i32; 2]],
        local: &mut LocalMotion,
        lam: u32,
    ) -> ([[i32; 2]; 16], u32) {
        let mut mv = [[0; 2]; 16];
        let mut total = 0;
        for (i, part) in parts.iter().enumerate() {
            let mvp = self.pic.part_mvp(self.slice, mbx, mby, part, local);
            let (v, c) = self.search(mbx, mby, part, src, mvp, starts, lam);
            mv[i] = v;
            total += c;
            local.set(part, v);
        }
        (mv, total)
    }

    /// Chooses the partitioning and vectors of a P macroblock.
    #[allow(clippy::too_many_arguments)]
    pub fn decide(
        &self,
        mbx: usize,
        mby: usize,
        src: &[u8; 256],
        skip_mv: [i32; 2],
        lam: u32,
    ) -> InterMb {
        let mut whole = LocalMotion::NONE;
        let (v, c) = self.search_parts(mbx, mby, &[WHOLE], src, &[skip_mv], &mut whole, lam);
        let mv16 = v[0];
        let mut best = InterMb {
            mode: PartMode::P16x16,
            mv: [mv16; 16],
            cost: c + lam * PartMode::P16x16.type_bits(),
        };
        // Smaller partitions only where the 16x16 prediction leaves a
        // residual worth splitting for.
        if !self.p.multi_mv || c < PARTITION_THRESHOLD_LAMBDAS * lam + PARTITION_THRESHOLD {
            return best;
        }
        // P_8x8: each 8x8 block with the best of its sub-partitionings.
        let mut subs = [SubMode::S8x8; 4];
        let mut mv8 = [[0; 2]; 16];
        let mut cost8 = 0;
        let mut local = LocalMotion::NONE;
        for k in 0..4 {
            let mut best_k: Option<(SubMode, [[i32; 2]; 16], u32)> = None;
            let modes: &[SubMode] = if self.p.inter4x4 {
                &[SubMode::S8x8, SubMode::S8x4, SubMode::S4x8, SubMode::S4x4]
            } else {
                &[SubMode::S8x8]
            };
            for &sub in modes {
                let mut parts = Parts::new();
                sub_parts(sub, k, &mut parts);
                let mut trial = local;
                let start = best_k.map_or(mv16, |b| b.1[0]);
                let (v, c) = self.search_parts(mbx, mby, &parts, src, &[start], &mut trial, lam);
                let c = c + lam * ue_bits(sub as u32);
                if best_k.is_none_or(|b| c < b.2) {
                    best_k = Some((sub, v, c));
                }
            }
            let (sub, v, c) = best_k.unwrap_or((SubMode::S8x8, [[0; 2]; 16], u32::MAX / 8));
            let mut parts = Parts::new();
            sub_parts(sub, k, &mut parts);
            for (i, p) in parts.iter().enumerate() {
                local.set(p, v[i]);
                for y in p.y4()..p.y4() + p.h4() {
                    for x in p.x4()..p.x4() + p.w4() {
                        mv8[y * 4 + x] = v[i];
                    }
                }
            }
            subs[k] = sub;
            cost8 += c;
        }
        let mode8 = PartMode::P8x8(subs);
        let cost8 = cost8 + lam * ue_bits(3);
        if cost8 < best.cost {
            best = InterMb {
                mode: mode8,
                mv: mv8,
                cost: cost8,
            };
        }
        if cost8 < c + lam * PartMode::P16x16.type_bits() {
            // Two-partition shapes, started from the 8x8 vectors of each half.
            for mode in [PartMode::P16x8, PartMode::P8x16] {
                let parts = mode.parts();
                let starts = [mv8[0], mv8[10], mv16];
                let mut halves = LocalMotion::NONE;
                let (v, c) = self.search_parts(mbx, mby, &parts, src, &starts, &mut halves, lam);
                let c = c + lam * mode.type_bits();
                if c < best.cost {
                    let mut mv = [[0; 2]; 16];
                    for (i, p) in parts.iter().enumerate() {
                        for y in p.y4()..p.y4() + p.h4() {
                            for x in p.x4()..p.x4() + p.w4() {
                                mv[y * 4 + x] = v[i];
                            }
                        }
                    }
                    best = InterMb { mode, mv, cost: c };
                }
            }
        }
        best
    }

    /// Luma and chroma prediction of a P macroblock from its vectors.
    pub fn predict_inter(
        &self,
        mbx: usize,
        mby: usize,
        m: &InterMb,
        luma: &mut [u8; 256],
        chroma: &mut [[u8; 64]; 2],
    ) {
        let (x0, y0) = ((mbx * 16) as i32, (mby * 16) as i32);
        for p in m.mode.parts().iter() {
            let mv = m.mv[p.y4() * 4 + p.x4()];
            let (x, y, w, h) = (p.x4() * 4, p.y4() * 4, p.w4() * 4, p.h4() * 4);
            self.rp.luma(
                x0 + x as i32,
                y0 + y as i32,
                mv,
                w,
                h,
                &mut luma[y * 16 + x..],
                16,
            );
        }
        self.predict_chroma(mbx, mby, m.mode, &m.mv, chroma);
    }

    /// Chroma prediction of a P macroblock partitioned as `mode` with the
    /// vectors `mv` of its 4x4 blocks.
    pub fn predict_chroma(
        &self,
        mbx: usize,
        mby: usize,
        mode: PartMode,
        mv: &[[i32; 2]; 16],
        chroma: &mut [[u8; 64]; 2],
    ) {
        let (x0, y0) = ((mbx * 8) as i32, (mby * 8) as i32);
        // The whole macroblock (P_Skip, P_L0_16x16) without listing partitions.
        if mode == PartMode::P16x16 {
            for (c, out) in chroma.iter_mut().enumerate() {
                self.rp.chroma(c, x0, y0, mv[0], 8, 8, out, 8);
            }
            return;
        }
        for p in mode.parts().iter() {
            let v = mv[p.y4() * 4 + p.x4()];
            let (x, y, w, h) = (p.x4() * 2, p.y4() * 2, p.w4() * 2, p.h4() * 2);
            for (c, out) in chroma.iter_mut().enumerate() {
                self.rp.chroma(
                    c,
                    x0 + x as i32,
                    y0 + y as i32,
                    v,
                    w,
                    h,
                    &mut out[y * 8 + x..],
                    8,
                );
            }
        }
    }
}

//! P macroblocks with motion: the partitions of Tables 7-13 and 7-17, the
//! motion search of each partition, the choice among P_L0_16x16, P_L0_L0_16x8,
//! P_L0_L0_8x16 and P_8x8 (with 8x4, 4x8 and 4x4 sub-macroblock partitions
//! when the INTER4X4 register bit allows them), and their mb_pred() and
//! sub_mb_pred() syntax (7.3.5.1, 7.3.5.2).

use crate::bitwriter::{se_bits, ue_bits, BitWriter};
use crate::encoder::FrameCoder;
use crate::inter::{sad, satd};
use crate::mvpred::{self, BlockMotion, Shape};
use crate::refpic::RefPicture;

/// A 16x16 cost (SATD plus lambda-weighted bits) under this many lambdas plus
/// [`PARTITION_THRESHOLD`] is not searched further with smaller partitions.
const PARTITION_THRESHOLD_LAMBDAS: u32 = 256;
const PARTITION_THRESHOLD: u32 = 1024;

/// sub_mb_type of a P_8x8 macroblock (Table 7-17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubMode {
    S8x8 = 0,
    S8x4 = 1,
    S4x8 = 2,
    S4x4 = 3,
}

/// mb_type of a P macroblock with motion (Table 7-13; ref_idx is never coded
/// since the H1 predicts from one reference).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartMode {
    P16x16,
    P16x8,
    P8x16,
    P8x8([SubMode; 4]),
}

/// A macroblock or sub-macroblock partition, in 4x4 blocks of its macroblock
/// (kept in bytes: partition lists are built for every predicted macroblock).
#[derive(Clone, Copy, Debug)]
pub struct Part {
    pos: [u8; 4],
    pub shape: Shape,
}

impl Part {
    const fn new(x4: usize, y4: usize, w4: usize, h4: usize, shape: Shape) -> Self {
        Part {
            pos: [x4 as u8, y4 as u8, w4 as u8, h4 as u8],
            shape,
        }
    }

    /// Column of its top-left 4x4 block.
    pub fn x4(&self) -> usize {
        self.pos[0] as usize
    }

    /// Row of its top-left 4x4 block.
    pub fn y4(&self) -> usize {
        self.pos[1] as usize
    }

    /// Width in 4x4 blocks.
    pub fn w4(&self) -> usize {
        self.pos[2] as usize
    }

    /// Height in 4x4 blocks.
    pub fn h4(&self) -> usize {
        self.pos[3] as usize
    }

    /// The 4x4 blocks it covers, as a raster bit mask.
    pub(crate) fn mask(&self) -> u16 {
        let row = ((1u16 << self.w4()) - 1) << self.x4();
        (self.y4()..self.y4() + self.h4()).fold(0, |m, y| m | row << (y * 4))
    }
}

const WHOLE: Part = Part::new(0, 0, 4, 4, Shape::Other);

/// The partitions of a macroblock, at most 16 (4x4 sub-macroblock partitions),
/// kept inline: they are listed for every predicted macroblock.
#[derive(Clone, Copy)]
pub struct Parts {
    list: [Part; 16],
    n: usize,
}

impl Parts {
    const fn new() -> Self {
        // All-zero entries, which compile to a plain clear of the array.
        const EMPTY: Part = Part::new(0, 0, 0, 0, Shape::Other);
        Parts {
            list: [EMPTY; 16],
            n: 0,
        }
    }

    fn push(&mut self, p: Part) {
        self.list[self.n] = p;
        self.n += 1;
    }
}

impl core::ops::Deref for Parts {
    type Target = [Part];

    fn deref(&self) -> &[Part] {
        &self.list[..self.n]
    }
}

fn sub_parts(sub: SubMode, k: usize, out: &mut Parts) {
    let (bx, by) = (k % 2 * 2, k / 2 * 2);
    match sub {
        SubMode::S8x8 => out.push(Part::new(bx, by, 2, 2, Shape::Other)),
        SubMode::S8x4 => {
            out.push(Part::new(bx, by, 2, 1, Shape::Other));
            out.push(Part::new(bx, by + 1, 2, 1, Shape::Other));
        }
        SubMode::S4x8 => {
            out.push(Part::new(bx, by, 1, 2, Shape::Other));
            out.push(Part::new(bx + 1, by, 1, 2, Shape::Other));
        }
        SubMode::S4x4 => {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                out.push(Part::new(bx + dx, by + dy, 1, 1, Shape::Other));
            }
        }
    }
}

impl PartMode {
    /// mb_type in a P slice.
    pub fn mb_type(self) -> u32 {
        match self {
            PartMode::P16x16 => 0,
            PartMode::P16x8 => 1,
            PartMode::P8x16 => 2,
            PartMode::P8x8(_) => 3,
        }
    }

    /// No partition smaller than 8x8 (noSubMbPartSizeLessThan8x8Flag).
    pub fn min_part_8x8(self) -> bool {
        match self {
            PartMode::P8x8(subs) => subs.iter().all(|&s| s == SubMode::S8x8),
            _ => true,
        }
    }

    /// The partitions in the order their motion vector differences are coded.
    pub fn parts(self) -> Parts {
        let mut v = Parts::new();
        match self {
            PartMode::P16x16 => v.push(WHOLE),
            PartMode::P16x8 => {
                v.push(Part::new(0, 0, 4, 2, Shape::Rows(0)));
                v.push(Part::new(0, 2, 4, 2, Shape::Rows(1)));
            }
            PartMode::P8x16 => {
                v.push(Part::new(0, 0, 2, 4, Shape::Cols(0)));
                v.push(Part::new(2, 0, 2, 4, Shape::Cols(1)));
            }
            PartMode::P8x8(subs) => {
                for (k, s) in subs.iter().enumerate() {
                    sub_parts(*s, k, &mut v);
                }
            }
        }
        v
    }

    /// Bits of mb_type and the sub_mb_types.
    fn type_bits(self) -> u32 {
        let mut b = ue_bits(self.mb_type());
        if let PartMode::P8x8(subs) = self {
            b += subs.iter().map(|s| ue_bits(*s as u32)).sum::<u32>();
        }
        b
    }
}

/// The motion chosen for a P macroblock.
#[derive(Clone, Copy, Debug)]
pub struct InterMb {
    pub mode: PartMode,
    /// Vector of each 4x4 block, raster order, in quarter samples.
    pub mv: [[i32; 2]; 16],
    /// SATD of the prediction plus lambda times the bits of types and vectors.
    pub cost: u32,
}

/// Cost of the integer vector `mv` (SAD).
#[allow(clippy::too_many_arguments)]
fn int_sad(rp: &RefPicture, px: i32, py: i32, mv: [i32; 2], w: usize, h: usize, src: &[u8]) -> u32 {
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

impl FrameCoder<'_> {
    /// mvpLX of `part` (8.4.1.3), with the blocks of this macroblock in `done` decoded.
    pub(crate) fn part_mvp(
        &self,
        slice: i32,
        mbx: usize,
        mby: usize,
        part: &Part,
        done: u16,
    ) -> [i32; 2] {
        let (a, b, c) = self.neighbours(
            slice,
            (mbx * 4 + part.x4()) as i32,
            (mby * 4 + part.y4()) as i32,
            part.w4() as i32,
            (mbx as i32, mby as i32),
            done,
        );
        mvpred::predict(0, a, b, c, part.shape)
    }

    pub(crate) fn set_part_motion(&mut self, mbx: usize, mby: usize, part: &Part, mv: [i32; 2]) {
        let w4 = self.mb_w() * 4;
        for y in part.y4()..part.y4() + part.h4() {
            for x in part.x4()..part.x4() + part.w4() {
                self.motion[(mby * 4 + y) * w4 + mbx * 4 + x] = BlockMotion { ref_idx: 0, mv };
            }
        }
    }

    /// Integer search by diamond descent from the best start, then half- and
    /// quarter-sample refinement by SATD. Returns the vector and its cost.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        rp: &RefPicture,
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
        let cost = |mv: [i32; 2]| int_sad(rp, px, py, mv, w, h, blk) + lam * bits(mv);
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
        let sub_cost = |mv: [i32; 2]| -> u32 { rp.sad(px, py, mv, w, h, blk, 16) + lam * bits(mv) };
        let mut bestf = best;
        let steps: &[i32] = if self.p.disable_qpel { &[2] } else { &[2, 1] };
        // A cross at each step: the diagonals rarely win and cost as much.
        for &st in steps {
            let cross = [[0, -st], [-st, 0], [st, 0], [0, st]];
            try_around(&mut bestf, &cross, in_range, sub_cost);
        }
        rp.luma(px, py, bestf.0, w, h, &mut pred, 16);
        (
            bestf.0,
            satd(blk, 16, &pred, 16, w, h) + lam * bits(bestf.0),
        )
    }

    /// Searches the partitions of `parts` in order, each predicted from those
    /// before it; leaves their motion in place. Returns the vectors and cost.
    #[allow(clippy::too_many_arguments)]
    fn search_parts(
        &mut self,
        rp: &RefPicture,
        slice: i32,
        mbx: usize,
        mby: usize,
        parts: &[Part],
        src: &[u8; 256],
        starts: &[[i32; 2]],
        done: &mut u16,
        lam: u32,
    ) -> ([[i32; 2]; 16], u32) {
        let mut mv = [[0; 2]; 16];
        let mut total = 0;
        for (i, part) in parts.iter().enumerate() {
            let mvp = self.part_mvp(slice, mbx, mby, part, *done);
            let (v, c) = self.search(rp, mbx, mby, part, src, mvp, starts, lam);
            mv[i] = v;
            total += c;
            self.set_part_motion(mbx, mby, part, v);
            *done |= part.mask();
        }
        (mv, total)
    }

    /// Chooses the partitioning and vectors of a P macroblock.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn decide_inter(
        &mut self,
        rp: &RefPicture,
        slice: i32,
        mbx: usize,
        mby: usize,
        src: &[u8; 256],
        skip_mv: [i32; 2],
        lam: u32,
    ) -> InterMb {
        let mut done = 0;
        let (v, c) = self.search_parts(
            rp,
            slice,
            mbx,
            mby,
            &[WHOLE],
            src,
            &[skip_mv],
            &mut done,
            lam,
        );
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
        let mut done = 0u16;
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
                let mut d = done;
                let start = best_k.map_or(mv16, |b| b.1[0]);
                let (v, c) =
                    self.search_parts(rp, slice, mbx, mby, &parts, src, &[start], &mut d, lam);
                let c = c + lam * ue_bits(sub as u32);
                if best_k.is_none_or(|b| c < b.2) {
                    best_k = Some((sub, v, c));
                }
            }
            let (sub, v, c) = best_k.unwrap_or((SubMode::S8x8, [[0; 2]; 16], u32::MAX / 8));
            let mut parts = Parts::new();
            sub_parts(sub, k, &mut parts);
            for (i, p) in parts.iter().enumerate() {
                self.set_part_motion(mbx, mby, p, v[i]);
                for y in p.y4()..p.y4() + p.h4() {
                    for x in p.x4()..p.x4() + p.w4() {
                        mv8[y * 4 + x] = v[i];
                    }
                }
                done |= p.mask();
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
                let mut d = 0u16;
                let starts = [mv8[0], mv8[10], mv16];
                let (v, c) =
                    self.search_parts(rp, slice, mbx, mby, &parts, src, &starts, &mut d, lam);
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
    pub(crate) fn predict_inter(
        &self,
        rp: &RefPicture,
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
            rp.luma(
                x0 + x as i32,
                y0 + y as i32,
                mv,
                w,
                h,
                &mut luma[y * 16 + x..],
                16,
            );
        }
        self.predict_chroma(rp, mbx, mby, m.mode, &m.mv, chroma);
    }

    /// Chroma prediction of a P macroblock partitioned as `mode` with the
    /// vectors `mv` of its 4x4 blocks.
    pub(crate) fn predict_chroma(
        &self,
        rp: &RefPicture,
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
                rp.chroma(c, x0, y0, mv[0], 8, 8, out, 8);
            }
            return;
        }
        for p in mode.parts().iter() {
            let v = mv[p.y4() * 4 + p.x4()];
            let (x, y, w, h) = (p.x4() * 2, p.y4() * 2, p.w4() * 2, p.h4() * 2);
            for (c, out) in chroma.iter_mut().enumerate() {
                rp.chroma(
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

    /// Writes mb_type and mb_pred()/sub_mb_pred() (7.3.5.1, 7.3.5.2) and
    /// stores the macroblock's motion; each vector difference is taken
    /// against the prediction from the final vectors, as a decoder derives it.
    pub(crate) fn write_inter_pred(
        &mut self,
        bw: &mut BitWriter,
        slice: i32,
        mbx: usize,
        mby: usize,
        m: &InterMb,
    ) {
        bw.ue(m.mode.mb_type());
        if let PartMode::P8x8(subs) = m.mode {
            for s in subs {
                bw.ue(s as u32);
            }
        }
        let mut done = 0u16;
        for p in m.mode.parts().iter() {
            let mv = m.mv[p.y4() * 4 + p.x4()];
            let mvp = self.part_mvp(slice, mbx, mby, p, done);
            bw.se(mv[0] - mvp[0]);
            bw.se(mv[1] - mvp[1]);
            self.set_part_motion(mbx, mby, p, mv);
            done |= p.mask();
        }
    }
}

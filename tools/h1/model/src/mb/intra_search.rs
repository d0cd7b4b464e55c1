//! Intra mode decision: the Intra_16x16 mode, the Intra_4x4 and Intra_8x8
//! modes of each block (one search generic over the block size), and the
//! chroma mode.

use super::decision::LumaCoding;
use super::residual::{clamp_levels, clamp_levels8};
use super::state::{LumaEdges, PicView};
use crate::intra::{self, Edges};
use crate::intra8x8;
use crate::picture::Planes;
use crate::simd::Dsp;
use crate::tables::BLK_TO_RASTER;
use crate::transform::{fdct4x4, quant4x4, reconstruct4x4};
use crate::transform8x8 as t8;

/// A block size of Intra_NxN prediction: 4x4 (8.3.1) or 8x8 (8.3.2).
pub trait IntraNxN {
    /// Samples per side.
    const N: usize;
    /// The cost a macroblock of this type starts from, in lambdas (its types' bits).
    const BASE_LAMBDAS: u32;
    /// The samples (or levels) of one block, raster order.
    type Samples: Copy + AsRef<[u8]> + AsMut<[u8]>;
    type Levels: Copy + AsRef<[i32]> + AsMut<[i32]>;
    const ZERO_SAMPLES: Self::Samples;
    const ZERO_LEVELS: Self::Levels;

    /// Blocks per macroblock side.
    fn per_side() -> usize {
        16 / Self::N
    }

    /// Position (column, row) of the block `i`-th in decoding order.
    fn position(i: usize) -> (usize, usize);

    /// Index in decoding order of the block at (column, row).
    fn decoding_index(bx: usize, by: usize) -> usize;

    /// The raster 4x4 block whose mode stands for block (bx, by) as
    /// neighbour A (`left`) or B of another block (8.3.1.1, 8.3.2.1).
    fn mode_block(bx: usize, by: usize, left: bool) -> usize;

    /// The predictions of all nine modes; returns the mask of those available.
    fn predict_all(e: &Edges, out: &mut [Self::Samples; 9]) -> u16;

    /// The Hadamard cost of predicting `src` by each available mode.
    fn mode_costs(
        dsp: &Dsp,
        src: &Self::Samples,
        preds: &[Self::Samples; 9],
        avail: u16,
    ) -> [u32; 9];

    /// Transforms and quantizes the residual in place; whether a level is not 0.
    fn quantize(levels: &mut Self::Levels, qp: i32) -> bool;

    /// The residual a decoder reconstructs from `levels`.
    fn reconstruct(levels: &Self::Levels, qp: i32) -> Self::Levels;

    /// Stores the levels of block (bx, by) in `luma`.
    fn store(luma: &mut LumaCoding, bx: usize, by: usize, levels: &Self::Levels);
}

/// Intra_4x4 (8.3.1): 16 blocks in the zig-zag of Figure 6-10.
pub struct Intra4x4;

/// Intra_8x8 (8.3.2): four blocks, coded with the 8x8 transform.
pub struct Intra8x8;

impl IntraNxN for Intra4x4 {
    const N: usize = 4;
    const BASE_LAMBDAS: u32 = 24;
    type Samples = [u8; 16];
    type Levels = [i32; 16];
    const ZERO_SAMPLES: [u8; 16] = [0; 16];
    const ZERO_LEVELS: [i32; 16] = [0; 16];

    fn position(i: usize) -> (usize, usize) {
        let r = BLK_TO_RASTER[i];
        (r % 4, r / 4)
    }

    fn decoding_index(bx: usize, by: usize) -> usize {
        BLK_TO_RASTER
            .iter()
            .position(|&q| q == by * 4 + bx)
            .unwrap_or(16)
    }

    fn mode_block(bx: usize, by: usize, _left: bool) -> usize {
        by * 4 + bx
    }

    fn predict_all(e: &Edges, out: &mut [[u8; 16]; 9]) -> u16 {
        intra::pred4x4_all(e, out)
    }

    fn mode_costs(dsp: &Dsp, src: &[u8; 16], preds: &[[u8; 16]; 9], _avail: u16) -> [u32; 9] {
        // Modes two at a time; the last pairs with itself.
        let mut out = [0; 9];
        for m0 in (0..9).step_by(2) {
            let m1 = (m0 + 1).min(8);
            let sums = (dsp.satd4x4_x2)(src, &preds[m0], &preds[m1]);
            out[m0] = sums[0];
            out[m1] = sums[1];
        }
        out
    }

    fn quantize(d: &mut [i32; 16], qp: i32) -> bool {
        fdct4x4(d);
        quant4x4(d, qp, true, false);
        clamp_levels(d);
        d.iter().any(|&v| v != 0)
    }

    fn reconstruct(levels: &[i32; 16], qp: i32) -> [i32; 16] {
        let mut d = *levels;
        reconstruct4x4(&mut d, qp, None);
        d
    }

    fn store(luma: &mut LumaCoding, bx: usize, by: usize, levels: &[i32; 16]) {
        luma.levels[by * 4 + bx] = *levels;
    }
}

impl IntraNxN for Intra8x8 {
    const N: usize = 8;
    const BASE_LAMBDAS: u32 = 16;
    type Samples = [u8; 64];
    type Levels = [i32; 64];
    const ZERO_SAMPLES: [u8; 64] = [0; 64];
    const ZERO_LEVELS: [i32; 64] = [0; 64];

    fn position(i: usize) -> (usize, usize) {
        (i % 2, i / 2)
    }

    fn decoding_index(bx: usize, by: usize) -> usize {
        by * 2 + bx
    }

    /// An 8x8 block's mode is that of its 4x4 block 1 as neighbour A and
    /// of its 4x4 block 2 as neighbour B: for an Intra_4x4 neighbour, the
    /// 4x4 block next to this one (8.3.2.1).
    fn mode_block(bx: usize, by: usize, left: bool) -> usize {
        if left {
            by * 8 + bx * 2 + 1
        } else {
            (by * 2 + 1) * 4 + bx * 2
        }
    }

    fn predict_all(e: &Edges, out: &mut [[u8; 64]; 9]) -> u16 {
        intra8x8::pred8x8_all(e, out)
    }

    fn mode_costs(dsp: &Dsp, src: &[u8; 64], preds: &[[u8; 64]; 9], avail: u16) -> [u32; 9] {
        core::array::from_fn(|m| {
            if avail & (1 << m) != 0 {
                (dsp.sa8d8)(src, &preds[m])
            } else {
                u32::MAX
            }
        })
    }

    fn quantize(lv: &mut [i32; 64], qp: i32) -> bool {
        t8::fdct8x8(lv);
        let coded = t8::quant8x8(lv, qp, true);
        clamp_levels8(lv);
        coded
    }

    fn reconstruct(levels: &[i32; 64], qp: i32) -> [i32; 64] {
        let mut d = *levels;
        t8::reconstruct8x8(&mut d, qp);
        d
    }

    fn store(luma: &mut LumaCoding, bx: usize, by: usize, levels: &[i32; 64]) {
        luma.levels8.get_or_insert_with(|| Box::new([[0; 64]; 4]))[by * 2 + bx] = *levels;
    }
}

/// predIntraNxNPredMode of block (bx, by) of macroblock (x, y) (8.3.1.1,
/// 8.3.2.1), with the modes `modes` (raster 4x4) decided in this macroblock.
pub fn predicted_mode<B: IntraNxN>(
    pic: &PicView,
    slice: i32,
    (x, y): (i32, i32),
    (bx, by): (usize, usize),
    modes: &[u8; 16],
) -> u8 {
    let last = B::per_side() - 1;
    let a = if bx > 0 {
        Some(modes[B::mode_block(bx - 1, by, true)])
    } else {
        pic.neighbour_intra_mode(x - 1, y, slice, B::mode_block(last, by, true))
    };
    let b = if by > 0 {
        Some(modes[B::mode_block(bx, by - 1, false)])
    } else {
        pic.neighbour_intra_mode(x, y - 1, slice, B::mode_block(bx, last, false))
    };
    match (a, b) {
        (Some(a), Some(b)) => a.min(b),
        _ => intra::I4_DC,
    }
}

/// Intra_NxN with a per-block mode decision; returns its cost, its coding
/// and the mode of each 4x4 block (raster; an 8x8 block's repeated).
#[allow(clippy::too_many_arguments)]
pub fn search_nxn<B: IntraNxN>(
    dsp: &Dsp,
    pic: &PicView,
    slice: i32,
    (x, y): (i32, i32),
    edges: &LumaEdges,
    src: &[u8; 256],
    qp: i32,
    lam: u32,
) -> (u32, LumaCoding, [u8; 16]) {
    let n = B::N;
    let last = B::per_side() - 1;
    let tra = pic.intra_avail(x + 1, y - 1, slice);
    let mut top_right = [0u8; 8];
    if tra {
        top_right = pic.samples(0, x as usize * 16 + 16, y as usize * 16 - 1);
    }
    let mut luma = LumaCoding::none([0; 256]);
    let mut modes = [intra::I4_DC; 16];
    let mut cost = lam * B::BASE_LAMBDAS;
    for i in 0..B::per_side() * B::per_side() {
        let (bx, by) = B::position(i);
        let (px, py) = (bx * n, by * n);
        let l_ok = bx > 0 || edges.left_ok;
        let t_ok = by > 0 || edges.top_ok;
        let tl_ok = match (bx > 0, by > 0) {
            (true, true) => true,
            (false, true) => edges.left_ok,
            (true, false) => edges.top_ok,
            (false, false) => edges.top_left_ok,
        };
        // The block above and right is available if it is decoded already.
        let tr_ok = if by == 0 {
            if bx < last {
                edges.top_ok
            } else {
                tra
            }
        } else {
            bx < last && B::decoding_index(bx + 1, by - 1) < i
        };
        // The samples above, left and above-left of the block: from this
        // macroblock's reconstruction or its neighbours' edges.
        let mut top = [0u8; 16];
        let mut left = [0u8; 8];
        let top_left;
        {
            let rec = &luma.rec;
            let sample = |sx: i32, sy: i32| -> u8 {
                if sx >= 0 && sy >= 0 {
                    rec[sy as usize * 16 + sx as usize]
                } else if sy < 0 && sx < 0 {
                    edges.top_left
                } else if sy < 0 {
                    if sx < 16 {
                        edges.top[sx as usize]
                    } else {
                        top_right[(sx - 16) as usize]
                    }
                } else {
                    edges.left[sy as usize]
                }
            };
            for k in 0..n {
                top[k] = sample((px + k) as i32, py as i32 - 1);
                left[k] = sample(px as i32 - 1, (py + k) as i32);
            }
            for k in n..2 * n {
                top[k] = if tr_ok {
                    sample((px + k) as i32, py as i32 - 1)
                } else {
                    top[n - 1]
                };
            }
            top_left = sample(px as i32 - 1, py as i32 - 1);
        }
        let e = Edges {
            top: t_ok.then_some(&top[..2 * n]),
            left: l_ok.then_some(&left[..n]),
            top_left: tl_ok.then_some(top_left),
        };
        let pred_mode = predicted_mode::<B>(pic, slice, (x, y), (bx, by), &modes);
        let mut sblk = B::ZERO_SAMPLES;
        for (r, row) in sblk.as_mut().chunks_exact_mut(n).enumerate() {
            row.copy_from_slice(&src[(py + r) * 16 + px..][..n]);
        }
        let mut preds = [B::ZERO_SAMPLES; 9];
        let avail = B::predict_all(&e, &mut preds);
        let costs = B::mode_costs(dsp, &sblk, &preds, avail);
        let mut best = (intra::I4_DC, u32::MAX);
        for (mode, &sum) in costs.iter().enumerate() {
            if avail & (1 << mode) != 0 {
                let bits = if mode as u8 == pred_mode { 1 } else { 4 };
                let c = sum + lam * bits;
                if c < best.1 {
                    best = (mode as u8, c);
                }
            }
        }
        cost += best.1;
        for r in 0..n / 4 {
            for c in 0..n / 4 {
                modes[(by * n / 4 + r) * 4 + bx * n / 4 + c] = best.0;
            }
        }
        let pred = preds[best.0 as usize];
        let mut lv = B::ZERO_LEVELS;
        for ((d, &s), &p) in lv.as_mut().iter_mut().zip(sblk.as_ref()).zip(pred.as_ref()) {
            *d = i32::from(s) - i32::from(p);
        }
        if B::quantize(&mut lv, qp) {
            luma.cbp |= 1 << ((py / 8) * 2 + px / 8);
        }
        B::store(&mut luma, bx, by, &lv);
        let d = B::reconstruct(&lv, qp);
        for (k, (&p, &r)) in pred.as_ref().iter().zip(d.as_ref()).enumerate() {
            luma.rec[(py + k / n) * 16 + px + k % n] = (i32::from(p) + r).clamp(0, 255) as u8;
        }
    }
    (cost, luma, modes)
}

/// The cheapest Intra_16x16 mode and its cost. P slices leave out the
/// plane mode, which rarely beats motion compensation there and is the
/// costly one to predict.
pub fn best_i16(dsp: &Dsp, edges: &LumaEdges, src: &[u8; 256], lam: u32, plane: bool) -> (u8, u32) {
    let e = Edges {
        top: edges.top_ok.then_some(&edges.top[..]),
        left: edges.left_ok.then_some(&edges.left[..]),
        top_left: edges.top_left_ok.then_some(edges.top_left),
    };
    let mut best = (intra::I16_DC, u32::MAX);
    let mut pred = [0u8; 256];
    let modes = if plane { 4 } else { 3 };
    for mode in 0..modes {
        if intra::pred16x16(mode, &e, &mut pred) {
            let cost = (dsp.satd)(src, 16, &pred, 16, 16, 16) + lam * 6;
            if cost < best.1 {
                best = (mode, cost);
            }
        }
    }
    best
}

/// The chroma mode of an intra macroblock (x, y) with the cheapest
/// prediction of `src`, and its predictions of Cb and Cr.
pub fn chroma_intra(
    dsp: &Dsp,
    pic: &PicView,
    src: &Planes,
    slice: i32,
    x: i32,
    y: i32,
) -> (u8, [[u8; 64]; 2]) {
    let la = pic.intra_avail(x - 1, y, slice);
    let ta = pic.intra_avail(x, y - 1, slice);
    let tla = pic.intra_avail(x - 1, y - 1, slice);
    let cs = pic.cstride();
    let (px, py) = (x as usize * 8, y as usize * 8);
    let mut best = (intra::CHROMA_DC, u32::MAX, [[0u8; 64]; 2]);
    let mut edges = [([0u8; 8], [0u8; 8], 0u8); 2];
    for (c, e) in edges.iter_mut().enumerate() {
        if ta {
            e.0 = pic.samples(1 + c, px, py - 1);
        }
        if la {
            for r in 0..8 {
                e.1[r] = pic.sample(1 + c, px - 1, py + r);
            }
        }
        if tla {
            e.2 = pic.sample(1 + c, px - 1, py - 1);
        }
    }
    for mode in 0..4 {
        let mut preds = [[0u8; 64]; 2];
        let mut ok = true;
        let mut cost = 0;
        for c in 0..2 {
            let e = Edges {
                top: ta.then_some(&edges[c].0[..]),
                left: la.then_some(&edges[c].1[..]),
                top_left: tla.then_some(edges[c].2),
            };
            ok &= intra::pred_chroma(mode, &e, &mut preds[c]);
            let plane = if c == 0 { &src.cb } else { &src.cr };
            cost += (dsp.satd)(&plane[py * cs + px..], cs, &preds[c], 8, 8, 8);
        }
        if ok && cost < best.1 {
            best = (mode, cost, preds);
        }
    }
    (best.0, best.2)
}

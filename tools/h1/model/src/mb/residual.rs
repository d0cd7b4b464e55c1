//! Residual coding of a decided macroblock: transform, quantization and the
//! reconstruction a decoder makes (8.5), for each kind of luma and for chroma.

use super::decision::{ChromaCoding, LumaCoding};
use super::state::LumaEdges;
use crate::cavlc::LEVEL_CLAMP;
use crate::decimate;
use crate::intra::{self, Edges};
use crate::picture::Planes;
use crate::tables::chroma_qp;
use crate::transform::*;
use crate::transform8x8 as t8;

/// The signature of [`quant_luma_inter`] at every CPU level.
pub type QuantLumaInterFn = fn(&[u8; 256], &[u8; 256], i32) -> ([[i32; 16]; 16], u32);
/// The signature of [`quant_chroma`] at every CPU level.
pub type QuantChromaFn =
    fn([&[u8]; 2], usize, usize, usize, i32, bool, &[[u8; 64]; 2]) -> ChromaCoding;

/// Codes the luma of an Intra_16x16 macroblock predicted in `mode` from `edges`.
pub fn code_luma_i16(edges: &LumaEdges, src: &[u8; 256], mode: u8, qp: i32) -> LumaCoding {
    let e = Edges {
        top: edges.top_ok.then_some(&edges.top[..]),
        left: edges.left_ok.then_some(&edges.left[..]),
        top_left: edges.top_left_ok.then_some(edges.top_left),
    };
    let mut pred = [0u8; 256];
    intra::pred16x16(mode, &e, &mut pred);
    let mut blocks = [[0i32; 16]; 16];
    let mut dc = [0i32; 16];
    for (b, blk) in blocks.iter_mut().enumerate() {
        *blk = residual_dct(src, &pred, b);
        dc[b] = blk[0];
        blk[0] = 0;
    }
    hadamard4x4(&mut dc);
    quant_luma_dc(&mut dc, qp);
    let mut any_ac = false;
    for blk in blocks.iter_mut() {
        any_ac |= quant4x4(blk, qp, true, true);
        clamp_levels(blk);
    }
    clamp_levels(&mut dc);
    let levels = blocks;
    // Reconstruct as a decoder would (8.5.10, 8.5.12).
    let mut dcr = dc;
    hadamard4x4(&mut dcr);
    dequant_luma_dc(&mut dcr, qp);
    let mut rec = [0u8; 256];
    for (b, lv) in levels.iter().enumerate() {
        let mut d = if any_ac { *lv } else { [0; 16] };
        reconstruct4x4(&mut d, qp, Some(dcr[b]));
        add_block(&mut rec, &pred, b, &d);
    }
    LumaCoding {
        levels: if any_ac { levels } else { [[0; 16]; 16] },
        dc,
        cbp: if any_ac { 15 } else { 0 },
        rec,
        levels8: None,
    }
}

/// Codes an inter luma residual with the 4x4 transform, leaving 8x8 blocks
/// of lone small levels uncoded ([`decimate`]); `quant` is the
/// [`quant_luma_inter`] of the H1's CPU level.
pub fn code_luma_inter(
    src: &[u8; 256],
    pred: &[u8; 256],
    qp: i32,
    quant: QuantLumaInterFn,
) -> LumaCoding {
    let (mut levels, cbp) = quant(src, pred, qp);
    let mut scores = [0u32; 4];
    for (r, lv) in levels.iter().enumerate() {
        let b8 = (r / 8) * 2 + r % 4 / 2;
        if cbp & (1 << b8) != 0 {
            scores[b8] += decimate::score4x4(lv);
        }
    }
    let cbp = decimate::luma_cbp(scores, cbp);
    let mut rec = [0u8; 256];
    for (r, lv) in levels.iter_mut().enumerate() {
        let (bx, by) = (r % 4 * 4, r / 4 * 4);
        if cbp & (1 << ((by / 8) * 2 + bx / 8)) == 0 {
            *lv = [0; 16];
        }
        let mut d = *lv;
        reconstruct4x4(&mut d, qp, None);
        add_block(&mut rec, pred, r, &d);
    }
    LumaCoding {
        levels,
        dc: [0; 16],
        cbp,
        rec,
        levels8: None,
    }
}

/// Codes an inter luma residual with the 8x8 transform.
pub fn code_luma_inter8(src: &[u8; 256], pred: &[u8; 256], qp: i32) -> LumaCoding {
    let mut levels8 = Box::new([[0i32; 64]; 4]);
    let mut rec = [0u8; 256];
    let mut cbp = 0;
    for (b8, lv) in levels8.iter_mut().enumerate() {
        let (x0, y0) = (b8 % 2 * 8, b8 / 2 * 8);
        for (i, c) in lv.iter_mut().enumerate() {
            let o = (y0 + i / 8) * 16 + x0 + i % 8;
            *c = i32::from(src[o]) - i32::from(pred[o]);
        }
        t8::fdct8x8(lv);
        if t8::quant8x8(lv, qp, false) {
            cbp |= 1 << b8;
        } else {
            *lv = [0; 64];
        }
        clamp_levels8(lv);
        let mut d = *lv;
        t8::reconstruct8x8(&mut d, qp);
        for (i, v) in d.iter().enumerate() {
            let o = (y0 + i / 8) * 16 + x0 + i % 8;
            rec[o] = (i32::from(pred[o]) + v).clamp(0, 255) as u8;
        }
    }
    LumaCoding {
        levels: [[0; 16]; 16],
        dc: [0; 16],
        cbp,
        rec,
        levels8: Some(levels8),
    }
}

/// Codes both chroma components of a macroblock predicted by `preds`;
/// `quant` is the [`quant_chroma`] of the H1's CPU level.
#[allow(clippy::too_many_arguments)]
pub fn code_chroma(
    src: &Planes,
    chroma_qp_offset: i32,
    x: usize,
    y: usize,
    qp: i32,
    intra: bool,
    preds: &[[u8; 64]; 2],
    quant: QuantChromaFn,
) -> ChromaCoding {
    let qpc = chroma_qp(qp, chroma_qp_offset);
    let planes = [&src.cb[..], &src.cr[..]];
    let mut out = quant(planes, src.cstride(), x, y, qpc, intra, preds);
    for c in 0..2 {
        let mut f = out.dc[c];
        hadamard2x2(&mut f);
        dequant_chroma_dc(&mut f, qpc);
        for b in 0..4 {
            let mut d = out.ac[c][b];
            reconstruct4x4(&mut d, qpc, Some(f[b]));
            let (bx, by) = (b % 2 * 4, b / 2 * 4);
            for i in 0..16 {
                let o = (by + i / 4) * 8 + bx + i % 4;
                out.rec[c][o] = (preds[c][o] as i32 + d[i]).clamp(0, 255) as u8;
            }
        }
    }
    out
}

/// Levels and coded_block_pattern of an inter luma residual.
#[inline(always)]
pub fn quant_luma_inter(src: &[u8; 256], pred: &[u8; 256], qp: i32) -> ([[i32; 16]; 16], u32) {
    let mut levels = [[0i32; 16]; 16];
    let mut cbp = 0;
    for (r, lv) in levels.iter_mut().enumerate() {
        let (bx, by) = (r % 4 * 4, r / 4 * 4);
        *lv = residual_dct(src, pred, r);
        if quant4x4(lv, qp, false, false) {
            clamp_levels(lv);
            cbp |= 1 << ((by / 8) * 2 + bx / 8);
        }
    }
    (levels, cbp)
}

/// Quantized chroma levels (QP'c `qpc`) of macroblock (x, y) of `planes`
/// (Cb, Cr at stride `cs`) predicted by `preds`.
#[inline(always)]
pub fn quant_chroma(
    planes: [&[u8]; 2],
    cs: usize,
    x: usize,
    y: usize,
    qpc: i32,
    intra: bool,
    preds: &[[u8; 64]; 2],
) -> ChromaCoding {
    let mut out = ChromaCoding {
        dc: [[0; 4]; 2],
        ac: [[[0; 16]; 4]; 2],
        cbp: 0,
        rec: [[0; 64]; 2],
    };
    let mut any_ac = false;
    let mut any_dc = false;
    for c in 0..2 {
        // The 8x8 residual, row by row, then its four 4x4 blocks.
        let mut res = [[0i32; 8]; 8];
        for (row, r) in res.iter_mut().enumerate() {
            let src = &planes[c][(y * 8 + row) * cs + x * 8..][..8];
            let pred = &preds[c][row * 8..row * 8 + 8];
            for k in 0..8 {
                r[k] = src[k] as i32 - pred[k] as i32;
            }
        }
        for b in 0..4 {
            let (bx, by) = (b % 2 * 4, b / 2 * 4);
            let d = &mut out.ac[c][b];
            for i in 0..16 {
                d[i] = res[by + i / 4][bx + i % 4];
            }
            fdct4x4(d);
            out.dc[c][b] = d[0];
            any_ac |= quant4x4(d, qpc, intra, true);
            d[0] = 0;
            clamp_levels(d);
        }
        hadamard2x2(&mut out.dc[c]);
        any_dc |= quant_chroma_dc(&mut out.dc[c], qpc, intra);
        for v in out.dc[c].iter_mut() {
            *v = (*v).clamp(-LEVEL_CLAMP, LEVEL_CLAMP);
        }
    }
    out.cbp = if any_ac {
        2
    } else if any_dc {
        1
    } else {
        0
    };
    if !any_ac {
        out.ac = [[[0; 16]; 4]; 2];
    }
    out
}

/// Clamps 8x8 levels to what CAVLC can code.
pub fn clamp_levels8(b: &mut [i32; 64]) {
    for v in b.iter_mut() {
        *v = (*v).clamp(-LEVEL_CLAMP, LEVEL_CLAMP);
    }
}

/// Clamps 4x4 levels to what CAVLC can code.
pub fn clamp_levels(b: &mut [i32; 16]) {
    for v in b.iter_mut() {
        *v = (*v).clamp(-LEVEL_CLAMP, LEVEL_CLAMP);
    }
}

/// Residual of raster 4x4 block `r` of a macroblock, forward transformed.
#[inline(always)]
pub fn residual_dct(src: &[u8; 256], pred: &[u8; 256], r: usize) -> [i32; 16] {
    let (bx, by) = (r % 4 * 4, r / 4 * 4);
    let mut d = [0i32; 16];
    for (i, v) in d.iter_mut().enumerate() {
        let o = (by + i / 4) * 16 + bx + i % 4;
        *v = src[o] as i32 - pred[o] as i32;
    }
    fdct4x4(&mut d);
    d
}

/// Adds residual `d` of raster 4x4 block `r` to the prediction into `rec`.
pub fn add_block(rec: &mut [u8; 256], pred: &[u8; 256], r: usize, d: &[i32; 16]) {
    let (bx, by) = (r % 4 * 4, r / 4 * 4);
    for i in 0..16 {
        let o = (by + i / 4) * 16 + bx + i % 4;
        rec[o] = (pred[o] as i32 + d[i]).clamp(0, 255) as u8;
    }
}
